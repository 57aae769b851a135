package murmur3

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// KeyToken is the token of a partition key written as nodetool and
// Cassandra's logs print it (AbstractType.getString; composite components
// joined with ':', a ':' inside a component escaped as "\:"), given the CQL
// types of the partition key columns in order. A type it does not know, or a
// value that does not parse, is an error, never a guessed token.
func KeyToken(key string, types []string) (int64, error) {
	b, err := SerializeKey(key, types)
	if err != nil {
		return 0, err
	}
	return Token(b), nil
}

// SerializeKey is the partition key's bytes as the partitioner hashes them:
// one column is its value's bytes; several are CompositeType's encoding,
// each component as a 2-byte big-endian length, the bytes and a 0x00
// end-of-component byte.
func SerializeKey(key string, types []string) ([]byte, error) {
	switch len(types) {
	case 0:
		return nil, fmt.Errorf("no partition key types")
	case 1:
		return Value(key, types[0])
	}
	parts := splitComposite(key)
	if len(parts) != len(types) {
		return nil, fmt.Errorf("key %q has %d components, the partition key %d columns", key, len(parts), len(types))
	}
	var out []byte
	for i, p := range parts {
		v, err := Value(p, types[i])
		if err != nil {
			return nil, err
		}
		if len(v) > math.MaxUint16 {
			return nil, fmt.Errorf("component %d is %d bytes, more than a composite holds", i, len(v))
		}
		out = binary.BigEndian.AppendUint16(out, uint16(len(v)))
		out = append(out, v...)
		out = append(out, 0)
	}
	return out, nil
}

// splitComposite undoes AbstractCompositeType's escaping: it splits at ':'
// not preceded by '\', turns "\:" back into ':', and drops the '!' that
// getString appends to a component ending in '\' or '!'.
func splitComposite(key string) []string {
	var parts []string
	var cur strings.Builder
	flush := func() {
		c := cur.String()
		if n := len(c); n >= 2 && c[n-1] == '!' && (c[n-2] == '\\' || c[n-2] == '!') {
			c = c[:n-1]
		}
		parts = append(parts, c)
		cur.Reset()
	}
	for i := 0; i < len(key); i++ {
		switch {
		case key[i] == '\\' && i+1 < len(key) && key[i+1] == ':':
			cur.WriteByte(':')
			i++
		case key[i] == ':':
			flush()
		default:
			cur.WriteByte(key[i])
		}
	}
	flush()
	return parts
}

// dateEpoch is the value Cassandra's date type stores for 1970-01-01: days
// are unsigned with the epoch at 2^31 (SimpleDateType).
const dateEpoch = 1 << 31

// Value is one column value's bytes as Cassandra serializes its type, from
// the text AbstractType.getString prints.
func Value(s, cqlType string) ([]byte, error) {
	b, err := value(s, cqlType)
	if err != nil {
		return nil, fmt.Errorf("%s value %q: %w", cqlType, s, err)
	}
	return b, nil
}

func value(s, cqlType string) ([]byte, error) {
	t := strings.ToLower(strings.TrimSpace(cqlType))
	switch t {
	case "text", "varchar", "ascii":
		return []byte(s), nil
	case "int":
		v, err := strconv.ParseInt(s, 10, 32)
		return binary.BigEndian.AppendUint32(nil, uint32(v)), err
	case "bigint", "counter":
		v, err := strconv.ParseInt(s, 10, 64)
		return binary.BigEndian.AppendUint64(nil, uint64(v)), err
	case "smallint":
		v, err := strconv.ParseInt(s, 10, 16)
		return binary.BigEndian.AppendUint16(nil, uint16(v)), err
	case "tinyint":
		v, err := strconv.ParseInt(s, 10, 8)
		return []byte{byte(v)}, err
	case "boolean":
		v, err := strconv.ParseBool(s)
		if v {
			return []byte{1}, err
		}
		return []byte{0}, err
	case "double":
		v, err := strconv.ParseFloat(s, 64)
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)), err
	case "float":
		v, err := strconv.ParseFloat(s, 32)
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(v))), err
	case "uuid", "timeuuid":
		return parseUUID(s)
	case "blob":
		return hex.DecodeString(strings.TrimPrefix(s, "0x"))
	case "timestamp":
		ms, err := parseTimestamp(s)
		return binary.BigEndian.AppendUint64(nil, uint64(ms)), err
	case "date":
		d, err := time.Parse("2006-01-02", s)
		days := d.Unix() / 86400
		return binary.BigEndian.AppendUint32(nil, uint32(days+dateEpoch)), err
	case "inet":
		a, err := netip.ParseAddr(strings.TrimPrefix(s, "/"))
		return a.AsSlice(), err
	}
	return nil, fmt.Errorf("type %s is not supported for tokens", cqlType)
}

func parseUUID(s string) ([]byte, error) {
	h := strings.ReplaceAll(s, "-", "")
	if len(h) != 32 {
		return nil, fmt.Errorf("uuid %q is not 32 hex digits", s)
	}
	return hex.DecodeString(h)
}

// parseTimestamp reads milliseconds since the epoch, or the ISO 8601 text
// TimestampType prints (with or without milliseconds and zone).
func parseTimestamp(s string) (int64, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05.000Z0700", "2006-01-02T15:04:05Z0700", time.RFC3339Nano,
		"2006-01-02 15:04:05.000Z0700", "2006-01-02 15:04:05Z0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("timestamp %q is neither milliseconds nor ISO 8601", s)
}
