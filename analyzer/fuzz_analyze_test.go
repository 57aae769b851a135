package analyzer_test

import (
	"math"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/tools/snapfuzz"
)

// FuzzAnalyze builds snapshots of every shape (tools/snapfuzz) and
// analyzes the last with the others as its history. Analyze recovers from
// a panic in any rule or step, so a RuleFailure is what a panic looks like
// here: the target fails on one, and on a report whose findings carry
// figures no reader can use. The committed seeds include issue #36's
// materialized view (sizes on every node, no schema row), which panicked
// in the wide_partition rule before the schema helpers took a nil table.
func FuzzAnalyze(f *testing.F) {
	f.Add(snapfuzz.ViewSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := analyzeBuilt(data)
		for _, rf := range r.RuleFailures {
			t.Errorf("%s failed: %s (tables %v)", rf.Rule, rf.Error, rf.Tables)
		}
		CheckReport(t, r)
	})
}

// analyzeBuilt analyzes the last snapshot data builds, recording the
// earlier ones into the history first, as the daemon does.
func analyzeBuilt(data []byte) *analyzer.Report {
	snaps := snapfuzz.Build(data)
	h := analyzer.NewHistory(analyzer.HistoryLimits{})
	for _, s := range snaps[:len(snaps)-1] {
		analyzer.Analyze(s, h, analyzer.DefaultThresholds())
		h.Record(s)
	}
	last := snaps[len(snaps)-1]
	h.Record(last)
	return analyzer.Analyze(last, h, analyzer.DefaultThresholds())
}

// CheckReport holds the invariants every reader of a report relies on:
// findings of a known kind and a valid severity, with finite figures.
func CheckReport(t *testing.T, r *analyzer.Report) {
	t.Helper()
	kinds := map[string]bool{}
	for _, k := range analyzer.Kinds() {
		kinds[k] = true
	}
	check := func(what string, f analyzer.Finding) {
		if !kinds[f.Kind] {
			t.Errorf("%s %s: unknown kind %q", what, f.ID, f.Kind)
		}
		if f.Severity < analyzer.SeverityInfo || f.Severity > analyzer.SeverityCritical {
			t.Errorf("%s %s (%s): severity %d", what, f.ID, f.Kind, f.Severity)
		}
		if f.ID == "" || f.Summary == "" {
			t.Errorf("%s of kind %s without ID or summary: %+v", what, f.Kind, f)
		}
		nums := []float64{f.Value, f.Threshold}
		for _, n := range f.Nodes {
			nums = append(nums, n.Value, n.Threshold)
		}
		if g := f.Figures; g != nil {
			nums = append(nums, g.PartitionBytes, g.MeanPartitionBytes, g.Rows, g.Partitions, g.DataBytes, g.Share, g.FairShare,
				g.CurrentBytes, g.GrowthBytesPerSecond)
		}
		for _, n := range nums {
			if math.IsNaN(n) || math.IsInf(n, 0) {
				t.Errorf("%s %s (%s): a figure is %v: %+v %+v", what, f.ID, f.Kind, n, f, f.Figures)
				return
			}
		}
	}
	for _, f := range r.Findings {
		check("finding", f)
	}
	for _, f := range r.Remarks {
		check("remark", f)
	}
	for _, p := range r.Problems {
		if len(p.Evidence) == 0 {
			t.Errorf("problem %s has no evidence", p.ID)
		}
		check("problem", p.Finding)
	}
}
