package collector

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// largeDataTables are ScyllaDB's node-local records of big partitions, rows
// and cells, written on every sstable write above the compaction_large_*
// thresholds (docs/sources.md, ScyllaDB system.large_partitions).
var largeDataTables = []string{"large_partitions", "large_rows", "large_cells"}

// largeDataSource reads one of ScyllaDB's system.large_* tables. Columns
// added in later versions (6.0: large_partitions range_tombstones and
// dead_rows) are selected only when the node's schema has them.
type largeDataSource struct {
	table string
	// base columns exist in every supported version; optional ones are probed.
	base, optional []string
	parse          func(row *cql.Decoder, out *model.NodeData) // a failed read is the Decoder's error
}

func (s largeDataSource) Name() string { return s.table }
func (s largeDataSource) Scope() Scope { return NodeScope }
func (s largeDataSource) Facts() Facts {
	return Facts{Reads: "system." + s.table, Gate: Gate{ScyllaDB: true, ScyllaTable: "system." + s.table},
		Schedule: everyTenMinutes, Timeout: time.Minute, Grants: []string{ksSystem}}
}

func (s largeDataSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	cols, ok := in.Caps.LargeDataColumns[s.table]
	if !ok {
		return 0, fmt.Errorf("%w: system.%s does not exist on this node", ErrUnsupported, s.table)
	}
	selected := append([]string{}, s.base...)
	for _, c := range s.optional {
		if cols[c] {
			selected = append(selected, c)
		}
	}
	// A full read of a node-local system table: its size is bounded by the
	// thresholds and the 30-day TTL of its rows.
	stmt := "SELECT " + strings.Join(selected, ", ") + " FROM system." + s.table
	n, err := cql.SelectAll(ctx, in.Q, stmt, nil, func(row *cql.Decoder) error {
		s.parse(row, out.Node)
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading system.%s on %s: %w", s.table, in.Address, err)
	}
	sortLargeData(out.Node)
	return n, nil
}

func newLargePartitionsSource() largeDataSource {
	return largeDataSource{
		table:    "large_partitions",
		base:     []string{"keyspace_name", "table_name", "sstable_name", "partition_size", "partition_key", "rows", "compaction_time"},
		optional: []string{"range_tombstones", "dead_rows"},
		parse: func(row *cql.Decoder, out *model.NodeData) {
			p := model.LargePartition{}
			p.Keyspace, p.Table = tableOf(row)
			p.SSTable, p.SizeBytes, p.Key = row.String("sstable_name"), row.Int64("partition_size"), row.String("partition_key")
			p.Rows, p.CompactionTime = row.OptInt64("rows"), row.OptTime("compaction_time")
			p.RangeTombstones, p.DeadRows = optionalInt64(row, "range_tombstones"), optionalInt64(row, "dead_rows")
			out.LargePartitions = append(out.LargePartitions, p)
		},
	}
}

func newLargeRowsSource() largeDataSource {
	return largeDataSource{
		table: "large_rows",
		base:  []string{"keyspace_name", "table_name", "sstable_name", "row_size", "partition_key", "clustering_key"},
		parse: func(row *cql.Decoder, out *model.NodeData) {
			r := model.LargeRow{}
			r.Keyspace, r.Table = tableOf(row)
			r.SSTable, r.SizeBytes = row.String("sstable_name"), row.Int64("row_size")
			r.Key, r.ClusteringKey = row.String("partition_key"), row.String("clustering_key")
			out.LargeRows = append(out.LargeRows, r)
		},
	}
}

func newLargeCellsSource() largeDataSource {
	return largeDataSource{
		table:    "large_cells",
		base:     []string{"keyspace_name", "table_name", "sstable_name", "cell_size", "partition_key", "clustering_key", "column_name"},
		optional: []string{"collection_elements"},
		parse: func(row *cql.Decoder, out *model.NodeData) {
			c := model.LargeCell{}
			c.Keyspace, c.Table = tableOf(row)
			c.SSTable, c.SizeBytes = row.String("sstable_name"), row.Int64("cell_size")
			c.Key, c.ClusteringKey, c.Column = row.String("partition_key"), row.String("clustering_key"), row.String("column_name")
			c.CollectionElements = optionalInt64(row, "collection_elements")
			out.LargeCells = append(out.LargeCells, c)
		},
	}
}

// optionalInt64 reads one of the optional columns: 0 when the node's
// version does not have it (it was not selected) or it is NULL.
func optionalInt64(row *cql.Decoder, col string) int64 {
	if !row.Has(col) {
		return 0
	}
	return row.OptInt64(col)
}

// sortLargeData orders the large_* lists biggest first, for stable output.
func sortLargeData(d *model.NodeData) {
	sort.SliceStable(d.LargePartitions, func(i, j int) bool { return d.LargePartitions[i].SizeBytes > d.LargePartitions[j].SizeBytes })
	sort.SliceStable(d.LargeRows, func(i, j int) bool { return d.LargeRows[i].SizeBytes > d.LargeRows[j].SizeBytes })
	sort.SliceStable(d.LargeCells, func(i, j int) bool { return d.LargeCells[i].SizeBytes > d.LargeCells[j].SizeBytes })
}
