# executor.sh -- the node agent against hostile tenants: a tenant's pod
# cannot read or write the data dir, see or signal the server or another
# pod, reach the API server or the host's devices; limits are enforced
# (OOMKilled, cpu quota, pids), GPUs are handed out exclusively, pods that
# cannot start fail as the kubelet reports it, and failed pods are replaced
# after Kubernetes' back-off until backoffLimit fails the Job.
# (Sourced by run.sh after lib.sh.)

need kubectl pgrep

# pod_of NS JOB: the name of the job's newest pod.
pod_of() {
    k -n "$1" get pods -l "job-name=$2" --sort-by=.metadata.creationTimestamp \
        -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' 2>/dev/null | tail -1
}

# term_of NS JOB: "reason exitCode" of its newest pod's terminated container.
term_of() {
    p=$(pod_of "$1" "$2")
    [ -n "$p" ] && k -n "$1" get pod "$p" -o jsonpath='{.status.phase} {.status.containerStatuses[0].state.terminated.reason} {.status.containerStatuses[0].state.terminated.exitCode}'
}

# cgroup_file UID FILE: the content of FILE in the pod's cgroup, from the host.
cgroup_file() {
    d=$(find /sys/fs/cgroup -maxdepth 8 -type d -name "$1" 2>/dev/null | while read -r c; do
        [ -e "$c/$2" ] && echo "$c"
    done | head -1)
    [ -n "$d" ] && cat "$d/$2"
}

start_server node --controllers all --executor local --gpus 0,1 || exit 1
PORT=${URL##*:}

queues team-a 20 memory=20Gi nvidia.com/gpu=3
k create namespace team-b >/dev/null
# A developer: Kueue's batch-user role for Jobs, Kubernetes' view for the
# pods' logs (Kueue's roles grant no Pods).
ROLES="kueue-batch-user-role view" tenant alice team-a
wait_for "the ClusterQueue is active" 15 '^True$' \
    k get cq cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'

# --- 1. Another tenant's pod, with a secret in its log and working dir. -------
# The admin's, in team-b, without a queue (not Kueue's): it runs at once.
# Its process is found by its command line, unique to this run.
VSLEEP="61.$$"
k apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: victim, namespace: team-b}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: v
        image: busybox
        command: [sh, -c, "echo VICTIM-LOG-SECRET; echo VICTIM-DIR-SECRET > victim-secret; exec sleep $VSLEEP"]
YAML
wait_for "the other pod runs" 20 '^Running$' sh -c "kubectl --kubeconfig '$KC' -n team-b get pods -l job-name=victim -o jsonpath='{.items[0].status.phase}'"
VPID=$(pgrep -f "sleep $VSLEEP\$" | head -1)
expect_exact "pods run as nobody on the host, not as the server's user" "nobody" \
    sh -c "ps -o user= -p '$VPID' | tr -d ' '"

# --- 2. The tenant's attack, as a Job in its queue. -----------------------------
cat >"$TMP/attack.yaml" <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: attack
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: a
        image: busybox
        resources: {requests: {cpu: 100m}}
        env:
        - {name: DATA, value: "$DATA"}
        - {name: SERVER, value: "$PID"}
        - {name: VICTIM, value: "$VPID"}
        - {name: PORT, value: "$PORT"}
        command:
        - sh
        - -c
        - |
          chk() { n=\$1; shift; if "\$@" >/dev/null 2>&1; then echo "LEAK \$n"; else echo "DENIED \$n"; fi; }
          ptrace() { python3 -c "import ctypes,sys; l=ctypes.CDLL(None, use_errno=True); sys.exit(0 if l.ptrace(0x4206, \$1, 0, 0) == 0 else 1)"; }
          cat "\$DATA/admin-token" "\$DATA/tokens" 2>/dev/null
          chk read-admin-token cat "\$DATA/admin-token"
          chk read-tokens cat "\$DATA/tokens"
          chk read-store cat "\$DATA/store.db"
          chk read-ca-key cat "\$DATA/ca.key"
          chk read-kubeconfig cat "\$DATA/kubeconfig"
          chk read-other-log sh -c "cat \$DATA/pods/team-b_* | grep -q VICTIM"
          chk read-other-workdir sh -c "cat /proc/*/root/tmp/victim-secret /proc/*/cwd/victim-secret /tmp/victim-secret 2>/dev/null | grep -q VICTIM"
          chk list-data-dir ls "\$DATA"
          chk write-data-dir sh -c "echo x > \$DATA/pwned"
          chk write-other-log sh -c 'for f in "\$DATA"/pods/team-b_*; do echo x >> "\$f" || exit 1; done'
          chk see-server test -e "/proc/\$SERVER"
          chk signal-server kill -0 "\$SERVER"
          chk ptrace-server ptrace "\$SERVER"
          chk ptrace-other-pod ptrace "\$VICTIM"
          chk signal-other-pod kill -9 "\$VICTIM"
          chk reach-api-server python3 -c "import socket; socket.create_connection(('127.0.0.1', \$PORT), 3)"
          chk host-devices sh -c "ls /dev | grep -Eq '^(sd|vd|nvme|mem|kmem|port|loop)'"
          chk capabilities sh -c "grep -Eq '^CapEff:.*[1-9a-f]' /proc/self/status"
          chk privileges sh -c "grep -q '^NoNewPrivs:.*0' /proc/self/status"
          chk host-home test -e /root
          echo ATTACK-DONE
