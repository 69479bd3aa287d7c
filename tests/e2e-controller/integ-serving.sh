# integ-serving.sh -- sourced by run.sh: what Kueue's Deployment and
# StatefulSet integrations do after creation, in `cueue serve` with its node
# agent running the Pods. A Deployment's queue name changed while none of
# its Pods is ready reaches its template, so the Pods made for it queue
# there and run; an admission gate is not added after creation. A
# StatefulSet's admission-gated-by annotation follows to its group's
# Workload, which waits while it is there. A StatefulSet whose group's
# Workload exists under Kueue's former name (without the uid) keeps it.
# Both kinds' Pods run with the flavor's node selector; evicted (their
# ClusterQueue stopped) they are deleted and replaced by gated Pods that
# run again once the ClusterQueue does.
cat >"$TMP/serving-cfg.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod, deployment, statefulset]
YAML
start_server serving --controllers all --executor local --config "$TMP/serving-cfg.yaml" || return 1
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: srv}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: srv-f}
spec:
  nodeLabels: {kubernetes.io/hostname: cueue-local}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: srv-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: srv-f
      resources:
      - {name: cpu, nominalQuota: "2"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: srv}
spec: {clusterQueue: srv-cq}
YAML
settle 10 '^True$' k get cq srv-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'

# A Deployment naming a LocalQueue that does not exist: its Pod waits.
k -n srv apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {kueue.x-k8s.io/queue-name: elsewhere}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: c, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 200m}}}
YAML
wait_for "deployment: its Pod waits gated for a LocalQueue that does not exist" 30 \
    '^elsewhere kueue.x-k8s.io/admission Pending $' \
    k -n srv get pods -l app=web -o jsonpath='{range .items[*]}{.metadata.labels.kueue\.x-k8s\.io/queue-name} {.spec.schedulingGates[0].name} {.status.phase} {end}'
k -n srv label --overwrite deployment web kueue.x-k8s.io/queue-name=user-queue >/dev/null
expect_exact "deployment: the new queue name reaches its Pod template" "user-queue" \
    k -n srv get deployment web -o jsonpath='{.spec.template.metadata.labels.kueue\.x-k8s\.io/queue-name}'
wait_for "deployment: the Pod made for it queues there and runs" 40 '^user-queue Running $' \
    k -n srv get pods -l app=web -o jsonpath='{range .items[*]}{.metadata.labels.kueue\.x-k8s\.io/queue-name} {.status.phase} {end}'
expect "deployment: an admission gate is not added after creation" \
    'cannot add admission gate after creation' \
    k -n srv annotate deployment web kueue.x-k8s.io/admission-gated-by=example.com/gate
k -n srv delete deployment web >/dev/null

# A StatefulSet created behind an admission gate: its Workload carries it
# and waits; the gate removed from the StatefulSet, it is admitted.
k -n srv apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: gated
  labels: {kueue.x-k8s.io/queue-name: user-queue}
  annotations: {kueue.x-k8s.io/admission-gated-by: example.com/gate}
spec:
  replicas: 1
  podManagementPolicy: Parallel
  serviceName: gated
  selector: {matchLabels: {app: gated}}
  template:
    metadata: {labels: {app: gated}}
    spec:
      containers:
      - {name: c, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 200m}}}
YAML
GW="statefulset-gated-$(printf 'StatefulSet\napps\ngated\n%s' "$(k -n srv get sts gated -o jsonpath='{.metadata.uid}')" |
    sha1sum | cut -c1-5)"
wait_for "statefulset: its group's Workload carries the gate and waits" 20 '^example.com/gate False$' \
    k -n srv get workload "$GW" -o jsonpath='{.metadata.annotations.kueue\.x-k8s\.io/admission-gated-by} {.status.conditions[?(@.type=="QuotaReserved")].status}'
k -n srv annotate sts gated kueue.x-k8s.io/admission-gated-by- >/dev/null
wait_for "statefulset: the gate removed, its Workload follows and is admitted" 30 '^ True$' \
    k -n srv get workload "$GW" -o jsonpath='{.metadata.annotations.kueue\.x-k8s\.io/admission-gated-by} {.status.conditions[?(@.type=="Admitted")].status}'
wait_for "statefulset: ... and its Pod runs" 40 '^Running$' k -n srv get pod gated-0 -o jsonpath='{.status.phase}'
expect_grep "statefulset: the event UpdatedWorkload" 'Updated workload AdmissionGatedBy to ""' \
    k -n srv get events --field-selector involvedObject.name=gated -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'
k -n srv delete sts gated >/dev/null

# A StatefulSet whose group's Workload was made under Kueue's former name,
# statefulset-<name>-<sha1("StatefulSet\napps\n<name>\n")>: created with
# no replicas (no Workload yet), the old Workload made from its template,
# then scaled up.
k -n srv apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: old
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 0
  podManagementPolicy: Parallel
  serviceName: old
  selector: {matchLabels: {app: old}}
  template:
    metadata: {labels: {app: old}}
    spec:
      containers:
      - {name: c, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 200m}}}
