# lifecycle-elastic.sh -- sourced by run.sh: Kueue's
# ElasticJobsViaWorkloadSlices (beta, on by default), and what becomes of
# a running Job that is not elastic when its parallelism changes. An
# elastic Job's Pods wait at the kueue.x-k8s.io/elastic-job scheduling
# gate until a Workload slice admits them. A running elastic Job scales
# down in place; a scale-up makes a new Workload slice replacing the one
# that holds the quota: once admitted, the old slice is Finished
# (WorkloadSliceReplaced) and the new Pods run; until then they stay
# gated while the old ones run on. A running Job that is not elastic may
# change its parallelism, as Kueue lets it: the controllers stop it ("No
# matching Workload"), delete its Workload and queue a new one of the new
# size, which runs once admitted. A Workload slice annotated
# kueue.x-k8s.io/workload-slice-replacement-for is admitted when what it
# adds to the slice it replaces fits; the old slice is then Finished
# (WorkloadSliceReplaced), with Kueue's Event and metric, and the new one
# holds the quota. One that does not fit waits, and the old slice keeps
# its quota.

# The namespace, flavor, ClusterQueue (6 CPUs) and LocalQueue of both
# servers.
el_queues() {
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
}

start_server elastic --controllers all --executor local || return 1
el_queues

# A running elastic Job scales down in place: its Workload's count is
# lowered, the quota it no longer uses released, and one pod goes. It
# scales up on a new Workload slice. A Job that is not elastic is stopped
# and queued again at its new size.
el_job() { # NAME [ANNOTATIONS] [CPU] [QUEUE]
    cat <<YAML | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: el
  labels: {kueue.x-k8s.io/queue-name: ${4:-q}}
  annotations: {${2:-}}
spec:
  parallelism: 2
  completions: 8
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "${3:-100m}"}}}
YAML
}
el_running() { # JOB: its Running pods
    k -n el get pods -l "batch.kubernetes.io/job-name=$1" \
        --field-selector status.phase=Running -o name | wc -l | tr -d ' '
}
el_gated() { # JOB: its Pods held by a scheduling gate, as the scheduler reports them
    k -n el get pods -l "batch.kubernetes.io/job-name=$1" \
        -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="PodScheduled")].reason}{"\n"}{end}' |
        grep -c '^SchedulingGated$'
}
el_job_wl() { # JOB: "name count reserved" of its Workload(s) not finished
    k -n el get workloads -o json | /usr/bin/python3 -c '
import json, sys
for w in json.load(sys.stdin)["items"]:
    o = [r for r in w["metadata"].get("ownerReferences", []) if r.get("controller")]
    cs = {x["type"]: x for x in w.get("status", {}).get("conditions", [])}
    if o and o[0]["name"] == sys.argv[1] and cs.get("Finished", {}).get("status") != "True":
        print(w["metadata"]["name"], w["spec"]["podSets"][0]["count"], cs.get("QuotaReserved", {}).get("status", ""))
' "$1"
}
el_ann() { # WORKLOAD KEY: an annotation of the Workload
    k -n el get workload "$1" -o json | /usr/bin/python3 -c '
import json, sys
print(json.load(sys.stdin)["metadata"].get("annotations", {}).get(sys.argv[1], ""))' "$2"
}
el_finished() { # WORKLOAD: "status reason" of its Finished condition
    k -n el get workload "$1" -o jsonpath='{.status.conditions[?(@.type=="Finished")].status} {.status.conditions[?(@.type=="Finished")].reason}'
}
el_slices() { # JOB: its Workloads not finished on one line, by count
    el_job_wl "$1" | sort -k2n | tr '\n' ' ' | sed 's/ $//'
}
el_gated_running() { # JOB: "gated running" Pods
    echo "$(el_gated "$1") $(el_running "$1")"
}
el_reserved() { # the ClusterQueue's reserved cpu
    k get clusterqueue el-cq -o jsonpath='{.status.flavorsReservation[0].resources[?(@.name=="cpu")].total}'
}
el_job grow 'kueue.x-k8s.io/elastic-job: "true"'
el_job fixed
expect_exact "elastic: Kueue's webhook gates an elastic Job's Pods" "kueue.x-k8s.io/elastic-job" \
    k -n el get job grow -o jsonpath='{.spec.template.spec.schedulingGates[*].name}'
settle 30 '^2$' el_running grow
settle 30 '^2$' el_running fixed
grow_wl=$(el_job_wl grow | cut -d' ' -f1)
expect_exact "elastic: an elastic Job's Workload is elastic too" "true" \
    el_ann "$grow_wl" kueue.x-k8s.io/elastic-job
