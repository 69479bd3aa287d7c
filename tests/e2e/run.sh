#!/bin/sh
# run.sh -- end-to-end tests of `cueue serve` with the real kubectl and the
# official Python client. usage: sh run.sh <cueue binary> <source dir>
#
# Servers listen on free loopback ports with data dirs under a temporary
# directory; every client call is bounded; the trap stops every server.
set -u
CUEUE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
E2E="$SRC/tests/e2e"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cueue-e2e.XXXXXX")
export HOME="$TMP/home" # kubectl's discovery cache stays ours
mkdir -p "$HOME"
. "$E2E/lib.sh"

cleanup() {
    stop_servers
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! command -v kubectl >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
    note "SKIP: kubectl and curl are needed for the end-to-end tests"
    exit 0
fi
PY=/usr/bin/python3

# 1. Plain HTTP: kubectl, the Python client, bad input.
start_server http --insecure-http || exit 1
. "$E2E/kubectl.sh"
if $PY -c 'import kubernetes' 2>/dev/null; then
    timeout 120 $PY "$E2E/client.py" "$KC" >"$TMP/py.out" 2>&1
    cat "$TMP/py.out"
    PASS=$((PASS + $(grep -c '^ok ' "$TMP/py.out")))
    FAIL=$((FAIL + $(grep -c '^FAIL' "$TMP/py.out")))
    if ! grep -q '^ok ' "$TMP/py.out"; then fail "python client ran"; fi
else
    note "SKIP: python3-kubernetes is not installed"
fi
. "$E2E/badinput.sh"
HTTP_PID=$PID
stop_server "$HTTP_PID"
rc=$?
if [ "$rc" = 0 ]; then pass "SIGTERM stops the server cleanly"; else
    fail "SIGTERM stops the server cleanly (exit $rc)" "$(tail -5 "$TMP/http/serve.log")"
fi

# 2. TLS with the generated CA and tokens: kubectl and authorization.
start_server tls || exit 1
. "$E2E/authz.sh"

# 3. Events expire.
note "# event expiry"
start_server ttl --insecure-http --event-ttl 2s || exit 1
k create -f "$SRC/tests/e2e/data/other-ns.yaml" >/dev/null 2>&1
# Its time is now in whole seconds, so it expires at least 1 s after t0.
t0=$(date +%s%N)
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
sed "s/@UID@/u1/; s/@NOW@/$now/g; s/kueue-lab/other-team/g" "$E2E/data/event.json.in" >"$TMP/ev-ttl.json"
expect "an Event is stored" "event/wl1.17a1 created" k create -f "$TMP/ev-ttl.json"
# Wall-clock time, not a count of polls: each poll's cost varies with load.
gone=
while [ $(($(date +%s%N) - t0)) -lt 30000000000 ]; do
    if ! k -n other-team get ev wl1.17a1 >/dev/null 2>&1; then
        gone=$((($(date +%s%N) - t0) / 1000000))
        break
    fi
    sleep 0.1
done
if [ -n "$gone" ] && [ "$gone" -ge 900 ]; then pass "an Event goes once older than --event-ttl (${gone} ms)"; else
    fail "an Event goes once older than --event-ttl (gone after ${gone:-more than 30000} ms)"
fi
stop_server "$PID"

# 4. Watches from compacted versions get 410 Expired.
note "# watch history"
start_server hist --insecure-http --watch-history 10 || exit 1
RF="$URL/apis/kueue.x-k8s.io/v1beta2/resourceflavors"
i=0
while [ $i -lt 400 ]; do # one commit each: the store compacts every 256 commits
    i=$((i + 1))
    printf 'url = "%s"\noutput = "/dev/null"\n' "$RF" >>"$TMP/urls.cfg"
done
timeout 60 curl -s --parallel --parallel-max 1 -X POST -H 'Content-Type: application/json' \
    --data-binary '{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ResourceFlavor","metadata":{"generateName":"f-"}}' \
    -K "$TMP/urls.cfg" >/dev/null 2>&1
expect "a watch from a compacted version: one ERROR event with 410 Expired" \
    '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (' \
    timeout 10 curl -s -N "$RF?watch=true&resourceVersion=1&timeoutSeconds=5"
expect "410 carries reason Expired and code 410" '"reason":"Expired","code":410}}' \
    timeout 10 curl -s -N "$RF?watch=true&resourceVersion=1&timeoutSeconds=5"
expect_status "a list at an old version is served, not 410" 200 "$RF?resourceVersion=1&limit=1"
RV=$(curl -s "$RF?limit=1" | $PY -c 'import json, sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])')
timeout 10 curl -s -N "$RF?watch=true&resourceVersion=$RV&timeoutSeconds=3" >"$TMP/watch.out" &
WPID=$!
sleep 0.5
curl -s -X POST -H 'Content-Type: application/json' -o /dev/null "$RF" \
    --data-binary '{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ResourceFlavor","metadata":{"name":"w1"}}'
curl -s -X PATCH -H 'Content-Type: application/merge-patch+json' -o /dev/null "$RF/w1" \
    --data-binary '{"metadata":{"labels":{"a":"b"}}}'
curl -s -X DELETE -o /dev/null "$RF/w1"
wait "$WPID"
expect_exact "a watch streams each change, one JSON event a line, with kind and apiVersion" \
    "ADDED ResourceFlavor kueue.x-k8s.io/v1beta2 w1
MODIFIED ResourceFlavor kueue.x-k8s.io/v1beta2 w1 b
DELETED ResourceFlavor kueue.x-k8s.io/v1beta2 w1 b" $PY -c '
import json, sys
for line in open(sys.argv[1]):
    ev = json.loads(line)
    o = ev["object"]
    print(ev["type"], o["kind"], o["apiVersion"], o["metadata"]["name"],
          *o["metadata"].get("labels", {}).values())
' "$TMP/watch.out"
if $PY -c 'import kubernetes' 2>/dev/null; then
    expect "the Python client raises ApiException(410)" "410 Expired" timeout 30 $PY -c '
import sys
from kubernetes import client, config, watch
config.load_kube_config(config_file=sys.argv[1])
co = client.CustomObjectsApi()
try:
    for ev in watch.Watch().stream(co.list_cluster_custom_object, "kueue.x-k8s.io", "v1beta2",
                                   "resourceflavors", resource_version="1", timeout_seconds=5):
        print(ev["type"])
except client.exceptions.ApiException as e:
    print(e.status, e.reason)
' "$KC"
fi
stop_server "$PID"

# 5. Durability across kill -9.
. "$E2E/durability.sh"

stop_servers
check_server_logs
note ""
note "e2e: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
