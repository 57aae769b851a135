package web

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/internal/format"
)

// growthMaxCharts bounds the growth charts on the page; the rest are named.
const growthMaxCharts = 6

// Chart geometry: the plot area inside margins for the axis labels.
const (
	chartWidth   = 620.0
	chartHeight  = 240.0
	chartLeft    = 72.0
	chartRight   = 16.0
	chartTop     = 14.0
	chartBottom  = 30.0
	forecastStep = 32 // samples of the fitted line: straight in bytes, curved on a log axis
)

// chartTimeLayout is how the charts write times (UTC, to the minute).
const chartTimeLayout = "2006-01-02 15:04"

// growthCharts are the largest-partition charts of the page.
type growthCharts struct {
	Charts []growthChart
	// LeftOut names the tables with a size history that are not drawn.
	LeftOut []string
}

// growthChart is one table's largest partition over time: points, the
// oversized_partition thresholds and, when trusted, the fitted line.
type growthChart struct {
	Table, ID, Title      string
	TableURL              string
	Width, Height         float64
	PlotLeft, PlotRight   string
	PlotTop, PlotBottom   string
	PlotWidth, PlotHeight string
	PlotMiddle            string // the y axis label's centre
	YTicks, XTicks        []chartTick
	Thresholds            []chartThreshold
	Line                  string // the measured points as a polyline
	Points                []chartPoint
	Forecast              string // the fitted line, empty when not trusted
	ForecastTitle         string
	ForecastEndX, EndY    string // where the fitted line ends
	Why                   string // why there is no fitted line
	Summary, FitText      string // the text equivalent
	YLabel                string
	HasBound, HasForecast bool
}

type chartTick struct{ X, Y, Label, Anchor string }

type chartThreshold struct{ Y, Label, Class string }

type chartPoint struct{ X, Y, Title string }

// chartScale maps times and sizes into the plot: time linear, size log₂.
type chartScale struct {
	t0, t1     float64 // unix seconds
	lo, hi     float64 // log2 bytes
	x0, x1     float64
	yTop, yBot float64
}

func (s chartScale) x(t float64) float64 { return s.x0 + (t-s.t0)/(s.t1-s.t0)*(s.x1-s.x0) }
func (s chartScale) y(b float64) float64 {
	return s.yBot - (math.Log2(b)-s.lo)/(s.hi-s.lo)*(s.yBot-s.yTop)
}

func chartTime(unix float64) string { return time.Unix(int64(unix), 0).UTC().Format(chartTimeLayout) }

// sizeText writes a measured size: a bucket bound is an upper bound.
func sizeText(b float64, bound bool) string {
	if bound {
		return "≤ " + format.Bytes(b)
	}
	return format.Bytes(b)
}

// newGrowthCharts orders the tables with a size history (size problems
// first, then the largest) and draws the first growthMaxCharts.
func newGrowthCharts(r *analyzer.Report) growthCharts {
	problem := map[string]bool{}
	for _, f := range r.Findings {
		if k, _ := analyzer.KindOf(f.Kind); k.SizeIsTheProblem {
			problem[f.Keyspace+"."+f.Table] = true
		}
	}
	hs := append([]analyzer.SizeHistory(nil), r.SizeHistory...)
	last := func(h analyzer.SizeHistory) int64 { return h.Points[len(h.Points)-1][1] }
	sort.SliceStable(hs, func(i, j int) bool {
		pi, pj := problem[hs[i].Keyspace+"."+hs[i].Table], problem[hs[j].Keyspace+"."+hs[j].Table]
		if pi != pj {
			return pi
		}
		if (hs[i].Fit != nil) != (hs[j].Fit != nil) {
			return hs[i].Fit != nil
		}
		return last(hs[i]) > last(hs[j])
	})
	var out growthCharts
	for i, h := range hs {
		if i >= growthMaxCharts {
			out.LeftOut = append(out.LeftOut, h.Keyspace+"."+h.Table)
			continue
		}
		out.Charts = append(out.Charts, newGrowthChart(h, r.Thresholds))
	}
	return out
}

