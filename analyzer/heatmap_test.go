package analyzer

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/figures"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/analyzer/scope"
	"github.com/partmon/partmon/internal/murmur3"
	"github.com/partmon/partmon/model"
)

// heatStep is one snapshot of a one-node, one-table history.
type heatStep struct {
	at            time.Duration
	reads, writes int64
}

// heatSnap is st's snapshot; stale: the node's latency source failed.
func heatSnap(st heatStep, stale bool) *model.Snapshot {
	s := sizeSnap(st.at, 0, st.reads, st.writes)
	if stale {
		s.Sources = []model.SourceStatus{{Source: "local_read_latency", Node: "10.0.0.1", State: model.StateError,
			Taken: s.Taken, LastSuccess: t0.Add(-time.Hour)}}
	}
	return s
}

func TestHeatRates(t *testing.T) {
	cases := []struct {
		name  string
		steps []heatStep
		stale int // the step whose counters were not read; 0: none (the first step is never stale here)
		// want is the read and write rate of ks.t on h01 in each column;
		// NaN: the table is absent from the column (no traffic).
		want [][2]float64
	}{
		{"first snapshot starts the timeline", []heatStep{{0, 100, 10}}, 0, nil},
		{"steady rates", []heatStep{{0, 100, 10}, {time.Minute, 700, 70}, {2 * time.Minute, 1900, 70}}, 0,
			[][2]float64{{10, 1}, {20, 0}}},
		{"restart: no rate for that step, never a negative one",
			[]heatStep{{0, 1000, 100}, {time.Minute, 1600, 160}, {2 * time.Minute, 50, 5}, {3 * time.Minute, 650, 65}}, 0,
			[][2]float64{{10, 1}, {history.NoRate, history.NoRate}, {10, 1}}},
		{"no traffic leaves the table out", []heatStep{{0, 100, 10}, {time.Minute, 100, 10}}, 0,
			[][2]float64{{math.NaN(), math.NaN()}}},
		{"a node whose counters were not read has no rate",
			[]heatStep{{0, 100, 10}, {time.Minute, 700, 70}, {2 * time.Minute, 1300, 130}}, 1,
			[][2]float64{{math.NaN(), math.NaN()}, {10, 1}}}, // the second rate spans both minutes
		{"zero counters are not recorded: the next step has no rate", []heatStep{{0, 0, 0}, {time.Minute, 0, 600}, {2 * time.Minute, 0, 1200}}, 0,
			[][2]float64{{math.NaN(), math.NaN()}, {0, 10}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := history.New(history.Limits{})
			for i, st := range c.steps {
				record(h, heatSnap(st, c.stale != 0 && i == c.stale))
			}
			if h.Heat == nil || len(h.Heat.Columns) != len(c.want) {
				t.Fatalf("columns %+v, want %d", h.Heat, len(c.want))
			}
			for i, w := range c.want {
				col := h.Heat.Columns[i]
				if col.Start != t0.Add(c.steps[i].at).Unix() || col.End != t0.Add(c.steps[i+1].at).Unix() {
					t.Errorf("column %d spans %d..%d, want the snapshots' times", i, col.Start, col.End)
				}
				r, ok := col.Tables["ks.t"]
				if math.IsNaN(w[0]) {
					if ok {
						t.Errorf("column %d: table present with %+v, want absent", i, r)
					}
					continue
				}
				if got := [2]float64{history.RateAt(r.Reads, 0), history.RateAt(r.Writes, 0)}; got != w {
					t.Errorf("column %d: rates %v, want %v", i, got, w)
				}
			}
		})
	}
}

