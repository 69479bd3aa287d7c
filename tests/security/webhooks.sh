# webhooks.sh -- admission webhooks end to end: a mutating and a validating
# webhook served over TLS by a small Python server (webhook_server.py), with
# kubectl and the Python client: patches and warnings, refusals and their
# wording, every failurePolicy path (a webhook down, slow, answering
# garbage, with a certificate the CA bundle does not vouch for), timeouts,
# rules, namespace and object selectors, matchPolicy (a CRD in two
# versions), the scale subresource (and its RBAC), reinvocation, dry
# runs, deletes, clientConfig.service, the configurations' own validation,
# and the tenants' quota policy still judging what webhooks produce.
need kubectl openssl

start_hooks
# A port nothing listens on.
DOWN=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# Let the calls /slow holds answer, and wait until they have; the next
# calls are held again.
slow_release() {
    touch "$W/log.release"
    settle 70 "^$(grep -c '"path": "/slow"' "$W/log")\$" sh -c "cat '$W/log.answered' 2>/dev/null | wc -l"
    rm -f "$W/log.release"
    slow_answered=$(cat "$W/log.answered" 2>/dev/null | wc -l)
}
slow_answered=0

start_server hooks || return 1
cat >"$TMP/base.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: hooked, labels: {webhooks: "on"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: plain}
---
apiVersion: v1
kind: Namespace
metadata: {name: hooks}
YAML
k apply -f "$TMP/base.yaml" >/dev/null

# hook KIND NAME PATH [FIELD: VALUE lines...]: a configuration with one
# webhook on ConfigMaps in namespaces labelled webhooks=on, applied.
hook() {
    hk=$1
    hn=$2
    hp=$3
    shift 3
    {
        printf 'apiVersion: admissionregistration.k8s.io/v1\nkind: %s\nmetadata: {name: %s}\nwebhooks:\n' "$hk" "$hn"
        printf -- '- name: %s.hooks.test\n  admissionReviewVersions: [v1]\n  sideEffects: None\n' "$hn"
        printf '  clientConfig: {url: "https://127.0.0.1:%s%s", caBundle: "%s"}\n' "$PORT" "$hp" "$CAB"
        printf '  namespaceSelector: {matchLabels: {webhooks: "on"}}\n'
        printf '  rules: [{operations: [CREATE, UPDATE, DELETE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]\n'
        for line in "$@"; do printf '  %s\n' "$line"; done
    } >"$TMP/$hn.yaml"
    k apply -f "$TMP/$hn.yaml" >/dev/null
}
unhook() { k delete "$@" >/dev/null 2>&1; }
# cm NAME NS [LABELS]: a ConfigMap's YAML in a file; prints the file's path.
cm() {
    lab=""
    if [ -n "${3:-}" ]; then lab=", labels: {$3}"; fi
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: %s%s}\ndata: {k: v}\n' \
        "$1" "$2" "$lab" >"$TMP/cm-$1.yaml"
    printf '%s' "$TMP/cm-$1.yaml"
}
reviews() { grep -c "\"path\": \"$1\"" "$W/log" 2>/dev/null || true; }

note "# a mutating and a validating webhook"
hook MutatingWebhookConfiguration mutate /mutate
hook ValidatingWebhookConfiguration validate /validate
expect "kubectl shows both webhooks' warnings" "Warning: mutated by the test webhook" \
    k create -f "$(cm m1 hooked)"
k create -f "$(cm m2 hooked)" >"$TMP/out" 2>&1
expect_grep "  ... the validating one's too" "^Warning: validated by the test webhook" cat "$TMP/out"
expect_exact "the mutating webhook's JSONPatch is stored" "yes" \
    k -n hooked get cm m2 -o jsonpath='{.metadata.labels.mutated}'
expect "the validating webhook refuses, worded as kube-apiserver words it" \
    'configmaps "bad" is forbidden: admission webhook "validate.hooks.test" denied the request: objects labelled deny=yes are refused' \
    k create -f "$(cm bad hooked 'deny: "yes"')"
expect_exact "  ... and nothing is stored" "" k -n hooked get cm bad -o name --ignore-not-found
# kubectl words a 422 itself; the message is kube-apiserver's.
expect "the refusal's code is the webhook's (422)" 'The configmaps "m2" is invalid' \
    k -n hooked label cm m2 deny=422
