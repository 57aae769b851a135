#!/usr/bin/env bash
# A side chain of make test: what runs on small Cassandra clusters of its own,
# apart from the 5.0 suite and the 4.x acceptance suite (scripts/test-all.sh
# runs it after them on 2 cores, beside them on 4 or more; it can also run alone):
#   1. the truth corpus's CI subset (scripts/truth.sh --ci) on a 3-node 5.0
#      cluster of its own on 127.0.0.14-16, then taken down; left out with
#      PARTMON_SIDE_TRUTH=0 (make test on 2 cores runs it on the fixture cluster),
#   2. partition keys from Cassandra's logs on fresh 4.1 and 4.0 nodes (127.0.0.44, .47),
#   3. ownership against the real nodetool on an unbalanced ring (127.0.0.10-12),
#   4. guardrail crossings forecast on a fresh 5.0 node with partition_size set (127.0.0.57),
#      then the key advisor's truth and limits on the same node,
#   5. a write refused by the disk-usage guardrail, forecast on a fresh 5.0 node with auth (127.0.0.151),
#   6. a write refused by collection_size, forecast from Cassandra's own warnings on the same 5.0
#      node (before the disk test) and on a fresh 4.1 node with auth (127.0.0.166); on the same 5.0
#      node a one-shot report beside another client's sampling (busy, not stale),
#   7. load and ownership skew on a fresh, nearly empty 3-node ring of random tokens (127.0.0.161-163).
# Every step runs even when one fails; exits 1 if any failed. Go test lines go to
# $GOLOG (default test-artifacts/go-test-side.log), test times to $TEST_TIMES.
#   PARTMON_LOGS_VERSIONS  "4.1 4.0" (default), "4.1", or "" to leave the logs step out
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

STEP_PREFIX="side: "
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
# A TERM (make test stopping early) still takes the clusters down: the EXIT trap.
trap 'exit 143' TERM INT
trap '"$CLUSTER" down --dir "$TRUTH_DIR" >/dev/null 2>&1 || true; "$CLUSTER" down --dir "$UNBAL_DIR" >/dev/null 2>&1 || true; "$CLUSTER" down --dir "$GUARD_DIR" >/dev/null 2>&1 || true; "$CLUSTER" down --dir "$DISK_DIR" >/dev/null 2>&1 || true; "$CLUSTER" down --dir "$WGUARD_DIR" >/dev/null 2>&1 || true; "$CLUSTER" down --dir "$SKEW_DIR" >/dev/null 2>&1 || true' EXIT

failed=()
# The truth corpus's CI subset (docs/detection.md "Truth corpus"): six scenarios
# written from public references, three of them good designs that must stay
# silent, judged against their truth and the real nodetool; a missed problem or
# a false finding above info fails. A cluster of its own, as make truth's: the
# scenarios need no fixtures, and the 5.0 suite's sampler tests no other traffic.
if [ "${PARTMON_SIDE_TRUTH:-1}" = 1 ]; then
	step "truth corpus, CI subset, on 5.0 nodes of its own (127.0.0.14-16)"
	if "$CLUSTER" up --first-ip 127.0.0.14 --dir "$TRUTH_DIR" --nodes 3 --num-tokens 16; then
		PARTMON_CLUSTER_DIR=$TRUTH_DIR TRUTH_OUT=$PWD/test-artifacts/truth scripts/truth.sh --ci ||
			failed+=("truth corpus CI subset")
	else
		failed+=("starting the truth subset's cluster")
	fi
	"$CLUSTER" down --dir "$TRUTH_DIR" || true
fi

# Keys from Cassandra's own warnings read through the log file on 4.x (the main
# integration step ran the same test on a fresh 5.0 node): one fresh node of each
# on 127.0.0.44 and 127.0.0.47, never repaired, no sampler.
logs_versions=${PARTMON_LOGS_VERSIONS-4.1 4.0}
step "partition keys from Cassandra's logs on fresh ${logs_versions:-4.x} nodes"
if [ -n "$logs_versions" ]; then
	PARTMON_LOGS_VERSIONS="$logs_versions" go test -count=1 -json -tags integration -timeout 40m -p 1 \
		-run '^TestLogsOnAFreshCluster$' ./e2e/ 2>&1 |
		"$TESTSUMMARY" -times "$TEST_TIMES" -label "logs $logs_versions" |
		sed -u -E "/^(ok|FAIL)([[:space:]]|\$)/ s/\$/ [logs on Cassandra $logs_versions]/" | tee -a "$GOLOG" ||
		failed+=("logs on $logs_versions")
