# integ-lws.sh -- sourced by run.sh: the LeaderWorkerSet integration in
# `cueue serve` (no LeaderWorkerSet operator: the test makes its Pods as
# the operator would, from the templates Kueue's webhook marked). Each
# leader group gets its own Workload, pod sets leader and worker, made
# ahead of the Pods; the group's Pods join it and are gated, and the
# admitted group's Pods are ungated with the flavor, while the group beyond
# the quota stays gated. The admitted group evicted, its Pods are deleted
# and the other group is admitted; its Pods made again, it is readmitted
# when its turn comes. Scaling down drops the extra group's
# Workload.
cat >"$TMP/lws-cfg.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod, leaderworkerset.x-k8s.io/leaderworkerset]
YAML
start_server lws --controllers all --executor none --config "$TMP/lws-cfg.yaml" || return 1
k apply -f "$SRC/tests/data/leaderworkerset/leaderworkerset-crd.yaml" >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: lws}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: lws-f}
spec:
  nodeLabels: {instance-type: on-demand}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: lws-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: lws-f
      resources:
      - {name: cpu, nominalQuota: "2"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: lws}
spec: {clusterQueue: lws-cq}
YAML
settle 10 '^True$' k get cq lws-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
settle 10 'leaderworkersets' k api-resources --api-group=leaderworkerset.x-k8s.io
k -n lws create -f "$SRC/tests/data/leaderworkerset/leaderworkerset.yaml" >/dev/null
expect_exact "lws: both templates marked by the webhook (queue, suspended by the parent, serving)" \
    "user-queue leaderworkerset.x-k8s.io/leaderworkerset true user-queue leaderworkerset.x-k8s.io/leaderworkerset true" \
    k -n lws get leaderworkerset vllm -o jsonpath='{.spec.leaderWorkerTemplate.leaderTemplate.metadata.labels.kueue\.x-k8s\.io/queue-name} {.spec.leaderWorkerTemplate.leaderTemplate.metadata.annotations.kueue\.x-k8s\.io/pod-suspending-parent} {.spec.leaderWorkerTemplate.leaderTemplate.metadata.annotations.kueue\.x-k8s\.io/pod-group-serving} {.spec.leaderWorkerTemplate.workerTemplate.metadata.labels.kueue\.x-k8s\.io/queue-name} {.spec.leaderWorkerTemplate.workerTemplate.metadata.annotations.kueue\.x-k8s\.io/pod-suspending-parent} {.spec.leaderWorkerTemplate.workerTemplate.metadata.annotations.kueue\.x-k8s\.io/pod-group-serving}'
LWW='{range .items[*]}{.metadata.annotations.kueue\.x-k8s\.io/component-workload-index} {.metadata.name} {range .spec.podSets[*]}{.name}={.count} {end}{.status.conditions[?(@.type=="QuotaReserved")].status}{"\n"}{end}'
wait_for "lws: a Workload per leader group before any Pod, leader=1 worker=1" 15 \
    '^1 leaderworkerset-vllm-1-[0-9a-f]{5} leader=1 worker=1 (True|False)$' k -n lws get workloads -o jsonpath="$LWW"
expect_grep "lws: ... and group 0's" '^0 leaderworkerset-vllm-0-[0-9a-f]{5} leader=1 worker=1 (True|False)$' \
    k -n lws get workloads -o jsonpath="$LWW"
# Which group is admitted first is the scheduler's choice; one is, the
# other is beyond the quota.
wait_for "lws: one group admitted, the other beyond the quota" 15 '^(False True|True False) $' \
    k -n lws get workloads -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="QuotaReserved")].status} {end}'
W0=$(k -n lws get workloads -o jsonpath='{.items[?(@.metadata.annotations.kueue\.x-k8s\.io/component-workload-index=="0")].metadata.name}')
W1=$(k -n lws get workloads -o jsonpath='{.items[?(@.metadata.annotations.kueue\.x-k8s\.io/component-workload-index=="1")].metadata.name}')
if [ "$(k -n lws get workload "$W0" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status}')" = True ]; then
    A=0
else
    A=1
