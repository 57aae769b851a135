#!/usr/bin/env bash
# make demo: a real 3-node Cassandra cluster on 127.0.0.1-3 with planted
# problems, and partmon watching it in cluster mode on http://127.0.0.1:9808/.
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=deploy/local/cluster
FIXTURES=deploy/local/fixtures
export PARTMON_CLUSTER_DIR=${PARTMON_CLUSTER_DIR:-$PWD/.cluster}

# An unbalanced ring plants token-ownership skew: node 2 (token 0) owns half of the ring.
TOKENS=${DEMO_TOKENS:--9223372036854775808,0,4611686018427387904}

"$CLUSTER" up --nodes 3 --tokens "$TOKENS"
if [ ! -f "$PARTMON_CLUSTER_DIR/truth.json" ]; then
	"$FIXTURES" load
	# Name the large and tombstone-heavy keys now rather than in an hour.
	"$FIXTURES" top-partitions || echo "top partitions not persisted; keys will appear after Cassandra's hourly save"
else
	echo "fixtures already loaded ($PARTMON_CLUSTER_DIR/truth.json)"
fi

# Keep a hot key hot while partmon watches (bounded: it stops by itself).
"$FIXTURES" hotkey --seconds "${DEMO_HOTKEY_SECONDS:-900}" >"$PARTMON_CLUSTER_DIR/hotkey.log" 2>&1 &

cat <<EOT

partmon is starting in cluster mode against 127.0.0.1-3.
  status page   http://127.0.0.1:9808/
  metrics       http://127.0.0.1:9808/metrics
  findings      http://127.0.0.1:9808/api/v1/findings
  one-shot      bin/partmon report --hosts 127.0.0.1 --mode cluster
Ctrl-C stops partmon; the cluster keeps running until 'make demo-down'.

EOT
exec bin/partmon run --config.file deploy/partmon-demo.yml --log.format console
