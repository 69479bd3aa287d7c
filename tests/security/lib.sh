# lib.sh -- set-up shared by the security topics (sourced; POSIX sh).
#
# Gives each topic a temporary directory, a private HOME (kubectl's cache),
# the end-to-end helpers of tests/e2e/lib.sh (start_server, k, expect, ...)
# and a trap that stops every server it started. A topic ends with finish.

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cueue-sec.XXXXXX")
export HOME="$TMP/home"
mkdir -p "$HOME"
PY=/usr/bin/python3
. "$SRC/tests/e2e/lib.sh"

HOOK_PID=""
sec_cleanup() {
    stop_servers
    if [ -n "$HOOK_PID" ]; then kill "$HOOK_PID" 2>/dev/null; fi
    rm -rf "$TMP"
}
trap sec_cleanup EXIT
trap 'exit 130' INT TERM

# start_hooks: the test admission webhook (webhook_server.py) over TLS on
# 127.0.0.1, with a CA of its own; sets W (its directory: its review log
# is $W/log), PORT, CAB (the CA bundle, base64) and HOOK_PID.
start_hooks() {
    W="$TMP/wh"
    mkdir -p "$W"
    # A CA and a serving certificate for 127.0.0.1 and the Service's name.
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$W/ca.key" \
        -out "$W/ca.crt" -days 1 -subj /CN=webhook-test-ca >/dev/null 2>&1
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$W/srv.key" \
        -out "$W/srv.csr" -subj /CN=hooks >/dev/null 2>&1
    printf 'subjectAltName=IP:127.0.0.1,DNS:hooks.hooks.svc\n' >"$W/ext"
    openssl x509 -req -in "$W/srv.csr" -CA "$W/ca.crt" -CAkey "$W/ca.key" -CAcreateserial \
        -out "$W/srv.crt" -days 1 -extfile "$W/ext" >/dev/null 2>&1
    $PY "$SRC/tests/security/webhook_server.py" "$W/srv.crt" "$W/srv.key" "$W/port" "$W/log" \
        >"$W/server.out" 2>&1 &
    HOOK_PID=$!
    i=0
    while [ ! -s "$W/port" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    PORT=$(cat "$W/port")
    CAB=$(base64 -w0 "$W/ca.crt")
}

# tenant NAME NS...: issue a token for user NAME of the current server's
# data dir, bound in the namespaces to Kueue's kueue-batch-user-role (or to
# the roles listed in $ROLES); writes $TMP/NAME.kubeconfig and sets TKC to it.
tenant() {
    tn=$1
    shift
    args=""
    for ns in "$@"; do args="$args --namespace $ns"; done
    for r in ${ROLES:-}; do args="$args --role $r"; done
    TKC="$TMP/$tn.kubeconfig"
    # shellcheck disable=SC2086
    "$CUEUE" token create $args --user "$tn" --data-dir "$DATA" >"$TKC"
}

# kt KUBECONFIG ARGS...: kubectl as someone else, bounded.
kt() {
    kc=$1
    shift
    timeout "$E2E_TIMEOUT" kubectl --kubeconfig "$kc" "$@"
}

# need CMD...: skip the rest of the topic (passing) when a tool is missing.
need() {
    for c in "$@"; do
        if ! command -v "$c" >/dev/null 2>&1; then
            note "SKIP: $c is needed"
            exit 0
        fi
    done
}

# queues [--labels 'KEY: VALUE, ...'] [--check NAME] [--preempt POLICY]
#        NS[,NS...] CPU [RESOURCE=QUOTA...]:
# the Namespaces (made when missing), the ResourceFlavor "local" (with these
# node labels), the ClusterQueue "cq" (every namespace; CPU cpus and each
# RESOURCE's QUOTA of nominal quota in "local"; the admission check NAME;
# preemption withinClusterQueue POLICY) and the LocalQueue "user-queue" in
# each Namespace; returns once cq is Active.
queues() {
    qlabels=
    qspec=
    while :; do
        case $1 in
        --labels) qlabels="
spec: {nodeLabels: {$2}}" ;;
        --check) qspec="$qspec
  admissionChecksStrategy: {admissionChecks: [{name: $2}]}" ;;
        --preempt) qspec="$qspec
  preemption: {withinClusterQueue: $2}" ;;
        *) break ;;
        esac
        shift 2
    done
    qns=$1
    qres="cpu"
    qquota="
      - {name: cpu, nominalQuota: \"$2\"}"
    shift 2
    for r in "$@"; do
        qres="$qres, ${r%%=*}"
        qquota="$qquota
      - {name: ${r%%=*}, nominalQuota: \"${r#*=}\"}"
    done
    for n in $(echo "$qns" | tr , ' '); do
        k create namespace "$n" >/dev/null 2>&1 # kept as it is when it exists
        printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n'
        printf 'metadata: {name: user-queue, namespace: %s}\nspec: {clusterQueue: cq}\n---\n' "$n"
    done >"$TMP/queues-helper.yaml"
    cat >>"$TMP/queues-helper.yaml" <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: local}$qlabels
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}$qspec
  resourceGroups:
  - coveredResources: [$qres]
    flavors:
    - name: local
      resources:$qquota
YAML
    k apply -f "$TMP/queues-helper.yaml" >/dev/null
    settle 10 '^True$' k get cq cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
}

# finish: stop the servers, check their logs, print the tally; the topic's
# exit status says whether every check passed.
finish() {
    stop_servers
    check_server_logs
    note "$PASS passed, $FAIL failed"
    [ "$FAIL" = 0 ]
}

# start_meta_hook: the test webhook, and the MutatingWebhookConfiguration
# "meta" sending it every ConfigMap create and update: it sets the
# metadata the ConfigMap's annotation hooks.test/meta asks for (JSON).
start_meta_hook() {
    start_hooks
    k apply -f - >/dev/null <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: meta}
webhooks:
- name: meta.hooks.test
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {url: "https://127.0.0.1:$PORT/meta", caBundle: "$CAB"}
  rules: [{operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
YAML
}
