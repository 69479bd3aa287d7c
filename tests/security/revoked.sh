# revoked.sh -- a dead credential is unauthenticated everywhere, as
# kube-apiserver answers it: 401, never a public path's 200 nor a full
# queue's 429.
# - A bearer token that is not valid gets 401 on the public paths
#   (/healthz, /version, the dashboard): only a request with no credentials
#   is anonymous.
# - A service account token whose account was deleted gets 401 there too.
# - Once found dead it is answered 401 before it waits in its flow: with its
#   flow's queue full (of the live requests of a new account of the same
#   name) it gets 401, while a live request sent with it, the control,
#   gets 429. On a server that queues it first it gets the 429 too.
need curl

start_server revoked || return 1
CA="$DATA/ca.crt"

note "# an invalid bearer token on the public paths"
for p in /healthz /livez /readyz /version /dashboard/; do
    expect_status "no credentials: $p is public" 200 --cacert "$CA" "$URL$p"
    expect_status "  ... a bearer token that is no token: 401" 401 --cacert "$CA" \
        -H "Authorization: Bearer not-a-token" "$URL$p"
done

note "# a deleted account's token"
k create namespace team-a >/dev/null
k -n team-a create serviceaccount runner >/dev/null
DEAD=$(k -n team-a create token runner)
expect_status "the token works" 200 --cacert "$CA" -H "Authorization: Bearer $DEAD" "$URL/apis"
k -n team-a delete serviceaccount runner >/dev/null
for p in /healthz /version /dashboard/ /apis; do
    expect_status "deleted account: $p gets 401" 401 --cacert "$CA" \
        -H "Authorization: Bearer $DEAD" "$URL$p"
done

note "# a dead token with its flow full"
# The account is made again: a new account, whose live token has the same
# user name, so the same flow. Its LISTs of 1100 ConfigMaps are charged 10
# seats each: one runs at a time and 200 of them overflow the flow's queue.
k -n team-a create serviceaccount runner >/dev/null
k -n team-a create role cm-list --verb=list --resource=configmaps >/dev/null
k -n team-a create rolebinding cm-list --role=cm-list --serviceaccount=team-a:runner >/dev/null
LIVE=$(k -n team-a create token runner)
$PY - >"$TMP/cms.yaml" <<'PY'
print("apiVersion: v1\nkind: List\nitems:")
for i in range(1100):
    print(f"- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: cm-{i}, namespace: team-a}}, "
          f"data: {{k: '{'x' * 200}'}}}}")
PY
k create --validate=false -f "$TMP/cms.yaml" >/dev/null
# A whole LIST (no limit) tells the server the collection's size.
n=$(k get --raw /api/v1/namespaces/team-a/configmaps | grep -o '"name":"cm-' | wc -l)
[ "$n" = 1100 ] || fail "1100 ConfigMaps made" "$n"
cat >"$TMP/flood.py" <<'PY'
import socket, ssl, sys, urllib.parse

url, ca, live, dead = sys.argv[1:5]
u = urllib.parse.urlparse(url)
ctx = ssl.create_default_context(cafile=ca)
path = "/api/v1/namespaces/team-a/configmaps"

def conn():
    s = socket.create_connection((u.hostname, u.port), timeout=30)
    return ctx.wrap_socket(s, server_hostname=u.hostname)

def req(tok):
    return (f"GET {path} HTTP/1.1\r\nHost: {u.netloc}\r\nAuthorization: Bearer {tok}\r\n"
            "Connection: close\r\n\r\n").encode()

def status(c):
    data = b""
    while b"\r\n" not in data:
        b = c.recv(4096)
        if not b:
            break
        data += b
    c.close()
    return data.split(b" ", 2)[1].decode() if data else "none"

# The probe goes in the middle of the flood, between live requests sent
# just before and just after it (the controls): the server reads them in
# about that order, so a control's 429 says the flow was full then, however
# fast a loaded machine lets it drain the queue before or after.
for attempt in range(5):
    head = [conn() for _ in range(120)]
    controls = [conn() for _ in range(6)]
    probe = conn()
    tail = [conn() for _ in range(80)]
    for c in head:
        c.sendall(req(live))
    for c in controls[:3]:
        c.sendall(req(live))
    probe.sendall(req(dead))
    for c in controls[3:]:
        c.sendall(req(live))
    for c in tail:
        c.sendall(req(live))
    got_probe = status(probe)
    got = [status(c) for c in controls]
    got_control = "429" if "429" in got else got[0]
    codes = {}
    for c in head + tail:
        s = status(c)
        codes[s] = codes.get(s, 0) + 1
    print(f"attempt {attempt}: flood {codes}, controls {got}, dead token {got_probe}")
    if got_control == "429":
        break
print(f"result: control {got_control}, dead token {got_probe}")
PY
$PY "$TMP/flood.py" "$URL" "$CA" "$LIVE" "$DEAD" >"$TMP/flood.out" 2>&1
cat "$TMP/flood.out"
if grep -q '^result: control 429, dead token 401$' "$TMP/flood.out"; then
    pass "a token found dead gets 401 while its flow is full (a live request sent with it: 429)"
elif grep -q '^result: control 429,' "$TMP/flood.out"; then
    fail "a token found dead gets 401 while its flow is full" "$(tail -1 "$TMP/flood.out")"
else
    fail "the flow was full for a control request in one of 5 attempts" "$(tail -2 "$TMP/flood.out")"
fi
expect_status "the live token of the new account still works" 200 --cacert "$CA" \
    -H "Authorization: Bearer $LIVE" "$URL/api/v1/namespaces/team-a/configmaps?limit=1"
