package truth

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

// hotScenario plants a hot key on partition 0 of products and allows a
// hot range on any node.
func hotScenario(design string) *Scenario {
	s := &Scenario{Name: "hot", Keyspace: "truth_hot", Design: design,
		Tables: []Table{{Name: "products", Partitions: 10, Rows: 1}}}
	if design == DesignBad {
		s.Expect = []Expectation{{Kind: "hot_partition", Table: "products", MinSeverity: "warning", Phase: PhaseBoth,
			Key: &KeyRef{Table: "products", Partition: 0}, NodeOf: &KeyRef{Table: "products", Partition: 0}}}
		s.Allow = []Expectation{{Kind: "hot_token_range", Table: "products", Phase: PhaseBoth, MinSeverity: "warning"}}
	}
	return s
}

func hotTruth() *Truth {
	return &Truth{
		Replicas: map[string][]string{"truth_hot.products/0": {"10.0.0.2"}},
		DC:       map[string]string{"10.0.0.1": "dc1", "10.0.0.2": "dc1"},
		Keys:     map[string]string{"truth_hot.products/0": "SKU-0"},
	}
}

func TestJudgeScenario(t *testing.T) {
	hot := func(sev, node, key string) Finding {
		return Finding{ID: sev + node + key, Kind: "hot_partition", Severity: sev, Keyspace: "truth_hot", Table: "products", Node: node, PartitionKey: key}
	}
	cases := []struct {
		name     string
		design   string
		findings []Finding
		found    bool
		verdicts []string
		note     string
	}{
		{"found", DesignBad, []Finding{hot("critical", "10.0.0.2", "SKU-0")}, true, []string{VerdictExpected}, ""},
		{"folded nodes", DesignBad, []Finding{{ID: "x", Kind: "hot_partition", Severity: "warning", Keyspace: "truth_hot", Table: "products",
			Nodes: nodeList{"10.0.0.2"}, PartitionKey: "SKU-0"}}, true, []string{VerdictExpected}, ""},
		// 10.0.0.1 holds no replica of SKU-0: a fold that takes in a neighbour is misplaced.
		{"folded over a neighbour", DesignBad, []Finding{{ID: "x", Kind: "hot_partition", Severity: "warning", Keyspace: "truth_hot", Table: "products",
			Nodes: nodeList{"10.0.0.1", "10.0.0.2"}, PartitionKey: "SKU-0"}}, false, []string{VerdictMisplaced}, "names node 10.0.0.1, which holds no replica of the key"},
		{"below severity", DesignBad, []Finding{hot("info", "10.0.0.2", "SKU-0")}, false, []string{VerdictAllowed}, "below the expected warning"},
		{"no node", DesignBad, []Finding{hot("critical", "", "SKU-0")}, false, []string{VerdictMisplaced}, "names no node"},
		{"wrong node", DesignBad, []Finding{hot("critical", "10.0.0.1", "SKU-0")}, false, []string{VerdictMisplaced}, "names node 10.0.0.1"},
		{"wrong key", DesignBad, []Finding{hot("critical", "10.0.0.2", "SKU-7")}, false, []string{VerdictMisplaced}, `names key "SKU-7"`},
		{"nothing", DesignBad, nil, false, nil, "no hot_partition finding on truth_hot.products"},
		{"allowed kind", DesignBad, []Finding{hot("critical", "10.0.0.2", "SKU-0"),
			{ID: "r", Kind: "hot_token_range", Severity: "warning", Keyspace: "truth_hot", Table: "products", Node: "10.0.0.2"}},
			true, []string{VerdictExpected, VerdictAllowed}, ""},
		{"unplanned kind", DesignBad, []Finding{hot("critical", "10.0.0.2", "SKU-0"),
			{ID: "w", Kind: "wide_partition", Severity: "warning", Keyspace: "truth_hot", Table: "products"}},
			true, []string{VerdictExpected, VerdictFalse}, ""},
		{"good design, info", DesignGood, []Finding{{ID: "i", Kind: "unbucketed_time_series", Severity: "info", Keyspace: "truth_hot"}},
			false, []string{VerdictInfo}, ""},
		{"good design, warning", DesignGood, []Finding{{ID: "w", Kind: "unbucketed_time_series", Severity: "warning", Keyspace: "truth_hot"}},
			false, []string{VerdictFalse}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, judged := hotTruth().judgeScenario(hotScenario(c.design), PhaseOneShot, c.findings, nil)
			if c.design == DesignBad {
				if len(res) != 1 || res[0].Found != c.found {
					t.Fatalf("expectation results %+v, want found=%v", res, c.found)
				}
				if !strings.Contains(res[0].Note, c.note) {
					t.Errorf("note %q, want it to contain %q", res[0].Note, c.note)
				}
				if res[0].Key != "SKU-0" || len(res[0].Nodes) != 1 || res[0].Nodes[0] != "10.0.0.2" {
					t.Errorf("truth in the result: key %q nodes %v", res[0].Key, res[0].Nodes)
				}
			} else if len(res) != 0 {
				t.Fatalf("a good design has no expectations, got %+v", res)
			}
			if len(judged) != len(c.verdicts) {
				t.Fatalf("%d judged findings, want %d", len(judged), len(c.verdicts))
			}
			for i, v := range c.verdicts {
				if judged[i].Verdict != v {
					t.Errorf("finding %d (%s): verdict %s (%s), want %s", i, judged[i].Kind, judged[i].Verdict, judged[i].Why, v)
				}
			}
		})
	}
}

