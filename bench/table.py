"""One table of issue 15's targets: ours (from the reports `make bench`
wrote into DIR), Kueue's (its own scalability test, bench/README.md), the
limit, and whether ours is within it, side by side.

usage: bench/table.py DIR

DIR holds what `make bench` wrote: CONFIG.virtual.json for the baseline,
large-scale, deep-backlog and gpu-cohort configs, baseline.virtual-batch.json
(the baseline in virtual time with Kueue's one-second requeue batch, which
the server has: the pace real time can reach), CONFIG.realtime.json
for the baseline, large-scale, deep-backlog and gpu-cohort ones (`cueue
bench -o json`), preemption.txt (`cueue bench --micro --preemption`) and
pending.json (bench/pending.py). A report that is missing shows as "not
run".
"""
import json
import os
import re
import sys


def load(d, name):
    try:
        with open(os.path.join(d, name)) as f:
            return json.load(f) if name.endswith(".json") else f.read()
    except (OSError, ValueError):
        return None


class NotReached(Exception):
    """What a run did not reach, said in the table instead of a figure."""


def sec(ms):
    return "%.1f s" % (ms / 1000.0)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    bv, br = load(d, "baseline.virtual.json"), load(d, "baseline.realtime.json")
    bb = load(d, "baseline.virtual-batch.json")
    lv, lr = load(d, "large-scale.virtual.json"), load(d, "large-scale.realtime.json")
    dv, dr = load(d, "deep-backlog.virtual.json"), load(d, "deep-backlog.realtime.json")
    gv, gr = load(d, "gpu-cohort.virtual.json"), load(d, "gpu-cohort.realtime.json")
    pre, pend = load(d, "preemption.txt"), load(d, "pending.json")
    rows = []

    # A row: what, ours, Kueue's, the limit, and met(value) -> bool when the
    # limit is a bound (value is what `get` returned before formatting).
    def row(target, rep, get, fmt, kueue="", limit="", met=None):
        val, reached = None, True
        if rep is None:
            ours = "not run"
        else:
            try:
                val = get(rep)
                ours = fmt(val)
            except NotReached as e:
                ours, reached = str(e), False
            except (KeyError, TypeError, ValueError, ZeroDivisionError):
                ours = "not in the report"
        ok = ("" if met is None or (reached and val is None) else
              "yes" if reached and met(val) else "no")
        rows.append((target, ours, kueue, limit, ok))

    def wall(r):
        if r["finished"] < r["workloads"]:
            raise NotReached("> %s (%s of %s finished)" % (sec(r["wallMs"]), format(r["finished"], ","),
                                                        format(r["workloads"], ",")))
        return r["wallMs"]

    def usage(r):
        return r["clusterQueueClasses"]["cq"]["usagePercent"]

    def pct(v):
        return "%.1f %%" % v

    def waits(key, classes):
        return lambda r: [r["workloadClasses"][k][key] for k in classes]

    def secs(v):
        return " / ".join(sec(x) for x in v)

    sml = ("small", "medium", "large")
    row("baseline, virtual: wall", bv, lambda r: r["wallMs"], sec, "351 s")
    row("baseline, virtual: CQ usage", bv, usage, pct, "55.9 %", ">= 85 %", lambda v: v >= 85)
    row("baseline, virtual with Kueue's 1 s requeue batch: wall", bb, lambda r: r["wallMs"], sec,
        "351 s")
    row("baseline, virtual with Kueue's 1 s requeue batch: CQ usage", bb, usage, pct, "55.9 %")
    row("baseline, real time: wall", br, wall, sec, "351 s", "<= 80 s",
        lambda v: v <= 80000)
    row("baseline, real time: CQ usage", br, usage, pct, "55.9 %", ">= 94 %", lambda v: v >= 94)
    row("baseline, real time: time to admission s/m/l", br,
        waits("averageTimeToAdmissionMs", sml), secs, "215 s / 77 s / 16.5 s")
    row("baseline, real time: server CPU per workload", br,
        lambda r: 1000.0 * r["engine"]["cpuSeconds"] / r["workloads"], lambda v: "%.2f ms" % v,
        "", "<= 1 ms", lambda v: v <= 1)
    row("baseline, real time: Workload updates per workload (while pending)", br,
        lambda r: (r["apiWrites"]["perWorkload"], r["apiWrites"]["whilePendingPerWorkload"]),
        lambda v: "%.2f (%.2f)" % v, "", "1 per change of the pending reason")
    row("baseline, real time: Workload updates per admission", br,
        lambda r: r["apiWrites"]["perAdmission"], lambda v: "%.2f" % v)
    def by_admission(r):
        w = r["apiWrites"]
        return (w["perAdmittedWorkload"], w["perNonAdmittedWorkload"], w["nonAdmittedWorkloads"])

    def by_admission_fmt(v):
        return "%.2f / %.2f (%d never admitted)" % v

    row("baseline, real time: Workload updates per admitted / never admitted workload", br,
        by_admission, by_admission_fmt)
    row("baseline, real time: server peak RSS", br, lambda r: r["engine"]["peakRssBytes"],
        lambda v: "%d MiB" % (v >> 20))
    row("large-scale, virtual: wall", lv, lambda r: r["wallMs"], sec, "1,179 s")
    row("large-scale, virtual: CQ usage", lv, usage, pct, "38.6 %")
    row("large-scale, virtual: time to admission s/m/l", lv,
        waits("averageTimeToAdmissionMs", sml), secs, "700 s / 256 s / 106 s")
    row("large-scale, virtual: engine CPU", lv, lambda r: r["engine"]["cpuSeconds"],
        lambda v: "%.2f s" % v, "", "< 2 s", lambda v: v < 2)
    row("large-scale, real time: wall", lr, wall, sec, "1,179 s", "<= 15 s",
        lambda v: v <= 15000)
    lvw = lv and [lv["workloadClasses"][k]["averageTimeToAdmissionMs"] for k in sml]
    row("large-scale, real time: time to admission s/m/l", lr,
        waits("averageTimeToAdmissionMs", sml), secs, "700 s / 256 s / 106 s",
        "<= 3x " + (secs(lvw) if lvw else "the virtual run's"),
        lvw and (lambda v: all(a <= 3 * b for a, b in zip(v, lvw))))
    row("large-scale, real time: server peak RSS", lr, lambda r: r["engine"]["peakRssBytes"],
        lambda v: "%d MiB" % (v >> 20), "", "<= 300 MB", lambda v: v <= 300e6)

    def deep(r):
        cpu = r["workloadClasses"]["cpu"]
        if cpu["admitted"] < cpu["count"]:
            raise NotReached("%d of %d cpu workloads admitted" % (cpu["admitted"], cpu["count"]))
        return cpu["lastAdmissionAtMs"] - r["lastCreationAtMs"]

    def deep_fmt(v):
        return "%d ms" % v

    row("(a) deep backlog, virtual: last creation to every cpu workload admitted", dv, deep,
        deep_fmt, "", "<= 1 s", lambda v: v <= 1000)
    row("(a) the same, real time (first 60 s)", dr, deep, deep_fmt, "", "<= 1 s",
        lambda v: v <= 1000)
    row("(a) real time: Workload updates per admitted / never admitted workload", dr,
        by_admission, by_admission_fmt)

    def per_minute(r):
        return r["admissions"] * 60000.0 / r["wallMs"]

    g8 = ("small", "medium", "large")
    row("(b) #14477-shaped GPU cluster, virtual: admissions per minute", gv, per_minute,
        lambda v: "%.0f" % v, "about 10 (a real cluster)")
    row("(b) the same, real time: wall", gr, wall, sec)
    row("(b) the same, real time: admissions per minute", gr, per_minute, lambda v: "%.0f" % v,
        "about 10 (a real cluster)")
    row("(b) real time: p50 wait, 8/32/64 GPUs", gr, waits("p50TimeToAdmissionMs", g8), secs)
    row("(b) real time: p99 wait, 8/32/64 GPUs", gr, waits("p99TimeToAdmissionMs", g8), secs)
    row("(b) virtual: p50 / p99 wait, 8/32/64 GPUs", gv,
        lambda r: [(r["workloadClasses"][k]["p50TimeToAdmissionMs"],
                    r["workloadClasses"][k]["p99TimeToAdmissionMs"]) for k in g8],
        lambda v: ", ".join("%s / %s" % (sec(a), sec(b)) for a, b in v))

    def preempting(text):
        m = re.search(r"stream of \d+ preemptors:\s*(\d+)", text)
        return int(m.group(1))

    row("(c) preempting admissions per CPU second, 25,000 admitted", pre, preempting,
        lambda v: "%s /s" % format(v, ","), "", ">= 50,000 /s", lambda v: v >= 50000)
    row("50,000 pending Workloads and their Jobs: RSS", pend, lambda r: r["rssBytes"],
        lambda v: "%d MiB" % (v >> 20), "", "<= 200 MB", lambda v: v <= 200e6)
    row("restart on that store: caches synced", pend, lambda r: r["startupMs"], sec, "",
        "<= 2 s", lambda v: v <= 2000)
    row("1,000 watches: RSS beyond that", pend, lambda r: r["watchesRssBytes"],
        lambda v: "%d MiB" % (v >> 20), "", "<= 100 MB", lambda v: v <= 100e6)

    head = ("target", "cueue (this run)", "Kueue", "limit", "met")
    w = [max(len(r[i]) for r in rows + [head]) for i in range(5)]
    for r in [head, tuple("-" * n for n in w)] + rows:
        print("  ".join(r[i].ljust(w[i]) for i in range(5)).rstrip())


if __name__ == "__main__":
    main()
