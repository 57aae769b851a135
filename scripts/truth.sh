#!/usr/bin/env bash
# make truth: the truth corpus (tools/truth/scenarios, docs/detection.md "Truth corpus")
# on real local clusters, judged against its truth and the real nodetool.
#
#   scripts/truth.sh          every scenario: a 3-node cluster on 127.0.0.61-63, then a
#                             two-DC cluster on 127.0.0.64-67 (dc1 racks r1,r1,r2; dc2 r1),
#                             each started here and stopped at the end; one-shot and daemon
#   scripts/truth.sh --ci     the CI subset, one-shot only, on the cluster that is already
#                             running in $PARTMON_CLUSTER_DIR (make test's fixture cluster,
#                             or 5.0 nodes of its own in scripts/test-side.sh); nothing started
#
# Prints the confusion table; exits 1 when a planted problem was missed or a false
# finding above info was given. Output (results JSON, partmon's JSON and logs, the
# defect list with its evidence) goes to $TRUTH_OUT (default test-artifacts/truth).
# TRUTH_KEEP_CLUSTERS=1 leaves the clusters running. The traffic is drawn from a new
# seed each run (printed, and kept in result-*.json); TRUTH_SEED=N draws a run's keys again.
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=deploy/local/cluster
OUT=${TRUTH_OUT:-$PWD/test-artifacts/truth}
CI=false
[[ ${1:-} == --ci ]] && CI=true

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
TWODC=$PWD/.cluster-truth-2dc
down() {
	[[ ${TRUTH_KEEP_CLUSTERS:-} == 1 ]] && return 0
	"$CLUSTER" down --dir "$1" || true
}
trap 'down "$SINGLE"; down "$TWODC"' EXIT
start=$(date +%s)

wait_for_memory 6
"$CLUSTER" up --first-ip 127.0.0.61 --dir "$SINGLE" --nodes 3 --heap 512M
rm -rf "$OUT/single"
"$TC" run --seed "${TRUTH_SEED:-0}" --cluster single --dir "$SINGLE" --bin "$OUT/bin/partmon" --out "$OUT/single" --warmup 60s --daemon 5m
down "$SINGLE"

# dc1 tokens a third of the ring apart (ownership is fair for one replica per DC);
# racks r1, r1, r2, so two replicas in dc1 always include the r2 node.
wait_for_memory 7
"$CLUSTER" up --first-ip 127.0.0.64 --dir "$TWODC" --nodes 4 --heap 512M \
	--tokens=-9223372036854775808,-3074457345618258603,3074457345618258602,0 \
	--topology dc1:r1,dc1:r1,dc1:r2,dc2:r1
rm -rf "$OUT/twodc"
"$TC" run --seed "${TRUTH_SEED:-0}" --cluster twodc --dir "$TWODC" --bin "$OUT/bin/partmon" --out "$OUT/twodc" --warmup 60s --daemon 4m
down "$TWODC"

echo "truth: the whole corpus took $(($(date +%s) - start)) s on $(nproc) cores"
"$TC" table --markdown "$OUT/single/result-single.json" "$OUT/twodc/result-twodc.json" >"$OUT/table.md" || true
exec "$TC" table --defects "$OUT/defects.md" "$OUT/single/result-single.json" "$OUT/twodc/result-twodc.json"
