#!/bin/sh
# The `cueue bench` suite: runs bench/configs/smoke.yaml in virtual time and
# checks the report's shape and its bookkeeping (every field of the
# contract present, every workload admitted at least once and finished,
# admissions = workloads + evictions, usage within bounds, the same report
# twice). Timing is never asserted. Then: YAML and text output, a bad
# config, an ignored `tas` key, a workload that never fits, the
# percentiles of the time to admission (and with Kueue's requeue batch),
# an unknown mode, the smoke config in real time (when `serve` exists), one
# micro-benchmark row, the targets' table, bench/pending.py on a small
# store.
# Usage: sh run.sh CUEUE_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
smoke="$src/bench/configs/smoke.yaml"
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0
total=0

pass() { total=$((total + 1)); }
fail() { total=$((total + 1)); failed=$((failed + 1)); echo "FAIL $*"; }

# The shape and bookkeeping of a report: check.py REPORT CONFIG MODE.
cat >"$tmp/check.py" <<'EOF'
import json, sys, yaml
r = json.load(open(sys.argv[1]))
cfg = yaml.safe_load(open(sys.argv[2]))
errs = []
def need(obj, keys, where):
    for k in keys:
        if k not in obj:
            errs.append("missing %s%s" % (where, k))
need(r, ["config", "mode", "wallMs", "workloads", "admissions", "evictions",
         "clusterQueueClasses", "workloadClasses", "engine"], "")
if errs:
    print("\n".join(errs)); sys.exit(1)
need(r["engine"], ["cycles", "cpuSeconds", "admissionsPerSecond", "peakRssBytes"], "engine.")
mode = sys.argv[3]
if r["config"] != "smoke.yaml" or r["mode"] != mode:
    errs.append("config/mode: %r %r" % (r["config"], r["mode"]))

# What the generator must have made, from the config itself.
want_wl, want_cls, nominal, work, last = 0, {}, {}, 0, 0
for c in cfg["cohorts"]:
    for q in c["queuesSets"]:
        n = c["count"] * q["count"]
        nominal[q["className"]] = nominal.get(q["className"], 0) + n * q["nominalQuota"] * 1000
        for s in q["workloadsSets"]:
            for i, t in enumerate(s["workloads"]):
                k = n * s["count"]
                want_wl += k
                want_cls[t["className"]] = want_cls.get(t["className"], 0) + k
                work += k * t["request"] * 1000 * t["runtimeMs"]
                created = s["count"] * len(s["workloads"]) * s["creationIntervalMs"]
                last = max(last, created + t["runtimeMs"])
if r["workloads"] != want_wl:
    errs.append("workloads %d, want %d" % (r["workloads"], want_wl))
if r.get("finished") != r["workloads"]:
    errs.append("finished %r != workloads %d" % (r.get("finished"), r["workloads"]))
# Every eviction is followed by a new admission; in real time a run that
# ends just as it is evicted is finished without one.
adm_ok = (r["admissions"] == r["workloads"] + r["evictions"] if mode == "virtual" else
          r["workloads"] <= r["admissions"] <= r["workloads"] + r["evictions"])
if not adm_ok:
    errs.append("admissions %d, workloads %d, evictions %d"
                % (r["admissions"], r["workloads"], r["evictions"]))
if r["wallMs"] < last:
    errs.append("wallMs %d before the last creation + runtime %d" % (r["wallMs"], last))

wc = r["workloadClasses"]
if set(wc) != set(want_cls):
    errs.append("workload classes %s, want %s" % (sorted(wc), sorted(want_cls)))
ev = 0
for name, v in wc.items():
    need(v, ["count", "averageTimeToAdmissionMs", "averageTimeToFinishMs", "totalEvictions",
             "p50TimeToAdmissionMs", "p99TimeToAdmissionMs"], "workloadClasses.%s." % name)
    if errs:
        break
    ev += v["totalEvictions"]
    if v["count"] != want_cls.get(name):
        errs.append("%s: count %d, want %r" % (name, v["count"], want_cls.get(name)))
    if v.get("admitted") != v["count"] or v.get("finished") != v["count"]:
        errs.append("%s: admitted %r finished %r of %d"
                    % (name, v.get("admitted"), v.get("finished"), v["count"]))
    if not 0 <= v["p50TimeToAdmissionMs"] <= v["p99TimeToAdmissionMs"] <= r["wallMs"]:
        errs.append("%s: p50 / p99 %d / %d" % (name, v["p50TimeToAdmissionMs"],
                                               v["p99TimeToAdmissionMs"]))
    if not 0 <= v["averageTimeToAdmissionMs"] < v["averageTimeToFinishMs"] <= r["wallMs"]:
        errs.append("%s: times %d / %d" % (name, v["averageTimeToAdmissionMs"],
                                          v["averageTimeToFinishMs"]))
