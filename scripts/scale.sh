#!/usr/bin/env bash
# make scale: partmon's series, recording rules, alerting rules and dashboards
# on a remote-write store fed by a Prometheus agent scraping a fleet of
# sidecars, measured at several fleet sizes (docs/scale.md explains it):
#
#   tools/cmd/fleet  N sidecars × T tables on 127.0.1.1 … (port 9808), each
#                    served by partmon's real analyzer, exporter and web code
#                    from a captured snapshot of the fixture cluster
#                    (tools/cmd/fleet/testdata), re-keyed per node, counters
#                    advancing at the captured rates; the capture's keyed
#                    problems (hot key, large partition, tombstones) each on
#                    one sidecar, a slow synthetic growth on another; every
#                    sidecar pushes its findings to Alertmanager
#   Prometheus agent 127.0.0.202:9090 (Debian's prometheus, agent mode):
#                    scrapes the fleet every 60 s (docs/scale.md) and remote-writes it
#   the store        Thanos v0.39.2 (built from its Go module into
#                    $PARTMON_CACHE, tools/thanos): two `thanos receive` on
#                    127.0.0.205 and .206 in one hashring (each series on one of
#                    them; the agent writes to the first, which routes), and
#                    `thanos query` on 127.0.0.201:9090 reading both over gRPC.
#                    PARTMON_SCALE_STORE=prometheus takes Prometheus' own
#                    remote-write receiver on 127.0.0.201:9090 instead.
#   vmalert          127.0.0.203:8880 (VictoriaMetrics v1.151.0, built from
#                    its Go module into $PARTMON_CACHE): evaluates
#                    deploy/prometheus/partmon-recording.yml and
#                    partmon-alerts.yml against the store, writes the
#                    recorded series back, sends alerts to
#   Alertmanager     127.0.0.204:9093 (Debian's prometheus-alertmanager) with
#                    deploy/alertmanager/alertmanager.yml's routes and
#                    inhibitions, its example webhooks left out
#
# then `scale report` prints the table and fails when an acceptance check
# fails: a dashboard query without data, anything but exactly one alert for
# each planted problem (with its partition key), an alert about the growth
# or about nothing planted, a rule group slower than its interval or than
# its budget (PARTMON_SCALE_GROUP_SHARE). Per size it prints the store's
# partmon_* series per sidecar, samples/s, store and vmalert memory, store
# bytes per series and each rule group's slowest iteration ÷ its interval.
# The small-table floor is measured first, on one sidecar of 10,000 tables.
# Everything it starts is stopped on exit, however it exits.
#
# Settings (environment):
#   PARTMON_SCALE_SIDECARS  fleet sizes                 (default 10,100,300)
#   PARTMON_SCALE_TABLES    user tables per sidecar     (default 1000)
#   PARTMON_SCALE_MIX       the fleet's user tables, a comma list: each size runs once per mix,
#                           results named by size and mix (default busy): busy = every table
#                           busy at its captured size (the worst case), realistic = of every 20
#                           tables 14 idle and 64 KiB, 5 busy, 1 busy and 1-5 GiB (an
#                           assumption: tools/cmd/fleet/mix.go)
#   PARTMON_SCALE_FLOOR_MODE  metrics.table_floor of every sidecar (fleet --floor): default
#                           (partmon's exporter.DefaultTableFloor) or off (default: default)
#   PARTMON_SCALE_GROUP_SHARE  the most of its interval a rule group's slowest iteration may
#                           take, by size (scale report -max-group-share): N:share for sizes up
#                           to N sidecars, then a share for the rest; 0 is no budget
#                           (default 100:0.25,0.60: a group may take a quarter of its interval
#                           up to 100 sidecars and 60 % past that; a group near its interval is
#                           one load spike from skipping iterations, docs/scale.md)
#   PARTMON_SCALE_MEM_MIB   stop a size when everything it runs holds more (default 16384);
#                           a size stopped so fails the run, after the table of those that completed
#   PARTMON_SCALE_DIR       work directory              (default ${TMPDIR:-/tmp}/partmon-scale)
#   PARTMON_SCALE_FLOOR=false  leave out the floor's measurement
#   PARTMON_SCALE_FOR       the alerting rules' `for:` during the run (default 1m: a
#                           run cannot wait their 15 min to 2 h; expressions unchanged)
#   PARTMON_SCALE_STORE     thanos (default) or prometheus
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
SIZES=${PARTMON_SCALE_SIDECARS:-10,100,300}
TABLES=${PARTMON_SCALE_TABLES:-1000}
MIXES=${PARTMON_SCALE_MIX:-busy}
FLOOR_MODE=${PARTMON_SCALE_FLOOR_MODE:-default}
GROUP_SHARE=${PARTMON_SCALE_GROUP_SHARE:-100:0.25,0.60}
MEM_MIB=${PARTMON_SCALE_MEM_MIB:-16384}
DIR=$(realpath -m "${PARTMON_SCALE_DIR:-${TMPDIR:-/tmp}/partmon-scale}")
FOR=${PARTMON_SCALE_FOR:-1m}
CACHE=${PARTMON_CACHE:-$HOME/.cache/partmon}
VM_VERSION=v1.151.0
VMALERT=$CACHE/vmalert-$VM_VERSION/vmalert
STORE_KIND=${PARTMON_SCALE_STORE:-thanos}
THANOS_VERSION=v0.39.2
THANOS=$CACHE/thanos-$THANOS_VERSION/thanos
RECEIVERS=(127.0.0.205 127.0.0.206)
STORE=127.0.0.201:9090 # the store's query API (thanos query, or the Prometheus)
AGENT=127.0.0.202:9090
VMALERT_ADDR=127.0.0.203:8880
AM=127.0.0.204:9093
FLEET_FIRST_IP=127.0.1.1
NICE="nice -n 15"

