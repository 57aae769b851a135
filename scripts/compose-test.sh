#!/usr/bin/env bash
# make compose-test: docker-compose.yml run for real, Grafana left out (profile
# "grafana"). A private dockerd (--bridge=none, no iptables) whose containers all
# use the host's network on 127.0.0.185-189 (deploy/compose/hostnet.yml); images
# built here without any registry: partmon from deploy/Dockerfile (bin/partmon
# from make build on scratch, by the classic builder), Cassandra, Prometheus and Alertmanager on
# root file systems made of this machine's Debian packages (the JDK,
# prometheus, prometheus-alertmanager; libraries from ldd) and Cassandra's jars
# cached in ~/.cache/partmon, `docker import`ed. Then the fixtures' planted
# problems (deploy/local/fixtures, a 64 MiB partition, tombstones) in the
# container's Cassandra, and the checks: partmon in its container finds them,
# Prometheus in its container scrapes it and evaluates the shipped alerting and
# recording rules, Alertmanager in its container holds partmon's pushed alert
# with the key. Prints the time to the first finding and the total.
# Without dockerd it prints "SKIPPED compose-test: <why>" and exits 0, or 1 when
# PARTMON_REQUIRE_DOCKER=1 (.ci/run, which installs docker.io, sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
t0=$(date +%s)
CACHE=${PARTMON_CACHE:-$HOME/.cache/partmon}
CASSANDRA_VERSION=5.0.8
CASS_IP=127.0.0.185 PARTMON_ADDR=127.0.0.186:9808 PROM_ADDR=127.0.0.187:9090 AM_ADDR=127.0.0.188:9093
JMX_PORT=25500 # deploy/local/cluster's port for .185 (7000 + 100 x 185)
WORK=$(mktemp -d /tmp/partmon-compose-test.XXXXXX)
export DOCKER_HOST=unix://$WORK/docker.sock
DOCKER=/usr/bin/docker # Debian's docker.io client (another docker may come first on PATH)
# docker-compose.yml with deploy/compose/hostnet.yml, merged (by docker-compose
# config) and its published ports dropped: docker-compose 1.29 refuses ports on the
# host's network, and an override can only add to a list.
COMPOSE=(docker-compose -p partmon-compose-test -f "$WORK/compose.yml")
# The fixtures' view of the container's Cassandra: a cluster dir with its cluster.env.
export PARTMON_CLUSTER_DIR=$WORK/cluster
unset PARTMON_TEST_HOSTS

say() { printf '== compose-test: %s (%d s)\n' "$*" "$(($(date +%s) - t0))"; }
skip() {
  echo "SKIPPED compose-test: $*"
  [[ ${PARTMON_REQUIRE_DOCKER:-0} == 1 ]] && { echo "compose-test: PARTMON_REQUIRE_DOCKER=1, so a skip fails"; exit 1; }
  exit 0
}
fail() { echo "FAILED compose-test: $*"; exit 1; }

for tool in dockerd containerd docker-compose; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install docker.io docker-compose)"
done
[[ -x $DOCKER ]] || skip "$DOCKER (Debian's docker.io) is not installed"
[[ $(id -u) == 0 ]] || skip "dockerd needs root"
[[ -d $CACHE/cassandra-$CASSANDRA_VERSION/lib ]] || deploy/local/cluster fetch --version 5.0 >/dev/null