else
	echo "left out: PARTMON_LOGS_VERSIONS is empty"
fi

# Ownership against the real nodetool on an unbalanced ring with a repeated
# rack, where SimpleStrategy and NetworkTopologyStrategy really differ. One
# hand-picked token a node on purpose: the test needs a ring known to be
# unbalanced (50/10/40 %); the fixture cluster's 16-token ring is the other case.
step "ownership on an unbalanced ring"
if "$CLUSTER" up --first-ip 127.0.0.10 --dir "$UNBAL_DIR" --nodes 3 --heap 512M \
	--tokens=-9000000000000000000,-7000000000000000000,2000000000000000000 --topology dc1:r1,dc1:r1,dc1:r2; then
	PARTMON_TEST_UNBALANCED_HOSTS=127.0.0.10,127.0.0.11,127.0.0.12 PARTMON_TEST_UNBALANCED_DIR=$UNBAL_DIR \
		go test -count=1 -json -tags integration -run TestOwnershipMatchesNodetoolUnbalanced ./ring/ 2>&1 |
		"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "unbalanced ring" | tee -a "$GOLOG" | tail -20 ||
		failed+=("ownership on an unbalanced ring")
else
	failed+=("starting the unbalanced ring")
fi
"$CLUSTER" down --dir "$UNBAL_DIR" || true

# A planted key growing toward partition_size's warn (8 MiB) and fail (16 MiB)
# levels, set through Cassandra 5.0's -Dcassandra.settings.* (the fixture
# cluster runs with a warn level only, so the main run skips this test and says
# why): the forecast held to the crossing Cassandra logs (docs/detection.md).
step "guardrail crossing forecast, then the key advisor, on a fresh 5.0 node with guardrails set (127.0.0.57)"
if PARTMON_NODE_JVM_OPTS="-Dcassandra.config.allow_system_properties=true -Dcassandra.settings.partition_size_warn_threshold=8MiB -Dcassandra.settings.partition_size_fail_threshold=16MiB" \
	"$CLUSTER" up --first-ip 127.0.0.57 --dir "$GUARD_DIR" --nodes 1 --heap 512M; then
	PARTMON_CLUSTER_DIR=$GUARD_DIR go test -count=1 -json -tags integration -run '^TestGuardrailCrossingForecastOnRealNode$' ./analyzer/ 2>&1 |
		"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "guardrails" | tee -a "$GOLOG" | tail -20 ||
		failed+=("guardrail crossing forecast")
	# Then, on the same node (saving a node's start): the key advisor's
	# truth, four planted tables, each candidate key built for real and held
	# to tablestats, tablehistograms and max_partition_size, and the
	# sampler's rows-per-second and rows limits (about 210 s;
	# docs/detection.md#key-advisor). Its tables are its own keyspace's; the
	# partition_size levels only log.
	PARTMON_CLUSTER_DIR=$GUARD_DIR go test -count=1 -json -tags integration -timeout 25m -run '^(TestKeyAdviceHeldToBuiltTables|TestKeySamplerHoldsItsLimits)$' ./keyadvice/ 2>&1 |
		"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "key advisor" | tee -a "$GOLOG" | tail -20 ||
		failed+=("key advisor truth")
else
	failed+=("starting the guardrail node")
fi
"$CLUSTER" down --dir "$GUARD_DIR" || true

