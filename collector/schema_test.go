package collector

import (
	"reflect"
	"testing"

	"github.com/partmon/partmon/collector/internal/cql"
)

func TestSchema(t *testing.T) {
	col := func(tbl, name, kind string, pos int64, typ string) cql.Row {
		return cql.Row{"keyspace_name": "shop", "table_name": tbl, "column_name": name, "kind": kind, "position": pos, "type": typ, "clustering_order": "none"}
	}
	f := newFake("n1").
		on(keyspacesQuery,
			cql.Row{"keyspace_name": "shop", "replication": map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3"}},
			cql.Row{"keyspace_name": "system_auth", "replication": map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"}},
		).
		on(tablesQuery,
			cql.Row{"keyspace_name": "shop", "table_name": "orders", "default_time_to_live": 0, "gc_grace_seconds": 864000,
				"compaction": map[string]string{"class": "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy"}},
		).
		on(columnsQuery,
			col("orders", "total", "regular", -1, "decimal"),
			col("orders", "day", "clustering", 1, "date"),
			col("orders", "customer", "partition_key", 0, "text"),
			col("orders", "region", "partition_key", 1, "text"),
			col("orders", "id", "clustering", 0, "timeuuid"),
			col("orders", "note", "static", -1, "text"),
			col("gone", "x", "regular", -1, "int"), // table dropped between the queries: ignored
			col("orders_by_region", "region", "partition_key", 0, "text"),
			col("orders_by_region", "customer", "clustering", 0, "text"),
		).
		on(viewsQuery,
			cql.Row{"keyspace_name": "shop", "view_name": "orders_by_region", "base_table_name": "orders", "default_time_to_live": 0,
				"gc_grace_seconds": 864000, "compaction": map[string]string{"class": "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy"}},
		).
		on(indexesQuery,
			cql.Row{"keyspace_name": "shop", "table_name": "orders", "index_name": "orders_total", "kind": "COMPOSITES", "options": map[string]string{"target": "total"}},
		)
	out, rows, err := run(t, schemaSource{}, f, cassandra50Caps())
	if err != nil {
		t.Fatal(err)
	}
	f.expectationsMet(t)
	if rows != 14 {
		t.Errorf("rows %d, want 14", rows)
	}
	ks := out.Cluster.Schema.Keyspaces
	if len(ks) != 2 || ks[0].Name != "shop" || ks[0].System || ks[1].Name != "system_auth" || !ks[1].System {
		t.Fatalf("keyspaces %+v", ks)
	}
	if len(ks[0].Tables) != 2 {
		t.Fatalf("shop's tables %+v, want orders and its view orders_by_region", ks[0].Tables)
	}
	orders, view := ks[0].Tables[0], ks[0].Tables[1]
	if orders.IsView() || !view.IsView() || view.Name != "orders_by_region" || view.BaseTable != "orders" ||
		len(view.Columns) != 2 || view.Columns[0].Name != "region" || view.Columns[0].Kind != "partition_key" {
		t.Errorf("view %+v: want orders_by_region, a view of orders keyed by region", view)
	}
	var names []string
	for _, c := range orders.Columns {
		names = append(names, c.Name)
	}
	if want := []string{"customer", "region", "id", "day", "note", "total"}; !reflect.DeepEqual(names, want) {
		t.Errorf("column order %v, want %v", names, want)
	}
	if orders.GCGraceSeconds != 864000 || len(orders.Indexes) != 1 || orders.Indexes[0].Options["target"] != "total" {
		t.Errorf("table %+v", orders)
	}

	bad := newFake("n1").on(keyspacesQuery, cql.Row{"keyspace_name": "shop", "replication": map[string]string{}}).
		on(tablesQuery, cql.Row{"keyspace_name": "shop", "table_name": "t", "default_time_to_live": 0, "gc_grace_seconds": 0, "compaction": nil}).
		on(viewsQuery).
		on(columnsQuery, cql.Row{"keyspace_name": "shop", "table_name": "t", "column_name": "k", "kind": nil, "position": int64(0), "type": "int", "clustering_order": "none"})
	_, _, err = run(t, schemaSource{}, bad, cassandra50Caps())
	wantErr(t, err, `reading system_schema.columns on n1: row 1: column "kind" is null`)

	garbage := newFake("n1").on(keyspacesQuery, cql.Row{"keyspace_name": "shop", "replication": "{'class': 'x'}"})
	_, _, err = run(t, schemaSource{}, garbage, cassandra50Caps())
	wantErr(t, err, `column "replication": want a map of text to text, got string`)
}

func TestIsSystemKeyspace(t *testing.T) {
	for name, want := range map[string]bool{
		"system": true, "system_schema": true, "system_views": true, "system_distributed_everywhere": true,
		"dse_security": true, "systems": false, "shop": false, "my_system": false,
	} {
		if got := isSystemKeyspace(name); got != want {
			t.Errorf("isSystemKeyspace(%q) = %v", name, got)
		}
	}
}
