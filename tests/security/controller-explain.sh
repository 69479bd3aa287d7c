# controller-explain.sh -- `cueue controller` keeps a decision log in
# memory, bounded, and answers `cueue explain` (and --history) on its
# metrics listener, checked by the API server as a scrape is: a tenant
# reads only what RBAC lets it read of Workloads (sourced by run.sh after
# lib.sh).
need kubectl curl

expect "a bad --decision-log-max-age is refused" \
    "cueue controller: --decision-log-max-age must be a positive duration (30s, 10m, 24h), got '0'" \
    "$CUEUE" controller --decision-log-max-age 0
expect "  ... and a bad --decision-log-max-entries" \
    "cueue controller: --decision-log-max-entries must be 1-100000000, got 'many'" \
    "$CUEUE" controller --decision-log-max-entries many

start_server ctlx --controllers none --executor none || exit 1
"$CUEUE" controller --kubeconfig "$KC" --metrics-bind-address 127.0.0.1:0 \
    --decision-log-max-entries 2 >"$DATA/controller.log" 2>&1 &
SERVER_PIDS="$SERVER_PIDS $!"
settle 15 'metrics served at' cat "$DATA/controller.log"
CURL=$(sed -n 's/.*metrics served at \(https:[^ ]*\)\/metrics.*/\1/p' "$DATA/controller.log" | head -1)
note "# cueue controller: the decision log and explanations, from its metrics listener"

k apply -f "$SRC/examples/quota-lab-queues.yaml" >/dev/null
sed 's/sleep 30/sleep 600/' "$SRC/examples/admitted-job.yaml" | k apply -f - >/dev/null
settle 15 'True' k -n kueue-lab get kwl -o jsonpath='{.items[*].status.conditions[?(@.type=="Admitted")].status}'
k apply -f "$SRC/examples/over-quota-job.yaml" >/dev/null
X="--controller $CURL --insecure-skip-tls-verify"
AX="$X --kubeconfig $KC"
# shellcheck disable=SC2086
settle 15 'Requeued +kueue-lab/job-over-quota-job' "$CUEUE" explain --history -A $AX
# shellcheck disable=SC2086
expect_grep "the controller's log holds its admission" \
    'Admitted +kueue-lab/job-admitted-job-[0-9a-f]+ in lab-cq \(priority 0\)' "$CUEUE" explain --history -A $AX
OQ=$(k -n kueue-lab get jobs over-quota-job -o jsonpath='{.metadata.uid}' >/dev/null &&
    k -n kueue-lab get kwl -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | grep over-quota)
# shellcheck disable=SC2086
expect "cueue explain --controller: a pending workload's arithmetic" \
    "requested 6; ClusterQueue uses 1 of nominal 4" "$CUEUE" explain workload "kueue-lab/$OQ" $AX
# shellcheck disable=SC2086
expect "  ... a workload that does not exist" 'workloads.kueue.x-k8s.io "nope" not found' \
    "$CUEUE" explain workload kueue-lab/nope $AX
expect "  ... its certificate is self-signed: the way out is named" \
    "add --insecure-skip-tls-verify" "$CUEUE" explain --history -A --controller "$CURL" --kubeconfig "$KC"
expect "  ... a URL is needed" "cueue explain: --controller must be an http:// or https:// URL" \
    "$CUEUE" explain --history -A --controller "${CURL#https://}"

sed -e 's/name: admitted-job/name: third-job/' -e 's/sleep 30/sleep 600/' \
    "$SRC/examples/admitted-job.yaml" | k apply -f - >/dev/null
# shellcheck disable=SC2086
settle 15 'Admitted +kueue-lab/job-third-job' "$CUEUE" explain --history -A $AX
# shellcheck disable=SC2086
expect_exact "--decision-log-max-entries 2 keeps the newest two" "Requeued Admitted" \
    sh -c "'$CUEUE' explain --history -A $AX -o jsonl | $PY -c 'import json,sys; print(\" \".join(json.loads(l)[\"type\"] for l in sys.stdin))'"

tenant alice kueue-lab
tenant bob other
# shellcheck disable=SC2086
expect_grep "a tenant reads its namespace's history" 'Admitted +kueue-lab/job-third-job' \
    "$CUEUE" explain --history -n kueue-lab $X --kubeconfig "$TMP/alice.kubeconfig"
# shellcheck disable=SC2086
expect "  ... not the whole log" \
    'User "alice" cannot list resource "workloads" in API group "kueue.x-k8s.io" at the cluster scope' \
    "$CUEUE" explain --history -A $X --kubeconfig "$TMP/alice.kubeconfig"
# shellcheck disable=SC2086
expect "another tenant reads neither its history" \
    "User \"bob\" cannot get resource \"workloads\" in API group \"kueue.x-k8s.io\" in the namespace \"kueue-lab\"" \
    "$CUEUE" explain --history workload "kueue-lab/$OQ" $X --kubeconfig "$TMP/bob.kubeconfig"
# shellcheck disable=SC2086
expect "  ... nor its explanation" \
    "User \"bob\" cannot get resource \"workloads\" in API group \"kueue.x-k8s.io\" in the namespace \"kueue-lab\"" \
    "$CUEUE" explain workload "kueue-lab/$OQ" $X --kubeconfig "$TMP/bob.kubeconfig"
expect_status "no token: 401" 401 -k "$CURL/apis/visibility.kueue.x-k8s.io/v1beta2/decisions"
expect_status "a token the API server does not know: 401" 401 -k -H "Authorization: Bearer nope" \
    "$CURL/apis/visibility.kueue.x-k8s.io/v1beta2/decisions"
expect_status "  ... nor may a tenant read /metrics" 403 -k \
    -H "Authorization: Bearer $(kubectl config view --raw --kubeconfig "$TMP/alice.kubeconfig" -o 'jsonpath={.users[0].user.token}')" \
    "$CURL/metrics"

note "# a preemption across tenants: the preemptor is not named to the preempted's tenant"
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
YAML
queues --preempt LowerPriority team-a,team-b 1
# cjob NS NAME [PRIORITY_CLASS]: a Job of 1 cpu in queue user-queue.
cjob() {
    k -n "$1" apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $2
  labels: {kueue.x-k8s.io/queue-name: user-queue${3:+, kueue.x-k8s.io/priority-class: $3}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "1"}}}
YAML
}
settle 15 '^True$' k -n team-b get lq user-queue -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
cjob team-a hold
settle 20 '^false$' k -n team-a get job hold -o jsonpath='{.spec.suspend}'
HOLD=$(k -n team-a get kwl -o jsonpath='{.items[0].metadata.name}')
cjob team-b urgent high
# shellcheck disable=SC2086
settle 30 'Preempted at' "$CUEUE" explain workload "team-a/$HOLD" $AX
tenant alice2 team-a
# shellcheck disable=SC2086
expect "the admin reads who preempted it" "by team-b/job-urgent-" "$CUEUE" explain workload "team-a/$HOLD" $AX
# shellcheck disable=SC2086
expect "  ... its tenant reads that it was preempted, with the priorities" \
    "preemptor priority 1000 vs priority 0" "$CUEUE" explain workload "team-a/$HOLD" $X --kubeconfig "$TKC"
# shellcheck disable=SC2086
expect "  ... not the other tenant's workload's name" \
    "by (a workload the caller may not read) (ClusterQueue cq)" \
    "$CUEUE" explain workload "team-a/$HOLD" $X --kubeconfig "$TKC"
