#!/usr/bin/env bash
# make truth: the truth corpus (tools/truth/scenarios, docs/detection.md "Truth corpus")
# on real local clusters, judged against its truth and the real nodetool.
#
#   scripts/truth.sh          every scenario: a 3-node cluster on 127.0.0.61-63, then a
#                             two-DC cluster on 127.0.0.64-67 (dc1 racks r1,r1,r2; dc2 r1),
#                             then the heavy ring on 127.0.0.68-70 (num_tokens 16,16,32), then
#                             the guardrail cluster on 127.0.0.71-73, then the key advisor's
#                             nodes (--advise), all on 16 allocated tokens
#                             a node as 4.0+ ships them, each started here and stopped at the
#                             end; one-shot and daemon
#   scripts/truth.sh --rings  the ring scenarios only (two-DC and heavy clusters), on 16
#                             allocated tokens and then on 256 random tokens (3.x-born rings)
#   scripts/truth.sh --guardrails  the guardrail scenarios only: a 3-node 5.0 cluster on
#                             127.0.0.71-73 with authentication, started with the guardrail levels
#                             its scenarios set (truthcorpus jvm-opts), planted keys grown through
#                             them in an 8-minute daemon, each crossing held to the line Cassandra
#                             logs; planted collections written through an ordinary role (the
#                             write guardrails check no superuser), held to the refused write
#   scripts/truth.sh --advise the key advisor's truth (keyadvice/testdata/truth.yaml): planted
#                             tables, each candidate key built for real and held to tablestats,
#                             tablehistograms and max_partition_size, on a node of its own: 5.0 on
#                             127.0.0.74, then 4.1 on 127.0.0.75 (TRUTH_ADVISE_FIRST_IP moves them)
#   scripts/truth.sh --ci     the CI subset, one-shot only, on the cluster that is already
#                             running in $PARTMON_CLUSTER_DIR (make test's fixture cluster,
#                             or 5.0 nodes of its own in scripts/test-side.sh); nothing started
#
# Prints the confusion table; exits 1 when a planted problem was missed or a false
# finding above info was given. Output (results JSON, partmon's JSON and logs, the
# defect list with its evidence) goes to $TRUTH_OUT (default test-artifacts/truth).
# TRUTH_KEEP_CLUSTERS=1 leaves the clusters running; TRUTH_GUARDRAIL_FIRST_IP moves the
# guardrail cluster off 127.0.0.71 (a range of your own while another run uses it). The traffic is drawn from a new
# seed each run (printed, and kept in result-*.json); TRUTH_SEED=N draws a run's keys again.
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=deploy/local/cluster
OUT=${TRUTH_OUT:-$PWD/test-artifacts/truth}
CI=false RINGS=false GUARDRAILS=false ADVISE=false
[[ ${1:-} == --ci ]] && CI=true
[[ ${1:-} == --advise ]] && ADVISE=true
[[ ${1:-} == --rings ]] && RINGS=true
[[ ${1:-} == --guardrails ]] && GUARDRAILS=true

mkdir -p "$OUT/bin"
go build -o "$OUT/bin/partmon" ./cmd/partmon
go build -o "$OUT/bin/truthcorpus" ./tools/cmd/truthcorpus
TC=$OUT/bin/truthcorpus

if $CI; then
	dir=${PARTMON_CLUSTER_DIR:-$PWD/.cluster}
	rm -rf "$OUT/ci"
	# 15-s reference windows: the later-window comparison is reported, not
	# part of the verdict (truth.Summary.Failed), and its tolerance widens
	# with the smaller sample; the full corpus keeps 30 s.
	"$TC" run --seed "${TRUTH_SEED:-0}" --cluster single --ci --dir "$dir" --bin "$OUT/bin/partmon" --out "$OUT/ci" --warmup 40s --daemon 0 --later-window 15s
	exec "$TC" table --defects "$OUT/defects.md" "$OUT/ci/result-single.json"
fi

# The box is shared: start a cluster only with room for it.
wait_for_memory() {
	local need_gib=$1 waited=0
	while (($(free -g | awk '/^Mem:/ {print $7}') < need_gib)); do
		((waited < 600)) || { echo "truth: less than ${need_gib} GiB available after 10 minutes; not starting a cluster"; exit 3; }
		echo "truth: waiting for ${need_gib} GiB of free memory"
		sleep 30
		waited=$((waited + 30))
	done
}

SINGLE=$PWD/.cluster-truth
ADVISE_DIR=$PWD/.cluster-truth-advise
TWODC=$PWD/.cluster-truth-2dc
HEAVY=$PWD/.cluster-truth-heavy
GUARD=$PWD/.cluster-truth-guardrail
down() {
	[[ ${TRUTH_KEEP_CLUSTERS:-} == 1 ]] && return 0
	"$CLUSTER" down --dir "$1" || true
}
trap 'down "$SINGLE"; down "$TWODC"; down "$HEAVY"; down "$GUARD"; down "$ADVISE_DIR"' EXIT
start=$(date +%s)