YAML
expect "the tenant's attack Job is created" "created" kt "$TKC" apply -f "$TMP/attack.yaml"
wait_for "the attack Job ends" 30 '^(Complete|Failed)=True$' \
    k -n team-a get job attack -o jsonpath='{range .status.conditions[*]}{.type}{"="}{.status}{"\n"}{end}'
AP=$(pod_of team-a attack)
kt "$TKC" -n team-a logs "$AP" >"$TMP/attack.log" 2>&1
expect_grep "the attack ran to its end" '^ATTACK-DONE$' cat "$TMP/attack.log"
for what in read-admin-token read-tokens read-store read-ca-key read-kubeconfig read-other-log \
    read-other-workdir list-data-dir write-data-dir write-other-log see-server signal-server \
    signal-other-pod ptrace-server ptrace-other-pod reach-api-server host-devices capabilities \
    privileges host-home; do
    expect_grep "a tenant's pod cannot: $what" "^DENIED $what\$" cat "$TMP/attack.log"
done
tok=$(cat "$DATA/admin-token")
if grep -qF "$tok" "$TMP/attack.log"; then fail "kubectl logs shows no admin token" "$(cat "$TMP/attack.log")"; else
    pass "kubectl logs shows no admin token"; fi
if [ -e "$DATA/pwned" ]; then fail "nothing was written into the data dir"; else pass "nothing was written into the data dir"; fi
expect_exact "the other pod's log is intact" "VICTIM-LOG-SECRET" sh -c "cat '$DATA'/pods/team-b_*.log"
if kill -0 "$VPID" 2>/dev/null; then pass "the other pod still runs"; else fail "the other pod still runs"; fi
if kill -0 "$PID" 2>/dev/null; then pass "the server still runs"; else fail "the server still runs"; fi
k -n team-b delete job victim --wait=false >/dev/null 2>&1

# --- 3. Limits, GPUs, start errors, back-off. -------------------------------------
job() { # job NAME BACKOFF_LIMIT EXTRA_CONTAINER_YAML COMMAND_JSON
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  backoffLimit: $2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        command: $4
$3
YAML
}
{
    job oom 0 "        resources: {limits: {cpu: 500m, memory: 64Mi}}" \
        '[python3, -c, "s = bytearray(b\"x\") * (400 << 20); print(len(s))"]'
    echo ---
    job cpu 0 "        resources: {requests: {cpu: 200m}, limits: {cpu: 200m, memory: 128Mi}}" \
        '[sleep, "20"]'
    echo ---
    job nocmd 0 "        resources: {requests: {cpu: 100m}}" '[no-such-command, arg]'
    echo ---
    job nowd 0 "        workingDir: /no/such/dir
        resources: {requests: {cpu: 100m}}" '[sh, -c, "echo should not run"]'
    echo ---
    job backoff 2 "        resources: {requests: {cpu: 100m}}" '[sh, -c, "exit 3"]'
} >"$TMP/jobs.yaml"
expect "the tenant creates the test Jobs" "created" kt "$TKC" apply -f "$TMP/jobs.yaml"

