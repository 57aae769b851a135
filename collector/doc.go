// Package collector reads partition-health data from a Cassandra (4.0, 4.1,
// 5.0) or ScyllaDB cluster into an immutable Snapshot.
//
// Every kind of data is a Source (source_interface.go), one file per source
// named for what it reads, declaring its Facts beside its code (facts.go):
// what it reads, its version gate, default schedule and timeout, the
// keyspaces it needs SELECT on and whether it is off by default. registry.go
// lists the sources in run order and builds their registrations from those
// Facts; each is switchable under collector.sources.<name> in the YAML
// configuration, and the docs' tables of sources and grants are generated
// from the same Facts (go generate ./tools/cmd/docgen). Cluster-scope sources
// (topology, schema) are read once from any reachable node; node-scope
// sources are read from every targeted node, from that node, through a gocql
// session pinned to it (internal/cql). Which sources apply is decided by
// each source's Gate against the node's schema, probed once per session
// (capabilities.go), never by version strings alone where a table can be
// probed; a source the node lacks reports "unsupported".
//
// A new source is its file (the type, its Facts and Collect), its test, its
// line in registry.go, the model field it fills (if its data is new) and its
// section in docs/sources.md on what the number means; go generate
// ./tools/cmd/docgen writes its rows in the docs' tables, and the
// integration test checks it on every Cassandra release series from its
// declaration.
//
// Safety towards the cluster: only system tables are read (system,
// system_schema, system_views, system_virtual_schema; ScyllaDB's REST API
// and nodetool when configured), never user tables, never with ALLOW
// FILTERING; pages are bounded, consistency is ONE/LOCAL_ONE, every
// statement is idempotent, each node has at most one query in flight, and a
// failing node is backed off. A role with SELECT on the keyspaces Grants
// lists is enough (README, "Permissions").
package collector
