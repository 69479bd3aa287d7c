# integ-trainjob.sh -- sourced by run.sh: the TrainJob integration in
# `cueue serve`, as Kueue's integration tests drive it (no Trainer
# controller: the status is set by hand). A TrainJob is created suspended
# with Kueue's runtime patch, waits for its ClusterTrainingRuntime, then
# gets a Workload with the pod sets of the JobSet the Trainer would make
# (numNodes and resourcesPerNode on the trainer step), is admitted and
# started with the flavor in Kueue's runtime patch; one beyond the quota
# stays suspended until the first completes.
cat >"$TMP/tj-cfg.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, trainer.kubeflow.org/trainjob]
YAML
start_server tj --controllers all --executor none --config "$TMP/tj-cfg.yaml" || return 1
for f in trainjob trainingruntime clustertrainingruntime; do
    k apply -f "$SRC/tests/data/trainjob/$f-crd.yaml" >/dev/null
done
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: tj}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tj-f}
spec:
  nodeLabels: {instance-type: on-demand}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: tj-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: tj-f
      resources:
      - {name: cpu, nominalQuota: "6"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: tj}
spec: {clusterQueue: tj-cq}
YAML
settle 10 '^True$' k get cq tj-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
settle 10 'clustertrainingruntimes' k api-resources --api-group=trainer.kubeflow.org
expect_exact "trainjob: created suspended with Kueue's runtime patch (the webhook's defaulting)" \
    "true kueue.x-k8s.io/manager" \
    k -n tj create -f "$SRC/tests/data/trainjob/trainjob.yaml" -o jsonpath='{.spec.suspend} {.spec.runtimePatches[0].manager}'
sleep 1
expect_exact "trainjob: no Workload while its runtime is missing" "" \
    k -n tj get workloads -o jsonpath='{.items[*].metadata.name}'
k apply -f "$SRC/tests/data/trainjob/runtime.yaml" >/dev/null
TJW='{range .items[*]}{.metadata.ownerReferences[0].name} {.metadata.name} {range .spec.podSets[*]}{.name}={.count} {end}{.status.conditions[?(@.type=="QuotaReserved")].status}{"\n"}{end}'
wait_for "trainjob: with the runtime, a Workload trainjob-mnist-HASH, dataset-initializer=1 node=3" 15 \
    '^mnist trainjob-mnist-[0-9a-f]{5} dataset-initializer=1 node=3 True$' k -n tj get workloads -o jsonpath="$TJW"
expect_exact "trainjob: the node pod set has resourcesPerNode" "1500m" \
    k -n tj get workloads -o jsonpath='{.items[0].spec.podSets[1].template.spec.containers[0].resources.requests.cpu}'
wait_for "trainjob: admitted, unsuspended" 15 '^false$' k -n tj get trainjob mnist -o jsonpath='{.spec.suspend}'
expect_exact "trainjob: the flavor in Kueue's runtime patch, per replicated Job" "dataset-initializer=on-demand node=on-demand " \
    k -n tj get trainjob mnist -o jsonpath='{range .spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[*]}{.name}={.template.spec.template.spec.nodeSelector.instance-type} {end}'
expect_exact "trainjob: its usage (500m + 3 x 1500m)" "5" \
    k get cq tj-cq -o jsonpath='{.status.flavorsReservation[0].resources[0].total}'
sed 's/name: mnist$/name: second/' "$SRC/tests/data/trainjob/trainjob.yaml" | k -n tj create -f - >/dev/null
wait_for "trainjob: a second one beyond the quota is pending" 15 \
    '^second trainjob-second-[0-9a-f]{5} dataset-initializer=1 node=3 False$' k -n tj get workloads -o jsonpath="$TJW"
expect_exact "trainjob: and stays suspended" "true" k -n tj get trainjob second -o jsonpath='{.spec.suspend}'
k -n tj patch trainjob mnist --subresource=status --type=merge \
    -p '{"status":{"conditions":[{"type":"Complete","status":"True","reason":"JobsCompleted","message":"TrainJob is completed","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
wait_for "trainjob: Complete finishes the Workload (Succeeded)" 15 '^True Succeeded TrainJob is completed$' \
    k -n tj get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="mnist")]}{.status.conditions[?(@.type=="Finished")].status} {.status.conditions[?(@.type=="Finished")].reason} {.status.conditions[?(@.type=="Finished")].message}{"\n"}{end}'
wait_for "trainjob: the second is admitted and unsuspended once the quota is back" 20 '^false$' \
    k -n tj get trainjob second -o jsonpath='{.spec.suspend}'
W=$(k -n tj get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="second")].metadata.name}')
# Its child JobSet's Jobs run (the Trainer's status, set by hand): evicted,
# it is suspended at once, but Kueue's patch stays until they are gone.
k -n tj patch trainjob second --subresource=status --type=merge \
    -p '{"status":{"jobsStatus":[{"name":"node","active":1,"ready":1,"succeeded":0,"failed":0,"suspended":0}]}}' >/dev/null
k -n tj patch workload "$W" --type=merge -p '{"spec":{"active":false}}' >/dev/null
TJP='{.spec.suspend} {.spec.runtimePatches[0].manager} {range .spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[*]}{.name} {end}'
wait_for "trainjob: evicted while its Jobs run, suspended, Kueue's patch kept" 15 \
    '^true kueue.x-k8s.io/manager dataset-initializer node $' k -n tj get trainjob second -o jsonpath="$TJP"
sleep 1
tj_stopping() { # "patch list | Stopped events QuotaReserved" of TrainJob second
    k -n tj get trainjob second -o jsonpath='{range .spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[*]}{.name} {end}'
    printf '| '
    k -n tj get events --field-selector involvedObject.name=second,reason=Stopped -o jsonpath='{.items[*].reason}'
    k -n tj get workload "$W" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status}'
}
expect_exact "trainjob: ... still kept a second later, no Stopped Event, the quota held" \
    "dataset-initializer node | True" tj_stopping
k -n tj patch trainjob second --subresource=status --type=merge \
    -p '{"status":{"jobsStatus":[{"name":"node","active":0,"ready":0,"succeeded":0,"failed":0,"suspended":1}]}}' >/dev/null
wait_for "trainjob: once its Jobs are gone, Kueue's patch emptied in a second write" 15 \
    '^true kueue.x-k8s.io/manager $' k -n tj get trainjob second -o jsonpath="$TJP"
wait_for "trainjob: ... the Stopped Event" 15 '^Stopped$' \
    k -n tj get events --field-selector involvedObject.name=second,reason=Stopped -o jsonpath='{.items[*].reason}'
wait_for "trainjob: ... and the quota released" 15 '^False$' \
    k -n tj get workload "$W" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status}'
stop_server "$PID"
