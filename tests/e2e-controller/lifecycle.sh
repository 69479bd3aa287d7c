# lifecycle.sh -- sourced by run.sh: a workload's life after its first
# admission, as Kueue's controllers drive it. No node agent runs here: the
# test plays the Job controller by writing Job status (active pods, a
# finish), so every step is observed when it happens.
start_server life --controllers all --executor none || return 1

# lc_ns NS: a namespace with flavor NS-f, ClusterQueue NS-cq (cpu QUOTA,
# default 8, withinClusterQueue LowerPriority) and LocalQueue q.
lc_ns() {
    cat <<YAML | k apply -f - >/dev/null
apiVersion: v1
kind: Namespace
metadata: {name: $1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: $1-f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: $1-cq}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: $1-f
      resources: [{name: cpu, nominalQuota: "${2:-8}"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: $1}
spec: {clusterQueue: $1-cq}
YAML
    wait_for "$1: ClusterQueue active" 10 '^True$' \
        k get cq "$1-cq" -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
}

# lc_job NS NAME CPU [LABELS]: a Job in queue q (extra labels as "k: v, ...").
lc_job() {
    cat <<YAML | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: $2
  namespace: $1
  labels: {kueue.x-k8s.io/queue-name: q${4:+, $4}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "$3"}}}
YAML
}

# lc_wl NS NAME CPU [SPEC LINES]: a Workload (no owner) in queue q.
lc_wl() {
    cat <<YAML | k apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: $2, namespace: $1}
spec:
  queueName: q
${4:-}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox, resources: {requests: {cpu: "$3"}}}]
YAML
}

wlof() { # NS JOB -> the name of the job's workload
    k -n "$1" get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$2\")]}{.metadata.name}{end}"
}
cnd() { # NS WL TYPE -> "status reason"
    k -n "$1" get workload "$2" -o jsonpath="{.status.conditions[?(@.type==\"$3\")].status} {.status.conditions[?(@.type==\"$3\")].reason}"
}
cndm() { # NS WL TYPE -> "status reason message"
    k -n "$1" get workload "$2" -o jsonpath="{.status.conditions[?(@.type==\"$3\")].status} {.status.conditions[?(@.type==\"$3\")].reason} {.status.conditions[?(@.type==\"$3\")].message}"
}
job_status() { # NS JOB MERGE-PATCH-OF-STATUS
    k -n "$1" patch job "$2" --subresource=status --type=merge -p "{\"status\":$3}" >/dev/null
}
# clear_reservation NS WL: what a client does to end an eviction of a
# Workload that no job owns (Kueue's tests: FinishEvictionForWorkloads).
clear_reservation() {
    p=$(k -n "$1" get workload "$2" -o json | /usr/bin/python3 -c '
import json, sys
w = json.load(sys.stdin)
cs = w["status"]["conditions"]
for c in cs:
    if c["type"] == "QuotaReserved":
        c.update(status="False", reason="Pending", message="cleared by the test")
    if c["type"] == "Admitted":
        c.update(status="False", reason="NoReservation", message="The workload has no reservation")
print(json.dumps({"status": {"admission": None, "conditions": cs}}))')
    k -n "$1" patch workload "$2" --subresource=status --type=merge -p "$p" >/dev/null
}
# finish_wl NS WL: a client marks a Workload Finished.
finish_wl() {
    k -n "$1" patch workload "$2" --subresource=status --type=json -p '[{"op":"add","path":"/status/conditions/-","value":{"type":"Finished","status":"True","reason":"Succeeded","message":"done by the test","lastTransitionTime":"2026-01-01T00:00:00Z"}}]' >/dev/null
}

# ---- 1. An evicted workload keeps its quota until its job has stopped --------------------
lc_ns ev
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: ev-p9}
value: 9
YAML
lc_job ev low 7
wait_for "evict: the 7-cpu Job is admitted and started" 15 '^false$' k -n ev get job low -o jsonpath='{.spec.suspend}'
job_status ev low '{"active":1,"startTime":"2026-01-01T00:00:00Z"}'
wlow=$(wlof ev low)
lc_job ev high 5 "kueue.x-k8s.io/priority-class: ev-p9"
wait_for "evict: the low workload is Evicted=True/Preempted" 15 '^True Preempted$' cnd ev "$wlow" Evicted
wait_for "evict: its Job is suspended" 10 '^true$' k -n ev get job low -o jsonpath='{.spec.suspend}'
sleep 1.5
expect_exact "evict: while its pod runs, the evicted workload keeps QuotaReserved=True" "True QuotaReserved" cnd ev "$wlow" QuotaReserved
expect_exact "evict: and the ClusterQueue counts it (reservingWorkloads 1, 7 cpu)" "1 7" \
    k get cq ev-cq -o jsonpath='{.status.reservingWorkloads} {.status.flavorsReservation[0].resources[0].total}'
