#!/usr/bin/env bash
# make faults: partmon's reliability suite (reliability/, docs/operations.md) on a
# 3-node Cassandra cluster of its own with PasswordAuthenticator and mutual TLS
# (client certificates required), on 127.0.0.4-6 — never the shared dev
# cluster. Starts the cluster, runs the fault commands' own test
# (tools/testcluster) and the suite with the real partmon binary (kill -9,
# SIGSTOP, restarts, SIGTERM, a soak, a read-only role, TLS with and without
# a trusted client certificate), and stops the cluster whatever happens.
#   PARTMON_FAULT_CLUSTER_DIR  cluster directory (default <repo>/.cluster-faults)
#   PARTMON_FAULT_FIRST_IP     first node address (default 127.0.0.4)
#   PARTMON_SOAK_DURATION      soak length (default 3m)
#   PARTMON_FAULTS_KEEP=1      leave the cluster running afterwards
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=deploy/local/cluster
export PARTMON_FAULT_CLUSTER_DIR=${PARTMON_FAULT_CLUSTER_DIR:-$PWD/.cluster-faults}
FIRST_IP=${PARTMON_FAULT_FIRST_IP:-127.0.0.4}
export PARTMON_TEST_ARTIFACTS=${PARTMON_TEST_ARTIFACTS:-$PWD/test-artifacts}
mkdir -p "$PARTMON_TEST_ARTIFACTS"

t0=$(date +%s)
stop() {
	if [[ ${PARTMON_FAULTS_KEEP:-} == 1 ]]; then
		echo "== leaving the fault cluster running in $PARTMON_FAULT_CLUSTER_DIR"
	else
		echo "== stopping the fault cluster"
		"$CLUSTER" down --dir "$PARTMON_FAULT_CLUSTER_DIR" || true
	fi
}
trap stop EXIT

echo "== start a 3-node cluster with --auth --auth-cache-refresh --tls-client-auth on $FIRST_IP.. in $PARTMON_FAULT_CLUSTER_DIR"
"$CLUSTER" up --first-ip "$FIRST_IP" --dir "$PARTMON_FAULT_CLUSTER_DIR" --nodes 3 --heap 512M --auth --auth-cache-refresh --tls-client-auth

summary='^(=== RUN|--- |PASS|FAIL|ok |    [a-z_]+_integration_test.go)'
set +e
# The fault commands themselves first (kill, pause, resume, start, restart of
# one node, each checked from outside the script): the suite relies on them.
echo "== fault injection (tools/testcluster)"
go test -count=1 -tags integration -timeout 25m -run '^TestFaultInjection$' -v ./tools/testcluster/ 2>&1 |
	tee "$PARTMON_TEST_ARTIFACTS/fault-injection.log" | grep --line-buffered -E "$summary"
injection=${PIPESTATUS[0]}
echo "== reliability suite (real partmon binary, real faults)"
go test -count=1 -tags integration -timeout 25m -p 1 -v ./reliability/ 2>&1 |
	tee "$PARTMON_TEST_ARTIFACTS/reliability.log" | grep --line-buffered -E "$summary"
suite=${PIPESTATUS[0]}
set -e
echo "== make faults took $(($(date +%s) - t0)) s"
[[ $injection == 0 && $suite == 0 ]]
