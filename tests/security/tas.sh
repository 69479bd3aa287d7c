# tas.sh -- topology-aware scheduling in `cueue serve`, end to end with the
# real kubectl: Kueue's TAS sample (a Topology of blocks, racks and hosts,
# a flavor over it, Nodes this machine stands in for) and its
# sample-job-required Job: the Workload is admitted with a
# topologyAssignment within one rack, the Pods start gated
# (kueue.x-k8s.io/topology), the TopologyUngater gives each the nodeSelector
# of its host, and each runs bound to that Node. A Job that fits no rack
# stays pending with Kueue's message; a running Pod without topology takes
# its Node's capacity. A tenant can neither create Nodes,
# nor label a Pod with a pod set without the topology gate, nor remove the
# gate, to have the node bind a Pod outside the quota. (Sourced by run.sh
# after lib.sh.)

need kubectl

cat >"$TMP/tas-config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod]
YAML
start_server tas --controllers all --executor local --config "$TMP/tas-config.yaml" || exit 1
D="$SRC/tests/data/tas"
k apply -f "$D/queues.yaml" -f "$D/nodes.yaml" >/dev/null
for n in b1-r1-x1 b1-r1-x2 b1-r2-x3 b1-r2-x4; do
    k patch node "$n" --subresource=status --type=merge --patch-file "$D/nodes-status.json" >/dev/null
done
settle 10 '^True$' k get cq tas-cluster-queue -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'

# The sample Job: 10 pods of 1 CPU, required within a rack (12 CPUs each).
JOB=$(k create -f "$D/job-required.yaml" -o jsonpath='{.metadata.name}')
wait_for "tas: the Job's Workload is admitted" 20 '^True$' \
    k get workloads -o jsonpath="{.items[?(@.metadata.ownerReferences[0].name==\"$JOB\")].status.conditions[?(@.type==\"Admitted\")].status}"
TA=$(k get workloads -o jsonpath="{.items[?(@.metadata.ownerReferences[0].name==\"$JOB\")].status.admission.podSetAssignments[0].topologyAssignment}")
expect_grep "tas: topologyAssignment by host, two hosts of one rack (6 + 4 pods)" \
    '"levels":\["kubernetes.io/hostname"\].*"domainCount":2.*"individual":\[6,4\].*"prefix":"b1-r[12]-x"' \
    echo "$TA"
wait_for "tas: the Job completes" 30 '^True$' \
    k get job "$JOB" -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
PODS=$(k get pods -l "job-name=$JOB" -o jsonpath='{range .items[*]}{.spec.nodeName} {.spec.nodeSelector.kubernetes\.io/hostname} {.spec.schedulingGates}{"\n"}{end}')
expect_exact "tas: ten Pods, ungated, each bound to the host its nodeSelector names" 10 \
    sh -c "printf '%s\n' \"$PODS\" | awk '\$1 != \"\" && \$1 == \$2 && NF == 2' | wc -l | tr -d ' '"
expect_exact "tas: all of them in one rack" 1 \
    sh -c "printf '%s\n' \"$PODS\" | sed -n 's/^b1-\(r[12]\)-.*/\1/p' | sort -u | wc -l | tr -d ' '"
# An Indexed Job: its Pods are placed by rank, indexes 0-5 on the first
# host of the assignment, 6-9 on the second.
RANKS=$(k get pods -l "job-name=$JOB" -o jsonpath='{range .items[*]}{.metadata.labels.batch\.kubernetes\.io/job-completion-index} {.spec.nodeName}{"\n"}{end}' | sort -n)
expect_exact "tas: indexes 0-9, one Pod each" "0 1 2 3 4 5 6 7 8 9" \
    sh -c "printf '%s\n' \"$RANKS\" | awk '{print \$1}' | tr '\n' ' ' | sed 's/ \$//'"
expect_exact "tas: by rank, 0-5 on the first host, 6-9 on the second" "6 4 1" \
    sh -c "printf '%s\n' \"$RANKS\" | awk '\$1 < 6 {a[\$2]++} \$1 >= 6 {b[\$2]++} END {for (h in a) na++; for (h in b) nb++; for (h in a) for (g in b) lt = (h < g); print a[h] + 0, b[g] + 0, (na == 1 && nb == 1 && lt)}'"
expect_exact "tas: the Job counts completed indexes" "10 0-9" \
    k get job "$JOB" -o jsonpath='{.status.succeeded} {.status.completedIndexes}'

# Each Pod of an Indexed Job has its index in JOB_COMPLETION_INDEX (it
# fails otherwise), and its Workload is placed like any other.
k create -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata:
  name: indexed-env
  labels: {kueue.x-k8s.io/queue-name: tas-user-queue}
