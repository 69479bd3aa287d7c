# podlog.sh -- `kubectl logs` of a tenant's pod costs the server a bounded
# amount of memory, whatever the pod printed.
#
# The node agent keeps up to 64 MiB of a pod's output and, beside it, an
# index with a record per line (its offset and time, about 30 bytes). A pod
# that prints only newlines makes that index dozens of times its log: here
# 4 MiB of newlines give an index of about 120 MB. A server that read the
# log and its index whole to answer (and a table of every line) grew by
# twice the index per request, 64 MiB of newlines by gigabytes. The
# answers are checked, and the server's peak memory (VmHWM from /proc)
# must grow by less than a quarter of the index's size while it serves
# `--tail=1`, `--timestamps` and `--since`. Under AddressSanitizer (make
# asan), whose quarantine and redzones make memory figures meaningless,
# the requests run but their memory is not judged. Also: a pod's log is
# reached by the pod's name only, and exec, attach and port-forward are
# refused, never run. (Sourced by run.sh after lib.sh.)
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
IDX="$DATA/pods/team-a_$P.log.idx"
isize=$(($(wc -c <"$IDX") / 1024))
note "# index of the log: $isize KiB"

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
elif [ "$grew" -lt $((isize / 4)) ]; then
    pass "podlog: serving the log grows the server's peak memory by less than a quarter of its index (+$grew KiB, index $isize KiB)"
else
    fail "podlog: serving the log grows the server's peak memory by less than a quarter of its index" \
        "+$grew KiB for an index of $isize KiB"
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
