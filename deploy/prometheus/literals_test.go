package prometheus

import (
	"slices"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/tools/promexpr"
)

// TestRulesWriteNoThreshold: no rule compares with a number that is one of
// partmon's severity thresholds (50 MiB, 1.2, 15 minutes as 900 or 15 * 60):
// it compares with the partmon_threshold_* series, so a threshold changed in
// partmon.yml changes the alert.
func TestRulesWriteNoThreshold(t *testing.T) {
	bounds := analyzer.DefaultThresholds().BoundsByValue()
	for _, r := range loadAlerts(t) {
		numbers, err := promexpr.ComparedNumbers(r.Expr)
		if err != nil {
			t.Fatalf("%s: %v", r.Alert, err)
		}
		for _, v := range numbers {
			if b, ok := bounds[v]; ok {
				t.Errorf("%s (%s) compares with %g, the %s threshold: compare with its partmon_threshold_* series",
					r.Alert, r.Labels["severity"], v, b.Key)
			}
		}
	}
}

// TestThresholdRowsNameTheRulesThatReadThem: an alert compares against a
// partmon_threshold_* series exactly when the threshold's row in
// the analyzer (registered by its rule's file) names it among its readers.
func TestThresholdRowsNameTheRulesThatReadThem(t *testing.T) {
	reads := map[string]map[string]bool{} // series → alerts comparing against it
	for _, r := range loadAlerts(t) {
		a, err := promexpr.Analyze(r.Expr)
		if err != nil {
			t.Fatalf("%s: %v", r.Alert, err)
		}
		for _, s := range a.Selectors {
			if strings.HasPrefix(s.Metric, "partmon_threshold_") {
				if reads[s.Metric] == nil {
					reads[s.Metric] = map[string]bool{}
				}
				reads[s.Metric][r.Alert] = true
			}
		}
	}
	for _, n := range analyzer.DefaultThresholds().Named() {
		series := "partmon_threshold_" + n.Name
		for _, reader := range n.ReadBy {
			if strings.HasPrefix(reader, "Partmon") && !reads[series][reader] {
				t.Errorf("thresholds.%s names %s among its readers, which does not read %s", n.Key, reader, series)
			}
		}
		for alert := range reads[series] {
			if !slices.Contains(n.ReadBy, alert) {
				t.Errorf("%s reads %s: name it in thresholds.%s's row", alert, series, n.Key)
			}
		}
	}
}
