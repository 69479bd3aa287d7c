/* podlog.c -- the Pod log subresource for the local executor.
 *
 * `kubectl logs POD` asks GET /api/v1/namespaces/NS/pods/NAME/log; the
 * node agent (node/kubelet.c) writes each pod's output to
 * DIR/pods/<namespace>_<name>.log, which is served as text/plain. Only
 * what kubectl needs: the whole log (tailLines honoured), no follow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "server/srv_int.h"
#include "store/store.h"

int srv_handle_pod_log(struct srv_req *q, const struct srv_route *rt)
{
    if (strcmp(q->method, "GET"))
        return srv_reply_status(q, 405, "MethodNotAllowed",
                                "the server does not allow this method on the requested resource",
                                NULL);
    struct err e;
    err_init(&e);
    json_t *pod = NULL;
    if (store_get(q->srv->store, rt->res, rt->ns, rt->name, &pod, &e)) {
        char msg[600];
        snprintf(msg, sizeof(msg), "pods \"%s\" not found", rt->name);
        return srv_reply_status(q, 404, "NotFound", msg, NULL);
    }
    json_decref(pod);
    struct sb path = SB_INIT;
    sb_addf(&path, "%s/%s_%s.log", q->srv->pod_log_dir ? q->srv->pod_log_dir : "", rt->ns,
            rt->name);
    char *text = NULL;
    FILE *f = q->srv->pod_log_dir ? fopen(sb_str(&path), "rb") : NULL;
    sb_release(&path);
    struct sb body = SB_INIT;
    if (f) {
        char buf[8192];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && body.len < (64u << 20))
            sb_add(&body, buf, n);
        fclose(f);
    }
    const char *tl = srv_query(q, "tailLines");
    if (tl && body.len) {
        long want = strtol(tl, NULL, 10);
        size_t pos = body.len;
        if (pos && body.buf[pos - 1] == '\n')
            pos--;
        long seen = 0;
        while (pos > 0 && want >= 0) {
            if (body.buf[pos - 1] == '\n' && ++seen >= want)
                break;
            pos--;
        }
        if (want <= 0)
            pos = body.len;
        text = body.buf + pos;
    }
    int rc = srv_reply(q, 200, "text/plain", text ? text : sb_str(&body),
                       text ? strlen(text) : body.len);
    sb_release(&body);
    return rc;
}
