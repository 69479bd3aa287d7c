# datadir.sh -- the data dir is the server's alone: locked, private, and
# never served half-broken or silently emptied; a stored object that cannot
# be decoded breaks no list and can still be deleted, with its namespace.
need kubectl curl sqlite3

umask 022 # what a careless environment gives: files 0644 unless made private

mkns() { printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n' "$1" | k apply -f - >/dev/null; }

serve_once() { # serve_once DIR: run a server expected to refuse to start
    timeout 20 "$CUEUE" serve --listen 127.0.0.1:0 --data-dir "$1" --controllers none \
        --executor none >"$TMP/refused.out" 2>&1
}

note "# lock"
start_server dd || return 1
t0=$(date +%s%N)
serve_once "$DATA"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q "in use by another cueue serve (pid $PID)" "$TMP/refused.out"; then
    pass "a second server on the data dir exits at once ($ms ms), naming the running one's pid"
else
    fail "a second server on the data dir exits at once, naming pid $PID (exit $rc)" "$(cat "$TMP/refused.out")"
fi
expect "the first server still serves" "default" k get ns default

note "# modes"
tenant alice team-a >/dev/null
mkns team-a
loose=$(find "$DATA" -type f ! -perm 600 -exec stat -c '%a %n' {} +)
dmode=$(stat -c %a "$DATA")
if [ "$dmode" = 700 ] && [ -z "$loose" ] && [ -f "$DATA/store.db-wal" ] && [ -f "$DATA/tokens" ]; then
    pass "data dir 0700, every file in it 0600 ($(find "$DATA" -type f | wc -l) files: store, WAL, keys, tokens, endpoint, ...)"
else
    fail "data dir 0700, every file in it 0600 (dir $dmode)" "$loose"
fi
stop_server "$PID"
chmod 755 "$DATA"
chmod 644 "$DATA/admin-token" "$DATA/store.db" "$DATA/tokens"
mkdir -p "$DATA/pods/team-a_p1"
echo "output" >"$DATA/pods/team-a_p1/main.log"
chmod 755 "$DATA/pods" "$DATA/pods/team-a_p1"
start_server dd || return 1
loose=$(find "$DATA" ! -type l \( \( -type d ! -perm 700 \) -o \( -type f ! -perm 600 \) \) -exec stat -c '%a %n' {} +)
if [ -z "$loose" ] && [ -z "$(find "$DATA" -name 'store.db-*' ! -perm 600)" ]; then
    pass "looser modes of an existing data dir are tightened at start (pod logs too)"
else
    fail "looser modes of an existing data dir are tightened at start" "$loose"
fi
expect_grep "the log says what was tightened" \
    "tightened the mode of '$DATA/admin-token' from 0644 to 0600" cat "$DATA/serve.log"

note "# an object that cannot be decoded"
mkns team-b
job() {
    printf 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: %s, namespace: %s}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox, command: ["true"]}]\n' "$1" "$2"
}
for j in good bad; do job "$j" team-a | k apply -f - >/dev/null; done
job other team-b | k apply -f - >/dev/null
job mangled team-b | k apply -f - >/dev/null
stop_server "$PID"
# Written as another tool would (or a damaged disk): not JSON at all, and
# JSON whose bytes are not UTF-8.
sqlite3 "$DATA/store.db" "UPDATE objects SET doc='{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",' WHERE res='jobs.batch' AND name='bad';
UPDATE objects SET doc=CAST(X'7B226B696E64223A224A6F62222C226D65746164617461223A7B226E616D65223A226DFF227D7D' AS TEXT) WHERE res='jobs.batch' AND name='mangled';"
start_server dd || return 1
k get jobs -A -o json >"$TMP/jobs.json" 2>"$TMP/jobs.err"
if $PY -c 'import json,sys; d=json.load(open(sys.argv[1],"rb")); n=sorted(i["metadata"]["name"] for i in d["items"]); sys.exit(0 if n==["good","other"] else print(n) or 1)' "$TMP/jobs.json" >"$TMP/chk.out" 2>&1; then
    pass "kubectl lists Jobs around the undecodable ones"
else
    fail "kubectl lists Jobs around the undecodable ones" "$(cat "$TMP/chk.out" "$TMP/jobs.err")"
