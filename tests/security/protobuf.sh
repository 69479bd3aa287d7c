# protobuf.sh -- the protobuf bodies kubectl 1.32 sends (create namespace,
# job, priorityclass; auth can-i and whoami) work as against a cluster, and
# store what the JSON path stores for the same object; bad protobuf gets a
# 400 worded as kube-apiserver words it.

need curl
start_server pb || exit 1
CA="$DATA/ca.crt"
AUTH="Authorization: Bearer $(cat "$DATA/admin-token")"
PBT='Content-Type: application/vnd.kubernetes.protobuf'

# same DESC KIND NAME TWIN [-n NS]: the objects NAME (created from
# protobuf) and TWIN (created from kubectl's JSON for the same command)
# read back alike, once their names and uids are set aside.
same() {
    desc=$1
    kind=$2
    a=$3
    b=$4
    shift 4
    k get "$kind" "$a" "$@" -o json >"$TMP/a.json" 2>&1
    k get "$kind" "$b" "$@" -o json >"$TMP/b.json" 2>&1
    if out=$("$PY" - "$TMP/a.json" "$TMP/b.json" <<'EOF'
import json, sys

def norm(path):
    obj = json.load(open(path))
    meta = obj["metadata"]
    text = json.dumps(obj, sort_keys=True)
    for v in (meta["uid"], meta["name"]):
        text = text.replace(v, "X")
    obj = json.loads(text)
    for f in ("resourceVersion", "creationTimestamp", "managedFields"):
        obj["metadata"].pop(f, None)
    return obj

a, b = norm(sys.argv[1]), norm(sys.argv[2])
if a != b:
    print(json.dumps(a, sort_keys=True))
    print(json.dumps(b, sort_keys=True))
    sys.exit(1)
EOF
    ); then pass "$desc"; else fail "$desc" "$out$(cat "$TMP/a.json")"; fi
}

# twin ARGS...: `kubectl create ARGS` through kubectl's JSON, as `-f -`.
twin() { k create "$@" --dry-run=client -o json | k create -f - >/dev/null; }

note "# kubectl sends protobuf"
expect "kubectl create namespace" "namespace/pbns created" k create namespace pbns
twin namespace pbns-json
same "the Namespace reads back as from JSON" namespace pbns pbns-json
expect "kubectl create job" "job.batch/pbj created" \
    k create job pbj -n pbns --image=busybox -- sh -c 'echo hi'
k create job pbj-json -n pbns --image=busybox --dry-run=client -o json -- sh -c 'echo hi' |
    k create -f - >/dev/null
same "the Job reads back as from JSON" job pbj pbj-json -n pbns
expect "kubectl create priorityclass" "priorityclass.scheduling.k8s.io/pbpc created" \
    k create priorityclass pbpc --value=1000 --description="batch work" --preemption-policy=Never
twin priorityclass pbpc-json --value=1000 --description="batch work" --preemption-policy=Never
same "the PriorityClass reads back as from JSON" priorityclass pbpc pbpc-json
expect_exact "auth can-i (admin, resource)" "yes" k auth can-i delete clusterqueues
expect_exact "auth can-i (admin, non-resource path)" "yes" k auth can-i get /metrics
expect "auth whoami" "admin" k auth whoami

note "# tenants"
k create namespace team-a >/dev/null
tenant alice team-a
# kubectl create job can set neither a queue nor requests: the decoded Job
# reaches the tenants' admission, which names what it lacks.
expect "a tenant's Job from protobuf is decoded and meets the tenants' admission" \
    "The label 'kueue.x-k8s.io/queue-name' is either missing or does not have a value set" \
    kt "$TKC" create job mine -n team-a --image=busybox
expect "but not in another namespace" 'cannot create resource "jobs" in API group "batch" in the namespace "pbns"' \
    kt "$TKC" create job theirs -n pbns --image=busybox
expect "nor a namespace" 'cannot create resource "namespaces"' kt "$TKC" create namespace mine
expect_exact "auth can-i (tenant, own namespace)" "yes" kt "$TKC" auth can-i create jobs -n team-a
expect_exact "auth can-i (tenant, other namespace)" "no" kt "$TKC" auth can-i create jobs -n pbns
expect_exact "auth can-i (tenant, a write to a non-resource path)" "no" kt "$TKC" auth can-i post /api

note "# bad protobuf"
NS="$URL/api/v1/namespaces"
expect_status "JSON sent as protobuf: 400" 400 --cacert "$CA" -H "$AUTH" -H "$PBT" -X POST \
    --data-binary '{"kind":"Namespace"}' "$NS"
expect "not protobuf: kube's wording" \
    'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]' \
    cat "$TMP/curl.out"
# pb FILE HEX: the envelope of a v1 Namespace whose message is HEX.
pb() {
    "$PY" -c 'import sys
tm = b"\x0a\x02v1\x12\x09Namespace"
raw = bytes.fromhex(sys.argv[2])
body = b"\x0a" + bytes([len(tm)]) + tm + b"\x12" + bytes([len(raw)]) + raw
open(sys.argv[1], "wb").write(b"k8s\x00" + body)' "$1" "$2"
}
pb "$TMP/trunc.pb" 0a050a016e # metadata says 5 bytes, holds 3
expect_status "a truncated message: 400" 400 --cacert "$CA" -H "$AUTH" -H "$PBT" -X POST \
    --data-binary @"$TMP/trunc.pb" "$NS"
expect "truncated: kube's wording" \
    '"message":"Namespace in version \"v1\" cannot be handled as a Namespace: unexpected EOF","reason":"BadRequest"' \
    cat "$TMP/curl.out"
# A Namespace whose metadata carries field 99, unknown to Kubernetes.
pb "$TMP/unknown.pb" 0a070a026e78980601
expect_status "an unknown field under Strict: 400" 400 --cacert "$CA" -H "$AUTH" -H "$PBT" \
    -X POST --data-binary @"$TMP/unknown.pb" "$NS?fieldValidation=Strict"
expect "unknown field: the strict decoding wording" \
    'Namespace in version \"v1\" cannot be handled as a Namespace: strict decoding error: unknown field number 99 in \"metadata\"' \
    cat "$TMP/curl.out"
expect_grep "an unknown field under Warn: created, with a warning" \
    '^Warning: 299 - "unknown field number 99 in \\"metadata\\""' \
    curl -s -D - -o /dev/null --cacert "$CA" -H "$AUTH" -H "$PBT" -X POST \
    --data-binary @"$TMP/unknown.pb" "$NS?fieldValidation=Warn"
expect_status "protobuf for a Kueue kind: 415, as for a custom resource" 415 --cacert "$CA" \
    -H "$AUTH" -H "$PBT" -X POST --data-binary @"$TMP/trunc.pb" \
    "$URL/apis/kueue.x-k8s.io/v1beta2/clusterqueues"
expect_exact "nothing bad was stored" "nx" k get namespace nx -o jsonpath='{.metadata.name}'
