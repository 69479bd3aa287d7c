# integration_rules.sh -- the rules of Kueue's webhooks of the
# integrations, applied by `cueue serve`'s own admission on create and on
# update (the same functions `cueue controller` serves as webhooks): a
# Pod's managed label and pod-group metadata, a Deployment's or JobSet's
# queue name; a JobSet naming the namespace's default LocalQueue
# implicitly gets it; a RayJob's cluster, a LeaderWorkerSet's group size,
# a running object's queue name on update.
# A tenant cannot slip an object Kueue would misread past them.
# (Sourced by run.sh after lib.sh.)

need kubectl

cat >"$TMP/rules-config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod, deployment, statefulset, jobset.x-k8s.io/jobset, ray.io/rayjob,
               leaderworkerset.x-k8s.io/leaderworkerset]
YAML
start_server rules --controllers none --executor none --config "$TMP/rules-config.yaml" || exit 1
for crd in jobset/jobset-crd ray/rayjob-crd leaderworkerset/leaderworkerset-crd; do
    k apply -f "$SRC/tests/data/$crd.yaml" >/dev/null
done
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: team-r}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-s}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: team-r}
spec: {clusterQueue: cq}
YAML
ROLES="kueue-batch-user-role edit" tenant rita team-r team-s
wait_for "set-up: the JobSet kind is served" 10 'jobsets' k api-resources --api-group=jobset.x-k8s.io
settle 10 'leaderworkersets' k api-resources --api-group=leaderworkerset.x-k8s.io
settle 10 'rayjobs' k api-resources --api-group=ray.io

# team-s has no default LocalQueue: Kueue's defaulting leaves the label.
expect "a Pod whose managed label is not true is refused" \
    "metadata.labels[kueue.x-k8s.io/managed]: Forbidden: managed label value can only be 'true'" \
    kt "$TKC" -n team-s run p --image=busybox --restart=Never --labels=kueue.x-k8s.io/managed=yes
expect "a Pod of a group without its total count is refused" \
    "metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Required value" \
    kt "$TKC" -n team-r run p --image=busybox --restart=Never --labels=kueue.x-k8s.io/pod-group-name=g
expect "a Pod of a group named against DNS rules is refused" \
    'metadata.labels[kueue.x-k8s.io/pod-group-name]: Invalid value: "G!"' \
    kt "$TKC" -n team-r run p --image=busybox --restart=Never --labels=kueue.x-k8s.io/pod-group-name=G! \
    --annotations=kueue.x-k8s.io/pod-group-total-count=2
expect_exact "  ... nothing of them was stored" "" sh -c "kubectl --kubeconfig '$TKC' -n team-r get pods -o name && kubectl --kubeconfig '$TKC' -n team-s get pods -o name"
expect "a Deployment whose queue name is no name is refused" \
    'metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: "Q_1"' \
    sh -c "kubectl --kubeconfig '$TKC' -n team-r create deployment web --image=busybox --dry-run=client -o yaml |
        sed 's/^  labels:\$/  labels:\n    kueue.x-k8s.io\/queue-name: Q_1/' | kubectl --kubeconfig '$TKC' create -f -"
expect "a JobSet whose max-exec-time is not a number is refused" \
    'metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: "soon"' \
    sh -c "sed 's/queue-name: user-queue/max-exec-time-seconds: soon/' '$SRC/tests/data/jobset/jobset.yaml' |
        kubectl --kubeconfig '$TKC' -n team-r create -f -"
expect_exact "a JobSet without a queue name gets the namespace's default LocalQueue, suspended" "default true" \
    sh -c "sed -e '/queue-name: user-queue/d' -e '/^  labels:\$/d' -e '/suspend: true/d' '$SRC/tests/data/jobset/jobset.yaml' |
        kubectl --kubeconfig '$TKC' -n team-r create -f - -o 'jsonpath={.metadata.labels.kueue\.x-k8s\.io/queue-name} {.spec.suspend}'"

# On update, as Kueue's validating webhooks judge an UPDATE.
expect "a managed RayJob that keeps its cluster is refused" \
    "spec.shutdownAfterJobFinishes: Invalid value: false: a kueue managed job should delete the cluster after finishing" \
    sh -c "sed -e 's/name: pi/name: keep/' -e 's/shutdownAfterJobFinishes: true/shutdownAfterJobFinishes: false/' '$SRC/tests/data/ray/rayjob.yaml' |
        kubectl --kubeconfig '$KC' -n team-r create -f - 2>&1"
