# metadata.sh -- what a tenant may hang on an object's metadata is bounded
# as Kubernetes bounds it, on every kind (not only Kueue's): annotations are
# at most 256 KiB of keys and values, their keys qualified names. Refused
# by create, update and patch with 422 and kube-apiserver's wording, and
# nothing is stored.

need curl
start_server metadata --insecure-http || exit 1
J='Content-Type: application/json'
MP='Content-Type: application/merge-patch+json'
k create namespace t1 >/dev/null
ROLES=admin tenant tia t1
TOK=$(sed -n 's/^ *token: *//p' "$TKC")
A="Authorization: Bearer $TOK"
CMS="$URL/api/v1/namespaces/t1/configmaps"
RBS="$URL/apis/rbac.authorization.k8s.io/v1/namespaces/t1/rolebindings"

# annotated KIND NAME VALUE_BYTES [EXTRA_JSON_FIELDS]: an object whose one
# annotation "a" has a value of VALUE_BYTES bytes, in $TMP/NAME.json.
annotated() {
    "$PY" - "$@" >"$TMP/$2.json" <<'PYEOF'
import json, sys
kind, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
o = {"kind": kind, "metadata": {"name": name, "annotations": {"a": "x" * n}}}
if kind == "ConfigMap":
    o["apiVersion"] = "v1"
else:
    o["apiVersion"] = "rbac.authorization.k8s.io/v1"
    o["roleRef"] = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}
    o["subjects"] = [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "u"}]
print(json.dumps(o))
PYEOF
}

TOO_LONG='metadata.annotations: Too long: may not be more than 262144 bytes'
annotated ConfigMap full 262143
expect_status "a ConfigMap with 256 KiB of annotations is stored" 201 -X POST -H "$A" -H "$J" \
    --data-binary "@$TMP/full.json" "$CMS"
annotated ConfigMap over 262144
expect_status "a ConfigMap with a byte more: 422" 422 -X POST -H "$A" -H "$J" \
    --data-binary "@$TMP/over.json" "$CMS"
expect "... worded as Kubernetes words it" "$TOO_LONG" cat "$TMP/curl.out"
expect_status "... and not stored" 404 -H "$A" "$CMS/over"
annotated RoleBinding rb 300000
expect_status "a RoleBinding with 300 KB of annotations: 422" 422 -X POST -H "$A" -H "$J" \
    --data-binary "@$TMP/rb.json" "$RBS"
expect "... worded as Kubernetes words it" "$TOO_LONG" cat "$TMP/curl.out"

# Grown past the bound by a patch, or by a replace: refused, unchanged.
expect_status "a ConfigMap created small" 201 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"small"}}' "$CMS"
"$PY" -c 'import json; print(json.dumps({"metadata": {"annotations": {"b": "y" * 300000}}}))' \
    >"$TMP/grow.json"
expect_status "a merge patch growing its annotations past 256 KiB: 422" 422 -X PATCH -H "$A" \
    -H "$MP" --data-binary "@$TMP/grow.json" "$CMS/small"
expect "... worded as Kubernetes words it" "$TOO_LONG" cat "$TMP/curl.out"
annotated ConfigMap small 300000
expect_status "a replace growing them: 422" 422 -X PUT -H "$A" -H "$J" \
    --data-binary "@$TMP/small.json" "$CMS/small"
expect_exact "... and the stored object has no annotation" "" \
    sh -c "curl -s -H '$A' '$CMS/small' | '$PY' -c 'import json,sys; print(json.load(sys.stdin)[\"metadata\"].get(\"annotations\", \"\"))'"

expect_status "an annotation key that is not a qualified name: 422" 422 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"k","annotations":{"bad key!":"v"}}}' \
    "$CMS"
expect "... naming the key" 'metadata.annotations: Invalid value: \"bad key!\": name part' \
    cat "$TMP/curl.out"
