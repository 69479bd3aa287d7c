# crd.sh -- CustomResourceDefinitions with the real kubectl (sourced by
# run.sh): Kueue's installed at start, a JobSet-like and a RayJob-like kind
# of our own applied, their objects validated, defaulted and pruned,
# explained, printed, scaled, served in two versions, and deleted with
# their CRD.

note "# custom resource definitions"
start_server crd --insecure-http || exit 1

out=$(k get crd 2>&1)
n=$(printf '%s\n' "$out" | grep -c '\.kueue\.x-k8s\.io ')
if [ "$n" = 11 ]; then pass "get crd lists Kueue's 11 CRDs, installed at start"; else
    fail "get crd lists Kueue's 11 CRDs, installed at start" "$out"
fi
expect "and the autoscaler's ProvisioningRequest, for the provisioning check" \
    "provisioningrequests.autoscaling.x-k8s.io" k get crd provisioningrequests.autoscaling.x-k8s.io
expect_grep "get crd prints CREATED AT" '^NAME +CREATED AT$' k get crd
expect_exact "Kueue's CRDs are Established" "True" \
    k get crd clusterqueues.kueue.x-k8s.io -o 'jsonpath={.status.conditions[?(@.type=="Established")].status}'
out=$(k explain clusterqueue.spec.preemption 2>&1)
case "$out" in
*"KIND:       ClusterQueue"*"FIELD: preemption <Object>"*"reclaimWithinCohort"*"enum: Never, LowerPriority, Any"*)
    pass "explain clusterqueue.spec.preemption" ;;
*) fail "explain clusterqueue.spec.preemption" "$out" ;;
esac
expect "explain a field's description" "The ResourceFlavor." k explain clusterqueue.spec.resourceGroups.flavors.name

# A third-party CRD: served at once, with a warning for the rule cueue does
# not evaluate.
out=$(k apply -f "$D/jobset-crd.yaml" 2>&1)
case "$out" in
*"Warning: spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[3]: the x-kubernetes-validations rule"*"is not evaluated by cueue serve: the function quantity"*"customresourcedefinition.apiextensions.k8s.io/jobsets.jobset.example.com created"*)
    pass "apply a CRD: created, with a warning for the rule outside the CEL subset" ;;
*) fail "apply a CRD: created, with a warning for the rule outside the CEL subset" "$out" ;;
esac
expect "wait --for condition=established" "condition met" \
    k wait --for condition=established --timeout=10s crd/jobsets.jobset.example.com
expect_grep "api-resources: the new kind, short name and group" \
    '^jobsets +js +jobset\.example\.com/v1alpha2 +true +JobSet$' k api-resources
expect_grep "api-resources -o wide: its category" 'jobsets .* all$' k api-resources -o wide

k create namespace team-a >/dev/null 2>&1
expect "strict field validation (kubectl's default): 400 naming the unknown field" \
    'JobSet in version "v1alpha2" cannot be handled as a JobSet: strict decoding error: unknown field "spec.extraField"' \
    k -n team-a apply -f "$D/jobset.yaml"
out=$(k -n team-a apply -f "$D/jobset.yaml" --validate=warn 2>&1)
case "$out" in
*'Warning: unknown field "spec.extraField"'*"jobset.jobset.example.com/train created"*) pass "--validate=warn: created, the unknown field warned of" ;;
*) fail "--validate=warn: created, the unknown field warned of" "$out" ;;
esac
expect_exact "unknown fields are pruned, defaults applied (replicas 1, successPolicy.operator All)" \
    "|1|All" k -n team-a get js train -o 'jsonpath={.spec.extraField}|{.spec.replicatedJobs[0].replicas}|{.spec.successPolicy.operator}'
expect_grep "get js: the CRD's printer columns" '^NAME +SUSPENDED +JOBS +COMPLETED +AGE$' k -n team-a get js
expect_grep "get js -o wide: priority columns" '^NAME +SUSPENDED +JOBS +COMPLETED +RESTARTS +AGE$' \
    k -n team-a get js -o wide
expect_grep "get js: a boolean cell" '^train +true ' k -n team-a get js
expect "get all includes the kind (category all)" "jobset.jobset.example.com/train" k -n team-a get all
out=$(k explain jobset.spec.replicatedJobs 2>&1)
case "$out" in
*"KIND:       JobSet"*"Jobs made from one template, several times."*"name	<string> -required-"*)
    pass "explain a CRD kind's field" ;;
*) fail "explain a CRD kind's field" "$out" ;;
esac
expect "describe a custom resource" "Replicated Jobs:" k -n team-a describe js train

