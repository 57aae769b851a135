package history

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/scope"
	"github.com/partmon/partmon/model"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const mib = 1 << 20

// ringSnap is a one-node ring at t0 with no table figures.
func ringSnap() *model.Snapshot {
	return &model.Snapshot{
		Taken: t0, Cluster: "test", Engine: model.EngineCassandra, Version: "5.0.8",
		Partitioner: "org.apache.cassandra.dht.Murmur3Partitioner",
		Nodes: []model.Node{{HostID: "h01", Address: "10.0.0.1", DC: "dc1", Rack: "r1", Tokens: []int64{0},
			Targeted: true, ReleaseVersion: "5.0.8"}},
		PerNode: map[string]*model.NodeData{},
	}
}

// sizeSnap is a one-node snapshot at t0+at with one table's max partition
// size and traffic counters.
func sizeSnap(at time.Duration, maxBytes, reads, writes int64) *model.Snapshot {
	s := ringSnap()
	s.Schema.Keyspaces = []model.Keyspace{{Name: "ks", Replication: map[string]string{
		"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"},
		Tables: []model.Table{{Keyspace: "ks", Name: "t", Columns: []model.Column{{Name: "id", Type: "text", Kind: "partition_key"}}}}}}
	ts := &model.TableStats{Keyspace: "ks", Table: "t", MaxPartitionBytes: maxBytes,
		LocalReads: model.Ops{Count: reads}, LocalWrites: model.Ops{Count: writes}}
	for _, o := range []*model.Ops{&ts.LocalReads, &ts.LocalWrites} {
		if o.Count > 0 {
			o.Rate = -1
		}
	}
	s.PerNode["h01"] = &model.NodeData{HostID: "h01", Address: "10.0.0.1", Tables: map[string]*model.TableStats{"ks.t": ts}}
	s.Taken = t0.Add(at)
	return s
}

// record adds s to h the way Analyze does.
func record(h *History, s *model.Snapshot) { h.Record(s, scope.Of(s)) }

