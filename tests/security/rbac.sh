# rbac.sh -- who may do what is RBAC's, with Kueue's roles, end to end with
# the real kubectl and the Python client: the admin token (system:masters),
# a batch admin (kueue-batch-admin-role cluster-wide), a tenant admin
# (kueue-batch-admin-role in one namespace: one RoleBinding), a developer
# (kueue-batch-user-role), a service account with a bound token; `auth
# can-i` (also --list, '*' '*', paths), whoami, impersonation, escalation
# refused on role and binding writes, aggregation taking effect at once,
# revocation by deleting an account, and SubjectAccessReview/TokenReview
# for components.
need kubectl curl

start_server rbac || return 1
CA="$DATA/ca.crt"
cat >"$TMP/objs.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: "4"}]
YAML
k apply -f "$TMP/objs.yaml" >/dev/null

# The cast. `cueue token create` binds with one RoleBinding per namespace.
tenant dev team-a
DEV=$TKC
ROLES=kueue-batch-admin-role tenant tina team-a
TINA=$TKC
ROLES=admin tenant owen team-a
OWEN=$TKC
"$CUEUE" token create --user paula --data-dir "$DATA" >"$TMP/paula.kubeconfig"
PAULA="$TMP/paula.kubeconfig"
k create clusterrolebinding platform --clusterrole=kueue-batch-admin-role --user=paula >/dev/null

note "# the bootstrap policy"
expect_grep "Kueue's roles exist, aggregated" '^kueue-batch-user-role +' k get clusterroles
expect_grep "  ... the user role gathers Jobs from the job editor role" '^  - jobs$' \
    k get clusterrole kueue-batch-user-role -o yaml
expect "cluster-admin is bound to system:masters" 'system:masters' \
    k get clusterrolebinding cluster-admin -o yaml
expect "token create bound the developer with one RoleBinding" 'kueue-batch-user-role:dev' \
    k -n team-a get rolebindings

note "# the matrix (kubectl auth can-i)"
# can KUBECONFIG WANT ARGS...: `kubectl auth can-i ARGS` answers WANT.
can() {
    ckc=$1
    cwant=$2
    shift 2
    expect_exact "$(basename "$ckc" .kubeconfig): can-i $* -> $cwant" "$cwant" kt "$ckc" auth can-i "$@"
}
can "$KC" yes '*' '*'
can "$KC" yes run-unmanaged jobs.batch -n team-a
can "$KC" yes get /metrics
for who in "$PAULA" "$TINA" "$DEV" "$OWEN"; do can "$who" no '*' '*'; done
can "$PAULA" yes create clusterqueues
can "$PAULA" yes delete resourceflavors
can "$PAULA" yes create localqueues -n team-b
can "$PAULA" yes get clusterqueues/pendingworkloads.visibility.kueue.x-k8s.io
can "$PAULA" no patch clusterqueues --subresource=status
can "$PAULA" no run-unmanaged jobs.batch -n team-a
can "$PAULA" no create clusterrolebindings
can "$PAULA" no get /metrics
can "$TINA" yes create localqueues -n team-a
can "$TINA" no create localqueues -n team-b
# kubectl sends its context's namespace even for a cluster-scoped kind (and
# warns), so a RoleBinding there would answer yes: ask at the cluster scope.
can "$TINA" no create clusterqueues -A
can "$TINA" yes create workloads -n team-a
can "$TINA" no update workloads -n team-a --subresource=status
can "$DEV" yes create jobs -n team-a
can "$DEV" yes get workloads -n team-a
can "$DEV" no create workloads -n team-a
can "$DEV" no patch jobs -n team-a --subresource=status
can "$DEV" no create localqueues -n team-a
can "$DEV" yes get localqueues/pendingworkloads.visibility.kueue.x-k8s.io -n team-a
can "$DEV" no get clusterqueues/pendingworkloads.visibility.kueue.x-k8s.io
can "$DEV" no create jobs -n team-b
can "$DEV" no list clusterqueues -A
can "$DEV" no run-unmanaged jobs.batch -n team-a
can "$DEV" yes get /apis
can "$DEV" no post /apis
can "$DEV" no get /metrics
can "$OWEN" yes create rolebindings -n team-a
can "$OWEN" yes get pods --subresource=log -n team-a
can "$OWEN" no get pods -n team-b

