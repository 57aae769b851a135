#!/usr/bin/env bash
# A side chain of make test: what runs on small Cassandra clusters of its own,
# apart from the 5.0 suite and the 4.x acceptance suite (scripts/test-all.sh
# runs it beside the 4.x chain after the 5.0 suite on 2 cores, beside both on
# 4 or more; it can also run alone). Two lanes side by side, each one cluster
# at a time (PARTMON_SIDE_LANES=1 runs them one after the other): most of
# these tests wait on Cassandra in real time (a key, a set or a disk growing
# at a pace) and leave the CPU idle.
#   lane A, the 5.0 node with auth and write guardrails, then fresh 4.x nodes:
#     1. a write refused by collection_size, forecast from Cassandra's own
#        warnings; a one-shot report beside another client's sampling (busy,
#        not stale); then a write refused by the disk-usage guardrail, forecast
#        (one fresh 5.0 node with auth, $DISK_IP),
#     2. the collection guardrails on a fresh 4.1 node with auth ($WGUARD_IP),
#     3. partition keys from Cassandra's logs on fresh 5.0, 4.1 and 4.0 nodes
#        (PARTMON_LOGS_IPS, default 127.0.0.41, .44 and .47),
#   lane B, the rings and the partition_size guardrail:
#     0. the truth corpus's CI subset (scripts/truth.sh --ci) on a 3-node 5.0
#        cluster of its own ($TRUTH_IP and the next two), then taken down; left
#        out with PARTMON_SIDE_TRUTH=0 (make test on 2 cores runs it on the
#        fixture cluster),
#     1. guardrail crossings forecast on a fresh 5.0 node with partition_size
#        set, then the key advisor's truth and limits on the same node ($GUARD_IP),
#     2. ownership against the real nodetool on an unbalanced ring ($UNBAL_IP and the next two),
#     3. load and ownership skew on a fresh, nearly empty 3-node ring of random
#        tokens ($SKEW_IP and the next two).
# Every step runs even when one fails; exits 1 if any failed. Go test lines go to
# $GOLOG (default test-artifacts/go-test-side.log), test times to $TEST_TIMES.
#   PARTMON_LOGS_VERSIONS  "5.0 4.1 4.0" (default), "4.1", or "" to leave the logs step out
#   PARTMON_SIDE_{TRUTH,UNBALANCED,GUARDRAIL,DISK,WGUARD,SKEW}_IP  each cluster's first
#     address (defaults below), e.g. to run a step beside a running make test
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=deploy/local/cluster
mkdir -p test-artifacts
export GOLOG=${GOLOG:-$PWD/test-artifacts/go-test-side.log}
export TEST_TIMES=${TEST_TIMES:-$PWD/test-artifacts/test-times.tsv}
if [ -z "${TESTSUMMARY:-}" ]; then
	TESTSUMMARY=$PWD/test-artifacts/testsummary
	go build -o "$TESTSUMMARY" ./tools/cmd/testsummary
	export TESTSUMMARY
fi
# Each step names its own cluster: none of make test's 5.0 cluster settings apply.
unset PARTMON_CLUSTER_DIR PARTMON_TEST_HOSTS
UNBAL_DIR=$PWD/.cluster-unbalanced
TRUTH_DIR=$PWD/.cluster-truth-ci
GUARD_DIR=$PWD/.cluster-guardrails
DISK_DIR=$PWD/.cluster-disk
WGUARD_DIR=$PWD/.cluster-write-guardrails
SKEW_DIR=$PWD/.cluster-skew
# Addresses clear of the 5.0 suite (127.0.0.1-3), the 4.x chain (127.0.0.21-32)
# and the fresh log nodes (127.0.0.41-47).
TRUTH_IP=${PARTMON_SIDE_TRUTH_IP:-127.0.0.14}
UNBAL_IP=${PARTMON_SIDE_UNBALANCED_IP:-127.0.0.10}
GUARD_IP=${PARTMON_SIDE_GUARDRAIL_IP:-127.0.0.57}
DISK_IP=${PARTMON_SIDE_DISK_IP:-127.0.0.151}
WGUARD_IP=${PARTMON_SIDE_WGUARD_IP:-127.0.0.166}
SKEW_IP=${PARTMON_SIDE_SKEW_IP:-127.0.0.161}
# ip_plus IP N: the address N after IP.
ip_plus() { echo "${1%.*}.$((${1##*.} + $2))"; }