whigh=$(wlof ev high)
wait_for "evict: the preemptor waits on the quota still in use" 10 "^False WaitingForPreemptedWorkloads couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor ev-f, 4 more needed. Pending the preemption of 1 workload\(s\)$" \
    cndm ev "$whigh" QuotaReserved
job_status ev low '{"active":0}'
wait_for "evict: once the pods are gone the quota is released (Requeued=True/Preempted)" 10 '^False True Preempted$' \
    k -n ev get workload "$wlow" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status} {.status.conditions[?(@.type=="Requeued")].status} {.status.conditions[?(@.type=="Requeued")].reason}'
wait_for "evict: and the preemptor is admitted" 10 '^True Admitted$' cnd ev "$whigh" Admitted
expect_exact "evict: status.schedulingStats counts the eviction" "Preempted::1" \
    k -n ev get workload "$wlow" -o jsonpath='{range .status.schedulingStats.evictions[*]}{.reason}:{.underlyingCause}:{.count}{end}'
# A Workload no job owns keeps its reservation until a client clears it.
k -n ev delete job high low >/dev/null
lc_wl ev bare7 7
wait_for "evict (no job): the bare workload is admitted" 15 '^True Admitted$' cnd ev bare7 Admitted
lc_wl ev bare5 5 "  priority: 9
  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: ev-p9}"
wait_for "evict (no job): the bare workload is Evicted=True/Preempted" 15 '^True Preempted$' cnd ev bare7 Evicted
sleep 1.5
expect_exact "evict (no job): it keeps its reservation" "True QuotaReserved" cnd ev bare7 QuotaReserved
expect_exact "evict (no job): the preemptor waits" "False" k -n ev get workload bare5 -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status}'
clear_reservation ev bare7
wait_for "evict (no job): a client clears it and the preemptor is admitted" 10 '^True Admitted$' cnd ev bare5 Admitted
k delete ns ev >/dev/null

# ---- 3. Deactivation and reactivation -----------------------------------------------------
lc_ns de
lc_job de j 2
wait_for "deactivate: the Job starts" 15 '^false$' k -n de get job j -o jsonpath='{.spec.suspend}'
job_status de j '{"active":1,"startTime":"2026-01-01T00:00:00Z"}'
wde=$(wlof de j)
k -n de patch workload "$wde" --type=merge -p '{"spec":{"active":false}}' >/dev/null
wait_for "deactivate: Evicted=True/Deactivated" 10 '^True Deactivated The workload is deactivated$' cndm de "$wde" Evicted
wait_for "deactivate: the Job is suspended" 10 '^true$' k -n de get job j -o jsonpath='{.spec.suspend}'
job_status de j '{"active":0}'
wait_for "deactivate: QuotaReserved=False/Deactivated, Requeued=False/Deactivated" 10 '^False Deactivated The workload is deactivated False Deactivated$' \
    k -n de get workload "$wde" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status} {.status.conditions[?(@.type=="QuotaReserved")].reason} {.status.conditions[?(@.type=="QuotaReserved")].message} {.status.conditions[?(@.type=="Requeued")].status} {.status.conditions[?(@.type=="Requeued")].reason}'
expect_exact "deactivate: the ClusterQueue holds nothing" "0" k get cq de-cq -o jsonpath='{.status.reservingWorkloads}'
k -n de patch workload "$wde" --type=merge -p '{"spec":{"active":true}}' >/dev/null
wait_for "reactivate: Requeued=True/Reactivated" 10 '^True Reactivated$' cnd de "$wde" Requeued
wait_for "reactivate: admitted again, Evicted=False 'Previously: The workload is deactivated'" 10 '^True False Previously: The workload is deactivated$' \
    k -n de get workload "$wde" -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status} {.status.conditions[?(@.type=="Evicted")].status} {.status.conditions[?(@.type=="Evicted")].message}'
lc_wl de inactive 1 "  active: false"
wait_for "deactivate: a Workload created inactive is QuotaReserved=False/Deactivated, Evicted=True/Deactivated" 10 '^False Deactivated True Deactivated$' \
    k -n de get workload inactive -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status} {.status.conditions[?(@.type=="QuotaReserved")].reason} {.status.conditions[?(@.type=="Evicted")].status} {.status.conditions[?(@.type=="Evicted")].reason}'
