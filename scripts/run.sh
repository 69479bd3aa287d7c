#!/bin/sh
# `make run`: start the embedded control plane (`cueue serve`: API server,
# controllers, local executor) with the quota-lab queues from examples/
# loaded, and say how to use kubectl with it. Ctrl-C stops it.
#   CUEUE_DATA   data directory (default ./cueue-data)
#   CUEUE_LISTEN address (default 127.0.0.1:6443)
set -eu
cueue=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/wait_kubeconfig.sh"
data=${CUEUE_DATA:-./cueue-data}
listen=${CUEUE_LISTEN:-127.0.0.1:6443}
mkdir -p "$data"
rm -f "$data/kubeconfig"
"$cueue" serve --listen "$listen" --data-dir "$data" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; exit 0' INT TERM
if ! wait_kubeconfig "$data/kubeconfig" $pid; then
    echo "cueue serve did not start (is $listen in use? set CUEUE_LISTEN)" >&2
    exit 1
fi
kc=$(cd "$data" && pwd)/kubeconfig
if command -v kubectl >/dev/null 2>&1; then
    kubectl --kubeconfig "$kc" apply -f "$top/examples/quota-lab-queues.yaml"
else
    echo "kubectl not found: load the queues with any Kubernetes client" >&2
fi
cat <<MSG

cueue is running (API, controllers, local executor). In another shell:

  export KUBECONFIG=$kc
  kubectl get clusterqueues,localqueues -A -o wide
  kubectl apply -f $top/examples/admitted-job.yaml
  kubectl -n kueue-lab get workloads,jobs,pods
  kubectl -n kueue-lab logs job/admitted-job
  kubectl apply -f $top/examples/over-quota-job.yaml

Ctrl-C stops the server (state is kept in $data).
MSG
wait $pid
