#!/usr/bin/env bash
# scale-cluster.sh: the real-Cassandra half of the scale measurements, with
# the real bin/partmon (docs/scale.md, "Cluster mode and 10,000 tables,
# measured"):
#   cluster  one cluster-mode partmon against the largest cluster the box
#            holds (default 6 nodes, three DCs of two racks), pointed at 2, 4
#            and 6 of its nodes with --datacenters: cold and warm cycle, CQL
#            statements (counted by the nodes, system_views.clients), CPU and
#            RSS per node read.
#   tables   one node with up to 10,000 tables (default), created within a
#            time budget: creation rate, then partmon as a sidecar with the
#            nodetool runner on: cycle, statements, node CPU, partmon RSS,
#            /metrics size and time, and every nodetool source's state.
#   all      both, one after the other (never both clusters up at once).
# Each part starts its own cluster under `nice -n 15` on its own addresses and
# takes it down on exit, however it exits. Settings (environment):
#   PARTMON_SCALE_CLUSTER_DIR   (default ${TMPDIR:-/tmp}/partmon-scale-cluster)
#   PARTMON_SCALE_CLUSTER_IP    first node address (default 127.0.0.81; .81-.86)
#   PARTMON_SCALE_TOPOLOGY      (default dc1:r1,dc1:r2,dc2:r1,dc2:r2,dc3:r1,dc3:r2)
#   PARTMON_SCALE_STEPS         --datacenters per step (default "dc1 dc1,dc2 dc1,dc2,dc3")
#   PARTMON_SCALE_CLUSTER_HEAP  heap per node (default 512M; ~0.8 GiB RSS each)
#   PARTMON_SCALE_CLUSTER_TABLES user tables in the cluster (default 100)
#   PARTMON_SCALE_TABLES_DIR    (default ${TMPDIR:-/tmp}/partmon-scale-tables)
#   PARTMON_SCALE_TABLES_IP     the node's address (default 127.0.0.95)
#   PARTMON_SCALE_TABLES        tables to reach (default 10000)
#   PARTMON_SCALE_TABLES_HEAP   (default 4G)
#   PARTMON_SCALE_TABLES_LOADED tables that get data, the rest stay idle (default 600)
#   PARTMON_SCALE_CREATE_BUDGET seconds for creating tables; then measure what exists (default 3600)
#   PARTMON_SCALE_CREATE        schema-rows (default: every table's system_schema rows written, then
#                               one nodetool reloadlocalschema; minutes) or cql (one CREATE TABLE at a
#                               time; each costs the node a pass over the whole schema, hours at 10,000)
#   PARTMON_SCALE_WINDOW        seconds a daemon runs after its first cycle (default 150)
#   PARTMON_SCALE_OUT           results directory (default .scale-cluster)
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
PART=${1:-all}
CDIR=$(realpath -m "${PARTMON_SCALE_CLUSTER_DIR:-${TMPDIR:-/tmp}/partmon-scale-cluster}")
CIP=${PARTMON_SCALE_CLUSTER_IP:-127.0.0.81}
TOPOLOGY=${PARTMON_SCALE_TOPOLOGY:-dc1:r1,dc1:r2,dc2:r1,dc2:r2,dc3:r1,dc3:r2}
STEPS=${PARTMON_SCALE_STEPS:-dc1 dc1,dc2 dc1,dc2,dc3}
CHEAP=${PARTMON_SCALE_CLUSTER_HEAP:-512M}
CTABLES=${PARTMON_SCALE_CLUSTER_TABLES:-100}
TDIR=$(realpath -m "${PARTMON_SCALE_TABLES_DIR:-${TMPDIR:-/tmp}/partmon-scale-tables}")
TIP=${PARTMON_SCALE_TABLES_IP:-127.0.0.95}
TABLES=${PARTMON_SCALE_TABLES:-10000}
THEAP=${PARTMON_SCALE_TABLES_HEAP:-4G}
TLOADED=${PARTMON_SCALE_TABLES_LOADED:-600}
BUDGET=${PARTMON_SCALE_CREATE_BUDGET:-3600}
CREATE=${PARTMON_SCALE_CREATE:-schema-rows}
WINDOW=${PARTMON_SCALE_WINDOW:-150}
OUT=$(realpath -m "${PARTMON_SCALE_OUT:-.scale-cluster}")
NICE=(nice -n 15)
# Six nodes under nice on a busy 2-core box take longer than the script's 300 s default to serve CQL.
export PARTMON_UP_TIMEOUT=${PARTMON_UP_TIMEOUT:-900}
TICK=$(getconf CLK_TCK)

