#!/bin/sh
# run.sh -- MultiKueue end to end: one manager and two worker `cueue serve`
# processes on this machine, each on a free port with its own data dir, the
# manager reaching the workers through kubeconfigs in Secrets, as Kueue's
# multikueue-setup.yaml has it (docs/multikueue.md).
# usage: sh run.sh <cueue binary> <source dir>
#
# Checked: Kueue's setup file is accepted and its objects validated; the
# clusters and the check turn Active; a job whose quota is in one worker
# only runs there, and finishing there finishes it in the manager; with
# quota in both, the first worker to admit wins and the other copy goes;
# a worker killed mid-run turns Inactive and, after workerLostTimeout, the
# workload is requeued and runs in the other worker; the manager's own
# executor never runs a Job that MultiKueue manages; a pod group, a
# Deployment's Pod and a StatefulSet run in a worker while the manager's
# Pods stay gated (with the worker's PodScheduled=True); a LeaderWorkerSet's
# groups all go to the one worker its first group was admitted on, and
# together to the other when that worker is lost; an external framework's kind (multiKueue.externalFrameworks)
# is dispatched by the generic adapter.
set -u
CUEUE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cueue-mk.XXXXXX")
export HOME="$TMP/home"
mkdir -p "$HOME"
. "$SRC/tests/e2e/lib.sh"
. "$SRC/tests/multikueue/lib.sh"

cleanup() {
    stop_servers
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! command -v kubectl >/dev/null 2>&1; then
    note "SKIP: kubectl is needed for the MultiKueue tests"
    exit 0
fi

# The integrations of the manager and the workers: the JobSet and
# PyTorchJob kinds are served from CRDs; no operator of theirs runs, the
# tests play the workers' status by hand as Kueue's integration tests do.
cat >"$TMP/frameworks.yaml" <<'YAML'
integrations:
  frameworks: [batch/job, jobset.x-k8s.io/jobset, kubeflow.org/pytorchjob, pod, deployment, statefulset, leaderworkerset.x-k8s.io/leaderworkerset]
YAML
{ echo "apiVersion: config.kueue.x-k8s.io/v1beta2"; echo "kind: Configuration"
  cat "$TMP/frameworks.yaml"; } >"$TMP/worker.yaml"

# An external framework's kind (Kueue's externalFrameworks): no
# controller of it runs anywhere; a Workload is made for it by hand, as
# its own controller would.
cat >"$TMP/widget-crd.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
YAML

# The workers: a queue named as the manager's, with cpu quota $2.
worker() {
    start_server "$1" --controllers all --executor local --config "$TMP/worker.yaml" || exit 1
    k apply -f "$SRC/tests/data/jobset/jobset-crd.yaml" -f "$SRC/tests/data/kubeflow/pytorchjob-crd.yaml" \
        -f "$SRC/tests/data/leaderworkerset/leaderworkerset-crd.yaml" -f "$TMP/widget-crd.yaml" >/dev/null
    worker_queues "$2" >"$TMP/$1-queues.yaml"
    expect "$1: queues applied" "localqueue.kueue.x-k8s.io/user-queue created" \
        k apply -f "$TMP/$1-queues.yaml"
}

worker worker1 1
W1KC=$KC W1PID=$PID
worker worker2 0
W2KC=$KC W2PID=$PID

cat >"$TMP/manager.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
multiKueue:
  gcInterval: 2s
  workerLostTimeout: 6s
  externalFrameworks: [{name: Widget.v1.example.com}]
YAML
cat "$TMP/frameworks.yaml" >>"$TMP/manager.yaml"
start_server manager --controllers all --executor local --config "$TMP/manager.yaml" || exit 1
MKC=$KC
MDATA=$DATA
m() { timeout "$E2E_TIMEOUT" kubectl --kubeconfig "$MKC" "$@"; }
m apply -f "$SRC/tests/data/jobset/jobset-crd.yaml" -f "$SRC/tests/data/kubeflow/pytorchjob-crd.yaml" \
    -f "$SRC/tests/data/leaderworkerset/leaderworkerset-crd.yaml" -f "$TMP/widget-crd.yaml" >/dev/null
w1() { timeout "$E2E_TIMEOUT" kubectl --kubeconfig "$W1KC" "$@"; }
w2() { timeout "$E2E_TIMEOUT" kubectl --kubeconfig "$W2KC" "$@"; }

# ---- the objects ------------------------------------------------------------------------

expect "bad: a MultiKueueConfig without clusters" 'spec.clusters: Required value' \
    m apply -f - <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueConfig
metadata: {name: bad}
spec: {}
YAML
expect "bad: a cluster named twice" 'must be unique' m apply -f - <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueConfig
metadata: {name: bad}
spec: {clusters: [a, a]}
YAML
expect "bad: a location type that does not exist" 'supported values: "Secret", "Path"' \
    m apply -f - <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: bad}
spec: {clusterSource: {kubeConfig: {location: x, locationType: Disk}}}
YAML
expect "bad: no cluster source" 'exactly one of the fields in [kubeConfig clusterProfileRef] must be set' \
    m apply -f - <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: bad}
spec: {clusterSource: {}}
YAML
expect_exact "nothing bad was stored" "" m get multikueueconfigs,multikueueclusters -o name

