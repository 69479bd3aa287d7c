# kueuectl.sh -- `kubectl kueue` (the binary as the kubectl-kueue plugin):
# lists with kueuectl's columns and filters, stop and resume, explain; a
# tenant does only what RBAC lets it (sourced by run.sh after lib.sh).
need kubectl

mkdir -p "$TMP/bin"
ln -s "$CUEUE" "$TMP/bin/kubectl-kueue"
PATH="$TMP/bin:$PATH"
export PATH

start_server kq --controllers all --executor none || exit 1
note "# kueuectl: kubectl kueue list/stop/resume/explain"
cat >"$TMP/objs.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: gpu}
spec:
  nodeLabels: {zone: b, arch: arm}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-a}
spec:
  cohortName: org
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: gpu
      resources: [{name: cpu, nominalQuota: "1"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-b}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: missing
      resources: [{name: cpu, nominalQuota: "1"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-b}
spec: {clusterQueue: cq-b}
YAML
k apply -f "$TMP/objs.yaml" >/dev/null
cat <<'YAML' | k -n team-a create -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: j1
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sh", "-c", "sleep 60"], resources: {requests: {cpu: "1"}}}
YAML
# kubectl takes no flags before a plugin's name: the plugin reads $KUBECONFIG.
kk() { KUBECONFIG="$KC" timeout "$E2E_TIMEOUT" kubectl kueue "$@"; }
settle 20 'cq-a +org +0 +1 +true' kk list clusterqueue

expect_grep "list clusterqueue: kueuectl's columns" \
    '^NAME +COHORT +PENDING WORKLOADS +ADMITTED WORKLOADS +ACTIVE +AGE$' kk list clusterqueue
expect_grep "  ... a row" '^cq-a   org      0                   1                    true     [0-9]+s$' \
    kk list clusterqueue
expect_exact "  ... --active=false keeps the inactive ones" "cq-b" \
    sh -c "KUBECONFIG='$KC' kubectl kueue list cq --active=false | sed 1d | cut -d' ' -f1"
expect_exact "list localqueue -A, filtered by --clusterqueue" "team-b      lq     cq-b" \
    sh -c "KUBECONFIG='$KC' kubectl kueue list lq -A --clusterqueue cq-b | sed 1d | cut -c1-23"
expect "list localqueue in a namespace without queues" "No resources found in default namespace." \
    kk list localqueue
expect_grep "list resourceflavor: node labels sorted" '^gpu    arch=arm, zone=b   [0-9]+s$' \
    kk list resourceflavor

expect "stop clusterqueue" "clusterqueue.kueue.x-k8s.io/cq-a stopped" kk stop clusterqueue cq-a
expect_exact "  ... drains it (HoldAndDrain)" "HoldAndDrain" \
    k get clusterqueue cq-a -o jsonpath='{.spec.stopPolicy}'
expect "resume clusterqueue" "clusterqueue.kueue.x-k8s.io/cq-a resumed" kk resume cq cq-a
expect_exact "  ... stopPolicy None" "None" k get clusterqueue cq-a -o jsonpath='{.spec.stopPolicy}'
expect "stop localqueue --keep-already-running" "localqueue.kueue.x-k8s.io/lq stopped" \
    kk stop localqueue lq -n team-a --keep-already-running
expect_exact "  ... holds it (Hold)" "Hold" k -n team-a get localqueue lq -o jsonpath='{.spec.stopPolicy}'
kk resume lq lq -n team-a >/dev/null
W=$(k -n team-a get workloads -o name | sed 's|.*/||')
expect "stop workload" "workload.kueue.x-k8s.io/$W stopped" kk stop workload "$W" -n team-a
expect_exact "  ... deactivates it" "false" k -n team-a get workload "$W" -o jsonpath='{.spec.active}'
expect "resume workload" "workload.kueue.x-k8s.io/$W resumed" kk resume workload "$W" -n team-a
expect "explain, added to kueuectl's commands" "Workload team-a/$W:" kk explain workload "$W" -n team-a
expect "  ... and the plugin's own --kubeconfig flag" "Workload team-a/$W:" \
    kubectl kueue explain workload "$W" -n team-a --kubeconfig "$KC"

tenant alice team-a
expect "a tenant cannot stop a ClusterQueue" \
    'clusterqueues.kueue.x-k8s.io "cq-a" is forbidden: User "alice" cannot patch resource "clusterqueues"' \
    env KUBECONFIG="$TKC" kubectl kueue stop cq cq-a
expect "  ... nor list another namespace's LocalQueues" \
    'User "alice" cannot list resource "localqueues" in API group "kueue.x-k8s.io" in the namespace "team-b"' \
    env KUBECONFIG="$TKC" kubectl kueue list lq -n team-b
