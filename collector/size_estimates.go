package collector

import (
	"context"
	"fmt"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// sizeEstimatesSource reads the node's partition count and mean partition
// size per table from system.size_estimates: its primary-range estimates,
// the ones partmon uses. Cassandra 4.0–5.0's SizeEstimatesRecorder writes
// the same map to size_estimates and to table_estimates' 'primary' rows
// (CASSANDRA-15637), so size_estimates holds them in half the rows of
// table_estimates, whose other half ('local_primary') partmon would drop.
// table_estimates is read only where size_estimates is missing. ScyllaDB
// has size_estimates only (computed at read time).
//
// 'primary': the ranges this node is the first replica of under the
// keyspace's replication strategy. Every range has exactly one primary
// replica in the whole cluster, so the per-node counts add up to the
// table's partition count across nodes and DCs, and a node that holds no
// replica of a keyspace reports nothing for it. 'local_primary' ignores
// the keyspace's replication and sums to one copy per DC.
type sizeEstimatesSource struct{}

func (sizeEstimatesSource) Name() string { return "size_estimates" }
func (sizeEstimatesSource) Scope() Scope { return NodeScope }

// Facts: read every 10 minutes, since Cassandra recomputes the estimates
// every 5 (size_recorder_interval) from the sstables alone, so they move
// only after a flush, a compaction or a stream; read at most 15 minutes
// behind the recorder (docs/sources.md#table-estimates).
func (sizeEstimatesSource) Facts() Facts {
	return Facts{Reads: "system.size_estimates (else system.table_estimates)",
		Help: "`system.size_estimates` (else `system.table_estimates`, its primary rows)",
		Gate: everywhere, Schedule: everyTenMinutes, Timeout: time.Minute, Grants: []string{ksSystem}}
}

const (
	sizeEstimatesQuery = "SELECT keyspace_name, table_name, mean_partition_size, partitions_count FROM system.size_estimates"
	// No range_type restriction in CQL: that would need ALLOW FILTERING.
	tableEstimatesQuery = "SELECT keyspace_name, table_name, range_type, mean_partition_size, partitions_count FROM system.table_estimates"
)

func (sizeEstimatesSource) copyOwnFields(dst, src *model.TableStats) {
	dst.MeanPartitionBytes, dst.PartitionsEstimate = src.MeanPartitionBytes, src.PartitionsEstimate
}

func (sizeEstimatesSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	stmt, table := sizeEstimatesQuery, "system.size_estimates"
	if !in.Caps.SystemTables["size_estimates"] {
		stmt, table = tableEstimatesQuery, "system.table_estimates"
		if in.Caps.Engine == model.EngineScyllaDB || !in.Caps.SystemTables["table_estimates"] {
			return 0, fmt.Errorf("%w: neither system.size_estimates nor system.table_estimates exists", ErrUnsupported)
		}
	}
	type acc struct {
		bytes float64 // Σ mean×count; float so huge tables cannot overflow
		count int64
	}
	sums := map[string]*acc{}
	var order []string
	// A regular table, but read in pages of cql.OnePageRows all the same:
	// each page is a request to the node (17,000 rows at 1,000 tables on
	// 16 tokens: one page instead of four at the largest configurable size).
	n, err := cql.SelectAllInOnePage(ctx, in.Q, stmt, nil, func(row *cql.Decoder) error {
		if row.Has("range_type") && row.String("range_type") != "primary" {
			return nil // or a NULL range_type, which SelectAll reports
		}
		ks, tbl := tableOf(row)
		mean, count := row.Int64("mean_partition_size"), row.Int64("partitions_count")
		if mean < 0 || count < 0 {
			return fmt.Errorf("%s.%s: negative estimate (mean %d, count %d)", ks, tbl, mean, count)
		}
		k := model.TableKey(ks, tbl)
		a, ok := sums[k]
		if !ok {
			a = &acc{}
			sums[k] = a
			order = append(order, ks, tbl)
		}
		a.bytes += float64(mean) * float64(count)
		a.count += count
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading %s on %s: %w", table, in.Address, err)
	}
	for i := 0; i < len(order); i += 2 {
		ts := out.Node.Stats(order[i], order[i+1])
		a := sums[model.TableKey(order[i], order[i+1])]
		ts.PartitionsEstimate = a.count
		if a.count > 0 {
			// Partition-count-weighted mean over the node's primary ranges.
			ts.MeanPartitionBytes = int64(a.bytes / float64(a.count))
		}
	}
	return n, nil
}
