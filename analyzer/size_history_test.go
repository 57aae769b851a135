package analyzer

import (
	"math"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// TestSizeHistory: the report's series carry the fit exactly when the
// forecast rule trusts it, and say why not otherwise.
func TestSizeHistory(t *testing.T) {
	day := 86400.0
	tests := []struct {
		name         string
		points       int
		step         int64
		growth       float64 // MiB per day
		current      int64
		wantFit      bool
		wantWhy      string
		wantForecast bool // a partition_growth_forecast finding too
	}{
		{"growing over a day: fit and forecast", 48, 1800, 20, 50 * mib, true, "", true},
		{"growing, crossing beyond the horizon: fit, no finding", 96, 3 * 3600, 1.5, 50 * mib, true, "", false},
		{"three points over twenty minutes", 2, 600, 20, 50 * mib, false, "3 points over 20 minutes: not enough history", false},
		{"flat", 48, 1800, 0, 40 * mib, false, "49 points over 24.0 hours: no significant growth", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"), table("t", pk("id", "text", 0)))
			b.stats("h01", "ks", "t", model.TableStats{MaxPartitionBytes: tc.current})
			h := history.New(history.Limits{})
			h.Sizes["ks.t"] = series(t0.Unix(), tc.points, tc.step, func(age float64) float64 {
				return float64(tc.current) - tc.growth*mib/day*age
			})
			r := Analyze(b.s, h, DefaultThresholds())
			if len(r.SizeHistory) != 1 {
				t.Fatalf("want one series, got %+v", r.SizeHistory)
			}
			sh := r.SizeHistory[0]
			// Analyze records the current point first: the history's bound holds.
			want := min(tc.points+1, history.DefaultLimits().MaxPoints)
			if len(sh.Points) != want || sh.Points[len(sh.Points)-1] != (history.SizePoint{t0.Unix(), tc.current}) || !sh.Bound {
				t.Fatalf("points %v (bound %v): want %d, the recorded then the current one", sh.Points, sh.Bound, want)
			}
			if (sh.Fit != nil) != tc.wantFit || !strings.HasPrefix(sh.Why, tc.wantWhy) || (sh.Fit == nil) == (sh.Why == "") {
				t.Fatalf("fit %+v why %q, want fit %v why %q", sh.Fit, sh.Why, tc.wantFit, tc.wantWhy)
			}
			var forecast *finding.Finding
			for i, f := range r.Findings {
				if f.Kind == KindPartitionGrowthForecast {
					forecast = &r.Findings[i]
				}
			}
			if (forecast != nil) != tc.wantForecast {
				t.Fatalf("forecast finding %+v, want %v", forecast, tc.wantForecast)
			}
			if forecast != nil {
				got := sh.Fit.SecondsTo(float64(DefaultThresholds().PartitionCriticalBytes))
				if math.Abs(got-forecast.Value) > 1e-6*forecast.Value {
					t.Fatalf("chart crossing in %g s, finding says %g s", got, forecast.Value)
				}
			}
		})
	}
}

// TestSizeHistoryNeedsTwoPoints: a table seen once has no series.
func TestSizeHistoryNeedsTwoPoints(t *testing.T) {
	b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"), table("t", pk("id", "text", 0)))
	b.stats("h01", "ks", "t", model.TableStats{MaxPartitionBytes: 5 * mib})
	if r := Analyze(b.s, history.New(history.Limits{}), DefaultThresholds()); len(r.SizeHistory) != 0 {
		t.Fatalf("one point: want no series, got %+v", r.SizeHistory)
	}
}