# The guardrails that refuse an ordinary role's write, on one fresh 5.0 node
# with auth (127.0.0.151), one test after the other:
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
step "write guardrail refusals forecast on a fresh 5.0 node with auth (127.0.0.151): collections, a busy sampler, then the disk"
if PARTMON_NODE_JVM_OPTS="-Dcassandra.config.allow_system_properties=true $WRITE_GUARDRAILS -Dcassandra.disk_usage.monitor_interval_ms=1000 -Dcassandra.settings.data_disk_usage_max_disk_size=64MiB -Dcassandra.settings.data_disk_usage_percentage_warn_threshold=50 -Dcassandra.settings.data_disk_usage_percentage_fail_threshold=70" \
	"$CLUSTER" up --first-ip 127.0.0.151 --dir "$DISK_DIR" --nodes 1 --auth --heap 512M; then
	PARTMON_CLUSTER_DIR=$DISK_DIR go test -count=1 -json -tags integration -run '^TestWriteGuardrailRefusalForecastOnRealNode$' ./analyzer/ 2>&1 |
		"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "write guardrail 5.0" | tee -a "$GOLOG" | tail -20 ||
		failed+=("write guardrail refusal forecast on 5.0")
	# Before the disk test, which ends with the node refusing writes: a
	# one-shot report beside another client's profileload on the same node,
	# the sampler busy, the node not stale (about 80 s).
	PARTMON_CLUSTER_DIR=$DISK_DIR go test -count=1 -json -tags integration -run '^TestBusySamplerIsNotStale$' ./e2e/ 2>&1 |
		"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "busy sampler" | tee -a "$GOLOG" | tail -20 ||
		failed+=("busy sampler")
	PARTMON_CLUSTER_DIR=$DISK_DIR go test -count=1 -json -tags integration -run '^TestDiskGuardrailRefusalForecastOnRealNode$' ./analyzer/ 2>&1 |
		"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "disk guardrail" | tee -a "$GOLOG" | tail -20 ||
		failed+=("disk guardrail refusal forecast")
else
	failed+=("starting the write guardrail node")
fi
"$CLUSTER" down --dir "$DISK_DIR" || true

# The collection guardrails on 4.1 (127.0.0.166), read from the node's
# system.log as its sidecar (4.1 has no system_views.system_logs): about 60 s.
step "collection guardrail refusal forecast from the log on a fresh 4.1 node with auth (127.0.0.166)"
if PARTMON_NODE_JVM_OPTS="-Dcassandra.config.allow_system_properties=true $WRITE_GUARDRAILS" \
	"$CLUSTER" up --version 4.1 --first-ip 127.0.0.166 --dir "$WGUARD_DIR" --nodes 1 --auth --heap 512M; then
	PARTMON_CLUSTER_DIR=$WGUARD_DIR go test -count=1 -json -tags integration -run '^TestWriteGuardrailRefusalForecastOnRealNode$' ./analyzer/ 2>&1 |
		"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "write guardrail 4.1" | tee -a "$GOLOG" | tail -20 ||
		failed+=("write guardrail refusal forecast on 4.1")
else
	failed+=("starting the 4.1 write guardrail node")
fi
"$CLUSTER" down --dir "$WGUARD_DIR" || true
# Two keyspaces of one DC at RF 3 and RF 1, a few MB: one node flushed alone
# reads well above the load skew warning and is info (load_skew_min_mean_bytes);
# every ownership advice of the DC names the one allocator factor, 3.
step "load and ownership skew on a fresh 3-node ring of random tokens (127.0.0.161-163)"
if "$CLUSTER" up --first-ip 127.0.0.161 --dir "$SKEW_DIR" --nodes 3 --heap 512M --num-tokens 8 --token-allocation random \
	--topology dc1:r1,dc1:r1,dc1:r1; then
	PARTMON_CLUSTER_DIR=$SKEW_DIR go test -count=1 -json -tags integration -run '^TestSkewOnAFreshRing$' ./analyzer/ 2>&1 |
		"$TESTSUMMARY" -v -no-skip -times "$TEST_TIMES" -label "skew" | tee -a "$GOLOG" | tail -20 ||
		failed+=("load and ownership skew on a fresh ring")
else
	failed+=("starting the skew ring")
fi
"$CLUSTER" down --dir "$SKEW_DIR" || true

step ""
if [ ${#failed[@]} -gt 0 ]; then
	echo "side: failed: ${failed[*]}"
	exit 1
fi
