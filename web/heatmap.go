package web

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/internal/format"
)

// The heatmap's geometry, in viewBox units: node labels and the range
// strip on the left, one column per heat column across, the ring top down
// from the minimum token.
const (
	heatWidth     = 640.0 // about the panel's width at 1,280 px: text at its size
	heatPlotLeft  = 112.0
	heatPlotRight = 632.0
	heatPlotTop   = 22.0
	heatPlotH     = 260.0
	heatStripW    = 14.0
	// heatLabelRight is where node labels end, left of the hot-key marks.
	heatLabelRight = heatPlotLeft - heatStripW - 16
	heatHeight     = heatPlotTop + heatPlotH + 26
	// Beyond this many ranges, or range × column cells, the bands are the
	// nodes' (each node's ranges together), so the page stays light.
	heatMaxBands = 256
	heatMaxCells = 12000
	// heatSpread is the ratio at the ends of the colour scale (and 1/it).
	heatSpread = 4.0
)

// Colours: a diverging blue–white–orange scale (no red/green: it survives
// the common colour-blindnesses), greys for cells without a ratio.
var (
	heatLow, heatMid, heatHigh = [3]float64{33, 102, 172}, [3]float64{247, 247, 247}, [3]float64{179, 88, 6}
	heatNoData                 = "#8c8c8c"
	heatNoRatio                = "#dcdcdc"
	heatLegendRatios           = []float64{0.25, 0.5, 0.8, 1, 1.25, 2, 4}
)

// pageHeatmaps is the heatmap section of the status page.
type pageHeatmaps struct {
	Maps    []pageHeatmap
	LeftOut int
	Empty   string // why there is no heatmap yet
	Legend  []heatSwatch
}

type pageHeatmap struct {
	ID, Title, Table string
	TableURL         string
	Sentence         string // the map in one line of text
	Panels           []heatPanel
	Note             string
	Keys             []string // keys that have no marker, and why
}

type heatPanel struct {
	Op                    string // reads or writes
	Width, Height         float64
	PlotLeft, PlotTop     float64
	PlotWidth, PlotHeight float64
	Bands                 []heatBand
	Cells                 []heatRect
	Markers               []heatMarker
	Labels                []heatText
	Times                 []heatText
}

type heatBand struct {
	Node, Start, End, Title string
	Rects                   []heatRect
}

type heatRect struct {
	X, Y, W, H, Fill, Title string
}

type heatMarker struct {
	Token, Key, Title string
	AxisPoints        string     // the triangle on the Y axis
	Cells             []heatRect // an outline in each column the key was seen in
}

type heatText struct {
	X, Y, Text, Anchor string
}

type heatSwatch struct {
	Fill, Text string
}

// heatRange is one range of the ring: (Start, End] owned by Node (index
// into the map's nodes); Lo and Hi are its position from 0 to 1 down the
// axis, Lo2/Hi2 the piece of a range that wraps past the maximum token.
type heatRange struct {
	Node             int
	Start, End       int64
	Lo, Hi, Lo2, Hi2 float64
}

func tokenPos(t int64) float64 { return (float64(t) + math.Pow(2, 63)) / math.Pow(2, 64) }

// newHeatmaps draws the report's heatmaps, arranged by heatmapsDrawn.
func newHeatmaps(r *analyzer.Report) pageHeatmaps {
	out := pageHeatmaps{Legend: heatLegend()}
	if r.Heat == nil || len(r.Heat.Maps) == 0 {
		out.Empty = "No traffic recorded between two cycles yet: the heatmap gets one column per analysis cycle once a table is read or written."
		return out
	}
	tokens := map[string][]int64{}
	for _, n := range r.Nodes {
		tokens[n.HostID] = n.TokenValues
	}
	hot := pageThresholds(r).HotRangeRatioWarning
	var drawn []analyzer.HeatMap
	drawn, out.LeftOut = heatmapsDrawn(r.Heat.Maps)
	for _, m := range drawn {
		out.Maps = append(out.Maps, newHeatmap(m, tokens, hot))
	}
	return out
}