# OOM: the cgroup's memory limit and the kubelet's OOMKilled.
wait_for "a pod over its memory limit is OOMKilled (exit 137)" 30 '^Failed OOMKilled 137$' term_of team-a oom
wait_for "its Job fails: BackoffLimitExceeded" 15 '^Failed=True BackoffLimitExceeded$' \
    k -n team-a get job oom -o jsonpath='{range .status.conditions[?(@.type=="Failed")]}{.type}{"="}{.status}{" "}{.reason}{end}'

# CPU: the cgroup's quota, read from the host (20 ms per 100 ms period).
wait_for "the cpu-limited pod runs" 20 '^Running$' sh -c "kubectl --kubeconfig '$KC' -n team-a get pods -l job-name=cpu -o jsonpath='{.items[0].status.phase}'"
CU=$(k -n team-a get pods -l job-name=cpu -o jsonpath='{.items[0].metadata.uid}')
q=$(cgroup_file "$CU" cpu.max)
[ -n "$q" ] || q=$(cgroup_file "$CU" cpu.cfs_quota_us)
case "$q" in
"20000 100000" | 20000) pass "a 200m cpu limit is a 20000/100000 CFS quota ($q)" ;;
*) fail "a 200m cpu limit is a 20000/100000 CFS quota" "quota: '$q'" ;;
esac
m=$(cgroup_file "$CU" memory.max)
[ -n "$m" ] || m=$(cgroup_file "$CU" memory.limit_in_bytes)
expect_exact "its 128Mi memory limit is the cgroup's" "134217728" echo "$m"
pm=$(cgroup_file "$CU" pids.max)
expect_exact "its processes are bounded (pids.max)" "1024" echo "$pm"

# Start errors: as the kubelet reports them, never an endless Running pod.
wait_for "a missing command: Failed, StartError, exit 128" 20 '^Failed StartError 128$' term_of team-a nocmd
expect_grep "... with the runtime's message" 'exec: "no-such-command": executable file not found in \$PATH' \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get pod $(pod_of team-a nocmd) -o jsonpath='{.status.containerStatuses[0].state.terminated.message}'"
wait_for "a missing working directory: Failed, StartError, exit 128" 20 '^Failed StartError 128$' term_of team-a nowd
expect_grep "... with the runtime's message" 'chdir to cwd \("/no/such/dir"\).*no such file or directory' \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get pod $(pod_of team-a nowd) -o jsonpath='{.status.containerStatuses[0].state.terminated.message}'"
wait_for "a Job whose command is missing fails (BackoffLimitExceeded)" 15 '^True BackoffLimitExceeded$' \
    k -n team-a get job nocmd -o jsonpath='{.status.conditions[?(@.type=="Failed")].status} {.status.conditions[?(@.type=="Failed")].reason}'

# GPUs: two pods get the two devices, the third waits for one. Made now,
# and holding their devices a while, so that this can be seen under load.
for g in 1 2 3; do
    echo ---
    job gpu$g 0 "        resources: {limits: {nvidia.com/gpu: 1}, requests: {cpu: 100m}}" \
        "[sh, -c, \"echo gpus=\$NVIDIA_VISIBLE_DEVICES cuda=\$CUDA_VISIBLE_DEVICES; sleep $((4 * WAIT_SCALE))\"]"
done >"$TMP/gpu-jobs.yaml"
kt "$TKC" apply -f "$TMP/gpu-jobs.yaml" >/dev/null
wait_for "two GPU pods run, the third waits Pending" 30 '^Pending Running Running$' \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get pods -l 'job-name in (gpu1,gpu2,gpu3)' -o jsonpath='{range .items[*]}{.status.phase}{\"\\n\"}{end}' | sort | tr '\n' ' ' | sed 's/ \$//'"
expect_grep "... with the kubelet's waiting reason" 'ContainerCreating waiting for 1 nvidia.com/gpu: 0 of 2 free' \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get pods -l 'job-name in (gpu1,gpu2,gpu3)' -o jsonpath='{range .items[*]}{.status.containerStatuses[0].state.waiting.reason}{\" \"}{.status.containerStatuses[0].state.waiting.message}{\"\\n\"}{end}'"
wait_for "all three GPU Jobs complete" 40 '^Complete Complete Complete$' \
    sh -c "for j in gpu1 gpu2 gpu3; do kubectl --kubeconfig '$KC' -n team-a get job \$j -o jsonpath='{.status.conditions[?(@.type==\"Complete\")].type}'; echo; done | tr '\n' ' ' | sed 's/ \$//'"