m create namespace kueue-system >/dev/null
m -n kueue-system create secret generic worker1-secret --from-file=kubeconfig="$W1KC" >/dev/null
m -n kueue-system create secret generic worker2-secret --from-file=kubeconfig="$W2KC" >/dev/null
two_worker_setup >"$TMP/setup.yaml"
expect "Kueue's multikueue-setup.yaml is accepted" \
    "multikueuecluster.kueue.x-k8s.io/multikueue-test-worker1 created" m apply -f "$TMP/setup.yaml"
expect_exact "locationType defaults to Secret" "Secret" \
    m get mkc multikueue-test-worker2 -o jsonpath='{.spec.clusterSource.kubeConfig.locationType}'
wait_for "both clusters are connected" 20 '^True True *$' \
    m get mkc -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Active")].status}{" "}{end}'
expect_grep "kubectl shows the Connected column" 'multikueue-test-worker1 +True' m get mkc
wait_for "the admission check is Active" 20 '^True Active The admission check is active$' \
    m get admissioncheck sample-multikueue \
    -o jsonpath='{.status.conditions[0].status} {.status.conditions[0].reason} {.status.conditions[0].message}'

# ---- a job whose quota is in worker1 only ------------------------------------------------

job() { # name, sleep seconds
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: ["sh", "-c", "echo started; sleep $2"]
        resources: {requests: {cpu: "1", memory: 100Mi}}
YAML
}
wl_of() { # the manager's workload of job $1
    m -n default get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$1\")]}{.metadata.name}{end}"
}

job one 8 | m apply -f - >/dev/null
expect_exact "the Job is managed by MultiKueue (defaulted)" "kueue.x-k8s.io/multikueue" \
    m -n default get job one -o jsonpath='{.spec.managedBy}'
wait_for "one: the check is Ready, admitted on worker1" 30 \
    '^Ready The workload was admitted on "multikueue-test-worker1" multikueue-test-worker1$' \
    sh -c "kubectl --kubeconfig '$MKC' -n default get workload \$(kubectl --kubeconfig '$MKC' -n default get workloads -o name | head -1 | cut -d/ -f2) -o jsonpath='{.status.admissionChecks[0].state} {.status.admissionChecks[0].message} {.status.clusterName}'"
WL=$(wl_of one)
expect_grep "the worker's copy is labelled with its origin" "^$WL\$" \
    w1 -n default get workloads -l kueue.x-k8s.io/multikueue-origin=multikueue -o name --no-headers -o custom-columns=N:.metadata.name
expect_exact "the worker's Job names the prebuilt workload" "$WL" \
    w1 -n default get job one -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/prebuilt-workload-name}'
wait_for "one: finishing in worker1 finishes the manager's workload" 40 '^True$' \
    m -n default get workload "$WL" -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}'
wait_for "one: the worker's Job status is copied to the manager's Job" 20 '^1$' \
    m -n default get job one -o jsonpath='{.status.succeeded}'
expect_exact "the manager ran no pod of the Job" "" m -n default get pods -o name
wait_for "the finished workload's copies are removed from worker1" 20 '^$' \
    w1 -n default get workloads -o name
expect_grep "metrics: the workload was dispatched to worker1, counted" \
    '^multikueue_workloads_dispatched_total\{cluster_queue="cluster-queue",cluster="multikueue-test-worker1",replica_role="standalone"\} 1$' \
    m get --raw /metrics
expect_grep "metrics: its admission on worker1 is counted" \
    '^multikueue_workloads_admitted_total\{cluster_queue="cluster-queue",cluster="multikueue-test-worker1",replica_role="standalone"\} 1$' \
    m get --raw /metrics
expect_grep "metrics: the counters have HELP and TYPE" '^# TYPE multikueue_workloads_admitted_total counter$' \
    m get --raw /metrics

# ---- a JobSet and a PyTorchJob: the generic adapter of the CRD kinds -------------------

