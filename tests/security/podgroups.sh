# podgroups.sh -- Kueue's plain pod groups in `cueue serve`, run for real
# on the local executor, with a tenant's kubectl: a group whose members are
# not retriable-in-group ends at its first failure once nothing runs;
# members beyond pod-group-total-count are deleted; a group with fast
# admission is queued at its first member; under waitForPodsReady the
# group's (and a single Pod's) Workload gets PodsReady once its Pods are
# Ready. (Sourced by run.sh after lib.sh.)

need kubectl

cat >"$TMP/pg-config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod]
waitForPodsReady:
  timeout: 5m
YAML
start_server podgroups --controllers all --executor local --config "$TMP/pg-config.yaml" || exit 1

queues team-a 4
ROLES="kueue-batch-user-role edit" tenant alice team-a

# grp_pod NAME GROUP TOTAL EXTRA-ANNOTATIONS COMMAND...
grp_pod() {
    n=$1 g=$2 t=$3 extra=$4
    shift 4
    cmd=$(printf '"%s",' "$@")
    kt "$TKC" -n team-a create -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $n
  labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/pod-group-name: $g}
  annotations: {kueue.x-k8s.io/pod-group-total-count: "$t", kueue.x-k8s.io/role-hash: main$extra}
spec:
  restartPolicy: Never
  containers:
  - name: c
    image: busybox
    command: [${cmd%,}]
    resources: {requests: {cpu: "1"}}
YAML
}
FIN='{.status.conditions[?(@.type=="Finished")].status} {.status.conditions[?(@.type=="Finished")].reason} {.status.conditions[?(@.type=="Finished")].message}'

# retriable-in-group "false": the failed member is not waited for; the
# group finishes once its other member has ended.
NR=', kueue.x-k8s.io/retriable-in-group: "false"'
grp_pod u1 unretriable 2 "$NR" sleep 3
grp_pod u2 unretriable 2 "$NR" sh -c "exit 1"
wait_for "retriable-in-group false: a member fails" 30 '^Failed$' \
    k -n team-a get pod u2 -o jsonpath='{.status.phase}'
wait_for "retriable-in-group false: the group finishes once nothing runs, without a replacement" 30 \
    '^True Succeeded Pods succeeded: 1/2.$' k -n team-a get workload unretriable -o jsonpath="$FIN"
wait_for "retriable-in-group false: the members' finalizers are removed" 15 '^(\[\])? (\[\])?$' \
    k -n team-a get pod u1 u2 -o jsonpath='{.items[0].metadata.finalizers} {.items[1].metadata.finalizers}'
wait_for "retriable-in-group false: the quota is released" 15 '^0$' \
    k get cq cq -o jsonpath='{.status.reservingWorkloads}'

# Excess members: a third Pod in a group of two is deleted, the two run.
grp_pod x1 excess 2 "" sleep 2
grp_pod x2 excess 2 "" sleep 2
grp_pod x3 excess 2 "" sleep 2
wait_for "excess: the member beyond pod-group-total-count is deleted" 30 'NotFound' \
    k -n team-a get pod x3
expect_grep "excess: ... with Kueue's event" '^ExcessPodDeleted +Pod +Excess pod deleted$' \
    k -n team-a get events --field-selector involvedObject.name=x3 --no-headers \
    -o custom-columns=R:.reason,O:.involvedObject.kind,M:.message
wait_for "excess: the group of two is admitted as two and finishes" 30 '^True Succeeded Pods succeeded: 2/2.$' \
    k -n team-a get workload excess -o jsonpath="$FIN"
expect_exact "excess: its pod set counts the group's two" "main 2" \
    k -n team-a get workload excess -o jsonpath='{.spec.podSets[0].name} {.spec.podSets[0].count}'

# Fast admission: queued at the first member, with the group's count.
FA=', kueue.x-k8s.io/pod-group-fast-admission: "true"'
grp_pod f1 fast 2 "$FA" sleep 2
wait_for "fast admission: the Workload is made at the first member, pod set main of 2" 15 '^main 2$' \
    k -n team-a get workload fast -o jsonpath='{.spec.podSets[0].name} {.spec.podSets[0].count}'
wait_for "fast admission: the first member runs before the second exists" 30 '^(Running|Succeeded)$' \
    k -n team-a get pod f1 -o jsonpath='{.status.phase}'
grp_pod f2 fast 2 "$FA" sleep 1
wait_for "fast admission: the second member is started in the admitted group" 30 '^Succeeded$' \
    k -n team-a get pod f2 -o jsonpath='{.status.phase}'
wait_for "fast admission: the group finishes" 30 '^True Succeeded Pods succeeded: 2/2.$' \
    k -n team-a get workload fast -o jsonpath="$FIN"

