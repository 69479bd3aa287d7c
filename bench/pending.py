#!/usr/bin/python3
"""Memory and start-up of `cueue serve` holding many pending Workloads.

usage: bench/pending.py CUEUE [N] [--settle SECONDS] [--keep DIR | --from DIR] [--watches W]
                        [--visibility]

Starts CUEUE serve (plain HTTP, no executor) in a temporary data
directory, creates a ResourceFlavor, a ClusterQueue without quota, a
LocalQueue and one suspended Job in it, and waits for the Job's Workload
to be pending. The server is stopped; the Job and its Workload are then
copied N-1 times in the store's database (new names and uids, the
Workload owned by its Job, each a new resourceVersion), which is much
faster than N creations through the API and gives the same documents.
The server starts on that store, writes what its controllers decide
(each copy holds the template's pending verdict, which its first cycle
keeps for the copies it skips as equivalent: nothing of theirs is
written), and is stopped again after SECONDS. Then
it restarts on that settled store: the report (JSON, on stdout) is
the time from its start to the controllers' caches synced ("startupMs",
their log line; the first cycle follows in the same round), the server's
user + system CPU by then ("startupCpuSeconds", read as the line is seen,
within 20 ms of it), the 1-minute load average then ("loadAverage"), and its resident set after
SECONDS (default 20) of settling ("rssBytes", "peakRssBytes"), and, once
it is stopped, how many Workloads the restart wrote (their
resourceVersions in the store before and after: "workloadsWritten"). With
--keep the data directory is DIR (new) and is kept: DIR/store is a store
to start `cueue serve --data-dir` on again, DIR/serve.log the log.
With --from DIR (a directory --keep made) only the restart is measured,
on a copy of DIR/store (N is then what DIR holds).

With --watches W, W watch connections are then opened (half on the
namespace's Workloads, half on its Jobs, from the current version, with
bookmarks, as `kubectl get -w` watches; from 127.0.0.2 and on, 500 a
source address, below the server's limit per client), one more Job is created so that
every watch carries its events, and after SECONDS/2 the resident set is
read again: "watches", "watchRssBytes" and "watchExtraBytes" (the
difference with "rssBytes").

With --visibility, the visibility API is then asked for the ClusterQueue's
pending workloads (its first 1,000, which builds the snapshot of all N;
asked again each second while the answer is empty) and for the
LocalQueue's, and after SECONDS/2 the resident set is read
again: "visibilityItems" (items of the first answer), "visibilityMs" (its
time), "visibilityRssBytes" and "visibilityExtraBytes" (the difference
with the resident set before the requests).
"""
import hashlib
import json
import os
import re
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

import yaml

JOBS = "jobs.batch"
WORKLOADS = "workloads.kueue.x-k8s.io"
NS = "bench"
TEMPLATE = "pendingjob000000"  # the first Job; its copies have names of the same length


def start(cueue, data):
    kc = os.path.join(data, "kubeconfig")
    log = open(os.path.join(data, "serve.log"), "ab")
    t0 = time.monotonic()
    p = subprocess.Popen(
        [cueue, "serve", "--listen", "127.0.0.1:0", "--data-dir", os.path.join(data, "store"),
         "--kubeconfig-out", kc, "--insecure-http", "--executor", "none"],
        stdout=log, stderr=subprocess.STDOUT)
    return p, t0, kc


def wait_for_log(data, pattern, since, timeout):
    deadline = time.monotonic() + timeout
    path = os.path.join(data, "serve.log")
    while time.monotonic() < deadline:
        with open(path, "rb") as f:
            f.seek(since)
            m = re.search(pattern, f.read().decode(errors="replace"))
        if m:
            return m
        time.sleep(0.02)
    sys.exit("pending.py: the server did not log %r in %d s" % (pattern, timeout))


