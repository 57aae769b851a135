package web

import (
	"fmt"
	"math"
	"strings"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/ring"
)

// nodeColours is the Okabe–Ito palette, safe for the common colour-vision
// deficiencies. Past eight nodes colours repeat with a pattern (hatched,
// dotted, cross-hatched), and every picture also names nodes in its legend
// and in each arc's title.
var nodeColours = []string{"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"}

// nodePatterns are the fills of nodes 9-16, 17-24 and 25-32; beyond,
// they repeat.
var nodePatterns = []string{"hatched", "dotted", "crossed"}

// nodePaint is node i's colour and, past eight nodes, its pattern: the
// value of a fill or stroke attribute.
func nodePaint(i int) (colour, pattern, paint string) {
	colour = nodeColours[i%len(nodeColours)]
	if i < len(nodeColours) {
		return colour, "", colour
	}
	pattern = nodePatterns[(i/len(nodeColours)-1)%len(nodePatterns)]
	return colour, pattern, fmt.Sprintf("url(#node-paint-%d)", i)
}

const (
	replicaMaxPictures = 4    // replications drawn; the rest are named
	replicaMaxRings    = 6    // rings per picture (replicas over all DCs)
	replicaMaxArcs     = 2048 // arcs per picture before same-node neighbours merge
	// replicaMaxTitledArcs: past this many ranges a ring is one path per node.
	replicaMaxTitledArcs = 256
	replicaSize          = 320.0
	replicaOuter         = 150.0
	replicaRingWidth     = 14.0
	replicaRingGap       = 4.0
	replicaMaxTableRow   = 256 // rows of the per-range text table
)

// replicaPictures are the status page's replica-set rings.
type replicaPictures struct {
	Pictures []replicaPicture
	Paints   []nodePaintDef // patterns used by any picture or legend
	LeftOut  []string       // replications not drawn: "ks1, ks2 (SimpleStrategy rf 1)"
	Note     string
}

type nodePaintDef struct {
	ID, Colour, Pattern string
}

// replicaPicture is one replication's rings: one ring per replica (per DC
// under NetworkTopologyStrategy), each range's arc in its holder's colour.
type replicaPicture struct {
	ID, Keyspaces, Replication string
	Size, Center               float64
	Rings                      []replicaRing
	Legend                     []replicaLegend
	Header                     []string   // the text table's replica columns
	Rows                       []rangeRow // the text table, one row per range
	RowsLeftOut                int
	Merged                     bool // neighbouring arcs of one node were merged
	Note                       string
	Sets                       []replicaSetGroup // the ranges by replica set, per DC
}

type replicaRing struct {
	Label, R string
	NumberY  string // where the ring's replica number is written, at the top
	DC       string
	Replica  int // 1 = the first replica met walking clockwise
	Arcs     []ringArc
}

type replicaLegend struct {
	Address, DC, Rack, Paint, Colour, Pattern string
	Owns, Skew, Flag                          string
	Skewed                                    bool
}

type rangeRow struct {
	Range, Share string
	Holders      []string
}

// newReplicaPictures draws the analyzer's placements, in keyspace order,
// each with its ranges grouped by replica set, hot's sets marked.
func newReplicaPictures(r *analyzer.Report, hot []hotRange) replicaPictures {
	var out replicaPictures
	if len(r.Placements) == 0 {
		out.Note = "no replica sets: no keyspace with a known replication, no token values, or a ring of more than 4,096 tokens"
		return out
	}
	index := map[string]int{}
	for i, n := range r.Nodes {
		index[n.HostID] = i
	}
	used := map[int]bool{}
	for i, p := range r.Placements {
		if i >= replicaMaxPictures {
			out.LeftOut = append(out.LeftOut, strings.Join(p.Keyspaces, ", ")+" ("+p.Replication+")")
			continue
		}
		pic := newReplicaPicture(r, p, index, used)
		pic.ID = fmt.Sprintf("replicas-%d", i+1)
		pic.Sets = replicaSetGroups(r, p, pic.ID, index, used, hot)
		out.Pictures = append(out.Pictures, pic)
	}
	for i := range r.Nodes {
		if _, pattern, _ := nodePaint(i); pattern != "" && used[i] {
			colour, _, _ := nodePaint(i)
			out.Paints = append(out.Paints, nodePaintDef{ID: fmt.Sprintf("node-paint-%d", i), Colour: colour, Pattern: pattern})
		}
	}
	return out
}

