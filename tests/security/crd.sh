# crd.sh -- CustomResourceDefinitions are the admin's: a tenant cannot
# define, change or delete kinds (Kueue's included), nor write objects of a
# kind it is not given; and an object cannot make a validation rule run
# without end (sourced by run.sh after lib.sh).
need kubectl curl
D="$SRC/tests/e2e-crd/data"

start_server crd --executor none || exit 1
k create namespace team-a >/dev/null 2>&1
tenant t1 team-a
expect "the admin defines a kind" "customresourcedefinition.apiextensions.k8s.io/jobsets.jobset.example.com created" \
    k apply -f "$D/jobset-crd.yaml"

# A tenant may not even read CRDs (no Kubernetes or Kueue role grants it),
# so kubectl apply and patch stop at their GET; the writes themselves are
# sent with create and curl.
expect "a tenant cannot define a kind" 'customresourcedefinitions.apiextensions.k8s.io is forbidden: User "t1" cannot create resource "customresourcedefinitions"' \
    kt "$TKC" create -f "$D/rayjob-crd.yaml"
expect "a tenant cannot read Kueue's kinds' definitions" 'User "t1" cannot get resource "customresourcedefinitions"' \
    kt "$TKC" patch crd clusterqueues.kueue.x-k8s.io --type=merge -p '{"spec":{"names":{"shortNames":["mine"]}}}'
TTOKEN=$(kubectl config view --raw --kubeconfig "$TKC" -o 'jsonpath={.users[0].user.token}')
expect "a tenant cannot change Kueue's kinds" 'User \"t1\" cannot patch resource \"customresourcedefinitions\"' \
    curl -s --cacert "$DATA/ca.crt" -H "Authorization: Bearer $TTOKEN" -X PATCH \
    -H 'Content-Type: application/merge-patch+json' -d '{"spec":{"names":{"shortNames":["mine"]}}}' \
    "$URL/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterqueues.kueue.x-k8s.io"
expect "a tenant cannot delete a kind (which would delete everyone's objects)" \
    'User "t1" cannot delete resource "customresourcedefinitions"' \
    kt "$TKC" delete crd jobsets.jobset.example.com
expect_exact "and the kind is still there" "jobsets.jobset.example.com" \
    k get crd jobsets.jobset.example.com -o 'jsonpath={.metadata.name}'
expect "a tenant cannot create objects of a kind it is not given, even in its namespace" \
    'User "t1" cannot create resource "jobsets" in API group "jobset.example.com" in the namespace "team-a"' \
    kt "$TKC" -n team-a create -f "$D/jobset2.yaml"

# A rule quadratic in a list without maxItems, and a long list: the rule's
# cost is bounded, the object refused, the server answers the next request.
cat >"$TMP/quad-crd.yaml" <<'EOF'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: bags.example.com
spec:
  group: example.com
  names: {kind: Bag, plural: bags}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          items:
            type: array
            items: {type: integer}
            x-kubernetes-validations:
            - rule: size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0
              message: must be unique
EOF
k apply -f "$TMP/quad-crd.yaml" >/dev/null 2>&1
/usr/bin/python3 -c '
import json, sys
print(json.dumps({"apiVersion": "example.com/v1", "kind": "Bag", "metadata": {"name": "big"},
                  "items": list(range(20000))}))' >"$TMP/big.json"
t0=$(date +%s)
expect "a rule over a long list stops at its cost limit: the object is refused" \
    "no further validation rules will be run due to call cost exceeds limit for rule" \
    curl -s --cacert "$DATA/ca.crt" -H "Authorization: Bearer $(cat "$DATA/admin-token")" \
    -H 'Content-Type: application/json' --data-binary @"$TMP/big.json" "$URL/apis/example.com/v1/bags"
t1=$(date +%s)
if grep -q __asan_init "$CUEUE" 2>/dev/null || [ $((t1 - t0)) -le 20 ]; then
    pass "... in bounded time ($((t1 - t0)) s)"
else
    fail "... in bounded time (took $((t1 - t0)) s)"
fi
expect "the server answers the next request" "bags.example.com" k get crd bags.example.com