func TestJudgePhases(t *testing.T) {
	s := hotScenario(DesignBad)
	s.Expect[0].Phase = PhaseDaemon
	res, _ := hotTruth().judgeScenario(s, PhaseOneShot, nil, nil)
	if len(res) != 0 {
		t.Errorf("a daemon-only expectation counted in the one-shot phase: %+v", res)
	}
	res, _ = hotTruth().judgeScenario(s, PhaseDaemon, nil, nil)
	if len(res) != 1 || res[0].Found {
		t.Errorf("daemon phase results %+v, want one missed expectation", res)
	}
}

func TestNodesOfDC(t *testing.T) {
	tr := &Truth{Replicas: map[string][]string{"truth_hot.products/0": {"10.0.0.2", "10.0.1.1"}},
		DC: map[string]string{"10.0.0.2": "dc1", "10.0.1.1": "dc2"}}
	s := hotScenario(DesignBad)
	e := Expectation{NodeOf: &KeyRef{Table: "products", Partition: 0, DC: "dc2"}}
	if got := tr.nodesOf(s, &e); len(got) != 1 || got[0] != "10.0.1.1" {
		t.Errorf("replicas in dc2: %v", got)
	}
}

// node_in names nodes by DC and rack, so a scenario runs on any addresses.
func TestNodesOfRack(t *testing.T) {
	tr := &Truth{DC: map[string]string{"10.0.0.1": "dc1", "10.0.0.2": "dc1", "10.0.0.3": "dc1", "10.0.1.1": "dc2"},
		Rack: map[string]string{"10.0.0.1": "r1", "10.0.0.2": "r1", "10.0.0.3": "r2", "10.0.1.1": "r2"}}
	s := hotScenario(DesignBad)
	for _, c := range []struct {
		ref  NodeRef
		want []string
	}{
		{NodeRef{DC: "dc1", Rack: "r2"}, []string{"10.0.0.3"}},
		{NodeRef{DC: "dc1", Rack: "r1"}, []string{"10.0.0.1", "10.0.0.2"}},
		{NodeRef{DC: "dc3", Rack: "r1"}, []string{}},
	} {
		e := Expectation{NodeIn: &c.ref}
		if got := tr.nodesOf(s, &e); got == nil || !slices.Equal(got, c.want) {
			t.Errorf("node_in %+v: %v, want %v", c.ref, got, c.want)
		}
	}
}

