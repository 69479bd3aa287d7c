# connections.sh -- hostile connections and hostile requests.
#
# - 10,000 idle TCP connections, then 2,000 TLS handshakes left half-done,
#   each held until the head timeout (none seen closed sooner, each looked
#   at while young, however long opening them all takes): /healthz and an API call from another client are still answered within
#   five seconds (curl's own timing; a blocked server would not answer until
#   the connections time out, and the margin keeps a loaded machine from
#   failing the check), and kubectl still works.
# - A connection that sends nothing, or never authenticates, is closed
#   after the head timeout (10 s); an authenticated one may idle longer.
# - One client address gets at most 512 connections.
# - Requests the HTTP layer refuses (a head or URI too long, a body too big,
#   malformed requests, NUL bytes, another HTTP version) get a Kubernetes
#   Status in JSON with the right code, never HTML, and the connection closes.
#
# The client spreads its connections over 127.0.0.x source addresses, as the
# per-client limit asks. Under AddressSanitizer (make asan) everything is
# several times slower: the answers then get ten seconds.
need curl
within="[0-4]"
within_words="five seconds"
if grep -q __asan_init "$CUEUE" 2>/dev/null; then within="[0-9]"; within_words="ten seconds"; fi

start_server conn || exit 1
TOKEN=$(cat "$DATA/admin-token")
CA="$DATA/ca.crt"

cat >"$TMP/flood.py" <<'EOF'
import os, socket, ssl, subprocess, sys, time, urllib.parse

url, ca, token, kc = sys.argv[1:5]
u = urllib.parse.urlparse(url)
addr = (u.hostname, u.port)

def connect(src, timeout=10):
    s = socket.create_connection(addr, timeout=timeout, source_address=(src, 0))
    return s

def alive(s):
    """Still open on the server's side: no EOF, no reset (peeking at the
    socket itself, under TLS too)."""
    s.setblocking(False)
    try:
        return socket.socket.recv(s, 1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False

def timed(*args):
    out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}",
                          "--max-time", "20", "--cacert", ca, *args],
                         capture_output=True, text=True).stdout.split()
    return (out[0], float(out[1])) if len(out) == 2 else ("000", 99.0)

def probe(what):
    code, t = timed(url + "/healthz")
    print(f"{what}: healthz {code} in {t:.3f} s")
    code, t = timed("-H", "Authorization: Bearer " + token, url + "/api/v1/namespaces?limit=1")
    print(f"{what}: api {code} in {t:.3f} s")
    t0 = time.time()
    r = subprocess.run(["kubectl", "--kubeconfig", kc, "get", "ns", "default", "-o", "name"],
                       capture_output=True, text=True, timeout=60)
    print(f"{what}: kubectl {r.stdout.strip() or r.stderr.strip()} in {time.time() - t0:.3f} s")

# Connections that have not sent a request head are closed after the head
# timeout (10 s). Opening thousands takes longer than that on a loaded
# machine, so each is looked at while it is young: held means no
# connection was seen closed sooner than EARLY seconds after it was
# opened (the client opens it before the server accepts it).
EARLY = 9.0

class Held:
    def __init__(self):
        self.socks, self.opened, self.early = [], [], 0

    def add(self, s):
        self.socks.append(s)
        self.opened.append(time.monotonic())
        if len(self.socks) % 100 == 0:
            self.sweep()

    def sweep(self):
        now = time.monotonic()
        for i, s in enumerate(self.socks):
            if s is not None and now - self.opened[i] < EARLY and not alive(s):
                self.early += 1
                s.close()
                self.socks[i] = None

    def report(self, what):
        self.sweep()
        n = len(self.socks)
        print(f"{what} {n - self.early} of {n} held until the head timeout")

    def close(self):
        for s in self.socks:
            if s is not None:
                s.close()

def rss():
    pid = sys.argv[5]
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024

# 10,000 idle connections, 500 from each of 20 addresses.
idle = Held()
for i in range(10000):
    idle.add(connect(f"127.0.0.{2 + i // 500}"))
time.sleep(1)
idle.report("idle open")
print(f"idle: server rss {rss()} MiB")
probe("idle")
idle.close()

# 2,000 TLS handshakes sent as far as the ClientHello, never finished.
ctx = ssl.create_default_context(cafile=ca)
half = Held()
for i in range(2000):
    s = connect(f"127.0.0.{30 + i // 500}")
    t = ctx.wrap_socket(s, server_hostname="127.0.0.1", do_handshake_on_connect=False)
    t.setblocking(False)
    try:
        t.do_handshake()
    except ssl.SSLWantReadError:
        pass
    half.add(t)
time.sleep(1)
half.report("half-open")
print(f"half-open: server rss {rss()} MiB")
probe("half-open")
half.close()