if ev != r["evictions"]:
    errs.append("class evictions sum to %d, report says %d" % (ev, r["evictions"]))

cc = r["clusterQueueClasses"]
if set(cc) != set(nominal):
    errs.append("ClusterQueue classes %s, want %s" % (sorted(cc), sorted(nominal)))
used = 0
for name, v in cc.items():
    need(v, ["usagePercent", "nominalQuotaMilli", "cpuUsedMilliMs"],
         "clusterQueueClasses.%s." % name)
    if errs:
        break
    used += v["cpuUsedMilliMs"]
    if v["nominalQuotaMilli"] != nominal.get(name):
        errs.append("%s: nominal %d, want %r" % (name, v["nominalQuotaMilli"], nominal.get(name)))
    pct = 100.0 * v["cpuUsedMilliMs"] / (v["nominalQuotaMilli"] * r["wallMs"])
    if not 0 < v["usagePercent"] <= 100 or abs(pct - v["usagePercent"]) > 0.051:
        errs.append("%s: usagePercent %r, computed %.2f" % (name, v["usagePercent"], pct))
# Every workload ran its full runtime once (runs cut by preemption add more;
# in real time a run may end as it is evicted, hence the margin there).
if used < (work if mode == "virtual" else 0.95 * work):
    errs.append("cpu used %d below the work of the config %d" % (used, work))
# The last creation and each class's last admission.
lc = r.get("lastCreationAtMs", -1)
if not 0 <= lc <= r["wallMs"]:
    errs.append("lastCreationAtMs %r" % lc)
for name, v in wc.items():
    if not 0 <= v.get("lastAdmissionAtMs", -1) <= r["wallMs"]:
        errs.append("%s: lastAdmissionAtMs %r" % (name, v.get("lastAdmissionAtMs")))
# Workload updates seen on the watch, real time only: at least one finish
# per workload, each admission one more.
w = r.get("apiWrites")
if mode == "virtual" and w is not None:
    errs.append("apiWrites in a virtual run")
if mode == "realtime":
    if (not w or w["workloadUpdates"] < r["workloads"] + r["admissions"] or
            not 0 <= w["whilePending"] <= w["workloadUpdates"]):
        errs.append("apiWrites %r" % w)
    # Every workload was admitted: its updates are all of them.
    elif (w.get("admittedWorkloads") != r["workloads"] or w.get("nonAdmittedWorkloads") != 0 or
          w.get("perAdmittedWorkload") != w["perWorkload"] or
          w.get("perNonAdmittedWorkload") != 0):
        errs.append("apiWrites by admission %r" % w)
e = r["engine"]
if (e["cycles"] <= 0 and mode == "virtual") or e["peakRssBytes"] <= 0 or e["cpuSeconds"] < 0:
    errs.append("engine figures %r" % e)
if errs:
    print("\n".join(errs))
sys.exit(1 if errs else 0)
EOF

# 1. The report of the smoke config, as JSON.
if "$bin" bench --config "$smoke" --mode virtual -o json >"$tmp/a.json" 2>"$tmp/err"; then
    pass
else
    fail "smoke run: exit status $?"
    sed 's/^/  stderr: /' "$tmp/err"
fi
if "$py" "$tmp/check.py" "$tmp/a.json" "$smoke" virtual; then pass; else fail "smoke report"; fi

# 2. Deterministic: the same report again (engine timings aside).
"$bin" bench --config "$smoke" -o json >"$tmp/b.json" 2>/dev/null
strip() { grep -v -e cpuSeconds -e admissionsPerSecond -e peakRssBytes "$1"; }
if [ "$(strip "$tmp/a.json")" = "$(strip "$tmp/b.json")" ]; then pass; else
    fail "two runs of the smoke config differ"
    diff "$tmp/a.json" "$tmp/b.json" | head -20
fi

# 3. YAML says what JSON says.
"$bin" bench --config "$smoke" -o yaml >"$tmp/a.yaml" 2>/dev/null
if "$py" -c '
import json, sys, yaml
a = json.load(open(sys.argv[1])); b = yaml.safe_load(open(sys.argv[2]))
a.pop("engine"); b.pop("engine")
sys.exit(0 if a == b else 1)' "$tmp/a.json" "$tmp/a.yaml"; then pass; else
    fail "yaml report differs from json"
fi

