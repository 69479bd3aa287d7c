# lifecycle-config.sh -- sourced by run.sh: lifecycle rules that a
# Configuration turns on: the requeuing limit of waitForPodsReady;
# manageJobsWithoutQueueName with managedJobsNamespaceSelector,
# IgnoreUndeclared, object retention, fair sharing status and admission
# fair sharing across a restart. No node agent: Jobs are suspended or
# resumed, never run.

# ---- 2. waitForPodsReady: deactivated after backoffLimitCount requeues ---------------------
# The requeued state (count 1) lasts the backoff and the timeout, B + T
# seconds: long enough to be seen on a loaded machine.
T=$((3 * WAIT_SCALE))
B=$((10 * WAIT_SCALE))
cat >"$TMP/wfpr-limit.yaml" <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: ${T}s
  requeuingStrategy:
    backoffLimitCount: 1
    backoffBaseSeconds: $B
    backoffMaxSeconds: $B
YAML
start_server limit --controllers all --executor none --config "$TMP/wfpr-limit.yaml" || return 1
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: wl}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: wl-f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: wl-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: wl-f
      resources: [{name: cpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: wl}
spec: {clusterQueue: wl-cq}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: never-ready
  namespace: wl
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: w, image: busybox, command: ["true"], resources: {requests: {cpu: "1"}}}]
YAML
wait_for "requeue limit: a workload for the Job" 15 '^job-never-ready-' \
    k -n wl get workloads -o jsonpath='{.items[0].metadata.name}'
wn=$(k -n wl get workloads -o jsonpath='{.items[0].metadata.name}')
wait_for "requeue limit: evicted once (PodsReadyTimeout), requeued with count 1" 15 '^1$' \
    k -n wl get workload "$wn" -o jsonpath='{.status.requeueState.count}'
wait_for "requeue limit: past backoffLimitCount it is deactivated (DeactivatedDueToRequeuingLimitExceeded)" 30 \
    '^false True DeactivatedDueToRequeuingLimitExceeded The workload is deactivated due to exceeding the maximum number of re-queuing retries$' \
    k -n wl get workload "$wn" -o jsonpath='{.spec.active} {.status.conditions[?(@.type=="Evicted")].status} {.status.conditions[?(@.type=="Evicted")].reason} {.status.conditions[?(@.type=="Evicted")].message}'
wait_for "requeue limit: and status.requeueState is cleared" 10 '^$' \
    k -n wl get workload "$wn" -o jsonpath='{.status.requeueState}'
expect_exact "requeue limit: the DeactivationTarget condition is gone" "" \
    k -n wl get workload "$wn" -o jsonpath='{.status.conditions[?(@.type=="DeactivationTarget")].status}'
wait_for "requeue limit: QuotaReserved=False/Deactivated" 10 '^False Deactivated$' \
    k -n wl get workload "$wn" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status} {.status.conditions[?(@.type=="QuotaReserved")].reason}'
expect_exact "requeue limit: schedulingStats counts both evictions" "PodsReadyTimeout/WaitForStart=1 Deactivated/RequeuingLimitExceeded=1 " \
    k -n wl get workload "$wn" -o jsonpath='{range .status.schedulingStats.evictions[*]}{.reason}/{.underlyingCause}={.count} {end}'
m=$(k get --raw /metrics)
expect_grep "metrics: evicted_workloads_once_total counts the first PodsReadyTimeout eviction" \
    '^kueue_evicted_workloads_once_total\{cluster_queue="wl-cq",reason="PodsReadyTimeout",underlying_cause="WaitForStart",priority_class="",replica_role="standalone"\} 1$' \
    printf '%s\n' "$m"
expect_grep "metrics: evicted_workloads_total{reason=Deactivated,underlying_cause=RequeuingLimitExceeded}" \
    '^kueue_evicted_workloads_total\{cluster_queue="wl-cq",reason="Deactivated",underlying_cause="RequeuingLimitExceeded",priority_class="",replica_role="standalone"\} 1$' \
    printf '%s\n' "$m"
