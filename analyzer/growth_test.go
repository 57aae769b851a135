package analyzer

import (
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

func TestTheilSen(t *testing.T) {
	cases := []struct {
		name      string
		xs, ys    []float64
		wantSlope float64
		wantOK    bool
		tol       float64
	}{
		{"line", []float64{0, 1, 2, 3}, []float64{1, 3, 5, 7}, 2, true, 0},
		{"one outlier does not move it", []float64{0, 1, 2, 3, 4, 5, 6}, []float64{0, 1, 2, 300, 4, 5, 6}, 1, true, 0},
		{"flat with one late jump stays flat", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, []float64{5, 5, 5, 5, 5, 5, 5, 5, 5, 9}, 0, true, 0},
		// Steps of 3 every 3: the trend is 1 per unit, within 10 %.
		{"staircase keeps its trend", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8}, []float64{0, 0, 0, 3, 3, 3, 6, 6, 6}, 1, true, 0.1},
		{"one point", []float64{1}, []float64{1}, 0, false, 0},
		{"same x", []float64{2, 2}, []float64{1, 5}, 0, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			slope, _, ok := theilSen(c.xs, c.ys, nil)
			if ok != c.wantOK || math.Abs(slope-c.wantSlope) > c.tol*c.wantSlope+1e-9 {
				t.Fatalf("slope %g ok %v, want %g %v", slope, ok, c.wantSlope, c.wantOK)
			}
		})
	}
}

// series builds size points every step seconds before now (oldest first)
// from a function of the age in seconds.
func series(now int64, n int, step int64, size func(age float64) float64) []history.SizePoint {
	out := make([]history.SizePoint, 0, n)
	for i := n; i >= 1; i-- {
		age := i * int(step)
		out = append(out, history.SizePoint{now - int64(age), int64(size(float64(age)))})
	}
	return out
}

// reported is a size as Cassandra's max_partition_size gives it: the
// bucket bound at or above it, rounded up to whole MiB.
func reported(v float64) float64 {
	i := sort.SearchFloat64s(bucketBounds, v)
	return math.Ceil(bucketBounds[min(i, len(bucketBounds)-1)]/mib) * mib
}

func TestFitGrowth(t *testing.T) {
	th := DefaultThresholds()
	now := t0.Unix()
	perDay := func(bytes float64) float64 { return bytes / 86400 }
	cases := []struct {
		name      string
		pts       []history.SizePoint
		current   int64
		wantOK    bool
		wantSlope float64 // bytes/s, checked within 5 %
	}{
		{"flat", series(now, 24, 300, func(float64) float64 { return 40 * mib }), 40 * mib, false, 0},
		{"steady 10 MiB/day over two days", series(now, 48, 3600, func(age float64) float64 { return 60*mib - perDay(10*mib)*age }),
			60 * mib, true, perDay(10 * mib)},
		{"MiB staircase (Cassandra ceiling) growing 12 MiB/day",
			series(now, 72, 1800, func(age float64) float64 { return math.Ceil((50*mib-perDay(12*mib)*age)/mib) * mib }),
			50 * mib, true, perDay(12 * mib)},
		// What Cassandra reports: the bucket bound (~1.2× apart) in whole MiB.
		// 2 MiB/day over 12 hours crosses one bound: one step is no growth.
		{"one bucket step is not growth",
			series(now, 72, 600, func(age float64) float64 { return reported(50*mib - perDay(2*mib)*age) }), int64(reported(50 * mib)), false, 0},
		{"bucket staircase growing 20 MiB/day over two days",
			series(now, 96, 1800, func(age float64) float64 { return reported(60*mib - perDay(20*mib)*age) }), int64(reported(60 * mib)), true, perDay(20 * mib)},
		{"quantization flicker is not growth",
			series(now, 24, 300, func(age float64) float64 { return float64(40+int(age/300)%2) * mib }), 40 * mib, false, 0},
		{"too short a span", series(now, 10, 60, func(age float64) float64 { return 10*mib - age*1000 }), 10 * mib, false, 0},
		{"too few points", series(now, 3, 3600, func(age float64) float64 { return 10*mib - age*100 }), 10 * mib, false, 0},
		{"shrinking", series(now, 24, 600, func(age float64) float64 { return 10*mib + age*100 }), 10 * mib, false, 0},
		{"recent growth after a long flat stretch",
			append(series(now-4*3600, 60, 3600, func(float64) float64 { return 20 * mib }),
				series(now, 12, 1200, func(age float64) float64 { return 30*mib - perDay(60*mib)*age })...),
			30 * mib, true, perDay(60 * mib)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := fitGrowth(c.pts, now, c.current, th, nil)
			if g.ok != c.wantOK {
				t.Fatalf("ok %v (slope %g B/s), want %v", g.ok, g.slope, c.wantOK)
			}
			if c.wantOK && math.Abs(g.slope-c.wantSlope) > 0.05*c.wantSlope {
				t.Fatalf("slope %g B/s, want %g ± 5 %%", g.slope, c.wantSlope)
			}
		})
	}
}

