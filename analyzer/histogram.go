package analyzer

import (
	"math"
	"sort"
)

// Most sizes and per-read counts the analyzer gets are not values but
// upper bounds of Cassandra's EstimatedHistogram buckets
// (utils/EstimatedHistogram.java newOffsets, the same in ScyllaDB): bounds
// start at 1 and grow by ×1.2, rounded, at least +1, and a bucket holds
// (previous bound, bound]. docs/sources.md "Histograms" has the details.
var bucketBounds = func() []float64 {
	out := []float64{1}
	last := int64(1)
	for len(out) < 200 {
		next := int64(float64(last)*1.2 + 0.5)
		if next == last {
			next++
		}
		out = append(out, float64(next))
		last = next
	}
	return out
}()

// bucketFloor is the least value a reported bucket bound v can stand for:
// one more than the bound below it. A v that is no bound (ScyllaDB's exact
// counts, a value scaled by a unit) is returned as it is.
func bucketFloor(v float64) float64 {
	i := sort.SearchFloat64s(bucketBounds, v)
	if i >= len(bucketBounds) || bucketBounds[i] != v {
		return v
	}
	if i == 0 {
		return 0
	}
	return bucketBounds[i-1] + 1
}

// minRowBytes is a row's header in an sstable's data: one flags byte and,
// in the sstable format, the row's size and the previous unfiltered's size
// as unsigned vints of at least a byte each (db/rows/UnfilteredSerializer.java,
// 4.0–5.0). No partition fragment of n rows is smaller than n × minRowBytes;
// fragmentRowBound adds what every row writes after it.
const minRowBytes = 3

// mibBucketFloor is the least size a Cassandra MiB figure (a bucket bound
// in bytes rounded up to whole MiB: max_partition_size) can stand for: one
// more than the bound below the smallest bucket that rounds to it. 1 MiB
// stands for 1 byte and up; 124 MiB for 107,964,793 bytes and up.
func mibBucketFloor(v float64) float64 {
	if v <= 0 {
		return 0
	}
	for i, b := range bucketBounds {
		if math.Ceil(b/mib) >= v/mib {
			if i == 0 {
				return 1
			}
			return bucketBounds[i-1] + 1
		}
	}
	return v
}
