# integ-ray.sh -- sourced by run.sh: the RayJob and RayCluster integrations
# in `cueue serve`, as Kueue's integration tests drive them (no KubeRay
# operator: the status is set by hand). A RayJob is created suspended,
# gets a Workload with pod sets head, its worker groups and the submitter,
# is admitted and started with the flavor's node labels in every template,
# evicted (suspended, templates restored, quota released once KubeRay
# reports it suspended) and readmitted, and its Complete deployment status
# finishes the Workload. A RayCluster beyond the quota stays suspended
# until the RayJob is done, then runs, is evicted and readmitted the same
# way, until deleted. A RayService is queued the same way through its
# spec.rayClusterSpec; the RayCluster KubeRay makes for it is not queued.
# Kueue's webhook rules refuse autoscaling and a RayJob that keeps its
# cluster.
cat >"$TMP/ray-cfg.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, ray.io/rayjob, ray.io/raycluster, ray.io/rayservice]
YAML
start_server ray --controllers all --executor none --config "$TMP/ray-cfg.yaml" || return 1
k apply -f "$SRC/tests/data/ray/rayjob-crd.yaml" -f "$SRC/tests/data/ray/raycluster-crd.yaml" \
    -f "$SRC/tests/data/ray/rayservice-crd.yaml" >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: ray}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: ray-f}
spec:
  nodeLabels: {instance-type: on-demand}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: ray-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: ray-f
      resources:
      - {name: cpu, nominalQuota: "4"}
      - {name: memory, nominalQuota: 8Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: ray}
spec: {clusterQueue: ray-cq}
YAML
settle 10 '^True$' k get cq ray-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
settle 10 'rayclusters' k api-resources --api-group=ray.io
settle 10 'rayservices' k api-resources --api-group=ray.io
expect_exact "rayjob: created suspended (the webhook's defaulting)" "true" \
    k -n ray create -f "$SRC/tests/data/ray/rayjob.yaml" -o jsonpath='{.spec.suspend}'
# KubeRay reports a suspended job as such; until then it counts as active.
k -n ray patch rayjob pi --subresource=status --type=merge \
    -p '{"status":{"jobDeploymentStatus":"Suspended"}}' >/dev/null
RJW='{range .items[?(@.metadata.ownerReferences[0].kind=="RayJob")]}{.metadata.name} {range .spec.podSets[*]}{.name}={.count} {end}{"\n"}{end}'
wait_for "rayjob: a Workload rayjob-pi-HASH, pod sets head=1 small=2 submitter=1" 15 \
    '^rayjob-pi-[0-9a-f]{5} head=1 small=2 submitter=1 $' k -n ray get workloads -o jsonpath="$RJW"
wait_for "rayjob: admitted, unsuspended" 15 '^false$' k -n ray get rayjob pi -o jsonpath='{.spec.suspend}'
expect_exact "rayjob: the flavor's node labels in the head, worker and submitter templates" \
    "on-demand on-demand on-demand" \
    k -n ray get rayjob pi -o jsonpath='{.spec.rayClusterSpec.headGroupSpec.template.spec.nodeSelector.instance-type} {.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.nodeSelector.instance-type} {.spec.submitterPodTemplate.spec.nodeSelector.instance-type}'
expect_exact "rayjob: its usage (1 + 2 + KubeRay's submitter: 500m, 200Mi)" "3500m 200Mi" \
    k get cq ray-cq -o jsonpath='{.status.flavorsReservation[0].resources[0].total} {.status.flavorsReservation[0].resources[1].total}'
evict_readmit rayjob ray rayjob pi \
    "$(k -n ray get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].kind=="RayJob")].metadata.name}')" \
    '{.spec.suspend}' \
    '{.spec.rayClusterSpec.headGroupSpec.template.spec.nodeSelector.instance-type} {.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.nodeSelector.instance-type} {.spec.submitterPodTemplate.spec.nodeSelector.instance-type}' \
    '{"status":{"jobDeploymentStatus":"Running"}}' '{"status":{"jobDeploymentStatus":"Suspended"}}'

expect_exact "raycluster: created suspended" "true" \
    k -n ray create -f "$SRC/tests/data/ray/raycluster.yaml" -o jsonpath='{.spec.suspend}'
