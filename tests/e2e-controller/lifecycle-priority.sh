# lifecycle-priority.sh -- sourced by run.sh: Kueue's
# WorkloadPriorityClassDefaulting (on by default): an object created
# without a kueue.x-k8s.io/priority-class label gets the
# WorkloadPriorityClass named "default" when one exists, so its Workload
# has that class's priority; with the gate off it does not.
cat >"$TMP/prio-cfg.yaml" <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod]
YAML
start_server prio --controllers all --executor none --config "$TMP/prio-cfg.yaml" || return 1

# pr_setup: namespace pr, a ClusterQueue pr-cq with 8 cpu and LocalQueue q.
pr_setup() {
    cat <<YAML | k apply -f - >/dev/null
apiVersion: v1
kind: Namespace
metadata: {name: pr}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: pr-f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: pr-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: pr-f
      resources: [{name: cpu, nominalQuota: "8"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: pr}
spec: {clusterQueue: pr-cq}
YAML
}

# pr_job NAME [LABELS]: a 1-cpu Job in queue q (extra labels "k: v, ...").
pr_job() {
    cat <<YAML | k apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: pr
  labels: {kueue.x-k8s.io/queue-name: q${2:+, $2}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "1"}}}
YAML
}

pr_wpc() { # NAME VALUE
    cat <<YAML | k apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: $1}
value: $2
YAML
}

# pr_wl_prio OWNER-KIND OWNER: "class-kind/class-name priority" of its Workload.
pr_wl_prio() {
    k -n pr get workloads -o json | /usr/bin/python3 -c '
import json, sys
for w in json.load(sys.stdin)["items"]:
    o = [r for r in w["metadata"].get("ownerReferences", []) if r.get("controller")]
    if o and o[0]["kind"] == sys.argv[1] and o[0]["name"] == sys.argv[2]:
        r = w["spec"].get("priorityClassRef") or {}
        print("%s/%s %s" % (r.get("kind", ""), r.get("name", ""), w["spec"].get("priority", "")))
' "$1" "$2"
}

pr_setup
pr_job before
wait_for "priority: without a default class a Job's Workload has none" 10 '^/ 0$' pr_wl_prio Job before
expect_exact "priority: ... and the Job gets no priority-class label" "" \
    k -n pr get job before -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/priority-class}'

pr_wpc default 100
pr_wpc high 1000
pr_job plain
expect_exact "priority: a Job created without a class is labelled with the default one" "default" \
    k -n pr get job plain -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/priority-class}'
wait_for "priority: ... and its Workload has the default class's priority" 10 \
    '^WorkloadPriorityClass/default 100$' pr_wl_prio Job plain
pr_job chosen "kueue.x-k8s.io/priority-class: high"
wait_for "priority: a Job naming a class keeps it" 10 '^WorkloadPriorityClass/high 1000$' \
    pr_wl_prio Job chosen
wait_for "priority: a Job created before the default class keeps no class" 5 '^/ 0$' \
    pr_wl_prio Job before

cat <<YAML | k apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: pr
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  restartPolicy: Never
  containers:
  - {name: w, image: busybox, command: ["sleep", "600"], resources: {requests: {cpu: "1"}}}
YAML
expect_exact "priority: a Pod created without a class is labelled with the default one" "default" \
    k -n pr get pod p -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/priority-class}'
wait_for "priority: ... and its Workload has the default class's priority" 10 \
    '^WorkloadPriorityClass/default 100$' pr_wl_prio Pod p
stop_server "$PID"

# With the gate off, nothing is defaulted.
start_server prio-off --controllers all --executor none \
    --feature-gates WorkloadPriorityClassDefaulting=false || return 1
pr_setup
pr_wpc default 100
pr_job gate-off
expect_exact "priority: with WorkloadPriorityClassDefaulting=false the Job gets no class" "" \
    k -n pr get job gate-off -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/priority-class}'
wait_for "priority: ... and its Workload none" 10 '^/ 0$' pr_wl_prio Job gate-off
stop_server "$PID"
