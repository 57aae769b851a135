#!/usr/bin/env bash
# capture-fleet-snapshot.sh [OUT]: captures the snapshot tools/cmd/fleet
# replays (default OUT: tools/cmd/fleet/testdata/fixture-cluster-snapshot.gz)
# from a real 3-node Cassandra 5.0 cluster of its own (127.0.0.111-113):
# the fixtures' planted problems loaded, system.top_partitions filled and
# persisted (`fixtures top-partitions`), hot-key traffic running, then one
# cluster-mode `partmon collect --format json` with the nodetool sampler on.
# It refuses a capture in which a source failed (a loaded box times out
# nodetool: run it again when the box is quiet). Takes about 5 minutes.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
OUT=$(realpath -m "${1:-tools/cmd/fleet/testdata/fixture-cluster-snapshot.gz}")
export PARTMON_CLUSTER_DIR=$(realpath -m "${PARTMON_CAPTURE_DIR:-${TMPDIR:-/tmp}/partmon-capture}")
FIRST_IP=${PARTMON_CAPTURE_IP:-127.0.0.111}
say() { printf 'capture: %s\n' "$*" >&2; }

hot_pid=
cleanup() {
  if [[ -n $hot_pid ]]; then kill "$hot_pid" 2>/dev/null; wait "$hot_pid" 2>/dev/null; fi || true
  deploy/local/cluster down --dir "$PARTMON_CLUSTER_DIR" >&2 || true
}
trap cleanup EXIT
go build -o "$PARTMON_CLUSTER_DIR.partmon" ./cmd/partmon
deploy/local/cluster up --dir "$PARTMON_CLUSTER_DIR" --nodes 3 --first-ip "$FIRST_IP"
deploy/local/fixtures --dir "$PARTMON_CLUSTER_DIR" load
deploy/local/fixtures --dir "$PARTMON_CLUSTER_DIR" top-partitions
deploy/local/fixtures --dir "$PARTMON_CLUSTER_DIR" hotkey --seconds 120 >&2 &
hot_pid=$!
sleep 30 # Cassandra's moving rates and the sampler see the traffic

IFS=. read -r a b c d <<<"$FIRST_IP"
cat >"$PARTMON_CLUSTER_DIR.yml" <<EOF
collector:
  hosts: [$a.$b.$c.$d, $a.$b.$c.$((d + 1)), $a.$b.$c.$((d + 2))]
  mode: cluster
  nodetool_sampler:
    command: [deploy/local/cluster, nodetool, "{address}"]
    duration: 10s
EOF
"$PARTMON_CLUSTER_DIR.partmon" collect --config.file "$PARTMON_CLUSTER_DIR.yml" --format json --log.level warn >"$PARTMON_CLUSTER_DIR.json"
python3 - "$PARTMON_CLUSTER_DIR.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
bad = [f"{x['source']} {x['node']}: {x.get('error', '')}" for x in s['sources'] if x['state'] == 'error']
tops = sum(len(d.get('top_partitions') or []) for d in s['per_node'].values())
hot = sum(len(d.get('hot_partitions') or []) for d in s['per_node'].values())
if bad or not tops or not hot:
    sys.exit("capture: refused: failed sources %s, %d top partitions, %d hot-key samples" % (bad, tops, hot))
print(f"capture: {len(s['nodes'])} nodes, {tops} top partitions, {hot} hot-key samples, every source ok or unsupported", file=sys.stderr)
EOF
gzip -9 -c "$PARTMON_CLUSTER_DIR.json" >"$OUT"
say "wrote $OUT ($(stat -c %s "$OUT") bytes)"