// newGrowthChart draws one table's series with the thresholds and, when
// the analyzer trusts its fit, the fitted line up to the critical size.
func newGrowthChart(h analyzer.SizeHistory, th analyzer.Thresholds) growthChart {
	warn, crit := float64(th.PartitionWarningBytes), float64(th.PartitionCriticalBytes)
	table := h.Keyspace + "." + h.Table
	first, lastPt := h.Points[0], h.Points[len(h.Points)-1]
	c := growthChart{Table: table, ID: "growth-" + table, Width: chartWidth, Height: chartHeight,
		HasBound: h.Bound, YLabel: "largest partition (log scale)", TableURL: tableURL(h.Keyspace, h.Table)}
	if h.Bound {
		c.YLabel = "bound on largest partition (log)"
	}

	end := float64(lastPt[0])
	cross := -1.0 // unix seconds of the critical crossing, -1 when none ahead
	if h.Fit != nil {
		if secs := h.Fit.SecondsTo(crit); secs > 0 {
			cross = float64(h.Fit.At) + secs
			// A far crossing would squeeze the history to a sliver: the
			// chart stops at three spans (at least a day) past it.
			end = math.Min(cross, end+math.Max(3*(end-float64(first[0])), 86400))
		}
	}
	lo, hi := math.Inf(1), math.Max(crit, warn)
	for _, p := range h.Points {
		lo, hi = math.Min(lo, float64(p[1])), math.Max(hi, float64(p[1]))
	}
	s := chartScale{t0: float64(first[0]), t1: math.Max(end, float64(first[0])+1),
		// Powers of two bracket every size: the axis has two ticks or more.
		lo: math.Floor(math.Log2(lo)) - 0.3, hi: math.Ceil(math.Log2(hi)+0.15) + 0.1,
		x0: chartLeft, x1: chartWidth - chartRight, yTop: chartTop, yBot: chartHeight - chartBottom}
	c.PlotLeft, c.PlotRight, c.PlotTop, c.PlotBottom = num(s.x0), num(s.x1), num(s.yTop), num(s.yBot)
	c.PlotWidth, c.PlotHeight = num(s.x1-s.x0), num(s.yBot-s.yTop)
	c.PlotMiddle = num((s.yTop + s.yBot) / 2)
	c.YTicks, c.XTicks = sizeTicks(s), timeTicks(s)
	c.Thresholds = []chartThreshold{
		{Y: num(s.y(warn)), Label: "warning " + format.Bytes(warn), Class: "warning"},
		{Y: num(s.y(crit)), Label: "critical " + format.Bytes(crit), Class: "critical"},
	}

	var line []string
	for _, p := range h.Points {
		x, y := num(s.x(float64(p[0]))), num(s.y(float64(p[1])))
		line = append(line, x+","+y)
		c.Points = append(c.Points, chartPoint{X: x, Y: y,
			Title: chartTime(float64(p[0])) + " UTC: " + sizeText(float64(p[1]), h.Bound)})
	}
	c.Line = strings.Join(line, " ")

	c.Summary = fmt.Sprintf("%s: %d points from %s to %s UTC; the largest partition went from %s to %s",
		table, len(h.Points), chartTime(float64(first[0])), chartTime(float64(lastPt[0])),
		sizeText(float64(first[1]), h.Bound), sizeText(float64(lastPt[1]), h.Bound))
	if h.Bound {
		c.Summary += " (histogram bucket bounds: the partition is at most that)"
	}
	c.Summary += fmt.Sprintf("; thresholds: warning %s, critical %s.", format.Bytes(warn), format.Bytes(crit))
	if h.Fit == nil {
		c.Why = "No forecast: " + h.Why + "."
		c.Title = table + ": no forecast"
		c.FitText = c.Why
		return c
	}
	c.forecast(s, *h.Fit, warn, crit, cross)
	return c
}