# kind, name, apiVersion, the kind's own queued document (spec); the rest
# as the Job: dispatched, admitted in worker1 (the only one with quota),
# its status played there, brought back, finished.
crd_kind() { # kind plural jsonpath-of-managedBy worker-status finished-condition manifest
    kind=$1 plural=$2 mbpath=$3 running=$4 done=$5
    printf '%s\n' "$6" | m apply -f - >/dev/null
    expect_exact "$kind: managedBy is defaulted to MultiKueue" "kueue.x-k8s.io/multikueue" \
        m -n default get "$plural" mk-$plural -o jsonpath="{$mbpath}"
    wait_for "$kind: the check is Ready, admitted on worker1" 30 \
        '^Ready multikueue-test-worker1$' \
        m -n default get workloads -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"mk-$plural\")]}{.status.admissionChecks[0].state} {.status.clusterName}{end}"
    WL=$(wl_of "mk-$plural")
    expect_exact "$kind: the worker's copy names the prebuilt workload and the origin, without managedBy" \
        "$WL multikueue " w1 -n default get "$plural" "mk-$plural" \
        -o jsonpath="{.metadata.labels.kueue\.x-k8s\.io/prebuilt-workload-name} {.metadata.labels.kueue\.x-k8s\.io/multikueue-origin} {$mbpath}"
    wait_for "$kind: the worker's copy is started by the worker's Kueue" 30 '^Admitted=True$' \
        w1 -n default get workload "$WL" -o jsonpath='Admitted={.status.conditions[?(@.type=="Admitted")].status}'
    if [ "$kind" = JobSet ]; then
        # The worker's copy changed under its Workload: the worker finishes
        # that Workload as OutOfSync, which is no end of the job: the
        # manager resets its check and dispatches it again.
        w1 -n default patch jobsets mk-jobsets --type=json \
            -p '[{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/resources/requests/cpu","value":"500m"}]' >/dev/null
        wait_for "$kind: a worker's OutOfSync copy resets the check for re-dispatch" 30 \
            'Remote workload on worker cluster "multikueue-test-worker1" is out of sync with its user job, resetting for re-dispatch, Previously: "Ready"' \
            m -n default get workload "$WL" -o jsonpath='{.status.conditions[?(@.type=="Evicted")].message}'
        expect_exact "$kind: the manager's workload is not finished by it" "" \
            m -n default get workload "$WL" -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}'
        wait_for "$kind: dispatched again, admitted on worker1" 40 '^Ready multikueue-test-worker1 1$' \
            sh -c "kubectl --kubeconfig '$MKC' -n default get workload $WL -o jsonpath='{.status.admissionChecks[0].state} {.status.clusterName} ' && kubectl --kubeconfig '$W1KC' -n default get jobset mk-jobsets -o jsonpath='{.spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources.requests.cpu}'"
        wait_for "$kind: the new copy is started" 30 '^Admitted=True$' \
            w1 -n default get workload "$WL" -o jsonpath='Admitted={.status.conditions[?(@.type=="Admitted")].status}'
    fi
    w1 -n default patch "$plural" "mk-$plural" --subresource=status --type=merge -p "$running" >/dev/null
    wait_for "$kind: the worker's status is copied to the manager's object" 20 '^played$' \
        m -n default get "$plural" "mk-$plural" -o jsonpath='{.status.conditions[0].message}'
    w1 -n default patch "$plural" "mk-$plural" --subresource=status --type=json \
        -p "[{\"op\":\"add\",\"path\":\"/status/conditions/-\",\"value\":{\"type\":\"$done\",\"status\":\"True\",\"reason\":\"Done\",\"message\":\"finished in the worker\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}}]" >/dev/null
    wait_for "$kind: finishing in worker1 finishes the manager's workload" 40 '^True$' \
        m -n default get workload "$WL" -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}'
    wait_for "$kind: the manager's object has the worker's final status" 20 '^True$' \
        m -n default get "$plural" "mk-$plural" -o jsonpath="{.status.conditions[?(@.type==\"$done\")].status}"
    wait_for "$kind: the finished workload's copies are removed from worker1" 20 '^$' \
        w1 -n default get workloads,"$plural" -o name
}
crd_kind JobSet jobsets .spec.managedBy \
    '{"status":{"conditions":[{"type":"StartupPolicyCompleted","status":"True","reason":"x","message":"played","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' \
    Completed "$(cat <<'YAML'
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: mk-jobsets
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicatedJobs:
  - name: main
    replicas: 1
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers:
            - {name: c, image: busybox, command: [sleep, "60"], resources: {requests: {cpu: "1"}}}
YAML
)"
crd_kind PyTorchJob pytorchjobs .spec.runPolicy.managedBy \
    '{"status":{"conditions":[{"type":"Running","status":"True","reason":"x","message":"played","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' \
    Succeeded "$(cat <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: mk-pytorchjobs
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - {name: pytorch, image: busybox, resources: {requests: {cpu: "1"}}}
YAML
)"

# ---- a pod group and a StatefulSet: Pods run in the worker, gated here --------------

# Two Pods of one group, one Workload: copied to worker1 (the only one
# with quota) once it admits there, run by its executor, their status
# brought back to the manager's Pods, which stay gated. They run long
# enough for a loaded machine's kubectl to see them running.
for p in a b; do
    m apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: grp-$p
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/pod-group-name: grp}
  annotations: {kueue.x-k8s.io/pod-group-total-count: "2"}
spec:
  restartPolicy: Never
  containers:
  - {name: c, image: busybox, command: [sh, -c, "sleep 15"], resources: {requests: {cpu: 500m}}}
YAML
done
wait_for "pod group: the check is Ready, admitted on worker1" 30 '^Ready multikueue-test-worker1$' \
    m -n default get workload grp -o jsonpath='{.status.admissionChecks[0].state} {.status.clusterName}'
wait_for "pod group: both Pods are copied to worker1, labelled" 20 '^grp-a grp multikueue grp-b grp multikueue $' \
    w1 -n default get pods -l kueue.x-k8s.io/pod-group-name=grp \
    -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.labels.kueue\.x-k8s\.io/prebuilt-workload-name} {.metadata.labels.kueue\.x-k8s\.io/multikueue-origin} {end}'
wait_for "pod group: worker1 runs them" 30 '^Running Running$' \
    w1 -n default get pods grp-a grp-b -o jsonpath='{.items[0].status.phase} {.items[1].status.phase}'
