package analyzer

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/figures"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

func TestRuleTombstoneHeavy(t *testing.T) {
	cases := []struct {
		name          string
		p99T, p99L    float64
		count         int64
		ttl           int
		keyTombstones int64
		want          []match
		wantSev       finding.Severity
		wantUnit      string
		wantValue     float64
		inText        []string
	}{
		{name: "no reads", p99T: 5000, count: 0},
		{name: "few tombstones, high ratio: not judged", p99T: 99, p99L: 1, count: 10},
		{name: "ratio just under", p99T: 199, p99L: 801, count: 10},
		{name: "ratio at warning", p99T: 200, p99L: 800, count: 10,
			want: []match{{KindTombstoneHeavy, "ks", "q", "10.0.0.1", ""}}, wantSev: finding.SeverityWarning, wantUnit: finding.UnitRatio, wantValue: 0.2,
			inText: []string{"scan 200 tombstones at p99", "tombstone ratio 0.20 (of the two p99s", "gc_grace_seconds = 864,000 (10.0 d)",
				"SizeTieredCompactionStrategy, set unchecked_tombstone_compaction: true"}},
		{name: "count at warning, ratio low", p99T: 1000, p99L: 100_000, count: 10,
			want: []match{{KindTombstoneHeavy, "ks", "q", "10.0.0.1", ""}}, wantSev: finding.SeverityWarning, wantUnit: finding.UnitTombstones, wantValue: 1000},
		{name: "queue pattern, critical", p99T: 12_000, p99L: 3, count: 10, ttl: 86400,
			want: []match{{KindTombstoneHeavy, "ks", "q", "10.0.0.1", ""}}, wantSev: finding.SeverityCritical, wantUnit: finding.UnitTombstones, wantValue: 12000,
			inText: []string{"queue pattern", "TimeWindowCompactionStrategy with 72 min windows (~TTL/20)"}},
		{name: "a top tombstone partition on its own", count: 0, keyTombstones: 5000,
			want:    []match{{KindTombstoneHeavy, "ks", "q", "", "jobs"}},
			wantSev: finding.SeverityWarning, wantUnit: finding.UnitTombstones, wantValue: 5000, inText: []string{"partition jobs of ks.q holds 5,000 tombstones (reported by 10.0.0.1)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb := table("q", pk("queue", "text", 0), ck("id", "int", 0, "asc"))
			tb.DefaultTTLSeconds = c.ttl
			b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"), tb)
			b.stats("h01", "ks", "q", model.TableStats{
				TombstonesPerRead: model.Distribution{Count: c.count, P50: c.p99T / 2, P99: c.p99T, Max: c.p99T * 2},
				RowsPerRead:       model.Distribution{Count: c.count, P99: c.p99L},
			})
			if c.keyTombstones > 0 {
				b.nodeData("h01").TopPartitions = []model.TopPartition{{Keyspace: "ks", Table: "q", Type: "TOMBSTONES", Key: "jobs", Value: c.keyTombstones}}
			}
			fs := ruleTombstoneHeavy(analysisOf(t, b.s))
			got := scopes(fs)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v: %+v", got, c.want, fs)
			}
			for i := range got {
				f := fs[i]
				if got[i] != c.want[i] || f.Severity != c.wantSev || f.Unit != c.wantUnit || math.Abs(f.Value-c.wantValue) > 1e-9 {
					t.Fatalf("got %v %v %g %s, want %v %v %g %s", got[i], f.Severity, f.Value, f.Unit, c.want[i], c.wantSev, c.wantValue, c.wantUnit)
				}
			}
			for _, s := range c.inText {
				if len(fs) == 0 || !strings.Contains(fs[0].Summary+" | "+fs[0].Advice, s) {
					t.Errorf("missing %q in %+v", s, fs)
				}
			}
		})
	}
}