# A status write that conflicts is tried again; its Event is not repeated.
expect_exact "the Job controller tells each Job's suspension at most once" "" \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get events --field-selector involvedObject.kind=Job -o jsonpath='{range .items[*]}{.involvedObject.name} {.reason}{\"\\n\"}{end}' | grep ' Suspended\$' | sort | uniq -d"
for g in 1 2 3; do kt "$TKC" -n team-a logs "$(pod_of team-a gpu$g)"; done >"$TMP/gpus.log" 2>&1
d=$(sed -n 's/^gpus=\([0-9]*\) cuda=\1$/\1/p' "$TMP/gpus.log" | sort | tr '\n' ' ')
case "$d" in
"0 0 1 " | "0 1 1 ") pass "each GPU pod had one device of its own, the same in NVIDIA_ and CUDA_VISIBLE_DEVICES ($d)" ;;
*) fail "each GPU pod had one device of its own" "$(cat "$TMP/gpus.log")" ;;
esac

# Back-off: pods replaced after 10 s, then 20 s; backoffLimit 2 fails the Job.
wait_for "backoffLimit 2: the Job fails after 3 pods, BackoffLimitExceeded with Kubernetes' message" 90 \
    '^3 True BackoffLimitExceeded Job has reached the specified backoff limit$' \
    k -n team-a get job backoff -o jsonpath='{.status.failed} {.status.conditions[?(@.type=="Failed")].status} {.status.conditions[?(@.type=="Failed")].reason} {.status.conditions[?(@.type=="Failed")].message}'
expect_exact "... FailureTarget first, as Kubernetes writes it" "True BackoffLimitExceeded" \
    k -n team-a get job backoff -o jsonpath='{.status.conditions[?(@.type=="FailureTarget")].status} {.status.conditions[?(@.type=="FailureTarget")].reason}'
k -n team-a get pods -l job-name=backoff -o json >"$TMP/backoff.json"
gaps=$("$PY" - "$TMP/backoff.json" <<'PY'
import json, sys, datetime
def t(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").timestamp()
pods = json.load(open(sys.argv[1]))["items"]
pods.sort(key=lambda p: t(p["metadata"]["creationTimestamp"]))
ends = [t(p["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"]) for p in pods]
starts = [t(p["metadata"]["creationTimestamp"]) for p in pods]
print(len(pods), " ".join("%d" % (starts[i + 1] - ends[i]) for i in range(len(pods) - 1)))
PY
)
set -- $gaps
if [ "$1" = 3 ] && [ "$2" -ge 9 ] && [ "$2" -le 30 ] && [ "$3" -ge 19 ] && [ "$3" -le 50 ]; then
    pass "failed pods are replaced after 10 s, then 20 s (gaps: ${2}s ${3}s)"
else
    fail "failed pods are replaced after 10 s, then 20 s" "pods and gaps: $gaps"
fi

# restartPolicy OnFailure: the container restarts in place (at once, then
# after the kubelet's crash back-off); backoffLimit counts the restarts.
kt "$TKC" apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata:
  name: onfail
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: OnFailure
      containers:
      - {name: c, image: busybox, command: [sh, -c, "echo try; exit 1"], resources: {requests: {cpu: 100m}}}
YAML
wait_for "OnFailure: the container restarts in place, then waits in CrashLoopBackOff" 30 \
    '^1 CrashLoopBackOff Error 1$' \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get pods -l job-name=onfail -o jsonpath='{.items[0].status.containerStatuses[0].restartCount} {.items[0].status.containerStatuses[0].state.waiting.reason} {.items[0].status.containerStatuses[0].lastState.terminated.reason} {.items[0].status.containerStatuses[0].lastState.terminated.exitCode}'"
wait_for "OnFailure: restarts past backoffLimit fail the Job (BackoffLimitExceeded)" 40 \
    '^True BackoffLimitExceeded$' \
    k -n team-a get job onfail -o jsonpath='{.status.conditions[?(@.type=="Failed")].status} {.status.conditions[?(@.type=="Failed")].reason}'

# --- 3b. A bare Pod bound to the node would run at once, outside the quota. ----
# Kubernetes' edit role grants `create pods`: binding it must not let a
# tenant run pods past Kueue.
ROLES=edit tenant eddie team-a
EDDIE=$TKC
bare_pod() { # NAME [nodeName]
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: team-a}\nspec:\n' "$1"
    [ -n "${2:-}" ] && printf '  nodeName: %s\n' "$2"
    printf '  restartPolicy: Never\n  containers: [{name: c, image: busybox, command: [sh, -c, "echo ran-outside-quota"]}]\n'
}
bare_pod bare cueue-local >"$TMP/bare.yaml"
expect "a user bound to edit cannot create a Pod bound to the node" \
    'pods "bare" is forbidden: spec.nodeName: a Pod bound to a node runs at once, outside Kueue'"'"'s quota: only a user who may run-unmanaged pods may create one' \
    kt "$EDDIE" create -f "$TMP/bare.yaml"
