#!/bin/sh
# Engine scenarios: run `cueue schedule` on every tests/scenarios/NAME.yaml
# and compare its JSON output with NAME.expect.json.
#
# usage: sh run.sh CUEUE_BINARY SOURCE_DIR [NAME...]
#
# The expected file may be a subset: keys it does not have are not
# compared; lists are compared whole (same length and order; an object in
# a list is compared as a subset, so `workloads[i].status.conditions` can
# name only the fields that matter). An object with "$exact": true must have
# exactly its keys (to say that something is absent). A first line "# args: ..." in the
# yaml adds arguments. The clock is fixed (--now) unless the args set it.
set -u
cueue=$1
src=$2
shift 2
dir="$src/tests/scenarios"
now=2025-01-01T12:00:00Z
fail=0
total=0
if [ $# -gt 0 ]; then
    names="$*"
else
    names=$(cd "$dir" && ls *.yaml | sed 's/\.yaml$//')
fi
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
for name in $names; do
    total=$((total + 1))
    yaml="$dir/$name.yaml"
    expect="$dir/$name.expect.json"
    args=$(head -n 1 "$yaml" | sed -n 's/^# args: *//p')
    case " $args " in
    *" --now "*) ;;
    *) args="--now $now $args" ;;
    esac
    # shellcheck disable=SC2086
    "$cueue" schedule -f "$yaml" $args >"$out" 2>"$err"
    rc=$?
    if ! /usr/bin/python3 - "$expect" "$out" "$err" "$rc" <<'PY'
import json, sys

expect_path, out_path, err_path, rc = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
with open(expect_path) as f:
    want = json.load(f)
# An expectation of failure: {"exitCode": 2, "stderrContains": "...", "stdout": ""}
if isinstance(want, dict) and "exitCode" in want:
    got_err = open(err_path).read()
    got_out = open(out_path).read()
    ok = rc == want["exitCode"]
    for s in want.get("stderrContains", []):
        if s not in got_err:
            print("stderr lacks %r: %s" % (s, got_err.strip()))
            ok = False
    if "stdout" in want and got_out != want["stdout"]:
        print("stdout not empty: %r" % got_out[:200])
        ok = False
    if rc != want["exitCode"]:
        print("exit code %d, want %d; stderr: %s" % (rc, want["exitCode"], got_err.strip()))
    sys.exit(0 if ok else 1)
if rc != 0:
    print("exit code %d: %s" % (rc, open(err_path).read().strip()))
    sys.exit(1)
try:
    got = json.load(open(out_path))
except Exception as e:
    print("output is not JSON: %s" % e)
    sys.exit(1)

problems = []

def cmp(w, g, path):
    if isinstance(w, dict):
        if not isinstance(g, dict):
            problems.append("%s: want an object, got %s" % (path, json.dumps(g)))
            return
        if w.get("$exact") is True:
            extra = sorted(set(g) - set(w))
            if extra:
                problems.append("%s: unexpected keys %s" % (path, ", ".join(extra)))
        for k, v in w.items():
            if k == "$exact":
                continue
            if k not in g:
                problems.append("%s.%s: missing (want %s)" % (path, k, json.dumps(v)))
            else:
                cmp(v, g[k], "%s.%s" % (path, k))
    elif isinstance(w, list):
        if not isinstance(g, list) or len(w) != len(g):
            problems.append("%s:\n    want %s\n    got  %s" % (path, json.dumps(w), json.dumps(g)))
            return
        for i, (a, b) in enumerate(zip(w, g)):
            cmp(a, b, "%s[%d]" % (path, i))
    elif w != g:
        problems.append("%s:\n    want %s\n    got  %s" % (path, json.dumps(w), json.dumps(g)))

cmp(want, got, "$")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY
    then
        echo "FAIL $name"
        fail=$((fail + 1))
    fi
done
echo "scenarios: $((total - fail))/$total passed"
[ "$fail" -eq 0 ]
