package web

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
)

var heatT0 = time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)

// heatReport is a report on a ring of len(tokens) nodes with one table's
// heatmap over the given columns, each node's read cells from ratios (0: no
// ratio; negative: no data).
func heatReport(tokens [][]int64, ratios [][]float64, keys ...analyzer.HeatKey) *analyzer.Report {
	r := &analyzer.Report{Generated: heatT0}
	m := analyzer.HeatMap{Keyspace: "pm_hot", Table: "kv", Keys: keys}
	for c := range ratios[0] {
		start := heatT0.Add(time.Duration(c) * time.Minute).Unix()
		m.Columns = append(m.Columns, analyzer.HeatSpan{Start: start, End: start + 60})
	}
	for i, toks := range tokens {
		id, addr := "h"+strconv.Itoa(i+1), "127.0.0."+strconv.Itoa(i+1)
		r.Nodes = append(r.Nodes, analyzer.NodeSummary{HostID: id, Address: addr, DC: "dc1", Tokens: len(toks), TokenValues: toks})
		n := analyzer.HeatNode{HostID: id, Address: addr, DC: "dc1"}
		for _, ratio := range ratios[i] {
			cell := analyzer.HeatCell{Rate: 10 * ratio, Share: ratio / 3, Ratio: ratio}
			switch {
			case ratio < 0:
				cell = analyzer.HeatCell{Rate: -1, Note: "no rate: the node's counters were not read, or it restarted"}
			case ratio == 0:
				cell = analyzer.HeatCell{Rate: 0.2, Note: "0.2 ops/s in its DC, under the 1 ops/s traffic floor"}
			}
			n.Reads = append(n.Reads, cell)
			n.Writes = append(n.Writes, analyzer.HeatCell{Rate: 0, Note: "idle"})
		}
		m.Nodes = append(m.Nodes, n)
	}
	r.Heat = &analyzer.HeatMaps{Maps: []analyzer.HeatMap{m}}
	return r
}

func TestHeatmapBandsCellsAndMarkers(t *testing.T) {
	minTok, third := int64(math.MinInt64), int64(3074457345618258602)
	hot := analyzer.HeatKey{Keyspace: "pm_hot", Table: "kv", Key: "hot", Token: 1234567890123456789, OK: true, Columns: []int{1, 2}, Share: 0.8}
	cases := []struct {
		name       string
		tokens     [][]int64
		wantBands  int
		aggregated bool
	}{
		{"one token per node, the first at the minimum", [][]int64{{minTok}, {-third}, {third}}, 3, false},
		{"vnodes: one band per node", [][]int64{{-9e18, -1e18, 5e18}, {-5e18, 1e18}, {0, 8e18}}, 3, true},
		{"256 vnodes, one band per node", [][]int64{evenRing(0, 256), evenRing(1, 256), evenRing(2, 256)}, 3, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := heatReport(c.tokens, [][]float64{{1, 1, 0.3}, {1, 2.4, 2.4}, {1, 0, -1}}, hot,
				analyzer.HeatKey{Keyspace: "pm_hot", Table: "kv", Key: "12345", Why: "no token: type varint is not supported"})
			hm := newHeatmaps(r)
			html := renderPart(t, "heatmaps", hm)
			svgs := parseSVGs(t, html, "heat-panel")
			if len(svgs) != 2 {
				t.Fatalf("%d panels, want reads and writes", len(svgs))
			}
			bands := svgs[0].find("g", "band")
			if len(bands) != c.wantBands {
				t.Fatalf("%d bands, want %d", len(bands), c.wantBands)
			}
			if !c.aggregated {
				checkBandsFollowTheRing(t, bands, c.tokens)
			} else if !strings.Contains(html, fmt.Sprintf("vnodes, %d ranges: each node", len(c.tokens[0])+len(c.tokens[1])+len(c.tokens[2]))) {
				t.Errorf("aggregated bands not said: %s", hm.Maps[0].Note)
			}
			cells := svgs[0].find("rect", "")
			var titled int
			for _, cell := range cells {
				if cell.title() != "" {
					titled++
				}
			}
			if want := c.wantBands * 3; titled < want {
				t.Errorf("%d titled cells, want at least %d (one per band and column)", titled, want)
			}
			marks := svgs[0].find("g", "hotkey")
			if len(marks) != 1 || marks[0].attr("data-token") != "1234567890123456789" {
				t.Fatalf("hot key markers %+v", marks)
			}
			if !c.aggregated {
				checkMarkerAtToken(t, marks[0], hot.Token)
			}
			for _, want := range []string{
				"Node 127.0.0.2&#39;s ranges took up to 2.4× their fair share of pm_hot.kv&#39;s reads from 15:01:00 to 15:03:00 UTC.",
				"pm_hot.kv key 12345: no marker, no token: type varint is not supported",
			} {
				if !strings.Contains(html, want) {
					t.Errorf("heatmap lacks %q", want)
				}
			}
		})
	}
}

