# provisioning.sh -- the provisioning admission check against tenants: the
# ProvisioningRequests and PodTemplates the controller writes are not a
# tenant's to create, change or read, nor the cluster-scoped configs; and
# what a tenant does control (its Job's provreq.kueue.x-k8s.io/
# annotations) cannot make the controller write anywhere but the Job's own
# namespace, nor anything its CRD refuses (sourced by run.sh after lib.sh).
need kubectl curl

start_server prov --controllers all --executor none || exit 1
k create namespace team-b >/dev/null 2>&1
cat >"$TMP/setup.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: cfg}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata: {name: cfg}
spec: {provisioningClassName: check-capacity.autoscaling.x-k8s.io}
YAML
settle 10 'created' k apply -f "$TMP/setup.yaml" || exit 1
queues --check prov team-a 4
ROLES="kueue-batch-user-role edit" tenant alice team-a

# job NAME ANNOTATION-VALUE: a Job of team-a with one provreq parameter.
job() {
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: user-queue}
  annotations: {"provreq.kueue.x-k8s.io/$3": "$2"}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["true"], resources: {requests: {cpu: 100m}}}]
YAML
}

job j1 600 maxRunDurationSeconds | kt "$TKC" apply -f - >/dev/null
settle 20 'j1' k -n team-a get provisioningrequests -o name || exit 1
PR=$(k -n team-a get provisioningrequests -o jsonpath='{.items[0].metadata.name}')

# kubectl patch stops at its GET; the writes themselves go with curl.
TTOKEN=$(kubectl config view --raw --kubeconfig "$TKC" -o 'jsonpath={.users[0].user.token}')
tcurl() {
    curl -s --cacert "$DATA/ca.crt" -H "Authorization: Bearer $TTOKEN" \
        -H 'Content-Type: application/merge-patch+json' "$@"
}
expect "a tenant cannot play the autoscaler (set its request Provisioned)" \
    'User \"alice\" cannot patch resource \"provisioningrequests/status\"' \
    tcurl -X PATCH -d '{"status":{"conditions":[{"type":"Provisioned","status":"True","reason":"R","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' \
    "$URL/apis/autoscaling.x-k8s.io/v1/namespaces/team-a/provisioningrequests/$PR/status"
expect "nor change the request" 'User \"alice\" cannot patch resource \"provisioningrequests\"' \
    tcurl -X PATCH -d '{"spec":{"podSets":[{"podTemplateRef":{"name":"x"},"count":99}]}}' \
    "$URL/apis/autoscaling.x-k8s.io/v1/namespaces/team-a/provisioningrequests/$PR"
expect "a tenant cannot read the requests of its namespace" \
    "User \"alice\" cannot list resource \"provisioningrequests\"" \
    kt "$TKC" -n team-a get provisioningrequests
cat >"$TMP/pr.yaml" <<'YAML'
apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata: {name: mine, namespace: team-a}
spec:
  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  podSets: [{podTemplateRef: {name: x}, count: 1000}]
YAML
expect "a tenant cannot create a request of its own" \
    "User \"alice\" cannot create resource \"provisioningrequests\"" \
    kt "$TKC" create -f "$TMP/pr.yaml"
expect "nor delete the controller's" "User \"alice\" cannot delete resource \"provisioningrequests\"" \
    kt "$TKC" -n team-a delete provisioningrequest "$PR"
expect "nor change its PodTemplates" "User \"alice\" cannot" \
    kt "$TKC" -n team-a delete podtemplate "ppt-$PR-main"
expect "nor read the cluster's configs" \
    'User "alice" cannot get resource "provisioningrequestconfigs"' kt "$TKC" get prc cfg
expect "nor change them" 'User \"alice\" cannot patch resource \"provisioningrequestconfigs\"' \
    tcurl -X PATCH -d '{"spec":{"provisioningClassName":"mine"}}' \
    "$URL/apis/kueue.x-k8s.io/v1beta2/provisioningrequestconfigs/cfg"
expect_exact "the check is still Pending: the tenant's job waits" "Pending true" \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get workloads -o jsonpath='{.items[0].status.admissionChecks[0].state}'; printf ' '; kubectl --kubeconfig '$KC' -n team-a get job j1 -o jsonpath='{.spec.suspend}'"
expect_exact "the request is in the job's namespace and nowhere else" "" \
    k -n team-b get provisioningrequests -o name

# A parameter the request's CRD refuses (over 255 bytes): no request, a
# FailedCreate event and the reason on the check; the job keeps waiting.
long=$(printf 'x%.0s' $(seq 1 300))
job j2 "$long" p | kt "$TKC" apply -f - >/dev/null
wait_for "a parameter the CRD refuses: the check says why" 20 'Error creating ProvisioningRequest ".*": .*Too long' \
    k -n team-a get workloads -o jsonpath='{range .items[*]}{.status.admissionChecks[0].message}{"\n"}{end}'
expect_exact "and no request was made for it" "1" \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get provisioningrequests -o name | wc -l | tr -d ' '"
expect_exact "the server still answers" "ok" k get --raw /readyz
