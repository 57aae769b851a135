package collector

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// schemaSource reads keyspaces, tables, materialized views, columns and
// indexes from system_schema. With a cache, it skips those five statements (the largest read of a cycle:
// system_schema.columns has a row per column of every table) while the
// schema version is the one the last good schema was read at: the version
// every node reported in a topology read moments ago, else the answering
// node's own (one statement); see schema_cache.go.
type schemaSource struct{ cache *schemaVersionCache }

func (schemaSource) Name() string { return "schema" }
func (schemaSource) Scope() Scope { return ClusterScope }
func (schemaSource) Facts() Facts {
	return Facts{Reads: "system_schema.keyspaces, tables, columns, indexes, views",
		Help: "`system_schema.keyspaces`, `tables`, `columns`, `indexes`, `views`; the schema version from `system.local`",
		Gate: everywhere, Schedule: everyFiveMinutes, Grants: []string{ksSystemSchema, ksSystem}}
}

const (
	keyspacesQuery = "SELECT keyspace_name, replication FROM system_schema.keyspaces"
	tablesQuery    = "SELECT keyspace_name, table_name, default_time_to_live, gc_grace_seconds, compaction FROM system_schema.tables"
	columnsQuery   = "SELECT keyspace_name, table_name, column_name, kind, position, type, clustering_order FROM system_schema.columns"
	indexesQuery   = "SELECT keyspace_name, table_name, index_name, kind, options FROM system_schema.indexes"
	// A materialized view is a table of its own (sized, read and compacted
	// on every replica like one) whose columns system_schema.columns lists
	// under the view's name; its row is here, not in tables.
	viewsQuery = "SELECT keyspace_name, view_name, base_table_name, default_time_to_live, gc_grace_seconds, compaction FROM system_schema.views"
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
	n, err := cql.SelectAll(ctx, q, localSchemaVersionQuery, nil, func(row *cql.Decoder) error {
		v = row.OptString("schema_version")
		return nil
	})
	if err == nil && n != 1 {
		err = fmt.Errorf("want 1 row, got %d", n)
	}
	if err != nil {
		return "", fmt.Errorf("reading system.local schema_version on %s: %w", q.Address(), err)
	}
	return v, nil
}

// readSchema runs the five system_schema reads, keyspaces first: tables and
// views attach to their keyspace, columns and indexes to their table or view.
func readSchema(ctx context.Context, in Input, out *Output) (int, error) {
	b := schemaBuilder{keyspaces: map[string]*model.Keyspace{}, tables: map[string]*model.Table{}}
	total := 0
	for _, read := range []struct {
		table, stmt string
		parse       func(*cql.Decoder) error
	}{
		{"system_schema.keyspaces", keyspacesQuery, b.keyspace},
		{"system_schema.tables", tablesQuery, b.table},
		{"system_schema.views", viewsQuery, b.view},
		{"system_schema.columns", columnsQuery, b.column},
		{"system_schema.indexes", indexesQuery, b.index},
	} {
		n, err := cql.SelectAll(ctx, in.Q, read.stmt, nil, read.parse)
		total += n
		if err != nil {
			return total, fmt.Errorf("reading %s on %s: %w", read.table, in.Q.Address(), err)
		}
	}
	out.Cluster.Schema = b.schema()
	return total, nil
}

// schemaBuilder assembles a model.Schema from system_schema rows. A read
// that fails discards the builder, so its methods never undo a row.
type schemaBuilder struct {
	keyspaces map[string]*model.Keyspace
	tables    map[string]*model.Table // by model.TableKey
}

func (b schemaBuilder) keyspace(row *cql.Decoder) error {
	name := row.String("keyspace_name")
	b.keyspaces[name] = &model.Keyspace{Name: name, Replication: row.OptStringMap("replication"), System: isSystemKeyspace(name)}
	return nil
}

func (b schemaBuilder) table(row *cql.Decoder) error {
	t := &model.Table{
		Keyspace:          row.String("keyspace_name"),
		Name:              row.String("table_name"),
		DefaultTTLSeconds: int(row.OptInt64("default_time_to_live")),
		GCGraceSeconds:    int(row.OptInt64("gc_grace_seconds")),
		Compaction:        row.OptStringMap("compaction"),
	}
	b.tables[model.TableKey(t.Keyspace, t.Name)] = t
	return nil
}

func (b schemaBuilder) view(row *cql.Decoder) error {
	t := &model.Table{
		Keyspace:          row.String("keyspace_name"),
		Name:              row.String("view_name"),
		BaseTable:         row.String("base_table_name"),
		DefaultTTLSeconds: int(row.OptInt64("default_time_to_live")),
		GCGraceSeconds:    int(row.OptInt64("gc_grace_seconds")),
		Compaction:        row.OptStringMap("compaction"),
	}
	b.tables[model.TableKey(t.Keyspace, t.Name)] = t
	return nil
}

func (b schemaBuilder) column(row *cql.Decoder) error {
	if t := b.tableOfRow(row); t != nil {
		t.Columns = append(t.Columns, model.Column{
			Name:            row.String("column_name"),
			Kind:            row.String("kind"),
			Position:        int(row.Int64("position")),
			Type:            row.String("type"),
			ClusteringOrder: row.OptString("clustering_order"),
		})
	}
	return nil
}

func (b schemaBuilder) index(row *cql.Decoder) error {
	if t := b.tableOfRow(row); t != nil {
		t.Indexes = append(t.Indexes, model.Index{
			Name:    row.String("index_name"),
			Kind:    row.OptString("kind"),
			Options: row.OptStringMap("options"),
		})
	}
	return nil
}

// tableOfRow finds the table a columns or indexes row belongs to; nil for a
// table dropped or created between the reads.
func (b schemaBuilder) tableOfRow(row *cql.Decoder) *model.Table {
	return b.tables[model.TableKey(tableOf(row))]
}

// schema orders what was read: keyspaces and their tables by name, columns
// by sortColumns, indexes by name.
func (b schemaBuilder) schema() model.Schema {
	for _, t := range b.tables {
		sortColumns(t.Columns)
		sort.Slice(t.Indexes, func(i, j int) bool { return t.Indexes[i].Name < t.Indexes[j].Name })
		ks, ok := b.keyspaces[t.Keyspace]
		if !ok {
			// Seen mid schema change: the keyspace row came before the table's.
			continue
		}
		ks.Tables = append(ks.Tables, *t)
	}
	names := make([]string, 0, len(b.keyspaces))
	for name := range b.keyspaces {
		names = append(names, name)
	}
	sort.Strings(names)
	schema := model.Schema{Keyspaces: make([]model.Keyspace, 0, len(names))}
	for _, name := range names {
		ks := b.keyspaces[name]
		sort.Slice(ks.Tables, func(i, j int) bool { return ks.Tables[i].Name < ks.Tables[j].Name })
		schema.Keyspaces = append(schema.Keyspaces, *ks)
	}
	return schema
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