bare_pod unbound >"$TMP/unbound.yaml"
expect "  ... an unbound Pod is created (nothing schedules it)" "pod/unbound created" \
    kt "$EDDIE" create -f "$TMP/unbound.yaml"
bare_pod unbound cueue-local >"$TMP/bind.yaml"
expect "  ... and cannot be bound by an update" \
    'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`' \
    kt "$EDDIE" replace -f "$TMP/bind.yaml"
sleep 2
expect_exact "  ... so nothing ran (no node, still Pending)" "-Pending" \
    k -n team-a get pod unbound -o 'jsonpath={.spec.nodeName}-{.status.phase}'
expect_exact "  ... a Pod's image may still change" "pod/unbound image updated" \
    kt "$EDDIE" -n team-a set image pod/unbound c=busybox:2
expect "the admin may (run-unmanaged): the Pod runs" "pod/bare created" k create -f "$TMP/bare.yaml"
wait_for "  ... to completion" 20 '^Succeeded$' k -n team-a get pod bare -o 'jsonpath={.status.phase}'
stop_servers

# --- 4. The agent without the controllers, and over HTTP. ------------------------
plain_job() { # plain_job NAME: a Job no queue manages, printing its name
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sh, -c, "echo ran-$1"]}
YAML
}
mkdir -p "$TMP/agent-only/pods"
echo left-behind >"$TMP/agent-only/pods/default_gone-pod.log"
start_server agent-only --controllers none --executor local || exit 1
plain_job solo | k apply -f - >/dev/null
wait_for "serve --controllers none --executor local: a Job runs to Complete" 20 '^True$' \
    k get job solo -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
expect_exact "... and its log is served" "ran-solo" sh -c "kubectl --kubeconfig '$KC' logs \$(kubectl --kubeconfig '$KC' get pods -l job-name=solo -o name)"
if [ -e "$TMP/agent-only/pods/default_gone-pod.log" ]; then
    fail "the log of a pod deleted while no agent ran is removed at start"; else
    pass "the log of a pod deleted while no agent ran is removed at start"; fi
k delete job solo >/dev/null 2>&1
wait_for "a deleted pod's log is removed" 15 '^gone$' \
    sh -c "ls '$DATA'/pods/default_solo-*.log >/dev/null 2>&1 && echo present || echo gone"
stop_servers

# --pod-network host: the machine's network, never with a plain-HTTP admin API.
expect "serve refuses --pod-network host with --insecure-http" "pods could reach the API as the admin" \
    "$CUEUE" serve --data-dir "$TMP/refused" --insecure-http --pod-network host
start_server hostnet --controllers none --executor local --pod-network host || exit 1
PORT=${URL##*:}
k apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: net, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [python3, -c, "import socket; socket.create_connection(('127.0.0.1', $PORT), 3); print('connected')"]}
YAML
wait_for "--pod-network host: a pod reaches the machine's loopback (here the API port)" 20 '^connected$' \
    sh -c "cat '$DATA'/pods/default_net-*.log 2>/dev/null"
stop_servers

start_server api --controllers none --executor none || exit 1
"$CUEUE" controller --metrics-bind-address 0 --kubeconfig "$KC" --executor local --data-dir "$TMP/made/by/agent" \
    >"$TMP/controller.log" 2>&1 &