STEP_PREFIX="side: "
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# A TERM (make test stopping early) still takes the clusters down: the EXIT trap.
trap 'exit 143' TERM INT
trap '"$CLUSTER" down --dir "$TRUTH_DIR" >/dev/null 2>&1 || true; "$CLUSTER" down --dir "$UNBAL_DIR" >/dev/null 2>&1 || true; "$CLUSTER" down --dir "$GUARD_DIR" >/dev/null 2>&1 || true; "$CLUSTER" down --dir "$DISK_DIR" >/dev/null 2>&1 || true; "$CLUSTER" down --dir "$WGUARD_DIR" >/dev/null 2>&1 || true; "$CLUSTER" down --dir "$SKEW_DIR" >/dev/null 2>&1 || true' EXIT

# The failed steps, one a line: the lanes are subshells.
FAILED=$(mktemp "${TMPDIR:-/tmp}/partmon-side-failed.XXXXXX")
fail() { echo "$1" >>"$FAILED"; }

# The truth corpus's CI subset (docs/detection.md "Truth corpus"): six scenarios
# written from public references, three of them good designs that must stay
# silent, judged against their truth and the real nodetool; a missed problem or
# a false finding above info fails. A cluster of its own, as make truth's: the
# scenarios need no fixtures, and the 5.0 suite's sampler tests no other traffic.
side_truth() {
	step "truth corpus, CI subset, on 5.0 nodes of its own ($TRUTH_IP-$(ip_plus "$TRUTH_IP" 2))"
	if "$CLUSTER" up --first-ip "$TRUTH_IP" --dir "$TRUTH_DIR" --nodes 3 --num-tokens 16; then
		PARTMON_CLUSTER_DIR=$TRUTH_DIR TRUTH_OUT=$PWD/test-artifacts/truth scripts/truth.sh --ci ||
			fail "truth corpus CI subset"
	else
		fail "starting the truth subset's cluster"
	fi
	"$CLUSTER" down --dir "$TRUTH_DIR" || true
}

# Keys from Cassandra's own warnings read through the log file (and on 5.0
# through system_views.system_logs): one fresh node of each version
# (PARTMON_LOGS_IPS, default 127.0.0.41, .44 and .47), never repaired, no
# sampler. Here rather than in the main integration step (which skips it): a
# node's start and a 50 MiB partition off the main chain.
side_logs() {
	local logs_versions=${PARTMON_LOGS_VERSIONS-5.0 4.1 4.0}
	step "partition keys from Cassandra's logs on fresh ${logs_versions:-} nodes"
	if [ -n "$logs_versions" ]; then
		PARTMON_LOGS_VERSIONS="$logs_versions" go test -count=1 -json -tags integration -timeout 40m -p 1 \
			-run '^TestLogsOnAFreshCluster$' ./e2e/ 2>&1 |
			"$TESTSUMMARY" -no-skip -times "$TEST_TIMES" -label "logs $logs_versions" |
			sed -u -E "/^(ok|FAIL)([[:space:]]|\$)/ s/\$/ [logs on Cassandra $logs_versions]/" | tee -a "$GOLOG" ||
			fail "logs on $logs_versions"
	else
		echo "left out: PARTMON_LOGS_VERSIONS is empty"
	fi
}

