# serving.sh -- Deployments and StatefulSets in `cueue serve` with hostile
# tenants. The apps controllers: `kubectl create deployment` makes one
# ReplicaSet <deployment>-<hash> whose Pods are <rs>-<5 chars>, `kubectl
# scale` and `kubectl rollout status` work, a StatefulSet's Pods are
# <name>-0..N-1, deleted from the highest. Kueue's serving integrations:
# each Pod of a queued Deployment is its own Workload, gated until
# admitted, a replica beyond the quota stays gated; a queued StatefulSet
# is one pod group admitted all or nothing. A tenant cannot run a
# Deployment's Pods outside the quota. (Sourced by run.sh after lib.sh.)

need kubectl

cat >"$TMP/serving-config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod, deployment, statefulset]
YAML
start_server serving --controllers all --executor local --config "$TMP/serving-config.yaml" || exit 1

queues team-a 1 memory=4Gi
ROLES="kueue-batch-user-role edit" tenant alice team-a

pods_of() { k -n team-a get pods -l "$1" -o jsonpath='{range .items[*]}{.metadata.name} {.spec.schedulingGates[0].name} {.status.phase}{"\n"}{end}'; }

# A queued Deployment, created by a tenant with the real kubectl: 3
# replicas of 400m in a quota of 1 cpu, so two run and one waits gated.
cat >"$TMP/web.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: busybox
        command: [sleep, "300"]
        resources: {requests: {cpu: 400m}}
YAML
expect "deployment: a tenant creates a queued Deployment" "deployment.apps/web created" \
    kt "$TKC" -n team-a create -f "$TMP/web.yaml"
expect_exact "deployment: the template is defaulted as Kueue's webhooks do" \
    "user-queue true kueue.x-k8s.io/admission deployment" \
    k -n team-a get deploy web -o jsonpath='{.spec.template.metadata.labels.kueue\.x-k8s\.io/queue-name} {.spec.template.metadata.labels.kueue\.x-k8s\.io/managed} {.spec.template.spec.schedulingGates[0].name} {.spec.template.metadata.annotations.kueue\.x-k8s\.io/pod-suspending-parent}'
wait_for "deployment: one ReplicaSet web-<pod-template-hash>, labelled with the hash" 15 \
    '^web-[bcdfghjklmnpqrstvwxz2456789]+ [bcdfghjklmnpqrstvwxz2456789]+ 3$' \
    k -n team-a get rs -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.labels.pod-template-hash} {.spec.replicas}{"\n"}{end}'
RS=$(k -n team-a get rs -o jsonpath='{.items[0].metadata.name}')
wait_for "deployment: two replicas run within the quota" 30 '^2$' \
    sh -c "$(printf '%s' "kubectl --kubeconfig $KC -n team-a get pods -l app=web --field-selector=status.phase=Running -o name | wc -l")"
expect_grep "deployment: its Pods are named <rs>-<5 chars>, owned by the ReplicaSet" \
    "^$RS-[a-z0-9]{5} ReplicaSet $RS\$" \
    k -n team-a get pods -l app=web -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name}{"\n"}{end}'
expect_exact "deployment: each Pod is its own Workload" "3" \
    sh -c "kubectl --kubeconfig $KC -n team-a get workloads -o name | wc -l"
wait_for "deployment: the replica beyond the quota stays gated" 15 \
    '^web-[a-z0-9]+-[a-z0-9]{5} kueue.x-k8s.io/admission Pending$' pods_of app=web
expect_exact "deployment: ... with 1 pending Workload" "1" k get cq cq -o jsonpath='{.status.pendingWorkloads}'

# Hostile tenant: the gate or the binding through a Deployment. The gate
# dropped from the template comes back: Kueue's Deployment webhook
# defaults on update too, so the template stays managed and gated.
kt "$TKC" -n team-a patch deploy web --type=json -p '[{"op":"remove","path":"/spec/template/spec/schedulingGates"}]' >/dev/null 2>&1
expect_exact "deployment: a tenant cannot drop the gate from the template" "kueue.x-k8s.io/admission kueue.x-k8s.io/topology" \
    k -n team-a get deploy web -o jsonpath='{.spec.template.spec.schedulingGates[*].name}'
expect "deployment: a tenant cannot bind the template to the node" "spec.nodeName" \
    kt "$TKC" -n team-a create -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: bound}
