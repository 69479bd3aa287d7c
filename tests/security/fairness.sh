# fairness.sh -- API priority and fairness: one tenant flooding the server
# does not make other tenants or the admin wait behind it.
#
# Tenant A runs 200 concurrent loops of LISTs of its 300 Jobs, never
# waiting after a refusal. Meanwhile tenant B and the admin run kubectl
# (which does not retry on its own here: --request-timeout bounds each try)
# and tenant A runs kubectl too, which retries after Retry-After:
# - every request of B and of the admin succeeds;
# - A's flood gets 429 TooManyRequests, with a Retry-After header and
#   details.retryAfterSeconds, as kube-apiserver answers, on a connection
#   that stays open;
# - A's flood still gets answers (its fair share). (How A's own kubectl,
#   which retries after Retry-After, fares against A's own flood is printed
#   only: it competes with 200 loops for a place in A's queue.)
# On a server without fair queuing A never gets a 429 and the checks of the
# 429 fail. Latencies are printed for the record, never asserted.
need kubectl curl

start_server fair || exit 1
TOKEN=$(cat "$DATA/admin-token")
CA="$DATA/ca.crt"
tenant tenant-a fair-a
AKC=$TKC
tenant tenant-b fair-b
BKC=$TKC
ATOKEN=$(sed -n 's/^ *token: *//p' "$AKC" | head -1)

i=0
while [ $i -lt 300 ]; do
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: job-$i, namespace: fair-a}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: [sh, -c, "sleep 1"], resources: {requests: {cpu: 100m}}}
---
YAML
    i=$((i + 1))
done >"$TMP/jobs.yaml"
k apply -f "$TMP/jobs.yaml" >/dev/null
count_jobs() { kt "$AKC" -n fair-a get jobs -o name | wc -l; }
expect_exact "tenant A has 300 Jobs" 300 count_jobs

cat >"$TMP/flood.py" <<'EOF'
import http.client, json, ssl, statistics, subprocess, sys, threading, time, urllib.parse

url, ca, atoken, akc, bkc, kc = sys.argv[1:7]
u = urllib.parse.urlparse(url)
ctx = ssl.create_default_context(cafile=ca)
stop = threading.Event()
lock = threading.Lock()
codes = {}
bad429 = []
reused_after_429 = 0

def flood():
    global reused_after_429
    conn = None
    after_429 = False
    while not stop.is_set():
        try:
            if conn is None:
                conn = http.client.HTTPSConnection(u.hostname, u.port, context=ctx, timeout=120)
                after_429 = False
            conn.request("GET", "/apis/batch/v1/namespaces/fair-a/jobs",
                         headers={"Authorization": "Bearer " + atoken})
            r = conn.getresponse()
            body = r.read()
            with lock:
                codes[r.status] = codes.get(r.status, 0) + 1
                if after_429:
                    reused_after_429 += 1
                after_429 = False
                if r.status == 429:
                    after_429 = True
                    st = json.loads(body)
                    ok = (r.getheader("Retry-After") == "1" and st.get("reason") == "TooManyRequests"
                          and st.get("message") == "Too many requests, please try again later."
                          and st.get("details", {}).get("retryAfterSeconds") == 1)
                    if not ok:
                        bad429.append((dict(r.getheaders()), body[:300]))
            if r.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
        except Exception as e:
            with lock:
                codes[type(e).__name__] = codes.get(type(e).__name__, 0) + 1
            if conn:
                conn.close()
            conn = None
            time.sleep(0.1)

def kubectl(kubeconfig, *args):
    t0 = time.time()
    r = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, *args],
                       capture_output=True, text=True, timeout=300)
    return r.returncode == 0, time.time() - t0, (r.stdout + r.stderr).strip()

def curl(token, path):
    t0 = time.time()
    r = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}",
                        "--max-time", "60", "--cacert", ca, "-H", "Authorization: Bearer " + token,
                        url + path], capture_output=True, text=True, timeout=120)
    out = r.stdout.split()
    ok = len(out) == 2 and out[0] == "200"
    return ok, float(out[1]) if len(out) == 2 else time.time() - t0, r.stdout