# Ownership against the real nodetool on an unbalanced ring with a repeated
# rack, where SimpleStrategy and NetworkTopologyStrategy really differ. One
# hand-picked token a node on purpose: the test needs a ring known to be
# unbalanced (50/10/40 %); the fixture cluster's 16-token ring is the other case.
side_unbalanced() {
	step "ownership on an unbalanced ring ($UNBAL_IP-$(ip_plus "$UNBAL_IP" 2))"
	if "$CLUSTER" up --first-ip "$UNBAL_IP" --dir "$UNBAL_DIR" --nodes 3 --heap 512M \
		--tokens=-9000000000000000000,-7000000000000000000,2000000000000000000 --topology dc1:r1,dc1:r1,dc1:r2; then
		PARTMON_TEST_UNBALANCED_HOSTS=$UNBAL_IP,$(ip_plus "$UNBAL_IP" 1),$(ip_plus "$UNBAL_IP" 2) PARTMON_TEST_UNBALANCED_DIR=$UNBAL_DIR \
			go test -count=1 -json -tags integration -run TestOwnershipMatchesNodetoolUnbalanced ./ring/ 2>&1 |
			"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "unbalanced ring" | tee -a "$GOLOG" | tail -20 ||
			fail "ownership on an unbalanced ring"
	else
		fail "starting the unbalanced ring"
	fi
	"$CLUSTER" down --dir "$UNBAL_DIR" || true
}

# A planted key growing toward partition_size's warn (8 MiB) and fail (16 MiB)
# levels, set through Cassandra 5.0's -Dcassandra.settings.* (the fixture
# cluster runs with a warn level only, so the main run skips this test and says
# why): the forecast held to the crossing Cassandra logs (docs/detection.md).
side_guardrail() {
	step "guardrail crossing forecast, then the key advisor, on a fresh 5.0 node with guardrails set ($GUARD_IP)"
	if PARTMON_NODE_JVM_OPTS="-Dcassandra.config.allow_system_properties=true -Dcassandra.settings.partition_size_warn_threshold=8MiB -Dcassandra.settings.partition_size_fail_threshold=16MiB" \
		"$CLUSTER" up --first-ip "$GUARD_IP" --dir "$GUARD_DIR" --nodes 1 --heap 512M; then
		PARTMON_CLUSTER_DIR=$GUARD_DIR go test -count=1 -json -tags integration -run '^TestGuardrailCrossingForecastOnRealNode$' ./analyzer/ 2>&1 |
			"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "guardrails" | tee -a "$GOLOG" | tail -20 ||
			fail "guardrail crossing forecast"
		# Then, on the same node (saving a node's start): the key advisor's
		# truth, its CI subset (keyadvice/testdata/truth.yaml: a bad design and
		# the good one; scripts/truth.sh --advise runs them all), each candidate
		# key built for real and held to tablestats, tablehistograms and
		# max_partition_size, and the sampler's rows-per-second and rows limits (about 210 s;
		# docs/detection.md#key-advisor). Its tables are its own keyspace's; the
		# partition_size levels only log.
		PARTMON_TRUTH_CI=1 PARTMON_CLUSTER_DIR=$GUARD_DIR go test -count=1 -json -tags integration -timeout 25m -run '^(TestKeyAdviceHeldToBuiltTables|TestKeySamplerHoldsItsLimits)$' ./keyadvice/ 2>&1 |
			"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "key advisor" | tee -a "$GOLOG" | tail -20 ||
			fail "key advisor truth"
	else
		fail "starting the guardrail node"
	fi
	"$CLUSTER" down --dir "$GUARD_DIR" || true
}

