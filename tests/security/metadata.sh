# metadata.sh -- what a tenant may hang on an object's metadata is bounded
# as Kubernetes bounds it, on every kind (not only Kueue's): annotations are
# at most 256 KiB of keys and values, their keys qualified names. Refused
# by create, update and patch with 422 and kube-apiserver's wording, and
# nothing is stored. Metadata of the wrong type (a number as a label value)
# is refused as kube-apiserver's typed decode refuses it, with 400, on
# kinds cueue stores as documents (Pods, ConfigMaps) as on those it
# decodes; label keys and values, finalizer names and ownerReferences are
# checked as ValidateObjectMeta checks them; so every typed client can
# read what is stored.

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

# ---- the types of metadata, and labels, finalizers, ownerReferences ----
PODS="$URL/api/v1/namespaces/t1/pods"
expect_status "a Pod with a number as a label value: 400" 400 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p9","labels":{"a":1},"annotations":{"x":2}},"spec":{"containers":[{"name":"c","image":"x"}]}}' \
    "$PODS"
expect "... as kube-apiserver's decoder words it" \
    'Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string' \
    cat "$TMP/curl.out"
expect_status "... and not stored" 404 -H "$A" "$PODS/p9"
expect_status "a ConfigMap with an object as a label value: 400" 400 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c3","labels":{"b":{"c":2}}}}' "$CMS"
expect "... naming what it is" 'cannot unmarshal object into Go struct field ObjectMeta.metadata.labels of type string' \
    cat "$TMP/curl.out"
expect_status "labels that are not a map: 400" 400 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c3","labels":"a=b"}}' "$CMS"
expect "... of type map" 'of type map[string]string' cat "$TMP/curl.out"
expect_status "a number as a finalizer: 400" 400 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c3","finalizers":[1]}}' "$CMS"
expect "... at metadata.finalizers" 'Go struct field ObjectMeta.metadata.finalizers of type string' cat "$TMP/curl.out"
expect_status "a string as an owner's controller flag: 400" 400 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c3","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u","controller":"yes"}]}}' "$CMS"
expect "... at its field" 'Go struct field OwnerReference.metadata.ownerReferences.controller of type bool' \
    cat "$TMP/curl.out"
ADM="Authorization: Bearer $(cat "$DATA/admin-token")"
expect_status "a number as a Job's label value (a kind cueue decodes): 400 too" 400 -X POST -H "$ADM" -H "$J" \
    --data-binary '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","labels":{"a":1}},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}}}' \
    "$URL/apis/batch/v1/namespaces/t1/jobs"
expect "... worded the same" 'Job in version \"v1\" cannot be handled as a Job: json: cannot unmarshal number' \
    cat "$TMP/curl.out"

# Integers are integers, times strings: kube-apiserver's decoder refuses
# the rest (400) before anything is stored.
expect_status "a fractional generation: 400" 400 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"g1","generation":1.5}}' "$CMS"
expect "... as kube-apiserver's decoder words it" \
    'ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64' \
    cat "$TMP/curl.out"
expect_status "... and not stored" 404 -H "$A" "$CMS/g1"
expect_status "a fractional generation on a Job (a kind cueue decodes): 400" 400 -X POST -H "$ADM" -H "$J" \
    --data-binary '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"g2","generation":2.5},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}}}' \
    "$URL/apis/batch/v1/namespaces/t1/jobs"
expect "... worded the same" 'cannot unmarshal number 2.5 into Go struct field ObjectMeta.metadata.generation of type int64' \
    cat "$TMP/curl.out"
expect_status "a fractional deletionGracePeriodSeconds: 400" 400 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"g3","deletionGracePeriodSeconds":0.5}}' "$CMS"
expect_status "a number as creationTimestamp: 400" 400 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"g4","creationTimestamp":1700000000}}' "$CMS"
expect "... at its field" 'Go struct field ObjectMeta.metadata.creationTimestamp of type string' \
    cat "$TMP/curl.out"
