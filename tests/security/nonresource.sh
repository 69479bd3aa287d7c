# nonresource.sh -- what the paths besides the resources tell a tenant and
# an unauthenticated client of another tenant's namespace: a sweep over
# discovery (/api, /apis and every group version), /openapi, /version, the
# health paths (with ?verbose), /metrics, the dashboard's files, the
# decision log and explanations, and the answers' bodies searched for team
# b's namespace, user, Jobs and labels (sourced by run.sh after lib.sh).
need kubectl curl

start_server nonres --controllers all --executor local || exit 1
queues team-a,team-b 1
tenant alice team-a
ALICE=$TKC
tenant bob team-b
BOB=$TKC
CA="$DATA/ca.crt"
ATOK=$(sed -n 's/^ *token: *//p' "$ALICE" | head -1)

# job NAME CPU SLEEP: a Job for queue "user-queue", labelled.
job() {
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  labels: {kueue.x-k8s.io/queue-name: user-queue, secret-project: zanzibar}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sh", "-c", "sleep $3"], resources: {requests: {cpu: "$2"}}}
YAML
}
job bobhold 1 120 | kt "$BOB" -n team-b create -f - >/dev/null
settle 20 '^false$' k -n team-b get job bobhold -o jsonpath='{.spec.suspend}'
job bobwait 1 0 | kt "$BOB" -n team-b create -f - >/dev/null
job alicewait 1 0 | kt "$ALICE" -n team-a create -f - >/dev/null
settle 20 '^1$' sh -c "kubectl --kubeconfig '$KC' -n team-a get workloads -o name | wc -l"
AWL=$(k -n team-a get workloads -o jsonpath='{.items[0].metadata.name}')
# Team b's words, as the admin sees them on these paths (the check that
# the sweep would see them if they were there).
expect_grep "the admin's /metrics names team b's work (the sweep's control)" 'team-b' k get --raw /metrics

V=/apis/visibility.kueue.x-k8s.io/v1beta2
paths="/ /api /api/v1 /apis /openapi/v2 /openapi/v3 /version /healthz /livez /readyz
/healthz?verbose /livez?verbose /readyz?verbose /metrics /dashboard/ $V/decisions
$V/namespaces/team-a/decisions $V/namespaces/team-a/workloads/$AWL/explanation
$V/namespaces/team-a/workloads/$AWL/decisions $V/namespaces/team-a/localqueues/user-queue/pendingworkloads
/api/v1/namespaces/team-a/events /apis/events.k8s.io/v1/namespaces/team-a/events"
for gv in $(k get --raw /apis | $PY -c 'import json,sys
for g in json.load(sys.stdin)["groups"]:
    for v in g["versions"]: print("/apis/" + v["groupVersion"])'); do
    paths="$paths $gv"
done
for p in $(k get --raw /openapi/v3 | $PY -c 'import json,sys
for k, v in json.load(sys.stdin)["paths"].items(): print(v["serverRelativeURL"])'); do
    paths="$paths $p"
done
for f in $(curl -s --cacert "$CA" "$URL/dashboard/" | grep -o '\(src\|href\)="[^"]*"' | sed 's/.*="//; s/"$//' | grep -v '^http'); do
    paths="$paths /dashboard/${f#./}"
done

# The tenant's own work is there to be read (the sweep reads real answers).
expect_status "alice reads her workload's explanation" 200 --cacert "$CA" \
    -H "Authorization: Bearer $ATOK" "$URL$V/namespaces/team-a/workloads/$AWL/explanation"
expect_grep "  ... which names her Job's workload" "$AWL" cat "$TMP/curl.out"
expect_status "alice reads her namespace's decisions" 200 --cacert "$CA" \
    -H "Authorization: Bearer $ATOK" "$URL$V/namespaces/team-a/decisions"
expect_grep "  ... which name her Job's workload" "$AWL" cat "$TMP/curl.out"

leaks=""
n=0
for p in $paths; do
    for who in alice anonymous; do
        if [ $who = alice ]; then
            set -- -H "Authorization: Bearer $ATOK"
        else
            set --
        fi
        code=$(timeout "$E2E_TIMEOUT" curl -s --cacert "$CA" "$@" -o "$TMP/body" -w '%{http_code}' "$URL$p")
        n=$((n + 1))
        if grep -q -e team-b -e bobhold -e bobwait -e zanzibar -e '"bob"' "$TMP/body"; then
            leaks="$leaks $who:$p($code)"
        fi
    done
done
if [ -z "$leaks" ]; then
    pass "no answer to a tenant or an anonymous client names team b's namespace, user, Jobs or labels ($n requests)"
else
    fail "answers that name team b's work" "$leaks"
fi
