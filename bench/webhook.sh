#!/bin/sh
# webhook.sh BIN KIND CONNECTIONS COUNT -- the webhook server of `cueue
# controller` alone: a fresh `cueue serve --controllers none` (with the
# kueue-system Namespace), the controller against it with its webhooks on
# 127.0.0.1 and nothing else listening, 4 s for its start-up, 200 warm-up
# reviews at 10 connections, then COUNT reviews of KIND (clusterqueue,
# job, workload, localqueue, workload-default, job-update or jobset) at
# CONNECTIONS keep-alive connections sent by `BIN bench
# webhook` (one process, one epoll loop; GEN=PATH runs that of another
# cueue binary, e.g. to measure a BIN that has none; CLIENT=curl sends
# them with tests/e2e-install/latency.sh instead, curl --parallel). Prints the
# client's line (the generator's: latency, reviews/s, failures, its own
# CPU, and the controller's CPU over the timed reviews, handshakes
# excluded), then the controller's CPU per review over the whole run with
# its CONNECTIONS handshakes (utime+stime from /proc/PID/stat, over COUNT; 10 ms
# ticks; the figure earlier measurements give), the client's
# CPU (the generator's own getrusage is in its line; this one is every
# child of this script: the client, and for curl the pipeline that sorts
# its times) and the load average.
# PERF=FILE also records the controller with `perf record -F 999 -g`
# during the run (PERFG replaces -g, e.g. "--call-graph dwarf,16384").
# A figure, not a check: the load generator shares the machine's cores.
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
KIND=$2
CONN=$3
COUNT=$4
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/cueue-webhook.XXXXXX")
SP=""
CP=""
cleanup() {
    [ -n "$CP" ] && kill "$CP" 2>/dev/null && wait "$CP" 2>/dev/null
    [ -n "$SP" ] && kill "$SP" 2>/dev/null && wait "$SP" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
"$BIN" serve --listen 127.0.0.1:0 --data-dir "$T" --controllers none --executor none >"$T/serve.log" 2>&1 &
SP=$!
while [ ! -s "$T/kubeconfig" ]; do sleep 0.05; done
printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kueue-system}\n' |
    kubectl --kubeconfig "$T/kubeconfig" apply -f - >/dev/null
# The integrations the shipped Configuration enables (Kueue's release's),
# so that a JobSet review is judged rather than let through.
{
    printf 'apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nnamespace: kueue-system\n'
    sed -n '/^integrations:/,$p' "$SRC/config/components/manager/controller_manager_config.yaml" | grep -v '^#'
} >"$T/config.yaml"
"$BIN" controller --kubeconfig "$T/kubeconfig" --config "$T/config.yaml" --webhook-port 0 --webhook-host 127.0.0.1 \
    --metrics-bind-address 0 --health-probe-bind-address 127.0.0.1:0 >"$T/ctl.log" 2>&1 &
CP=$!
while ! grep -q "webhooks served at" "$T/ctl.log" 2>/dev/null; do sleep 0.05; done
URL=$(grep -o "https://127.0.0.1:[0-9]*" "$T/ctl.log" | head -1)
sleep 4
client() {
    if [ "${CLIENT:-cueue}" = curl ]; then
        sh "$SRC/tests/e2e-install/latency.sh" "$URL" "$1" "$2" "$KIND"
    else
        "${GEN:-$BIN}" bench webhook "$URL" --connections "$1" --count "$2" --kind "$KIND" --server-pid "$CP"
    fi
}
client 10 200 >/dev/null
t0=$(awk '{print $14 + $15}' "/proc/$CP/stat")
PP=""
if [ -n "${PERF:-}" ]; then
    # shellcheck disable=SC2086 # PERFG is a list of options
    perf record -F 999 ${PERFG:--g} -o "$PERF" -p "$CP" >/dev/null 2>&1 &
    PP=$!
    sleep 0.5
fi
c0=$(awk '{print $16 + $17}' /proc/$$/stat)
out=$(client "$CONN" "$COUNT")
c1=$(awk '{print $16 + $17}' /proc/$$/stat)
t1=$(awk '{print $14 + $15}' "/proc/$CP/stat")
if [ -n "$PP" ]; then
    kill -INT "$PP"
    wait "$PP"
fi
hz=$(getconf CLK_TCK)
echo "$out"
echo "whole run (handshakes included): controller CPU per review $(awk -v t="$((t1 - t0))" -v n="$COUNT" -v hz="$hz" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }') us, client CPU $(awk -v t="$((c1 - c0))" -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }') s; load average $(cut -d' ' -f1 /proc/loadavg)"