expect_grep "can-i --list: the developer's Jobs" '^jobs\.batch +\[\] +\[\] +\[create delete get list patch update watch\]' \
    kt "$DEV" auth can-i --list -n team-a
expect_grep "can-i --list: its LocalQueues' pending workloads" '^localqueues\.visibility\.kueue\.x-k8s\.io/pendingworkloads +\[\] +\[\] +\[get list watch\]' \
    kt "$DEV" auth can-i --list -n team-a
expect_grep "can-i --list: discovery paths" '^ +\[/apis/\*\] +\[\] +\[get\]' \
    kt "$DEV" auth can-i --list -n team-a
if kt "$DEV" auth can-i --list -n team-b 2>&1 | grep -q 'jobs\.batch'; then
    fail "can-i --list: nothing of team-a in team-b" "$(kt "$DEV" auth can-i --list -n team-b 2>&1)"
else
    pass "can-i --list: nothing of team-a in team-b"
fi
expect_grep "whoami: the developer" '^Username +dev$' kt "$DEV" auth whoami
expect_grep "whoami: the admin is in system:masters" 'system:masters' k auth whoami

note "# requests follow the rules"
expect 'the developer lists nothing cluster-wide' \
    'clusterqueues.kueue.x-k8s.io is forbidden: User "dev" cannot list resource "clusterqueues" in API group "kueue.x-k8s.io" at the cluster scope' \
    kt "$DEV" get cq
cat >"$TMP/lq.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq}
spec: {clusterQueue: cq}
YAML
expect "the tenant admin creates its namespace's LocalQueue" "localqueue.kueue.x-k8s.io/lq created" \
    kt "$TINA" -n team-a create -f "$TMP/lq.yaml"
expect "  ... not another namespace's" 'cannot create resource "localqueues" in API group "kueue.x-k8s.io" in the namespace "team-b"' \
    kt "$TINA" -n team-b create -f "$TMP/lq.yaml"
expect "the batch admin creates a ClusterQueue" "clusterqueue.kueue.x-k8s.io/cq2 created" \
    sh -c "sed 's/name: cq}/name: cq2}/' '$TMP/objs.yaml' | kubectl --kubeconfig '$PAULA' create -f - 2>&1 | grep cq2"
cat >"$TMP/plain.yaml" <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: plain}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["true"], resources: {requests: {cpu: 100m}}}]
YAML
expect "the batch admin cannot run a Job outside Kueue's quota" \
    "The label 'kueue.x-k8s.io/queue-name' is either missing or does not have a value set" \
    kt "$PAULA" -n team-b create -f "$TMP/plain.yaml"
k create clusterrole unmanaged-runner --verb=run-unmanaged --resource=jobs.batch >/dev/null
k -n team-b create rolebinding paula-unmanaged --clusterrole=unmanaged-runner --user=paula >/dev/null
expect "  ... until RBAC grants run-unmanaged on jobs.batch in that namespace" "job.batch/plain created" \
    kt "$PAULA" -n team-b create -f "$TMP/plain.yaml"

note "# escalation"
expect "the developer writes no RBAC" \
    'cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "team-a"' \
    kt "$DEV" -n team-a create rolebinding x --clusterrole=view --user=dev
expect "a namespace admin cannot bind cluster-admin" \
    'rolebindings.rbac.authorization.k8s.io "steal" is forbidden: user "owen" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:' \
    kt "$OWEN" -n team-a create rolebinding steal --clusterrole=cluster-admin --user=owen
expect "  ... naming what it lacks" '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}' \
    kt "$OWEN" -n team-a create rolebinding steal --clusterrole=cluster-admin --user=owen
