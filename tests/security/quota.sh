# quota.sh -- a tenant cannot run outside its quota through the API: queue
# defaulting and the queue-name requirement, the Kueue webhook's and
# Kubernetes' update rules, the tenants' policy, and manageJobsWithoutQueueName
# with managedJobsNamespaceSelector (sourced by run.sh after lib.sh).
need kubectl

# job NAME [QUEUE [CPU [PARALLELISM [SLEEP [LABELS [ANNOTATIONS]]]]]]: a Job's
# YAML (no namespace: kubectl -n gives it). QUEUE "-" means no queue-name
# label; LABELS and ANNOTATIONS are "key: value" flow-map entries.
job() {
    q=${2:--}
    labels="{${6:-}}"
    if [ "$q" != "-" ]; then labels="{kueue.x-k8s.io/queue-name: $q${6:+, $6}}"; fi
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  labels: $labels
  annotations: {${7:-}}
spec:
  parallelism: ${4:-1}
  completions: ${4:-1}
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: w
        image: busybox
        command: ["sh", "-c", "sleep ${5:-0}"]
        resources: {requests: {cpu: "${3:-1}"}}
YAML
}

# create_as KUBECONFIG NS DESC WANT JOB_ARGS...: create job JOB_ARGS as that
# user; the output contains WANT.
create_as() {
    ckc=$1
    cns=$2
    cdesc=$3
    cwant=$4
    shift 4
    out=$(job "$@" | kt "$ckc" -n "$cns" create -f - 2>&1)
    case "$out" in
    *"$cwant"*) pass "$cdesc" ;;
    *) fail "$cdesc (wanted: $cwant)" "$out" ;;
    esac
}

# wl_of NS JOB: the name of the Job's Workload.
wl_of() {
    k -n "$1" get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$2\")]}{.metadata.name}{end}"
}

cat >"$TMP/queues.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: manual}
spec: {controllerName: example.com/manual}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-a}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: "1"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-b}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: "2"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-checked}
spec:
  namespaceSelector: {}
  admissionChecksStrategy:
    admissionChecks: [{name: manual}]
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: "2"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: team-a}
spec: {clusterQueue: cq-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq-b, namespace: team-b}
spec: {clusterQueue: cq-b}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: checked, namespace: team-b}
spec: {clusterQueue: cq-checked}
YAML

start_server quota --controllers all --executor local || exit 1
note "# quota: queue defaulting, the queue-name requirement and the update rules"
k apply -f "$TMP/queues.yaml" >/dev/null
k patch admissioncheck manual --subresource=status --type=merge \
    -p '{"status":{"conditions":[{"type":"Active","status":"True","reason":"Active","message":"active","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
tenant alice team-a
ALICE=$TKC
tenant bob team-b
BOB=$TKC

# 1. A queue-less Job where a LocalQueue "default" exists gets it (Kueue's
# LocalQueueDefaulting) and waits for quota like any other.
job a-run - 1 1 60 | kt "$ALICE" -n team-a create -f - >/dev/null
expect_exact "a tenant's queue-less Job gets the namespace's default LocalQueue" "default" \
    kt "$ALICE" -n team-a get job a-run -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/queue-name}'
wait_for "  ... is admitted in that queue's ClusterQueue, and runs" 20 '^cq-a false 1$' \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get workloads -o jsonpath='{.items[0].status.admission.clusterQueue} '; kubectl --kubeconfig '$KC' -n team-a get job a-run -o jsonpath='{.spec.suspend} {.status.active}'"
job a-wait - 1 1 | kt "$ALICE" -n team-a create -f - >/dev/null
wait_for "a second one waits for quota: pending, suspended, no pods" 20 '^insufficient (unused )?quota true:$' \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name==\"a-wait\")]}{.status.conditions[?(@.type==\"QuotaReserved\")].message}{end}' | grep -Eo 'insufficient (unused )?quota' | tr '\\n' ' '; kubectl --kubeconfig '$KC' -n team-a get job a-wait -o jsonpath='{.spec.suspend}:'; kubectl --kubeconfig '$KC' -n team-a get pods -l job-name=a-wait -o name"

