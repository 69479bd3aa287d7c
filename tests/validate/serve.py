"""serve.py -- the cases of tests/validate against `cueue serve`: the API
server must refuse exactly what `cueue validate` refuses, with the same
field paths, on create and on update.

usage: python3 serve.py CUEUE_BINARY CASES_DIR

For each case (NAME.yaml, with NAME.old.yaml and NAME.args when present) a
server is started with the case's arguments (feature gates). The --old
documents are stored first: created, their status written through the
status subresource, a Job that runs set running. Then each document of
NAME.yaml is written as kubectl apply would: created when it has no --old
namesake, else patched with the change from its --old document (then its
status written through the status subresource when it changed). `cueue validate` judges the whole object at once,
the server in those steps; the verdict (refused or not) and the set of
field paths must agree. Documents the server cannot take in one create
(a status on create, kinds it does not serve) are skipped, and so are
updates of old documents no API server would have stored. Prints one
"ok NAME/...", "skip NAME/..." or "FAIL NAME/..." line per document.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import yaml

PLURALS = {
    "ClusterQueue": ("/apis/kueue.x-k8s.io/v1beta2", "clusterqueues", False),
    "Cohort": ("/apis/kueue.x-k8s.io/v1beta2", "cohorts", False),
    "LocalQueue": ("/apis/kueue.x-k8s.io/v1beta2", "localqueues", True),
    "ResourceFlavor": ("/apis/kueue.x-k8s.io/v1beta2", "resourceflavors", False),
    "Workload": ("/apis/kueue.x-k8s.io/v1beta2", "workloads", True),
    "AdmissionCheck": ("/apis/kueue.x-k8s.io/v1beta2", "admissionchecks", False),
    "Topology": ("/apis/kueue.x-k8s.io/v1beta2", "topologies", False),
    "WorkloadPriorityClass": ("/apis/kueue.x-k8s.io/v1beta2", "workloadpriorityclasses", False),
    "Job": ("/apis/batch/v1", "jobs", True),
}
STATUS_KINDS = {"ClusterQueue", "Cohort", "LocalQueue", "Workload", "AdmissionCheck", "Job"}


class Server:
    def __init__(self, binary, args):
        self.dir = tempfile.mkdtemp(prefix="cueue-validate-")
        cmd = [binary, "serve", "--listen", "127.0.0.1:0", "--data-dir", self.dir,
               "--controllers", "none", "--executor", "none", "--insecure-http"] + args
        self.log = open(os.path.join(self.dir, "serve.log"), "w")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        endpoint = os.path.join(self.dir, "endpoint")
        for _ in range(400):
            if os.path.exists(os.path.join(self.dir, "kubeconfig")):
                break
            if self.proc.poll() is not None:
                raise RuntimeError("server did not start: " + open(self.log.name).read())
            time.sleep(0.05)
        self.url = open(endpoint).read().strip()

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def docs(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def key(d):
    m = d.get("metadata") or {}
    return (d.get("kind"), m.get("namespace") or "", m.get("name") or "")


def paths(srv, d, name=None, status=False):
    kind = d["kind"]
    prefix, plural, namespaced = PLURALS[kind]
    ns = (d.get("metadata") or {}).get("namespace")
    base = prefix + ("/namespaces/%s" % ns if namespaced else "") + "/" + plural
    if name is None:
        return base
    return base + "/" + name + ("/status" if status else "")


def refusal(code, body):
    """The field paths of a refusal, or None when the write went through."""
    if code < 300:
        return None
    causes = ((body or {}).get("details") or {}).get("causes") or []
    return {c.get("field", "") for c in causes} or {"<%d: %s>" % (code, body.get("message"))}


def expected(binary, case_dir, name, args):
    """`cueue validate`'s verdict per document: None (valid) or field paths."""
    cmd = [binary, "validate"] + args + ["-f", os.path.join(case_dir, name + ".yaml")]
    old = os.path.join(case_dir, name + ".old.yaml")
    if os.path.exists(old):
        cmd[2:2] = ["--old", old]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    verdicts = {}
    for line in out.splitlines():
        label, _, rest = line.partition(": ")
        if rest == "valid":
            verdicts.setdefault(label, None)
            continue
        field = rest.split(": ")[0] if ": Invalid value" not in rest.split(": ", 1)[0] else ""
        if rest.startswith("Invalid value"):
            field = ""
        verdicts[label] = (verdicts.get(label) or set()) | {field}
    return verdicts


def label(d):
    kind, ns, name = key(d)
    return "/".join(x for x in (kind, ns, name) if x)


def store_old(srv, d):
    status = d.get("status")
    body = dict(d)
    body.pop("status", None)
    code, got = srv.call("POST", paths(srv, d), body)
    if code >= 300:
        return "create: %s" % got.get("message")
    name = got["metadata"]["name"]
    if d["kind"] == "Job" and not (d.get("spec") or {}).get("suspend", False) \
            and got["spec"].get("suspend"):
        got["spec"]["suspend"] = False
        code, got = srv.call("PUT", paths(srv, d, name), got)
        if code >= 300:
            return "start: %s" % got.get("message")
    if status and d["kind"] in STATUS_KINDS:
        got["status"] = status
        code, got = srv.call("PUT", paths(srv, d, name, True), got)
        if code >= 300:
            return "status: %s" % got.get("message")
    return None


