# kubectl.sh -- the quota-lab and everyday kubectl commands against a plain
# HTTP server (sourced by run.sh; uses lib.sh).

D="$SRC/tests/e2e/data"

note "# kubectl against $URL"
expect "version shows the server" "Server Version: v1.32.0-cueue" k version
expect_grep "api-resources lists Kueue kinds with short names" \
    '^clusterqueues +cq +kueue.x-k8s.io/v1beta2 +false +ClusterQueue$' k api-resources
expect_grep "api-resources: LocalQueue short names" '^localqueues +queue,queues,lq ' k api-resources
expect "api-resources lists Jobs" "batch/v1" k api-resources

out=$(k apply -f "$D/queues.yaml" 2>&1)
case "$out" in
*"namespace/kueue-lab created"*"resourceflavor.kueue.x-k8s.io/lab-default created"*"clusterqueue.kueue.x-k8s.io/lab-cq created"*"localqueue.kueue.x-k8s.io/lab-queue created"*)
    pass "apply creates the quota-lab queues" ;;
*) fail "apply creates the quota-lab queues" "$out" ;;
esac
out=$(k apply -f "$D/queues.yaml" 2>&1)
n=$(printf '%s\n' "$out" | grep -c ' unchanged$')
if [ "$n" = 4 ]; then pass "apply again: all unchanged"; else fail "apply again: all unchanged" "$out"; fi
expect "apply --server-side" "clusterqueue.kueue.x-k8s.io/lab-cq serverside-applied" \
    k apply --server-side -f "$D/queues.yaml"

expect "get cq: Kueue's printer columns" "NAME     COHORT   PENDING WORKLOADS" k get cq
expect "get clusterqueue (singular) by name" "lab-cq" k get clusterqueue lab-cq
out=$(k get cq -o wide 2>&1)
case "$out" in
*"STRATEGY"*"ADMITTED WORKLOADS"*"BestEffortFIFO"*) pass "get cq -o wide: priority columns" ;;
*) fail "get cq -o wide: priority columns" "$out" ;;
esac
expect "get lq -n with its ClusterQueue column" "lab-queue   lab-cq" k -n kueue-lab get lq
expect "get queue (short name) all namespaces" "kueue-lab   lab-queue" k get queues -A
expect "get rf -o name" "resourceflavor.kueue.x-k8s.io/lab-default" k get rf -o name
expect "get -o yaml" "kind: ClusterQueue" k get cq lab-cq -o yaml
expect_exact "get -o jsonpath" "BestEffortFIFO" k get cq lab-cq -o 'jsonpath={.spec.queueingStrategy}'
expect_exact "get -o jsonpath on a nested list" "8Gi" \
    k get cq lab-cq -o 'jsonpath={.spec.resourceGroups[0].flavors[0].resources[1].nominalQuota}'
expect "describe cq" "Name:         lab-cq" k describe cq lab-cq
expect "describe ns (defaulted label)" "kubernetes.io/metadata.name=kueue-lab" k describe ns kueue-lab

# A workload, then a watch that sees label, spec and status changes.
expect "create a workload" "workload.kueue.x-k8s.io/wl1 created" k create -f "$D/workload.yaml"
uid=$(k -n kueue-lab get kwl wl1 -o 'jsonpath={.metadata.uid}' 2>/dev/null)
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
sed "s/@UID@/$uid/; s/@NOW@/$now/g" "$D/event.json.in" >"$TMP/event.json"
expect "create an Event" "event/wl1.17a1 created" k create -f "$TMP/event.json"
expect_grep "get events: Event columns" '^[0-9a-z]+ +Normal +QuotaReserved +workload/wl1 +Quota reserved in ClusterQueue lab-cq' \
    k -n kueue-lab get events
expect_grep "get ev -o wide: source, count and name" 'kueue-admission .* 1 +wl1.17a1$' \
    k get ev -A -o wide
expect_grep "describe shows the object's events (involvedObject field selectors)" \
    '^ +Normal +QuotaReserved +[0-9a-z]+ +kueue-admission +Quota reserved' k -n kueue-lab describe kwl wl1
expect "events by field selector" "workload/wl1" \
    k -n kueue-lab get ev --field-selector involvedObject.kind=Workload,type=Normal
expect "events by field selector (no match)" "No resources found" \
    k -n kueue-lab get ev --field-selector type=Warning
timeout 30 kubectl --kubeconfig "$KC" -n kueue-lab get kwl -w >"$TMP/watch.out" 2>&1 &
wpid=$!
i=0
while [ $i -lt 100 ] && ! grep -q '^wl1 ' "$TMP/watch.out"; do # the initial list
    i=$((i + 1))
    sleep 0.1
done
expect "label" "workload.kueue.x-k8s.io/wl1 labeled" k -n kueue-lab label kwl wl1 env=prod
expect "patch --type=merge" "workload.kueue.x-k8s.io/wl1 patched" \
    k -n kueue-lab patch kwl wl1 --type=merge -p '{"spec":{"priority":5}}'