# 4. Text: a table with every class.
"$bin" bench --config "$smoke" >"$tmp/a.txt" 2>/dev/null
if grep -q "usage %" "$tmp/a.txt" && grep -q "^small " "$tmp/a.txt" &&
    grep -q "^large " "$tmp/a.txt" && grep -q "^engine: " "$tmp/a.txt"; then pass; else
    fail "text report"
    cat "$tmp/a.txt"
fi

# 5. A config missing a field is refused with its path; nothing runs.
sed 's/^\( *\)runtimeMs: 250/\1runtimeMs: -1/' "$smoke" >"$tmp/bad.yaml"
"$bin" bench --config "$tmp/bad.yaml" -o json >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && [ ! -s "$tmp/out" ] &&
    grep -q 'cohorts\[0\].queuesSets\[0\].workloadsSets\[1\].workloads\[0\].runtimeMs' "$tmp/err"; then
    pass
else
    fail "bad config: exit $rc"
    cat "$tmp/err"
fi

# 6. `tas` keys are ignored with a warning, and the run is the same.
sed 's/^\( *\)count: 3$/\1count: 3\n\1tas: true/' "$smoke" >"$tmp/tas.yaml"
"$bin" bench --config "$tmp/tas.yaml" -o json >"$tmp/tas.json" 2>"$tmp/err"
if grep -q "ignoring cohorts\[0\].queuesSets\[0\].tas" "$tmp/err" &&
    [ "$(strip "$tmp/tas.json" | grep -v '"config"')" = "$(strip "$tmp/a.json" | grep -v '"config"')" ]; then
    pass
else
    fail "tas key"
    cat "$tmp/err"
fi

# 7. A workload that can never fit does not hang the run: the run ends when
#    nothing more can happen, the report says what finished, exit status 1.
cat >"$tmp/never.yaml" <<'EOF'
cohorts:
- className: cohort
  count: 1
  queuesSets:
  - className: cq
    count: 2
    nominalQuota: 4
    borrowingLimit: 2
    workloadsSets:
    - count: 3
      creationIntervalMs: 10
      workloads:
      - className: fits
        runtimeMs: 20
        request: 1
      - className: huge
        runtimeMs: 20
        request: 20
EOF
"$bin" bench --config "$tmp/never.yaml" -o json >"$tmp/never.json" 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && "$py" -c '
import json, sys
r = json.load(open(sys.argv[1])); w = r["workloadClasses"]
ok = (r["workloads"] == 12 and r["finished"] == 6 and w["fits"]["finished"] == 6
      and w["huge"]["admitted"] == 0 and r["clusterQueueClasses"]["cq"]["usagePercent"] == 21.4)
sys.exit(0 if ok else 1)' "$tmp/never.json" && grep -q "6 of 12 workloads finished" "$tmp/err"; then
    pass
else
    fail "never-fitting workload: exit $rc"
    cat "$tmp/never.json" "$tmp/err"
fi

# 8. Percentiles of the time to admission: four 1-cpu workloads of 100 ms,
#    created 1 ms apart into a 1-cpu queue, wait 0, 99, 198 and 297 ms.
cat >"$tmp/line.yaml" <<'EOF'
cohorts:
- className: cohort
  count: 1
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 1
    borrowingLimit: 0
    workloadsSets:
    - count: 4
      creationIntervalMs: 1
      workloads:
      - className: one
        runtimeMs: 100
        request: 1
EOF
if "$bin" bench --config "$tmp/line.yaml" -o json >"$tmp/line.json" 2>"$tmp/err" && "$py" -c '
import json, sys
w = json.load(open(sys.argv[1]))["workloadClasses"]["one"]
got = (w["averageTimeToAdmissionMs"], w["p50TimeToAdmissionMs"], w["p99TimeToAdmissionMs"])
if got != (149, 99, 297):
    print("avg / p50 / p99 %r" % (got,))
    sys.exit(1)' "$tmp/line.json"; then pass; else
    fail "percentiles of the time to admission"
    cat "$tmp/err"
fi

# 8b. Kueue's one-second requeue batch in virtual time: the same line, each
#     workload after the first waits for a batch that a finish (or the
#     queue's creation) asked for, so the four runs end after three batches.
if "$bin" bench --config "$tmp/line.yaml" -o json --requeue-batch-ms 1000 >"$tmp/batch.json" \
    2>"$tmp/err" && "$py" -c '
