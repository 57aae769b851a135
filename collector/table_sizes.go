package collector

import (
	"context"
	"fmt"
	"math"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// Cassandra's table-metric virtual tables (system_views, 4.0+,
// db/virtual/TableMetricTables.java) have one row per table of the node
// that answers, system tables included (docs/sources.md,
// system_views.max_partition_size).

// tableSizeSource reads a table of sizes: (keyspace_name, table_name, mebibytes).
type tableSizeSource struct {
	name     string // also the system_views table name
	since    string // first Cassandra version with the table
	schedule string
	help     string
	field    func(ts *model.TableStats) *int64
	// sumToLoad adds the table sizes up as the node's load (disk_usage).
	sumToLoad bool
}

func maxPartitionSizeSource() tableSizeSource {
	return tableSizeSource{name: "max_partition_size", since: "4.0", schedule: everyMinute,
		field: func(ts *model.TableStats) *int64 { return &ts.MaxPartitionBytes }}
}

// maxSSTableSizeSource runs every 30 minutes: no rule, metric or page reads
// it yet (it is kept in the snapshot as a future fragment bound), it changes
// only when a table's sstables do, and at 1,000 tables its read is the
// dearest of the per-minute ones (docs/benchmarks.md, "What a read costs
// the node").
func maxSSTableSizeSource() tableSizeSource {
	return tableSizeSource{name: "max_sstable_size", since: "5.0", schedule: everyHalfHour,
		help:  "(kept in the snapshot; nothing judges it yet)",
		field: func(ts *model.TableStats) *int64 { return &ts.MaxSSTableBytes }}
}

func diskUsageSource() tableSizeSource {
	return tableSizeSource{name: "disk_usage", since: "4.0", schedule: everyMinute, sumToLoad: true,
		field: func(ts *model.TableStats) *int64 { return &ts.DiskUsageBytes }}
}

func (s tableSizeSource) Name() string { return s.name }
func (s tableSizeSource) Scope() Scope { return NodeScope }
func (s tableSizeSource) Facts() Facts {
	return Facts{Reads: "system_views." + s.name, Help: withHelp("system_views."+s.name, s.help),
		Gate: virtualTable(s.name, s.since), Schedule: s.schedule, Grants: []string{ksSystemViews}}
}
func (s tableSizeSource) copyOwnFields(dst, src *model.TableStats) { *s.field(dst) = *s.field(src) }

func (s tableSizeSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	var load float64
	stmt := "SELECT keyspace_name, table_name, mebibytes FROM system_views." + s.name
	n, err := cql.SelectAllInOnePage(ctx, in.Q, stmt, nil, func(row *cql.Decoder) error {
		ks, tbl := tableOf(row)
		mib := row.Int64("mebibytes")
		if mib < 0 {
			return fmt.Errorf("%s.%s: negative size %d MiB", ks, tbl, mib)
		}
		b := mebibytesToBytes(mib)
		*s.field(out.Node.Stats(ks, tbl)) = b
		load += float64(b)
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading system_views.%s on %s: %w", s.name, in.Address, err)
	}
	if s.sumToLoad {
		out.Node.LoadBytes = load
	}
	return n, nil
}

// mebibytesToBytes converts the tables' ceil(bytes / 2^20). A histogram that
// overflowed reports Long.MAX_VALUE bytes, i.e. 2^43 MiB, which would
// overflow back: it stays at the int64 maximum.
func mebibytesToBytes(mib int64) int64 {
	if mib > math.MaxInt64>>20 {
		return math.MaxInt64
	}
	return mib << 20
}
