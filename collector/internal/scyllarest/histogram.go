package scyllarest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Histogram is ScyllaDB's utils::estimated_histogram as the REST API sends it
// (api-doc/utils.json estimated_histogram). Bucket i counts values in
// (Offsets[i-1], Offsets[i]]; the last bucket counts values above the last
// offset (overflow), so len(Buckets) == len(Offsets)+1. For partition sizes
// the values are bytes and ScyllaDB uses 150 offsets, 1, 2, 3, ... growing by
// 1.2 each step.
type Histogram struct {
	Offsets []int64 `json:"bucket_offsets"`
	Buckets []int64 `json:"buckets"`
}

func parseHistogram(body []byte) (Histogram, error) {
	var raw struct {
		Offsets []json.Number `json:"bucket_offsets"`
		Buckets []json.Number `json:"buckets"`
	}
	if err := decodeStrict(body, &raw); err != nil {
		return Histogram{}, err
	}
	if raw.Buckets == nil {
		return Histogram{}, errors.New("not a histogram: buckets missing")
	}
	// An empty histogram is {"buckets": [0]}: seastar omits the empty offsets list.
	if len(raw.Buckets) != len(raw.Offsets)+1 {
		return Histogram{}, fmt.Errorf("histogram has %d buckets for %d offsets, want offsets+1", len(raw.Buckets), len(raw.Offsets))
	}
	h := Histogram{Offsets: make([]int64, len(raw.Offsets)), Buckets: make([]int64, len(raw.Buckets))}
	for i, n := range raw.Offsets {
		v, err := n.Int64()
		if err != nil {
			return Histogram{}, fmt.Errorf("bucket offset %d: %w", i, err)
		}
		if v < 0 || (i > 0 && v <= h.Offsets[i-1]) {
			return Histogram{}, fmt.Errorf("bucket offset %d (%d) is negative or not above the previous one", i, v)
		}
		h.Offsets[i] = v
	}
	var total int64
	for i, n := range raw.Buckets {
		v, err := n.Int64()
		if err != nil {
			return Histogram{}, fmt.Errorf("bucket %d: %w", i, err)
		}
		if v < 0 {
			return Histogram{}, fmt.Errorf("bucket %d has a negative count %d", i, v)
		}
		if total > math.MaxInt64-v {
			return Histogram{}, errors.New("histogram count overflows int64")
		}
		total += v
		h.Buckets[i] = v
	}
	return h, nil
}

// Count is the number of values (partitions, for a size histogram).
func (h Histogram) Count() int64 {
	var n int64
	for _, b := range h.Buckets {
		n += b
	}
	return n
}

// Overflowed says whether some value was above the last offset.
func (h Histogram) Overflowed() bool {
	return len(h.Buckets) > 0 && h.Buckets[len(h.Buckets)-1] > 0
}

// Max is the upper bound of the highest non-empty bucket, math.MaxInt64 if
// the histogram overflowed, 0 if it is empty (as ScyllaDB's max()).
func (h Histogram) Max() int64 {
	if h.Overflowed() {
		return math.MaxInt64
	}
	for i := len(h.Offsets) - 1; i >= 0; i-- {
		if h.Buckets[i] > 0 {
			return h.Offsets[i]
		}
	}
	return 0
}

// Mean is the count-weighted mean of the bucket upper bounds, rounded up,
// leaving the overflow bucket out (as ScyllaDB's mean()).
func (h Histogram) Mean() int64 {
	var n int64
	var sum float64
	for i, off := range h.Offsets {
		n += h.Buckets[i]
		sum += float64(h.Buckets[i]) * float64(off)
	}
	if n == 0 {
		return 0
	}
	return int64(math.Ceil(sum / float64(n)))
}

// Percentile is the upper bound of the bucket holding the p-th fraction
// (0..1, clamped) of the values, as ScyllaDB's percentile(): 0 when empty, and
// 1.2 × the last offset when that value lies in the overflow bucket.
func (h Histogram) Percentile(p float64) int64 {
	if math.IsNaN(p) || p < 0 {
		p = 0
	}
	p = min(p, 1)
	c := h.Count()
	if c == 0 {
		return 0
	}
	want := int64(math.Floor(float64(c) * p))
	var seen int64
	for i, off := range h.Offsets {
		if h.Buckets[i] == 0 {
			continue
		}
		seen += h.Buckets[i]
		if seen >= want {
			return off
		}
	}
	if len(h.Offsets) == 0 {
		return 0
	}
	return int64(math.Round(float64(h.Offsets[len(h.Offsets)-1]) * 1.2))
}
