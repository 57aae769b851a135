// Package collector reads partition-health data from a Cassandra (4.0, 4.1,
// 5.0) or ScyllaDB cluster into an immutable Snapshot.
//
// Every kind of data is a Source (source_interface.go), one file per source
// named for what it reads, listed once in registry.go with its default
// schedule and timeout, each switchable under collector.sources.<name> in
// the YAML configuration. Cluster-scope sources
// (topology, schema) are read once from any reachable node; node-scope
// sources are read from every targeted node, from that node, through a gocql
// session pinned to it (internal/cql). Which sources apply is decided by
// probing each node's schema once per session (capabilities.go), never by
// version strings alone; a source the node lacks reports "unsupported".
//
// Safety towards the cluster: only system tables are read (system,
// system_schema, system_views, system_virtual_schema; ScyllaDB's REST API
// and nodetool when configured), never user tables, never with ALLOW
// FILTERING; pages are bounded, consistency is ONE/LOCAL_ONE, every
// statement is idempotent, each node has at most one query in flight, and a
// failing node is backed off. A role with these grants is enough:
//
//	GRANT SELECT ON KEYSPACE system TO partmon;
//	GRANT SELECT ON KEYSPACE system_schema TO partmon;
//	GRANT SELECT ON KEYSPACE system_views TO partmon;          -- Cassandra 4.0+
//	GRANT SELECT ON KEYSPACE system_virtual_schema TO partmon; -- Cassandra 4.0+
package collector
