package keyadvice

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// Regrouped estimates are decided only when the sample covers the key's
// values: Good-Turing coverage 1 - f1/n (f1 values seen in one sampled
// partition, n sightings) at least MinCoverage, and, for sizes, every
// value seen in at least MinSightings sampled partitions.
const (
	MinCoverage  = 0.95
	MinSightings = 5
)

// measureRegrouped: a candidate partition gathers rows from many current
// partitions, of which the sample holds a uniform share q = K/N̂. Distinct
// partitions: Chao1 (bias-corrected, d + f1(f1-1)/(2(f2+1))) with Chao's
// variance and log-normal interval, where a value's "frequency" is the
// number of sampled current partitions it appears in. Sizes: a value's
// sampled rows ÷ q (Horvitz-Thompson), relative error about 1/sqrt(m) for
// a value seen in m partitions.
func (p *Projection) measureRegrouped(s *model.KeySample, rows []rowOf, dens Estimate, o Options) {
	groups := groupRows(rows)
	d := float64(len(groups))
	var f1, f2, n, minSeen float64
	minSeen = math.Inf(1)
	for _, g := range groups {
		m := float64(len(g.currents))
		n += m
		minSeen = math.Min(minSeen, m)
		switch m {
		case 1:
			f1++
		case 2:
			f2++
		}
	}
	coverage := 1 - f1/n
	if !dens.Known || coverage < MinCoverage {
		p.Partitions = Estimate{Why: fmt.Sprintf("unknown: %.0f of the %.0f values seen were seen in one sampled partition only "+
			"(coverage %.2f < %.2f): the sample cannot tell how many there are", f1, d, coverage, MinCoverage)}
		return
	}
	est := d + f1*(f1-1)/(2*(f2+1))
	vr := f1*(f1-1)/(2*(f2+1)) + f1*math.Pow(2*f1-1, 2)/(4*math.Pow(f2+1, 2)) + f1*f1*math.Pow(f1-1, 2)/(4*math.Pow(f2+1, 4))
	lo, hi := d, d
	if t := est - d; t > 0 {
		c := math.Exp(z95 * math.Sqrt(math.Log(1+vr/(t*t))))
		lo, hi = d+t/c, d+t*c
	}
	p.Partitions = Estimate{Value: est, Low: lo, High: hi, Known: true,
		Why: fmt.Sprintf("Chao1 over %.0f values seen, %.0f of them in one sampled partition", d, f1)}
	if minSeen < MinSightings {
		return
	}
	scale := dens.Value / float64(len(s.Partitions))
	var totalRows, totalBytes float64
	for _, g := range groups {
		totalRows += float64(g.rows) * scale
		totalBytes += g.bytes * scale
	}
	p.Rows = sizes(groupValues(groups, func(g *group) float64 { return float64(g.rows) * scale }), totalRows, false)
	p.Bytes = sizes(groupValues(groups, func(g *group) float64 { return g.bytes * scale }), totalBytes, false)
	p.TopValues = topValues(groups, scale, totalRows, o.Show)
}

// TimeOrder is how a time column's values follow the order of writes.
type TimeOrder struct {
	Column string `json:"column"`
	// InOrder is the share of consecutive writes (by WRITETIME) within a
	// current partition whose value did not go back in time.
	InOrder float64 `json:"in_order"`
	Pairs   int     `json:"pairs"`
}

// Monotonic: a column whose values follow writes this closely is a time
// series' clock.
const Monotonic = 0.95

func timeOrders(s *model.KeySample, rows []rowOf) []TimeOrder {
	var out []TimeOrder
	for _, c := range s.Columns {
		if !c.Time {
			continue
		}
		byCur := map[int][]rowOf{}
		for _, r := range rows {
			if _, ok := r.times[c.Name]; ok && !r.write.IsZero() {
				byCur[r.current] = append(byCur[r.current], r)
			}
		}
		in, pairs := 0, 0
		for _, rs := range byCur {
			sort.SliceStable(rs, func(i, j int) bool { return rs[i].write.Before(rs[j].write) })
			for i := 1; i < len(rs); i++ {
				if rs[i].write.Equal(rs[i-1].write) {
					continue
				}
				pairs++
				if !rs[i].times[c.Name].Before(rs[i-1].times[c.Name]) {
					in++
				}
			}
		}
		if pairs > 0 {
			out = append(out, TimeOrder{Column: c.Name, InOrder: float64(in) / float64(pairs), Pairs: pairs})
		}
	}
	return out
}

