# visibility.sh -- what a tenant learns of other tenants' work: pending
# workloads through the visibility API, and /metrics (sourced by run.sh
# after lib.sh).
need kubectl curl

# job NAME CPU SLEEP: a Job for queue "user-queue".
job() {
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sh", "-c", "sleep $3"], resources: {requests: {cpu: "$2"}}}
YAML
}

start_server vis --controllers all --executor local || exit 1
note "# visibility: pending workloads and /metrics across tenants"
queues team-a,team-b 1
tenant alice team-a
ALICE=$TKC
tenant bob team-b
BOB=$TKC

# One Job holds the whole ClusterQueue; both tenants' Jobs then wait in it.
job hold 1 120 | kt "$ALICE" -n team-a create -f - >/dev/null
settle 20 '^false$' k -n team-a get job hold -o jsonpath='{.spec.suspend}'
for n in a1 a2; do job "$n" 1 0 | kt "$ALICE" -n team-a create -f - >/dev/null; done
for n in b1 b2; do job "$n" 1 0 | kt "$BOB" -n team-b create -f - >/dev/null; done
V=/apis/visibility.kueue.x-k8s.io/v1beta2
settle 20 \
    '^team-a team-a team-b team-b$|^team-a team-b team-a team-b$|^team-b team-b team-a team-a$|^team-b team-a team-b team-a$|^team-a team-b team-b team-a$|^team-b team-a team-a team-b$' \
    sh -c "kubectl --kubeconfig '$KC' get --raw $V/clusterqueues/cq/pendingworkloads | $PY -c 'import json,sys; print(\" \".join(i[\"metadata\"][\"namespace\"] for i in json.load(sys.stdin)[\"items\"]))'"

expect "a tenant gets no ClusterQueue's pending workloads (Kueue's batch-user role has none)" \
    'clusterqueues.visibility.kueue.x-k8s.io "cq" is forbidden: User "alice" cannot get resource "clusterqueues/pendingworkloads" in API group "visibility.kueue.x-k8s.io" at the cluster scope' \
    kt "$ALICE" get --raw "$V/clusterqueues/cq/pendingworkloads"
expect_exact "a tenant's LocalQueue view holds only its own workloads" "team-a/job-a1 team-a/job-a2" \
    sh -c "kubectl --kubeconfig '$ALICE' get --raw $V/namespaces/team-a/localqueues/user-queue/pendingworkloads | $PY -c 'import json,sys; print(\" \".join(sorted(i[\"metadata\"][\"namespace\"]+\"/\"+i[\"metadata\"][\"name\"][:len(\"job-a1\")] for i in json.load(sys.stdin)[\"items\"])))'"
expect "a tenant cannot read another namespace's LocalQueue" \
    'localqueues.visibility.kueue.x-k8s.io "user-queue" is forbidden: User "alice" cannot get resource "localqueues/pendingworkloads" in API group "visibility.kueue.x-k8s.io" in the namespace "team-b"' \
    kt "$ALICE" get --raw "$V/namespaces/team-b/localqueues/user-queue/pendingworkloads"

CA="$DATA/ca.crt"
ATOK=$(sed -n 's/^ *token: *//p' "$ALICE" | head -1)
expect_status "/metrics without a token: 401" 401 --cacert "$CA" "$URL/metrics"
expect_grep "  ... as kube-apiserver words it" '"reason":"Unauthorized"' cat "$TMP/curl.out"
expect_status "/metrics with a tenant's token: 403" 403 --cacert "$CA" -H "Authorization: Bearer $ATOK" "$URL/metrics"
expect_grep "  ... as kube-apiserver words it" '"message":"forbidden: User \\"alice\\" cannot get path \\"/metrics\\"","reason":"Forbidden"' \
    cat "$TMP/curl.out"
expect "  ... and through kubectl" 'forbidden: User "alice" cannot get path "/metrics"' \
    kt "$ALICE" get --raw /metrics
expect_grep "/metrics with the admin token is served" '^kueue_pending_workloads\{cluster_queue="cq",status="' \
    k get --raw /metrics
