package collector

import (
	"context"
	"fmt"
	"time"

	"github.com/partmon/partmon/collector/internal/cqlname"
	"github.com/partmon/partmon/collector/internal/scyllarest"
	"github.com/partmon/partmon/model"
)

// scyllaSizeHistogramSource reads each user table's partition size histogram
// (ScyllaDB has no max_partition_size table) and keeps its maximum.
type scyllaSizeHistogramSource struct{ rest *scyllarest.Clients }

func (scyllaSizeHistogramSource) Name() string { return "scylla_size_histogram" }
func (scyllaSizeHistogramSource) Scope() Scope { return NodeScope }
func (scyllaSizeHistogramSource) Facts() Facts {
	return Facts{Reads: "REST estimated_row_size_histogram", Help: "REST `estimated_row_size_histogram`",
		Gate: Gate{ScyllaDB: true}, Schedule: everyFiveMinutes, Timeout: time.Minute}
}

func (scyllaSizeHistogramSource) copyOwnFields(dst, src *model.TableStats) {
	dst.MaxPartitionBytes = src.MaxPartitionBytes
}

func (s scyllaSizeHistogramSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	tables, err := userTables(in.Schema)
	if err != nil {
		return 0, err
	}
	client := s.rest.For(in.Address)
	for _, t := range tables {
		ks, tbl, err := cqlname.SplitTable(t)
		if err != nil {
			return 0, err
		}
		h, err := client.SizeHistogram(ctx, ks, tbl)
		if err != nil {
			return 0, fmt.Errorf("reading the size histogram of %s on %s: %w", t, in.Address, err)
		}
		out.Node.Stats(ks, tbl).MaxPartitionBytes = h.Max()
	}
	return len(tables), nil
}