fi
TOKEN=$(cat "$DATA/admin-token")
curl -s -m 10 --cacert "$DATA/ca.crt" -H "Authorization: Bearer $TOKEN" "$URL/apis/batch/v1/namespaces/team-a/jobs" >"$TMP/raw.json"
if $PY -c 'import json,sys; d=json.loads(open(sys.argv[1],"rb").read().decode("utf-8")); sys.exit(0 if [i["metadata"]["name"] for i in d["items"]]==["good"] else 1)' "$TMP/raw.json" 2>/dev/null; then
    pass "the list as sent is strict JSON in UTF-8"
else
    fail "the list as sent is strict JSON in UTF-8" "$(head -c 600 "$TMP/raw.json")"
fi
expect_grep "the log names an undecodable object" 'cannot be decoded' cat "$DATA/serve.log"
curl -s -m 10 -N --cacert "$DATA/ca.crt" -H "Authorization: Bearer $TOKEN" \
    "$URL/apis/batch/v1/jobs?watch=true&timeoutSeconds=1" >"$TMP/watch.json"
if $PY -c 'import json,sys
n = sorted(json.loads(l.decode("utf-8"))["object"]["metadata"]["name"] for l in open(sys.argv[1], "rb"))
sys.exit(0 if n == ["good", "other"] else print(n) or 1)' "$TMP/watch.json" >"$TMP/chk.out" 2>&1; then
    pass "a watch's initial events leave out the undecodable ones, line by line strict JSON"
else
    fail "a watch's initial events leave out the undecodable ones, line by line strict JSON" \
        "$(cat "$TMP/chk.out"; head -c 600 "$TMP/watch.json")"
fi
out=$(k -n team-a delete job bad --wait=false 2>&1; k -n team-a get job bad 2>&1)
case "$out" in
*'job.batch "bad" deleted'*NotFound*) pass "an undecodable object can be deleted" ;;
*) fail "an undecodable object can be deleted" "$out" ;;
esac
out=$(k delete ns team-b --timeout=20s 2>&1; k get ns team-b 2>&1)
case "$out" in
*'namespace "team-b" deleted'*NotFound*) pass "an undecodable object does not block its namespace's deletion" ;;
*) fail "an undecodable object does not block its namespace's deletion" "$out" ;;
esac
expect "what was decodable is kept" 'good' k -n team-a get jobs

note "# a damaged store"
stop_server "$PID"
size=$(stat -c %s "$DATA/store.db")
pages=$((size / 4096))
# Damage two pages in the middle of the file.
dd if=/dev/urandom of="$DATA/store.db" bs=4096 seek=$((pages / 2)) count=2 conv=notrunc 2>/dev/null
serve_once "$DATA"
rc=$?
hint=$(sed -n 's/.*salvage what can be read with: //p' "$TMP/refused.out")
if [ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q "is damaged (quick_check: " "$TMP/refused.out" &&
    [ -n "$hint" ] && [ "$(stat -c %s "$DATA/store.db")" = "$size" ]; then
    pass "a damaged store is refused, left as it was, with the command to recover it"
else
    fail "a damaged store is refused, left as it was, with the command to recover it (exit $rc)" \
        "$(cat "$TMP/refused.out"; ls -l "$DATA")"
fi
# The command the message gives works: what it salvages is served.
sh -c "$hint" >"$TMP/salvage.out" 2>&1
if start_server dd >/dev/null && k get ns >/dev/null 2>&1; then
    pass "after the salvage the message gives, the server starts and serves what was readable"
else
    fail "after the salvage the message gives, the server starts and serves what was readable" \
        "$(tail -5 "$DATA/serve.log"; cat "$TMP/salvage.out")"
fi

note "# a zero-length store beside keys"
stop_server "$PID"
key=$(cat "$DATA/admin-token")
: >"$DATA/store.db"
rm -f "$DATA/store.db-wal" "$DATA/store.db-shm"
serve_once "$DATA"
rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q "is empty, but" "$TMP/refused.out" &&
    [ ! -s "$DATA/store.db" ] && [ "$(cat "$DATA/admin-token")" = "$key" ]; then
    pass "a zero-length store beside the keys of an earlier run is refused, and nothing replaced"
else
    fail "a zero-length store beside the keys of an earlier run is refused, and nothing replaced (exit $rc)" \
        "$(cat "$TMP/refused.out"; ls -l "$DATA")"
fi
