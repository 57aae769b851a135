package analyzer

import (
	"fmt"
	"math"
	"strings"

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

// noteWithoutSchema names the tables the nodes report sizes of but the
// schema does not list: they are judged by their sizes alone, and what only
// their columns could decide is unknown, not guessed.
func (a *analysis) noteWithoutSchema() {
	var names []string
	for _, t := range a.tables {
		if t.schema == nil && len(t.nodes) > 0 {
			names = append(names, t.key)
		}
	}
	if len(names) == 0 {
		return
	}
	list := strings.Join(names, ", ")
	if len(names) > 5 {
		list = fmt.Sprintf("%s and %d more", strings.Join(names[:5], ", "), len(names)-5)
	}
	a.note("%s: sizes but no schema row (a table created or a keyspace dropped since the schema was read, or a view the schema did not list): "+
		"judged by sizes only; low_cardinality_key, unbucketed_time_series, secondary_index_high_cardinality, ascending_time_order "+
		"and wide_partition's cell-count bound need the columns and are unknown for %s", list, plural(len(names), "it", "them"))
}
