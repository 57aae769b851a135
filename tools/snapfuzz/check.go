package snapfuzz

import (
	"math"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
)

// Report analyzes the last snapshot data builds, recording the earlier
// ones into the history first, as the daemon does; it returns the history
// too (the state file keeps it).
func Report(data []byte) (*analyzer.Report, *history.History) {
	snaps := Build(data)
	h := history.New(history.Limits{})
	for _, s := range snaps[:len(snaps)-1] {
		analyzer.Analyze(s, h, analyzer.DefaultThresholds())
	}
	last := snaps[len(snaps)-1]
	return analyzer.Analyze(last, h, analyzer.DefaultThresholds()), h
}

// Check holds the invariants every reader of a report relies on: no rule
// or step failed (Analyze recovers a panic into a RuleFailure), and the
// findings, remarks and problems are of a known kind and a valid severity,
// with finite figures.
func Check(t testing.TB, r *analyzer.Report) {
	t.Helper()
	for _, rf := range r.RuleFailures {
		t.Errorf("%s failed: %s (tables %v)", rf.Rule, rf.Error, rf.Tables)
	}
	kinds := map[string]bool{}
	for _, k := range analyzer.Kinds() {
		kinds[k] = true
	}
	for _, f := range r.Findings {
		checkFinding(t, kinds, "finding", f)
	}
	for _, f := range r.Remarks {
		checkFinding(t, kinds, "remark", f)
	}
	for _, p := range r.Problems {
		if len(p.Evidence) == 0 {
			t.Errorf("problem %s has no evidence", p.ID)
		}
		checkFinding(t, kinds, "problem", p.Finding)
	}
}

func checkFinding(t testing.TB, kinds map[string]bool, what string, f finding.Finding) {
	t.Helper()
	if !kinds[f.Kind] {
		t.Errorf("%s %s: unknown kind %q", what, f.ID, f.Kind)
	}
	if f.Severity < finding.SeverityInfo || f.Severity > finding.SeverityCritical {
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
