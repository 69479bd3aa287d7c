# badinput.sh -- hostile and malformed requests get a clear 4xx Status and the
# server stays up (sourced by run.sh against the plain HTTP server).

note "# bad input"
CQS="$URL/apis/kueue.x-k8s.io/v1beta2/clusterqueues"
J='Content-Type: application/json'
expect_status "malformed JSON: 400" 400 -X POST -H "$J" --data-binary '{"kind":' "$CQS"
expect "malformed JSON: a BadRequest Status" '"reason":"BadRequest"' cat "$TMP/curl.out"
expect_status "malformed YAML: 400" 400 -X POST -H 'Content-Type: application/yaml' \
    --data-binary "$(printf 'metadata:\n  name: [x\n')" "$CQS"
expect_status "malformed apply patch: 400" 400 -X PATCH \
    -H 'Content-Type: application/apply-patch+yaml' --data-binary '{{{' \
    "$CQS/lab-cq?fieldManager=t"
expect_status "apply patch without fieldManager: 422" 422 -X PATCH \
    -H 'Content-Type: application/apply-patch+yaml' --data-binary '{}' "$CQS/lab-cq"
expect "apply patch without fieldManager: message" \
    'PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch' \
    cat "$TMP/curl.out"
expect_status "a JSON array as an object: 400" 400 -X POST -H "$J" --data-binary '[1,2]' "$CQS"
expect_status "wrong content type: 415" 415 -X POST -H 'Content-Type: text/plain' \
    --data-binary '{}' "$CQS"
expect_status "unknown patch type: 415" 415 -X PATCH -H 'Content-Type: text/plain' \
    --data-binary '{}' "$CQS/lab-cq"
head -c 4194304 /dev/zero | tr '\0' 'a' >"$TMP/huge.json"
expect_status "a 4 MiB body: 413" 413 -X POST -H "$J" --data-binary @"$TMP/huge.json" "$CQS"
expect_status "unknown resource: 404" 404 "$URL/apis/kueue.x-k8s.io/v1beta2/widgets"
expect "unknown resource: generic NotFound" \
    '"message":"the server could not find the requested resource"' cat "$TMP/curl.out"
expect_status "unknown group: 404" 404 "$URL/apis/example.com/v1/things"
expect_status "status of a kind without one: 404" 404 \
    "$URL/apis/kueue.x-k8s.io/v1beta2/resourceflavors/lab-default/status"
expect_status "path traversal in a name: 400" 400 --path-as-is "$CQS/.."
expect_status "path traversal in a namespace: 400" 400 --path-as-is \
    "$URL/apis/kueue.x-k8s.io/v1beta2/namespaces/../localqueues"
expect_status "path traversal out of the API: 404" 404 --path-as-is \
    "$URL/api/v1/../../etc/passwd"
expect_status "encoded slash in a name: 404" 404 "$CQS/a%2Fb"
expect_status "bad label selector: 400" 400 "$CQS?labelSelector=a%20in%20(b"
expect_status "unsupported field selector: 400" 400 "$CQS?fieldSelector=spec.foo%3Dx"
expect "unsupported field selector: message" 'field label not supported: spec.foo' \
    cat "$TMP/curl.out"
expect_status "bad watch resourceVersion: 400" 400 "$CQS?watch=true&resourceVersion=abc"
expect_status "bad dryRun: 400" 400 -X POST -H "$J" --data-binary '{}' "$CQS?dryRun=Maybe"
DEPS="$URL/apis/apps/v1/namespaces/default/deployments"
expect_status "a Deployment of no replicas: 201" 201 -X POST -H "$J" --data-binary \
    '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"dry"},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"dry"}},"template":{"metadata":{"labels":{"app":"dry"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}}' \
    "$DEPS"
expect_status "bad dryRun on a scale: 400, not a write" 400 -X PATCH \
    -H 'Content-Type: application/merge-patch+json' --data-binary '{"spec":{"replicas":2}}' \
    "$DEPS/dry/scale?dryRun=all"
expect_status "  ... the Deployment read back" 200 "$DEPS/dry"
expect "  ... with its replicas unchanged" '"replicas":0' cat "$TMP/curl.out"
expect_status "  ... deleted" 200 -X DELETE "$DEPS/dry"
expect_status "PUT without resourceVersion on a Kueue kind: 422" 422 -X PUT -H "$J" \
    --data-binary '{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"lab-cq"},"spec":{}}' \
    "$CQS/lab-cq"
expect "422 names the field" '"field":"metadata.resourceVersion"' cat "$TMP/curl.out"
expect_status "name in the body differs from the URL: 400" 400 -X PUT -H "$J" \
    --data-binary '{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"x","resourceVersion":"1"}}' \
    "$CQS/lab-cq"
expect_status "kind in the body differs from the URL: 400" 400 -X POST -H "$J" \
    --data-binary '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}}' "$CQS"
expect_status "namespace in the body differs from the URL: 400" 400 -X POST -H "$J" \
    --data-binary '{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue","metadata":{"name":"x","namespace":"other"},"spec":{"clusterQueue":"lab-cq"}}' \
    "$URL/apis/kueue.x-k8s.io/v1beta2/namespaces/kueue-lab/localqueues"
expect_status "bad propagationPolicy: 400" 400 -X DELETE "$CQS/lab-cq?propagationPolicy=Now"
expect_status "PUT on a collection: 405" 405 -X PUT -H "$J" --data-binary '{}' "$CQS"
expect_status "a failing JSON patch test: 422" 422 -X PATCH \
    -H 'Content-Type: application/json-patch+json' \
    --data-binary '[{"op":"test","path":"/spec/cohortName","value":"nope"}]' "$CQS/lab-cq"
expect "a failing JSON patch: Kubernetes' generic message, empty details" \
    '"message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{}' \
    cat "$TMP/curl.out"
expect_status "removing a missing path: 422" 422 -X PATCH \
    -H 'Content-Type: application/json-patch+json' \
    --data-binary '[{"op":"remove","path":"/spec/nope"}]' "$CQS/lab-cq"
expect "removing a missing path: the same message" \
    '"message":"the server rejected our request due to an error in our request"' cat "$TMP/curl.out"
expect_status "the server is still up" 200 "$URL/healthz"
