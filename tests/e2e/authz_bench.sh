#!/bin/sh
# authz_bench.sh -- what RBAC and webhooks cost a write (not run by ctest).
# usage: sh tests/e2e/authz_bench.sh <cueue binary> [creates] [admin]
# (with "admin", only the first case: it runs on a cueue without RBAC too,
# for a baseline)
#
# Creates ConfigMaps with curl (--parallel 16, keep-alive) over loopback
# HTTP, as the admin (system:masters: no policy is consulted), as a user
# bound to `edit` in the namespace (the RBAC policy decides), the same with
# 500 unrelated RoleBindings in the namespace and 200 ClusterRoleBindings
# (the policy scans more), with a validating webhook that matches nothing
# (the rules are checked on every write), and through a mutating and a
# validating webhook served by tests/security/webhook_server.py (Python,
# TLS, keep-alive; the figure is mostly that server's). Each case starts
# from an empty store of its own. Every step is bounded.
set -u
CUEUE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
N=${2:-5000}
ONLY=${3:-}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cueue-authz-bench.XXXXXX")
PID=
HOOK=
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    [ -n "$HOOK" ] && kill "$HOOK" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# fresh: a new server on an empty data dir, a namespace, and user bob
# bound to edit there (TOKEN).
fresh() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$TMP/data"
    "$CUEUE" serve --insecure-http --listen 127.0.0.1:0 --data-dir "$TMP/data" --controllers none \
        --executor none >"$TMP/log" 2>&1 &
    PID=$!
    i=0
    while [ ! -s "$TMP/data/kubeconfig" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
    URL=$(cat "$TMP/data/endpoint")
    KC="$TMP/data/kubeconfig"
    k create namespace bench >/dev/null
    "$CUEUE" token create --namespace bench --role edit --user bob --data-dir "$TMP/data" \
        >"$TMP/bob.kubeconfig" 2>/dev/null
    TOKEN=$(sed -n 's/^ *token: *//p' "$TMP/bob.kubeconfig")
}
k() { timeout 60 kubectl --kubeconfig "$KC" "$@"; }

# run LABEL [CURL ARGS...]: N creates, 16 at a time.
run() {
    label=$1
    shift
    : >"$TMP/urls"
    i=0
    while [ $i -lt "$N" ]; do
        i=$((i + 1))
        printf 'url = "%s/api/v1/namespaces/bench/configmaps"\noutput = "/dev/null"\n' "$URL" >>"$TMP/urls"
    done
    t0=$(date +%s%N)
    timeout 300 curl -s --parallel --parallel-max 16 -X POST -H 'Content-Type: application/json' \
        --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"c-"},"data":{"k":"v"}}' \
        "$@" -K "$TMP/urls" -w '%{http_code}\n' >"$TMP/codes" 2>/dev/null
    t1=$(date +%s%N)
    ok=$(grep -c '^201$' "$TMP/codes")
    echo "$label: $((ok * 1000000000 / (t1 - t0))) creates/s ($ok of $N answered 201)"
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
fresh
run "admin (system:masters)"
[ "$ONLY" = admin ] && exit 0
fresh
run "user bound to edit" -H "Authorization: Bearer $TOKEN"
fresh
i=0
while [ $i -lt 500 ]; do
    i=$((i + 1))
    printf -- '---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: rb-%d, namespace: bench}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\nsubjects: [{kind: User, name: u%d, apiGroup: rbac.authorization.k8s.io}]\n' $i $i
done >"$TMP/rbs.yaml"
i=0
while [ $i -lt 200 ]; do
    i=$((i + 1))
    printf -- '---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: crb-%d}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\nsubjects: [{kind: User, name: u%d, apiGroup: rbac.authorization.k8s.io}]\n' $i $i
done >>"$TMP/rbs.yaml"
k apply -f "$TMP/rbs.yaml" >/dev/null
run "user bound to edit, 500 RoleBindings + 200 ClusterRoleBindings" -H "Authorization: Bearer $TOKEN"
fresh
cat >"$TMP/hook.yaml" <<'YAML'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: elsewhere}
webhooks:
- name: elsewhere.bench.test
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {url: "https://127.0.0.1:1/never"}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [secrets]}]
YAML
k apply -f "$TMP/hook.yaml" >/dev/null
run "admin, a webhook configured for another kind"

fresh
W="$TMP/wh"
mkdir -p "$W"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$W/ca.key" \
    -out "$W/ca.crt" -days 1 -subj /CN=bench-ca >/dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$W/srv.key" \
    -out "$W/srv.csr" -subj /CN=hooks >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1\n' >"$W/ext"
openssl x509 -req -in "$W/srv.csr" -CA "$W/ca.crt" -CAkey "$W/ca.key" -CAcreateserial \
    -out "$W/srv.crt" -days 1 -extfile "$W/ext" >/dev/null 2>&1
/usr/bin/python3 "$(dirname "$0")/../security/webhook_server.py" "$W/srv.crt" "$W/srv.key" \
    "$W/port" /dev/null >/dev/null 2>&1 &
HOOK=$!
i=0
while [ ! -s "$W/port" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
CAB=$(base64 -w0 "$W/ca.crt")
for kind in Mutating:mutate Validating:validate; do
    printf 'apiVersion: admissionregistration.k8s.io/v1\nkind: %sWebhookConfiguration\nmetadata: {name: %s}\nwebhooks:\n- name: %s.bench.test\n  admissionReviewVersions: [v1]\n  sideEffects: None\n  clientConfig: {url: "https://127.0.0.1:%s/%s", caBundle: "%s"}\n  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]\n' \
        "${kind%%:*}" "${kind#*:}" "${kind#*:}" "$(cat "$W/port")" "${kind#*:}" "$CAB"
done | k apply -f - >/dev/null
N=$((N / 5))
run "admin, through a mutating and a validating webhook"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
