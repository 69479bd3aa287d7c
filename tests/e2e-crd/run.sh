#!/bin/sh
# run.sh -- end-to-end tests of the kinds a cluster has beyond Kueue's:
# the built-in kinds (Nodes, Services, ConfigMaps, Secrets, LimitRanges, the
# DRA kinds) and CustomResourceDefinitions, with the real kubectl and the
# Python client. usage: sh run.sh <cueue binary> <source dir>
set -u
CUEUE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
HERE="$SRC/tests/e2e-crd"
D="$HERE/data"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cueue-e2ecrd.XXXXXX")
export HOME="$TMP/home" # kubectl's discovery cache stays ours
mkdir -p "$HOME"
. "$SRC/tests/e2e/lib.sh"

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

# wait_for DESC SECONDS EXTENDED_REGEX CMD...: poll CMD until a line matches.
wait_for() {
    desc=$1
    secs=$2
    want=$3
    shift 3
    end=$(($(date +%s) + secs))
    while :; do
        out=$("$@" 2>&1)
        if printf '%s\n' "$out" | grep -Eq -- "$want"; then
            pass "$desc"
            return 0
        fi
        if [ "$(date +%s)" -ge "$end" ]; then
            fail "$desc (wanted /$want/ within ${secs}s)" "$out"
            return 1
        fi
        sleep 0.2
    done
}

. "$HERE/builtin.sh"
. "$HERE/crd.sh"

if $PY -c 'import kubernetes, yaml' 2>/dev/null; then
    note "# the Python client"
    start_server py --insecure-http || exit 1
    timeout 120 $PY "$HERE/client.py" "$KC" "$D" >"$TMP/py.out" 2>&1
    cat "$TMP/py.out"
    PASS=$((PASS + $(grep -c '^ok ' "$TMP/py.out")))
    FAIL=$((FAIL + $(grep -c '^FAIL' "$TMP/py.out")))
    if ! grep -q '^ok ' "$TMP/py.out"; then fail "python client ran"; fi
    stop_server "$PID"
else
    note "SKIP: python3-kubernetes is not installed"
fi

stop_servers
check_server_logs
note ""
note "e2e-crd: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