cleanup() {
  local rc=$?
  if [[ -S $WORK/docker.sock ]]; then
    [[ $rc == 0 ]] || { "${COMPOSE[@]}" logs --tail 40 2>/dev/null || true; }
    "${COMPOSE[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  fi
  if [[ -f $WORK/dockerd.pid ]]; then
    local pid i
    pid=$(cat "$WORK/dockerd.pid")
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 40; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  fi
  umount "$WORK"/exec/netns/* 2>/dev/null || true
  rm -rf "$WORK" 2>/dev/null || echo "compose-test: could not remove all of $WORK"
  echo "compose-test took $(($(date +%s) - t0)) s in all"
}
trap cleanup EXIT

say "starting dockerd (--bridge=none; images kept in $CACHE/docker)"
dockerd --bridge=none --iptables=false --ip6tables=false --host "$DOCKER_HOST" \
  --data-root "$CACHE/docker" --exec-root "$WORK/exec" --pidfile "$WORK/dockerd.pid" >"$WORK/dockerd.log" 2>&1 &
for _ in $(seq 60); do "$DOCKER" info >/dev/null 2>&1 && break; sleep 0.5; done
"$DOCKER" info >/dev/null 2>&1 || { tail -20 "$WORK/dockerd.log"; skip "dockerd did not start on this machine (its log above)"; }
# Containers on the host's network: docker-compose's own default network is not made.
export COMPOSE_DOCKER_CLI_BUILD=0

# copy_with_libs ROOT FILE...: the files and the shared libraries they load (ldd).
copy_with_libs() {
  local root=$1 f lib
  shift
  for f in "$@"; do
    cp -L --parents "$f" "$root"
    for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true); do
      [[ -e $root$lib ]] || cp -L --parents "$lib" "$root"
    done
  done
}

# import_image TAG KEY ROOT-BUILDER ENTRYPOINT: builds and imports ROOT once per
# KEY (the packages' versions): a second run reuses the image.
import_image() {
  local tag=$1 key build=$3 entrypoint=$4 root
  # With how the image is made: the builder's functions, hashed.
  key="$2 $4 $(declare -f "$build" copy_with_libs write_cassandra_conf | sha256sum | cut -c1-12)"
  root=$WORK/root-${tag//[\/:]/-}
  if [[ $("$DOCKER" image inspect -f '{{index .Config.Labels "partmon.key"}}' "$tag" 2>/dev/null) == "$key" ]]; then
    return
  fi
  mkdir -p "$root"/{etc,tmp} && chmod 1777 "$root/tmp"
  echo 'root:x:0:0::/:/bin/sh' >"$root/etc/passwd"
  echo 'nobody:x:65534:65534::/:/bin/false' >>"$root/etc/passwd"
  "$build" "$root"
  tar -C "$root" -c . | "$DOCKER" import --change "LABEL partmon.key=\"$key\"" --change "ENTRYPOINT $entrypoint" - "$tag" >/dev/null
  rm -rf "$root"
}

build_prometheus() { copy_with_libs "$1" /usr/bin/prometheus; mkdir -p "$1/prometheus"; }
build_alertmanager() {
  # Debian's build reads its default notification templates from /usr/share/prometheus/alertmanager.
  copy_with_libs "$1" /usr/bin/prometheus-alertmanager
  cp -r --parents /usr/share/prometheus/alertmanager "$1"
  mkdir -p "$1/alertmanager"
}
build_cassandra() {
  local root=$1 jdk=/usr/lib/jvm/java-17-openjdk-amd64 so
  mkdir -p "$root$jdk" "$root/opt/cassandra/conf" "$root/var/lib/cassandra"
  # -h: the Debian JDK's links into /etc (conf, cacerts) become files; src.zip's target is not installed.
  tar -C "$jdk" -chf - --exclude=lib/src.zip bin conf lib | tar -C "$root$jdk" -xf -
  copy_with_libs "$root" /bin/bash "$jdk/bin/java"
  for so in "$jdk"/lib/*.so "$jdk"/lib/server/*.so; do copy_with_libs "$root" "$so"; done
  cp -r "$CACHE/cassandra-$CASSANDRA_VERSION/lib" "$CACHE/cassandra-$CASSANDRA_VERSION/server-jvm17.args" \
    "$CACHE/cassandra-$CASSANDRA_VERSION/logback.xml" "$root/opt/cassandra/"
  write_cassandra_conf "$root/opt/cassandra/conf"
  cat >"$root/opt/cassandra/run" <<RUN
#!/bin/bash
exec $jdk/bin/java @/opt/cassandra/server-jvm17.args -Xms512M -Xmx512M \\
  -javaagent:\$(echo /opt/cassandra/lib/jamm-*.jar) \\
  -Dcassandra.config=file:///opt/cassandra/conf/cassandra.yaml \\
  -Dlogback.configurationFile=/opt/cassandra/logback.xml \\
  -Dcassandra.logdir=/var/lib/cassandra/logs -Dcassandra.storagedir=/var/lib/cassandra \\
  -Djava.io.tmpdir=/tmp -Djna.tmpdir=/tmp \\
  -Dcassandra-foreground=yes -Dcassandra.jmx.local.port=$JMX_PORT -Dcom.sun.management.jmxremote.authenticate=false \\
  -Dcassandra.skip_wait_for_gossip_to_settle=0 -Dcassandra.ring_delay_ms=1000 -Dcassandra.libjemalloc=- \\
  -Dcassandra.skip_sync=true -Dcassandra.superuser_setup_delay_ms=500 -Dcassandra.migration_delay_ms=5000 \\
  -Dcassandra.size_recorder_interval=30 \\
  -cp "/opt/cassandra/conf:/opt/cassandra/lib/*" org.apache.cassandra.service.CassandraDaemon
RUN
  chmod +x "$root/opt/cassandra/run"
}

# One node, config as deploy/local/cluster writes it (small-box settings), on CASS_IP.
write_cassandra_conf() {
  cat >"$1/cassandra.yaml" <<CONF
# make compose-test's node (scripts/compose-test.sh): cluster_name as docker-compose.yml's.
cluster_name: partmon-demo
num_tokens: 16
allocate_tokens_for_local_replication_factor: 1
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: GossipingPropertyFileSnitch
auto_bootstrap: false
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "$CASS_IP"
listen_address: $CASS_IP
rpc_address: $CASS_IP
storage_port: 7000
native_transport_port: 9042
start_native_transport: true
commitlog_sync: periodic
commitlog_sync_period: 10000ms
data_file_directories: [/var/lib/cassandra/data]
commitlog_directory: /var/lib/cassandra/commitlog
saved_caches_directory: /var/lib/cassandra/saved_caches
hints_directory: /var/lib/cassandra/hints
cdc_raw_directory: /var/lib/cassandra/cdc_raw
concurrent_compactors: 1
memtable_flush_writers: 1
auto_snapshot: false
authenticator: AllowAllAuthenticator
authorizer: AllowAllAuthorizer
role_manager: CassandraRoleManager
partition_size_warn_threshold: 50MiB
partition_tombstones_warn_threshold: 10000
CONF
  printf 'dc=dc1\nrack=rack1\n' >"$1/cassandra-rackdc.properties"
}

say "images (each built once per package version, then reused)"
jdk_version=$(java -version 2>&1 | head -1 | tr -dc '0-9.')
import_image partmon-compose-test/cassandra:$CASSANDRA_VERSION "$CASSANDRA_VERSION-jdk$jdk_version" \
  build_cassandra '["/opt/cassandra/run"]'
import_image partmon-compose-test/prometheus:debian "$(dpkg-query -W -f '${Version}' prometheus)" \
  build_prometheus '["/usr/bin/prometheus"]'
import_image partmon-compose-test/alertmanager:debian "$(dpkg-query -W -f '${Version}' prometheus-alertmanager)" \
  build_alertmanager '["/usr/bin/prometheus-alertmanager"]'
make --no-print-directory build >/dev/null
# deploy/Dockerfile as README builds it, with the classic builder (no BuildKit,
# no buildx) and this dockerd, which reaches no registry: it must pull nothing.
say "docker build -f deploy/Dockerfile (classic builder, no registry)"
DOCKER_BUILDKIT=0 "$DOCKER" build -q -f deploy/Dockerfile -t partmon:dev . >"$WORK/build.log" 2>&1 ||
  { cat "$WORK/build.log"; fail "docker build -f deploy/Dockerfile"; }
# The image runs: scratch has no libc, so a binary that is not static fails here.
"$DOCKER" run --rm --network host partmon:dev --version >"$WORK/version.log" 2>&1 ||
  { cat "$WORK/version.log"; fail "partmon:dev --version (is bin/partmon static? make build sets CGO_ENABLED=0)"; }
say "partmon:dev runs: $(head -1 "$WORK/version.log")"

docker-compose -f docker-compose.yml -f deploy/compose/hostnet.yml config |
  awk '/^    ports:$/ { skip = 1; next } skip && /^    [- ]/ { next } { skip = 0; print }' >"$WORK/compose.yml"
grep -q 'published:' "$WORK/compose.yml" && fail "ports left in the merged compose file ($WORK/compose.yml)"

say "docker-compose up (Cassandra, partmon, Prometheus, Alertmanager; not Grafana)"
tup=$(date +%s)
"${COMPOSE[@]}" up -d --no-build >"$WORK/up.log" 2>&1 || { cat "$WORK/up.log"; fail "docker-compose up"; }
say "stack up: Cassandra healthy after $(($(date +%s) - tup)) s"

# The container's node as deploy/local/fixtures knows clusters: a cluster.env.
mkdir -p "$PARTMON_CLUSTER_DIR"
cat >"$PARTMON_CLUSTER_DIR/cluster.env" <<ENV
VERSION=$CASSANDRA_VERSION
DIR=$PARTMON_CLUSTER_DIR
NODES=1
EXTERNAL_NODES=true
HOSTS=$CASS_IP
JMX_PORTS=$JMX_PORT
DCS=dc1
RACKS=rack1
AUTH=false
TLS=false
HEAP=512M
ENV
say "planting problems (deploy/local/fixtures load --large-mib 64 --hot-seconds 0)"
# Three times at most: on a busy box a schema change can outlast the driver's
# 20-s timeout (two runs here at a load average of 70-86 on 2 cores).
for attempt in 1 2 3; do
  deploy/local/fixtures load --large-mib 64 --hot-seconds 0 >"$WORK/fixtures.log" 2>&1 && break
  tail -3 "$WORK/fixtures.log"
  [[ $attempt == 3 ]] && fail "fixtures load (three attempts; the last one's log above)"
  say "fixtures load failed; again"
done
tplant=$(date +%s)
say "planted"

# json URL PYTHON-EXPR: evaluates EXPR on the JSON at URL as d; prints it.
json() { curl -sf --max-time 10 "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print($2)" 2>/dev/null; }
# wait_for WHAT SECONDS CMD...: retries CMD until it prints "True".
wait_for() {
  local what=$1 secs=$2 end=$(($(date +%s) + $2))
  shift 2
  until [[ $("$@") == True ]]; do
    (($(date +%s) < end)) || fail "$what: not within $secs s"
    sleep 5
  done
  say "$what"
}
big='any(f["kind"]=="oversized_partition" and f["keyspace"]=="pm_big" and f["table"]=="events" for f in d["findings"])'
tomb='any(f["kind"]=="tombstone_heavy" and f["keyspace"]=="pm_tomb" and f["table"]=="queue" for f in d["findings"])'
wait_for "partmon (container) finds pm_big.events oversized" 600 json "http://$PARTMON_ADDR/api/v1/findings" "$big"
first=$(($(date +%s) - tplant))
wait_for "partmon (container) finds pm_tomb.queue tombstone-heavy" 300 json "http://$PARTMON_ADDR/api/v1/findings" "$tomb"
echo "compose-test: time to first finding: $first s after the fixtures were planted, $(($(date +%s) - tup)) s after docker-compose up"

q="http://$PROM_ADDR/api/v1"
wait_for "Prometheus (container) scrapes partmon: up{job=\"partmon\"} 1" 120 \
  json "$q/query?query=up%7Bjob%3D%22partmon%22%7D" 'any(r["value"][1]=="1" for r in d["data"]["result"])'
# Every group of both shipped rule files loaded, evaluated, healthy.
rules_ok='(lambda gs: {g["file"].rsplit("/",1)[1] for g in gs} >= {"partmon-alerts.yml","partmon-recording.yml"} and all(r["health"]=="ok" and not r["lastEvaluation"].startswith("0001") for g in gs for r in g["rules"]))(d["data"]["groups"])'
wait_for "Prometheus evaluates every shipped alerting and recording rule (health ok)" 240 json "$q/rules" "$rules_ok"
wait_for "the recording rule table:partmon_table_max_partition_size_bytes:max has pm_big.events" 240 \
  json "$q/query?query=table:partmon_table_max_partition_size_bytes:max%7Bkeyspace%3D%22pm_big%22%7D" 'len(d["data"]["result"])>0'
wait_for "PartmonOversizedPartition is pending or firing for pm_big.events" 240 \
  json "$q/alerts" 'any(a["labels"]["alertname"]=="PartmonOversizedPartition" and a["labels"].get("keyspace")=="pm_big" for a in d["data"]["alerts"])'
pushed='[a for a in d if a["labels"].get("keyspace")=="pm_big" and a["labels"].get("table")=="events" and "finding_id" in a["labels"]]'
wait_for "Alertmanager (container) holds partmon's pushed alert for pm_big.events" 240 \
  json "http://$AM_ADDR/api/v2/alerts" "len($pushed)>0"
key=$(json "http://$AM_ADDR/api/v2/alerts" "([a['annotations'].get('partition_key','') for a in $pushed] or [''])[0]")
echo "compose-test: the pushed alert's partition_key: ${key:-none}"
[[ $key == big ]] || fail "the pushed alert for pm_big.events names no key \"big\" (its key source: system.top_partitions, written on repair or hourly)"
echo "PASSED compose-test: $(($(date +%s) - t0)) s in all"
