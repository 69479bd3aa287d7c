# lifecycle-elastic.sh -- sourced by run.sh: Kueue's
# ElasticJobsViaWorkloadSlices (beta, on by default) as far as cueue has it.
# A running elastic Job's parallelism stays what was admitted: cueue serve
# refuses the change (no pod runs outside the quota). A Workload slice
# annotated kueue.x-k8s.io/workload-slice-replacement-for is admitted when
# what it adds to the slice it replaces fits; the old slice is then
# Finished (WorkloadSliceReplaced), with Kueue's Event and metric, and the
# new one holds the quota. One that does not fit waits, and the old slice
# keeps its quota.
start_server elastic --controllers all --executor local || return 1
cat <<YAML | k apply -f - >/dev/null
apiVersion: v1
kind: Namespace
metadata: {name: el}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: el-f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: el-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: el-f
      resources: [{name: cpu, nominalQuota: "6"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: el}
spec: {clusterQueue: el-cq}
YAML

# A running elastic Job: scaling it is refused, its pods stay as admitted.
cat <<YAML | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: grow
  namespace: el
  labels: {kueue.x-k8s.io/queue-name: q}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
spec:
  parallelism: 2
  completions: 8
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "100m"}}}
YAML
el_running() { # the Job's Running pods
    k -n el get pods -l batch.kubernetes.io/job-name=grow \
        --field-selector status.phase=Running -o name | wc -l | tr -d ' '
}
settle 30 '^2$' el_running
expect_grep "elastic: scaling a running elastic Job up is refused" \
    'spec.parallelism: Forbidden: cannot change while the job is not suspended: Kueue admitted 2 pods' \
    k -n el patch job grow --type=merge -p '{"spec":{"parallelism":4}}'
expect_grep "elastic: ... and down too" \
    'spec.parallelism: Forbidden: cannot change while the job is not suspended' \
    k -n el patch job grow --type=merge -p '{"spec":{"parallelism":1}}'
sleep 1
expect_exact "elastic: ... its pods stay those admitted" "2" el_running
k -n el delete job grow --wait=false >/dev/null

# el_slice NAME PODS [REPLACES]: an elastic Workload of PODS 1-cpu pods,
# replacing the slice REPLACES.
el_slice() {
    cat <<YAML | k apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: $1
  namespace: el
  annotations:
    kueue.x-k8s.io/elastic-job: "true"
${3:+    kueue.x-k8s.io/workload-slice-replacement-for: el/$3}
spec:
  queueName: q
  podSets:
  - name: main
    count: $2
    template:
      spec:
        restartPolicy: Never
        containers:
        - {name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "1"}}}
YAML
}
el_cond() { # WORKLOAD TYPE: "status reason" of the condition
    k -n el get workload "$1" -o jsonpath="{.status.conditions[?(@.type==\"$2\")].status} {.status.conditions[?(@.type==\"$2\")].reason}"
}
el_reserved() { # the ClusterQueue's reserved cpu
    k get clusterqueue el-cq -o jsonpath='{.status.flavorsReservation[0].resources[?(@.name=="cpu")].total}'
}
el_slice other 1
el_slice s1 3
settle 15 '^True QuotaReserved$' el_cond s1 QuotaReserved
settle 15 '^True QuotaReserved$' el_cond other QuotaReserved

# Scale up 3 -> 5: 5 more would not fit beside the 4 held (6 cpu), but the
# replacement needs only the 2 it adds.
el_slice s2 5 s1
wait_for "elastic: a scale-up slice that fits with the old slice released is admitted" 15 \
    '^True QuotaReserved$' el_cond s2 QuotaReserved
wait_for "elastic: ... the old slice is Finished, WorkloadSliceReplaced" 15 \
    '^True WorkloadSliceReplaced$' el_cond s1 Finished
uid=$(k -n el get workload s2 -o jsonpath='{.metadata.uid}')
expect_exact "elastic: ... with Kueue's message" \
    "Replaced to accommodate a workload (UID: $uid, JobUID: ) due to workload slice aggregation" \
    k -n el get workload s1 -o jsonpath='{.status.conditions[?(@.type=="Finished")].message}'
wait_for "elastic: ... and a WorkloadSliceReplaced Event" 10 '^WorkloadSliceReplaced$' \
    k -n el get events --field-selector involvedObject.name=s1,reason=WorkloadSliceReplaced \
    -o jsonpath='{range .items[*]}{.reason}{"\n"}{end}'
wait_for "elastic: ... the ClusterQueue holds the new slice's 5 cpu and the other 1" 10 '^6$' \
    el_reserved
wait_for "elastic: ... kueue_replaced_workload_slices_total counts it" 10 \
    '^kueue_replaced_workload_slices_total\{cluster_queue="el-cq",replica_role="standalone"\} 1$' \
    k get --raw /metrics

# Scale up 5 -> 6: 1 cpu short; the new slice waits, the old one keeps
# its quota.
el_slice s3 6 s2
wait_for "elastic: a scale-up slice that does not fit waits for quota" 15 \
    '^False WaitingForQuota$' el_cond s3 QuotaReserved
expect_grep "elastic: ... short of what it adds" \
    'insufficient unused quota for cpu in flavor el-f, 1 more needed' \
    k -n el get workload s3 -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].message}'
expect_exact "elastic: ... the old slice keeps its quota" "True QuotaReserved" el_cond s2 QuotaReserved
expect_exact "elastic: ... and is not finished" "" \
    k -n el get workload s2 -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}'
expect_exact "elastic: ... the ClusterQueue still holds 6 cpu" "6" el_reserved
# The other workload goes: now the new slice fits.
k -n el delete workload other >/dev/null
wait_for "elastic: once 1 cpu is free the waiting slice is admitted" 15 \
    '^True QuotaReserved$' el_cond s3 QuotaReserved
wait_for "elastic: ... and the slice it replaces is finished" 15 \
    '^True WorkloadSliceReplaced$' el_cond s2 Finished
wait_for "elastic: ... the ClusterQueue holds its 6 cpu" 10 '^6$' el_reserved
stop_server "$PID"
