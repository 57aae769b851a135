#!/usr/bin/env bash
# The real-cluster acceptance suite on Cassandra 4.1 and 4.0 (make test runs it on 5.0 itself;
# scripts/test-all.sh calls this after that). For each version: a 2-node cluster of its own, the
# fixtures with their planted problems, then the acceptance tests against that cluster:
#   every source ok or unsupported with the version's reason, the latency unit against that
#   node's nodetool, sizes and counts against tablestats, top partitions against tablestats
#   (4.1), ownership against nodetool status, the planted problems found.
# The next version's cluster starts while the one before runs its acceptance tests (after
# its fixtures, the heavier load): its start is then no longer a step of its own.
#
#   scripts/test-versions.sh [4.1] [4.0]      default: both, 4.1 first
#
# Go test results are appended to test-artifacts/go-test.log ($GOLOG) with every package line
# tagged, e.g. "ok  	github.com/partmon/partmon/collector	95.1s [Cassandra 4.1.10]", so the
# closing summary of test-all.sh counts them and a reader tells the runs apart.
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=deploy/local/cluster
FIXTURES=deploy/local/fixtures
mkdir -p test-artifacts
GOLOG=${GOLOG:-test-artifacts/go-test.log}
TEST_TIMES=${TEST_TIMES:-test-artifacts/test-times.tsv}
# go test -json rendered by tools/cmd/testsummary (test-all.sh builds it; built here when run alone).
if [ -z "${TESTSUMMARY:-}" ]; then
	TESTSUMMARY=$PWD/test-artifacts/testsummary
	go build -o "$TESTSUMMARY" ./tools/cmd/testsummary
fi
# Big enough for an oversized_partition warning (50 MiB), small enough to load quickly.
LARGE_MIB=${PARTMON_VERSIONS_LARGE_MIB:-60}

# The acceptance tests, by package; the same on every version (they read the version from
# cluster.env and check that version's matrix, docs/versions.md).
COLLECTOR_TESTS='^(TestIntegrationEverySourceOnEveryNode|TestIntegrationAgreesWithNodetool|TestIntegrationLatencyUnit|TestIntegrationNodetoolSampler|TestNodetoolSamplerFindsHotKey)$'
RING_TESTS='^TestOwnershipMatchesNodetool$'
ANALYZER_TESTS='^(TestFixturesFoundOnRealCluster|TestLowCardinalityFromKeyCountsOnRealCluster)$'
TESTCLUSTER_TESTS='^TestClusterTopologyMatchesNodetool$'
E2E_TESTS='^TestSchemaZoo$'

# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# Addresses of their own, clear of the 5.0 suite (127.0.0.1-12) and of each other
# (PARTMON_VERSIONS_41_IP and PARTMON_VERSIONS_40_IP move them).
first_ip() {
	case $1 in
		4.1) echo "${PARTMON_VERSIONS_41_IP:-127.0.0.21}" ;;
		4.0) echo "${PARTMON_VERSIONS_40_IP:-127.0.0.31}" ;;
		*) echo "test-versions: no addresses for Cassandra $1 (use 4.1 or 4.0)" >&2; return 1 ;;
	esac
}

dir_of() { echo "$PWD/.cluster-${1/./}"; }
hosts_of() {
	local ip
	ip=$(first_ip "$1")
	echo "$ip,${ip%.*}.$((${ip##*.} + 1))"
}

# start_version SERIES: its cluster's start, its output to a log of its own
# (run in the background while the version before is tested).
# Two nodes, the fewest these tests need (a hot key's replica and a node
# that is not; a wide key read whole on one node and paged on another).
# What a third node adds (replication over part of the ring, folding
# over three replicas) is the 5.0 suite's; here each version's sources,
# parsers and units are what is proven, and a third node cost ~1/3 more
# CPU in every step (the box is the limit).
start_version() {
	local dir
	dir=$(dir_of "$1")
	"$CLUSTER" down --dir "$dir" >/dev/null 2>&1 || true
	# 16 allocated tokens a node, as 4.0 and 4.1 ship (docs/versions.md "Rings").
	"$CLUSTER" up --version "$1" --first-ip "$(first_ip "$1")" --dir "$dir" --nodes 2 --heap 512M --num-tokens 16 \
		${ZOO_SWITCHES:---materialized-views --sasi --udf --cdc} >"test-artifacts/versions-start-${1/./}.log" 2>&1
}

