# restart.sh -- sourced by run.sh: kill -9 the server (in-process
# controllers), and separately the controller of the cluster path, while 200
# Jobs are being admitted; restart it on the same data, and check the
# accounting: each CQ's reported usage is the sum of its reserved workloads'
# usage, no more than its quota is reserved, every Job has exactly one
# Workload. Then a clean restart on the settled store, which must change
# nothing.

# rs_objects: write the queues and the 200 Jobs to $TMP/rs.yaml, rs-jobs.yaml.
rs_objects() {
{
    cat <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: rs}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: rs-default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: rs-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: rs-default
      resources: [{name: cpu, nominalQuota: "100"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: rs-q, namespace: rs}
spec: {clusterQueue: rs-cq}
YAML
} >"$TMP/rs.yaml"
: >"$TMP/rs-jobs.yaml"
i=0
while [ $i -lt 200 ]; do
    cat >>"$TMP/rs-jobs.yaml" <<YAML
---
apiVersion: batch/v1
kind: Job
metadata:
  name: j$i
  namespace: rs
  labels: {kueue.x-k8s.io/queue-name: rs-q}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["true"], resources: {requests: {cpu: "1"}}}
YAML
    i=$((i + 1))
done
}

# rs_check TAG: after a restart, every Job re-applied, 100 of 200 reserved,
# and the accounting consistent.
rs_check() {
tag=$1
before=$(k get jobs -n rs -o name 2>/dev/null | wc -l)
# Every Job kubectl created before or after the kill is there; re-apply the
# ones the kill interrupted.
k apply -f "$TMP/rs-jobs.yaml" >/dev/null 2>&1
wait_for "$tag: 100 workloads reserved after the restart" 60 '^100$' \
    k get cq rs-cq -o jsonpath='{.status.reservingWorkloads}'
wait_for "$tag: 100 pending" 30 '^100$' k get cq rs-cq -o jsonpath='{.status.pendingWorkloads}'
k get workloads -n rs -o json >"$TMP/rs-wl.json"
k get jobs -n rs -o json >"$TMP/rs-jobs.json"
k get cq rs-cq -o json >"$TMP/rs-cq.json"
out=$(/usr/bin/python3 - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
wls = json.load(open(d + "/rs-wl.json"))["items"]
jobs = json.load(open(d + "/rs-jobs.json"))["items"]
cq = json.load(open(d + "/rs-cq.json"))
def cond(o, t):
    for c in o.get("status", {}).get("conditions", []):
        if c["type"] == t:
            return c["status"]
    return None
def milli(q):
    return int(q[:-1]) if q.endswith("m") else int(q) * 1000
reserved = [w for w in wls if cond(w, "QuotaReserved") == "True"]
used = sum(milli(p["resourceUsage"]["cpu"]) for w in reserved
           for p in w["status"]["admission"]["podSetAssignments"])
rep = milli(cq["status"]["flavorsReservation"][0]["resources"][0]["total"])
owners = {}
for w in wls:
    for r in w["metadata"].get("ownerReferences", []):
        owners.setdefault(r["uid"], []).append(w["metadata"]["name"])
problems = []
if used != rep: problems.append("usage %d != reported %d" % (used, rep))
if used > 100000: problems.append("over quota: %d" % used)
if len(jobs) != 200: problems.append("%d jobs" % len(jobs))
for j in jobs:
    n = len(owners.get(j["metadata"]["uid"], []))
    if n != 1: problems.append("job %s has %d workloads" % (j["metadata"]["name"], n))
    running = j["spec"].get("suspend") is False
    w = [x for x in wls if x["metadata"]["name"] in owners.get(j["metadata"]["uid"], [])]
    if running and (not w or cond(w[0], "Admitted") != "True"):
        problems.append("job %s runs without admission" % j["metadata"]["name"])
for w in wls:
    if w.get("status", {}).get("admission") and cond(w, "QuotaReserved") != "True":
        problems.append("%s has an admission without a reservation" % w["metadata"]["name"])
print("; ".join(problems) if problems else "consistent: %d reserved, %dm cpu, %d workloads" % (len(reserved), used, len(wls)))
PY
)
case "$out" in
consistent*) pass "$tag: accounting after kill -9 ($out; $before jobs were stored at the kill)" ;;
*) fail "$tag: accounting after kill -9" "$out" ;;
esac
}

rs_objects