# 2. Where there is no default LocalQueue, a tenant's queue-less Job is
# refused with the label to set (Kueue's recommended admission policy).
create_as "$BOB" team-b "a tenant's queue-less Job without a default LocalQueue is refused, naming the label" \
    "jobs.batch \"b-noqueue\" is forbidden: The label 'kueue.x-k8s.io/queue-name' is either missing or does not have a value set: a Job of user \"bob\" must name a LocalQueue of namespace \"team-b\"" \
    b-noqueue - 1
expect_exact "  ... and nothing is stored" "" k -n team-b get jobs -o name

# 3. The admin may run an unmanaged Job.
job admin-plain - 1 | k -n team-b create -f - >/dev/null
wait_for "the admin's queue-less Job runs unmanaged" 20 '^True$' \
    k -n team-b get job admin-plain -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
expect_exact "  ... without a Workload" "" k -n team-b get workloads -o name

# 4. Bypasses through updates.
job b-hold lq-b 2 1 60 | k -n team-b create -f - >/dev/null # fills cq-b (admin)
settle 20 '^false$' k -n team-b get job b-hold -o jsonpath='{.spec.suspend}'
job b-pend lq-b 1 1 | kt "$BOB" -n team-b create -f - >/dev/null
settle 20 'insufficient (unused )?quota' \
    sh -c "kubectl --kubeconfig '$KC' -n team-b get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name==\"b-pend\")]}{.status.conditions[?(@.type==\"QuotaReserved\")].message}{end}'"
expect "a tenant cannot unsuspend its pending Job" \
    'jobs.batch "b-pend" is forbidden: User "bob" cannot set spec.suspend to false: Kueue manages this Job' \
    kt "$BOB" -n team-b patch job b-pend --type=merge -p '{"spec":{"suspend":false}}'
expect "  ... nor with a strategic merge patch of the whole spec" 'cannot set spec.suspend to false' \
    kt "$BOB" -n team-b patch job b-pend -p '{"spec":{"suspend":false,"parallelism":1}}'
printf 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: b-pend}\nspec: {suspend: false}\n' >"$TMP/b-pend-ssa.yaml"
expect "  ... nor with server-side apply" 'cannot set spec.suspend to false' \
    kt "$BOB" -n team-b apply --server-side --force-conflicts -f "$TMP/b-pend-ssa.yaml"
kt "$BOB" -n team-b get job b-pend -o json | sed 's/"suspend": true/"suspend": false/' >"$TMP/b-pend.json"
expect "  ... nor with a PUT (kubectl replace)" 'cannot set spec.suspend to false' \
    kt "$BOB" -n team-b replace -f "$TMP/b-pend.json"
sleep 1
expect_exact "  ... so it stays suspended, without pods (cueue serve's node agent starts none)" "true:" \
    sh -c "kubectl --kubeconfig '$KC' -n team-b get job b-pend -o jsonpath='{.spec.suspend}:'; kubectl --kubeconfig '$KC' -n team-b get pods -l job-name=b-pend -o name"
expect "a tenant cannot remove the queue-name label (the Job would be unmanaged)" \
    "jobs.batch \"b-pend\" is forbidden: The label 'kueue.x-k8s.io/queue-name' is either missing" \
    kt "$BOB" -n team-b label job b-pend kueue.x-k8s.io/queue-name-
expect "  ... nor empty it (Kueue: not a DNS subdomain)" 'metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: ""' \
    kt "$BOB" -n team-b label --overwrite job b-pend kueue.x-k8s.io/queue-name=
expect "removing it where a default LocalQueue exists is Kueue's error, for everyone" \
    'metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: "": queue-name must not be empty in namespace with default queue' \
    k -n team-a label job a-wait kueue.x-k8s.io/queue-name-
expect "the queue name cannot change while the Job runs (Kueue), even for the admin" \
    'metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: "lq-x": field is immutable' \
    k -n team-a label --overwrite job a-run kueue.x-k8s.io/queue-name=lq-x
