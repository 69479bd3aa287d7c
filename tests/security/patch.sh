# patch.sh -- patch bombs and malformed patches: each is answered promptly,
# with kube-apiserver's status and wording, without the server's memory
# growing, and without changing the stored object.

need curl
start_server patch --insecure-http || exit 1
export KUBECONFIG="$KC"
J='Content-Type: application/json'
JP='Content-Type: application/json-patch+json'
MP='Content-Type: application/merge-patch+json'
SP='Content-Type: application/strategic-merge-patch+json'
AP='Content-Type: application/apply-patch+yaml'
JOBS="$URL/apis/batch/v1/namespaces/t1/jobs"

# hwm: the server's peak resident memory in KiB.
hwm() { awk '/^VmHWM/ {print $2}' "/proc/$PID/status"; }

# timed DESC SECONDS CODE CURL_ARGS...: curl answers CODE within SECONDS.
timed() {
    desc=$1
    limit=$2
    want=$3
    shift 3
    t0=$(date +%s%N)
    code=$(timeout "$E2E_TIMEOUT" curl -s -o "$TMP/curl.out" -w '%{http_code}' "$@")
    ms=$((($(date +%s%N) - t0) / 1000000))
    if [ "$code" = "$want" ] && [ "$ms" -le $((limit * 1000)) ]; then
        pass "$desc (${ms} ms)"
    else
        fail "$desc (wanted HTTP $want within ${limit} s, got $code after ${ms} ms)" \
            "$(head -c 600 "$TMP/curl.out")"
    fi
}

# rv NAME: the stored resourceVersion of Job NAME.
rv() { curl -s "$JOBS/$1" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])'; }

expect_status "namespace t1" 201 -X POST -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"t1"}}' \
    "$URL/api/v1/namespaces"
expect_status "a small Job" 201 -X POST -H "$J" --data-binary \
    '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","command":["true"]}]}}}}' \
    "$JOBS"
"$PY" - "$TMP" <<'EOF'
import json, sys
tmp = sys.argv[1]
# A suspended Job's scheduling gates may change (its template may not), and
# they merge by name: the one list of a Job a patch may rewrite wholesale.
gates = [{"name": "g%d" % i} for i in range(50000)]
job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "big"},
       "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never",
                "schedulingGates": gates,
                "containers": [{"name": "c", "image": "busybox"}]}}}}
json.dump(job, open(tmp + "/big.json", "w"))
dels = [{"name": "g%d" % i, "$patch": "delete"} for i in reversed(range(50000))]
json.dump({"spec": {"template": {"spec": {"schedulingGates": dels}}}},
          open(tmp + "/deletes.json", "w"))
ops = [{"op": "add", "path": "/metadata/annotations", "value": {"a": "x" * 1000}}]
ops += [{"op": "copy", "from": "/metadata/annotations", "path": "/metadata/annotations/k%d" % i}
        for i in range(20)]
json.dump(ops, open(tmp + "/copies.json", "w"))
json.dump([{"op": "test", "path": "/kind", "value": "Job"}] * 10001, open(tmp + "/ops.json", "w"))
pad = "y" * (5 << 19)  # with the gates, past the 3 MiB cap
json.dump({"metadata": {"annotations": {"pad": pad}}}, open(tmp + "/grow.json", "w"))
EOF
expect_status "a suspended Job with 50,000 scheduling gates" 201 -X POST -H "$J" --data-binary @"$TMP/big.json" "$JOBS"
base=$(hwm)
rv_j=$(rv j)

note "# growth"
size=$(wc -c <"$TMP/copies.json")
timed "a $size-byte JSON patch of 20 doubling copies: 422" 10 422 -X PATCH -H "$JP" \
    --data-binary @"$TMP/copies.json" "$JOBS/j"
expect "copies: kube's generic Invalid" \
    '"message":"the server rejected our request due to an error in our request","reason":"Invalid"' \
    cat "$TMP/curl.out"
timed "a JSON patch of 10,001 operations: 413" 10 413 -X PATCH -H "$JP" \
    --data-binary @"$TMP/ops.json" "$JOBS/j"
expect "operations: kube's wording" \
    '"message":"Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001","reason":"RequestEntityTooLarge"' \
    cat "$TMP/curl.out"
