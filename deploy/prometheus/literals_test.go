package prometheus

import (
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