expect "a running Job's pod template cannot change (Kubernetes)" \
    'spec.template: Invalid value: "object": field is immutable' \
    kt "$ALICE" -n team-a patch job a-run --type=json \
    -p '[{"op":"replace","path":"/spec/template/spec/containers/0/resources/requests/cpu","value":"100m"}]'
expect "a suspended Job's containers cannot change either (only scheduling directives)" \
    'spec.template: Invalid value: "object": field is immutable' \
    kt "$BOB" -n team-b patch job b-pend --type=json \
    -p '[{"op":"replace","path":"/spec/template/spec/containers/0/resources/requests/cpu","value":"10m"}]'
expect "  ... its scheduling directives may" "patched" \
    kt "$BOB" -n team-b patch job b-pend --type=merge -p '{"spec":{"template":{"spec":{"nodeSelector":{"disk":"ssd"}}}}}'
expect "completions are immutable (Kubernetes)" 'spec.completions: Invalid value: 5: field is immutable' \
    kt "$BOB" -n team-b patch job b-pend --type=merge -p '{"spec":{"completions":5}}'
expect "a priority class cannot be added to a running Job (Kueue)" \
    'WorkloadPriorityClass cannot be added to a non-suspended workload' \
    kt "$ALICE" -n team-a label job a-run kueue.x-k8s.io/priority-class=high
job b-prio lq-b 1 1 0 "kueue.x-k8s.io/priority-class: low" | kt "$BOB" -n team-b create -f - >/dev/null
expect "nor removed from any Job (Kueue)" 'WorkloadPriorityClass cannot be removed from a workload' \
    kt "$BOB" -n team-b label job b-prio kueue.x-k8s.io/priority-class-
create_as "$BOB" team-b "Kueue's annotations are validated: min-parallelism in range" \
    'metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: Invalid value: 4: should be between 0 and 1' \
    b-min lq-b 1 2 0 "" "kueue.x-k8s.io/job-min-parallelism: \"4\""
create_as "$BOB" team-b "  ... max-exec-time a positive integer" \
    'metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: "soon": strconv.Atoi: parsing "soon": invalid syntax' \
    b-max lq-b 1 1 0 "kueue.x-k8s.io/max-exec-time-seconds: soon"

# 5. What a tenant may not create at all, and Jobs that would not be counted.
cat >"$TMP/nores.yaml" <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: b-nores, labels: {kueue.x-k8s.io/queue-name: lq-b}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: w, image: busybox, command: ["true"]}]
YAML
expect "a tenant's Job whose containers request nothing is refused" \
    'every container of a Job must specify resource requests or limits: spec.template.spec.containers[0] ("w") sets neither' \
    kt "$BOB" -n team-b create -f "$TMP/nores.yaml"
expect "a tenant cannot create a Workload" \
    'cannot create resource "workloads" in API group "kueue.x-k8s.io" in the namespace "team-b"' \
    sh -c "kubectl --kubeconfig '$BOB' -n team-b get workload '$(wl_of team-b b-pend)' -o json | sed 's/\"name\": \"job-b-pend-/\"name\": \"mine-/' | kubectl --kubeconfig '$BOB' -n team-b create -f -"
cat >"$TMP/pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: raw}
spec:
  containers: [{name: w, image: busybox, command: ["true"]}]
YAML
expect "a tenant cannot create a Pod" 'cannot create resource "pods" in API group "" in the namespace "team-b"' \
    kt "$BOB" -n team-b create -f "$TMP/pod.yaml"
expect "a tenant cannot create a LocalQueue (pointing at another team's ClusterQueue)" \
    'cannot create resource "localqueues" in API group "kueue.x-k8s.io" in the namespace "team-b"' \
    sh -c "printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: steal}\nspec: {clusterQueue: cq-a}\n' | kubectl --kubeconfig '$BOB' -n team-b create -f -"

# 6. A suspended Job changed after its Workload reserved quota (here an
# admission check keeps it from starting): Kueue replaces the Workload, so
# the Job never starts with more pods than were admitted.
job b-checked checked 1 1 | sed 's/completions: 1/completions: 2/' | kt "$BOB" -n team-b create -f - >/dev/null
settle 20 '^True False$' \
    k -n team-b get workload "$(wl_of team-b b-checked)" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status} {.status.conditions[?(@.type=="Admitted")].status}'