TOKEN=$(cat "$DATA/admin-token")
expect_status "  ... (HTTP 422)" 422 --cacert "$DATA/ca.crt" -H "Authorization: Bearer $TOKEN" \
    -X PATCH -H 'Content-Type: application/merge-patch+json' \
    -d '{"metadata":{"labels":{"deny":"422"}}}' "$URL/api/v1/namespaces/hooked/configmaps/m2"
expect_grep "  ... with the webhook's message" '"message":"configmaps \\"m2\\" is forbidden: admission webhook \\"validate.hooks.test\\" denied the request: deny=422 is invalid"' \
    cat "$TMP/curl.out"
expect_exact "an update the webhook refuses changes nothing" "" \
    k -n hooked get cm m2 -o jsonpath='{.metadata.labels.deny}'
expect "updates pass through the webhooks too (patched again)" "labeled" k -n hooked label cm m2 ok=1
last=$(grep '"path": "/validate"' "$W/log" | tail -1)
case "$last" in
*'"operation": "UPDATE"'*'"userInfo": {"username": "admin"'*'"oldObject": {'*) pass "an UPDATE review carries oldObject and userInfo" ;;
*) fail "an UPDATE review carries oldObject and userInfo" "$last" ;;
esac
before=$(reviews /validate)
k create -f "$(cm other plain)" >/dev/null 2>&1
expect_exact "namespaceSelector: a namespace it does not select sends nothing" "$before" reviews /validate
expect_exact "  ... and nothing is mutated there" "" k -n plain get cm other -o jsonpath='{.metadata.labels.mutated}'
k -n hooked create configmap drycm --from-literal=a=b --dry-run=server >/dev/null 2>&1
case "$(tail -1 "$W/log")" in
*'"dryRun": true'*) pass "a server-side dry run is sent with dryRun: true" ;;
*) fail "a server-side dry run is sent with dryRun: true" "$(tail -1 "$W/log")" ;;
esac
expect_exact "  ... and stores nothing" "" k -n hooked get cm drycm -o name --ignore-not-found
k -n hooked label cm m1 protected=yes >/dev/null 2>&1
expect "DELETE: the validating webhook judges the stored object" \
    'configmaps "m1" is forbidden: admission webhook "validate.hooks.test" denied the request: protected objects may not be deleted' \
    k -n hooked delete cm m1
expect_exact "  ... which stays" "configmap/m1" k -n hooked get cm m1 -o name
unhook validatingwebhookconfiguration validate
unhook mutatingwebhookconfiguration mutate

note "# failurePolicy"
# down NAME POLICY PATH-OR-URL: a validating webhook with that failurePolicy.
cat >"$TMP/down.yaml" <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: down}
webhooks:
- name: down.hooks.test
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  clientConfig: {url: "https://127.0.0.1:$DOWN/validate", caBundle: "$CAB"}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
YAML
k apply -f "$TMP/down.yaml" >/dev/null
expect "a webhook that is down, failurePolicy Fail: kube-apiserver's message" \
    "Internal error occurred: failed calling webhook \"down.hooks.test\": failed to call webhook: Post \"https://127.0.0.1:$DOWN/validate?timeout=10s\": dial tcp 127.0.0.1:$DOWN: connect: connection refused" \
    k -n plain create configmap f1 --from-literal=a=b
expect_exact "  ... nothing stored" "" k -n plain get cm f1 -o name --ignore-not-found
sed -i 's/failurePolicy: Fail/failurePolicy: Ignore/' "$TMP/down.yaml"
k apply -f "$TMP/down.yaml" >/dev/null
expect "  ... failurePolicy Ignore: the write goes on" "configmap/f2 created" \
    k -n plain create configmap f2 --from-literal=a=b
expect_grep "  ... and the server logs the failure" 'failing open: failed calling webhook "down.hooks.test"' \
    cat "$DATA/serve.log"
# A webhook for another request kind fails nothing here.
sed -i 's/failurePolicy: Ignore/failurePolicy: Fail/; s/resources: \[configmaps\]/resources: [secrets]/' "$TMP/down.yaml"
k apply -f "$TMP/down.yaml" >/dev/null
expect "  ... a webhook whose rules do not match is not called" "configmap/f3 created" \
    k -n plain create configmap f3 --from-literal=a=b
