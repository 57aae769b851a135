package collector

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// fakeQuerier answers statements from a table of canned rows, like sqlmock:
// an unexpected statement is an error, and expectationsMet checks that every
// canned statement was asked. It is the row-level boundary of the sources;
// their happy paths also run against the real cluster (integration tests).
type fakeQuerier struct {
	addr    string
	answers map[string]fakeAnswer
	asked   []string
}

type fakeAnswer struct {
	rows []cql.Row
	err  error
}

func newFake(addr string) *fakeQuerier {
	return &fakeQuerier{addr: addr, answers: map[string]fakeAnswer{}}
}

// on registers the rows (or error) of a statement.
func (f *fakeQuerier) on(stmt string, rows ...cql.Row) *fakeQuerier {
	f.answers[stmt] = fakeAnswer{rows: rows}
	return f
}

func (f *fakeQuerier) fail(stmt string, err error) *fakeQuerier {
	f.answers[stmt] = fakeAnswer{err: err}
	return f
}

func (f *fakeQuerier) Address() string { return f.addr }

func (f *fakeQuerier) Select(_ context.Context, stmt string, _ []any, each func(cql.Row) error) error {
	f.asked = append(f.asked, stmt)
	a, ok := f.answers[stmt]
	if !ok {
		return fmt.Errorf("fake: unexpected statement %q", stmt)
	}
	if a.err != nil {
		return a.err
	}
	for _, r := range a.rows {
		if err := each(r); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeQuerier) expectationsMet(t *testing.T) {
	t.Helper()
	for stmt := range f.answers {
		if !slices.Contains(f.asked, stmt) {
			t.Errorf("statement never asked: %s", stmt)
		}
	}
}

// cassandra50Caps are the capabilities the probe finds on Cassandra 5.0.8
// (checked against the real cluster by the integration tests).
func cassandra50Caps() *Capabilities {
	vc := map[string]map[string]bool{}
	for _, t := range []string{"max_partition_size", "max_sstable_size", "disk_usage"} {
		vc[t] = set("keyspace_name", "table_name", "mebibytes")
	}
	for _, t := range []string{"local_read_latency", "local_write_latency", "local_scan_latency"} {
		vc[t] = set("keyspace_name", "table_name", "count", "p50th_ms", "p99th_ms", "max_ms", "per_second")
	}
	for _, t := range []string{"tombstones_per_read", "rows_per_read"} {
		vc[t] = set("keyspace_name", "table_name", "count", "p50th", "p99th", "max")
	}
	vc["thread_pools"] = set("name", "active_tasks", "active_tasks_limit", "pending_tasks", "completed_tasks", "blocked_tasks", "blocked_tasks_all_time")
	vc["gossip_info"] = set("address", "port", "host_id", "load")
	vc["settings"] = set("name", "value")
	return &Capabilities{
		Engine: model.EngineCassandra, HostID: "11111111-1111-1111-1111-111111111111",
		ReleaseVersion: "5.0.8", Version: "5.0.8",
		SystemTables:   set("local", "peers", "peers_v2", "size_estimates", "table_estimates", "top_partitions"),
		VirtualColumns: vc,
	}
}

// cassandra40Caps has the 4.0 table set: no gossip_info, max_sstable_size or
// top_partitions (docs/sources.md, Which tables each version has). Its
// percentile columns carry the names from before CASSANDRA-15570
// (4.0-alpha4; "50th_ms", "99th_ms"), which exercises the column probe's
// fallback; released 4.0 already says p50th_ms and p99th_ms.
func cassandra40Caps() *Capabilities {
	c := cassandra50Caps()
	delete(c.VirtualColumns, "gossip_info")
	delete(c.VirtualColumns, "max_sstable_size")
	delete(c.SystemTables, "top_partitions")
	for _, t := range []string{"local_read_latency", "local_write_latency", "local_scan_latency"} {
		c.VirtualColumns[t] = set("keyspace_name", "table_name", "count", "50th_ms", "99th_ms", "max_ms", "per_second")
	}
	for _, t := range []string{"tombstones_per_read", "rows_per_read"} {
		c.VirtualColumns[t] = set("keyspace_name", "table_name", "count", "50th", "99th", "max")
	}
	c.ReleaseVersion, c.Version = "4.0.14", "4.0.14"
	return c
}

// scyllaCaps are ScyllaDB's: release_version 3.0.8, no system_views, the
// large_* tables (columns per version: docs/sources.md, ScyllaDB
// system.large_partitions, large_rows, large_cells).
func scyllaCaps(largePartitionCols ...string) *Capabilities {
	return &Capabilities{
		Engine: model.EngineScyllaDB, HostID: "22222222-2222-2222-2222-222222222222",
		ReleaseVersion: "3.0.8", Version: "2025.1.14-0.20250101.abcdef",
		SystemTables:   set("local", "peers", "size_estimates", "large_partitions", "large_rows", "large_cells", "config", "versions"),
		VirtualColumns: map[string]map[string]bool{},
		LargeDataColumns: map[string]map[string]bool{
			"large_partitions": set(largePartitionCols...),
			"large_rows":       set("keyspace_name", "table_name", "sstable_name", "row_size", "partition_key", "clustering_key", "compaction_time"),
			"large_cells":      set("keyspace_name", "table_name", "sstable_name", "cell_size", "partition_key", "clustering_key", "column_name", "compaction_time", "collection_elements"),
		},
	}
}

func set(items ...string) map[string]bool {
	m := map[string]bool{}
	for _, i := range items {
		m[i] = true
	}
	return m
}

// run collects src from f with caps and returns its output.
func run(t *testing.T, src Source, f *fakeQuerier, caps *Capabilities) (*Output, int, error) {
	t.Helper()
	out := newOutput(f.addr)
	rows, err := gatedCollect(context.Background(), src, Input{Q: f, Caps: caps, Address: f.addr}, out)
	return out, rows, err
}

func wantErr(t *testing.T, err error, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want an error containing %q, got nil", substr)
	}
	if !strings.Contains(err.Error(), substr) {
		t.Fatalf("want an error containing %q, got %q", substr, err)
	}
}

// with returns a copy of r with each (column, value) pair of colsAndValues set.
func with(r cql.Row, colsAndValues ...any) cql.Row {
	c := maps.Clone(r)
	for i := 0; i+1 < len(colsAndValues); i += 2 {
		c[colsAndValues[i].(string)] = colsAndValues[i+1]
	}
	return c
}

func registryByName(t *testing.T, name string) Source {
	t.Helper()
	for _, r := range registry(Config{}, nil) {
		if r.src.Name() == name {
			return r.src
		}
	}
	t.Fatalf("no source %q", name)
	return nil
}