func TestHeatBoundKeepsSpanAndRates(t *testing.T) {
	for _, limit := range []int{8, 20, 120} {
		h := history.New(history.Limits{HeatColumns: limit})
		const steps = 400
		for i := 0; i <= steps; i++ {
			// 10 reads/s; from step 300 on 40 reads/s.
			reads := 1 + int64(i)*600
			if i > 300 {
				reads = 1 + 300*600 + int64(i-300)*2400
			}
			record(h, sizeSnap(time.Duration(i)*time.Minute, 0, reads, 0))
		}
		cols := h.Heat.Columns
		if len(cols) != limit {
			t.Fatalf("limit %d: %d columns", limit, len(cols))
		}
		if cols[0].Start != t0.Unix() || cols[len(cols)-1].End != t0.Add(steps*time.Minute).Unix() {
			t.Errorf("limit %d: columns span %d..%d, want the whole history", limit, cols[0].Start, cols[len(cols)-1].End)
		}
		var ops, prevSpan float64
		for i, c := range cols {
			if i > 0 && c.Start != cols[i-1].End {
				t.Errorf("limit %d: gap or overlap between columns %d and %d", limit, i-1, i)
			}
			span := float64(c.End - c.Start)
			ops += c.Tables["ks.t"].Reads[0] * span
			if i > 0 && span > prevSpan*4+60 {
				t.Errorf("limit %d: column %d spans %.0f s after one of %.0f s: spans must grow with age", limit, i, span, prevSpan)
			}
			prevSpan = span
		}
		if want := float64(300*600 + 100*2400); math.Abs(ops-want) > 1e-6*want {
			t.Errorf("limit %d: merged columns hold %.0f reads, want %.0f", limit, ops, want)
		}
		if last := cols[len(cols)-1]; last.End-last.Start != 60 || last.Tables["ks.t"].Reads[0] != 40 {
			t.Errorf("limit %d: the newest column is %+v, want one cycle at 40/s", limit, last)
		}
	}
}

func TestHeatTablesCapAndMaxAge(t *testing.T) {
	h := history.New(history.Limits{HeatTables: 2, MaxAge: time.Hour})
	snap := func(at time.Duration, n int64, tables ...string) *model.Snapshot {
		b := newSnap().ring("dc1", 1)
		for i, tbl := range tables {
			b.stats("h01", "ks", tbl, model.TableStats{LocalReads: model.Ops{Count: 1 + n*int64(i+1)}})
		}
		b.s.Taken = t0.Add(at)
		return b.s
	}
	record(h, snap(0, 0, "a", "b", "c"))
	record(h, snap(time.Minute, 600, "a", "b", "c"))
	first := h.Heat.Columns[0].Tables
	if _, ok := first["ks.a"]; ok || len(first) != 2 {
		t.Fatalf("want the 2 busiest tables (b, c), got %v", first)
	}
	// Table c goes away; two hours later only a and b are in the history.
	record(h, snap(2*time.Hour, 1200, "a", "b"))
	record(h, snap(2*time.Hour+time.Minute, 1800, "a", "b"))
	for _, c := range h.Heat.Columns {
		if c.End < t0.Add(time.Hour).Unix() {
			t.Errorf("column ending %d is older than max_age", c.End)
		}
		if _, ok := c.Tables["ks.c"]; ok {
			t.Errorf("a table gone for max_age is still there: %v", c.Tables)
		}
	}
}

