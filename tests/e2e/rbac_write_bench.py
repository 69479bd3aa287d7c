#!/usr/bin/python3
"""rbac_write_bench.py -- what a tenant's RoleBinding writes cost (not run by ctest).

usage: /usr/bin/python3 tests/e2e/rbac_write_bench.py <cueue binary> [stored] [writes]

Starts `cueue serve` on an empty data dir (loopback HTTP), stores `stored`
RoleBindings (6000) in a tenant's namespace, then as that tenant (bound to
`admin` there) times `writes` (200) RoleBinding updates one after another,
and times another tenant's GETs of a ConfigMap in a namespace of its own,
first alone and then while the first tenant writes bindings in a loop.
Prints medians and 90th percentiles. Every step is bounded.
"""
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

CUEUE = os.path.abspath(sys.argv[1])
STORED = int(sys.argv[2]) if len(sys.argv) > 2 else 6000
WRITES = int(sys.argv[3]) if len(sys.argv) > 3 else 200
RB = "/apis/rbac.authorization.k8s.io/v1/namespaces/bench/rolebindings"


def binding(name, user):
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": name, "namespace": "bench"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                        "name": "view"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User",
                          "name": user}]}


class Client:
    def __init__(self, host, port, token=None):
        self.c = http.client.HTTPConnection(host, port, timeout=120)
        self.h = {"Content-Type": "application/json"}
        if token:
            self.h["Authorization"] = "Bearer " + token

    def req(self, method, path, body=None, want=(200, 201)):
        data = json.dumps(body) if body is not None else None
        t0 = time.perf_counter()
        self.c.request(method, path, body=data, headers=self.h)
        r = self.c.getresponse()
        out = r.read()
        dt = time.perf_counter() - t0
        if r.status not in want:
            raise SystemExit("%s %s: %d %s" % (method, path, r.status, out[:300]))
        return dt, out


def ms(v):
    return "%.2f ms" % (v * 1000)


def summary(label, v):
    v = sorted(v)
    print("%s: median %s, p90 %s, max %s (%d requests)"
          % (label, ms(statistics.median(v)), ms(v[int(len(v) * 0.9)]), ms(v[-1]), len(v)))


def token(data, user, ns, role):
    out = subprocess.run([CUEUE, "token", "create", "--namespace", ns, "--role", role, "--user",
                          user, "--data-dir", data], capture_output=True, text=True, timeout=60,
                         check=True).stdout
    return [ln.split(":", 1)[1].strip() for ln in out.splitlines()
            if ln.strip().startswith("token:")][0]


def main():
    tmp = tempfile.mkdtemp(prefix="cueue-rbac-bench.")
    data = os.path.join(tmp, "data")
    srv = subprocess.Popen([CUEUE, "serve", "--insecure-http", "--listen", "127.0.0.1:0",
                            "--data-dir", data, "--controllers", "none", "--executor", "none"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if os.path.exists(os.path.join(data, "kubeconfig")):
                break
            time.sleep(0.1)
        url = open(os.path.join(data, "endpoint")).read().strip()
        host, port = url.split("//", 1)[1].rsplit(":", 1)
        admin = Client(host, int(port))
        for ns in ("bench", "other"):
            admin.req("POST", "/api/v1/namespaces",
                      {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        admin.req("POST", "/api/v1/namespaces/other/configmaps",
                  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
                   "data": {"k": "v"}})
        bob = Client(host, int(port), token(data, "bob", "bench", "admin"))
        carol = Client(host, int(port), token(data, "carol", "other", "view"))
        t0 = time.time()
        for i in range(STORED):
            admin.req("POST", RB, binding("rb-%d" % i, "u%d" % i))
        print("stored %d RoleBindings in %.1f s" % (STORED, time.time() - t0))
        get = "/api/v1/namespaces/other/configmaps/cm"
        summary("carol's GET, no writes", [carol.req("GET", get)[0] for _ in range(WRITES)])
        # bob's writes: an update of one binding, alternating its subject.
        summary("bob's RoleBinding update",
                [bob.req("PUT", RB + "/rb-0", binding("rb-0", "w%d" % i))[0]
                 for i in range(WRITES)])
        stop = threading.Event()
        writes = []

        def loop():
            w = Client(host, int(port), bob.h["Authorization"][7:])
            i = 0
            while not stop.is_set() and i < 100 * WRITES:
                i += 1
                writes.append(w.req("PUT", RB + "/rb-1", binding("rb-1", "x%d" % i))[0])

        th = threading.Thread(target=loop)
        th.start()
        time.sleep(0.5)
        lat = []
        for _ in range(WRITES):
            lat.append(carol.req("GET", get)[0])
            time.sleep(0.005)
        stop.set()
        th.join(300)
        summary("carol's GET, during bob's binding loop", lat)
        summary("bob's RoleBinding update in the loop", writes)
    finally:
        srv.terminate()
        srv.wait(60)
        shutil.rmtree(tmp, ignore_errors=True)


main()
