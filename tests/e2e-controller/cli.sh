# cli.sh -- sourced by run.sh: the command line's help and its early errors.
expect_grep "cli: cueue version --help prints help" '^usage: cueue version$' "$CUEUE" version --help
expect_grep "cli: cueue version prints the version" '^cueue [0-9]+\.[0-9]+\.[0-9]+ ' "$CUEUE" version
for o in -f --cycles --now -o; do
    expect_grep "cli: cueue schedule --help explains $o" "^  $o" "$CUEUE" schedule --help
done
mkdir -p "$TMP/v6"
out=$("$CUEUE" serve --listen '[::1]:0' --data-dir "$TMP/v6/data" 2>&1)
rc=$?
if [ "$rc" -ne 0 ] && printf '%s\n' "$out" | grep -qF "(IPv6 is not supported), got '[::1]'"; then
    pass "cli: --listen with an IPv6 address: a clear error"
else
    fail "cli: --listen with an IPv6 address: a clear error" "rc=$rc $out"
fi
expect_exact "cli: ... before anything is created" "" ls -A "$TMP/v6"