# The guardrails that refuse an ordinary role's write, on one fresh 5.0 node
# with auth ($DISK_IP), one test after the other:
# - collection_size and items_per_collection refuse a write whose collection
#   is past fail; Cassandra logs every figure past warn
#   (docs/sources.md#write-guardrail-lines). The test grows one set by
#   rewriting it every 1.5 s until the refusal (about 25 s); partmon reads
#   system_views.system_logs. First: the disk test below ends with the node
#   refusing every write.
# - data_disk_usage_percentage refuses every write: a 64 MiB cap
#   (data_disk_usage_max_disk_size) makes 70 % reachable in about 22 steps of
#   2 MiB, and Cassandra's disk check runs every second instead of every 30
#   (cassandra.disk_usage.monitor_interval_ms). partmon, as the node's
#   sidecar, must have forecast it (docs/sources.md#data-disk).
# One node for both saves a node's start (~35 s); the collection tables hold
# a few KiB of the 64 MiB.
WRITE_GUARDRAILS="-Dcassandra.settings.collection_size_warn_threshold=4KiB -Dcassandra.settings.collection_size_fail_threshold=8KiB -Dcassandra.settings.items_per_collection_warn_threshold=120 -Dcassandra.settings.items_per_collection_fail_threshold=240"
side_disk() {
	step "write guardrail refusals forecast on a fresh 5.0 node with auth ($DISK_IP): collections, a busy sampler, then the disk"
	if PARTMON_NODE_JVM_OPTS="-Dcassandra.config.allow_system_properties=true $WRITE_GUARDRAILS -Dcassandra.disk_usage.monitor_interval_ms=1000 -Dcassandra.settings.data_disk_usage_max_disk_size=64MiB -Dcassandra.settings.data_disk_usage_percentage_warn_threshold=50 -Dcassandra.settings.data_disk_usage_percentage_fail_threshold=70" \
		"$CLUSTER" up --first-ip "$DISK_IP" --dir "$DISK_DIR" --nodes 1 --auth --heap 512M; then
		PARTMON_CLUSTER_DIR=$DISK_DIR go test -count=1 -json -tags integration -run '^TestWriteGuardrailRefusalForecastOnRealNode$' ./analyzer/ 2>&1 |
			"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "write guardrail 5.0" | tee -a "$GOLOG" | tail -20 ||
			fail "write guardrail refusal forecast on 5.0"
		# Before the disk test, which ends with the node refusing writes: a
		# one-shot report beside another client's profileload on the same node,
		# the sampler busy, the node not stale (about 80 s). Here only: its
		# profileload keeps sampling the node for up to 10 minutes, and with
		# auth the report's collector logs in as a real sidecar does.
		PARTMON_CLUSTER_DIR=$DISK_DIR go test -count=1 -json -tags integration -run '^TestBusySamplerIsNotStale$' ./e2e/ 2>&1 |
			"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "busy sampler" | tee -a "$GOLOG" | tail -20 ||
			fail "busy sampler"
		PARTMON_CLUSTER_DIR=$DISK_DIR go test -count=1 -json -tags integration -run '^TestDiskGuardrailRefusalForecastOnRealNode$' ./analyzer/ 2>&1 |
			"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "disk guardrail" | tee -a "$GOLOG" | tail -20 ||
			fail "disk guardrail refusal forecast"
	else
		fail "starting the write guardrail node"
	fi
	"$CLUSTER" down --dir "$DISK_DIR" || true
}

# The collection guardrails on 4.1, read from the node's system.log as its
# sidecar (4.1 has no system_views.system_logs): about 60 s.
side_wguard41() {
	step "collection guardrail refusal forecast from the log on a fresh 4.1 node with auth ($WGUARD_IP)"
	if PARTMON_NODE_JVM_OPTS="-Dcassandra.config.allow_system_properties=true $WRITE_GUARDRAILS" \
		"$CLUSTER" up --version 4.1 --first-ip "$WGUARD_IP" --dir "$WGUARD_DIR" --nodes 1 --auth --heap 512M; then
		PARTMON_CLUSTER_DIR=$WGUARD_DIR go test -count=1 -json -tags integration -run '^TestWriteGuardrailRefusalForecastOnRealNode$' ./analyzer/ 2>&1 |
			"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "write guardrail 4.1" | tee -a "$GOLOG" | tail -20 ||
			fail "write guardrail refusal forecast on 4.1"
	else
		fail "starting the 4.1 write guardrail node"
	fi
	"$CLUSTER" down --dir "$WGUARD_DIR" || true
}

