# podslots.sh -- a tenant cannot start more sandboxes on this machine than
# the node's pods capacity, however small its pods' requests and however
# large its quota: the local executor runs at most --max-pods (the
# kubelet's flag, default 110) pods at once; the others wait, Pending, and
# start as slots free. (Sourced by run.sh after lib.sh.)

need kubectl
expect "slots: --max-pods 0 is refused" "--max-pods must be 1-100000, got '0'" \
    "$CUEUE" serve --max-pods 0
start_server slots --controllers all --executor local --max-pods 2 || exit 1
queues team 100
expect_exact "slots: the Node's pods capacity is --max-pods" "2/2" \
    k get node cueue-local -o 'jsonpath={.status.capacity.pods}/{.status.allocatable.pods}'
tenant alice team
kt "$TKC" create -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: many, namespace: team, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  parallelism: 3
  completions: 3
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["sleep", "4"], resources: {requests: {cpu: 1m}}}]
YAML
wait_for "slots: the Job is admitted with all three pods" 30 '^3$' \
    sh -c "kubectl --kubeconfig '$KC' -n team get pods -o name | wc -l | tr -d ' '"
wait_for "slots: two run" 30 '^Running Running$' \
    sh -c "kubectl --kubeconfig '$KC' -n team get pods -o jsonpath='{.items[*].status.phase}' | tr ' ' '\n' | grep Running | tr '\n' ' ' | sed 's/ \$//'"
expect "slots: the third waits for a slot, Pending" "waiting for a pod slot: 2 of 2 pods running on node cueue-local" \
    k -n team get pods -o 'jsonpath={.items[*].status.containerStatuses[0].state.waiting.message}'
wait_for "slots: it starts when one ends, and the Job completes" 60 '^True$' \
    k -n team get job many -o 'jsonpath={.status.conditions[?(@.type=="Complete")].status}'