func TestRuleOwnershipSkew(t *testing.T) {
	q := uint64(1) << 62 // a quarter of the ring
	min := int64(math.MinInt64)
	third := int64(math.MaxInt64 / 3)
	// Node 1 at 0 follows the node at MaxInt64: its range is half the ring;
	// the other three share the other half.
	halfToFirst := []int64{0, third, 2 * third, math.MaxInt64}
	cases := []struct {
		name    string
		tokens  []int64
		repl    map[string]string
		vnodes  bool
		want    []match
		wantSev []finding.Severity
		inText  []string
	}{
		{name: "even ring", tokens: evenTokens(4), repl: simple("1")},
		// Node 1's range is half the ring: 0.5 ÷ 0.25 = 2×.
		{name: "one node owns half", repl: simple("1"), tokens: halfToFirst,
			want:    []match{{KindOwnershipSkew, "ks", "", "10.0.0.1", ""}},
			wantSev: []finding.Severity{finding.SeverityCritical},
			inText:  []string{"10.0.0.1 owns 50 % of ks (effective) in the ring for a fair 25 % (RF 1 over 4 nodes): 2.00×", "move 10.0.0.1 to token", "nodetool cleanup"}},
		{name: "RF 4 of 4: everyone owns everything", repl: simple("4"), tokens: halfToFirst},
		// Nodes 1 and 3 own half each, node 2 almost nothing.
		{name: "vnodes advice", repl: nts("dc1", "1"), vnodes: true,
			want:    []match{{KindOwnershipSkew, "ks", "", "10.0.0.1", ""}, {KindOwnershipSkew, "ks", "", "10.0.0.3", ""}},
			wantSev: []finding.Severity{finding.SeverityCritical, finding.SeverityCritical},
			inText:  []string{"allocate_tokens_for_local_replication_factor: 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap()
			if c.vnodes {
				b.node("h01", "10.0.0.1", "dc1", "r1", min+int64(q), min+int64(3*q))
				b.node("h02", "10.0.0.2", "dc1", "r1", min+int64(q)+10, min+int64(3*q)+10)
				b.node("h03", "10.0.0.3", "dc1", "r1", min+int64(2*q), min+int64(4*q-1))
			} else {
				for i, tok := range c.tokens {
					b.node(hostID(i+1), addr(i+1), "dc1", "r1", tok)
				}
			}
			b.keyspace("ks", c.repl)
			fs := ruleOwnershipSkew(analysisOf(t, b.s))
			got := scopes(fs)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v: %+v", got, c.want, fs)
			}
			for i := range got {
				if got[i] != c.want[i] || fs[i].Severity != c.wantSev[i] {
					t.Fatalf("got %v %v, want %v %v", got[i], fs[i].Severity, c.want[i], c.wantSev[i])
				}
			}
			for _, s := range c.inText {
				if len(fs) == 0 || !strings.Contains(fs[0].Summary+" | "+fs[0].Advice, s) {
					t.Errorf("missing %q in %+v", s, fs)
				}
			}
		})
	}
}

func TestBalancedTokens(t *testing.T) {
	q := uint64(1) << 62
	min := int64(math.MinInt64)
	cases := []struct {
		name   string
		tokens []int64
	}{
		{"already even stays put", evenTokens(4)},
		{"one node off", []int64{min + int64(q/2), min + int64(q+q/2), min + int64(2*q+q/2) + 12345, min + int64(3*q+q/2)}},
		{"crowded", []int64{-30, -20, -10, 0, 10}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := balancedTokens(c.tokens)
			n := len(got)
			step := float64(math.MaxUint64 / uint64(n))
			for i := range got {
				gap := float64(uint64(got[(i+1)%n] - got[i]))
				if math.Abs(gap-step) > 2 {
					t.Fatalf("gap %d = %g, want %g", i, gap, step)
				}
			}
			moved := 0
			for i := range got {
				if got[i] != c.tokens[i] {
					moved++
				}
			}
			if c.name == "already even stays put" && moved != 0 {
				t.Fatalf("an even ring moved %d nodes: %v", moved, got)
			}
			if c.name == "one node off" && moved != 1 {
				t.Fatalf("moved %d nodes, want only the odd one: %v", moved, got)
			}
		})
	}
}

