package collector

import (
	"context"
	"errors"
	"maps"
	"os"
	"strings"
	"testing"
	"time"
)

func TestNodetoolSourceGates(t *testing.T) {
	ctx := context.Background()
	in := Input{Caps: cassandra50Caps(), Address: "10.0.0.2", Schema: restSchema("ks", "t")}
	pinned := nodetoolSource{cfg: NodetoolSamplerConfig{Command: []string{"nodetool", "-h", "10.0.0.1"}}}
	if _, err := gatedCollect(ctx, pinned, in, newOutput(in.Address)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a command without {address} on another node: want ErrUnsupported, got %v", err)
	}
	scylla := in
	scylla.Caps = scyllaCaps()
	scylla.Own = true
	if _, err := gatedCollect(ctx, pinned, scylla, newOutput(in.Address)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("ScyllaDB: want ErrUnsupported, got %v", err)
	}
}

// One run of the command for every user table of the node: the source
// passes the schema's user tables and keeps only their keys (a real
// capture of one run over every table, see internal/nodetool/testdata).
func TestNodetoolSourceOneRunForAllTables(t *testing.T) {
	dir := t.TempDir()
	runs := dir + "/runs"
	capture := "internal/nodetool/testdata/profileload_all_tables_k255.txt"
	cmd := []string{"sh", "-c", `echo "$@" >> ` + runs + `; cat ` + capture, "nodetool"}
	src := nodetoolSource{cfg: NodetoolSamplerConfig{Command: cmd, Duration: time.Second}}
	// cap.users is not in the schema (created since it was read); system tables never are user tables.
	in := Input{Caps: cassandra50Caps(), Address: "127.0.0.1", Own: true, Schema: restSchema("cap", "events", "cap", "MixedCase", "cap2", "sessions")}
	out := newOutput(in.Address)
	n, err := src.Collect(context.Background(), in, out)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]int{}
	for _, h := range out.Node.HotPartitions {
		tables[h.Keyspace+"."+h.Table]++
		if h.Window != 1 {
			t.Errorf("%+v: window %v, want 1 s", h, h.Window)
		}
	}
	// Expected: per table in the schema, min(rows of each section, top_k 10).
	raw, err := os.ReadFile(capture)
	if err != nil {
		t.Fatal(err)
	}
	perOp := map[string]int{}
	op := ""
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "Frequency of ") {
			op = line
		} else if f := strings.Fields(line); len(f) > 0 && op != "" {
			perOp[op+"|"+f[0]]++
		}
	}
	want, total := map[string]int{}, 0
	for k, v := range perOp {
		table := k[strings.IndexByte(k, '|')+1:]
		if table == "cap.events" || table == "cap.MixedCase" || table == "cap2.sessions" {
			want[table] += min(v, 10)
			total += min(v, 10)
		}
	}
	if !maps.Equal(tables, want) || n != total || len(want) != 3 {
		t.Errorf("kept %v (%d), want %v (%d)", tables, n, want, total)
	}
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "profileload"); got != 1 {
		t.Errorf("nodetool ran %d times for 3 tables, want once", got)
	}
}