expect "  ... nor write a Role beyond its own rights" \
    'roles.rbac.authorization.k8s.io "unmanaged" is forbidden: user "owen" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:["batch"], Resources:["jobs"], Verbs:["run-unmanaged"]}' \
    kt "$OWEN" -n team-a create role unmanaged --verb=run-unmanaged --resource=jobs.batch
expect "  ... but may grant what it holds" "rolebinding.rbac.authorization.k8s.io/viewer created" \
    kt "$OWEN" -n team-a create rolebinding viewer --clusterrole=view --user=vic
expect "  ... and not Kueue's user role, which holds more than Kubernetes' admin (other integrations)" \
    'is attempting to grant RBAC permissions not currently held' \
    kt "$OWEN" -n team-a create rolebinding dev2 --clusterrole=kueue-batch-user-role --user=dev2
cat >"$TMP/binder.yaml" <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: bind-batch-user}
rules:
- apiGroups: [rbac.authorization.k8s.io]
  resources: [clusterroles]
  resourceNames: [kueue-batch-user-role]
  verbs: [bind]
YAML
k apply -f "$TMP/binder.yaml" >/dev/null
k -n team-a create rolebinding owen-binds --clusterrole=bind-batch-user --user=owen >/dev/null
expect "  ... until it may bind that role (the bind verb, by name)" \
    "rolebinding.rbac.authorization.k8s.io/dev2 created" \
    kt "$OWEN" -n team-a create rolebinding dev2 --clusterrole=kueue-batch-user-role --user=dev2
expect "  ... that role only" 'is attempting to grant RBAC permissions not currently held' \
    kt "$OWEN" -n team-a create rolebinding steal --clusterrole=cluster-admin --user=owen
expect "a binding's roleRef cannot change" 'cannot change roleRef' \
    kt "$OWEN" -n team-a patch rolebinding viewer --type=merge -p '{"roleRef":{"name":"edit"}}'
expect "a binding to a role that does not exist is refused (for a writer who cannot bind anything)" \
    'roles.rbac.authorization.k8s.io "nope" not found' \
    kt "$OWEN" -n team-a create rolebinding ghost --role=nope --user=owen
cat >"$TMP/maker.yaml" <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: role-maker}
rules:
- apiGroups: [rbac.authorization.k8s.io]
  resources: [clusterroles]
  verbs: [create, update, patch, get, list]
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get]
YAML
k apply -f "$TMP/maker.yaml" >/dev/null
k create clusterrolebinding maker --clusterrole=role-maker --user=mia >/dev/null
"$CUEUE" token create --user mia --data-dir "$DATA" >"$TMP/mia.kubeconfig"
MIA="$TMP/mia.kubeconfig"
cat >"$TMP/agg.yaml" <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: sneaky}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {rbac.kueue.x-k8s.io/batch-admin: "true"}}]
YAML
expect "an aggregationRule needs cluster-admin's rights" \
    'clusterroles.rbac.authorization.k8s.io "sneaky" is forbidden: must have cluster-admin privileges to use the aggregationRule' \
    kt "$MIA" create -f "$TMP/agg.yaml"
cat >"$TMP/label.yaml" <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: more-for-users
  labels: {rbac.kueue.x-k8s.io/batch-user: "true"}
rules:
- {apiGroups: [""], resources: [secrets], verbs: [get, list]}
YAML
expect "a role labelled into Kueue's user role needs its writer to hold its rules" \
    '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}' \
    kt "$MIA" create -f "$TMP/label.yaml"
expect "  ... a role within them is written" "clusterrole.rbac.authorization.k8s.io/cm-for-users created" \
    sh -c "sed 's/more-for-users/cm-for-users/; s/secrets/configmaps/; s/get, list/get/' '$TMP/label.yaml' | kubectl --kubeconfig '$MIA' create -f - 2>&1"

note "# aggregation takes effect at once"
expect_exact "the developer cannot read Secrets" "no" kt "$DEV" auth can-i get secrets -n team-a
k create -f "$TMP/label.yaml" >/dev/null
expect_exact "  ... a labelled role makes kueue-batch-user-role grant it (no restart, no wait)" "yes" \
    kt "$DEV" auth can-i get secrets -n team-a