old_uid=$(k -n team-b get workload "$(wl_of team-b b-checked)" -o jsonpath='{.metadata.uid}')
expect "the tenant raises the suspended Job's parallelism (allowed while suspended)" "patched" \
    kt "$BOB" -n team-b patch job b-checked --type=merge -p '{"spec":{"parallelism":2}}'
wait_for "the Workload that reserved quota for 1 pod is replaced by one for 2" 20 \
    "^[0-9a-f-]+ 2$" sh -c "kubectl --kubeconfig '$KC' -n team-b get workload \"\$(kubectl --kubeconfig '$KC' -n team-b get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name==\"b-checked\")]}{.metadata.name}{end}')\" -o jsonpath='{.metadata.uid} {.spec.podSets[0].count}' | grep -v '^$old_uid '"
expect_grep "  ... with Kueue's DeletedWorkload event" 'DeletedWorkload.*Deleted not matching Workload: team-b/job-b-checked-' \
    k -n team-b get events --field-selector involvedObject.name=b-checked

# 6b. A running Job's parallelism raised beyond what was admitted (Kueue
# lets the change through): the Job is stopped, its Workload replaced by
# one of the new size, which waits for quota, and no pod of it runs.
cat <<'YAML' | k apply -f - >/dev/null
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-grow}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: "2"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: grow, namespace: team-a}
spec: {clusterQueue: cq-grow}
YAML
job a-grow grow 1 1 600 | sed 's/completions: 1/completions: 4/' | kt "$ALICE" -n team-a create -f - >/dev/null
a_running() {
    kubectl --kubeconfig "$KC" -n team-a get pods -l job-name=a-grow \
        --field-selector status.phase=Running -o name | wc -l | tr -d ' '
}
settle 30 '^1$' a_running
expect "a tenant raises a running Job's parallelism beyond its quota (Kueue allows the change)" \
    "patched" kt "$ALICE" -n team-a patch job a-grow --type=merge -p '{"spec":{"parallelism":3}}'
wait_for "  ... the Job is stopped (No matching Workload)" 20 '^true$' \
    k -n team-a get job a-grow -o jsonpath='{.spec.suspend}'
wait_for "  ... its Workload is replaced by one of 3 pods, which waits for quota" 20 '^3 False$' \
    k -n team-a get workload "$(wl_of team-a a-grow)" -o jsonpath='{.spec.podSets[0].count} {.status.conditions[?(@.type=="QuotaReserved")].status}'
wait_for "  ... no pod of it runs" 30 '^0$' a_running
sleep 1
expect_exact "  ... still none a second later, and cq-grow holds no quota" "0 0" \
    sh -c "printf '%s ' \"\$(kubectl --kubeconfig '$KC' -n team-a get pods -l job-name=a-grow --field-selector status.phase=Running -o name | wc -l | tr -d ' ')\"; kubectl --kubeconfig '$KC' get clusterqueue cq-grow -o jsonpath='{.status.flavorsReservation[0].resources[0].total}'"

# 6c. An elastic Job scaled up beyond its quota (Kueue allows it): the
# Pod it runs keeps running on the slice admitted, the new Pods wait at
# the elastic-job scheduling gate, which the tenant cannot lift.
job a-el grow 1 1 600 "" 'kueue.x-k8s.io/elastic-job: "true"' |
    sed 's/completions: 1/completions: 4/' | kt "$ALICE" -n team-a create -f - >/dev/null
el_pods() { # "running gated" Pods of a-el
    r=$(kubectl --kubeconfig "$KC" -n team-a get pods -l job-name=a-el \
        --field-selector status.phase=Running -o name | wc -l | tr -d ' ')
    g=$(kubectl --kubeconfig "$KC" -n team-a get pods -l job-name=a-el \
        -o jsonpath='{range .items[*]}{.spec.schedulingGates[*].name}{"\n"}{end}' |
        grep -c '^kueue.x-k8s.io/elastic-job$')
    echo "$r $g"
}
settle 30 '^1 0$' el_pods
expect "a tenant scales a running elastic Job up beyond its quota (Kueue allows the change)" \
    "patched" kt "$ALICE" -n team-a patch job a-el --type=merge -p '{"spec":{"parallelism":3}}'
