package web

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/internal/format"
)

// ringPalette colours nodes in ring order: the replica rings' colour-blind
// safe palette (nodeColours), so a node has one colour on the whole page;
// past eight nodes its colour repeats and its legend text tells it apart.
var ringPalette = nodeColours

const (
	ringCenter    = 150.0
	ringRadius    = 110.0
	ringWidth     = 2*ringCenter + 80 // ring square and room for hot-range pointers; the legend goes below, readable on a phone
	ringMaxDots   = 1024              // beyond this many tokens, dots are noise
	ringInnerR    = 84.0              // the vnode ranges' ring, inside the nodes' ring
	legendX       = 10.0
	legendRowStep = 20.0
)

// ringPicture is the data of the inline SVG ring on the status page. On a
// vnode ring the outer ring (Arcs) is each node's share in one arc and the
// inner ring (Inner) every range, its bounds in its title; Hot points at
// the ranges holding sampled hot keys, listed under the picture.
type ringPicture struct {
	Width, Height float64
	CX, CY, R     string
	Arcs          []ringArc
	Dots          []ringDot
	Legend        []ringLegend
	Note          string
	VNodes        bool
	InnerR        string
	Inner         []ringArc
	Ranges        int
	Hot           []hotRange
	HotMarks      []ringHotMark
}

// ringHotMark is a pointer across the rings at a hot key's token: its
// range is too thin to see among hundreds.
type ringHotMark struct {
	X1, Y1, X2, Y2, LX, LY, CY, Label, Title string
}

type ringArc struct {
	D, Color, Title string
}

type ringDot struct {
	X, Y, Color, Title string
}

type ringLegend struct {
	X, TextX, Y, TextY, Color, Text string
	Skewed                          bool
}

// tokenAngle maps a Murmur3 token (−2^63 … 2^63−1) to radians clockwise from the top.
func tokenAngle(t int64) float64 {
	return (float64(t) + math.Pow(2, 63)) / math.Pow(2, 64) * 2 * math.Pi
}

func ringPoint(angle float64) (float64, float64) {
	return ringPointAt(ringRadius, angle)
}

