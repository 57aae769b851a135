package dashboards

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/tools/promexpr"
)

// TestDashboardsWriteNoThreshold: no colour step and no query comparison of
// a dashboard is a number that is one of partmon's severity thresholds (50
// MiB, 1.2, 15 minutes as 900): a panel judges by the partmon_threshold_*
// series, so a threshold changed in partmon.yml changes the dashboards.
func TestDashboardsWriteNoThreshold(t *testing.T) {
	bounds := analyzer.DefaultThresholds().BoundsByValue()
	for expr, q := range expandedQueries(t) {
		numbers, err := promexpr.ComparedNumbers(expr)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for _, v := range numbers {
			if b, ok := bounds[v]; ok {
				t.Errorf("%s compares with %g, the %s threshold: compare with its partmon_threshold_* series", q, v, b.Key)
			}
		}
	}
	files, err := filepath.Glob("*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for _, v := range colourSteps(t, f) {
			if b, ok := bounds[v]; ok {
				t.Errorf("%s has a colour step at %g, the %s threshold: grade the value by its partmon_threshold_* series",
					f, v, b.Key)
			}
		}
	}
}

// colourSteps are the values of every thresholds step in the dashboard file,
// a panel's defaults and its overrides alike.
func colourSteps(t *testing.T, file string) []float64 {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var out []float64
	var walk func(any)
	walk = func(n any) {
		switch n := n.(type) {
		case map[string]any:
			if steps, ok := n["steps"].([]any); ok {
				for _, s := range steps {
					if v, ok := s.(map[string]any)["value"].(float64); ok {
						out = append(out, v)
					}
				}
			}
			for _, c := range n {
				walk(c)
			}
		case []any:
			for _, c := range n {
				walk(c)
			}
		}
	}
	walk(doc)
	return out
}