spec:
  selector: {matchLabels: {app: bound}}
  template:
    metadata: {labels: {app: bound}}
    spec:
      nodeName: cueue-local
      containers: [{name: c, image: busybox, command: [sleep, "60"]}]
YAML
expect "deployment: a tenant cannot create an ungated managed template" "only Kueue labels a Pod as managed" \
    kt "$TKC" -n team-a create -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: sneaky}
spec:
  selector: {matchLabels: {app: sneaky}}
  template:
    metadata: {labels: {app: sneaky, kueue.x-k8s.io/managed: "true"}}
    spec:
      containers: [{name: c, image: busybox, command: [sleep, "60"]}]
YAML

# Scaling: down to 1 frees the quota, up to 2 admits another.
expect "deployment: kubectl scale" "deployment.apps/web scaled" kt "$TKC" -n team-a scale deploy web --replicas=1
wait_for "deployment: scaled down to one Pod" 30 '^1$' \
    sh -c "kubectl --kubeconfig $KC -n team-a get pods -l app=web -o name | wc -l"
expect "deployment: kubectl rollout status" 'successfully rolled out' \
    kt "$TKC" -n team-a rollout status deploy/web --timeout=30s
wait_for "deployment: status as kubectl shows it" 15 '^web +1/1 +1 +1 ' \
    kt "$TKC" -n team-a get deploy web --no-headers
kt "$TKC" -n team-a scale deploy web --replicas=2 >/dev/null
wait_for "deployment: scaled up, the new replica runs" 30 '^2$' \
    sh -c "$(printf '%s' "kubectl --kubeconfig $KC -n team-a get pods -l app=web --field-selector=status.phase=Running -o name | wc -l")"
k -n team-a delete deploy web >/dev/null
wait_for "deployment: deleting it deletes its ReplicaSet and Pods" 30 '^0$' \
    sh -c "kubectl --kubeconfig $KC -n team-a get pods,rs -o name | wc -l"
wait_for "deployment: the quota is released" 30 '^0$' k get cq cq -o jsonpath='{.status.reservingWorkloads}'

# A queued StatefulSet: one pod group, admitted all or nothing.
cat >"$TMP/db.yaml" <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 2
  podManagementPolicy: Parallel
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: c
        image: busybox
        command: [sleep, "300"]
        resources: {requests: {cpu: 400m}}
YAML
expect "statefulset: a tenant creates a queued StatefulSet" "statefulset.apps/db created" \
    kt "$TKC" -n team-a create -f "$TMP/db.yaml"
# Its group's Workload is named as Kueue names it (GetWorkloadNameForOwnerWithGVK):
# statefulset-<name>- and the first five hex digits of sha1("StatefulSet\napps\n<name>\n<uid>").
WL="statefulset-db-$(printf 'StatefulSet\napps\ndb\n%s' "$(k -n team-a get sts db -o jsonpath='{.metadata.uid}')" |
    sha1sum | cut -c1-5)"
wait_for "statefulset: its Pods db-0 and db-1 run, one group of 2 named as Kueue names it" 30 \
    "^db-0  Running $WL 2 true db-1  Running $WL 2 true \$" \
    sh -c "kubectl --kubeconfig $KC -n team-a get pods -l app=db -o jsonpath='{range .items[*]}{.metadata.name} {.spec.schedulingGates[0].name} {.status.phase} {.metadata.labels.kueue\.x-k8s\.io/pod-group-name} {.metadata.annotations.kueue\.x-k8s\.io/pod-group-total-count} {.metadata.annotations.kueue\.x-k8s\.io/pod-group-serving} {end}'"
expect_exact "statefulset: one Workload for the group" "1" \
    sh -c "kubectl --kubeconfig $KC -n team-a get workloads -o name | wc -l"
expect "statefulset: kubectl rollout status" 'roll out complete' \
    kt "$TKC" -n team-a rollout status sts/db --timeout=30s
# Scaling up does not grow what was admitted: the new Pod stays gated.
expect "statefulset: kubectl scale" "statefulset.apps/db scaled" kt "$TKC" -n team-a scale sts db --replicas=3
wait_for "statefulset: scaled up, db-2 is made but stays gated" 20 '^db-2 kueue.x-k8s.io/admission Pending$' \
    k -n team-a get pod db-2 -o jsonpath='{.metadata.name} {.spec.schedulingGates[0].name} {.status.phase}'