import json, sys
r = json.load(open(sys.argv[1])); w = r["workloadClasses"]["one"]
if not (3000 < r["wallMs"] < 3500 and 900 <= w["p50TimeToAdmissionMs"] < 1100
        and w["p99TimeToAdmissionMs"] >= 3000 and r["finished"] == 4):
    print("wall %d, p50 %d, p99 %d" % (r["wallMs"], w["p50TimeToAdmissionMs"],
                                       w["p99TimeToAdmissionMs"]))
    sys.exit(1)' "$tmp/batch.json"; then pass; else
    fail "requeue batch in virtual time"
    cat "$tmp/err"
fi
for bad in "--requeue-batch-ms -1" "--requeue-batch-ms 1s" "--requeue-batch-ms 1000 --mode realtime"; do
    # shellcheck disable=SC2086
    if "$bin" bench --config "$tmp/line.yaml" $bad >/dev/null 2>"$tmp/err"; then
        fail "bench accepted $bad"
    elif grep -q -- "--requeue-batch-ms" "$tmp/err"; then pass; else
        fail "bench refused $bad without naming the option"
        cat "$tmp/err"
    fi
done

# 9. Unknown mode and output format.
if "$bin" bench --config "$smoke" --mode sometime >/dev/null 2>&1; then
    fail "unknown mode accepted"
else pass; fi
if "$bin" bench --config "$smoke" -o xml >/dev/null 2>&1; then
    fail "unknown output accepted"
else pass; fi

# 10. Real time, when this cueue (or $CUEUE_BENCH_SERVER) has a `serve` with
#    its controllers (one that admits Workloads): the smoke config against a
#    fresh server, the same checks.
server=${CUEUE_BENCH_SERVER:-$bin}
if "$server" serve --help >"$tmp/serve-help" 2>&1 && grep -q -- "--controllers" "$tmp/serve-help" &&
    ! grep -q "controllers are not" "$tmp/serve-help"; then
    server_has_controllers=1
    if "$bin" bench --config "$smoke" --mode realtime --server-binary "$server" --timeout 120 \
        -o json >"$tmp/rt.json" 2>"$tmp/err" &&
        "$py" "$tmp/check.py" "$tmp/rt.json" "$smoke" realtime; then
        pass
    else
        fail "realtime smoke run"
        sed 's/^/  stderr: /' "$tmp/err"
    fi
else
    echo "note: $server serve has no controllers: realtime mode not run"
fi

# 11. One micro-benchmark row runs (no timing asserted).
if "$bin" bench --micro --cqs 10 --pending 4 2>&1 | grep -q "^cycle: *10 ClusterQueues"; then
    pass
else fail "micro row"; fi

# 12. The targets' table from a directory of reports: a report present
#     fills its rows and says whether the limit is met, one missing says
#     "not run", a backlog not admitted says so (no timing asserted).
mkdir "$tmp/table"
cp "$tmp/a.json" "$tmp/table/baseline.virtual.json"
cp "$tmp/never.json" "$tmp/table/deep-backlog.realtime.json"
sed -i 's/"huge"/"cpu"/' "$tmp/table/deep-backlog.realtime.json"
sed 's/"small"/"cpu"/' "$tmp/a.json" >"$tmp/table/deep-backlog.virtual.json"
if "$py" "$src/bench/table.py" "$tmp/table" >"$tmp/table.txt" 2>"$tmp/err" &&
    grep -q "^baseline, virtual: CQ usage .* 55.9 %  *>= 85 %  *yes$" "$tmp/table.txt" &&
    grep -q "^(a) deep backlog, virtual: .* ms  *<= 1 s  *yes$" "$tmp/table.txt" &&
    grep -q "^(a) the same, real time .*0 of 6 cpu workloads admitted  *<= 1 s  *no$" "$tmp/table.txt" &&
    grep -q "^baseline, real time: wall  *not run" "$tmp/table.txt"; then
    pass
else
    fail "targets table"
    cat "$tmp/table.txt" "$tmp/err"
fi

# 13. bench/pending.py on a small store: the restarted server holds every
#     Workload and Job copied (when serve runs the controllers).
if [ -z "${server_has_controllers:-}" ]; then
    echo "note: pending.py not run (no controllers)"
elif "$py" "$src/bench/pending.py" "$server" 50 --settle 0.5 >"$tmp/pending.json" 2>"$tmp/err" &&
    "$py" -c 'import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["workloads"] == 50 and r["jobs"] == 50 and r["rssBytes"] > 0 else 1)' \
        "$tmp/pending.json"; then
    pass
else
    fail "pending.py"
    cat "$tmp/pending.json" "$tmp/err"
fi

echo "bench: $((total - failed))/$total passed"
[ $failed = 0 ]