spec:
  parallelism: 3
  completions: 3
  completionMode: Indexed
  backoffLimit: 0
  template:
    metadata:
      annotations: {kueue.x-k8s.io/podset-required-topology: cloud.provider.com/topology-rack}
    spec:
      containers:
      - name: c
        image: busybox
        command: ["sh", "-c", "case \"$JOB_COMPLETION_INDEX\" in [0-2]) exit 0;; esac; exit 1"]
        resources:
          requests: {cpu: "1", memory: 200Mi}
      restartPolicy: Never
YAML
wait_for "tas: an Indexed Job's Pods see JOB_COMPLETION_INDEX" 30 '^True 0-2$' \
    k get job indexed-env -o jsonpath='{.status.conditions[?(@.type=="Complete")].status} {.status.completedIndexes}'

# 13 pods fit no rack: pending with Kueue's reason and message.
sed 's/parallelism: 10/parallelism: 13/; s/completions: 10/completions: 13/' "$D/job-required.yaml" >"$TMP/big.yaml"
BIG=$(k create -f "$TMP/big.yaml" -o jsonpath='{.metadata.name}')
wait_for "tas: a Job that fits no rack waits, TopologyPlacementFailed, with Kueue's message" 20 \
    "^TopologyPlacementFailed couldn't assign flavors to pod set main: topology \"default\" allows to fit only 12 out of 13 pod\(s\)$" \
    k get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$BIG\")]}{.status.conditions[?(@.type==\"QuotaReserved\")].reason} {.status.conditions[?(@.type==\"QuotaReserved\")].message}{end}"
expect_exact "tas: its Job stays suspended" true k get job "$BIG" -o jsonpath='{.spec.suspend}'
BIGWL=$(k get workloads -o jsonpath="{.items[?(@.metadata.ownerReferences[0].name==\"$BIG\")].metadata.name}")
expect "tas: cueue explain shows the level that did not fit and why" \
    "topology default, level cloud.provider.com/topology-rack: 2 domains, at most 12 pods in one, 13 needed: does not fit" \
    "$CUEUE" explain workload "default/$BIGWL" --kubeconfig "$KC"
WL=$(k get workloads -o jsonpath="{.items[?(@.metadata.ownerReferences[0].name==\"$JOB\")].metadata.name}")
expect_grep "tas: the decision log shows the domains an admission chose" \
    "^    placed: 6 of pod set main on b1-r[12]-x[1-4], 4 of pod set main on b1-r[12]-x[1-4]" \
    "$CUEUE" explain --history workload "default/$WL" --kubeconfig "$KC"

# Hostile tenant.
ROLES="kueue-batch-user-role edit" tenant mallory default
expect "tas: a tenant may not create a Node" "forbidden" \
    kt "$TKC" create -f - <<'YAML'
apiVersion: v1
kind: Node
metadata:
  name: rogue
  labels: {cloud.provider.com/node-group: tas-group, kubernetes.io/hostname: rogue}
YAML
cat >"$TMP/rogue-pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: rogue
  labels: {kueue.x-k8s.io/podset: main}
spec:
  nodeSelector: {kubernetes.io/hostname: b1-r2-x3}
  containers:
  - {name: c, image: busybox, command: [sleep, "60"]}
YAML
expect "tas: a tenant may not create a Pod labelled with a pod set, ungated" \
    "only Kueue labels a Pod with its pod set" kt "$TKC" create -f "$TMP/rogue-pod.yaml"
sed 's/^spec:$/spec:\n  schedulingGates: [{name: kueue.x-k8s.io\/topology}]/' "$TMP/rogue-pod.yaml" >"$TMP/gated-pod.yaml"
kt "$TKC" create -f "$TMP/gated-pod.yaml" >/dev/null 2>&1
expect "tas: nor remove the topology gate" "only Kueue removes the scheduling gate kueue.x-k8s.io/topology" \
    kt "$TKC" patch pod rogue --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]'
sed 's/  labels: {kueue.x-k8s.io\/podset: main}/  labels: {app: rogue}/; s/name: rogue$/name: rogue2/' "$TMP/rogue-pod.yaml" >"$TMP/plain-pod.yaml"
kt "$TKC" create -f "$TMP/plain-pod.yaml" >/dev/null 2>&1
expect "tas: nor label a Pod with a pod set afterwards" "only Kueue removes the scheduling gate kueue.x-k8s.io/topology" \
    kt "$TKC" label pod rogue2 kueue.x-k8s.io/podset=main
sleep 1
expect_exact "tas: neither Pod is bound to a Node" " " \
    k get pods rogue rogue2 -o jsonpath='{.items[0].spec.nodeName} {.items[1].spec.nodeName}'

# Every running Pod takes its Node's capacity, not only those Kueue started
# (Kueue's non-TAS usage): a Pod bound by hand to a host of each rack
# leaves 11 CPUs in each, and 12 pods fit no rack until one of them is gone.
for h in b1-r1-x1 b1-r2-x3; do
    k create -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: by-hand-$h}