wait_for "pod group: the manager's Pods show the worker's phase" 20 '^Running Running$' \
    m -n default get pods grp-a grp-b -o jsonpath='{.items[0].status.phase} {.items[1].status.phase}'
# Scheduled in the worker: the worker's PodScheduled=True replaces the
# manager's SchedulingGated, which the manager's node agent leaves alone.
expect_exact "pod group: the manager's Pods stay gated and unbound, with the worker's PodScheduled=True" \
    "kueue.x-k8s.io/admission  True kueue.x-k8s.io/admission  True " \
    m -n default get pods grp-a grp-b -o jsonpath='{range .items[*]}{.spec.schedulingGates[0].name} {.spec.nodeName} {.status.conditions[?(@.type=="PodScheduled")].status} {end}'
wait_for "pod group: finishing in worker1 finishes the manager's workload" 60 '^True$' \
    m -n default get workload grp -o jsonpath='{.status.conditions[?(@.type=="Finished")].status}'
wait_for "pod group: the manager's Pods have the worker's final phase, still PodScheduled=True" 20 \
    '^Succeeded True Succeeded True $' \
    m -n default get pods grp-a grp-b -o jsonpath='{range .items[*]}{.status.phase} {.status.conditions[?(@.type=="PodScheduled")].status} {end}'
wait_for "pod group: the finished workload's copies are removed from worker1" 20 '^$' \
    w1 -n default get workloads,pods -o name
m -n default delete pods grp-a grp-b >/dev/null

# A StatefulSet: its Workload (of its Pods' group) dispatched; the copy
# made once in worker1, whose controllers run its Pod; the manager's own
# Pod stays gated; deleting it here removes the copy.
m apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 1
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: c, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 500m}}}
YAML
# The group's Workload is named from the StatefulSet's name and uid, and
# set on each Pod (the template's label is a placeholder).
wait_for "statefulset: its Pod joins the group Kueue names" 30 '^statefulset-web-' \
    m -n default get pod web-0 -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/pod-group-name}'
STSWL=$(m -n default get pod web-0 -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/pod-group-name}')
wait_for "statefulset: the check is Ready, admitted on worker1" 30 '^Ready multikueue-test-worker1$' \
    m -n default get workload "$STSWL" -o jsonpath='{.status.admissionChecks[0].state} {.status.clusterName}'
wait_for "statefulset: the copy in worker1 names the workload, the origin and the manager's uid" 20 \
    "^$STSWL multikueue $(m -n default get statefulset web -o jsonpath='{.metadata.uid}')\$" \
    w1 -n default get statefulset web -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/prebuilt-workload-name} {.metadata.labels.kueue\.x-k8s\.io/multikueue-origin} {.metadata.annotations.kueue\.x-k8s\.io/multikueue-origin-uid}'
wait_for "statefulset: worker1 runs its Pod under the copied workload" 30 '^Running True$' \
    sh -c "echo \$(kubectl --kubeconfig '$W1KC' -n default get pod web-0 -o jsonpath='{.status.phase}') \$(kubectl --kubeconfig '$W1KC' -n default get workload '$STSWL' -o jsonpath='{.status.conditions[?(@.type==\"Admitted\")].status}')"
expect_exact "statefulset: the manager's Pod stays gated and unbound" "kueue.x-k8s.io/admission " \
    m -n default get pod web-0 -o jsonpath='{.spec.schedulingGates[0].name} {.spec.nodeName}'
m -n default delete statefulset web >/dev/null
wait_for "statefulset: deleting it removes the worker's copy" 40 '^$' \
    w1 -n default get workloads,statefulsets -o name
wait_for "statefulset: and the manager's Pod" 30 '^$' m -n default get pods -o name

# A Deployment: each of its Pods is a Workload of its own, dispatched as a
# single Pod; the worker runs the copy, the manager's Pod shows its phase.
m apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dep
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 1
  selector: {matchLabels: {app: dep}}
  template:
    metadata: {labels: {app: dep}}
    spec:
      containers:
      - {name: c, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 500m}}}
YAML
wait_for "deployment: its Pod's workload is admitted on worker1" 30 '^Ready multikueue-test-worker1$' \
    m -n default get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].kind=="Pod")]}{.status.admissionChecks[0].state} {.status.clusterName}{end}'
DEPPOD=$(m -n default get pods -l app=dep -o jsonpath='{.items[0].metadata.name}')
wait_for "deployment: worker1 runs the copy of its Pod" 30 '^Running$' \
    w1 -n default get pod "$DEPPOD" -o jsonpath='{.status.phase}'
wait_for "deployment: the manager's Pod shows it, still gated" 20 '^Running kueue.x-k8s.io/admission$' \
    m -n default get pod "$DEPPOD" -o jsonpath='{.status.phase} {.spec.schedulingGates[0].name}'
m -n default delete deployment dep >/dev/null
wait_for "deployment: deleting it removes the worker's copies" 40 '^$' \
    w1 -n default get workloads,pods -o name
wait_for "deployment: and the manager's Pod" 30 '^$' m -n default get pods -o name

