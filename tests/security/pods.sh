# pods.sh -- the plain Pod integration in `cueue serve` with hostile
# tenants: a Pod naming a LocalQueue is created gated
# (kueue.x-k8s.io/admission), labelled managed, with Kueue's finalizer; it
# gets a Workload, is ungated with its flavor's node labels once admitted,
# runs on the local executor and finishes its Workload, releasing the
# quota; a Pod beyond the quota waits gated; eviction deletes the Pod. A
# tenant can neither remove the gate nor label a Pod managed to have it
# bound outside the quota. Pod groups share one Workload; a failed
# member is replaced. (Sourced by run.sh after lib.sh.)

need kubectl

cat >"$TMP/pods-config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod]
YAML
start_server pods --controllers all --executor local --config "$TMP/pods-config.yaml" || exit 1

queues --labels 'kubernetes.io/os: linux' team-a 4 memory=4Gi
ROLES="kueue-batch-user-role edit" tenant alice team-a

# Kueue's sample, created by a tenant with the real kubectl.
OUT=$(kt "$TKC" -n team-a create -f "$SRC/tests/data/pods/kueue-pod.yaml" \
    -o jsonpath='{.metadata.name} {.spec.schedulingGates[0].name} {.metadata.labels.kueue\.x-k8s\.io/managed} {.metadata.finalizers[0]}')
P=${OUT%% *}
expect_grep "pod: created by a tenant gated, labelled managed, with Kueue's finalizer" \
    '^kueue-sleep-[a-z0-9]+ kueue.x-k8s.io/admission true kueue.x-k8s.io/managed$' echo "$OUT"
wait_for "pod: its Workload pod-NAME-HASH, one pod set main of count 1" 15 "^pod-$P-[0-9a-f]{5} main 1$" \
    k -n team-a get workloads -o jsonpath='{range .items[*]}{.metadata.name} {.spec.podSets[0].name} {.spec.podSets[0].count}{"\n"}{end}'
wait_for "pod: ungated on admission with the flavor's node labels" 15 '^ linux$' \
    k -n team-a get pod "$P" -o jsonpath='{.spec.schedulingGates} {.spec.nodeSelector.kubernetes\.io/os}'
wait_for "pod: runs on the local executor to completion" 30 '^Succeeded$' \
    k -n team-a get pod "$P" -o jsonpath='{.status.phase}'
wait_for "pod: its Workload finished (Succeeded)" 15 '^True Succeeded$' \
    k -n team-a get workloads -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Finished")].status} {.status.conditions[?(@.type=="Finished")].reason}{"\n"}{end}'
wait_for "pod: Kueue's finalizer removed once finished" 15 '^(\[\])?$' \
    k -n team-a get pod "$P" -o jsonpath='{.metadata.finalizers}'
wait_for "pod: the quota is released" 15 '^0$' \
    k get cq cq -o jsonpath='{.status.reservingWorkloads}'

# Beyond the quota: two Pods of 3 cpus in 4, the second waits gated.
cat >"$TMP/long.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  generateName: long-
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  containers:
  - name: c
    image: busybox
    command: [sleep, "60"]
    resources: {requests: {cpu: "3"}}
YAML
L1=$(kt "$TKC" -n team-a create -f "$TMP/long.yaml" -o jsonpath='{.metadata.name}')
wait_for "pod: the first long Pod runs" 20 '^Running$' k -n team-a get pod "$L1" -o jsonpath='{.status.phase}'
L2=$(kt "$TKC" -n team-a create -f "$TMP/long.yaml" -o jsonpath='{.metadata.name}')
wait_for "pod: the second waits pending in the queue" 15 '^1$' \
    k get cq cq -o jsonpath='{.status.pendingWorkloads}'
expect_exact "pod: ... still gated" "kueue.x-k8s.io/admission" \
    k -n team-a get pod "$L2" -o jsonpath='{.spec.schedulingGates[0].name}'
wait_for "pod: ... which kubectl shows as SchedulingGated" 15 "^$L2 +0/1 +SchedulingGated " \
    k -n team-a get pod "$L2" --no-headers

# Hostile tenants: removing the gate, or creating an ungated managed Pod.
expect "pod: a tenant cannot remove Kueue's scheduling gate" "only Kueue removes the scheduling gate" \
    kt "$TKC" -n team-a patch pod "$L2" --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]'
expect "pod: a tenant cannot create an ungated managed Pod" "only Kueue labels a Pod as managed" \
    kt "$TKC" -n team-a create -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: sneaky, labels: {kueue.x-k8s.io/managed: "true"}}
spec:
  containers: [{name: c, image: busybox, command: [sleep, "60"]}]
YAML
kt "$TKC" -n team-a create -f - >/dev/null 2>&1 <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: plain}
spec:
  containers: [{name: c, image: busybox, command: [sleep, "60"]}]