def report(who, runs):
    ts = sorted(t for _, t, _ in runs)
    ok = sum(1 for o, _, _ in runs if o)
    p99 = ts[min(len(ts) - 1, int(round(0.99 * (len(ts) - 1))))]
    print(f"{who}: ok {ok} of {len(runs)}, median {statistics.median(ts):.3f} s, "
          f"p99 {p99:.3f} s, max {ts[-1]:.3f} s")
    for o, _, out in runs:
        if not o:
            print(f"{who}: failed: {out[:300]}")

# Warm kubectl's discovery cache first, so that what is timed is one call.
kubectl(bkc, "get", "jobs", "-n", "fair-b")
kubectl(kc, "get", "ns")
btoken = [l.split()[-1] for l in open(bkc) if l.strip().startswith("token:")][0]
token = [l.split()[-1] for l in open(kc) if l.strip().startswith("token:")][0]
bpath, apath = "/apis/batch/v1/namespaces/fair-b/jobs", "/api/v1/namespaces"
report("idle: tenant-b curl", [curl(btoken, bpath) for _ in range(20)])
report("idle: admin curl", [curl(token, apath) for _ in range(20)])
report("idle: tenant-b kubectl", [kubectl(bkc, "get", "jobs", "-n", "fair-b") for _ in range(5)])
threads = [threading.Thread(target=flood, daemon=True) for _ in range(200)]
for t in threads:
    t.start()
deadline = time.time() + 120
while time.time() < deadline:
    time.sleep(0.5)
    with lock:
        if codes.get(429, 0) >= 50 and codes.get(200, 0) >= 20:
            break
n = 20
b = [kubectl(bkc, "get", "jobs", "-n", "fair-b", "--request-timeout=60s") for _ in range(n)]
admin = [kubectl(kc, "get", "namespaces", "--request-timeout=60s") for _ in range(n)]
bc = [curl(btoken, bpath) for _ in range(n)]
adminc = [curl(token, apath) for _ in range(n)]
a = [kubectl(akc, "get", "jobs", "-n", "fair-a", "-o", "name") for _ in range(3)]
with lock:
    print(f"flood during the kubectl calls: {dict(sorted(codes.items(), key=str))}")
stop.set()
for t in threads:
    t.join(150)
report("tenant-b", b)
report("admin", admin)
report("tenant-b curl", bc)
report("admin curl", adminc)
print(f"tenant-a kubectl: ok {sum(1 for o, _, out in a if o and out.count('job.batch/') == 300)} of 3")
print(f"flood: 200 {codes.get(200, 0)}, 429 {codes.get(429, 0)}, other "
      f"{sum(v for k, v in codes.items() if k not in (200, 429))}")
print(f"flood: 429 answers not as kube-apiserver's: {len(bad429)}")
for h, body in bad429[:3]:
    print(f"  {h} {body}")
print(f"flood: requests on a connection answered 429 before: {reused_after_429}")
EOF

timeout 600 $PY "$TMP/flood.py" "$URL" "$CA" "$ATOKEN" "$AKC" "$BKC" "$KC" >"$TMP/flood.out" 2>&1
cat "$TMP/flood.out"
expect "every kubectl of tenant B succeeds during the flood" "tenant-b: ok 20 of 20" \
    cat "$TMP/flood.out"
expect "every kubectl of the admin succeeds during the flood" "admin: ok 20 of 20" \
    cat "$TMP/flood.out"
expect "every request of tenant B succeeds during the flood (curl)" "tenant-b curl: ok 20 of 20" \
    cat "$TMP/flood.out"
expect "every request of the admin succeeds during the flood (curl)" "admin curl: ok 20 of 20" \
    cat "$TMP/flood.out"
expect_grep "the flooding tenant gets 429s" "^flood: 200 [0-9]+, 429 [1-9][0-9]*," \
    cat "$TMP/flood.out"
expect "each 429 is kube-apiserver's: Retry-After, TooManyRequests, retryAfterSeconds" \
    "429 answers not as kube-apiserver's: 0" cat "$TMP/flood.out"
expect_grep "a 429 keeps the connection open for the retry" \
    "requests on a connection answered 429 before: [1-9]" cat "$TMP/flood.out"
expect_grep "the flooding tenant still gets answers" "^flood: 200 [1-9][0-9]*," cat "$TMP/flood.out"
expect_status "the server still answers" 200 --cacert "$CA" -H "Authorization: Bearer $TOKEN" \
    "$URL/api/v1/namespaces/fair-b"
