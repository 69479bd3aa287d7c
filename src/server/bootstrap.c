/* bootstrap.c -- the objects kube-apiserver keeps about itself: the
 * `kubernetes` Service in `default`, with its Endpoints and EndpointSlice
 * naming the address and port this server listens on (written at every
 * start: the port may change). In-cluster clients and tools that look
 * the API server up by its Service find it so. */
#include "server/srv_int.h"

#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/log.h"

/* Create obj, or replace what is stored under its name with it. */
static int put(struct srv *s, const char *key, json_t *obj, struct err *e)
{
    const struct store_resource *r = store_resource_find(key);
    const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
    json_t *cur = NULL, *out = NULL;
    int rc = store_get(s->store, r, "default", name, &cur, e);
    if (rc == ERR_NOT_FOUND) {
        err_init(e);
        rc = store_create(s->store, r, "default", obj, NULL, &out, e);
    } else if (!rc) {
        /* Ours to rewrite whole, as kube-apiserver's reconciler does. */
        json_t *meta = json_object_get(obj, "metadata");
        json_object_set(meta, "resourceVersion",
                        json_object_get(json_object_get(cur, "metadata"), "resourceVersion"));
        rc = store_update(s->store, r, "default", name, obj, NULL, &out, e);
    }
    json_decref(cur);
    json_decref(out);
    return rc;
}

void srv_bootstrap(struct srv *s, const char *host, bool tls)
{
    const char *ip = host && *host && strcmp(host, "0.0.0.0") ? host : "127.0.0.1";
    const char *port_name = tls ? "https" : "http";
    int port = s->port;
    json_t *svc = json_pack("{s:s,s:s,s:{s:s,s:{s:s,s:s}},s:{s:s,s:[{s:s,s:i,s:s,s:i}],s:s}}",
                            "apiVersion", "v1", "kind", "Service", "metadata", "name", "kubernetes",
                            "labels", "component", "apiserver", "provider", "kubernetes", "spec",
                            "type", "ClusterIP", "ports", "name", port_name, "port", tls ? 443 : 80,
                            "protocol", "TCP", "targetPort", port, "sessionAffinity", "None");
    json_t *ep =
        json_pack("{s:s,s:s,s:{s:s,s:{s:s}},s:[{s:[{s:s}],s:[{s:s,s:i,s:s}]}]}", "apiVersion", "v1",
                  "kind", "Endpoints", "metadata", "name", "kubernetes", "labels",
                  "endpointslice.kubernetes.io/skip-mirror", "true", "subsets", "addresses", "ip",
                  ip, "ports", "name", port_name, "port", port, "protocol", "TCP");
    json_t *slice = json_pack(
        "{s:s,s:s,s:{s:s,s:{s:s}},s:s,s:[{s:[s],s:{s:b}}],s:[{s:s,s:i,s:s}]}", "apiVersion",
        "discovery.k8s.io/v1", "kind", "EndpointSlice", "metadata", "name", "kubernetes", "labels",
        "kubernetes.io/service-name", "kubernetes", "addressType", "IPv4", "endpoints", "addresses",
        ip, "conditions", "ready", 1, "ports", "name", port_name, "port", port, "protocol", "TCP");
    struct {
        const char *key;
        json_t *obj;
    } objs[] = {{"services", svc}, {"endpoints", ep}, {"endpointslices.discovery.k8s.io", slice}};
    for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
        struct err e;
        err_init(&e);
        if (put(s, objs[i].key, objs[i].obj, &e))
            log_warn("cannot write the kubernetes %s: %s", objs[i].key, e.message);
        json_decref(objs[i].obj);
    }
}
