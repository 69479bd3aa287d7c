# gc.sh -- a tenant cannot hold another tenant's object through garbage
# collection: an owner reference is resolved in its dependent's namespace
# (or among cluster-scoped objects), as Kubernetes' garbage collector
# resolves it, so an object of namespace a that names, by uid, an object of
# namespace b as its owner (with a finalizer of its own) neither keeps b's
# object in foreground deletion nor goes when b's object goes. A control in
# the same run: a dependent in b's own namespace does hold its owner.
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

# held NS NAME OWNER UID AUTH: a ConfigMap NS/NAME with a finalizer, owned by
# ConfigMap OWNER of uid UID.
held() {
    curl -s -o /dev/null -w '%{http_code}' -X POST -H "$5" -H "$J" --data-binary \
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$2\",\"finalizers\":[\"example.com/keep\"],\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"$3\",\"uid\":\"$4\",\"blockOwnerDeletion\":true}]}}" \
        "$URL/api/v1/namespaces/$1/configmaps"
}
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
expect_exact "a tenant of a names b's ConfigMap as its object's owner (Kubernetes takes it)" 201 \
    held a d x "$UX" "$T"
expect_exact "control: b's own object with a finalizer, owned by b's ConfigMap y" 201 \
    held b d y "$UY" "$ADM"
k -n b delete cm x --cascade=foreground --wait=false >/dev/null
k -n b delete cm y --cascade=foreground --wait=false >/dev/null
wait_for "b's ConfigMap x, deleted in the foreground, goes" 10 '^gone$' gone b x
expect_exact "control: b's ConfigMap y waits for its dependent in b" '["foregroundDeletion"]' \
    gone b y
expect_exact "the tenant's object is not deleted with x" '["example.com/keep"]' \
    k -n a get cm d -o jsonpath='{.metadata.finalizers}'
expect_exact "... nor marked for deletion" "" \
    k -n a get cm d -o jsonpath='{.metadata.deletionTimestamp}'