func TestHistoryRecordSizes(t *testing.T) {
	cases := []struct {
		name  string
		snaps []*model.Snapshot
		want  []SizePoint
	}{
		{"first point", []*model.Snapshot{sizeSnap(0, 5*mib, 0, 0)},
			[]SizePoint{{t0.Unix(), 5 * mib}}},
		{"same snapshot twice is one point", []*model.Snapshot{sizeSnap(0, 5*mib, 0, 0), sizeSnap(0, 6*mib, 0, 0)},
			[]SizePoint{{t0.Unix(), 5 * mib}}},
		{"older snapshot ignored", []*model.Snapshot{sizeSnap(time.Minute, 5*mib, 0, 0), sizeSnap(0, 6*mib, 0, 0)},
			[]SizePoint{{t0.Unix() + 60, 5 * mib}}},
		{"unchanged value within keep-alive is not stored", []*model.Snapshot{
			sizeSnap(0, 5*mib, 0, 0), sizeSnap(sizeKeepAlive-time.Second, 5*mib, 0, 0)},
			[]SizePoint{{t0.Unix(), 5 * mib}}},
		{"unchanged value at keep-alive is stored", []*model.Snapshot{
			sizeSnap(0, 5*mib, 0, 0), sizeSnap(sizeKeepAlive, 5*mib, 0, 0)},
			[]SizePoint{{t0.Unix(), 5 * mib}, {t0.Add(sizeKeepAlive).Unix(), 5 * mib}}},
		{"a change is stored at once", []*model.Snapshot{sizeSnap(0, 5*mib, 0, 0), sizeSnap(time.Minute, 6*mib, 0, 0)},
			[]SizePoint{{t0.Unix(), 5 * mib}, {t0.Unix() + 60, 6 * mib}}},
		{"zero size is not a point", []*model.Snapshot{sizeSnap(0, 0, 0, 0)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := New(Limits{})
			for _, s := range c.snaps {
				record(h, s)
			}
			got := h.Sizes["ks.t"]
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

func TestHistoryThinningKeepsBoundAndRecentDensity(t *testing.T) {
	h := New(Limits{MaxPoints: 20, MaxAge: 30 * 24 * time.Hour, TrafficWindow: 15 * time.Minute})
	// 5-minute cycles for 3 days, a new size each time.
	const cycles = 3 * 24 * 12
	for i := 0; i < cycles; i++ {
		record(h, sizeSnap(time.Duration(i)*5*time.Minute, int64(i+1)*mib, 0, 0))
	}
	pts := h.Sizes["ks.t"]
	if len(pts) != 20 {
		t.Fatalf("kept %d points, want the bound 20", len(pts))
	}
	first, last := pts[0][0], pts[len(pts)-1][0]
	if first != t0.Unix() || last != t0.Add((cycles-1)*5*time.Minute).Unix() {
		t.Fatalf("oldest and newest must survive thinning: got %d..%d", first-t0.Unix(), last-t0.Unix())
	}
	recentGap := pts[len(pts)-1][0] - pts[len(pts)-2][0]
	oldGap := pts[2][0] - pts[1][0]
	if recentGap >= oldGap {
		t.Fatalf("spacing should grow with age: newest gap %ds, old gap %ds", recentGap, oldGap)
	}
}

func TestHistoryMaxAge(t *testing.T) {
	h := New(Limits{MaxPoints: 50, MaxAge: time.Hour, TrafficWindow: 15 * time.Minute})
	record(h, sizeSnap(0, 5*mib, 0, 0))
	record(h, sizeSnap(30*time.Minute, 6*mib, 0, 0))
	record(h, sizeSnap(90*time.Minute, 7*mib, 0, 0))
	got := h.Sizes["ks.t"]
	if len(got) != 2 || got[0][1] != 6*mib {
		t.Fatalf("points older than max_age must go: %v", got)
	}
	// A table gone from the snapshots disappears after max_age.
	later := ringSnap()
	later.Taken = t0.Add(3 * time.Hour)
	record(h, later)
	if _, ok := h.Sizes["ks.t"]; ok {
		t.Fatalf("series of a vanished table kept: %v", h.Sizes)
	}
}

func TestHistoryTraffic(t *testing.T) {
	w := 15 * time.Minute
	type rec struct {
		at            time.Duration
		reads, writes int64
	}
	cases := []struct {
		name string
		recs []rec
		want []TrafficPoint // relative seconds in [0]
	}{
		{"spaced points kept", []rec{{0, 10, 1}, {4 * time.Minute, 20, 2}, {8 * time.Minute, 30, 3}},
			[]TrafficPoint{{0, 10, 1}, {240, 20, 2}, {480, 30, 3}}},
		{"close points collapse to the newest", []rec{{0, 10, 1}, {time.Minute, 20, 2}, {2 * time.Minute, 30, 3}},
			[]TrafficPoint{{0, 10, 1}, {120, 30, 3}}},
		{"unchanged counters keep the older time", []rec{{0, 10, 1}, {time.Minute, 10, 1}},
			[]TrafficPoint{{0, 10, 1}}},
		{"restart resets the series", []rec{{0, 100, 10}, {5 * time.Minute, 3, 1}},
			[]TrafficPoint{{300, 3, 1}}},
		{"one point before the window stays as base", []rec{
			{0, 10, 1}, {5 * time.Minute, 20, 2}, {10 * time.Minute, 30, 3}, {20 * time.Minute, 50, 5}, {25 * time.Minute, 60, 6}},
			[]TrafficPoint{{600, 30, 3}, {1200, 50, 5}, {1500, 60, 6}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := New(Limits{TrafficWindow: w})
			for _, r := range c.recs {
				record(h, sizeSnap(r.at, 0, r.reads, r.writes))
			}
			got := h.Traffic["h01"]["ks.t"]
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v (relative)", got, c.want)
			}
			for i := range got {
				g := got[i]
				g[0] -= t0.Unix()
				if g != c.want[i] {
					t.Fatalf("point %d: got %v, want %v", i, g, c.want[i])
				}
			}
		})
	}
}

func TestHistorySkipsFailedNodesAndSystemTables(t *testing.T) {
	s := sizeSnap(0, 5*mib, 100, 10)
	s.PerNode["h01"].Tables["system.local"] = &model.TableStats{Keyspace: "system", Table: "local",
		MaxPartitionBytes: 9 * mib, LocalReads: model.Ops{Count: 5}}
	s.Sources = []model.SourceStatus{{Source: "local_read_latency", Node: "10.0.0.1", State: model.StateError, Taken: t0, LastSuccess: t0.Add(-time.Hour)}}
	h := New(Limits{})
	record(h, s)
	if len(h.Traffic) != 0 {
		t.Fatalf("a failed node's counters are from an earlier read; got %v", h.Traffic)
	}
	if _, ok := h.Sizes["system.local"]; ok {
		t.Fatalf("system tables recorded: %v", h.Sizes)
	}
	if len(h.Sizes["ks.t"]) != 1 {
		t.Fatalf("user table not recorded: %v", h.Sizes)
	}
}

func TestHistoryJSONRoundTrip(t *testing.T) {
	h := New(Limits{})
	record(h, sizeSnap(0, 5*mib, 100, 10))
	record(h, sizeSnap(5*time.Minute, 6*mib, 200, 20))
	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if string(again) != string(data) {
		t.Fatalf("round trip changed the history:\n%s\n%s", data, again)
	}
	if !strings.Contains(string(data), `"ks.t":[[`) {
		t.Fatalf("points should serialize as compact arrays: %s", data)
	}

	for _, bad := range []struct{ in, want string }{
		{`{"version":2}`, "history version 2 is not supported (want 1)"},
		{`{}`, "history version 0 is not supported (want 1)"},
		{`[`, "decoding history: unexpected end of JSON input"},
	} {
		if _, err := Decode([]byte(bad.in), Limits{}); err == nil || err.Error() != bad.want {
			t.Errorf("DecodeHistory(%s) = %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestDecodeHistoryAppliesNewLimits(t *testing.T) {
	h := New(Limits{MaxPoints: 50})
	for i := 0; i < 40; i++ {
		record(h, sizeSnap(time.Duration(i)*time.Minute, int64(i+1)*mib, 0, 0))
	}
	data, _ := json.Marshal(h)
	back, err := Decode(data, Limits{MaxPoints: 10})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(back.Sizes["ks.t"]); n != 10 {
		t.Fatalf("kept %d points under a 10-point limit", n)
	}
}
