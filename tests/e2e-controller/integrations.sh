# integrations.sh -- sourced by run.sh: the JobSet integration in `cueue
# serve`, as Kueue's integration tests drive it (no JobSet operator: the
# JobSet's status is set by hand). A JobSet naming a LocalQueue gets a
# Workload with one pod set per replicated Job; admitted, it is
# unsuspended with the flavor's node labels in every replicated Job's
# template; evicted, it is suspended with its templates restored; its
# Completed condition finishes the Workload and releases the quota.
cat >"$TMP/integ-cfg.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod, jobset.x-k8s.io/jobset]
YAML
start_server integ --controllers all --executor none --config "$TMP/integ-cfg.yaml" || return 1
k apply -f "$SRC/tests/data/jobset/jobset-crd.yaml" >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: js}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: js-f}
spec:
  nodeLabels: {instance-type: on-demand}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: js-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: js-f
      resources:
      - {name: cpu, nominalQuota: "8"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: js}
spec: {clusterQueue: js-cq}
YAML
settle 10 '^True$' k get cq js-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
settle 10 'jobsets' k api-resources --api-group=jobset.x-k8s.io
k -n js apply -f "$SRC/tests/data/jobset/jobset.yaml" >/dev/null
JSW='{range .items[*]}{.metadata.name} {range .spec.podSets[*]}{.name}={.count} {end}{"\n"}{end}'
wait_for "jobset: a Workload jobset-train-HASH, pod sets leader=1 workers=4" 15 \
    '^jobset-train-[0-9a-f]{5} leader=1 workers=4 $' k -n js get workloads -o jsonpath="$JSW"
wait_for "jobset: admitted, unsuspended" 15 '^false$' k -n js get jobset train -o jsonpath='{.spec.suspend}'
expect_exact "jobset: the flavor's node labels in every replicated Job's template" "on-demand on-demand" \
    k -n js get jobset train -o jsonpath='{.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector.instance-type} {.spec.replicatedJobs[1].template.spec.template.spec.nodeSelector.instance-type}'
expect_exact "jobset: its usage in the ClusterQueue" "5" \
    k get cq js-cq -o jsonpath='{.status.flavorsReservation[0].resources[0].total}'
W=$(k -n js get workloads -o jsonpath='{.items[0].metadata.name}')
# Running (status by hand), then evicted: suspended, templates restored;
# the quota waits for its Jobs to stop.
evict_readmit jobset js jobset train "$W" '{.spec.suspend}' \
    '{.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector.instance-type} {.spec.replicatedJobs[1].template.spec.template.spec.nodeSelector.instance-type}' \
    '{"status":{"replicatedJobsStatus":[{"name":"leader","active":1,"ready":0,"succeeded":0,"failed":0,"suspended":0},{"name":"workers","active":2,"ready":0,"succeeded":0,"failed":0,"suspended":0}]}}' \
    '{"status":{"replicatedJobsStatus":[{"name":"leader","active":0,"ready":0,"succeeded":0,"failed":0,"suspended":1},{"name":"workers","active":0,"ready":0,"succeeded":0,"failed":0,"suspended":2}]}}'
k -n js patch jobset train --subresource=status --type=merge \
    -p '{"status":{"conditions":[{"type":"Completed","status":"True","reason":"AllJobsCompleted","message":"jobset completed successfully","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
wait_for "jobset: Completed finishes the Workload (Succeeded)" 15 '^True Succeeded jobset completed successfully$' \
    k -n js get workload "$W" -o jsonpath='{.status.conditions[?(@.type=="Finished")].status} {.status.conditions[?(@.type=="Finished")].reason} {.status.conditions[?(@.type=="Finished")].message}'
wait_for "jobset: the quota is released" 15 '^0$' k get cq js-cq -o jsonpath='{.status.reservingWorkloads}'
expect_exact "jobset: created suspended when Kueue manages it (the webhook's defaulting)" "true" \
    sh -c "sed -e 's/name: train/name: train2/' -e '/suspend: true/d' '$SRC/tests/data/jobset/jobset.yaml' |
        timeout $E2E_TIMEOUT kubectl --kubeconfig '$KC' -n js create -f - -o jsonpath='{.spec.suspend}'"
k -n js delete jobset train2 >/dev/null

# PyTorchJob (kubeflow.org/pytorchjob) the same way: replica specs to pod
# sets master and worker, spec.runPolicy.suspend; evicted and restored.
cat >"$TMP/integ-cfg2.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, kubeflow.org/pytorchjob, kubeflow.org/tfjob, kubeflow.org/xgboostjob,
               kubeflow.org/paddlejob, kubeflow.org/jaxjob, kubeflow.org/mpijob]