# The server, with its in-process controllers.
start_server restart --controllers all --executor none || return 1
RPID=$PID
expect "restart: queues" "created" k apply -f "$TMP/rs.yaml"
k apply -f "$TMP/rs-jobs.yaml" >/dev/null 2>&1 &
APPLY=$!
# Kill once admission is under way.
wait_for "restart: admissions under way" 30 '[1-9]' \
    k get cq rs-cq -o jsonpath='{.status.reservingWorkloads}'
kill -9 "$RPID"
wait "$RPID" 2>/dev/null
wait "$APPLY" 2>/dev/null
start_server restart --controllers all --executor none || return 1
rs_check restart

# A clean restart on a settled store changes nothing: every Job, Workload
# and queue object is as it was, resourceVersions included (no status is
# written again, no quota charged twice or lost). Before it, every pending
# workload is given the verdict the scheduler wrote on the one of them it
# evaluated (equal workloads, so it is the verdict each would get), as a
# store holds after each was evaluated in turn: the first cycle after the
# restart evaluates one and skips the others as equivalent, and a skipped
# workload keeps its verdict, as in Kueue, rather than being rewritten with
# the bypass message. A marker Job created after the restart, in a queue
# of its own, shows the controllers are working.
rs_snapshot() {
    k get jobs,workloads -n rs -o json >"$TMP/rs-snap-objs.json" &&
        k get cq rs-cq -o json >"$TMP/rs-snap-cq.json" &&
        k get lq rs-q -n rs -o json >"$TMP/rs-snap-lq.json" &&
        /usr/bin/python3 - "$TMP" "$1" <<'PY'
import json, sys
d, out = sys.argv[1], sys.argv[2]
objs = json.load(open(d + "/rs-snap-objs.json"))["items"]
objs += [json.load(open(d + "/rs-snap-%s.json" % n)) for n in ("cq", "lq")]
by = {"%s %s/%s" % (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o
      for o in objs}
with open(out, "w") as f:
    for key in sorted(by):
        f.write("%s %s\n" % (key, json.dumps(by[key], sort_keys=True)))
PY
}
# rs_stable FILE: prints "stable" when two snapshots 2 s apart are the same
# (kept in FILE).
rs_stable() {
    rs_snapshot "$1.a" && sleep 2 && rs_snapshot "$1" && cmp -s "$1.a" "$1" && echo stable
}
settle 60 '^stable$' rs_stable "$TMP/rs-before"
stop_server "$PID"
# The verdicts, written through the API with no controller running.
start_server restart --controllers none || return 1
k get workloads -n rs -o json >"$TMP/rs-verdict.json"
given=$(/usr/bin/python3 - "$TMP/rs-verdict.json" <<'PY'
import json, sys
path = sys.argv[1]
wls = json.load(open(path))["items"]
def qr(w):
    for c in w.get("status", {}).get("conditions", []):
        if c["type"] == "QuotaReserved" and c["status"] == "False":
            return c
pending = [w for w in wls if qr(w)]
verdicts = [qr(w) for w in pending if not qr(w)["message"].startswith("Bypassed")]
if not verdicts:
    print("no verdict among %d pending workloads" % len(pending))
    sys.exit()
v = verdicts[0]
items = []
for w in pending:
    c = qr(w)
    if (c["reason"], c["message"]) != (v["reason"], v["message"]):
        c["reason"], c["message"] = v["reason"], v["message"]
        items.append(w)
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, open(path, "w"))
print("%d of %d pending workloads given the verdict" % (len(items), len(pending)))
PY
)
case "$given" in
*" given the verdict")
    if k replace --validate=false --subresource=status -f "$TMP/rs-verdict.json" >/dev/null; then
        pass "restart (clean): $given"
    else
        fail "restart (clean): the verdicts written" "$given"
    fi ;;
*) fail "restart (clean): the verdicts written" "$given" ;;
esac
rs_snapshot "$TMP/rs-before"
stop_server "$PID"
start_server restart --controllers all --executor none || return 1
cat >"$TMP/rs-marker.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: rs-marker-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: rs-default
      resources: [{name: cpu, nominalQuota: "1"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: rs-marker-q, namespace: default}
spec: {clusterQueue: rs-marker-cq}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: rs-marker
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: rs-marker-q}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["true"], resources: {requests: {cpu: "1"}}}
YAML
k apply -f "$TMP/rs-marker.yaml" >/dev/null
wait_for "restart (clean): the controllers admit a new Job" 60 '^True$' \
    k get workloads -n default -o jsonpath='{.items[0].status.conditions[?(@.type=="QuotaReserved")].status}'
