# cost.sh -- expensive requests: watches held open, requests made as
# another user, and objects too large to store.
#
# - Watches: tenant A opens WATCHES (default 1100) watches from ten loopback
#   addresses (the per-address connection limit is 512); the first 1000 are
#   served, the rest get 429 TooManyRequests naming the limit. Tenant B,
#   and the admin, still watch. Once A ends one, A may open another. The
#   server's descriptors, threads and memory with them open are printed.
# - Impersonation: a request is fair-queued as the user it acts as. While
#   tenant A floods the server with LISTs, the admin's requests made as A
#   (Impersonate-User) wait in A's flow, so some get A's 429, where the
#   admin's own requests and tenant B's, made alternately with them, do not
#   (or, for B, less often); a tenant that may not act as A is refused (403)
#   whatever flow it would have used.
# - Sizes: a body over 3 MiB gets kube-apiserver's 413 ("Request entity too
#   large: limit is 3145728"); an object whose stored form passes 1.5 MiB
#   (etcd's request limit) gets kube-apiserver's 500 "etcdserver: request
#   is too large" and is not stored, on create and on update; a client's
#   metadata.managedFields is not stored. A ConfigMap's or a Secret's values
#   over 1 MiB (decoded, keys not counted) get kube-apiserver's 422 on
#   create, update and patch, and are not stored.
need curl
: "${WATCHES:=1100}"

start_server cost --insecure-http || exit 1
tenant tenant-a cost-a
AKC=$TKC
tenant tenant-b cost-b
BKC=$TKC
ATOKEN=$(sed -n 's/^ *token: *//p' "$AKC" | head -1)
BTOKEN=$(sed -n 's/^ *token: *//p' "$BKC" | head -1)

# ---- watches -----------------------------------------------------------------------------

timeout 600 $PY - "$URL" "$PID" "$WATCHES" "$ATOKEN" "$BTOKEN" <<'EOF' >"$TMP/watch.out" 2>&1
import json, os, socket, sys, time, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
pid, n, atoken, btoken = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]