expect_grep "  ... and the stored role shows it" '^  - secrets$' k get clusterrole kueue-batch-user-role -o yaml
k delete clusterrole more-for-users >/dev/null
expect_exact "  ... removing the role takes it back" "no" kt "$DEV" auth can-i get secrets -n team-a

note "# service accounts"
k -n team-a create serviceaccount runner >/dev/null
k -n team-a create rolebinding runner --clusterrole=kueue-batch-user-role --serviceaccount=team-a:runner >/dev/null
SAT=$(k -n team-a create token runner --duration=1h)
sa() { timeout "$E2E_TIMEOUT" kubectl --kubeconfig "$KC" --token "$SAT" "$@"; }
case "$SAT" in
eyJ*.*.*) pass "kubectl create token: a signed JWT" ;;
*) fail "kubectl create token: a signed JWT" "$SAT" ;;
esac
expect_grep "the service account's identity" '^Username +system:serviceaccount:team-a:runner$' sa auth whoami
expect_grep "  ... and its groups" 'system:serviceaccounts:team-a' sa auth whoami
expect_exact "it may what its binding grants" "yes" sa auth can-i create jobs -n team-a
expect_exact "  ... only there" "no" sa auth can-i create jobs -n team-b
expect "a token may not be shorter-lived than 10 minutes" 'may not specify a duration less than 10 minutes' \
    k -n team-a create token runner --duration=5m
expect "a token for a missing account is refused" 'serviceaccounts "ghost" not found' \
    k -n team-a create token ghost
AUD=$(k -n team-a create token runner --audience=vault)
expect_status "a token for another audience is no API token" 401 --cacert "$CA" \
    -H "Authorization: Bearer $AUD" "$URL/apis"
TAMPER=$(printf '%s' "$SAT" | sed 's/\.[^.]*$/.AAAA/')
expect_status "a tampered token: 401" 401 --cacert "$CA" -H "Authorization: Bearer $TAMPER" "$URL/apis"
expect_status "the token works" 200 --cacert "$CA" -H "Authorization: Bearer $SAT" "$URL/apis"
k -n team-a delete serviceaccount runner >/dev/null
expect_status "deleting the account revokes its tokens at once" 401 --cacert "$CA" \
    -H "Authorization: Bearer $SAT" "$URL/apis"
k -n team-a create serviceaccount runner >/dev/null
expect_status "  ... an account of the same name is another account" 401 --cacert "$CA" \
    -H "Authorization: Bearer $SAT" "$URL/apis"

note "# a revoked token is unauthenticated whatever it asks to act as"
# kube-apiserver authenticates before it looks at the Impersonate-*
# headers: a dead token gets its 401 (and its body, with no details), not
# the 403 or 400 its impersonation would get.
UNAUTH='401 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}'
# req_at URL TOKEN [HEADER...]: the status and body of TOKEN's GET of URL;
# req TOKEN [HEADER...]: of discovery.
req_at() {
    u=$1
    t=$2
    shift 2
    timeout "$E2E_TIMEOUT" curl -s --cacert "$CA" -o "$TMP/req.out" -w '%{http_code} ' \
        -H "Authorization: Bearer $t" "$@" "$u"
    cat "$TMP/req.out"
}
req() { req_at "$URL/apis" "$@"; }
expect_exact "a deleted account's token acting as a user it may not: 401" "$UNAUTH" \
    req "$SAT" -H "Impersonate-User: dev"
expect_exact "  ... acting as a group without a user: 401" "$UNAUTH" \
    req "$SAT" -H "Impersonate-Group: system:masters"
expect_exact "  ... acting as another account: 401" "$UNAUTH" \
    req "$SAT" -H "Impersonate-User: system:serviceaccount:team-a:runner"