# run_version SERIES START_PID NEXT: waits for SERIES' cluster (started as
# START_PID), loads the fixtures, starts NEXT's cluster in the background
# (NEXT_PID; its start overlaps these acceptance tests, which mostly wait on
# sampler windows and nodetool), then runs them and stops the cluster.
run_version() {
	local series=$1 start_pid=$2 next=$3 dir version hosts
	dir=$(dir_of "$series")
	hosts=$(hosts_of "$series")

	step "Cassandra $series: start 2 nodes on $hosts"
	# (set -e does not apply inside a function called with ||: each step says when to stop)
	local up=0
	wait "$start_pid" || up=$?
	cat "test-artifacts/versions-start-${series/./}.log"
	[ "$up" = 0 ] || { "$CLUSTER" down --dir "$dir" || true; return 1; }
	version=$(sed -n 's/^VERSION=//p' "$dir/cluster.env")

	step "Cassandra $version: load fixtures"
	"$FIXTURES" --dir "$dir" load --large-mib "$LARGE_MIB" || { "$CLUSTER" down --dir "$dir" || true; return 1; }
	if [ "$series" != 4.0 ]; then
		# system.top_partitions exists from 4.1 on (CASSANDRA-16310) and is written hourly.
		"$FIXTURES" --dir "$dir" top-partitions || { "$CLUSTER" down --dir "$dir" || true; return 1; }
	fi
	if [ -n "$next" ]; then
		start_version "$next" &
		NEXT_PID=$!
		echo "== Cassandra $next: starting beside these tests (test-artifacts/versions-start-${next/./}.log)"
	fi

	step "Cassandra $version: acceptance tests"
	# Every package runs even when one fails: one run tells all there is to know.
	local failed=0
	PARTMON_CLUSTER_DIR=$dir PARTMON_TEST_HOSTS=$hosts go test -count=1 -json -tags integration -timeout 30m -p 1 \
		-run "$COLLECTOR_TESTS" ./collector/ 2>&1 | "$TESTSUMMARY" -times "$TEST_TIMES" -label "$version" | tag "$version" | tee -a "$GOLOG" || failed=1
	PARTMON_CLUSTER_DIR=$dir PARTMON_TEST_HOSTS=$hosts go test -count=1 -json -tags integration -timeout 10m -p 1 \
		-run "$RING_TESTS" ./ring/ 2>&1 | "$TESTSUMMARY" -times "$TEST_TIMES" -label "$version" | tag "$version" | tee -a "$GOLOG" || failed=1
	PARTMON_CLUSTER_DIR=$dir PARTMON_TEST_HOSTS=$hosts go test -count=1 -json -tags integration -timeout 20m -p 1 \
		-run "$ANALYZER_TESTS" ./analyzer/ 2>&1 | "$TESTSUMMARY" -times "$TEST_TIMES" -label "$version" | tag "$version" | tee -a "$GOLOG" || failed=1
	PARTMON_CLUSTER_DIR=$dir PARTMON_TEST_HOSTS=$hosts go test -count=1 -json -tags integration -timeout 10m -p 1 \
		-run "$TESTCLUSTER_TESTS" ./tools/testcluster/ 2>&1 | "$TESTSUMMARY" -times "$TEST_TIMES" -label "$version" | tag "$version" | tee -a "$GOLOG" || failed=1
	PARTMON_CLUSTER_DIR=$dir PARTMON_TEST_HOSTS=$hosts go test -count=1 -json -tags integration -timeout 15m -p 1 \
		-run "$E2E_TESTS" ./e2e/ 2>&1 | "$TESTSUMMARY" -times "$TEST_TIMES" -label "$version" | tag "$version" | tee -a "$GOLOG" || failed=1

	step "Cassandra $version: stop"
	"$CLUSTER" down --dir "$dir" || failed=1
	return "$failed"
}

# tag VERSION: go test output with each package result line marked with the Cassandra release.
tag() { sed -u -E "/^(ok|FAIL)([[:space:]]|$)/ s/\$/ [Cassandra $1]/"; }

series=("$@")
[ ${#series[@]} -gt 0 ] || series=(4.1 4.0)
for s in "${series[@]}"; do
	first_ip "$s" >/dev/null
done
# Every cluster comes down on the way out, a start under way stopped first.
stop_all() {
	local s
	jobs -p | xargs -r kill 2>/dev/null || true
	wait 2>/dev/null || true
	for s in "${series[@]}"; do "$CLUSTER" down --dir "$(dir_of "$s")" >/dev/null 2>&1 || true; done
}
trap stop_all EXIT
trap 'exit 143' TERM INT
failed=()
start_version "${series[0]}" &
pid=$!
for i in "${!series[@]}"; do
	next=${series[$((i + 1))]:-}
	NEXT_PID=
	run_version "${series[$i]}" "$pid" "$next" || failed+=("${series[$i]}")
	if [ -n "$next" ] && [ -z "$NEXT_PID" ]; then
		# This version stopped before its tests: the next starts now.
		start_version "$next" &
		NEXT_PID=$!
	fi
	pid=$NEXT_PID
done
step ""
if [ ${#failed[@]} -gt 0 ]; then
	echo "test-versions: acceptance tests failed on Cassandra ${failed[*]} (test lines tagged in $GOLOG)"
	exit 1
fi
