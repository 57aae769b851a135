package web

import (
	"bytes"
	"encoding/xml"
	"fmt"
	stdhtml "html"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// svgNode is a parsed SVG element with its attributes, text and children.
type svgNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []svgNode  `xml:",any"`
}

func (n svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// find lists the descendants named local whose class attribute contains class.
func (n svgNode) find(local, class string) []svgNode {
	var out []svgNode
	for _, c := range n.Children {
		if c.XMLName.Local == local && (class == "" || strings.Contains(" "+c.attr("class")+" ", " "+class+" ")) {
			out = append(out, c)
		}
		out = append(out, c.find(local, class)...)
	}
	return out
}

// title is an element's <title> text.
func (n svgNode) title() string {
	for _, c := range n.Children {
		if c.XMLName.Local == "title" {
			return c.Text
		}
	}
	return ""
}

var svgRE = regexp.MustCompile(`(?s)<svg xmlns="http://www.w3.org/2000/svg" class="([\w-]+)".*?</svg>`)

// parseSVGs parses every inline SVG of the given class, strictly.
func parseSVGs(t *testing.T, html, class string) []svgNode {
	t.Helper()
	var out []svgNode
	for _, m := range svgRE.FindAllStringSubmatch(html, -1) {
		if m[1] != class {
			continue
		}
		var n svgNode
		dec := xml.NewDecoder(strings.NewReader(m[0]))
		dec.Strict = true
		if err := dec.Decode(&n); err != nil {
			t.Fatalf("SVG %s is not well-formed XML: %v", class, err)
		}
		out = append(out, n)
	}
	return out
}

// renderPart executes one of the page's named templates.
func renderPart(t *testing.T, name string, data any) string {
	t.Helper()
	latest := &publish.Latest{}
	p, err := newStatusPage(latest, exporter.New(latest, exporter.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// lastPoint is a polyline's last vertex.
func lastPoint(t *testing.T, points string) (float64, float64) {
	t.Helper()
	f := strings.Fields(points)
	if len(f) == 0 {
		t.Fatal("empty polyline")
	}
	xs, ys, _ := strings.Cut(f[len(f)-1], ",")
	x, err1 := strconv.ParseFloat(xs, 64)
	y, err2 := strconv.ParseFloat(ys, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("bad vertex %q", f[len(f)-1])
	}
	return x, y
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return v
}

// sizeSeries is n points ending at end, one every step, growing perStep.
func sizeSeries(end time.Time, n int, step time.Duration, first, perStep int64) []history.SizePoint {
	out := make([]history.SizePoint, n)
	for i := range n {
		out[i] = history.SizePoint{end.Add(-time.Duration(n-1-i) * step).Unix(), first + int64(i)*perStep}
	}
	return out
}

func TestGrowthChart(t *testing.T) {
	const mib = 1 << 20
	now := time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC)
	th := analyzer.DefaultThresholds()
	th.PartitionWarningBytes, th.PartitionCriticalBytes = 70*mib, 80*mib // read from the report, not copied
	growing := analyzer.GrowthLine{At: now.Unix(), Current: 60 * mib, BytesPerSecond: 10 * mib / 3600.0, WindowSeconds: 7200, Points: 13}
	far := growing
	far.BytesPerSecond = 1 * mib / 86400.0 // 20 days to go: past the chart's edge
	past := growing
	past.Current = 90 * mib
	tests := []struct {
		name        string
		h           analyzer.SizeHistory
		wantLine    bool
		lineEndsAt  float64 // bytes at the fitted line's end; 0: at the critical size
		wantInTitle string
		wantInText  []string
	}{
		{"trusted fit: the line ends where it reaches critical",
			analyzer.SizeHistory{Keyspace: "ks", Table: "grow", Bound: true, Points: sizeSeries(now, 13, 10*time.Minute, 40*mib, 5*mib/3), Fit: &growing},
			true, 0, "reaches 80 MiB around " + now.Add(2*time.Hour).Format(chartTimeLayout),
			[]string{"13 points", "≤ 40 MiB to ≤ 60 MiB", "histogram bucket bounds", "reaches 70 MiB around " + now.Add(time.Hour).Format(chartTimeLayout), "then 80 MiB around " + now.Add(2*time.Hour).Format(chartTimeLayout)}},
		{"far crossing: the line stops at the chart's edge below critical",
			analyzer.SizeHistory{Keyspace: "ks", Table: "slow", Bound: true, Points: sizeSeries(now, 13, 10*time.Minute, 58*mib, mib/6), Fit: &far},
			true, 60*mib + 1*mib, "reaches 80 MiB around " + now.Add(20*24*time.Hour).Format(chartTimeLayout),
			[]string{"past the chart's right edge"}},
		{"already past critical: the fit over its window",
			analyzer.SizeHistory{Keyspace: "ks", Table: "big", Bound: true, Points: sizeSeries(now, 13, 10*time.Minute, 70*mib, 5*mib/3), Fit: &past},
			true, 90 * mib, "at or above 80 MiB already", []string{"at or above the critical 80 MiB already"}},
		{"untrusted: no line, the reason",
			analyzer.SizeHistory{Keyspace: "ks", Table: "short", Bound: true, Points: sizeSeries(now, 3, 10*time.Minute, 2*mib, 0),
				Why: "3 points over 20 minutes: not enough history for a forecast (it needs 6 points over 1 hour)"},
			false, 0, "no forecast", []string{"No forecast: 3 points over 20 minutes: not enough history", "≤ 2.0 MiB to ≤ 2.0 MiB"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &analyzer.Report{Thresholds: th, SizeHistory: []analyzer.SizeHistory{tc.h}}
			html := renderPart(t, "growth", newGrowthCharts(r))
			svgs := parseSVGs(t, html, "growth-chart")
			if len(svgs) != 1 {
				t.Fatalf("want one chart, got %d", len(svgs))
			}
			svg := svgs[0]
			if got := len(svg.find("circle", "point")); got != len(tc.h.Points) {
				t.Errorf("%d points drawn, want %d", got, len(tc.h.Points))
			}
			thresholds := map[string]float64{}
			for _, l := range svg.find("line", "threshold") {
				thresholds[l.title()] = mustFloat(t, l.attr("y1"))
			}
			critY, okC := thresholds["critical "+format.Bytes(float64(th.PartitionCriticalBytes))]
			_, okW := thresholds["warning "+format.Bytes(float64(th.PartitionWarningBytes))]
			if !okC || !okW || len(thresholds) != 2 {
				t.Fatalf("threshold lines %v, want warning 70 MiB and critical 80 MiB", thresholds)
			}
			if !strings.Contains(svg.title(), tc.wantInTitle) {
				t.Errorf("title %q lacks %q", svg.title(), tc.wantInTitle)
			}
			lines := svg.find("polyline", "forecast")
			if (len(lines) == 1) != tc.wantLine {
				t.Fatalf("%d forecast lines, want line %v", len(lines), tc.wantLine)
			}
			if tc.wantLine {
				_, y := lastPoint(t, lines[0].attr("points"))
				wantY := critY
				if tc.lineEndsAt > 0 {
					wantY = scaleOf(t, svg, tc.lineEndsAt)
				}
				if math.Abs(y-wantY) > 0.6 {
					t.Errorf("the fitted line ends at y %.2f, want %.2f", y, wantY)
				}
			}
			text := stdhtml.UnescapeString(html[strings.Index(html, `<p class="chart-text">`):])
			for _, w := range tc.wantInText {
				if !strings.Contains(text, w) {
					t.Errorf("text equivalent lacks %q:\n%s", w, text)
				}
			}
		})
	}
}

// scaleOf is the y of a size on a chart's log axis, from two of its ticks.
func scaleOf(t *testing.T, svg svgNode, bytes float64) float64 {
	t.Helper()
	ticks := svg.find("text", "ytick")
	if len(ticks) < 2 {
		t.Fatal("fewer than two y ticks")
	}
	tickBytes := func(label string) float64 {
		var v float64
		var unit string
		if _, err := fmt.Sscanf(label, "%g %s", &v, &unit); err != nil {
			t.Fatalf("y tick %q: %v", label, err)
		}
		return v * map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[unit]
	}
	a, b := ticks[0], ticks[len(ticks)-1]
	ya, yb := mustFloat(t, a.attr("y")), mustFloat(t, b.attr("y"))
	la, lb := math.Log2(tickBytes(a.Text)), math.Log2(tickBytes(b.Text))
	return ya + (math.Log2(bytes)-la)/(lb-la)*(yb-ya)
}

// TestGrowthChartsOrderAndCap: size problems first, then the largest; at
// most growthMaxCharts drawn, the rest named.
func TestGrowthChartsOrderAndCap(t *testing.T) {
	now := time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC)
	r := &analyzer.Report{Thresholds: analyzer.DefaultThresholds(),
		Findings: []finding.Finding{{Kind: analyzer.KindOversizedPartition, Keyspace: "ks", Table: "t0"}}}
	for i := range growthMaxCharts + 3 { // t0 smallest … t8 largest
		r.SizeHistory = append(r.SizeHistory, analyzer.SizeHistory{Keyspace: "ks", Table: fmt.Sprintf("t%d", i),
			Points: sizeSeries(now, 2, time.Minute, int64(1+i)<<20, 0), Why: "flat"})
	}
	g := newGrowthCharts(r)
	var drawn []string
	for _, c := range g.Charts {
		drawn = append(drawn, c.Table)
	}
	if got, want := strings.Join(drawn, ","), "ks.t0,ks.t8,ks.t7,ks.t6,ks.t5,ks.t4"; got != want {
		t.Errorf("charts %s, want %s (the oversized table first, then by size)", got, want)
	}
	html := renderPart(t, "growth", g)
	if !strings.Contains(html, "3 more tables with a size history are not drawn: ks.t3, ks.t2, ks.t1.") {
		t.Errorf("the left-out tables are not named:\n%s", html[strings.LastIndex(html, "<p"):])
	}
}

// TestGrowthChartOfAnAnalyzedReport: through the analyzer and the page, a
// table whose history grows gets the forecast rule's finding and a chart
// whose crossing time is the finding's (one trust condition, one fit).
func TestGrowthChartOfAnAnalyzedReport(t *testing.T) {
	snap := reporttest.LargeSnapshot(20)
	const key = "ks00.t03"
	current := snap.PerNode[snap.Nodes[0].HostID].Tables[key].MaxPartitionBytes
	for _, nd := range snap.PerNode {
		current = max(current, nd.Tables[key].MaxPartitionBytes)
	}
	th := analyzer.DefaultThresholds()
	perSecond := float64(th.PartitionCriticalBytes-current) / (3 * 86400) // critical in three days
	h := history.New(history.Limits{})
	h.Sizes[key] = sizeSeries(snap.Taken.Add(-30*time.Minute), 24, 30*time.Minute,
		current-int64(perSecond*(30*60*24)), int64(perSecond*30*60))
	r := analyzer.Analyze(snap, h, th)
	var forecast *finding.Finding
	for i, f := range r.Findings {
		if f.Kind == analyzer.KindPartitionGrowthForecast && f.Keyspace+"."+f.Table == key {
			forecast = &r.Findings[i]
		}
	}
	if forecast == nil {
		t.Fatalf("no growth forecast for %s: %+v", key, r.SizeHistory)
	}
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	eLatest.Publish(r)
	page := get(t, newTestHandler(t, eLatest, e, nil).URL+"/").body
	want := fmt.Sprintf("%s: reaches %s around %s UTC", key, format.Bytes(float64(th.PartitionCriticalBytes)),
		chartTime(float64(r.Taken.Unix())+forecast.Value))
	var titles []string
	for _, svg := range parseSVGs(t, page, "growth-chart") {
		titles = append(titles, svg.title())
		if svg.title() == want && len(svg.find("polyline", "forecast")) != 1 {
			t.Errorf("the chart of %s has no fitted line", key)
		}
	}
	if !contains(titles, want) {
		t.Errorf("no chart titled %q among %q", want, titles)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
