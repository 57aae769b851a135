#!/usr/bin/env bash
# README's user path, run as written: the sh block under "## Install and run
# against your cluster" (install, one config, check-config, the first report,
# then the sidecar), on a fresh clone of this repository, against a running
# cluster (make test's fixture cluster). What it changes of README's text,
# and nothing else: the example node 10.0.0.1 becomes the cluster's first
# node (PARTMON_TEST_HOSTS), and the environment sends `go install` to a
# temporary GOBIN on PATH and the sidecar to a free port
# (PARTMON_WEB_LISTEN_ADDRESS, as README's Configuration allows). It then
# checks that each step did what README says: partmon installed, the config
# OK, the report naming the planted oversized and tombstone-heavy partitions
# (the fixtures' truth), the sidecar ready with its page and findings.
# Cost on the 2-core box: 94 s (the build in the clone from Go's cache, the report
# ~10-40 s, the sidecar's first cycle).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
HOST=${PARTMON_TEST_HOSTS:-127.0.0.1}
HOST=${HOST%%,*}
CLUSTER_DIR=${PARTMON_CLUSTER_DIR:-$PWD/.cluster}
TRUTH=$CLUSTER_DIR/truth.json
[ -f "$TRUTH" ] || { echo "readme-path: no fixture truth at $TRUTH (load the fixtures first: deploy/local/fixtures load)"; exit 1; }

work=$(mktemp -d)
sidecar=
cleanup() {
	[ -z "$sidecar" ] || kill "$sidecar" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

git clone -q "$REPO" "$work/partmon"
# The block: the first ```sh fence after the heading, up to its closing fence.
awk '/^## Install and run against your cluster$/ {h=1; next}
	h && /^```sh$/ {b=1; next}
	b && /^```$/ {exit}
	b {print}' "$work/partmon/README.md" >"$work/block.sh"
grep -q '^partmon report ' "$work/block.sh" || { echo "readme-path: README's block has no partmon report line:"; cat "$work/block.sh"; exit 1; }
grep -q '^partmon run ' "$work/block.sh" || { echo "readme-path: README's block has no partmon run line (the sidecar)"; exit 1; }
sed -i "s/10\.0\.0\.1/$HOST/g" "$work/block.sh"
# The sidecar is started in the background by the block (`&`): its pid for the end.
echo 'echo $! >"$PIDFILE"' >>"$work/block.sh"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export GOBIN=$work/bin PATH=$work/bin:$PATH PIDFILE=$work/sidecar.pid
export PARTMON_WEB_LISTEN_ADDRESS=127.0.0.1:$port
t0=$(date +%s)
(cd "$work/partmon" && bash "$work/block.sh") >"$work/out.txt" 2>&1 || true
sidecar=$(cat "$PIDFILE" 2>/dev/null || true)
echo "readme-path: README's block ran in $(($(date +%s) - t0)) s"

fail() {
	echo "readme-path: $1"
	echo "--- the block's output"
	cat "$work/out.txt"
	exit 1
}
[ -x "$work/bin/partmon" ] || fail "go install did not install partmon"
grep -q "^partmon.yml: OK" "$work/out.txt" || fail "check-config did not say the config is OK"
python3 - "$TRUTH" "$work/out.txt" <<'PY' || fail "the report does not name every planted oversized and tombstone-heavy partition"
import json, re, sys
truth = json.load(open(sys.argv[1]))
report = open(sys.argv[2]).read()
want = [p for p in truth["problems"] if p["kind"] in ("oversized_partition", "tombstone_heavy")]
kinds = {p["kind"] for p in want}
missing = [p for p in want if not re.search(r"\[([a-z_]+ \+ )*" + p["kind"] + r"( \+ [a-z_]+)*\] " + re.escape(p["keyspace"] + "." + p["table"]) + r"\b", report)]
for p in missing:
    print("not in the report:", p["kind"], p["keyspace"] + "." + p["table"])
sys.exit(1 if missing or kinds != {"oversized_partition", "tombstone_heavy"} else 0)
PY
[ -n "$sidecar" ] || fail "the sidecar did not start"
for _ in $(seq 120); do
	curl -sf "http://127.0.0.1:$port/readyz/cycle" >/dev/null && break
	kill -0 "$sidecar" 2>/dev/null || fail "the sidecar exited"
	sleep 1
done
curl -sf "http://127.0.0.1:$port/readyz/cycle" >/dev/null || fail "the sidecar's first cycle did not finish in 120 s"
curl -sf "http://127.0.0.1:$port/" >"$work/page.html" || fail "the sidecar serves no status page"
grep -q 'id="state"' "$work/page.html" || fail "the sidecar's status page has no state line"
curl -sf "http://127.0.0.1:$port/api/v1/findings" >"$work/findings.json" || fail "the sidecar serves no /api/v1/findings"
n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$work/findings.json")
[ "$n" -gt 0 ] || fail "the sidecar of $HOST reports no finding"
echo "readme-path: installed, config OK, the report names the planted problems, the sidecar of $HOST serves $n findings; $(($(date +%s) - t0)) s in all"
