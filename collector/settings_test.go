package collector

import (
	"reflect"
	"testing"

	"github.com/partmon/partmon/collector/internal/cql"
)

func TestSettings(t *testing.T) {
	t.Run("Cassandra keeps the relevant settings", func(t *testing.T) {
		f := newFake("n1").on(cassandraSettingsQuery,
			cql.Row{"name": "partition_size_warn_threshold", "value": nil},
			cql.Row{"name": "compaction_large_partition_warning_threshold", "value": "100MiB"},
			cql.Row{"name": "top_partitions_enabled", "value": "true"},
			cql.Row{"name": "concurrent_reads", "value": "32"},
		)
		out, rows, err := run(t, settingsSource{}, f, cassandra50Caps())
		if err != nil || rows != 4 {
			t.Fatalf("rows %d err %v", rows, err)
		}
		want := map[string]string{"partition_size_warn_threshold": "", "compaction_large_partition_warning_threshold": "100MiB", "top_partitions_enabled": "true"}
		if !reflect.DeepEqual(out.Node.Settings, want) {
			t.Errorf("got %v, want %v", out.Node.Settings, want)
		}
	})
	t.Run("ScyllaDB reads system.config", func(t *testing.T) {
		// db/virtual_tables.cc config table: (name text PK, type, source, value).
		f := newFake("n1").on("SELECT name, value FROM system.config",
			cql.Row{"name": "compaction_large_partition_warning_threshold_mb", "value": "1000"},
			cql.Row{"name": "compaction_rows_count_warning_threshold", "value": "100000"},
			cql.Row{"name": "memtable_flush_queue_size", "value": "4"},
		)
		out, _, err := run(t, settingsSource{}, f, scyllaCaps())
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"compaction_large_partition_warning_threshold_mb": "1000", "compaction_rows_count_warning_threshold": "100000"}
		if !reflect.DeepEqual(out.Node.Settings, want) {
			t.Errorf("got %v", out.Node.Settings)
		}
	})
	_, _, err := run(t, settingsSource{}, newFake("n1").on(cassandraSettingsQuery, cql.Row{"name": nil, "value": "x"}), cassandra50Caps())
	wantErr(t, err, `column "name" is null`)
}
