#!/usr/bin/python3
"""One table of issue 15's targets: ours (from the reports `make bench`
wrote into DIR), Kueue's (its own scalability test, bench/README.md) and
the limit, side by side.

usage: bench/table.py DIR

DIR holds what `make bench` wrote: baseline.virtual.json,
baseline.realtime.json, large-scale.virtual.json, deep-backlog.virtual.json,
gpu-cohort.virtual.json (`cueue bench -o json`), preemption.txt (`cueue bench --micro
--preemption`) and pending.json (bench/pending.py). A report that is
missing shows as "not run".
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


def sec(ms):
    return "%.1f s" % (ms / 1000.0)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    bv, br = load(d, "baseline.virtual.json"), load(d, "baseline.realtime.json")
    lv, dv = load(d, "large-scale.virtual.json"), load(d, "deep-backlog.virtual.json")
    gv = load(d, "gpu-cohort.virtual.json")
    pre, pend = load(d, "preemption.txt"), load(d, "pending.json")
    rows = []

    def row(target, ours, kueue, limit):
        rows.append((target, ours, kueue, limit))

    def run(rep, f):
        return f(rep) if rep else "not run"

    def usage(rep):
        return "%.1f %%" % rep["clusterQueueClasses"]["cq"]["usagePercent"]

    def waits(rep):
        c = rep["workloadClasses"]
        return " / ".join(sec(c[k]["averageTimeToAdmissionMs"]) for k in ("small", "medium", "large"))

    row("baseline, virtual: wall", run(bv, lambda r: sec(r["wallMs"])), "351 s", "")
    row("baseline, virtual: CQ usage", run(bv, usage), "55.9 %", ">= 85 %")
    row("baseline, real time: wall", run(br, lambda r: sec(r["wallMs"])), "351 s", "<= 80 s")
    row("baseline, real time: CQ usage", run(br, usage), "55.9 %", ">= 94 %")
    row("baseline, real time: time to admission s/m/l", run(br, waits),
        "215 s / 77 s / 16.5 s", "")
    row("baseline, real time: server CPU per workload",
        run(br, lambda r: "%.2f ms" % (1000.0 * r["engine"]["cpuSeconds"] / r["workloads"])), "",
        "<= 1 ms")
    row("baseline, real time: Workload updates per workload (while pending)",
        run(br, lambda r: "%.2f (%.2f)" % (r["apiWrites"]["perWorkload"],
                                           r["apiWrites"]["whilePendingPerWorkload"])), "",
        "1 per change of the pending reason")
    row("baseline, real time: server peak RSS",
        run(br, lambda r: "%d MiB" % (r["engine"]["peakRssBytes"] >> 20)), "", "")
    row("large-scale, virtual: wall", run(lv, lambda r: sec(r["wallMs"])), "1,179 s", "")
    row("large-scale, virtual: CQ usage", run(lv, usage), "38.6 %", "")
    row("large-scale, virtual: time to admission s/m/l", run(lv, waits), "700 s / 256 s / 106 s",
        "")
    row("large-scale, virtual: engine CPU", run(lv, lambda r: "%.2f s" % r["engine"]["cpuSeconds"]),
        "", "< 2 s")
    row("large-scale, real time: wall / peak RSS", "not run by make bench", "1,179 s",
        "<= 15 s / <= 300 MB")

    def deep(r):
        last = r["workloadClasses"]["cpu"]["lastAdmissionAtMs"]
        return "%d ms" % (last - r["lastCreationAtMs"]) if last >= 0 else "not admitted"

    row("(a) deep backlog, virtual: last creation to every cpu workload admitted", run(dv, deep),
        "", "<= 1 s")
    row("(b) #14477-shaped GPU cluster, virtual: admissions per minute",
        run(gv, lambda r: "%.0f" % (r["admissions"] * 60000.0 / r["wallMs"])), "about 10 (a real cluster)", "")
    row("(b) the same: time to admission s/m/l", run(gv, waits), "", "")

    def preempting(text):
        m = re.search(r"stream of \d+ preemptors:\s*(\d+)", text)
        return "%s /s" % format(int(m.group(1)), ",") if m else "not found"

    row("(c) preempting admissions per CPU second, 25,000 admitted", run(pre, preempting),
        "", ">= 50,000 /s")
    row("50,000 pending Workloads and their Jobs: RSS",
        run(pend, lambda r: "%d MiB" % (r["rssBytes"] >> 20)), "", "<= 200 MB")
    row("restart on that store: caches synced", run(pend, lambda r: sec(r["startupMs"])), "",
        "<= 2 s")
    row("1,000 watches: RSS beyond that", "not measured", "", "<= 100 MB")

    head = ("target", "cueue (this run)", "Kueue", "limit")
    w = [max(len(r[i]) for r in rows + [head]) for i in range(4)]
    for r in [head, tuple("-" * n for n in w)] + rows:
        print("  ".join(r[i].ljust(w[i]) for i in range(4)).rstrip())


if __name__ == "__main__":
    main()
