# preempt.sh -- sourced by run.sh with a server started: a high-priority Job
# preempts a running low-priority one, which is stopped (processes killed,
# Job suspended), requeued, and completes after the high one. The flavor
# has node labels, so the stop must restore the Job's template, which
# Kubernetes allows only once the Job is suspended and its startTime
# cleared: Kueue's three writes, watched here.
cat >"$TMP/pre.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: pre}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: low}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: pre-default}
spec:
  nodeLabels: {instance-type: on-demand}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: pre-cq}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: pre-default
      resources: [{name: cpu, nominalQuota: "2"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: pre-q, namespace: pre}
spec: {clusterQueue: pre-cq}
YAML
# The low job's processes are found by their command line, unique to this
# run: another run of these tests may share the machine.
LOWSLEEP="3.$$"
cat >"$TMP/pre-low.yaml" <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: low
  namespace: pre
  labels: {kueue.x-k8s.io/queue-name: pre-q, kueue.x-k8s.io/priority-class: low}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: w
        image: busybox
        command: ["sh", "-c", "echo low-\$MARK; sleep $LOWSLEEP"]
        env: [{name: MARK, value: started}]
        resources: {requests: {cpu: "1"}}
YAML
cat >"$TMP/pre-high.yaml" <<'YAML'
apiVersion: batch/v1
kind: Job
metadata:
  name: high
  namespace: pre
  labels: {kueue.x-k8s.io/queue-name: pre-q, kueue.x-k8s.io/priority-class: high}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: w
        image: busybox
        command: ["sh", "-c", "echo high; sleep 1"]
        resources: {requests: {cpu: "2"}}
YAML
expect "preemption: queues and priority classes" "clusterqueue.kueue.x-k8s.io/pre-cq created" k apply -f "$TMP/pre.yaml"
wait_for "preemption: pre-cq active" 10 '^True$' k get cq pre-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
expect "preemption: low job created" "created" k apply -f "$TMP/pre-low.yaml"
wait_for "preemption: low job runs two pods" 15 '^2$' k -n pre get job low -o jsonpath='{.status.active}'
expect_grep "preemption: low workload has priority 10 from its class" '^10 low$' \
    k -n pre get workloads -o jsonpath='{range .items[*]}{.spec.priority}{" "}{.spec.priorityClassRef.name}{"\n"}{end}'
expect_grep "preemption: the low job runs with the flavor's node labels" '^on-demand$' \
    k -n pre get job low -o jsonpath='{.spec.template.spec.nodeSelector.instance-type}'
# Every version of the low Job from now on: suspend, the stopping mark,
# startTime set, the flavor's node label.
timeout 60 kubectl --kubeconfig "$KC" -n pre get job low --watch \
    -o jsonpath='{.spec.suspend}/{.metadata.annotations.kueue\.x-k8s\.io/stopping}/{.status.startTime}/{.spec.template.spec.nodeSelector.instance-type}{"\n"}' \
    >"$TMP/pre-low-versions" 2>&1 &
WATCH=$!
sleep 1
expect "preemption: high job created" "created" k apply -f "$TMP/pre-high.yaml"
wait_for "preemption: low workload Evicted=True/Preempted, Preempted=True/InClusterQueue" 15 '^low True Preempted True InClusterQueue' \
    k -n pre get workloads -o jsonpath='{range .items[*]}{.metadata.ownerReferences[0].name}{" "}{.status.conditions[?(@.type=="Evicted")].status}{" "}{.status.conditions[?(@.type=="Evicted")].reason}{" "}{.status.conditions[?(@.type=="Preempted")].status}{" "}{.status.conditions[?(@.type=="Preempted")].reason}{"\n"}{end}'
wait_for "preemption: the low job is stopped (Stopped event with the preemption message)" 15 'Stopped.*Preempted to accommodate a workload' \
    k -n pre get events --field-selector involvedObject.name=low
wait_for "preemption: the low workload was requeued (Requeued=True/Preempted)" 15 '^low True Preempted' \
    k -n pre get workloads -o jsonpath='{range .items[*]}{.metadata.ownerReferences[0].name}{" "}{.status.conditions[?(@.type=="Requeued")].status}{" "}{.status.conditions[?(@.type=="Requeued")].reason}{"\n"}{end}'
wait_for "preemption: the low job is suspended with its template restored" 15 '^true///$' \
    cat "$TMP/pre-low-versions"
kill $WATCH 2>/dev/null
wait $WATCH 2>/dev/null
# The stop as Kueue writes it: suspended and marked (template untouched),
# startTime cleared, then the template restored and the mark removed.
steps=$(awk '
    /^true\/true\/[^\/]+\/on-demand$/ && s == 0 { s = 1 }
    /^true\/true\/\/on-demand$/ && s == 1 { s = 2 }
    /^true\/\/\/$/ && s == 2 { s = 3 }
    END { print s }' "$TMP/pre-low-versions")
if [ "$steps" = 3 ]; then pass "preemption: the Job is stopped in Kueue's three writes (kueue.x-k8s.io/stopping)"; else
    fail "preemption: the Job is stopped in Kueue's three writes (kueue.x-k8s.io/stopping)" "$(cat "$TMP/pre-low-versions")"; fi
# Killing is asynchronous to the status write: give the node agent a few
# seconds (a loaded machine), ending as soon as the processes are gone.
n=0
while left=$(pgrep -f "sleep $LOWSLEEP\$" | head -3) && [ -n "$left" ] && [ $n -lt $((50 * WAIT_SCALE)) ]; do
    sleep 0.2
    n=$((n + 1))
done
# The low job may have been readmitted already only once high finished.
high_done=$(k -n pre get job high -o jsonpath='{.status.succeeded}')
if [ -z "$left" ] || [ "$high_done" = 1 ]; then pass "preemption: the low job's processes were killed"; else
    fail "preemption: the low job's processes were killed" "$(ps -o pid,args -p $(echo $left | tr ' ' ,))"; fi
wait_for "preemption: the high job completes" 20 '^True$' \
    k -n pre get job high -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
wait_for "preemption: the low job is admitted again and completes" 30 '^True$' \
    k -n pre get job low -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
expect_grep "preemption: the low job's pods ran with their env" 'low-started' \
    sh -c "cat '$DATA'/pods/pre_low-*.log"
expect_grep "preemption: events Preempted on the victim workload" 'Preempted.*InClusterQueue|Preempted.*prioritization in the ClusterQueue' \
    k -n pre get events
sed 's/name: low$/name: relabel/' "$TMP/pre-low.yaml" | k apply -f - >/dev/null
wait_for "priority: a workload with the low class" 15 '^relabel 10$' \
    k -n pre get workloads -o jsonpath='{range .items[*]}{.metadata.ownerReferences[0].name}{" "}{.spec.priority}{"\n"}{end}'
expect "priority: relabel the job" "labeled" k -n pre label job relabel kueue.x-k8s.io/priority-class=high --overwrite
wait_for "priority: the workload follows the label (1000, ref high)" 15 '^relabel 1000 high$' \
    k -n pre get workloads -o jsonpath='{range .items[*]}{.metadata.ownerReferences[0].name}{" "}{.spec.priority}{" "}{.spec.priorityClassRef.name}{"\n"}{end}'
expect_grep "priority: event UpdatedWorkload on the job" 'UpdatedWorkload.*Updated workload priority class' \
    k -n pre get events --field-selector involvedObject.name=relabel
expect_grep "preemption: metrics: one preemption by pre-cq, in the ClusterQueue" '^kueue_preempted_workloads_total\{preempting_cluster_queue="pre-cq",reason="InClusterQueue",replica_role="standalone"\} 1$' \
    k get --raw /metrics
expect_grep "preemption: metrics: the eviction counted with reason Preempted" '^kueue_evicted_workloads_total\{cluster_queue="pre-cq",reason="Preempted",underlying_cause="",priority_class="low",replica_role="standalone"\} 1$' \
    k get --raw /metrics
expect "preemption: clean-up" "deleted" k delete namespace pre --timeout=30s