// writtenToday: the share of the key's sampled partitions that took a
// write in the 24 h before the sample's newest write.
func writtenToday(rows []rowOf) float64 {
	var newest time.Time
	for _, r := range rows {
		if r.write.After(newest) {
			newest = r.write
		}
	}
	if newest.IsZero() {
		return -1
	}
	all, today := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		all[r.partition] = true
		if !r.write.Before(newest.Add(-24 * time.Hour)) {
			today[r.partition] = true
		}
	}
	return float64(len(today)) / float64(len(all))
}

// BucketWidth is the time bucket that keeps the partitions of the key's
// other columns under the warning size and rows, at their p99 rate.
type BucketWidth struct {
	Column         string  `json:"column"`
	RowsPerSecond  float64 `json:"rows_per_second"` // p99 over sampled partitions, in the column's time
	BytesPerSecond float64 `json:"bytes_per_second"`
	// Width is the widest advised width that fits (0: even the smallest
	// is too wide).
	Width        time.Duration `json:"-"`
	WidthSeconds float64       `json:"width_seconds"`
}

// bucketWidths are the widths advised, the widest that fits chosen.
var bucketWidths = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 6 * time.Hour,
	24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour}

// bucketWidth measures, for the column k buckets (else the current key's
// first time clustering column), each sampled current partition's rows per
// second of that column's time.
func bucketWidth(s *model.KeySample, k, cur Key, th analyzer.Thresholds) *BucketWidth {
	col := ""
	for _, t := range k.Partition {
		if t.Width > 0 {
			col = t.Column
		}
	}
	for _, c := range s.Columns {
		if col == "" && c.Time && c.Kind == model.ColumnClustering {
			col = c.Name
		}
	}
	i := slices.IndexFunc(s.Columns, func(c model.SampleColumn) bool { return c.Name == col })
	if i < 0 {
		return nil
	}
	var rps, bps []float64
	for _, p := range s.Partitions {
		var lo, hi time.Time
		var bytes float64
		for _, r := range p.Rows {
			if v := r.Values[i]; v != nil {
				if t, ok := parseTime(*v); ok {
					lo, hi = minTime(lo, t), maxTime(hi, t)
				}
			}
			bytes += float64(r.Bytes + RowOverheadBytes)
		}
		if span := hi.Sub(lo).Seconds(); span > 0 && len(p.Rows) > 1 {
			rps = append(rps, float64(len(p.Rows)-1)/span)
			bps = append(bps, bytes*float64(len(p.Rows)-1)/float64(len(p.Rows))/span)
		}
	}
	if len(rps) == 0 {
		return nil
	}
	b := &BucketWidth{Column: col, RowsPerSecond: sizes(rps, 0, false).P99, BytesPerSecond: sizes(bps, 0, false).P99}
	for _, w := range bucketWidths {
		if b.RowsPerSecond*w.Seconds() <= float64(th.PartitionRowsWarning) && b.BytesPerSecond*w.Seconds() <= float64(th.PartitionWarningBytes) {
			b.Width, b.WidthSeconds = w, w.Seconds()
		}
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// warnings hold a projection to the thresholds the rules use.
func warnings(p Projection, o Options) []string {
	var w []string
	th := o.Thresholds
	if p.Rows.Known && p.Rows.Max > float64(th.PartitionRowsWarning) {
		w = append(w, fmt.Sprintf("largest partition %s rows, over the %s-row warning", format.Count(p.Rows.Max), format.Count(float64(th.PartitionRowsWarning))))
	}
	if p.Bytes.Known && p.Bytes.Max > float64(th.PartitionWarningBytes) {
		w = append(w, fmt.Sprintf("largest partition %s, over the %s warning", format.Bytes(p.Bytes.Max), format.Bytes(float64(th.PartitionWarningBytes))))
	}
	if p.Partitions.Known && o.Nodes > 0 && p.Partitions.High < th.LowCardinalityPartitionsPerNode*float64(o.Nodes) {
		w = append(w, fmt.Sprintf("at most %s partitions for %d nodes: too few to spread the table", format.Count(p.Partitions.High), o.Nodes))
	}
	return w
}
