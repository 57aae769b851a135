#!/usr/bin/env bash
# make faults: partmon's reliability suite (reliability/, docs/operations.md) on a
# 3-node Cassandra cluster of its own with PasswordAuthenticator and mutual TLS
# (client certificates required), on 127.0.0.4-6 — never the shared dev
# cluster. Starts the cluster, runs the fault commands' own test
# (tools/testcluster) and the suite with the real partmon binary (kill -9,
# SIGSTOP, restarts, SIGTERM, a soak, a read-only role, TLS with and without
# a trusted client certificate, the password file, client certificate and CA
# rotated while partmon runs; the exposure: a wrong-password flood during
# scrapes, slowloris, an oversized header, an idle keep-alive connection, a
# key with a newline through a failing profileload, about 150 s together),
# and stops the cluster whatever happens.
#   PARTMON_FAULT_CLUSTER_DIR  cluster directory (default <repo>/.cluster-faults)
#   PARTMON_FAULT_FIRST_IP     first node address (default 127.0.0.4)
#   PARTMON_SOAK_DURATION      soak length (default 3m)
#   PARTMON_FAULTS_KEEP=1      leave the cluster running afterwards
#   PARTMON_FAULTS_VERSIONS    older versions whose least privilege is checked after the
#                              suite (default "4.1 4.0"; "" for none): one 1-node --auth
#                              cluster each, on 127.0.0.51 and .54, TestReadOnlyRole alone
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
# The grants of docs/operations.md ("Least privilege") on the older versions:
# the read-only role's test alone, on one node with PasswordAuthenticator.
versions=0
for v in ${PARTMON_FAULTS_VERSIONS-4.1 4.0}; do
	case $v in 4.1) ip=127.0.0.51 ;; 4.0) ip=127.0.0.54 ;; *) echo "faults: no address for Cassandra $v" >&2; versions=1; continue ;; esac
	vdir=$PWD/.cluster-faults-${v/./}
	echo "== least privilege on Cassandra $v: 1 node with --auth on $ip"
	tv=$(date +%s)
	if "$CLUSTER" up --version "$v" --first-ip "$ip" --dir "$vdir" --nodes 1 --heap 512M --auth --auth-cache-refresh; then
		PARTMON_FAULT_CLUSTER_DIR=$vdir go test -count=1 -tags integration -timeout 10m -run '^TestReadOnlyRole$' -v ./reliability/ 2>&1 |
			tee "$PARTMON_TEST_ARTIFACTS/least-privilege-$v.log" | grep --line-buffered -E "$summary"
		[[ ${PIPESTATUS[0]} == 0 ]] || versions=1
	else
		versions=1
	fi
	"$CLUSTER" down --dir "$vdir" || true
	echo "== least privilege on Cassandra $v took $(($(date +%s) - tv)) s"
done
set -e
echo "== make faults took $(($(date +%s) - t0)) s"
[[ $injection == 0 && $suite == 0 && $versions == 0 ]]
