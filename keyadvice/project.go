package keyadvice

import (
	"fmt"
	"math"
	"sort"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/model"
)

// RowOverheadBytes is added to a sampled row's encoded values for its
// size in a partition: Cassandra 3.0+ writes per row a flags byte, its
// size, a timestamp delta and per cell a flags byte and a delta (vints).
const RowOverheadBytes = 10

// Method names how a projection was made.
const (
	MethodCurrent  = "current key: token density, sizes exact inside the sample"
	MethodRefines  = "refines the current key: exact inside each sampled partition, scaled by token density"
	MethodRegroups = "regroups rows across current partitions: Chao1 for distinct partitions, Horvitz-Thompson for sizes"
)

// Projection is what one key would make of the sampled table.
type Projection struct {
	Key        string   `json:"key"`
	Current    bool     `json:"current"`
	Method     string   `json:"method"`
	Partitions Estimate `json:"partitions"`
	Rows       Sizes    `json:"rows"`
	Bytes      Sizes    `json:"bytes"`
	// TopValues are the candidate partitions holding the most rows, by
	// their share of the table's rows (keys as keys.mode shows them).
	TopValues []ValueShare `json:"top_values"`
	Times     []TimeOrder  `json:"times"`
	// WrittenToday is the share of the key's partitions that took a write
	// in the sample's last 24 h of writes; -1 without WRITETIME.
	WrittenToday float64      `json:"written_today"`
	Bucket       *BucketWidth `json:"bucket,omitempty"`
	// Warnings hold the projection to the thresholds.
	Warnings []string `json:"warnings"`
}

// Options are what a projection is judged against.
type Options struct {
	Thresholds analyzer.Thresholds
	Nodes      int                 // nodes of the table's DC; 0: the sample's (KeySample.Nodes), else not judged per node
	Show       func(string) string // how a key leaves partmon (keys.mode)
}

// Project judges key k (Check it first) on sample s.
func Project(s *model.KeySample, k Key, o Options) Projection {
	if o.Nodes == 0 {
		o.Nodes = s.Nodes // the ring the sampler read
	}
	cur := CurrentKey(s.Columns)
	p := Projection{Key: k.String(), Current: k.String() == cur.String(), WrittenToday: -1}
	rows, ok := placeRows(s, k)
	if !ok {
		p.Method = "unknown"
		p.Partitions.Why = "a sampled row has no value in a column of this partition key (a NULL cannot be a key)"
		return p
	}
	dens := density(s)
	switch {
	case p.Current:
		p.Method = MethodCurrent
		p.Partitions = dens
		p.measureRefined(s, rows, dens, o)
	case refines(cur, k):
		p.Method = MethodRefines
		p.measureRefined(s, rows, dens, o)
	default:
		p.Method = MethodRegroups
		p.measureRegrouped(s, rows, dens, o)
	}
	p.Times = timeOrders(s, rows)
	p.WrittenToday = writtenToday(rows)
	p.Bucket = bucketWidth(s, k, cur, o.Thresholds)
	p.Warnings = warnings(p, o)
	return p
}

// group is one candidate partition in the sample.
type group struct {
	key      string
	shown    string
	rows     int
	bytes    float64
	currents map[int]bool
}

func groupRows(rows []rowOf) []*group {
	by := map[string]*group{}
	var out []*group
	for _, r := range rows {
		g := by[r.partition]
		if g == nil {
			g = &group{key: r.partition, shown: r.shown, currents: map[int]bool{}}
			by[r.partition] = g
			out = append(out, g)
		}
		g.rows++
		g.bytes += r.bytes + RowOverheadBytes
		g.currents[r.current] = true
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].rows > out[j].rows })
	return out
}

// measureRefined: each candidate partition lies inside one sampled current
// partition, read whole, so its rows and bytes are exact; the sampled
// current partitions are uniform, so the candidate partitions are a
// cluster sample of them. Distinct partitions: density × mean split d,
// relative variance 1/(K+R-2) + var(d)/(K·mean(d)²) (delta method).
func (p *Projection) measureRefined(s *model.KeySample, rows []rowOf, dens Estimate, o Options) {
	groups := groupRows(rows)
	k := float64(len(s.Partitions))
	split := make([]float64, len(s.Partitions))
	truncated := false
	for _, g := range groups {
		for c := range g.currents {
			split[c]++
			truncated = truncated || s.Partitions[c].Truncated
		}
	}
	mean, vari := meanVar(split)
	if !p.Current && dens.Known {
		n := dens.Value * mean
		rse := (dens.High/dens.Value - 1) / z95
		rel := math.Sqrt(rse*rse + vari/(k*mean*mean))
		p.Partitions = Estimate{Value: n, Low: n * math.Max(0, 1-z95*rel), High: n * (1 + z95*rel), Known: true,
			Why: fmt.Sprintf("token density × %.2f partitions of this key in each current one", mean)}
	}
	totalRows := dens.Value * float64(len(rows)) / k
	totalBytes := 0.0
	for _, g := range groups {
		totalBytes += g.bytes
	}
	totalBytes *= dens.Value / k
	p.Rows = sizes(groupValues(groups, func(g *group) float64 { return float64(g.rows) }), totalRows, truncated)
	p.Bytes = sizes(groupValues(groups, func(g *group) float64 { return g.bytes }), totalBytes, truncated)
	p.Rows.P99Draws = tailDraws(groups, p.Rows.P99, func(g *group) float64 { return float64(g.rows) })
	p.Bytes.P99Draws = tailDraws(groups, p.Bytes.P99, func(g *group) float64 { return g.bytes })
	p.TopValues = topValues(groups, 1, totalRows, o.Show)
}

// tailDraws counts the sampled current partitions holding a candidate
// partition at or over p99: the units the sample drew at random.
func tailDraws(gs []*group, p99 float64, f func(*group) float64) int {
	draws := map[int]bool{}
	for _, g := range gs {
		if f(g) >= p99 {
			for c := range g.currents {
				draws[c] = true
			}
		}
	}
	return max(len(draws), 1)
}

func groupValues(gs []*group, f func(*group) float64) []float64 {
	v := make([]float64, len(gs))
	for i, g := range gs {
		v[i] = f(g)
	}
	return v
}

func meanVar(v []float64) (mean, vari float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		vari += (x - mean) * (x - mean)
	}
	if len(v) > 1 {
		vari /= float64(len(v) - 1)
	}
	return mean, vari
}

// topN is how many most frequent partitions a projection lists.
const topN = 3

// topValues: the largest groups' rows, times scale, as shares of total.
func topValues(gs []*group, scale, total float64, show func(string) string) []ValueShare {
	var out []ValueShare
	for _, g := range gs[:min(topN, len(gs))] {
		v := g.shown
		if show != nil {
			v = show(v)
		}
		out = append(out, ValueShare{Value: v, Share: math.Min(1, float64(g.rows)*scale/math.Max(total, 1))})
	}
	return out
}