# A StatefulSet copied from a manager waits for the Workload copied with
# it: its worker makes none of its own (Kueue's isMultiKueueRemote).
w1 apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: stray
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/multikueue-origin: elsewhere}
spec:
  replicas: 1
  serviceName: stray
  selector: {matchLabels: {app: stray}}
  template:
    metadata: {labels: {app: stray}}
    spec:
      containers:
      - {name: c, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 500m}}}
YAML
sleep 2
expect_exact "a StatefulSet of a MultiKueue origin gets no Workload of the worker's" "" \
    w1 -n default get workloads -o name
w1 -n default delete statefulset stray >/dev/null
wait_for "and goes with its gated Pod" 30 '^$' w1 -n default get pods -o name

# ---- an external framework: the generic adapter over a kind named in the config -------

# The Workload of Widget $1, made as the framework's own integration would.
widget_workload() {
    uid=$(m -n default get widget "$1" -o jsonpath='{.metadata.uid}')
    m apply -f - >/dev/null <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: widget-$1
  namespace: default
  ownerReferences:
  - {apiVersion: example.com/v1, kind: Widget, name: $1, uid: "$uid", controller: true}
spec:
  queueName: user-queue
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - {name: c, image: busybox, resources: {requests: {cpu: "1"}}}
YAML
}

m apply -f - >/dev/null <<'YAML'
apiVersion: example.com/v1
kind: Widget
metadata: {name: wid, namespace: default, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec: {managedBy: kueue.x-k8s.io/multikueue, size: 3}
YAML
widget_workload wid
wait_for "external framework: the check is Ready, admitted on worker1" 30 '^Ready multikueue-test-worker1$' \
    m -n default get workload widget-wid -o jsonpath='{.status.admissionChecks[0].state} {.status.clusterName}'
wait_for "external framework: the copy in worker1 is labelled, without managedBy" 20 '^widget-wid multikueue  3$' \
    w1 -n default get widget wid -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/prebuilt-workload-name} {.metadata.labels.kueue\.x-k8s\.io/multikueue-origin} {.spec.managedBy} {.spec.size}'
w1 -n default patch widget wid --subresource=status --type=merge -p '{"status":{"phase":"Spinning"}}' >/dev/null
wait_for "external framework: the worker's status is copied to the manager's object" 20 '^Spinning$' \
    m -n default get widget wid -o jsonpath='{.status.phase}'
w1 -n default patch workload widget-wid --subresource=status --type=json \
    -p '[{"op":"add","path":"/status/conditions/-","value":{"type":"Finished","status":"True","reason":"Succeeded","message":"done in the worker","lastTransitionTime":"2026-01-01T00:00:00Z"}}]' >/dev/null
wait_for "external framework: finishing in worker1 finishes the manager's workload" 30 '^True done in the worker$' \
    m -n default get workload widget-wid -o jsonpath='{.status.conditions[?(@.type=="Finished")].status} {.status.conditions[?(@.type=="Finished")].message}'
wait_for "external framework: the copies are removed from worker1" 20 '^$' \
    w1 -n default get workloads,widgets -o name
m -n default delete widget wid >/dev/null
# One managed by another controller is not MultiKueue's to dispatch.
m apply -f - >/dev/null <<'YAML'
apiVersion: example.com/v1
kind: Widget
metadata: {name: other, namespace: default}
spec: {managedBy: example.com/widget-controller}
YAML
widget_workload other
wait_for "external framework: one managed by another controller gets its check Rejected" 30 \
    '^Rejected The owner is not managed by Kueue: Expecting .spec.managedBy to be "kueue.x-k8s.io/multikueue" not "example.com/widget-controller", Previously: "Pending"$' \
    m -n default get workload widget-other -o jsonpath='{.status.admissionChecks[0].state} {.status.admissionChecks[0].message}'
m -n default delete widget other >/dev/null
m -n default delete workload widget-other --ignore-not-found >/dev/null

# A JobSet that another controller manages is not MultiKueue's to dispatch.
m apply -f - >/dev/null <<'YAML'
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: other
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  managedBy: example.com/other
  replicatedJobs:
  - name: main
    replicas: 1
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers:
            - {name: c, image: busybox, resources: {requests: {cpu: "1"}}}
YAML
wait_for "a JobSet managed by another controller: the check is Rejected" 30 \
    '^Rejected The owner is not managed by Kueue: Expecting spec.managedBy to be "kueue.x-k8s.io/multikueue" not "example.com/other", Previously: "Pending"$' \
    m -n default get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="other")]}{.status.admissionChecks[0].state} {.status.admissionChecks[0].message}{end}'
expect_exact "and nothing of it reaches the workers" "" w1 -n default get jobsets -o name
m -n default delete jobset other >/dev/null

# ---- remote spec drift ---------------------------------------------------------------

# Neither worker has the 2 cpus: both copies wait. A copy whose spec no
# longer is the manager's Workload's is removed, and made again.
job drift 60 | sed 's/cpu: "1"/cpu: "2"/' | m apply -f - >/dev/null
wait_for "drift: both workers hold a waiting copy" 30 '^1 1$' \
    sh -c "echo \$(kubectl --kubeconfig '$W1KC' -n default get workloads -o name | wc -l) \$(kubectl --kubeconfig '$W2KC' -n default get workloads -o name | wc -l)"
