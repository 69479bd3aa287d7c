# lib.sh -- what the MultiKueue scripts set up alike (sourced after
# tests/e2e/lib.sh, with SRC set).

# A worker's queues, named as Kueue's multikueue-setup.yaml names the
# manager's: ResourceFlavor default-flavor, ClusterQueue cluster-queue with
# cpu quota $1 (and 36Gi of memory), LocalQueue default/user-queue.
worker_queues() {
    cat <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: "$1"}
      - {name: memory, nominalQuota: 36Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: user-queue}
spec: {clusterQueue: cluster-queue}
YAML
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