expect_exact "elastic: ... and the first slice of its chain" "$grow_wl" \
    el_ann "$grow_wl" kueue.x-k8s.io/workload-slice-name
expect_exact "elastic: ... its Pods, ungated once it was admitted, name the chain" \
    "$grow_wl $grow_wl" k -n el get pods -l batch.kubernetes.io/job-name=grow \
    -o jsonpath='{.items[*].metadata.annotations.kueue\.x-k8s\.io/workload-slice-name}'
settle 15 '^400m$' el_reserved
expect_grep "elastic: a running elastic Job may scale down" 'patched' \
    k -n el patch job grow --type=merge -p '{"spec":{"parallelism":1}}'
wait_for "elastic: ... its Workload's count is lowered in place, the quota kept" 15 \
    "^$grow_wl 1 True\$" el_job_wl grow
wait_for "elastic: ... the quota it no longer uses is released" 15 '^300m$' el_reserved
wait_for "elastic: ... and one pod goes" 30 '^1$' el_running grow
expect_grep "elastic: a running elastic Job may scale up" 'patched' \
    k -n el patch job grow --type=merge -p '{"spec":{"parallelism":3}}'
wait_for "elastic: ... on a new Workload slice, admitted as the 2 pods it adds fit" 30 \
    "^[^ ]* 3 True\$" el_job_wl grow
new_wl=$(el_job_wl grow | cut -d' ' -f1)
expect_exact "elastic: ... the new slice replaces the old one" "el/$grow_wl" \
    el_ann "$new_wl" kueue.x-k8s.io/workload-slice-replacement-for
expect_exact "elastic: ... and carries on its chain" "$grow_wl" \
    el_ann "$new_wl" kueue.x-k8s.io/workload-slice-name
wait_for "elastic: ... the old slice is Finished, WorkloadSliceReplaced" 15 \
    '^True WorkloadSliceReplaced$' el_finished "$grow_wl"
wait_for "elastic: ... its new Pods are ungated and run" 30 '^3$' el_running grow
wait_for "elastic: ... the ClusterQueue holds its 300m and the other Job's 200m" 15 '^500m$' \
    el_reserved
fixed_wl=$(el_job_wl fixed | cut -d' ' -f1)
expect_grep "elastic: a running Job that is not elastic may raise its parallelism" 'patched' \
    k -n el patch job fixed --type=merge -p '{"spec":{"parallelism":3}}'
wait_for "elastic: ... it is stopped, as Kueue stops it" 15 \
    '^No matching Workload; restoring pod templates according to existent Workload$' \
    k -n el get events --field-selector involvedObject.name=fixed,reason=Stopped \
    -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'
wait_for "elastic: ... the Workload that no longer matches is deleted" 15 \
    "^Deleted not matching Workload: el/$fixed_wl\$" \
    k -n el get events --field-selector involvedObject.name=fixed,reason=DeletedWorkload \
    -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'
wait_for "elastic: ... its one Workload, made anew at its new size, is admitted" 30 \
    "^$fixed_wl 3 True\$" el_job_wl fixed
wait_for "elastic: ... and it runs the 3 pods admitted" 30 '^3$' el_running fixed
wait_for "elastic: ... the ClusterQueue holds its 300m and the elastic Job's 300m" 15 '^600m$' \
    el_reserved
# A raise that does not fit (4 pods of 2 cpu beside 600m of 6 cpu): the
# Job is stopped and waits, no pod of it running.
el_job big '' 2
settle 30 '^2$' el_running big
expect_grep "elastic: a running Job raises its parallelism beyond the quota" 'patched' \
    k -n el patch job big --type=merge -p '{"spec":{"parallelism":4}}'
wait_for "elastic: ... it is stopped" 15 '^true$' k -n el get job big -o jsonpath='{.spec.suspend}'
wait_for "elastic: ... its one Workload, made anew at its new size, waits for quota" 30 \
    '^[^ ]* 4 False$' el_job_wl big
wait_for "elastic: ... no pod of it runs" 30 '^0$' el_running big
wait_for "elastic: ... and the ClusterQueue holds only the other Jobs' 600m" 15 '^600m$' \
    el_reserved
sleep 1
expect_exact "elastic: ... still none a second later" "0" el_running big
# An elastic Job's scale-up that does not fit (2 -> 6 pods of 1 cpu: 4
# more beside 2600m of 6 cpu): its new slice waits, the old one keeps its
# quota and its 2 Pods run; the 4 new Pods stay gated. Scaled back down
# to 1 before its slice is admitted: the waiting slice takes the new
# count, fits, and replaces the old one; the gated Pods go.
el_job wide 'kueue.x-k8s.io/elastic-job: "true"' 1
settle 30 '^2$' el_running wide
wide_wl=$(el_job_wl wide | cut -d' ' -f1)
settle 15 '^2600m$' el_reserved
expect_grep "elastic: an elastic Job scales up beyond the quota" 'patched' \
    k -n el patch job wide --type=merge -p '{"spec":{"parallelism":6}}'