k delete ns de >/dev/null

# ---- 4. HoldAndDrain and its clearing ------------------------------------------------------
lc_ns hd
lc_job hd j 2
wait_for "drain: the Job starts" 15 '^false$' k -n hd get job j -o jsonpath='{.spec.suspend}'
job_status hd j '{"active":1,"startTime":"2026-01-01T00:00:00Z"}'
whd=$(wlof hd j)
k patch cq hd-cq --type=merge -p '{"spec":{"stopPolicy":"HoldAndDrain"}}' >/dev/null
wait_for "drain: ClusterQueue HoldAndDrain evicts (ClusterQueueStopped)" 10 '^True ClusterQueueStopped The ClusterQueue is stopped$' cndm hd "$whd" Evicted
job_status hd j '{"active":0}'
wait_for "drain: released with Requeued=False/ClusterQueueStopped" 10 '^False ClusterQueueStopped$' cnd hd "$whd" Requeued
k patch cq hd-cq --type=merge -p '{"spec":{"stopPolicy":"None"}}' >/dev/null
wait_for "drain: clearing it requeues (Requeued=True/ClusterQueueRestarted)" 10 '^True ClusterQueueRestarted$' cnd hd "$whd" Requeued
wait_for "drain: and the workload is admitted again" 10 '^True Admitted$' cnd hd "$whd" Admitted
wait_for "drain: its Job runs again" 10 '^false$' k -n hd get job j -o jsonpath='{.spec.suspend}'
job_status hd j '{"active":1}'
k -n hd patch localqueue q --type=merge -p '{"spec":{"stopPolicy":"HoldAndDrain"}}' >/dev/null
wait_for "drain: LocalQueue HoldAndDrain evicts (LocalQueueStopped)" 10 '^True LocalQueueStopped The LocalQueue is stopped$' cndm hd "$whd" Evicted
job_status hd j '{"active":0}'
wait_for "drain: released with Requeued=False/LocalQueueStopped" 10 '^False LocalQueueStopped$' cnd hd "$whd" Requeued
k -n hd patch localqueue q --type=merge -p '{"spec":{"stopPolicy":"None"}}' >/dev/null
wait_for "drain: clearing it requeues (Requeued=True/LocalQueueRestarted)" 10 '^True LocalQueueRestarted$' cnd hd "$whd" Requeued
wait_for "drain: admitted again" 10 '^True Admitted$' cnd hd "$whd" Admitted
k delete ns hd >/dev/null
k delete cq hd-cq ev-cq de-cq >/dev/null 2>&1

# ---- 25. Metrics the lifecycle moves ---------------------------------------------------------
lc_ns mt
lc_job mt j 2
wait_for "metrics: the Job starts" 15 '^false$' k -n mt get job j -o jsonpath='{.spec.suspend}'
job_status mt j '{"active":1,"ready":1,"startTime":"2026-01-01T00:00:00Z"}'
wmt=$(wlof mt j)
wait_for "metrics: PodsReady=True from the Job's ready pods" 10 '^True ' cnd mt "$wmt" PodsReady
k -n mt patch workload "$wmt" --type=merge -p '{"spec":{"active":false}}' >/dev/null
wait_for "metrics: kueue_pods_ready_to_evicted_time_seconds observes the eviction of a ready workload" 10 \
    '^kueue_pods_ready_to_evicted_time_seconds_count\{cluster_queue="mt-cq",reason="Deactivated",underlying_cause="",replica_role="standalone"\} 1$' \
    k get --raw /metrics
job_status mt j '{"active":0,"ready":0}'
k -n mt patch workload "$wmt" --type=merge -p '{"spec":{"active":true}}' >/dev/null
wait_for "metrics: reactivated and admitted again" 15 '^True Admitted$' cnd mt "$wmt" Admitted
wait_for "metrics: its Job runs again" 10 '^false$' k -n mt get job j -o jsonpath='{.spec.suspend}'
job_status mt j '{"active":0,"succeeded":1,"completionTime":"2026-01-01T00:01:00Z","conditions":[{"type":"SuccessCriteriaMet","status":"True"},{"type":"Complete","status":"True"}]}'
wait_for "metrics: the workload finishes" 10 '^True Succeeded$' cnd mt "$wmt" Finished
m=$(k get --raw /metrics)
expect_grep "metrics: kueue_execution_time_seconds observed when an admitted workload finishes" \
    '^kueue_execution_time_seconds_count\{cluster_queue="mt-cq",priority_class="",replica_role="standalone"\} 1$' printf '%s\n' "$m"