spec:
  nodeName: $h
  restartPolicy: Never
  containers:
  - {name: c, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: "1"}}}
YAML
done
sed 's/parallelism: 10/parallelism: 12/; s/completions: 10/completions: 12/' "$D/job-required.yaml" >"$TMP/twelve.yaml"
TWELVE=$(k create -f "$TMP/twelve.yaml" -o jsonpath='{.metadata.name}')
wait_for "tas: a Pod Kueue did not start takes its Node's capacity" 20 \
    '^(WaitingForQuota|TopologyPlacementFailed) .*topology "default" allows to fit only 11 out of 12 pod\(s\)' \
    k get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$TWELVE\")]}{.status.conditions[?(@.type==\"QuotaReserved\")].reason} {.status.conditions[?(@.type==\"QuotaReserved\")].message}{end}"
k delete pod by-hand-b1-r2-x3 --wait=false >/dev/null 2>&1
wait_for "tas: once it is gone, the 12 pods are placed in its rack" 40 \
    '"podCounts":\{"universal":6\}.*"prefix":"b1-r2-x"' \
    k get workloads -o jsonpath="{.items[?(@.metadata.ownerReferences[0].name==\"$TWELVE\")].status.admission.podSetAssignments[0].topologyAssignment}"
k delete pod by-hand-b1-r1-x1 --wait=false >/dev/null 2>&1
k delete job "$TWELVE" --wait=false >/dev/null 2>&1

# Plain Pods are placed too (Kueue's pod integration): created with the
# topology gate beside Kueue's, the group's Workload asks for one host,
# and the TopologyUngater binds both Pods there.
for i in 0 1; do
    k create -o jsonpath='{.spec.schedulingGates[*].name}{"\n"}' -f - >"$TMP/gates-$i" <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: grouped-$i
  labels: {kueue.x-k8s.io/queue-name: tas-user-queue, kueue.x-k8s.io/pod-group-name: grouped}
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "2"
    kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname
spec:
  restartPolicy: Never
  containers:
  - {name: c, image: busybox, command: [sleep, "1"], resources: {requests: {cpu: "1"}}}
YAML
done
expect_exact "tas: a plain Pod is created with both gates" \
    "kueue.x-k8s.io/admission kueue.x-k8s.io/topology" cat "$TMP/gates-0"
wait_for "tas: the group's Workload asks for one host" 20 '^kubernetes.io/hostname kueue.x-k8s.io/pod-group-pod-index$' \
    k get workload grouped -o jsonpath='{.spec.podSets[0].topologyRequest.required} {.spec.podSets[0].topologyRequest.podIndexLabel}'
wait_for "tas: both Pods run on the one host of its assignment" 30 '^(b1-r[12]-x[1-4]) \1 Succeeded Succeeded$' \
    k get pods grouped-0 grouped-1 -o jsonpath='{.items[0].spec.nodeName} {.items[1].spec.nodeName} {.items[0].status.phase} {.items[1].status.phase}'

# The node binds a Pod to the host its topology names only if that Node
# takes it, as the scheduler's filters decide (the rest of the nodeSelector,
# required node affinity, taints): a plain Pod asks for a pool label only
# b1-r2-x4 carries, and a gate of its own holds it. Once Kueue has placed and
# ungated it there, the label is taken off the Node and the gate removed: the
# Pod stays Pending, PodScheduled=False/Unschedulable, with the scheduler's
# FailedScheduling Event; with the label back, it is bound and runs.
k label node b1-r2-x4 example.com/pool=a >/dev/null
k create -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: pooled
  labels: {kueue.x-k8s.io/queue-name: tas-user-queue}
  annotations: {kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname}
spec:
  restartPolicy: Never
  schedulingGates: [{name: example.com/hold}]
  nodeSelector: {example.com/pool: a}
  containers:
  - {name: c, image: busybox, command: [sleep, "1"], resources: {requests: {cpu: "1"}}}
YAML
wait_for "tas: a Pod asking for a pool is placed on the one Node of that pool, held by its own gate" 20 \
    '^b1-r2-x4 example.com/hold $' \
    k get pod pooled -o jsonpath='{.spec.nodeSelector.kubernetes\.io/hostname} {.spec.schedulingGates[*].name} {.spec.nodeName}'
k label node b1-r2-x4 example.com/pool- >/dev/null
k patch pod pooled --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]' >/dev/null
wait_for "tas: a Pod its Node no longer matches is not bound: Unschedulable, with the scheduler's message" 20 \
    "^False Unschedulable 0/([0-9]+) nodes are available: \\1 node\\(s\\) didn't match Pod's node affinity/selector\\. preemption: 0/\\1 nodes are available: \\1 Preemption is not helpful for scheduling\\.$" \
    k get pod pooled -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status} {.status.conditions[?(@.type=="PodScheduled")].reason} {.status.conditions[?(@.type=="PodScheduled")].message}'
