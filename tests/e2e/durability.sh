# durability.sh -- a kill -9 campaign: the server is killed under a load of
# creates, again and again, and after each restart every acknowledged
# create is there, resourceVersions have not gone back, and a watch resumed
# from before the kill sees every later create exactly once, in order.
#
# Sourced by run.sh with DURABILITY_CYCLES cycles (default 3, what CI runs),
# or run alone for a long campaign:
#   DURABILITY_CYCLES=100 sh tests/e2e/durability.sh build/cueue .
# Each cycle: 4 clients (keep-alive connections) create Leases in a fresh
# namespace; the server is killed with SIGKILL after 0.3-1.5 s (a different
# moment each cycle); it is restarted on the same data dir and checked; the
# namespace is deleted.

case "$0" in
*durability.sh) # alone: the set-up run.sh would have done
    set -u
    CUEUE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    SRC=$(cd "$2" && pwd)
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/cueue-dur.XXXXXX")
    export HOME="$TMP/home"
    mkdir -p "$HOME"
    . "$SRC/tests/e2e/lib.sh"
    trap 'stop_servers; rm -rf "$TMP"' EXIT
    trap 'exit 130' INT TERM
    PY=/usr/bin/python3
    DUR_ALONE=1
    ;;
*) DUR_ALONE= ;;
esac

cycles=${DURABILITY_CYCLES:-3}
note "# durability: $cycles kill -9 cycles under creates"

cat >"$TMP/dur-writer.py" <<'EOF'
# Create Leases from 4 threads until the server dies; print what was acknowledged.
import http.client, json, sys, threading, urllib.parse
url, ns, out = sys.argv[1], sys.argv[2], sys.argv[3]
u = urllib.parse.urlparse(url)
path = "/apis/coordination.k8s.io/v1/namespaces/%s/leases" % ns
acked = [[] for _ in range(4)]
def run(t):
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    for i in range(1, 1000000):
        name = "c%d-%d" % (t, i)
        body = json.dumps({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                           "metadata": {"name": name}, "spec": {"holderIdentity": name}})
        try:
            c.request("POST", path, body, {"Content-Type": "application/json"})
            r = c.getresponse()
            r.read()
        except Exception:
            return  # the server is gone: whatever was not answered was not acknowledged
        if r.status == 201:
            acked[t].append(name)
ts = [threading.Thread(target=run, args=(t,)) for t in range(4)]
for t in ts: t.start()
for t in ts: t.join()
with open(out, "w") as f:
    for a in acked:
        for n in a:
            f.write(n + "\n")
EOF

cat >"$TMP/dur-check.py" <<'EOF'
# Compare the list after the restart with the acknowledged creates; check
# versions and the resumed watch. Prints one line of figures; exit 1 on loss.
import json, sys
lst = json.load(open(sys.argv[1]))
acked = [l.strip() for l in open(sys.argv[2]) if l.strip()]
after_rv = int(sys.argv[3] or 0)
names = {i["metadata"]["name"] for i in lst["items"]}
missing = [a for a in acked if a not in names]
listrv = int(lst["metadata"]["resourceVersion"])
rvs = [int(i["metadata"]["resourceVersion"]) for i in lst["items"]]
problems = []
if missing:
    problems.append("lost %d: %s" % (len(missing), missing[:5]))
if rvs and listrv < max(rvs):
    problems.append("list version %d below an item's %d" % (listrv, max(rvs)))
if after_rv <= listrv:
    problems.append("a new write got version %d, not above %d" % (after_rv, listrv))
evs = [json.loads(l) for l in open(sys.argv[4]) if l.strip()]
added = [e["object"]["metadata"]["name"] for e in evs if e["type"] == "ADDED"]
evrvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in evs]
unseen = [a for a in acked + ["after-crash"] if a not in added]
if len(added) != len(set(added)) or unseen or evrvs != sorted(evrvs):
    problems.append("resumed watch: %d events, %d duplicates, unseen %s, ordered %s"
                    % (len(evs), len(added) - len(set(added)), unseen[:5], evrvs == sorted(evrvs)))
print("acked %d stored %d lost %d %s" % (len(acked), len(names), len(missing), "; ".join(problems)))
sys.exit(1 if problems else 0)
EOF

rvof() { sed -n 's/.*"resourceVersion":"\([0-9]*\)".*/\1/p' | head -1; }

dur_campaign() {
    start_server dur --insecure-http || return 1
    c=0
    total_acked=0
    total_lost=0
    bad_cycles=0
    bad_detail=""
    while [ "$c" -lt "$cycles" ]; do
        c=$((c + 1))
        ns="dur-$c"
        LEASES="$URL/apis/coordination.k8s.io/v1/namespaces/$ns/leases"
        curl -s -m 10 -o /dev/null -X POST -H 'Content-Type: application/json' \
            --data-binary "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}" \
            "$URL/api/v1/namespaces"
        rv_before=$(curl -s -m 10 "$LEASES" | rvof)
        : >"$TMP/acked"
        $PY "$TMP/dur-writer.py" "$URL" "$ns" "$TMP/acked" &
        wpid=$!
        sleep "$(awk -v s="$c" 'BEGIN { srand(s); printf "%.2f", 0.3 + rand() * 1.2 }')"
        kill -KILL "$PID"
        wait "$PID" 2>/dev/null
        wait "$wpid"
        start_server dur --insecure-http || return 1
        LEASES="$URL/apis/coordination.k8s.io/v1/namespaces/$ns/leases"
        curl -s -m 30 "$LEASES" >"$TMP/after.json"
        after_rv=$(curl -s -m 10 -X POST -H 'Content-Type: application/json' \
            --data-binary '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"after-crash"}}' \
            "$LEASES" | rvof)
        timeout 20 curl -s -N "$LEASES?watch=true&resourceVersion=$rv_before&timeoutSeconds=1" >"$TMP/resume.out"
        if $PY "$TMP/dur-check.py" "$TMP/after.json" "$TMP/acked" "$after_rv" "$TMP/resume.out" >"$TMP/cycle.out" 2>&1; then
            :
        else
            bad_cycles=$((bad_cycles + 1))
            bad_detail="$bad_detail
    cycle $c: $(cat "$TMP/cycle.out")"
        fi
        n=$(wc -l <"$TMP/acked")
        total_acked=$((total_acked + n))
        lost=$(sed -n 's/.* lost \([0-9]*\).*/\1/p' "$TMP/cycle.out" | head -1)
        total_lost=$((total_lost + ${lost:-0}))
        curl -s -m 60 -o /dev/null -X DELETE "$URL/api/v1/namespaces/$ns"
    done
    stop_server "$PID"

    figures="$cycles cycles, $total_acked acknowledged creates, $total_lost lost"
    note "# kill -9 campaign: $figures"
    if [ "$bad_cycles" = 0 ] && [ "$total_acked" -gt 0 ]; then
        pass "every acknowledged create survives kill -9, versions never go back, resumed watches see every create once ($figures)"
    else
        fail "kill -9 campaign: $bad_cycles bad cycles ($figures)" "$bad_detail"
    fi
}
dur_campaign || fail "kill -9 campaign: a server did not start"

if [ -n "$DUR_ALONE" ]; then
    check_server_logs
    note "durability: $PASS passed, $FAIL failed"
    [ "$FAIL" = 0 ]
fi
