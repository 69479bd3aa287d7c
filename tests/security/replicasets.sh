# replicasets.sh -- a tenant's ReplicaSet cannot run Pods outside the quota.
# The node agent's ReplicaSet controller makes Pods from the template as
# they are, without the server's admission (as kube-controller-manager's
# do): a template bound to the node, labelled as Kueue's managed Pods
# without Kueue's gate, or labelled with a pod set without the topology
# gate would make Pods the node agent runs at once. Kubernetes' edit role
# grants `create replicasets`, so a ReplicaSet's template gets the Pod
# rules of Deployments and StatefulSets, on create and on every update
# (a Deployment's own ReplicaSets too). (Sourced by run.sh after lib.sh.)

need kubectl

cat >"$TMP/rs-config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod, deployment]
YAML
start_server rs --controllers all --executor local --config "$TMP/rs-config.yaml" || exit 1
queues team-a 4
# A developer with Kubernetes' edit role: it may create Pods and
# ReplicaSets in its namespace, not run them past Kueue.
ROLES="kueue-batch-user-role edit" tenant eddie team-a

# rs NAME [TEMPLATE-LABEL-LINE [SPEC-LINE]]: a ReplicaSet of one Pod.
rs() {
    printf 'apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: %s, namespace: team-a}\n' "$1"
    printf 'spec:\n  replicas: 1\n  selector: {matchLabels: {app: %s}}\n  template:\n' "$1"
    printf '    metadata:\n      labels:\n        app: %s\n' "$1"
    [ -n "${2:-}" ] && printf '        %s\n' "$2"
    printf '    spec:\n'
    [ -n "${3:-}" ] && printf '      %s\n' "$3"
    printf '      restartPolicy: Always\n'
    printf '      containers: [{name: c, image: busybox, command: [sleep, "300"]}]\n'
}

# pods_of APP: "name node phase" of each Pod labelled app=APP.
pods_of() {
    k -n team-a get pods -l "app=$1" \
        -o jsonpath='{range .items[*]}{.metadata.name} {.spec.nodeName} {.status.phase}{"\n"}{end}'
}

# --- 1. Templates the node agent would run at once are refused. ---------------------
rs bound "" "nodeName: cueue-local" >"$TMP/bound.yaml"
expect "replicaset: a tenant cannot bind the template to the node" \
    'replicasets.apps "bound" is forbidden: spec.nodeName: a Pod bound to a node runs at once, outside Kueue'"'"'s quota' \
    kt "$TKC" create -f "$TMP/bound.yaml"
rs sneaky 'kueue.x-k8s.io/managed: "true"' >"$TMP/sneaky.yaml"
expect "replicaset: a tenant cannot label the template managed without Kueue's gate" \
    'replicasets.apps "sneaky" is forbidden: metadata.labels[kueue.x-k8s.io/managed]: only Kueue labels a Pod as managed' \
    kt "$TKC" create -f "$TMP/sneaky.yaml"
rs placed 'kueue.x-k8s.io/podset: main' "nodeSelector: {kubernetes.io/hostname: cueue-local}" >"$TMP/placed.yaml"
expect "replicaset: a tenant cannot label the template with a pod set without the topology gate" \
    'replicasets.apps "placed" is forbidden: metadata.labels[kueue.x-k8s.io/podset]: only Kueue labels a Pod with its pod set' \
    kt "$TKC" create -f "$TMP/placed.yaml"

# --- 2. A plain template is allowed; its Pod is made and left Pending. --------------
rs plain >"$TMP/plain.yaml"
expect "replicaset: a tenant creates a ReplicaSet with a plain template" \
    "replicaset.apps/plain created" kt "$TKC" create -f "$TMP/plain.yaml"
wait_for "  ... its Pod is made, unbound and Pending (nothing schedules it)" 20 \
    '^plain-[a-z0-9]{5}  Pending$' pods_of plain