expect_grep "tas: and a FailedScheduling Event from default-scheduler" \
    "^FailedScheduling default-scheduler 0/[0-9]+ nodes are available" \
    k get events --field-selector involvedObject.name=pooled \
    -o jsonpath='{range .items[*]}{.reason} {.source.component} {.message}{"\n"}{end}'
sleep 2
expect_exact "tas: it stays unbound, Pending" " Pending" \
    k get pod pooled -o jsonpath='{.spec.nodeName} {.status.phase}'
k label node b1-r2-x4 example.com/pool=a >/dev/null
wait_for "tas: with the label back, it is bound to that Node and runs" 20 '^b1-r2-x4 Succeeded$' \
    k get pod pooled -o jsonpath='{.spec.nodeName} {.status.phase}'

# Pods Kueue runs without a topology take their Node's capacity: with this
# machine's Node in rack r9, one such Pod running there leaves room for one
# pod fewer of a TAS Job confined to r9.
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: plain}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: plain-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: plain
      resources: [{name: cpu, nominalQuota: 100}, {name: memory, nominalQuota: 100Gi}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: plain-queue, namespace: default}
spec: {clusterQueue: plain-cq}
YAML
CPU=$(k get node cueue-local -o jsonpath='{.status.allocatable.cpu}')
case "$CPU" in *m) N=$((${CPU%m} / 1000)) ;; *) N=$CPU ;; esac
if [ "${N:-0}" -ge 2 ] 2>/dev/null; then
    sed 's/tas-user-queue/plain-queue/; s/parallelism: 10/parallelism: 1/; s/completions: 10/completions: 1/;
         s/"sleep", "1"/"sleep", "120"/; /podset-required-topology/d; /annotations:/d' \
        "$D/job-required.yaml" >"$TMP/plain.yaml"
    PLAIN=$(k create -f "$TMP/plain.yaml" -o jsonpath='{.metadata.name}')
    settle 20 '^Running$' k get pods -l "job-name=$PLAIN" -o jsonpath='{.items[0].status.phase}'
    k label node cueue-local cloud.provider.com/node-group=tas-group \
        cloud.provider.com/topology-block=b2 cloud.provider.com/topology-rack=r9 >/dev/null
    sed "s/parallelism: 10/parallelism: $N/; s/completions: 10/completions: $N/;
         s/^    spec:\$/    spec:\n      nodeSelector: {cloud.provider.com\/topology-rack: r9}/" \
        "$D/job-required.yaml" >"$TMP/r9.yaml"
    R9=$(k create -f "$TMP/r9.yaml" -o jsonpath='{.metadata.name}')
    wait_for "tas: a running Pod without topology takes its Node's capacity" 20 \
        "^TopologyPlacementFailed .*topology \"default\" (allows to fit only $((N - 1)) out|doesn't allow to fit any) of $N pod\(s\)" \
        k get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$R9\")]}{.status.conditions[?(@.type==\"QuotaReserved\")].reason} {.status.conditions[?(@.type==\"QuotaReserved\")].message}{end}"
    k delete job "$PLAIN" --wait=false >/dev/null 2>&1
    wait_for "tas: once it is gone, the TAS Job is admitted on this machine's Node" 40 "^cueue-local( cueue-local)* ?$" \
        k get pods -l "job-name=$R9" -o jsonpath='{range .items[*]}{.spec.nodeName} {end}'
else
    note "SKIP: this machine has fewer than 2 CPUs"
fi

# ---- a Node that fails under a running TAS workload (a server of its own) ----
# Kueue's default: the node controller lists the Node in the workload's
# status.unhealthyNodes once its Pods there have stopped, and the scheduler
# places those pods again in the same rack, or evicts the workload
# (NodeFailures) when nothing is left there.
start_server tasfail --controllers all --executor local || exit 1
k apply -f "$D/queues.yaml" -f "$D/nodes.yaml" >/dev/null
for n in b1-r1-x1 b1-r1-x2 b1-r2-x3 b1-r2-x4; do
    k patch node "$n" --subresource=status --type=merge --patch-file "$D/nodes-status.json" >/dev/null
done
settle 10 '^True$' k get cq tas-cluster-queue -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
notready() {
    k patch node "$1" --subresource=status --type=merge \
        -p '{"status":{"conditions":[{"type":"Ready","status":"False","reason":"KubeletNotReady","message":"simulated failure"}]}}' >/dev/null
}
wl_of() { k get workloads -o jsonpath="{.items[?(@.metadata.ownerReferences[0].name==\"$1\")].metadata.name}"; }
hosts_of() {
    k get pods -l "job-name=$1" -o jsonpath='{range .items[?(@.status.phase=="Running")]}{.spec.nodeName}{"\n"}{end}' | sort | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' '
}