settle 60 '^stable$' rs_stable "$TMP/rs-after"
if cmp -s "$TMP/rs-before" "$TMP/rs-after"; then
    pass "restart (clean): every Job, Workload and queue object is unchanged ($(wc -l <"$TMP/rs-after") objects)"
else
    fail "restart (clean): every Job, Workload and queue object is unchanged" \
        "$(diff "$TMP/rs-before" "$TMP/rs-after" | grep -c '^>') objects changed:
$(diff "$TMP/rs-before" "$TMP/rs-after" | cut -c1-400 | head -6)"
fi
stop_server "$PID"

# The controller of the cluster path, against an API-only server that stays up.
start_server restart-ctl --controllers none || return 1
expect "restart-ctl: queues" "created" k apply -f "$TMP/rs.yaml"
"$CUEUE" controller --metrics-bind-address 0 --kubeconfig "$KC" --executor none --data-dir "$DATA" \
    >>"$DATA/controller.log" 2>&1 &
KPID=$!
CTL_PIDS="$CTL_PIDS $KPID"
k apply -f "$TMP/rs-jobs.yaml" >/dev/null 2>&1 &
APPLY=$!
wait_for "restart-ctl: admissions under way" 30 '[1-9]' \
    k get cq rs-cq -o jsonpath='{.status.reservingWorkloads}'
kill -9 "$KPID"
wait "$KPID" 2>/dev/null
wait "$APPLY" 2>/dev/null
"$CUEUE" controller --metrics-bind-address 0 --kubeconfig "$KC" --executor none --data-dir "$DATA" \
    >>"$DATA/controller.log" 2>&1 &
KPID=$!
CTL_PIDS="$CTL_PIDS $KPID"
rs_check restart-ctl
stop_server "$KPID"
stop_server "$PID"

# kill -9 while Jobs run under the local executor: their processes die with
# the server, and after the restart their Pods are marked Failed and the
# Jobs run again, after the Job controller's back-off (two failures: 20 s).
start_server restart-exec --controllers all --executor local || return 1
XPID=$PID
CRASHSLEEP="30.$$" # unique to this run: another may share the machine
sed "s/sleep 30/sleep $CRASHSLEEP/; s/name: admitted-job/name: crash-job/" "$SRC/examples/admitted-job.yaml" >"$TMP/crash-job.yaml"
k apply -f "$SRC/examples/quota-lab-queues.yaml" >/dev/null
wait_for "restart-exec: queue active" 10 '^True$' k get cq lab-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
k apply -f "$TMP/crash-job.yaml" >/dev/null
wait_for "restart-exec: the job runs two pods" 15 '^2$' k -n kueue-lab get job crash-job -o jsonpath='{.status.active}'
old=$(k -n kueue-lab get pods -l job-name=crash-job -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
kill -9 "$XPID"
wait "$XPID" 2>/dev/null
# The processes die with the server, a little after it on a loaded machine.
n=0
while left=$(pgrep -f "sleep $CRASHSLEEP\$") && [ $n -lt $((25 * WAIT_SCALE)) ]; do
    sleep 0.2
    n=$((n + 1))
done
if [ -z "$left" ]; then pass "restart-exec: no process outlives the killed server"; else
    fail "restart-exec: no process outlives the killed server" "$left"
    kill $left 2>/dev/null
fi
start_server restart-exec --controllers all --executor local || return 1
p1=$(printf '%s\n' "$old" | head -1)
wait_for "restart-exec: the old pods are marked Failed (ProcessLost)" 15 '^Failed ProcessLost$' \
    k -n kueue-lab get pod "$p1" -o jsonpath='{.status.phase} {.status.reason}'
wait_for "restart-exec: the job counts them failed and runs again" 45 '^2 2$' \
    k -n kueue-lab get job crash-job -o jsonpath='{.status.failed} {.status.active}'
expect_exact "restart-exec: still one admission for the job" "1" \
    sh -c "kubectl --kubeconfig '$KC' -n kueue-lab get workloads -o name | wc -l | tr -d ' '"
wait_for "restart-exec: ClusterQueue usage is the job's (1 cpu)" 10 '^1 1$' \
    k get cq lab-cq -o jsonpath='{.status.reservingWorkloads} {.status.flavorsReservation[0].resources[0].total}'
k -n kueue-lab delete job crash-job >/dev/null 2>&1
stop_server "$PID"
