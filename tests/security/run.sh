#!/bin/sh
# run.sh -- hostile tenants and hostile input against `cueue serve`, end to
# end, with the real kubectl, the Python client and curl.
# usage: sh run.sh <cueue binary> <source dir> [topic...]
#
# Each topic is tests/security/<topic>.sh: a script sourced after lib.sh in
# a shell of its own, with its own temporary directory and servers. Every
# check is written so that it fails on a server without the defence it
# tests. The suite fails when any topic has a failed check or dies.
set -u
CUEUE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
shift 2
export CUEUE SRC
HERE="$SRC/tests/security"

if [ $# -gt 0 ]; then
    topics="$*"
else
    topics=$(cd "$HERE" && ls ./*.sh | sed 's|^\./||; s|\.sh$||' | grep -vx -e run -e lib)
fi

total_pass=0
total_fail=0
failed=""
for t in $topics; do
    out=$(mktemp "${TMPDIR:-/tmp}/cueue-sec-out.XXXXXX")
    printf '# topic %s\n' "$t"
    sh -c '. "$1/lib.sh" && . "$1/$2.sh" && finish' topic "$HERE" "$t" >"$out" 2>&1
    rc=$?
    cat "$out"
    p=$(grep -c '^ok ' "$out")
    f=$(grep -c '^FAIL' "$out")
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
        f=1
        printf 'FAIL - topic %s exited %s\n' "$t" "$rc"
    fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    [ "$f" = 0 ] || failed="$failed $t"
    rm -f "$out"
done
printf '\nsecurity: %s passed, %s failed%s\n' "$total_pass" "$total_fail" \
    "${failed:+ (in:$failed)}"
[ "$total_fail" = 0 ]
