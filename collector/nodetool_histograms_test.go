package collector

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestNodetoolHistogramsGates(t *testing.T) {
	ctx := context.Background()
	cmd := []string{"nodetool", "-h", "{address}"}
	cases := []struct {
		name string
		in   func(in *Input)
		cmd  []string
		why  string
	}{
		{name: "no command", cmd: nil, why: "command is not set"},
		{name: "another node without {address}", cmd: []string{"nodetool", "-h", "10.0.0.1"}, why: "placeholder"},
		{name: "ScyllaDB", cmd: cmd, in: func(in *Input) { in.Caps = scyllaCaps() }, why: "is Cassandra-only"},
		{name: "Cassandra 4.1", cmd: cmd, in: func(in *Input) { c := *in.Caps; c.Version = "4.1.10"; in.Caps = &c }, why: "fixed in 5.0"},
		{name: "Cassandra 4.0", cmd: cmd, in: func(in *Input) { c := *in.Caps; c.Version = "4.0.19"; in.Caps = &c }, why: "fixed in 5.0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := Input{Caps: cassandra50Caps(), Address: "10.0.0.2", Schema: restSchema("ks", "t")}
			if c.in != nil {
				c.in(&in)
			}
			src := nodetoolHistogramsSource{cfg: NodetoolSamplerConfig{Command: c.cmd}}
			_, err := gatedCollect(ctx, src, in, newOutput(in.Address))
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.why) {
				t.Errorf("want ErrUnsupported saying %q, got %v", c.why, err)
			}
		})
	}
}

// One run for every table of the node; the schema's user tables keep their
// cell counts (a real 5.0.8 capture, see internal/nodetool/testdata).
func TestNodetoolHistogramsOneRun(t *testing.T) {
	runs := t.TempDir() + "/runs"
	capture := "internal/nodetool/testdata/tablehistograms_all_tables_5.0.8.txt"
	cmd := []string{"sh", "-c", `echo "$@" >> ` + runs + `; cat ` + capture, "nodetool", "-h", "{address}"}
	src := nodetoolHistogramsSource{cfg: NodetoolSamplerConfig{Command: cmd}}
	in := Input{Caps: cassandra50Caps(), Address: "127.0.0.51", Schema: restSchema("th", "wide", "th", "empty", "Th2", "KV", "th", "gone")}
	out := newOutput(in.Address)
	n, err := src.Collect(context.Background(), in, out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for k, ts := range out.Node.Tables {
		if k != ts.Keyspace+"."+ts.Table {
			t.Errorf("table %q stored as %s.%s", k, ts.Keyspace, ts.Table)
		}
		got[k] = ts.MaxCellsPerPartition
	}
	want := map[string]int64{"th.wide": 61214, "Th2.KV": 1} // th.empty has no sstables; th.gone is not on the node
	if n != 2 || len(got) != 2 || got["th.wide"] != want["th.wide"] || got["Th2.KV"] != want["Th2.KV"] {
		t.Errorf("got %v (%d rows), want %v", got, n, want)
	}
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "-h 127.0.0.51 tablehistograms\n" {
		t.Errorf("ran %q, want one run with the node's address and no table", b)
	}
	failing := nodetoolHistogramsSource{cfg: NodetoolSamplerConfig{Command: []string{"sh", "-c", "echo 'nodetool: Failed to connect' >&2; exit 1", "nodetool"}}}
	in.Own = true
	if _, err := failing.Collect(context.Background(), in, newOutput(in.Address)); err == nil || !strings.Contains(err.Error(), "Failed to connect") {
		t.Errorf("a failing nodetool: want its message, got %v", err)
	}
}
