#!/bin/sh
# run.sh -- install cueue as Kueue is installed, with `cueue serve
# --controllers none` standing in for the cluster: dist/manifests.yaml is
# current and passes a server-side dry run; applied (less the Deployment),
# `cueue controller` runs as a local process with the ServiceAccount's
# token, its webhooks reached through the Service's Endpoints; the
# certificates, the caBundle, the probes; a Job with a queue name is
# suspended by the webhook before any pod exists; the walkthrough, cohort
# borrowing and preemption; the
# platform admin / tenant admin / developer RBAC story; the AdmissionReview
# table (reviews.py) and the webhook latency; a renewed certificate served
# by the running controller; JSON logs; `kubectl delete -f` leaves nothing
# behind.
# usage: sh run.sh <cueue binary> <source dir>
set -u
CUEUE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
HERE="$SRC/tests/e2e-install"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cueue-install.XXXXXX")
export HOME="$TMP/home"
mkdir -p "$HOME"
. "$SRC/tests/e2e/lib.sh"
CTL=""
kt() {
    kc=$1
    shift
    timeout "$E2E_TIMEOUT" kubectl --kubeconfig "$kc" "$@"
}

cleanup() {
    if [ -n "$CTL" ] && kill -0 "$CTL" 2>/dev/null; then stop_server "$CTL"; fi
    stop_servers
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! command -v kubectl >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
    note "SKIP: kubectl and curl are needed for the install tests"
    exit 0
fi
PY=/usr/bin/python3
M="$SRC/dist/manifests.yaml"

# ---- the manifests ------------------------------------------------------------------------
if kubectl kustomize "$SRC/config/default" | diff -q - "$M" >/dev/null; then
    pass "dist/manifests.yaml is what config/default renders (make manifests)"
else
    fail "dist/manifests.yaml is what config/default renders (make manifests)" "run make manifests"
fi
# Every kind is one kube-apiserver 1.29 serves (the manifests' apiVersions).
expect_exact "every object is of a kind kube-apiserver 1.29+ serves" "" $PY -c '
import sys, yaml
ok = {("v1", k) for k in ("Namespace", "ServiceAccount", "Service", "Secret", "ConfigMap")} | {
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"), ("apps/v1", "Deployment"),
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"),
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"),
    ("apiregistration.k8s.io/v1", "APIService")} | {
    ("rbac.authorization.k8s.io/v1", k) for k in ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")}
for d in yaml.safe_load_all(open(sys.argv[1])):
    if (d["apiVersion"], d["kind"]) not in ok:
        print(d["apiVersion"], d["kind"], d["metadata"]["name"])' "$M"
expect_exact "the Deployment runs non-root, read-only, no privilege escalation, seccomp RuntimeDefault" \
    "True 65532 True False RuntimeDefault ['ALL']" $PY -c '
import sys, yaml
d = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d["kind"] == "Deployment"][0]["spec"]["template"]["spec"]
c = d["containers"][0]["securityContext"]
print(d["securityContext"]["runAsNonRoot"], d["securityContext"]["runAsUser"], c["readOnlyRootFilesystem"],
      c["allowPrivilegeEscalation"], d["securityContext"]["seccompProfile"]["type"], c["capabilities"]["drop"])' "$M"

# The optional overlays: cert-manager in place of the internal certificate
# manager, the Prometheus operator's ServiceMonitor and roles.
kubectl kustomize "$SRC/config/default" >"$TMP/default.yaml"
kubectl kustomize "$SRC/config/certmanager" >"$TMP/certmanager.yaml"
expect_exact "config/certmanager: cert-manager's Issuer and Certificates, its CA injector, the controller reading their Secrets" \
    "Issuer kueue-selfsigned-issuer; Certificate kueue-metrics-cert kueue-metrics-server-cert; Certificate kueue-serving-cert kueue-webhook-server-cert; inject kueue-system/kueue-serving-cert kueue-system/kueue-serving-cert; no internal Secret; mounts /tmp/k8s-webhook-server/serving-certs=kueue-webhook-server-cert /etc/kueue/metrics/certs=kueue-metrics-server-cert; config differs in internalCertManagement.enable only" \
    $PY -c '
import sys, yaml
d = list(yaml.safe_load_all(open(sys.argv[1])))
base = list(yaml.safe_load_all(open(sys.argv[2])))
out = []
for o in d:
    if o["kind"] == "Issuer":
        out.append("Issuer " + o["metadata"]["name"])
for o in sorted((o for o in d if o["kind"] == "Certificate"), key=lambda o: o["metadata"]["name"]):
    out.append("Certificate %s %s" % (o["metadata"]["name"], o["spec"]["secretName"]))
out.append("inject " + " ".join(o["metadata"].get("annotations", {}).get("cert-manager.io/inject-ca-from", "-")
                                for o in d if o["kind"].endswith("WebhookConfiguration")))
out.append("no internal Secret" if not [o for o in d if o["kind"] == "Secret"] else "a Secret")
dep = [o for o in d if o["kind"] == "Deployment"][0]["spec"]["template"]["spec"]
vols = {v["name"]: v.get("secret", {}).get("secretName") for v in dep["volumes"]}
out.append("mounts " + " ".join("%s=%s" % (m["mountPath"], vols[m["name"]])
                                 for m in dep["containers"][0]["volumeMounts"] if vols.get(m["name"])))
def cfg(docs):
    cm = [o for o in docs if o["kind"] == "ConfigMap"][0]
    return yaml.safe_load(cm["data"]["controller_manager_config.yaml"])
a, b = cfg(d), cfg(base)
b["internalCertManagement"]["enable"] = False
out.append("config differs in internalCertManagement.enable only" if a == b else "config differs: %r" % a)
print("; ".join(out))' "$TMP/certmanager.yaml" "$TMP/default.yaml"
expect_exact "config/prometheus: the ServiceMonitor, Kueue's prometheus-k8s Role and RoleBinding, and prometheus-k8s reading /metrics" \
    "ClusterRoleBinding kueue-prometheus-k8s-metrics-reader kueue-metrics-reader; Role kueue-prometheus-k8s; RoleBinding kueue-prometheus-k8s kueue-prometheus-k8s; ServiceMonitor kueue-controller-manager-metrics-monitor True" \
    sh -c "kubectl kustomize '$SRC/config/prometheus' | $PY -c '
import sys, yaml
out = []
for o in yaml.safe_load_all(sys.stdin):
    extra = o.get(\"roleRef\", {}).get(\"name\", \"\")
    if o[\"kind\"] == \"ServiceMonitor\":
        extra = str(o[\"spec\"][\"endpoints\"][0][\"tlsConfig\"][\"insecureSkipVerify\"])
    out.append((o[\"kind\"] + \" \" + o[\"metadata\"][\"name\"] + \" \" + extra).strip())
print(\"; \".join(sorted(out)))'"
expect_exact "config/prometheus-certmanager: the scrape verifies cert-manager's metrics certificate" \
    "kueue-controller-manager-metrics-service.kueue-system.svc False kueue-metrics-server-cert" \
    sh -c "kubectl kustomize '$SRC/config/prometheus-certmanager' | $PY -c '
import sys, yaml
t = [o for o in yaml.safe_load_all(sys.stdin) if o[\"kind\"] == \"ServiceMonitor\"][0][\"spec\"][\"endpoints\"][0][\"tlsConfig\"]
print(t[\"serverName\"], t[\"insecureSkipVerify\"], t[\"ca\"][\"secret\"][\"name\"])'"

start_server install --controllers none --executor none || exit 1
# A cluster runs the Deployment; here the controller runs as a local
# process. cueue serve aggregates no API servers: the APIServices are
# checked with the kinds above, and the visibility API is asked directly.
$PY -c '
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d["kind"] != "APIService"]
yaml.safe_dump_all(docs, open(sys.argv[2], "w"))
yaml.safe_dump_all([d for d in docs if d["kind"] != "Deployment"], sys.stdout)' "$M" "$TMP/dryrun.yaml" >"$TMP/install.yaml"
# As on a cluster, namespaced objects dry-run only once their namespace
# exists.
printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kueue-system}\n' | k apply -f - >/dev/null
out=$(k apply --server-side --dry-run=server -f "$TMP/dryrun.yaml" 2>&1)
if [ $? -eq 0 ] && ! printf '%s\n' "$out" | grep -qv 'serverside-applied (server dry run)$' &&
    printf '%s\n' "$out" | grep -q '^deployment.apps/kueue-controller-manager '; then
    pass "kubectl apply --server-side --dry-run=server of the manifests (the Deployment too) passes"
else
    fail "kubectl apply --server-side --dry-run=server of the manifests (the Deployment too) passes" \
        "$(printf '%s\n' "$out" | grep -v 'serverside-applied (server dry run)$')"
fi
expect_exact "  ... and stores nothing" "" sh -c "k -n kueue-system get serviceaccounts,secrets,services,deployments -o name 2>/dev/null | grep kueue-"
expect "the manifests less the Deployment apply (server-side)" "serverside-applied" \
    k apply --server-side -f "$TMP/install.yaml"

# ---- the controller, as the ServiceAccount ----------------------------------------------------
tok=$(k -n kueue-system create token kueue-controller-manager --duration 2h)
CKC="$TMP/controller.kubeconfig"
cp "$KC" "$CKC"
kubectl --kubeconfig "$CKC" config set-credentials sa --token="$tok" >/dev/null
kubectl --kubeconfig "$CKC" config set-context --current --user=sa >/dev/null
expect_exact "the controller's account may read no Secret outside kueue-system" "no" \
    kt "$CKC" auth can-i get secrets -n default
# The ConfigMap's Configuration, with this machine's addresses. It enables
# the integrations Kueue's release does; the CRDs of those whose webhooks
# are tested below are installed (a cluster would have the operators'),
# RayService's only once the controller runs, as an operator installed
# after Kueue would be.
k -n kueue-system get configmap kueue-manager-config -o 'jsonpath={.data.controller_manager_config\.yaml}' |
    sed -e 's/healthProbeBindAddress: :8081/healthProbeBindAddress: 127.0.0.1:0/' \
        -e 's/bindAddress: :8443/bindAddress: 127.0.0.1:0/' >"$TMP/config.yaml"
for crd in jobset/jobset-crd ray/rayjob-crd ray/raycluster-crd trainjob/trainjob-crd \
    trainjob/trainingruntime-crd trainjob/clustertrainingruntime-crd appwrapper/appwrapper-crd \
    leaderworkerset/leaderworkerset-crd; do
    k apply -f "$SRC/tests/data/$crd.yaml" >/dev/null
done
settle 10 'jobsets' k api-resources --api-group=jobset.x-k8s.io
settle 10 'leaderworkersets' k api-resources --api-group=leaderworkerset.x-k8s.io
# What a cluster's API server publishes for the aggregated API servers it
# proxies to (kube-apiserver's --requestheader-* flags): the front proxy's
# client CA, its certificate's name and the headers naming the user.
mkdir -p "$TMP/fp"
(cd "$TMP/fp" &&
    for ca in ca other-ca; do
        openssl req -x509 -newkey rsa:2048 -nodes -keyout $ca.key -out $ca.crt -days 1 -subj "/CN=$ca" 2>/dev/null
    done &&
    printf 'extendedKeyUsage = clientAuth\n' >client.ext &&
    printf 'extendedKeyUsage = serverAuth\n' >server.ext &&
    for c in "proxy ca front-proxy-client client" "stranger ca someone-else client" \
        "forged other-ca front-proxy-client client" "serving ca front-proxy-client server"; do
        set -- $c
        openssl req -newkey rsa:2048 -nodes -keyout $1.key -out $1.csr -subj "/CN=$3" 2>/dev/null &&
            openssl x509 -req -in $1.csr -CA $2.crt -CAkey $2.key -CAcreateserial -out $1.crt -days 1 \
                -extfile $4.ext 2>/dev/null
    done)
k -n kube-system create configmap extension-apiserver-authentication \
    --from-file=requestheader-client-ca-file="$TMP/fp/ca.crt" \
    --from-literal=requestheader-allowed-names='["front-proxy-client"]' \
    --from-literal=requestheader-username-headers='["X-Remote-User"]' \
    --from-literal=requestheader-group-headers='["X-Remote-Group"]' \
    --from-literal=requestheader-extra-headers-prefix='["X-Remote-Extra-"]' >/dev/null
k -n kube-system create role extension-apiserver-authentication-reader --verb=get,list,watch \
    --resource=configmaps --resource-name=extension-apiserver-authentication >/dev/null
"$CUEUE" controller --kubeconfig "$CKC" --config "$TMP/config.yaml" --leader-elect \
    --visibility-bind-address 127.0.0.1:0 \
    --lease-namespace kueue-system --executor local --data-dir "$DATA" \
    --webhook-port 0 --webhook-host 127.0.0.1 --cert-check-interval 1 >"$TMP/controller.log" 2>&1 &
CTL=$!
settle 20 'webhooks served at' cat "$TMP/controller.log"
WPORT=$(sed -n 's|.*webhooks served at https://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/controller.log" | head -1)
HPROBE=$(sed -n 's|.*health probes served at \(http://127.0.0.1:[0-9]*\).*|\1|p' "$TMP/controller.log" | head -1)
expect_status "/healthz answers 200" 200 "$HPROBE/healthz"
wait_for "/readyz answers ok once the caches are synced and the webhooks serve" 20 '^ok$' \
    curl -s "$HPROBE/readyz"
# The metrics, as Kueue serves them: on by default, at the Configuration's
# metrics.bindAddress (here a free port); HTTPS, each scrape's bearer token
# reviewed by the API server (TokenReview, then SubjectAccessReview for
# get /metrics) with the rights the manifests give the controller.
MURL=$(sed -n 's|.*metrics served at \(https://127.0.0.1:[0-9]*/metrics\).*|\1|p' "$TMP/controller.log" | head -1)
k -n kueue-system create serviceaccount scraper >/dev/null
k -n kueue-system create serviceaccount nosy >/dev/null
k create clusterrolebinding scraper-metrics --clusterrole kueue-metrics-reader \
    --serviceaccount kueue-system:scraper >/dev/null
SCRAPER=$(k -n kueue-system create token scraper)
NOSY=$(k -n kueue-system create token nosy)
expect_grep "metrics over HTTPS: a token bound to kueue-metrics-reader reads them" \
    '^kueue_cluster_queue_status|^# HELP kueue_' curl -sk --max-time 5 -H "Authorization: Bearer $SCRAPER" "$MURL"
expect_exact "  ... another account's token is forbidden (403)" "403" \
    curl -sk -o /dev/null -w '%{http_code}' --max-time 5 -H "Authorization: Bearer $NOSY" "$MURL"
expect_exact "  ... no token is unauthorized (401)" "401" \
    curl -sk -o /dev/null -w '%{http_code}' --max-time 5 "$MURL"
expect_exact "  ... a token the API server does not know is unauthorized (401)" "401" \
    curl -sk -o /dev/null -w '%{http_code}' --max-time 5 -H "Authorization: Bearer not-a-token" "$MURL"
expect_exact "  ... plain HTTP is not served" "000" \
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://${MURL#https://}"
k delete clusterrolebinding scraper-metrics >/dev/null
k -n kueue-system get secret kueue-webhook-server-cert -o 'jsonpath={.data.ca\.crt}' | base64 -d >"$TMP/ca.crt"
expect "the Secret holds the CA the internal certificate manager made" "BEGIN CERTIFICATE" cat "$TMP/ca.crt"
CAB=$(base64 -w0 <"$TMP/ca.crt")
for cfg in mutatingwebhookconfiguration/kueue-mutating-webhook-configuration \
    validatingwebhookconfiguration/kueue-validating-webhook-configuration; do
    wait_for "the caBundle of every webhook of $cfg is the CA" 10 '^ok$' sh -c \
        "kubectl --kubeconfig '$KC' get $cfg -o 'jsonpath={range .webhooks[*]}{.clientConfig.caBundle}{\"\\n\"}{end}' | sort -u | { read -r l; [ \"\$l\" = '$CAB' ] && ! read -r _ && echo ok; }"
done
# The Service's endpoint is this machine (a cluster's endpoints controller
# would point it at the pod).
cat >"$TMP/endpoints.yaml" <<EOF
apiVersion: v1
kind: Endpoints
metadata:
  name: kueue-webhook-service
  namespace: kueue-system
subsets:
- addresses:
  - ip: 127.0.0.1
  ports:
  - port: $WPORT
    protocol: TCP
EOF
expect "the webhook Service's Endpoints point at the local controller" "created" k apply -f "$TMP/endpoints.yaml"

# ---- the visibility API, asked as the cluster's API server (or a client) would --------------
VURL=$(sed -n 's|.*visibility API served at \(https://127.0.0.1:[0-9]*\).*|\1|p' "$TMP/controller.log" | head -1)
V1="$VURL/apis/visibility.kueue.x-k8s.io/v1beta1"
V2="$VURL/apis/visibility.kueue.x-k8s.io/v1beta2"
k create namespace vis >/dev/null
k apply -f - >/dev/null <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: vis-rf}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: vis-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: vis-rf, resources: [{name: cpu, nominalQuota: "0"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: vis-lq, namespace: vis}
spec: {clusterQueue: vis-cq}
EOF
for j in first second; do
    printf 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: %s, namespace: vis, labels: {kueue.x-k8s.io/queue-name: vis-lq}}\nspec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox, command: ["true"], resources: {requests: {cpu: "1"}}}]}}}\n' "$j" |
        k apply -f - >/dev/null
done
k -n kueue-system create serviceaccount cq-viewer >/dev/null
k create clusterrolebinding cq-viewer --clusterrole kueue-pending-workloads-cq-viewer-role \
    --serviceaccount kueue-system:cq-viewer >/dev/null
CQV=$(k -n kueue-system create token cq-viewer)
pw() { curl -sk --max-time 5 "$@" | $PY -c '
import json, sys
d = json.load(sys.stdin)
if d["kind"] == "Status":
    print(d["code"], d["reason"])
else:
    print(d["kind"], d["apiVersion"], " ".join("%s/%s@%d" % (i["metadata"]["namespace"], i["localQueueName"],
                                                          i["positionInClusterQueue"]) for i in d["items"]))'; }
wait_for "visibility: a token bound to kueue-pending-workloads-cq-viewer-role reads a ClusterQueue's pending workloads (v1beta1)" 20 \
    '^PendingWorkloadsSummary visibility.kueue.x-k8s.io/v1beta1 vis/vis-lq@0 vis/vis-lq@1$' \
    pw -H "Authorization: Bearer $CQV" "$V1/clusterqueues/vis-cq/pendingworkloads"
expect_exact "  ... and v1beta2, a page at a time (offset, limit)" \
    "PendingWorkloadsSummary visibility.kueue.x-k8s.io/v1beta2 vis/vis-lq@1" \
    pw -H "Authorization: Bearer $CQV" "$V2/clusterqueues/vis-cq/pendingworkloads?offset=1&limit=1"
expect_exact "  ... a ClusterQueue that does not exist: 404" "404 NotFound" \
    pw -H "Authorization: Bearer $CQV" "$V2/clusterqueues/nope/pendingworkloads"
expect_exact "  ... not a LocalQueue's: the role does not grant it (403, by SubjectAccessReview)" "403 Forbidden" \
    pw -H "Authorization: Bearer $CQV" "$V2/namespaces/vis/localqueues/vis-lq/pendingworkloads"
expect_exact "  ... no token: 401" "401 Unauthorized" pw "$V2/clusterqueues/vis-cq/pendingworkloads"
expect_exact "  ... a user named in X-Remote-User without the front proxy's certificate: 401" "401 Unauthorized" \
    pw -H "X-Remote-User: system:serviceaccount:kueue-system:cq-viewer" "$V2/clusterqueues/vis-cq/pendingworkloads"
FP="$TMP/fp"
# The ClusterQueue's pending workloads asked for cq-viewer through the
# front proxy, with the client certificate $1 (and curl arguments after).
via_proxy() {
    c=$1
    shift
    pw --cert "$FP/$c.crt" --key "$FP/$c.key" -H "X-Remote-User: system:serviceaccount:kueue-system:cq-viewer" \
        "$@" "$V2/clusterqueues/vis-cq/pendingworkloads"
}
expect_exact "visibility through the front proxy: its certificate vouches for X-Remote-User" \
    "PendingWorkloadsSummary visibility.kueue.x-k8s.io/v1beta2 vis/vis-lq@0 vis/vis-lq@1" \
    via_proxy proxy
expect_exact "  ... and X-Remote-Group: a group bound to the LocalQueue viewer role reads the LocalQueue's" \
    "PendingWorkloadsSummary visibility.kueue.x-k8s.io/v1beta2 vis/vis-lq@0 vis/vis-lq@1" \
    sh -c "kubectl --kubeconfig '$KC' -n vis create rolebinding lq-viewers --clusterrole kueue-pending-workloads-lq-viewer-role --group vis-team >/dev/null;
           curl -sk --max-time 5 --cert '$FP/proxy.crt' --key '$FP/proxy.key' -H 'X-Remote-User: alice' -H 'X-Remote-Group: other' \
             -H 'X-Remote-Group: vis-team' '$V2/namespaces/vis/localqueues/vis-lq/pendingworkloads' | $PY -c '
import json, sys
d = json.load(sys.stdin)
print(d[\"kind\"], d[\"apiVersion\"], \" \".join(\"%s/%s@%d\" % (i[\"metadata\"][\"namespace\"], i[\"localQueueName\"], i[\"positionInClusterQueue\"]) for i in d.get(\"items\", [])))'"
expect_exact "  ... the same user without the group: 403" "403 Forbidden" \
    pw --cert "$FP/proxy.crt" --key "$FP/proxy.key" -H "X-Remote-User: alice" \
    "$V2/namespaces/vis/localqueues/vis-lq/pendingworkloads"
expect_exact "  ... a certificate of the front proxy's CA with a name not allowed: 401" "401 Unauthorized" \
    via_proxy stranger
expect_exact "  ... the allowed name signed by another CA: 401" "401 Unauthorized" \
    via_proxy forged
expect_exact "  ... a certificate of the front proxy's CA for serving, not for clients: 401" "401 Unauthorized" \
    via_proxy serving
# The API server rewrites the ConfigMap when its front-proxy flags change;
# the visibility server follows it without a restart.
k -n kube-system patch configmap extension-apiserver-authentication --type merge \
    -p '{"data":{"requestheader-allowed-names":"[\"someone-else\"]"}}' >/dev/null
wait_for "visibility follows the front proxy's ConfigMap: a newly allowed name is accepted" 30 \
    '^PendingWorkloadsSummary visibility.kueue.x-k8s.io/v1beta2 vis/vis-lq@0 vis/vis-lq@1$' \
    via_proxy stranger
expect_exact "  ... and the name no longer listed is refused: 401" "401 Unauthorized" \
    via_proxy proxy
k -n kube-system patch configmap extension-apiserver-authentication --type merge \
    -p '{"data":{"requestheader-allowed-names":"[\"front-proxy-client\"]"}}' >/dev/null
wait_for "  ... and accepted again once it is listed again" 30 \
    '^PendingWorkloadsSummary visibility.kueue.x-k8s.io/v1beta2 vis/vis-lq@0 vis/vis-lq@1$' \
    via_proxy proxy
# A new front-proxy CA (the API server's certificates rotated) is taken
# without a restart: the server trusts the new CA and no longer the old.
fp_ca() { $PY -c 'import json, sys; print(json.dumps({"data": {"requestheader-client-ca-file": open(sys.argv[1]).read()}}))' "$1"; }
k -n kube-system patch configmap extension-apiserver-authentication --type merge -p "$(fp_ca "$FP/other-ca.crt")" >/dev/null
wait_for "visibility follows a new front-proxy CA: a certificate it signed vouches for the user" 40 \
    '^PendingWorkloadsSummary visibility.kueue.x-k8s.io/v1beta2 vis/vis-lq@0 vis/vis-lq@1$' \
    via_proxy forged
expect_exact "  ... and one of the CA it replaced is refused: 401" "401 Unauthorized" \
    via_proxy proxy
# Kubernetes 1.32+ names the user's uid too (requestheader-uid-headers);
# the reviews carry it, which the API server accepts.
k -n kube-system patch configmap extension-apiserver-authentication --type merge \
    -p '{"data":{"requestheader-uid-headers":"[\"X-Remote-Uid\"]"}}' >/dev/null
k -n kube-system patch configmap extension-apiserver-authentication --type merge -p "$(fp_ca "$FP/ca.crt")" >/dev/null
wait_for "  ... and the CA back, with the uid header listed: a user with a uid is authorized" 40 \
    '^PendingWorkloadsSummary visibility.kueue.x-k8s.io/v1beta2 vis/vis-lq@0 vis/vis-lq@1$' \
    via_proxy proxy -H "X-Remote-Uid: 2d4e6f80-0000-4000-8000-000000000001"
expect_exact "visibility discovery: both versions, the two pendingworkloads subresources" \
    "visibility.kueue.x-k8s.io/v1beta2 visibility.kueue.x-k8s.io/v1beta1; clusterqueues/pendingworkloads localqueues/pendingworkloads" \
    sh -c "curl -sk --max-time 5 -H 'Authorization: Bearer $CQV' '$VURL/apis/visibility.kueue.x-k8s.io' | $PY -c '
import json, sys; print(\" \".join(v[\"groupVersion\"] for v in json.load(sys.stdin)[\"versions\"]), end=\"; \")';
           curl -sk --max-time 5 -H 'Authorization: Bearer $CQV' '$V1' | $PY -c '
import json, sys; print(\" \".join(r[\"name\"] for r in json.load(sys.stdin)[\"resources\"] if \"/\" in r[\"name\"]))'"
k delete namespace vis --wait=false >/dev/null
k delete clusterrolebinding cq-viewer >/dev/null

# ---- a second replica, certificates from a directory (internalCertManagement off) ----------
mkdir -p "$TMP/certs"
k -n kueue-system get secret kueue-webhook-server-cert -o 'jsonpath={.data.tls\.crt}' | base64 -d >"$TMP/certs/tls.crt"
k -n kueue-system get secret kueue-webhook-server-cert -o 'jsonpath={.data.tls\.key}' | base64 -d >"$TMP/certs/tls.key"
sed 's/enable: true/enable: false/' "$TMP/config.yaml" >"$TMP/config2.yaml"
"$CUEUE" controller --metrics-bind-address 127.0.0.1:0 --metrics-cert-dir "$TMP/certs" --kubeconfig "$CKC" \
    --config "$TMP/config2.yaml" --leader-elect --visibility-bind-address 127.0.0.1:0 \
    --lease-namespace kueue-system --webhook-port 0 --webhook-host 127.0.0.1 \
    --webhook-cert-dir "$TMP/certs" --zap-encoder json --zap-log-level 0 --cert-check-interval 1 \
    >"$TMP/controller2.log" 2>&1 &
CTL2=$!
SERVER_PIDS="$SERVER_PIDS $CTL2"
settle 20 'webhooks served at' cat "$TMP/controller2.log"
W2=$(sed -n 's|.*webhooks served at https://127.0.0.1:\([0-9]*\).*|\1|p' "$TMP/controller2.log" | head -1)
H2=$(sed -n 's|.*health probes served at \(http://127.0.0.1:[0-9]*\).*|\1|p' "$TMP/controller2.log" | head -1)
wait_for "a standby replica is ready too (its caches synced, its webhooks serving)" 20 '^ok$' curl -s "$H2/readyz"
expect "  ... it serves the certificate from --webhook-cert-dir, verified for the Service's name" '"allowed":true' \
    curl -s --cacert "$TMP/ca.crt" --resolve "kueue-webhook-service.kueue-system.svc:$W2:127.0.0.1" \
    -H 'Content-Type: application/json' -d '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x","kind":{"group":"kueue.x-k8s.io","version":"v1beta2","kind":"Cohort"},"operation":"CREATE","object":{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Cohort","metadata":{"name":"c"},"spec":{}}}}' \
    "https://kueue-webhook-service.kueue-system.svc:$W2/validate-kueue-x-k8s-io-v1beta2-cohort"
expect_exact "  ... and leaves the Secret alone" "" sh -c "grep -i 'written to Secret' '$TMP/controller2.log'"
# Kueue's metrics with internalCertManagement off: the certificate mounted
# for them (here the webhook's, from the Secret), not a self-signed one.
M2=$(sed -n 's|.*metrics served at https://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$TMP/controller2.log" | head -1)
MP=${MURL#https://127.0.0.1:}
MP=${MP%/metrics}
expect_exact "  ... its metrics are served over TLS with the mounted certificate, verified by its CA (401: no token)" "401" \
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert "$TMP/ca.crt" \
    --resolve "kueue-webhook-service.kueue-system.svc:$M2:127.0.0.1" "https://kueue-webhook-service.kueue-system.svc:$M2/metrics"
expect_exact "  ... where the first replica's metrics certificate is self-signed (that CA does not verify it)" "000" \
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert "$TMP/ca.crt" \
    --resolve "kueue-webhook-service.kueue-system.svc:$MP:127.0.0.1" "https://kueue-webhook-service.kueue-system.svc:$MP/metrics"
expect "  ... and without its certificate files a controller does not start" \
    "certificate $TMP/none/tls.crt: cannot read it" \
    timeout 20 "$CUEUE" controller --metrics-bind-address 127.0.0.1:0 --metrics-cert-dir "$TMP/none" --kubeconfig "$CKC" \
    --config "$TMP/config2.yaml" --webhook-port 0 --webhook-host 127.0.0.1 --webhook-cert-dir "$TMP/certs"
expect_exact "  ... and logs JSON lines, as --zap-encoder json asks" "info" \
    $PY -c '
import json, sys
levels = set()
for line in open(sys.argv[1]):
    o = json.loads(line)
    assert o["ts"].endswith("Z") and o["msg"], line
    levels.add(o["level"])
print("info" if "info" in levels else sorted(levels))' "$TMP/controller2.log"
# cert-manager renews the certificates in the mounted Secrets: the files
# change, and both listeners serve the new ones without a restart.
if command -v openssl >/dev/null 2>&1; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
        -subj /CN=renewed -addext "subjectAltName=DNS:kueue-webhook-service.kueue-system.svc" \
        -keyout "$TMP/new.key" -out "$TMP/new.crt" 2>/dev/null
    cp "$TMP/new.key" "$TMP/certs/tls.key.new" && cp "$TMP/new.crt" "$TMP/certs/tls.crt.new"
    mv "$TMP/certs/tls.key.new" "$TMP/certs/tls.key" && mv "$TMP/certs/tls.crt.new" "$TMP/certs/tls.crt"
    wait_for "  ... renewed certificate files are served by its metrics listener without a restart" 20 '^401$' \
        curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert "$TMP/new.crt" \
        --resolve "kueue-webhook-service.kueue-system.svc:$M2:127.0.0.1" "https://kueue-webhook-service.kueue-system.svc:$M2/metrics"
    wait_for "  ... and by its webhooks" 20 '"allowed":true' \
        curl -s --cacert "$TMP/new.crt" --resolve "kueue-webhook-service.kueue-system.svc:$W2:127.0.0.1" \
        -H 'Content-Type: application/json' -d '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x","kind":{"group":"kueue.x-k8s.io","version":"v1beta2","kind":"Cohort"},"operation":"CREATE","object":{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Cohort","metadata":{"name":"c"},"spec":{}}}}' \
        "https://kueue-webhook-service.kueue-system.svc:$W2/validate-kueue-x-k8s-io-v1beta2-cohort"
    expect_exact "  ... by the same process" "$CTL2" sh -c "kill -0 $CTL2 && echo $CTL2"
fi
expect "cueue controller refuses an unknown --zap-encoder" "must be json or console" \
    "$CUEUE" controller --zap-encoder xml
stop_server "$CTL2" >/dev/null

# ---- through the API server: the webhooks at work ---------------------------------------------
expect "a ClusterQueue gets the resource-in-use finalizer from the mutating webhook" "kueue.x-k8s.io/resource-in-use" \
    k apply -f "$SRC/examples/quota-lab-queues.yaml" -o 'jsonpath={.items[?(@.kind=="ClusterQueue")].metadata.finalizers}'
cat >"$TMP/job.yaml" <<'EOF'
apiVersion: batch/v1
kind: Job
metadata:
  name: early
  namespace: kueue-lab
  labels:
    kueue.x-k8s.io/queue-name: lab-queue
spec:
  suspend: false
  parallelism: 1
  completions: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        command: ["sh", "-c", "echo early"]
        resources:
          requests:
            cpu: 100m
            memory: 32Mi
EOF
expect_exact "a Job created with a queue name and suspend false is stored suspended (mjob.kb.io)" "true" \
    k create -f "$TMP/job.yaml" -o 'jsonpath={.spec.suspend}'
expect_exact "  ... and no pod of it exists yet" "" sh -c "k -n kueue-lab get pods -l job-name=early -o name; k -n kueue-lab get events -o jsonpath='{.items[?(@.reason==\"SuccessfulCreate\")].involvedObject.name}' | grep -w early"
wait_for "  ... then Kueue admits it and it completes" 40 '^True$' \
    k -n kueue-lab get job early -o 'jsonpath={.status.conditions[?(@.type=="Complete")].status}'
expect "a Job without a queue name in kueue-system is refused nothing by the webhooks (namespaceSelector)" "" \
    sh -c "k -n kueue-system create job nq --image=busybox --dry-run=server -o name 2>&1 | grep -i 'denied' || true"
# The integrations' webhooks (cueue serve here enables none of them in
# its own admission: what changes is the webhooks' doing).
k create namespace integ >/dev/null
expect_exact "a Pod naming a queue is gated and labelled managed at creation (mpod.kb.io)" \
    "kueue.x-k8s.io/admission true kueue.x-k8s.io/managed" \
    k -n integ run gated --image=busybox --restart=Never --labels=kueue.x-k8s.io/queue-name=nowhere \
    -o 'jsonpath={.spec.schedulingGates[0].name} {.metadata.labels.kueue\.x-k8s\.io/managed} {.metadata.finalizers[0]}'
expect "  ... a Pod with a managed label other than true is refused (vpod.kb.io)" \
    "admission webhook \"vpod.kb.io\" denied the request: metadata.labels[kueue.x-k8s.io/managed]: Forbidden: managed label value can only be 'true'" \
    k -n integ run bad --image=busybox --restart=Never --labels=kueue.x-k8s.io/managed=yes
k -n integ patch pod gated --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null
k -n integ delete pod gated --wait=false >/dev/null
cat >"$TMP/deployment.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {kueue.x-k8s.io/queue-name: nowhere}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: busybox, resources: {requests: {cpu: 100m}}}]
EOF
expect_exact "a Deployment's Pod template gets its queue name, managed and gated (mdeployment.kb.io)" \
    "nowhere true deployment kueue.x-k8s.io/admission" \
    k -n integ create -f "$TMP/deployment.yaml" -o 'jsonpath={.spec.template.metadata.labels.kueue\.x-k8s\.io/queue-name} {.spec.template.metadata.labels.kueue\.x-k8s\.io/managed} {.spec.template.metadata.annotations.kueue\.x-k8s\.io/pod-suspending-parent} {.spec.template.spec.schedulingGates[0].name}'
expect "  ... and its queue name may not be removed (vdeployment.kb.io)" \
    "admission webhook \"vdeployment.kb.io\" denied the request: metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"\": field is immutable" \
    k -n integ label deployment web kueue.x-k8s.io/queue-name-
expect_exact "a JobSet naming a queue is created suspended (mjobset.kb.io)" "true" \
    sh -c "sed -e '/suspend: true/d' -e 's/user-queue/nowhere/' '$SRC/tests/data/jobset/jobset.yaml' |
        kubectl --kubeconfig '$KC' -n integ create -f - -o jsonpath='{.spec.suspend}'"
expect "  ... and its queue name is fixed once it runs (vjobset.kb.io)" \
    "admission webhook \"vjobset.kb.io\" denied the request: metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"other\": field is immutable" \
    k -n integ patch jobset train --type=merge -p '{"metadata":{"labels":{"kueue.x-k8s.io/queue-name":"other"}},"spec":{"suspend":false}}'
expect_exact "a RayJob naming a queue is created suspended (mrayjob.kb.io)" "true" \
    sh -c "sed 's/user-queue/nowhere/' '$SRC/tests/data/ray/rayjob.yaml' |
        kubectl --kubeconfig '$KC' -n integ create -f - -o jsonpath='{.spec.suspend}'"
expect "  ... and may not switch autoscaling on (vrayjob.kb.io)" \
    "admission webhook \"vrayjob.kb.io\" denied the request: spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value: true: a kueue managed job should only use autoscaling when workload slicing is enabled" \
    k -n integ patch rayjob pi --type=merge -p '{"spec":{"rayClusterSpec":{"enableInTreeAutoscaling":true}}}'
expect "a managed RayJob that keeps its cluster is refused (vrayjob.kb.io)" \
    "spec.shutdownAfterJobFinishes: Invalid value: false: a kueue managed job should delete the cluster after finishing" \
    sh -c "sed -e 's/user-queue/nowhere/' -e 's/name: pi/name: keep/' -e 's/shutdownAfterJobFinishes: true/shutdownAfterJobFinishes: false/' '$SRC/tests/data/ray/rayjob.yaml' |
        kubectl --kubeconfig '$KC' -n integ create -f - 2>&1"
expect_exact "an enabled integration whose CRDs are not installed is waited for, said once in the log" "1" \
    grep -c "informer rayservices: no matching API in the server" "$TMP/controller.log"
k apply -f "$SRC/tests/data/ray/rayservice-crd.yaml" >/dev/null
expect_exact "  ... once they are, a RayService naming a queue is created suspended (mrayservice.kb.io)" "true" \
    sh -c "sed 's/user-queue/nowhere/' '$SRC/tests/data/ray/rayservice.yaml' |
        kubectl --kubeconfig '$KC' -n integ create -f - -o jsonpath='{.spec.rayClusterSpec.suspend}'"
wait_for "  ... and gets its Workload: the controller watches the new kind" 30 '^serve$' \
    k -n integ get workloads -o 'jsonpath={.items[?(@.metadata.ownerReferences[0].kind=="RayService")].metadata.ownerReferences[0].name}'
expect_exact "a LeaderWorkerSet's templates are marked for Kueue at creation (mleaderworkerset.kb.io)" \
    "nowhere leaderworkerset.x-k8s.io/leaderworkerset true" \
    sh -c "sed 's/user-queue/nowhere/' '$SRC/tests/data/leaderworkerset/leaderworkerset.yaml' |
        kubectl --kubeconfig '$KC' -n integ create -f - -o 'jsonpath={.spec.leaderWorkerTemplate.workerTemplate.metadata.labels.kueue\.x-k8s\.io/queue-name} {.spec.leaderWorkerTemplate.workerTemplate.metadata.annotations.kueue\.x-k8s\.io/pod-suspending-parent} {.spec.leaderWorkerTemplate.leaderTemplate.metadata.annotations.kueue\.x-k8s\.io/pod-group-serving}'"
expect "  ... and its group size is fixed (vleaderworkerset.kb.io)" \
    "admission webhook \"vleaderworkerset.kb.io\" denied the request: spec.leaderWorkerTemplate.size: Invalid value: 3: field is immutable" \
    k -n integ patch leaderworkerset vllm --type=merge -p '{"spec":{"leaderWorkerTemplate":{"size":3}}}'
k apply -f - >/dev/null <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: default}
value: 10
EOF
wait_for "with a WorkloadPriorityClass named default, a Deployment created without a class gets it (mdeployment.kb.io)" 10 \
    '^default default$' \
    sh -c "sed 's/name: web/name: web-2/' '$TMP/deployment.yaml' |
        kubectl --kubeconfig '$KC' -n integ create -f - --dry-run=server -o 'jsonpath={.metadata.labels.kueue\.x-k8s\.io/priority-class} {.spec.template.metadata.labels.kueue\.x-k8s\.io/priority-class}'"
k delete workloadpriorityclass default >/dev/null
sed 's/sleep 30/sleep 1/' "$SRC/examples/admitted-job.yaml" >"$TMP/admitted.yaml"
expect "the walkthrough's Job is created" "created" k apply -f "$TMP/admitted.yaml"
wait_for "  ... is admitted in lab-cq and completes" 40 '^True$' \
    k -n kueue-lab get job admitted-job -o 'jsonpath={.status.conditions[?(@.type=="Complete")].status}'
expect "a ClusterQueue with a negative quota is refused" "must be greater than or equal to 0" \
    k create -f - <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: bad}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: lab-default, resources: [{name: cpu, nominalQuota: "-1"}]}]
EOF

# ---- cohort borrowing and preemption, through the webhooks -----------------------------------
cat >"$TMP/cohort.yaml" <<'EOF'
apiVersion: v1
kind: Namespace
metadata: {name: pre}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: low}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-a}
spec:
  namespaceSelector: {}
  cohortName: org
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: lab-default, resources: [{name: cpu, nominalQuota: "1"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-b}
spec:
  namespaceSelector: {}
  cohortName: org
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: lab-default, resources: [{name: cpu, nominalQuota: "1"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: pre}
spec: {clusterQueue: cq-a}
EOF
# job NAME PRIORITY CPU SECONDS: a one-pod Job of queue q.
job() {
    printf 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\n  namespace: pre\n  labels: {kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/priority-class: %s}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - {name: w, image: busybox, command: ["sh", "-c", "sleep %s"], resources: {requests: {cpu: "%s"}}}\n' \
        "$1" "$2" "$4" "$3"
}
expect "cohort: two ClusterQueues of 1 CPU in cohort org" "clusterqueue.kueue.x-k8s.io/cq-b created" k apply -f "$TMP/cohort.yaml"
job low low 2 4 | k apply -f - >/dev/null
wait_for "cohort: a 2-CPU Job in cq-a runs on quota borrowed from cq-b" 20 '^1$' \
    k -n pre get job low -o 'jsonpath={.status.active}'
job high high 1 1 | k apply -f - >/dev/null
wait_for "preemption: the high-priority Job evicts the low one (Evicted=True Preempted)" 20 '^True Preempted$' \
    k -n pre get workloads -l 'kueue.x-k8s.io/job-uid' -o 'jsonpath={range .items[?(@.spec.priority==10)]}{.status.conditions[?(@.type=="Evicted")].status}{" "}{.status.conditions[?(@.type=="Evicted")].reason}{"\n"}{end}'
wait_for "  ... the high Job completes" 30 '^True$' \
    k -n pre get job high -o 'jsonpath={.status.conditions[?(@.type=="Complete")].status}'
wait_for "  ... then the low one is admitted again and completes" 40 '^True$' \
    k -n pre get job low -o 'jsonpath={.status.conditions[?(@.type=="Complete")].status}'

# ---- the RBAC story ----------------------------------------------------------------------------
for ns in team-a team-b; do k create namespace "$ns" >/dev/null; done
"$CUEUE" token create --user platform --data-dir "$DATA" >"$TMP/platform.kc" 2>/dev/null
"$CUEUE" token create --user tenant --data-dir "$DATA" >"$TMP/tenant.kc" 2>/dev/null
"$CUEUE" token create --user dev --data-dir "$DATA" >"$TMP/dev.kc" 2>/dev/null
k create clusterrolebinding platform --clusterrole=kueue-batch-admin-role --user=platform >/dev/null
k -n team-a create rolebinding tenant --clusterrole=kueue-batch-admin-role --user=tenant >/dev/null
k -n team-a create rolebinding dev --clusterrole=kueue-batch-user-role --user=dev >/dev/null
expect "platform admin: creates a ClusterQueue" "clusterqueue.kueue.x-k8s.io/team-a-cq created" \
    kt "$TMP/platform.kc" create -f - <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-a-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors: [{name: lab-default, resources: [{name: cpu, nominalQuota: "2"}, {name: memory, nominalQuota: 1Gi}]}]
EOF
expect_exact "tenant admin: may not create ClusterQueues" "no" kt "$TMP/tenant.kc" auth can-i create clusterqueues
expect "tenant admin: creates a LocalQueue in team-a" "localqueue.kueue.x-k8s.io/default created" \
    kt "$TMP/tenant.kc" create -f - <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: team-a}
spec: {clusterQueue: team-a-cq}
EOF
expect_exact "tenant admin: may not create LocalQueues in team-b" "no" \
    kt "$TMP/tenant.kc" auth can-i create localqueues -n team-b
expect_exact "developer: may create Jobs in team-a" "yes" kt "$TMP/dev.kc" auth can-i create jobs -n team-a
expect_exact "developer: may read Workloads in team-a" "yes" kt "$TMP/dev.kc" auth can-i list workloads -n team-a
expect_exact "developer: may not write jobs/status" "no" kt "$TMP/dev.kc" auth can-i update jobs --subresource=status -n team-a
expect_exact "developer: may not write workloads/status" "no" kt "$TMP/dev.kc" auth can-i update workloads --subresource=status -n team-a
expect_exact "developer: may not create LocalQueues" "no" kt "$TMP/dev.kc" auth can-i create localqueues -n team-a
sed -e 's/name: early/name: dev-job/' -e 's/namespace: kueue-lab/namespace: team-a/' \
    -e '/kueue.x-k8s.io\/queue-name/d' -e '/^  labels:$/d' "$TMP/job.yaml" >"$TMP/dev-job.yaml"
expect_exact "developer: a Job without a queue name gets team-a's default LocalQueue, suspended" "default true" \
    kt "$TMP/dev.kc" create -f "$TMP/dev-job.yaml" -o 'jsonpath={.metadata.labels.kueue\.x-k8s\.io/queue-name} {.spec.suspend}'
wait_for "developer: the Job is admitted in team-a-cq and completes" 40 '^True$' \
    k -n team-a get job dev-job -o 'jsonpath={.status.conditions[?(@.type=="Complete")].status}'
expect_exact "developer: reads the Job's Workload" "team-a-cq" \
    kt "$TMP/dev.kc" -n team-a get workloads -o 'jsonpath={.items[0].status.admission.clusterQueue}'

# ---- the webhooks alone: the AdmissionReview table and the latency -------------------------
k create namespace team >/dev/null
k create namespace plain >/dev/null
k apply -f - >/dev/null <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: team}
spec: {clusterQueue: lab-cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: mk-check}
spec: {controllerName: kueue.x-k8s.io/multikueue}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: mk-cq}
spec:
  admissionChecksStrategy: {admissionChecks: [{name: mk-check}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: mk, namespace: team}
spec: {clusterQueue: mk-cq}
EOF
# The webhooks read queues from the controller's caches, as Kueue's do.
wait_for "the controller has seen LocalQueue team/mk" 20 '^(True|False)$' \
    kubectl --kubeconfig "$KC" -n team get localqueue mk -o 'jsonpath={.status.conditions[0].status}{"\n"}'
out=$($PY "$HERE/reviews.py" "https://127.0.0.1:$WPORT" "$TMP/ca.crt" 2 2>&1)
rc=$?
printf '%s\n' "$out" | grep -E '^(FAIL|latency|reviews)'
n=$(printf '%s\n' "$out" | grep -c '^ok')
if [ $rc -eq 0 ] && [ "$n" -ge 100 ]; then pass "AdmissionReview table: $n cases answered as Kueue answers"; else
    fail "AdmissionReview table ($n passed)" "$(printf '%s\n' "$out" | grep -v '^ok' | head -20)"
fi
sh "$HERE/latency.sh" "https://127.0.0.1:$WPORT" 200 20000
sh "$HERE/latency.sh" "https://127.0.0.1:$WPORT" 200 2000 job
# The webhooks keep the trees of the queues they read while those are
# unchanged in the informer's cache: a ClusterQueue changed is read again.
mkjob='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"batch","version":"v1","kind":"Job"},"namespace":"team","operation":"CREATE","object":{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"team","labels":{"kueue.x-k8s.io/queue-name":"mk"}},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}}}'
job_patch() {
    curl -sk -H 'Content-Type: application/json' -d "$mkjob" "https://127.0.0.1:$WPORT/mutate-batch-v1-job" |
        $PY -c 'import base64, json, sys; print(base64.b64decode(json.load(sys.stdin)["response"].get("patch", "")).decode())'
}
only_suspend='^\[\{"op":"add","path":"/spec/suspend","value":true\}\]$'
wait_for "Job webhook: a Job queued to mk (MultiKueue's check) gets managedBy" 20 '"/spec/managedBy"' job_patch
k patch clusterqueue mk-cq --type merge -p '{"spec":{"admissionChecksStrategy":null}}' >/dev/null
wait_for "Job webhook: once mk-cq has no MultiKueue check, the same Job gets no managedBy" 20 \
    "$only_suspend" job_patch
k patch clusterqueue mk-cq --type merge \
    -p '{"spec":{"admissionChecksStrategy":{"admissionChecks":[{"name":"mk-check"}]}}}' >/dev/null
wait_for "Job webhook: and once the check is back, managedBy again" 20 '"/spec/managedBy"' job_patch
# End to end, through the API server and the webhook configuration: a
# JobSet (cueue serve, playing the cluster here, judges batch/v1 Jobs
# itself but leaves JobSets to the webhook).
k -n team apply -f - >/dev/null <<'EOF'
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: mk-js
  labels: {kueue.x-k8s.io/queue-name: mk}
spec:
  replicatedJobs:
  - name: w
    replicas: 1
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: c, image: busybox, command: ["true"]}]
EOF
expect_exact "a JobSet queued where a MultiKueue check guards admission is created managed by MultiKueue, suspended" \
    "kueue.x-k8s.io/multikueue true" \
    k -n team get jobset mk-js -o 'jsonpath={.spec.managedBy} {.spec.suspend}'
k -n team delete jobset mk-js >/dev/null

# ---- the controller's rights: MultiKueue's kubeconfig Secrets in its namespace ---------------
expect_exact "the controller's account may read the Secrets of kueue-system (MultiKueue's kubeconfigs)" "yes" \
    kt "$CKC" auth can-i get secrets -n kueue-system
# This server stands in for the worker cluster too.
k -n kueue-system create secret generic worker-secret --from-file=kubeconfig="$KC" >/dev/null
k apply -f - >/dev/null <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: worker}
spec: {clusterSource: {kubeConfig: {location: worker-secret}}}
EOF
wait_for "the controller reads a MultiKueueCluster's kubeconfig Secret and connects (Active)" 30 '^True$' \
    kubectl --kubeconfig "$KC" get multikueuecluster worker -o 'jsonpath={.status.conditions[?(@.type=="Active")].status}{"\n"}'
k delete multikueuecluster worker >/dev/null
k -n kueue-system delete secret worker-secret >/dev/null

# ---- certificate rotation in the running controller (checked every second here) ------------
SECRET="secret/kueue-webhook-server-cert"
old_ca=$(k -n kueue-system get "$SECRET" -o 'jsonpath={.data.ca\.crt}')
k -n kueue-system patch "$SECRET" --type=json -p '[{"op":"remove","path":"/data/tls.crt"}]' >/dev/null
wait_for "a Secret that lost its serving certificate is renewed by the running controller" 20 '^renewed$' \
    sh -c "ca=\$(kubectl --kubeconfig '$KC' -n kueue-system get $SECRET -o 'jsonpath={.data.ca\\.crt} {.data.tls\\.crt}');
           case \"\$ca\" in '$old_ca'*|' '*|*' ') ;; *) echo renewed ;; esac"
k -n kueue-system get "$SECRET" -o 'jsonpath={.data.ca\.crt}' | base64 -d >"$TMP/ca2.crt"
wait_for "  ... and the renewed certificate is served without a restart" 20 '"allowed":true' \
    curl -s --cacert "$TMP/ca2.crt" --resolve "kueue-webhook-service.kueue-system.svc:$WPORT:127.0.0.1" \
    -H 'Content-Type: application/json' -d '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x","kind":{"group":"kueue.x-k8s.io","version":"v1beta2","kind":"Cohort"},"operation":"CREATE","object":{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Cohort","metadata":{"name":"c"},"spec":{}}}}' \
    "https://kueue-webhook-service.kueue-system.svc:$WPORT/validate-kueue-x-k8s-io-v1beta2-cohort"
expect_exact "  ... the old CA no longer verifies it" "" \
    curl -s --cacert "$TMP/ca.crt" --resolve "kueue-webhook-service.kueue-system.svc:$WPORT:127.0.0.1" \
    -H 'Content-Type: application/json' -d '{}' "https://kueue-webhook-service.kueue-system.svc:$WPORT/validate-kueue-x-k8s-io-v1beta2-cohort"
expect_exact "  ... the process is the one started before" "$CTL" sh -c "kill -0 $CTL && echo $CTL"
expect "  ... and the API server reaches the webhooks through the new caBundle" "kueue.x-k8s.io/resource-in-use" \
    sh -c "printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: rotated}\n' |
           kubectl --kubeconfig '$KC' create -f - -o 'jsonpath={.metadata.finalizers}'"

# ---- uninstall, graceful shutdown -----------------------------------------------------------
# As on a cluster: the queues and Jobs go first, while the controller runs
# to release Kueue's finalizers; then the controller; then the manifests.
k delete clusterrolebinding platform >/dev/null
for ns in team team-a team-b plain kueue-lab pre integ; do k delete namespace "$ns" --wait=false >/dev/null 2>&1; done
k delete clusterqueues --all --wait=false >/dev/null 2>&1
k delete resourceflavors --all --wait=false >/dev/null 2>&1
k delete admissionchecks --all --wait=false >/dev/null 2>&1
wait_for "the queues, flavors and checks are gone (the controller released their finalizers)" 60 '^gone$' \
    sh -c "kubectl --kubeconfig '$KC' get clusterqueues,resourceflavors,admissionchecks -o name | grep . || echo gone"
# Everything the controller did here, its role allowed.
expect_exact "the API server refused the controller nothing (no 403 in its log)" "0" \
    grep -ci 'forbidden' "$TMP/controller.log"
stop_server "$CTL"
rc=$?
CTL=""
if [ $rc -eq 0 ]; then pass "SIGTERM: the controller stops cleanly"; else fail "SIGTERM: the controller stops cleanly (status $rc)" "$(tail -5 "$TMP/controller.log")"; fi
expect "  ... and said it was shutting down" "shutting down" cat "$TMP/controller.log"
k delete --ignore-not-found -f "$TMP/endpoints.yaml" >/dev/null
expect "kubectl delete -f dist/manifests.yaml removes the installation" "deleted" \
    k delete --ignore-not-found -f "$M"
wait_for "  ... and leaves nothing behind (CRDs, roles, webhooks, the kube-system RoleBinding, namespace)" 30 '^none$' sh -c "
    { kubectl --kubeconfig '$KC' get crd -o name | grep kueue.x-k8s.io;
      kubectl --kubeconfig '$KC' get clusterroles,clusterrolebindings -o name | grep -E '/kueue-(manager|controller)';
      kubectl --kubeconfig '$KC' get mutatingwebhookconfigurations,validatingwebhookconfigurations -o name;
      kubectl --kubeconfig '$KC' -n kube-system get rolebindings -o name | grep kueue-;
      kubectl --kubeconfig '$KC' get ns kueue-system -o name 2>/dev/null; } | grep . || echo none"

expect_exact "the controllers' logs are free of sanitizer reports" "" \
    sh -c "grep -lE 'Sanitizer|runtime error:' '$TMP'/controller*.log"
check_server_logs
note "install e2e: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