expect_grep "metrics: the LocalQueue twin of the eviction counter" \
    '^kueue_local_queue_evicted_workloads_total\{name="q",namespace="wl",reason="PodsReadyTimeout",underlying_cause="WaitForStart",priority_class="",replica_role="standalone"\} 1$' \
    printf '%s\n' "$m"
expect_grep "metrics: local_queue_quota_reserved_workloads_total" \
    '^kueue_local_queue_quota_reserved_workloads_total\{name="q",namespace="wl",priority_class="",replica_role="standalone"\} [1-9]' \
    printf '%s\n' "$m"
stop_server "$PID"

# ---- 13, 19, 21, 14: one Configuration --------------------------------------------------------
# A finished Workload is kept RETAIN seconds: long enough to be seen
# finished on a loaded machine.
RETAIN=$((3 * WAIT_SCALE))
cat >"$TMP/cfg.yaml" <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
manageJobsWithoutQueueName: true
managedJobsNamespaceSelector:
  matchLabels: {team: managed}
resources:
  quotaCheckStrategy: IgnoreUndeclared
objectRetentionPolicies:
  workloads:
    afterFinished: ${RETAIN}s
fairSharing: {}
admissionFairSharing:
  usageHalfLifeTime: 1h
  usageSamplingInterval: 1s
metrics:
  enableClusterQueueResources: true
YAML
start_server cfg --controllers all --executor none --config "$TMP/cfg.yaml" || return 1
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: mng, labels: {team: managed}}
---
apiVersion: v1
kind: Namespace
metadata: {name: other}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: cf-f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: org}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cf-cq}
spec:
  namespaceSelector: {}
  cohortName: org
  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: cf-f
      resources: [{name: cpu, nominalQuota: "4000"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cf-zero}
spec:
  namespaceSelector: {}
  cohortName: org
  fairSharing: {weight: "0"}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: cf-f
      resources: [{name: cpu, nominalQuota: "0"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: mng}
spec: {clusterQueue: cf-cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: zero, namespace: mng}
spec: {clusterQueue: cf-zero}
YAML
wait_for "config: ClusterQueue active" 10 '^True$' k get cq cf-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
# cf_job NS NAME CPU [QUEUE] [EXTRA RESOURCE LINE]
cf_job() {
    labels=
    [ -n "${4:-}" ] && labels="labels: {kueue.x-k8s.io/queue-name: $4}"
    extra=
    [ -n "${5:-}" ] && extra=", $5"
    cat <<YAML | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: $2
  namespace: $1
  $labels
spec:
  suspend: false
  template:
    spec:
      restartPolicy: Never
      containers: [{name: w, image: busybox, command: ["true"], resources: {requests: {cpu: "$3"$extra}}}]
YAML
}
cf_job mng noq 1
wait_for "no queue name: a Job in a selected namespace is suspended" 10 '^true$' k -n mng get job noq -o jsonpath='{.spec.suspend}'
wait_for "no queue name: its Workload has no queue, Misconfigured \"LocalQueue  doesn't exist\"" 10 "^ False Misconfigured LocalQueue  doesn't exist$" \
    k -n mng get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="noq")]}{.spec.queueName} {.status.conditions[?(@.type=="QuotaReserved")].status} {.status.conditions[?(@.type=="QuotaReserved")].reason} {.status.conditions[?(@.type=="QuotaReserved")].message}{end}'
cf_job other noq 1
sleep 2
expect_exact "no queue name: a Job in another namespace is left alone (not suspended)" "false" k -n other get job noq -o jsonpath='{.spec.suspend}'
expect_exact "no queue name: ... and gets no Workload" "" k -n other get workloads -o name