// newHeatmap draws one map; its sentence names the runs at or over hot, the
// hot_range_ratio warning.
func newHeatmap(m analyzer.HeatMap, tokens map[string][]int64, hot float64) pageHeatmap {
	pm := pageHeatmap{ID: "heat-all", Title: "All tables", Table: ""}
	if m.Table != "" {
		pm.Table = m.Keyspace + "." + m.Table
		pm.ID, pm.Title, pm.TableURL = "heat-"+m.Keyspace+"-"+m.Table, pm.Table, tableURL(m.Keyspace, m.Table)
	}
	if m.Table != "" && len(m.Nodes) == 0 {
		// The analysis keeps cells for the tables the overview draws first
		// (analyzer.HeatTableMaps): the ones with findings or the most traffic.
		pm.Note = fmt.Sprintf("not drawn: a heatmap of its own is kept for the %d tables with findings or the most traffic; this table's traffic is in the all-tables map", analyzer.HeatTableMaps)
		return pm
	}
	fine := ringRanges(m.Nodes, tokens)
	if len(fine) == 0 {
		pm.Note = "no token values: the ring cannot be drawn"
		return pm
	}
	g := heatGeometry{ranges: fine, fine: fine}
	switch {
	case len(fine) > len(m.Nodes):
		// Vnodes: a node's traffic is one figure for all its ranges, so
		// its interleaved ranges would repeat one colour around the ring;
		// grouped, the hot node is one band. The ring section lists each
		// hot key's range.
		pm.Note = fmt.Sprintf("vnodes, %d ranges: each node's ranges are drawn together as one band, sized by its raw ownership, and hot keys on their node's band; the ring's hot ranges list gives each key's range and replicas", len(fine))
		g.ranges, g.aggregated = nodeBands(fine, len(m.Nodes)), true
	case len(fine) > heatMaxBands || len(fine)*len(m.Columns) > heatMaxCells:
		pm.Note = fmt.Sprintf("%d ranges: each node's ranges are drawn as one band, sized by its raw ownership, and hot keys on their node's band", len(fine))
		g.ranges, g.aggregated = nodeBands(fine, len(m.Nodes)), true
	}
	what := "all tables'"
	if m.Table != "" {
		what = pm.Table + "'s"
	}
	for _, op := range []string{"reads", "writes"} {
		pm.Panels = append(pm.Panels, heatPanelFor(m, g, op, what))
	}
	pm.Sentence = heatSentence(m, what, hot)
	for _, k := range m.Keys {
		if !k.OK {
			pm.Keys = append(pm.Keys, fmt.Sprintf("%s.%s key %s: no marker, %s", k.Keyspace, k.Table, k.Key, k.Why))
		}
	}
	return pm
}

// ringRanges lists every node's ranges in token order: the range ending at
// each token, (previous token, token], the first wrapping around.
func ringRanges(nodes []analyzer.HeatNode, tokens map[string][]int64) []heatRange {
	type owned struct {
		t    int64
		node int
	}
	var all []owned
	for i, n := range nodes {
		for _, t := range tokens[n.HostID] {
			all = append(all, owned{t, i})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].t < all[j].t })
	out := make([]heatRange, 0, len(all))
	for i, o := range all {
		r := heatRange{Node: o.node, End: o.t, Hi: tokenPos(o.t)}
		if i == 0 {
			last := all[len(all)-1].t
			r.Start = last
			r.Lo, r.Lo2, r.Hi2 = 0, tokenPos(last), 1 // (last, max] then [min, first]
		} else {
			r.Start, r.Lo = all[i-1].t, tokenPos(all[i-1].t)
		}
		out = append(out, r)
	}
	return out
}