expect_grep "metrics: ... and kueue_local_queue_execution_time_seconds" \
    '^kueue_local_queue_execution_time_seconds_count\{name="q",namespace="mt",priority_class="",replica_role="standalone"\} 1$' printf '%s\n' "$m"
# A Hold stop policy: what waits is inadmissible.
k patch cq mt-cq --type=merge -p '{"spec":{"stopPolicy":"Hold"}}' >/dev/null
lc_wl mt held-a 1
lc_wl mt held-b 1
lc_wl mt held-c 3
wait_for "metrics: pending_workloads{status=inadmissible} counts the workloads a Hold keeps" 10 \
    '^kueue_pending_workloads\{cluster_queue="mt-cq",status="inadmissible",replica_role="standalone"\} 3$' k get --raw /metrics
expect_grep "metrics: pending_scheduling_hashes counts their two shapes" \
    '^kueue_pending_scheduling_hashes\{cluster_queue="mt-cq",status="inadmissible",replica_role="standalone"\} 2$' k get --raw /metrics
expect_grep "metrics: and nothing pends as active" \
    '^kueue_pending_workloads\{cluster_queue="mt-cq",status="active",replica_role="standalone"\} 0$' k get --raw /metrics
k delete ns mt >/dev/null
k patch cq mt-cq --type=merge -p '{"spec":{"stopPolicy":"None"}}' >/dev/null
k delete cq mt-cq >/dev/null 2>&1

# ---- 6. A ClusterQueue being deleted ------------------------------------------------------
lc_ns cqd 4
lc_job cqd j5 2
wait_for "cq delete: job-5 admitted" 15 '^false$' k -n cqd get job j5 -o jsonpath='{.spec.suspend}'
w5=$(wlof cqd j5)
k delete cq cqd-cq --wait=false >/dev/null
wait_for "cq delete: Active=False/Terminating with Kueue's message" 10 "^False Terminating Can't admit new workloads; clusterQueue is terminating$" \
    k get cq cqd-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status} {.status.conditions[?(@.type=="Active")].reason} {.status.conditions[?(@.type=="Active")].message}'
lc_job cqd j6 1
wait_for "cq delete: a new workload waits, ClusterQueue cqd-cq is inactive" 10 '^False Suspended ClusterQueue cqd-cq is inactive$' \
    sh -c "w=\$(kubectl --kubeconfig '$KC' -n cqd get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name==\"j6\")]}{.metadata.name}{end}'); kubectl --kubeconfig '$KC' -n cqd get workload \$w -o jsonpath='{.status.conditions[?(@.type==\"QuotaReserved\")].status} {.status.conditions[?(@.type==\"QuotaReserved\")].reason} {.status.conditions[?(@.type==\"QuotaReserved\")].message}'"
wait_for "cq delete: its counters stay current (1 reserving, 1 pending)" 10 '^1 1 1$' \
    k get cq cqd-cq -o jsonpath='{.status.reservingWorkloads} {.status.admittedWorkloads} {.status.pendingWorkloads}'
wait_for "cq delete: the LocalQueue is inactive too" 10 '^False ClusterQueueIsInactive$' \
    k -n cqd get localqueue q -o jsonpath='{.status.conditions[?(@.type=="Active")].status} {.status.conditions[?(@.type=="Active")].reason}'
expect_grep "cq delete: kueue_cluster_queue_status terminating is 1" '^kueue_cluster_queue_status\{cluster_queue="cqd-cq",status="terminating",replica_role="standalone"\} 1$' \
    k get --raw /metrics
sleep 1
expect_exact "cq delete: the finalizer keeps it while job-5 is admitted" '["kueue.x-k8s.io/resource-in-use"]' \
    k get cq cqd-cq -o jsonpath='{.metadata.finalizers}'
finish_wl cqd "$w5"
gone "cq delete: gone once job-5 is Finished" 15 cq/cqd-cq
k delete ns cqd >/dev/null

# A reservation not yet admitted does not hold a ClusterQueue being deleted.
lc_ns cqr
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: cqr-check}
spec: {controllerName: example.com/manual}
YAML
k patch admissioncheck cqr-check --subresource=status --type=merge \
    -p '{"status":{"conditions":[{"type":"Active","status":"True","reason":"Active","message":"The admission check is active","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
k patch cq cqr-cq --type=merge -p '{"spec":{"admissionChecksStrategy":{"admissionChecks":[{"name":"cqr-check"}]}}}' >/dev/null
lc_wl cqr r 1
wait_for "cq delete: a workload reserves quota, waiting for its check" 15 '^True False$' \
    k -n cqr get workload r -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status} {.status.conditions[?(@.type=="Admitted")].status}'