# IgnoreUndeclared: a resource no group covers is left out.
cf_job mng fpga 2 q 'acme.io/fpga: "4"'
wait_for "IgnoreUndeclared: the Job with acme.io/fpga is admitted" 15 '^false$' k -n mng get job fpga -o jsonpath='{.spec.suspend}'
expect_exact "IgnoreUndeclared: the admission has only cpu" '{"cpu":"cf-f"} {"cpu":"2"}' \
    k -n mng get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="fpga")]}{.status.admission.podSetAssignments[0].flavors} {.status.admission.podSetAssignments[0].resourceUsage}{end}'
wait_for "IgnoreUndeclared: flavorsReservation has only cpu" 10 '^cpu$' \
    k get cq cf-cq -o jsonpath='{range .status.flavorsReservation[*].resources[*]}{.name}{"\n"}{end}'

# Admission fair sharing: the LocalQueue's consumption in its status.
wait_for "afs: LocalQueue status.fairSharing.admissionFairSharingStatus has the consumed cpu" 10 '^[1-9][0-9]*m?$' \
    k -n mng get localqueue q -o jsonpath='{.status.fairSharing.admissionFairSharingStatus.consumedResources.cpu}'

# Fair sharing: weightedShare, a zero-weight borrowing queue at MaxInt64 (NaN in the metric).
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: borrower, namespace: mng}
spec:
  queueName: zero
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox, resources: {requests: {cpu: "10"}}}]
YAML
wait_for "fair sharing: the zero-weight queue borrows" 15 '^True$' \
    k -n mng get workload borrower -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status}'
wait_for "fair sharing: its weightedShare is 9223372036854775807" 10 '^9223372036854775807$' \
    k get cq cf-zero -o jsonpath='{.status.fairSharing.weightedShare}'
wait_for "fair sharing: the lender's weightedShare is 0" 10 '^0$' \
    k get cq cf-cq -o jsonpath='{.status.fairSharing.weightedShare}'
wait_for "fair sharing: the Cohort reports status.fairSharing" 10 '^[0-9]+$' \
    k get cohort org -o jsonpath='{.status.fairSharing.weightedShare}'
expect_grep "fair sharing: kueue_cluster_queue_weighted_share is NaN for it" \
    '^kueue_cluster_queue_weighted_share\{cluster_queue="cf-zero",cohort="org",replica_role="standalone"\} NaN$' \
    k get --raw /metrics
expect_grep "metrics: cluster_queue_resource_pending" '^kueue_cluster_queue_resource_pending\{' k get --raw /metrics

# Retention: a finished Workload is deleted once afterFinished has passed.
wf=$(k -n mng get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="fpga")]}{.metadata.name}{end}')
k -n mng patch job fpga --subresource=status --type=merge -p '{"status":{"startTime":"2026-01-01T00:00:00Z","completionTime":"2026-01-01T00:00:10Z","succeeded":1,"conditions":[{"type":"SuccessCriteriaMet","status":"True","lastProbeTime":"2026-01-01T00:00:10Z","lastTransitionTime":"2026-01-01T00:00:10Z"},{"type":"Complete","status":"True","lastProbeTime":"2026-01-01T00:00:10Z","lastTransitionTime":"2026-01-01T00:00:10Z"}]}}' >/dev/null
wait_for "retention: the workload is Finished" 10 '^True$' \
    k -n mng get workload "$wf" -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}'
gone "retention: and deleted ${RETAIN}s later" $((RETAIN + 10)) -n mng "workload/$wf"
expect_grep "retention: event Deleted" 'Deleted finished workload due to elapsed retention' k -n mng get events

# Admission fair sharing across a restart: what was consumed still counts.
before=$(k -n mng get localqueue q -o jsonpath='{.status.fairSharing.admissionFairSharingStatus.consumedResources.cpu}')
stop_server "$PID"
start_server cfg --controllers all --executor none --config "$TMP/cfg.yaml" || return 1
wait_for "afs: the consumption survives a restart (was $before)" 10 '^[1-9][0-9]*m?$' \
    k -n mng get localqueue q -o jsonpath='{.status.fairSharing.admissionFairSharingStatus.consumedResources.cpu}'
stop_server "$PID"