def api(kc):
    with open(kc) as f:
        cfg = yaml.safe_load(f)
    url = cfg["clusters"][0]["cluster"]["server"]
    token = cfg["users"][0]["user"]["token"]

    def call(method, path, body=None):
        req = urllib.request.Request(url + path, method=method,
                                     data=json.dumps(body).encode() if body else None,
                                     headers={"Authorization": "Bearer " + token,
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req) as r:
            return json.load(r)

    return call


def open_watches(kc, w):
    """w watch connections, half on Workloads and half on Jobs (sockets)."""
    with open(kc) as f:
        cfg = yaml.safe_load(f)
    url = cfg["clusters"][0]["cluster"]["server"]
    token = cfg["users"][0]["user"]["token"]
    host, port = url.split("//")[1].split(":")
    call = api(kc)
    paths = ["/apis/kueue.x-k8s.io/v1beta2/namespaces/%s/workloads" % NS,
             "/apis/batch/v1/namespaces/%s/jobs" % NS]
    rvs = [call("GET", p + "?limit=1")["metadata"]["resourceVersion"] for p in paths]
    socks = []
    for i in range(w):
        s = socket.create_connection((host, int(port)),
                                     source_address=("127.0.0.%d" % (2 + i // 500), 0))
        s.sendall(("GET %s?watch=true&allowWatchBookmarks=true&resourceVersion=%s HTTP/1.1\r\n"
                   "Host: %s\r\nAuthorization: Bearer %s\r\n\r\n"
                   % (paths[i % 2], rvs[i % 2], host, token)).encode())
        s.setblocking(False)
        socks.append(s)
    return socks


def drain(socks, seconds):
    """Read whatever the watches send for this long; the bytes read."""
    total, deadline = 0, time.monotonic() + seconds
    poller, by_fd = select.poll(), {}
    for s in socks:
        poller.register(s, select.POLLIN)
        by_fd[s.fileno()] = s
    while time.monotonic() < deadline:
        for fd, _ in poller.poll(100):
            try:
                total += len(by_fd[fd].recv(65536))
            except BlockingIOError:
                pass
    return total


def job(name):
    return {"metadata": {"name": name, "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
            "spec": {"suspend": True, "template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox", "command": ["true"],
                                "resources": {"requests": {"cpu": "1"}}}]}}}}


def stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(120)
    except subprocess.TimeoutExpired:
        print("pending.py: the server did not stop in 120 s after SIGTERM; killed",
              file=sys.stderr)
        p.kill()
        p.wait()


def setup(cueue, data):
    p, _, kc = start(cueue, data)
    wait_for_log(data, r"caches synced", 0, 60)
    call = api(kc)
    k = "/apis/kueue.x-k8s.io/v1beta2"
    call("POST", "/api/v1/namespaces", {"metadata": {"name": NS}})
    call("POST", k + "/resourceflavors", {"metadata": {"name": "default"}})
    call("POST", k + "/clusterqueues", {
        "metadata": {"name": "cq"},
        "spec": {"namespaceSelector": {}, "resourceGroups": [{
            "coveredResources": ["cpu"],
            "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": "0"}]}]}]}})
    call("POST", k + "/namespaces/%s/localqueues" % NS,
         {"metadata": {"name": "lq"}, "spec": {"clusterQueue": "cq"}})
    call("POST", "/apis/batch/v1/namespaces/%s/jobs" % NS, job(TEMPLATE))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        items = call("GET", k + "/namespaces/%s/workloads" % NS)["items"]
        conds = [c for w in items for c in w.get("status", {}).get("conditions", [])
                 if c["type"] == "QuotaReserved" and c["status"] == "False"]
        if conds:
            break
        time.sleep(0.1)
    else:
        sys.exit("pending.py: the Job's Workload did not become pending")
    stop(p)


# An object's document: its row holds '' while the watch log's row of its
# version holds the text (the store's STORE_OBJ_DOC); a copy written here
# carries its text in its own row, as a compacted object does.
DOC = ("CASE objects.doc WHEN '' THEN "
       "IFNULL((SELECT events.doc FROM events WHERE events.rv = objects.rv), '') "
       "ELSE objects.doc END")


def copy_rows(db, n):
    con = sqlite3.connect(db)
    job_uid, job_doc = con.execute(
        "SELECT uid, %s FROM objects WHERE res=? AND ns=? AND name=?" % DOC,
        (JOBS, NS, TEMPLATE)).fetchone()
    wl_name, wl_uid, wl_doc = con.execute(
        "SELECT name, uid, %s FROM objects WHERE res=? AND ns=?" % DOC, (WORKLOADS, NS)).fetchone()
    rv = con.execute("SELECT v FROM meta WHERE k='rv'").fetchone()[0]
    rows, owners = [], []
    for i in range(1, n):
        name = "pendingjob%06d" % i
        juid, wuid = str(uuid.uuid4()), str(uuid.uuid4())

        # The job integration names a Job's Workload after the Job's name and uid.
        digest = hashlib.sha1(("Job\nbatch\n%s\n%s" % (name, juid)).encode()).hexdigest()
        new_wl = "job-%s-%s" % (name, digest[:5])

        def renamed(text):
            text = text.replace(wl_name, new_wl)
            return text.replace(TEMPLATE, name).replace(job_uid, juid).replace(wl_uid, wuid)

        for res, uid, text in ((JOBS, juid, job_doc), (WORKLOADS, wuid, wl_doc)):
            rv += 1
            doc = json.loads(renamed(text))
            doc["metadata"]["resourceVersion"] = str(rv)
            rows.append((res, NS, doc["metadata"]["name"], uid, rv,
                         json.dumps(doc, separators=(",", ":"))))
        owners.append((juid, WORKLOADS, NS, new_wl))
    con.executemany("INSERT INTO objects(res, ns, name, uid, rv, doc) VALUES(?,?,?,?,?,?)", rows)
    con.executemany("INSERT OR IGNORE INTO owners(owner_uid, res, ns, name) VALUES(?,?,?,?)", owners)
    con.execute("UPDATE meta SET v=? WHERE k='rv'", (rv,))
    con.commit()
    con.close()