// evenRing is node's share of an n-token-per-node ring of three nodes.
func evenRing(node, n int) []int64 {
	var out []int64
	step := math.Pow(2, 64) / float64(3*n)
	for i := 0; i < n; i++ {
		out = append(out, int64(-math.Pow(2, 63)+step*float64(3*i+node)+step/2))
	}
	return out
}

// checkBandsFollowTheRing: bands in token order, each starting where the
// previous ended, the first wrapping from the last token, and owned by the
// node whose token ends it.
func checkBandsFollowTheRing(t *testing.T, bands []svgNode, tokens [][]int64) {
	t.Helper()
	owner := map[string]string{}
	for i, toks := range tokens {
		for _, tok := range toks {
			owner[strconv.FormatInt(tok, 10)] = "127.0.0." + strconv.Itoa(i+1)
		}
	}
	for i, b := range bands {
		prev := bands[(i+len(bands)-1)%len(bands)]
		if b.attr("data-start") != prev.attr("data-end") {
			t.Errorf("band %d starts at %s, the previous ends at %s", i, b.attr("data-start"), prev.attr("data-end"))
		}
		if i > 0 && mustFloat(t, b.attr("data-end")) <= mustFloat(t, prev.attr("data-end")) {
			t.Errorf("band %d is out of token order", i)
		}
		if got := owner[b.attr("data-end")]; got != b.attr("data-node") {
			t.Errorf("band ending at %s labelled %s, owned by %s", b.attr("data-end"), b.attr("data-node"), got)
		}
	}
}

// checkMarkerAtToken: the marker's triangle points at the token's place
// on the axis.
func checkMarkerAtToken(t *testing.T, mark svgNode, token int64) {
	t.Helper()
	poly := mark.find("polygon", "")
	if len(poly) != 1 {
		t.Fatalf("marker without its triangle: %+v", mark)
	}
	_, y := lastPoint(t, poly[0].attr("points"))
	if want := heatY(tokenPos(token)); math.Abs(y-want) > 0.01 {
		t.Errorf("marker at y %.2f, token's place %.2f", y, want)
	}
	seen := mark.find("rect", "seen")
	if len(seen) != 2 || mustFloat(t, seen[0].attr("x")) >= mustFloat(t, seen[1].attr("x")) {
		t.Errorf("outlines %+v, want one in each of the two columns the key was seen in", seen)
	}
	if !strings.Contains(mark.title(), "hot key hot of pm_hot.kv at token 1234567890123456789, seen in 2 columns, last 15:02:00–15:03:00 UTC; 80.0% of the table's sampled operations") {
		t.Errorf("marker title %q", mark.title())
	}
}

