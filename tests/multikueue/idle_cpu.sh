#!/bin/sh
# idle_cpu.sh -- the CPU a MultiKueue manager spends while nothing changes:
# one manager and two worker `cueue serve` processes, 5 Jobs dispatched and
# running in the workers, then the manager's user+system CPU time over
# SECONDS seconds (from /proc/PID/stat). A measurement, not a test.
# usage: sh idle_cpu.sh <cueue binary> <source dir> [SECONDS]
set -u
CUEUE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
SECS=${3:-10}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cueue-mkcpu.XXXXXX")
export HOME="$TMP/home"
mkdir -p "$HOME"
. "$SRC/tests/e2e/lib.sh"
. "$SRC/tests/multikueue/lib.sh"
trap 'stop_servers; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

for w in worker1 worker2; do
    start_server $w --controllers all --executor local || exit 1
    worker_queues 9 | k apply -f - >/dev/null
    cp "$KC" "$TMP/$w.kubeconfig"
done
start_server manager --controllers all --executor local || exit 1
MPID=$PID
k create namespace kueue-system >/dev/null
for w in worker1 worker2; do
    k -n kueue-system create secret generic $w-secret --from-file=kubeconfig="$TMP/$w.kubeconfig" >/dev/null
done
two_worker_setup | k apply -f - >/dev/null
for i in 1 2 3 4 5; do
    k create -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: idle-$i, namespace: default, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sleep, "600"], resources: {requests: {cpu: "1"}}}
YAML
done
i=0
while [ "$(k -n default get jobs -o jsonpath='{range .items[*]}{.status.active}{end}')" != 11111 ]; do
    i=$((i + 1))
    if [ $i -gt 120 ]; then note "the 5 jobs did not all run"; exit 1; fi
    sleep 0.5
done
sleep 3 # what the last changes set off settles
ticks() { awk '{print $14 + $15}' "/proc/$MPID/stat"; }
t0=$(ticks)
sleep "$SECS"
t1=$(ticks)
hz=$(getconf CLK_TCK)
awk -v d=$((t1 - t0)) -v hz="$hz" -v s="$SECS" \
    'BEGIN { printf "manager CPU over %d s with 5 jobs dispatched: %.2f s (%.1f%% of a core)\n", s, d / hz, 100 * d / hz / s }'
