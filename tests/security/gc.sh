# gc.sh -- a tenant cannot hold another party's object through garbage
# collection.
#
# An owner reference is resolved in its dependent's namespace (or among
# cluster-scoped objects), as Kubernetes' garbage collector resolves it, so
# an object of namespace a that names, by uid, an object of namespace b as
# its owner (with a finalizer of its own) does not keep b's object in
# foreground deletion: its owner is absent, and the collector deletes it as
# soon as it is made. A control in the same run: a dependent in b's own
# namespace does hold its owner.
#
# Only a dependent whose reference has blockOwnerDeletion: true holds its
# owner in foreground deletion, and setting it takes `update` on the owner's
# finalizers, as kube-apiserver's OwnerReferencesPermissionEnforcement
# rules (changing the references of an existing object takes `delete` on
# it): so a tenant with Kueue's batch-user and the edit roles, who can read
# the admin's LocalQueue in its namespace, cannot keep the admin's
# foreground deletion of it waiting by a finalizer; a tenant granted its
# own objects' finalizers may block on them.
# (Sourced by run.sh after lib.sh.)

need curl
start_server gc --insecure-http || exit 1
J='Content-Type: application/json'
k create namespace a >/dev/null
k create namespace b >/dev/null
ROLES=edit tenant eve a
TOK=$(sed -n 's/^ *token: *//p' "$TKC")
T="Authorization: Bearer $TOK"
ADM="Authorization: Bearer $(cat "$DATA/admin-token")"

# held NS NAME OWNER UID AUTH [BLOCK [APIVERSION KIND]]: create a ConfigMap
# NS/NAME with a finalizer, owned by the object OWNER of uid UID (a v1
# ConfigMap unless told), blockOwnerDeletion BLOCK (true unless told);
# prints the status code (and the body to $TMP/held.out).
held() {
    curl -s -o "$TMP/held.out" -w '%{http_code}' -X POST -H "$5" -H "$J" --data-binary \
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$2\",\"finalizers\":[\"example.com/keep\"],\"ownerReferences\":[{\"apiVersion\":\"${7:-v1}\",\"kind\":\"${8:-ConfigMap}\",\"name\":\"$3\",\"uid\":\"$4\",\"blockOwnerDeletion\":${6:-true}}]}}" \
        "$URL/api/v1/namespaces/$1/configmaps"
}
# patch NS NAME AUTH BODY: merge-patch ConfigMap NS/NAME; prints the status
# code (and the body to $TMP/patch.out).
patch() {
    curl -s -o "$TMP/patch.out" -w '%{http_code}' -X PATCH -H "$3" \
        -H 'Content-Type: application/merge-patch+json' --data-binary "$4" \
        "$URL/api/v1/namespaces/$1/configmaps/$2"
}
MSG="cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>"
# gone NS NAME: "gone" once ConfigMap NS/NAME is no more, else its finalizers
gone() {
    if k -n "$1" get cm "$2" >/dev/null 2>&1; then
        k -n "$1" get cm "$2" -o jsonpath='{.metadata.finalizers}'
    else
        echo gone
    fi
}

k -n b create configmap x >/dev/null
k -n b create configmap y >/dev/null
UX=$(k -n b get cm x -o jsonpath='{.metadata.uid}')
UY=$(k -n b get cm y -o jsonpath='{.metadata.uid}')
expect_exact "a tenant of a may not make b's ConfigMap wait for its object (blockOwnerDeletion)" \
    403 held a d x "$UX" "$T"
expect "... in kube-apiserver's words" "configmaps \\\"d\\\" is forbidden: $MSG" cat "$TMP/held.out"
expect_exact "a tenant of a names b's ConfigMap as its object's owner (Kubernetes takes it)" 201 \
    held a d x "$UX" "$T" false
expect_exact "... and its garbage collector deletes it at once: no such owner in a" 1 sh -c \
    "[ -n \"\$(kubectl --kubeconfig '$KC' -n a get cm d -o jsonpath='{.metadata.deletionTimestamp}')\" ] && echo 1"
