package collector

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// schemaSource reads keyspaces, tables, columns and indexes from system_schema.
// With a cache, it skips those four statements (the largest read of a cycle:
// system_schema.columns has a row per column of every table) while the
// schema version is the one the last good schema was read at: the version
// every node reported in a topology read moments ago, else the answering
// node's own (one statement); see schema_cache.go.
type schemaSource struct{ cache *schemaVersionCache }

func (schemaSource) Name() string { return "schema" }
func (schemaSource) Scope() Scope { return ClusterScope }

const (
	keyspacesQuery = "SELECT keyspace_name, replication FROM system_schema.keyspaces"
	tablesQuery    = "SELECT keyspace_name, table_name, default_time_to_live, gc_grace_seconds, compaction FROM system_schema.tables"
	columnsQuery   = "SELECT keyspace_name, table_name, column_name, kind, position, type, clustering_order FROM system_schema.columns"
	indexesQuery   = "SELECT keyspace_name, table_name, index_name, kind, options FROM system_schema.indexes"
)

func (s schemaSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if s.cache == nil {
		return readSchema(ctx, in, out)
	}
	// The version comes first: a change landing during the read below is
	// then remembered under the older version and read again next time.
	version, rows := agreedSchemaVersion(in.Ring), 0
	if version == "" {
		v, err := localSchemaVersion(ctx, in.Q)
		if err != nil {
			return 0, err
		}
		version, rows = v, 1
	}
	if s.cache.unchanged(version) && in.Schema != nil {
		out.Cluster.Schema = *in.Schema
		return rows, nil // the last good schema is still the cluster's
	}
	n, err := readSchema(ctx, in, out)
	if err == nil {
		s.cache.readAt(version)
	}
	return rows + n, err
}

const localSchemaVersionQuery = "SELECT schema_version FROM system.local WHERE key = 'local'"

// localSchemaVersion is the schema version of the node q reads from.
func localSchemaVersion(ctx context.Context, q cql.Querier) (string, error) {
	var v string
	n, err := cql.SelectAll(ctx, q, localSchemaVersionQuery, nil, func(r cql.Row) error {
		var err error
		v, err = r.OptString("schema_version")
		return err
	})
	if err == nil && n != 1 {
		err = fmt.Errorf("want 1 row, got %d", n)
	}
	if err != nil {
		return "", fmt.Errorf("reading system.local schema_version on %s: %w", q.Address(), err)
	}
	return v, nil
}

