# podsetupdates.sh -- sourced by run.sh: the admission checks'
# podSetUpdates merged into a Job's pod template when it starts, as
# Kueue's podset.Merge does. The check has a controller name nothing
# serves: the test plays its controller, setting the check Active and a
# Workload's check Ready with its podSetUpdates (as Kueue's integration
# tests do). A key of the labels, annotations or nodeSelector the template
# already sets to another value is a conflict: the Job stays suspended and
# its Workload finishes with reason FailedToStart and Kueue's message,
# which releases its quota; the same value, or a new key, is merged.
start_server podsetupdates --controllers all --executor none || return 1
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: psu}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: by-hand}
spec: {controllerName: example.com/by-hand}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: psu-f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: psu-cq}
spec:
  namespaceSelector: {}
  admissionChecksStrategy:
    admissionChecks: [{name: by-hand}]
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: psu-f
      resources: [{name: cpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: psu}
spec: {clusterQueue: psu-cq}
YAML
k patch admissioncheck by-hand --subresource=status --type=merge \
    -p '{"status":{"conditions":[{"type":"Active","status":"True","reason":"Active","message":"The admission check is active","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
wait_for "podSetUpdates: the ClusterQueue becomes active" 10 '^True$' \
    k get cq psu-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'

# psu_job NAME: a Job whose template sets label app=demo and nodeSelector
# disk=ssd.
psu_job() {
    k apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: psu
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  template:
    metadata:
      labels: {app: demo}
    spec:
      restartPolicy: Never
      nodeSelector: {disk: ssd}
      containers:
      - {name: c, image: busybox, command: ["true"], resources: {requests: {cpu: "1"}}}
YAML
}
psu_wl() { # the Workload of Job $1
    k -n psu get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$1\")]}{.metadata.name}{end}"
}
# psu_ready TAG JOB UPDATE: once JOB's Workload reserves quota (the check
# Pending), the check turns Ready with the podSetUpdate UPDATE (JSON) for
# pod set main. Sets W to the Workload's name.
psu_ready() {
    wait_for "$1: its Workload waits for the check" 15 '^True Pending$' sh -c \
        "w=\$(timeout $E2E_TIMEOUT kubectl --kubeconfig '$KC' -n psu get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name==\"$2\")]}{.metadata.name}{end}') &&
         [ -n \"\$w\" ] && timeout $E2E_TIMEOUT kubectl --kubeconfig '$KC' -n psu get workload \"\$w\" -o jsonpath='{.status.conditions[?(@.type==\"QuotaReserved\")].status} {.status.admissionChecks[0].state}'"
    W=$(psu_wl "$2")
    expect "$1: the check turns Ready with its podSetUpdates" "patched" \
        k -n psu patch workload "$W" --subresource=status --type=json \
        -p "[{\"op\":\"replace\",\"path\":\"/status/admissionChecks/0/state\",\"value\":\"Ready\"},{\"op\":\"add\",\"path\":\"/status/admissionChecks/0/podSetUpdates\",\"value\":[$3]}]"
}
finished_of() { # Workload $1: "status reason: message" of Finished
    k -n psu get workload "$1" -o jsonpath='{.status.conditions[?(@.type=="Finished")].status} {.status.conditions[?(@.type=="Finished")].reason}: {.status.conditions[?(@.type=="Finished")].message}'
}

# A nodeSelector key the template sets to another value.
psu_job sel
psu_ready "podSetUpdates nodeSelector conflict" sel '{"name":"main","nodeSelector":{"disk":"hdd","zone":"z1"}}'
wsel=$W
wait_for "podSetUpdates nodeSelector conflict: the Workload finishes with FailedToStart and Kueue's message" 15 \
    '^True FailedToStart: invalid admission check PodSetUpdate: conflict for nodeSelector: conflict for key=disk, value1=ssd, value2=hdd$' \
    finished_of "$wsel"
expect_exact "podSetUpdates nodeSelector conflict: the Job stays suspended, its template as it was" "true ssd " \
    k -n psu get job sel -o jsonpath='{.spec.suspend} {.spec.template.spec.nodeSelector.disk} {.spec.template.spec.nodeSelector.zone}'
wait_for "podSetUpdates nodeSelector conflict: the Job's event FinishedWorkload" 10 \
    "Workload 'psu/$wsel' is declared finished" \
    k -n psu get events --field-selector involvedObject.name=sel -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}'
expect_exact "podSetUpdates nodeSelector conflict: no Started event" "" \
    k -n psu get events --field-selector involvedObject.name=sel -o jsonpath='{.items[?(@.reason=="Started")].message}'
wait_for "podSetUpdates nodeSelector conflict: the finished Workload holds no quota" 10 '^0$' \
    k get cq psu-cq -o jsonpath='{.status.reservingWorkloads}'

# A label the template sets to another value.
psu_job lab
psu_ready "podSetUpdates label conflict" lab '{"name":"main","labels":{"app":"other"}}'
wait_for "podSetUpdates label conflict: the Workload finishes with FailedToStart and Kueue's message" 15 \
    '^True FailedToStart: invalid admission check PodSetUpdate: conflict for labels: conflict for key=app, value1=demo, value2=other$' \
    finished_of "$W"
expect_exact "podSetUpdates label conflict: the Job stays suspended, its label as it was" "true demo" \
    k -n psu get job lab -o jsonpath='{.spec.suspend} {.spec.template.metadata.labels.app}'

# The same values and new keys are merged; the Job starts.
psu_job ok
psu_ready "podSetUpdates merged" ok '{"name":"main","labels":{"app":"demo","team":"t1"},"annotations":{"note":"n1"},"nodeSelector":{"disk":"ssd","zone":"z1"},"tolerations":[{"key":"spot","operator":"Exists","effect":"NoSchedule"}]}'
wait_for "podSetUpdates merged: the Job starts" 15 '^false$' k -n psu get job ok -o jsonpath='{.spec.suspend}'
expect_exact "podSetUpdates merged: labels, annotations, nodeSelector and tolerations in its template" \
    "demo t1 n1 ssd z1 spot" \
    k -n psu get job ok -o jsonpath='{.spec.template.metadata.labels.app} {.spec.template.metadata.labels.team} {.spec.template.metadata.annotations.note} {.spec.template.spec.nodeSelector.disk} {.spec.template.spec.nodeSelector.zone} {.spec.template.spec.tolerations[0].key}'
expect_exact "podSetUpdates merged: its Workload is not finished" "" \
    k -n psu get workload "$W" -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}'
stop_server "$PID"
