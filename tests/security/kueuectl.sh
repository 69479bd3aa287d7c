# kueuectl.sh -- `kubectl kueue` (the binary as the kubectl-kueue plugin):
# lists with kueuectl's columns and filters, stop and resume, explain; a
# tenant does only what RBAC lets it (sourced by run.sh after lib.sh).
need kubectl

mkdir -p "$TMP/bin"
ln -s "$CUEUE" "$TMP/bin/kubectl-kueue"
PATH="$TMP/bin:$PATH"
export PATH

start_server kq --controllers all --executor none || exit 1
note "# kueuectl: kubectl kueue list/stop/resume/explain"
cat >"$TMP/objs.yaml" <<'YAML'
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
metadata: {name: gpu}
spec:
  nodeLabels: {zone: b, arch: arm}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-a}
spec:
  cohortName: org
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: gpu
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
    - name: missing
      resources: [{name: cpu, nominalQuota: "1"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-b}
spec: {clusterQueue: cq-b}
YAML
k apply -f "$TMP/objs.yaml" >/dev/null
cat <<'YAML' | k -n team-a create -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: j1
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sh", "-c", "sleep 60"], resources: {requests: {cpu: "1"}}}
YAML
# kubectl takes no flags before a plugin's name: the plugin reads $KUBECONFIG.
kk() { KUBECONFIG="$KC" timeout "$E2E_TIMEOUT" kubectl kueue "$@"; }
settle 20 'cq-a +org +0 +1 +true' kk list clusterqueue

expect_grep "list clusterqueue: kueuectl's columns" \
    '^NAME +COHORT +PENDING WORKLOADS +ADMITTED WORKLOADS +ACTIVE +AGE$' kk list clusterqueue
expect_grep "  ... a row" '^cq-a   org      0                   1                    true     [0-9]+s$' \
    kk list clusterqueue
expect_exact "  ... --active=false keeps the inactive ones" "cq-b" \
    sh -c "KUBECONFIG='$KC' kubectl kueue list cq --active=false | sed 1d | cut -d' ' -f1"
expect_exact "list localqueue -A, filtered by --clusterqueue" "team-b      lq     cq-b" \
    sh -c "KUBECONFIG='$KC' kubectl kueue list lq -A --clusterqueue cq-b | sed 1d | cut -c1-23"
expect "list localqueue in a namespace without queues" "No resources found in default namespace." \
    kk list localqueue
expect_grep "list resourceflavor: node labels sorted" '^gpu    arch=arm, zone=b   [0-9]+s$' \
    kk list resourceflavor

expect "stop clusterqueue" "clusterqueue.kueue.x-k8s.io/cq-a stopped" kk stop clusterqueue cq-a
expect_exact "  ... drains it (HoldAndDrain)" "HoldAndDrain" \
    k get clusterqueue cq-a -o jsonpath='{.spec.stopPolicy}'
expect "resume clusterqueue" "clusterqueue.kueue.x-k8s.io/cq-a resumed" kk resume cq cq-a
expect_exact "  ... stopPolicy None" "None" k get clusterqueue cq-a -o jsonpath='{.spec.stopPolicy}'
expect "stop localqueue --keep-already-running" "localqueue.kueue.x-k8s.io/lq stopped" \
    kk stop localqueue lq -n team-a --keep-already-running
expect_exact "  ... holds it (Hold)" "Hold" k -n team-a get localqueue lq -o jsonpath='{.spec.stopPolicy}'
kk resume lq lq -n team-a >/dev/null
W=$(k -n team-a get workloads -o name | sed 's|.*/||')
expect "stop workload" "workload.kueue.x-k8s.io/$W stopped" kk stop workload "$W" -n team-a
expect_exact "  ... deactivates it" "false" k -n team-a get workload "$W" -o jsonpath='{.spec.active}'
expect "resume workload" "workload.kueue.x-k8s.io/$W resumed" kk resume workload "$W" -n team-a
expect "explain, added to kueuectl's commands" "Workload team-a/$W:" kk explain workload "$W" -n team-a
expect "  ... and the plugin's own --kubeconfig flag" "Workload team-a/$W:" \
    kubectl kueue explain workload "$W" -n team-a --kubeconfig "$KC"

note "# kueuectl: list workload, list pods, -o, version, create, delete"
expect_grep "list workload: kueuectl's columns" \
    '^NAME +JOB TYPE +JOB NAME +LOCALQUEUE +CLUSTERQUEUE +STATUS +POSITION IN QUEUE +EXEC TIME +AGE$' \
    kk list workload -n team-a
expect_grep "  ... a row: the Job that owns it, its queues, ADMITTED" \
    "^$W +job\.batch +j1 +lq +cq-a +ADMITTED +[0-9]+s +[0-9]+s$" kk list workload -n team-a
expect_exact "  ... -A adds NAMESPACE, --status admitted keeps it" "team-a $W" \
    sh -c "KUBECONFIG='$KC' kubectl kueue list wl -A --status admitted | sed 1d | awk '{print \$1, \$2}'"
expect "  ... --status pending leaves it out" "No resources found" \
    kk list workload -A --status pending
expect "  ... a status kueuectl has not" 'error: invalid status value (running). Must be "all", "pending", "admitted" or "finished"' \
    kk list workload --status running
expect_exact "  ... --for job/j1 finds it" "$W" \
    sh -c "KUBECONFIG='$KC' kubectl kueue list workload -n team-a --for job.batch/j1 -o name | sed 's|.*/||'"
expect "  ... --for another job finds none" "No resources found in team-a namespace." \
    kk list workload -n team-a --for job/other
expect "  ... --clusterqueue cq-b finds none" "No resources found" \
    kk list workload -A --clusterqueue cq-b
expect "  ... --localqueue lq" "$W" kk list workload -A --localqueue lq
cat <<'YAML' | k -n team-a create -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata:
  name: j2
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sh", "-c", "sleep 60"], resources: {requests: {cpu: "1"}}}
YAML
settle 20 ' j2 ' kk list workload -n team-a --status pending
expect_grep "  ... a pending one: its position in the LocalQueue" \
    '^job-j2-[0-9a-f]+ +job\.batch +j2 +lq +cq-a +PENDING +0 +[0-9]+s$' kk list workload -n team-a
expect_exact "-o name for a list" "clusterqueue.kueue.x-k8s.io/cq-a
clusterqueue.kueue.x-k8s.io/cq-b" kk list clusterqueue -o name
expect_exact "-o json for a list: a v1 List" "List 2" \
    sh -c "KUBECONFIG='$KC' kubectl kueue list cq -o json | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d[\"kind\"], len(d[\"items\"]))'"
expect_exact "-o yaml keeps the filter" "cq-b" \
    sh -c "KUBECONFIG='$KC' kubectl kueue list cq --active=false -o yaml | $PY -c 'import yaml,sys; print(*[i[\"metadata\"][\"name\"] for i in yaml.safe_load(sys.stdin)[\"items\"]])'"
expect "an output format kubectl has not" 'unable to match a printer suitable for the output format "wide2"' \
    kk list cq -o wide2
expect_grep "version" '^Client Version: [0-9]+\.[0-9]+\.[0-9]+$' kk version
expect "list pods --for job/j1: the Job's pods" "No resources found in team-a namespace." \
    kk list pods -n team-a --for job/j1
k -n team-a apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: js1-leader-0
  labels: {jobset.sigs.k8s.io/jobset-name: js1}
spec:
  containers: [{name: c, image: busybox, command: ["true"]}]
---
apiVersion: v1
kind: Pod
metadata:
  name: pt1-master-0
  labels: {training.kubeflow.org/job-name: pt1, training.kubeflow.org/operator-name: pytorchjob-controller}
spec:
  containers: [{name: c, image: busybox, command: ["true"]}]
YAML
expect_exact "list pods --for jobset.jobset.x-k8s.io/js1: a JobSet's pods, by Kueue's label" \
    "pod/js1-leader-0" kk list pods -n team-a --for jobset.jobset.x-k8s.io/js1 -o name
expect_exact "  ... a PyTorchJob's (its name and operator labels)" "pod/pt1-master-0" \
    kk list pods -n team-a --for pytorchjob/pt1 -o name
expect_exact "  ... not a TFJob of that name" "" kk list pods -n team-a --for tfjob/pt1 -o name
expect "  ... a kind in another group is not one of them" "error: unsupported kind: jobset.batch" \
    kk list pods -n team-a --for jobset.batch/js1
expect "list pods --for an unsupported kind" "error: unsupported kind: deployment" \
    kk list pods -n team-a --for deployment/x
expect "list pods without --for" 'error: required flag(s) "for" not set' kk list pods

expect "create resourceflavor" "resourceflavor.kueue.x-k8s.io/cpu created" \
    kk create resourceflavor cpu --node-labels zone=a,arch=x86 --node-taints gpu=yes:NoSchedule \
    --tolerations dedicated:NoExecute
expect_exact "  ... labels, taints, tolerations" 'a|NoSchedule|Exists' \
    k get resourceflavor cpu -o jsonpath='{.spec.nodeLabels.zone}|{.spec.nodeTaints[0].effect}|{.spec.tolerations[0].operator}'
expect "create clusterqueue" "clusterqueue.kueue.x-k8s.io/cq-new created" \
    kk create clusterqueue cq-new --cohort org --queuing-strategy StrictFIFO \
    --reclaim-within-cohort Any --preemption-within-cluster-queue LowerPriority \
    --nominal-quota "cpu:cpu=4;memory=8Gi,gpu:cpu=2;memory=1Gi" --borrowing-limit "cpu:cpu=1" \
    --lending-limit "gpu:memory=512Mi"
expect_exact "  ... one resource group for flavors covering the same resources" \
    'org|StrictFIFO|Any|LowerPriority|cpu memory|cpu gpu|4|1|512Mi' \
    k get clusterqueue cq-new -o jsonpath='{.spec.cohortName}|{.spec.queueingStrategy}|{.spec.preemption.reclaimWithinCohort}|{.spec.preemption.withinClusterQueue}|{.spec.resourceGroups[0].coveredResources[*]}|{.spec.resourceGroups[0].flavors[*].name}|{.spec.resourceGroups[0].flavors[0].resources[0].nominalQuota}|{.spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit}|{.spec.resourceGroups[0].flavors[1].resources[1].lendingLimit}'
expect "  ... a bad quota says which flag" "error: invalid --nominal-quota: invalid resources specification" \
    kk create clusterqueue cq-bad --nominal-quota "cpu=4"
expect "  ... the API's validation error, naming the object" 'error: ClusterQueue "cq-bad": spec.queueingStrategy: Unsupported value: "Sometimes"' \
    kk create clusterqueue cq-bad --queuing-strategy Sometimes
expect "create clusterqueue --dry-run=client creates nothing" \
    "clusterqueue.kueue.x-k8s.io/cq-dry created (client dry run)" kk create cq cq-dry --dry-run=client
expect "  ... nothing" 'NotFound' k get clusterqueue cq-dry
expect "create localqueue" "localqueue.kueue.x-k8s.io/lq2 created" \
    kk create localqueue lq2 -n team-a -c cq-new
expect "  ... of an unknown ClusterQueue" 'clusterqueues.kueue.x-k8s.io "nope" not found' \
    kk create localqueue lq3 -n team-a -c nope
expect "  ... unless --ignore-unknown-cq" "localqueue.kueue.x-k8s.io/lq3 created" \
    kk create localqueue lq3 -n team-a -c nope --ignore-unknown-cq
expect "  ... without --clusterqueue" "error: clusterqueue must be specified" \
    kk create localqueue lq4 -n team-a
expect_exact "  ... -o json prints the stored object" "cq-new" \
    sh -c "KUBECONFIG='$KC' kubectl kueue create lq lq5 -n team-a -c cq-new -o json | $PY -c 'import json,sys; print(json.load(sys.stdin)[\"spec\"][\"clusterQueue\"])'"

expect "delete workload asks before deleting its Job" "Deletion is canceled" \
    sh -c "echo n | KUBECONFIG='$KC' kubectl kueue delete workload $W -n team-a"
expect "  ... and names it" "  - jobs.batch/j1 associated with the team-a/$W workload" \
    sh -c "echo n | KUBECONFIG='$KC' kubectl kueue delete workload $W -n team-a"
expect_exact "  ... the Job is still there" "j1" k -n team-a get job j1 -o jsonpath='{.metadata.name}'
expect "  ... a name is required" "error: requires at least 1 arg(s), only received 0" \
    kk delete workload -n team-a
expect "  ... an unknown one" 'workloads.kueue.x-k8s.io "nope" not found' \
    kk delete workload nope -n team-a
expect "  ... kwl is kueuectl's delete too, not kubectl's" "Deletion is canceled" \
    sh -c "echo n | KUBECONFIG='$KC' kubectl kueue delete kwl $W -n team-a"

tenant alice team-a
expect "a tenant cannot stop a ClusterQueue" \
    'clusterqueues.kueue.x-k8s.io "cq-a" is forbidden: User "alice" cannot patch resource "clusterqueues"' \
    env KUBECONFIG="$TKC" kubectl kueue stop cq cq-a
expect "  ... nor list another namespace's LocalQueues" \
    'User "alice" cannot list resource "localqueues" in API group "kueue.x-k8s.io" in the namespace "team-b"' \
    env KUBECONFIG="$TKC" kubectl kueue list lq -n team-b
expect "  ... nor create a ClusterQueue" \
    'clusterqueues.kueue.x-k8s.io is forbidden: User "alice" cannot create resource "clusterqueues"' \
    env KUBECONFIG="$TKC" kubectl kueue create cq evil
expect "  ... nor list another namespace's Workloads" \
    'User "alice" cannot list resource "workloads" in API group "kueue.x-k8s.io" in the namespace "team-b"' \
    env KUBECONFIG="$TKC" kubectl kueue list workload -n team-b
expect "  ... nor delete one there" \
    'User "alice" cannot get resource "workloads" in API group "kueue.x-k8s.io" in the namespace "team-b"' \
    env KUBECONFIG="$TKC" kubectl kueue delete workload x -n team-b --yes
expect_grep "  ... but lists its own" "^$W +job\.batch +j1 +lq" \
    env KUBECONFIG="$TKC" kubectl kueue list workload -n team-a

expect "delete workload --dry-run=client deletes nothing" "jobs.batch/j1 deleted (client dry run)" \
    kk delete workload "$W" -n team-a --dry-run=client
expect_exact "  ... nothing" "j1" k -n team-a get job j1 -o jsonpath='{.metadata.name}'
expect "delete workload --yes deletes its Job" "jobs.batch/j1 deleted" \
    kk delete workload "$W" -n team-a --yes
settle 20 'NotFound' k -n team-a get workload "$W"
expect "  ... and the Workload goes with it" "NotFound" k -n team-a get workload "$W"

note "# kueuectl: --dry-run=server, pass-through commands, completion"
expect "create --dry-run=server: the server checks it, stores nothing" \
    "clusterqueue.kueue.x-k8s.io/cq-srv created (server dry run)" kk create cq cq-srv --dry-run=server
expect "  ... nothing" 'NotFound' k get clusterqueue cq-srv
expect "  ... and its refusals are the server's" \
    'error: ClusterQueue "cq-srv": spec.queueingStrategy: Unsupported value: "Sometimes"' \
    kk create cq cq-srv --queuing-strategy Sometimes --dry-run=server
expect "  ... as are a tenant's (RBAC holds for dry runs)" \
    'clusterqueues.kueue.x-k8s.io is forbidden: User "alice" cannot create resource "clusterqueues"' \
    env KUBECONFIG="$TKC" kubectl kueue create cq evil --dry-run=server
expect "kueuectl's words for a bad --dry-run" \
    'error: invalid dry-run value (maybe). Must be "none", "server", or "client"' \
    kk create cq cq-srv --dry-run=maybe
expect "stop --dry-run=server" "clusterqueue.kueue.x-k8s.io/cq-a stopped (server dry run)" \
    kk stop cq cq-a --dry-run=server
expect_exact "  ... leaves it running" "None" k get clusterqueue cq-a -o jsonpath='{.spec.stopPolicy}'
expect "stop --dry-run=client -o yaml shows what it would be" "stopPolicy: Hold" \
    kk stop cq cq-a --keep-already-running --dry-run=client -o yaml
expect_exact "  ... unsent" "None" k get clusterqueue cq-a -o jsonpath='{.spec.stopPolicy}'
expect_exact "resume -o name" "localqueue.kueue.x-k8s.io/lq" kk resume lq lq -n team-a -o name
BEFORE=$(k -n team-a get workloads,jobs -o name)
expect "delete workload --all --dry-run=server" "deleted (server dry run)" \
    kk delete workload -n team-a --dry-run=server --all
expect_exact "  ... deletes nothing" "$BEFORE" k -n team-a get workloads,jobs -o name

expect_exact "get clusterqueue is kubectl's own (pass-through)" "$(k get cq)" kk get cq
expect_grep "  ... describe localqueue" '^Kind: +LocalQueue$' kk describe lq lq -n team-a
expect "  ... patch resourceflavor" "resourceflavor.kueue.x-k8s.io/gpu patched" \
    kk patch rf gpu --type=merge -p '{"metadata":{"labels":{"tier":"x"}}}'
expect "  ... delete clusterqueue" 'clusterqueue.kueue.x-k8s.io "cq-new" deleted' \
    kk delete cq cq-new --wait=false
expect "  ... with a tenant's rights, not more" 'User "alice" cannot get resource "workloads" in API group "kueue.x-k8s.io" in the namespace "team-b"' \
    env KUBECONFIG="$TKC" kubectl kueue get kwl x -n team-b
expect "  ... and kubectl must be on PATH" 'error: pass-through commands are not available: exec: "kubectl"' \
    env PATH=/nonexistent "$TMP/bin/kubectl-kueue" get cq

ln -s "$CUEUE" "$TMP/bin/kubectl_complete-kueue"
expect_exact "completion: the verbs" "stop
:4" kk __complete st
expect_exact "  ... the kinds a verb takes" "clusterqueue
localqueue
workload
:4" kk __complete resume ""
expect_exact "  ... the names, from the server" "lq
lq2
lq3
lq5
:4" kk __complete stop lq -n team-a ""
expect_exact "  ... a flag's values" "pending
:4" kk __complete list workload --status p
expect_exact "  ... through kubectl's plugin completion (kubectl_complete-kueue)" "cq-a
cq-b
:4" env KUBECONFIG="$KC" kubectl __complete kueue stop cq cq-
kk completion bash >"$TMP/kueue.bash"
expect_exact "  ... the bash script completes kubectl-kueue" "cq-a
cq-b" \
    env KUBECONFIG="$KC" bash -c ". '$TMP/kueue.bash'; COMP_WORDS=(kubectl-kueue stop cq cq-); COMP_CWORD=3; _kubectl_kueue; printf '%s\n' \"\${COMPREPLY[@]}\""
expect "  ... zsh has its script" "compdef _kubectl_kueue kubectl-kueue" kk completion zsh
expect "  ... other shells are refused" 'error: completion takes bash or zsh, got "fish"' \
    kk completion fish
