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

# 3. Durability across kill -9.
. "$E2E/durability.sh"

stop_servers
check_server_logs
note ""
note "e2e: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