# The refused ones made nothing: the controller had the time to make the
# plain one's Pod (a control in the same run).
expect_exact "  ... and no Pod of a refused template exists" "" \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get pods -l 'app in (bound,sneaky,placed)' -o name"

# --- 3. Nor can an update make the template run at once. ------------------------------
expect "replicaset: a tenant cannot label an existing template managed" \
    'only Kueue labels a Pod as managed' \
    kt "$TKC" -n team-a patch rs plain --type=merge \
    -p '{"spec":{"template":{"metadata":{"labels":{"kueue.x-k8s.io/managed":"true"}}}}}'
expect "replicaset: a tenant cannot bind an existing template to the node" \
    'spec.nodeName: a Pod bound to a node runs at once' \
    kt "$TKC" -n team-a patch rs plain --type=merge \
    -p '{"spec":{"template":{"spec":{"nodeName":"cueue-local"}}}}'
# The replacement Pod the controller makes after a deletion is still plain.
kt "$TKC" -n team-a delete pods -l app=plain --wait=false >/dev/null
wait_for "  ... so the Pod made again is still unbound and Pending" 30 \
    '^plain-[a-z0-9]{5}  Pending$' pods_of plain
expect_exact "  ... and nothing of the ReplicaSet ever ran" "" \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get pods -l app=plain --field-selector=status.phase!=Pending -o name"
expect "replicaset: a tenant may still scale it" "replicaset.apps/plain scaled" \
    kt "$TKC" -n team-a scale rs plain --replicas=2
expect "replicaset: a tenant may still relabel the template" "replicaset.apps/plain patched" \
    kt "$TKC" -n team-a patch rs plain --type=merge \
    -p '{"spec":{"template":{"metadata":{"labels":{"tier":"web"}}}}}'

# --- 4. A queued Deployment's ReplicaSet: its gates stay. ------------------------------
# Two replicas of 3 cpus in a quota of 4: one runs, the other waits gated.
cat >"$TMP/web.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team-a
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: busybox
        command: [sleep, "300"]
        resources: {requests: {cpu: "3"}}
YAML
kt "$TKC" create -f "$TMP/web.yaml" >/dev/null
# gates_of: "gates phase" of each Pod of the Deployment.
gates_of() {
    k -n team-a get pods -l app=web \
        -o jsonpath='{range .items[*]}{.spec.schedulingGates[*].name} {.status.phase}{"\n"}{end}' | sort
}
settle 30 '^ Running$' gates_of
settle 30 '^kueue.x-k8s.io/admission.* Pending$' gates_of
WEBRS=$(k -n team-a get rs -l app=web -o jsonpath='{.items[0].metadata.name}')
expect "deployment: a tenant cannot drop Kueue's gates from its ReplicaSet's template" \
    'only Kueue labels a Pod as managed, and only with its scheduling gate kueue.x-k8s.io/admission' \
    kt "$TKC" -n team-a patch rs "$WEBRS" --type=json \
    -p '[{"op":"remove","path":"/spec/template/spec/schedulingGates"}]'
# The waiting Pod deleted, the ReplicaSet makes another from its template.
kt "$TKC" -n team-a delete pods -l app=web --field-selector=status.phase=Pending --wait=false >/dev/null
wait_for "  ... so the Pod made again waits gated, beyond the quota" 30 \
    '^kueue.x-k8s.io/admission.* Pending$' gates_of
expect_exact "  ... and one Pod of the Deployment runs, as the quota allows" "1" \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get pods -l app=web --field-selector=status.phase=Running -o name | wc -l"

# --- 5. The admin may (run-unmanaged on pods): its bound ReplicaSet runs. ---------------
expect "replicaset: the admin may bind a template to the node" "replicaset.apps/bound created" \
    k create -f "$TMP/bound.yaml"
wait_for "  ... and its Pod runs" 30 '^bound-[a-z0-9]{5} cueue-local Running$' pods_of bound
stop_servers