RCW='{range .items[?(@.metadata.ownerReferences[0].kind=="RayCluster")]}{.metadata.name} {range .spec.podSets[*]}{.name}={.count} {end}{.status.conditions[?(@.type=="QuotaReserved")].status}{"\n"}{end}'
wait_for "raycluster: a Workload raycluster-dev-HASH, head=1 workers=2, beyond the quota" 15 \
    '^raycluster-dev-[0-9a-f]{5} head=1 workers=2 False$' k -n ray get workloads -o jsonpath="$RCW"
expect_exact "raycluster: stays suspended while the quota is used" "true" \
    k -n ray get raycluster dev -o jsonpath='{.spec.suspend}'

k -n ray patch rayjob pi --subresource=status --type=merge \
    -p '{"status":{"jobDeploymentStatus":"Running","jobStatus":"RUNNING","rayClusterStatus":{"state":"ready"}}}' >/dev/null
k -n ray patch rayjob pi --subresource=status --type=merge \
    -p '{"status":{"jobDeploymentStatus":"Complete","jobStatus":"SUCCEEDED","message":"Job finished successfully."}}' >/dev/null
wait_for "rayjob: Complete finishes the Workload (Succeeded)" 15 '^True Succeeded Job finished successfully.$' \
    k -n ray get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].kind=="RayJob")]}{.status.conditions[?(@.type=="Finished")].status} {.status.conditions[?(@.type=="Finished")].reason} {.status.conditions[?(@.type=="Finished")].message}{"\n"}{end}'
wait_for "raycluster: admitted once the RayJob released its quota, unsuspended" 20 '^false$' \
    k -n ray get raycluster dev -o jsonpath='{.spec.suspend}'
expect_exact "raycluster: the flavor's node labels in its groups" "on-demand on-demand" \
    k -n ray get raycluster dev -o jsonpath='{.spec.headGroupSpec.template.spec.nodeSelector.instance-type} {.spec.workerGroupSpecs[0].template.spec.nodeSelector.instance-type}'
evict_readmit raycluster ray raycluster dev \
    "$(k -n ray get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].kind=="RayCluster")].metadata.name}')" \
    '{.spec.suspend}' \
    '{.spec.headGroupSpec.template.spec.nodeSelector.instance-type} {.spec.workerGroupSpecs[0].template.spec.nodeSelector.instance-type}' \
    '{"status":{"state":"ready"}}' '{"status":{"state":"suspended"}}'
k -n ray patch raycluster dev --subresource=status --type=merge -p '{"status":{"state":"ready"}}' >/dev/null
sleep 1
expect_exact "raycluster: ready, still holding its quota (never finished)" "1 3" \
    k get cq ray-cq -o jsonpath='{.status.reservingWorkloads} {.status.flavorsReservation[0].resources[0].total}'
k -n ray delete raycluster dev --wait=false >/dev/null
wait_for "raycluster: deleted, its quota released" 20 '^0$' \
    k get cq ray-cq -o jsonpath='{.status.reservingWorkloads}'

# A RayService (no KubeRay: its status by hand): created with its cluster
# suspended, queued, started with the flavor; evicted, its cluster is
# suspended and restored, and the quota waits until it is no longer Ready;
# it never finishes, and deleting it releases the quota.
expect_exact "rayservice: created with its cluster suspended" "true" \
    k -n ray create -f "$SRC/tests/data/ray/rayservice.yaml" -o jsonpath='{.spec.rayClusterSpec.suspend}'
RSW='{range .items[?(@.metadata.ownerReferences[0].kind=="RayService")]}{.metadata.name} {range .spec.podSets[*]}{.name}={.count} {end}{"\n"}{end}'
wait_for "rayservice: a Workload rayservice-serve-HASH, pod sets head=1 workers=2" 15 \
    '^rayservice-serve-[0-9a-f]{5} head=1 workers=2 $' k -n ray get workloads -o jsonpath="$RSW"
wait_for "rayservice: admitted, its cluster unsuspended" 15 '^false$' \
    k -n ray get rayservice serve -o jsonpath='{.spec.rayClusterSpec.suspend}'
expect_exact "rayservice: the flavor's node labels in its groups" "on-demand on-demand" \
    k -n ray get rayservice serve -o jsonpath='{.spec.rayClusterSpec.headGroupSpec.template.spec.nodeSelector.instance-type} {.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.nodeSelector.instance-type}'
