# paging.sh -- a list's continue token continues that list only: reused on
# the list of another namespace, on a namespaced list when it came from a
# list of all namespaces, or on another resource, it is refused with 400
# and kube-apiserver's wording ("invalid continue token: continue key is
# not valid: ..."), not answered with an empty or a wrong page that a
# client would take for the end of the list. The list it came from still
# pages through to its end. (Sourced by run.sh after lib.sh.)

need curl
start_server paging --insecure-http || exit 1
ADM="Authorization: Bearer $(cat "$DATA/admin-token")"
J='Content-Type: application/json'
for ns in a b; do
    k create namespace "$ns" >/dev/null
    for i in 1 2 3; do
        for kind in ConfigMap Secret; do
            curl -s -o /dev/null -X POST -H "$ADM" -H "$J" \
                --data-binary "{\"apiVersion\":\"v1\",\"kind\":\"$kind\",\"metadata\":{\"name\":\"c$i\"}}" \
                "$URL/api/v1/namespaces/$ns/$(echo "$kind" | tr 'A-Z' 'a-z')s"
        done
    done
done
ROLES=edit tenant eve a b
TOK=$(sed -n 's/^ *token: *//p' "$TKC")
T="Authorization: Bearer $TOK"

# token URL: the continue token of the first page (limit 1) of a list.
token() {
    curl -s -H "$2" "$1?limit=1" |
        "$PY" -c 'import json,sys; print(json.load(sys.stdin)["metadata"].get("continue", ""))'
}
# names URL TOKEN AUTH: the names on the page after TOKEN.
names() {
    curl -s -H "$3" "$1?continue=$2" |
        "$PY" -c 'import json,sys; print(" ".join(i["metadata"]["name"] for i in json.load(sys.stdin).get("items", [])))'
}

ALL="$URL/api/v1/configmaps"
NSA="$URL/api/v1/namespaces/a/configmaps"
NSB="$URL/api/v1/namespaces/b/configmaps"
BAD='invalid continue token: continue key is not valid'

tall=$(token "$ALL" "$ADM")
expect_status "a token of the list of all namespaces, reused on namespace b's list: 400" 400 \
    -H "$ADM" "$NSB?continue=$tall"
expect "... worded as kube-apiserver words a key outside the list" "$BAD: a/c1" cat "$TMP/curl.out"
expect_status "... and on namespace a's, where its last item is: 400" 400 -H "$ADM" "$NSA?continue=$tall"
expect_status "... and on another resource's list: 400" 400 -H "$ADM" "$URL/api/v1/secrets?continue=$tall"
expect_exact "... while the list it came from goes on after a/c1" "a/c2" \
    sh -c "curl -s -H '$ADM' '$ALL?limit=1&continue=$tall' | '$PY' -c 'import json,sys; i=json.load(sys.stdin)[\"items\"][0][\"metadata\"]; print(i[\"namespace\"]+\"/\"+i[\"name\"])'"

# A tenant with the edit role in a and b: a token of one namespace's list
# does not page through the other's (once an empty page, the end).
ta=$(token "$NSA" "$T")
expect_status "a tenant's token of namespace a's list, reused on b's: 400" 400 -H "$T" "$NSB?continue=$ta"
expect "... naming the key it continues after" "$BAD: c1" cat "$TMP/curl.out"
expect_exact "... and on a's list it continues after c1" "c2 c3" names "$NSA" "$ta" "$T"
expect_status "a token of another resource (Secrets) on ConfigMaps: 400" 400 -H "$T" \
    "$NSA?continue=$(token "$URL/api/v1/namespaces/a/secrets" "$T")"
expect_status "a token that is not one: 400" 400 -H "$T" "$NSA?continue=bm90IGEgdG9rZW4"
expect "... worded as kube-apiserver words it" "$BAD" cat "$TMP/curl.out"
