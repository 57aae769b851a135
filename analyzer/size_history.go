package analyzer

import (
	"fmt"

	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/internal/format"
)

// SizeHistory is one table's largest partition over time as the history
// recorded it, with the growth fit the forecast rule judges by, for charts.
type SizeHistory struct {
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`
	// Points are the recorded sizes, then the current one (the report's time).
	Points []history.SizePoint `json:"points"`
	// Bound: every size is a histogram bucket bound (max_partition_size,
	// ScyllaDB's max_row_size): the largest partition is at most that.
	Bound bool `json:"bound"`
	// Fit is the trusted growth fit, nil when there is none; Why then says
	// why in a sentence.
	Fit *GrowthLine `json:"fit,omitempty"`
	Why string      `json:"why,omitempty"`
}

// GrowthLine is a fitted growth of the largest partition: Current bytes at
// At (unix seconds), rising BytesPerSecond, fitted over WindowSeconds
// before At from Points points.
type GrowthLine struct {
	At             int64   `json:"at"`
	Current        float64 `json:"current_bytes"`
	BytesPerSecond float64 `json:"bytes_per_second"`
	WindowSeconds  float64 `json:"window_seconds"`
	Points         int     `json:"points"`
}

// SecondsTo is the time from At until the line reaches limit: 0 when it
// already has (partition_growth_forecast's own arithmetic).
func (g GrowthLine) SecondsTo(limit float64) float64 {
	return growthFit{ok: true, slope: g.BytesPerSecond, current: g.Current}.secondsTo(limit)
}

// trusted is when the forecast rule believes a fit: growth was measured
// and is significant.
func (g growthFit) trusted() bool { return g.ok && g.slope > 0 }

// sizeHistories lists every table whose size history has two points or
// more (the current size included), by table key.
func (a viewFigures) sizeHistories() []SizeHistory {
	var out []SizeHistory
	for _, t := range a.tables {
		pts := a.sizePointsNow(t)
		if len(pts) < 2 {
			continue
		}
		// history.History records MaxPartitionBytes only: a bucket bound on both engines.
		sh := SizeHistory{Keyspace: t.keyspace, Table: t.name, Points: pts, Bound: true}
		if t.growth.trusted() {
			sh.Fit = &GrowthLine{At: a.now, Current: t.growth.current, BytesPerSecond: t.growth.slope,
				WindowSeconds: t.growth.window, Points: t.growth.points}
		} else {
			sh.Why = untrustedWhy(pts, t.growth, a.th)
		}
		out = append(out, sh)
	}
	return out
}

// untrustedWhy says why a series has no forecast, in the rule's terms.
func untrustedWhy(pts []history.SizePoint, g growthFit, th Thresholds) string {
	have := pointsOver(pts)
	if !g.judged {
		return fmt.Sprintf("%s: not enough history for a forecast (it needs %d points over %s)",
			have, th.ForecastMinPoints, format.SecondsWords(th.ForecastMinSpan.Seconds()))
	}
	return fmt.Sprintf("%s: no significant growth (a fitted rise must exceed %s and %.0f %%)",
		have, format.Bytes(minGrowthBytes), minGrowthFraction*100)
}

// sizePointsNow is a table's recorded largest-partition sizes, then the
// current one (when there is one).
func (a *analysis) sizePointsNow(t *tableView) []history.SizePoint {
	pts := append([]history.SizePoint(nil), a.h.SizeSeries(t.key, a.now)...)
	if t.maxBytes > 0 {
		pts = append(pts, history.SizePoint{a.now, t.maxBytes})
	}
	return pts
}

// pointsOver says how much history pts hold: "N points over SPAN".
func pointsOver(pts []history.SizePoint) string {
	return fmt.Sprintf("%d points over %s", len(pts), format.SecondsWords(float64(pts[len(pts)-1][0]-pts[0][0])))
}
