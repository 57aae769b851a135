package analyzer

import (
	"math"
	"sort"

	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// GuardrailCrossing is how close one key (or, Key empty, a table's largest
// partition) is to one level of a per-partition guardrail, or one node's
// data disk (Node set, no table) to data_disk_usage_percentage, and when
// it is forecast to cross it.
type GuardrailCrossing struct {
	Node      string  `json:"node,omitempty"` // the node whose data disk; empty for a partition
	Keyspace  string  `json:"keyspace"`
	Table     string  `json:"table"`
	Key       string  `json:"key,omitempty"` // empty: the table's largest partition (a histogram bucket bound)
	Guardrail string  `json:"guardrail"`
	Level     string  `json:"level"`
	Threshold float64 `json:"threshold"`
	Current   float64 `json:"current"`
	// Fraction is Current ÷ Threshold: 1 or more has crossed.
	Fraction float64 `json:"fraction"`
	Crossed  bool    `json:"crossed"`
	// Refuses is what a crossing refuses, empty when Cassandra only logs
	// it (every per-partition guardrail: docs/sources.md#guardrails).
	Refuses string `json:"refuses,omitempty"`
	// At is the forecast crossing (unix seconds) from a robust fit of the
	// key's history, Earliest and Latest its range from the middle half of
	// the pairwise slopes (Latest 0: the slower half does not grow). All 0
	// with Why when there is no forecast.
	At       int64  `json:"at,omitempty"`
	Earliest int64  `json:"earliest,omitempty"`
	Latest   int64  `json:"latest,omitempty"`
	Why      string `json:"why,omitempty"`
	// Column is the column a write guardrail (collection_size,
	// items_per_collection, column_value_size) measured, from Cassandra's
	// lines: they name no key, so Key stays empty, and no table, so Table
	// is set only when one table in scope holds the column (Tables lists
	// them when several do). Refused counts the writes refused, the last
	// at RefusedAt (unix seconds).
	Column    string   `json:"column,omitempty"`
	Tables    []string `json:"tables,omitempty"`
	Refused   int64    `json:"refused,omitempty"`
	RefusedAt int64    `json:"refused_at,omitempty"`
}

// keyMeasure is what a per-partition guardrail compares with a key's
// series: index 1 (size) or 2 (tombstones) of a history.KeyPoint.
var keyMeasure = map[string]int{
	"partition_size": 1, "compaction_large_partition": 1,
	"partition_tombstones": 2, "compaction_tombstone": 2,
}

// guardrailCrossings measures every recorded key and every table's largest
// partition against each set per-partition guardrail level.
func (a crossings) guardrailCrossings(gr *GuardrailReport) []GuardrailCrossing {
	var out []GuardrailCrossing
	minSpan := int64(a.th.ForecastMinSpan.Seconds())
	for _, g := range model.Guardrails {
		idx, ok := keyMeasure[g.Name]
		if !ok {
			continue
		}
		for _, level := range []string{"warn", "fail"} {
			limit, set := gr.threshold(g.Name, level)
			if !set {
				continue
			}
			base := GuardrailCrossing{Guardrail: g.Name, Level: level, Threshold: limit}
			if level == "fail" && g.Refuses != "" && gr.Clients != "not guarded" {
				base.Refuses = g.Refuses
			}
			for _, t := range a.tables {
				for _, ks := range a.h.KeysOf(t.keyspace, t.name) {
					ts, vs := keySeries(ks.Points, idx)
					if len(vs) == 0 || ks.Last != a.now {
						continue // not named this cycle: its figure is not current
					}
					c := base
					c.Keyspace, c.Table, c.Key = t.keyspace, t.name, ks.Key
					out = append(out, a.crossing(c, ts, vs, minSpan))
				}
				if idx == 1 && t.maxBytes > 0 {
					out = append(out, a.tableCrossing(base, t, minSpan))
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Fraction > out[j].Fraction })
	return out
}

func keySeries(pts []history.KeyPoint, idx int) ([]int64, []float64) {
	var ts []int64
	var vs []float64
	for _, p := range pts {
		if p[idx] > 0 {
			ts, vs = append(ts, p[0]), append(vs, float64(p[idx]))
		}
	}
	return ts, vs
}

func tableSeries(pts []history.SizePoint) ([]int64, []float64) {
	ts, vs := make([]int64, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		ts[i], vs[i] = p[0], float64(p[1])
	}
	return ts, vs
}

// tableCrossing is a table's largest partition against one level: its
// forecast only where partition_growth_forecast trusts the table's growth
// (a rise past one bucket step), so both say the same of one series.
func (a crossings) tableCrossing(base GuardrailCrossing, t *tableView, minSpan int64) GuardrailCrossing {
	ts, vs := tableSeries(a.sizePointsNow(t))
	c := base
	c.Keyspace, c.Table = t.keyspace, t.name
	if !t.growth.trusted() {
		c.Current = float64(t.maxBytes)
		c.Fraction, c.Crossed = c.Current/c.Threshold, c.Current >= c.Threshold
		c.Why = "no trusted growth of the largest partition (partition_growth_forecast's test)"
		return c
	}
	return a.crossing(c, ts, vs, minSpan)
}

// crossing fills the current figure, the distance and the forecast.
func (a crossings) crossing(c GuardrailCrossing, ts []int64, vs []float64, minSpan int64) GuardrailCrossing {
	c.Current = vs[len(vs)-1]
	c.Fraction = c.Current / c.Threshold
	c.Crossed = c.Current >= c.Threshold
	if c.Crossed {
		return c
	}
	c.At, c.Earliest, c.Latest, c.Why = forecastCrossing(ts, vs, c.Threshold, a.now, a.th.ForecastMinPoints, minSpan,
		minGrowthFraction*vs[0], "no significant growth in its history (a fitted rise must exceed 20 %)")
	return c
}

// forecastCrossing fits vs over ts (Theil–Sen) and returns when the fit
// reaches limit, with the range the 25th and 75th percentile pairwise
// slopes give; why says why there is none. A fitted rise over the history
// below minRise is no growth (noWhy says so).
func forecastCrossing(ts []int64, vs []float64, limit float64, now int64, minPoints int, minSpan int64, minRise float64, noWhy string) (at, earliest, latest int64, why string) {
	if len(ts) < minPoints || ts[len(ts)-1]-ts[0] < minSpan {
		return 0, 0, 0, "not enough history for a forecast"
	}
	xs := make([]float64, len(ts))
	for i, t := range ts {
		xs[i] = float64(t - now)
	}
	slope, intercept, ok := theilSen(xs, vs, nil)
	if !ok || slope <= 0 || slope*(xs[len(xs)-1]-xs[0]) < minRise {
		return 0, 0, 0, noWhy
	}
	var slopes []float64
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			if dx := xs[j] - xs[i]; dx > 0 {
				slopes = append(slopes, (vs[j]-vs[i])/dx)
			}
		}
	}
	sort.Float64s(slopes)
	q := func(p float64) float64 { return slopes[int(math.Round(p*float64(len(slopes)-1)))] }
	current := math.Max(intercept, vs[len(vs)-1]) // the fit at now, never below the last figure
	when := func(s float64) int64 {
		if s <= 0 {
			return 0
		}
		return now + int64(math.Ceil(math.Max(0, limit-current)/s))
	}
	return when(slope), when(q(0.75)), when(q(0.25)), ""
}

// crossings forecast when a table's keys cross the guardrails the nodes run with.
type crossings struct{ *analysis }
