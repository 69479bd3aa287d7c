# lifecycle-kinds.sh -- sourced by run.sh: the built-in kinds the controllers
# read in `cueue serve`: DRA ResourceClaimTemplates charged through
# deviceClassMappings (rule 15) and LimitRanges (rule 16). No node agent.
cat >"$TMP/kinds-cfg.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  deviceClassMappings:
  - name: nvidia.com/gpu
    deviceClassNames: [gpu.nvidia.com]
YAML
start_server kinds --controllers all --executor none --config "$TMP/kinds-cfg.yaml" || return 1
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: dra}
---
apiVersion: v1
kind: Namespace
metadata: {name: lr}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: kd-f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: kd-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors:
    - name: kd-f
      resources:
      - {name: cpu, nominalQuota: "8"}
      - {name: nvidia.com/gpu, nominalQuota: "1"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: dra}
spec: {clusterQueue: kd-cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: lr}
spec: {clusterQueue: kd-cq}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.nvidia.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: single-gpu, namespace: dra}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com}
YAML
wait_for "kinds: ClusterQueue active" 10 '^True$' k get cq kd-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'

# kd_job NS NAME CPU [CLAIM TEMPLATE]
kd_job() {
    claims="" tpl=""
    if [ -n "${4:-}" ]; then
        claims=", claims: [{name: gpu}]"
        tpl="resourceClaims: [{name: gpu, resourceClaimTemplateName: $4}]"
    fi
    cat <<YAML | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: $2
  namespace: $1
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "$3"}$claims}}
      $tpl
YAML
}
kd_wl() { # NS JOB -> "reserved reason message" of its workload
    w=$(k -n "$1" get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$2\")]}{.metadata.name}{end}")
    k -n "$1" get workload "$w" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status} {.status.conditions[?(@.type=="QuotaReserved")].reason} {.status.conditions[?(@.type=="QuotaReserved")].message}'
}
kd_usage() { # NS JOB -> the admission's resourceUsage
    w=$(k -n "$1" get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$2\")]}{.metadata.name}{end}")
    k -n "$1" get workload "$w" -o jsonpath='{.status.admission.podSetAssignments[0].resourceUsage}'
}

# ---- 15. DRA: two 1-GPU Jobs against a quota of 1 ------------------------------------------
kd_job dra g1 1 single-gpu
wait_for "dra: the first GPU Job is admitted" 15 '^True ' kd_wl dra g1
expect_exact "dra: charged one nvidia.com/gpu through deviceClassMappings" '{"cpu":"1","nvidia.com/gpu":"1"}' kd_usage dra g1
kd_job dra g2 1 single-gpu
wait_for "dra: the second waits for the GPU" 15 '^False [A-Za-z]+ couldn.t assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor kd-f, 1 more needed' kd_wl dra g2
expect_exact "dra: the ClusterQueue's usage counts one GPU" '1' \
    k get cq kd-cq -o jsonpath='{.status.flavorsUsage[0].resources[?(@.name=="nvidia.com/gpu")].total}'
# The template deleted: the admitted workload keeps its admission (Kueue
# reads templates of pending workloads only); the pending one waits on it.
k -n dra delete resourceclaimtemplate single-gpu >/dev/null
wait_for "dra: a pending workload whose template is deleted waits, Misconfigured" 15 \
    '^False Misconfigured spec\.podSets\[0\]\.template\.spec\.resourceClaims\[0\]: Internal error: failed to get claim spec for ResourceClaimTemplate single-gpu' \
    kd_wl dra g2
expect_grep "dra: the admitted one stays admitted" '^True QuotaReserved ' kd_wl dra g1
expect_exact "dra: ... with its usage" '{"cpu":"1","nvidia.com/gpu":"1"}' kd_usage dra g1
expect_exact "dra: ... still counted by the ClusterQueue" '1' \
    k get cq kd-cq -o jsonpath='{.status.flavorsUsage[0].resources[?(@.name=="nvidia.com/gpu")].total}'
# A template that arrives after its Job: the workload waits, Misconfigured,
# and is charged once it does.
kd_job dra g3 1 late-gpu
wait_for "dra: a Job whose claim template is missing waits, Misconfigured" 15 \
    '^False Misconfigured spec\.podSets\[0\]\.template\.spec\.resourceClaims\[0\]: Internal error: failed to get claim spec for ResourceClaimTemplate late-gpu in podset main: resourceclaimtemplates\.resource\.k8s\.io "late-gpu" not found$' \
    kd_wl dra g3
k -n dra delete job g1 g2 >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: late-gpu, namespace: dra}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com, count: 1}
YAML
wait_for "dra: a template created after its Job is charged" 15 '"nvidia.com/gpu":"1"' kd_usage dra g3
k -n dra delete job g3 >/dev/null

# ---- 16. LimitRange -----------------------------------------------------------------------
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: LimitRange
metadata: {name: pod-max, namespace: lr}
spec:
  limits:
  - type: Pod
    max: {cpu: "2"}
YAML
kd_job lr big 3
wait_for "limitrange: a pod over the Pod max stays pending, Misconfigured" 15 \
    '^False Misconfigured resources didn.t satisfy LimitRange constraints: spec\.podSets\[0\]\.template\.spec: Invalid value: \["cpu"\]: requests must not be above the limitRange max$' \
    kd_wl lr big
expect_exact "limitrange: ... with no admission" "" k -n lr get workloads -o jsonpath='{.items[0].status.admission}'
kd_job lr small 1
wait_for "limitrange: a pod within it is admitted" 15 '^True ' kd_wl lr small
k -n lr patch limitrange pod-max --type=merge -p '{"spec":{"limits":[{"type":"Pod","max":{"cpu":"4"}}]}}' >/dev/null
wait_for "limitrange: raising the max lets the pending one in" 15 '^True ' kd_wl lr big
# Container defaults: a container that asks for nothing is charged defaultRequest.
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: lr}
spec:
  limits:
  - type: Container
    default: {cpu: 500m}
    defaultRequest: {cpu: 250m}
YAML
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: bare
  namespace: lr
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: w, image: busybox, command: ["sleep", "600"]}]
YAML
wait_for "limitrange: a container without requests is admitted" 15 '^True ' kd_wl lr bare
expect_exact "limitrange: ... charged the Container defaultRequest" '{"cpu":"250m"}' kd_usage lr bare
stop_server "$PID"
