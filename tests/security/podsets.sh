# podsets.sh -- a member of a plain pod group runs only with what its pod
# set was admitted for. A member names its pod set by the
# kueue.x-k8s.io/role-hash annotation, which Kueue keeps as the Pod's
# creator wrote it; a group admitted before all its members exist (fast
# admission, a replacement for a failed member) must not start a member
# that asks for more than its pod set's template, the quota the Workload
# holds. (Sourced by run.sh after lib.sh.)

need kubectl

cat >"$TMP/ps-config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod]
YAML
start_server podsets --controllers all --executor local --config "$TMP/ps-config.yaml" || exit 1
queues team-a 4
ROLES="kueue-batch-user-role edit" tenant alice team-a

# member NAME GROUP TOTAL CPU COMMAND...: a member of role "main".
member() {
    n=$1 g=$2 t=$3 cpu=$4
    shift 4
    cmd=$(printf '"%s",' "$@")
    kt "$TKC" -n team-a create -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $n
  labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/pod-group-name: $g}
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "$t"
    kueue.x-k8s.io/pod-group-fast-admission: "true"
    kueue.x-k8s.io/role-hash: main
spec:
  restartPolicy: Never
  containers:
  - name: c
    image: busybox
    command: [${cmd%,}]
    resources: {requests: {cpu: "$cpu"}}
YAML
}
state() { k -n team-a get pod "$1" -o jsonpath='{.spec.schedulingGates[*].name} {.status.phase}'; }

# --- 1. Fast admission: admitted at the first member, 2 x 1 cpu. -------------------
member f1 fast 2 1 sleep 300
wait_for "fast admission: the group's Workload holds its pod set main, 2 x 1 cpu" 15 '^main 2 1$' \
    k -n team-a get workload fast -o jsonpath='{.spec.podSets[0].name} {.spec.podSets[0].count} {.spec.podSets[0].template.spec.containers[0].resources.requests.cpu}'
wait_for "  ... and the first member runs" 30 '^ Running$' state f1

# A second member of role main asking for 3 cpus: the quota holds 2 for
# the group, so it would run with 4 cpus in use.
member f2 fast 2 3 sleep 300
wait_for "a member asking for more than its pod set is not started (a Warning Event says why)" 30 \
    '^Warning +PodSetMismatch +The pod.s resources differ from those of pod set main of Workload team-a/fast: it stays gated$' \
    k -n team-a get events --field-selector involvedObject.name=f2 --no-headers \
    -o custom-columns=T:.type,R:.reason,M:.message
expect_grep "  ... it stays gated" '^kueue.x-k8s.io/admission( kueue.x-k8s.io/topology)? Pending$' state f2

# The tenant makes the controllers reconcile the held member again and
# again (each relabelling is a change of the Pod): the controllers report
# it on each pass, as one Event whose count grows, not an Event (or a
# write) per pass. mismatches POD: how many PodSetMismatch Events the Pod
# has, and the highest count among them.
mismatches() {
    k -n team-a get events --field-selector "involvedObject.name=$1" \
        -o jsonpath='{range .items[*]}{.reason} {.count}{"\n"}{end}' |
        awk '$1 == "PodSetMismatch" { n++; if ($2 > m) m = $2 } END { print n + 0, m + 0 }'
}
i=0
while [ $i -lt 12 ]; do
    i=$((i + 1))
    kt "$TKC" -n team-a label pod f2 --overwrite "poke=$i" >/dev/null
    sleep 0.3
done
# The second pass's count is written at once, the later ones within
# EVS_WRITE_EVERY_MS (30 s): at least 3 passes for 12 changes, however
# the controllers' queue merged them.
wait_for "a held member reconciled on 12 relabellings has one PodSetMismatch Event, its count raised by the passes" \
    60 '^1 ([3-9]|[1-9][0-9]+)$' mismatches f2

# The control: a member of the same requests (another command) starts.
k -n team-a delete pod f2 --wait=false >/dev/null
member f3 fast 2 1 sleep 299
wait_for "a member asking for what its pod set does starts, whatever its command" 30 '^ Running$' state f3
k -n team-a delete workload fast --wait=false >/dev/null
k -n team-a delete pods -l kueue.x-k8s.io/pod-group-name=fast --wait=false >/dev/null

# --- 2. A replacement for a failed member. ---------------------------------------------
# Without fast admission too: the group of two, both 1 cpu, one fails; its
# replacement asks for 3 cpus.
member r1 repl 2 1 sleep 300
member r2 repl 2 1 false
wait_for "replacement: a member fails" 30 '^ Failed$' state r2
member r3 repl 2 3 sleep 300
wait_for "replacement: one asking for more than its pod set is not started" 30 \
    '^Warning +PodSetMismatch ' \
    k -n team-a get events --field-selector involvedObject.name=r3 --no-headers \
    -o custom-columns=T:.type,R:.reason,M:.message
expect_grep "  ... it stays gated" '^kueue.x-k8s.io/admission( kueue.x-k8s.io/topology)? Pending$' state r3
stop_servers