WL=$(wl_of drift)
UID0=$(w2 -n default get workload "$WL" -o jsonpath='{.metadata.uid}')
w2 -n default patch workload "$WL" --type=merge -p '{"spec":{"priority":7}}' >/dev/null
wait_for "drift: the changed copy is replaced by a fresh one" 20 '^new 0$' \
    sh -c "u=\$(kubectl --kubeconfig '$W2KC' -n default get workload '$WL' -o jsonpath='{.metadata.uid}'); p=\$(kubectl --kubeconfig '$W2KC' -n default get workload '$WL' -o jsonpath='{.spec.priority}'); [ -n \"\$u\" ] && [ \"\$u\" != '$UID0' ] && echo new \${p:-0}"
# A changed WorkloadPriorityClass is brought over to the copies instead.
for kc in "$MKC" "$W1KC" "$W2KC"; do
    kubectl --kubeconfig "$kc" apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: low}
value: 1
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 100
YAML
done
job prio 60 | sed -e 's/cpu: "1"/cpu: "2"/' -e 's/labels: {/labels: {kueue.x-k8s.io\/priority-class: low, /' |
    m apply -f - >/dev/null
wait_for "priority: both workers hold a waiting copy of class low" 30 '^low low$' \
    sh -c "echo \$(kubectl --kubeconfig '$W1KC' -n default get workloads -o jsonpath='{.items[*].spec.priorityClassRef.name}') \$(kubectl --kubeconfig '$W2KC' -n default get workloads -o jsonpath='{.items[*].spec.priorityClassRef.name}')"
PWL=$(wl_of prio)
UID1=$(w1 -n default get workload "$PWL" -o jsonpath='{.metadata.uid}')
m -n default label job prio kueue.x-k8s.io/priority-class=high --overwrite >/dev/null
wait_for "priority: the copies get the new class and value, and stay" 30 "^high 100 $UID1 high 100\$" \
    sh -c "echo \$(kubectl --kubeconfig '$W1KC' -n default get workload '$PWL' -o jsonpath='{.spec.priorityClassRef.name} {.spec.priority} {.metadata.uid}') \$(kubectl --kubeconfig '$W2KC' -n default get workload '$PWL' -o jsonpath='{.spec.priorityClassRef.name} {.spec.priority}')"
m -n default delete job drift prio >/dev/null
wait_for "drift: deleting the job removes both copies" 30 '^$' \
    sh -c "kubectl --kubeconfig '$W1KC' -n default get workloads -o name; kubectl --kubeconfig '$W2KC' -n default get workloads -o name"

# ---- quota in both workers: the first to admit wins --------------------------------------

w2 patch clusterqueue cluster-queue --type=json \
    -p '[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota","value":"1"}]' >/dev/null
# ---- a LeaderWorkerSet: its groups' Workloads go to one worker ---------------------------

# Both workers have the quota of both groups; the first group's Workload
# is dispatched to both, and the second waits for it, then goes where it
# was admitted (Kueue's component workloads). No LeaderWorkerSet operator
# runs: the test makes the worker's Pods from the copy, as it would.
m apply -f - >/dev/null <<'YAML'
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: mklws
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
        - {name: leader, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 250m}}}
    workerTemplate:
      spec:
        containers:
        - {name: worker, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 250m}}}
YAML
LWSW='{range .items[?(@.metadata.ownerReferences[0].kind=="LeaderWorkerSet")]}{.status.admissionChecks[0].state} {.status.clusterName} {end}'
wait_for "lws: both groups' workloads are admitted on one worker" 60 \
    '^Ready (multikueue-test-worker[12]) Ready \1 $' m -n default get workloads -o jsonpath="$LWSW"
LWSAT=$(m -n default get workloads -o jsonpath="$LWSW" | cut -d' ' -f2)
if [ "$LWSAT" = multikueue-test-worker1 ]; then LKC=$W1KC OKC=$W2KC; else LKC=$W2KC OKC=$W1KC; fi
expect_exact "lws: the other worker holds nothing of it" "" \
    kubectl --kubeconfig "$OKC" -n default get workloads,leaderworkersets -o name
expect_exact "lws: one copy in the worker, of our origin, with the manager's uid" \
    "multikueue $(m -n default get leaderworkerset mklws -o jsonpath='{.metadata.uid}')" \
    kubectl --kubeconfig "$LKC" -n default get leaderworkerset mklws -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/multikueue-origin} {.metadata.annotations.kueue\.x-k8s\.io/multikueue-origin-uid}'
LWS0=$(m -n default get workloads -o jsonpath='{.items[?(@.metadata.annotations.kueue\.x-k8s\.io/component-workload-index=="0")].metadata.name}')
LWS1=$(m -n default get workloads -o jsonpath='{.items[?(@.metadata.annotations.kueue\.x-k8s\.io/component-workload-index=="1")].metadata.name}')
expect_exact "lws: the worker makes no Workload of its own for the copy" "$LWS0 $LWS1" \
    kubectl --kubeconfig "$LKC" -n default get workloads -o jsonpath='{.items[*].metadata.name}'