// nodeBands folds the ranges into one band per node, in ring order of
// each node's first token, sized by the node's share of the ring.
func nodeBands(ranges []heatRange, nodes int) []heatRange {
	share := make([]float64, nodes)
	first := make([]int, nodes)
	for i := range first {
		first[i] = -1
	}
	for i, r := range ranges {
		share[r.Node] += (r.Hi - r.Lo) + (r.Hi2 - r.Lo2)
		if first[r.Node] < 0 {
			first[r.Node] = i
		}
	}
	order := make([]int, 0, nodes)
	for n := range share {
		if first[n] >= 0 {
			order = append(order, n)
		}
	}
	sort.Slice(order, func(i, j int) bool { return first[order[i]] < first[order[j]] })
	var out []heatRange
	pos := 0.0
	for _, n := range order {
		out = append(out, heatRange{Node: n, Start: math.MinInt64, End: math.MaxInt64, Lo: pos, Hi: pos + share[n]})
		pos += share[n]
	}
	return out
}

// heatGeometry is the bands a map is drawn with: the ring's ranges, or
// (aggregated) one band per node; fine keeps the ranges for placing keys.
type heatGeometry struct {
	ranges, fine []heatRange
	aggregated   bool
}

func heatPanelFor(m analyzer.HeatMap, g heatGeometry, op, what string) heatPanel {
	p := heatPanel{Op: op, Width: heatWidth, Height: heatHeight, PlotLeft: heatPlotLeft, PlotTop: heatPlotTop,
		PlotWidth: heatPlotRight - heatPlotLeft, PlotHeight: heatPlotH}
	colW := p.PlotWidth / float64(len(m.Columns))
	aggregated := g.aggregated
	for _, r := range g.ranges {
		n := m.Nodes[r.Node]
		b := heatBand{Node: n.Address, Start: strconv.FormatInt(r.Start, 10), End: strconv.FormatInt(r.End, 10)}
		b.Title = fmt.Sprintf("%s: range (%d, %d]", n.Address, r.Start, r.End)
		if aggregated {
			b.Title = fmt.Sprintf("%s: all its ranges, %s of the ring", n.Address, format.PercentCell(r.Hi-r.Lo))
		}
		colour := ringPalette[r.Node%len(ringPalette)]
		for _, piece := range pieces(r) {
			b.Rects = append(b.Rects, heatRect{X: num(heatPlotLeft - heatStripW - 2), Y: num(heatY(piece[0])),
				W: num(heatStripW), H: num(heatY(piece[1]) - heatY(piece[0])), Fill: colour})
		}
		p.Bands = append(p.Bands, b)
		cells := n.Reads
		if op == "writes" {
			cells = n.Writes
		}
		for c, cell := range cells {
			fill, text := heatFill(cell)
			title := fmt.Sprintf("%s, %s, %s: %s of %s %s; %s", n.Address, rangeText(r, aggregated), spanText(m.Columns[c]),
				rateText(cell.Rate), what, op, text)
			for _, piece := range pieces(r) {
				p.Cells = append(p.Cells, heatRect{X: num(heatPlotLeft + float64(c)*colW), Y: num(heatY(piece[0])),
					W: num(colW), H: num(heatY(piece[1]) - heatY(piece[0])), Fill: fill, Title: title})
			}
		}
	}
	p.Labels = nodeLabels(m, g.ranges)
	p.Times = timeLabels(m.Columns, colW)
	p.Markers = heatMarkers(m, g, colW)
	return p
}

// pieces are a range's spans down the axis (two for the wrapping one),
// without empty ones.
func pieces(r heatRange) [][2]float64 {
	var out [][2]float64
	if r.Hi > r.Lo {
		out = append(out, [2]float64{r.Lo, r.Hi})
	}
	if r.Hi2 > r.Lo2 {
		out = append(out, [2]float64{r.Lo2, r.Hi2})
	}
	return out
}

func heatY(pos float64) float64 { return heatPlotTop + pos*heatPlotH }

func rangeText(r heatRange, aggregated bool) string {
	if aggregated {
		return "all its ranges"
	}
	return fmt.Sprintf("range (%d, %d]", r.Start, r.End)
}

func spanText(s analyzer.HeatSpan) string {
	return clock(s.Start) + "–" + clock(s.End) + " UTC"
}

func clock(unix int64) string { return time.Unix(unix, 0).UTC().Format("15:04:05") }

