# tokens.sh -- the users' tokens file decides who is authenticated (what
# they may then do is RBAC's, see rbac.sh): it is read only as a regular
# file, parsed line by line as written (CRLF, long lines), re-read on every
# real change (even one that keeps its size and mtime), and `cueue token
# create` never loses a concurrent append.
need curl

start_server tok || return 1
TF="$DATA/tokens"
CA="$DATA/ca.crt"

# code TOKEN: the HTTP status of a user's read of discovery, which every
# authenticated user may read (000 when the server does not answer within
# 5 s).
code() {
    curl -s -o /dev/null -w '%{http_code}' -m 5 --cacert "$CA" -H "Authorization: Bearer $1" \
        "$URL/apis"
}
# expect_code DESC WANT TOKEN
expect_code() {
    got=$(code "$3")
    if [ "$got" = "$2" ]; then pass "$1"; else fail "$1 (wanted HTTP $2, got $got)" "$(tail -5 "$DATA/serve.log")"; fi
}
# tok NAME: a 64-character token for NAME
tok() { printf '%-64s' "$1" | tr ' ' 0; }
# write TEXT: replace the tokens file in place (same inode), private
write() {
    printf "$1" >"$TF"
    chmod 600 "$TF"
}

note "# line ends and long lines"
write "$(tok crlf) alice default\r\n"
expect_code "a CRLF line is parsed right" 200 "$(tok crlf)"
pad=$(printf '%4000s' '')
write "# $(printf '%2045s' '' | tr ' ' x)$(tok evil) mallory default\n$(tok long)${pad}bob${pad}default\n"
expect_code "a line longer than any buffer is one line: the tail of a long comment grants nothing" \
    401 "$(tok evil)" default
expect_code "a valid line longer than any buffer is parsed right" 200 "$(tok long)"

note "# revocation"
write "$(tok aaaa) alice default\n"
sleep 2.5 # long enough that the file's times alone tell whether it changed
first=$(code "$(tok aaaa)")
touch -r "$TF" "$TMP/ref"
before=$(stat -c '%s %Y' "$TF")
write "$(tok bbbb) alice default\n"
touch -r "$TMP/ref" "$TF"
after=$(stat -c '%s %Y' "$TF")
got=$(code "$(tok aaaa)")
if [ "$first" = 200 ] && [ "$before" = "$after" ] && [ "$got" = 401 ] &&
    [ "$(code "$(tok bbbb)")" = 200 ]; then
    pass "revocation is seen when the file is rewritten with the same size and mtime"
else
    fail "revocation is seen when the file is rewritten with the same size and mtime" \
        "size/mtime $before -> $after; token before: HTTP $first, after revocation: HTTP $got"
fi

note "# what the file may be"
chmod 644 "$TF"
got=$(code "$(tok bbbb)")
if [ "$got" = 200 ] && grep -q "tokens' may be read by group or others (mode 0644)" "$DATA/serve.log"; then
    pass "a group/world-readable tokens file is used, with a warning"
else
    fail "a group/world-readable tokens file is used, with a warning (HTTP $got)" "$(tail -5 "$DATA/serve.log")"
fi
chmod 620 "$TF"
got=$(code "$(tok bbbb)")
if [ "$got" = 401 ] && grep -q "tokens' may be written by group or others" "$DATA/serve.log"; then
    pass "a group-writable tokens file is not used (anyone could add a token)"
else
    fail "a group-writable tokens file is not used (HTTP $got)" "$(tail -5 "$DATA/serve.log")"
fi
printf '%s alice default\n' "$(tok link)" >"$TMP/outside"
rm -f "$TF"
ln -s "$TMP/outside" "$TF"
got=$(code "$(tok link)")
if [ "$got" = 401 ] && grep -q "is a symbolic link" "$DATA/serve.log"; then
    pass "a tokens file that is a symbolic link is not followed"
else
    fail "a tokens file that is a symbolic link is not followed (HTTP $got)" "$(tail -5 "$DATA/serve.log")"
fi
rm -f "$TF"
mkfifo "$TF"
t0=$(date +%s%N)
got=$(code "$(tok link)")
got2=$(code "$(tok link)")
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$got" = 401 ] && [ "$got2" = 401 ] && grep -q "tokens' is not a regular file" "$DATA/serve.log"; then
    pass "a FIFO as tokens file does not hang the server (two requests: $ms ms)"
else
    fail "a FIFO as tokens file does not hang the server (HTTP $got, $got2)" "$(tail -5 "$DATA/serve.log")"
fi
rm -f "$TF"

note "# cueue token create"
i=0
pids=""
while [ $i -lt 16 ]; do
    i=$((i + 1))
    "$CUEUE" token create --namespace default --user "u$i" --data-dir "$DATA" >"$TMP/u$i.kubeconfig" 2>&1 &
    pids="$pids $!"
done
for p in $pids; do wait "$p"; done
n=$(grep -c ' u[0-9]*$' "$TF")
works=0
for i in $(seq 1 16); do
    t=$(sed -n 's/^ *token: //p' "$TMP/u$i.kubeconfig")
    [ -n "$t" ] && [ "$(code "$t")" = 200 ] && works=$((works + 1))
done
bound=$(k -n default get rolebindings -o name | grep -c 'kueue-batch-user-role:u[0-9]*$')
if [ "$n" = 16 ] && [ "$works" = 16 ] && [ "$bound" = 16 ] && [ "$(stat -c %a "$TF")" = 600 ]; then
    pass "16 concurrent token creates: 16 lines, 16 working tokens, 16 RoleBindings, file 0600"
else
    fail "16 concurrent token creates: 16 lines, 16 working tokens, 16 RoleBindings, file 0600" \
        "$n lines, $works working, $bound bound, mode $(stat -c %a "$TF")"
fi