expect_exact "check finalizer: the AdmissionCheck carries kueue.x-k8s.io/resource-in-use" '["kueue.x-k8s.io/resource-in-use"]' \
    k get admissioncheck cqr-check -o jsonpath='{.metadata.finalizers}'
k delete admissioncheck cqr-check --wait=false >/dev/null
sleep 1
expect_exact "check finalizer: kept while a ClusterQueue names the check" '["kueue.x-k8s.io/resource-in-use"]' \
    k get admissioncheck cqr-check -o jsonpath='{.metadata.finalizers}'
k delete cq cqr-cq --wait=false >/dev/null
wait_for "cq delete: the reservation is taken back (ClusterQueue cqr-cq is terminating or missing, then doesn't exist)" 10 "^False Misconfigured ClusterQueue cqr-cq (is terminating or missing|doesn't exist)$" \
    cndm cqr r QuotaReserved
expect_exact "cq delete: and its admission cleared" "" k -n cqr get workload r -o jsonpath='{.status.admission}'
gone "cq delete: a reservation not admitted does not hold the ClusterQueue" 15 cq/cqr-cq
gone "check finalizer: the check goes once no ClusterQueue names it" 15 admissioncheck/cqr-check

# ---- 7. ResourceFlavor and LocalQueue deletion --------------------------------------------
lc_ns rf
expect_exact "flavor finalizer: a ResourceFlavor carries kueue.x-k8s.io/resource-in-use" '["kueue.x-k8s.io/resource-in-use"]' \
    k get resourceflavor rf-f -o jsonpath='{.metadata.finalizers}'
k delete resourceflavor rf-f --wait=false >/dev/null
sleep 1
expect_grep "flavor finalizer: kept while ClusterQueue rf-cq names it" '^.+ \["kueue.x-k8s.io/resource-in-use"\]$' \
    k get resourceflavor rf-f -o jsonpath='{.metadata.deletionTimestamp} {.metadata.finalizers}'
expect_exact "flavor finalizer: meanwhile the ClusterQueue stays active (as Kueue's cache keeps the flavor)" "True" \
    k get cq rf-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
k patch cq rf-cq --type=json -p '[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/name","value":"rf-other"}]' >/dev/null
gone "flavor finalizer: gone once no ClusterQueue names it" 15 resourceflavor/rf-f
expect_exact "LocalQueue: no finalizer (as Kueue's)" "" k -n rf get localqueue q -o jsonpath='{.metadata.finalizers}'
k -n rf delete localqueue q --wait=false >/dev/null
gone "LocalQueue: deleted at once" 10 -n rf localqueue/q
lc_wl rf orphan 1
wait_for "LocalQueue: a workload of a missing LocalQueue is Misconfigured" 10 "^False Misconfigured LocalQueue q doesn't exist$" cndm rf orphan QuotaReserved
k delete ns rf >/dev/null
k delete cq rf-cq >/dev/null

# ---- 8. Pending conditions without a queue, or in an inactive queue -------------------------
lc_ns pc
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: noqueue, namespace: pc}
spec:
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
YAML
wait_for "no queue: QuotaReserved=False/Misconfigured \"LocalQueue  doesn't exist\"" 10 "^False Misconfigured LocalQueue  doesn't exist$" cndm pc noqueue QuotaReserved
expect_exact "no queue: Admitted=False/NoReservation" "False NoReservation The workload has no reservation" cndm pc noqueue Admitted
k patch cq pc-cq --type=json -p '[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/name","value":"pc-missing"}]' >/dev/null
lc_wl pc w 1
wait_for "inactive: a workload of a ClusterQueue with a missing flavor is Suspended, ClusterQueue pc-cq is inactive" 10 '^False Suspended ClusterQueue pc-cq is inactive$' cndm pc w QuotaReserved
k delete ns pc >/dev/null
k delete cq pc-cq >/dev/null

# ---- 9. Deleting a Job with no propagation policy orphans its Workload ---------------------
lc_ns od
lc_job od j 1
wait_for "orphan: the Job starts" 15 '^false$' k -n od get job j -o jsonpath='{.spec.suspend}'
wod=$(wlof od j)
k delete --raw /apis/batch/v1/namespaces/od/jobs/j >/dev/null
wait_for "orphan: the Job is gone, its Workload stays without an owner" 10 '^0$' \
    sh -c "kubectl --kubeconfig '$KC' -n od get workload $wod -o json | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"metadata\"].get(\"ownerReferences\", [])))'"
