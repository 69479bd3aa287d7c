#!/usr/bin/env python3
"""Write src/api/protobuf_tables.c: the protobuf decoder's field tables.

usage: protobuf_tables.py API_DIR APIMACHINERY_DIR > src/api/protobuf_tables.c

API_DIR and APIMACHINERY_DIR are checkouts of k8s.io/api and
k8s.io/apimachinery (the release cueue follows). Field numbers and wire
types come from their generated.proto files, JSON names, omitempty and
pointers from the Go types' struct tags; every message reachable from the
kinds below gets a table, in the Go struct's field order.
"""
import os
import re
import sys

KINDS = [  # (group, kind, message)
    ("", "Namespace", "core.Namespace"),
    ("", "Pod", "core.Pod"),
    ("", "Event", "core.Event"),
    ("", "ConfigMap", "core.ConfigMap"),
    ("", "Secret", "core.Secret"),
    ("", "Service", "core.Service"),
    ("batch", "Job", "batch.Job"),
    ("apps", "Deployment", "apps.Deployment"),
    ("apps", "ReplicaSet", "apps.ReplicaSet"),
    ("apps", "StatefulSet", "apps.StatefulSet"),
    ("scheduling.k8s.io", "PriorityClass", "sched.PriorityClass"),
    ("coordination.k8s.io", "Lease", "coord.Lease"),
    ("authorization.k8s.io", "SelfSubjectAccessReview", "authz.SelfSubjectAccessReview"),
    ("authentication.k8s.io", "SelfSubjectReview", "authn.SelfSubjectReview"),
    (None, "DeleteOptions", "meta.DeleteOptions"),
    ("", "ServiceAccount", "core.ServiceAccount"),
    ("rbac.authorization.k8s.io", "Role", "rbac.Role"),
    ("rbac.authorization.k8s.io", "ClusterRole", "rbac.ClusterRole"),
    ("rbac.authorization.k8s.io", "RoleBinding", "rbac.RoleBinding"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding", "rbac.ClusterRoleBinding"),
    ("authentication.k8s.io", "TokenRequest", "authn.TokenRequest"),
    ("authentication.k8s.io", "TokenReview", "authn.TokenReview"),
    ("authorization.k8s.io", "SelfSubjectRulesReview", "authz.SelfSubjectRulesReview"),
    ("authorization.k8s.io", "SubjectAccessReview", "authz.SubjectAccessReview"),
    ("authorization.k8s.io", "LocalSubjectAccessReview", "authz.LocalSubjectAccessReview"),
]
API_PKGS = [("core/v1", "core"), ("batch/v1", "batch"), ("apps/v1", "apps"),
            ("scheduling/v1", "sched"),
            ("coordination/v1", "coord"), ("authorization/v1", "authz"),
            ("authentication/v1", "authn"), ("rbac/v1", "rbac")]
MACHINERY_PKGS = [("pkg/apis/meta/v1", "meta", True), ("pkg/runtime", "runtime", False),
                  ("pkg/api/resource", "resource", False), ("pkg/util/intstr", "intstr", False)]
PROTO_PKGS = {"k8s.io.apimachinery.pkg.apis.meta.v1": "meta", "k8s.io.api.core.v1": "core",
              "k8s.io.apimachinery.pkg.runtime": "runtime",
              "k8s.io.apimachinery.pkg.api.resource": "resource",
              "k8s.io.apimachinery.pkg.util.intstr": "intstr", "k8s.io.api.batch.v1": "batch",
              "k8s.io.api.apps.v1": "apps",
              "k8s.io.api.authorization.v1": "authz", "k8s.io.api.authentication.v1": "authn",
              "k8s.io.api.coordination.v1": "coord", "k8s.io.api.scheduling.v1": "sched",
              "k8s.io.api.rbac.v1": "rbac"}
SCALARS = {"string": "PB_STRING", "int32": "PB_INT32", "int64": "PB_INT64", "bool": "PB_BOOL",
           "bytes": "PB_BYTES"}
SPECIAL = {"meta.Time": "PB_TIME", "meta.MicroTime": "PB_MICROTIME",
           "resource.Quantity": "PB_QUANTITY", "intstr.IntOrString": "PB_INTORSTR",
           "meta.FieldsV1": "PB_RAWJSON", "authn.ExtraValue": None, "authz.ExtraValue": None}
MAP_VALUES = {"string": "PB_MAP_STRING", "resource.Quantity": "PB_MAP_QUANTITY",
              "authn.ExtraValue": "PB_MAP_STRLIST", "authz.ExtraValue": "PB_MAP_STRLIST",
              "bytes": "PB_MAP_BYTES"}


def parse_proto(path, pkg):
    src = re.sub(r"//[^\n]*", "", open(path).read())
    out = {}
    for m in re.finditer(r"\nmessage (\w+) \{(.*?)\n\}", src, re.S):
        fields = []
        for f in re.finditer(r"(optional|repeated)?\s*(map<\s*string\s*,\s*[\w.]+\s*>|[\w.]+)"
                             r"\s+(\w+)\s*=\s*(\d+)\s*;", m.group(2)):
            label, typ, name, num = f.groups()
            fields.append((label or "", typ.strip(), name, int(num)))
        out[pkg + "." + m.group(1)] = fields
    return out


def parse_go(path, pkg):
    """struct -> {field number: (json name, Go type, omitempty or 'INLINE')}"""
    out = {}
    for m in re.finditer(r"\ntype (\w+) struct \{(.*?)\n\}", open(path).read(), re.S):
        d = {}
        for line in m.group(2).split("\n"):
            line = re.sub(r"//.*", "", line).strip()
            tag = re.search(r"`([^`]*)`", line)
            if not tag:
                continue
            js = re.search(r'json:"([^"]*)"', tag.group(1))
            pb = re.search(r'protobuf:"([^"]*)"', tag.group(1))
            if not js or not pb:
                continue
            num = int(pb.group(1).split(",")[1])
            head = line[:tag.start()].split()
            opts = js.group(1).split(",")
            if len(head) == 1 and opts[0] == "" and "inline" in opts:
                d[num] = ("", head[0], "INLINE")
            else:
                d[num] = (opts[0], head[-1], "omitempty" in opts or "omitzero" in opts)
        out[pkg + "." + m.group(1)] = d
    return out


def resolve(typ, cur):
    typ = typ.lstrip(".")
    if "." in typ:
        pkg, _, name = typ.rpartition(".")
        return PROTO_PKGS[pkg] + "." + name
    return cur + "." + typ


def cname(msg):
    return msg.replace(".", "_")


def main():
    api, machinery = sys.argv[1], sys.argv[2]
    protos, gos = {}, {}
    for d, pkg in API_PKGS:
        protos.update(parse_proto(os.path.join(api, d, "generated.proto"), pkg))
        gos.update(parse_go(os.path.join(api, d, "types.go"), pkg))
    for d, pkg, has_types in MACHINERY_PKGS:
        protos.update(parse_proto(os.path.join(machinery, d, "generated.proto"), pkg))
        if has_types:
            gos.update(parse_go(os.path.join(machinery, d, "types.go"), pkg))

    order, todo = [], [k[2] for k in KINDS]
    while todo:
        msg = todo.pop(0)
        if msg in order or msg in SPECIAL:
            continue
        order.append(msg)
        for _, typ, _, _ in protos[msg]:
            m = re.match(r"map<\s*string\s*,\s*([\w.]+)\s*>", typ)
            typ = m.group(1) if m else typ
            if typ not in SCALARS and typ != "string":
                todo.append(resolve(typ, msg.split(".")[0]))

    tables = []
    for msg in order:
        cur = msg.split(".")[0]
        go = gos[msg]
        proto = {num: (label, typ) for label, typ, _, num in protos[msg]}
        missing = set(proto) - set(go)
        if missing:
            sys.exit("%s: fields %s have no Go struct tag" % (msg, sorted(missing)))
        rows = []
        for num, (jname, gtype, omit) in go.items():
            label, typ = proto[num]
            flags, sub = [], "NULL"
            m = re.match(r"map<\s*string\s*,\s*([\w.]+)\s*>", typ)
            if omit == "INLINE":
                kind, sub = "PB_INLINE", "&m_" + cname(resolve(typ, cur))
            elif m:
                vt = m.group(1)
                kind = MAP_VALUES[vt if vt in ("string", "bytes") else resolve(vt, cur)]
            elif typ in SCALARS:
                kind = SCALARS[typ]
            elif resolve(typ, cur) in SPECIAL:
                kind = SPECIAL[resolve(typ, cur)]
            else:
                kind, sub = "PB_MSG", "&m_" + cname(resolve(typ, cur))
            if label == "repeated":
                flags.append("PB_REPEATED")
            if gtype.startswith("*"):
                flags.append("PB_PTR")
            elif (omit is False and label != "repeated" and not m and kind in SCALARS.values()
                  and kind != "PB_BYTES"):
                flags.append("PB_KEEP")
            rows.append('    {%d, %s, "%s", %s},' % (num, " | ".join([kind] + flags), jname, sub))
        tables.append("static const struct pb_field f_%s[] = {\n%s\n};\n"
                      "static const struct pb_msg m_%s = {\"%s\", f_%s, CU_ARRAY_SIZE(f_%s)};"
                      % (cname(msg), "\n".join(rows), cname(msg), msg.split(".")[1], cname(msg),
                         cname(msg)))

    print("/* protobuf_tables.c -- the field tables of the protobuf decoder.\n"
          " *\n"
          " * Written by scripts/protobuf_tables.py from k8s.io/api and\n"
          " * k8s.io/apimachinery: field numbers from their generated.proto files,\n"
          " * JSON names, omitempty and pointers from the Go types' struct tags.\n"
          " * Regenerate (then `make fmt`) rather than edit. */")
    print('#include "api/protobuf_int.h"\n')
    print('#include "base/compiler.h"\n')
    for msg in order:
        print("static const struct pb_msg m_%s;" % cname(msg))
    print()
    print("\n\n".join(tables))
    print("\nconst struct pb_top pb__kinds[] = {")
    for group, kind, msg in KINDS:
        print('    {%s, "%s", &m_%s},' % ('NULL' if group is None else '"%s"' % group, kind,
                                         cname(msg)))
    print("    {NULL, NULL, NULL},\n};")


main()