# Four pods of 1 CPU in one rack: all on b1-r1-x1 (the first host, best fit).
# (Pods lost with a Node count as failures: room for two losses.)
sed 's/parallelism: 10/parallelism: 4/; s/completions: 10/completions: 4/; s/"sleep", "1"/"sleep", "600"/;
     s/^  completionMode: Indexed$/  completionMode: Indexed\n  backoffLimit: 20/' \
    "$D/job-required.yaml" >"$TMP/fail.yaml"
FJ=$(k create -f "$TMP/fail.yaml" -o jsonpath='{.metadata.name}')
wait_for "tas failure: four Pods run on b1-r1-x1" 30 '^b1-r1-x1:4 $' hosts_of "$FJ"
FW=$(wl_of "$FJ")
notready b1-r1-x1
wait_for "tas failure: the Pods of a Node set NotReady stop, Failed, NodeLost" 20 '^(NodeLost ){4}$' \
    sh -c "kubectl --kubeconfig '$KC' get pods -l job-name=$FJ -o jsonpath='{range .items[?(@.spec.nodeName==\"b1-r1-x1\")]}{.status.reason} {end}'"
wait_for "tas failure: the workload is placed again, on b1-r1-x2 of the same rack, still admitted" 20 \
    '^b1-r1-x2 4 True $' \
    k get workload "$FW" -o jsonpath='{.status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0].universal} {.status.admission.podSetAssignments[0].topologyAssignment.slices[0].podCounts.universal} {.status.conditions[?(@.type=="Admitted")].status} {.status.unhealthyNodes}'
wait_for "tas failure: the Job's new Pods run there" 30 '^b1-r1-x2:4 $' hosts_of "$FJ"
expect_exact "tas failure: never evicted" "" \
    k get workload "$FW" -o jsonpath='{.status.conditions[?(@.type=="Evicted")].status}'

# Eight pods in rack r2 (6 on b1-r2-x3, 2 on b1-r2-x4); b1-r2-x4 fails and
# rack r2 has no room left for its two: evicted, NodeFailures, as Kueue's
# TASFailedNodeReplacementFailFast.
sed 's/parallelism: 10/parallelism: 8/; s/completions: 10/completions: 8/; s/"sleep", "1"/"sleep", "600"/' \
    "$D/job-required.yaml" >"$TMP/fail8.yaml"
EJ=$(k create -f "$TMP/fail8.yaml" -o jsonpath='{.metadata.name}')
wait_for "tas failure: eight Pods run in rack r2" 30 '^b1-r2-x3:6 b1-r2-x4:2 $' hosts_of "$EJ"
EW=$(wl_of "$EJ")
notready b1-r2-x4
wait_for "tas failure: no room left in the rack: evicted, NodeFailures, with Kueue's message" 30 \
    '^NodeFailures Workload was evicted as there was no replacement for unhealthy node\(s\): b1-r2-x4$' \
    k get workload "$EW" -o jsonpath='{.status.conditions[?(@.type=="Evicted")].reason} {.status.conditions[?(@.type=="Evicted")].message}'
wait_for "tas failure: its Job is suspended" 30 '^true$' k get job "$EJ" -o jsonpath='{.spec.suspend}'

# A deleted Node fails at once. A third Job of two pods goes beside the
# first on b1-r1-x2 (rack r1's last Ready host, best fit); b1-r1-x2 is
# deleted: both workloads are placed again in rack r2, on b1-r2-x3.
sed 's/parallelism: 4/parallelism: 2/; s/completions: 4/completions: 2/' "$TMP/fail.yaml" >"$TMP/fail2.yaml"
CJ=$(k create -f "$TMP/fail2.yaml" -o jsonpath='{.metadata.name}')
wait_for "tas failure: a third Job runs beside the first on b1-r1-x2" 30 '^b1-r1-x2:2 $' hosts_of "$CJ"
CW=$(wl_of "$CJ")
k delete node b1-r1-x2 >/dev/null
placed() {
    k get workload "$1" -o jsonpath='{.status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0].universal} {.status.admission.podSetAssignments[0].topologyAssignment.slices[0].podCounts.universal} {.status.conditions[?(@.type=="Admitted")].status}'
}
wait_for "tas failure: a deleted Node: the first workload is placed again in the other rack" 30 \
    '^b1-r2-x3 4 True$' placed "$FW"
wait_for "tas failure: and so is the third" 30 '^b1-r2-x3 2 True$' placed "$CW"
# (The first Job waits out its back-off after eight lost Pods.)
wait_for "tas failure: the third Job's new Pods run there" 90 '^b1-r2-x3:2 $' hosts_of "$CJ"