expect "patch --subresource=status" "workload.kueue.x-k8s.io/wl1 patched" \
    k -n kueue-lab patch kwl wl1 --subresource=status --type=merge \
    -p '{"status":{"admission":{"clusterQueue":"lab-cq","podSetAssignments":[{"name":"main","count":1}]},"conditions":[{"type":"Admitted","status":"True","reason":"Admitted","message":"The workload is admitted","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}'
i=0
while [ $i -lt 100 ] && ! grep -q '^wl1 .*lab-cq *True' "$TMP/watch.out"; do
    i=$((i + 1))
    sleep 0.1
done
kill $wpid 2>/dev/null
wait $wpid 2>/dev/null
if [ "$(grep -c '^wl1 ' "$TMP/watch.out")" -ge 4 ] && grep -q '^wl1 .*lab-cq *True' "$TMP/watch.out"; then
    pass "get -w prints a row per change, ending admitted"
else
    fail "get -w prints a row per change, ending admitted" "$(cat "$TMP/watch.out")"
fi
expect "get --show-labels" "env=prod" k -n kueue-lab get kwl --show-labels
expect "status write is visible in the table" "wl1    lab-queue   lab-cq        True" \
    k -n kueue-lab get kwl
expect_exact "a status write does not bump generation" "2" \
    k -n kueue-lab get kwl wl1 -o 'jsonpath={.metadata.generation}'
expect "patch with no change" "patched (no change)" \
    k -n kueue-lab patch kwl wl1 --type=merge -p '{"spec":{"priority":5}}'
expect "patch --type=json" "patched" \
    k -n kueue-lab patch kwl wl1 --type=json -p '[{"op":"add","path":"/metadata/annotations","value":{"a":"b"}}]'
expect "strategic patch on a Kueue kind is refused as by a real cluster" \
    "application/strategic-merge-patch+json is not supported by kueue.x-k8s.io/v1beta2, Kind=ClusterQueue" \
    k patch cq lab-cq -p '{"spec":{"cohortName":"x"}}'
printf '#!/bin/sh\nsed -i "s/priority: 5/priority: 7/" "$1"\n' >"$TMP/editor.sh"
chmod +x "$TMP/editor.sh"
export EDITOR="$TMP/editor.sh"
expect "edit with a non-interactive EDITOR" "workload.kueue.x-k8s.io/wl1 edited" \
    k -n kueue-lab edit kwl wl1
unset EDITOR
expect_exact "the edit is stored" "7" k -n kueue-lab get kwl wl1 -o 'jsonpath={.spec.priority}'
expect "wait for a condition" "condition met" \
    k -n kueue-lab wait --for=condition=Admitted kwl/wl1 --timeout=10s

# Errors, worded as Kubernetes words them.
expect "NotFound" 'Error from server (NotFound): clusterqueues.kueue.x-k8s.io "nope" not found' \
    k get cq nope
expect "NotFound (core group)" 'Error from server (NotFound): namespaces "nons" not found' \
    k get ns nons
expect "AlreadyExists" 'Error from server (AlreadyExists): error when creating' \
    k create -f "$D/queues.yaml"
expect "AlreadyExists message" 'clusterqueues.kueue.x-k8s.io "lab-cq" already exists' \
    k create -f "$D/queues.yaml"
k get cq lab-cq -o yaml >"$TMP/cq-old.yaml" 2>&1
k label cq lab-cq touched=yes >/dev/null 2>&1
expect "Conflict on a stale resourceVersion" \
    'Error from server (Conflict): error when replacing' k replace -f "$TMP/cq-old.yaml"
expect "Conflict message" \
    'Operation cannot be fulfilled on clusterqueues.kueue.x-k8s.io "lab-cq": the object has been modified; please apply your changes to the latest version and try again' \
    k replace -f "$TMP/cq-old.yaml"
expect "Invalid with a field path (name)" \
    "The ResourceFlavor \"a/b\" is invalid: metadata.name: Invalid value: \"a/b\": may not contain '/'" \
    k create -f "$D/slash-name.json"
expect "Invalid (validation)" 'The ClusterQueue "bad" is invalid:' k apply -f "$D/bad-cq.yaml"
expect "Invalid names the field and the rule" \
    'spec.queueingStrategy: Unsupported value: "Random": supported values: "StrictFIFO", "BestEffortFIFO"' \
    k apply -f "$D/bad-cq.yaml"
expect "Invalid on a patch" 'The Workload "wl1" is invalid: spec.podSets[0].count' \
    k -n kueue-lab patch kwl wl1 --type=json -p '[{"op":"replace","path":"/spec/podSets/0/count","value":-1}]'
expect "strict field validation refuses a typo" \
    'Error from server (BadRequest): error when creating "'"$D"'/typo-cq.yaml": ClusterQueue in version "v1beta2" cannot be handled as a ClusterQueue: strict decoding error: unknown field "spec.resourceGroups[0].flavors[0].resources[0].nominalQuote"' \
    k apply -f "$D/typo-cq.yaml"
