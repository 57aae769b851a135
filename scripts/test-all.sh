#!/usr/bin/env bash
# make test: lint, unit tests, alert-rule tests, then integration and end-to-end
# tests against real local Cassandra clusters that this script starts and stops.
# Three chains run side by side, each on clusters of its own, so that one's
# waiting (cluster starts, fixture loads, sampler windows) is another's work:
#   main (this shell): lint, unit tests and promtool while the 5.0 cluster starts;
#     the fixtures; go test -tags integration of the packages with integration
#     tests against them; on 2 cores the truth corpus's CI subset on the same
#     cluster.
#   versions (scripts/test-versions.sh): the acceptance suite on Cassandra 4.1 and
#     4.0 (PARTMON_TEST_VERSIONS="4.1" picks, "" leaves it out).
#   side (scripts/test-side.sh): the guardrails, the key advisor, keys from the
#     logs of fresh 5.0 and 4.x nodes, ownership on an unbalanced ring, skew on a fresh
#     ring, in two lanes of one small cluster each, and (side by side) the
#     truth subset on nodes of its own.
# With 4 or more cores (PARTMON_TEST_PARALLEL=1) the side chains start once the
# unit tests pass and the 5.0 cluster is up. On 2 cores (PARTMON_TEST_PARALLEL=serial)
# they run after the main chain, one after the other, and so do the side
# chain's lanes: run side by side (PARTMON_TEST_PARALLEL=0) the 4.x chain and
# the two lanes kept 2 cores busy, the disk guardrail forecast, which is paced
# in real time, missed its tolerance (28 s against 25.7 s), and the run was no
# shorter (2,380 s to the failure). Their logs are printed whole at the end.
# Where the time went: each step's "took N s", the CPU each cluster's nodes
# used (at `cluster down`), and the slowest tests at the end
# (test-artifacts/test-times.tsv).
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
SIDE_GOLOG=$PWD/test-artifacts/go-test-side.log
SIDE_LOG=test-artifacts/side.log
VERSIONS_GOLOG=$PWD/test-artifacts/go-test-versions.log
VERSIONS_LOG=test-artifacts/versions.log
export TEST_TIMES=$PWD/test-artifacts/test-times.tsv
# go test's JSON events, with their times and every test's log (testsummary
# appends them; each side chain to a file of its own): where a slow run's
# minutes went.
export TEST_JSON=$PWD/test-artifacts/go-test.json
VERSIONS_JSON=${TEST_JSON%.json}-versions.json
SIDE_JSON=${TEST_JSON%.json}-side.json
: >"$GOLOG"
: >"$SIDE_GOLOG"
: >"$VERSIONS_GOLOG"
: >"$TEST_TIMES"
: >"$TEST_JSON"
: >"$VERSIONS_JSON"
: >"$SIDE_JSON"
t0=$(date +%s)

# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# python3: pip installs the Java 11 runtime Cassandra 4.x needs (deploy/local/cluster);
# bc: the cluster script's arithmetic; chromium: the browser tests.
for tool in java mvn go python3 bc promtool prometheus prometheus-alertmanager chromium setsid; do
	command -v "$tool" >/dev/null || { echo "make test needs $tool on PATH (.ci/run installs it; see README)"; exit 1; }
done
# go test -json through testsummary: go test's usual lines, and a count of the
# packages that really ran a test (one whose every test skipped is counted apart).
TESTSUMMARY=$PWD/test-artifacts/testsummary
go build -o "$TESTSUMMARY" ./tools/cmd/testsummary
export TESTSUMMARY

# The 5.0 cluster starts while lint and the unit tests run; its log says how it
# went. Each release's jars are fetched first, one after the other (a no-op once
# cached): two Maven runs at once would share ~/.m2, which Maven does not lock.
# 16 allocated tokens a node, as 4.0+ ships and users run (deploy/local/README.md, "Rings").
START_LOG=test-artifacts/cluster-start.log
# The cassandra.yaml switches a user's cluster may have on (off as Cassandra
# ships them): the schema zoo (e2e TestSchemaZoo) plants views, SASI, a UDF
# and a CDC table on the fixture cluster and on each 4.x cluster.
ZOO_SWITCHES="--materialized-views --sasi --udf --cdc"
export ZOO_SWITCHES
{
	"$CLUSTER" fetch --version 4.1 && "$CLUSTER" fetch --version 4.0 &&
		"$CLUSTER" up --first-ip "$FIRST_IP" --nodes 3 --num-tokens 16 $ZOO_SWITCHES
} >"$START_LOG" 2>&1 &
start_pid=$!
chain_pids=() chain_names=()

