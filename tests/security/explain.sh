# explain.sh -- `cueue explain` against `cueue serve`: a pending, an
# admitted and a preempted workload explained with their arithmetic, and a
# tenant explains only what it may read (sourced by run.sh after lib.sh).
need kubectl

# job NAME CPU [PRIORITY_CLASS]: a Job for queue "user-queue" that runs long.
job() {
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  labels: {kueue.x-k8s.io/queue-name: user-queue${3:+, kueue.x-k8s.io/priority-class: $3}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sh", "-c", "sleep 120"], resources: {requests: {cpu: "$2"}}}
YAML
}

# Offline, on the files of a scenario: a fair-sharing preemption.
FS="$SRC/tests/scenarios/preempt-9-5-fair-sharing-until-idle.yaml"
expect "offline (-f): the preemption that evicted a workload, with the fair shares compared" \
    "InCohortFairSharing (fairSharing):
    preemptor priority 0 vs priority 0; ClusterQueue shares 0 (preemptor) vs 333.333" \
    "$CUEUE" explain -f "$FS" workload ns/c3
expect "  ... a workload not in the files" "cueue explain: workload ns/nope is not in the files" \
    "$CUEUE" explain -f "$FS" workload ns/nope
expect "  ... bad input is named as cueue schedule names it" "cueue explain: $TMP/missing.yaml:" \
    "$CUEUE" explain -f "$TMP/missing.yaml" workload ns/c3
expect "  ... and has no history" "cueue explain: --history reads a server's decision log; -f has none" \
    "$CUEUE" explain --history -f "$FS" workload ns/c3

start_server explain --controllers all --executor local || exit 1
note "# explain: why a workload waits, what it uses, who preempted it"
cat >"$TMP/objs.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
YAML
k apply -f "$TMP/objs.yaml" >/dev/null
queues --preempt LowerPriority team-a,team-b 1
tenant alice team-a
ALICE=$TKC
tenant bob team-b
BOB=$TKC

# wl NS JOB: the Workload of a Job.
wl() {
    k -n "$1" get workloads -o name 2>/dev/null | sed -n "s|^workload.kueue.x-k8s.io/\\(job-$2-.*\\)|\\1|p"
}

job hold 1 | kt "$ALICE" -n team-a create -f - >/dev/null
settle 20 '^false$' k -n team-a get job hold -o jsonpath='{.spec.suspend}'
job wait 600m | kt "$BOB" -n team-b create -f - >/dev/null
settle 20 '^job-wait-' wl team-b wait
HOLD=$(wl team-a hold)
WAIT=$(wl team-b wait)
settle 20 'Pending' "$CUEUE" explain workload "team-b/$WAIT" --kubeconfig "$KC"

expect "a pending workload: the flavor tried, with the quota arithmetic" \
    "flavor local, cpu: NoCandidates
      requested 600m; ClusterQueue uses 1 of nominal 1
      available 0, maximum capacity 1
      missing 600m: insufficient unused quota for cpu in flavor local, 600m more needed" \
    "$CUEUE" explain workload "team-b/$WAIT" --kubeconfig "$KC"
expect "  ... its position in the queues" \
    "Position 0 of 1 pending in the ClusterQueue, 0 of 1 in the LocalQueue" \
    "$CUEUE" explain workload "team-b/$WAIT" --kubeconfig "$KC"
expect "  ... and the preemption the policy rules out" \
    "team-a/$HOLD (ClusterQueue cq, priority 0): protected by withinClusterQueue" \
    "$CUEUE" explain workload "team-b/$WAIT" --kubeconfig "$KC"
expect_exact "an admitted workload: the quota it uses, as JSON" \
    "Admitted local cpu 1 1" \
    sh -c "'$CUEUE' explain workload 'team-a/$HOLD' --kubeconfig '$KC' -o json | $PY -c 'import json,sys; x=json.load(sys.stdin); a=x[\"podSets\"][0][\"assigned\"][0]; print(x[\"state\"], a[\"flavor\"], a[\"resource\"], a[\"value\"], a[\"nominalQuota\"])'"

expect "a tenant explains a workload of its namespace" "Workload team-a/$HOLD: Admitted" \
    "$CUEUE" explain workload "team-a/$HOLD" --kubeconfig "$ALICE"
expect "a tenant cannot explain another namespace's workload" \
    "is forbidden: User \"alice\" cannot get resource \"workloads\" in API group \"kueue.x-k8s.io\" in the namespace \"team-b\"" \
    "$CUEUE" explain workload "team-b/$WAIT" --kubeconfig "$ALICE"
expect "  ... nor learn whether a name exists there" \
    "is forbidden: User \"alice\" cannot get resource \"workloads\" in API group \"kueue.x-k8s.io\" in the namespace \"team-b\"" \
    "$CUEUE" explain workload "team-b/no-such-workload" --kubeconfig "$ALICE"
expect "  ... nor through the raw path" "forbidden" \
    kt "$ALICE" get --raw "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/team-b/workloads/$WAIT/explanation"
expect "an unknown workload is NotFound" 'workloads.kueue.x-k8s.io "nope" not found' \
    "$CUEUE" explain workload team-a/nope --kubeconfig "$KC"

# A high-priority Job of team-b preempts the one holding the quota.
job urgent 1 high | kt "$BOB" -n team-b create -f - >/dev/null
settle 30 'Preempted at' "$CUEUE" explain workload "team-a/$HOLD" --kubeconfig "$KC"
URGENT=$(wl team-b urgent)
expect "a preempted workload: the preemptor and the policy" \
    "by team-b/$URGENT (ClusterQueue cq), InClusterQueue (withinClusterQueue)" \
    "$CUEUE" explain workload "team-a/$HOLD" --kubeconfig "$KC"
expect "  ... and the priorities compared" "preemptor priority 1000 vs priority 0" \
    "$CUEUE" explain workload "team-a/$HOLD" --kubeconfig "$KC"
expect "  ... which its tenant may read too" "preemptor priority 1000 vs priority 0" \
    "$CUEUE" explain workload "team-a/$HOLD" --kubeconfig "$ALICE"
expect "  ... without naming another tenant's workload" \
    "by (a workload the caller may not read) (ClusterQueue cq)" \
    "$CUEUE" explain workload "team-a/$HOLD" --kubeconfig "$ALICE"

# The decision log.
expect "the decision log: the admission with the quota it took" \
    "Admitted      team-a/$HOLD in cq (priority 0), waited" \
    "$CUEUE" explain --history workload "team-a/$HOLD" --kubeconfig "$KC"
expect "  ... the preemption with the priorities compared" \
    "Preempted     team-a/$HOLD in cq (priority 0) by team-b/$URGENT (ClusterQueue cq, priority 1000): InClusterQueue, withinClusterQueue" \
    "$CUEUE" explain --history workload "team-a/$HOLD" --kubeconfig "$KC"
expect "  ... the requeue of the waiting workload with the arithmetic" \
    "Requeued      team-b/$WAIT in cq (priority 0): WaitingForQuota: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor local, 600m more needed" \
    "$CUEUE" explain --history workload "team-b/$WAIT" --kubeconfig "$KC"
expect_exact "  ... exported as JSON lines, every line an entry" "ok" \
    sh -c "'$CUEUE' explain --history -A -o jsonl --kubeconfig '$KC' | $PY -c 'import json,sys; xs=[json.loads(l) for l in sys.stdin]; print(\"ok\" if len(xs) >= 4 and {\"Admitted\",\"Preempted\",\"Requeued\"} <= {x[\"type\"] for x in xs} else xs)'"
expect "a tenant reads its namespace's log, the preemptor unnamed" \
    "by (a workload the caller may not read) (ClusterQueue cq, priority 1000)" \
    "$CUEUE" explain --history -n team-a --kubeconfig "$ALICE"
expect "  ... not another namespace's" \
    "is forbidden: User \"alice\" cannot list resource \"workloads\" in API group \"kueue.x-k8s.io\" in the namespace \"team-b\"" \
    "$CUEUE" explain --history -n team-b --kubeconfig "$ALICE"
expect "  ... nor the whole cluster's" \
    "is forbidden: User \"alice\" cannot list resource \"workloads\" in API group \"kueue.x-k8s.io\" at the cluster scope" \
    "$CUEUE" explain --history -A --kubeconfig "$ALICE"
expect "  ... nor another namespace's workload's" "is forbidden: User \"alice\" cannot get resource \"workloads\"" \
    "$CUEUE" explain --history workload "team-b/$WAIT" --kubeconfig "$ALICE"

# The log is bounded by count.
start_server small --controllers all --executor none --decision-log-max-entries 3 || exit 1
k apply -f "$TMP/objs.yaml" >/dev/null
queues --preempt LowerPriority team-a,team-b 1
for n in 1 2 3 4 5; do job "b$n" 1 | k -n team-b create -f - >/dev/null; done
settle 30 '^5$' sh -c "kubectl --kubeconfig '$KC' -n team-b get workloads -o name | wc -l"
settle 30 '^3$' sh -c "'$CUEUE' explain --history -A -o jsonl --kubeconfig '$KC' | wc -l"
sleep 1
expect_exact "the log keeps at most --decision-log-max-entries entries" "3" \
    sh -c "'$CUEUE' explain --history -A -o jsonl --kubeconfig '$KC' | wc -l"