func TestContradictions(t *testing.T) {
	cases := []struct {
		name        string
		f           Finding
		maxRows     int64
		minRow      int64
		maxBytes    int64
		wantContain string
	}{
		{"consistent", Finding{Kind: "oversized_partition", Severity: "warning", Value: 60 << 20, Threshold: 50 << 20, Unit: "bytes"}, 0, 0, 0, ""},
		{"below threshold", Finding{Kind: "oversized_partition", Severity: "warning", Value: 40 << 20, Threshold: 50 << 20, Unit: "bytes"}, 0, 0, 0, "below threshold"},
		{"lower is worse", Finding{Kind: "low_cardinality_key", Severity: "warning", Value: 400, Threshold: 300, Unit: "partitions"}, 0, 0, 0, "not below threshold"},
		// "crosses 100 MiB in 29 min" at critical (threshold 1 d): a forecast's value is worse the lower it is.
		{"a forecast: sooner is worse", Finding{Kind: "partition_growth_forecast", Severity: "critical", Value: 1732, Threshold: 86400, Unit: "seconds"}, 0, 0, 0, ""},
		{"a forecast later than its threshold", Finding{Kind: "partition_growth_forecast", Severity: "critical", Value: 90000, Threshold: 86400, Unit: "seconds"}, 0, 0, 0, "not below threshold"},
		{"share above 1", Finding{Kind: "hot_partition", Severity: "info", Value: 1.3, Unit: "ratio"}, 0, 0, 0, "outside 0..1"},
		{"rows do not fit", Finding{Kind: "wide_partition", Severity: "warning", Value: 1500000, Threshold: 100000, Unit: "rows"}, 0, 150, 2 << 20, "cannot fit"},
		{"more rows than written", Finding{Kind: "wide_partition", Severity: "warning", Value: 120000, Threshold: 100000, Unit: "rows"}, 5000, 0, 0, "ever held more than 5000"},
		{"rows that fit", Finding{Kind: "wide_partition", Severity: "warning", Value: 120000, Threshold: 100000, Unit: "rows"}, 150000, 100, 18 << 20, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(contradictions(&c.f, c.maxRows, c.minRow, c.maxBytes), "; ")
			if c.wantContain == "" && got != "" || !strings.Contains(got, c.wantContain) {
				t.Errorf("contradictions %q, want %q", got, c.wantContain)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	res := &ClusterResult{Cluster: "single",
		Scenarios: []ScenarioBrief{{Name: "hot", Design: DesignBad}, {Name: "calm", Design: DesignGood}, {Name: "quiet", Design: DesignGood}},
		Phases: []PhaseResult{{Phase: PhaseOneShot,
			Expected: []ExpectResult{{Kind: "hot_partition", Found: true}, {Kind: "hot_token_range", Found: false}},
			Findings: []Judged{
				{Finding: Finding{Kind: "hot_partition"}, Scenario: "hot", Verdict: VerdictExpected},
				{Finding: Finding{Kind: "wide_partition"}, Scenario: "calm", Verdict: VerdictFalse},
				{Finding: Finding{Kind: "unbucketed_time_series"}, Scenario: "quiet", Verdict: VerdictInfo},
			},
			Figures: []FigureCheck{{OK: true}, {OK: false}, {OK: false, LaterWindow: true}, {OK: true, LaterWindow: true}},
		}}}
	s := Summarize([]*ClusterResult{res}, PhaseOneShot)
	rows := map[string]KindRow{}
	for _, r := range s.Rows {
		rows[r.Kind] = r
	}
	if r := rows["hot_partition"]; r.Planted != 1 || r.Found != 1 || r.Missed != 0 {
		t.Errorf("hot_partition row %+v", r)
	}
	if r := rows["hot_token_range"]; r.Planted != 1 || r.Missed != 1 {
		t.Errorf("hot_token_range row %+v", r)
	}
	if r := rows["wide_partition"]; r.False != 1 {
		t.Errorf("wide_partition row %+v", r)
	}
	if s.Good != 2 || s.GoodSilent != 1 || s.Figures != 2 || s.FiguresOK != 1 || !s.Failed() {
		t.Errorf("summary good %d/%d figures %d/%d failed %v", s.GoodSilent, s.Good, s.FiguresOK, s.Figures, s.Failed())
	}
	// Later windows are counted apart; their misses are listed with the figure errors.
	if s.Later != 2 || s.LaterOK != 1 || len(s.FigureErrors) != 2 {
		t.Errorf("later windows %d/%d, figure errors %d", s.LaterOK, s.Later, len(s.FigureErrors))
	}
	if empty := Summarize([]*ClusterResult{res}, PhaseDaemon); empty.ScenarioCount != 0 || empty.Failed() {
		t.Errorf("a phase that did not run: %+v", empty)
	}
}

func TestSamplingTolerance(t *testing.T) {
	cases := []struct {
		p      float64
		n1, n2 int64
		min    float64
		max    float64
	}{
		{0.7, 100000, 100000, 10, 10},
		{0.7, 101, 41, 20, 30},
		{0.5, 1000, 0, 10, 10},
	}
	for _, c := range cases {
		if got := samplingTolerance(c.p, c.n1, c.n2); got < c.min || got > c.max {
			t.Errorf("samplingTolerance(%g, %d, %d) = %.1f, want %.0f..%.0f", c.p, c.n1, c.n2, got, c.min, c.max)
		}
	}
	if n := sampledOps("key 0 takes 80 % of t's sampled reads on n (33 ± 0 of 1,041 operations, sampler total)"); n != 1041 {
		t.Errorf("sampledOps = %d", n)
	}
}

func TestJudgeOutside(t *testing.T) {
	cases := []struct {
		name    string
		f       Finding
		checks  []FigureCheck
		verdict string
	}{
		{"skew nodetool agrees", Finding{Kind: "load_skew", Severity: "warning", Threshold: 1.2}, []FigureCheck{{Reference: 1.26}}, VerdictAllowed},
		{"skew nodetool disagrees", Finding{Kind: "load_skew", Severity: "warning", Threshold: 1.2}, []FigureCheck{{Reference: 1.05}}, VerdictFalse},
		{"skew without nodetool", Finding{Kind: "ownership_skew", Severity: "warning", Threshold: 1.2}, nil, VerdictOutside},
		{"stale with every node up", Finding{Kind: "stale_data", Severity: "critical"}, nil, VerdictFalse},
		{"stale at info", Finding{Kind: "stale_data", Severity: "info"}, nil, VerdictOutside},
		{"another keyspace", Finding{Kind: "hot_partition", Severity: "critical", Keyspace: "pm_hot"}, nil, VerdictOutside},
	}
	for _, c := range cases {
		if got, _ := judgeOutside(&c.f, c.checks); got != c.verdict {
			t.Errorf("%s: %s, want %s", c.name, got, c.verdict)
		}
	}
}

func TestFigureBounds(t *testing.T) {
	cases := []struct {
		name    string
		summary string
		value   float64
		ref     float64
		ok      bool
	}{
		{"value within 10 %", "largest partition is 72 MiB", 105, 100, true},
		{"value off", "largest partition is 72 MiB", 150, 100, false},
		{"upper bound holds", "has at most ~117 partitions", 117, 5, true},
		{"upper bound broken", "has at most ~3 partitions", 3, 5, false},
		{"lower bound holds", "holds at least 120,000 rows", 120000, 150000, true},
		{"lower bound broken", "holds at least 200,000 rows", 200000, 150000, false},
		// nodetool's sample did not hold the key at all (make test, stop 18:
		// the infinite error it gave broke the results' JSON).
		{"reference 0", "key hot takes 40 % of ks.t's sampled reads", 0.4, 0, false},
		{"both 0", "key hot takes 0 %", 0, 0, true},
	}
	for _, c := range cases {
		got := newCheck(&Finding{Summary: c.summary, Value: c.value}, "", c.ref, "test", 10)
		if got.OK != c.ok {
			t.Errorf("%s: ok %v (%+v), want %v", c.name, got.OK, got, c.ok)
		}
		if _, err := json.Marshal(got); err != nil {
			t.Errorf("%s: %+v does not encode: %v", c.name, got, err)
		}
		if c.ref == 0 && c.value != 0 && (got.ErrorPct != nil || pct(got.ErrorPct) != "∞ (reference 0)") {
			t.Errorf("%s: error %v, want none (reference 0)", c.name, got.ErrorPct)
		}
	}
}

// TestJudgeUnknown: a planted problem partmon said it could not judge on
// that table counts as a stated unknown, apart from the silent misses that
// fail the run; a note about another table or kind does not count.
func TestJudgeUnknown(t *testing.T) {
	cases := []struct {
		name        string
		notes       []string
		wantUnknown bool
	}{
		{"no note", nil, false},
		{"the table's note", []string{"hot_partition of truth_hot.products unknown: no sampler ran"}, true},
		{"a per-node note", []string{"hot_partition of truth_hot.products on 10.0.0.2 unknown: range reads ran"}, true},
		{"another table", []string{"hot_partition of truth_hot.productsx unknown: no sampler ran"}, false},
		{"another kind", []string{"wide_partition of truth_hot.products unknown: pages"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _ := hotTruth().judgeScenario(hotScenario(DesignBad), PhaseOneShot, nil, c.notes)
			if len(res) != 1 || res[0].Found || res[0].Unknown != c.wantUnknown {
				t.Fatalf("got %+v, want unknown %v", res, c.wantUnknown)
			}
			s := Summary{}
			s.addPhase(&ClusterResult{}, PhaseResult{Expected: res}, func(string) *KindRow { return &KindRow{} })
			if s.Failed() == c.wantUnknown {
				t.Errorf("Failed() = %v with unknown %v: only a silent miss fails", s.Failed(), c.wantUnknown)
			}
		})
	}
}

// TestNodeValues: a folded finding's figure on a node is that node's own
// value, not the value of the node that speaks for the finding.
func TestNodeValues(t *testing.T) {
	var f Finding
	in := `{"id":"x","kind":"hot_partition","value":0.8,"nodes":[{"node":"10.0.0.1","value":0.8},{"node":"10.0.0.2","value":0.6}]}`
	if err := json.Unmarshal([]byte(in), &f); err != nil {
		t.Fatal(err)
	}
	if got := []string(f.Nodes); len(got) != 2 || got[1] != "10.0.0.2" {
		t.Fatalf("nodes %v", got)
	}
	for node, want := range map[string]float64{"10.0.0.1": 0.8, "10.0.0.2": 0.6, "10.0.0.3": 0.8} {
		if c := newCheck(&f, node, 0.6, "ref", 10); c.Partmon != want {
			t.Errorf("%s: checked %g, want %g", node, c.Partmon, want)
		}
	}
	if err := json.Unmarshal([]byte(`{"id":"y","value":2,"nodes":["10.0.0.1"]}`), &f); err != nil || len(f.NodeValues) != 0 || f.Nodes[0] != "10.0.0.1" {
		t.Fatalf("a plain address list: %+v %v", f, err)
	}
}

// TestProjectedSizeChecksTheMeasuredOne: a growing unbucketed series' value
// is where its growth takes it; nodetool witnesses the size measured now.
func TestProjectedSizeChecksTheMeasuredOne(t *testing.T) {
	var f Finding
	in := `{"id":"u","kind":"unbucketed_time_series","keyspace":"ks","table":"t","node":"10.0.0.1","value":26118903731,"unit":"bytes","figures":{"partition_bytes":36700160}}`
	if err := json.Unmarshal([]byte(in), &f); err != nil {
		t.Fatal(err)
	}
	obs := &Observations{Stats: map[string]map[string]TableStat{"10.0.0.1": {"ks.t": {MaxPartitionBytes: 36157190}}}}
	checks := checkFigures(&f, figureContext{obs: obs, hosts: []string{"10.0.0.1"}})
	if len(checks) != 1 || checks[0].Partmon != 36700160 || !checks[0].OK {
		t.Fatalf("checks %+v: want the measured 36700160 against nodetool's 36157190, within 10 %%", checks)
	}
}

// A table nodetool was not asked about (make test's own fixtures beside the
// corpus) has no reference: no check, rather than a check against 0.
func TestNoTablestatsIsNoReference(t *testing.T) {
	f := Finding{ID: "o", Kind: "oversized_partition", Keyspace: "pm_big", Table: "events", Node: "10.0.0.1", Value: 130023424, Unit: "bytes"}
	obs := &Observations{Stats: map[string]map[string]TableStat{"10.0.0.1": {"ks.t": {MaxPartitionBytes: 1}}}}
	if checks := checkFigures(&f, figureContext{obs: obs, hosts: []string{"10.0.0.1"}}); len(checks) != 0 {
		t.Fatalf("want no check, got %+v", checks)
	}
}

// A results file read back (truthcorpus table, make truth's exit code)
// keeps every verdict: Finding's UnmarshalJSON, promoted to Judged, must not
// drop them, or the table counts 0 false where the run judged some.
func TestResultsRoundTripKeepVerdicts(t *testing.T) {
	in := ClusterResult{
		Scenarios: []ScenarioBrief{{Name: "iot", Design: DesignGood}},
		Phases: []PhaseResult{{Phase: PhaseOneShot, Findings: []Judged{{
			Finding:  Finding{ID: "f", Kind: "hot_partition", Severity: "critical", Keyspace: "ks", Value: 0.87, Unit: "ratio"},
			Scenario: "iot", Verdict: VerdictFalse, Why: "a good design", Contradictions: []string{"x"},
		}}}},
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out ClusterResult
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	j := out.Phases[0].Findings[0]
	if j.Verdict != VerdictFalse || j.Scenario != "iot" || j.Why != "a good design" || len(j.Contradictions) != 1 || j.Kind != "hot_partition" || j.Value != 0.87 {
		t.Fatalf("read back %+v", j)
	}
	if s := Summarize([]*ClusterResult{&out}, PhaseOneShot); s.FalseAboveInfo != 1 || s.GoodSilent != 0 {
		t.Fatalf("summary of the read-back results: %d false, %d good designs silent; want 1 and 0", s.FalseAboveInfo, s.GoodSilent)
	}
}

func TestBoundOfTakesTheFirstBoundWord(t *testing.T) {
	for _, c := range []struct{ summary, want string }{
		{"a partition holds at least 105,779 rows; no sstable fragment holds at most 349,525 rows of 3 bytes", "lower"},
		{"key k takes at most 60 % of ks.t's sampled reads; at least 3 nodes", "upper"},
		{"key k takes 26 % of ks.t's sampled reads", ""},
	} {
		if got := boundOf(c.summary); got != c.want {
			t.Errorf("boundOf(%q) = %q, want %q", c.summary, got, c.want)
		}
	}
}

// TestGrowingPartitionIsHeldToItsRange: a daemon can read a growing
// partition at 30,408,704 bytes while tablestats says 36,157,190 after the
// report, the partition having grown through the phase. Partmon's reading
// is held to the size from the phase's start to after the report; a
// partition that did not grow keeps the one reference.
func TestGrowingPartitionIsHeldToItsRange(t *testing.T) {
	f := Finding{ID: "o", Kind: "oversized_partition", Keyspace: "ks", Table: "t", Node: "10.0.0.1", Value: 30408704, Unit: "bytes"}
	after := map[string]map[string]TableStat{"10.0.0.1": {"ks.t": {MaxPartitionBytes: 36157190}}}
	cases := []struct {
		name  string
		start int64
		ok    bool
		err   float64
	}{
		{name: "grew from below partmon's reading: inside", start: 25109160, ok: true, err: 0},
		{name: "grew, but partmon read less than its start", start: 34000000, ok: false, err: 100 * (34000000 - 30408704.0) / 34000000},
		{name: "did not grow: one reference", start: 36157190, ok: false, err: 100 * (36157190 - 30408704.0) / 36157190},
		{name: "no start figure: one reference", start: 0, ok: false, err: 100 * (36157190 - 30408704.0) / 36157190},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obs := &Observations{Stats: after, StatsBegin: map[string]map[string]TableStat{"10.0.0.1": {"ks.t": {MaxPartitionBytes: c.start}}}}
			checks := checkFigures(&f, figureContext{obs: obs, hosts: []string{"10.0.0.1"}})
			if len(checks) != 1 || checks[0].OK != c.ok || checks[0].ErrorPct == nil || math.Abs(*checks[0].ErrorPct-c.err) > 1e-9 {
				t.Fatalf("checks %+v: want ok %v, error %.3f %%", checks, c.ok, c.err)
			}
		})
	}
}

// partmon's "unknown" notes on corpus tables are counted, and one on a
// judgement the truth says the evidence settles fails the run.
func TestUnknownNotesOnDecidedTables(t *testing.T) {
	sc := &Scenario{Name: "users_by_email", Keyspace: "truth_users_email",
		Decided: []Expectation{{Kind: "wide_partition", Table: "users_by_email", Phase: PhaseBoth, Why: "no clustering column"}}}
	other := &Scenario{Name: "orders", Keyspace: "truth_orders"}
	notes := []string{
		"wide_partition of truth_users_email.users_by_email unknown: room for 349,525 rows",
		"wide_partition of truth_orders.orders_by_country on 127.0.0.2 unknown: range reads ran",
		"unbucketed_time_series of truth_orders.orders unknown: needs 4 points",
		"wide_partition of pm_hot.kv unknown: not a corpus keyspace",
		"keyspace legacy: replication not understood, ownership skipped: unknown class",
	}
	got := unknownNotes([]*Scenario{sc, other}, PhaseOneShot, notes)
	if len(got) != 3 {
		t.Fatalf("got %+v, want the three notes on corpus tables", got)
	}
	if !got[0].Decided || got[0].Why != "no clustering column" || got[1].Decided || got[1].Table != "orders_by_country" || got[2].Kind != "unbucketed_time_series" {
		t.Errorf("got %+v", got)
	}
	s := Summarize([]*ClusterResult{{Cluster: "single", Phases: []PhaseResult{{Phase: PhaseOneShot, Unknowns: got}}}}, PhaseOneShot)
	if s.UnknownNotes != 3 || len(s.Undecided) != 1 || !s.Failed() {
		t.Errorf("summary: %d notes, %d undecided, failed %v; want 3, 1, true", s.UnknownNotes, len(s.Undecided), s.Failed())
	}
	var b strings.Builder
	s.WriteText(&b)
	if !strings.Contains(b.String(), "unknown notes on corpus tables: 3, where the evidence decides: 1") || !strings.Contains(b.String(), "UNDECIDED wide_partition truth_users_email.users_by_email") {
		t.Errorf("text:\n%s", b.String())
	}
}

// A fold over a key's replicas in both DCs matches an expectation on one
// DC's replicas; a fold that takes in a node holding none does not.
func TestFoldOverReplicasInTwoDCs(t *testing.T) {
	tr := &Truth{Replicas: map[string][]string{"truth_hot.products/0": {"10.0.0.2", "10.0.1.1"}},
		DC:   map[string]string{"10.0.0.1": "dc1", "10.0.0.2": "dc1", "10.0.1.1": "dc2"},
		Keys: map[string]string{"truth_hot.products/0": "SKU-0"}}
	s := hotScenario(DesignBad)
	e := Expectation{Kind: "hot_partition", Table: "products", NodeOf: &KeyRef{Table: "products", Partition: 0, DC: "dc1"}}
	f := func(nodes ...string) *Finding {
		return &Finding{Kind: "hot_partition", Keyspace: "truth_hot", Table: "products", Nodes: nodes, PartitionKey: "SKU-0"}
	}
	if ok, why := tr.match(s, &e, f("10.0.0.2", "10.0.1.1")); !ok {
		t.Errorf("fold over both replicas: %s", why)
	}
	if ok, _ := tr.match(s, &e, f("10.0.1.1")); ok {
		t.Error("the dc2 replica alone matched an expectation on dc1")
	}
	if ok, why := tr.match(s, &e, f("10.0.0.2", "10.0.0.1")); ok || !strings.Contains(why, "10.0.0.1, which holds no replica") {
		t.Errorf("fold over a neighbour: ok %v, %q", ok, why)
	}
}