expect "the configurations are never judged by webhooks (no lock-out)" "deleted" \
    k delete validatingwebhookconfiguration down

for case in "slow:context deadline exceeded" "wrong-uid:received invalid webhook response: expected response.uid=" \
    "http-500:an error on the server (\"boom\") has prevented the request from succeeding" \
    "not-json:received invalid webhook response" "validate-patch:validating webhook may not return response.patch"; do
    path=${case%%:*}
    want=${case#*:}
    hook ValidatingWebhookConfiguration "v-$path" "/$path" "timeoutSeconds: 1"
    expect "failurePolicy Fail, /$path: $want" "$want" k create -f "$(cm "x-$path" hooked)"
    if [ "$path" = slow ]; then
        # The webhook holds its answer (until released, at most 60 s): the
        # refusal came back while it still held it, so the timeout ended
        # the call, however long the machine took.
        expect_exact "  ... the timeout (1 s) ends the call while the webhook still holds it" \
            "0" sh -c "cat '$W/log.answered' 2>/dev/null | wc -l"
        slow_release
    fi
    unhook validatingwebhookconfiguration "v-$path"
done
# While slow webhook calls are under way, the server answers everyone else:
# with four writes held by the webhook (for up to its 30 s timeout), a read
# is answered before any of them is.
hook ValidatingWebhookConfiguration v-slow /slow "timeoutSeconds: 30"
held0=$(grep -c '"path": "/slow"' "$W/log")
busy=""
for n in 1 2 3 4; do
    k create -f "$(cm "busy-$n" hooked)" >/dev/null 2>&1 &
    busy="$busy $!"
done
settle 60 "^$((held0 + 4))\$" grep -c '"path": "/slow"' "$W/log"
got=$(k get ns hooked -o name 2>&1)
waiting=0
for p in $busy; do kill -0 "$p" 2>/dev/null && waiting=$((waiting + 1)); done
answered=$(cat "$W/log.answered" 2>/dev/null | wc -l)
before=$slow_answered
slow_release
# shellcheck disable=SC2086
wait $busy
if [ "$got" = namespace/hooked ] && [ "$waiting" = 4 ] && [ "$answered" = "$before" ]; then
    pass "four writes waiting on a slow webhook block nobody else (a read answered while all four wait)"
else
    fail "four writes waiting on a slow webhook block nobody else" \
        "$got; writes still waiting: $waiting of 4; webhook answers: $answered (before: $before)"
fi
hook ValidatingWebhookConfiguration v-slow /slow "timeoutSeconds: 1" "failurePolicy: Ignore"
expect "failurePolicy Ignore, a timeout: the write goes on" "configmap/late created" \
    k create -f "$(cm late hooked)"
unhook validatingwebhookconfiguration v-slow
cat >"$TMP/noca.yaml" <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: noca}
webhooks:
- name: noca.hooks.test
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {url: "https://127.0.0.1:$PORT/mutate"}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
YAML
k apply -f "$TMP/noca.yaml" >/dev/null
expect "a certificate the caBundle does not vouch for is refused" \
    'failed calling webhook "noca.hooks.test": failed to call webhook: Post "https://127.0.0.1:'"$PORT"'/mutate?timeout=10s": tls: failed to verify certificate' \
    k -n plain create configmap t1 --from-literal=a=b
unhook mutatingwebhookconfiguration noca
hook MutatingWebhookConfiguration bad-patch /bad-patch
expect "a patch that does not apply is an internal error" \
    'Internal error occurred: admission webhook "bad-patch.hooks.test" returned a patch that does not apply' \
    k create -f "$(cm bp hooked)"
unhook mutatingwebhookconfiguration bad-patch

note "# selectors, matchPolicy, reinvocation"
hook ValidatingWebhookConfiguration sel /validate "objectSelector: {matchLabels: {checked: \"yes\"}}"
before=$(reviews /validate)
k create -f "$(cm unchecked hooked)" >/dev/null 2>&1
expect_exact "objectSelector: an object it does not select is not sent" "$before" reviews /validate
k create -f "$(cm checked hooked 'checked: "yes"')" >/dev/null 2>&1
expect_exact "  ... one it selects is" "$((before + 1))" reviews /validate
expect "  ... and an update that removes the label is still sent (the old object matches)" \
    "labeled" k -n hooked label cm checked checked-