expect "server-side apply is strict too" 'strict decoding error: unknown field' \
    k apply --server-side -f "$D/typo-cq.yaml"
expect "an unknown field in a patch is dropped with a warning" 'Warning: unknown field "spec.bogus"' \
    k -n kueue-lab patch lq lab-queue --type=merge -p '{"spec":{"bogus":1}}'
expect_exact "the unknown field is not stored" "" \
    k -n kueue-lab get lq lab-queue -o 'jsonpath={.spec.bogus}'
expect "namespace must exist" 'namespaces "nons" not found' \
    k -n nons create -f "$D/plain-job.yaml"

expect "apply a PriorityClass" "priorityclass.scheduling.k8s.io/high created" \
    k apply -f "$D/priorityclass.yaml"
expect_grep "get pc: PriorityClass columns" '^high +1000 +false +[0-9a-z]+ +PreemptLowerPriority$' k get pc

# Jobs, finalizers, deletion.
expect "apply a Job" "job.batch/admitted-job created" k apply -f "$D/admitted-job.yaml"
# A suspended Job's parallelism and scheduling directives may change; its
# containers may not (Kubernetes' Job update validation).
sed 's/parallelism: 2/parallelism: 1/; s/      restartPolicy: Never/      restartPolicy: Never\n      nodeSelector: {disk: ssd}/' \
    "$D/admitted-job.yaml" >"$TMP/job2.yaml"
expect "apply a changed Job (strategic merge patch)" "job.batch/admitted-job configured" \
    k apply -f "$TMP/job2.yaml"
expect_exact "the Job's template merged, its container kept" "1 ssd registry.k8s.io/busybox:1.36.1 worker" \
    k -n kueue-lab get job admitted-job \
    -o 'jsonpath={.spec.parallelism} {.spec.template.spec.nodeSelector.disk} {.spec.template.spec.containers[*].image} {.spec.template.spec.containers[*].name}'
sed 's|image: registry.k8s.io/busybox:1.36.1|image: busybox:1|' "$TMP/job2.yaml" >"$TMP/job3.yaml"
expect "a Job's containers are immutable" \
    'The Job "admitted-job" is invalid: spec.template: Invalid value: "object": field is immutable' \
    k apply -f "$TMP/job3.yaml"
expect "get jobs -o wide: Job columns" "COMPLETIONS   DURATION   AGE   CONTAINERS" \
    k -n kueue-lab get jobs -o wide
expect "get all lists Jobs" "job.batch/admitted-job" k -n kueue-lab get all
expect "describe job (built-in describer)" "Parallelism:" k -n kueue-lab describe job admitted-job
expect "delete a Job" 'job.batch "admitted-job" deleted' k delete -f "$D/admitted-job.yaml"
sed 's/name: plain-job/name: queued-job/' "$D/plain-job.yaml" >"$TMP/queued-job.yaml"
k -n kueue-lab create -f "$TMP/queued-job.yaml" >/dev/null 2>&1
expect_exact "a Job naming a queue is suspended on create, as Kueue's webhook does" "true" \
    k -n kueue-lab get job queued-job -o 'jsonpath={.spec.suspend}'
k -n kueue-lab delete job queued-job >/dev/null 2>&1

k -n kueue-lab patch kwl wl1 --type=merge -p '{"metadata":{"finalizers":["kueue.x-k8s.io/resource-in-use"]}}' >/dev/null 2>&1
expect "delete with a finalizer keeps the object" 'workload.kueue.x-k8s.io "wl1" deleted' \
    k -n kueue-lab delete kwl wl1 --wait=false
expect "the object is terminating" "T" \
    k -n kueue-lab get kwl wl1 -o 'jsonpath={.metadata.deletionTimestamp}'
(sleep 1; k -n kueue-lab patch kwl wl1 --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null 2>&1) &
ppid=$!
expect "wait --for=delete ends when the finalizer goes" "condition met" \
    k -n kueue-lab wait --for=delete kwl/wl1 --timeout=15s
wait $ppid
expect "the object is gone" "NotFound" k -n kueue-lab get kwl wl1

out=$(k get --raw /apis 2>&1)
case "$out" in
*'"name":"kueue.x-k8s.io"'*'"name":"visibility.kueue.x-k8s.io"'*) pass "get --raw /apis: kueue before visibility" ;;
*) fail "get --raw /apis: kueue before visibility" "$out" ;;
esac
expect "visibility API: empty pending list" '"kind":"PendingWorkloadsSummary"' \
    k get --raw /apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/lab-cq/pendingworkloads
expect "visibility API: unknown queue" \
    'clusterqueue.visibility.kueue.x-k8s.io "nope" not found' \
    k get --raw /apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/nope/pendingworkloads
expect "visibility API: LocalQueue" '"items":[]' \
    k get --raw /apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/kueue-lab/localqueues/lab-queue/pendingworkloads
expect "dry run stores nothing" "created (server dry run)" \
    k apply --dry-run=server -f "$D/workload.yaml"
expect "dry run: still absent" "NotFound" k -n kueue-lab get kwl wl1