func TestHeatJSONRoundTripAndOldStateFile(t *testing.T) {
	h := history.New(history.Limits{})
	record(h, sizeSnap(0, 5*mib, 100, 10))
	record(h, sizeSnap(time.Minute, 5*mib, 700, 70))
	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"heat":{"nodes":["h01"]`) {
		t.Fatalf("heat not serialized: %s", data)
	}
	back, err := history.Decode(data, history.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(back); string(again) != string(data) {
		t.Fatalf("round trip changed the history:\n%s\n%s", data, again)
	}

	// A state file written before the heat history: same version, no field.
	var old map[string]json.RawMessage
	if err := json.Unmarshal(data, &old); err != nil {
		t.Fatal(err)
	}
	delete(old, "heat")
	oldData, _ := json.Marshal(old)
	restored, err := history.Decode(oldData, history.Limits{})
	if err != nil {
		t.Fatalf("a state file without heat must load: %v", err)
	}
	if restored.Heat != nil || len(restored.Traffic["h01"]["ks.t"]) == 0 {
		t.Fatalf("restored %+v", restored)
	}
	// The traffic points it kept give the next cycle's column at once.
	record(restored, sizeSnap(2*time.Minute, 5*mib, 1300, 130))
	record(restored, sizeSnap(3*time.Minute, 5*mib, 1900, 190))
	if n := len(restored.Heat.Columns); n != 1 || restored.Heat.Columns[0].Tables["ks.t"].Reads[0] != 10 {
		t.Fatalf("after two cycles: %+v", restored.Heat)
	}
}

func TestHeatLimitsValidate(t *testing.T) {
	cases := []struct {
		columns, tables int
		want            string
	}{
		{0, 0, ""}, {8, 1, ""}, {1000, 1000, ""},
		{7, 64, "heat_columns: must be in 8..1000, got 7"},
		{120, 1001, "heat_tables: must be in 1..1000, got 1001"},
		{-1, 64, "heat_columns: must be in 8..1000, got -1"},
	}
	for _, c := range cases {
		l := history.DefaultLimits()
		l.HeatColumns, l.HeatTables = c.columns, c.tables
		err := l.Validate()
		if (c.want == "") != (err == nil) || (err != nil && err.Error() != c.want) {
			t.Errorf("columns %d tables %d: %v, want %q", c.columns, c.tables, err, c.want)
		}
	}
}

// heatRing is a 3-node ring, RF 1, with ks.kv (text key) and ks.blobs
// (varint key: no token), read at the given per-node rates for one minute.
func heatRing(rates [3]float64) (*history.History, *model.Snapshot) {
	h := history.New(history.Limits{})
	var s *model.Snapshot
	for step := int64(0); step < 2; step++ {
		b := newSnap().ring("dc1", 3).keyspace("ks", simple("1"), table("kv", pk("k", "text", 0)), table("vi", pk("k", "varint", 0)))
		for i, r := range rates {
			b.stats(hostID(i+1), "ks", "kv", model.TableStats{LocalReads: model.Ops{Count: 1 + int64(float64(step)*60*r)}})
			b.stats(hostID(i+1), "ks", "vi", model.TableStats{LocalReads: model.Ops{Count: 1 + int64(float64(step)*60*r)}})
		}
		b.s.Taken = t0.Add(time.Duration(step) * time.Minute)
		s = b.s
		record(h, s)
	}
	return h, s
}

func TestHeatMapRatiosAndKeys(t *testing.T) {
	h, s := heatRing([3]float64{10, 80, 10})
	s.PerNode["h02"].HotPartitions = []model.HotPartition{
		{Keyspace: "ks", Table: "kv", Key: "hot", Op: "read", Count: 700, Total: 800, Window: 10, Source: "nodetool"},
	}
	r := Analyze(s, h, DefaultThresholds())
	if r.Heat == nil || len(r.Heat.Maps) != 3 {
		t.Fatalf("want the all-tables map, ks.kv's and ks.vi's, got %+v", r.Heat)
	}
	for j, m := range r.Heat.Maps {
		if len(m.Columns) != 1 || len(m.Nodes) != 3 {
			t.Fatalf("map %s.%s: %d columns, %d nodes", m.Keyspace, m.Table, len(m.Columns), len(m.Nodes))
		}
		for i, want := range []struct{ rate, share, ratio float64 }{{10, 0.1, 0.3}, {80, 0.8, 2.4}, {10, 0.1, 0.3}} {
			c := m.Nodes[i].Reads[0]
			if j == 0 {
				want.rate *= 2 // all tables: both tables' reads
			}
			if math.Abs(c.Rate-want.rate) > 1e-9 || math.Abs(c.Share-want.share) > 1e-3 || math.Abs(c.Ratio-want.ratio) > 2e-3 {
				t.Errorf("map %q node %s: %+v, want %+v", m.Table, m.Nodes[i].Address, c, want)
			}
		}
	}
	kv := r.Heat.Maps[1]
	if kv.Table != "kv" {
		kv = r.Heat.Maps[2]
	}
	want, _ := murmur3.KeyToken("hot", []string{"text"})
	if len(kv.Keys) != 1 || !kv.Keys[0].OK || kv.Keys[0].Token != want || len(kv.Keys[0].Columns) != 1 || kv.Keys[0].Columns[0] != 0 {
		t.Fatalf("hot key marker %+v, want token %d", kv.Keys, want)
	}
	if len(r.Heat.Maps[0].Keys) != 1 {
		t.Errorf("the all-tables map must carry the tables' keys: %+v", r.Heat.Maps[0].Keys)
	}
}

func TestHeatMapCellsWithoutRatio(t *testing.T) {
	cases := []struct {
		name  string
		rates [3]float64
		edit  func(*model.Snapshot)
		note  string
	}{
		// 0.5 op/s in all: busy enough to record, idle for a ratio.
		{"under the traffic floor", [3]float64{0.5, 0, 0}, nil, "under the"},
		{"a key type without a token", [3]float64{10, 80, 10}, func(s *model.Snapshot) {
			s.PerNode["h02"].HotPartitions = []model.HotPartition{{Keyspace: "ks", Table: "vi", Key: "12345", Op: "read", Count: 9, Total: 10}}
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, s := heatRing(c.rates)
			if c.edit != nil {
				c.edit(s)
			}
			r := Analyze(s, h, DefaultThresholds())
			if r.Heat == nil {
				t.Fatal("no heatmaps")
			}
			if c.note != "" {
				cell := r.Heat.Maps[1].Nodes[0].Reads[0]
				if cell.Ratio != 0 || !strings.Contains(cell.Note, c.note) {
					t.Fatalf("cell %+v, want no ratio and a note with %q", cell, c.note)
				}
				return
			}
			keys := 0
			for _, m := range r.Heat.Maps[1:] {
				for _, k := range m.Keys {
					keys++
					if k.Table != "vi" || k.OK || !strings.Contains(k.Why, "varint") {
						t.Fatalf("varint key %+v: want no token and why", k)
					}
				}
			}
			if keys != 1 {
				t.Fatalf("want the varint key listed once, got %d keys", keys)
			}
		})
	}
}

// TestHeatMapsOnePerTable: every table with traffic gets a map of its own,
// in table order, with its findings and traffic for the page to arrange by
// (web/heatmap_layout.go).
func TestHeatMapsOnePerTable(t *testing.T) {
	h := history.New(history.Limits{})
	names := []string{"skewed", "t1", "t2", "t3", "t4", "t5", "t6", "t7"}
	var s *model.Snapshot
	for step := int64(0); step < 2; step++ {
		var tables []model.Table
		for _, n := range names {
			tables = append(tables, table(n, pk("k", "text", 0)))
		}
		b := newSnap().ring("dc1", 3).keyspace("ks", simple("1"), tables...)
		for i, n := range names {
			// t1..t7 evenly at 10·i ops/s per node; "skewed" at 10 ops/s, 80 % on one node.
			rates := [3]int64{int64(10 * i), int64(10 * i), int64(10 * i)}
			if n == "skewed" {
				rates = [3]int64{1, 8, 1}
			}
			for j, r := range rates {
				b.stats(hostID(j+1), "ks", n, model.TableStats{LocalReads: model.Ops{Count: 1 + step*60*r, Rate: float64(r)}})
			}
		}
		b.s.Taken = t0.Add(time.Duration(step) * time.Minute)
		s = b.s
		record(h, s)
	}
	r := Analyze(s, h, DefaultThresholds())
	if r.Heat == nil || len(r.Heat.Maps) != 1+len(names) || r.Heat.Maps[0].Table != "" {
		t.Fatalf("heat %+v", r.Heat)
	}
	for i, m := range r.Heat.Maps[1:] {
		// t1..t7 at 10·i ops/s on each of 3 nodes; "skewed" 1+8+1.
		wantTraffic, wantFindings := float64(30*i), false
		if m.Table == "skewed" {
			wantTraffic, wantFindings = 10, true
		}
		if m.Table != names[i] || math.Abs(m.Traffic-wantTraffic) > 1e-9 || (m.Findings > 0) != wantFindings {
			t.Errorf("map %d: %s, traffic %v, %d findings; want %s, traffic %v, findings %v",
				i, m.Table, m.Traffic, m.Findings, names[i], wantTraffic, wantFindings)
		}
		if len(m.Nodes) != 3 || len(m.Nodes[0].Reads) != len(m.Columns) {
			t.Errorf("map %s has no cells of its own: %+v", m.Table, m.Nodes)
		}
	}
	// The all-tables map counts the tables left out too: node 1 serves 1+10+…+70 ops/s.
	if c := r.Heat.Maps[0].Nodes[0].Reads[0]; math.Abs(c.Rate-281) > 1e-9 {
		t.Errorf("all tables on node 1: %+v, want 281 ops/s", c)
	}
}

// heatCluster is the benchmark's synthetic cluster with a full heat
// history: 121 cycles a minute apart, every table read on every node.
func heatCluster(b *testing.B) (*model.Snapshot, *history.History) {
	s, h := syntheticCluster(30, 1000)
	for step := 0; step <= 120; step++ {
		s.Taken = t0.Add(time.Duration(step) * time.Minute)
		for _, nd := range s.PerNode {
			for _, ts := range nd.Tables {
				ts.LocalReads.Count += int64(60 + len(ts.Table)*step)
				ts.LocalWrites.Count += 30
			}
		}
		record(h, s)
	}
	if n := len(h.Heat.Columns); n != history.DefaultLimits().HeatColumns {
		b.Fatalf("%d columns", n)
	}
	return s, h
}

// BenchmarkHeat1000Tables30Nodes: what the heat history adds to a cycle at
// 1,000 tables on 30 nodes (64 tables a column, 120 columns), and its size
// in the state file.
func BenchmarkHeat1000Tables30Nodes(b *testing.B) {
	s, h := heatCluster(b)
	data, _ := json.Marshal(h.Heat)
	b.Run("record", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			s.Taken = t0.Add(time.Duration(121+i) * time.Minute)
			record(h, s)
		}
	})
	b.Run("maps", func(b *testing.B) {
		a := newAnalysis(s, scope.Of(s), h, DefaultThresholds())
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			figures.HeatMapsOf(a.ix, a.h, viewFigures{a}.heatInput(nil))
		}
	})
	b.Logf("heat history: %d columns, %d bytes of JSON", len(h.Heat.Columns), len(data))
}

func TestHeatKeysKeepTheColumnsTheyWereSampledIn(t *testing.T) {
	h := history.New(history.Limits{})
	var s *model.Snapshot
	for step := 0; step < 4; step++ {
		s = sizeSnap(time.Duration(step)*time.Minute, 0, 1+int64(step)*600, 0)
		if step == 1 || step == 2 {
			s.PerNode["h01"].HotPartitions = []model.HotPartition{
				{Keyspace: "ks", Table: "t", Key: "hot", Op: "read", Count: 90, Total: 100},
				{Keyspace: "ks", Table: "t", Key: "warm", Op: "read", Count: 9, Total: 100},
				{Keyspace: "ks", Table: "t", Key: "a", Op: "read", Count: 1, Total: 100},
				{Keyspace: "ks", Table: "t", Key: "b", Op: "read", Count: 1, Total: 100},
			}
		}
		record(h, s)
	}
	// Columns end at steps 1, 2, 3: the samples of steps 1 and 2 are in the first two.
	if got := h.Heat.Columns[0].Keys["ks.t"]; strings.Join(got, ",") != "hot,warm,a" {
		t.Fatalf("column keys %v, want the %d most counted", got, history.HeatKeys)
	}
	r := Analyze(s, h, DefaultThresholds())
	m := r.Heat.Maps[1]
	if len(m.Keys) != 3 {
		t.Fatalf("keys %+v, want hot, warm and a (b was never among a column's three)", m.Keys)
	}
	for _, k := range m.Keys {
		if got := fmt.Sprint(k.Columns); got != "[0 1]" {
			t.Errorf("key %s seen in columns %s, want [0 1]", k.Key, got)
		}
	}
}
