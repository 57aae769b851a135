package index

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/scope"
	"github.com/partmon/partmon/model"
)

func stats(ks, t string, maxBytes int64) *model.TableStats {
	return &model.TableStats{Keyspace: ks, Table: t, MaxPartitionBytes: maxBytes}
}

func TestOf(t *testing.T) {
	s := &model.Snapshot{
		Taken: time.Unix(1000, 0),
		Nodes: []model.Node{{HostID: "h2", Address: "10.0.0.2", DC: "dc1"}, {HostID: "h1", Address: "10.0.0.1", DC: "dc1"}},
		PerNode: map[string]*model.NodeData{
			"h2": {Address: "10.0.0.2", Tables: map[string]*model.TableStats{
				"app.b": stats("app", "b", 300), "app.a": stats("app", "a", -5), "system.local": stats("system", "local", 9),
			}},
			"h1": {Address: "10.0.0.1", Tables: map[string]*model.TableStats{"app.a": stats("app", "a", 100), "app.c": nil}},
			"h9": {Address: "10.0.0.9", Tables: map[string]*model.TableStats{"app.a": stats("app", "a", 700)}},
			"h0": nil,
		},
	}
	ix := Of(s, scope.Scope{System: map[string]bool{"system": true}})
	type row struct {
		host, addr string
		raw, sane  int64
	}
	got := map[string][]row{}
	var order []string
	for _, tb := range ix.Tables {
		order = append(order, tb.Key)
		for _, r := range tb.Nodes {
			got[tb.Key] = append(got[tb.Key], row{r.Node.HostID, r.Node.Address, r.Raw.MaxPartitionBytes, r.Stats.MaxPartitionBytes})
		}
	}
	cases := []struct {
		name      string
		got, want any
	}{
		{"tables in first-named order, system and nil left out", order, []string{"app.a", "app.b"}},
		{"app.a rows by host ID, garbage size made 0, unknown node by its own address", got["app.a"],
			[]row{{"h1", "10.0.0.1", 100, 100}, {"h2", "10.0.0.2", -5, 0}, {"h9", "10.0.0.9", 700, 700}}},
		{"app.b", got["app.b"], []row{{"h2", "10.0.0.2", 300, 300}}},
		{"max bytes", []int64{ix.Tables[0].MaxBytes, ix.Tables[1].MaxBytes}, []int64{700, 300}},
		{"nodes by host ID, nil data left out", []string{ix.Nodes[0].HostID, ix.Nodes[1].HostID, ix.Nodes[2].HostID}, []string{"h1", "h2", "h9"}},
		{"the ring's node itself", ix.Nodes[0].Node == &s.Nodes[1], true},
		{"a node the ring does not name has no DC", ix.Nodes[2].Node.DC, ""},
	}
	for _, c := range cases {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if len(ix.Nodes) != 3 {
		t.Errorf("nodes %d, want 3", len(ix.Nodes))
	}
}

func TestSane(t *testing.T) {
	neg := int64(-3)
	in := model.TableStats{
		MeanPartitionBytes: -1, DistinctPartitions: &neg,
		LocalReads:        model.Ops{Count: -4, Rate: math.NaN(), PerSecond: math.Inf(1)},
		LocalWrites:       model.Ops{Rate: -1, PerSecond: 2},
		TombstonesPerRead: model.Distribution{P99: -2, Max: math.NaN()},
	}
	got := Sane(&in)
	cases := []struct {
		name      string
		got, want any
	}{
		{"negative size", got.MeanPartitionBytes, int64(0)},
		{"negative distinct count dropped", got.DistinctPartitions == nil, true},
		{"negative count", got.LocalReads.Count, int64(0)},
		{"NaN rate unknown", got.LocalReads.Rate, -1.0},
		{"+Inf per second", got.LocalReads.PerSecond, 0.0},
		{"unknown rate kept", got.LocalWrites.Rate, -1.0},
		{"finite per second kept", got.LocalWrites.PerSecond, 2.0},
		{"negative percentile", got.TombstonesPerRead.P99, 0.0},
		{"NaN max", got.TombstonesPerRead.Max, 0.0},
		{"the input untouched", in.MeanPartitionBytes, int64(-1)},
	}
	for _, c := range cases {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}
