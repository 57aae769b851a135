// Package reliability holds partmon's fault, soak, security and shutdown
// tests. They run the real partmon binary (built by the tests) against a real
// local Cassandra cluster of their own — never the shared dev cluster — and
// break it: kill -9, SIGSTOP, restarts of nodes and of partmon, wrong
// certificates, wrong passwords. Every test is behind the `integration` build
// tag and skips unless PARTMON_FAULT_CLUSTER_DIR names such a cluster;
// scripts/faults.sh (`make faults`) starts one, runs them and stops it.
// docs/operations.md lists the guarantees these tests prove.
package reliability
