#!/usr/bin/env bash
# The real-cluster acceptance suite on Cassandra 4.1 and 4.0 (make test runs it on 5.0 itself;
# scripts/test-all.sh calls this after that). For each version: a 2-node cluster of its own, the
# fixtures with their planted problems, then the acceptance tests against that cluster:
#   every source ok or unsupported with the version's reason, the latency unit against that
#   node's nodetool, sizes and counts against tablestats, top partitions against tablestats
#   (4.1), ownership against nodetool status, the planted problems found.
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

# Addresses of their own, clear of the 5.0 suite (127.0.0.1-12) and of each other.
first_ip() {
	case $1 in
		4.1) echo 127.0.0.21 ;;
		4.0) echo 127.0.0.31 ;;
		*) echo "test-versions: no addresses for Cassandra $1 (use 4.1 or 4.0)" >&2; return 1 ;;
	esac
}

# stop_cluster DIR: down, and no longer on the exit trap.
stop_cluster() {
	"$CLUSTER" down --dir "$1" || return 1
	trap - EXIT
}

run_version() {
	local series=$1 ip dir version hosts
	ip=$(first_ip "$series")
	dir=$PWD/.cluster-${series/./}
	hosts="$ip,${ip%.*}.$((${ip##*.} + 1))"

	# Two nodes, the fewest these tests need (a hot key's replica and a node
	# that is not; a wide key read whole on one node and paged on another).
	# What a third node adds (replication over part of the ring, folding
	# over three replicas) is the 5.0 suite's; here each version's sources,
	# parsers and units are what is proven, and a third node cost ~1/3 more
	# CPU in every step (the box is the limit).
	step "Cassandra $series: start 2 nodes on $hosts"
	# Expanded now: the trap runs outside this function, where $dir is gone.
	# shellcheck disable=SC2064
	trap "\"$CLUSTER\" down --dir \"$dir\" || true" EXIT
	"$CLUSTER" down --dir "$dir" >/dev/null 2>&1 || true
	# (set -e does not apply inside a function called with ||: each step says when to stop)
	# 16 allocated tokens a node, as 4.0 and 4.1 ship (docs/versions.md "Rings").
	"$CLUSTER" up --version "$series" --first-ip "$ip" --dir "$dir" --nodes 2 --heap 512M --num-tokens 16 \
		${ZOO_SWITCHES:---materialized-views --sasi --udf --cdc} || { stop_cluster "$dir"; return 1; }
	version=$(sed -n 's/^VERSION=//p' "$dir/cluster.env")

	step "Cassandra $version: load fixtures"
	"$FIXTURES" --dir "$dir" load --large-mib "$LARGE_MIB" || { stop_cluster "$dir"; return 1; }
	if [ "$series" != 4.0 ]; then
		# system.top_partitions exists from 4.1 on (CASSANDRA-16310) and is written hourly.
		"$FIXTURES" --dir "$dir" top-partitions || { stop_cluster "$dir"; return 1; }
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
	stop_cluster "$dir" || failed=1
	return "$failed"
}

# tag VERSION: go test output with each package result line marked with the Cassandra release.
tag() { sed -u -E "/^(ok|FAIL)([[:space:]]|$)/ s/\$/ [Cassandra $1]/"; }

series=("$@")
[ ${#series[@]} -gt 0 ] || series=(4.1 4.0)
for s in "${series[@]}"; do
	first_ip "$s" >/dev/null
done
failed=()
for s in "${series[@]}"; do
	run_version "$s" || failed+=("$s")
done
step ""
if [ ${#failed[@]} -gt 0 ]; then
	echo "test-versions: acceptance tests failed on Cassandra ${failed[*]} (test lines tagged in $GOLOG)"
	exit 1
fi