YAML
expect "pod: a tenant cannot label an unqueued Pod managed" "labels a Pod kueue.x-k8s.io/managed" \
    kt "$TKC" -n team-a label pod plain kueue.x-k8s.io/managed=true
sleep 1
expect_exact "pod: an unqueued Pod is never bound" "Pending " \
    k -n team-a get pod plain -o jsonpath='{.status.phase} {.spec.nodeName}'

# Eviction stops a Pod by deleting it; its Workload goes with it, and the
# waiting Pod is admitted.
W1=$(k -n team-a get workloads -o jsonpath="{range .items[*]}{.metadata.name}{\"\\n\"}{end}" | grep "^pod-$L1-")
k -n team-a patch workload "$W1" --type=merge -p '{"spec":{"active":false}}' >/dev/null
wait_for "pod: a deactivated Workload's Pod is deleted" 30 'NotFound' \
    k -n team-a get pod "$L1"
wait_for "pod: the waiting Pod is admitted and runs" 30 '^Running$' \
    k -n team-a get pod "$L2" -o jsonpath='{.status.phase}'
k -n team-a delete pod "$L2" --wait=false >/dev/null
wait_for "pod: a deleted Pod loses Kueue's finalizer and is gone" 30 'NotFound' \
    k -n team-a get pod "$L2"
expect "pod: the deleted Pod's Workload went with it" "NotFound" \
    k -n team-a get workload "$W1"

# Pod groups: one Workload named after the group, created once all its
# members exist, one pod set per role; a failed member's replacement is
# started in the admitted group and the failed one let go.
grp_pod() { # NAME GROUP ROLE COMMAND...
    n=$1 g=$2 r=$3
    shift 3
    cmd=$(printf '"%s",' "$@")
    kt "$TKC" -n team-a create -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $n
  labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/pod-group-name: $g}
  annotations: {kueue.x-k8s.io/pod-group-total-count: "2", kueue.x-k8s.io/role-hash: $r}
spec:
  restartPolicy: Never
  containers:
  - name: c
    image: busybox
    command: [${cmd%,}]
    resources: {requests: {cpu: "1"}}
YAML
}
grp_pod g1 grp main sleep 1
sleep 1
expect_exact "group: no Workload before the whole group exists" "" \
    k -n team-a get workload grp -o name
grp_pod g2 grp main sleep 1
wait_for "group: one Workload named after the group, pod set main of 2" 15 '^main 2 true$' \
    k -n team-a get workload grp -o jsonpath='{.spec.podSets[0].name} {.spec.podSets[0].count} {.metadata.annotations.kueue\.x-k8s\.io/is-group-workload}'
wait_for "group: both members run to completion" 30 '^Succeeded Succeeded$' \
    k -n team-a get pod g1 g2 -o jsonpath='{.items[0].status.phase} {.items[1].status.phase}'
wait_for "group: the Workload finishes when all succeeded" 15 '^True Pods succeeded: 2/2.$' \
    k -n team-a get workload grp -o jsonpath='{.status.conditions[?(@.type=="Finished")].status} {.status.conditions[?(@.type=="Finished")].message}'
wait_for "group: the members' finalizers are removed" 15 '^(\[\])? (\[\])?$' \
    k -n team-a get pod g1 g2 -o jsonpath='{.items[0].metadata.finalizers} {.items[1].metadata.finalizers}'

grp_pod r1 retry worker sleep 4
grp_pod r2 retry worker sh -c "exit 1"
wait_for "group: a member fails" 30 '^Failed$' k -n team-a get pod r2 -o jsonpath='{.status.phase}'
grp_pod r3 retry worker sleep 1
wait_for "group: its replacement is started in the admitted group" 30 '^Succeeded$' \
    k -n team-a get pod r3 -o jsonpath='{.status.phase}'
wait_for "group: the failed member is let go (no finalizer)" 15 '^(\[\])?$' \
    k -n team-a get pod r2 -o jsonpath='{.metadata.finalizers}'
wait_for "group: the group finishes with its replacement" 30 '^True Pods succeeded: 2/2.$' \
    k -n team-a get workload retry -o jsonpath='{.status.conditions[?(@.type=="Finished")].status} {.status.conditions[?(@.type=="Finished")].message}'

# An evicted group: its members are deleted and the quota released.
grp_pod e1 ev main sleep 60
grp_pod e2 ev main sleep 60
wait_for "group: a long group runs" 30 '^Running Running$' \
    k -n team-a get pod e1 e2 -o jsonpath='{.items[0].status.phase} {.items[1].status.phase}'
k -n team-a patch workload ev --type=merge -p '{"spec":{"active":false}}' >/dev/null
wait_for "group: evicted, its members are deleted" 30 '^$' \
    k -n team-a get pods -l kueue.x-k8s.io/pod-group-name=ev -o name
wait_for "group: ... its Workload goes with them, the quota released" 30 '^0$' \
    k get cq cq -o jsonpath='{.status.reservingWorkloads}'
