# strings.sh -- a NUL (\u0000) in a string gets one outcome whatever the
# path: where Kubernetes validates the string (names, label values, Kueue's
# references) it is refused with 422 and the field path, quoted as Go
# quotes it ("a\x00b"); free text (annotation values, commands, messages)
# is stored and served back byte for byte by get, list, watch, Table and
# kubectl. A NUL in a map key cannot be held and is refused as undecodable.

need curl
start_server strings --insecure-http || exit 1
export KUBECONFIG="$KC"
J='Content-Type: application/json'
Y='Content-Type: application/yaml'
NSS="$URL/api/v1/namespaces"
JOBS="$URL/apis/batch/v1/namespaces/t1/jobs"

# field URL PYTHON_EXPR: the value of the expression over the object at URL
# (as o), printed with Python's repr so that a NUL shows as \x00.
field() { curl -s "$1" | "$PY" -c "import json,sys; o=json.load(sys.stdin); print(repr($2))"; }

job() { # job NAME LABELS ANNOTATIONS ARG
    printf '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"%s","labels":%s,"annotations":%s},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","command":["echo",%s]}]}}}}' \
        "$1" "$2" "$3" "$4"
}

expect_status "namespace t1" 201 -X POST -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"t1"}}' "$NSS"

note "# refused: names and validated identifiers"
expect_status "JSON: a Namespace named a\\0b: 422" 422 -X POST -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a\u0000b"}}' "$NSS"
expect "the field path and Go's quoting" \
    '"message":"Invalid value: \"a\\x00b\": a lowercase RFC 1123 label must consist of' \
    cat "$TMP/curl.out"
expect "... on metadata.name" '"field":"metadata.name"' cat "$TMP/curl.out"
expect_status "YAML: a Namespace named a\\0b: 422" 422 -X POST -H "$Y" \
    --data-binary "$(printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "a\\0b"\n')" "$NSS"
expect_status "a Pod (a kind the server does not model) named p\\0q: 422" 422 -X POST -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p\u0000q"},"spec":{"containers":[{"name":"c","image":"x"}]}}' \
    "$URL/api/v1/namespaces/t1/pods"
expect_status "nothing stored under the cut name" 404 "$URL/api/v1/namespaces/t1/pods/p"
expect_status "a Job label value with a NUL: 422" 422 -X POST -H "$J" \
    --data-binary "$(job j1 '{"team":"a\u0000b"}' '{}' '"x"')" "$JOBS"
expect "... on metadata.labels" '"field":"metadata.labels"' cat "$TMP/curl.out"
expect_status "a queue name with a NUL: 422" 422 -X POST -H "$J" --data-binary \
    "$(job j1 '{"kueue.x-k8s.io/queue-name":"lq\u0000x"}' '{}' '"x"')" "$JOBS"
expect_status "a LocalQueue pointing at cq\\0x: 422" 422 -X POST -H "$J" --data-binary \
    '{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue","metadata":{"name":"lq"},"spec":{"clusterQueue":"cq\u0000x"}}' \
    "$URL/apis/kueue.x-k8s.io/v1beta2/namespaces/t1/localqueues"
expect "... on spec.clusterQueue" '"field":"spec.clusterQueue"' cat "$TMP/curl.out"

note "# refused: keys"
expect_status "JSON: an annotation key with a NUL: 400" 400 -X POST -H "$J" \
    --data-binary "$(job j1 '{}' '{"k\u0000":"v"}' '"x"')" "$JOBS"
expect_status "YAML: a label key with a NUL: 400" 400 -X POST -H "$Y" --data-binary \
    "$(printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: k1\n  labels:\n    "a\\0": b\n')" \
    "$NSS"

note "# stored faithfully: free text"
expect_status "JSON: a Job with NULs in an annotation and an argument" 201 -X POST -H "$J" \
    --data-binary "$(job j1 '{}' '{"note":"x\u0000y"}' '"a\u0000b"')" "$JOBS"
expect_exact "get: the annotation" "'x\\x00y'" field "$JOBS/j1" 'o["metadata"]["annotations"]["note"]'
expect_exact "get: the argument" "'a\\x00b'" field "$JOBS/j1" \
    'o["spec"]["template"]["spec"]["containers"][0]["command"][1]'
expect_exact "list" "'x\\x00y'" field "$JOBS" 'o["items"][0]["metadata"]["annotations"]["note"]'
expect_exact "kubectl -o json" "'x\\x00y'" sh -c \
    "kubectl get job j1 -n t1 -o json | '$PY' -c 'import json,sys; print(repr(json.load(sys.stdin)[\"metadata\"][\"annotations\"][\"note\"]))'"
expect "kubectl -o yaml" 'note: "x\0y"' k get job j1 -n t1 -o yaml
expect_status "YAML: an annotation value with a NUL" 201 -X POST -H "$Y" --data-binary \
    "$(printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: y1\n  annotations:\n    a: "1\\02"\n')" \
    "$NSS"
expect_exact "... read back" "'1\\x002'" field "$NSS/y1" 'o["metadata"]["annotations"]["a"]'
"$PY" - "$TMP/ns.pb" <<'EOF'
import sys
def f(num, b):  # a length-delimited field
    return bytes([num << 3 | 2, len(b)]) + b