wait_for "orphan: Finished=True/OwnerNotFound" 10 "^True OwnerNotFound The workload's owner no longer exists$" cndm od "$wod" Finished
wait_for "orphan: its finalizer is removed" 10 '^(\[\])?$' k -n od get workload "$wod" -o jsonpath='{.metadata.finalizers}'
wait_for "orphan: its quota is released" 10 '^0$' k get cq od-cq -o jsonpath='{.status.reservingWorkloads}'
lc_job od j2 1
wait_for "orphan: kubectl delete (Background) deletes the Workload with the Job" 15 '^job-j2-' wlof od j2
wod2=$(wlof od j2)
k -n od delete job j2 >/dev/null
gone "orphan: ... and its Workload goes" 15 -n od "workload/$wod2"
k delete ns od >/dev/null
k delete cq od-cq >/dev/null

# ---- 10. Reclaimable pods reduce an admitted workload's usage -------------------------------
lc_ns rc 4
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: spark, namespace: rc}
spec:
  queueName: q
  podSets:
  - name: driver
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
  - name: workers
    count: 3
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
YAML
wait_for "reclaim: driver + 3 workers use the whole 4-cpu queue" 15 '^1 4$' \
    k get cq rc-cq -o jsonpath='{.status.admittedWorkloads} {.status.flavorsReservation[0].resources[0].total}'
lc_wl rc waiting 2
wait_for "reclaim: a 2-cpu workload waits" 10 '^False WaitingForQuota$' cnd rc waiting QuotaReserved
k -n rc patch workload spark --subresource=status --type=merge -p '{"status":{"reclaimablePods":[{"name":"workers","count":2}]}}' >/dev/null
wait_for "reclaim: 2 workers reclaimable, the waiting workload is admitted" 5 '^True Admitted$' cnd rc waiting Admitted
wait_for "reclaim: the ClusterQueue reserves (4-2) + 2 cpu" 10 '^2 4$' \
    k get cq rc-cq -o jsonpath='{.status.reservingWorkloads} {.status.flavorsReservation[0].resources[0].total}'
k delete ns rc >/dev/null
k delete cq rc-cq >/dev/null

# ---- 12 and 22. Priority classes move the queues ---------------------------------------------
lc_ns pr 5
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: pr-high}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: pr-mid}
value: 5
YAML
lc_wl pr bare 1 "  priority: 5
  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: pr-mid}"
lc_job pr running 4 "kueue.x-k8s.io/priority-class: pr-high"
wait_for "priority: the high-priority Job runs" 15 '^false$' k -n pr get job running -o jsonpath='{.spec.suspend}'
job_status pr running '{"active":1,"startTime":"2026-01-01T00:00:00Z"}'
wrun=$(wlof pr running)
lc_job pr waiting 4 "kueue.x-k8s.io/priority-class: pr-mid"
wait_for "priority: the Job workload has priority 10 from its class" 10 '^10 pr-high$' \
    k -n pr get workload "$wrun" -o jsonpath='{.spec.priority} {.spec.priorityClassRef.name}'
sleep 1
expect_exact "priority: the mid-priority Job cannot preempt it" "false" k -n pr get workload "$wrun" -o jsonpath='{.status.conditions[?(@.type=="Evicted")].status}false'
k patch workloadpriorityclass pr-mid --type=merge -p '{"value":50}' >/dev/null
wait_for "priority: a class's new value is written to every Workload naming it (a bare one too)" 10 '^50$' \
    k -n pr get workload bare -o jsonpath='{.spec.priority}'
wait_for "priority: and the pending Job now preempts the running one" 15 '^True Preempted$' cnd pr "$wrun" Evicted
job_status pr running '{"active":0}'
wwait=$(wlof pr waiting)
wait_for "priority: the raised Job is admitted" 15 '^True Admitted$' cnd pr "$wwait" Admitted
k -n pr label job running kueue.x-k8s.io/priority-class=pr-none --overwrite >/dev/null
wait_for "priority: a label naming a missing class gives WorkloadPriorityClassNotFound" 10 'WorkloadPriorityClassNotFound.*WorkloadPriorityClass "pr-none" not found' \
    k -n pr get events --field-selector involvedObject.name=running
expect_exact "priority: and keeps the old priority" "10 pr-high" \
    k -n pr get workload "$wrun" -o jsonpath='{.spec.priority} {.spec.priorityClassRef.name}'
k delete ns pr >/dev/null
k delete cq pr-cq >/dev/null
k delete workloadpriorityclass pr-high pr-mid >/dev/null

