# podlog.sh -- a tenant's pod cannot make its log cost the server memory or
# disk beyond the log's own size, whatever it prints.
#
# The node agent keeps up to 64 MiB of a pod's output and, beside it, an
# index of when its lines began. With a record per line (its offset and
# time, about 30 bytes), a pod that printed only newlines made that index
# nearly 30 times its log: 4 MiB of newlines gave 115 MiB of index, 64 MiB
# some 2 GB on the data dir's disk; and a server that read the log and its
# index whole to answer (with a table of every line) grew by twice the
# index per request. Here the pod prints 4 MiB of newlines: its index must
# be smaller than its log, the answers right, and the server's peak memory
# (VmHWM from /proc) must grow by less than the log's size while it serves
# `--tail`, `--timestamps`, `--since` and `--limit-bytes`. Under
# AddressSanitizer (make asan), whose quarantine and redzones make memory
# figures meaningless, the requests run but their memory is not judged.
# Also: a pod's log is reached by the pod's name only, and exec, attach and
# port-forward are refused, never run. (Sourced by run.sh after lib.sh.)
need kubectl
sanitized=
if grep -q __asan_init "$CUEUE" 2>/dev/null; then sanitized=1; fi

start_server podlog --controllers all --executor local || exit 1
queues team-a 4 memory=4Gi
# A developer: Kueue's batch-user role for Jobs, Kubernetes' view for the
# pods' logs.
ROLES="kueue-batch-user-role view" tenant alice team-a

mem() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$PID/status"; }

LINES=4194304
kt "$TKC" apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: newlines, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources: {requests: {cpu: 100m}}
        command: [sh, -c, "echo first; head -c $((LINES - 2)) /dev/zero | tr '\\\\0' '\\\\n'; echo last"]
YAML
wait_for "podlog: the tenant's pod prints 4 MiB of newlines" 60 '^Complete=True$' \
    k -n team-a get job newlines -o jsonpath='{range .status.conditions[*]}{.type}{"="}{.status}{"\n"}{end}'
P=$(k -n team-a get pods -l job-name=newlines -o jsonpath='{.items[0].metadata.name}')
LOG="$DATA/pods/team-a_$P.log"
lsize=$(($(wc -c <"$LOG") / 1024))
isize=$(($(wc -c <"$LOG.idx") / 1024))
note "# the log: $lsize KiB, its index: $isize KiB"
if [ "$isize" -lt "$lsize" ]; then pass "podlog: the index of a log of newlines is smaller than the log"; else
    fail "podlog: the index of a log of newlines is smaller than the log" "$isize KiB of index for $lsize KiB of log"
fi

# One empty line per write, each read alone when the agent keeps up: a
# record a read would still be one a line. The index may outgrow the log
# by 4 KiB at most.
kt "$TKC" apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: drip, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources: {requests: {cpu: 100m}}
        command: [sh, -c, "i=0; while [ \$i -lt 20000 ]; do echo; i=\$((i + 1)); done"]
YAML
wait_for "podlog: the tenant's pod prints 20000 newlines one at a time" 60 '^Complete=True$' \
    k -n team-a get job drip -o jsonpath='{range .status.conditions[*]}{.type}{"="}{.status}{"\n"}{end}'
D=$(k -n team-a get pods -l job-name=drip -o jsonpath='{.items[0].metadata.name}')
dl=$(wc -c <"$DATA/pods/team-a_$D.log")
di=$(wc -c <"$DATA/pods/team-a_$D.log.idx")
if [ "$di" -le $((dl + 4096 + 4)) ]; then
    pass "podlog: ... and of one written a line at a time, at most 4 KiB more than the log ($di bytes, log $dl)"
else
    fail "podlog: ... and of one written a line at a time, at most 4 KiB more than the log" "$di bytes of index for $dl of log"
fi
expect_exact "podlog: its lines are all served" "20000" \
    sh -c "kubectl --kubeconfig '$TKC' -n team-a logs '$D' --timestamps | grep -c '^20[0-9-]*T[0-9:.]*Z \$'"

hwm0=$(mem VmHWM)
expect_exact "podlog: --tail=1 is the last line" "last" kt "$TKC" -n team-a logs "$P" --tail=1
expect_exact "podlog: --tail=2 --timestamps stamps its lines" "2" \
    sh -c "kubectl --kubeconfig '$TKC' -n team-a logs '$P' --tail=2 --timestamps | grep -Ec '^20[0-9-]+T[0-9:.]+Z (|last)\$'"
expect_exact "podlog: --timestamps stamps every line" "$LINES" \
    sh -c "kubectl --kubeconfig '$TKC' -n team-a logs '$P' --timestamps | grep -c '^20[0-9-]*T[0-9:.]*Z '"
expect_exact "podlog: --since=1h has every line" "$LINES" \
    sh -c "kubectl --kubeconfig '$TKC' -n team-a logs '$P' --since=1h | wc -l"
expect_exact "podlog: --limit-bytes=6 is the first line" "first" \
    kt "$TKC" -n team-a logs "$P" --limit-bytes=6
hwm1=$(mem VmHWM)
grew=$((hwm1 - hwm0))
note "# server peak memory: $hwm0 KiB before, $hwm1 KiB after (+$grew KiB)"
if [ -n "$sanitized" ]; then
    note "SKIP: memory is not judged under AddressSanitizer"
elif [ "$grew" -lt "$lsize" ]; then
    pass "podlog: serving the log grows the server's peak memory by less than the log's size (+$grew KiB, log $lsize KiB)"
else
    fail "podlog: serving the log grows the server's peak memory by less than the log's size" \
        "+$grew KiB for a log of $lsize KiB"
fi

# The log file is named after the Pod's namespace and name: no other name
# reaches it, nor any other file.
TOK=$(sed -n 's/^ *token: *//p' "$TKC" | head -1)
CA="$DATA/ca.crt"
get() {
    timeout "$E2E_TIMEOUT" curl -s --cacert "$CA" -o "$TMP/get.out" -w '%{http_code}' \
        -H "Authorization: Bearer $TOK" "$@"
}
for n in "..%2F..%2Fadmin-token" "%2E%2E" "team-a_$P" "$P%2F..%2F..%2Fadmin-token" "$P.log"; do
    code=$(get "$URL/api/v1/namespaces/team-a/pods/$n/log")
    if [ "$code" -ge 400 ] && ! grep -q "$(cat "$DATA/admin-token")" "$TMP/get.out"; then
        pass "podlog: pods/$n/log is refused ($code)"
    else
        fail "podlog: pods/$n/log is refused" "$code $(head -c 300 "$TMP/get.out")"
    fi
done

# Nothing runs a command in a pod or connects to it: exec, attach and
# port-forward are answered, never carried out, even for the admin (whom
# RBAC does not stop).
TOK=$(cat "$DATA/admin-token")
for sub in "exec?command=id&stdout=true" "attach?stdout=true" "portforward?ports=80"; do
    code=$(get -X POST "$URL/api/v1/namespaces/team-a/pods/$P/$sub")
    if [ "$code" -ge 400 ]; then pass "podlog: pods/${sub%%\?*} is refused ($code)"; else
        fail "podlog: pods/${sub%%\?*} is refused" "$code $(head -c 300 "$TMP/get.out")"
    fi
done
