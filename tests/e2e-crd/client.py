"""client.py -- the official Python client (kubernetes 22.x) with CRDs and
the built-in kinds cueue keeps as documents.

usage: python3 client.py KUBECONFIG DATA_DIR
Prints one "ok   - ..." or "FAIL - ..." line per check; exits 1 on a failure.
"""
import json
import sys
import threading
import time

import yaml
from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException

G, V = "ray.example.com", "v1"
NS = "py-crd"
failures = 0


def check(desc, cond, detail=""):
    global failures
    if cond:
        print(f"ok   - python: {desc}")
    else:
        failures += 1
        print(f"FAIL - python: {desc}")
        if detail:
            print(f"       | {detail}"[:2000])


def error(fn):
    try:
        fn()
    except ApiException as e:
        return e
    return None


def wait_established(ext, name, seconds=10):
    end = time.time() + seconds
    while time.time() < end:
        crd = ext.read_custom_resource_definition(name)
        for c in crd.status.conditions or []:
            if c.type == "Established" and c.status == "True":
                return crd
        time.sleep(0.1)
    return None


def main():
    config.load_kube_config(config_file=sys.argv[1])
    data = sys.argv[2]
    api = client.ApiClient()
    core = client.CoreV1Api(api)
    ext = client.ApiextensionsV1Api(api)
    co = client.CustomObjectsApi(api)

    core.create_namespace({"metadata": {"name": NS}})
    with open(f"{data}/rayjob-crd.yaml") as f:
        body = yaml.safe_load(f)
    created = ext.create_custom_resource_definition(body)
    check("ApiextensionsV1Api creates a CRD", created.metadata.name == "rayjobs.ray.example.com")
    crd = wait_established(ext, "rayjobs.ray.example.com")
    check("the CRD is Established and its names accepted", crd is not None
          and crd.status.accepted_names.kind == "RayJob"
          and crd.status.stored_versions == ["v1"], str(crd and crd.status))
    names = [c.metadata.name for c in ext.list_custom_resource_definition().items]
    check("list CRDs: Kueue's and the new one", "rayjobs.ray.example.com" in names
          and "workloads.kueue.x-k8s.io" in names, str(names))

    with open(f"{data}/rayjob.yaml") as f:
        rj = yaml.safe_load(f)
    rj["spec"]["unknownThing"] = 1
    obj = co.create_namespaced_custom_object(G, V, NS, "rayjobs", rj)
    check("create: defaults applied, unknown fields pruned (no fieldValidation: Warn)",
          obj["spec"]["workers"] == 1 and obj["spec"]["shutdownAfterFinish"] is True
          and "unknownThing" not in obj["spec"], json.dumps(obj["spec"]))

    e = error(lambda: co.create_namespaced_custom_object(G, V, NS, "rayjobs", {
        "apiVersion": f"{G}/{V}", "kind": "RayJob", "metadata": {"name": "bad"},
        "spec": {"entrypoint": "", "workers": -1, "labels": {"a": "1", "b": "2", "c": "3",
                                                              "d": "4", "e": "5"}}}))
    causes = json.loads(e.body)["details"]["causes"] if e else []
    fields = sorted(c["field"] for c in causes)
    check("an invalid object: 422 Invalid with one cause per problem, kube's field paths",
          e is not None and e.status == 422 and fields == ["spec", "spec.entrypoint",
                                                            "spec.labels", "spec.workers"],
          e.body if e else "no error")

    seen = []
    rv0 = co.list_namespaced_custom_object(G, V, NS, "rayjobs")["metadata"]["resourceVersion"]

    def watcher():
        w = watch.Watch()
        for ev in w.stream(co.list_namespaced_custom_object, G, V, NS, "rayjobs",
                           resource_version=rv0, timeout_seconds=3):
            seen.append((ev["type"], ev["object"]["metadata"]["name"]))
    t = threading.Thread(target=watcher)
    t.start()
    time.sleep(0.5)
    co.patch_namespaced_custom_object(G, V, NS, "rayjobs", "sum",
                                      {"metadata": {"labels": {"team": "py"}}})
    co.delete_namespaced_custom_object(G, V, NS, "rayjobs", "sum")
    t.join()
    check("watch a CRD kind: MODIFIED then DELETED", seen == [("MODIFIED", "sum"),
                                                               ("DELETED", "sum")], str(seen))

    co.create_namespaced_custom_object(G, V, NS, "rayjobs", rj)
    st = co.patch_namespaced_custom_object_status(G, V, NS, "rayjobs", "sum", {
        "status": {"jobStatus": "RUNNING", "readyWorkers": 1,
                   "selector": "ray.io/cluster=sum"}})
    check("patch the status subresource", st["status"]["jobStatus"] == "RUNNING", json.dumps(st))
    scale = co.get_namespaced_custom_object_scale(G, V, NS, "rayjobs", "sum")
    check("read the scale subresource", scale["spec"]["replicas"] == 1
          and scale["status"] == {"replicas": 1, "selector": "ray.io/cluster=sum"},
          json.dumps(scale))
    co.patch_namespaced_custom_object_scale(G, V, NS, "rayjobs", "sum", {"spec": {"replicas": 4}})
    got = co.get_namespaced_custom_object(G, V, NS, "rayjobs", "sum")
    check("patch the scale subresource", got["spec"]["workers"] == 4, json.dumps(got["spec"]))
    old = co.get_namespaced_custom_object("ray.example.com", "v1alpha1", NS, "rayjobs", "sum")
    check("read through the second version: apiVersion converted, nothing else",
          old["apiVersion"] == "ray.example.com/v1alpha1" and old["spec"] == got["spec"],
          json.dumps(old))

    co.delete_collection_namespaced_custom_object(G, V, NS, "rayjobs")
    left = co.list_namespaced_custom_object(G, V, NS, "rayjobs")["items"]
    check("deletecollection", left == [], json.dumps(left))

    co.create_namespaced_custom_object(G, V, NS, "rayjobs", rj)
    ext.delete_custom_resource_definition("rayjobs.ray.example.com")
    end = time.time() + 10
    gone = False
    while time.time() < end and not gone:
        gone = error(lambda: ext.read_custom_resource_definition("rayjobs.ray.example.com"))
        time.sleep(0.1)
    e = error(lambda: co.list_namespaced_custom_object(G, V, NS, "rayjobs"))
    check("delete the CRD: it goes with its objects, and the kind is not served",
          gone and gone.status == 404 and e is not None and e.status == 404)

    # The built-in kinds kept as documents.
    cm = core.create_namespaced_config_map(NS, {"metadata": {"name": "cfg"},
                                                "data": {"k": "v"}})
    check("create a ConfigMap", cm.data == {"k": "v"}, str(cm))
    sec = core.create_namespaced_secret(NS, {"metadata": {"name": "s"},
                                             "stringData": {"pw": "hunter2"}})
    check("a Secret's stringData becomes base64 data", sec.data == {"pw": "aHVudGVyMg=="}
          and sec.type == "Opaque", str(sec.data))
    svc = core.create_namespaced_service(NS, {"metadata": {"name": "web"},
                                              "spec": {"ports": [{"port": 443}]}})
    check("create a Service: defaults", svc.spec.type == "ClusterIP"
          and svc.spec.ports[0].protocol == "TCP" and svc.spec.ports[0].target_port == 443,
          str(svc.spec))
    lr = core.create_namespaced_limit_range(NS, {"metadata": {"name": "lr"}, "spec": {
        "limits": [{"type": "Container", "max": {"cpu": "2"}}]}})
    check("create a LimitRange: container defaults", lr.spec.limits[0].default == {"cpu": "2"}
          and lr.spec.limits[0].default_request == {"cpu": "2"}, str(lr.spec))
    dra = client.ResourceV1Api(api) if hasattr(client, "ResourceV1Api") else None
    if dra:
        dc = dra.create_device_class({"metadata": {"name": "gpu.example.com"}, "spec": {}})
        check("create a DeviceClass (resource.k8s.io/v1)", dc.metadata.name == "gpu.example.com")
    else:
        co.create_cluster_custom_object("resource.k8s.io", "v1", "deviceclasses", {
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": "gpu.example.com"}, "spec": {}})
        dcs = co.list_cluster_custom_object("resource.k8s.io", "v1", "deviceclasses")["items"]
        check("create a DeviceClass (resource.k8s.io/v1)",
              [d["metadata"]["name"] for d in dcs] == ["gpu.example.com"], json.dumps(dcs))
    core.delete_namespace(NS)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
