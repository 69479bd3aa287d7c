# lifecycle-prebuilt.sh -- sourced by run.sh: a Job that names a prebuilt
# Workload (kueue.x-k8s.io/prebuilt-workload-name, read from the
# annotation as Kueue's WorkloadIdentifierAnnotations does, else the
# label) runs under that Workload, as Kueue's ensureOneWorkload: the Job
# takes controller ownership of it, a Workload that does not describe the
# Job finishes OutOfSync, one another object controls is left alone, and
# a missing one keeps the Job suspended. No node agent runs: the test
# plays the Job controller by writing the Job's status.
start_server prebuilt --controllers all --executor none || return 1

cat <<YAML | k apply -f - >/dev/null
apiVersion: v1
kind: Namespace
metadata: {name: pb}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: pb-f}
spec:
  nodeLabels: {instance-type: on-demand}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: pb-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: pb-f
      resources: [{name: cpu, nominalQuota: "8"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: pb}
spec: {clusterQueue: pb-cq}
YAML
wait_for "prebuilt: ClusterQueue active" 10 '^True$' \
    k get cq pb-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'

# pb_wl NAME CPU: a Workload as a Job of pb_job would make it with CPU.
pb_wl() {
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
        - {name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "$2"}}}
YAML
}

# pb_job NAME CPU WORKLOAD: a Job in queue q naming WORKLOAD in the
# prebuilt-workload-name annotation.
pb_job() {
    cat <<YAML | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: pb
  labels: {kueue.x-k8s.io/queue-name: q}
  annotations: {kueue.x-k8s.io/prebuilt-workload-name: $3}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "$2"}}}
YAML
}

pb_status() { # JOB MERGE-PATCH-OF-STATUS
    k -n pb patch job "$1" --subresource=status --type=merge -p "{\"status\":$2}" >/dev/null
}

pb_cond() { # WORKLOAD TYPE: "status reason"
    k -n pb get workload "$1" -o jsonpath="{.status.conditions[?(@.type==\"$2\")].status} {.status.conditions[?(@.type==\"$2\")].reason}"
}

# 1. Adopted, admitted, started with the flavor, finished.
pb_wl pre 1
pb_job j 1 pre
juid=$(k -n pb get job j -o jsonpath='{.metadata.uid}')
wait_for "prebuilt: the Job takes controller ownership of the Workload its annotation names" 10 \
    "^Job j $juid true true\$" k -n pb get workload pre -o \
    jsonpath='{.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].uid} {.metadata.ownerReferences[0].controller} {.metadata.ownerReferences[0].blockOwnerDeletion}'
expect_exact "prebuilt: the Workload is labelled with the Job's uid" "$juid" \
    k -n pb get workload pre -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/job-uid}'
wait_for "prebuilt: the Job starts when its Workload is admitted" 15 '^false$' \
    k -n pb get job j -o jsonpath='{.spec.suspend}'
expect_exact "prebuilt: ... with the flavor's node labels" "on-demand" \
    k -n pb get job j -o jsonpath='{.spec.template.spec.nodeSelector.instance-type}'
expect_grep "prebuilt: event Started" 'Started.*Admitted by clusterQueue pb-cq' \
    k -n pb get events --field-selector involvedObject.kind=Job,involvedObject.name=j
expect_exact "prebuilt: no Workload of its own is made" "pre" \
    k -n pb get workloads -o jsonpath='{.items[*].metadata.name}'
pb_status j '{"startTime":"2026-01-01T00:00:00Z","completionTime":"2026-01-01T00:00:10Z","succeeded":1,"conditions":[{"type":"SuccessCriteriaMet","status":"True","lastProbeTime":"2026-01-01T00:00:10Z","lastTransitionTime":"2026-01-01T00:00:10Z"},{"type":"Complete","status":"True","lastProbeTime":"2026-01-01T00:00:10Z","lastTransitionTime":"2026-01-01T00:00:10Z"}]}'
wait_for "prebuilt: the Workload finishes with the Job (Finished=True/Succeeded)" 10 \
    '^True Succeeded$' pb_cond pre Finished
wait_for "prebuilt: event FinishedWorkload" 10 "FinishedWorkload.*Workload 'pb/pre' is declared finished" \
    k -n pb get events --field-selector involvedObject.kind=Job,involvedObject.name=j
wait_for "prebuilt: its resource-in-use finalizer goes" 10 '^$' \
    k -n pb get workload pre -o jsonpath='{.metadata.finalizers}'

# 2. A Workload that does not describe the Job (2 cpu for a 1-cpu Job).
pb_wl big 2
pb_job small 1 big
wait_for "prebuilt: a Workload out of sync with its Job finishes (Finished=True/OutOfSync)" 10 \
    '^True OutOfSync$' pb_cond big Finished
expect_exact "prebuilt: ... with Kueue's message" "The prebuilt workload is out of sync with its user job" \
    k -n pb get workload big -o jsonpath='{.status.conditions[?(@.type=="Finished")].message}'
sleep 1
expect_exact "prebuilt: ... and the Job stays suspended" "true" \
    k -n pb get job small -o jsonpath='{.spec.suspend}'

# 3. A Workload another object controls is not taken.
pb_wl theirs 1
cat <<YAML | k apply -f - >/dev/null
apiVersion: v1
kind: ConfigMap
metadata: {name: holder, namespace: pb}
YAML
huid=$(k -n pb get configmap holder -o jsonpath='{.metadata.uid}')
k -n pb patch workload theirs --type=merge -p "{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"holder\",\"uid\":\"$huid\",\"controller\":true}]}}" >/dev/null
pb_job other 1 theirs
sleep 2
expect_exact "prebuilt: a Workload another object controls keeps its owner" "ConfigMap/holder" \
    k -n pb get workload theirs -o jsonpath='{.metadata.ownerReferences[*].kind}/{.metadata.ownerReferences[*].name}'
expect_exact "prebuilt: ... and the Job naming it stays suspended" "true" \
    k -n pb get job other -o jsonpath='{.spec.suspend}'
expect_exact "prebuilt: ... without a Workload of its own" "big pre theirs" \
    k -n pb get workloads -o jsonpath='{.items[*].metadata.name}'
k -n pb delete workload theirs >/dev/null
wait_for "prebuilt: (the ConfigMap's Workload deleted, its quota released)" 10 '^0$' \
    k get cq pb-cq -o jsonpath='{.status.admittedWorkloads}'

# 4. The Workload comes after the Job; deleting the Job deletes it.
pb_job late 1 later
sleep 1
expect_exact "prebuilt: a Job whose Workload does not exist yet stays suspended" "true" \
    k -n pb get job late -o jsonpath='{.spec.suspend}'
pb_wl later 1
wait_for "prebuilt: the Workload made later is taken" 10 '^late$' \
    k -n pb get workload later -o jsonpath='{.metadata.ownerReferences[0].name}'
wait_for "prebuilt: ... and the Job runs" 15 '^false$' k -n pb get job late -o jsonpath='{.spec.suspend}'
k -n pb delete job late >/dev/null
wait_for "prebuilt: deleting the running Job deletes its Workload" 15 'NotFound' \
    k -n pb get workload later
wait_for "prebuilt: ... and releases its quota" 10 '^0$' \
    k get cq pb-cq -o jsonpath='{.status.admittedWorkloads}'

k delete ns pb >/dev/null
k delete cq pb-cq >/dev/null
stop_server "$PID"
