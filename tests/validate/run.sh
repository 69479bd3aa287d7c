#!/bin/sh
# The `cueue validate` suite: every cases/NAME.yaml is validated and its
# standard output and exit status are compared with cases/NAME.out and
# cases/NAME.rc. With cases/NAME.old.yaml its documents are the objects as
# they are now (--old), and the documents of NAME.yaml that match one are
# checked as updates; cases/NAME.args holds more arguments (feature gates).
# Then: several -f at once, -f - (standard input), --help, bad gates, and
# the same cases against `cueue serve` (serve.py).
# Usage: sh run.sh CUEUE_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
dir="$src/tests/validate/cases"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0
total=0

check() { # name, expected rc file or value, expected out file, actual rc
    name=$1 want_rc=$2 want_out=$3 got_rc=$4
    total=$((total + 1))
    if [ "$got_rc" != "$want_rc" ]; then
        echo "FAIL $name: exit status $got_rc, want $want_rc"
        sed 's/^/  stderr: /' "$tmp/err"
        failed=$((failed + 1))
        return
    fi
    if ! diff -u "$want_out" "$tmp/out" >"$tmp/diff"; then
        echo "FAIL $name: output differs"
        cat "$tmp/diff"
        failed=$((failed + 1))
        return
    fi
    echo "ok   $name"
}

for f in "$dir"/*.yaml; do
    name=$(basename "$f" .yaml)
    case $name in *.old) continue ;; esac
    set --
    [ -f "$dir/$name.old.yaml" ] && set -- --old "$dir/$name.old.yaml"
    # shellcheck disable=SC2046 # the args file holds words
    [ -f "$dir/$name.args" ] && set -- "$@" $(cat "$dir/$name.args")
    "$bin" validate "$@" -f "$f" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "$name" "$(cat "$dir/$name.rc")" "$dir/$name.out" "$rc"
done

# A parse error names the file, the line and the column on standard error.
"$bin" validate -f "$dir/broken.yaml" >"$tmp/out" 2>"$tmp/err"
total=$((total + 1))
if grep -q 'broken.yaml:[0-9][0-9]*:[0-9][0-9]*' "$tmp/err"; then
    echo "ok   broken.yaml message"
else
    echo "FAIL broken.yaml message: $(cat "$tmp/err")"
    failed=$((failed + 1))
fi

# Several files: outputs in order; the worst status wins.
"$bin" validate -f "$dir/good-quota-lab-queues.yaml" -f "$dir/bad-unknown-field.yaml" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$dir/good-quota-lab-queues.out" "$dir/bad-unknown-field.out" >"$tmp/want"
check "two files" 1 "$tmp/want" "$rc"

"$bin" validate -f "$dir/good-all-kinds.yaml" -f "$dir/broken.yaml" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "good file then broken file" 2 "$dir/good-all-kinds.out" "$rc"

# Standard input.
"$bin" validate -f - <"$dir/bad-workload.yaml" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "stdin" 1 "$dir/bad-workload.out" "$rc"

# Usage.
"$bin" validate --help >"$tmp/out" 2>"$tmp/err"
rc=$?
total=$((total + 1))
if [ $rc -eq 0 ] && grep -q 'usage: cueue validate .*-f FILE' "$tmp/out"; then
    echo "ok   --help"
else
    echo "FAIL --help (status $rc)"
    failed=$((failed + 1))
fi
"$bin" validate >"$tmp/out" 2>"$tmp/err"
rc=$?
total=$((total + 1))
if [ $rc -eq 2 ]; then
    echo "ok   no file is a usage error"
else
    echo "FAIL no file: status $rc"
    failed=$((failed + 1))
fi

# Gates Kueue refuses are a usage error, named on standard error.
expect_usage() { # name, expected stderr text, arguments...
    name=$1 want=$2
    shift 2
    "$bin" validate "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    total=$((total + 1))
    if [ $rc -eq 2 ] && grep -qF -e "$want" "$tmp/err" && [ ! -s "$tmp/out" ]; then
        echo "ok   $name"
    else
        echo "FAIL $name: status $rc, stderr: $(cat "$tmp/err")"
        failed=$((failed + 1))
    fi
}
expect_usage "unknown gate" "--feature-gates: unrecognized feature gate: Nope" \
    --feature-gates Nope=true -f "$dir/good-all-kinds.yaml"
expect_usage "gate without value" "missing bool value for PriorityBoost" \
    --feature-gates PriorityBoost -f "$dir/good-all-kinds.yaml"
expect_usage "locked gate" "feature is locked to true" \
    --feature-gates=TLSOptions=false -f "$dir/good-all-kinds.yaml"
expect_usage "unreadable --old" "broken.yaml" \
    --old "$dir/broken.yaml" -f "$dir/good-all-kinds.yaml"

# serve and controller refuse the gates Kueue's manager refuses, from the
# flag or the Configuration, and both at once.
printf 'apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates: {Nope: true}\n' \
    >"$tmp/bad-gates.yaml"
printf 'apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates: {PriorityBoost: true}\n' \
    >"$tmp/gates.yaml"
expect_cmd() { # name, expected stderr text, command...
    name=$1 want=$2
    shift 2
    timeout 30 "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    total=$((total + 1))
    if [ $rc -eq 2 ] && grep -qF -e "$want" "$tmp/err"; then
        echo "ok   $name"
    else
        echo "FAIL $name: status $rc, stderr: $(cat "$tmp/err")"
        failed=$((failed + 1))
    fi
}
expect_cmd "serve: unknown gate in --config" "cueue serve: feature gates: unrecognized feature gate: Nope" \
    "$bin" serve --data-dir "$tmp/d1" --config "$tmp/bad-gates.yaml"
expect_cmd "serve: --feature-gates and featureGates" \
    "feature gates for CLI and configuration cannot both specified" \
    "$bin" serve --data-dir "$tmp/d2" --config "$tmp/gates.yaml" --feature-gates PriorityBoost=true
expect_cmd "controller: unknown gate" "cueue controller: feature gates: unrecognized feature gate: Nope" \
    "$bin" controller --feature-gates Nope=true

# The same cases against `cueue serve`: it refuses what `cueue validate`
# refuses, with the same field paths, on create and update.
if /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
    timeout 300 /usr/bin/python3 "$src/tests/validate/serve.py" "$bin" "$dir" >"$tmp/serve" 2>&1
    cat "$tmp/serve"
    total=$((total + $(grep -c '^ok ' "$tmp/serve") + $(grep -c '^FAIL' "$tmp/serve")))
    failed=$((failed + $(grep -c '^FAIL' "$tmp/serve")))
    if ! grep -q '^ok ' "$tmp/serve"; then
        echo "FAIL cueue serve: no case ran"
        total=$((total + 1))
        failed=$((failed + 1))
    fi
else
    echo "skip cueue serve parity: /usr/bin/python3 with yaml is needed"
fi

echo "$((total - failed))/$total passed"
[ "$failed" -eq 0 ]