expect_exact "control: b's own object with a finalizer, owned by b's ConfigMap y" 201 \
    held b d y "$UY" "$ADM"
k -n b delete cm x --cascade=foreground --wait=false >/dev/null
k -n b delete cm y --cascade=foreground --wait=false >/dev/null
wait_for "b's ConfigMap x, deleted in the foreground, goes" 10 '^gone$' gone b x
expect_exact "control: b's ConfigMap y waits for its dependent in b" '["foregroundDeletion"]' \
    gone b y
expect_exact "the tenant's object holds only itself, by its own finalizer" '["example.com/keep"]' \
    k -n a get cm d -o jsonpath='{.metadata.finalizers}'

# The admin's LocalQueue in the tenant's namespace: Kueue's batch-user role
# lets the tenant read it, and so learn its uid.
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: a}
spec: {clusterQueue: cq}
YAML
ROLES="kueue-batch-user-role edit" tenant bob a
TB="Authorization: Bearer $(sed -n 's/^ *token: *//p' "$TKC")"
# uid_of PATH AUTH: the uid of the object at PATH, read as AUTH.
uid_of() {
    curl -s -H "$2" "$URL$1" | $PY -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["uid"])'
}
ULQ=$(uid_of /apis/kueue.x-k8s.io/v1beta2/namespaces/a/localqueues/lq "$TB")
expect_exact "the tenant reads the admin's LocalQueue's uid" 1 sh -c "[ -n '$ULQ' ] && echo 1"
expect_exact "the tenant may not block the LocalQueue's deletion" 403 \
    held a stall lq "$ULQ" "$TB" true kueue.x-k8s.io/v1beta2 LocalQueue
expect "... in kube-apiserver's words" "configmaps \\\"stall\\\" is forbidden: $MSG" \
    cat "$TMP/held.out"
expect_exact "the tenant's object may name it as a non-blocking owner, with a finalizer" 201 \
    held a loose lq "$ULQ" "$TB" false kueue.x-k8s.io/v1beta2 LocalQueue
expect_exact "... nor turn that reference blocking by a patch" 403 \
    patch a loose "$TB" "{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"LocalQueue\",\"name\":\"lq\",\"uid\":\"$ULQ\",\"blockOwnerDeletion\":true}]}}"
expect "... in kube-apiserver's words" "$MSG" cat "$TMP/patch.out"
k -n a delete localqueue lq --cascade=foreground --wait=false >/dev/null
# lqgone: "gone" once the LocalQueue is no more, else its finalizers.
lqgone() {
    if k -n a get localqueue lq >/dev/null 2>&1; then
        k -n a get localqueue lq -o jsonpath='{.metadata.finalizers}'
    else
        echo gone
    fi
}
wait_for "the admin's foreground deletion of the LocalQueue is not held by the tenant" 10 \
    '^gone$' lqgone
expect_exact "the tenant's dependent is marked deleted with it ..." 1 sh -c \
    "[ -n \"\$(kubectl --kubeconfig '$KC' -n a get cm loose -o jsonpath='{.metadata.deletionTimestamp}')\" ] && echo 1"
expect_exact "... and kept by its own finalizer only" '["example.com/keep"]' \
    k -n a get cm loose -o jsonpath='{.metadata.finalizers}'

# A tenant granted the finalizers of its own ConfigMaps may block on them.
k apply -f - >/dev/null <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-finalizers, namespace: a}
rules:
- apiGroups: [""]
  resources: [configmaps/finalizers]
  verbs: [update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bob-cm-finalizers, namespace: a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-finalizers}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}
YAML
curl -s -o /dev/null -X POST -H "$TB" -H "$J" --data-binary \
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mine"}}' \
    "$URL/api/v1/namespaces/a/configmaps"
UM=$(uid_of /api/v1/namespaces/a/configmaps/mine "$TB")
wait_for "with update on configmaps/finalizers, the tenant blocks on its own ConfigMap" 10 \
    '^201$' held a dep mine "$UM" "$TB"
