# builtin.sh -- the built-in kinds a Kueue installation meets (sourced by
# run.sh): the Node the agent registers, Services and their endpoints,
# ConfigMaps, Secrets, LimitRanges and the resource.k8s.io kinds.

note "# built-in kinds"
start_server builtin --executor local || exit 1

wait_for "the agent registers its Node, Ready" 20 '^cueue-local +Ready ' k get nodes
expect_grep "get nodes -o wide: address, OS image, kernel, runtime" \
    '^cueue-local +Ready +<none> +[0-9]+s +v1\.32\.0-cueue +127\.0\.0\.1 +<none> .* cueue://' \
    k get nodes -o wide
cpus=$($PY -c 'import os; print(len(os.sched_getaffinity(0)))')
expect_exact "the Node's cpu capacity is the CPUs the server may use" "$cpus" \
    k get node cueue-local -o 'jsonpath={.status.capacity.cpu}'
mem=$(awk '/^MemTotal:/ {print $2 "Ki"}' /proc/meminfo)
expect_exact "the Node's memory capacity is MemTotal" "$mem" \
    k get node cueue-local -o 'jsonpath={.status.allocatable.memory}'
out=$(k describe node cueue-local 2>&1)
case "$out" in
*"kubernetes.io/hostname=cueue-local"*"HolderIdentity:  cueue-local"*"Ready            True"*"KubeletReady"*"Capacity:"*"Non-terminated Pods:"*)
    pass "describe node: labels, lease, conditions, capacity, pods" ;;
*) fail "describe node: labels, lease, conditions, capacity, pods" "$out" ;;
esac
k create namespace team-a >/dev/null 2>&1
k -n team-a create job hello --image=busybox -- sleep 60 >/dev/null 2>&1
wait_for "a Job's pod is bound to the node: get pods -o wide" 30 \
    '^hello-[a-z0-9]+ +[0-9]/1 .* cueue-local ' k -n team-a get pods -o wide
wait_for "describe node lists the running pods bound to it" 30 'team-a +hello-' \
    k describe node cueue-local
expect "users may create more Nodes" "node/worker-2 created" k create -f "$D/node.yaml"
expect_grep "a Node without status is NotReady... Unknown" '^worker-2 +Unknown ' k get node worker-2

expect "kubectl create configmap (protobuf body)" "configmap/settings created" \
    k -n team-a create configmap settings --from-literal=a=1 --from-literal=b=2
expect_grep "get cm: DATA counts the entries" '^settings +2 ' k -n team-a get cm
expect "kubectl create secret generic (protobuf body)" "secret/db created" \
    k -n team-a create secret generic db --from-literal=password=hunter2
expect_exact "a Secret's data is base64" "hunter2" sh -c \
    "kubectl --kubeconfig '$KC' -n team-a get secret db -o jsonpath='{.data.password}' | base64 -d"
expect_grep "get secret: TYPE and DATA" '^db +Opaque +1 ' k -n team-a get secret
expect "stringData is folded into data" "secret/db patched" \
    k -n team-a patch secret db -p '{"stringData":{"user":"admin"}}'
expect_exact "stringData is write-only" "YWRtaW4=|" \
    k -n team-a get secret db -o 'jsonpath={.data.user}|{.stringData}'
expect "a Secret's type is immutable" 'type: Invalid value: "kubernetes.io/tls": field is immutable' \
    k -n team-a patch secret db -p '{"type":"kubernetes.io/tls"}'
expect "a ConfigMap key is checked" "a valid config key must consist of alphanumeric characters" \
    k -n team-a apply -f "$D/bad-configmap.yaml"

expect "kubectl create service (protobuf body)" "service/web created" \
    k -n team-a create service clusterip web --tcp=443:8443
expect_grep "get svc: type, ports, selector" '^web +ClusterIP +<none> +<none> +443/TCP +[0-9]+s +app=web$' \
    k -n team-a get svc -o wide
expect "Endpoints and EndpointSlices for a webhook's Service" "endpointslice.discovery.k8s.io/web-1 created" \
    k -n team-a apply -f "$D/endpoints.yaml"
expect_grep "get endpoints" '^web +127\.0\.0\.1:8443 ' k -n team-a get endpoints
expect_grep "get endpointslices" '^web-1 +IPv4 +8443 +127\.0\.0\.1 ' k -n team-a get endpointslices
expect "cluster-info" "Kubernetes control plane is running at $URL" k cluster-info
port=${URL##*:}
expect_grep "the server's own Service: kubernetes in default" "^kubernetes +ClusterIP +<none> +<none> +443/TCP " \
    k -n default get svc kubernetes
expect_exact "... and its endpoints name this server's address" "127.0.0.1:$port" \
    k -n default get endpoints kubernetes -o 'jsonpath={.subsets[0].addresses[0].ip}:{.subsets[0].ports[0].port}'
expect_exact "... and its EndpointSlice" "127.0.0.1 $port" \
    k -n default get endpointslice kubernetes -o 'jsonpath={.endpoints[0].addresses[0]} {.ports[0].port}' 

expect "a LimitRange is stored" "limitrange/limits created" k -n team-a apply -f "$D/limitrange.yaml"
expect_exact "LimitRange container defaults: default from max, defaultRequest from default then min" \
    '{"cpu":"2","memory":"1Gi"}|{"cpu":"2","memory":"1Gi"}' \
    k -n team-a get limits limits -o 'jsonpath={.spec.limits[0].default}|{.spec.limits[0].defaultRequest}'

out=$(k apply -f "$D/dra.yaml" 2>&1)
case "$out" in
*"deviceclass.resource.k8s.io/gpu.example.com created"*"resourceclaimtemplate.resource.k8s.io/one-gpu created"*"resourceclaim.resource.k8s.io/claim-1 created"*)
    pass "the resource.k8s.io kinds are served" ;;
*) fail "the resource.k8s.io kinds are served" "$out" ;;
esac
expect_grep "get resourceclaims: STATE" '^claim-1 +pending ' k -n team-a get resourceclaims
out=$(k apply -f "$SRC/tests/unit/api/data/dra-gpu-queues.yaml" 2>&1)
case "$out" in
*"clusterqueue.kueue.x-k8s.io/p3-dra-cq created"*"resourceclaimtemplate.resource.k8s.io/single-gpu created"*)
    pass "the DRA walkthrough's queues and claim template apply" ;;
*) fail "the DRA walkthrough's queues and claim template apply" "$out" ;;
esac
expect_grep "api-resources lists the DRA kinds" '^resourceclaimtemplates +resource\.k8s\.io/v1 +true +ResourceClaimTemplate$' \
    k api-resources

"$CUEUE" token create --namespace team-a --data-dir "$DATA" >"$TMP/tenant.kubeconfig" 2>/dev/null
expect "a tenant cannot read Secrets, even in its namespace" "Forbidden" \
    timeout "$E2E_TIMEOUT" kubectl --kubeconfig "$TMP/tenant.kubeconfig" -n team-a get secret db
stop_server "$PID"
