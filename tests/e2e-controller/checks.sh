# checks.sh -- sourced by run.sh: admission checks (the test plays the
# check's controller by patching states) and the waitForPodsReady timeout,
# each on its own server: the timeout applies to every admitted workload,
# and would evict the admission checks' ones while they are looked at.
start_server checks --controllers all --executor none || return 1
cat >"$TMP/ac.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: ac}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: manual}
spec: {controllerName: example.com/manual}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: ac-default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: ac-cq}
spec:
  namespaceSelector: {}
  admissionChecksStrategy:
    admissionChecks: [{name: manual}]
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: ac-default
      resources: [{name: cpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: ac-q, namespace: ac}
spec: {clusterQueue: ac-cq}
YAML
mkjob() {
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: ac
  labels: {kueue.x-k8s.io/queue-name: $2}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["true"], resources: {requests: {cpu: "1"}}}
YAML
}
wlof() { # the workload of job $1
    k -n ac get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$1\")]}{.metadata.name}{end}"
}
cond_of() { # workload, condition type -> "status reason"
    k -n ac get workload "$1" -o jsonpath="{.status.conditions[?(@.type==\"$2\")].status} {.status.conditions[?(@.type==\"$2\")].reason}"
}
expect "checks: objects" "created" k apply -f "$TMP/ac.yaml"
wait_for "checks: a ClusterQueue whose check has no controller is inactive" 10 'AdmissionCheckInactive|AdmissionCheckNotFound' \
    k get cq ac-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].reason}'
expect "checks: the test acts as the check's controller (Active=True)" "patched" \
    k patch admissioncheck manual --subresource=status --type=merge \
    -p '{"status":{"conditions":[{"type":"Active","status":"True","reason":"Active","message":"The admission check is active","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}'
wait_for "checks: the ClusterQueue becomes active" 10 '^Ready$' \
    k get cq ac-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].reason}'
mkjob j1 ac-q | k apply -f - >/dev/null
wait_for "checks: the workload reserves quota, not yet admitted" 15 '^True$' \
    k -n ac get workloads -o jsonpath='{.items[0].status.conditions[?(@.type=="QuotaReserved")].status}'
w1=$(wlof j1)
wait_for "checks: Admitted=False UnsatisfiedAdmissionChecks" 10 '^False UnsatisfiedAdmissionChecks$' cond_of "$w1" Admitted
expect_exact "checks: the check is listed Pending" "manual=Pending" \
    k -n ac get workload "$w1" -o jsonpath='{range .status.admissionChecks[*]}{.name}={.state}{end}'
expect_exact "checks: the job stays suspended" "true" k -n ac get job j1 -o jsonpath='{.spec.suspend}'
expect "checks: the check turns Ready" "patched" \
    k -n ac patch workload "$w1" --subresource=status --type=json -p '[{"op":"replace","path":"/status/admissionChecks/0/state","value":"Ready"}]'
wait_for "checks: Admitted=True once every check is Ready" 10 '^True Admitted$' cond_of "$w1" Admitted
wait_for "checks: the job starts" 10 '^false$' k -n ac get job j1 -o jsonpath='{.spec.suspend}'
mkjob j2 ac-q | k apply -f - >/dev/null
wait_for "checks: second workload listed with a Pending check" 15 'Pending' \
    k -n ac get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="j2")]}{.status.admissionChecks[0].state}{end}'
w2=$(wlof j2)
wait_for "checks: second workload reserves quota" 10 '^True' cond_of "$w2" QuotaReserved
expect "checks: the check asks to Retry" "patched" \
    k -n ac patch workload "$w2" --subresource=status --type=json -p '[{"op":"replace","path":"/status/admissionChecks/0/state","value":"Retry"},{"op":"replace","path":"/status/admissionChecks/0/message","value":"try later"}]'
wait_for "checks: Retry evicts with reason AdmissionCheck and Kueue's message" 10 'Evicted due to AdmissionCheck in Retry state: "manual" \(try later\)' \
    k -n ac get workload "$w2" -o jsonpath='{.status.conditions[?(@.type=="Evicted")].message}'
wait_for "checks: quota released and reserved again, the check reset to Pending" 15 'Reset to Pending after eviction. Previously: Retry' \
    k -n ac get workload "$w2" -o jsonpath='{.status.admissionChecks[0].message}'
wait_for "checks: readmitted after the retry (Evicted flips to False)" 15 '^True False$' \
    k -n ac get workload "$w2" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status} {.status.conditions[?(@.type=="Evicted")].status}'
expect "checks: the check rejects" "patched" \
    k -n ac patch workload "$w2" --subresource=status --type=json -p '[{"op":"replace","path":"/status/admissionChecks/0/state","value":"Rejected"},{"op":"replace","path":"/status/admissionChecks/0/message","value":"no"}]'
wait_for "checks: Rejected deactivates the workload" 15 '^false DeactivatedDueToAdmissionCheck' \
    k -n ac get workload "$w2" -o jsonpath='{.spec.active} {.status.conditions[?(@.type=="Evicted")].reason}'
wait_for "checks: the deactivated workload holds no quota" 15 '^False' cond_of "$w2" QuotaReserved

stop_server "$PID"

# waitForPodsReady: no executor here, so pods never get ready. Each state
# looked at lasts several times what a kubectl call takes on a loaded
# machine: admitted and waiting T seconds, requeued (count 1, in backoff)
# B + T seconds.
T=$((3 * WAIT_SCALE))
B=$((10 * WAIT_SCALE))
cat >"$TMP/wfpr.yaml" <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: ${T}s
  requeuingStrategy:
    backoffBaseSeconds: $B
    backoffMaxSeconds: $B
YAML
start_server podsready --controllers all --executor none --config "$TMP/wfpr.yaml" || return 1
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: v1
kind: Namespace
metadata: {name: ac}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: ac-default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: plain-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: ac-default
      resources: [{name: cpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: plain-q, namespace: ac}
spec: {clusterQueue: plain-cq}
YAML
mkjob slow plain-q | k apply -f - >/dev/null
wait_for "pods-ready: a workload for the job" 15 '^job-slow-' wlof slow
ws=$(wlof slow)
wait_for "pods-ready: admitted with PodsReady=False WaitForStart" 15 '^True False WaitForStart$' \
    k -n ac get workload "$ws" -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status} {.status.conditions[?(@.type=="PodsReady")].status} {.status.conditions[?(@.type=="PodsReady")].reason}'
wait_for "pods-ready: evicted after the ${T}s timeout with Kueue's message" 15 "Exceeded the PodsReady timeout ac/$ws" \
    k -n ac get workload "$ws" -o jsonpath='{.status.conditions[?(@.type=="Evicted")].message}'
wait_for "pods-ready: requeueState count 1, Requeued False/PodsReadyTimeout then True/BackoffFinished or readmitted" 15 '^1 ' \
    k -n ac get workload "$ws" -o jsonpath='{.status.requeueState.count} {.status.conditions[?(@.type=="Requeued")].reason}'
wait_for "pods-ready: Requeued=False/PodsReadyTimeout during the backoff" 10 'False PodsReadyTimeout' \
    k -n ac get workload "$ws" -o jsonpath='{.status.conditions[?(@.type=="Requeued")].status} {.status.conditions[?(@.type=="Requeued")].reason}'
wait_for "pods-ready: and evicted again with count 2" 30 '^2$' \
    k -n ac get workload "$ws" -o jsonpath='{.status.requeueState.count}'
stop_server "$PID"