k -n team-a create serviceaccount imp >/dev/null
k create clusterrole impersonate-dev --verb=impersonate --resource=users --resource-name=dev >/dev/null
k create clusterrolebinding imp --clusterrole=impersonate-dev --serviceaccount=team-a:imp >/dev/null
k -n team-a create secret generic imp-bound >/dev/null
IMPT=$(k -n team-a create token imp)
IMPS=$(k -n team-a create token imp --bound-object-kind=Secret --bound-object-name=imp-bound)
expect_grep "a live account may act as whom its role allows" '^200 ' req "$IMPT" -H "Impersonate-User: dev"
expect_grep "  ... and is refused (403) whom it does not" '^403 .*cannot impersonate resource' \
    req "$IMPT" -H "Impersonate-User: paula"
k -n team-a delete secret imp-bound >/dev/null
expect_exact "a token bound to a deleted Secret, acting as a user it may: 401" "$UNAUTH" \
    req "$IMPS" -H "Impersonate-User: dev"
expect_exact "  ... acting as a user it may not: 401" "$UNAUTH" req "$IMPS" -H "Impersonate-User: paula"
expect_grep "  ... while the account's other token still works" '^200 ' req "$IMPT" -H "Impersonate-User: dev"
# resign TOKEN SECONDS: TOKEN with its expiry SECONDS from now (negative:
# past), signed with the server's own key.
resign() {
    $PY - "$1" "$2" "$DATA/sa.key" <<'PY'
import base64, hashlib, hmac, json, sys, time
tok, secs, keyfile = sys.argv[1], int(sys.argv[2]), sys.argv[3]
b64e = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
head, payload, _ = tok.split(".")
claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
now = int(time.time())
claims.update(iat=now - 7200, nbf=now - 7200, exp=now + secs)
signed = head + "." + b64e(json.dumps(claims).encode())
key = bytes.fromhex(open(keyfile).read().strip())
print(signed + "." + b64e(hmac.new(key, signed.encode(), hashlib.sha256).digest()))
PY
}
EXPT=$(resign "$IMPT" -60)
expect_exact "an expired token acting as a user it may: 401" "$UNAUTH" req "$EXPT" -H "Impersonate-User: dev"
expect_exact "  ... acting as a user it may not: 401" "$UNAUTH" req "$EXPT" -H "Impersonate-User: paula"
expect_grep "  ... (signed as the server signs: unexpired, it is accepted)" '^200 ' \
    req "$(resign "$IMPT" 600)" -H "Impersonate-User: dev"
k -n team-a delete serviceaccount imp >/dev/null
expect_exact "a deleted account's token acting as a user it may: 401" "$UNAUTH" \
    req "$IMPT" -H "Impersonate-User: dev"
expect_exact "  ... on a watch" "$UNAUTH" req_at "$URL/api/v1/namespaces/team-a/configmaps?watch=true" \
    "$IMPT" -H "Impersonate-User: dev"
expect_exact "  ... on a watch as a user it may not" "$UNAUTH" \
    req_at "$URL/api/v1/namespaces/team-a/configmaps?watch=true" "$IMPT" -H "Impersonate-User: paula"

note "# impersonation"
expect_exact "the admin may act as the developer (kubectl --as)" "no" \
    k auth can-i create localqueues -n team-a --as=dev
expect_exact "  ... with its groups" "yes" \
    k auth can-i create localqueues -n team-a --as=someone --as-group=system:masters
expect "the developer may not act as anyone" \
    'users "admin" is forbidden: User "dev" cannot impersonate resource "users" in API group "" at the cluster scope' \
    kt "$DEV" get ns --as=admin
ADMT=$(sed -n 's/^ *token: *//p' "$DATA/kubeconfig" | head -1)
expect_grep "an empty Impersonate-User impersonates no one: the admin stays admin" '^200 ' \
    req_at "$URL/api/v1/namespaces" "$ADMT" -H "Impersonate-User;"
expect_grep "  ... with a group and no user: 400" '^400 .*without impersonating a user' \
    req_at "$URL/api/v1/namespaces" "$ADMT" -H "Impersonate-User;" -H "Impersonate-Group: g"
LONG=$(printf 'u%.0s' $(seq 400))
expect_grep "a user name too long to hold whole is refused (400), not cut to another user" \
    '^400 .*impersonated user name longer than 319 bytes' \
    req_at "$URL/api/v1/namespaces" "$ADMT" -H "Impersonate-User: $LONG"
