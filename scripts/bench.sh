#!/usr/bin/env bash
# make bench: partmon against a real 3-node Cassandra at 10, 100 and 1,000
# tables (tools/cmd/benchtables) in one run: partmon's cycle, scrape and memory,
# what a cycle costs the node (Cassandra's CPU and GC pauses, idle
# subtracted) next to one jmx_exporter scrape and one `nodetool tablestats`,
# a minute of the default schedule with the nodetool runner off and on,
# the peer's scrape, series and memory, and the nodetool sampler's one pass
# over every table; then the Go benchmarks of the exposition, the analysis
# and the ownership computation. Results: docs/benchmarks.md explains them;
# this run writes its own to $OUT.
#
# It starts its own cluster in a dedicated directory on dedicated loopback
# addresses (so it never touches a dev cluster on 127.0.0.1-3) and takes it
# down on exit, however it exits. Settings (environment):
#   PARTMON_BENCH_DIR       cluster state directory   (default ${TMPDIR:-/tmp}/partmon-bench)
#   PARTMON_BENCH_FIRST_IP  first node address        (default 127.0.0.7; nodes .7 .8 .9)
#   PARTMON_BENCH_HEAP      heap per node             (default 3G: ~1 MiB per table per node; the box needs ~11 GiB free)
#   PARTMON_BENCH_TABLES    table counts              (default 10,100,1000)
#   PARTMON_BENCH_RUNS      runs per figure (medians) (default 5)
#   PARTMON_BENCH_OUT       where results go          (default $PARTMON_BENCH_DIR/results)
#   PARTMON_BENCH_SAMPLER_WINDOW  sampling window of the sampler pass (default 5s)
#   PARTMON_BENCH_SAMPLER_RUNS    sampler passes per table count (default 3)
#   PARTMON_BENCH_ESTIMATES_TIMEOUT  wait for system.table_estimates per table count (default 5m)
#   PARTMON_BENCH_NODES     nodes                     (default 3; keyspaces take RF min(3, nodes))
#   PARTMON_BENCH_KEEP=true leave the cluster running
#   PARTMON_BENCH_REUSE=true  measure the cluster already running in DIR as it is (no start-up, no tables
#                           created or loaded: PARTMON_BENCH_TABLES must then be the one count it holds,
#                           e.g. made once by `benchtables --dir DIR --tables 1000 --populate-only`); kept running
#   PARTMON_BENCH_NODE_COST_ONLY=true  only what the node pays (benchtables --node-cost-only)
#   PARTMON_BENCH_RUNNER_COST=true     with NODE_COST_ONLY: the nodetool runner's sources too (--runner-cost)
#   PARTMON_BENCH_AGENT=false          no jmx_exporter javaagent in the nodes (default: loaded, measured)
#   PARTMON_BENCH_AGENT_WINDOW         window of the javaagent's scraped-every-15/30/60-s check at the
#                                      largest table count (default 0: none; 60s measures it directly)
#   PARTMON_BENCH_SCHEMA_ROWS=true     one node only: create tables by their system_schema rows (--schema-rows)
#   PARTMON_BENCH_NUM_TOKENS           tokens per node (cluster up --num-tokens; default the script's, 16)
#   PARTMON_BENCH_SELF_ONLY=true       only partmon's own cost at scale (no cluster: self_cost below)
#   PARTMON_BENCH_SELF_SIZES           BenchmarkCycleAtScale sizes (regexp; default all: 10x1000 … 30x10000)
# The peers, jmx_exporter's standalone jmx_prometheus_httpserver and its
# javaagent (loaded into every node with `cluster up --javaagent`, its
# configuration file $DIR/agent.yml, which benchtables rewrites to switch
# configurations), come from Maven Central into
# $PARTMON_CACHE (default ~/.cache/partmon)/jmx_exporter.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
CLUSTER=deploy/local/cluster
DIR=$(realpath -m "${PARTMON_BENCH_DIR:-${TMPDIR:-/tmp}/partmon-bench}")
FIRST_IP=${PARTMON_BENCH_FIRST_IP:-127.0.0.7}
HEAP=${PARTMON_BENCH_HEAP:-3G}
TABLES=${PARTMON_BENCH_TABLES:-10,100,1000}
RUNS=${PARTMON_BENCH_RUNS:-5}
OUT=$(realpath -m "${PARTMON_BENCH_OUT:-$DIR/results}")
KEEP=${PARTMON_BENCH_KEEP:-false}
NODES=${PARTMON_BENCH_NODES:-3}
REUSE=${PARTMON_BENCH_REUSE:-false}
NODE_COST_ONLY=${PARTMON_BENCH_NODE_COST_ONLY:-false}
[[ $REUSE == true ]] && KEEP=true
SAMPLER_WINDOW=${PARTMON_BENCH_SAMPLER_WINDOW:-5s}
SAMPLER_RUNS=${PARTMON_BENCH_SAMPLER_RUNS:-3}
ESTIMATES_TIMEOUT=${PARTMON_BENCH_ESTIMATES_TIMEOUT:-5m}
JMX_VERSION=0.20.0
JMX_DIR=${PARTMON_CACHE:-$HOME/.cache/partmon}/jmx_exporter
JMX_JAR=$JMX_DIR/jmx_prometheus_httpserver-$JMX_VERSION.jar
# The newest 1.x Maven Central serves here (its metadata lists 1.0.1 as latest).
AGENT_VERSION=1.0.1
AGENT_JAR=$JMX_DIR/jmx_prometheus_javaagent-$AGENT_VERSION.jar
AGENT=${PARTMON_BENCH_AGENT:-true}
AGENT_WINDOW=${PARTMON_BENCH_AGENT_WINDOW:-0}
RUNNER_COST=${PARTMON_BENCH_RUNNER_COST:-false}
SCHEMA_ROWS=${PARTMON_BENCH_SCHEMA_ROWS:-false}

