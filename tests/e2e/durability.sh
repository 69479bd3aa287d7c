# durability.sh -- acknowledged writes survive kill -9; resourceVersions never
# go back; a watch resumed from its last version sees every later event once
# (sourced by run.sh).

note "# durability across kill -9"
start_server dur --insecure-http || return 1
RF="$URL/apis/kueue.x-k8s.io/v1beta2/resourceflavors"
rv0=$(curl -s -m 10 "$RF" | sed -n 's/.*"resourceVersion":"\([0-9]*\)".*/\1/p' | head -1)

# Four clients create flavors until the server dies under them.
writer() {
    i=0
    while [ $i -lt 400 ]; do
        i=$((i + 1))
        code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
            --data-binary "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ResourceFlavor\",\"metadata\":{\"name\":\"c$1-$i\"}}" \
            "$RF")
        [ "$code" = 201 ] && echo "c$1-$i" >>"$TMP/acked.$1"
        [ "$code" = 000 ] && return 0
    done
}
wpids=""
for c in 1 2 3 4; do
    : >"$TMP/acked.$c"
    writer $c &
    wpids="$wpids $!"
done
sleep 1.5
kill -KILL "$PID"
wait "$PID" 2>/dev/null
for p in $wpids; do wait "$p"; done
cat "$TMP"/acked.* | sort >"$TMP/acked"
nacked=$(wc -l <"$TMP/acked")
rv_before=$rv0

start_server dur --insecure-http || return 1
RF="$URL/apis/kueue.x-k8s.io/v1beta2/resourceflavors"
curl -s -m 30 "$RF" >"$TMP/after.json"
$PY -c '
import json, sys
lst = json.load(open(sys.argv[1]))
names = {i["metadata"]["name"] for i in lst["items"]}
acked = [l.strip() for l in open(sys.argv[2]) if l.strip()]
missing = [a for a in acked if a not in names]
rvs = [int(i["metadata"]["resourceVersion"]) for i in lst["items"]]
print("missing", len(missing), missing[:5])
print("listrv", lst["metadata"]["resourceVersion"], "maxitem", max(rvs) if rvs else 0)
sys.exit(1 if missing or (rvs and int(lst["metadata"]["resourceVersion"]) < max(rvs)) else 0)
' "$TMP/after.json" "$TMP/acked" >"$TMP/dur.out" 2>&1
if [ $? = 0 ] && [ "$nacked" -gt 0 ]; then
    pass "all $nacked acknowledged creates from 4 clients survive kill -9"
else
    fail "acknowledged creates survive kill -9 ($nacked acked)" "$(cat "$TMP/dur.out")"
fi
listrv=$(sed -n 's/^listrv \([0-9]*\).*/\1/p' "$TMP/dur.out")

# New writes get versions above everything before the crash.
new=$(curl -s -m 10 -X POST -H 'Content-Type: application/json' \
    --data-binary '{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ResourceFlavor","metadata":{"name":"after-crash"}}' "$RF" |
    sed -n 's/.*"resourceVersion":"\([0-9]*\)".*/\1/p')
if [ -n "$new" ] && [ -n "$listrv" ] && [ "$new" -gt "$listrv" ]; then
    pass "resourceVersions do not go back after a restart ($listrv -> $new)"
else
    fail "resourceVersions do not go back after a restart" "list=$listrv new=$new"
fi

# A watch resumed from the version before the writers sees each create once.
timeout 10 curl -s -N "$RF?watch=true&resourceVersion=$rv_before&timeoutSeconds=2" >"$TMP/resume.out"
$PY -c '
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
added = [e["object"]["metadata"]["name"] for e in evs if e["type"] == "ADDED"]
acked = [l.strip() for l in open(sys.argv[2]) if l.strip()] + ["after-crash"]
dups = len(added) - len(set(added))
missing = [a for a in acked if a not in added]
rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in evs]
print("events", len(evs), "dups", dups, "missing", missing[:5])
sys.exit(1 if dups or missing or rvs != sorted(rvs) else 0)
' "$TMP/resume.out" "$TMP/acked" >"$TMP/resume.chk" 2>&1
if [ $? = 0 ]; then
    pass "a watch resumed across the restart sees every later create once"
else
    fail "a watch resumed across the restart sees every later create once" "$(cat "$TMP/resume.chk")"
fi
stop_server "$PID"