entry = f(1, b"pb") + f(2, b"3\x004")
raw = f(1, f(1, b"p1") + f(12, entry))
tm = f(1, b"v1") + f(2, b"Namespace")
open(sys.argv[1], "wb").write(b"k8s\x00" + f(1, tm) + f(2, raw))
EOF
expect_status "protobuf: an annotation value with a NUL" 201 -X POST \
    -H 'Content-Type: application/vnd.kubernetes.protobuf' --data-binary @"$TMP/ns.pb" "$NSS"
expect_exact "... read back" "'3\\x004'" field "$NSS/p1" 'o["metadata"]["annotations"]["pb"]'
expect_status "an Event message with a NUL" 201 -X POST -H "$J" --data-binary \
    '{"apiVersion":"v1","kind":"Event","metadata":{"name":"e1"},"reason":"R","message":"hi\u0000there","involvedObject":{"kind":"Job","name":"j1"}}' \
    "$URL/api/v1/namespaces/t1/events"
expect_exact "Table: the message cell whole" "'hi\\x00there'" sh -c \
    "curl -s -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io' '$URL/api/v1/namespaces/t1/events' | '$PY' -c 'import json,sys; t=json.load(sys.stdin); i=[c[\"name\"] for c in t[\"columnDefinitions\"]].index(\"Message\"); print(repr(t[\"rows\"][0][\"cells\"][i]))'"
expect_exact "watch: the events carry it" "'hi\\x00there'" sh -c \
    "timeout 3 curl -sN '$URL/api/v1/namespaces/t1/events?watch=1' | head -1 | '$PY' -c 'import json,sys; print(repr(json.loads(sys.stdin.readline())[\"object\"][\"message\"]))'"

note "# every write path agrees"
rv=$(field "$JOBS/j1" 'o["metadata"]["resourceVersion"]' | tr -d "'")
for t in merge strategic-merge; do
    expect_status "$t patch: a label value with a NUL: 422" 422 -X PATCH \
        -H "Content-Type: application/$t-patch+json" \
        --data-binary '{"metadata":{"labels":{"l":"1\u00002"}}}' "$JOBS/j1"
    expect_status "$t patch: an annotation value with a NUL: 200" 200 -X PATCH \
        -H "Content-Type: application/$t-patch+json" \
        --data-binary "{\"metadata\":{\"annotations\":{\"$t\":\"1\\u00002\"}}}" "$JOBS/j1"
done
expect_status "json-patch: a label value with a NUL: 422" 422 -X PATCH \
    -H 'Content-Type: application/json-patch+json' \
    --data-binary '[{"op":"add","path":"/metadata/labels","value":{"l":"1\u00002"}}]' "$JOBS/j1"
expect_status "json-patch: a name with a NUL: 400" 400 -X PATCH \
    -H 'Content-Type: application/json-patch+json' \
    --data-binary '[{"op":"replace","path":"/metadata/name","value":"j1\u0000z"}]' "$JOBS/j1"
expect "... quoted whole" 'the name of the object (j1\\x00z) does not match the name on the URL (j1)' \
    cat "$TMP/curl.out"
expect_status "json-patch: an annotation value with a NUL: 200" 200 -X PATCH \
    -H 'Content-Type: application/json-patch+json' \
    --data-binary '[{"op":"add","path":"/metadata/annotations/jp","value":"1\u00002"}]' "$JOBS/j1"
expect_status "apply: a label value with a NUL: 422" 422 -X PATCH \
    -H 'Content-Type: application/apply-patch+yaml' \
    --data-binary '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j1","labels":{"l":"1\u00002"}}}' \
    "$JOBS/j1?fieldManager=t"
expect_status "apply: an annotation value with a NUL: 200" 200 -X PATCH \
    -H 'Content-Type: application/apply-patch+yaml' \
    --data-binary '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j1","annotations":{"ap":"1\u00002"}}}' \
    "$JOBS/j1?fieldManager=t"
curl -s "$JOBS/j1" >"$TMP/j1.json"
"$PY" - "$TMP/j1.json" "$TMP/j1-label.json" "$TMP/j1-note.json" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))
o["metadata"].setdefault("labels", {})["l"] = "1\x002"
json.dump(o, open(sys.argv[2], "w"))
o["metadata"]["labels"].pop("l")
o["metadata"]["annotations"]["put"] = "1\x002"
json.dump(o, open(sys.argv[3], "w"))
EOF
expect_status "PUT: a label value with a NUL: 422" 422 -X PUT -H "$J" \
    --data-binary @"$TMP/j1-label.json" "$JOBS/j1"
expect_status "PUT: an annotation value with a NUL: 200" 200 -X PUT -H "$J" \
    --data-binary @"$TMP/j1-note.json" "$JOBS/j1"
expect_exact "every accepted write stored its NUL" \
    "['1\\x002', '1\\x002', '1\\x002', '1\\x002', '1\\x002']" field "$JOBS/j1" \
    '[o["metadata"]["annotations"][k] for k in ("merge", "strategic-merge", "jp", "ap", "put")]'
expect_exact "no refused write left a label" "None" field "$JOBS/j1" \
    '(o["metadata"].get("labels") or {}).get("l")'
