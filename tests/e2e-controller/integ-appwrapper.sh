# integ-appwrapper.sh -- sourced by run.sh: the AppWrapper integration in
# `cueue serve`, as Kueue's integration tests drive it (no AppWrapper
# controller: the status is set by hand). An AppWrapper is created
# suspended, gets a Workload with a pod set per wrapped pod template,
# is admitted and started with its components' podSetInfos carrying the
# flavor; one beyond the quota stays suspended until the first succeeds.
cat >"$TMP/aw-cfg.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, workload.codeflare.dev/appwrapper]
YAML
start_server aw --controllers all --executor none --config "$TMP/aw-cfg.yaml" || return 1
k apply -f "$SRC/tests/data/appwrapper/appwrapper-crd.yaml" >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: aw}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: aw-f}
spec:
  nodeLabels: {instance-type: on-demand}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: aw-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: aw-f
      resources:
      - {name: cpu, nominalQuota: "3"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: aw}
spec: {clusterQueue: aw-cq}
YAML
settle 10 '^True$' k get cq aw-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
settle 10 'appwrappers' k api-resources --api-group=workload.codeflare.dev
expect_exact "appwrapper: created suspended (the webhook's defaulting)" "true" \
    k -n aw create -f "$SRC/tests/data/appwrapper/appwrapper.yaml" -o jsonpath='{.spec.suspend}'
AWW='{range .items[*]}{.metadata.ownerReferences[0].name} {.metadata.name} {range .spec.podSets[*]}{.name}={.count} {end}{.status.conditions[?(@.type=="QuotaReserved")].status}{"\n"}{end}'
wait_for "appwrapper: a Workload appwrapper-sample-HASH, one pod set sample-0=2 (the ConfigMap has none)" 15 \
    '^sample appwrapper-sample-[0-9a-f]{5} sample-0=2 True$' k -n aw get workloads -o jsonpath="$AWW"
wait_for "appwrapper: admitted, unsuspended" 15 '^false$' k -n aw get appwrapper sample -o jsonpath='{.spec.suspend}'
expect_exact "appwrapper: the Job component's podSetInfos carry the flavor and pod set" \
    "on-demand sample-0" \
    k -n aw get appwrapper sample -o jsonpath='{.spec.components[1].podSetInfos[0].nodeSelector.instance-type} {.spec.components[1].podSetInfos[0].labels.kueue\.x-k8s\.io/podset}'
expect_exact "appwrapper: the ConfigMap component has none" "" \
    k -n aw get appwrapper sample -o jsonpath='{.spec.components[0].podSetInfos}'
sed 's/name: sample$/name: second/' "$SRC/tests/data/appwrapper/appwrapper.yaml" | k -n aw create -f - >/dev/null
wait_for "appwrapper: a second one beyond the quota is pending" 15 \
    '^second appwrapper-second-[0-9a-f]{5} second-0=2 False$' k -n aw get workloads -o jsonpath="$AWW"
expect_exact "appwrapper: and stays suspended" "true" \
    k -n aw get appwrapper second -o jsonpath='{.spec.suspend}'
k -n aw patch appwrapper sample --subresource=status --type=merge \
    -p '{"status":{"phase":"Running","conditions":[{"type":"QuotaReserved","status":"True","reason":"Admitted","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"},{"type":"ResourcesDeployed","status":"True","reason":"Deployed","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' >/dev/null
k -n aw patch appwrapper sample --subresource=status --type=merge \
    -p '{"status":{"phase":"Succeeded"}}' >/dev/null
wait_for "appwrapper: Succeeded finishes the Workload" 15 '^True Succeeded AppWrapper finished successfully$' \
    k -n aw get workloads -o jsonpath='{range .items[?(@.metadata.ownerReferences[0].name=="sample")]}{.status.conditions[?(@.type=="Finished")].status} {.status.conditions[?(@.type=="Finished")].reason} {.status.conditions[?(@.type=="Finished")].message}{"\n"}{end}'
wait_for "appwrapper: the second is admitted and unsuspended once the quota is back" 20 '^false$' \
    k -n aw get appwrapper second -o jsonpath='{.spec.suspend}'
# Evicted (deactivated): suspended with its podSetInfos cleared.
W=$(k -n aw get workloads -o jsonpath='{.items[?(@.metadata.ownerReferences[0].name=="second")].metadata.name}')
k -n aw patch workload "$W" --type=merge -p '{"spec":{"active":false}}' >/dev/null
wait_for "appwrapper: evicted, suspended with its podSetInfos cleared" 15 '^true $' \
    k -n aw get appwrapper second -o jsonpath='{.spec.suspend} {.spec.components[1].podSetInfos}'
stop_server "$PID"
