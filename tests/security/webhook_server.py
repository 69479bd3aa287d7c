"""webhook_server.py -- a small admission webhook for tests/security/webhooks.sh.

usage: /usr/bin/python3 webhook_server.py CERT KEY PORTFILE LOG

Serves AdmissionReview v1 over HTTPS on 127.0.0.1 (a free port, written to
PORTFILE) and appends every review it gets to LOG (one JSON line each).
What it answers depends on the path:

  /mutate        adds label mutated=yes and a warning; with label
                 remove-queue=yes it also removes kueue.x-k8s.io/queue-name
  /count         counts its calls in annotation calls (reinvocation), and
                 notes whether it saw label mutated=yes
  /validate      refuses an object labelled deny=yes (code 403), one
                 labelled deny=422 with code 422 and a reason, and the
                 deletion of one labelled protected=yes; warns always
  /slow          holds its answer until the file LOG.release exists (at
                 most 60 s), then appends a line to LOG.answered
  /wrong-uid     answers with another uid
  /http-500      answers HTTP 500
  /not-json      answers a body that is not JSON
  /scale         a Scale: caps spec.replicas at 3 (a patch), refuses 13
  /bad-patch     returns a patch that does not apply
  /validate-patch  a validating answer carrying a patch
  /meta          sets the metadata fields the object's annotation
                 hooks.test/meta holds (a JSON object): ownerReferences,
                 finalizers, timestamps a client may not have sent
"""
import base64
import json
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

cert, key, portfile, logfile = sys.argv[1:5]
lock = threading.Lock()


def patch_of(ops):
    return {"patchType": "JSONPatch", "patch": base64.b64encode(json.dumps(ops).encode()).decode()}


def labels(obj):
    return ((obj or {}).get("metadata") or {}).get("labels") or {}


def answer(path, req):
    uid = req["uid"]
    obj = req.get("object")
    resp = {"uid": uid, "allowed": True}
    if obj is None and path in ("/mutate", "/count", "/meta"):
        pass  # a DELETE: nothing to mutate
    elif path == "/mutate":
        ops = []
        if not (obj.get("metadata") or {}).get("labels"):
            ops.append({"op": "add", "path": "/metadata/labels", "value": {}})
        ops.append({"op": "add", "path": "/metadata/labels/mutated", "value": "yes"})
        if labels(obj).get("remove-queue") == "yes":
            ops.append({"op": "remove", "path": "/metadata/labels/kueue.x-k8s.io~1queue-name"})
        resp.update(patch_of(ops))
        resp["warnings"] = ["mutated by the test webhook"]
    elif path == "/count":
        ann = (obj.get("metadata") or {}).get("annotations") or {}
        n = int(ann.get("calls", "0")) + 1
        ops = []
        if not ann:
            ops.append({"op": "add", "path": "/metadata/annotations", "value": {}})
        ops.append({"op": "add", "path": "/metadata/annotations/calls", "value": str(n)})
        ops.append({"op": "add", "path": "/metadata/annotations/saw-mutated",
                    "value": labels(obj).get("mutated", "no")})
        resp.update(patch_of(ops))
    elif path == "/meta":
        want = ((obj.get("metadata") or {}).get("annotations") or {}).get("hooks.test/meta")
        if want:
            ops = [{"op": "add", "path": "/metadata/" + k, "value": v}
                   for k, v in json.loads(want).items()]
            resp.update(patch_of(ops))
    elif path == "/validate":
        resp["warnings"] = ["validated by the test webhook"]
        deny = labels(obj).get("deny")
        if req["operation"] == "DELETE" and labels(req.get("oldObject")).get("protected") == "yes":
            resp["allowed"] = False
            resp["status"] = {"code": 403, "message": "protected objects may not be deleted"}
        elif deny == "yes":
            resp["allowed"] = False
            resp["status"] = {"code": 403, "message": "objects labelled deny=yes are refused"}
        elif deny == "422":
            resp["allowed"] = False
            resp["status"] = {"code": 422, "reason": "Invalid", "message": "deny=422 is invalid"}
    elif path == "/scale":
        replicas = ((obj or {}).get("spec") or {}).get("replicas", 0)
        if replicas == 13:
            resp["allowed"] = False
            resp["status"] = {"code": 403, "message": "13 replicas are unlucky"}
        elif replicas > 3:
            resp.update(patch_of([{"op": "replace", "path": "/spec/replicas", "value": 3}]))
    elif path == "/slow":
        # Held rather than timed, so that the tests can tell what happened
        # while it was held, whatever the machine's load.
        end = time.monotonic() + 60
        while not os.path.exists(logfile + ".release") and time.monotonic() < end:
            time.sleep(0.05)
        with lock, open(logfile + ".answered", "a") as f:
            f.write(uid + "\n")
    elif path == "/wrong-uid":
        resp["uid"] = "not-" + uid
    elif path == "/bad-patch":
        resp.update(patch_of([{"op": "remove", "path": "/no/such/field"}]))
    elif path == "/validate-patch":
        resp.update(patch_of([{"op": "add", "path": "/metadata/labels/x", "value": "y"}]))
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real webhook server
    disable_nagle_algorithm = True  # headers and body leave at once

    def log_message(self, *args):
        pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        review = json.loads(self.rfile.read(n))
        path = self.path.split("?")[0]
        with lock, open(logfile, "a") as f:
            f.write(json.dumps({"path": path, "query": self.path.partition("?")[2],
                                "review": review}) + "\n")
        if path == "/http-500":
            body = b"boom"
            self.send_response(500)
        elif path == "/not-json":
            body = b"<html>not json</html>"
            self.send_response(200)
        else:
            body = json.dumps(answer(path, review["request"])).encode()
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
