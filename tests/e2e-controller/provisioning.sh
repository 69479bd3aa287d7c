# provisioning.sh -- sourced by run.sh: the ProvisioningRequest admission
# check (kueue.x-k8s.io/provisioning-request). The objects of Kueue's
# provisioning-setup.yaml (same names and fields); the test plays the
# cluster autoscaler by setting the requests' conditions, as Kueue's
# integration tests do. In-process first, then `cueue controller` over HTTP
# against `cueue serve --controllers none`.

cat >"$TMP/prov-setup.yaml" <<'YAML'
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
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: 9}
      - {name: memory, nominalQuota: 36Gi}
      - {name: nvidia.com/gpu, nominalQuota: 9}
  admissionChecksStrategy:
    admissionChecks:
    - name: sample-prov
      onFlavors: [default-flavor]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: user-queue}
spec: {clusterQueue: cluster-queue}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: sample-prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: prov-test-config}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata: {name: prov-test-config}
spec:
  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  managedResources: [nvidia.com/gpu]
  retryStrategy: {backoffLimitCount: 2, backoffBaseSeconds: 0, backoffMaxSeconds: 1800}
YAML

# prov_job NAME GPUS: a Job of user-queue, two pods, each with GPUS GPUs
# (0: none), carrying a provreq.kueue.x-k8s.io/ parameter.
prov_job() {
    res="cpu: 100m"
    [ "$2" = 0 ] || res="cpu: 100m, nvidia.com/gpu: $2"
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
  annotations: {provreq.kueue.x-k8s.io/maxRunDurationSeconds: "600"}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        command: [sh, -c, "sleep 1"]
        resources: {requests: {$res}}
YAML
}

# prov_set PR TYPE MESSAGE: the autoscaler sets condition TYPE=True.
prov_set() {
    k -n default patch provisioningrequest "$1" --subresource=status --type=merge -p \
        "{\"status\":{\"conditions\":[{\"type\":\"$2\",\"status\":\"True\",\"reason\":\"$2\",\"message\":\"$3\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}],\"provisioningClassDetails\":{\"pool\":\"p1\"}}}" >/dev/null
}

wl_of() { k -n default get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$1\")]}{.metadata.name}{end}"; }