# ---- a ProvisioningRequest check: the topology waits for the Nodes ----
# As Kueue: quota is reserved with the topology request delayed
# (delayedTopologyRequest Pending, no placement); once the autoscaler
# (played here) sets the request Provisioned, the check is Ready, the next
# scheduling cycle places the pods, the request turns Ready and the
# workload is Admitted.
start_server tasprov --controllers all --executor local || exit 1
k apply -f "$D/queues.yaml" -f "$D/nodes.yaml" >/dev/null
for n in b1-r1-x1 b1-r1-x2 b1-r2-x3 b1-r2-x4; do
    k patch node "$n" --subresource=status --type=merge --patch-file "$D/nodes-status.json" >/dev/null
done
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata: {name: tas-prov}
spec: {provisioningClassName: check-capacity.autoscaling.x-k8s.io}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: tas-prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: tas-prov}
YAML
k patch cq tas-cluster-queue --type=merge \
    -p '{"spec":{"admissionChecksStrategy":{"admissionChecks":[{"name":"tas-prov"}]}}}' >/dev/null
settle 10 '^True$' k get cq tas-cluster-queue -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
sed 's/parallelism: 10/parallelism: 4/; s/completions: 10/completions: 4/' "$D/job-required.yaml" >"$TMP/prov.yaml"
PJ=$(k create -f "$TMP/prov.yaml" -o jsonpath='{.metadata.name}')
psa() {
    k get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$PJ\")]}{.status.conditions[?(@.type==\"QuotaReserved\")].status} {.status.admission.podSetAssignments[0].delayedTopologyRequest} {.status.admission.podSetAssignments[0].topologyAssignment.slices[0].podCounts.universal} {.status.admissionChecks[0].state} {.status.conditions[?(@.type==\"Admitted\")].status}{end}"
}
wait_for "tas provisioning: quota reserved, the topology request Pending and unplaced" 20 \
    '^True Pending  Pending False$' psa
expect_exact "tas provisioning: the Job stays suspended" "true" \
    k get job "$PJ" -o jsonpath='{.spec.suspend}'
settle 20 'provisioningrequest' k get provisioningrequests -o name || exit 1
PR=$(k get provisioningrequests -o jsonpath='{.items[0].metadata.name}')
k patch provisioningrequest "$PR" --subresource=status --type=merge -p \
    '{"status":{"conditions":[{"type":"Provisioned","status":"True","reason":"Provisioned","message":"capacity is ready","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
wait_for "tas provisioning: once Provisioned, placed on one host, the request Ready, Admitted" 30 \
    '^True Ready 4 Ready True$' psa
wait_for "tas provisioning: the Job completes" 30 '^True$' \
    k get job "$PJ" -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
