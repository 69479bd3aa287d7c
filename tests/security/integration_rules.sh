# integration_rules.sh -- the rules of Kueue's webhooks of the
# integrations, applied by `cueue serve`'s own admission on create (the
# same functions `cueue controller` serves as webhooks): a Pod's managed
# label and pod-group metadata, a Deployment's or JobSet's queue name; a
# JobSet naming the namespace's default LocalQueue implicitly gets it.
# A tenant cannot slip an object Kueue would misread past them.
# (Sourced by run.sh after lib.sh.)

need kubectl

cat >"$TMP/rules-config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod, deployment, statefulset, jobset.x-k8s.io/jobset]
YAML
start_server rules --controllers none --executor none --config "$TMP/rules-config.yaml" || exit 1
k apply -f "$SRC/tests/data/jobset/jobset-crd.yaml" >/dev/null
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