expect_exact "  ... (one more review)" "$((before + 2))" reviews /validate
unhook validatingwebhookconfiguration sel
# matchPolicy, with a kind served in two versions (v1 stored, v1beta1).
cat >"$TMP/gadgets.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.hooks.test}
spec:
  group: hooks.test
  names: {kind: Gadget, plural: gadgets}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}},
     subresources: {scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}}
  - {name: v1beta1, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
YAML
k apply -f "$TMP/gadgets.yaml" >/dev/null
k wait --for condition=Established crd/gadgets.hooks.test >/dev/null 2>&1
gadget() {
    printf 'apiVersion: hooks.test/v1beta1\nkind: Gadget\nmetadata: {name: %s, namespace: hooked}\n' "$1" \
        >"$TMP/gadget-$1.yaml"
    printf '%s' "$TMP/gadget-$1.yaml"
}
# Rules for v1 only, the writes through v1beta1.
hook MutatingWebhookConfiguration exact /mutate "matchPolicy: Exact"
sed -i 's/apiGroups: \[""\]/apiGroups: [hooks.test]/; s/resources: \[configmaps\]/resources: [gadgets]/' \
    "$TMP/exact.yaml"
k apply -f "$TMP/exact.yaml" >/dev/null
before=$(reviews /mutate)
k create -f "$(gadget g1)" >/dev/null 2>&1
expect_exact "matchPolicy Exact: a rule for another version does not match" "$before" reviews /mutate
sed -i 's/matchPolicy: Exact/matchPolicy: Equivalent/' "$TMP/exact.yaml"
k apply -f "$TMP/exact.yaml" >/dev/null
expect_exact "  ... Equivalent: it does, the object converted to the rule's version and back" \
    "hooks.test/v1beta1 yes" k create -f "$(gadget g2)" \
    -o 'jsonpath={.apiVersion} {.metadata.labels.mutated}'
expect_exact "  ... the review in v1, the request's own version in requestKind" \
    "v1 hooks.test/v1 v1beta1 v1beta1" $PY -c '
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])["review"]["request"]
print(r["kind"]["version"], r["object"]["apiVersion"], r["requestKind"]["version"],
      r["requestResource"]["version"])' "$W/log"
sed -i 's/apiVersions: \[v1\]/apiVersions: [v2]/' "$TMP/exact.yaml"
k apply -f "$TMP/exact.yaml" >/dev/null
before=$(reviews /mutate)
k create -f "$(gadget g3)" >/dev/null 2>&1
expect_exact "  ... but not a rule for a version the kind is not served in" "$before" reviews /mutate
unhook mutatingwebhookconfiguration exact
# The scale subresource: the webhooks judge the Scale.
hook MutatingWebhookConfiguration scale /scale
sed -i 's/apiGroups: \[""\]/apiGroups: [hooks.test]/; s/resources: \[configmaps\]/resources: [gadgets\/scale]/' \
    "$TMP/scale.yaml"
k apply -f "$TMP/scale.yaml" >/dev/null
expect "the scale subresource goes through the webhooks" "gadget.hooks.test/g2 scaled" \
    k -n hooked scale gadget g2 --replicas=10
expect_exact "  ... which patch the Scale: replicas capped" "3" \
    k -n hooked get gadget g2 -o 'jsonpath={.spec.replicas}'
expect_exact "  ... the review names the Scale and the subresource" "autoscaling/v1 Scale scale gadgets 10" $PY -c '
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])["review"]["request"]
print(r["kind"]["group"] + "/" + r["kind"]["version"], r["kind"]["kind"], r["subResource"],
      r["resource"]["resource"], r["object"]["spec"]["replicas"])' "$W/log"
expect "  ... and may refuse it" 'admission webhook "scale.hooks.test" denied the request: 13 replicas are unlucky' \
    k -n hooked scale gadget g2 --replicas=13
