package analyzer

import (
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// guardrailSnap is one node of 5.0 holding ks.events with the given
// settings, its largest partition maxBytes, and key sizes by top_partitions.
func guardrailSnap(at time.Time, settings map[string]string, maxBytes int64, keys map[string]int64) *model.Snapshot {
	b := newSnap().ring("dc1", 1).
		keyspace("ks", simple("1"), table("events", pk("id", "text", 0), ck("ts", "timestamp", 0, "desc"), col("v", "blob"))).
		stats(hostID(1), "ks", "events", model.TableStats{MaxPartitionBytes: maxBytes, MeanPartitionBytes: 1 << 10, PartitionsEstimate: 10000})
	b.s.Taken = at
	nd := b.nodeData(hostID(1))
	nd.Settings = settings
	for k, v := range keys {
		nd.TopPartitions = append(nd.TopPartitions, model.TopPartition{Keyspace: "ks", Table: "events", Type: "SIZES", Key: k, Value: v, LastUpdate: at})
	}
	return b.s
}

var guardrails50 = map[string]string{
	"partition_size_warn_threshold": "2MiB", "partition_size_fail_threshold": "4MiB",
	"partition_tombstones_warn_threshold": "-1", "partition_tombstones_fail_threshold": "-1",
	"authenticator": "PasswordAuthenticator",
}

// A key growing 128 KiB an hour from 1 MiB: the rule warns before the warn
// threshold, with a forecast date its range holds; a key far below and a
// flat key stay silent; a fail threshold that only logs is never critical.
func TestGuardrailCrossingForecast(t *testing.T) {
	h := history.New(history.Limits{})
	const step = 128 << 10
	var s *model.Snapshot
	for i := 0; i <= 8; i++ {
		at := t0.Add(time.Duration(i) * time.Hour)
		s = guardrailSnap(at, guardrails50, 4<<20, map[string]int64{"grow": 1<<20 + int64(i)*step, "small": 10 << 10, "flat": 1 << 20})
		record(h, s)
	}
	r := Analyze(s, h, DefaultThresholds())
	var got []finding.Finding
	for _, f := range r.Findings {
		if f.Kind == KindGuardrailCrossing {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("guardrail_crossing findings = %+v, want one", got)
	}
	f := got[0]
	if f.Severity != finding.SeverityWarning {
		t.Errorf("severity = %v, want warning: partition_size only logs", f.Severity)
	}
	// At t0+8h the key is at 2 MiB (warn crossed: info) and forecast to
	// cross fail (4 MiB) in 16 h: the finding names it. The table's
	// max_partition_size (4 MiB) has crossed both: info only.
	if f.PartitionKey != "grow" || f.Value < 15.9*3600 || f.Value > 16.1*3600 || !strings.Contains(f.Summary, "the writes are not refused") {
		t.Errorf("finding = key %q, %v s: %q; want key grow's fail crossing in 16 h", f.PartitionKey, f.Value, f.Summary)
	}
	var grow *GuardrailCrossing
	for i, c := range r.Guardrails.Crossings {
		if c.Key == "grow" && c.Level == "fail" {
			grow = &r.Guardrails.Crossings[i]
		}
		if c.Key == "small" && c.At != 0 {
			t.Errorf("small key forecast %+v, want no forecast for a flat key", c)
		}
		if c.Refuses != "" {
			t.Errorf("%+v refuses: partition_size never refuses", c)
		}
	}
	if grow == nil {
		t.Fatalf("no fail crossing for key grow in %+v", r.Guardrails.Crossings)
	}
	want := t0.Add(24 * time.Hour).Unix() // 4 MiB: 24 steps of 128 KiB after 1 MiB
	if d := grow.At - want; d < -60 || d > 60 {
		t.Errorf("forecast %v, want %v ± 1 min", time.Unix(grow.At, 0).UTC(), time.Unix(want, 0).UTC())
	}
	if grow.Earliest > grow.At || grow.Latest < grow.At {
		t.Errorf("range [%d, %d] does not hold %d", grow.Earliest, grow.Latest, grow.At)
	}
}

// Unset thresholds, or none the version has, give no crossing.
func TestGuardrailCrossingSilentWithoutThresholds(t *testing.T) {
	for name, settings := range map[string]map[string]string{
		"5.0 defaults (null)": {"partition_size_warn_threshold": "", "partition_size_fail_threshold": ""},
		"no settings read":    nil,
	} {
		t.Run(name, func(t *testing.T) {
			h := history.New(history.Limits{})
			s := guardrailSnap(t0, settings, 200<<20, map[string]int64{"big": 200 << 20})
			record(h, s)
			r := Analyze(s, h, DefaultThresholds())
			if len(r.Guardrails.Crossings) != 0 {
				t.Errorf("crossings %+v, want none", r.Guardrails.Crossings)
			}
			for _, f := range r.Findings {
				if f.Kind == KindGuardrailCrossing {
					t.Errorf("finding %+v, want none", f)
				}
			}
		})
	}
}

// A refusing fail level (a hypothetical guardrail over key sizes) is
// critical within its lead, and only with authentication on.
func TestCrossingSeverity(t *testing.T) {
	a := analysisOf(t, guardrailSnap(t0, nil, 1, nil))
	now := a.now
	day := int64(86400)
	for _, tc := range []struct {
		name string
		c    GuardrailCrossing
		want finding.Severity
	}{
		{"warn in 3 days", GuardrailCrossing{Level: "warn", At: now + 3*day}, finding.SeverityWarning},
		{"warn in 30 days", GuardrailCrossing{Level: "warn", At: now + 30*day}, finding.SeverityNone},
		{"fail that logs, in 2 days", GuardrailCrossing{Level: "fail", At: now + 2*day}, finding.SeverityWarning},
		{"refusing fail in 2 days", GuardrailCrossing{Level: "fail", At: now + 2*day, Refuses: "the write"}, finding.SeverityCritical},
		{"refusing fail in 6 days", GuardrailCrossing{Level: "fail", At: now + 6*day, Refuses: "the write"}, finding.SeverityCritical},
		{"refusing fail in 9 days", GuardrailCrossing{Level: "fail", At: now + 9*day, Refuses: "the write"}, finding.SeverityNone},
		{"fail that logs, in 5 days", GuardrailCrossing{Level: "fail", At: now + 5*day}, finding.SeverityNone},
		{"crossed warn", GuardrailCrossing{Level: "warn", Crossed: true}, finding.SeverityInfo},
		{"crossed refusing fail", GuardrailCrossing{Level: "fail", Crossed: true, Refuses: "the write"}, finding.SeverityCritical},
		{"no forecast", GuardrailCrossing{Level: "warn"}, finding.SeverityNone},
	} {
		if got, _ := (guardrails{a}).crossingSeverity(&tc.c); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A key keeps its series when it leaves the sources and comes back; the
// bounds hold.
func TestKeyHistoryReturningKeyAndBounds(t *testing.T) {
	h := history.New(history.Limits{KeysPerTable: 2, KeyPoints: 8, MaxKeys: 5})
	for i, present := range []bool{true, true, false, true} {
		keys := map[string]int64{"a": 1 << 20, "b": 2 << 20, "c": 3 << 20}
		if present {
			keys["back"] = int64(10+i) << 20
		}
		record(h, guardrailSnap(t0.Add(time.Duration(i)*time.Hour), nil, 0, keys))
	}
	ks := h.Keys.Tables["ks.events"]
	back := ks["back"]
	if back == nil || back.First != t0.Unix() || back.Last != t0.Add(3*time.Hour).Unix() || len(back.Points) != 3 {
		t.Fatalf("returning key = %+v, want one series from t0 to t0+3h with 3 points", back)
	}
	if len(ks) > 6 {
		t.Errorf("%d series in a table, want at most 3 × keys_per_table", len(ks))
	}
	if back.Replicas[0] != addr(1) {
		t.Errorf("replicas %v, want the node's address", back.Replicas)
	}
	for i := 0; i < 40; i++ {
		record(h, guardrailSnap(t0.Add(time.Duration(10+i)*time.Hour), nil, 0, map[string]int64{"back": int64(20+i) << 20}))
	}
	if n := len(h.Keys.Tables["ks.events"]["back"].Points); n > 8 {
		t.Errorf("%d points, want at most key_points 8", n)
	}
	total := 0
	for _, m := range h.Keys.Tables {
		total += len(m)
	}
	if total > 5 {
		t.Errorf("%d series, want at most max_keys 5", total)
	}
}

func TestSuggestedGuardrails(t *testing.T) {
	h := history.New(history.Limits{})
	s := guardrailSnap(t0, guardrails50, 3<<20, map[string]int64{"a": 3 << 20, "b": 1 << 20})
	record(h, s)
	r := Analyze(s, h, DefaultThresholds())
	var ps SuggestedGuardrail
	for _, g := range r.Guardrails.Suggested {
		if g.Guardrail == "partition_size" {
			ps = g
		}
	}
	// Largest healthy 3 MiB: warn 1.5 × 3 = 4.5 → 5 MiB; fail 2 × 5 → 10 MiB.
	if ps.Warn != 5<<20 || ps.Fail != 10<<20 {
		t.Errorf("partition_size suggested %v / %v, want 5 MiB / 10 MiB (%s)", ps.Warn, ps.Fail, ps.Evidence)
	}
	if ps.YAML != "partition_size_warn_threshold: 5MiB\npartition_size_fail_threshold: 10MiB\n" {
		t.Errorf("yaml %q", ps.YAML)
	}
	for _, g := range r.Guardrails.Suggested {
		if g.Guardrail == "collection_size" && (g.Warn != 0 || !strings.HasPrefix(g.Why, "unknown")) {
			t.Errorf("collection_size %+v, want unknown", g)
		}
	}
}

// Named keys are the worst ones: when every measured figure is past
// partmon's own warning level, warn sits at that level, never at a margin
// over nothing (which once suggested a tombstone warn level of 2).
func TestSuggestNoHealthyFigure(t *testing.T) {
	for _, c := range []struct {
		name            string
		figures         []float64
		warn, fail      float64
		evidenceMention string
	}{
		{"healthy and not", []float64{3000, 19995}, 5000, 50000, "largest healthy"},
		{"none healthy", []float64{19995}, 10000, 50000, "no healthy figure"},
		{"none healthy, far past", []float64{60000, 12000}, 10000, 200000, "no healthy figure"},
	} {
		s := suggest("partition_tombstones", model.UnitCount, c.figures, 10000, "test")
		if s.Warn != c.warn || s.Fail != c.fail || !strings.Contains(s.Evidence, c.evidenceMention) {
			t.Errorf("%s: warn %v fail %v (%s), want %v / %v mentioning %q", c.name, s.Warn, s.Fail, s.Evidence, c.warn, c.fail, c.evidenceMention)
		}
	}
}

// On 4.x the size suggestion names the compaction warning (no fail level).
func TestSuggestedGuardrails4x(t *testing.T) {
	h := history.New(history.Limits{})
	s := guardrailSnap(t0, map[string]string{"compaction_large_partition_warning_threshold": "100MiB"}, 3<<20, nil)
	record(h, s)
	r := Analyze(s, h, DefaultThresholds())
	g := r.Guardrails.Suggested[0]
	if g.Guardrail != "compaction_large_partition" || g.Fail != 0 || g.YAML != "compaction_large_partition_warning_threshold: 5MiB\n" {
		t.Errorf("4.x suggestion %+v", g)
	}
}

func TestNiceCeil(t *testing.T) {
	for _, c := range []struct {
		in, want float64
		unit     model.GuardrailUnit
	}{
		{1, 1, model.UnitBytes}, {3, 5, model.UnitBytes}, {7, 10, model.UnitBytes}, {11, 20, model.UnitBytes},
		{4.5 * mib, 5 * mib, model.UnitBytes}, {150, 200, model.UnitBytes}, {0.5 * mib, 1000 * 1024, model.UnitBytes},
		// A count past 64 Ki is still a count (it once became 200 KiB = 204,800).
		{120000, 200000, model.UnitCount}, {3, 5, model.UnitCount},
	} {
		if got := niceCeil(c.in, c.unit); got != c.want {
			t.Errorf("niceCeil(%v, %s) = %v, want %v", c.in, c.unit, got, c.want)
		}
	}
}

// Only a level that refuses is said to refuse; one that logs says the
// writes are not refused.
func TestCrossingSummaryWords(t *testing.T) {
	now := t0.Unix()
	logs := GuardrailCrossing{Keyspace: "ks", Table: "t", Key: "k", Guardrail: "partition_size", Level: "fail",
		Threshold: 4 << 20, Current: 3 << 20, Fraction: 0.75, At: now + 3600, Earliest: now + 3000, Latest: now + 4000}
	s := crossingSummary(&logs, now)
	if strings.Contains(s, "will refuse") || !strings.Contains(s, "the writes are not refused") || !strings.Contains(s, "key k of ks.t") {
		t.Errorf("summary of a logging fail level: %q", s)
	}
	refusing := logs
	refusing.Refuses = "the write"
	if s := crossingSummary(&refusing, now); !strings.Contains(s, "it will refuse the write") {
		t.Errorf("summary of a refusing level: %q", s)
	}
}

// max_partition_size counts whole MiB rounded up: a tiny table reads 1 MiB,
// a bound. A suggestion never puts its margin on that (1.5 × 1 MiB once
// suggested 2 MiB, and a named key a minute later 5 MiB): with nothing else
// measured warn sits at partmon's own level and the evidence says the
// bound; a measured key is suggested from as before, the bound said beside.
func TestSuggestNotFromTheMiBFloor(t *testing.T) {
	th := DefaultThresholds()
	for _, c := range []struct {
		name      string
		keys      map[string]int64
		warn      float64
		evidences []string
	}{
		{"tiny table alone", nil, niceCeil(float64(th.PartitionWarningBytes), model.UnitBytes),
			[]string{"≤ 1.0 MiB", "a bound, not a size", "partmon's own warning level"}},
		{"tiny table and a 3 MiB key", map[string]int64{"a": 3 << 20}, 5 << 20,
			[]string{"largest healthy", "not counted: 1 table whose largest partition is ≤ 1.0 MiB"}},
	} {
		h := history.New(history.Limits{})
		s := guardrailSnap(t0, guardrails50, 1<<20, c.keys)
		record(h, s)
		r := Analyze(s, h, th)
		g := r.Guardrails.Suggested[0]
		if g.Guardrail != "partition_size" || g.Warn != c.warn {
			t.Errorf("%s: %s warn %v, want %v (%s)", c.name, g.Guardrail, g.Warn, c.warn, g.Evidence)
		}
		for _, e := range c.evidences {
			if !strings.Contains(g.Evidence, e) {
				t.Errorf("%s: evidence %q does not say %q", c.name, g.Evidence, e)
			}
		}
	}
}
