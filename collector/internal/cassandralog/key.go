package cassandralog

import (
	"encoding/hex"
	"strings"
)

// Key is the partition a single-partition read names, in Cassandra's text
// form of a key (AbstractType.getString, the form system.top_partitions and
// the large-partition warnings print): the value itself, or for a composite
// key every component with ':' escaped as "\:", joined by ':'
// (AbstractCompositeType.getString). keyColumns are the table's partition
// key columns in order (system_schema.columns, kind partition_key).
// ok is false when the query does not restrict every key column with "=":
// a range read, a truncated text, or a schema that does not match.
func (q Query) Key(keyColumns []string) (key string, ok bool) {
	if q.TokenRange || len(keyColumns) == 0 || len(q.Where) == 0 {
		return "", false
	}
	var values []string
	if first := q.Where[0]; first.Legacy && len(first.Columns) > 1 {
		// 4.0: "k1, k2 = v1, v2"; text values are unquoted, so a value
		// holding ", " makes the split ambiguous.
		if !sameColumns(first.Columns, keyColumns) || first.Op != "=" {
			return "", false
		}
		values = strings.Split(first.Value, ", ")
		if len(values) != len(keyColumns) {
			return "", false
		}
	} else {
		if len(q.Where) < len(keyColumns) {
			return "", false
		}
		for i, col := range keyColumns {
			r := q.Where[i]
			if r.Op != "=" || len(r.Columns) != 1 || r.Columns[0] != col {
				return "", false
			}
			v := r.Value
			if !r.Legacy {
				v = literalText(v)
			}
			values = append(values, v)
		}
	}
	if len(values) == 1 {
		return values[0], true
	}
	for i, v := range values {
		values[i] = escapeComponent(v)
	}
	return strings.Join(values, ":"), true
}

func sameColumns(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// literalText turns a CQL literal into the value's text form: quoted text
// loses its quotes (a doubled quote inside stands for one), a blob 0xCAFE is
// cafe (BytesType.getString is bare hex); numbers, uuids and booleans read
// the same either way. Collections, tuples and UDTs keep their CQL form.
func literalText(lit string) string {
	if len(lit) >= 2 && lit[0] == '\'' && lit[len(lit)-1] == '\'' {
		return strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
	}
	if len(lit) > 2 && (lit[:2] == "0x" || lit[:2] == "0X") {
		if b, err := hex.DecodeString(lit[2:]); err == nil {
			return hex.EncodeToString(b)
		}
	}
	return lit
}

// escapeComponent is AbstractCompositeType.escape: ':' becomes "\:", and a
// component ending in '\' or '!' gets a '!' appended.
func escapeComponent(s string) string {
	if s == "" {
		return s
	}
	s = strings.ReplaceAll(s, ":", `\:`)
	if last := s[len(s)-1]; last == '\\' || last == '!' {
		s += "!"
	}
	return s
}