func readSchema(ctx context.Context, in Input, out *Output) (int, error) {
	addr := in.Q.Address()
	keyspaces := map[string]*model.Keyspace{}
	tables := map[string]*model.Table{}
	total := 0

	n, err := cql.SelectAll(ctx, in.Q, keyspacesQuery, nil, func(r cql.Row) error {
		name, err := r.String("keyspace_name")
		if err != nil {
			return err
		}
		repl, err := r.OptStringMap("replication")
		if err != nil {
			return err
		}
		keyspaces[name] = &model.Keyspace{Name: name, Replication: repl, System: isSystemKeyspace(name)}
		return nil
	})
	total += n
	if err != nil {
		return total, fmt.Errorf("reading system_schema.keyspaces on %s: %w", addr, err)
	}

	n, err = cql.SelectAll(ctx, in.Q, tablesQuery, nil, func(r cql.Row) error {
		ks, err := r.String("keyspace_name")
		if err != nil {
			return err
		}
		name, err := r.String("table_name")
		if err != nil {
			return err
		}
		t := &model.Table{Keyspace: ks, Name: name}
		ttl, err := r.OptInt64("default_time_to_live")
		if err != nil {
			return err
		}
		gc, err := r.OptInt64("gc_grace_seconds")
		if err != nil {
			return err
		}
		t.DefaultTTLSeconds, t.GCGraceSeconds = int(ttl), int(gc)
		if t.Compaction, err = r.OptStringMap("compaction"); err != nil {
			return err
		}
		tables[model.TableKey(ks, name)] = t
		return nil
	})
	total += n
	if err != nil {
		return total, fmt.Errorf("reading system_schema.tables on %s: %w", addr, err)
	}

	n, err = cql.SelectAll(ctx, in.Q, columnsQuery, nil, func(r cql.Row) error {
		t, err := schemaTable(r, tables)
		if err != nil || t == nil {
			return err
		}
		var c model.Column
		if c.Name, err = r.String("column_name"); err != nil {
			return err
		}
		if c.Kind, err = r.String("kind"); err != nil {
			return err
		}
		pos, err := r.Int64("position")
		if err != nil {
			return err
		}
		c.Position = int(pos)
		if c.Type, err = r.String("type"); err != nil {
			return err
		}
		if c.ClusteringOrder, err = r.OptString("clustering_order"); err != nil {
			return err
		}
		t.Columns = append(t.Columns, c)
		return nil
	})
	total += n
	if err != nil {
		return total, fmt.Errorf("reading system_schema.columns on %s: %w", addr, err)
	}

	n, err = cql.SelectAll(ctx, in.Q, indexesQuery, nil, func(r cql.Row) error {
		t, err := schemaTable(r, tables)
		if err != nil || t == nil {
			return err
		}
		var ix model.Index
		if ix.Name, err = r.String("index_name"); err != nil {
			return err
		}
		if ix.Kind, err = r.OptString("kind"); err != nil {
			return err
		}
		if ix.Options, err = r.OptStringMap("options"); err != nil {
			return err
		}
		t.Indexes = append(t.Indexes, ix)
		return nil
	})
	total += n
	if err != nil {
		return total, fmt.Errorf("reading system_schema.indexes on %s: %w", addr, err)
	}

	for _, t := range tables {
		sortColumns(t.Columns)
		sort.Slice(t.Indexes, func(i, j int) bool { return t.Indexes[i].Name < t.Indexes[j].Name })
		ks, ok := keyspaces[t.Keyspace]
		if !ok {
			// Seen mid schema change: the keyspace row came before the table's.
			continue
		}
		ks.Tables = append(ks.Tables, *t)
	}
	names := make([]string, 0, len(keyspaces))
	for name := range keyspaces {
		names = append(names, name)
	}
	sort.Strings(names)
	schema := model.Schema{Keyspaces: make([]model.Keyspace, 0, len(names))}
	for _, name := range names {
		ks := keyspaces[name]
		sort.Slice(ks.Tables, func(i, j int) bool { return ks.Tables[i].Name < ks.Tables[j].Name })
		schema.Keyspaces = append(schema.Keyspaces, *ks)
	}
	out.Cluster.Schema = schema
	return total, nil
}

// schemaTable finds the table a columns/indexes row belongs to; nil for a
// table dropped or created between the queries.
func schemaTable(r cql.Row, tables map[string]*model.Table) (*model.Table, error) {
	ks, err := r.String("keyspace_name")
	if err != nil {
		return nil, err
	}
	name, err := r.String("table_name")
	if err != nil {
		return nil, err
	}
	return tables[model.TableKey(ks, name)], nil
}

var columnKindOrder = map[string]int{"partition_key": 0, "clustering": 1, "static": 2, "regular": 3}

// sortColumns orders partition key columns by position, then clustering
// columns by position, then the rest by name (the Table.Columns contract).
func sortColumns(cols []model.Column) {
	rank := func(k string) int {
		if r, ok := columnKindOrder[k]; ok {
			return r
		}
		return len(columnKindOrder)
	}
	sort.SliceStable(cols, func(i, j int) bool {
		a, b := cols[i], cols[j]
		ra, rb := rank(a.Kind), rank(b.Kind)
		if ra != rb {
			if ra >= 2 && rb >= 2 { // static and regular: by name only
				return a.Name < b.Name
			}
			return ra < rb
		}
		if ra < 2 && a.Position != b.Position {
			return a.Position < b.Position
		}
		return a.Name < b.Name
	})
}

// isSystemKeyspace says whether Cassandra, ScyllaDB or DSE own the keyspace.
func isSystemKeyspace(name string) bool {
	return name == "system" || strings.HasPrefix(name, "system_") ||
		strings.HasPrefix(name, "dse_") || name == "solr_admin" || name == "OpsCenter"
}
