"""bench.py -- load figures for cueue serve over loopback HTTP (not run by ctest).

usage: python3 bench.py URL SERVER_PID [N_OBJECTS] [N_WATCHERS]
       python3 bench.py URL SERVER_PID N_OBJECTS N_WATCHERS crd

Measures creates/s with 1 and 16 clients (persistent HTTP/1.1 connections,
one thread each), list latency with N objects (JSON, Table, paged), watch
fan-out (N_WATCHERS streams, time until every stream saw every event), and
the server's RSS. The client is Python: with 16 threads it can itself be the
limit, so the 16-client figure is a lower bound for the server.

With "crd", it compares a kind served from a CustomResourceDefinition (a
schema with types, bounds, a default and a CEL rule) with a built-in kind
(ConfigMaps) holding objects of the same size: creates/s, list latency and
watch fan-out of each, and the ratio.
"""
import http.client
import json
import socket
import sys
import threading
import time
import urllib.parse

URL = sys.argv[1]
PID = int(sys.argv[2])
N = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
W = int(sys.argv[4]) if len(sys.argv) > 4 else 50
u = urllib.parse.urlparse(URL)
HOST, PORT = u.hostname, u.port
G = "/apis/kueue.x-k8s.io/v1beta2"
NS = "bench"


def conn():
    return http.client.HTTPConnection(HOST, PORT, timeout=60)


def req(c, method, path, body=None, headers=None):
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=h)
    r = c.getresponse()
    data = r.read()
    return r.status, data


def rss_kib():
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def wl(name):
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "labels": {"bench": "yes"}},
            "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1, "template": {
                "spec": {"containers": [{"name": "c", "image": "busybox",
                                         "resources": {"requests": {"cpu": "1"}}}]}}}]}}


def creates(clients, total, prefix):
    per = total // clients
    errors = []

    def run(k):
        c = conn()
        for i in range(per):
            st, data = req(c, "POST", f"{G}/namespaces/{NS}/workloads", wl(f"{prefix}-{k}-{i}"))
            if st != 201:
                errors.append((st, data[:200]))
        c.close()
    ts = [threading.Thread(target=run, args=(k,)) for k in range(clients)]
    t0 = time.monotonic()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    dt = time.monotonic() - t0
    return per * clients / dt, errors


def main():
    c = conn()
    req(c, "POST", "/api/v1/namespaces", {"metadata": {"name": NS}})
    print(f"rss at start: {rss_kib()} KiB")

    for clients, total in ((1, 2000), (16, 8000)):
        rate, errs = creates(clients, total, f"c{clients}")
        print(f"creates/s with {clients:2d} client(s): {rate:8.0f}  ({total} creates, "
              f"{len(errs)} errors)")

    have = 10000
    if N > have:
        rate, _ = creates(16, N - have, "fill")
    st, data = req(c, "GET", f"{G}/namespaces/{NS}/workloads?limit=1")
    print(f"objects: {N}, rss: {rss_kib()} KiB")

    for label, path, hdr in (
            ("list all (JSON)", f"{G}/namespaces/{NS}/workloads", {}),
            ("list limit=500 (JSON)", f"{G}/namespaces/{NS}/workloads?limit=500", {}),
            ("list limit=500 (Table)", f"{G}/namespaces/{NS}/workloads?limit=500",
             {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}),
            ("list by labelSelector, all", f"{G}/workloads?labelSelector=bench%3Dyes", {}),
            ("list fieldSelector name=", f"{G}/namespaces/{NS}/workloads?fieldSelector="
             f"metadata.name%3Dc1-0-5", {})):
        times = []
        for _ in range(5):
            t0 = time.monotonic()
            st, data = req(c, "GET", path, headers=hdr)
            times.append(time.monotonic() - t0)
        assert st == 200, (st, data[:200])
        times.sort()
        print(f"{label:28s} median {times[2]*1000:8.1f} ms  ({len(data)/1e6:.1f} MB)")

    # Watch fan-out: W raw streams from now, then 200 creates.
    st, data = req(c, "GET", f"{G}/namespaces/{NS}/workloads?limit=1")
    rv = json.loads(data)["metadata"]["resourceVersion"]
    K = 200
    done = []
    lock = threading.Lock()

    def watcher():
        s = socket.create_connection((HOST, PORT), timeout=60)
        s.sendall(f"GET {G}/namespaces/{NS}/workloads?watch=true&resourceVersion={rv}"
                  f"&timeoutSeconds=60 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        # Count as the bytes arrive (keeping a marker's length less one of the
        # previous piece, for a marker split across reads): rescanning all that
        # was received costs O(bytes^2) under the GIL, and with the controllers
        # on each stream also carries thousands of MODIFIED events (status
        # writes for the workloads created above), so the client, not the
        # server, became the limit and starved the writing thread.
        mark = b'"type":"ADDED"'
        seen, tail = 0, b""
        while seen < K:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            seg = tail + chunk
            seen += seg.count(mark)
            tail = seg[-(len(mark) - 1):]
        with lock:
            done.append(time.monotonic())
        s.close()
    ws = [threading.Thread(target=watcher) for _ in range(W)]
    for t in ws:
        t.start()
    time.sleep(1)
    t0 = time.monotonic()
    for i in range(K):
        req(c, "POST", f"{G}/namespaces/{NS}/workloads", wl(f"w-{i}"))
    t1 = time.monotonic()
    for t in ws:
        t.join()
    print(f"watch fan-out: {W} watchers x {K} events: writes took {(t1-t0)*1000:.0f} ms, "
          f"last watcher done {(max(done)-t0)*1000:.0f} ms after the first write "
          f"({len(done)} of {W} complete)")
    print(f"rss at end: {rss_kib()} KiB")


# ---- a CRD kind against a built-in kind ---------------------------------------------

WIDGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.bench.example.com"},
    "spec": {"group": "bench.example.com", "scope": "Namespaced",
             "names": {"kind": "Widget", "plural": "widgets"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "properties": {
                                   "size": {"type": "integer", "minimum": 0, "default": 1},
                                   "owner": {"type": "string", "maxLength": 63},
                                   "data": {"type": "object",
                                            "additionalProperties": {"type": "string"}}},
                                   "x-kubernetes-validations": [
                                       {"rule": "self.size <= 1000", "message": "too big"}]}}}}}]}}