provisioning() {
    tag=$1
    expect "$tag: Kueue's provisioning setup is accepted" \
        "provisioningrequestconfig.kueue.x-k8s.io/prov-test-config created" k apply -f "$TMP/prov-setup.yaml"
    wait_for "$tag: the AdmissionCheck is Active" 15 '^True Active The admission check is active$' \
        k get admissioncheck sample-prov -o jsonpath='{.status.conditions[?(@.type=="Active")].status} {.status.conditions[?(@.type=="Active")].reason} {.status.conditions[?(@.type=="Active")].message}'
    expect_exact "$tag: the config is defaulted as its CRD says" "2 0 1800" \
        k get prc prov-test-config -o jsonpath='{.spec.retryStrategy.backoffLimitCount} {.spec.retryStrategy.backoffBaseSeconds} {.spec.retryStrategy.backoffMaxSeconds}'

    # A job with no GPU needs no capacity: Ready at once, no request.
    prov_job cpu-only 0 | k apply -f - >/dev/null
    wait_for "$tag: a job without managed resources is admitted" 20 '^True$' \
        k -n default get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="cpu-only")].status.conditions[?(@.type=="Admitted")].status}'
    expect_exact "$tag: its check is Ready: the provisioning request is not needed" \
        "Ready the provisioning request is not needed" \
        k -n default get workloads "$(wl_of cpu-only)" -o jsonpath='{.status.admissionChecks[0].state} {.status.admissionChecks[0].message}'
    k -n default delete job cpu-only --wait=false >/dev/null 2>&1

    # A GPU job waits with its check Pending and one request.
    prov_job gpu-job 1 | k apply -f - >/dev/null
    wait_for "$tag: the GPU job's workload holds quota" 20 '^True$' \
        k -n default get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="gpu-job")].status.conditions[?(@.type=="QuotaReserved")].status}'
    W=$(wl_of gpu-job)
    wait_for "$tag: a ProvisioningRequest <workload>-<check>-1 for it" 15 "^$W-sample-prov-1 check-capacity.autoscaling.x-k8s.io 2 ppt-$W-sample-prov-1-main 600$" \
        k -n default get provisioningrequests -o jsonpath='{range .items[*]}{.metadata.name} {.spec.provisioningClassName} {.spec.podSets[0].count} {.spec.podSets[0].podTemplateRef.name} {.spec.parameters.maxRunDurationSeconds}{"\n"}{end}'
    expect_exact "$tag: its PodTemplate, owned by the request" "ProvisioningRequest $W-sample-prov-1 1" \
        k -n default get podtemplate "ppt-$W-sample-prov-1-main" -o jsonpath='{.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name} {.template.spec.containers[0].resources.requests.nvidia\.com/gpu}'
    expect_exact "$tag: the job waits, suspended, its check Pending" "true Pending" \
        sh -c "kubectl --kubeconfig '$KC' -n default get job gpu-job -o jsonpath='{.spec.suspend}'; printf ' '; kubectl --kubeconfig '$KC' -n default get workload '$W' -o jsonpath='{.status.admissionChecks[0].state}'"
    prov_set "$W-sample-prov-1" Provisioned "capacity is ready"
    wait_for "$tag: Provisioned: the job is admitted and starts" 20 '^false$' \
        k -n default get job gpu-job -o jsonpath='{.spec.suspend}'
    expect_exact "$tag: the check is Ready with the consume annotations" \
        "Ready capacity is ready main $W-sample-prov-1 check-capacity.autoscaling.x-k8s.io" \
        k -n default get workload "$W" -o jsonpath='{.status.admissionChecks[0].state} {.status.admissionChecks[0].message} {.status.admissionChecks[0].podSetUpdates[0].name} {.status.admissionChecks[0].podSetUpdates[0].annotations.autoscaling\.x-k8s\.io/consume-provisioning-request} {.status.admissionChecks[0].podSetUpdates[0].annotations.autoscaling\.x-k8s\.io/provisioning-class-name}'
    expect_exact "$tag: the running job's pod template carries them" \
        "$W-sample-prov-1 check-capacity.autoscaling.x-k8s.io" \
        k -n default get job gpu-job -o jsonpath='{.spec.template.metadata.annotations.autoscaling\.x-k8s\.io/consume-provisioning-request} {.spec.template.metadata.annotations.autoscaling\.x-k8s\.io/provisioning-class-name}'
    if [ -n "${PROV_PODS:-}" ]; then
        wait_for "$tag: and so do its pods" 20 "^$W-sample-prov-1$" \
            k -n default get pods -l job-name=gpu-job -o jsonpath='{range .items[*]}{.metadata.annotations.autoscaling\.x-k8s\.io/consume-provisioning-request}{"\n"}{end}'
    fi
    wait_for "$tag: the events tell the story" 10 'Admission check sample-prov updated state from Pending to Ready with message: capacity is ready' \
        k -n default get events --field-selector "involvedObject.name=$W" -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'
    expect_grep "$tag: ProvisioningRequestCreated event" "Created ProvisioningRequest: \"$W-sample-prov-1\"" \
        k -n default get events --field-selector "involvedObject.name=$W,reason=ProvisioningRequestCreated" -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'
    k -n default delete job gpu-job --wait=false >/dev/null 2>&1
    wait_for "$tag: a finished (deleted) job's request is cleaned up" 20 '^$' \
        k -n default get provisioningrequests -o name

    # A failing request is retried (backoffLimitCount 2), then rejected.
    prov_job fail-job 1 | k apply -f - >/dev/null
    settle 20 '.' wl_of fail-job || return 1
    W=$(wl_of fail-job)
    for a in 1 2 3; do
        settle 20 "^$W-sample-prov-$a\$" k -n default get provisioningrequests -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' || return 1
        prov_set "$W-sample-prov-$a" Failed "no capacity"
    done
    pass "$tag: a Failed request is retried as attempts 2 and 3"
    wait_for "$tag: past the limit the check is Rejected and the workload deactivated" 20 '^false$' \
        k -n default get workload "$W" -o jsonpath='{.spec.active}'
    expect_grep "$tag: the retries and the rejection in the events" 'updated state from Pending to Rejected with message: no capacity' \
        k -n default get events --field-selector "involvedObject.name=$W" -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'
    expect_grep "$tag: Retry with Kueue's message" 'updated state from Pending to Retry with message: Retrying after failure: no capacity' \
        k -n default get events --field-selector "involvedObject.name=$W" -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'
    expect_exact "$tag: the job stays suspended" "true" k -n default get job fail-job -o jsonpath='{.spec.suspend}'
    k -n default delete job fail-job --wait=false >/dev/null 2>&1

    # A config that goes away makes the check inactive.
    k delete prc prov-test-config >/dev/null
    wait_for "$tag: without its config the check is BadParametersRef" 15 '^False BadParametersRef provisioningrequestconfigs.kueue.x-k8s.io "prov-test-config" not found$' \
        k get admissioncheck sample-prov -o jsonpath='{.status.conditions[?(@.type=="Active")].status} {.status.conditions[?(@.type=="Active")].reason} {.status.conditions[?(@.type=="Active")].message}'
}

start_server prov --controllers all --executor local --gpus "" || return 1
PROV_PODS=1 provisioning "provisioning in-process"
stop_server "$PID"

start_server prov-api --controllers none || return 1
"$CUEUE" controller --kubeconfig "$KC" --metrics-bind-address 0 >"$DATA/controller.log" 2>&1 &
CTL_PIDS="$CTL_PIDS $!"
PROV_CPID=$!
k create namespace default >/dev/null 2>&1
PROV_PODS= provisioning "provisioning over HTTP"
stop_server "$PROV_CPID"
expect_exact "provisioning over HTTP: the controller's log is free of sanitizer reports" "" \
    grep -E 'Sanitizer|runtime error:' "$DATA/controller.log"
stop_server "$PID"