# A time is a string Go's time.Parse takes as RFC 3339 (metav1.Time's
# decoding): anything else is refused (400) in its words.
expect_status "a creationTimestamp that is not an RFC 3339 time: 400" 400 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t1","creationTimestamp":"yesterday"}}' "$CMS"
expect "... as kube-apiserver's decoder words it" \
    'ConfigMap in version \"v1\" cannot be handled as a ConfigMap: parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"yesterday\" as \"2006\"' \
    cat "$TMP/curl.out"
expect_status "... and not stored" 404 -H "$A" "$CMS/t1"
expect_status "a deletionTimestamp in month 13 on a Job: 400" 400 -X POST -H "$ADM" -H "$J" \
    --data-binary '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"t2","deletionTimestamp":"2024-13-01T00:00:00Z"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}}}' \
    "$URL/apis/batch/v1/namespaces/t1/jobs"
expect "... in Go's words" \
    'Job in version \"v1\" cannot be handled as a Job: parsing time \"2024-13-01T00:00:00Z\": month out of range' \
    cat "$TMP/curl.out"
expect_status "a time without its zone on a replace: 400" 400 -X PUT -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"small","creationTimestamp":"2024-01-01T00:00:00"}}' "$CMS/small"
expect "... in Go's words" 'cannot parse \"\" as \"Z07:00\"' cat "$TMP/curl.out"
expect_status "an RFC 3339 time with an offset and a fraction is taken" 201 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t3","creationTimestamp":"2024-02-29T23:59:59.5+02:00"}}' "$CMS"
expect_status "a whole generation is taken" 201 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"g5","generation":3}}' "$CMS"
expect_status "a merge patch setting a fractional generation: 400" 400 -X PATCH -H "$A" -H "$MP" \
    --data-binary '{"metadata":{"generation":1.5}}' "$CMS/g5"
expect "... worded as the decoder words it" 'cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64' \
    cat "$TMP/curl.out"
expect_status "a replace with a string as resourceVersion: 400" 400 -X PUT -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"g5","resourceVersion":7}}' "$CMS/g5"

expect_status "a label key that is not a qualified name: 422" 422 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c3","labels":{"bad key":"x"}}}' "$CMS"
expect "... naming the key" 'metadata.labels: Invalid value: \"bad key\": name part' cat "$TMP/curl.out"
expect_status "a label value that is not one: 422" 422 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p8","labels":{"a":"-x-"}},"spec":{"containers":[{"name":"c","image":"x"}]}}' "$PODS"
expect "... naming the value" 'metadata.labels: Invalid value: \"-x-\": a valid label must be' cat "$TMP/curl.out"
expect_status "a finalizer that is not a qualified name: 422" 422 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c3","finalizers":["bad name!"]}}' "$CMS"
expect "... naming it" 'metadata.finalizers: Invalid value: \"bad name!\"' cat "$TMP/curl.out"
expect_status "an owner without uid: 422" 422 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c3","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o"}]}}' "$CMS"
expect "... as Kubernetes says it" 'metadata.ownerReferences.uid: Invalid value: \"\": uid must not be empty' \
    cat "$TMP/curl.out"
expect_status "two controllers: 422" 422 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c3","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u1","controller":true},{"apiVersion":"v1","kind":"Secret","name":"s","uid":"u2","controller":true}]}}' "$CMS"
expect "... as Kubernetes says it" 'Only one reference can have Controller set to true. Found \"true\" in references for ConfigMap/o and Secret/s' \
    cat "$TMP/curl.out"
expect "... showing the references as kube-apiserver prints them" \
    'metadata.ownerReferences: Invalid value: []v1.OwnerReference{v1.OwnerReference{APIVersion:\"v1\", Kind:\"ConfigMap\", Name:\"o\", UID:\"u1\", Controller:(*bool)(0x' \
    cat "$TMP/curl.out"
expect_status "... none of them stored" 404 -H "$A" "$CMS/c3"