expect_exact "tas provisioning: its Pods ran on the host of the placement" \
    "$(k get workloads -o jsonpath="{.items[?(@.metadata.ownerReferences[0].name==\"$PJ\")].status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0].universal}")" \
    sh -c "kubectl --kubeconfig '$KC' get pods -l job-name=$PJ -o jsonpath='{range .items[*]}{.spec.nodeName}{\"\n\"}{end}' | sort -u"
expect_exact "tas provisioning: the placement is no second quota reservation (one QuotaReserved Event)" 1 \
    sh -c "kubectl --kubeconfig '$KC' get events --field-selector reason=QuotaReserved,involvedObject.kind=Workload -o name | wc -l | tr -d ' '"

# A Job that fits the quota but no rack (13 pods of 1 CPU, racks of 12):
# its topology request is delayed as above; once Provisioned, the second
# pass finds no room, and Kueue's SecondPassFailed Event says why. It keeps
# its reservation, not Admitted.
sed 's/parallelism: 10/parallelism: 13/; s/completions: 10/completions: 13/' "$D/job-required.yaml" >"$TMP/prov13.yaml"
PJ=$(k create -f "$TMP/prov13.yaml" -o jsonpath='{.metadata.name}')
wait_for "tas provisioning: a Job too big for a rack: quota reserved, the topology request Pending" 20 \
    '^True Pending  Pending False$' psa
settle 20 '.' sh -c "kubectl --kubeconfig '$KC' get provisioningrequests -o name | grep -v '/$PR\$'" || exit 1
PR2=$(k get provisioningrequests -o name | grep -v "/$PR\$" | head -n 1)
k patch "$PR2" --subresource=status --type=merge -p \
    '{"status":{"conditions":[{"type":"Provisioned","status":"True","reason":"Provisioned","message":"capacity is ready","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
wait_for "tas provisioning: the second pass fails: a SecondPassFailed Event with Kueue's message" 30 \
    '^Warning couldn.t assign flavors to pod set main: topology "default" allows to fit only 12 out of 13 pod\(s\)$' \
    k get events --field-selector reason=SecondPassFailed -o jsonpath='{range .items[*]}{.type} {.message}{"\n"}{end}'
expect_exact "tas provisioning: it keeps its reservation, the request Pending, not Admitted" \
    "True Pending  Ready False" psa
sleep 2 # further cycles try it again, with the same message
expect_exact "tas provisioning: one SecondPassFailed Event for one message" 1 \
    sh -c "kubectl --kubeconfig '$KC' get events --field-selector reason=SecondPassFailed -o name | wc -l | tr -d ' '"

# The check's podSetUpdates select the provisioned node pool: the
# ProvisioningRequestConfig takes the pool from the request's
# provisioningClassDetails, and the second pass merges the Ready check's
# nodeSelector into the pod set, as Kueue's: 4 pods that would go to the
# first host (b1-r1-x1, best fit) are placed in the pool the autoscaler
# (played here) provisioned, rack r2's hosts, only.
k label node b1-r1-x1 b1-r1-x2 cloud.provider.com/node-pool=pool-a >/dev/null
k label node b1-r2-x3 b1-r2-x4 cloud.provider.com/node-pool=pool-b >/dev/null
k patch provisioningrequestconfig tas-prov --type=merge -p \
    '{"spec":{"podSetUpdates":{"nodeSelector":[{"key":"cloud.provider.com/node-pool","valueFromProvisioningClassDetail":"node-pool"}]}}}' >/dev/null
k get provisioningrequests -o name >"$TMP/prs.before"
PJ=$(k create -f "$TMP/prov.yaml" -o jsonpath='{.metadata.name}')
wait_for "tas provisioning pool: quota reserved, the topology request Pending" 20 \
    '^True Pending  Pending False$' psa
settle 20 '.' sh -c "kubectl --kubeconfig '$KC' get provisioningrequests -o name | grep -v -x -F -f '$TMP/prs.before'" || exit 1
PR3=$(k get provisioningrequests -o name | grep -v -x -F -f "$TMP/prs.before" | head -n 1)
k patch "$PR3" --subresource=status --type=merge -p \
    '{"status":{"provisioningClassDetails":{"node-pool":"pool-b"},"conditions":[{"type":"Provisioned","status":"True","reason":"Provisioned","message":"capacity is ready","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
wait_for "tas provisioning pool: the check Ready with the pool's nodeSelector" 30 '^pool-b$' \
    k get workloads -o jsonpath="{.items[?(@.metadata.ownerReferences[0].name==\"$PJ\")].status.admissionChecks[0].podSetUpdates[0].nodeSelector.cloud\.provider\.com/node-pool}"
wait_for "tas provisioning pool: placed, the request Ready, Admitted" 30 '^True Ready 4 Ready True$' psa
expect_grep "tas provisioning pool: the placement uses the provisioned pool's hosts only" '^b1-r2-x[34]$' \
    k get workloads -o jsonpath="{.items[?(@.metadata.ownerReferences[0].name==\"$PJ\")].status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0].universal}"
wait_for "tas provisioning pool: the Job completes" 30 '^True$' \
    k get job "$PJ" -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
expect_grep "tas provisioning pool: its Pods ran in the pool" '^(b1-r2-x[34] )+$' \
    sh -c "kubectl --kubeconfig '$KC' get pods -l job-name=$PJ -o jsonpath='{range .items[*]}{.spec.nodeName}{\"\n\"}{end}' | sort -u | tr '\n' ' '"

# ---- a pod-set group's ranks (a LeaderWorkerSet's leader and workers) ----
# As Kueue's TopologyUngater: the workers of a group are ranked after the
# leader, their index (leaderworkerset.sigs.k8s.io/worker-index, 1 to 3)
# less the leader's count, valid below the group's 4 pods. The Pods are
# named against their indexes (w-a is index 3), so ranks and name order
# disagree: rank r goes to the host of the assignment's r-th pod.
start_server tasrank --controllers all --executor none || exit 1
k apply -f "$D/queues.yaml" -f "$D/nodes.yaml" >/dev/null
for n in b1-r1-x1 b1-r1-x2 b1-r2-x3 b1-r2-x4; do
    k patch node "$n" --subresource=status --type=merge --patch-file "$D/nodes-status.json" >/dev/null
done
settle 10 '^True$' k get cq tas-cluster-queue -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
k create -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: group, namespace: default}
spec:
  queueName: tas-user-queue
  podSets:
  - name: leader
    count: 1
    topologyRequest: {required: cloud.provider.com/topology-rack, podSetGroupName: g}
    template:
      spec:
        containers:
        - {name: c, image: busybox, resources: {requests: {cpu: "1"}}}
  - name: workers
    count: 3
    topologyRequest:
      required: cloud.provider.com/topology-rack
      podSetGroupName: g
      podIndexLabel: leaderworkerset.sigs.k8s.io/worker-index
    template:
      spec:
        containers:
        - {name: c, image: busybox, resources: {requests: {cpu: "3"}}}
YAML
wait_for "tas ranks: the group's Workload is admitted" 20 '^True$' \
    k get workload group -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status}'