def status(key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return line.split()[1]

def watch(token, ns, src):
    """Open a watch; return (socket, status, body of a non-200 answer)."""
    s = socket.create_connection((u.hostname, u.port), timeout=60, source_address=(src, 0))
    s.sendall((f"GET /apis/batch/v1/namespaces/{ns}/jobs?watch=true&timeoutSeconds=600 HTTP/1.1\r\n"
               f"Host: x\r\nAuthorization: Bearer {token}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(65536)
        if not chunk:
            break
        head += chunk
    code = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0
    body = b""
    if code != 200:
        hdr, _, body = head.partition(b"\r\n\r\n")
        want = int([l.split(b":")[1] for l in hdr.split(b"\r\n")
                    if l.lower().startswith(b"content-length:")][0])
        while len(body) < want:
            body += s.recv(65536)
        s.close()
        s = None
    return s, code, body

before = (len(os.listdir(f"/proc/{pid}/fd")), status("Threads"), status("VmRSS"))
opened, codes, refused = [], {}, None
for i in range(n):
    s, code, body = watch(atoken, "cost-a", f"127.0.0.{1 + i % 10}")
    codes[code] = codes.get(code, 0) + 1
    if s:
        opened.append(s)
    elif code == 429 and refused is None:
        refused = body
after = (len(os.listdir(f"/proc/{pid}/fd")), status("Threads"), status("VmRSS"))
print(f"tenant A's watches: {dict(sorted(codes.items()))}")
print(f"server before: fds {before[0]}, threads {before[1]}, VmRSS {before[2]} kB")
print(f"server with {len(opened)} watches of A open: fds {after[0]}, threads {after[1]}, "
      f"VmRSS {after[2]} kB")
if refused:
    st = json.loads(refused)
    print(f"refused: {st.get('code')} {st.get('reason')}: {st.get('message')}")
b, code, _ = watch(btoken, "cost-b", "127.0.0.11")
print(f"tenant B's watch: {code}")
# The admin is not limited (--insecure-http: no token is the admin).
s = socket.create_connection((u.hostname, u.port), timeout=60, source_address=("127.0.0.11", 0))
s.sendall(b"GET /apis/batch/v1/namespaces/cost-a/jobs?watch=true HTTP/1.1\r\nHost: x\r\n\r\n")
print(f"the admin's watch: {s.recv(64).split(b' ', 2)[1].decode()}")
s.close()
# A ends one: the server notices the hang-up and counts it out.
opened.pop().close()
code = 0
for _ in range(300):
    s, code, _ = watch(atoken, "cost-a", "127.0.0.11")
    if code == 200:
        opened.append(s)
        break
    time.sleep(0.1)
print(f"tenant A's watch after ending one: {code}")
EOF
cat "$TMP/watch.out"
expect "a tenant's first 1000 watches are served, the rest get 429" \
    "tenant A's watches: {200: 1000, 429: $((WATCHES - 1000))}" cat "$TMP/watch.out"
expect "the 429 names the limit" \
    'refused: 429 TooManyRequests: too many watches: user "tenant-a" has 1000 open' \
    cat "$TMP/watch.out"
expect "another tenant still watches" "tenant B's watch: 200" cat "$TMP/watch.out"
expect "the admin is not limited" "the admin's watch: 200" cat "$TMP/watch.out"
expect "a watch that ends makes room for another" "tenant A's watch after ending one: 200" \
    cat "$TMP/watch.out"

# A watch asking for more time than the server gives is held for the
# server's longest (45 minutes), even for a number of seconds whose
# milliseconds pass 64 bits: it outlives a watch of 2 seconds started after
# it (with the deadline overflowed into the past it ended within a second).
WATCH_URL="$URL/apis/batch/v1/namespaces/cost-a/jobs?watch=true&timeoutSeconds"
curl -s -N -o /dev/null "$WATCH_URL=9223372036854775807" &
LONG=$!
timeout 120 curl -s -N -o /dev/null "$WATCH_URL=2"
if kill -0 "$LONG" 2>/dev/null; then
    pass "a watch with a huge timeoutSeconds is held to the server's limit, not ended at once"
else
    fail "a watch with a huge timeoutSeconds is held to the server's limit, not ended at once"
fi
kill "$LONG" 2>/dev/null
wait "$LONG" 2>/dev/null

# ---- impersonation -----------------------------------------------------------------------

# The flood's LISTs read 1000 ConfigMaps, so each is charged 10 of the 13
# seats of its level: A runs one at a time and the server, not the client,
# is what the flood waits for, however loaded the machine is. Each phase
# runs until what it looks for is seen or a generous bound passes; the
# requests made as A are compared with controls made in the same period.
cat >"$TMP/cm-reader.yaml" <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-reader, namespace: cost-a}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cm-reader, namespace: cost-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: tenant-a}
YAML
k apply -f "$TMP/cm-reader.yaml" >/dev/null
timeout 900 $PY - "$URL" "$ATOKEN" "$BTOKEN" <<'EOF' >"$TMP/imp.out" 2>&1
import http.client, json, sys, threading, time, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
atoken, btoken = sys.argv[2], sys.argv[3]
path = "/api/v1/namespaces/cost-a/configmaps"
conn = lambda: http.client.HTTPConnection(u.hostname, u.port, timeout=120)
c = conn()
for i in range(1000):
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": f"cm-{i}"}, "data": {"k": "v"}})
    c.request("POST", path, body, {"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    assert r.status == 201, r.status
stop = threading.Event()
flood_codes = {}
lock = threading.Lock()

def flood():
    c = conn()
    while not stop.is_set():
        try:
            c.request("GET", path, headers={"Authorization": "Bearer " + atoken})
            r = c.getresponse()
            r.read()
            with lock:
                flood_codes[r.status] = flood_codes.get(r.status, 0) + 1
        except Exception:
            c.close()
            c = conn()

def get(c, p, headers):
    c.request("GET", p, headers=headers)
    r = c.getresponse()
    r.read()
    return r.status

threads = [threading.Thread(target=flood, daemon=True) for _ in range(150)]
for t in threads:
    t.start()
deadline = time.time() + 300
while time.time() < deadline and not flood_codes.get(429):
    time.sleep(0.2)
# Until the admin's requests made as A have met A's 429 three times (or 3
# minutes have passed): alternately one made as A, one of the admin's own
# (exempt) and one of tenant B's own (its own flow) -- the controls.
as_a, admin, b = {}, {}, {}
ca, cadmin, cb = conn(), conn(), conn()
deadline = time.time() + 180
while time.time() < deadline and as_a.get(429, 0) < 3:
    # --insecure-http: no token is the admin, who may impersonate anyone.
    s = get(ca, path, {"Impersonate-User": "tenant-a"})
    as_a[s] = as_a.get(s, 0) + 1
    s = get(cadmin, path, {})
    admin[s] = admin.get(s, 0) + 1
    s = get(cb, "/apis/batch/v1/namespaces/cost-b/jobs", {"Authorization": "Bearer " + btoken})
    b[s] = b.get(s, 0) + 1
print(f"the admin as tenant A: {dict(sorted(as_a.items()))}")
print(f"the admin, meanwhile: {dict(sorted(admin.items()))}")
print(f"tenant B, meanwhile: {dict(sorted(b.items()))}")
share = lambda d: d.get(429, 0) / max(1, sum(d.values()))
print(f"A's 429s reach the requests made as A more than B's own: {share(as_a) > share(b)}")
bcodes = {}
for _ in range(5):
    s = get(cb, path, {"Authorization": "Bearer " + btoken, "Impersonate-User": "tenant-a"})
    bcodes[s] = bcodes.get(s, 0) + 1
print(f"tenant B as tenant A: {bcodes}")
stop.set()
with lock:
    print(f"tenant A's flood: {dict(sorted(flood_codes.items()))}")
EOF
cat "$TMP/imp.out"
expect_grep "the flood fills tenant A's queue" "^tenant A's flood: \{200: [0-9]+, 429: [1-9]" \
    cat "$TMP/imp.out"
expect_grep "a request made as tenant A waits in A's flow (gets A's 429s)" \
    "^the admin as tenant A: \{(200: [0-9]+, )?429: [1-9]" cat "$TMP/imp.out"
expect_grep "  ... while the admin's own requests, made in the same period, get none" \
    "^the admin, meanwhile: \{200: [0-9]+\}$" cat "$TMP/imp.out"
expect "  ... and more often than tenant B's own requests do" \
    "A's 429s reach the requests made as A more than B's own: True" cat "$TMP/imp.out"
expect "a tenant may not act as another" "tenant B as tenant A: {403: 5}" cat "$TMP/imp.out"

# ---- sizes -------------------------------------------------------------------------------

# lease NAME BYTES: a Lease whose holder's name is BYTES bytes long (a
# kind with no size rule of its own, unlike ConfigMaps and Secrets).
lease() {
    $PY -c 'import json, sys
print(json.dumps({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                  "metadata": {"name": sys.argv[1], "namespace": "default"},
                  "spec": {"holderIdentity": "x" * int(sys.argv[2])}}))' "$1" "$2"
}
LEASES=/apis/coordination.k8s.io/v1/namespaces/default/leases
lease big $((3 * 1024 * 1024 + 1)) >"$TMP/big.json"
lease large $((2 * 1024 * 1024)) >"$TMP/large.json"
lease small 1000 >"$TMP/small.json"
lease edge $((1536 * 1024 - 400)) >"$TMP/edge.json"
post() {
    timeout "$E2E_TIMEOUT" curl -s -o "$TMP/post.out" -w '%{http_code}' -X "$1" \
        -H 'Content-Type: application/json' --data-binary "@$2" "$URL$3"
    printf ' '
    head -c 400 "$TMP/post.out"
}
expect "a body over 3 MiB gets kube-apiserver's 413" \
    '"message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge",' \
    post POST "$TMP/big.json" $LEASES
# (no reason: the message is followed by the details)
TOO_LARGE='500 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcdserver: request is too large","details":{},"code":500}'
expect "an object over 1.5 MiB gets kube-apiserver's 500 from etcd" "$TOO_LARGE" \
    post POST "$TMP/large.json" $LEASES
expect_status "... and is not stored" 404 "$URL$LEASES/large"
expect "kubectl prints etcd's error as for a cluster" \
    "Error from server: error when creating \"$TMP/large.json\": etcdserver: request is too large" \
    k create -f "$TMP/large.json"
expect_grep "an object just under 1.5 MiB is stored" "^201 " \
    post POST "$TMP/edge.json" $LEASES
k create -f "$TMP/small.json" >/dev/null
sed 's/"name": "large"/"name": "small"/' "$TMP/large.json" >"$TMP/grow.json"
expect "an update that makes an object over 1.5 MiB gets the same 500" "$TOO_LARGE" \
    post PUT "$TMP/grow.json" $LEASES/small
blob_len() { k get lease small -o jsonpath='{.spec.holderIdentity}' | wc -c; }
expect_exact "... and leaves it as it was" 1000 blob_len

$PY -c 'import json
print(json.dumps({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                  "metadata": {"name": "mf", "namespace": "default",
                               "managedFields": [{"manager": "m" * 1000000, "operation": "Apply",
                                                  "apiVersion": "v1", "fieldsType": "FieldsV1",
                                                  "fieldsV1": {}}]}}))' >"$TMP/mf.json"
expect_grep "a client's managedFields are accepted ..." "^201 " \
    post POST "$TMP/mf.json" $LEASES
mf_len() { k get lease mf -o json | wc -c; }
expect_grep "... and not stored" "^[0-9]{1,4}$" mf_len

# cmap NAME TEXT_BYTES BINARY_BYTES: a ConfigMap whose data holds TEXT_BYTES
# and whose binaryData holds BINARY_BYTES (sent as base64) under long keys.
cmap() {
    $PY -c 'import base64, json, sys
name, text, binary = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"},
       "data": {"k" * 253: "x" * text}}
if binary:
    doc["binaryData"] = {"b" * 253: base64.b64encode(b"\0" * binary).decode()}
print(json.dumps(doc))' "$@"
}
CMS=/api/v1/namespaces/default/configmaps
SECRETS=/api/v1/namespaces/default/secrets
MIB=1048576
CM_LONG='ConfigMap \"cm-big\" is invalid: []: Too long: may not be more than 1048576 bytes'
cmap cm-big $((MIB + 1)) 0 >"$TMP/cm-big.json"
cmap cm-edge $((MIB / 4)) $((MIB * 3 / 4)) >"$TMP/cm-edge.json"
cmap cm-big 1000 0 >"$TMP/cm-small.json"
expect "a ConfigMap's values over 1 MiB get kube-apiserver's 422" \
    "422 {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"$CM_LONG\",\"reason\":\"Invalid\"" \
    post POST "$TMP/cm-big.json" $CMS
expect "kubectl prints it as for a cluster" \
    'The ConfigMap "cm-big" is invalid: []: Too long: may not be more than 1048576 bytes' \
    k create -f "$TMP/cm-big.json"
expect_grep "1 MiB of values, a quarter text and the rest binary (sent as 1.3 MiB of base64), is stored" \
    "^201 " post POST "$TMP/cm-edge.json" $CMS
k create -f "$TMP/cm-small.json" >/dev/null
expect "an update past 1 MiB gets the same 422" "422 {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"$CM_LONG\"" \
    post PUT "$TMP/cm-big.json" $CMS/cm-big
$PY -c 'import json; print(json.dumps({"data": {"more": "y" * 1048576}}))' >"$TMP/cm-patch.json"
patch() {
    timeout "$E2E_TIMEOUT" curl -s -o "$TMP/post.out" -w '%{http_code}' -X PATCH \
        -H "Content-Type: $1" --data-binary "@$2" "$URL$3"
    printf ' '
    head -c 400 "$TMP/post.out"
}
expect "  ... and so does a merge patch" "422 {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"$CM_LONG\"" \
    patch application/merge-patch+json "$TMP/cm-patch.json" $CMS/cm-big
cm_len() { k get configmap cm-big -o json | $PY -c 'import json, sys; print(sum(map(len, json.load(sys.stdin)["data"].values())))'; }
expect_exact "  ... leaving it as it was" 1000 cm_len

head -c $((MIB + 1)) /dev/zero >"$TMP/blob"
expect "a Secret's data over 1 MiB (decoded) gets kube-apiserver's 422, as kubectl prints it" \
    'Secret "s-big" is invalid: data: Too long: may not be more than 1048576 bytes' \
    k -n default create secret generic s-big --from-file=blob="$TMP/blob"
head -c $MIB /dev/zero >"$TMP/blob"
expect "  ... 1 MiB is stored" "secret/s-edge created" \
    k -n default create secret generic s-edge --from-file=blob="$TMP/blob"
printf '[{"op": "add", "path": "/stringData", "value": {"one": "x"}}]' >"$TMP/s-patch.json"
expect "  ... a JSON patch adding a byte to it gets the 422" \
    '"message":"Secret \"s-edge\" is invalid: data: Too long: may not be more than 1048576 bytes","reason":"Invalid"' \
    patch application/json-patch+json "$TMP/s-patch.json" $SECRETS/s-edge