settle 3 '^2$' sh -c "$(printf '%s' "kubectl --kubeconfig $KC -n team-a get pods -l app=db --field-selector=status.phase=Running -o name | wc -l")"
expect_exact "statefulset: ... and only the admitted two run" "2" \
    sh -c "kubectl --kubeconfig $KC -n team-a get pods -l app=db --field-selector=status.phase=Running -o name | wc -l"
kt "$TKC" -n team-a scale sts db --replicas=2 >/dev/null
wait_for "statefulset: scaled down, from the highest ordinal" 30 '^db-0 db-1 $' \
    sh -c "kubectl --kubeconfig $KC -n team-a get pods -l app=db -o jsonpath='{range .items[*]}{.metadata.name} {end}'"
# Kueue's StatefulSet rules: its Workload is the StatefulSet's, made ahead
# of the Pods; the replicas change only to zero and back (kubectl scale,
# the scale subresource, is not judged, as Kueue's webhook does not see it).
expect_exact "statefulset: its group's Workload is owned by the StatefulSet" "StatefulSet db main=2" \
    k -n team-a get workload $WL -o jsonpath='{.metadata.ownerReferences[?(@.controller==true)].kind} {.metadata.ownerReferences[?(@.controller==true)].name} {.spec.podSets[0].name}={.spec.podSets[0].count}'
expect_grep "statefulset: resizing it is refused" 'spec.replicas: Invalid value: 3: field is immutable' \
    kt "$TKC" -n team-a patch sts db --type=merge -p '{"spec":{"replicas":3}}'
kt "$TKC" -n team-a patch sts db --type=merge -p '{"spec":{"replicas":0}}' >/dev/null
wait_for "statefulset: scaled to zero, its Workload is on hold and the quota free" 30 '^False OnHold 0$' \
    sh -c "echo \"\$(kubectl --kubeconfig $KC -n team-a get workload $WL -o jsonpath='{.status.conditions[?(@.type==\"QuotaReserved\")].status} {.status.conditions[?(@.type==\"QuotaReserved\")].reason}') \$(kubectl --kubeconfig $KC get cq cq -o jsonpath='{.status.reservingWorkloads}')\""
wait_for "statefulset: ... and its Pods are gone" 30 '^0$' \
    sh -c "kubectl --kubeconfig $KC -n team-a get pods -l app=db -o name | wc -l"
settle 15 '^0$' k -n team-a get sts db -o jsonpath='{.status.replicas}'
kt "$TKC" -n team-a patch sts db --type=merge -p '{"spec":{"replicas":2}}' >/dev/null
wait_for "statefulset: scaled up from zero, the same Workload is admitted again and the Pods run" 40 \
    '^True db-0 Running db-1 Running $' \
    sh -c "echo \"\$(kubectl --kubeconfig $KC -n team-a get workload $WL -o jsonpath='{.status.conditions[?(@.type==\"Admitted\")].status}') \$(kubectl --kubeconfig $KC -n team-a get pods -l app=db -o jsonpath='{range .items[*]}{.metadata.name} {.status.phase} {end}')\""

# A second group of 2 x 400m does not fit beside the first: none of it runs.
sed 's/name: db$/name: db2/; s/app: db}/app: db2}/g; s/serviceName: db/serviceName: db2/' "$TMP/db.yaml" >"$TMP/db2.yaml"
kt "$TKC" -n team-a create -f "$TMP/db2.yaml" >/dev/null
wait_for "statefulset: a group beyond the quota: both Pods stay gated" 20 \
    '^db2-0 kueue.x-k8s.io/admission Pending db2-1 kueue.x-k8s.io/admission Pending $' \
    sh -c "kubectl --kubeconfig $KC -n team-a get pods -l app=db2 -o jsonpath='{range .items[*]}{.metadata.name} {.spec.schedulingGates[0].name} {.status.phase} {end}'"
k -n team-a delete sts db >/dev/null
wait_for "statefulset: once the first is deleted, the second group runs" 40 \
    '^db2-0 Running db2-1 Running $' \
    sh -c "kubectl --kubeconfig $KC -n team-a get pods -l app=db2 -o jsonpath='{range .items[*]}{.metadata.name} {.status.phase} {end}'"
