package collector

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

const (
	probeLocal   = "SELECT host_id, release_version FROM system.local WHERE key = 'local'"
	probeTables  = "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'system'"
	probeVirtual = "SELECT table_name, column_name FROM system_virtual_schema.columns WHERE keyspace_name = 'system_views'"
	probeVersion = "SELECT version FROM system.versions"
	probeColumns = "SELECT table_name, column_name FROM system_schema.columns WHERE keyspace_name = 'system'"
)

// serverError is a CQL error response (gocql.RequestError), e.g. 0x2200 Invalid.
type serverError struct{ msg string }

func (e serverError) Error() string   { return e.msg }
func (e serverError) Code() int       { return 0x2200 }
func (e serverError) Message() string { return e.msg }

func tableRows(names ...string) []cql.Row {
	var rows []cql.Row
	for _, n := range names {
		rows = append(rows, cql.Row{"table_name": n})
	}
	return rows
}

func TestProbeCapabilities(t *testing.T) {
	t.Run("Cassandra 5.0", func(t *testing.T) {
		f := newFake("n1").
			on(probeLocal, cql.Row{"host_id": "h1", "release_version": "5.0.8"}).
			on(probeTables, tableRows("local", "peers_v2", "table_estimates", "top_partitions")...).
			on(probeVirtual,
				cql.Row{"table_name": "gossip_info", "column_name": "load"},
				cql.Row{"table_name": "local_read_latency", "column_name": "p99th_ms"})
		c, err := probeCapabilities(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		f.expectationsMet(t)
		if c.Engine != model.EngineCassandra || c.HostID != "h1" || c.Version != "5.0.8" || !c.SystemTables["top_partitions"] ||
			!c.VirtualColumns["local_read_latency"]["p99th_ms"] || latencyMillisToSeconds(c) != 1 {
			t.Errorf("caps %+v", c)
		}
	})
	t.Run("ScyllaDB", func(t *testing.T) {
		// release_version is always 3.0.8 and system.versions has the real one
		// (docs/sources.md, Telling Cassandra from ScyllaDB); the large_*
		// columns are probed.
		f := newFake("n1").
			on(probeLocal, cql.Row{"host_id": "h2", "release_version": "3.0.8"}).
			on(probeTables, tableRows("local", "peers", "large_partitions", "large_cells", "versions", "config")...).
			on(probeVersion, cql.Row{"version": "6.0.0-0.20240601.abc"}).
			on(probeColumns,
				cql.Row{"table_name": "large_partitions", "column_name": "dead_rows"},
				cql.Row{"table_name": "large_cells", "column_name": "collection_elements"},
				cql.Row{"table_name": "local", "column_name": "tokens"})
		c, err := probeCapabilities(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		f.expectationsMet(t)
		if c.Engine != model.EngineScyllaDB || c.Version != "6.0.0-0.20240601.abc" || !c.LargeDataColumns["large_partitions"]["dead_rows"] ||
			c.LargeDataColumns["large_rows"] != nil || len(c.VirtualColumns) != 0 {
			t.Errorf("caps %+v", c)
		}
	})
	t.Run("before 4.0: no virtual schema to probe", func(t *testing.T) {
		f := newFake("n1").
			on(probeLocal, cql.Row{"host_id": "h1", "release_version": "3.11.17"}).
			on(probeTables, tableRows("local", "peers", "size_estimates")...)
		c, err := probeCapabilities(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		f.expectationsMet(t)
		if c.Engine != model.EngineCassandra || len(c.VirtualColumns) != 0 {
			t.Errorf("caps %+v", c)
		}
		_, _, err = run(t, registryByName(t, "disk_usage"), newFake("n1"), c)
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("disk_usage without system_views: want ErrUnsupported, got %v", err)
		}
	})
	for _, tc := range []struct {
		name string
		f    *fakeQuerier
		want string
	}{
		{"a release version that is no number", newFake("n1").
			on(probeLocal, cql.Row{"host_id": "h1", "release_version": "unknown"}).
			on(probeTables, tableRows("local")...).
			fail(probeVirtual, serverError{"Keyspace system_virtual_schema does not exist"}),
			"probing system_virtual_schema.columns on n1 (Cassandra unknown; "},
		{"null host id", newFake("n1").on(probeLocal, cql.Row{"host_id": nil, "release_version": "5.0.8"}),
			`probing system.local on n1: row 1: column "host_id" is null`},
		{"no local row", newFake("n1").on(probeLocal), "probing system.local on n1: want 1 row, got 0"},
		{"transport error on the virtual schema", newFake("n1").
			on(probeLocal, cql.Row{"host_id": "h1", "release_version": "5.0.8"}).
			on(probeTables, tableRows("local")...).
			fail(probeVirtual, errors.New("gocql: no response received from cassandra within timeout period")),
			"probing system_virtual_schema.columns on n1 (Cassandra 5.0.8; the role needs SELECT on system_virtual_schema): gocql: no response received"},
		// A server error on 4.0+ (here: a role without SELECT on the keyspace)
		// is a failed probe, not a release without virtual tables.
		{"server error on the virtual schema of 4.0", newFake("n1").
			on(probeLocal, cql.Row{"host_id": "h1", "release_version": "4.0.19"}).
			on(probeTables, tableRows("local")...).
			fail(probeVirtual, serverError{"User partmon has no SELECT permission on <keyspace system_virtual_schema>"}),
			"probing system_virtual_schema.columns on n1 (Cassandra 4.0.19; the role needs SELECT on system_virtual_schema): User partmon has no SELECT permission"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := probeCapabilities(context.Background(), tc.f)
			wantErr(t, err, tc.want)
		})
	}
}

// TestVersionGates checks each source's gate on the table set each release
// registers (docs/sources.md, Which tables each version has:
// SystemViewsKeyspace.java and SystemKeyspace.java at 4.0.14, 4.1.7, 5.0.2). 4.1 is 5.0 without
// max_sstable_size/max_sstable_duration; which percentile column names 4.1
// uses is not verified here (sources probe them at run time).
func TestVersionGates(t *testing.T) {
	c41 := cassandra50Caps()
	delete(c41.VirtualColumns, "max_sstable_size")
	versions := map[string]*Capabilities{"4.0": cassandra40Caps(), "4.1": c41, "5.0": cassandra50Caps(), "scylladb": scyllaCaps("keyspace_name")}
	supported := map[string][]string{
		"4.0":      {"max_partition_size", "disk_usage", "local_read_latency", "tombstones_per_read", "thread_pools", "settings"},
		"4.1":      {"max_partition_size", "disk_usage", "local_read_latency", "tombstones_per_read", "thread_pools", "settings", "gossip_info", "top_partitions"},
		"5.0":      {"max_partition_size", "disk_usage", "local_read_latency", "tombstones_per_read", "thread_pools", "settings", "gossip_info", "top_partitions", "max_sstable_size"},
		"scylladb": {"settings", "large_partitions", "large_rows", "large_cells"},
	}
	all := []string{"max_partition_size", "max_sstable_size", "disk_usage", "local_read_latency", "tombstones_per_read",
		"thread_pools", "settings", "gossip_info", "top_partitions", "large_partitions", "large_rows", "large_cells"}
	for v, caps := range versions {
		for _, name := range all {
			// An empty answer to any statement: a supported source succeeds, an unsupported one never queries.
			f := &anyFake{fakeQuerier: newFake("n1")}
			out := newOutput("n1")
			_, err := gatedCollect(context.Background(), registryByName(t, name), Input{Q: f, Caps: caps, Address: "n1"}, out)
			want := slices.Contains(supported[v], name)
			if got := !errors.Is(err, ErrUnsupported); got != want || (want && err != nil) {
				t.Errorf("%s on %s: supported=%v, err %v", name, v, want, err)
			}
		}
	}
	if latencyMillisToSeconds(versions["4.0"]) != 1e-3 || latencyMillisToSeconds(versions["4.1"]) != 1 {
		t.Error("4.0 columns hold milliseconds, 4.1+ seconds")
	}
}

// anyFake answers every statement with no rows.
type anyFake struct{ *fakeQuerier }

func (f *anyFake) Select(_ context.Context, stmt string, _ []any, _ func(cql.Row) error) error {
	f.asked = append(f.asked, stmt)
	return nil
}