for t in "$MP" "$SP"; do
    timed "a ${t#*/} growing the object past the body cap: 413" 10 413 -X PATCH -H "$t" \
        --data-binary @"$TMP/grow.json" "$JOBS/big"
    expect "growth (${t#*/}): names the limit" \
        '"message":"Request entity too large: the patched object is larger than the limit of 3145728 bytes"' \
        cat "$TMP/curl.out"
done
timed "a server-side apply growing the object past the body cap: 413" 10 413 -X PATCH -H "$AP" \
    --data-binary @"$TMP/grow.json" "$JOBS/big?fieldManager=t"
expect_exact "the refused patches changed nothing" "$rv_j" rv j

note "# 50,000 \$patch: delete"
timed "50,000 strategic deletes against 50,000 entries, in reverse order: 200" 10 200 \
    -X PATCH -H "$SP" --data-binary @"$TMP/deletes.json" "$JOBS/big"
expect_exact "every entry is gone" "0" sh -c "curl -s '$JOBS/big' | '$PY' -c 'import json,sys; print(len(json.load(sys.stdin)[\"spec\"][\"template\"][\"spec\"].get(\"schedulingGates\", [])))'"

# The bound is generous (about 60 MiB are needed, 400 under ASan, whose
# quarantine keeps freed memory); the 20 doubling copies alone took 1.4 GiB.
peak=$(hwm)
if [ $((peak - base)) -lt 921600 ]; then pass "peak memory grew by $(((peak - base) / 1024)) MiB (bound 900)"; else
    fail "peak memory grew by $(((peak - base) / 1024)) MiB (bound 900)"
fi

note "# identity"
rv_j=$(rv j)
expect_status "a merge patch renaming the object: 400" 400 -X PATCH -H "$MP" \
    --data-binary '{"metadata":{"name":"other"}}' "$JOBS/j"
expect "rename: kube's wording" \
    '"message":"the name of the object (other) does not match the name on the URL (j)","reason":"BadRequest"' \
    cat "$TMP/curl.out"
expect_status "a JSON patch removing the name: 400" 400 -X PATCH -H "$JP" \
    --data-binary '[{"op":"remove","path":"/metadata/name"}]' "$JOBS/j"
expect "name removed: kube's wording" \
    '"message":"the name of the object () does not match the name on the URL (j)"' cat "$TMP/curl.out"
expect_status "a strategic patch moving the namespace: 400" 400 -X PATCH -H "$SP" \
    --data-binary '{"metadata":{"namespace":"t2"}}' "$JOBS/j"
expect "namespace: kube's wording" \
    '"message":"the namespace of the provided object does not match the namespace sent on the request"' \
    cat "$TMP/curl.out"
expect_status "an apply whose name differs from the URL: 400" 400 -X PATCH -H "$AP" \
    --data-binary '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"other"}}' \
    "$JOBS/j?fieldManager=t"
expect "apply: kube's wording" \
    '"message":"the name of the object (other) does not match the name on the URL (j)"' \
    cat "$TMP/curl.out"
expect_status "an apply creating under another name: 400" 400 -X PATCH -H "$AP" \
    --data-binary '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"other"}}' \
    "$JOBS/absent?fieldManager=t"
expect_status "nothing was created" 404 "$JOBS/absent"
expect_status "an unknown \$patch: 500 as kube answers it" 500 -X PATCH -H "$SP" --data-binary \
    '{"spec":{"template":{"spec":{"containers":[{"name":"c","$patch":"frob"}]}}}}' "$JOBS/j"
expect "unknown \$patch: strategicpatch's wording" \
    '"message":"unknown patch type: frob in map: map[$patch:frob name:c]"' cat "$TMP/curl.out"
expect "kubectl prints it as against a cluster" \
    'Error from server: unknown patch type: frob in map: map[$patch:frob]' \
    k patch job j -n t1 -p '{"spec":{"template":{"spec":{"$patch":"frob"}}}}'
expect "kubectl: a rename" \
    'Error from server (BadRequest): the name of the object (x) does not match the name on the URL (j)' \
    k patch job j -n t1 --type=merge -p '{"metadata":{"name":"x"}}'
expect_exact "the refused patches changed nothing" "$rv_j" rv j
