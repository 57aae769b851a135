package collector

// Fuzz targets for the CQL row parsers: ring tokens (system.local and
// system.peers[_v2] rows) and system.top_partitions' list<tuple<text,bigint>>.
// A malformed row must be an error for that source, never a panic. Row
// values have the Go types the gocql adapter produces (cql.Row); the
// fuzzers also feed the wrong types a changed schema would produce. Seeds:
// testdata/fuzz/<FuzzName>/ (run by `go test`); explore with
// `go test -fuzz=FuzzParseTokens ./collector/`.

import (
	"context"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
)

// FuzzParseTokens: the tokens column of a ring row, comma-joined.
func FuzzParseTokens(f *testing.F) {
	for _, seed := range []string{
		"-9223372036854775808,-3074457345618258603,3074457345618258602",
		"", "0", "9223372036854775807", "-1,1,-1",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		raw := strings.Split(joined, ",")
		tokens, err := parseTokens(raw)
		if err != nil {
			return
		}
		if len(tokens) != len(raw) {
			t.Fatalf("%d tokens from %d strings", len(tokens), len(raw))
		}
		if !slices.IsSorted(tokens) {
			t.Fatalf("tokens not sorted: %v", tokens)
		}
		want := make([]int64, 0, len(raw))
		for _, s := range raw {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("accepted %q, which is not an int64", s)
			}
			want = append(want, v)
		}
		slices.Sort(want)
		if !slices.Equal(tokens, want) {
			t.Fatalf("tokens %v, want %v", tokens, want)
		}
	})
}

// FuzzParseNodeRow: one system.peers_v2 row. nulls is a bit set of the
// columns sent as NULL; wrongType one sent with another Go type.
func FuzzParseNodeRow(f *testing.F) {
	f.Add("0336672a-b5e0-451c-91f9-3102c721259b", "dc1", "r1", "127.0.0.5", "127.0.0.5", "-3074457345618258603", uint8(0), uint8(0))
	f.Add("id", "", "", "0.0.0.0", "127.0.0.6", "1,2,3", uint8(0), uint8(0))
	f.Add("id", "dc1", "r1", "::", "", "", uint8(0b10000), uint8(0))
	f.Add("id", "dc1", "r1", "not-an-ip", "127.0.0.5", "1", uint8(0), uint8(3))
	f.Add("id", "dc1", "r1", "127.0.0.5", "127.0.0.5", "x", uint8(0), uint8(6))
	columns := []string{"host_id", "data_center", "rack", "native_address", "peer", "tokens", "release_version", "schema_version"}
	f.Fuzz(func(t *testing.T, hostID, dc, rack, native, peer, tokens string, nulls, wrongType uint8) {
		r := cql.Row{
			"host_id": hostID, "data_center": dc, "rack": rack, "native_address": native, "peer": peer,
			"tokens": strings.Split(tokens, ","), "release_version": "5.0.8", "schema_version": "v",
		}
		for i, col := range columns {
			if nulls&(1<<i) != 0 {
				r[col] = nil
			}
		}
		if int(wrongType) < len(columns) {
			r[columns[wrongType]] = int64(len(tokens)) // an int where text (or a set) is expected
		}
		n, err := parseNode(cql.NewDecoder(r), "native_address", "peer", "")
		if err != nil {
			return
		}
		ip := net.ParseIP(n.Address)
		if ip == nil || ip.IsUnspecified() {
			t.Fatalf("node address %q is not a usable IP", n.Address)
		}
		if n.HostID != hostID {
			t.Fatalf("host_id %q, want %q", n.HostID, hostID)
		}
		if !slices.IsSorted(n.Tokens) {
			t.Fatalf("tokens not sorted: %v", n.Tokens)
		}
	})
}

// FuzzTopPartitionsRow: one system.top_partitions row. Each byte of shape
// picks how one element of the `top` list looks (a proper (text, bigint)
// tuple or one of the malformed ones below); keys are '|'-separated.
func FuzzTopPartitionsRow(f *testing.F) {
	f.Add("pm_big", "events", "SIZES", "big|medium", int64(115343360), []byte{0, 0}, int64(1767225600000), uint8(0))
	f.Add("pm_tomb", "queue", "TOMBSTONES", "jobs", int64(250000), []byte{0}, int64(0), uint8(1))
	f.Add("ks", "t", "SIZES", "", int64(-1), []byte{}, int64(0), uint8(2))
	f.Add("ks", "t", "SIZES", "a|b|c|d|e|f", int64(1), []byte{0, 1, 2, 3, 4, 5}, int64(0), uint8(0))
	f.Add("", "", "", "k", int64(0), []byte{6, 7}, int64(-1), uint8(3))
	f.Fuzz(func(t *testing.T, ks, table, typ, keys string, value int64, shape []byte, lastUpdateMillis int64, variant uint8) {
		names := strings.Split(keys, "|")
		top := make([][]any, 0, len(shape))
		for i, s := range shape {
			key := names[i%len(names)]
			switch s % 8 {
			case 0:
				top = append(top, []any{key, value})
			case 1:
				top = append(top, []any{key}) // short tuple
			case 2:
				top = append(top, []any{nil, value}) // NULL key
			case 3:
				top = append(top, []any{key, int32(value)}) // int where bigint is expected
			case 4:
				top = append(top, []any{key, nil}) // NULL value
			case 5:
				top = append(top, []any{key, value, key}) // long tuple
			case 6:
				top = append(top, nil) // NULL tuple
			default:
				top = append(top, []any{[]byte(key), float64(value)}) // blob and double
			}
		}
		r := cql.Row{"keyspace_name": ks, "table_name": table, "top_type": typ, "top": top,
			"last_update": time.UnixMilli(lastUpdateMillis)}
		switch variant % 5 {
		case 1:
			r["top"] = nil // a table never tracked
		case 2:
			r["top"] = []string{keys} // the column changed type
		case 3:
			r["last_update"] = lastUpdateMillis // bigint instead of timestamp
		case 4:
			delete(r, "top_type")
		}
		fq := newFake("127.0.0.4").on(topPartitionsQuery, r)
		out := newOutput(fq.addr)
		_, err := topPartitionsSource{}.Collect(context.Background(), Input{Q: fq, Caps: cassandra50Caps(), Address: fq.addr}, out)
		if err != nil {
			return
		}
		got := out.Node.TopPartitions
		if want := len(top); r["top"] == nil {
			want = 0
			if len(got) != want {
				t.Fatalf("%d partitions from a NULL list", len(got))
			}
		} else if len(got) != want {
			t.Fatalf("%d partitions from %d tuples", len(got), want)
		}
		for i, p := range got {
			if p.Keyspace != ks || p.Table != table || p.Type != typ {
				t.Fatalf("partition %d is %s.%s %s, want %s.%s %s", i, p.Keyspace, p.Table, p.Type, ks, table, typ)
			}
			if p.Key != top[i][0] || p.Value != top[i][1] {
				t.Fatalf("partition %d is (%q, %d), want %v", i, p.Key, p.Value, top[i])
			}
		}
	})
}
