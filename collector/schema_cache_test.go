package collector

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// schemaFake answers the five system_schema statements with one keyspace
// of one table.
func schemaFake() *fakeQuerier {
	return newFake("n1").
		on(keyspacesQuery, cql.Row{"keyspace_name": "shop", "replication": map[string]string{"class": "SimpleStrategy", "replication_factor": "1"}}).
		on(tablesQuery, cql.Row{"keyspace_name": "shop", "table_name": "orders", "default_time_to_live": 0, "gc_grace_seconds": 864000, "compaction": nil}).
		on(columnsQuery, cql.Row{"keyspace_name": "shop", "table_name": "orders", "column_name": "id", "kind": "partition_key",
			"position": int64(0), "type": "int", "clustering_order": "none"}).
		on(viewsQuery).
		on(indexesQuery)
}

func ring(versions ...string) []model.Node {
	out := make([]model.Node, len(versions))
	for i, v := range versions {
		out[i] = model.Node{Address: string(rune('a' + i)), SchemaVersion: v}
	}
	return out
}

func TestSchemaSkippedWhileVersionUnchanged(t *testing.T) {
	last := &model.Schema{Keyspaces: []model.Keyspace{{Name: "cached"}}}
	const noLocal = "(not asked)"
	tests := []struct {
		name  string
		cache string        // the cache's version before
		ring  []model.Node  // a ring read moments ago, nil when stale or unknown
		local string        // the answering node's own schema_version
		last  *model.Schema // the schema kept from the last good read
		// want: whether the five statements run, the rows used, the cache's version after
		wantRead    bool
		wantRows    int
		wantVersion string
	}{
		{"fresh ring, same version", "v1", ring("v1", "v1", "v1"), noLocal, last, false, 0, "v1"},
		{"fresh ring, new version", "v1", ring("v2", "v2", "v2"), noLocal, last, true, 3, "v2"},
		{"nodes disagree, this node unchanged", "v1", ring("v1", "v2", "v1"), "v1", last, false, 1, "v1"},
		{"nodes disagree, this node changed", "v1", ring("v1", "v2", "v1"), "v2", last, true, 4, "v2"},
		{"a node without a version", "v1", ring("v1", ""), "v1", last, false, 1, "v1"},
		{"stale ring, unchanged", "v1", nil, "v1", last, false, 1, "v1"},
		{"stale ring, changed", "v1", nil, "v3", last, true, 4, "v3"},
		{"no schema kept yet", "v1", ring("v1", "v1"), noLocal, nil, true, 3, "v1"},
		{"first read", "", nil, "v1", nil, true, 4, "v1"},
		{"node reports no version", "", nil, "", last, true, 4, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake("n1") // answers nothing unless told: an unexpected statement fails the run
			if tt.wantRead {
				f = schemaFake()
			}
			if tt.local != noLocal {
				f.on(localSchemaVersionQuery, cql.Row{"schema_version": tt.local})
			}
			cache := &schemaVersionCache{version: tt.cache}
			out := newOutput("n1")
			rows, err := schemaSource{cache: cache}.Collect(context.Background(),
				Input{Q: f, Caps: cassandra50Caps(), Address: "n1", Schema: tt.last, Ring: tt.ring}, out)
			if err != nil {
				t.Fatal(err)
			}
			f.expectationsMet(t)
			ks := out.Cluster.Schema.Keyspaces
			want := "cached"
			if tt.wantRead {
				want = "shop"
			}
			if rows != tt.wantRows || len(ks) != 1 || ks[0].Name != want {
				t.Errorf("rows %d, keyspaces %+v; want %d rows and keyspace %s", rows, ks, tt.wantRows, want)
			}
			if cache.version != tt.wantVersion {
				t.Errorf("cache at %q, want %q", cache.version, tt.wantVersion)
			}
		})
	}
}

func TestSchemaCacheKeepsVersionOfLastGoodRead(t *testing.T) {
	cache := &schemaVersionCache{version: "v1"}
	f := schemaFake().fail(columnsQuery, errors.New("read timeout")).on(localSchemaVersionQuery, cql.Row{"schema_version": "v2"})
	_, err := schemaSource{cache: cache}.Collect(context.Background(),
		Input{Q: f, Caps: cassandra50Caps(), Address: "n1", Ring: nil}, newOutput("n1"))
	if err == nil {
		t.Fatal("want the columns read error")
	}
	if cache.version != "v1" {
		t.Errorf("cache at %q after a failed read, want v1 (the version of the schema still kept)", cache.version)
	}
}

// A schemaSource without a cache (tests, embedders) always reads.
func TestSchemaWithoutCacheAlwaysReads(t *testing.T) {
	f := schemaFake()
	_, err := schemaSource{}.Collect(context.Background(),
		Input{Q: f, Caps: cassandra50Caps(), Address: "n1", Schema: &model.Schema{}, Ring: ring("v1")}, newOutput("n1"))
	if err != nil {
		t.Fatal(err)
	}
	f.expectationsMet(t)
}

// The ring goes to the schema source only while it is fresh: an older one
// could hide a schema change behind its old versions.
func TestFreshRing(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		read      bool // a topology was read at t0
		age       time.Duration
		wantNodes int
	}{
		{"read in this cycle", true, time.Second, 2},
		{"read at the bound", true, ringFreshFor, 2},
		{"read a cron period ago", true, 5 * time.Minute, 0},
		{"never read", false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestCollector(t, Config{Hosts: []string{"10.0.0.1"}})
			if tt.read {
				topo := newOutput("")
				topo.Cluster.Nodes = ring("v1", "v1")
				c.now = func() time.Time { return t0 }
				c.record("topology", "", "", topo, 2, nil, t0)
			}
			c.now = func() time.Time { return t0.Add(tt.age) }
			if got := len(c.freshRing()); got != tt.wantNodes {
				t.Errorf("fresh ring has %d nodes, want %d", got, tt.wantNodes)
			}
		})
	}
}
