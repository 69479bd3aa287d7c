# multikueue.sh -- a tenant of a MultiKueue manager can neither reach the
# workers' credentials nor run a dispatched Job on the manager, and the
# kubeconfigs a MultiKueueCluster names cannot point the controller at the
# server's own files or at an unverified server (sourced by run.sh after
# lib.sh).
need kubectl

cat >"$TMP/mk-config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod]
YAML
start_server worker --controllers all --executor local --config "$TMP/mk-config.yaml" || return 1
WKC=$KC
k create namespace team >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: team, name: user-queue}
spec: {clusterQueue: cluster-queue}
YAML
start_server manager --controllers all --executor local --config "$TMP/mk-config.yaml" || return 1
k create namespace kueue-system >/dev/null
k create namespace team >/dev/null
k -n kueue-system create secret generic worker1-secret --from-file=kubeconfig="$WKC" >/dev/null
k apply -f "$SRC/examples/multikueue/multikueue-setup.yaml" >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: team, name: user-queue}
spec: {clusterQueue: cluster-queue}
YAML
ROLES="kueue-batch-user-role edit" tenant alice team
settle 20 '^True$' k get mkc multikueue-test-worker1 \
    -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'

# ---- the workers' credentials ------------------------------------------------------------

expect "a tenant cannot read the workers' kubeconfig Secret" "Forbidden" \
    kt "$TKC" -n kueue-system get secret worker1-secret
expect "a tenant cannot list MultiKueueClusters" "Forbidden" kt "$TKC" get multikueueclusters
expect "a tenant cannot add a worker" "Forbidden" kt "$TKC" apply -f - <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: mine}
spec: {clusterSource: {kubeConfig: {location: worker1-secret}}}
YAML
expect "a tenant cannot change where workloads go" "Forbidden" \
    kt "$TKC" patch multikueueconfig multikueue-test --type=merge -p '{"spec":{"clusters":["mine"]}}'

# ---- the server's own files and unverified servers --------------------------------------

k apply -f - >/dev/null <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: by-path}
spec: {clusterSource: {kubeConfig: {locationType: Path, location: "$DATA/kubeconfig"}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: escape}
spec: {clusterSource: {kubeConfig: {locationType: Path, location: "/etc/multikueue/kubeconfigs/../../passwd"}}}
YAML
wait_for "a kubeconfig path outside /etc/multikueue/kubeconfigs is not read" 20 \
    'BadKubeConfig load client config failed: path not allowed: .* is not under "/etc/multikueue/kubeconfigs"' \
    k get mkc by-path -o jsonpath='{.status.conditions[0].reason} {.status.conditions[0].message}'
wait_for "a kubeconfig path with .. is not read" 20 \
    'BadKubeConfig load client config failed: path not allowed: path contains ".."' \
    k get mkc escape -o jsonpath='{.status.conditions[0].reason} {.status.conditions[0].message}'
sed 's/certificate-authority-data:.*/insecure-skip-tls-verify: true/' "$WKC" >"$TMP/insecure.kubeconfig"
k -n kueue-system create secret generic insecure --from-file=kubeconfig="$TMP/insecure.kubeconfig" >/dev/null
awk '/certificate-authority-data:/ {print "    certificate-authority: /etc/ssl/certs/ca-certificates.crt"; next} {print}' \
    "$WKC" >"$TMP/cafile.kubeconfig"
k -n kueue-system create secret generic cafile --from-file=kubeconfig="$TMP/cafile.kubeconfig" >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: insecure}
spec: {clusterSource: {kubeConfig: {location: insecure}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: cafile}
spec: {clusterSource: {kubeConfig: {location: cafile}}}
YAML
wait_for "a worker without TLS verification is refused" 20 \
    '^False InsecureKubeConfig load client config failed: insecure TLS verification is not allowed' \
    k get mkc insecure -o jsonpath='{.status.conditions[0].status} {.status.conditions[0].reason} {.status.conditions[0].message}'
wait_for "a CA file of the server's host is refused" 20 \
    '^False InsecureKubeConfig load client config failed: certificate-authority file paths are not allowed' \
    k get mkc cafile -o jsonpath='{.status.conditions[0].status} {.status.conditions[0].reason} {.status.conditions[0].message}'

# ---- dispatched Jobs stay off the manager -----------------------------------------------

job() { # name, managedBy line or ""
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  $2
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sleep", "30"], resources: {requests: {cpu: "1"}}}
YAML
}
job dispatched "" | kt "$TKC" -n team apply -f - >/dev/null
expect_exact "a tenant's Job behind a MultiKueue check is MultiKueue's" "kueue.x-k8s.io/multikueue" \
    kt "$TKC" -n team get job dispatched -o jsonpath='{.spec.managedBy}'
expect "a tenant cannot take the Job back to run it on the manager" "field is immutable" \
    kt "$TKC" -n team patch job dispatched --type=merge -p '{"spec":{"managedBy":"kubernetes.io/job-controller"}}'
job elsewhere "managedBy: example.com/mine" | kt "$TKC" -n team apply -f - >/dev/null
wait_for "a Job managed by another controller is refused by the check" 20 \
    '^Rejected The owner is not managed by Kueue: Expecting spec.managedBy to be "kueue.x-k8s.io/multikueue" not "example.com/mine"' \
    k -n team get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="elsewhere")]}{.status.admissionChecks[0].state} {.status.admissionChecks[0].message}{end}'
wait_for "the dispatched Job runs in the worker" 30 '^1$' \
    kubectl --kubeconfig "$WKC" -n team get job dispatched -o jsonpath='{.status.active}'
expect_exact "no Job of the tenant runs on the manager" "" k -n team get pods -o name

# ---- dispatched Pods stay gated on the manager -------------------------------------------

kt "$TKC" -n team apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: held, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  restartPolicy: Never
  containers:
  - {name: w, image: busybox, command: ["sleep", "30"], resources: {requests: {cpu: "1"}}}
YAML
wait_for "a tenant's Pod behind a MultiKueue check runs in the worker" 30 '^Running$' \
    kubectl --kubeconfig "$WKC" -n team get pod held -o jsonpath='{.status.phase}'
expect_exact "and stays gated and unbound on the manager" "kueue.x-k8s.io/admission " \
    k -n team get pod held -o jsonpath='{.spec.schedulingGates[0].name} {.spec.nodeName}'
expect "a tenant cannot ungate it to run it on the manager" "only Kueue removes the scheduling gate" \
    kt "$TKC" -n team patch pod held --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]'