wait_for "elastic: ... its new slice waits for quota beside the old one" 30 \
    "^$wide_wl 2 True [^ ]* 6 False\$" el_slices wide
wait_for "elastic: ... the 4 new Pods wait at the scheduling gate (SchedulingGated)" 30 '^4$' \
    el_gated wide
expect_exact "elastic: ... the old slice's 2 Pods run on" "2" el_running wide
expect_exact "elastic: ... the old slice keeps its quota and is not finished" " " \
    el_finished "$wide_wl"
expect_exact "elastic: ... the ClusterQueue holds no more than before" "2600m" el_reserved
sleep 1
expect_exact "elastic: ... still 2 Pods running a second later" "2" el_running wide
expect_grep "elastic: the Job scales back down before its new slice is admitted" 'patched' \
    k -n el patch job wide --type=merge -p '{"spec":{"parallelism":1}}'
wait_for "elastic: ... the waiting slice takes its count, is admitted and replaces the old one" \
    30 '^True WorkloadSliceReplaced$' el_finished "$wide_wl"
wait_for "elastic: ... one slice is left, of 1 pod" 15 '^[^ ]* 1 True$' el_job_wl wide
wait_for "elastic: ... the gated Pods are gone and 1 Pod runs" 30 '^0 1$' el_gated_running wide
wait_for "elastic: ... the ClusterQueue holds the Job's 1 cpu beside 600m" 15 '^1600m$' el_reserved
# A Job owned by a running elastic Job runs under its parent's current
# Workload slice (the scale-up's, named apart from the first), as Kueue
# looks it up by owner; once that slice is evicted it is suspended.
guid=$(k -n el get job grow -o jsonpath='{.metadata.uid}')
cat <<YAML | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: grow-child
  namespace: el
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: grow, uid: "$guid", controller: true}]
spec:
  suspend: false
  template:
    spec:
      restartPolicy: Never
      containers: [{name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "100m"}}}]
YAML
sleep 1
expect_exact "elastic: a child Job of a running elastic Job runs on, not suspended" "false" \
    k -n el get job grow-child -o jsonpath='{.spec.suspend}'
grow_now=$(el_job_wl grow | cut -d' ' -f1)
k -n el patch workload "$grow_now" --type=merge -p '{"spec":{"active":false}}' >/dev/null
wait_for "elastic: ... suspended once its parent's slice is evicted" 15 '^true$' \
    k -n el get job grow-child -o jsonpath='{.spec.suspend}'
expect_grep "elastic: ... event Suspended" 'Suspended.*Kueue managed child job suspended' \
    k -n el get events --field-selector involvedObject.name=grow-child
# An elastic Job behind an admission check (the test plays its
# controller). Its scale-up's Pods are made from the template the first
# slice's podSetUpdates went into; ungating them, the ElasticJobUngater
# also gives them what the new slice's check adds to their pod set: the
# ProvisioningRequest annotations they lack and the node selector (Kueue's
# refreshPodAdmission). The Pods that ran before are left as they are.
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: el-by-hand}
spec: {controllerName: example.com/by-hand}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: el-ac-cq}
spec:
  namespaceSelector: {}
  admissionChecksStrategy:
    admissionChecks: [{name: el-by-hand}]
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: el-f
      resources: [{name: cpu, nominalQuota: "2"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: qac, namespace: el}
spec: {clusterQueue: el-ac-cq}
YAML
k patch admissioncheck el-by-hand --subresource=status --type=merge \
    -p '{"status":{"conditions":[{"type":"Active","status":"True","reason":"Active","message":"The admission check is active","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
settle 10 '^True$' k get cq el-ac-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
el_job checked 'kueue.x-k8s.io/elastic-job: "true"' 100m qac
# el_check_ready TAG SLICE UPDATE: once SLICE reserves quota, its check
# turns Ready with the podSetUpdate UPDATE (JSON) for pod set main.
el_check_ready() {
    wait_for "$1: the slice waits for its check" 15 '^True Pending$' \
        k -n el get workload "$2" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status} {.status.admissionChecks[0].state}'
    expect "$1: the check turns Ready with its podSetUpdates" "patched" \
        k -n el patch workload "$2" --subresource=status --type=json \
        -p "[{\"op\":\"replace\",\"path\":\"/status/admissionChecks/0/state\",\"value\":\"Ready\"},{\"op\":\"add\",\"path\":\"/status/admissionChecks/0/podSetUpdates\",\"value\":[$3]}]"
}
el_pod_admission() { # JOB: "zone/rack/request" of its Pods, sorted
    k -n el get pods -l "batch.kubernetes.io/job-name=$1" \
        -o jsonpath='{range .items[*]}{.spec.nodeSelector.zone}/{.spec.nodeSelector.rack}/{.metadata.annotations.autoscaling\.x-k8s\.io/consume-provisioning-request}{"\n"}{end}' |
        sort | tr '\n' ' '
}
settle 15 '^[^ ]* 2 True$' el_job_wl checked
checked_wl=$(el_job_wl checked | cut -d' ' -f1)
el_check_ready "elastic with a check" "$checked_wl" '{"name":"main","nodeSelector":{"zone":"z1"}}'
wait_for "elastic with a check: ... admitted, its 2 Pods run with the check's node selector" 30 '^2$' \
    el_running checked
