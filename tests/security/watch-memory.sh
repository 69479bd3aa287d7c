# watch-memory.sh -- many watches on one big namespace cost the server a
# bounded amount of memory, given back when they close.
#
# 1000 Leases of about 3 KB each (3 MB in all) in one namespace; then
# WATCHES (default 1000) watches of that namespace, each sent every object
# first (no resourceVersion), read to the end of those initial events by
# one client (from several loopback addresses, as the per-client connection
# limit asks). The server's resident memory (VmRSS, VmHWM from /proc) must
# grow by less than 200 MB while they are open, and fall back to within
# 60 MB of where it started once they are closed. Without shared initial
# events each watch would hold its own 3 MB copy (3 GB for 1000). Under
# AddressSanitizer (make asan), whose quarantine and redzones make memory
# figures meaningless, the watches run but their memory is not judged.
need curl
sanitized=
if grep -q __asan_init "$CUEUE" 2>/dev/null; then sanitized=1; fi

: "${WATCHES:=1000}"
start_server wmem --insecure-http || exit 1

mem() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$PID/status"; }

timeout 120 $PY - "$URL" <<'EOF' >"$TMP/fill.out" 2>&1
import http.client, json, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
def post(path, obj):
    c.request("POST", path, json.dumps(obj), {"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    if r.status != 201:
        sys.exit(f"POST {path}: {r.status}")
post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "mem"}})
pad = "x" * 3000
for i in range(1000):
    post("/apis/coordination.k8s.io/v1/namespaces/mem/leases",
         {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
          "metadata": {"name": f"lease-{i:04d}", "annotations": {"pad": pad}},
          "spec": {"holderIdentity": f"holder-{i}"}})
print("filled")
EOF
expect "1000 Leases of 3 KB are stored" "filled" cat "$TMP/fill.out"

base=$(mem VmRSS)
# Open every watch, read each to its 1000th object, report the server's
# memory with all of them open, close them, and report it again.
timeout 300 $PY - "$URL" "$PID" "$WATCHES" <<'EOF' >"$TMP/watch.out" 2>&1
import selectors, socket, sys, time, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
pid, n = sys.argv[2], int(sys.argv[3])
def mem(key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
req = (b"GET /apis/coordination.k8s.io/v1/namespaces/mem/leases?watch=true&timeoutSeconds=600 "
       b"HTTP/1.1\r\nHost: x\r\n\r\n")
sel = selectors.DefaultSelector()
socks, seen, tail = [], {}, {}
marker = b'"type":"ADDED"'
for i in range(n):
    # 250 a source address: under the per-client connection limit.
    s = socket.create_connection((u.hostname, u.port), source_address=(f"127.0.1.{1 + i // 250}", 0))
    s.sendall(req)
    s.setblocking(False)
    socks.append(s)
    seen[s], tail[s] = 0, b""
    sel.register(s, selectors.EVENT_READ)
left, deadline = n, time.time() + 240
while left and time.time() < deadline:
    for key, _ in sel.select(timeout=1):
        s = key.fileobj
        try:
            data = s.recv(1 << 20)
        except BlockingIOError:
            continue
        if not data:
            sel.unregister(s)
            left -= 1
            continue
        buf = tail[s] + data
        seen[s] += buf.count(marker)
        tail[s] = buf[-(len(marker) - 1):]
        if seen[s] >= 1000:
            sel.unregister(s)
            left -= 1
done = sum(1 for s in socks if seen[s] >= 1000)
time.sleep(1)
print(f"complete {done} of {n}")
print(f"open rss {mem('VmRSS')} hwm {mem('VmHWM')}")
for s in socks:
    s.close()
EOF
sleep 3
after=$(mem VmRSS)
cat "$TMP/watch.out"
expect "$WATCHES watches each got all 1000 objects" "complete $WATCHES of $WATCHES" cat "$TMP/watch.out"
open_rss=$(awk '/^open rss/ {print $3}' "$TMP/watch.out")
hwm=$(awk '/^open rss/ {print $5}' "$TMP/watch.out")
note "server memory: before ${base} KiB, with the watches open ${open_rss:-?} KiB (peak ${hwm:-?} KiB), after closing them ${after} KiB"
if [ -n "$sanitized" ]; then
    note "SKIP: memory bounds under AddressSanitizer"
elif [ -n "$hwm" ] && [ $((hwm - base)) -lt 204800 ]; then
    pass "$WATCHES watches of 3 MB cost under 200 MB (peak +$(((hwm - base) / 1024)) MB)"
else
    fail "$WATCHES watches of 3 MB cost under 200 MB (peak ${hwm:-?} KiB from ${base} KiB)"
fi
if [ -n "$sanitized" ]; then
    :
elif [ $((after - base)) -lt 61440 ]; then
    pass "their memory is given back when they close (+$(((after - base) / 1024)) MB)"
else
    fail "their memory is given back when they close (${after} KiB from ${base} KiB)"
fi
expect_status "the server still answers" 200 "$URL/healthz"