expect_exact "  ... which changes nothing" "3" k -n hooked get gadget g2 -o 'jsonpath={.spec.replicas}'
unhook mutatingwebhookconfiguration scale
# RBAC names the subresource: gadgets/scale.
k create clusterrole gadget-scaler --verb=get,patch,update --resource=gadgets.hooks.test/scale \
    --resource=gadgets.hooks.test >/dev/null
k create clusterrole gadget-editor --verb=get,patch,update --resource=gadgets.hooks.test >/dev/null
ROLES=gadget-scaler tenant scaler hooked
SCALER=$TKC
ROLES=gadget-editor tenant editor hooked
expect "RBAC: who may update gadgets/scale scales" "gadget.hooks.test/g2 scaled" \
    kt "$SCALER" -n hooked scale gadget g2 --replicas=2
expect "  ... who may only update gadgets may not" \
    'User "editor" cannot patch resource "gadgets/scale" in API group "hooks.test" in the namespace "hooked"' \
    kt "$TKC" -n hooked scale gadget g2 --replicas=1
hook MutatingWebhookConfiguration a-count /count "reinvocationPolicy: IfNeeded"
hook MutatingWebhookConfiguration b-mutate /mutate
k create -f "$(cm r1 hooked)" >/dev/null 2>&1
expect_exact "reinvocationPolicy IfNeeded: called again after a later webhook changed the object" \
    "2 yes" k -n hooked get cm r1 -o jsonpath='{.metadata.annotations.calls} {.metadata.annotations.saw-mutated}'
hook MutatingWebhookConfiguration a-count /count "reinvocationPolicy: Never"
k create -f "$(cm r2 hooked)" >/dev/null 2>&1
expect_exact "  ... Never: once" "1 no" \
    k -n hooked get cm r2 -o jsonpath='{.metadata.annotations.calls} {.metadata.annotations.saw-mutated}'
unhook mutatingwebhookconfiguration a-count
unhook mutatingwebhookconfiguration b-mutate

note "# clientConfig.service"
cat >"$TMP/svc.yaml" <<YAML
apiVersion: v1
kind: Service
metadata: {name: hooks, namespace: hooks}
spec:
  ports: [{name: https, port: 443, targetPort: $PORT}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: hooks, namespace: hooks}
subsets:
- addresses: [{ip: 127.0.0.1}]
  ports: [{name: https, port: $PORT}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: svc}