def merge_diff(a, b):
    """The JSON merge patch that turns a into b (what kubectl apply sends
    when a was applied last): changed keys, null for removed ones."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return b
    patch = {}
    for k in a:
        if k not in b:
            patch[k] = None
    for k, v in b.items():
        if k not in a:
            patch[k] = v
        elif a[k] != v:
            patch[k] = merge_diff(a[k], v)
    return patch


def write(srv, d, old, stored):
    """Write d as kubectl apply would, over old (the document applied
    before) stored as `stored`; the union of refused field paths, or None."""
    if not stored:
        if d.get("status") and d["kind"] in STATUS_KINDS:
            return "skip"
        return refusal(*srv.call("POST", paths(srv, d), d))
    name = stored["metadata"]["name"]
    strip = lambda x: {k: v for k, v in x.items() if k != "status"}
    patch = merge_diff(strip(old), strip(d))
    fields = None
    if patch:
        req = urllib.request.Request(
            srv.url + paths(srv, d, name), data=json.dumps(patch).encode(), method="PATCH",
            headers={"Content-Type": "application/merge-patch+json"})
        try:
            with urllib.request.urlopen(req, timeout=30):
                pass
        except urllib.error.HTTPError as e:
            fields = refusal(e.code, json.loads(e.read() or b"{}"))
    if d.get("status") != old.get("status") and d["kind"] in STATUS_KINDS:
        code, cur = srv.call("GET", paths(srv, d, name))
        cur["status"] = d["status"]
        more = refusal(*srv.call("PUT", paths(srv, d, name, True), cur))
        if more:
            fields = (fields or set()) | more
    return fields


def run_case(binary, case_dir, name):
    args_file = os.path.join(case_dir, name + ".args")
    args = open(args_file).read().split() if os.path.exists(args_file) else []
    want = expected(binary, case_dir, name, args)
    old_file = os.path.join(case_dir, name + ".old.yaml")
    olds = docs(old_file) if os.path.exists(old_file) else []
    results = []
    srv = Server(binary, args)
    try:
        srv.call("POST", "/api/v1/namespaces",
                 {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
        stored, old_docs = {}, {}
        for d in olds:
            if d.get("kind") not in PLURALS:
                continue
            old_docs[key(d)] = d
            # An object no API server would take (a state the rules refuse
            # to enter) cannot be the old side of an update here.
            why = store_old(srv, d)
            if why:
                results.append("skip %s/%s: the old object cannot be stored: %s"
                               % (name, label(d), why))
                continue
            stored[key(d)] = srv.call("GET", paths(srv, d, d["metadata"]["name"]))[1]
        for d in docs(os.path.join(case_dir, name + ".yaml")):
            if d.get("kind") not in PLURALS or label(d) not in want:
                continue
            if key(d) in old_docs and key(d) not in stored:
                continue
            got = write(srv, d, old_docs.get(key(d)), stored.get(key(d)))
            if got == "skip":
                continue
            w = want[label(d)]
            if (got is None) != (w is None) or (got is not None and not w <= got):
                results.append("FAIL %s/%s: cueue validate: %s; cueue serve: %s"
                               % (name, label(d), sorted(w) if w else "valid",
                                  sorted(got) if got else "accepted"))
            else:
                results.append("ok   %s/%s: %s" % (name, label(d),
                                                   "refused" if w else "accepted"))
    finally:
        srv.stop()
    return results


def config_gates(binary):
    """The Configuration's featureGates are the server's gates too."""
    cfg = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    cfg.write("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
              "featureGates: {ConcurrentAdmission: true}\n")
    cfg.close()
    cq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
          "metadata": {"name": "strict"},
          "spec": {"queueingStrategy": "StrictFIFO",
                   "concurrentAdmissionPolicy": {"migration": {"mode": "TryPreferredFlavors"}}}}
    results = []
    for args, want in (([], None), (["--config", cfg.name], {"spec.resourceGroups",
                                                            "spec.queueingStrategy"})):
        srv = Server(binary, args)
        try:
            got = refusal(*srv.call("POST", paths(srv, cq), cq))
        finally:
            srv.stop()
        ok = got == want
        results.append("%s config-gates/%s: %s" % ("ok  " if ok else "FAIL",
                                                    "featureGates" if args else "defaults",
                                                    sorted(got) if got else "accepted"))
    os.unlink(cfg.name)
    return results


def main():
    binary, case_dir = sys.argv[1], sys.argv[2]
    names = sorted(f[:-5] for f in os.listdir(case_dir)
                   if f.endswith(".yaml") and not f.endswith(".old.yaml")
                   and not f.startswith(("good-", "bad-", "broken")))
    failed = 0
    for name in names + [None]:
        lines = run_case(binary, case_dir, name) if name else config_gates(binary)
        for line in lines:
            print(line)
            failed += line.startswith("FAIL")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