func TestHeatColourScale(t *testing.T) {
	cases := []struct {
		cell analyzer.HeatCell
		want string
		text string
	}{
		{analyzer.HeatCell{Rate: 10, Share: 1.0 / 3, Ratio: 1}, "#f7f7f7", "33.3% of its DC's, 1.00× its fair share"},
		{analyzer.HeatCell{Rate: 10, Share: 0.9, Ratio: 4}, "#b35806", "4.00×"},
		{analyzer.HeatCell{Rate: 10, Share: 0.9, Ratio: 9}, "#b35806", "9.00×"}, // beyond the scale: its end
		{analyzer.HeatCell{Rate: 10, Share: 0.05, Ratio: 0.25}, "#2166ac", "0.25×"},
		{analyzer.HeatCell{Rate: 10, Share: 0.6, Ratio: 2}, "#d5a87f", "2.00×"},
		{analyzer.HeatCell{Rate: -1, Note: "restarted"}, heatNoData, "no data: restarted"},
		{analyzer.HeatCell{Rate: 0, Note: "idle"}, heatNoRatio, "no ratio: idle"},
	}
	for _, c := range cases {
		fill, text := heatFill(c.cell)
		if fill != c.want || !strings.Contains(text, c.text) {
			t.Errorf("%+v: %s %q, want %s %q", c.cell, fill, text, c.want, c.text)
		}
	}
	// Diverging and monotone either side of 1: lighter towards 1.
	for _, pair := range [][2]float64{{1.25, 2}, {2, 3}, {0.8, 0.5}, {0.5, 0.3}} {
		if lightness(heatColour(pair[0])) <= lightness(heatColour(pair[1])) {
			t.Errorf("%.2f× must be lighter than %.2f×", pair[0], pair[1])
		}
	}
}

func lightness(hex string) float64 {
	v, _ := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	return float64(v>>16&0xff)*0.3 + float64(v>>8&0xff)*0.59 + float64(v&0xff)*0.11
}

// TestHeatmapSentences: the sentence judges by the report's
// hot_range_ratio warning (the default 2, or a configured 1.5).
func TestHeatmapSentences(t *testing.T) {
	cases := []struct {
		hot    float64 // the configured warning; 0: the defaults
		ratios [][]float64
		want   string
	}{
		{0, [][]float64{{1, 1}, {1.1, 0.9}, {0.9, 1.1}}, "No node's ranges took more than 2× their fair share of pm_hot.kv's reads or writes from 15:00:00–15:02:00 UTC (highest 1.10×)."},
		{0, [][]float64{{1, 1}, {1.6, 0.9}, {0.9, 1.1}}, "No node's ranges took more than 2× their fair share of pm_hot.kv's reads or writes from 15:00:00–15:02:00 UTC (highest 1.60×)."},
		{1.5, [][]float64{{1, 1}, {1.6, 0.9}, {0.9, 1.1}}, "Node 127.0.0.2's ranges took up to 1.6× their fair share of pm_hot.kv's reads from 15:00:00 to 15:01:00 UTC."},
		{0, [][]float64{{0, -1}, {0, 0}, {-1, 0}}, "No shares to compare from 15:00:00–15:02:00 UTC"},
		{0, [][]float64{{0.5, 0.5}, {1.5, 2.5}, {1.5, 0.1}}, "Node 127.0.0.2's ranges took up to 2.5× their fair share of pm_hot.kv's reads from 15:01:00 to 15:02:00 UTC."},
		{1.5, [][]float64{{0.5, 0.5}, {1.5, 2.5}, {1.5, 0.1}}, "Node 127.0.0.2's ranges took up to 2.5× their fair share of pm_hot.kv's reads from 15:00:00 to 15:02:00 UTC."},
	}
	for _, c := range cases {
		r := heatReport([][]int64{{-5e18}, {0}, {5e18}}, c.ratios)
		if c.hot > 0 {
			r.Thresholds = analyzer.DefaultThresholds()
			r.Thresholds.HotRangeRatioWarning = c.hot
		}
		got := newHeatmaps(r).Maps[0].Sentence
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("hot %v: sentence %q, want %q", c.hot, got, c.want)
		}
	}
}

func TestHeatmapsWithoutHistory(t *testing.T) {
	html := renderPart(t, "heatmaps", newHeatmaps(&analyzer.Report{}))
	if !strings.Contains(html, "No traffic recorded between two cycles yet") || strings.Contains(html, "<svg") {
		t.Errorf("empty heatmap section: %s", html)
	}
}
