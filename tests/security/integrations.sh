# integrations.sh -- tenants and the kinds of Kueue's other integrations in
# `cueue serve` (sourced by run.sh after lib.sh): Kueue's user-facing roles
# let a batch user write RayJobs, RayClusters, TrainJobs and
# LeaderWorkerSets in its namespace only (and no AppWrapper, for which Kueue
# has none); whatever a tenant writes, a queued one is created suspended,
# and one it unsuspends beyond the quota is suspended again.
need kubectl
cat >"$TMP/integ-cfg.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod, ray.io/rayjob, ray.io/raycluster, trainer.kubeflow.org/trainjob,
               leaderworkerset.x-k8s.io/leaderworkerset, workload.codeflare.dev/appwrapper]
YAML
start_server integ --controllers all --executor none --config "$TMP/integ-cfg.yaml" || exit 1
for f in ray/rayjob ray/raycluster trainjob/trainjob leaderworkerset/leaderworkerset appwrapper/appwrapper; do
    k apply -f "$SRC/tests/data/$f-crd.yaml" >/dev/null
done
queues team-a 2 memory=4Gi
k create namespace team-b >/dev/null
settle 10 'leaderworkersets' k api-resources --api-group=leaderworkerset.x-k8s.io
settle 10 'appwrappers' k api-resources --api-group=workload.codeflare.dev
tenant t1 team-a
# A RayJob asking for more than the quota, written unsuspended.
sed 's/^  shutdownAfterJobFinishes: true/  suspend: false\n  shutdownAfterJobFinishes: true/' \
    "$SRC/tests/data/ray/rayjob.yaml" >"$TMP/rayjob.yaml"
expect_exact "a batch user creates a RayJob in its namespace: created suspended" "true" \
    kt "$TKC" -n team-a create -f "$TMP/rayjob.yaml" -o jsonpath='{.spec.suspend}'
expect 'but not in another namespace' 'User "t1" cannot create resource "rayjobs" in API group "ray.io" in the namespace "team-b"' \
    kt "$TKC" -n team-b create -f "$TMP/rayjob.yaml"
# KubeRay's part: the job is reported suspended.
k -n team-a patch rayjob pi --subresource=status --type=merge -p '{"status":{"jobDeploymentStatus":"Suspended"}}' >/dev/null
wait_for "its Workload is beyond the quota" 15 '^False$' \
    k -n team-a get workloads -o jsonpath='{.items[0].status.conditions[?(@.type=="QuotaReserved")].status}'
kt "$TKC" -n team-a patch rayjob pi --type=merge -p '{"spec":{"suspend":false}}' >/dev/null
wait_for "a RayJob its tenant unsuspends beyond the quota is suspended again" 15 '^true$' \
    k -n team-a get rayjob pi -o jsonpath='{.spec.suspend}'
expect_exact "a batch user creates a RayCluster" "true" \
    kt "$TKC" -n team-a create -f "$SRC/tests/data/ray/raycluster.yaml" -o jsonpath='{.spec.suspend}'
expect_exact "a batch user creates a TrainJob" "true" \
    kt "$TKC" -n team-a create -f "$SRC/tests/data/trainjob/trainjob.yaml" -o jsonpath='{.spec.suspend}'
expect_exact "a batch user creates a LeaderWorkerSet, its templates marked" \
    "leaderworkerset.x-k8s.io/leaderworkerset" \
    kt "$TKC" -n team-a create -f "$SRC/tests/data/leaderworkerset/leaderworkerset.yaml" \
    -o jsonpath='{.spec.leaderWorkerTemplate.workerTemplate.metadata.annotations.kueue\.x-k8s\.io/pod-suspending-parent}'
expect "no Kueue role gives a batch user AppWrappers" 'User "t1" cannot create resource "appwrappers"' \
    kt "$TKC" -n team-a create -f "$SRC/tests/data/appwrapper/appwrapper.yaml"