# Stopping early (a failed step, Ctrl-C, CI's timeout): the side chains are
# stopped (their clusters come down on their own EXIT traps), then the 5.0 cluster.
cleanup() {
	local rc=$? pid
	trap - EXIT INT TERM
	for pid in "${chain_pids[@]}"; do
		if kill -0 "$pid" 2>/dev/null; then
			echo "== stopping a side chain (logs: $VERSIONS_LOG, $SIDE_LOG)"
			kill -TERM -- "-$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
		fi
	done
	[ -z "$start_pid" ] || wait "$start_pid" 2>/dev/null || true
	echo "== stopping the 5.0 test cluster"
	"$CLUSTER" down || true
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step "lint (gofmt, go vet, golangci-lint)"
make --no-print-directory lint

step "unit tests"
go test -count=1 -json ./... 2>&1 | "$TESTSUMMARY" -times "$TEST_TIMES" -label unit | tee -a "$GOLOG"

# The seed corpora ran above with the unit tests; this explores a little
# further: snapshots of every shape into the analyzer and its reports into every
# output (docs/operations.md, "Fuzzing the analyzer and its outputs"). Each
# target is bounded by executions, not by time: Go 1.26's coordinator can
# report a duration-bounded -fuzztime's own deadline as a failure when its
# workers are slow to stop (golang/go#75804, fixed in 1.27), which a busy box
# (the 5.0 cluster starts beside this step) makes likely. A count has no
# deadline to race: contention only makes the step longer (7 s and 14 s on
# this project's 2-core box beside the starting cluster; docs/operations.md). A
# failing input is written to testdata/fuzz/ and fails the run; commit it
# with the fix.
step "fuzz the analyzer and the outputs"
go test -run '^$' -fuzz '^FuzzAnalyze$' -fuzztime 60000x -fuzzminimizetime 500x ./analyzer/ 2>&1 | tee -a "$GOLOG"
go test -run '^$' -fuzz '^FuzzOutputs$' -fuzztime 5000x -fuzzminimizetime 100x ./tools/outputfuzz/ 2>&1 | tee -a "$GOLOG"
# Keys holding newlines, quotes, markdown, HTML and invalid UTF-8 through
# every output with keys hidden: no piece of one may show (300 inputs took
# 14 s on a loaded 2-core box), and the profileload parser's errors the same
# way (docs/operations.md "Keys and privacy").
go test -run '^$' -fuzz '^FuzzHiddenKeys$' -fuzztime 300x -fuzzminimizetime 100x ./tools/outputfuzz/ 2>&1 | tee -a "$GOLOG"
go test -run '^$' -fuzz '^FuzzProfileloadErrorsNameNoKey$' -fuzztime 2000x -fuzzminimizetime 100x ./collector/internal/nodetool/ 2>&1 | tee -a "$GOLOG"

step "Kubernetes manifests (deploy/kubernetes/manifestcheck, a module of its own)"
(cd deploy/kubernetes/manifestcheck && go test -count=1 -json ./... 2>&1) | "$TESTSUMMARY" -times "$TEST_TIMES" -label manifestcheck | tee -a "$GOLOG"

step "alert rules (promtool)"
promtool check rules deploy/prometheus/partmon-alerts.yml
promtool test rules deploy/prometheus/partmon-alerts_test.yml

step "start the real Cassandra 5.0 cluster (started with the lint step)"
if ! wait "$start_pid"; then
	cat "$START_LOG"
	echo "make test: the 5.0 cluster did not start (above)"
	exit 1
fi
start_pid=
tail -1 "$START_LOG"

# The side chains, each in a session of its own (setsid) so that it can be
# stopped as one; their output goes to their logs. With 4 cores or more they
# start here; on 2, after the main chain (below).
PARALLEL=${PARTMON_TEST_PARALLEL:-$([ "$(nproc)" -ge 4 ] && echo 1 || echo serial)}
versions=${PARTMON_TEST_VERSIONS-4.1 4.0}
: >"$VERSIONS_LOG"
start_chains() {
	if [ -n "$versions" ]; then
		# shellcheck disable=SC2086
		GOLOG=$VERSIONS_GOLOG TEST_JSON=$VERSIONS_JSON setsid scripts/test-versions.sh $versions >"$VERSIONS_LOG" 2>&1 &
		chain_pids+=($!) chain_names+=(versions)
		echo "== versions chain started (acceptance on Cassandra $versions): $VERSIONS_LOG"
		[ "$PARALLEL" != serial ] || wait_chain "${#chain_pids[@]}"
	else
		echo "== versions chain left out: PARTMON_TEST_VERSIONS is empty"
	fi
	GOLOG=$SIDE_GOLOG TEST_JSON=$SIDE_JSON PARTMON_SIDE_TRUTH=$([ "$PARALLEL" = 1 ] && echo 1 || echo 0) \
		PARTMON_SIDE_LANES=${PARTMON_SIDE_LANES:-$([ "$PARALLEL" = serial ] && echo 1 || echo 2)} setsid scripts/test-side.sh >"$SIDE_LOG" 2>&1 &
	chain_pids+=($!) chain_names+=(side)
	echo "== side chain started (guardrails, key advisor, logs, rings$([ "$PARALLEL" = 1 ] && echo ", truth subset")): $SIDE_LOG"
	[ "$PARALLEL" != serial ] || wait_chain "${#chain_pids[@]}"
}
chains_failed=()
# wait_chain N: waits for the Nth chain started (1-based).
wait_chain() {
	local i=$(($1 - 1))
	wait "${chain_pids[$i]}" || chains_failed+=("${chain_names[$i]}")
}
if [ "$PARALLEL" = 1 ]; then
	start_chains
else
	echo "== side chains after the main chain ($(nproc) cores, PARTMON_TEST_PARALLEL=$PARALLEL; =1 runs them beside it, =0 side by side after it)"
fi

step "load fixtures with planted problems"
"$FIXTURES" load
# Cassandra writes system.top_partitions only hourly: repair, then persist
# through its own TopPartitionTracker.save (deploy/local/README.md).
"$FIXTURES" top-partitions

step "integration and end-to-end tests (real cluster, real Prometheus and Alertmanager)"
# The packages with integration tests (internal/suitecheck fails if one is
# missing here): ./... built and ran every other package's unit tests again.
# ./reliability is make faults' (scripts/faults.sh). Two e2e tests run in the
# side chain only (scripts/test-side.sh), on nodes of their own:
# TestBusySamplerIsNotStale with auth (its other client's profileload keeps a
# node's sampler busy for up to 10 minutes: here, the fixture cluster's first
# node for the tests after it), and TestLogsOnAFreshCluster on 5.0 with 4.1 and 4.0
# (a fresh node's start and a 50 MiB partition, off this chain).
go test -count=1 -json -tags integration -timeout 40m -p 1 -skip '^(TestBusySamplerIsNotStale|TestLogsOnAFreshCluster)$' ./analyzer/ ./collector/ ./dashboards/ ./deploy/ \
	./deploy/alertmanager/ ./e2e/ ./internal/murmur3/ ./ring/ ./tools/testcluster/ ./web/ 2>&1 |
	"$TESTSUMMARY" -times "$TEST_TIMES" -label integration | tee -a "$GOLOG"

# README's first screen as a new user runs it (94 s on 2 cores): install, one config,
# the first report, the sidecar, on a fresh clone against the fixtures.
step "README's user path (scripts/readme-path.sh)"
scripts/readme-path.sh

# The truth corpus's CI subset (docs/detection.md "Truth corpus"): six scenarios
# written from public references, three of them good designs that must stay
# silent, judged against their truth and the real nodetool. It needs no
# fixtures and judges only its own keyspaces, so on 2 cores it runs here, on
# the fixture cluster: a cluster of its own cost ~80 s more (its start and
# ~200 s of CPU per node). Side by side, the side chain runs it on its own nodes.
if [ "$PARALLEL" != 1 ]; then
	step "truth corpus, CI subset, on the fixture cluster"
	TRUTH_OUT=$PWD/test-artifacts/truth scripts/truth.sh --ci
fi

step "stop the 5.0 cluster"
"$CLUSTER" down

if [ "$PARALLEL" = 1 ]; then
	step "wait for the side chains"
else
	step "the side chains, $([ "$PARALLEL" = serial ] && echo "one after the other" || echo "side by side")"
	start_chains
fi
if [ "$PARALLEL" != serial ]; then
	for i in "${!chain_pids[@]}"; do
		wait_chain $((i + 1))
	done
fi
chain_pids=()
for log in "$VERSIONS_LOG" "$SIDE_LOG"; do
	echo "---- $log ----"
	cat "$log"
done
echo "---- end of the side chains ----"
cat "$VERSIONS_GOLOG" "$SIDE_GOLOG" >>"$GOLOG"

step "done"
echo "make test took $(($(date +%s) - t0)) s; the slowest tests:"
"$TESTSUMMARY" -slowest 15 "$TEST_TIMES"
# One closing line for whoever reads the end of the log: packages that ran a
# test and passed, failed, and those whose every test skipped.
"$TESTSUMMARY" -total "$GOLOG"
[ ${#chains_failed[@]} = 0 ] || { echo "make test: the ${chains_failed[*]} chain failed (its log above)"; exit 1; }