# ... but naming its own ConfigMap with the uid of the admin's LocalQueue
# blocks nothing: the reference must name its owner as the uid does.
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq2, namespace: a}
spec: {clusterQueue: cq}
YAML
ULQ2=$(uid_of /apis/kueue.x-k8s.io/v1beta2/namespaces/a/localqueues/lq2 "$TB")
expect_exact "the tenant names its own ConfigMap, with the LocalQueue's uid, as blocking" 201 \
    held a alias mine "$ULQ2" "$TB"
k -n a delete localqueue lq2 --cascade=foreground --wait=false >/dev/null
wait_for "... which does not hold the admin's foreground deletion of the LocalQueue" 10 \
    '^gone$' sh -c "kubectl --kubeconfig '$KC' -n a get localqueue lq2 >/dev/null 2>&1 || echo gone"
expect_exact "an owner of a kind not served cannot be blocked" 403 \
    held a ghost thing "$UM" "$TB" true example.com/v1 Thing
expect "... in kube-apiserver's words" \
    'cannot find RESTMapping for APIVersion example.com/v1 Kind Thing: no matches for kind \"Thing\" in version \"example.com/v1\"' \
    cat "$TMP/held.out"

# Changing the references of an existing object takes delete on it.
k apply -f - >/dev/null <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cm-writer}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, create, update, patch]
YAML
ROLES=cm-writer tenant una a
TU="Authorization: Bearer $(sed -n 's/^ *token: *//p' "$TKC")"
expect_exact "a writer without delete creates an object with an owner reference" 201 \
    held a una-cm mine "$UM" "$TU" false
expect_exact "control: and may change its data" 200 patch a una-cm "$TU" '{"data":{"k":"v"}}'
expect_exact "... but not its owner references" 403 \
    patch a una-cm "$TU" '{"metadata":{"ownerReferences":null}}'
expect "... in kube-apiserver's words" \
    "cannot set an ownerRef on a resource you can't delete: , <nil>" cat "$TMP/patch.out"

# Foreground deletion cascades: a dependent that has dependents of its own
# is deleted in the foreground too, so the owner waits until the deepest
# blocking dependent is gone.
k -n b create configmap top >/dev/null
UT=$(k -n b get cm top -o jsonpath='{.metadata.uid}')
held b mid top "$UT" "$ADM" >/dev/null
k -n b patch cm mid --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null
UMID=$(k -n b get cm mid -o jsonpath='{.metadata.uid}')
expect_exact "a chain: top <- mid <- leaf, leaf kept by a finalizer" 201 held b leaf mid "$UMID" "$ADM"
k -n b delete cm top --cascade=foreground --wait=false >/dev/null
expect_exact "deleting top in the foreground, mid (with a dependent) waits in the foreground too" \
    '["foregroundDeletion"]' gone b mid
expect_exact "... and so does top" '["foregroundDeletion"]' gone b top
k -n b patch cm leaf --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null
wait_for "leaf released, mid goes" 10 '^gone$' gone b mid
wait_for "... then top" 10 '^gone$' gone b top

# The garbage collector judges every object written, not only an owner's
# dependents when the owner goes: one whose owners are all absent goes at
# once (checked as Kubernetes checks it, by the kind, name and uid the
# reference gives), one with an owner present loses the others' references.
NOBODY=0f0f0f0f-0000-4000-8000-00000000dead
expect_exact "a ConfigMap owned by a uid that names nothing is stored" 201 \
    held b ghost1 nobody "$NOBODY" "$ADM" false
# marked NS NAME: "marked" once ConfigMap NS/NAME is marked deleted.
marked() {
    k -n "$1" get cm "$2" -o jsonpath='{.metadata.deletionTimestamp}' | sed 's/^..*$/marked/'
}
wait_for "... and collected (marked deleted: its finalizer keeps it)" 10 '^marked$' marked b ghost1
k -n b create configmap alive >/dev/null
UA=$(k -n b get cm alive -o jsonpath='{.metadata.uid}')
expect_exact "one naming a live ConfigMap with another uid is stored" 201 \
    held b ghost2 alive "$NOBODY" "$ADM" false