func ringPointAt(radius, angle float64) (float64, float64) {
	return ringCenter + radius*math.Sin(angle), ringCenter - radius*math.Cos(angle)
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// arcPath is an SVG path for the ring from angle a to b (clockwise, b > a).
// A full turn is drawn as two half arcs: an arc whose ends meet draws nothing.
func arcPath(a, b float64) string {
	if b-a >= 2*math.Pi-1e-9 {
		return arcPath(a, a+math.Pi) + " " + arcPath(a+math.Pi, a+2*math.Pi)
	}
	x1, y1 := ringPoint(a)
	x2, y2 := ringPoint(b)
	large := 0
	if b-a > math.Pi {
		large = 1
	}
	r := num(ringRadius)
	return fmt.Sprintf("M %s %s A %s %s 0 %d 1 %s %s", num(x1), num(y1), r, r, large, num(x2), num(y2))
}

type ringToken struct {
	token int64
	node  int // index into the node list
}

// newRingPicture draws nodes on a circle by their tokens: the arc ending at
// each token is the range that token's node owns (primary range (prev, t]),
// coloured by owner; the legend shows each node's raw ownership and skew.
// Without token values it falls back to arcs sized by raw ownership.
func newRingPicture(r *analyzer.Report) ringPicture {
	nodes := r.Nodes
	rawOwns := make(map[string]analyzer.Ownership)
	for _, o := range r.Ownership {
		if o.Keyspace == "" {
			rawOwns[o.Node] = o
		}
	}
	pic := ringPicture{Width: ringWidth, CX: num(ringCenter), CY: num(ringCenter), R: num(ringRadius)}
	legendTop := 2*ringCenter + 14
	pic.Height = legendTop + legendRowStep*float64(len(nodes)) + 4

	colour := func(i int) string { return ringPalette[i%len(ringPalette)] }
	th := pageThresholds(r)
	for i, n := range nodes {
		y := legendTop + legendRowStep*float64(i)
		text := n.Address
		o, ok := rawOwns[n.Address]
		if ok {
			text += "  owns " + format.PercentCell(o.Owns) + "  skew ×" + format.RatioCell(o.Skew)
		}
		pic.Legend = append(pic.Legend, ringLegend{X: num(legendX), TextX: num(legendX + 18), Y: num(y), TextY: num(y + 11), Color: colour(i), Text: text,
			Skewed: ok && skewed(o.Skew, th)})
	}

	var tokens []ringToken
	for i, n := range nodes {
		for _, t := range n.TokenValues {
			tokens = append(tokens, ringToken{t, i})
		}
	}
	if len(tokens) > 0 {
		sort.Slice(tokens, func(i, j int) bool { return tokens[i].token < tokens[j].token })
		pic.Ranges = len(tokens)
		pic.Hot = hotRanges(r, tokens)
		pic.HotMarks = hotMarks(pic.Hot)
		if len(tokens) > len(nodes) {
			pic.VNodes, pic.InnerR = true, num(ringInnerR)
			pic.Arcs = nodeArcs(tokens, nodes, colour)
			pic.Inner = tokenArcsAt(ringInnerR, tokens, nodes, colour)
			return pic
		}
		pic.Arcs = tokenArcs(tokens, nodes, colour)
		if len(tokens) <= ringMaxDots {
			for _, t := range tokens {
				x, y := ringPoint(tokenAngle(t.token))
				pic.Dots = append(pic.Dots, ringDot{X: num(x), Y: num(y), Color: colour(t.node),
					Title: fmt.Sprintf("%s token %d", nodes[t.node].Address, t.token)})
			}
		}
		return pic
	}

	// No token values: arcs sized by raw ownership, in node order.
	start := 0.0
	for i, n := range nodes {
		o, ok := rawOwns[n.Address]
		if !ok || o.Owns <= 0 {
			continue
		}
		end := start + o.Owns*2*math.Pi
		pic.Arcs = append(pic.Arcs, ringArc{D: arcPath(start, end), Color: colour(i),
			Title: n.Address + " owns " + format.PercentCell(o.Owns)})
		start = end
	}
	pic.Note = "token values unknown: arcs sized by raw ownership"
	if len(pic.Arcs) == 0 {
		pic.Note = "no token or ownership data"
	}
	return pic
}

// tokenArcs merges consecutive ranges of one owner into one arc.
func tokenArcs(tokens []ringToken, nodes []analyzer.NodeSummary, colour func(int) string) []ringArc {
	var arcs []ringArc
	// The first token's range wraps around from the last token.
	start := tokenAngle(tokens[len(tokens)-1].token) - 2*math.Pi
	owner := tokens[0].node
	flush := func(end float64) {
		arcs = append(arcs, ringArc{D: arcPath(start, end), Color: colour(owner),
			Title: nodes[owner].Address + " owns " + format.PercentCell((end-start)/(2*math.Pi)) + " of the ring here"})
	}
	for i := 1; i < len(tokens); i++ {
		if tokens[i].node != owner {
			end := tokenAngle(tokens[i-1].token)
			flush(end)
			start, owner = end, tokens[i].node
		}
	}
	flush(tokenAngle(tokens[len(tokens)-1].token))
	return arcs
}

// nodeArcs is each node's share of the ring as one arc, in ring order of
// the nodes' first tokens from the top: on a vnode ring a node's hundreds
// of ranges are too thin to compare by eye.
func nodeArcs(tokens []ringToken, nodes []analyzer.NodeSummary, colour func(int) string) []ringArc {
	share := make([]float64, len(nodes))
	count := make([]int, len(nodes))
	var order []int
	prev := tokens[len(tokens)-1].token
	for _, t := range tokens {
		if count[t.node] == 0 {
			order = append(order, t.node)
		}
		share[t.node] += float64(uint64(t.token-prev)) / math.Pow(2, 64)
		count[t.node]++
		prev = t.token
	}
	var arcs []ringArc
	start := 0.0
	for _, n := range order {
		end := start + share[n]*2*math.Pi
		arcs = append(arcs, ringArc{D: arcPath(start, end), Color: colour(n),
			Title: fmt.Sprintf("%s: %s (vnodes), %s of the ring together; the inner ring places each", nodes[n].Address, rangesText(count[n]), format.PercentCell(share[n]))})
		start = end
	}
	return arcs
}

// tokenArcsAt is every range on the inner ring, neighbours of one owner
// merged, each titled with its token bounds.
func tokenArcsAt(radius float64, tokens []ringToken, nodes []analyzer.NodeSummary, colour func(int) string) []ringArc {
	var arcs []ringArc
	i := 0
	for i < len(tokens) {
		j := i
		for j+1 < len(tokens) && tokens[j+1].node == tokens[i].node {
			j++
		}
		start := tokens[(i+len(tokens)-1)%len(tokens)].token
		a, b := tokenAngle(start), tokenAngle(tokens[j].token)
		if b <= a {
			b += 2 * math.Pi
		}
		what := "range"
		if j > i {
			what = rangesText(j - i + 1)
		}
		arcs = append(arcs, ringArc{D: arcPathAt(ringCenter, radius, a, b), Color: colour(tokens[i].node),
			Title: fmt.Sprintf("%s (%d, %d]: %s, %s of the ring", what, start, tokens[j].token, nodes[tokens[i].node].Address,
				format.PercentCell((b-a)/(2*math.Pi)))})
		i = j + 1
	}
	return arcs
}

// hotMarks point at each hot range's key token, numbered as listed.
func hotMarks(hot []hotRange) []ringHotMark {
	var out []ringHotMark
	for i, h := range hot {
		token, err := strconv.ParseInt(h.Token, 10, 64)
		if err != nil {
			continue // not a Murmur3 token: no angle to mark it at
		}
		a := tokenAngle(token)
		x1, y1 := ringPointAt(ringInnerR-22, a)
		x2, y2 := ringPointAt(ringRadius+16, a)
		lx, ly := ringPointAt(ringRadius+26, a)
		out = append(out, ringHotMark{X1: num(x1), Y1: num(y1), X2: num(x2), Y2: num(y2), LX: num(lx), LY: num(ly + 4), CY: num(ly),
			Label: fmt.Sprint(i + 1), Title: fmt.Sprintf("hot range %d: %s key %s at token %s, range %s on %s; replicas %s", i+1, h.Table, h.Key, h.Token, h.Range, h.Owner, h.Replicas)})
	}
	return out
}

func rangesText(n int) string {
	if n == 1 {
		return "1 range"
	}
	return fmt.Sprintf("%d ranges", n)
}