# Kinds cueue decodes into typed objects (Jobs, Namespaces, Kueue's) are
# held to the same finalizer and owner rules (as the admin: a tenant's Job
# must name a LocalQueue first).
JOBS="$URL/apis/batch/v1/namespaces/t1/jobs"
JOBSPEC='"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}}'
expect_status "a Job with a finalizer that is not a qualified name: 422" 422 -X POST -H "$ADM" -H "$J" \
    --data-binary '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j2","finalizers":["bad name!"]},'"$JOBSPEC"'}' "$JOBS"
expect "... naming it" 'metadata.finalizers: Invalid value: \"bad name!\"' cat "$TMP/curl.out"
expect_status "a Job owned by a reference without uid: 422" 422 -X POST -H "$ADM" -H "$J" \
    --data-binary '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j2","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o"}]},'"$JOBSPEC"'}' "$JOBS"
expect "... as Kubernetes says it" 'metadata.ownerReferences.uid: Invalid value: \"\": uid must not be empty' \
    cat "$TMP/curl.out"
expect_status "a Job with two controllers: 422" 422 -X POST -H "$ADM" -H "$J" \
    --data-binary '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j2","ownerReferences":[{"apiVersion":"v1","kind":"A","name":"a","uid":"1","controller":true},{"apiVersion":"v1","kind":"B","name":"b","uid":"2","controller":true}]},'"$JOBSPEC"'}' "$JOBS"
expect "... as Kubernetes says it" 'Only one reference can have Controller set to true. Found \"true\" in references for A/a and B/b' \
    cat "$TMP/curl.out"
expect_status "... none of them stored" 404 -H "$A" "$JOBS/j2"
expect_status "a Namespace with a finalizer that is not a qualified name: 422" 422 -X POST -H "$ADM" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n2","finalizers":["bad name!"]}}' "$URL/api/v1/namespaces"
expect_status "a LocalQueue whose owner has no kind: 422" 422 -X POST -H "$ADM" -H "$J" \
    --data-binary '{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue","metadata":{"name":"lq2","ownerReferences":[{"apiVersion":"v1","name":"o","uid":"u"}]},"spec":{"clusterQueue":"cq"}}' \
    "$URL/apis/kueue.x-k8s.io/v1beta2/namespaces/t1/localqueues"
expect "... as Kubernetes says it" 'metadata.ownerReferences.kind: Invalid value: \"\": kind must not be empty' \
    cat "$TMP/curl.out"
expect_status "a Job with valid finalizers and one controller is stored" 201 -X POST -H "$ADM" -H "$J" \
    --data-binary '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j3","finalizers":["example.com/keep"],"ownerReferences":[{"apiVersion":"v1","kind":"A","name":"a","uid":"1","controller":true}]},'"$JOBSPEC"'}' "$JOBS"

# Valid metadata of each kind is still taken.
expect_status "a Pod with labels, annotations and finalizers is stored" 201 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-ok","labels":{"app":"web","example.com/tier":""},"annotations":{"Note":"any text: 1"},"finalizers":["kubernetes","example.com/keep"]},"spec":{"containers":[{"name":"c","image":"x"}]}}' \
    "$PODS"
# (Owners of kinds this server does not serve: the garbage collector cannot
# judge them, and keeps their dependent, as it would delete one whose
# owners are all absent.)
expect_status "a ConfigMap owned by one controller and another owner is stored" 201 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owned","labels":null,"ownerReferences":[{"apiVersion":"example.com/v1","kind":"Owner","name":"o","uid":"u1","controller":true},{"apiVersion":"example.com/v1","kind":"Other","name":"d","uid":"u2","controller":false}]}}' \
    "$CMS"

# Updates, patches and apply are held to the same rules.
KEY70=$(printf 'k%.0s' $(seq 70))
expect "kubectl label with a 70-character key is refused" "name part must be no more than 63 characters" \
    kt "$TKC" -n t1 label cm small "$KEY70=x"
expect_status "a merge patch setting a number as a label: 400" 400 -X PATCH -H "$A" -H "$MP" \
    --data-binary '{"metadata":{"labels":{"a":1}}}' "$CMS/small"