// forecast draws the fitted line from the start of its window to the
// critical crossing (or to its last point when the fit is already past it).
func (c *growthChart) forecast(s chartScale, fit analyzer.GrowthLine, warn, crit, cross float64) {
	c.HasForecast = true
	at := float64(fit.At)
	from := math.Max(at-fit.WindowSeconds, s.t0)
	to := at
	if cross > 0 {
		to = math.Min(cross, s.t1)
	}
	size := func(t float64) float64 { return fit.Current + fit.BytesPerSecond*(t-at) }
	var pts []string
	for i := 0; i <= forecastStep; i++ {
		t := from + (to-from)*float64(i)/forecastStep
		if b := size(t); b > 0 && math.Log2(b) >= s.lo {
			pts = append(pts, num(s.x(t))+","+num(s.y(b)))
		}
	}
	c.Forecast = strings.Join(pts, " ")
	c.ForecastEndX, c.EndY = num(s.x(to)), num(s.y(size(to)))
	grows := fmt.Sprintf("grows %s/day (robust fit of %d points over %s)",
		format.Bytes(fit.BytesPerSecond*86400), fit.Points, format.SecondsWords(fit.WindowSeconds))
	if cross <= 0 {
		c.Title = fmt.Sprintf("%s: at or above %s already", c.Table, format.Bytes(crit))
		c.ForecastTitle = "fitted growth: " + grows
		c.FitText = fmt.Sprintf("Forecast: the largest partition %s and is at or above the critical %s already.", grows, format.Bytes(crit))
		return
	}
	c.Title = fmt.Sprintf("%s: reaches %s around %s UTC", c.Table, format.Bytes(crit), chartTime(cross))
	c.ForecastTitle = fmt.Sprintf("fitted growth: %s; reaches %s around %s UTC", grows, format.Bytes(crit), chartTime(cross))
	c.FitText = fmt.Sprintf("Forecast: the largest partition %s and reaches ", grows)
	if secs := fit.SecondsTo(warn); secs > 0 {
		c.FitText += fmt.Sprintf("%s around %s UTC, then ", format.Bytes(warn), chartTime(at+secs))
	}
	c.FitText += fmt.Sprintf("%s around %s UTC (in %s", format.Bytes(crit), chartTime(cross), format.SecondsWords(cross-at))
	if to < cross {
		c.FitText += ", past the chart's right edge"
	}
	c.FitText += ")."
}

// sizeTicks are powers of two inside the axis, at most about six.
func sizeTicks(s chartScale) []chartTick {
	lo, hi := int(math.Ceil(s.lo)), int(math.Floor(s.hi))
	step := max(1, (hi-lo+5)/6)
	var out []chartTick
	for e := lo; e <= hi; e += step {
		out = append(out, chartTick{X: num(s.x0 - 6), Y: num(s.y(math.Exp2(float64(e)))), Label: format.Bytes(math.Exp2(float64(e)))})
	}
	return out
}

// timeTicks are four evenly spaced times, the ends included, written as
// finely as the span needs (UTC).
func timeTicks(s chartScale) []chartTick {
	layout := "01-02 15:04"
	switch span := s.t1 - s.t0; {
	case span < 600:
		layout = "15:04:05"
	case span < 86400:
		layout = "15:04"
	}
	var out []chartTick
	for i := range 4 {
		t := s.t0 + (s.t1-s.t0)*float64(i)/3
		anchor := "middle"
		switch i {
		case 0:
			anchor = "start"
		case 3:
			anchor = "end"
		}
		out = append(out, chartTick{X: num(s.x(t)), Y: num(s.yBot + 16), Label: time.Unix(int64(t), 0).UTC().Format(layout), Anchor: anchor})
	}
	return out
}