# Lowering the running workload's priority: by its Job's label, then by its
# class deleted and re-created with a lower value.
lc_ns pl 5
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: pl-a}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: pl-b}
value: 5
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: pl-low}
value: 1
YAML
lc_job pl run 4 "kueue.x-k8s.io/priority-class: pl-a"
wait_for "priority (lowered): the Job runs" 15 '^false$' k -n pl get job run -o jsonpath='{.spec.suspend}'
job_status pl run '{"active":1,"startTime":"2026-01-01T00:00:00Z"}'
wr=$(wlof pl run)
lc_job pl wait 4 "kueue.x-k8s.io/priority-class: pl-b"
wait_for "priority (lowered): the other Job waits" 15 '^False ' \
    sh -c "kubectl --kubeconfig '$KC' -n pl get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name==\"wait\")]}{.status.conditions[?(@.type==\"QuotaReserved\")].status} {end}'"
ww=$(wlof pl wait)
k -n pl label job run kueue.x-k8s.io/priority-class=pl-low --overwrite >/dev/null
wait_for "priority (lowered): a Job label change lowers its Workload's priority" 10 '^1 pl-low$' \
    k -n pl get workload "$wr" -o jsonpath='{.spec.priority} {.spec.priorityClassRef.name}'
wait_for "priority (lowered): and the waiting Job preempts it" 15 '^True Preempted$' cnd pl "$wr" Evicted
job_status pl run '{"active":0}'
wait_for "priority (lowered): the waiting Job is admitted" 15 '^True Admitted$' cnd pl "$ww" Admitted
job_status pl wait '{"active":1,"startTime":"2026-01-01T00:00:00Z"}'
k delete workloadpriorityclass pl-b >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: pl-b}
value: 0
YAML
wait_for "priority (re-created class): its new value is written to the running Workload" 10 '^0$' \
    k -n pl get workload "$ww" -o jsonpath='{.spec.priority}'
wait_for "priority (re-created class): and the pending Job preempts it" 15 '^True Preempted$' cnd pl "$ww" Evicted
k delete ns pl >/dev/null
k delete cq pl-cq >/dev/null
k delete workloadpriorityclass pl-a pl-b pl-low >/dev/null

# ---- 17. kueue.x-k8s.io/admission-gated-by ---------------------------------------------------
lc_ns ag
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: gated
  namespace: ag
  annotations: {kueue.x-k8s.io/admission-gated-by: example.com/gate}
spec:
  queueName: q
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
YAML
wait_for "gate: QuotaReserved=False/AdmissionGated with the gate's name" 10 '^False AdmissionGated Admission is gated by: example.com/gate$' cndm ag gated QuotaReserved
sleep 1
expect_exact "gate: no admission meanwhile" "" k -n ag get workload gated -o jsonpath='{.status.admission}'
k -n ag annotate workload gated kueue.x-k8s.io/admission-gated-by- >/dev/null
wait_for "gate: removing the annotation lets it be admitted" 10 '^True Admitted$' cnd ag gated Admitted
k delete ns ag >/dev/null
k delete cq ag-cq >/dev/null

# ---- 20. Maximum execution time --------------------------------------------------------------
lc_ns mx
# The Job runs MX seconds before it is stopped: long enough to be seen
# running on a loaded machine.
MX=$((3 * WAIT_SCALE))
mx_t0=$(date +%s)
lc_job mx j 1 "kueue.x-k8s.io/max-exec-time-seconds: \"$MX\""
wait_for "max exec: the Job starts" 15 '^false$' k -n mx get job j -o jsonpath='{.spec.suspend}'
job_status mx j '{"active":1,"startTime":"2026-01-01T00:00:00Z"}'
wmx=$(wlof mx j)
expect_exact "max exec: the label sets spec.maximumExecutionTimeSeconds" "$MX" k -n mx get workload "$wmx" -o jsonpath='{.spec.maximumExecutionTimeSeconds}'
wait_for "max exec: deactivated when it ran ${MX}s (Evicted DeactivatedDueToMaximumExecutionTimeExceeded)" 10 '^false True DeactivatedDueToMaximumExecutionTimeExceeded The workload is deactivated due to exceeding the maximum execution time$' \
    k -n mx get workload "$wmx" -o jsonpath='{.spec.active} {.status.conditions[?(@.type=="Evicted")].status} {.status.conditions[?(@.type=="Evicted")].reason} {.status.conditions[?(@.type=="Evicted")].message}'
expect_grep "max exec: event MaximumExecutionTimeExceeded" "MaximumExecutionTimeExceeded.*The maximum execution time \\(${MX}s\\) exceeded" \
    k -n mx get events --field-selector "involvedObject.name=$wmx"
