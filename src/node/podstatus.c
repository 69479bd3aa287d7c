/* podstatus.c -- a one-container Pod's status, as the kubelet writes it
 * (see podstatus.h). */
#include "node/podstatus.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/time.h"

static void put_time(json_t *o, const char *k, int64_t ms)
{
    char ts[TM_RFC3339_LEN];
    tm_format_rfc3339(ms, ts);
    json_object_set_new(o, k, json_string(ts));
}

/* Set a condition, keeping its transition time while its status stays. */
static void put_cond(json_t *conds, const char *type, bool ok, const char *reason,
                     const char *message, int64_t now)
{
    json_t *c = NULL;
    size_t i;
    json_t *x;
    json_array_foreach(conds, i, x)
    {
        const char *t = json_string_value(json_object_get(x, "type"));
        if (t && !strcmp(t, type))
            c = x;
    }
    const char *st = ok ? "True" : "False";
    if (!c) {
        c = json_object();
        json_object_set_new(c, "type", json_string(type));
        json_array_append_new(conds, c);
    }
    const char *was = json_string_value(json_object_get(c, "status"));
    if (!was || strcmp(was, st))
        put_time(c, "lastTransitionTime", now);
    json_object_set_new(c, "status", json_string(st));
    json_object_set_new(c, "lastProbeTime", json_null());
    if (reason)
        json_object_set_new(c, "reason", json_string(reason));
    else
        json_object_del(c, "reason");
    if (message)
        json_object_set_new(c, "message", json_string(message));
    else
        json_object_del(c, "message");
}

static json_t *terminated(const struct pst_end *end)
{
    json_t *t = json_object();
    json_object_set_new(t, "exitCode", json_integer(end->exit_code));
    json_object_set_new(t, "reason", json_string(end->reason));
    if (end->message && *end->message)
        json_object_set_new(t, "message", json_string(end->message));
    put_time(t, "startedAt", end->started_ms ? end->started_ms : end->finished_ms);
    put_time(t, "finishedAt", end->finished_ms);
    return t;
}

static json_t *container_status(const struct pst_view *v, int64_t now)
{
    bool running = v->state == PST_RUNNING;
    json_t *cs = json_object();
    json_object_set_new(cs, "name", json_string(v->container ? v->container : "main"));
    json_object_set_new(cs, "image", json_string(v->image ? v->image : ""));
    json_object_set_new(cs, "imageID", json_string(""));
    if (v->container_id)
        json_object_set_new(cs, "containerID", json_string(v->container_id));
    json_object_set_new(cs, "ready", json_boolean(running));
    json_object_set_new(cs, "started", json_boolean(running));
    json_object_set_new(cs, "restartCount", json_integer(v->restarts));
    json_t *state = json_object();
    if (running) {
        json_t *r = json_object();
        put_time(r, "startedAt", v->started_ms ? v->started_ms : now);
        json_object_set_new(state, "running", r);
    } else if (v->state == PST_TERMINATED && v->end) {
        json_object_set_new(state, "terminated", terminated(v->end));
    } else {
        json_t *w = json_object();
        json_object_set_new(w, "reason", json_string(v->reason ? v->reason : "ContainerCreating"));
        if (v->message)
            json_object_set_new(w, "message", json_string(v->message));
        json_object_set_new(state, "waiting", w);
    }
    json_object_set_new(cs, "state", state);
    json_t *last = json_object();
    if (v->last)
        json_object_set_new(last, "terminated", terminated(v->last));
    json_object_set_new(cs, "lastState", last);
    return cs;
}

void pst_apply(json_t *pod, const struct pst_view *v, int64_t now)
{
    json_t *st = json_object_get(pod, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(pod, "status", st);
    }
    json_object_set_new(st, "phase", json_string(v->phase));
    json_object_set_new(st, "hostIP", json_string("127.0.0.1"));
    json_object_set_new(st, "hostIPs", json_pack("[{s:s}]", "ip", "127.0.0.1"));
    if (!json_string_value(json_object_get(st, "startTime")))
        put_time(st, "startTime", v->pod_start_ms ? v->pod_start_ms : now);
    if (v->qos_class)
        json_object_set_new(st, "qosClass", json_string(v->qos_class));
    if (v->pod_reason) {
        json_object_set_new(st, "reason", json_string(v->pod_reason));
        json_object_set_new(st, "message", json_string(v->pod_message ? v->pod_message : ""));
    }
    bool running = v->state == PST_RUNNING;
    bool terminal = !strcmp(v->phase, "Succeeded") || !strcmp(v->phase, "Failed");
    json_t *conds = json_object_get(st, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(st, "conditions", conds);
    }
    char unready[300];
    snprintf(unready, sizeof(unready), "containers with unready status: [%s]",
             v->container ? v->container : "main");
    const char *why = terminal ? "PodCompleted" : running ? NULL : "ContainersNotReady";
    const char *what = terminal || running ? NULL : unready;
    put_cond(conds, "PodReadyToStartContainers", !terminal, NULL, NULL, now);
    put_cond(conds, "Initialized", true, NULL, NULL, now);
    put_cond(conds, "Ready", running, why, what, now);
    put_cond(conds, "ContainersReady", running, why, what, now);
    put_cond(conds, "PodScheduled", true, NULL, NULL, now);
    json_object_set_new(st, "containerStatuses", json_pack("[o]", container_status(v, now)));
}
