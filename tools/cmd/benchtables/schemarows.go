package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// Creating tables by their schema rows (--schema-rows, one node only).
//
// One CREATE TABLE costs a Cassandra 5.0 node a pass over its whole schema:
// DefaultSchemaUpdateHandler.apply (synchronized) diffs every table of the
// keyspace and rebuilds maps of every table, and SchemaKeyspace's
// calculateSchemaDigest reads and hashes every row of system_schema after
// each change. So creating N tables one statement at a time costs O(N²):
// here 13 tables/s at the start, 1.5 at 3,000, hours to 10,000.
// Cassandra's own tests add a keyspace with all its tables in one schema
// change; over CQL the nearest thing is to write the rows CREATE TABLE
// writes (system_schema.tables and .columns), copied from a table created
// the ordinary way with only its keyspace, name and id changed, and have the
// node load them all at once with `nodetool reloadlocalschema` — the reload
// start-up runs: one read of system_schema, one diff, then every new table
// opened as a schema change from a peer would open it. The result is the
// schema CREATE TABLE would have written; a restart reads it back the same
// way. system_schema is local to each node, hence one node only.

// schemaRowTables are the system_schema tables a plain table (no index,
// trigger, dropped column or mask) has rows in.
var schemaRowTables = []string{"tables", "columns"}

// renamedSchemaRows is a table's system_schema rows (SELECT JSON) given the
// keyspace, name and id of another table: everything else, options and
// columns included, stays the template's.
func renamedSchemaRows(rows []string, keyspace, table string, id gocql.UUID) ([]string, error) {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(r))
		d.UseNumber() // numbers written back as read
		if err := d.Decode(&m); err != nil {
			return nil, fmt.Errorf("a system_schema row is not JSON: %w", err)
		}
		if _, ok := m["keyspace_name"]; !ok {
			return nil, fmt.Errorf("a system_schema row has no keyspace_name: %s", r)
		}
		m["keyspace_name"], m["table_name"] = keyspace, table
		if _, ok := m["id"]; ok {
			m["id"] = id.String()
		}
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	return out, nil
}

// templateRows reads table (keyspace, table)'s rows of each schemaRowTables
// table as JSON.
func templateRows(ctx context.Context, s *gocql.Session, keyspace, table string) (map[string][]string, error) {
	rows := map[string][]string{}
	for _, t := range schemaRowTables {
		iter := s.Query("SELECT JSON * FROM system_schema."+t+" WHERE keyspace_name = ? AND table_name = ?", keyspace, table).
			WithContext(ctx).Iter()
		var r string
		for iter.Scan(&r) {
			rows[t] = append(rows[t], r)
		}
		if err := iter.Close(); err != nil {
			return nil, fmt.Errorf("reading system_schema.%s of %s.%s: %w", t, keyspace, table, err)
		}
	}
	if len(rows["tables"]) != 1 || len(rows["columns"]) == 0 {
		return nil, fmt.Errorf("template table %s.%s: %d tables rows, %d columns rows (want 1 and some)",
			keyspace, table, len(rows["tables"]), len(rows["columns"]))
	}
	return rows, nil
}

// createTablesBySchemaRows grows the benchmark schema from `from` to `to`
// tables by their schema rows; table 0 is created over CQL (the template).
func createTablesBySchemaRows(ctx context.Context, c *benchCluster, s *gocql.Session, from, to, workers int) error {
	if len(c.hosts) != 1 {
		return fmt.Errorf("--schema-rows needs a one-node cluster (system_schema is local to each node), this one has %d", len(c.hosts))
	}
	first := max(from, 1)
	if from < first { // keyspace 0 and the template, over CQL
		if err := createTables(ctx, s, from, first, 1, c.replication()); err != nil {
			return err
		}
	}
	if err := createKeyspaces(ctx, s, first, to, c.replication()); err != nil {
		return err
	}
	tmpl, err := templateRows(ctx, s, keyspaceOf(0), tableOf(0))
	if err != nil {
		return err
	}
	start := time.Now()
	err = parallel(ctx, first, to, workers, func(i int) error {
		for _, t := range schemaRowTables {
			rows, err := renamedSchemaRows(tmpl[t], keyspaceOf(i), tableOf(i), gocql.TimeUUID())
			if err != nil {
				return err
			}
			for _, r := range rows {
				if err := s.Query("INSERT INTO system_schema."+t+" JSON ?", r).WithContext(ctx).Consistency(gocql.One).Exec(); err != nil {
					return fmt.Errorf("writing system_schema.%s of %s.%s: %w", t, keyspaceOf(i), tableOf(i), err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	wrote := time.Since(start)
	if _, _, err := c.nodetool(ctx, 1, "reloadlocalschema"); err != nil {
		return err
	}
	// The rows sit in system_schema's memtables: flush them, so that a
	// restart finds the tables.
	if _, _, err := c.nodetool(ctx, 1, "flush", "system_schema"); err != nil {
		return err
	}
	have, err := existingTables(ctx, c)
	if err != nil {
		return err
	}
	if have < to {
		return fmt.Errorf("after reloadlocalschema the node lists %d benchmark tables, want %d", have, to)
	}
	took := time.Since(start).Seconds()
	logf("created tables %d..%d by their schema rows in %.1f s (rows %.1f s, reload and flush %.1f s; %.1f tables/s)",
		first, to-1, took, wrote.Seconds(), took-wrote.Seconds(), float64(to-first)/took)
	return nil
}