webhooks:
- name: svc.hooks.test
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    service: {name: hooks, namespace: hooks, path: /mutate}
    caBundle: "$CAB"
  namespaceSelector: {matchLabels: {webhooks: "on"}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
YAML
k apply -f "$TMP/svc.yaml" >/dev/null
k create -f "$(cm s1 hooked)" >/dev/null 2>&1
expect_exact "a webhook behind a Service is called at its endpoint, verified as hooks.hooks.svc" "yes" \
    k -n hooked get cm s1 -o jsonpath='{.metadata.labels.mutated}'
k -n hooks delete endpoints hooks >/dev/null
expect "  ... without an endpoint it fails as kube-apiserver's would (Fail)" \
    'failed calling webhook "svc.hooks.test": failed to call webhook: Post "https://hooks.hooks.svc:443/mutate?timeout=10s": endpoints "hooks" not found' \
    k create -f "$(cm s2 hooked)"
unhook mutatingwebhookconfiguration svc

note "# the configurations' own rules"
cat >"$TMP/invalid.yaml" <<'YAML'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: invalid}
webhooks:
- name: nodots
  admissionReviewVersions: [v1beta1]
  timeoutSeconds: 31
  clientConfig: {url: "http://127.0.0.1:1/x?y=1"}
  rules: [{operations: [CREATE, "*"], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  matchConditions: [{name: x, expression: "true"}]
YAML
k apply -f "$TMP/invalid.yaml" >"$TMP/invalid.out" 2>&1
for want in 'webhooks[0].name: Invalid value: "nodots": should be a domain with at least three segments separated by dots' \
    'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun' \
    'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds' \
    "webhooks[0].clientConfig.url: Invalid value: \"http://127.0.0.1:1/x?y=1\": 'https' is the only allowed URL scheme" \
    "webhooks[0].rules[0].operations: Invalid value: if '*' is present, must not specify other operations" \
    'webhooks[0].admissionReviewVersions: Unsupported value: must include v1' \
    'webhooks[0].matchConditions: Forbidden: not supported by cueue'; do
    expect "a bad configuration is refused: ${want%%:*}" "$want" cat "$TMP/invalid.out"
done
expect_grep "  ... with kube-apiserver's defaults on a good one" '^Fail Equivalent 10 Never \* 443$' \
    sh -c "kubectl --kubeconfig '$KC' apply -f '$TMP/svc.yaml' >/dev/null 2>&1; kubectl --kubeconfig '$KC' get mutatingwebhookconfiguration svc -o jsonpath='{.webhooks[0].failurePolicy} {.webhooks[0].matchPolicy} {.webhooks[0].timeoutSeconds} {.webhooks[0].reinvocationPolicy} {.webhooks[0].rules[0].scope} {.webhooks[0].clientConfig.service.port}'"
unhook mutatingwebhookconfiguration svc
expect "a tenant may not configure webhooks" \
    'cannot create resource "validatingwebhookconfigurations" in API group "admissionregistration.k8s.io" at the cluster scope' \
    sh -c "kubectl --kubeconfig '$KC' get ns >/dev/null; '$CUEUE' token create --namespace hooked --user alice --data-dir '$DATA' >'$TMP/alice.kubeconfig' && kubectl --kubeconfig '$TMP/alice.kubeconfig' create -f '$TMP/down.yaml'"

note "# the tenants' policy judges what webhooks make"
cat >"$TMP/queue.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default-flavor, resources: [{name: cpu, nominalQuota: "1"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: hooked}
spec: {clusterQueue: cq}
YAML
k apply -f "$TMP/queue.yaml" >/dev/null
sed 's/resources: \[configmaps\]/resources: [jobs]/; s/apiGroups: \[""\]/apiGroups: [batch]/' \
    "$TMP/b-mutate.yaml" | sed 's/name: b-mutate/name: jobs/; s/b-mutate.hooks.test/jobs.hooks.test/' >"$TMP/jobs.yaml"
k apply -f "$TMP/jobs.yaml" >/dev/null
# job NAME [LABELS]: a Job's YAML in a file; prints the file's path.
job() {
    {
        extra=""
        if [ -n "${2:-}" ]; then extra=", $2"; fi
        printf 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\n  labels: {kueue.x-k8s.io/queue-name: lq%s}\n' "$1" "$extra"
        printf 'spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox, command: ["true"], resources: {requests: {cpu: 100m}}}]\n'
    } >"$TMP/job-$1.yaml"
    printf '%s' "$TMP/job-$1.yaml"
}
ALICE="$TMP/alice.kubeconfig"
expect "a tenant's Job passes the mutating webhook" "job.batch/j1 created" \
    kt "$ALICE" -n hooked create -f "$(job j1)"
expect_exact "  ... mutated, and suspended by Kueue's defaulting" "yes true" \
    k -n hooked get job j1 -o jsonpath='{.metadata.labels.mutated} {.spec.suspend}'
expect "a webhook that removes the queue name cannot make a tenant's Job run outside the quota" \
    "The label 'kueue.x-k8s.io/queue-name' is either missing or does not have a value set" \
    kt "$ALICE" -n hooked create -f "$(job j2 'remove-queue: "yes"')"
k delete mutatingwebhookconfiguration jobs >/dev/null

note "# the Python client"
hook ValidatingWebhookConfiguration validate /validate
cat >"$TMP/py.py" <<'PY'
import sys
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException
config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()
v1.create_namespaced_config_map("hooked", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py1"), data={"a": "b"}))
try:
    v1.patch_namespaced_config_map("py1", "hooked", {"metadata": {"labels": {"deny": "yes"}}})
    print("patched")
except ApiException as e:
    print(e.status, e.reason)
print(v1.read_namespaced_config_map("py1", "hooked").metadata.labels)
PY
timeout 60 $PY "$TMP/py.py" "$KC" >"$TMP/py.out" 2>&1
expect_grep "python: a patch the webhook refuses: 403" '^403 Forbidden$' cat "$TMP/py.out"
expect_grep "  ... and nothing changed" '^None$' cat "$TMP/py.out"
unhook validatingwebhookconfiguration validate
kill "$HOOK_PID" 2>/dev/null