func newReplicaPicture(r *analyzer.Report, p analyzer.Placement, index map[string]int, used map[int]bool) replicaPicture {
	pic := replicaPicture{Keyspaces: strings.Join(p.Keyspaces, ", "), Replication: p.Replication,
		Size: replicaSize, Center: replicaSize / 2}
	merge := len(p.Ranges) > replicaMaxArcs
	pic.Merged = merge
	radius := replicaOuter
	for _, dc := range p.DCs {
		for k := 0; k < dc.RF; k++ {
			if len(pic.Rings) == replicaMaxRings {
				pic.Note = fmt.Sprintf("only the first %d replicas are drawn as rings; the table lists them all", replicaMaxRings)
				break
			}
			ring := replicaRing{DC: dc.DC, Replica: k + 1, R: num(radius), Label: replicaLabel(dc.DC, k+1),
				NumberY: num(replicaSize/2 - radius + 4)}
			ring.Arcs = replicaArcs(r, p, dc, k, radius, index, used, merge)
			pic.Rings = append(pic.Rings, ring)
			radius -= replicaRingWidth + replicaRingGap
		}
	}
	pic.Legend = replicaLegendOf(r, p, index, used)
	pic.Header, pic.Rows, pic.RowsLeftOut = replicaRows(r, p, index)
	return pic
}

func replicaLabel(dc string, k int) string {
	if dc == "" {
		return fmt.Sprintf("replica %d", k)
	}
	return fmt.Sprintf("%s replica %d", dc, k)
}

// replicaArcs are ring k's arcs: range i's arc in the colour of the node
// holding its k-th replica in dc; a range without one is left blank. Past
// replicaMaxTitledArcs ranges, a node's arcs are one path with one title
// (a 256-token range is a fraction of a degree, too thin to point at: the
// replica-set table and the text table name them), which keeps a 6 × 256
// ring's page in hundreds of kilobytes instead of megabytes.
func replicaArcs(r *analyzer.Report, p analyzer.Placement, dc ring.DCReplicas, k int, radius float64,
	index map[string]int, used map[int]bool, merge bool) []ringArc {
	var arcs []ringArc
	fold := len(p.Ranges) > replicaMaxTitledArcs
	byNode := map[int]*nodeArcPaths{}
	var order []int
	holder := func(i int) (int, bool) {
		if k >= len(dc.Holders[i]) {
			return 0, false
		}
		n, ok := index[dc.Holders[i][k]]
		return n, ok
	}
	for i := 0; i < len(p.Ranges); i++ {
		node, ok := holder(i)
		if !ok {
			continue
		}
		j, share := i, p.Ranges[i].Share
		for merge && j+1 < len(p.Ranges) {
			if next, ok := holder(j + 1); !ok || next != node {
				break
			}
			j++
			share += p.Ranges[j].Share
		}
		a := tokenAngle(p.Ranges[i].Start)
		b := tokenAngle(p.Ranges[j].End)
		if b <= a {
			b += 2 * math.Pi
		}
		used[node] = true
		d := arcPathAt(replicaSize/2, radius, a, b)
		if fold {
			if byNode[node] == nil {
				byNode[node] = &nodeArcPaths{}
				order = append(order, node)
			}
			byNode[node].add(d, j-i+1, share)
		} else {
			_, _, paint := nodePaint(node)
			n := r.Nodes[node]
			arcs = append(arcs, ringArc{D: d, Color: paint,
				Title: fmt.Sprintf("(%d, %d], %s of the ring: %s on %s (%s/%s)", p.Ranges[i].Start, p.Ranges[j].End,
					format.Percent(share), replicaLabel(dc.DC, k+1), n.Address, n.DC, n.Rack)})
		}
		i = j
	}
	for _, node := range order {
		na := byNode[node]
		_, _, paint := nodePaint(node)
		n := r.Nodes[node]
		arcs = append(arcs, ringArc{D: strings.Join(na.d, " "), Color: paint,
			Title: fmt.Sprintf("%s on %s (%s/%s): %s, %s of the ring", replicaLabel(dc.DC, k+1), n.Address, n.DC, n.Rack,
				rangesText(na.ranges), format.Percent(na.share))})
	}
	return arcs
}