# waitForPodsReady: PodsReady once every member is Ready.
PR='{.status.conditions[?(@.type=="PodsReady")].status} {.status.conditions[?(@.type=="PodsReady")].reason}'
grp_pod r1 ready 2 "" sleep 60
sleep 1
grp_pod r2 ready 2 "" sleep 60
wait_for "waitForPodsReady: the group's members run" 30 '^Running Running$' \
    k -n team-a get pod r1 r2 -o jsonpath='{.items[0].status.phase} {.items[1].status.phase}'
wait_for "waitForPodsReady: the group's Workload is PodsReady (Started)" 15 '^True Started$' \
    k -n team-a get workload ready -o jsonpath="$PR"
S=$(kt "$TKC" -n team-a create -o jsonpath='{.metadata.name}' -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  generateName: single-
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  containers:
  - {name: c, image: busybox, command: [sleep, "60"], resources: {requests: {cpu: "1"}}}
YAML
)
wait_for "waitForPodsReady: a single Pod runs" 30 '^Running$' \
    k -n team-a get pod "$S" -o jsonpath='{.status.phase}'
SW=$(k -n team-a get workloads -o jsonpath="{range .items[*]}{.metadata.name}{\"\\n\"}{end}" | grep "^pod-$S-")
wait_for "waitForPodsReady: a single Pod's Workload is PodsReady (Started)" 15 '^True Started$' \
    k -n team-a get workload "$SW" -o jsonpath="$PR"
k -n team-a delete pod r1 r2 "$S" --wait=false >/dev/null

# A failed member while the group runs: the Workload is WaitingForReplacementPods
# until a replacement is made, which is then started, as Kueue's pod group does.
grp_pod w1 repl 2 "" sleep 60
grp_pod w2 repl 2 "" sh -c "sleep 2; exit 1"
WR='{.status.conditions[?(@.type=="WaitingForReplacementPods")].status} {.status.conditions[?(@.type=="WaitingForReplacementPods")].reason} {.status.conditions[?(@.type=="WaitingForReplacementPods")].message}'
wait_for "replacement: a member of a running group fails" 30 '^Failed$' \
    k -n team-a get pod w2 -o jsonpath='{.status.phase}'
wait_for "replacement: its Workload is WaitingForReplacementPods (PodsFailed)" 15 \
    '^True PodsFailed Some Failed pods need replacement$' k -n team-a get workload repl -o jsonpath="$WR"
grp_pod w3 repl 2 "" sleep 60
wait_for "replacement: the replacement is started" 30 '^Running$' \
    k -n team-a get pod w3 -o jsonpath='{.status.phase}'
wait_for "replacement: ... and the Workload waits no more (PodsReady)" 15 \
    '^False PodsReady No pods need replacement$' k -n team-a get workload repl -o jsonpath="$WR"
k -n team-a delete pod w1 w2 w3 --wait=false >/dev/null

# Priorities: the group's Workload takes its members' WorkloadPriorityClass,
# follows a change of their label, and a change of the class's value.
k create -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: low}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 100
YAML
for n in p1 p2; do
    kt "$TKC" -n team-a create -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $n
  labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/pod-group-name: prio, kueue.x-k8s.io/priority-class: low}
  annotations: {kueue.x-k8s.io/pod-group-total-count: "2"}
spec:
  restartPolicy: Never
  containers:
  - {name: c, image: busybox, command: [sleep, "60"], resources: {requests: {cpu: "3"}}}
YAML
done
PRIO='{.spec.priorityClassRef.kind}/{.spec.priorityClassRef.name} {.spec.priority}'
wait_for "priority: the group's Workload has its members' WorkloadPriorityClass" 15 \
    '^WorkloadPriorityClass/low 10$' k -n team-a get workload prio -o jsonpath="$PRIO"
kt "$TKC" -n team-a label pod p1 p2 --overwrite kueue.x-k8s.io/priority-class=high >/dev/null
wait_for "priority: ... follows its members' new class while it waits" 15 \
    '^WorkloadPriorityClass/high 100$' k -n team-a get workload prio -o jsonpath="$PRIO"
expect_grep "priority: ... with Kueue's event" 'Updated workload priority class: team-a/prio' \
    k -n team-a get events --field-selector reason=UpdatedWorkload -o jsonpath='{.items[*].message}'
k patch workloadpriorityclass high --type=merge -p '{"value":200}' >/dev/null
wait_for "priority: ... and the class's new value" 15 \
    '^WorkloadPriorityClass/high 200$' k -n team-a get workload prio -o jsonpath="$PRIO"
k -n team-a delete pod p1 p2 --wait=false >/dev/null
