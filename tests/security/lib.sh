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

sec_cleanup() {
    stop_servers
    rm -rf "$TMP"
}
trap sec_cleanup EXIT
trap 'exit 130' INT TERM

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

# queues NS CPU: the Namespace NS, the ResourceFlavor "local", the
# ClusterQueue "cq" (every namespace, CPU cpus of nominal quota) and the
# LocalQueue "user-queue" in NS; returns once cq is Active.
queues() {
    k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Namespace
metadata: {name: $1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: local}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: local
      resources:
      - {name: cpu, nominalQuota: "$2"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: $1}
spec: {clusterQueue: cq}
YAML
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