# The per-client limit: 512 from one address, the next one is closed.
mine = [connect("127.0.0.40") for _ in range(512)]
time.sleep(0.5)
extra = connect("127.0.0.40")
time.sleep(0.5)
print(f"per-client: {sum(alive(s) for s in mine)} of 512 open, the 513th "
      f"{'open' if alive(extra) else 'closed'}")
for s in mine + [extra]:
    s.close()
EOF

ulimit -n 20000 2>/dev/null
timeout 300 $PY "$TMP/flood.py" "$URL" "$CA" "$TOKEN" "$KC" "$PID" >"$TMP/flood.out" 2>&1
cat "$TMP/flood.out"
expect "10,000 idle connections are held" "idle open 10000 of 10000 held" cat "$TMP/flood.out"
expect "2,000 half-open TLS handshakes are held" "half-open 2000 of 2000 held" cat "$TMP/flood.out"
for what in idle half-open; do
    for kind in healthz api; do
        expect_grep "with $what connections, $kind answers 200 within $within_words" \
            "^$what: $kind 200 in $within\.[0-9]+ s" cat "$TMP/flood.out"
    done
    expect_grep "with $what connections, kubectl works" "^$what: kubectl namespace/default in" \
        cat "$TMP/flood.out"
done
expect "a client address gets 512 connections, and no more" \
    "per-client: 512 of 512 open, the 513th closed" cat "$TMP/flood.out"

# Timeouts: silent and unauthenticated connections go after 10 s (the head
# timeout); an authenticated one stays.
cat >"$TMP/timeouts.py" <<'EOF'
import socket, ssl, sys, time, urllib.parse
url, ca, token = sys.argv[1:4]
u = urllib.parse.urlparse(url)
ctx = ssl.create_default_context(cafile=ca)
def tls():
    s = socket.create_connection((u.hostname, u.port), timeout=30)
    return ctx.wrap_socket(s, server_hostname="127.0.0.1")
def get(s, path, auth=False):
    h = f"GET {path} HTTP/1.1\r\nHost: x\r\n"
    if auth:
        h += f"Authorization: Bearer {token}\r\n"
    s.sendall((h + "\r\n").encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(4096)
    head, _, rest = data.partition(b"\r\n\r\n")
    n = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0])
    while len(rest) < n:
        rest += s.recv(4096)
    return head.split(b" ")[1].decode()
def closed_after(s, limit):
    """Seconds until the server closes s (reading nothing), or None."""
    t0 = time.time()
    s.settimeout(limit)
    try:
        while s.recv(4096):
            pass
        return time.time() - t0
    except (socket.timeout, TimeoutError):
        return None
    except OSError:
        return time.time() - t0

t0 = time.time()
silent = socket.create_connection((u.hostname, u.port))
anon = tls()
authed = tls()
print("anonymous", get(anon, "/healthz"), "authenticated", get(authed, "/api/v1/namespaces?limit=1", True))
# The anonymous client keeps asking: that does not keep it open.
while time.time() - t0 < 6:
    get(anon, "/healthz")
    time.sleep(1)
for name, s in (("silent", silent), ("anonymous", anon)):
    t = closed_after(s, 20 - (time.time() - t0))
    print(f"{name}: " + (f"closed {time.time() - t0:.0f} s after it opened" if t is not None else "still open"))
time.sleep(max(0, 14 - (time.time() - t0)))
print("authenticated: still open" if get(authed, "/api/v1/namespaces?limit=1", True) == "200" else "authenticated: closed")
EOF
timeout 60 $PY "$TMP/timeouts.py" "$URL" "$CA" "$TOKEN" >"$TMP/timeouts.out" 2>&1
cat "$TMP/timeouts.out"
expect_grep "a connection that sends nothing is closed after the head timeout" \
    "^silent: closed (9|1[0-5]) s after" cat "$TMP/timeouts.out"
expect_grep "an unauthenticated connection is closed after the head timeout, requests or not" \
    "^anonymous: closed (9|1[0-5]) s after" cat "$TMP/timeouts.out"
expect "an authenticated connection may idle longer" "authenticated: still open" \
    cat "$TMP/timeouts.out"

# Refused requests: a Status in JSON, never HTML; the connection closes.
cat >"$TMP/bad.py" <<'EOF'
import json, socket, ssl, sys, urllib.parse
url, ca, token = sys.argv[1:4]
u = urllib.parse.urlparse(url)
ctx = ssl.create_default_context(cafile=ca)
auth = f"Authorization: Bearer {token}\r\n".encode()
def ask(name, raw):
    s = ctx.wrap_socket(socket.create_connection((u.hostname, u.port), timeout=10),
                        server_hostname="127.0.0.1")
    try:
        s.sendall(raw)
    except OSError:
        pass
    data = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
    except OSError:
        pass
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    code = lines[0].split(" ")[1] if lines[0].startswith("HTTP/1.1 ") else "none"
    hdrs = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
    verdict = "not JSON"
    try:
        st = json.loads(body)
        if st.get("kind") == "Status" and str(st.get("code")) == code and \
                hdrs.get("content-type") == "application/json" and b"<html" not in data.lower():
            verdict = f"Status {st['reason']}"
    except ValueError:
        pass
    closed = hdrs.get("connection") == "close"
    print(f"{name}: {code} {verdict}{' closed' if closed else ''}")