YAML
LW="statefulset-old-$(printf 'StatefulSet\napps\nold\n' | sha1sum | cut -c1-5)"
k -n srv get sts old -o json | /usr/bin/python3 -c '
import json, sys
sts = json.load(sys.stdin)
spec = sts["spec"]["template"]["spec"]
spec["schedulingGates"] = [g for g in spec.get("schedulingGates", []) if g["name"] != "kueue.x-k8s.io/admission"]
if not spec["schedulingGates"]:
    del spec["schedulingGates"]
print(json.dumps({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
    "metadata": {"name": sys.argv[1], "namespace": "srv",
                 "annotations": {"kueue.x-k8s.io/is-group-workload": "true"}},
    "spec": {"queueName": "user-queue",
             "podSets": [{"name": "main", "count": 1, "template": {"spec": spec}}]}}))
' "$LW" | k create -f - >/dev/null
k -n srv scale sts old --replicas=1 >/dev/null
wait_for "statefulset: its Pod joins the Workload of the former name and runs" 40 "^$LW Running\$" \
    k -n srv get pod old-0 -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/pod-group-name} {.status.phase}'
expect_exact "statefulset: ... which it owns, and no second Workload is made" "StatefulSet 1" \
    sh -c "echo \"\$(kubectl --kubeconfig '$KC' -n srv get workload '$LW' -o jsonpath='{.metadata.ownerReferences[?(@.controller==true)].kind}') \$(kubectl --kubeconfig '$KC' -n srv get workloads -o name | grep -c statefulset-old-)\""
k -n srv delete sts old >/dev/null
wait_for "statefulset: deleted, the quota is released" 40 '^0$' \
    k get cq srv-cq -o jsonpath='{.status.reservingWorkloads}'

# Placed and evicted as Kueue does: admitted, the Pods are ungated with the
# flavor's node selector and run; their ClusterQueue stopped (HoldAndDrain),
# they are evicted and deleted, and those made in their place wait gated
# until the ClusterQueue runs again. serving_evict KIND NAME REPLICAS.
PODS='{range .items[*]}{.spec.nodeSelector.kubernetes\.io/hostname}{.spec.schedulingGates[0].name} {.status.phase} {end}'
serving_evict() {
    sk=$1 sn=$2 sr=$3
    {
        printf 'apiVersion: apps/v1\nkind: %s\nmetadata:\n  name: %s\n' "$sk" "$sn"
        printf '  labels: {kueue.x-k8s.io/queue-name: user-queue}\nspec:\n  replicas: %s\n' "$sr"
        if [ "$sk" = StatefulSet ]; then printf '  podManagementPolicy: Parallel\n  serviceName: %s\n' "$sn"; fi
        printf '  selector: {matchLabels: {app: %s}}\n  template:\n    metadata: {labels: {app: %s}}\n' "$sn" "$sn"
        printf '    spec:\n      containers:\n      - {name: c, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 200m}}}\n'
    } | k -n srv apply -f - >/dev/null
    srun=$(i=0; while [ $i -lt "$sr" ]; do printf 'cueue-local Running '; i=$((i + 1)); done)
    swait=$(i=0; while [ $i -lt "$sr" ]; do printf 'kueue.x-k8s.io/admission Pending '; i=$((i + 1)); done)
    wait_for "$sn: its Pods ungated with the flavor's node selector, running" 40 "^$srun\$" \
        k -n srv get pods -l app="$sn" -o jsonpath="$PODS"
    sold=$(k -n srv get pods -l app="$sn" -o jsonpath='{.items[*].metadata.uid}')
    k patch cq srv-cq --type=merge -p '{"spec":{"stopPolicy":"HoldAndDrain"}}' >/dev/null
    wait_for "$sn: its ClusterQueue stopped, the Pods are evicted and the quota released" 40 '^0$' \
        k get cq srv-cq -o jsonpath='{.status.reservingWorkloads}'
    wait_for "$sn: ... the Pods deleted, those made in their place wait gated" 40 "^$swait\$" \
        k -n srv get pods -l app="$sn" -o jsonpath="$PODS"
    snew=$(k -n srv get pods -l app="$sn" -o jsonpath='{.items[*].metadata.uid}')
    for u in $sold; do
        case " $snew " in *" $u "*) fail "$sn: the evicted Pod $u is gone" "$snew" ;; esac
    done
    k patch cq srv-cq --type=merge -p '{"spec":{"stopPolicy":"None"}}' >/dev/null
    wait_for "$sn: the ClusterQueue running again, they are admitted and run" 40 "^$srun\$" \
        k -n srv get pods -l app="$sn" -o jsonpath="$PODS"
    k -n srv delete "$sk" "$sn" >/dev/null
    wait_for "$sn: deleted, the quota is released" 40 '^0$' k get cq srv-cq -o jsonpath='{.status.reservingWorkloads}'
}
serving_evict Deployment web2 1
serving_evict StatefulSet group 2
stop_server "$PID"