expect_exact "rayservice: its usage in the ClusterQueue" "3" \
    k get cq ray-cq -o jsonpath='{.status.flavorsReservation[0].resources[0].total}'
expect "rayservice: its queue name is fixed while its cluster runs" \
    'metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: "other": field is immutable' \
    k -n ray label --overwrite rayservice serve kueue.x-k8s.io/queue-name=other
# KubeRay's part: the cluster it makes for the service, owned by it, is
# not queued on its own.
RSUID=$(k -n ray get rayservice serve -o jsonpath='{.metadata.uid}')
sed -e 's/name: dev/name: serve-raycluster-x1/' \
    -e "s/^  labels:\$/  ownerReferences: [{apiVersion: ray.io\/v1, kind: RayService, name: serve, uid: $RSUID, controller: true}]\n  labels:/" \
    "$SRC/tests/data/ray/raycluster.yaml" >"$TMP/rs-cluster.yaml"
expect_exact "rayservice: the RayCluster KubeRay makes for it is not suspended" "" \
    k -n ray create -f "$TMP/rs-cluster.yaml" -o jsonpath='{.spec.suspend}'
k -n ray patch rayservice serve --subresource=status --type=merge \
    -p '{"status":{"conditions":[{"type":"Ready","status":"True","reason":"RayServiceReady","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
sleep 1
expect_exact "rayservice: ... nor given a Workload" "" \
    k -n ray get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].kind=="RayCluster")].metadata.name}'
evict_readmit rayservice ray rayservice serve \
    "$(k -n ray get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].kind=="RayService")].metadata.name}')" \
    '{.spec.rayClusterSpec.suspend}' \
    '{.spec.rayClusterSpec.headGroupSpec.template.spec.nodeSelector.instance-type} {.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.nodeSelector.instance-type}' \
    '{"status":{"conditions":[{"type":"Ready","status":"True","reason":"RayServiceReady","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' \
    '{"status":{"conditions":[{"type":"Ready","status":"False","reason":"Suspended","message":"","lastTransitionTime":"2026-01-01T00:00:01Z"}]}}'
W=$(k -n ray get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].kind=="RayService")].metadata.name}')
expect_exact "rayservice: never finished while it serves" "1 " \
    sh -c "kubectl --kubeconfig '$KC' get cq ray-cq -o jsonpath='{.status.reservingWorkloads} ' &&
        kubectl --kubeconfig '$KC' -n ray get workload '$W' -o jsonpath='{.status.conditions[?(@.type==\"Finished\")].status}'"
k -n ray delete rayservice serve --wait=false >/dev/null
wait_for "rayservice: deleted, its quota released" 20 '^0$' \
    k get cq ray-cq -o jsonpath='{.status.reservingWorkloads}'

# Kueue's webhook rules for objects it manages.
sed 's/^  shutdownAfterJobFinishes: true/  shutdownAfterJobFinishes: false/; s/name: pi/name: keep/' \
    "$SRC/tests/data/ray/rayjob.yaml" >"$TMP/ray-keep.yaml"
expect_grep "rayjob: refused unless it deletes its cluster when finished" \
    'spec.shutdownAfterJobFinishes: Invalid value: false' k -n ray create -f "$TMP/ray-keep.yaml"
sed 's/^  workerGroupSpecs:/  enableInTreeAutoscaling: true\n  workerGroupSpecs:/; s/name: dev/name: auto/' \
    "$SRC/tests/data/ray/raycluster.yaml" >"$TMP/ray-auto.yaml"
expect_grep "raycluster: autoscaling refused" 'spec.enableInTreeAutoscaling: Invalid value: true' \
    k -n ray create -f "$TMP/ray-auto.yaml"
sed '/kueue.x-k8s.io\/queue-name/d; s/^  labels:$/  labels: {app: x}/' "$TMP/ray-auto.yaml" >"$TMP/ray-auto-free.yaml"
expect_exact "raycluster: autoscaling is fine when Kueue does not manage it" "" \
    k -n ray create -f "$TMP/ray-auto-free.yaml" -o jsonpath='{.spec.suspend}'
stop_server "$PID"