say() { printf '%s scale-cluster: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { say "$*"; exit 1; }

up_dirs=() pids=()
cleanup() {
  local rc=$? p d
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for d in "${up_dirs[@]}"; do say "taking $d down"; "${NICE[@]}" deploy/local/cluster down --dir "$d" >&2 || true; done
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build() {
  "${NICE[@]}" make -s build >&2
  "${NICE[@]}" go build -o bin/benchtables ./tools/cmd/benchtables
  mkdir -p "$OUT"
}

cluster_up() { # dir, then `cluster up` options
  local dir=$1
  shift
  up_dirs+=("$dir")
  "${NICE[@]}" deploy/local/cluster up --dir "$dir" "$@" >&2
}

cluster_down() {
  "${NICE[@]}" deploy/local/cluster down --dir "$1" >&2
  local d keep=()
  for d in "${up_dirs[@]}"; do [[ $d == "$1" ]] || keep+=("$d"); done
  up_dirs=("${keep[@]}")
}

requests() { "${NICE[@]}" bin/benchtables --dir "$1" --cql-requests; } # CQL requests the nodes counted from clients
cpu_s() { awk -v t="$TICK" '{printf "%.2f", ($14 + $15) / t}' "/proc/$1/stat"; }
rss_mib() { awk -v k="$2:" '$1 == k {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
metric() { awk -v m="$1" '$1 == m {print $2; exit}' "$2"; } # value of an unlabelled series
calc() { awk "BEGIN {printf \"%.${2:-1}f\", $1}"; }
node_pid() { cat "$1/node$2/pid"; }

# oneshot DIR NODEPID ARGS...: one `partmon report` (connect, probe, every
# source once, analyze): wall s, CPU s, max RSS MiB, node CPU s. (Its
# statements cannot be counted by the nodes: system_views.clients lists open
# connections only, and the process has closed its own when it exits.)
oneshot() {
  local dir=$1 npid=$2 c0 c1 rc=0
  shift 2
  c0=$(cpu_s "$npid")
  "${NICE[@]}" /usr/bin/time -f '%e %U %S %M' -o "$OUT/time.txt" bin/partmon report --format json "$@" >"$OUT/report.json" 2>"$OUT/report.log" || rc=$?
  ((rc <= 2)) || die "partmon report exited $rc: $(tail -3 "$OUT/report.log")"
  c1=$(cpu_s "$npid")
  # time(1) puts "Command exited with non-zero status N" first when the report found problems.
  read -r wall user sys maxrss < <(tail -1 "$OUT/time.txt")
  echo "$wall $(calc "$user + $sys" 2) $(calc "$maxrss / 1024" 0) $(calc "$c1 - $c0" 2)"
}

# daemon DIR NODEPID LISTEN NAME ARGS...: `partmon run` until its first cycle,
# then WINDOW seconds: first-cycle s, last cycle s, CPU s/min, statements/min,
# RSS and peak RSS MiB, /metrics bytes, scrape ms, series, node CPU s/min.
daemon() {
  local dir=$1 npid=$2 listen=$3 name=$4 pid t r0 r1 c0 c1 n0 n1 first scrape
  shift 4
  "${NICE[@]}" bin/partmon run --web.listen-address "$listen" --log.level warn "$@" >"$OUT/$name.log" 2>&1 &
  pid=$!
  pids+=("$pid")
  for ((t = 0; ; t += 5)); do
    kill -0 "$pid" 2>/dev/null || die "partmon ($name) exited: $(tail -3 "$OUT/$name.log")"
    if curl -sf "http://$listen/metrics" -o "$OUT/$name.prom" && [[ $(metric partmon_up "$OUT/$name.prom") == 1 ]]; then break; fi
    ((t < 900)) || die "partmon ($name) had no good cycle in 900 s"
    sleep 5
  done
  first=$(metric partmon_cycle_duration_seconds "$OUT/$name.prom")
  r0=$(requests "$dir") c0=$(cpu_s "$pid") n0=$(cpu_s "$npid")
  sleep "$WINDOW"
  r1=$(requests "$dir") c1=$(cpu_s "$pid") n1=$(cpu_s "$npid")
  scrape=$(curl -sf -o "$OUT/$name.prom" -w '%{time_total}' "http://$listen/metrics")
  echo "$(calc "$first" 2) $(calc "$(metric partmon_cycle_duration_seconds "$OUT/$name.prom")" 2)" \
    "$(calc "($c1 - $c0) * 60 / $WINDOW" 2) $(calc "($r1 - $r0) * 60 / $WINDOW" 0)" \
    "$(rss_mib "$pid" VmRSS) $(rss_mib "$pid" VmHWM) $(stat -c %s "$OUT/$name.prom") $(calc "$scrape * 1000" 0)" \
    "$(grep -vc '^#' "$OUT/$name.prom") $(calc "($n1 - $n0) * 60 / $WINDOW" 2)"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}

# The cluster part: one partmon for 2, 4, 6 nodes (its --datacenters), then
# a dc1 and a dc1,dc2 partmon side by side (overlapping shards).
cluster_part() {
  local nodes hosts step n line
  nodes=$(tr ',' '\n' <<<"$TOPOLOGY" | wc -l)
  say "cluster mode: $nodes nodes ($TOPOLOGY) from $CIP in $CDIR, heap $CHEAP"
  cluster_up "$CDIR" --nodes "$nodes" --first-ip "$CIP" --heap "$CHEAP" --topology "$TOPOLOGY"
  "${NICE[@]}" bin/benchtables --dir "$CDIR" --populate-only --tables "$CTABLES" --workers 2 >&2
  hosts=$(awk -F= '$1 == "HOSTS" {print $2}' "$CDIR/cluster.env")
  {
    echo "| nodes read (--datacenters) | report: wall s | CPU s | max RSS MiB | daemon: cycle_duration s, first | last | CPU s/min | statements/min | RSS MiB | peak RSS MiB | /metrics bytes | scrape ms | series | load |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  } >"$OUT/cluster.md"
  for step in $STEPS; do
    n=$(awk -F= '$1 == "DCS" {print $2}' "$CDIR/cluster.env" | tr ',' '\n' | grep -cxF -f <(tr ',' '\n' <<<"$step"))
    say "partmon in cluster mode for $step ($n nodes)"
    line="$(oneshot "$CDIR" "$(node_pid "$CDIR" 1)" --mode cluster --hosts "$hosts" --datacenters "$step")"
    read -r -a o <<<"$line"
    read -r -a d <<<"$(daemon "$CDIR" "$(node_pid "$CDIR" 1)" "$CIP:19808" "cluster-$n" --mode cluster --hosts "$hosts" --datacenters "$step")"
    echo "| $n ($step) | ${o[0]} | ${o[1]} | ${o[2]} | ${d[0]} | ${d[1]} | ${d[2]} | ${d[3]} | ${d[4]} | ${d[5]} | ${d[6]} | ${d[7]} | ${d[8]} | $(cut -d' ' -f1-3 /proc/loadavg) |" >>"$OUT/cluster.md"
  done
  cat "$OUT/cluster.md"
  cluster_down "$CDIR"
}

# The tables part: one node, tables created within BUDGET, then partmon as a
# sidecar with the nodetool runner on.
tables_part() {
  local npid have rc=0 t0 cfg
  say "tables: one node on $TIP in $TDIR, heap $THEAP, up to $TABLES tables ($TLOADED with data)"
  # Creating 10,000 tables one schema change at a time: without the flush of
  # system_schema after each change (a test switch of Cassandra's,
  # CassandraRelevantProperties.TEST_FLUSH_LOCAL_SCHEMA_CHANGES) the rate
  # roughly doubled here. It changes how the schema reaches the disk, not
  # what partmon reads.
  PARTMON_NODE_JVM_OPTS="-Dcassandra.test.flush_local_schema_changes=false" \
    cluster_up "$TDIR" --nodes 1 --first-ip "$TIP" --heap "$THEAP"
  local how=(--tables "$(seq -s, 1000 1000 "$TABLES")")
  case $CREATE in
    schema-rows) how=(--schema-rows --tables "$TABLES") ;; # benchtables' schemarows.go says why
    cql) ;;
    *) die "PARTMON_SCALE_CREATE must be schema-rows or cql, not '$CREATE'" ;;
  esac
  say "creating tables: $CREATE"
  t0=$(date +%s)
  timeout "$BUDGET" "${NICE[@]}" bin/benchtables --dir "$TDIR" --populate-only --workers 8 --load-tables "$TLOADED" \
    "${how[@]}" 2>&1 | tee "$OUT/create.log" >&2 || rc=$?
  # Out of time (124), or a schema change that timed out on a starved node:
  # measure the tables that exist, and say so.
  ((rc == 0)) || say "creating tables stopped early (exit $rc): measuring the tables created"
  have=$(find "$TDIR"/node1/data -mindepth 2 -maxdepth 2 -path '*/bench_*/t*' -type d | wc -l)
  say "$have tables after $(($(date +%s) - t0)) s (budget $BUDGET s)"
  npid=$(node_pid "$TDIR" 1)
  cfg=$OUT/tables-partmon.yml
  cat >"$cfg" <<EOF
collector:
  hosts: ["$TIP"]
  mode: sidecar
  nodetool_sampler:
    command: ["$REPO/deploy/local/cluster", "nodetool", "--dir", "$TDIR", "{address}"]
EOF
  read -r -a o <<<"$(oneshot "$TDIR" "$npid" --config.file "$cfg")"
  jq -r '.sources[] | select(.source | startswith("nodetool")) | "| \(.source) | \(.state) | \(.rows) | \(.duration_ns / 1e9 | floor) | \(.error // "" | .[0:160]) |"' \
    "$OUT/report.json" >"$OUT/tables-nodetool.md"
  read -r -a d <<<"$(daemon "$TDIR" "$npid" "$TIP:19808" tables --config.file "$cfg")"
  {
    echo "| tables (with data) | report: wall s | CPU s | max RSS MiB | node CPU s | daemon: cycle_duration s, first | last | CPU s/min | statements/min | RSS MiB | peak RSS MiB | /metrics bytes | scrape ms | series | node CPU s/min | node RSS MiB | load |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    echo "| $have ($TLOADED) | ${o[0]} | ${o[1]} | ${o[2]} | ${o[3]} | ${d[0]} | ${d[1]} | ${d[2]} | ${d[3]} | ${d[4]} | ${d[5]} | ${d[6]} | ${d[7]} | ${d[8]} | ${d[9]} | $(rss_mib "$npid" VmRSS) | $(cut -d' ' -f1-3 /proc/loadavg) |"
    echo
    echo "| source (one-shot report) | state | rows | s | error |"
    echo "|---|---|---|---|---|"
    cat "$OUT/tables-nodetool.md"
  } >"$OUT/tables.md"
  cat "$OUT/tables.md"
  cluster_down "$TDIR"
}

build
case $PART in
  cluster) cluster_part ;;
  tables) tables_part ;;
  all) tables_part && cluster_part ;;
  *) die "usage: scripts/scale-cluster.sh [cluster|tables|all]" ;;
esac
