package collector

import (
	"context"
	"fmt"
	"sort"
	"strings"

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
	parse          func(r cql.Row, out *model.NodeData) error
}

func (s largeDataSource) Name() string { return s.table }
func (s largeDataSource) Scope() Scope { return NodeScope }

func (s largeDataSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if in.Caps.Engine != model.EngineScyllaDB {
		return 0, fmt.Errorf("%w: system.%s is ScyllaDB-only", ErrUnsupported, s.table)
	}
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
	n, err := cql.SelectAll(ctx, in.Q, stmt, nil, func(r cql.Row) error { return s.parse(r, out.Node) })
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
		parse: func(r cql.Row, out *model.NodeData) error {
			var p model.LargePartition
			var err error
			if p.Keyspace, p.Table, err = tableOf(r); err != nil {
				return err
			}
			if p.SSTable, err = r.String("sstable_name"); err != nil {
				return err
			}
			if p.SizeBytes, err = r.Int64("partition_size"); err != nil {
				return err
			}
			if p.Key, err = r.String("partition_key"); err != nil {
				return err
			}
			if p.Rows, err = r.OptInt64("rows"); err != nil {
				return err
			}
			if p.CompactionTime, err = r.OptTime("compaction_time"); err != nil {
				return err
			}
			if _, ok := r["range_tombstones"]; ok {
				if p.RangeTombstones, err = r.OptInt64("range_tombstones"); err != nil {
					return err
				}
			}
			if _, ok := r["dead_rows"]; ok {
				if p.DeadRows, err = r.OptInt64("dead_rows"); err != nil {
					return err
				}
			}
			out.LargePartitions = append(out.LargePartitions, p)
			return nil
		},
	}
}

func newLargeRowsSource() largeDataSource {
	return largeDataSource{
		table: "large_rows",
		base:  []string{"keyspace_name", "table_name", "sstable_name", "row_size", "partition_key", "clustering_key"},
		parse: func(r cql.Row, out *model.NodeData) error {
			var lr model.LargeRow
			var err error
			if lr.Keyspace, lr.Table, err = tableOf(r); err != nil {
				return err
			}
			if lr.SSTable, err = r.String("sstable_name"); err != nil {
				return err
			}
			if lr.SizeBytes, err = r.Int64("row_size"); err != nil {
				return err
			}
			if lr.Key, err = r.String("partition_key"); err != nil {
				return err
			}
			if lr.ClusteringKey, err = r.String("clustering_key"); err != nil {
				return err
			}
			out.LargeRows = append(out.LargeRows, lr)
			return nil
		},
	}
}

func newLargeCellsSource() largeDataSource {
	return largeDataSource{
		table:    "large_cells",
		base:     []string{"keyspace_name", "table_name", "sstable_name", "cell_size", "partition_key", "clustering_key", "column_name"},
		optional: []string{"collection_elements"},
		parse: func(r cql.Row, out *model.NodeData) error {
			var c model.LargeCell
			var err error
			if c.Keyspace, c.Table, err = tableOf(r); err != nil {
				return err
			}
			if c.SSTable, err = r.String("sstable_name"); err != nil {
				return err
			}
			if c.SizeBytes, err = r.Int64("cell_size"); err != nil {
				return err
			}
			if c.Key, err = r.String("partition_key"); err != nil {
				return err
			}
			if c.ClusteringKey, err = r.String("clustering_key"); err != nil {
				return err
			}
			if c.Column, err = r.String("column_name"); err != nil {
				return err
			}
			if _, ok := r["collection_elements"]; ok {
				if c.CollectionElements, err = r.OptInt64("collection_elements"); err != nil {
					return err
				}
			}
			out.LargeCells = append(out.LargeCells, c)
			return nil
		},
	}
}

// sortLargeData orders the large_* lists biggest first, for stable output.
func sortLargeData(d *model.NodeData) {
	sort.SliceStable(d.LargePartitions, func(i, j int) bool { return d.LargePartitions[i].SizeBytes > d.LargePartitions[j].SizeBytes })
	sort.SliceStable(d.LargeRows, func(i, j int) bool { return d.LargeRows[i].SizeBytes > d.LargeRows[j].SizeBytes })
	sort.SliceStable(d.LargeCells, func(i, j int) bool { return d.LargeCells[i].SizeBytes > d.LargeCells[j].SizeBytes })
}
