#!/bin/sh
# `make demo`: the quota-lab walkthrough (examples/quota-lab), end to end,
# with kubectl against a fresh `cueue serve`, printing each step and what
# it shows.
set -u
cueue=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/wait_kubeconfig.sh"
if ! command -v kubectl >/dev/null 2>&1; then
    echo "make demo needs kubectl" >&2
    exit 1
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/cueue-demo.XXXXXX")
export HOME="$dir/home"
mkdir -p "$HOME"
"$cueue" serve --listen 127.0.0.1:0 --data-dir "$dir/data" >"$dir/serve.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
if ! wait_kubeconfig "$dir/data/kubeconfig" $pid; then
    cat "$dir/serve.log" >&2
    exit 1
fi
export KUBECONFIG="$dir/data/kubeconfig"
k() { timeout 60 kubectl "$@"; }
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ kubectl %s\n' "$*"; k "$@"; }
# until SECONDS CMD...: poll until CMD succeeds.
until_ok() {
    s=$1
    shift
    end=$(($(date +%s) + s))
    while ! "$@" >/dev/null 2>&1; do
        [ "$(date +%s)" -ge "$end" ] && return 1
        sleep 0.5
    done
}
lab=$top/examples

step "1. The queues: a Namespace, flavor lab-default, ClusterQueue lab-cq (4 CPU / 8Gi), LocalQueue lab-queue"
run apply -f "$lab/quota-lab-queues.yaml"
until_ok 10 sh -c "kubectl get cq lab-cq -o jsonpath='{.status.conditions[0].status}' | grep -q True"

step "2. Both queues are active"
run get clusterqueue lab-cq -o wide
run -n kueue-lab get localqueue lab-queue -o wide
printf '$ kubectl get clusterqueue lab-cq -o jsonpath=...conditions...\n'
k get clusterqueue lab-cq -o jsonpath='{range .status.conditions[*]}{.type}{"="}{.status}{" reason="}{.reason}{"\n"}{end}'

step "3. A job of 2 pods x (500m CPU, 128Mi): created suspended, a Workload is admitted for it"
run apply -f "$lab/admitted-job.yaml"
until_ok 20 sh -c "kubectl -n kueue-lab get job admitted-job -o jsonpath='{.spec.suspend}' | grep -q false"
run -n kueue-lab get workloads -o wide
uid=$(k -n kueue-lab get job admitted-job -o jsonpath='{.metadata.uid}')
printf '$ kubectl -n kueue-lab get workloads -l kueue.x-k8s.io/job-uid=%s -o jsonpath=...admission...\n' "$uid"
k -n kueue-lab get workloads -l "kueue.x-k8s.io/job-uid=$uid" -o jsonpath='clusterQueue={.items[0].status.admission.clusterQueue} flavor={.items[0].status.admission.podSetAssignments[0].flavors.cpu} cpu={.items[0].status.admission.podSetAssignments[0].resourceUsage.cpu} memory={.items[0].status.admission.podSetAssignments[0].resourceUsage.memory}{"\n"}{range .items[0].status.conditions[*]}{.type}={.status} ({.reason}){"\n"}{end}'
run get clusterqueue lab-cq -o jsonpath='usage: cpu={.status.flavorsUsage[0].resources[0].total} memory={.status.flavorsUsage[0].resources[1].total}{"\n"}'
until_ok 20 sh -c "kubectl -n kueue-lab get pods -l job-name=admitted-job -o name | grep -q pod"
sleep 1
run -n kueue-lab get pods -o wide
for p in $(k -n kueue-lab get pods -l job-name=admitted-job -o name); do
    run -n kueue-lab logs "$p"
done
echo "(waiting for the job to finish: its pods sleep 30 s)"
until_ok 90 sh -c "kubectl -n kueue-lab get job admitted-job -o jsonpath='{.status.conditions[?(@.type==\"Complete\")].status}' | grep -q True"
run -n kueue-lab get job admitted-job
run -n kueue-lab get workloads -o wide
until_ok 10 sh -c "kubectl get cq lab-cq -o jsonpath='{.status.reservingWorkloads}' | grep -qx 0"
run get clusterqueue lab-cq -o jsonpath='quota released: reserving={.status.reservingWorkloads} cpu={.status.flavorsReservation[0].resources[0].total}{"\n"}'

step "4. A job of 2 pods x 3 CPU = 6 CPU: more than the 4 CPU quota, it stays suspended"
run apply -f "$lab/over-quota-job.yaml"
until_ok 20 sh -c "kubectl -n kueue-lab get workloads -o jsonpath='{.items[*].status.conditions[?(@.type==\"QuotaReserved\")].reason}' | grep -q ExceedsMaxQuota"
run -n kueue-lab get job over-quota-job -o jsonpath='suspend={.spec.suspend}{"\n"}'
printf '$ kubectl -n kueue-lab get workloads -o jsonpath=...QuotaReserved message...\n'
k -n kueue-lab get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="over-quota-job")]}{.metadata.name}: {.status.conditions[?(@.type=="QuotaReserved")].message}{"\n"}{end}'
run -n kueue-lab get pods -l job-name=over-quota-job
run -n kueue-lab get events --field-selector involvedObject.kind=Workload

step "5. Clean-up"
run -n kueue-lab delete job admitted-job over-quota-job
run -n kueue-lab wait --for=delete workload --all --timeout=120s
run -n kueue-lab delete localqueue lab-queue
run delete clusterqueue lab-cq
run delete resourceflavor lab-default
run delete namespace kueue-lab
printf '\ndemo finished\n'