YAML
k apply -f "$SRC/tests/data/kubeflow/pytorchjob-crd.yaml" >/dev/null
settle 10 'pytorchjobs' k api-resources --api-group=kubeflow.org
k -n js apply -f "$SRC/tests/data/kubeflow/pytorchjob.yaml" >/dev/null
sleep 1
expect_exact "pytorchjob: not queued while its framework is not enabled" "" \
    k -n js get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].kind=="PyTorchJob")].metadata.name}'
stop_server "$PID"
start_server integ --controllers all --executor none --config "$TMP/integ-cfg2.yaml" || return 1
wait_for "pytorchjob: a Workload pytorchjob-mnist-HASH, pod sets master=1 worker=2" 20 \
    '^pytorchjob-mnist-[0-9a-f]{5} master=1 worker=2 $' k -n js get workloads -o jsonpath="$JSW"
wait_for "pytorchjob: admitted, runPolicy.suspend false" 15 '^false$' \
    k -n js get pytorchjob mnist -o jsonpath='{.spec.runPolicy.suspend}'
expect_exact "pytorchjob: the flavor's node labels in each replica's template" "on-demand on-demand" \
    k -n js get pytorchjob mnist -o jsonpath='{.spec.pytorchReplicaSpecs.Master.template.spec.nodeSelector.instance-type} {.spec.pytorchReplicaSpecs.Worker.template.spec.nodeSelector.instance-type}'
# Running (the operator's status by hand), then evicted: suspended with its
# templates restored; the quota waits until no replica is active.
PW=$(k -n js get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].kind=="PyTorchJob")].metadata.name}')
evict_readmit pytorchjob js pytorchjob mnist "$PW" '{.spec.runPolicy.suspend}' \
    '{.spec.pytorchReplicaSpecs.Master.template.spec.nodeSelector.instance-type} {.spec.pytorchReplicaSpecs.Worker.template.spec.nodeSelector.instance-type}' \
    '{"status":{"startTime":"2026-01-01T00:00:00Z","replicaStatuses":{"Master":{"active":1},"Worker":{"active":2}}}}' \
    '{"status":{"replicaStatuses":{"Master":{"active":0},"Worker":{"active":0}}}}'
expect_exact "pytorchjob: stopped in one write, its status left to the operator (startTime kept)" \
    "2026-01-01T00:00:00Z" k -n js get pytorchjob mnist -o jsonpath='{.status.startTime}'
k -n js patch pytorchjob mnist --subresource=status --type=merge \
    -p '{"status":{"conditions":[{"type":"Succeeded","status":"True","reason":"PyTorchJobSucceeded","message":"PyTorchJob mnist is successfully completed.","lastUpdateTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
wait_for "pytorchjob: Succeeded finishes the Workload" 15 '^True Succeeded$' \
    k -n js get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].kind=="PyTorchJob")]}{.status.conditions[?(@.type=="Finished")].status} {.status.conditions[?(@.type=="Finished")].reason}{"\n"}{end}'
wait_for "pytorchjob: the quota is released" 15 '^0$' k get cq js-cq -o jsonpath='{.status.reservingWorkloads}'

