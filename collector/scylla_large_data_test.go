package collector

import (
	"errors"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// The ScyllaDB large_* shapes come from scylladb/scylladb db/system_keyspace.cc:
// large_partitions has range_tombstones (98bec4e02a) and dead_rows
// (b06af5b2b9) from scylla-6.0.0 on, and not at scylla-5.2.19
// (docs/sources.md, ScyllaDB system.large_partitions).
func TestScyllaLargePartitions(t *testing.T) {
	base := []string{"keyspace_name", "table_name", "sstable_name", "partition_size", "partition_key", "rows", "compaction_time"}
	written := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	row52 := cql.Row{"keyspace_name": "ks", "table_name": "t", "sstable_name": "me-3g8a-big-Data.db", "partition_size": int64(1500 << 20),
		"partition_key": "big", "rows": int64(120000), "compaction_time": written}
	tests := []struct {
		name string
		cols []string
		stmt string
		row  cql.Row
		want model.LargePartition
	}{
		{"scylla-5.2 columns", base,
			"SELECT keyspace_name, table_name, sstable_name, partition_size, partition_key, rows, compaction_time FROM system.large_partitions",
			row52, model.LargePartition{Keyspace: "ks", Table: "t", SSTable: "me-3g8a-big-Data.db", SizeBytes: 1500 << 20, Key: "big", Rows: 120000, CompactionTime: written}},
		{"scylla-6.0 columns", append(append([]string{}, base...), "range_tombstones", "dead_rows"),
			"SELECT keyspace_name, table_name, sstable_name, partition_size, partition_key, rows, compaction_time, range_tombstones, dead_rows FROM system.large_partitions",
			with(row52, "range_tombstones", int64(3), "dead_rows", int64(40000)),
			model.LargePartition{Keyspace: "ks", Table: "t", SSTable: "me-3g8a-big-Data.db", SizeBytes: 1500 << 20, Key: "big", Rows: 120000, CompactionTime: written, RangeTombstones: 3, DeadRows: 40000}},
		{"6.0 columns still null before the cluster feature is enabled", append(append([]string{}, base...), "range_tombstones", "dead_rows"),
			"SELECT keyspace_name, table_name, sstable_name, partition_size, partition_key, rows, compaction_time, range_tombstones, dead_rows FROM system.large_partitions",
			with(row52, "range_tombstones", nil, "dead_rows", nil),
			model.LargePartition{Keyspace: "ks", Table: "t", SSTable: "me-3g8a-big-Data.db", SizeBytes: 1500 << 20, Key: "big", Rows: 120000, CompactionTime: written}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake("n1").on(tc.stmt, tc.row)
			out, _, err := run(t, newLargePartitionsSource(), f, scyllaCaps(tc.cols...))
			if err != nil {
				t.Fatal(err)
			}
			f.expectationsMet(t)
			if len(out.Node.LargePartitions) != 1 || out.Node.LargePartitions[0] != tc.want {
				t.Errorf("got %+v\nwant %+v", out.Node.LargePartitions, tc.want)
			}
		})
	}
	stmt := tests[0].stmt
	_, _, err := run(t, newLargePartitionsSource(), newFake("n1").on(stmt, with(row52, "partition_size", "1.5 GB")), scyllaCaps(base...))
	wantErr(t, err, `reading system.large_partitions on n1: row 1: column "partition_size": want an integer, got string`)
	_, _, err = run(t, newLargePartitionsSource(), newFake("n1"), cassandra50Caps())
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Cassandra: want ErrUnsupported, got %v", err)
	}
}

func TestScyllaLargeRowsAndCells(t *testing.T) {
	caps := scyllaCaps("keyspace_name")
	rows := newFake("n1").on("SELECT keyspace_name, table_name, sstable_name, row_size, partition_key, clustering_key FROM system.large_rows",
		cql.Row{"keyspace_name": "ks", "table_name": "t", "sstable_name": "s1", "row_size": int64(11 << 20), "partition_key": "p", "clustering_key": "c1"},
		cql.Row{"keyspace_name": "ks", "table_name": "t", "sstable_name": "s1", "row_size": int64(20 << 20), "partition_key": "p", "clustering_key": "c2"},
	)
	out, _, err := run(t, newLargeRowsSource(), rows, caps)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Node.LargeRows) != 2 || out.Node.LargeRows[0].ClusteringKey != "c2" {
		t.Errorf("want biggest first, got %+v", out.Node.LargeRows)
	}
	cells := newFake("n1").on("SELECT keyspace_name, table_name, sstable_name, cell_size, partition_key, clustering_key, column_name, collection_elements FROM system.large_cells",
		cql.Row{"keyspace_name": "ks", "table_name": "t", "sstable_name": "s1", "cell_size": int64(2 << 20), "partition_key": "p", "clustering_key": "c",
			"column_name": "tags", "collection_elements": int64(12000)},
	)
	out, _, err = run(t, newLargeCellsSource(), cells, caps)
	if err != nil {
		t.Fatal(err)
	}
	want := model.LargeCell{Keyspace: "ks", Table: "t", SSTable: "s1", SizeBytes: 2 << 20, Key: "p", ClusteringKey: "c", Column: "tags", CollectionElements: 12000}
	if len(out.Node.LargeCells) != 1 || out.Node.LargeCells[0] != want {
		t.Errorf("got %+v", out.Node.LargeCells)
	}
}
