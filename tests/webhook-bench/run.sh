#!/bin/sh
# run.sh -- `cueue bench webhook`, the webhooks' load generator, against
# `cueue controller` (its webhooks on 127.0.0.1, the cluster played by
# `cueue serve --controllers none`): each review kind answered at several
# connections with no failure; the server's certificate verified with its
# CA and refused with another name; answers that are no admission (the
# API server's own port) counted as failures with exit 1; a bad kind, a
# bad URL and a closed port refused with exit 2. What it reports on time
# is never asserted.
# usage: sh run.sh <cueue binary> <source dir>
set -u
CUEUE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cueue-whbench.XXXXXX")
export HOME="$TMP/home"
mkdir -p "$HOME"
. "$SRC/tests/e2e/lib.sh"
CTL=""
cleanup() {
    if [ -n "$CTL" ] && kill -0 "$CTL" 2>/dev/null; then stop_server "$CTL"; fi
    stop_servers
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! command -v kubectl >/dev/null 2>&1; then
    note "SKIP: kubectl is needed for the webhook load generator's test"
    exit 0
fi

# gen DESC RC REGEX ARGS...: `cueue bench webhook ARGS` exits RC and a line
# of its output (stdout and stderr) matches REGEX.
gen() {
    desc=$1
    want_rc=$2
    want=$3
    shift 3
    out=$(timeout 120 "$CUEUE" bench webhook "$@" 2>&1)
    rc=$?
    if [ "$rc" -eq "$want_rc" ] && printf '%s\n' "$out" | grep -Eq -- "$want"; then pass "$desc"; else
        fail "$desc (wanted exit $want_rc and /$want/, got exit $rc)" "$out"
    fi
}

start_server api || exit 1
k create namespace kueue-system >/dev/null
"$CUEUE" controller --kubeconfig "$KC" --webhook-port 0 --webhook-host 127.0.0.1 \
    --metrics-bind-address 0 --health-probe-bind-address 127.0.0.1:0 >"$TMP/ctl.log" 2>&1 &
CTL=$!
i=0
while ! grep -q "webhooks served at" "$TMP/ctl.log"; do
    i=$((i + 1))
    if [ $i -gt $((200 * WAIT_SCALE)) ] || ! kill -0 "$CTL" 2>/dev/null; then
        fail "the controller serves its webhooks" "$(cat "$TMP/ctl.log")"
        exit 1
    fi
    sleep 0.05
done
WURL=$(grep -o "https://127.0.0.1:[0-9]*" "$TMP/ctl.log" | head -1)

for kind in clusterqueue job workload localqueue workload-default job-update jobset; do
    gen "$kind reviews at 20 connections: 500 answered, 200 and allowed, none failed" 0 \
        "^latency: 500 $kind reviews, 20 connections, .* 0 failed; client CPU" \
        "$WURL" --connections 20 --count 500 --kind "$kind"
done
gen "more connections than reviews: one review each" 0 "^latency: 3 job reviews, 3 connections, .* 0 failed" \
    "$WURL" --connections 50 --count 3 --kind job
gen "--server-pid: the controller's CPU over the run" 0 "^server CPU [0-9.]+ s, [0-9.]+ us a review \\(pid $CTL," \
    "$WURL" --connections 4 --count 200 --server-pid "$CTL"

k -n kueue-system get secret kueue-webhook-server-cert -o 'jsonpath={.data.ca\.crt}' | base64 -d >"$TMP/ca.crt"
gen "--cacert: the certificate verified for the Service's name" 0 "0 failed" \
    "$WURL" --count 20 --connections 2 --cacert "$TMP/ca.crt" --server-name kueue-webhook-service.kueue-system.svc
gen "--cacert: another name is refused at the handshake" 2 "TLS handshake with 127.0.0.1:[0-9]+: .*(verif|certificate)" \
    "$WURL" --count 20 --cacert "$TMP/ca.crt" --server-name other.example
gen "--cacert: a file with no certificate is refused" 2 "no CA certificate read" \
    "$WURL" --count 20 --cacert "$TMP/ctl.log"

# The API server's own port: its answers (401, no AdmissionReview) fail.
gen "answers that are no admission: every review failed, exit 1" 1 \
    "^cueue bench webhook: 40 of 40 reviews failed, the first: HTTP [0-9]+, no \"allowed\"" \
    "$URL" --connections 4 --count 40 --kind workload

gen "an unknown kind" 2 "unknown kind 'pod' \\(clusterqueue, job, workload, localqueue, workload-default, job-update or jobset\\)" "$WURL" --kind pod
gen "a URL that is no https://HOST:PORT" 2 "'http://127.0.0.1:1' is no https://HOST:PORT" http://127.0.0.1:1
gen "a bad count" 2 "--count must be a positive integer, got '0'" "$WURL" --count 0
stop_server "$CTL"
gen "a port nothing listens on" 2 "connect to 127.0.0.1:[0-9]+: Connection refused" "$WURL" --count 5
CTL=""

note "webhook-bench: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