func TestRuleLoadSkew(t *testing.T) {
	cases := []struct {
		name    string
		loads   []float64 // by node, 0 = unknown
		unit    float64   // of loads; GiB when 0
		gossip  bool      // loads come from node 1's gossip only
		want    []match
		wantSev finding.Severity
		inText  []string
	}{
		{name: "even", loads: []float64{100, 100, 100}},
		{name: "just under", loads: []float64{119, 90.5, 90.5}},
		{name: "at warning", loads: []float64{120, 90, 90}, want: []match{{KindLoadSkew, "", "", "10.0.0.1", ""}}, wantSev: finding.SeverityWarning,
			inText: []string{"1.20× the dc1 mean of 100 GiB", "token ownership does not explain it"}},
		{name: "sidecar: loads from gossip", gossip: true, loads: []float64{200, 50, 50}, want: []match{{KindLoadSkew, "", "", "10.0.0.1", ""}}, wantSev: finding.SeverityCritical},
		{name: "only one load known", loads: []float64{500, 0, 0}},
		// Right after a bootstrap, before nodetool cleanup: 1.35× of a 256 KiB
		// mean is info, the advice kept.
		{name: "nearly empty after a bootstrap", loads: []float64{346, 341, 81}, unit: kib,
			want: []match{{KindLoadSkew, "", "", "10.0.0.1", ""}, {KindLoadSkew, "", "", "10.0.0.2", ""}}, wantSev: finding.SeverityInfo,
			inText: []string{"1.35× the dc1 mean of 256 KiB", "below the 1.0 GiB mean", "nodetool cleanup"}},
		// One node flushed, the others hold their rows in memtables (gossip
		// load counts sstables only): 2.68× of a few MiB is info.
		{name: "one node flushed on a few MiB", loads: []float64{16.75, 1, 1}, unit: mib,
			want: []match{{KindLoadSkew, "", "", "10.0.0.1", ""}}, wantSev: finding.SeverityInfo,
			inText: []string{"2.68× the dc1 mean of 6.2", "rows still in memtables are not in the load"}},
		// At the floor a skew is judged again.
		{name: "a 1 GiB mean is judged", loads: []float64{1.5, 0.75, 0.75}, want: []match{{KindLoadSkew, "", "", "10.0.0.1", ""}}, wantSev: finding.SeverityCritical},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 3).keyspace("ks", simple("1"))
			unit := c.unit
			if unit == 0 {
				unit = gib
			}
			for i, l := range c.loads {
				l *= unit / gib
				if c.gossip {
					nd := b.nodeData("h01")
					if nd.GossipLoad == nil {
						nd.GossipLoad = map[string]float64{}
					}
					nd.GossipLoad[addr(i+1)] = l * gib
				} else if l > 0 {
					b.nodeData(hostID(i + 1)).LoadBytes = l * gib
				}
			}
			fs := ruleLoadSkew(analysisOf(t, b.s))
			got := scopes(fs)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v: %+v", got, c.want, fs)
			}
			for i := range got {
				if got[i] != c.want[i] || fs[i].Severity != c.wantSev {
					t.Fatalf("got %v %v, want %v %v: %s", got[i], fs[i].Severity, c.want[i], c.wantSev, fs[i].Summary)
				}
			}
			for _, s := range c.inText {
				if len(fs) == 0 || !strings.Contains(fs[0].Summary+" | "+fs[0].Advice, s) {
					t.Errorf("missing %q in %+v", s, fs)
				}
			}
		})
	}
}

