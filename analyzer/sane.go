package analyzer

import (
	"math"

	"github.com/partmon/partmon/model"
)

// saneStats is a copy of one node's table figures that the rules can
// compute with: a figure no source can mean (NaN, ±Inf, a negative size or
// count) is read as the source giving nothing (0; a rate, -1: unknown),
// so that no finding carries it and no sum or ratio turns into it.
func saneStats(ts *model.TableStats) *model.TableStats {
	c := *ts
	for _, p := range []*int64{&c.MaxPartitionBytes, &c.MeanPartitionBytes, &c.PartitionsEstimate, &c.DiskUsageBytes,
		&c.MaxSSTableBytes, &c.MaxCellsPerPartition, &c.MaxFragmentBytes} {
		*p = max(*p, 0)
	}
	if c.DistinctPartitions != nil && *c.DistinctPartitions < 0 {
		c.DistinctPartitions = nil
	}
	for _, o := range []*model.Ops{&c.LocalReads, &c.LocalWrites, &c.LocalScans} {
		o.Count = max(o.Count, 0)
		if !finite(o.Rate) || (o.Rate < 0 && o.Rate != -1) {
			o.Rate = -1
		}
		o.PerSecond, o.P99Seconds = saneFloat(o.PerSecond), saneFloat(o.P99Seconds)
	}
	for _, d := range []*model.Distribution{&c.TombstonesPerRead, &c.RowsPerRead} {
		d.Count = max(d.Count, 0)
		d.P50, d.P99, d.Max = saneFloat(d.P50), saneFloat(d.P99), saneFloat(d.Max)
	}
	return &c
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// saneFloat: a non-negative finite figure, else 0 (nothing given).
func saneFloat(v float64) float64 {
	if !finite(v) || v < 0 {
		return 0
	}
	return v
}