# The other Kubeflow kinds the same way (node labels on admission,
# eviction and readmission, finish): KIND PLURAL VERSION FIELD
# "TYPE=REPLICAS ..." and the pod sets expected.
kf_kind() {
    kk=$1 kp=$2 kv=$3 kf=$4 types=$5 kw=$6
    sed -e "s/pytorchjobs.kubeflow.org/$kp.kubeflow.org/" -e "s/kind: PyTorchJob/kind: $kk/" \
        -e "s/listKind: PyTorchJobList/listKind: ${kk}List/" -e "s/plural: pytorchjobs/plural: $kp/" \
        -e "s/singular: pytorchjob/singular: ${kp%s}/" -e "s/- name: v1\$/- name: $kv/" \
        "$SRC/tests/data/kubeflow/pytorchjob-crd.yaml" | k apply -f - >/dev/null
    settle 10 "^$kp " k api-resources --api-group=kubeflow.org --no-headers
    {
        printf 'apiVersion: kubeflow.org/%s\nkind: %s\nmetadata:\n  name: k\n' "$kv" "$kk"
        printf '  labels: {kueue.x-k8s.io/queue-name: user-queue}\nspec:\n  %s:\n' "$kf"
        for t in $types; do
            printf '    %s:\n      replicas: %s\n      template:\n        spec:\n' "${t%=*}" "${t#*=}"
            printf '          containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]\n'
        done
    } >"$TMP/kf.yaml"
    expect_exact "$kp: created suspended" "true" \
        k -n js create -f "$TMP/kf.yaml" -o jsonpath='{.spec.runPolicy.suspend}'
    wait_for "$kp: its Workload's pod sets $kw" 20 "^${kp%s}-k-[0-9a-f]{5} $kw \$" \
        k -n js get workloads -o jsonpath="$JSW"
    wait_for "$kp: admitted, runPolicy.suspend false" 15 '^false$' \
        k -n js get "$kp" k -o jsonpath='{.spec.runPolicy.suspend}'
    ksel="{range .spec.$kf.*}{.template.spec.nodeSelector.instance-type} {end}"
    expect_exact "$kp: the flavor's node labels in each replica's template" \
        "$(for t in $types; do printf 'on-demand '; done)" k -n js get "$kp" k -o jsonpath="$ksel"
    krun="" kstop=""
    for t in $types; do
        krun="$krun${krun:+,}\"${t%=*}\":{\"active\":1}" kstop="$kstop${kstop:+,}\"${t%=*}\":{\"active\":0}"
    done
    evict_readmit "$kp" js "$kp" k \
        "$(k -n js get workloads -o jsonpath="{.items[?(@.metadata.ownerReferences[0].kind==\"$kk\")].metadata.name}")" \
        '{.spec.runPolicy.suspend}' "$ksel" \
        "{\"status\":{\"replicaStatuses\":{$krun}}}" "{\"status\":{\"replicaStatuses\":{$kstop}}}"
    k -n js patch "$kp" k --subresource=status --type=merge \
        -p '{"status":{"conditions":[{"type":"Succeeded","status":"True","reason":"Succeeded","message":"done","lastUpdateTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
    wait_for "$kp: Succeeded finishes its Workload" 15 '^True$' \
        k -n js get workloads -o jsonpath="{.items[?(@.metadata.ownerReferences[0].kind==\"$kk\")].status.conditions[?(@.type==\"Finished\")].status}"
    wait_for "$kp: the quota is released" 15 '^0$' k get cq js-cq -o jsonpath='{.status.reservingWorkloads}'
}
kf_kind TFJob tfjobs v1 tfReplicaSpecs "Worker=2 PS=1 Chief=1" "chief=1 ps=1 worker=2"
kf_kind XGBoostJob xgboostjobs v1 xgbReplicaSpecs "Worker=2 Master=1" "master=1 worker=2"
kf_kind PaddleJob paddlejobs v1 paddleReplicaSpecs "Master=1 Worker=1" "master=1 worker=1"
kf_kind JAXJob jaxjobs v1 jaxReplicaSpecs "Worker=3" "worker=3"
kf_kind MPIJob mpijobs v2beta1 mpiReplicaSpecs "Worker=2 Launcher=1" "launcher=1 worker=2"
stop_server "$PID"

# The cluster path: `cueue controller` over HTTP, with its node agent,
# against an API-only server that gates Pods (the Pod webhook's part).
cat >"$TMP/integ-cfg3.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod]
YAML
start_server integ-http --controllers none --config "$TMP/integ-cfg3.yaml" || return 1
"$CUEUE" controller --metrics-bind-address 0 --kubeconfig "$KC" --config "$TMP/integ-cfg3.yaml" --executor local \
    --data-dir "$DATA" >"$DATA/controller.log" 2>&1 &
CTL_PIDS="$CTL_PIDS $!"
CPID=$!
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: ph}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: ph-f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: ph-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: ph-f
      resources:
      - {name: cpu, nominalQuota: "4"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: ph}
spec: {clusterQueue: ph-cq}
YAML
P=$(k -n ph create -f "$SRC/tests/data/pods/kueue-pod.yaml" -o jsonpath='{.metadata.name}')
wait_for "pod over HTTP: admitted, ungated, bound and run to completion" 40 '^Succeeded cueue-local$' \
    k -n ph get pod "$P" -o jsonpath='{.status.phase} {.spec.nodeName}'
wait_for "pod over HTTP: its Workload finished" 15 '^True$' \
    k -n ph get workloads -o jsonpath='{.items[0].status.conditions[?(@.type=="Finished")].status}'
stop_server "$CPID"