say() { printf 'bench: %s\n' "$*" >&2; }

# self_cost: partmon's own cost as the cluster grows, no cluster needed
# (docs/benchmarks.md, "partmon's own cost at scale"): the whole cycle at
# 10 x 1,000 to 30 x 10,000 (nodes x tables; CPU, peak heap), the log
# evidence and scrub steps, and each doubling pair's ratio of CPU against
# 2.3. One run each (-count 1): they take minutes at the largest size.
self_cost() {
  mkdir -p "$OUT"
  say "partmon's own cost at scale (Go benchmarks, no cluster; CPU-heavy: on a shared box read cpu-ms/op, not ns/op)"
  go test -timeout 60m -run '^$' -count 1 -benchtime 1x -benchmem \
    -bench "BenchmarkAnalyzeLogs|BenchmarkCycleAtScale/(${PARTMON_BENCH_SELF_SIZES:-.*})\$" ./analyzer ./cmd/partmon | tee "$OUT/selfcost.txt"
  go test -run '^$' -count 1 -benchtime 3x -benchmem -bench 'BenchmarkScrub' ./internal/keys | tee -a "$OUT/selfcost.txt"
  # cost NAME [UNIT]: the UNIT (default cpu-ms/op) of the benchmark named NAME.
  cost() { awk -v n="$1" -v u="${2:-cpu-ms/op}" '$1 ~ "^"n"(-[0-9]+)?$" { for (i = 2; i < NF; i++) if ($(i+1) == u) print $i }' "$OUT/selfcost.txt"; }
  ratio() { # NAME BASE DOUBLED [UNIT]
    local a b unit=${4:-cpu-ms/op}
    a=$(cost "$2" "$unit"); b=$(cost "$3" "$unit")
    if [[ -z $a || -z $b ]]; then printf 'Doubling: %s: did not run\n' "$1"; return; fi
    awk -v n="$1" -v a="$a" -v b="$b" -v u="$unit" 'BEGIN { r = b / a; printf "Doubling: %s: %.0f -> %.0f %s, x%.2f (<= 2.3: %s)\n", n, a, b, u, r, (r <= 2.3 ? "met" : "MISSED") }'
  }
  {
    ratio "log evidence, tables" BenchmarkAnalyzeLogs1000Tables30Nodes BenchmarkAnalyzeLogs2000Tables30Nodes
    ratio "log evidence, nodes" BenchmarkAnalyzeLogs1000Tables30Nodes BenchmarkAnalyzeLogs1000Tables60Nodes
    ratio "cycle, tables" BenchmarkCycleAtScale/30x1000 BenchmarkCycleAtScale/30x2000
    ratio "cycle, nodes" BenchmarkCycleAtScale/30x1000 BenchmarkCycleAtScale/60x1000
    # The scrub's cost must not follow the keys at all: ten times the keys, not two.
    ratio "scrub, keys x10" BenchmarkScrub2000Keys BenchmarkScrub20000Keys ns/op
  } | tee -a "$OUT/selfcost.txt"
}
if [[ ${PARTMON_BENCH_SELF_ONLY:-false} == true ]]; then
  self_cost
  exit 0
fi