expect_exact "a RayJob naming a queue is created suspended" "true" \
    sh -c "kubectl --kubeconfig '$KC' -n team-r create -f '$SRC/tests/data/ray/rayjob.yaml' -o jsonpath='{.spec.suspend}'"
expect "  ... autoscaling switched on by an update is refused" \
    "spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value: true: a kueue managed job should only use autoscaling when workload slicing is enabled" \
    k -n team-r patch rayjob pi --type=merge -p '{"spec":{"rayClusterSpec":{"enableInTreeAutoscaling":true}}}'
expect "  ... its queue name may not be removed where a default LocalQueue exists" \
    "queue-name must not be empty in namespace with default queue" \
    k -n team-r label rayjob pi kueue.x-k8s.io/queue-name-
k -n team-r patch rayjob pi --type=merge -p '{"spec":{"suspend":false}}' >/dev/null
expect "  ... and once it runs its queue name is fixed" \
    'metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: "other": field is immutable' \
    k -n team-r label --overwrite rayjob pi kueue.x-k8s.io/queue-name=other
expect_exact "  ... nothing of the refused updates was stored" "user-queue " \
    k -n team-r get rayjob pi -o 'jsonpath={.metadata.labels.kueue\.x-k8s\.io/queue-name} {.spec.rayClusterSpec.enableInTreeAutoscaling}'
expect "a managed LeaderWorkerSet's group size is fixed" \
    "spec.leaderWorkerTemplate.size: Invalid value: 3: field is immutable" \
    sh -c "kubectl --kubeconfig '$KC' -n team-r create -f '$SRC/tests/data/leaderworkerset/leaderworkerset.yaml' >/dev/null &&
        kubectl --kubeconfig '$KC' -n team-r patch leaderworkerset vllm --type=merge -p '{\"spec\":{\"leaderWorkerTemplate\":{\"size\":3}}}' 2>&1"
expect "a Deployment's queue name may not be removed" \
    'metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: "": field is immutable' \
    sh -c "kubectl --kubeconfig '$TKC' -n team-s create deployment web --image=busybox --dry-run=client -o yaml |
        sed -e 's/^  labels:\$/  labels:\n    kueue.x-k8s.io\/queue-name: q/' -e 's/resources: {}/resources: {requests: {cpu: 100m}}/' |
        kubectl --kubeconfig '$TKC' create -f - >/dev/null &&
        kubectl --kubeconfig '$TKC' -n team-s label deployment web kueue.x-k8s.io/queue-name- 2>&1"
expect_exact "  ... where a default LocalQueue exists, it becomes that one, as Kueue's defaulting on update does" \
    "default default" \
    sh -c "kubectl --kubeconfig '$TKC' -n team-r create deployment web --image=busybox --dry-run=client -o yaml |
        sed -e 's/^  labels:\$/  labels:\n    kueue.x-k8s.io\/queue-name: q/' -e 's/resources: {}/resources: {requests: {cpu: 100m}}/' |
        kubectl --kubeconfig '$TKC' create -f - >/dev/null &&
        kubectl --kubeconfig '$TKC' -n team-r label deployment web kueue.x-k8s.io/queue-name- >/dev/null &&
        kubectl --kubeconfig '$TKC' -n team-r get deployment web -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/queue-name} {.spec.template.metadata.labels.kueue\.x-k8s\.io/queue-name}'"
expect "a JobSet's priority class may not be added while it runs" \
    "WorkloadPriorityClass cannot be added to a non-suspended workload" \
    sh -c "kubectl --kubeconfig '$KC' -n team-r patch jobset \$(kubectl --kubeconfig '$KC' -n team-r get jobsets -o name | head -1 | cut -d/ -f2) --type=merge -p '{\"spec\":{\"suspend\":false}}' >/dev/null &&
        kubectl --kubeconfig '$KC' -n team-r label \$(kubectl --kubeconfig '$KC' -n team-r get jobsets -o name | head -1) kueue.x-k8s.io/priority-class=high 2>&1"