job_status mx j '{"active":0}'
wait_for "max exec: the quota is released once its pods are gone" 10 '^False$' \
    k -n mx get workload "$wmx" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status}'
# It held the quota from its admission to now: at least the MX seconds, at
# most the time since its Job was made (longer on a loaded machine).
mx_held=$(($(date +%s) - mx_t0 + 1))
mx_acc=$(k -n mx get workload "$wmx" -o jsonpath='{.status.accumulatedPastExecutionTimeSeconds}')
case $mx_acc in
[0-9]*) ok=$([ "$mx_acc" -ge "$MX" ] && [ "$mx_acc" -le "$mx_held" ] && echo 1) ;;
*) ok= ;;
esac
if [ -n "$ok" ]; then pass "max exec: the release adds the time it held the quota to accumulatedPastExecutionTimeSeconds"; else
    fail "max exec: the release adds the time it held the quota to accumulatedPastExecutionTimeSeconds (wanted $MX..$mx_held)" "$mx_acc"
fi
k delete ns mx >/dev/null
k delete cq mx-cq >/dev/null

# ---- 23. Prebuilt workloads -----------------------------------------------------------------
lc_ns pb
# lc_pre NAME: a Workload as the Job of lc_job (1 cpu) would make it.
lc_pre() {
    cat <<YAML | k apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: $1, namespace: pb}
spec:
  queueName: q
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - {name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "1"}}}
YAML
}
lc_pre pre
lc_job pb j 1 "kueue.x-k8s.io/prebuilt-workload-name: pre"
wait_for "prebuilt: the Job takes controller ownership of Workload pre" 10 '^Job j true$' \
    k -n pb get workload pre -o jsonpath='{.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].controller}'
wait_for "prebuilt: it runs when pre is admitted" 15 '^false$' k -n pb get job j -o jsonpath='{.spec.suspend}'
expect_exact "prebuilt: no other Workload is made" "pre" k -n pb get workloads -o jsonpath='{.items[*].metadata.name}'
job_status pb j '{"startTime":"2026-01-01T00:00:00Z","completionTime":"2026-01-01T00:00:10Z","succeeded":1,"conditions":[{"type":"SuccessCriteriaMet","status":"True","lastProbeTime":"2026-01-01T00:00:10Z","lastTransitionTime":"2026-01-01T00:00:10Z"},{"type":"Complete","status":"True","lastProbeTime":"2026-01-01T00:00:10Z","lastTransitionTime":"2026-01-01T00:00:10Z"}]}'
wait_for "prebuilt: pre gets Finished=True/Succeeded when the Job completes" 10 '^True Succeeded$' cnd pb pre Finished
lc_job pb later 1 "kueue.x-k8s.io/prebuilt-workload-name: pre2"
sleep 1
expect_exact "prebuilt: a Job whose Workload does not exist yet stays suspended" "true" k -n pb get job later -o jsonpath='{.spec.suspend}'
lc_pre pre2
wait_for "prebuilt: a Workload created later is taken too" 10 '^later$' k -n pb get workload pre2 -o jsonpath='{.metadata.ownerReferences[0].name}'
wait_for "prebuilt: and its Job runs" 15 '^false$' k -n pb get job later -o jsonpath='{.spec.suspend}'
k delete ns pb >/dev/null
k delete cq pb-cq >/dev/null

# ---- 24. A Job whose owner is a managed Job ---------------------------------------------------
lc_ns ch 2
lc_job ch parent 4
wait_for "child: the parent's workload waits (4 cpu > 2)" 15 '^False' \
    sh -c "kubectl --kubeconfig '$KC' -n ch get workloads -o jsonpath='{.items[0].status.conditions[?(@.type==\"QuotaReserved\")].status}'"
puid=$(k -n ch get job parent -o jsonpath='{.metadata.uid}')
cat <<YAML | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: child
  namespace: ch
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: parent, uid: "$puid", controller: true}]
spec:
  suspend: false
  template:
    spec:
      restartPolicy: Never
      containers: [{name: w, image: busybox, command: ["true"], resources: {requests: {cpu: "1"}}}]
YAML
wait_for "child: suspended while its parent is not admitted" 10 '^true$' k -n ch get job child -o jsonpath='{.spec.suspend}'
expect_grep "child: event Suspended" 'Suspended.*Kueue managed child job suspended' \
    k -n ch get events --field-selector involvedObject.name=child
sleep 1
expect_exact "child: it never gets a Workload of its own" "" wlof ch child
k delete ns ch >/dev/null
k delete cq ch-cq >/dev/null

stop_server "$PID"