def payload():
    return {f"k{i}": "v" * 40 for i in range(8)}


def widget(name):
    return {"apiVersion": "bench.example.com/v1", "kind": "Widget",
            "metadata": {"name": name, "labels": {"bench": "yes"}},
            "spec": {"size": 3, "owner": "team-a", "data": payload()}}


def configmap(name):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": {"bench": "yes"}}, "data": payload()}


def create_rate(base, make, n, prefix):
    """creates/s of n objects from 16 clients."""
    errors = []
    per = n // 16

    def run(k):
        c = conn()
        for i in range(per):
            st, data = req(c, "POST", base, make(f"{prefix}-{k}-{i}"))
            if st != 201:
                errors.append((st, data[:200]))
        c.close()
    ts = [threading.Thread(target=run, args=(k,)) for k in range(16)]
    t0 = time.monotonic()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors[:3]
    return per * 16 / (time.monotonic() - t0)


def list_ms(base):
    c = conn()
    t0 = time.monotonic()
    st, data = req(c, "GET", base)
    assert st == 200, (st, data[:200])
    return (time.monotonic() - t0) * 1000


def watch_ms(base, make, w, prefix, k_events=200):
    """Time from the first of k_events creates until all w watchers saw them."""
    c = conn()
    st, data = req(c, "GET", base + "?limit=1")
    rv = json.loads(data)["metadata"]["resourceVersion"]
    done = []
    lock = threading.Lock()

    def watcher():
        s = socket.create_connection((HOST, PORT), timeout=60)
        s.sendall(f"GET {base}?watch=true&resourceVersion={rv}&timeoutSeconds=60 "
                  f"HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        mark = b'"type":"ADDED"'
        seen, tail = 0, b""
        while seen < k_events:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            seg = tail + chunk
            seen += seg.count(mark)
            tail = seg[-(len(mark) - 1):]
        with lock:
            done.append(time.monotonic())
        s.close()
    ws = [threading.Thread(target=watcher) for _ in range(w)]
    for t in ws:
        t.start()
    time.sleep(1)
    t0 = time.monotonic()
    for i in range(k_events):
        req(c, "POST", base, make(f"{prefix}-{i}"))
    for t in ws:
        t.join()
    return (max(done) - t0) * 1000


def crd_main():
    """Rounds alternate which kind goes first (the store grows as it goes,
    and the machine's load varies), and each figure is the best of its
    rounds: what the server can do, not what the neighbours left it."""
    c = conn()
    req(c, "POST", "/api/v1/namespaces", {"metadata": {"name": NS}})
    st, data = req(c, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                   WIDGET_CRD)
    assert st == 201, (st, data[:300])
    kinds = {"ConfigMap": (f"/api/v1/namespaces/{NS}/configmaps", configmap),
             "Widget (CRD)": (f"/apis/bench.example.com/v1/namespaces/{NS}/widgets", widget)}
    rounds = 4
    best = {k: [0.0, float("inf"), float("inf")] for k in kinds}
    for r in range(rounds):
        order = list(kinds) if r % 2 == 0 else list(reversed(list(kinds)))
        for k in order:
            base, make = kinds[k]
            best[k][0] = max(best[k][0], create_rate(base, make, N // rounds, f"r{r}"))
    for r in range(5):
        for k in (list(kinds) if r % 2 == 0 else list(reversed(list(kinds)))):
            best[k][1] = min(best[k][1], list_ms(kinds[k][0]))
    for r in range(3):
        for k in (list(kinds) if r % 2 == 0 else list(reversed(list(kinds)))):
            base, make = kinds[k]
            best[k][2] = min(best[k][2], watch_ms(base, make, W, f"w{r}"))
    b, cr = best["ConfigMap"], best["Widget (CRD)"]
    print(f"objects: {N} of each kind (16 clients), {W} watchers x 200 events; best of "
          f"{rounds}, 5 and 3 alternating rounds")
    for label, i, better in (("creates/s", 0, "higher"), ("list all, ms", 1, "lower"),
                             ("watch fan-out, ms", 2, "lower")):
        print(f"{label:18s} ConfigMap {b[i]:8.1f}   Widget (CRD) {cr[i]:8.1f}   "
              f"CRD/built-in {cr[i] / b[i]:5.2f} ({better} is better)")
    print(f"rss at end: {rss_kib()} KiB")


if len(sys.argv) > 5 and sys.argv[5] == "crd":
    crd_main()
else:
    main()