expect_status "a merge patch adding a bad finalizer: 422" 422 -X PATCH -H "$A" -H "$MP" \
    --data-binary '{"metadata":{"finalizers":["bad name!"]}}' "$CMS/small"
expect_status "a replace with a bad label key: 422" 422 -X PUT -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"small","labels":{"bad key":"x"}}}' "$CMS/small"
expect_status "a server-side apply with a bad label value: 422" 422 -X PATCH -H "$A" \
    -H 'Content-Type: application/apply-patch+yaml' \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"small","labels":{"a":"-x-"}}}' \
    "$CMS/small?fieldManager=t&force=true"
expect_exact "... and the stored ConfigMap has no label" "" \
    sh -c "curl -s -H '$A' '$CMS/small' | '$PY' -c 'import json,sys; print(json.load(sys.stdin)[\"metadata\"].get(\"labels\", \"\"))'"
# A typed client (kubectl describe decodes into Go structs) reads every one.
for res in pods configmaps; do
    expect_exact "kubectl describe reads the namespace's $res" "read" \
        sh -c "kubectl --kubeconfig '$TKC' -n t1 describe $res >'$TMP/describe.out' 2>&1 && echo read"
done
expect "... the valid ones among them" "owned" cat "$TMP/describe.out"

# What an admin's mutating webhook writes is held to the same rules, as
# kube-apiserver decodes the patched object and validates it after the
# mutating webhooks (the webhook sets what annotation hooks.test/meta asks).
need openssl
start_meta_hook
# hooked NAME META: a ConfigMap NAME of t1 asking the webhook for the
# metadata META (JSON), in $TMP/NAME.json.
hooked() {
    "$PY" -c 'import json,sys; print(json.dumps({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":sys.argv[1],"annotations":{"hooks.test/meta":sys.argv[2]}}}))' \
        "$1" "$2" >"$TMP/$1.json"
}
hooked h1 '{"finalizers":["bad name!"]}'
wait_for "a finalizer a webhook adds that is not a qualified name: 422" 10 '^422$' \
    curl -s -o "$TMP/curl.out" -w '%{http_code}' -X POST -H "$A" -H "$J" --data-binary "@$TMP/h1.json" "$CMS"
expect "... naming it" 'metadata.finalizers: Invalid value: \"bad name!\"' cat "$TMP/curl.out"
hooked h2 '{"labels":{"a":1}}'
expect_status "a number a webhook sets as a label value: 500, as kube-apiserver's decode of its patch" \
    500 -X POST -H "$A" -H "$J" --data-binary "@$TMP/h2.json" "$CMS"
expect "... in the decoder's words" \
    '"Internal error occurred: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"' \
    cat "$TMP/curl.out"
hooked h3 '{"labels":{"bad key":"x"}}'
expect_status "a label key a webhook sets that is not a qualified name: 422" 422 -X POST -H "$A" \
    -H "$J" --data-binary "@$TMP/h3.json" "$CMS"
expect_status "... none of them stored" 404 -H "$A" "$CMS/h1"
expect_status "a ConfigMap the webhook leaves valid is stored" 201 -X POST -H "$A" -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"h4"}}' "$CMS"
"$PY" -c 'import json; print(json.dumps({"metadata":{"annotations":{"hooks.test/meta":json.dumps({"finalizers":["bad name!"]})}}}))' >"$TMP/h4.json"
expect_status "a patch after which the webhook adds a bad finalizer: 422" 422 -X PATCH -H "$A" \
    -H "$MP" --data-binary "@$TMP/h4.json" "$CMS/h4"
"$PY" -c 'import json; print(json.dumps({"metadata":{"annotations":{"hooks.test/meta":json.dumps({"labels":{"a":1}})}}}))' >"$TMP/h5.json"
expect_status "a patch after which the webhook sets a number as a label: 500" 500 -X PATCH -H "$A" \
    -H "$MP" --data-binary "@$TMP/h5.json" "$CMS/h4"
k delete mutatingwebhookconfiguration meta >/dev/null
