package collector

import (
	"context"
	"fmt"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
	"go.uber.org/zap"
)

// Capabilities are what one node's schema offers, probed once per session:
// sources gate on the tables that exist, never on version strings alone.
type Capabilities struct {
	Engine         model.Engine
	HostID         string
	ReleaseVersion string // system.local release_version (ScyllaDB always says 3.0.8)
	Version        string // the real version: release_version, or ScyllaDB's system.versions
	// SystemTables are the tables of the "system" keyspace (system_schema.tables).
	SystemTables map[string]bool
	// VirtualColumns are the tables of "system_views" and their columns
	// (Cassandra 4.0+, system_virtual_schema.columns).
	VirtualColumns map[string]map[string]bool
	// LargeDataColumns are the columns of ScyllaDB's system.large_partitions,
	// large_rows and large_cells, by table (6.0 added columns).
	LargeDataColumns map[string]map[string]bool
}

// scyllaReleaseVersion is what ScyllaDB reports in system.local.release_version
// whatever its real version (scylladb version.hh: version::current()).
const scyllaReleaseVersion = "3.0.8"

// probeGrants are the keyspaces the probe reads, besides the sources' Grants.
var probeGrants = []string{ksSystem, ksSystemSchema, ksSystemVirtualSchema}

// probeCapabilities reads system.local and the schema tables of one node.
// release_version 3.0.8 or a system.large_partitions table mean ScyllaDB;
// system_virtual_schema exists on Cassandra 4.0+ only (docs/sources.md,
// Telling Cassandra from ScyllaDB).
func probeCapabilities(ctx context.Context, q cql.Querier) (*Capabilities, error) {
	c := &Capabilities{SystemTables: map[string]bool{}, VirtualColumns: map[string]map[string]bool{}}
	addr := q.Address()

	n, err := cql.SelectAll(ctx, q, "SELECT host_id, release_version FROM system.local WHERE key = 'local'", nil, func(row *cql.Decoder) error {
		c.HostID, c.ReleaseVersion = row.String("host_id"), row.String("release_version")
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("probing system.local on %s: %w", addr, err)
	}
	if n != 1 {
		return nil, fmt.Errorf("probing system.local on %s: want 1 row, got %d", addr, n)
	}
	c.Version = c.ReleaseVersion

	_, err = cql.SelectAll(ctx, q, "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'system'", nil, func(row *cql.Decoder) error {
		c.SystemTables[row.String("table_name")] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("probing system_schema.tables on %s: %w", addr, err)
	}

	if c.ReleaseVersion == scyllaReleaseVersion || c.SystemTables["large_partitions"] {
		c.Engine = model.EngineScyllaDB
		return c, probeScylla(ctx, q, c)
	}
	c.Engine = model.EngineCassandra
	if versionBelow(c.ReleaseVersion, oldestCassandra) {
		// Cassandra before 4.0 has no virtual tables: the system_views sources say unsupported.
		return c, nil
	}
	_, err = cql.SelectAll(ctx, q, "SELECT table_name, column_name FROM system_virtual_schema.columns WHERE keyspace_name = 'system_views'", nil, func(row *cql.Decoder) error {
		t, col := row.String("table_name"), row.String("column_name")
		if c.VirtualColumns[t] == nil {
			c.VirtualColumns[t] = map[string]bool{}
		}
		c.VirtualColumns[t][col] = true
		return nil
	})
	if err != nil {
		// On 4.0+ the keyspace exists: an error here (a timeout, a role without
		// SELECT on it) is a failed probe to retry, never "no virtual tables".
		return nil, fmt.Errorf("probing system_virtual_schema.columns on %s (Cassandra %s; the role needs SELECT on system_virtual_schema): %w", addr, c.ReleaseVersion, err)
	}
	return c, nil
}

func probeScylla(ctx context.Context, q cql.Querier, c *Capabilities) error {
	addr := q.Address()
	if c.SystemTables["versions"] {
		_, err := cql.SelectAll(ctx, q, "SELECT version FROM system.versions", nil, func(row *cql.Decoder) error {
			c.Version = row.String("version")
			return nil
		})
		if err != nil {
			return fmt.Errorf("probing system.versions on %s: %w", addr, err)
		}
	}
	c.LargeDataColumns = map[string]map[string]bool{}
	for _, t := range largeDataTables {
		if c.SystemTables[t] {
			c.LargeDataColumns[t] = map[string]bool{}
		}
	}
	if len(c.LargeDataColumns) == 0 {
		return nil
	}
	_, err := cql.SelectAll(ctx, q, "SELECT table_name, column_name FROM system_schema.columns WHERE keyspace_name = 'system'", nil, func(row *cql.Decoder) error {
		t, col := row.String("table_name"), row.String("column_name")
		if cols, ok := c.LargeDataColumns[t]; ok {
			cols[col] = true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("probing system.large_* columns on %s: %w", addr, err)
	}
	return nil
}

// column returns the first of names that system_views.<table> has: the
// percentile columns were renamed once (99th to p99th, CASSANDRA-15570;
// docs/sources.md, Which tables each version has), so sources ask rather
// than assume.
func (c *Capabilities) column(table string, names ...string) (string, error) {
	for _, n := range names {
		if c.VirtualColumns[table][n] {
			return n, nil
		}
	}
	return "", fmt.Errorf("system_views.%s has none of the columns %v", table, names)
}

// probeNode is the probe of every new session: the node's capabilities.
func (c *Collector) probeNode(ctx context.Context, q cql.Querier) (*Capabilities, error) {
	caps, err := probeCapabilities(ctx, q)
	if err != nil {
		return nil, err
	}
	c.log.Debug("connected", zap.String("node", q.Address()), zap.String("engine", string(caps.Engine)), zap.String("version", caps.Version))
	return caps, nil
}