def status_bytes(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return -1


def cpu_seconds(pid):
    """User + system CPU of process pid so far."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 2)


def main():
    args = sys.argv[1:]
    opts = {"--settle": "20", "--keep": None, "--from": None, "--watches": "0"}
    visibility = "--visibility" in args
    if visibility:
        args.remove("--visibility")
    for k in opts:
        if k in args:
            i = args.index(k)
            opts[k] = args[i + 1]
            del args[i:i + 2]
    settle = float(opts["--settle"])
    if not args:
        sys.exit(__doc__)
    cueue, n = os.path.abspath(args[0]), int(args[1]) if len(args) > 1 else 50000
    if opts["--keep"]:
        os.makedirs(opts["--keep"])
        run(cueue, n, settle, opts["--keep"], int(opts["--watches"]), None, visibility)
    else:
        with tempfile.TemporaryDirectory(prefix="cueue-pending.") as data:
            run(cueue, n, settle, data, int(opts["--watches"]), opts["--from"], visibility)


def run(cueue, n, settle, data, watches, source, visibility):
    if source:
        shutil.copytree(os.path.join(source, "store"), os.path.join(data, "store"))
        open(os.path.join(data, "serve.log"), "w").close()
        restart(cueue, settle, data, watches, visibility)
        return
    setup(cueue, data)
    db = [os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(data, "store"))
          for f in fs if f.endswith(".db")][0]
    copy_rows(db, n)
    # A first start writes what the controllers decide for the copies; the
    # restart measured is on a settled store.
    since = os.path.getsize(os.path.join(data, "serve.log"))
    p, _, _ = start(cueue, data)
    wait_for_log(data, r"caches synced", since, 600)
    time.sleep(settle)
    stop(p)
    restart(cueue, settle, data, watches, visibility)


def workload_versions(data):
    db = [os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(data, "store"))
          for f in fs if f.endswith(".db")][0]
    con = sqlite3.connect(db)
    rvs = dict(con.execute("SELECT name, rv FROM objects WHERE res=?", (WORKLOADS,)))
    con.close()
    return rvs


def restart(cueue, settle, data, watches, visibility):
    before = workload_versions(data)
    since = os.path.getsize(os.path.join(data, "serve.log"))
    p, t0, kc = start(cueue, data)
    m = wait_for_log(data, r"caches synced, (\d+) workloads, (\d+) jobs", since, 600)
    startup_ms = (time.monotonic() - t0) * 1000
    startup_cpu = cpu_seconds(p.pid)
    load = open("/proc/loadavg").read().split()[0]
    time.sleep(settle)
    report = {"workloads": int(m.group(1)), "jobs": int(m.group(2)),
              "startupMs": round(startup_ms), "startupCpuSeconds": startup_cpu,
              "loadAverage": float(load), "settleSeconds": settle,
              "rssBytes": status_bytes(p.pid, "VmRSS"),
              "peakRssBytes": status_bytes(p.pid, "VmHWM")}
    if watches:
        socks = open_watches(kc, watches)
        drain(socks, 2)
        api(kc)("POST", "/apis/batch/v1/namespaces/%s/jobs" % NS, job("watchedjob"))
        got = drain(socks, settle / 2)
        rss = status_bytes(p.pid, "VmRSS")
        report.update({"watches": watches, "watchBytesRead": got, "watchRssBytes": rss,
                       "watchExtraBytes": rss - report["rssBytes"]})
        for s in socks:
            s.close()
    if visibility:
        before = status_bytes(p.pid, "VmRSS")
        call = api(kc)
        v = "/apis/visibility.kueue.x-k8s.io/v1beta2"
        t = time.monotonic()
        items = call("GET", v + "/clusterqueues/cq/pendingworkloads")["items"]
        ms = (time.monotonic() - t) * 1000
        for _ in range(20):
            # A request waits 2 s at most for the snapshot: a loaded machine
            # may answer from none yet.
            if items:
                break
            time.sleep(1)
            items = call("GET", v + "/clusterqueues/cq/pendingworkloads")["items"]
        call("GET", v + "/namespaces/%s/localqueues/lq/pendingworkloads" % NS)
        time.sleep(settle / 2)
        rss = status_bytes(p.pid, "VmRSS")
        report.update({"visibilityItems": len(items), "visibilityMs": round(ms),
                       "visibilityRssBytes": rss, "visibilityExtraBytes": rss - before})
    stop(p)
    after = workload_versions(data)
    report["workloadsWritten"] = sum(1 for k, rv in after.items() if before.get(k) != rv)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