// nodeArcPaths are one node's arcs on a ring drawn as one path.
type nodeArcPaths struct {
	d      []string
	ranges int
	share  float64
}

func (n *nodeArcPaths) add(d string, ranges int, share float64) {
	n.d = append(n.d, d)
	n.ranges += ranges
	n.share += share
}

// arcPathAt is arcPath on a circle of radius r around (c, c).
func arcPathAt(c, r, a, b float64) string {
	if b-a >= 2*math.Pi-1e-9 {
		return arcPathAt(c, r, a, a+math.Pi) + " " + arcPathAt(c, r, a+math.Pi, a+2*math.Pi)
	}
	x1, y1 := c+r*math.Sin(a), c-r*math.Cos(a)
	x2, y2 := c+r*math.Sin(b), c-r*math.Cos(b)
	large := 0
	if b-a > math.Pi {
		large = 1
	}
	return fmt.Sprintf("M %s %s A %s %s 0 %d 1 %s %s", num(x1), num(y1), num(r), num(r), large, num(x2), num(y2))
}

// replicaLegendOf lists the nodes holding replicas with their effective
// ownership of the picture's keyspaces and its skew (the ownership table's
// figures), a skew at the ownership_skew warning or above said in words.
func replicaLegendOf(r *analyzer.Report, p analyzer.Placement, index map[string]int, used map[int]bool) []replicaLegend {
	owns := map[string]analyzer.Ownership{}
	for _, o := range r.Ownership {
		if o.Keyspace == p.Keyspaces[0] {
			owns[o.HostID] = o
		}
	}
	warn := pageThresholds(r).OwnershipSkewWarning
	var out []replicaLegend
	for i, n := range r.Nodes {
		if !used[i] && owns[n.HostID].Owns == 0 {
			continue
		}
		colour, pattern, paint := nodePaint(i)
		l := replicaLegend{Address: n.Address, DC: n.DC, Rack: n.Rack, Paint: paint, Colour: colour, Pattern: pattern,
			Owns: "—", Skew: "—"}
		if o, ok := owns[n.HostID]; ok {
			l.Owns, l.Skew = format.PercentCell(o.Owns), "×"+format.RatioCell(o.Skew)
			if o.Skew >= warn {
				l.Skewed = true
				l.Flag = fmt.Sprintf("skewed: %s× its fair share (warning at %s×)", format.RatioCell(o.Skew), format.RatioCell(warn))
			}
		}
		out = append(out, l)
	}
	return out
}

// replicaRows is the text table: each range with its replicas' nodes.
func replicaRows(r *analyzer.Report, p analyzer.Placement, index map[string]int) ([]string, []rangeRow, int) {
	var header []string
	for _, dc := range p.DCs {
		for k := 0; k < dc.RF; k++ {
			header = append(header, replicaLabel(dc.DC, k+1))
		}
	}
	var rows []rangeRow
	for i, rg := range p.Ranges {
		if i == replicaMaxTableRow {
			return header, rows, len(p.Ranges) - i
		}
		row := rangeRow{Range: fmt.Sprintf("(%d, %d]", rg.Start, rg.End), Share: format.Percent(rg.Share)}
		for _, dc := range p.DCs {
			for k := 0; k < dc.RF; k++ {
				cell := "—"
				if k < len(dc.Holders[i]) {
					if n, ok := index[dc.Holders[i][k]]; ok {
						cell = r.Nodes[n].Address
					}
				}
				row.Holders = append(row.Holders, cell)
			}
		}
		rows = append(rows, row)
	}
	return header, rows, 0
}