# ring TOKENS: the two-DC cluster (dc1 racks r1, r1, r2, so two replicas in dc1 always
# include the r2 node; dc2 r1) on TOKENS a node, then the heavy ring (r3 with twice
# the tokens of r1 and r2); OUT/twodc-TOKENS, OUT/heavy-TOKENS.
ring() {
	local t=$1 heavy=$(($1 * 2))
	wait_for_memory 7
	"$CLUSTER" up --first-ip 127.0.0.64 --dir "$TWODC" --nodes 4 --heap 512M --num-tokens "$t" \
		--topology dc1:r1,dc1:r1,dc1:r2,dc2:r1
	rm -rf "$OUT/twodc-$t"
	"$TC" run --seed "${TRUTH_SEED:-0}" --cluster twodc --dir "$TWODC" --bin "$OUT/bin/partmon" --out "$OUT/twodc-$t" --warmup 60s --daemon "$2"
	down "$TWODC"
	wait_for_memory 6
	"$CLUSTER" up --first-ip 127.0.0.68 --dir "$HEAVY" --nodes 3 --heap 512M --num-tokens "$t,$t,$heavy"
	rm -rf "$OUT/heavy-$t"
	"$TC" run --seed "${TRUTH_SEED:-0}" --cluster heavy --dir "$HEAVY" --bin "$OUT/bin/partmon" --out "$OUT/heavy-$t" --warmup 60s --daemon "$2"
	down "$HEAVY"
}

# guardrails: the guardrail scenarios on a cluster started with the levels they
# set (Cassandra 5.0 reads -Dcassandra.settings.NAME as cassandra.yaml's NAME);
# their planted keys cross them in the daemon, so it runs 8 minutes. With
# authentication: the write guardrails check ordinary roles only (the corpus
# loads as the superuser, writes the planted collections as an ordinary role,
# and partmon logs in as README's read-only role).
guardrails() {
	local opts
	opts=$("$TC" jvm-opts --cluster guardrail)
	wait_for_memory 6
	PARTMON_NODE_JVM_OPTS=$opts "$CLUSTER" up --first-ip "${TRUTH_GUARDRAIL_FIRST_IP:-127.0.0.71}" --dir "$GUARD" --nodes 3 --heap 512M --auth
	rm -rf "$OUT/guardrail"
	"$TC" run --seed "${TRUTH_SEED:-0}" --cluster guardrail --dir "$GUARD" --bin "$OUT/bin/partmon" --out "$OUT/guardrail" --warmup 60s --daemon 8m
	down "$GUARD"
}

# advise: the key advisor's truth (keyadvice/testdata/truth.yaml, every table) on
# a fresh node of each version; its tables are its own keyspace's, RF 1, so one
# node's nodetool sees every partition. Returns 1 when a projection is outside
# its tolerance or a verdict differs; the log is OUT/advise-VERSION.log.
advise() {
	local ip=${TRUTH_ADVISE_FIRST_IP:-127.0.0.74} v rc=0
	for v in 5.0 4.1; do
		wait_for_memory 2
		if "$CLUSTER" up --version "$v" --first-ip "$ip" --dir "$ADVISE_DIR" --nodes 1 --heap 512M; then
			PARTMON_CLUSTER_DIR=$ADVISE_DIR go test -count=1 -v -tags integration -timeout 30m \
				-run '^(TestKeyAdviceHeldToBuiltTables|TestKeySamplerHoldsItsLimits)$' ./keyadvice/ >"$OUT/advise-$v.log" 2>&1 || rc=1
			grep -E '^(---|    ---)' "$OUT/advise-$v.log" | sed "s/^/truth: advise $v: /" || true
		else
			echo "truth: advise $v: the node did not start"
			rc=1
		fi
		down "$ADVISE_DIR"
		ip=${ip%.*}.$((${ip##*.} + 1))
	done
	return $rc
}

if $ADVISE; then
	advise
	exit $?
fi

if $GUARDRAILS; then
	guardrails
	echo "truth: the guardrail scenarios took $(($(date +%s) - start)) s on $(nproc) cores"
	"$TC" table --markdown "$OUT/guardrail/result-guardrail.json" >"$OUT/guardrails.md" || true
	exec "$TC" table --defects "$OUT/defects-guardrails.md" "$OUT/guardrail/result-guardrail.json"
fi

if $RINGS; then
	ring 16 0
	ring 256 0
	echo "truth: the ring scenarios took $(($(date +%s) - start)) s on $(nproc) cores"
	results=("$OUT"/twodc-16/result-twodc.json "$OUT"/heavy-16/result-heavy.json "$OUT"/twodc-256/result-twodc.json "$OUT"/heavy-256/result-heavy.json)
	"$TC" table --markdown "${results[@]}" >"$OUT/rings.md" || true
	exec "$TC" table --defects "$OUT/defects-rings.md" "${results[@]}"
fi

wait_for_memory 6
"$CLUSTER" up --first-ip 127.0.0.61 --dir "$SINGLE" --nodes 3 --heap 512M
rm -rf "$OUT/single"
"$TC" run --seed "${TRUTH_SEED:-0}" --cluster single --dir "$SINGLE" --bin "$OUT/bin/partmon" --out "$OUT/single" --warmup 60s --daemon 5m
down "$SINGLE"

ring 16 4m
guardrails
advised=0
advise || advised=1

echo "truth: the whole corpus took $(($(date +%s) - start)) s on $(nproc) cores"
results=("$OUT/single/result-single.json" "$OUT/twodc-16/result-twodc.json" "$OUT/heavy-16/result-heavy.json" "$OUT/guardrail/result-guardrail.json")
"$TC" table --markdown "${results[@]}" >"$OUT/table.md" || true
rc=0
"$TC" table --defects "$OUT/defects.md" "${results[@]}" || rc=$?
((advised == 0)) || { echo "truth: the key advisor's truth failed (OUT/advise-*.log)"; rc=1; }
exit $rc