say() { printf 'scale: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

pids=()
stop_all() { # TERM, then KILL what is still there after 20 s (an agent flushing to a gone store)
  local p i
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for ((i = 0; i < 20; i++)); do
    local alive=false
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=true; done
    $alive || break
    sleep 1
  done
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  pids=()
}
trap 'rc=$?; stop_all; exit $rc' EXIT
trap 'exit 130' INT TERM

install_tools() {
  case $STORE_KIND in thanos | prometheus) ;; *) die "PARTMON_SCALE_STORE=$STORE_KIND: want thanos or prometheus" ;; esac
  case $FLOOR_MODE in default | off) ;; *) die "PARTMON_SCALE_FLOOR_MODE=$FLOOR_MODE: want default or off" ;; esac
  local m
  for m in "${mixes[@]}"; do
    case $m in busy | realistic) ;; *) die "PARTMON_SCALE_MIX=$MIXES: $m is not busy or realistic" ;; esac
  done
  local missing=()
  command -v prometheus >/dev/null || missing+=(prometheus)
  command -v prometheus-alertmanager >/dev/null || missing+=(prometheus-alertmanager)
  if ((${#missing[@]})); then
    say "installing ${missing[*]} (Debian)"
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  if [[ ! -x $VMALERT ]]; then
    say "building vmalert $VM_VERSION into $(dirname "$VMALERT")"
    mkdir -p "$(dirname "$VMALERT")"
    GOBIN=$(dirname "$VMALERT") GOFLAGS=-mod=mod $NICE go install "github.com/VictoriaMetrics/VictoriaMetrics/app/vmalert@$VM_VERSION"
  fi
  if [[ $STORE_KIND == thanos && ! -x $THANOS ]]; then
    # Thanos' go.mod has replace directives, which `go install pkg@version`
    # refuses: its command is built as a dependency of tools/thanos's module.
    say "building thanos $THANOS_VERSION into $(dirname "$THANOS") (a few minutes)"
    local build=$CACHE/thanos-build
    mkdir -p "$build" "$(dirname "$THANOS")"
    cp tools/thanos/go.mod tools/thanos/tools.go "$build/"
    (cd "$build" && GOFLAGS=-mod=mod $NICE go mod tidy &&
      $NICE go build -ldflags "-X github.com/prometheus/common/version.Version=${THANOS_VERSION#v}" \
        -o "$THANOS.tmp" github.com/thanos-io/thanos/cmd/thanos) ||
      die "thanos $THANOS_VERSION did not build in $build (PARTMON_SCALE_STORE=prometheus runs without it)"
    mv -f "$THANOS.tmp" "$THANOS"
  fi
  mkdir -p "$DIR/bin"
  $NICE go build -o "$DIR/bin/fleet" ./tools/cmd/fleet
  $NICE go build -o "$DIR/bin/scale" ./tools/cmd/scale
}

# start NAME CMD...: runs CMD in the background under nice, output to NAME.log.
start() {
  local name=$1; shift
  $NICE "$@" >"$RUN/$name.log" 2>&1 &
  pids+=($!)
  eval "${name}_pid=$!"
}

wait_http() { # URL WHAT
  local i
  for ((i = 0; i < 600; i++)); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 1
  done
  die "$2 did not answer at $1 (logs in $RUN)"
}

# rss_mib: the resident memory of everything this size runs.
# rss_each: each process's resident MiB, for a size stopped on memory.
rss_each() {
  ps -o comm=,rss= -p "$(IFS=,; echo "${pids[*]}")" 2>/dev/null | awk '{printf "%s%s %d MiB", NR > 1 ? ", " : "", $1, $2 / 1024}'
}

rss_mib() {
  local p total=0 kb
  for p in "${pids[@]}"; do
    kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
    total=$((total + ${kb:-0}))
  done
  echo $((total / 1024))
}

write_configs() {
  cat >"$RUN/agent.yml" <<EOF
global:
  scrape_interval: 60s
  scrape_timeout: 50s
scrape_configs:
  - job_name: partmon
    honor_labels: true
    file_sd_configs: [{files: ["$RUN/targets.json"], refresh_interval: 30s}]
    relabel_configs:
      - target_label: cluster
        replacement: partmon
remote_write:
  - url: $WRITE_URL
    remote_timeout: 2m
    queue_config: {max_samples_per_send: 10000, capacity: 50000, max_shards: 4, batch_send_deadline: 10s}
EOF
  # The shipped routes and inhibitions; receivers without their example webhooks.
  sed '/^receivers:/,$d' deploy/alertmanager/alertmanager.yml >"$RUN/alertmanager.yml"
  printf 'receivers:\n  - name: oncall-pager\n  - name: team-chat\n  - name: blackhole\n' >>"$RUN/alertmanager.yml"
  # The shipped alerting rules with a shorter `for:`; expressions, labels and
  # groups as shipped.
  sed -E "s/^( +)for: .*/\1for: $FOR/" deploy/prometheus/partmon-alerts.yml >"$RUN/partmon-alerts.yml"
}

# start_store: the store this size writes to and reads from; sets WRITE_URL,
# STORE_NAME and STORE_FLAGS (its processes, data and /metrics, for the
# measurement).
start_store() {
  if [[ $STORE_KIND == prometheus ]]; then
    echo 'global: {scrape_interval: 30s}' >"$RUN/store.yml"
    start store prometheus --config.file="$RUN/store.yml" --storage.tsdb.path="$RUN/store" --web.listen-address="$STORE" \
      --web.enable-remote-write-receiver --storage.tsdb.retention.time=1d --query.timeout=5m --log.level=warn
    wait_http "http://$STORE/-/ready" "the store"
    WRITE_URL=http://$STORE/api/v1/write STORE_NAME="Prometheus' remote-write receiver (Debian's prometheus)"
    STORE_FLAGS=(-store-metrics "http://$STORE/metrics" -store-dir "$RUN/store" -store-pid "$store_pid")
    return
  fi
  local ip i endpoints=() flags=()
  for ip in "${RECEIVERS[@]}"; do endpoints+=("\"$ip:10901\""); flags+=(--endpoint="$ip:10901"); done
  printf '[{"hashring": "default", "endpoints": [%s]}]\n' "$(IFS=,; echo "${endpoints[*]}")" >"$RUN/hashring.json"
  STORE_FLAGS=()
  for i in "${!RECEIVERS[@]}"; do
    ip=${RECEIVERS[$i]}
    start "receive$i" "$THANOS" receive --tsdb.path="$RUN/receive$i" --tsdb.retention=1d \
      --grpc-address="$ip:10901" --http-address="$ip:10902" --remote-write.address="$ip:19291" --receive.capnproto-address="$ip:19391" \
      --receive.local-endpoint="$ip:10901" --receive.hashrings-file="$RUN/hashring.json" \
      --receive.replication-factor=1 --label="receive_replica=\"$i\"" --log.level=warn
    local pid_var=receive${i}_pid
    STORE_FLAGS+=(-store-metrics "http://$ip:10902/metrics" -store-dir "$RUN/receive$i" -store-pid "${!pid_var}")
  done
  # Each receiver announces an external label of its own (receive needs
  # one); query drops it from results (--query.replica-label), so rules and
  # dashboards see the series as the agent scraped them.
  start store "$THANOS" query --http-address="$STORE" --grpc-address="${STORE%:*}:10901" "${flags[@]}" \
    --query.replica-label=receive_replica --query.timeout=5m --log.level=warn
  STORE_FLAGS+=(-store-pid "$store_pid")
  for ip in "${RECEIVERS[@]}"; do wait_http "http://$ip:10902/-/ready" "thanos receive on $ip"; done
  wait_http "http://$STORE/-/ready" "thanos query"
  WRITE_URL=http://${RECEIVERS[0]}:19291/api/v1/receive
  STORE_NAME="Thanos $THANOS_VERSION: ${#RECEIVERS[@]} receivers in one hashring (replication factor 1) behind thanos query"
}

# floor_series MIX FLOOR [FLEET FLAGS...]: sets SERIES to the partmon_*
# series of one sidecar of 10,000 tables in that mix with that --floor (not
# in a $(...) subshell: the EXIT trap that stops the fleet is not there).
floor_series() {
  local mix=$1 floor=$2; shift 2
  start fleet "$DIR/bin/fleet" --sidecars 1 --dcs 1 --tables 10000 --mix "$mix" --floor "$floor" "$@" \
    --first-ip "$FLEET_FIRST_IP" --targets-file "$RUN/targets.json"
  wait_http "http://$FLEET_FIRST_IP:9808/metrics" "the 10,000-table sidecar ($mix, floor $floor)"
  SERIES=$(curl -fsS "http://$FLEET_FIRST_IP:9808/metrics" | grep -c '^partmon_')
  stop_all
}

# floor: one sidecar of 10,000 tables, its partmon_* series without the
# floor (--floor off) and with partmon's default (--floor default), in the
# realistic mix (7,000 idle and small tables) and the busy one (none idle:
# the floor saves their zero tombstones, their sizes under 100 MiB and
# their flat growth); and the old measurement's floor (100 MiB, 1 op/s)
# on the realistic mix.
measure_floor() {
  RUN=$DIR/floor; mkdir -p "$RUN"
  local mix off on
  : >"$DIR/floor.txt"
  for mix in realistic busy; do
    floor_series "$mix" off; off=$SERIES
    floor_series "$mix" default; on=$SERIES
    ((off > on)) || die "the default floor saved nothing at 10,000 tables ($mix mix): $off series without, $on with"
    printf 'floor: one sidecar, 10,000 tables, %s mix: %d partmon_* series without the floor, %d with the default (%d saved, %.0f %%)\n' \
      "$mix" "$off" "$on" $((off - on)) "$(echo "100 * ($off - $on) / $off" | bc -l)" | tee -a "$DIR/floor.txt"
  done
  floor_series realistic default --floor-disk-bytes 104857600 --floor-ops 1
  printf 'floor: the same, realistic mix, the default floor with --floor-ops 1 (the earlier measurement'"'"'s 100 MiB, 1 op/s): %d series\n' \
    "$SERIES" | tee -a "$DIR/floor.txt"
}

# measure_size N MIX: the whole pipeline at N sidecars in that mix; the
# result in $DIR/results/N-MIX.json.
measure_size() {
  local n=$1 mix=$2 plant=$(($1 / 2))
  RUN=$DIR/run-$n-$mix; rm -rf "$RUN"; mkdir -p "$RUN"
  say "$n sidecars × $TABLES tables, $mix mix, floor $FLOOR_MODE: starting the fleet"
  start fleet "$DIR/bin/fleet" --sidecars "$n" --tables "$TABLES" --mix "$mix" --floor "$FLOOR_MODE" --plant "$plant" --first-ip "$FLEET_FIRST_IP" \
    --targets-file "$RUN/targets.json" --planted-file "$RUN/planted.json" --alertmanager "http://$AM"
  local i
  for ((i = 0; i < 600; i++)); do
    [[ -f $RUN/planted.json ]] && break
    kill -0 "$fleet_pid" 2>/dev/null || die "the fleet exited: $(tail -3 "$RUN/fleet.log")"
    (($(rss_mib) > MEM_MIB)) && { echo "$n ($mix): the fleet alone passed ${MEM_MIB} MiB while starting" >>"$DIR/broke.txt"; stop_all; return 1; }
    sleep 1
  done
  [[ -f $RUN/planted.json ]] || die "the fleet was not ready in 10 minutes"
  start_store
  write_configs
  start am prometheus-alertmanager --config.file="$RUN/alertmanager.yml" --storage.path="$RUN/am" \
    --web.listen-address="$AM" --cluster.listen-address= --log.level=warn
  start agent prometheus --enable-feature=agent --config.file="$RUN/agent.yml" --storage.agent.path="$RUN/agent" \
    --web.listen-address="$AGENT" --log.level=warn
  wait_http "http://$AM/-/ready" Alertmanager
  wait_http "http://$AGENT/-/ready" "the agent"
  # Recorded series go back where the agent writes (the URL as given).
  start vmalert "$VMALERT" -datasource.url="http://$STORE" -remoteWrite.url="$WRITE_URL" -remoteWrite.disablePathAppend \
    -notifier.url="http://$AM" \
    -rule="$REPO/deploy/prometheus/partmon-recording.yml" -rule="$RUN/partmon-alerts.yml" -evaluationInterval=30s \
    -httpListenAddr="$VMALERT_ADDR" -loggerLevel=WARN
  wait_http "http://$VMALERT_ADDR/-/healthy" vmalert
  # A watchdog: a size that outgrows the memory budget stops here.
  ( while kill -0 $$ 2>/dev/null && sleep 5; do
      if (($(rss_mib) > MEM_MIB)); then echo "$n ($mix): over ${MEM_MIB} MiB while measuring ($(rss_each))" >>"$DIR/broke.txt"; kill "${pids[@]}" 2>/dev/null; exit; fi
    done ) &
  local watchdog=$!
  local sidecar_flags=()
  mapfile -t sidecar_flags < <(python3 -c 'import json,sys
for p in json.load(open(sys.argv[1])): print("-sidecar\nhttp://%s:9808/metrics" % p["node"])' "$RUN/planted.json")
  local rc=0
  $NICE "$DIR/bin/scale" measure -store "http://$STORE" -vmalert "http://$VMALERT_ADDR" -alertmanager "http://$AM" \
    -store-name "$STORE_NAME" "${STORE_FLAGS[@]}" \
    -planted "$RUN/planted.json" -dashboards dashboards "${sidecar_flags[@]}" \
    -agent-pid "$agent_pid" -fleet-pid "$fleet_pid" -vmalert-pid "$vmalert_pid" -mix "$mix" -floor "$FLOOR_MODE" \
    -sidecars "$n" -tables "$TABLES" -ready-timeout 8m -cluster partmon \
    -out "$DIR/results/$(printf '%04d' "$n")-$mix.json" &
  pids+=($!) # in the background, so that a signal reaches the trap at once
  wait $! || rc=$?
  kill "$watchdog" 2>/dev/null || true
  say "$n sidecars ($mix): $(rss_mib) MiB resident at the end (budget $MEM_MIB)"
  stop_all
  return $rc
}

IFS=, read -ra sizes <<<"$SIZES"
IFS=, read -ra mixes <<<"$MIXES"
install_tools
rm -rf "$DIR/results" "$DIR/broke.txt"; mkdir -p "$DIR/results"
[[ ${PARTMON_SCALE_FLOOR:-true} == true ]] && measure_floor
for mix in "${mixes[@]}"; do
  for n in "${sizes[@]}"; do
    if ! measure_size "$n" "$mix"; then
      say "$n sidecars ($mix) did not complete: $(cat "$DIR/broke.txt" 2>/dev/null || echo 'see the logs in '"$DIR/run-$n-$mix")"
      [[ -f $DIR/broke.txt ]] || exit 1
      break # a size past the memory budget: the larger ones of this mix are past it too
    fi
  done
done
# The real-Cassandra half (scripts/scale-cluster.sh): cluster mode on 6 real
# nodes and one node with 10,000 tables; PARTMON_SCALE_REAL=cluster, tables or
# none picks (default all). It starts and stops its own clusters.
real=${PARTMON_SCALE_REAL:-all} real_rc=0
if [[ $real != none ]]; then
  scripts/scale-cluster.sh "$real" || real_rc=$?
fi
[[ -f $DIR/floor.txt ]] && cat "$DIR/floor.txt"
[[ -f $DIR/broke.txt ]] && cat "$DIR/broke.txt"
if ! compgen -G "$DIR/results/*.json" >/dev/null; then
  say "no fleet size completed (sizes $SIZES, mixes $MIXES): nothing to report; check PARTMON_SCALE_MEM_MIB and the logs in $DIR/run-*"
  exit 1
fi
report_rc=0
"$DIR/bin/scale" report -max-group-share "$GROUP_SHARE" "$DIR"/results/*.json || report_rc=$?
# README promises every size named: one that did not complete fails the run.
if [[ -f $DIR/broke.txt ]]; then
  say "not every size completed (sizes $SIZES, mixes $MIXES, budget ${MEM_MIB} MiB): $(cat "$DIR/broke.txt")"
  exit 1
fi
[[ $report_rc == 0 ]] || exit "$report_rc"
[[ $real_rc == 0 ]] || { say "the real-cluster measurements failed (scripts/scale-cluster.sh $real: exit $real_rc)"; exit 1; }