# Two keyspaces of one DC at RF 3 and RF 1, a few MB: one node flushed alone
# reads well above the load skew warning and is info (load_skew_min_mean_bytes);
# every ownership advice of the DC names the one allocator factor, 3. Each node
# gossips its load every 5 s instead of 60 (cassandra.broadcast_interval_ms):
# the test waits for the flushed node's load to reach the others.
side_skew() {
	step "load and ownership skew on a fresh 3-node ring of random tokens ($SKEW_IP-$(ip_plus "$SKEW_IP" 2))"
	if PARTMON_NODE_JVM_OPTS="-Dcassandra.broadcast_interval_ms=5000" "$CLUSTER" up --first-ip "$SKEW_IP" --dir "$SKEW_DIR" --nodes 3 --heap 512M --num-tokens 8 --token-allocation random \
		--topology dc1:r1,dc1:r1,dc1:r1; then
		PARTMON_CLUSTER_DIR=$SKEW_DIR go test -count=1 -json -tags integration -run '^TestSkewOnAFreshRing$' ./analyzer/ 2>&1 |
			"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "skew" | tee -a "$GOLOG" | tail -20 ||
			fail "load and ownership skew on a fresh ring"
	else
		fail "starting the skew ring"
	fi
	"$CLUSTER" down --dir "$SKEW_DIR" || true
}

lane_a() {
	side_disk
	side_wguard41
	side_logs
	step ""
}
lane_b() {
	if [ "${PARTMON_SIDE_TRUTH:-1}" = 1 ]; then side_truth; fi
	side_guardrail
	side_unbalanced
	side_skew
	step ""
}

if [ "${PARTMON_SIDE_LANES:-2}" = 1 ]; then
	lane_a
	lane_b
else
	# Each lane with go test lines, times and JSON events of its own (appended
	# here after both end), its output to a log printed whole at the end.
	for lane in a b; do
		(
			STEP_PREFIX="side $lane: "
			export GOLOG=$GOLOG.lane-$lane TEST_TIMES=$TEST_TIMES.lane-$lane
			: >"$GOLOG"
			: >"$TEST_TIMES"
			if [ -n "${TEST_JSON:-}" ]; then
				export TEST_JSON=$TEST_JSON.lane-$lane
				: >"$TEST_JSON"
			fi
			"lane_$lane"
		) >"test-artifacts/side-lane-$lane.log" 2>&1 &
		eval "lane_${lane}_pid=\$!"
	done
	echo "== side: lanes a (5.0 write guardrails, 4.1 collections, 4.x logs) and b (partition_size and key advisor, rings) side by side; logs in test-artifacts/side-lane-{a,b}.log"
	# shellcheck disable=SC2154
	wait "$lane_a_pid" || fail "lane a stopped early"
	# shellcheck disable=SC2154
	wait "$lane_b_pid" || fail "lane b stopped early"
	for lane in a b; do
		echo "---- side lane $lane ----"
		cat "test-artifacts/side-lane-$lane.log"
		cat "$GOLOG.lane-$lane" >>"$GOLOG" && rm -f "$GOLOG.lane-$lane"
		cat "$TEST_TIMES.lane-$lane" >>"$TEST_TIMES" && rm -f "$TEST_TIMES.lane-$lane"
		if [ -n "${TEST_JSON:-}" ]; then
			cat "$TEST_JSON.lane-$lane" >>"$TEST_JSON" && rm -f "$TEST_JSON.lane-$lane"
		fi
	done
fi

step ""
mapfile -t failed <"$FAILED"
rm -f "$FAILED"
if [ ${#failed[@]} -gt 0 ]; then
	echo "side: failed: ${failed[*]}"
	exit 1
fi
