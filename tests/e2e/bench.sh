#!/bin/sh
# bench.sh -- load figures for `cueue serve` over loopback HTTP (not run by
# ctest). usage: sh tests/e2e/bench.sh <cueue binary> [objects] [watchers]
#
# 1. creates/s from curl (C client, keep-alive, --parallel 1 and 16);
# 2. bench.py: creates/s from Python threads, list latencies with many
#    objects, watch fan-out, RSS;
# 3. bench.py crd: the same for a kind served from a CRD against a built-in
#    kind (ConfigMaps), and their ratio.
# The server is stopped by the trap; every step is bounded.
set -u
CUEUE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
N=${2:-10000}
W=${3:-50}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cueue-bench.XXXXXX")
PID=
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start() {
    rm -rf "$TMP/data"
    "$CUEUE" serve --insecure-http --listen 127.0.0.1:0 --data-dir "$TMP/data" >"$TMP/log" 2>&1 &
    PID=$!
    i=0
    while [ ! -s "$TMP/data/kubeconfig" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
    URL=$(cat "$TMP/data/endpoint")
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
start
WL="$URL/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads"
BODY='{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"generateName":"w-"},"spec":{"queueName":"lq","podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"1"}}}]}}}]}}'
for c in 1 16; do
    n=5000
    : >"$TMP/urls"
    i=0
    while [ $i -lt $n ]; do
        i=$((i + 1))
        printf 'url = "%s"\noutput = "/dev/null"\n' "$WL" >>"$TMP/urls"
    done
    t0=$(date +%s%N)
    timeout 120 curl -s --parallel --parallel-max $c -X POST -H 'Content-Type: application/json' \
        --data-binary "$BODY" -K "$TMP/urls" -w '%{http_code}\n' >"$TMP/codes" 2>/dev/null
    t1=$(date +%s%N)
    ok=$(grep -c '^201$' "$TMP/codes")
    echo "curl, $c connection(s): $((ok * 1000000000 / (t1 - t0))) creates/s ($ok of $n answered 201)"
done
kill "$PID"
wait "$PID" 2>/dev/null

start
timeout 600 /usr/bin/python3 "$HERE/bench.py" "$URL" "$PID" "$N" "$W"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
kill "$PID"
wait "$PID" 2>/dev/null

start
timeout 600 /usr/bin/python3 "$HERE/bench.py" "$URL" "$PID" "$N" "$W" crd
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
