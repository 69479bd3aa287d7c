# lifecycle-node.sh -- sourced by run.sh: a Job as the node agent's Job
# controller and kubelet give it: its status, its Pods' status in kubectl,
# its logs (follow, since, timestamps, tail) and the usual events.
start_server node --controllers all --executor local || return 1
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: nd}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: nd-f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: nd-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: nd-f
      resources: [{name: cpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: nd}
spec: {clusterQueue: nd-cq}
YAML
wait_for "node: ClusterQueue active" 10 '^True$' k get cq nd-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
# nd_job NAME CPU COMMAND
nd_job() {
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: nd
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: w
        image: busybox
        command: ["sh", "-c", "$3"]
        resources: {requests: {cpu: "$2"}}
YAML
}
nd_job big 100 true >"$TMP/big.yaml"
expect_exact "node: a new Job has status: {}" '{}' k create -f "$TMP/big.yaml" -o jsonpath='{.status}'
expect_exact "node: a new Pod is Pending with its QoS class" "Pending Guaranteed" \
    k create -o jsonpath='{.status.phase} {.status.qosClass}' -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: unbound, namespace: nd}
spec:
  containers:
  - name: c
    image: busybox
    resources: {limits: {cpu: 100m, memory: 64Mi}}
YAML
k -n nd delete pod unbound >/dev/null
sleep 1
expect_exact "node: a Job never started has no active count" "" k -n nd get job big -o jsonpath='{.status.active}'
nd_job talk 1 'for i in 1 2 3 4; do echo line $i; sleep 1; done' | k apply -f - >/dev/null
wait_for "node: the Job's pod runs" 15 '^Running$' \
    k -n nd get pods -l job-name=talk -o jsonpath='{.items[0].status.phase}'
pt=$(k -n nd get pods -l job-name=talk -o jsonpath='{.items[0].metadata.name}')
expect_exact "node: the kubelet keeps the Pod's QoS class (a cpu request only)" "Burstable" \
    k -n nd get pod "$pt" -o jsonpath='{.status.qosClass}'
start=$(date +%s)
k -n nd logs -f "$pt" --timestamps >"$TMP/follow.log" 2>&1
took=$(($(date +%s) - start))
if [ "$took" -ge 1 ]; then pass "node: kubectl logs -f follows until the pod ends (${took}s)"; else
    fail "node: kubectl logs -f follows until the pod ends" "returned after ${took}s"; fi
expect_exact "node: ... with every line" "line 1 line 2 line 3 line 4" \
    sh -c "sed 's/^[^ ]* //' '$TMP/follow.log' | tr '\n' ' ' | sed 's/ \$//'"
expect_grep "node: --timestamps prefixes RFC 3339 times" '^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9:]+(\.[0-9]+)?Z line 4$' cat "$TMP/follow.log"
expect_exact "node: --tail=1" "line 4" k -n nd logs "$pt" --tail=1
expect_exact "node: --since=1h shows all of it" "line 1 line 2 line 3 line 4" \
    sh -c "kubectl --kubeconfig '$KC' -n nd logs '$pt' --since=1h | tr '\n' ' ' | sed 's/ \$//'"
t3=$(sed -n 's/^\([^ ]*\) line 3$/\1/p' "$TMP/follow.log")
expect_exact "node: --since-time from the third line on" "line 3 line 4" \
    sh -c "kubectl --kubeconfig '$KC' -n nd logs '$pt' --since-time='$t3' | tr '\n' ' ' | sed 's/ \$//'"
wait_for "node: a finished pod shows Completed in kubectl get pods" 15 "^$pt +0/1 +Completed " \
    k -n nd get pods --no-headers
nd_job bad 1 'exit 3' | k apply -f - >/dev/null
wait_for "node: a failed pod shows Error" 20 '^bad-[a-z0-9]+ +0/1 +Error ' k -n nd get pods --no-headers
wait_for "node: the Job controller's events (SuccessfulCreate, Completed)" 15 'Completed.*Job completed' \
    k -n nd get events --field-selector involvedObject.name=talk
expect_grep "node: ... SuccessfulCreate" "SuccessfulCreate.*Created pod: $pt" k -n nd get events --field-selector involvedObject.name=talk
expect_grep "node: the scheduler's Scheduled event" "Scheduled.*Successfully assigned nd/$pt to cueue-local" \
    k -n nd get events --field-selector "involvedObject.name=$pt"
expect_grep "node: the kubelet's Started event" 'Started.*Started container w' \
    k -n nd get events --field-selector "involvedObject.name=$pt"
expect_grep "node: the kubelet's Created event" 'Created.*Created container: w' \
    k -n nd get events --field-selector "involvedObject.name=$pt"
k delete ns nd >/dev/null
stop_server "$PID"