for g in 0 1; do
    for role in leader worker; do
        if [ $role = leader ]; then pn="mklws-$g" extra=""; else
            pn="mklws-$g-1" extra="    leaderworkerset.sigs.k8s.io/leader-name: mklws-$g"
        fi
        kubectl --kubeconfig "$LKC" -n default create -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $pn
  labels:
    kueue.x-k8s.io/queue-name: user-queue
    leaderworkerset.sigs.k8s.io/name: mklws
    leaderworkerset.sigs.k8s.io/group-index: "$g"
  annotations:
    kueue.x-k8s.io/pod-suspending-parent: leaderworkerset.x-k8s.io/leaderworkerset
    kueue.x-k8s.io/pod-group-serving: "true"
$extra
spec:
  containers:
  - {name: $role, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 250m}}}
YAML
    done
done
wait_for "lws: the worker's Pods join the dispatched workloads and run" 40 \
    "^mklws-0 $LWS0 Running mklws-0-1 $LWS0 Running mklws-1 $LWS1 Running mklws-1-1 $LWS1 Running \$" \
    kubectl --kubeconfig "$LKC" -n default get pods -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.labels.kueue\.x-k8s\.io/pod-group-name} {.status.phase} {end}'
# The worker is lost: after workerLostTimeout every group's Workload is
# requeued, and they go together to the worker left, each woken by the
# others as they come back rather than by the next pass over everything.
if [ "$LWSAT" = multikueue-test-worker1 ]; then
    LPID=$W1PID LNAME=worker1 LEFT=multikueue-test-worker2
else
    LPID=$W2PID LNAME=worker2 LEFT=multikueue-test-worker1
fi
kill -KILL "$LPID"
wait_for "lws: its worker lost, both groups are requeued and admitted on the worker left" 90 \
    "^Ready $LEFT Ready $LEFT \$" m -n default get workloads -o jsonpath="$LWSW"
expect_exact "lws: one copy of it in the worker left" "mklws" \
    kubectl --kubeconfig "$OKC" -n default get leaderworkersets -o 'jsonpath={.items[*].metadata.name}'
# The lost worker comes back (same data dir and port); its stale copies go.
LPORT=$(sed 's/.*://' "$TMP/$LNAME/endpoint")
start_server "$LNAME" --controllers all --executor local --listen "127.0.0.1:$LPORT" || exit 1
if [ "$LNAME" = worker1 ]; then W1PID=$PID; else W2PID=$PID; fi
wait_for "lws: the lost worker's stale copies are removed once it is back" 90 '^$' \
    kubectl --kubeconfig "$LKC" -n default get workloads,leaderworkersets -o name
# The Pods the test made there (their Workloads gone with the copies, the
# worker's Pods failed by its restart) keep Kueue's finalizer: cleared by
# hand here.
kubectl --kubeconfig "$LKC" -n default delete pods -l leaderworkerset.sigs.k8s.io/name=mklws --wait=false >/dev/null
for p in $(kubectl --kubeconfig "$LKC" -n default get pods -o name); do
    kubectl --kubeconfig "$LKC" -n default patch "$p" --type merge -p '{"metadata":{"finalizers":null}}' >/dev/null
done
settle 30 '^$' kubectl --kubeconfig "$LKC" -n default get pods -o name
m -n default delete leaderworkerset mklws >/dev/null
wait_for "lws: deleting it removes the worker's copies" 40 '^$' \
    kubectl --kubeconfig "$OKC" -n default get workloads,leaderworkersets -o name
wait_for "the worker that came back is connected again" 60 '^True True *$' \
    m get mkc -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Active")].status}{" "}{end}'

job two 120 | m apply -f - >/dev/null
wait_for "two: admitted on one worker" 30 '^Ready multikueue-test-worker[12]$' \
    sh -c "kubectl --kubeconfig '$MKC' -n default get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name==\"two\")]}{.status.admissionChecks[0].state} {.status.clusterName}{end}'"
WL=$(wl_of two)
WIN=$(m -n default get workload "$WL" -o jsonpath='{.status.clusterName}')
if [ "$WIN" = multikueue-test-worker1 ]; then
    WINKC=$W1KC LOSEKC=$W2KC WINPID=$W1PID WINNAME=worker1
else
    WINKC=$W2KC LOSEKC=$W1KC WINPID=$W2PID WINNAME=worker2
fi
wait_for "two: the other worker's copy is removed" 20 '^$' \
    kubectl --kubeconfig "$LOSEKC" -n default get workloads -o name
wait_for "two: the winner runs the Job" 30 '^1$' \
    kubectl --kubeconfig "$WINKC" -n default get job two -o jsonpath='{.status.active}'
wait_for "two: the manager's Job shows it running" 20 '^1$' \
    m -n default get job two -o jsonpath='{.status.active}'
expect_exact "the manager's executor runs nothing" "" m -n default get pods -o name
expect_grep "kubectl get workloads in the manager shows it admitted" "$WL +user-queue +cluster-queue +True" \
    m -n default get workloads

# ---- the winner is killed mid-run --------------------------------------------------------

kill -KILL "$WINPID"
wait_for "the killed worker turns inactive" 30 '^False ClientConnectionFailed$' \
    m get mkc "$WIN" -o jsonpath='{.status.conditions[0].status} {.status.conditions[0].reason}'
