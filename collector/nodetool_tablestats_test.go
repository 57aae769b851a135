package collector

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/partmon/partmon/model"
)

// One run per node for the user keyspaces; the schema's tables keep their
// distinct-key counts (a real 5.0.8 capture, see internal/nodetool/testdata).
func TestNodetoolTablestatsOneRun(t *testing.T) {
	runs := t.TempDir() + "/runs"
	capture := "internal/nodetool/testdata/tablestats_json_5.0.8.json"
	cmd := []string{"sh", "-c", `echo "$@" >> ` + runs + `; cat ` + capture, "nodetool", "-h", "{address}"}
	src := nodetoolTablestatsSource{cfg: NodetoolSamplerConfig{Command: cmd}}
	in := Input{Caps: cassandra50Caps(), Address: "127.0.0.72", Schema: restSchema("hll", "t", "hll", "many", "hll", "gone")}
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
		if ts.DistinctPartitions == nil {
			t.Fatalf("%s: no count", k)
		}
		got[k] = *ts.DistinctPartitions
	}
	if n != 2 || len(got) != 2 || got["hll.t"] != 10 || got["hll.many"] != 2569 {
		t.Errorf("got %v (%d rows), want hll.t 10, hll.many 2569", got, n)
	}
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "-h 127.0.0.72 tablestats -F json hll\n" {
		t.Errorf("ran %q, want one run with the node's address and the user keyspace", b)
	}
	// With the node's figures: only the table holding data is asked, by
	// name; the others are counted 0 without asking.
	if err := os.Remove(runs); err != nil {
		t.Fatal(err)
	}
	in.Holding = map[string]bool{"hll.t": true}
	held := newOutput(in.Address)
	if n, err = src.Collect(context.Background(), in, held); err != nil {
		t.Fatal(err)
	}
	got = map[string]int64{}
	for k, ts := range held.Node.Tables {
		got[k] = *ts.DistinctPartitions
	}
	if want := map[string]int64{"hll.t": 10, "hll.many": 0, "hll.gone": 0}; n != 3 || !reflect.DeepEqual(got, want) {
		t.Errorf("with holding figures: got %v (%d rows), want %v", got, n, want)
	}
	if b, err = os.ReadFile(runs); err != nil || string(b) != "-h 127.0.0.72 tablestats -F json hll.t\n" {
		t.Errorf("with holding figures ran %q (%v), want one run for hll.t", b, err)
	}
	in.Holding = nil
	failing := nodetoolTablestatsSource{cfg: NodetoolSamplerConfig{Command: []string{"sh", "-c", "echo 'nodetool: Unknown keyspace: hll'; exit 1", "nodetool"}}}
	in.Own = true
	if _, err := failing.Collect(context.Background(), in, newOutput(in.Address)); err == nil || !strings.Contains(err.Error(), "Unknown keyspace") {
		t.Errorf("a failing nodetool: want its message, got %v", err)
	}
	in.Caps = &Capabilities{Engine: model.EngineScyllaDB}
	if _, err := gatedCollect(context.Background(), src, in, newOutput(in.Address)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("ScyllaDB: want ErrUnsupported, got %v", err)
	}
}
