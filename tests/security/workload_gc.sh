# workload_gc.sh -- Kubernetes' garbage collector for Workloads in `cueue
# serve`: a Workload whose owners are all gone when it is stored (made from
# a cache that had not yet seen its owner go, or written so) is deleted, as
# on a cluster, instead of staying until a restart; one with a live owner
# stays; Jobs deleted as soon as they are made leave no Workload.
# (Sourced by run.sh after lib.sh.)

need kubectl
start_server wlgc --controllers all --executor none || exit 1
queues gc 100
k apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: alive, namespace: gc}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["true"]}]
YAML
UID_ALIVE=$(k -n gc get job alive -o jsonpath='{.metadata.uid}')

owned_wl() { # NAME JOB UID [APIVERSION KIND]
    k -n gc create -f - >/dev/null <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: $1
  ownerReferences:
  - {apiVersion: ${4:-batch/v1}, kind: ${5:-Job}, name: $2, uid: $3, controller: true, blockOwnerDeletion: true}
spec:
  queueName: user-queue
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox, resources: {requests: {cpu: 100m}}}]
YAML
}
owned_wl of-gone gone 0f0f0f0f-0000-4000-8000-000000000000
owned_wl of-alive alive "$UID_ALIVE"
owned_wl of-earlier alive 0f0f0f0f-0000-4000-8000-000000000001
wait_for "gc: a Workload whose owner is gone is deleted" 15 'NotFound' \
    k -n gc get workload of-gone
wait_for "gc: ... and one owned by an earlier object of the live one's name" 15 'NotFound' \
    k -n gc get workload of-earlier
expect_exact "gc: one with a live owner stays" "of-alive" \
    k -n gc get workload of-alive -o jsonpath='{.metadata.name}'
# The same for a kind served from a CRD (an integration's, a JobSet).
k apply -f "$SRC/tests/data/jobset/jobset-crd.yaml" >/dev/null
settle 10 'jobsets' k api-resources --api-group=jobset.x-k8s.io -o name
owned_wl of-gone-jobset gone 0f0f0f0f-0000-4000-8000-000000000002 jobset.x-k8s.io/v1alpha2 JobSet
wait_for "gc: a Workload whose JobSet is gone is deleted" 15 'NotFound' \
    k -n gc get workload of-gone-jobset

# Jobs deleted as soon as they are made: no Workload outlives its Job.
: >"$TMP/jobs.yaml"
for i in $(seq 1 40); do
    cat >>"$TMP/jobs.yaml" <<YAML
---
apiVersion: batch/v1
kind: Job
metadata: {name: j$i, namespace: gc, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["true"], resources: {requests: {cpu: 100m}}}]
YAML
done
for r in 1 2 3; do
    k create -f "$TMP/jobs.yaml" >/dev/null
    k -n gc delete jobs -l kueue.x-k8s.io/queue-name=user-queue --wait=false >/dev/null
done
wait_for "gc: Jobs deleted as soon as made leave no Workload" 30 '^of-alive$' \
    k -n gc get workloads -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'
