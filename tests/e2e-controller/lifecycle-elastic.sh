# lifecycle-elastic.sh -- sourced by run.sh: Kueue's
# ElasticJobsViaWorkloadSlices (beta, on by default) as far as cueue has it.
# A running elastic Job scales down in place; scaling up needs a Workload
# slice, which the Job integration does not make yet, so cueue serve
# refuses it (no pod runs outside the quota). A Workload slice
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

# A running elastic Job scales down in place: its Workload's count is
# lowered, the quota it no longer uses released, and one pod goes. It may
# not scale up (cueue makes no Workload slice for it yet), and a Job that
# is not elastic may do neither.
el_job() { # NAME [ANNOTATIONS]
    cat <<YAML | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: el
  labels: {kueue.x-k8s.io/queue-name: q}
  annotations: {${2:-}}
spec:
  parallelism: 2
  completions: 8
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "100m"}}}
YAML
}
el_running() { # JOB: its Running pods
    k -n el get pods -l "batch.kubernetes.io/job-name=$1" \
        --field-selector status.phase=Running -o name | wc -l | tr -d ' '
}
el_job_wl() { # JOB: "name count reserved" of its Workload(s)
    k -n el get workloads -o json | /usr/bin/python3 -c '
import json, sys
for w in json.load(sys.stdin)["items"]:
    o = [r for r in w["metadata"].get("ownerReferences", []) if r.get("controller")]
    if o and o[0]["name"] == sys.argv[1]:
        c = [x["status"] for x in w.get("status", {}).get("conditions", []) if x["type"] == "QuotaReserved"]
        print(w["metadata"]["name"], w["spec"]["podSets"][0]["count"], (c or [""])[0])
' "$1"
}
el_reserved() { # the ClusterQueue's reserved cpu
    k get clusterqueue el-cq -o jsonpath='{.status.flavorsReservation[0].resources[?(@.name=="cpu")].total}'
}
el_job grow 'kueue.x-k8s.io/elastic-job: "true"'
el_job fixed
settle 30 '^2$' el_running grow
settle 30 '^2$' el_running fixed
grow_wl=$(el_job_wl grow | cut -d' ' -f1)
expect_exact "elastic: an elastic Job's Workload is elastic too" "true" \
    k -n el get workload "$grow_wl" -o jsonpath='{.metadata.annotations.kueue\.x-k8s\.io/elastic-job}'
settle 15 '^400m$' el_reserved
expect_grep "elastic: a running elastic Job may scale down" 'patched' \
    k -n el patch job grow --type=merge -p '{"spec":{"parallelism":1}}'
wait_for "elastic: ... its Workload's count is lowered in place, the quota kept" 15 \
    "^$grow_wl 1 True\$" el_job_wl grow
wait_for "elastic: ... the quota it no longer uses is released" 15 '^300m$' el_reserved
wait_for "elastic: ... and one pod goes" 30 '^1$' el_running grow
expect_grep "elastic: a running elastic Job may not scale up (no Workload slice is made)" \
    'spec.parallelism: Forbidden: an elastic job may only scale down while it runs: Kueue admitted 1 pods' \
    k -n el patch job grow --type=merge -p '{"spec":{"parallelism":3}}'
expect_grep "elastic: a running Job that is not elastic may not scale up" \
    'spec.parallelism: Forbidden: cannot change while the job is not suspended: Kueue admitted 2 pods' \
    k -n el patch job fixed --type=merge -p '{"spec":{"parallelism":3}}'
expect_grep "elastic: ... nor down" \
    'spec.parallelism: Forbidden: cannot change while the job is not suspended' \
    k -n el patch job fixed --type=merge -p '{"spec":{"parallelism":1}}'
sleep 1
expect_exact "elastic: ... its pods stay those admitted" "2" el_running fixed
expect_exact "elastic: ... the elastic Job's stay those of its lowered count" "1" el_running grow
k -n el delete job grow fixed >/dev/null
settle 30 '^0$' el_reserved

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