expect_grep "  ... and a group name too long (400)" '^400 .*impersonated group longer than 127 bytes' \
    req_at "$URL/api/v1/namespaces" "$ADMT" -H "Impersonate-User: dev" -H "Impersonate-Group: $LONG"

note "# reviews for components (Python client)"
k create serviceaccount checker -n team-a >/dev/null
k create clusterrolebinding checker --clusterrole=system:auth-delegator --serviceaccount=team-a:checker >/dev/null
CHK=$(k -n team-a create token checker)
DEVTOK=$(sed -n 's/^ *token: *//p' "$DEV" | head -1)
OWENTOK=$(sed -n 's/^ *token: *//p' "$OWEN" | head -1)
SAT2=$(k -n team-a create token runner)
cat >"$TMP/reviews.py" <<'PY'
import sys
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException

kc, checker, dev_token, sa_token, owner_token = sys.argv[1:6]
config.load_kube_config(config_file=kc)
cfg = client.Configuration.get_default_copy()
cfg.api_key = {"authorization": "Bearer " + checker}
api = client.ApiClient(cfg)
authn = client.AuthenticationV1Api(api)
authz = client.AuthorizationV1Api(api)

def tr(token, aud=None):
    r = authn.create_token_review(client.V1TokenReview(
        spec=client.V1TokenReviewSpec(token=token, audiences=aud)))
    return r.status

s = tr(dev_token)
print("tokenreview-dev", s.authenticated, s.user.username, ",".join(s.user.groups))
s = tr(sa_token)
print("tokenreview-sa", s.authenticated, s.user.username, s.user.uid is not None)
s = tr("nope")
print("tokenreview-bad", s.authenticated)
def sar(user, groups, verb, res, ns):
    r = authz.create_subject_access_review(client.V1SubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(
        user=user, groups=groups,
        resource_attributes=client.V1ResourceAttributes(verb=verb, group="batch", resource="jobs", namespace=ns))))
    return r.status.allowed
print("sar", sar("dev", ["system:authenticated"], "create", "jobs", "team-a"),
      sar("dev", ["system:authenticated"], "create", "jobs", "team-b"))
# A namespace admin asks about its namespace (Kubernetes' admin role).
cfg.api_key = {"authorization": "Bearer " + owner_token}
r = client.AuthorizationV1Api(client.ApiClient(cfg)).create_namespaced_local_subject_access_review(
    "team-a", client.V1LocalSubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(
        user="dev", resource_attributes=client.V1ResourceAttributes(
            verb="get", group="kueue.x-k8s.io", resource="workloads", namespace="team-a"))))
print("lsar", r.status.allowed)
cfg.api_key = {"authorization": "Bearer " + dev_token}
try:
    client.AuthenticationV1Api(client.ApiClient(cfg)).create_token_review(
        client.V1TokenReview(spec=client.V1TokenReviewSpec(token=sa_token)))
    print("dev-tokenreview allowed")
except ApiException as e:
    print("dev-tokenreview", e.status)
PY
timeout 60 $PY "$TMP/reviews.py" "$KC" "$CHK" "$DEVTOK" "$SAT2" "$OWENTOK" >"$TMP/reviews.out" 2>&1
expect_grep "TokenReview names a token file's user" '^tokenreview-dev True dev system:authenticated$' cat "$TMP/reviews.out"
expect_grep "TokenReview names a service account" '^tokenreview-sa True system:serviceaccount:team-a:runner True$' cat "$TMP/reviews.out"
expect_grep "TokenReview refuses a bad token" '^tokenreview-bad False$' cat "$TMP/reviews.out"
expect_grep "SubjectAccessReview decides for another user" '^sar True False$' cat "$TMP/reviews.out"
expect_grep "LocalSubjectAccessReview, by a namespace's admin" '^lsar True$' cat "$TMP/reviews.out"
expect_grep "a user without system:auth-delegator's rights may not review tokens" '^dev-tokenreview 403$' cat "$TMP/reviews.out"