wait_for "  ... its 2 new Pods wait at the elastic-job gate, 1 runs" 30 '^1 2$' el_pods
gated_pod=$(kubectl --kubeconfig "$KC" -n team-a get pods -l job-name=a-el \
    -o jsonpath='{range .items[?(@.spec.schedulingGates)]}{.metadata.name}{"\n"}{end}' | head -1)
ROLES="kueue-batch-user-role edit" tenant dave team-a
expect "  ... a tenant who may update Pods cannot lift the gate of one" \
    'only Kueue removes the scheduling gate kueue.x-k8s.io/elastic-job' \
    kt "$TKC" -n team-a patch pod "$gated_pod" --type=json \
    -p '[{"op":"remove","path":"/spec/schedulingGates"}]'
sleep 1
el_state() { # a-el's Pods and cq-grow's reserved cpu
    echo "$(el_pods) $(kubectl --kubeconfig "$KC" get clusterqueue cq-grow -o jsonpath='{.status.flavorsReservation[0].resources[0].total}')"
}
expect_exact "  ... still 1 running a second later, and cq-grow holds its 1 cpu" "1 2 1" el_state
stop_server "$PID"

# 7. manageJobsWithoutQueueName and managedJobsNamespaceSelector.
note "# quota: manageJobsWithoutQueueName, managedJobsNamespaceSelector"
cat >"$TMP/manage.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
manageJobsWithoutQueueName: true
managedJobsNamespaceSelector:
  matchLabels: {kueue-managed: "true"}
YAML
start_server manage --controllers all --executor local --config "$TMP/manage.yaml" || exit 1
queues batch,ops 2
k label namespace batch kueue-managed=true >/dev/null
tenant carol batch ops
CAROL=$TKC
job c-noq - 1 | kt "$CAROL" -n batch create -f - >/dev/null
expect_exact "manageJobsWithoutQueueName: a queue-less Job is created suspended" "true" \
    k -n batch get job c-noq -o jsonpath='{.spec.suspend}'
wait_for "  ... and managed: a Workload without a queue name" 20 '^job-c-noq-[0-9a-f]{5} $' \
    k -n batch get workloads -o jsonpath='{range .items[*]}{.metadata.name} {.spec.queueName}{"\n"}{end}'
sleep 1
expect_exact "  ... which is not admitted: the Job stays suspended, no pods" "true:" \
    sh -c "kubectl --kubeconfig '$KC' -n batch get job c-noq -o jsonpath='{.spec.suspend}:'; kubectl --kubeconfig '$KC' -n batch get pods -o name"
expect "  ... nor can the tenant unsuspend it" 'cannot set spec.suspend to false' \
    kt "$CAROL" -n batch patch job c-noq --type=merge -p '{"spec":{"suspend":false}}'
expect "  ... naming a queue" "labeled" kt "$CAROL" -n batch label job c-noq kueue.x-k8s.io/queue-name=user-queue
wait_for "  ... moves its Workload to the queue, where it is admitted and runs" 20 '^user-queue True True$' \
    sh -c "kubectl --kubeconfig '$KC' -n batch get workloads -o jsonpath='{.items[0].spec.queueName} {.items[0].status.conditions[?(@.type==\"Admitted\")].status} '; kubectl --kubeconfig '$KC' -n batch get job c-noq -o jsonpath='{.status.conditions[?(@.type==\"Complete\")].status}'"
create_as "$CAROL" ops "a tenant's Job in a namespace the selector leaves out is refused, even with a queue" \
    'jobs.batch "c-ops" is forbidden: namespace "ops" is not managed by Kueue (managedJobsNamespaceSelector does not select it)' \
    c-ops user-queue 1
job ops-plain - 1 | k -n ops create -f - >/dev/null
wait_for "the admin's queue-less Job there runs unmanaged" 20 '^True$' \
    k -n ops get job ops-plain -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
expect_exact "  ... without a Workload" "" k -n ops get workloads -o name