for p in "w-a 3" "w-b 2" "w-c 1"; do
    set -- $p
    k create -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $1
  labels: {kueue.x-k8s.io/podset: workers, leaderworkerset.sigs.k8s.io/worker-index: "$2"}
  annotations: {kueue.x-k8s.io/workload: group}
spec:
  schedulingGates: [{name: kueue.x-k8s.io/topology}]
  containers:
  - {name: c, image: busybox, resources: {requests: {cpu: "3"}}}
YAML
done
# The hosts of the workers' assignment, one per pod in its order, by rank.
k get workload group -o json | /usr/bin/python3 -c '
import json, sys
psa = [p for p in json.load(sys.stdin)["status"]["admission"]["podSetAssignments"] if p["name"] == "workers"][0]
ta = psa["topologyAssignment"]
hosts = []
for s in ta["slices"]:
    v = s["valuesPerLevel"][-1]
    if "universal" in v:
        names = [v["universal"]] * s["domainCount"]
    else:
        names = [v["individual"].get("prefix", "") + r + v["individual"].get("suffix", "") for r in v["individual"]["roots"]]
    c = s["podCounts"]
    counts = [c["universal"]] * s["domainCount"] if "universal" in c else c["individual"]
    for n, k in zip(names, counts):
        hosts += [n] * k
print("w-a=%s w-b=%s w-c=%s " % (hosts[2], hosts[1], hosts[0]))' >"$TMP/ranks.want"
expect_grep "tas ranks: the workers are placed on two hosts" '^w-a=b1-r[12]-x[1-4] w-b=b1-r[12]-x[1-4] w-c=b1-r[12]-x[1-4] $' cat "$TMP/ranks.want"
wait_for "tas ranks: each worker ungated to the host of its rank (index less the leader's count)" 20 \
    "^$(cat "$TMP/ranks.want")\$" \
    k get pods -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeSelector.kubernetes\.io/hostname} {end}'

# ---- two flavors over the same Node (Kueue's TASHandleOverlappingFlavors) ----
# Flavors ov-a and ov-b select the same Node of 4 CPUs through a Topology
# whose lowest level is the hostname, each the flavor of its own
# ClusterQueue, the two in one cohort (as in Kueue, the end of a workload
# retries the waiting ones of its own queue's cohort only). Once 3 pods
# are admitted there through ov-a, a workload of 2 pods through ov-b sees
# only 1 CPU left and waits; with the first gone, it is admitted on that
# Node.
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Node
metadata:
  name: ov-x1
  labels:
    pool: overlap
    cloud.provider.com/topology-block: b9
    cloud.provider.com/topology-rack: r9
    kubernetes.io/hostname: ov-x1
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: ov-a}
spec: {nodeLabels: {pool: overlap}, topologyName: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: ov-b}
spec: {nodeLabels: {pool: overlap}, topologyName: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: ov-cq-a}
spec:
  cohortName: ov
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: ov-a
      resources: [{name: cpu, nominalQuota: 100}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: ov-cq-b}
spec:
  cohortName: ov
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: ov-b
      resources: [{name: cpu, nominalQuota: 100}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: ov-a, namespace: default}
spec: {clusterQueue: ov-cq-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: ov-b, namespace: default}
spec: {clusterQueue: ov-cq-b}
YAML
k patch node ov-x1 --subresource=status --type=merge \
    -p '{"status":{"capacity":{"cpu":"4","pods":"110"},"allocatable":{"cpu":"4","pods":"110"},"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"simulated"}]}}' >/dev/null
settle 10 '^True True $' k get cq ov-cq-a ov-cq-b -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Active")].status} {end}'
ov_workload() { # name queue pods
    k create -f - >/dev/null <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: $1, namespace: default}
spec:
  queueName: $2
  podSets:
  - name: main
    count: $3
    topologyRequest: {required: kubernetes.io/hostname}
    template:
      spec:
        containers:
        - {name: c, image: busybox, resources: {requests: {cpu: "1"}}}
YAML
}
ov_workload ov-first ov-a 3
wait_for "tas overlap: 3 pods admitted on the Node through ov-a" 20 '^True ov-x1$' \
    k get workload ov-first -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status} {.status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0].universal}'
ov_workload ov-second ov-b 2
wait_for "tas overlap: 2 pods through ov-b wait, the Node's usage through ov-a counted" 20 \
    '^False couldn.t assign flavors to pod set main: topology "default" allows to fit only 1 out of 2 pod\(s\)' \
    k get workload ov-second -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status} {.status.conditions[?(@.type=="QuotaReserved")].message}'
k delete workload ov-first >/dev/null
wait_for "tas overlap: with the first gone, they are admitted on that Node" 20 '^True ov-x1$' \
    k get workload ov-second -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status} {.status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0].universal}'
