# lib.sh -- what the MultiKueue scripts set up alike (sourced after
# tests/e2e/lib.sh, with SRC set).

# A worker's queues, those of examples/multikueue/worker-queues.yaml (named
# as Kueue's multikueue-setup.yaml names the manager's: ResourceFlavor
# default-flavor, ClusterQueue cluster-queue, LocalQueue default/user-queue)
# with cpu quota $1 and 36Gi of memory.
worker_queues() {
    sed -e "s/nominalQuota: 4\$/nominalQuota: \"$1\"/" -e 's/nominalQuota: 8Gi$/nominalQuota: 36Gi/' \
        "$SRC/examples/multikueue/worker-queues.yaml"
}

# Kueue's multikueue-setup.yaml with a second worker, multikueue-test-worker2,
# whose kubeconfig is the Secret worker2-secret.
two_worker_setup() {
    sed -e 's/  - multikueue-test-worker1/  - multikueue-test-worker1\n  - multikueue-test-worker2/' \
        "$SRC/examples/multikueue/multikueue-setup.yaml"
    cat <<'YAML'
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata:
  name: multikueue-test-worker2
spec:
  clusterSource:
    kubeConfig:
      location: worker2-secret
YAML
}
