package keyadvice

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/partmon/partmon/model"
)

// z95 is the normal quantile of a two-sided 95 % interval.
const z95 = 1.96

// Estimate is one figure for the whole table with its 95 % interval, or
// unknown with why.
type Estimate struct {
	Value float64 `json:"value"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Known bool    `json:"known"`
	Why   string  `json:"why"` // how it was estimated, or why it is unknown
}

// density is the current key's partitions in the whole table. Each range
// ends at the token of the first partition it did not take, so its span
// holds k+1 exponential gaps between N uniform tokens: the ranges' total
// share S of the ring is Gamma(K+R, N), and (K+R-1)/S is unbiased for N
// with a relative standard error of 1/sqrt(K+R-2) (K partitions taken, R
// ranges ending at a partition). A range cut at the ring's end or at
// another range holds only its k gaps.
func density(s *model.KeySample) Estimate {
	k := float64(len(s.Partitions))
	gaps := k
	for _, r := range s.Ranges {
		if !r.Cut {
			gaps++
		}
	}
	share := s.Cost.RingShare
	if share <= 0 || gaps < 3 {
		return Estimate{Why: "too few ranges read"}
	}
	n := (gaps - 1) / share
	rse := 1 / math.Sqrt(gaps-2)
	return Estimate{Value: n, Low: n * math.Max(0, 1-z95*rse), High: n * (1 + z95*rse), Known: true,
		Why: "token density: (partitions + ranges - 1) ÷ share of the ring read"}
}

// Sizes are per-partition figures over the sampled partitions.
type Sizes struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	// Max is the sample's largest: a lower bound of the table's, which a
	// rare whale partition outside the sample exceeds.
	Max float64 `json:"max"`
	// MaxAtLeast: the largest was cut short by the sampler.
	MaxAtLeast bool `json:"max_cut_short"`
	// LargestShare is the largest partition's share of the table, 0..1.
	LargestShare float64 `json:"largest_share"`
	Known        bool    `json:"known"`
	// P99Draws is how many sampled current partitions hold the partitions
	// at or over P99: the sample's independent draws behind its tail (0:
	// not counted, as where every value was seen in several partitions).
	// Under MinTailDraws the P99 is one or two draws' figure, not a
	// percentile of the table: a rare whale sampled once reads as 1 % of
	// the partitions.
	P99Draws int `json:"p99_draws,omitempty"`
}

// MinTailDraws is the fewest sampled current partitions behind a P99 for
// it to stand as the table's.
const MinTailDraws = 3

// P99Decided: the sample decides the P99 (enough draws behind its tail).
func (s Sizes) P99Decided() bool { return s.Known && (s.P99Draws == 0 || s.P99Draws >= MinTailDraws) }

func sizes(v []float64, total float64, atLeast bool) Sizes {
	if len(v) == 0 {
		return Sizes{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	q := func(p float64) float64 { return s[min(len(s)-1, int(math.Ceil(p*float64(len(s))))-1)] }
	out := Sizes{P50: q(0.5), P99: q(0.99), Max: s[len(s)-1], MaxAtLeast: atLeast, Known: true}
	if total > 0 {
		out.LargestShare = math.Min(1, out.Max/total)
	}
	return out
}

// ValueShare is one candidate partition's share of the sampled rows.
type ValueShare struct {
	Value string  `json:"value"`
	Share float64 `json:"share"`
}

// rowOf is one sampled row placed under a candidate key.
type rowOf struct {
	current   int    // index of its current partition in the sample
	partition string // the candidate partition key, columns joined by \x00
	shown     string // the candidate partition key as people read it
	bytes     float64
	write     time.Time
	times     map[string]time.Time // the row's time columns' values
}

// placeRows puts every sampled row under key k. ok is false when a row
// lacks a value of k's partition (a NULL cannot be a key).
func placeRows(s *model.KeySample, k Key) (rows []rowOf, ok bool) {
	idx := map[string]int{}
	for i, c := range s.Columns {
		idx[c.Name] = i
	}
	for pi, p := range s.Partitions {
		for _, r := range p.Rows {
			row := rowOf{current: pi, bytes: float64(r.Bytes), write: r.WriteTime, times: map[string]time.Time{}}
			parts := make([]string, len(k.Partition))
			for i, t := range k.Partition {
				v := r.Values[idx[t.Column]]
				if v == nil {
					return nil, false
				}
				parts[i] = *v
				if t.Width > 0 {
					parts[i] = bucketOf(*v, t.Width)
				}
			}
			row.partition = strings.Join(parts, "\x00")
			row.shown = strings.Join(parts, ":")
			for i, c := range s.Columns {
				if c.Time && r.Values[i] != nil {
					if t, ok := parseTime(*r.Values[i]); ok {
						row.times[c.Name] = t
					}
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, true
}

func parseTime(v string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		t, err = time.Parse(time.DateOnly, v)
	}
	return t, err == nil
}

// bucketOf is the start of the bucket of width w holding time value v.
func bucketOf(v string, w time.Duration) string {
	t, ok := parseTime(v)
	if !ok {
		return v
	}
	return t.Truncate(w).UTC().Format(time.RFC3339)
}

// refines: every current partition column is a plain column of k's
// partition, so each candidate partition lies inside one current one.
func refines(cur, k Key) bool {
	for _, c := range cur.Partition {
		if !slices.Contains(k.Partition, Term{Column: c.Column}) {
			return false
		}
	}
	return true
}