func rateText(rate float64) string {
	if rate < 0 {
		return "no rate"
	}
	return format.Rate(rate)
}

// heatFill is a cell's colour and the words for its figures.
func heatFill(c analyzer.HeatCell) (string, string) {
	switch {
	case c.Rate < 0:
		return heatNoData, "no data: " + c.Note
	case c.Ratio <= 0:
		return heatNoRatio, "no ratio: " + c.Note
	}
	return heatColour(c.Ratio), fmt.Sprintf("%s of its DC's, %.2f× its fair share", format.PercentCell(c.Share), c.Ratio)
}

// heatColour maps a ratio on a log scale: 1 is white, heatSpread and
// beyond full orange, 1/heatSpread and below full blue.
func heatColour(ratio float64) string {
	v := math.Max(-1, math.Min(1, math.Log(ratio)/math.Log(heatSpread)))
	end := heatHigh
	if v < 0 {
		end, v = heatLow, -v
	}
	var rgb [3]int
	for i := range rgb {
		rgb[i] = int(math.Round(heatMid[i] + (end[i]-heatMid[i])*v))
	}
	return fmt.Sprintf("#%02x%02x%02x", rgb[0], rgb[1], rgb[2])
}

func heatLegend() []heatSwatch {
	var out []heatSwatch
	for _, r := range heatLegendRatios {
		text := "×" + strconv.FormatFloat(r, 'f', -1, 64)
		if r == 1 {
			text += " fair share"
		}
		out = append(out, heatSwatch{Fill: heatColour(r), Text: text})
	}
	return append(out, heatSwatch{Fill: heatNoRatio, Text: "no ratio (idle, or no fair share to compare)"},
		heatSwatch{Fill: heatNoData, Text: "no data"})
}

// nodeLabels names each node at its tallest band (or at each band tall
// enough to hold a label).
func nodeLabels(m analyzer.HeatMap, ranges []heatRange) []heatText {
	const minHeight = 11.0
	var out []heatText
	// A range's label goes at its larger piece (the wrapping range has two).
	big := func(r heatRange) [2]float64 {
		ps := pieces(r)
		if len(ps) == 0 {
			return [2]float64{r.Lo, r.Hi}
		}
		if len(ps) == 2 && ps[1][1]-ps[1][0] > ps[0][1]-ps[0][0] {
			return ps[1]
		}
		return ps[0]
	}
	tallest := map[int]int{}
	for i, r := range ranges {
		b := big(r)
		if j, ok := tallest[r.Node]; !ok || b[1]-b[0] > big(ranges[j])[1]-big(ranges[j])[0] {
			tallest[r.Node] = i
		}
	}
	for i, r := range ranges {
		b := big(r)
		if (b[1]-b[0])*heatPlotH < minHeight && tallest[r.Node] != i {
			continue
		}
		out = append(out, heatText{X: num(heatLabelRight), Y: num(heatY((b[0]+b[1])/2) + 4),
			Text: m.Nodes[r.Node].Address, Anchor: "end"})
	}
	return out
}

// timeLabels mark the first and last columns and a few between.
func timeLabels(cols []analyzer.HeatSpan, colW float64) []heatText {
	const every = 75.0 // viewBox units between labels
	step := max(1, int(math.Ceil(every/colW)))
	y := num(heatPlotTop + heatPlotH + 16)
	layout := timeLayout(cols[len(cols)-1].End - cols[0].Start)
	at := func(unix int64) string { return time.Unix(unix, 0).UTC().Format(layout) }
	var out []heatText
	// The last label is the end of the newest column: leave it room.
	for c := 0; c < len(cols) && float64(c)*colW < heatPlotRight-heatPlotLeft-1.6*every; c += step {
		out = append(out, heatText{X: num(heatPlotLeft + float64(c)*colW), Y: y, Text: at(cols[c].Start), Anchor: "start"})
	}
	return append(out, heatText{X: num(heatPlotRight), Y: y, Text: at(cols[len(cols)-1].End) + " UTC", Anchor: "end"})
}