expect_grep "elastic with a check: the Job scales up" 'patched' \
    k -n el patch job checked --type=merge -p '{"spec":{"parallelism":3}}'
el_of_count() { # JOB COUNT: its slice not finished of COUNT pods
    el_job_wl "$1" | grep " $2 "
}
wait_for "elastic with a check: ... its new slice reserves quota" 30 '^[^ ]* 3 True$' \
    el_of_count checked 3
new_checked=$(el_of_count checked 3 | cut -d' ' -f1)
el_check_ready "elastic with a check: the new slice" "$new_checked" \
    '{"name":"main","annotations":{"autoscaling.x-k8s.io/consume-provisioning-request":"pr-2"},"nodeSelector":{"zone":"z1","rack":"r2"}}'
wait_for "elastic with a check: ... the new Pod is ungated and runs" 30 '^3$' el_running checked
expect_exact "elastic with a check: ... given the new slice's node selector and ProvisioningRequest, the others as they were" \
    "z1// z1// z1/r2/pr-2 " el_pod_admission checked
k -n el delete job checked >/dev/null
k -n el delete job grow fixed big wide >/dev/null
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
    '^kueue_replaced_workload_slices_total\{cluster_queue="el-cq",replica_role="standalone"\} 3$' \
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

# The same raise under `cueue controller` over HTTP (the cluster path:
# what an API server lets through, the controller must stop).
start_server elastic-http --controllers none || return 1
"$CUEUE" controller --metrics-bind-address 0 --kubeconfig "$KC" --executor local \
    --data-dir "$DATA" >"$DATA/controller.log" 2>&1 &
CTL_PIDS="$CTL_PIDS $!"
CPID=$!
el_queues
el_job fixed
settle 30 '^2$' el_running fixed
fixed_wl=$(el_job_wl fixed | cut -d' ' -f1)
expect_grep "elastic over HTTP: a running Job's parallelism may be raised" 'patched' \
    k -n el patch job fixed --type=merge -p '{"spec":{"parallelism":3}}'
wait_for "elastic over HTTP: ... it is stopped, its Workload deleted" 20 \
    "^No matching Workload; restoring pod templates according to existent Workload Deleted not matching Workload: el/$fixed_wl\$" \
    k -n el get events --field-selector involvedObject.name=fixed \
    -o jsonpath='{.items[?(@.reason=="Stopped")].message} {.items[?(@.reason=="DeletedWorkload")].message}'
wait_for "elastic over HTTP: ... a Workload of its new size is admitted" 30 \
    "^$fixed_wl 3 True\$" el_job_wl fixed
wait_for "elastic over HTTP: ... and it runs the 3 pods admitted" 30 '^3$' el_running fixed
# An elastic Job's scale-up: the controller makes the new slice, the
# scheduler admits it and finishes the old one, the ungater lets the new
# Pods run.
el_job grow 'kueue.x-k8s.io/elastic-job: "true"'
settle 30 '^2$' el_running grow
grow_wl=$(el_job_wl grow | cut -d' ' -f1)
expect_grep "elastic over HTTP: a running elastic Job may scale up" 'patched' \
    k -n el patch job grow --type=merge -p '{"spec":{"parallelism":3}}'
wait_for "elastic over HTTP: ... on a new Workload slice, admitted" 30 '^[^ ]* 3 True$' \
    el_job_wl grow
wait_for "elastic over HTTP: ... which replaced the old one" 15 '^True WorkloadSliceReplaced$' \
    el_finished "$grow_wl"
wait_for "elastic over HTTP: ... and its 3 pods run" 30 '^3$' el_running grow
stop_server "$CPID"
stop_server "$PID"