fi
# The operator's Pods: a leader vllm-G and a worker vllm-G-1 per group,
# with the templates' metadata and the operator's labels. lws_group G.
lws_group() {
    g=$1
    for role in leader worker; do
        if [ $role = leader ]; then pn="vllm-$g" extra=""; else
            pn="vllm-$g-1" extra="    leaderworkerset.sigs.k8s.io/leader-name: vllm-$g"
        fi
        k -n lws create -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $pn
  labels:
    kueue.x-k8s.io/queue-name: user-queue
    leaderworkerset.sigs.k8s.io/name: vllm
    leaderworkerset.sigs.k8s.io/group-index: "$g"
  annotations:
    kueue.x-k8s.io/pod-suspending-parent: leaderworkerset.x-k8s.io/leaderworkerset
    kueue.x-k8s.io/pod-group-serving: "true"
$extra
spec:
  containers:
  - name: $role
    image: busybox
    command: [sleep, "3600"]
    resources: {requests: {cpu: "1"}}
YAML
    done
}
lws_group 0
lws_group 1
expect_exact "lws: each Pod joins its group's Workload, with its role" \
    "vllm-0 $W0 leader vllm-0-1 $W0 worker vllm-1 $W1 leader vllm-1-1 $W1 worker " \
    k -n lws get pods -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.labels.kueue\.x-k8s\.io/pod-group-name} {.metadata.annotations.kueue\.x-k8s\.io/role-hash} {end}'
# Gated Pods wait with Kueue's two gates (the topology one, which Kubernetes
# lets no later update add, is dropped at admission without a topology).
ON="=on-demand" OFF="=kueue.x-k8s.io/admission kueue.x-k8s.io/topology"
if [ $A = 0 ]; then WANT="vllm-0$ON vllm-0-1$ON vllm-1$OFF vllm-1-1$OFF "; else
    WANT="vllm-0$OFF vllm-0-1$OFF vllm-1$ON vllm-1-1$ON "
fi
wait_for "lws: the admitted group's Pods are ungated with the flavor; the other's stay gated" 15 "^$WANT\$" \
    k -n lws get pods -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeSelector.instance-type}{.spec.schedulingGates[*].name} {end}'
# The admitted group evicted (its Workload deactivated): its Pods are
# stopped and deleted as Kueue stops a pod group, and the quota it frees
# admits the other group, whose Pods are ungated with the flavor.
if [ $A = 0 ]; then WA=$W0 B=1; else WA=$W1 B=0; fi
k -n lws patch workload "$WA" --type=merge -p '{"spec":{"active":false}}' >/dev/null
wait_for "lws: the evicted group's Pods are deleted; the other group's run with the flavor" 20 \
    "^vllm-$B$ON vllm-$B-1$ON \$" \
    k -n lws get pods -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeSelector.instance-type}{.spec.schedulingGates[*].name} {end}'
expect_exact "lws: the evicted group's Workload is pending, deactivated" "false False" \
    k -n lws get workload "$WA" -o jsonpath='{.spec.active} {.status.conditions[?(@.type=="QuotaReserved")].status}'
# The operator makes the evicted group's Pods again; reactivated while the
# other group is evicted in turn, it is readmitted and its new Pods are
# ungated with the flavor.
lws_group $A
if [ $A = 0 ]; then WB=$W1; else WB=$W0; fi
k -n lws patch workload "$WB" --type=merge -p '{"spec":{"active":false}}' >/dev/null
k -n lws patch workload "$WA" --type=merge -p '{"spec":{"active":true}}' >/dev/null
wait_for "lws: the evicted group readmitted, its new Pods run with the flavor; the other's deleted" 20 \
    "^vllm-$A$ON vllm-$A-1$ON \$" \
    k -n lws get pods -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeSelector.instance-type}{.spec.schedulingGates[*].name} {end}'
k -n lws patch leaderworkerset vllm --type=merge -p '{"spec":{"replicas":1}}' >/dev/null
wait_for "lws: scaled down to one group, the other group's Workload goes" 15 "^$W0\$" \
    k -n lws get workloads -o jsonpath='{.items[*].metadata.name}'
k -n lws delete leaderworkerset vllm >/dev/null
wait_for "lws: deleted, its Workloads go and the quota is free" 20 '^ 0$' \
    sh -c "echo \"\$(timeout $E2E_TIMEOUT kubectl --kubeconfig '$KC' -n lws get workloads -o jsonpath='{.items[*].metadata.name}') \$(timeout $E2E_TIMEOUT kubectl --kubeconfig '$KC' get cq lws-cq -o jsonpath='{.status.reservingWorkloads}')\""
# The LeaderWorkerSet's Pods name their group's Workload as prebuilt: a
# pod group that names one waits for it rather than making its own.
k -n lws create -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: waits
  labels:
    kueue.x-k8s.io/queue-name: user-queue
    kueue.x-k8s.io/pod-group-name: later
    kueue.x-k8s.io/prebuilt-workload-name: later
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "1"
spec:
  containers:
  - {name: c, image: busybox, command: [sleep, "3600"], resources: {requests: {cpu: "1"}}}
YAML
sleep 2
expect_exact "a pod group naming a prebuilt Workload waits for it (none is made)" "" \
    k -n lws get workloads -o jsonpath='{.items[*].metadata.name}'
stop_server "$PID"
