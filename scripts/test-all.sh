#!/usr/bin/env bash
# make test: lint, unit tests, alert-rule tests, then integration and end-to-end
# tests against a real local Cassandra 5.0 cluster that this script starts and stops,
# then the acceptance suite on Cassandra 4.1 and 4.0 clusters of their own
# (scripts/test-versions.sh; PARTMON_TEST_VERSIONS="4.1" picks, "" leaves them out).
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=deploy/local/cluster
FIXTURES=deploy/local/fixtures
export PARTMON_CLUSTER_DIR=${PARTMON_CLUSTER_DIR:-$PWD/.cluster}
# The fixture cluster's first address (PARTMON_TEST_FIRST_IP moves it off
# 127.0.0.1-3, e.g. beside a running demo).
FIRST_IP=${PARTMON_TEST_FIRST_IP:-127.0.0.1}
IFS=. read -r ip_a ip_b ip_c ip_d <<<"$FIRST_IP"
export PARTMON_TEST_HOSTS=${PARTMON_TEST_HOSTS:-$FIRST_IP,$ip_a.$ip_b.$ip_c.$((ip_d + 1)),$ip_a.$ip_b.$ip_c.$((ip_d + 2))}
# Tests that need a tool (promtool, chromium) fail instead of skipping without it.
export PARTMON_REQUIRE_TOOLS=1
mkdir -p test-artifacts
GOLOG=test-artifacts/go-test.log
: >"$GOLOG"

step_start=$(date +%s)
step() {
	local now; now=$(date +%s)
	[ -n "${STEP:-}" ] && echo "== '$STEP' took $((now - step_start)) s"
	STEP=$1; step_start=$now
	echo "== $STEP"
}

# python3: pip installs the Java 11 runtime Cassandra 4.x needs (deploy/local/cluster);
# bc: the cluster and fixture scripts' arithmetic; chromium: the browser tests.
for tool in java mvn go python3 bc promtool prometheus prometheus-alertmanager chromium; do
	command -v "$tool" >/dev/null || { echo "make test needs $tool on PATH (.ci/run installs it; see README)"; exit 1; }
done
# go test -json through testsummary: go test's usual lines, and a count of the
# packages that really ran a test (one whose every test skipped is counted apart).
TESTSUMMARY=$PWD/test-artifacts/testsummary
go build -o "$TESTSUMMARY" ./cmd/testsummary
export TESTSUMMARY

step "lint (gofmt, go vet)"
make --no-print-directory lint

step "unit tests"
go test -count=1 -json ./... 2>&1 | "$TESTSUMMARY" | tee -a "$GOLOG"

step "alert rules (promtool)"
promtool check rules deploy/prometheus/partmon-alerts.yml
promtool test rules deploy/prometheus/partmon-alerts_test.yml

step "start the real Cassandra cluster"
cleanup() {
	echo "== stopping the test cluster"
	"$CLUSTER" down || true
}
trap cleanup EXIT
"$CLUSTER" up --first-ip "$FIRST_IP" --nodes 3

step "load fixtures with planted problems"
"$FIXTURES" load
# Cassandra writes system.top_partitions only hourly: repair, then persist
# through its own TopPartitionTracker.save (deploy/local/README.md).
"$FIXTURES" top-partitions

step "integration and end-to-end tests (real cluster, real Prometheus and Alertmanager)"
go test -count=1 -json -tags integration -timeout 40m -p 1 ./... 2>&1 | "$TESTSUMMARY" | tee -a "$GOLOG"

# The truth corpus's CI subset (docs/detection.md "Truth corpus"): six scenarios
# written from public references, three of them good designs that must stay
# silent, loaded beside the fixtures and judged against their truth and the
# real nodetool; a missed problem or a false finding above info fails.
step "truth corpus, CI subset (scripts/truth.sh --ci)"
TRUTH_OUT=$PWD/test-artifacts/truth scripts/truth.sh --ci

step "stop the balanced cluster"
"$CLUSTER" down

# Ownership against the real nodetool on an unbalanced ring with a repeated
# rack, where SimpleStrategy and NetworkTopologyStrategy really differ.
step "ownership on an unbalanced ring"
UNBAL_DIR=$PWD/.cluster-unbalanced
trap '"$CLUSTER" down --dir "$UNBAL_DIR" || true' EXIT
"$CLUSTER" up --first-ip 127.0.0.10 --dir "$UNBAL_DIR" --nodes 3 --heap 512M \
	--tokens=-9000000000000000000,-7000000000000000000,2000000000000000000 --topology dc1:r1,dc1:r1,dc1:r2
PARTMON_TEST_UNBALANCED_HOSTS=127.0.0.10,127.0.0.11,127.0.0.12 PARTMON_TEST_UNBALANCED_DIR=$UNBAL_DIR \
	go test -count=1 -json -tags integration -run TestOwnershipMatchesNodetoolUnbalanced ./analyzer/ 2>&1 | "$TESTSUMMARY" -v | tee -a "$GOLOG" | tail -20
"$CLUSTER" down --dir "$UNBAL_DIR"
trap - EXIT

# The same acceptance tests on the other supported versions, each on a 3-node
# cluster of its own (4.1 on 127.0.0.21-23, 4.0 on 127.0.0.31-33); their go test
# lines go to the same log, tagged with the Cassandra release.
versions=${PARTMON_TEST_VERSIONS-4.1 4.0}
step "Cassandra ${versions:-4.x}: acceptance suite (scripts/test-versions.sh)"
if [ -n "$versions" ]; then
	# shellcheck disable=SC2086
	GOLOG=$GOLOG scripts/test-versions.sh $versions
else
	echo "left out: PARTMON_TEST_VERSIONS is empty"
fi

# Keys from Cassandra's own warnings read through the log file on 4.x (the main
# integration step ran the same test on a fresh 5.0 node): one fresh node of each
# on 127.0.0.44 and 127.0.0.47, never repaired, no sampler.
logs_versions=${PARTMON_LOGS_VERSIONS-4.1 4.0}
step "partition keys from Cassandra's logs on fresh ${logs_versions:-4.x} nodes"
if [ -n "$logs_versions" ]; then
	PARTMON_LOGS_VERSIONS="$logs_versions" go test -count=1 -json -tags integration -timeout 40m -p 1 \
		-run '^TestLogsOnAFreshCluster$' ./e2e/ 2>&1 | "$TESTSUMMARY" | sed -u -E "/^(ok|FAIL)([[:space:]]|\$)/ s/\$/ [logs on Cassandra $logs_versions]/" | tee -a "$GOLOG"
else
	echo "left out: PARTMON_LOGS_VERSIONS is empty"
fi

step "done"
# One closing line for whoever reads the end of the log: packages that ran a
# test and passed, failed, and those whose every test skipped.
"$TESTSUMMARY" -total "$GOLOG"
