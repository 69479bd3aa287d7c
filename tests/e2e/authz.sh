# authz.sh -- TLS with the generated CA, the admin token, tenant tokens and
# Kubernetes' 403 wording (sourced by run.sh against the TLS server).

D="$SRC/tests/e2e/data"
note "# TLS and authorization against $URL"
case "$URL" in https://*) pass "the default server speaks HTTPS" ;; *) fail "HTTPS by default" "$URL" ;; esac
mode=$(stat -c %a "$DATA/admin-token")
if [ "$mode" = 600 ] && [ "$(stat -c %a "$DATA/ca.key")" = 600 ] && [ "$(stat -c %a "$KC")" = 600 ]; then
    pass "secrets are 0600"
else
    fail "secrets are 0600" "$(ls -l "$DATA")"
fi
expect "kubectl over TLS with the generated CA and token" "namespace/kueue-lab created" \
    k apply -f "$D/queues.yaml"
k apply -f "$D/other-ns.yaml" >/dev/null 2>&1
k create -f "$D/workload.yaml" >/dev/null 2>&1

TENANT="$TMP/tenant.kubeconfig"
if "$CUEUE" token create --namespace kueue-lab --data-dir "$DATA" >"$TENANT"; then
    pass "token create prints a kubeconfig"
else
    fail "token create prints a kubeconfig" "$(cat "$TENANT")"
fi
t() { timeout "$E2E_TIMEOUT" kubectl --kubeconfig "$TENANT" "$@"; }
expect "auth whoami names the tenant" "tenant-kueue-lab" t auth whoami
expect_exact "auth can-i: a tenant may create Jobs in its namespace" "yes" \
    t auth can-i create jobs -n kueue-lab
expect_grep "auth can-i: not in another namespace" '^no' t auth can-i create jobs -n other-team
expect_grep "auth can-i: no status writes" '^no' \
    t auth can-i patch workloads -n kueue-lab --subresource=status
expect_exact "auth can-i: the admin may do everything" "yes" k auth can-i delete clusterqueues
# Kueue's batch-user role, bound in a namespace, grants nothing cluster-wide.
expect "tenant cannot list cluster-scoped objects" \
    'clusterqueues.kueue.x-k8s.io is forbidden: User "tenant-kueue-lab" cannot list resource "clusterqueues" in API group "kueue.x-k8s.io" at the cluster scope' \
    t get cq
expect "403 is worded as Kubernetes words it" \
    'clusterqueues.kueue.x-k8s.io "lab-cq" is forbidden: User "tenant-kueue-lab" cannot delete resource "clusterqueues" in API group "kueue.x-k8s.io" at the cluster scope' \
    t delete cq lab-cq
expect "tenant cannot create a ClusterQueue" \
    'User "tenant-kueue-lab" cannot create resource "clusterqueues" in API group "kueue.x-k8s.io" at the cluster scope' \
    t create -f "$D/bad-cq.yaml"
expect "tenant creates a Job in its namespace" "job.batch/admitted-job created" \
    t apply -f "$D/admitted-job.yaml"
expect "tenant reads its Workloads" "wl1" t -n kueue-lab get kwl
expect "tenant cannot write a Workload status" \
    'cannot patch resource "workloads/status" in API group "kueue.x-k8s.io" in the namespace "kueue-lab"' \
    t -n kueue-lab patch kwl wl1 --subresource=status --type=merge -p '{"status":{}}'
expect "tenant cannot create a Job in another namespace" \
    'jobs.batch is forbidden: User "tenant-kueue-lab" cannot create resource "jobs" in API group "batch" in the namespace "other-team"' \
    t -n other-team create -f "$D/plain-job.yaml"
expect "tenant cannot list all namespaces" 'cannot list resource "jobs" in API group "batch" at the cluster scope' \
    t get jobs -A
expect "tenant deletes its Job" 'job.batch "admitted-job" deleted' \
    t -n kueue-lab delete job admitted-job

CA="$DATA/ca.crt"
expect_status "no token: 401" 401 --cacert "$CA" "$URL/apis"
expect_status "a wrong token: 401" 401 --cacert "$CA" -H 'Authorization: Bearer nope' "$URL/apis"
expect_status "health without a token" 200 --cacert "$CA" "$URL/healthz"
expect_status "the CA verifies the serving certificate for localhost" 200 --cacert "$CA" \
    "$(printf '%s' "$URL" | sed 's/127.0.0.1/localhost/')/healthz"