wait_for "the admission check is partially active" 20 '^True SomeActiveClusters' \
    m get admissioncheck sample-multikueue -o jsonpath='{.status.conditions[0].status} {.status.conditions[0].reason} {.status.conditions[0].message}'
wait_for "two: after workerLostTimeout the workload is evicted by its check" 40 \
    '^AdmissionCheck .*Admitting remote lost' \
    m -n default get workload "$WL" -o jsonpath='{.status.conditions[?(@.type=="Evicted")].reason} {.status.conditions[?(@.type=="Evicted")].message}'
wait_for "two: it runs in the remaining worker" 60 "^Ready [a-z0-9-]+\$" \
    m -n default get workload "$WL" -o jsonpath='{.status.admissionChecks[0].state} {.status.clusterName}'
NOW=$(m -n default get workload "$WL" -o jsonpath='{.status.clusterName}')
if [ "$NOW" != "$WIN" ]; then pass "two: moved to the other worker"; else fail "two: moved to the other worker" "$NOW"; fi
wait_for "two: the Job runs there" 30 '^1$' \
    kubectl --kubeconfig "$LOSEKC" -n default get job two -o jsonpath='{.status.active}'
expect_exact "the manager's executor still runs nothing" "" m -n default get pods -o name

# ---- the lost worker comes back ---------------------------------------------------------

# Same data dir and port: the kubeconfig in the Secret is good again, and
# the manager reconnects at its next attempt (backing off: 5 s doubling).
PORT=$(sed 's/.*://' "$TMP/$WINNAME/endpoint")
start_server "$WINNAME" --controllers all --executor local --listen "127.0.0.1:$PORT" || exit 1
wait_for "the worker that came back is connected again" 60 '^True Active Connected$' \
    m get mkc "$WIN" -o jsonpath='{.status.conditions[0].status} {.status.conditions[0].reason} {.status.conditions[0].message}'
wait_for "its stale copy of the moved workload is removed" 30 '^$' \
    kubectl --kubeconfig "$WINKC" -n default get workloads,jobs -o name
expect_exact "the workload stays where it moved" "Ready $NOW" \
    m -n default get workload "$WL" -o jsonpath='{.status.admissionChecks[0].state} {.status.clusterName}'

# ---- garbage collection ------------------------------------------------------------------

m -n default delete job two --wait=false >/dev/null
wait_for "deleting the manager's Job removes the worker's copies" 30 '^$' \
    kubectl --kubeconfig "$LOSEKC" -n default get workloads,jobs -o name

# ---- the incremental dispatcher ----------------------------------------------------------

# A second manager that nominates one worker at a time, a dead one first:
# the live worker gets no copy while the first round lasts (AllAtOnce
# would have dispatched to it at once).
cat >"$TMP/manager2.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
multiKueue:
  dispatcherName: kueue.x-k8s.io/multikueue-dispatcher-incremental
  incrementalDispatcherConfig: {stepSize: 1}
YAML
start_server manager2 --controllers all --executor local --config "$TMP/manager2.yaml" || exit 1
M2KC=$KC
m2() { timeout "$E2E_TIMEOUT" kubectl --kubeconfig "$M2KC" "$@"; }
m2 create namespace kueue-system >/dev/null
m2 -n kueue-system create secret generic live --from-file=kubeconfig="$LOSEKC" >/dev/null
sed 's|server: https://127.0.0.1:[0-9]*|server: https://127.0.0.1:1|' "$WINKC" >"$TMP/dead.kubeconfig"
m2 -n kueue-system create secret generic dead --from-file=kubeconfig="$TMP/dead.kubeconfig" >/dev/null
sed -e 's/  - multikueue-test-worker1/  - dead\n  - live/' -e '/^kind: MultiKueueCluster/,$d' \
    "$SRC/examples/multikueue/multikueue-setup.yaml" | sed '$d' >"$TMP/setup2.yaml"
cat >>"$TMP/setup2.yaml" <<'YAML'
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: dead}
spec: {clusterSource: {kubeConfig: {location: dead}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: live}
spec: {clusterSource: {kubeConfig: {location: live}}}
YAML
m2 apply -f "$TMP/setup2.yaml" >/dev/null
wait_for "incremental: the check is partially active" 20 '^SomeActiveClusters Inactive clusters: \[dead\]$' \
    m2 get admissioncheck sample-multikueue -o jsonpath='{.status.conditions[0].reason} {.status.conditions[0].message}'
job three 1 | m2 apply -f - >/dev/null
wait_for "incremental: the first round nominates the first worker only" 20 '^\["dead"\]$' \
    m2 -n default get workloads -o jsonpath='{.items[0].status.nominatedClusterNames}'
sleep 2
expect_exact "incremental: the second worker got no copy in the first round" "" \
    kubectl --kubeconfig "$LOSEKC" -n default get workloads -o name

stop_servers
bad=$(grep -lE 'Sanitizer|runtime error:|Segmentation' "$TMP"/*/serve.log 2>/dev/null)
if [ -z "$bad" ]; then pass "server logs are free of sanitizer reports"; else
    fail "server logs are free of sanitizer reports" "$(cat $bad | head -60)"
fi
note "multikueue: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