func TestGrowthSecondsTo(t *testing.T) {
	cases := []struct {
		name string
		g    growthFit
		want float64
	}{
		{"already over", growthFit{ok: true, slope: 10, current: 200}, 0},
		{"over without growth", growthFit{current: 200}, 0},
		{"not growing", growthFit{current: 50}, -1},
		{"growing", growthFit{ok: true, slope: 10, current: 50}, 5},
	}
	for _, c := range cases {
		if got := c.g.secondsTo(100); got != c.want {
			t.Errorf("%s: got %g, want %g", c.name, got, c.want)
		}
	}
}

func TestRulePartitionGrowthForecast(t *testing.T) {
	day := 86400.0
	cases := []struct {
		name    string
		growth  float64 // MiB per day
		current int64
		want    finding.Severity
	}{
		{"crosses in 5 days: warning", 10, 50 * mib, finding.SeverityWarning},
		{"crosses in 12 hours: critical", 100, 50 * mib, finding.SeverityCritical},
		{"crosses in 50 days: nothing", 1, 50 * mib, finding.SeverityNone},
		{"already critical: oversized speaks", 10, 120 * mib, finding.SeverityNone},
		{"flat: nothing", 0, 90 * mib, finding.SeverityNone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"), table("t", pk("id", "text", 0)))
			b.stats("h01", "ks", "t", model.TableStats{MaxPartitionBytes: c.current})
			h := history.New(history.Limits{})
			h.Sizes["ks.t"] = series(t0.Unix(), 48, 1800, func(age float64) float64 {
				return float64(c.current) - c.growth*mib/day*age
			})
			fs := rulePartitionGrowthForecast(analysisWith(t, b.s, h, DefaultThresholds()))
			if c.want == finding.SeverityNone {
				if len(fs) != 0 {
					t.Fatalf("want none, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Severity != c.want {
				t.Fatalf("want one %v finding, got %+v", c.want, fs)
			}
			f := fs[0]
			wantSecs := float64(100*mib-c.current) / (c.growth * mib / day)
			if math.Abs(f.Value-wantSecs) > 0.05*wantSecs || f.Unit != finding.UnitSeconds {
				t.Fatalf("value %g %s, want ~%g seconds", f.Value, f.Unit, wantSecs)
			}
			if f.Advice == "" || f.Node != "" || f.Table != "t" {
				t.Fatalf("finding incomplete: %+v", f)
			}
		})
	}
}

func TestMedianMatchesSorting(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for n := 1; n < 300; n += 7 {
		for _, dup := range []int{1000, 3} { // distinct values, and many ties
			v := make([]float64, n)
			for i := range v {
				v[i] = float64(rng.Intn(dup))
			}
			sorted := append([]float64(nil), v...)
			sort.Float64s(sorted)
			want := sorted[n/2]
			if n%2 == 0 {
				want = (sorted[n/2-1] + sorted[n/2]) / 2
			}
			if got := median(v); got != want {
				t.Fatalf("n=%d: median %g, want %g", n, got, want)
			}
		}
	}
}