out=$(k -n team-a apply -f "$D/jobset-bad.yaml" 2>&1)
case "$out" in
*'The JobSet "bad" is invalid:'*'* spec.failurePolicy.maxRestarts: Invalid value: -1: spec.failurePolicy.maxRestarts in body should be greater than or equal to 0'*"* spec.replicatedJobs[0].name: Invalid value: \"Leader\": spec.replicatedJobs[0].name in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?\$'"*'* spec.replicatedJobs[1]: Duplicate value: map[string]interface {}{"name":"Leader"}'*'* spec.successPolicy.operator: Unsupported value: "Some": supported values: "All", "Any"'*)
    pass "schema validation: kube-apiserver's wording and field paths, every cause" ;;
*) fail "schema validation: kube-apiserver's wording and field paths, every cause" "$out" ;;
esac
out=$(k -n team-a apply -f "$D/jobset-bad-rules.yaml" 2>&1)
case "$out" in
*'* spec: Invalid value: "object": a replicated job may have at most 64 replicas'*'* spec.successPolicy.targetReplicatedJobs: Invalid value: "object": successPolicy names a replicated job that does not exist'*)
    pass "x-kubernetes-validations: messages, fieldPath" ;;
*) fail "x-kubernetes-validations: messages, fieldPath" "$out" ;;
esac
expect "a transition rule allows what it allows (unsuspend)" "jobset.jobset.example.com/train patched" \
    k -n team-a patch js train --type=merge -p '{"spec":{"suspend":false}}'
expect "a transition rule (oldSelf), with its reason" \
    'The JobSet "train" is invalid: spec: Forbidden: replicatedJobs may change only while the JobSet is suspended' \
    k -n team-a patch js train --type=json -p '[{"op":"replace","path":"/spec/replicatedJobs/1/replicas","value":2}]'
expect "strategic merge patch is refused on custom resources (415), as on a cluster" \
    "application/strategic-merge-patch+json is not supported" \
    k -n team-a patch js train -p '{"spec":{"suspend":true}}'

# The status subresource.
expect "patch --subresource=status" "jobset.jobset.example.com/train patched" \
    k -n team-a patch js train --subresource=status --type=merge -p '{"status":{"activeJobs":2,"conditions":[{"type":"Completed","status":"False"}]}}'
expect_grep "the status shows in the printer columns" '^train +false +2 +False ' k -n team-a get js
expect "the status is validated too" 'status.conditions[0].status: Unsupported value: "Maybe"' \
    k -n team-a patch js train --subresource=status --type=merge -p '{"status":{"conditions":[{"type":"Completed","status":"Maybe"}]}}'
k -n team-a patch js train --type=merge -p '{"status":{"activeJobs":9}}' >/dev/null 2>&1
expect_exact "a write of the main resource leaves the status alone" "2" \
    k -n team-a get js train -o 'jsonpath={.status.activeJobs}'

# Watch, list with selectors, deletecollection.
RVL=$(curl -s "$URL/apis/jobset.example.com/v1alpha2/namespaces/team-a/jobsets" | $PY -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])')
timeout 10 curl -s -N "$URL/apis/jobset.example.com/v1alpha2/namespaces/team-a/jobsets?watch=true&resourceVersion=$RVL&timeoutSeconds=3" >"$TMP/js-watch.out" &
WPID=$!
sleep 0.5
k -n team-a label js train tier=gold >/dev/null 2>&1
k -n team-a apply -f "$D/jobset2.yaml" >/dev/null 2>&1
wait "$WPID"
expect_exact "a watch of a CRD kind streams its changes" "MODIFIED train
ADDED second" $PY -c '
import json, sys
for line in open(sys.argv[1]):
    ev = json.loads(line)
    print(ev["type"], ev["object"]["metadata"]["name"])
' "$TMP/js-watch.out"
expect_exact "list with a label selector" "train" k -n team-a get js -l tier=gold -o name --no-headers -o 'jsonpath={.items[*].metadata.name}'
expect_status "deletecollection with a label selector" 200 -X DELETE \
    "$URL/apis/jobset.example.com/v1alpha2/namespaces/team-a/jobsets?labelSelector=tier%3Dgold"
expect_exact "deletecollection deleted what it selected" "second" \
    k -n team-a get js -o 'jsonpath={.items[*].metadata.name}'

# A RayJob-like kind: two served versions, the scale subresource, int-or-string.
expect "a CRD with two versions and the scale subresource" \
    "customresourcedefinition.apiextensions.k8s.io/rayjobs.ray.example.com created" \
    k apply -f "$D/rayjob-crd.yaml"
expect "create through the storage version" "rayjob.ray.example.com/sum created" \
    k -n team-a apply -f "$D/rayjob.yaml"
expect_grep "get rj (short name): columns, a date column left empty" '^sum +1 +$' k -n team-a get rj
out=$(k -n team-a get rayjobs.v1alpha1.ray.example.com sum -o 'jsonpath={.apiVersion}' 2>&1)
case "$out" in
*"Warning: ray.example.com/v1alpha1 RayJob is deprecated"*"ray.example.com/v1alpha1"*)
    pass "read through the other version: converted (None), with the deprecation warning" ;;