func TestRuleStaleData(t *testing.T) {
	after := DefaultThresholds().StaleAfter
	status := func(src string, state model.SourceState, age time.Duration) model.SourceStatus {
		st := model.SourceStatus{Source: src, Node: "10.0.0.1", State: state, Taken: t0}
		if age >= 0 {
			st.LastSuccess = t0.Add(-age)
		}
		return st
	}
	ok, failed := model.StateOK, model.StateError
	never := func(src string, tried time.Duration) model.SourceStatus {
		return model.SourceStatus{Source: src, Node: "10.0.0.1", State: failed, Taken: t0, FirstAttempt: t0.Add(-tried)}
	}
	cases := []struct {
		name      string
		sources   []model.SourceStatus
		wantSev   finding.Severity
		wantValue float64
		wantAge   float64 // NodeSummary.DataAgeSeconds
		inText    []string
	}{
		{name: "fresh", sources: []model.SourceStatus{status("a", ok, time.Minute)}, wantAge: 60},
		{name: "a slow schedule is not stale", sources: []model.SourceStatus{status("a", ok, time.Minute), status("settings", ok, 30*time.Minute)},
			wantAge: 1800},
		{name: "failing, data still young", sources: []model.SourceStatus{status("a", ok, 0), status("b", failed, after)},
			wantSev: finding.SeverityInfo, wantValue: after.Seconds(), wantAge: after.Seconds(), inText: []string{"failing now: b", "their data is 15 min old"}},
		{name: "failing, data too old", sources: []model.SourceStatus{status("a", ok, 0), status("b", failed, after+time.Second)},
			wantSev: finding.SeverityWarning, wantValue: (after + time.Second).Seconds(), wantAge: (after + time.Second).Seconds()},
		// A first cycle or a one-shot report: no data yet is not an alert.
		{name: "never read, first attempt", sources: []model.SourceStatus{status("a", failed, -1)},
			wantSev: finding.SeverityInfo, wantValue: 0, inText: []string{"never read: a (tried for 0 s)"}},
		{name: "never read, tried for less than stale_after", sources: []model.SourceStatus{never("a", after)},
			wantSev: finding.SeverityInfo, wantValue: after.Seconds(), inText: []string{"never read: a (tried for 15 min)"}},
		{name: "never read, tried for longer", sources: []model.SourceStatus{never("a", after+time.Second)},
			wantSev: finding.SeverityCritical, wantValue: (after + time.Second).Seconds()},
		{name: "never read beside failing data", sources: []model.SourceStatus{status("b", failed, 2*after), never("a", time.Minute)},
			wantSev: finding.SeverityWarning, wantValue: (2 * after).Seconds(), wantAge: (2 * after).Seconds(), inText: []string{"never read: a (tried for 60 s)", "failing now: b, a"}},
		{name: "unsupported is not stale", sources: []model.SourceStatus{
			{Source: "top_partitions", Node: "10.0.0.1", State: model.StateUnsupported, Taken: t0}}},
		// Another client's sampling on the node: the keys are missing, the
		// node's data is not.
		{name: "a busy sampler is not stale", sources: []model.SourceStatus{status("a", ok, time.Minute),
			{Source: "nodetool_sampler", Node: "10.0.0.1", State: model.StateBusy, Taken: t0, FirstAttempt: t0.Add(-2 * after)}}, wantAge: 60},
		{name: "cluster sources do not make a node stale", sources: []model.SourceStatus{
			{Source: "schema", State: model.StateError, Taken: t0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 2).sources(c.sources...)
			a := analysisOf(t, b.s)
			fs := ruleStaleData(a)
			nodes := figures.Nodes(a.ix)
			if nodes[0].DataAgeSeconds != c.wantAge || nodes[1].Stale {
				t.Fatalf("node summaries: %+v", nodes)
			}
			if c.wantSev == finding.SeverityNone {
				if len(fs) != 0 || nodes[0].Stale {
					t.Fatalf("want none, got %+v (stale %v)", fs, nodes[0].Stale)
				}
				return
			}
			if len(fs) != 1 || fs[0].Severity != c.wantSev || fs[0].Value != c.wantValue || fs[0].Node != "10.0.0.1" || fs[0].Unit != finding.UnitSeconds {
				t.Fatalf("got %+v, want %v %g", fs, c.wantSev, c.wantValue)
			}
			if !nodes[0].Stale {
				t.Fatalf("NodeSummary.Stale not set: %+v", nodes[0])
			}
			for _, s := range c.inText {
				if !strings.Contains(fs[0].Summary, s) {
					t.Errorf("missing %q in %q", s, fs[0].Summary)
				}
			}
		})
	}
}

func TestFailedTrafficSourcesHideRates(t *testing.T) {
	s := trafficSnap(simple("1"), []float64{200, 50, 50}, []float64{0, 0, 0})
	s.Sources = append(s.Sources, model.SourceStatus{Source: "local_read_latency", Node: "10.0.0.1", State: model.StateError,
		Taken: t0, LastSuccess: t0.Add(-time.Hour)})
	if fs := ruleHotTokenRange(analysisOf(t, s)); len(fs) != 0 {
		t.Fatalf("rates of a node whose counters were not read must not count: %+v", fs)
	}
	s.Sources[0].Source = "scylla_top_partitions" // another source failing does not matter
	if fs := ruleHotTokenRange(analysisOf(t, s)); len(fs) != 1 {
		t.Fatalf("want the hot range back, got %+v", fs)
	}
}