cluster_up=false
cleanup() {
  local rc=$?
  if $cluster_up && [[ $KEEP != true ]]; then
    if ((rc != 0)); then # `cluster down` removes the node directories: keep their logs
      for d in "$DIR"/node*/logs; do [[ -d $d ]] && mkdir -p "$OUT/logs" && cp -r "$d" "$OUT/logs/$(basename "$(dirname "$d")")"; done
      say "node logs kept in $OUT/logs"
    fi
    say "taking the benchmark cluster in $DIR down"
    "$CLUSTER" down --dir "$DIR" || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

[[ -x bin/partmon ]] || { say "bin/partmon missing: run make bench (it builds first)"; exit 1; }
mkdir -p "$DIR/.bin" "$OUT"
fetch_jar() { # ARTIFACT JAR
  [[ -f $2 ]] && return
  command -v mvn >/dev/null || { say "mvn not found: it fetches $1 from Maven Central (apt-get install maven)"; exit 1; }
  say "fetching $1 into $JMX_DIR"
  mvn -q dependency:copy -Dartifact="$1" -DoutputDirectory="$JMX_DIR"
}
fetch_jar "io.prometheus.jmx:jmx_prometheus_httpserver:$JMX_VERSION" "$JMX_JAR"
agent_args=()
if [[ $AGENT == true ]]; then
  fetch_jar "io.prometheus.jmx:jmx_prometheus_javaagent:$AGENT_VERSION" "$AGENT_JAR"
  # The agent must find a valid file at the JVM's start: upstream's example first.
  cp tools/cmd/benchtables/jmx_exporter_cassandra.yml "$DIR/agent.yml"
  agent_args=(--javaagent "$AGENT_JAR=$DIR/agent.yml")
fi
[[ -n ${PARTMON_BENCH_NUM_TOKENS:-} ]] && agent_args+=(--num-tokens "$PARTMON_BENCH_NUM_TOKENS")
command -v jcmd >/dev/null || say "jcmd not found: GC pauses of the node will not be measured (a JDK's jcmd switches the GC log on)"
say "building the benchmark driver"
go build -o "$DIR/.bin/benchtables" ./tools/cmd/benchtables

say "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
cluster_up=true
if [[ $REUSE == true ]]; then
  say "reusing the cluster running in $DIR as it is"
else
  say "starting a $NODES-node cluster on $FIRST_IP.. in $DIR (heap $HEAP)"
  "$CLUSTER" up --first-ip "$FIRST_IP" --dir "$DIR" --nodes "$NODES" --heap "$HEAP" "${agent_args[@]}"
fi

"$DIR/.bin/benchtables" --dir "$DIR" --partmon bin/partmon --tables "$TABLES" --runs "$RUNS" \
  --jmx-exporter-jar "$JMX_JAR" --sampler-window "$SAMPLER_WINDOW" --sampler-runs "$SAMPLER_RUNS" \
  --estimates-timeout "$ESTIMATES_TIMEOUT" --populate="$([[ $REUSE == true ]] && echo false || echo true)" \
  --node-cost-only="$NODE_COST_ONLY" --runner-cost="$RUNNER_COST" --agent-window="$AGENT_WINDOW" \
  --schema-rows="$SCHEMA_ROWS" \
  --json "$OUT/results.json" --markdown "$OUT/results.md" | tee "$OUT/benchtables.txt"

# The Go benchmarks need no cluster: stop it first so that they run on a quieter machine.
if [[ $KEEP != true ]]; then
  "$CLUSTER" down --dir "$DIR"
  cluster_up=false
fi

say "Go benchmarks (exposition fresh and as served, analysis, ownership in ring/)"
# web/: /metrics as the daemon serves it (the report's part encoded once per
# report) and what that costs each Publish; exporter/: the same page gathered
# and encoded afresh, as every scrape was before.
go test -run '^$' -count "$RUNS" -benchtime 10x \
  -bench 'BenchmarkExposition1000Tables3Nodes|BenchmarkExpositionPublish1000Tables3Nodes|BenchmarkAnalyze1000Tables30Nodes|BenchmarkEffectiveOwnership1000x256$' \
  ./web ./exporter ./analyzer ./ring | tee "$OUT/gobench.txt"

# target NAME LIMIT_NS DIVISOR UNIT: the median of the ns/op values on stdin against
# LIMIT_NS, printed in UNIT (DIVISOR ns each); plain awk, no gawk needed.
target() {
  sort -n | awk -v name="$1" -v limit="$2" -v div="$3" -v unit="$4" '{ v[NR] = $1 }
    END {
      if (NR == 0) { printf "Target: %s: benchmark did not run\n", name; exit 1 }
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "Target: %s <= %g %s: %.3f %s (median of %d) %s\n", name, limit / div, unit, m / div, unit, NR, (m <= limit ? "met" : "MISSED")
    }' | tee -a "$OUT/gobench.txt"
}
# The served cluster-mode page for 3 x 1,000 tables, gzip; effective ownership for 1,000 nodes x 256 vnodes.
awk '/^pkg: / { pkg = $2 } pkg ~ /\/web$/ && /^BenchmarkExposition1000Tables3Nodes\/gzip-/ { print $3 }' "$OUT/gobench.txt" |
  target "/metrics as served, 3 nodes x 1,000 tables, gzip" 50e6 1e6 ms
awk '/^BenchmarkEffectiveOwnership1000x256-/ { print $3 }' "$OUT/gobench.txt" |
  target "effective ownership, 1,000 nodes x 256 vnodes" 1e9 1e9 s
self_cost
say "results in $OUT (results.md, results.json, benchtables.txt, gobench.txt, selfcost.txt)"