wait_for "... and collected" 10 '^marked$' marked b ghost2
curl -s -o /dev/null -X POST -H "$ADM" -H "$J" --data-binary \
    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"twice\",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"nobody\",\"uid\":\"$NOBODY\"},{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"alive\",\"uid\":\"$UA\"}]}}" \
    "$URL/api/v1/namespaces/b/configmaps"
wait_for "one with a live owner and an absent one loses the absent one's reference" 10 "^$UA\$" \
    k -n b get cm twice -o jsonpath='{.metadata.ownerReferences[*].uid}'
k -n b create configmap o1 >/dev/null
UO1=$(k -n b get cm o1 -o jsonpath='{.metadata.uid}')
held b kept o1 "$UO1" "$ADM" false >/dev/null
k -n b delete cm o1 --cascade=orphan >/dev/null
expect_exact "orphaned: the dependent stays" '["example.com/keep"]' gone b kept
expect_exact "the reference to its deleted owner added again" 200 patch b kept "$ADM" \
    "{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"o1\",\"uid\":\"$UO1\"}]}}"
wait_for "... it is collected" 10 '^marked$' marked b kept

# An admin's mutating webhook runs before the check, as kube-apiserver runs
# OwnerReferencesPermissionEnforcement after the mutating webhooks: a
# reference the webhook adds (here: what annotation hooks.test/meta asks
# for) is judged against the requesting user.
need openssl
start_meta_hook
k -n b create configmap z >/dev/null
UZ=$(k -n b get cm z -o jsonpath='{.metadata.uid}')
# hooked NS NAME AUTH META: create ConfigMap NS/NAME asking the webhook for
# the metadata META (JSON); prints the status code (the body to $TMP/hooked.out).
hooked() {
    ann=$($PY -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$4")
    curl -s -o "$TMP/hooked.out" -w '%{http_code}' -X POST -H "$3" -H "$J" --data-binary \
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$2\",\"annotations\":{\"hooks.test/meta\":$ann}}}" \
        "$URL/api/v1/namespaces/$1/configmaps"
}
BLOCKZ="{\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"z\",\"uid\":\"$UZ\",\"blockOwnerDeletion\":true}]}"
expect_exact "a blocking reference a webhook adds to a tenant's create is refused" 403 \
    hooked a w1 "$T" "$BLOCKZ"
expect "... in kube-apiserver's words" "configmaps \\\"w1\\\" is forbidden: $MSG" \
    cat "$TMP/hooked.out"
expect_exact "control: the admin's create with it is taken" 201 hooked b w2 "$ADM" "$BLOCKZ"
expect_exact "control: a tenant's create the webhook leaves alone is taken" 201 \
    hooked a w3 "$TU" '{}'
# ... and the check is not made before the webhooks: a blocking reference
# the client sent and the webhook removes is no longer there to judge.
curl -s -o "$TMP/hooked.out" -w '%{http_code}' -X POST -H "$T" -H "$J" --data-binary \
    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"w4\",\"annotations\":{\"hooks.test/meta\":\"{\\\"ownerReferences\\\":[]}\"},\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"z\",\"uid\":\"$UZ\",\"blockOwnerDeletion\":true}]}}" \
    "$URL/api/v1/namespaces/a/configmaps" >"$TMP/code"
expect_exact "a blocking reference a webhook removes from a tenant's create is not judged" 201 \
    cat "$TMP/code"
expect_exact "a reference a webhook adds to an update, by a writer without delete, is refused" \
    403 patch a w3 "$TU" "{\"metadata\":{\"annotations\":{\"hooks.test/meta\":$($PY -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$BLOCKZ")}}}"
expect "... in kube-apiserver's words" \
    "cannot set an ownerRef on a resource you can't delete: , <nil>" cat "$TMP/patch.out"
k delete mutatingwebhookconfiguration meta >/dev/null