big = b"X-Big: " + b"a" * 70000 + b"\r\n"
ask("header", b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + big + b"\r\n")
ask("uri", b"GET /api/v1/namespaces?x=" + b"a" * 20000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
ask("body", b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n" + auth +
    b"Content-Type: application/json\r\nContent-Length: 4194304\r\n\r\n{")
ask("anonymous-body", b"POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3000000\r\n\r\n")
ask("chunked-body", b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n" + auth +
    b"Transfer-Encoding: chunked\r\n\r\n400000\r\n" + b"a" * 100000)
ask("garbage", b"GARBAGE\r\n\r\n")
ask("content-length", b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n")
ask("smuggling", b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
ask("bad-chunk", b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n" + auth +
    b"Transfer-Encoding: chunked\r\n\r\nzz\r\n\r\n")
ask("no-host", b"GET /healthz HTTP/1.1\r\n\r\n")
ask("nul-url", b"GET /api/v1/name\x00spaces HTTP/1.1\r\nHost: x\r\n\r\n")
ask("nul-escaped", b"GET /api/v1/namespaces/%00 HTTP/1.1\r\nHost: x\r\n\r\n")
ask("nul-query", b"GET /api/v1/namespaces?labelSelector=a%00b HTTP/1.1\r\nHost: x\r\n\r\n")
ask("nul-header", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n")
ask("version", b"GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n")
ask("expect", b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nExpect: magic\r\n"
    b"Content-Length: 2\r\n\r\n{}")
EOF
timeout 60 $PY "$TMP/bad.py" "$URL" "$CA" "$TOKEN" >"$TMP/bad.out" 2>&1
cat "$TMP/bad.out"
expect "a 70 KB header gets 431 as a Status" "header: 431 Status RequestHeaderFieldsTooLarge closed" \
    cat "$TMP/bad.out"
expect "a 20 KB URI gets 414 as a Status" "uri: 414 Status RequestURITooLong closed" cat "$TMP/bad.out"
expect "a 4 MiB Content-Length gets 413 as a Status, before the body" \
    "body: 413 Status RequestEntityTooLarge closed" cat "$TMP/bad.out"
expect "an unauthenticated request with a body gets 401 before the body" \
    "anonymous-body: 401 Status Unauthorized closed" cat "$TMP/bad.out"
expect "a chunked body past 3 MiB gets 413 as a Status" \
    "chunked-body: 413 Status RequestEntityTooLarge closed" cat "$TMP/bad.out"
expect "a malformed request line gets 400 as a Status" "garbage: 400 Status BadRequest closed" \
    cat "$TMP/bad.out"
expect "a malformed Content-Length gets 400 as a Status" \
    "content-length: 400 Status BadRequest closed" cat "$TMP/bad.out"
expect "Content-Length with Transfer-Encoding gets 400 as a Status" \
    "smuggling: 400 Status BadRequest closed" cat "$TMP/bad.out"
expect "a malformed chunk gets 400 as a Status" "bad-chunk: 400 Status BadRequest closed" \
    cat "$TMP/bad.out"
expect "HTTP/1.1 without Host gets 400 as a Status" "no-host: 400 Status BadRequest closed" \
    cat "$TMP/bad.out"
expect "a NUL byte in the URL gets 400 as a Status" "nul-url: 400 Status BadRequest closed" \
    cat "$TMP/bad.out"
expect "%00 in the path gets 400 as a Status" "nul-escaped: 400 Status BadRequest closed" \
    cat "$TMP/bad.out"
expect "%00 in the query gets 400 as a Status" "nul-query: 400 Status BadRequest closed" \
    cat "$TMP/bad.out"
expect "a NUL byte in a header gets 400 as a Status" "nul-header: 400 Status BadRequest closed" \
    cat "$TMP/bad.out"
expect "HTTP/2.0 in the request line gets 505 as a Status" \
    "version: 505 Status HTTPVersionNotSupported closed" cat "$TMP/bad.out"
expect "an unknown Expect gets 417 as a Status" "expect: 417 Status ExpectationFailed closed" \
    cat "$TMP/bad.out"
expect_status "the server still answers" 200 --cacert "$CA" "$URL/healthz"