SERVER_PIDS="$SERVER_PIDS $!"
plain_job overhttp | k apply -f - >/dev/null
wait_for "cueue controller --executor local: a Job runs to Complete over HTTP" 30 '^True$' \
    k get job overhttp -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
expect_exact "... and --data-dir was created for its log" "ran-overhttp" sh -c "cat '$TMP'/made/by/agent/pods/default_overhttp-*.log"
stop_servers

# --- 5. Not root: unprivileged user namespaces, with the isolation that is left. ----
if setpriv --reuid=65534 --regid=65534 --clear-groups "$CUEUE" version >/dev/null 2>&1; then
    RL=$(mktemp -d /tmp/cueue-rootless.XXXXXX)
    chmod 755 "$RL"
    chown 65534:65534 "$RL"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$CUEUE" serve --listen 127.0.0.1:0 \
        --data-dir "$RL/data" --controllers none --executor local >"$TMP/rootless.log" 2>&1 &
    RPID=$!
    SERVER_PIDS="$SERVER_PIDS $RPID"
    i=0
    while [ ! -s "$RL/data/kubeconfig" ] && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done
    KC="$RL/data/kubeconfig"
    k apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: rootless, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        env: [{name: DATA, value: "$RL/data"}, {name: SERVER, value: "$RPID"}]
        command:
        - sh
        - -c
        - |
          cat "\$DATA/admin-token" 2>/dev/null || echo DENIED read-admin-token
          kill -0 "\$SERVER" 2>/dev/null || echo DENIED signal-server
          ls /proc | grep -q "^\$SERVER\$" || echo DENIED see-server
          id -u
YAML
    wait_for "not root: a pod still runs to Complete" 20 '^True$' \
        k get job rootless -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
    expect_exact "not root: its pod cannot read the data dir, see or signal the server (and is root only inside)" \
        "DENIED read-admin-token DENIED signal-server DENIED see-server 0" \
        sh -c "cat '$RL'/data/pods/default_rootless-*.log | tr '\n' ' ' | sed 's/ \$//'"
    expect_grep "not root: the server warns once what isolation is lost" 'not running as root: pods run as this server.s own uid' cat "$TMP/rootless.log"
    expect_grep "not root: the server says once that pods get no cgroup limits" 'no cgroups: pods run without cpu, memory and process limits' cat "$TMP/rootless.log"
    stop_servers
    rm -rf "$RL"
else
    note "SKIP: the binary cannot run as an unprivileged user here"
fi
# --- 6. No namespaces to be had: said at start; pods fail, never run bare. ------
if unshare -Ur true 2>/dev/null; then
    NS="$TMP/nons"
    mkdir -p "$NS"
    unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_user_namespaces && exec "$0" serve --listen 127.0.0.1:0 --data-dir "$1" --controllers none --executor local' \
        "$CUEUE" "$NS/data" >"$TMP/nons.log" 2>&1 &
    SERVER_PIDS="$SERVER_PIDS $!"
    i=0
    while [ ! -s "$NS/data/kubeconfig" ] && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done
    KC="$NS/data/kubeconfig"
    plain_job bare | k apply -f - >/dev/null
    expect_grep "without user namespaces the server says at start that pods cannot be isolated" \
        'pods cannot be isolated on this machine \(new namespaces: No space left on device\)' cat "$TMP/nons.log"
    wait_for "... and a pod fails to start (StartError), it never runs unisolated" 20 \
        '^Failed StartError 128 unable to set up the pod.s sandbox: user namespace: no space left on device$' \
        sh -c "kubectl --kubeconfig '$KC' get pods -l job-name=bare -o jsonpath='{.items[0].status.phase} {.items[0].status.containerStatuses[0].state.terminated.reason} {.items[0].status.containerStatuses[0].state.terminated.exitCode} {.items[0].status.containerStatuses[0].state.terminated.message}'"
    expect_exact "... so its command left no output" "" sh -c "cat '$NS'/data/pods/default_bare-*.log"
    stop_servers
fi

bad=$(grep -lE 'Sanitizer|runtime error:' "$TMP/controller.log" "$TMP/rootless.log" "$TMP/nons.log" 2>/dev/null)
if [ -z "$bad" ]; then pass "the controller's and the unprivileged server's logs are clean"; else
    fail "the controller's and the unprivileged server's logs are clean" "$(cat $bad | head -40)"; fi