*) fail "read through the other version: converted (None), with the deprecation warning" "$out" ;;
esac
expect "kubectl scale (the scale subresource)" "rayjob.ray.example.com/sum scaled" \
    k -n team-a scale rj sum --replicas=3
expect_exact "scale writes specReplicasPath" "3" k -n team-a get rj sum -o 'jsonpath={.spec.workers}'
expect '/scale answers an autoscaling/v1 Scale' '"kind":"Scale","apiVersion":"autoscaling/v1"' \
    k get --raw /apis/ray.example.com/v1/namespaces/team-a/rayjobs/sum/scale
expect "int-or-string: a string that fails the pattern" \
    "spec.workerCPU in body should match '^[0-9]+m?\$'" \
    k -n team-a patch rj sum --type=merge -p '{"spec":{"workerCPU":"1.5"}}'
expect "int-or-string: an integer is accepted" "rayjob.ray.example.com/sum patched" \
    k -n team-a patch rj sum --type=merge -p '{"spec":{"workerCPU":2}}'
expect "a rule with string() and startsWith" 'the entrypoint must run python or ray' \
    k -n team-a patch rj sum --type=merge -p '{"spec":{"entrypoint":"bash run.sh"}}'
expect "format date-time" 'spec.deadline in body must be of type date-time: "tomorrow"' \
    k -n team-a patch rj sum --type=merge -p '{"spec":{"deadline":"tomorrow"}}'
expect_exact "preserve-unknown-fields keeps what it holds" "numpy" \
    k -n team-a get rj sum -o 'jsonpath={.spec.runtimeEnv.pip[0]}'

# A cluster-scoped kind, found by its category.
expect "a cluster-scoped CRD" "customresourcedefinition.apiextensions.k8s.io/gpuprofiles.hw.example.com created" \
    k apply -f "$D/cluster-crd.yaml"
expect "a cluster-scoped object" "gpuprofile.hw.example.com/a100 created" k apply -f "$D/gpuprofile.yaml"
expect_grep "get by category (no printer columns: NAME, AGE)" '^NAME +AGE$' k get hardware
expect "format uuid and enum" 'spec.model: Unsupported value: "V100": supported values: "A100", "H100", "L4"' \
    k patch gpuprofile a100 --type=merge -p '{"spec":{"model":"V100","uuid":"x"}}'

# Names another CRD of the group holds are not accepted.
k apply -f "$D/conflict-crd.yaml" >/dev/null 2>&1
expect_exact "a CRD whose short name is taken: NamesAccepted False, not served" \
    "False ShortNamesConflict" k get crd widgets.jobset.example.com \
    -o 'jsonpath={.status.conditions[?(@.type=="NamesAccepted")].status} {.status.conditions[?(@.type=="NamesAccepted")].reason}'

# It all survives a restart.
stop_server "$PID" >/dev/null
start_server crd --insecure-http || exit 1
expect_exact "after a restart the CRD kinds and their objects are served" "second sum a100" \
    sh -c "kubectl --kubeconfig '$KC' -n team-a get js,rj -o 'jsonpath={.items[*].metadata.name}'; printf ' '; kubectl --kubeconfig '$KC' get gpuprofiles -o 'jsonpath={.items[*].metadata.name}'"

# Deleting a CRD deletes its objects; a finalizer holds it meanwhile.
k -n team-a patch js second --type=merge -p '{"metadata":{"finalizers":["example.com/hold"]}}' >/dev/null 2>&1
expect "delete the CRD" 'customresourcedefinition.apiextensions.k8s.io "jobsets.jobset.example.com" deleted' \
    k delete crd jobsets.jobset.example.com --wait=false
expect_exact "the CRD is Terminating while an object stays" "True" \
    k get crd jobsets.jobset.example.com -o 'jsonpath={.status.conditions[?(@.type=="Terminating")].status}'
sed 's/name: second/name: third/' "$D/jobset2.yaml" >"$TMP/jobset3.yaml"
expect "no new objects while it terminates (405)" \
    "create not allowed while custom resource definition is terminating" \
    k -n team-a create -f "$TMP/jobset3.yaml" --validate=false
k -n team-a patch js second --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null 2>&1
expect "the last object gone, the CRD goes" 'customresourcedefinitions.apiextensions.k8s.io "jobsets.jobset.example.com" not found' \
    k get crd jobsets.jobset.example.com
expect_status "and its kind is not served" 404 "$URL/apis/jobset.example.com/v1alpha2/jobsets"
expect_grep "nor discovered" '^$' sh -c "kubectl --kubeconfig '$KC' api-resources | grep jobset.example.com"
stop_server "$PID"
