# objectcount.sh -- a tenant cannot pile objects into the store past what
# the cluster admin allows: ResourceQuota object counts (count/jobs.batch,
# configmaps, ...) refuse the create that would pass the hard limit, with
# kube-apiserver's message, even under concurrent creates; the tenant can
# neither raise nor remove its quota; status.used follows creates and
# deletes; a quota cueue cannot enforce (cpu, pods, scopes) is refused
# rather than stored. (Sourced by run.sh after lib.sh.)

need kubectl
start_server objcount --controllers all --executor none || exit 1
queues team 100
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: ResourceQuota
metadata: {name: objects, namespace: team}
spec:
  hard:
    count/jobs.batch: 3
    configmaps: "1"
YAML
tenant alice team

job() { # NAME
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1, namespace: team, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["true"], resources: {requests: {cpu: 100m}}}]
YAML
}

# Six creates at once for three places: exactly three are stored.
pids=""
for i in 1 2 3 4 5 6; do
    job "j$i" | kt "$TKC" create -f - >"$TMP/create.$i" 2>&1 &
    pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
expect_exact "objcount: of six concurrent creates, three are stored" "3" \
    sh -c "kubectl --kubeconfig '$KC' -n team get jobs -o name | wc -l | tr -d ' '"
expect_exact "objcount: the others are refused with the quota's words" "3" \
    sh -c "grep -l 'is forbidden: exceeded quota: objects, requested: count/jobs.batch=1, used: count/jobs.batch=3, limited: count/jobs.batch=3' '$TMP'/create.* | wc -l | tr -d ' '"
expect_exact "objcount: status.used counts them" "3/3" \
    sh -c "kubectl --kubeconfig '$KC' -n team get quota objects -o jsonpath='{.status.used.count/jobs\.batch}/{.status.hard.count/jobs\.batch}'"
expect "objcount: kubectl get quota shows used/hard" "count/jobs.batch: 3/3" \
    k -n team get quota objects
expect "objcount: the tenant cannot raise its quota" "forbidden" \
    kt "$TKC" -n team patch quota objects --type=merge -p '{"spec":{"hard":{"count/jobs.batch":"1000"}}}'
expect "objcount: nor delete it" "forbidden" kt "$TKC" -n team delete quota objects
expect "objcount: nor write its status" "forbidden" \
    kt "$TKC" -n team patch quota objects --subresource=status --type=merge -p '{"status":{"used":{"count/jobs.batch":"0"}}}'

# A deletion frees its place at once.
J=$(k -n team get jobs -o jsonpath='{.items[0].metadata.name}')
k -n team delete job "$J" --wait=true >/dev/null
expect_exact "objcount: a deletion lowers status.used" "2" \
    k -n team get quota objects -o jsonpath='{.status.used.count/jobs\.batch}'
job again | kt "$TKC" create -f - >"$TMP/again" 2>&1
expect_exact "objcount: and the place is free again" "job.batch/again created" cat "$TMP/again"
job over | kt "$TKC" create -f - >"$TMP/over" 2>&1
expect "objcount: then full once more" "exceeded quota: objects" cat "$TMP/over"

# The admin raises the limit: effective at once.
k -n team patch quota objects --type=merge -p '{"spec":{"hard":{"count/jobs.batch":"4"}}}' >/dev/null
job over | kt "$TKC" create -f - >"$TMP/over2" 2>&1
expect_exact "objcount: a raised limit takes effect at once" "job.batch/over created" cat "$TMP/over2"

# What cueue cannot enforce is refused, not stored.
expect "objcount: a compute quota is refused" 'spec.hard[requests.cpu]: Unsupported value: "requests.cpu"' \
    k -n team create quota cpu --hard=requests.cpu=4
expect "objcount: a pod count is refused" 'spec.hard[count/pods]: Unsupported value' \
    k -n team create quota pods --hard=count/pods=4
expect "objcount: a scoped quota is refused" 'spec.scopes: Invalid value: unsupported scope' \
    k -n team create quota scoped --hard=secrets=4 --scopes=BestEffort
expect_exact "objcount: none of them is stored" "objects" \
    k -n team get quota -o jsonpath='{.items[*].metadata.name}'

# Deleting the namespace with its quota goes through.
k delete ns team --wait=false >/dev/null
wait_for "objcount: a namespace with a quota is deleted" 30 'NotFound' k get ns team
