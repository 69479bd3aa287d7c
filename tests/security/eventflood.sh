# eventflood.sh -- a tenant cannot make the controllers write an Event per
# reconcile: an object that fails the same check on every pass (here a Job
# naming a WorkloadPriorityClass that does not exist) is reported by one
# Event whose count grows, however often the tenant changes the object to
# have it looked at again; deleted, the Event is written again with its
# count; a different problem is still a new Event (sourced by run.sh after
# lib.sh).

need kubectl

start_server eventflood --controllers all --executor none || exit 1
queues team-a 4
ROLES="kueue-batch-user-role edit" tenant alice team-a

# job NAME CLASS: a Job of user-queue at WorkloadPriorityClass CLASS.
job() {
    kt "$TKC" -n team-a create -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/priority-class: $2}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        command: [sleep, "100"]
        resources: {requests: {cpu: "1"}}
YAML
}
# notfound JOB: how many WorkloadPriorityClassNotFound Events the Job has,
# and the highest count among them.
notfound() {
    k -n team-a get events --field-selector "involvedObject.name=$1" \
        -o jsonpath='{range .items[*]}{.reason} {.count}{"\n"}{end}' |
        awk '$1 == "WorkloadPriorityClassNotFound" { n++; if ($2 > m) m = $2 } END { print n + 0, m + 0 }'
}

# past N JOB: notfound JOB, once its highest count is past N.
past() {
    pn=$(notfound "$2")
    [ "${pn#* }" -gt "$1" ] && echo "$pn"
}

job j1 no-such-class
wait_for "a Job naming a missing WorkloadPriorityClass gets the Warning Event" 30 \
    '^Warning WorkloadPriorityClass "no-such-class" not found$' \
    k -n team-a get events --field-selector involvedObject.name=j1,reason=WorkloadPriorityClassNotFound \
    -o jsonpath='{range .items[*]}{.type} {.message}{"\n"}{end}'

# Each relabelling is a change of the Job, and a pass of the controllers
# that finds the same problem.
i=0
while [ $i -lt 12 ]; do
    i=$((i + 1))
    kt "$TKC" -n team-a label job j1 --overwrite "poke=$i" >/dev/null
    sleep 0.3
done
# The second pass's count is written at once, the later ones within 30 s:
# at least 3 passes for 12 changes, however the controllers' queue merged
# them.
wait_for "reconciled on 12 relabellings, the Job has one such Event, its count raised by the passes" \
    60 '^1 ([3-9]|[1-9][0-9]+)$' notfound j1
expect_exact "  ... and the controllers wrote no Workload for it" "" \
    k -n team-a get workloads -o name

# The Event deleted (as its time to live does): the next write of the
# series makes it again, with the count so far.
before=$(notfound j1 | cut -d' ' -f2)
expect_grep "the admin deletes the Event" '^event "j1\..*" deleted$' \
    k -n team-a delete events --field-selector involvedObject.name=j1,reason=WorkloadPriorityClassNotFound
kt "$TKC" -n team-a label job j1 --overwrite poke=again >/dev/null
wait_for "  ... deleted, it is written again with its count, raised" 60 '^1 [0-9]+$' past "$before" j1

# The control: another problem (another class, another Job) is an Event
# of its own.
job j2 other-missing-class
wait_for "another Job's missing class is an Event of its own" 30 '^1 1$' notfound j2
expect_grep "  ... and the first Job still has one" '^1 [0-9]+$' notfound j1

# --- The node agent's Events -------------------------------------------------------
# The node agent records Events as the controllers do. A ReplicaSet that
# fits in the store when its Pods do not (its template near the size limit
# of an object, and its Pods' names and owner reference on top) fails to
# make its Pod the same way on every pass of the ReplicaSet controller,
# and any change of the ReplicaSet is such a pass.
start_server eventflood-node --controllers all --executor local || exit 1
ROLES="kueue-batch-user-role edit" tenant alice2 team-a
RSN=rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr
# rsdoc PAD: the ReplicaSet $RSN, its container's argument PAD bytes long.
rsdoc() {
    $PY -c '
import json, sys
print(json.dumps({"apiVersion": "apps/v1", "kind": "ReplicaSet",
    "metadata": {"name": sys.argv[1], "namespace": "team-a"},
    "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "big"}},
        "template": {"metadata": {"labels": {"app": "big"}},
            "spec": {"containers": [{"name": "c", "image": "busybox",
                "command": ["sleep", "9" * int(sys.argv[2])]}]}}}}))' "$RSN" "$1"
}
rsdoc 1 >"$TMP/rs1.json"
# As the store would keep it (server-side dry run), compact.
small=$(kt "$TKC" create -f "$TMP/rs1.json" --dry-run=server -o json |
    $PY -c 'import json, sys; print(len(json.dumps(json.load(sys.stdin), separators=(",", ":"))))')
# 1.5 MiB is the store's limit; 120 bytes leave room for a label.
rsdoc $((1572864 - small - 120)) >"$TMP/rsbig.json"
expect_exact "node: a ReplicaSet just under the size limit is stored" \
    "replicaset.apps/$RSN created" kt "$TKC" create -f "$TMP/rsbig.json"
# failedcreate: how many FailedCreate Events the ReplicaSet has, and the
# highest count among them.
failedcreate() {
    k -n team-a get events --field-selector "involvedObject.name=$RSN" \
        -o jsonpath='{range .items[*]}{.reason} {.count}{"\n"}{end}' |
        awk '$1 == "FailedCreate" { n++; if ($2 > m) m = $2 } END { print n + 0, m + 0 }'
}
wait_for "node: its Pod, too large, is not made: a FailedCreate Event" 30 '^1 1$' failedcreate
i=0
while [ $i -lt 12 ]; do
    i=$((i + 1))
    kt "$TKC" -n team-a label rs "$RSN" --overwrite "poke=$i" >/dev/null
    sleep 0.3
done
wait_for "node: on 12 relabellings, one FailedCreate Event, its count raised by the passes" \
    60 '^1 ([3-9]|[1-9][0-9]+)$' failedcreate
expect_exact "  ... and no Pod was made" "" k -n team-a get pods -o name
