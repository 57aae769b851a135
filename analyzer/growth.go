package analyzer

import (
	"time"

	"github.com/partmon/partmon/analyzer/history"
)

// A fitted rise over the window counts as growth only above both of these.
// Cassandra reports sizes in whole MiB, and both engines report histogram
// bucket bounds ~1.2× apart (EstimatedHistogram), so sizes move by steps: a
// partition a byte under a bound that gains one row, or compaction merging
// two fragments, shows as one step of 20 % without any real growth to
// forecast. A rise counts only beyond one such step.
const (
	minGrowthBytes    = 1 * mib
	minGrowthFraction = 0.2
)

// growthFit is the growth of a table's largest partition.
type growthFit struct {
	// judged: the history was long enough to fit; with ok false the
	// largest partition was measured not to grow.
	judged  bool
	ok      bool    // growth was measured and is significant
	slope   float64 // bytes per second
	current float64 // the larger of the last observed and the fitted size now
	window  float64 // seconds of history the chosen fit covers
	points  int
}

// secondsTo is the forecast time until the largest partition reaches
// limit: 0 when it already has, -1 when it does not grow.
func (g growthFit) secondsTo(limit float64) float64 {
	switch {
	case g.current >= limit:
		return 0
	case !g.ok || g.slope <= 0:
		return -1
	}
	return (limit - g.current) / g.slope
}

// buildGrowth fits every table's largest-partition history.
func (a *analysis) buildGrowth() {
	var scratch []float64
	for _, t := range a.tables {
		series := a.h.SizeSeries(t.key, a.now)
		t.growth = fitGrowth(series, a.now, t.maxBytes, a.th, &scratch)
		if !t.growth.ok {
			t.growth.current = float64(t.maxBytes)
		}
	}
}

// fitGrowth fits the history plus the current size over windows of
// ForecastMinSpan, 4×, 16×, ... up to the whole series, and keeps the
// significant fit with the steepest growth: recent growth after a long flat
// period shows in the short windows, slow steady growth in the long ones.
func fitGrowth(series []history.SizePoint, now int64, current int64, th Thresholds, scratch *[]float64) growthFit {
	xs := make([]float64, 0, len(series)+1)
	ys := make([]float64, 0, len(series)+1)
	for _, p := range series {
		xs = append(xs, float64(p[0]-now))
		ys = append(ys, float64(p[1]))
	}
	if current > 0 {
		xs = append(xs, 0)
		ys = append(ys, float64(current))
	}
	if len(xs) < th.ForecastMinPoints {
		return growthFit{}
	}
	span := -xs[0]
	minSpan := th.ForecastMinSpan.Seconds()
	if span < minSpan {
		return growthFit{}
	}
	best := growthFit{judged: true}
	for w := minSpan; ; w *= 4 {
		w = min(w, span)
		first := 0
		for first < len(xs) && -xs[first] > w {
			first++
		}
		wx, wy := xs[first:], ys[first:]
		if len(wx) >= th.ForecastMinPoints && -wx[0] >= minSpan {
			if g, ok := fitWindow(wx, wy, scratch); ok && g.slope > best.slope {
				best = g
			}
		}
		if w >= span || w > float64(365*24*time.Hour/time.Second) {
			break
		}
	}
	return best
}

func fitWindow(xs, ys []float64, scratch *[]float64) (growthFit, bool) {
	slope, intercept, ok := theilSen(xs, ys, scratch)
	if !ok || slope <= 0 {
		return growthFit{}, false
	}
	window := xs[len(xs)-1] - xs[0]
	start := intercept + slope*xs[0]
	if slope*window < max(minGrowthBytes, minGrowthFraction*start) {
		return growthFit{}, false
	}
	return growthFit{
		judged: true, ok: true, slope: slope, window: window, points: len(xs),
		current: max(ys[len(ys)-1], intercept+slope*xs[len(xs)-1]),
	}, true
}