// timeLayout writes times as finely as the map's span needs.
func timeLayout(span int64) string {
	switch {
	case span < 3600:
		return "15:04:05"
	case span < 86400:
		return "15:04"
	}
	return "Jan 2 15:04"
}

// heatMarkers mark each hot key with a token: a triangle on the Y axis at
// its token and an outline on its cell in each column it was seen in.
func heatMarkers(m analyzer.HeatMap, g heatGeometry, colW float64) []heatMarker {
	var out []heatMarker
	for _, k := range m.Keys {
		var cols []int
		for _, c := range k.Columns {
			if c >= 0 && c < len(m.Columns) {
				cols = append(cols, c)
			}
		}
		if !k.OK || len(cols) == 0 {
			continue
		}
		pos := tokenPos(k.Token)
		if g.aggregated {
			pos = ownerBandMiddle(g, k.Token)
		}
		y := heatY(pos)
		x := heatPlotLeft - heatStripW - 2
		mk := heatMarker{Token: strconv.FormatInt(k.Token, 10), Key: k.Key,
			AxisPoints: fmt.Sprintf("%s,%s %s,%s %s,%s", num(x-9), num(y-5), num(x-9), num(y+5), num(x-1), num(y))}
		for _, c := range cols {
			mk.Cells = append(mk.Cells, heatRect{X: num(heatPlotLeft + float64(c)*colW), Y: num(y - 3), W: num(colW), H: "6"})
		}
		last := m.Columns[cols[len(cols)-1]]
		mk.Title = fmt.Sprintf("hot key %s of %s.%s at token %d, seen in %d columns, last %s", k.Key, k.Keyspace, k.Table, k.Token, len(cols), spanText(last))
		if k.Share > 0 {
			mk.Title += "; " + format.PercentCell(k.Share) + " of the table's sampled operations"
		}
		out = append(out, mk)
	}
	return out
}

// ownerBandMiddle is the middle of the band of the node owning token t:
// the node of the first range ending at or after t, else the wrapping one.
func ownerBandMiddle(g heatGeometry, t int64) float64 {
	i := sort.Search(len(g.fine), func(i int) bool { return g.fine[i].End >= t })
	if i == len(g.fine) {
		i = 0
	}
	for _, b := range g.ranges {
		if b.Node == g.fine[i].Node {
			return (b.Lo + b.Hi) / 2
		}
	}
	return tokenPos(t)
}

// heatSentence says the hottest run of the map in one line: the node and
// operation with the highest ratio, and the columns around it where that
// node stayed at or over hot, the hot_range_ratio warning.
func heatSentence(m analyzer.HeatMap, what string, hot float64) string {
	best, bestNode, bestCol, bestOp := 0.0, -1, -1, ""
	for i, n := range m.Nodes {
		for _, side := range []struct {
			op    string
			cells []analyzer.HeatCell
		}{{"reads", n.Reads}, {"writes", n.Writes}} {
			for c, cell := range side.cells {
				if cell.Ratio > best {
					best, bestNode, bestCol, bestOp = cell.Ratio, i, c, side.op
				}
			}
		}
	}
	span := spanText(analyzer.HeatSpan{Start: m.Columns[0].Start, End: m.Columns[len(m.Columns)-1].End})
	if bestNode < 0 {
		return "No shares to compare from " + span + ": too little traffic, or no fair share by ownership."
	}
	if best < hot {
		return fmt.Sprintf("No node's ranges took more than %g× their fair share of %s reads or writes from %s (highest %.2f×).", hot, what, span, best)
	}
	cells := m.Nodes[bestNode].Reads
	if bestOp == "writes" {
		cells = m.Nodes[bestNode].Writes
	}
	from, to := bestCol, bestCol
	for from > 0 && cells[from-1].Ratio >= hot {
		from--
	}
	for to+1 < len(cells) && cells[to+1].Ratio >= hot {
		to++
	}
	return fmt.Sprintf("Node %s's ranges took up to %.1f× their fair share of %s %s from %s to %s UTC.",
		m.Nodes[bestNode].Address, best, what, bestOp, clock(m.Columns[from].Start), clock(m.Columns[to].End))
}
