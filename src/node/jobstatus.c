/* jobstatus.c -- the Job controller's pure rules (see jobstatus.h). */
#include "node/jobstatus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const char *meta(const json_t *o, const char *k)
{
    return jstr(json_object_get(o, "metadata"), k);
}

int64_t js_time_ms(const char *s)
{
    int64_t ms = 0;
    struct err e;
    err_init(&e);
    if (!s || tm_parse_rfc3339(s, &ms, &e))
        return 0;
    return ms;
}

int64_t js_backoff_delay_ms(int64_t failures)
{
    if (failures <= 0)
        return 0;
    int64_t d = JS_BACKOFF_BASE_MS;
    for (int64_t i = 1; i < failures && d < JS_BACKOFF_MAX_MS; i++)
        d *= 2;
    return d < JS_BACKOFF_MAX_MS ? d : JS_BACKOFF_MAX_MS;
}

int64_t js_backoff_remaining_ms(int64_t failures, int64_t last_ms, int64_t now_ms)
{
    int64_t d = js_backoff_delay_ms(failures);
    int64_t elapsed = now_ms - last_ms;
    return d > elapsed ? d - elapsed : 0;
}

int64_t js_pod_finish_ms(const json_t *pod)
{
    int64_t last = 0;
    bool all = true;
    size_t i;
    const json_t *cs;
    json_array_foreach(json_object_get(json_object_get(pod, "status"), "containerStatuses"), i, cs)
    {
        const json_t *t = json_object_get(json_object_get(cs, "state"), "terminated");
        int64_t f = js_time_ms(jstr(t, "finishedAt"));
        if (!f)
            all = false;
        else if (f > last)
            last = f;
    }
    if (all && last)
        return last;
    json_array_foreach(json_object_get(json_object_get(pod, "status"), "conditions"), i, cs)
    {
        const char *t = jstr(cs, "type"), *st = jstr(cs, "status");
        int64_t at = js_time_ms(jstr(cs, "lastTransitionTime"));
        if (t && !strcmp(t, "Ready") && st && !strcmp(st, "False") && at)
            return at;
    }
    if (meta(pod, "deletionTimestamp"))
        return js_time_ms(meta(pod, "deletionTimestamp"));
    return js_time_ms(meta(pod, "creationTimestamp"));
}

void js_backoff_next(struct js_backoff *b, json_t *const *succeeded, size_t ns,
                     json_t *const *failed, size_t nf)
{
    int64_t last_s = 0, last_f = 0;
    for (size_t i = 0; i < ns; i++)
        if (js_pod_finish_ms(succeeded[i]) > last_s)
            last_s = js_pod_finish_ms(succeeded[i]);
    for (size_t i = 0; i < nf; i++)
        if (js_pod_finish_ms(failed[i]) > last_f)
            last_f = js_pod_finish_ms(failed[i]);
    if (!ns) {
        if (nf) {
            b->failures += (int64_t)nf;
            b->last_ms = last_f;
        }
        return;
    }
    /* A success: only the failures after it count. */
    *b = (struct js_backoff){0, 0};
    for (size_t i = 0; i < nf; i++) {
        int64_t f = js_pod_finish_ms(failed[i]);
        if (f > last_s) {
            b->failures++;
            if (f > b->last_ms)
                b->last_ms = f;
        }
    }
}

static json_t *conditions(json_t *status)
{
    json_t *a = json_object_get(status, "conditions");
    if (!json_is_array(a)) {
        a = json_array();
        json_object_set_new(status, "conditions", a);
    }
    return a;
}

/* newCondition: every time is now. */
static void set_cond(json_t *c, const char *type, const char *status, const char *reason,
                     const char *message, int64_t now)
{
    char ts[TM_RFC3339_LEN];
    tm_format_rfc3339(now, ts);
    json_object_set_new(c, "type", json_string(type));
    json_object_set_new(c, "status", json_string(status));
    json_object_set_new(c, "reason", json_string(reason ? reason : ""));
    json_object_set_new(c, "message", json_string(message ? message : ""));
    json_object_set_new(c, "lastProbeTime", json_string(ts));
    json_object_set_new(c, "lastTransitionTime", json_string(ts));
}

bool js_ensure_cond(json_t *status, const char *type, const char *st, const char *reason,
                    const char *message, int64_t now)
{
    json_t *conds = conditions(status);
    size_t i;
    json_t *c;
    json_array_foreach(conds, i, c)
    {
        const char *t = jstr(c, "type");
        if (!t || strcmp(t, type))
            continue;
        const char *cs = jstr(c, "status"), *cr = jstr(c, "reason"), *cm = jstr(c, "message");
        if (cs && !strcmp(cs, st) && !strcmp(cr ? cr : "", reason ? reason : "") &&
            !strcmp(cm ? cm : "", message ? message : ""))
            return false;
        set_cond(c, type, st, reason, message, now);
        return true;
    }
    if (!strcmp(st, "False"))
        return false;
    c = json_object();
    set_cond(c, type, st, reason, message, now);
    json_array_append_new(conds, c);
    return true;
}

void js_append_cond(json_t *status, const char *type, const char *reason, const char *message,
                    int64_t now)
{
    json_t *c = json_object();
    set_cond(c, type, "True", reason, message, now);
    json_array_append_new(conditions(status), c);
}

bool js_past_restart_limit(const json_t *job, json_t *const *pods, size_t n, int64_t limit)
{
    const json_t *tspec =
        json_object_get(json_object_get(json_object_get(job, "spec"), "template"), "spec");
    const char *rp = jstr(tspec, "restartPolicy");
    if (!rp || strcmp(rp, "OnFailure"))
        return false;
    int64_t restarts = 0;
    for (size_t i = 0; i < n; i++) {
        const char *ph = jstr(json_object_get(pods[i], "status"), "phase");
        if (ph && strcmp(ph, "Running") && strcmp(ph, "Pending"))
            continue;
        size_t k;
        const json_t *cs;
        json_array_foreach(json_object_get(json_object_get(pods[i], "status"), "containerStatuses"),
                           k, cs) restarts +=
            json_integer_value(json_object_get(cs, "restartCount"));
    }
    return limit == 0 ? restarts > 0 : restarts >= limit;
}

/* JOB_COMPLETION_INDEX from the Pod's annotation, prepended to each
 * container's env (addCompletionIndexEnvVariables). */
static void add_index_env(json_t *containers)
{
    size_t i;
    json_t *c;
    json_array_foreach(containers, i, c)
    {
        json_t *env = json_object_get(c, "env");
        if (!json_is_array(env)) {
            env = json_array();
            json_object_set_new(c, "env", env);
        }
        size_t k;
        json_t *e;
        bool have = false;
        json_array_foreach(env, k, e) have |=
            json_string_value(json_object_get(e, "name")) &&
            !strcmp(json_string_value(json_object_get(e, "name")), "JOB_COMPLETION_INDEX");
        if (!have)
            json_array_append_new(env,
                                  json_pack("{s:s,s:{s:{s:s}}}", "name", "JOB_COMPLETION_INDEX",
                                            "valueFrom", "fieldRef", "fieldPath",
                                            "metadata.annotations['" JS_INDEX_KEY "']"));
    }
}

json_t *js_pod_from_template(const json_t *job, const char *node_name, int64_t index)
{
    const json_t *tpl = json_object_get(json_object_get(job, "spec"), "template");
    const json_t *tm = json_object_get(tpl, "metadata");
    const char *name = meta(job, "name"), *uid = meta(job, "uid");
    json_t *m = json_object();
    char gen[96], idx[24] = "";
    if (index >= 0)
        snprintf(idx, sizeof(idx), "%lld", (long long)index);
    /* 58 characters at most (the name's random suffix makes 63), the
     * index kept whole (podGenerateNameWithIndex). */
    snprintf(gen, sizeof(gen), "%.*s-%s%s", (int)(57 - (index >= 0 ? strlen(idx) + 1 : 0)),
             name ? name : "", idx, index >= 0 ? "-" : "");
    json_object_set_new(m, "generateName", json_string(gen));
    json_object_set_new(m, "namespace", json_string(meta(job, "namespace")));
    json_t *labels = json_is_object(json_object_get(tm, "labels"))
                         ? json_deep_copy(json_object_get(tm, "labels"))
                         : json_object();
    json_object_set_new(labels, "batch.kubernetes.io/controller-uid", json_string(uid));
    json_object_set_new(labels, "batch.kubernetes.io/job-name", json_string(name));
    json_object_set_new(labels, "controller-uid", json_string(uid));
    json_object_set_new(labels, "job-name", json_string(name));
    if (index >= 0)
        json_object_set_new(labels, JS_INDEX_KEY, json_string(idx));
    json_object_set_new(m, "labels", labels);
    json_t *ann = json_is_object(json_object_get(tm, "annotations"))
                      ? json_deep_copy(json_object_get(tm, "annotations"))
                      : json_object();
    if (index >= 0)
        json_object_set_new(ann, JS_INDEX_KEY, json_string(idx));
    if (json_object_size(ann))
        json_object_set_new(m, "annotations", ann);
    else
        json_decref(ann);
    json_t *fins = json_is_array(json_object_get(tm, "finalizers"))
                       ? json_deep_copy(json_object_get(tm, "finalizers"))
                       : json_array();
    bool tracked = false;
    size_t i;
    json_t *f;
    json_array_foreach(fins, i, f) tracked |=
        json_string_value(f) && !strcmp(json_string_value(f), JS_TRACKING_FINALIZER);
    if (!tracked)
        json_array_append_new(fins, json_string(JS_TRACKING_FINALIZER));
    json_object_set_new(m, "finalizers", fins);
    json_object_set_new(m, "ownerReferences",
                        json_pack("[{s:s,s:s,s:s?,s:s?,s:b,s:b}]", "apiVersion", "batch/v1", "kind",
                                  "Job", "name", name, "uid", uid, "controller", 1,
                                  "blockOwnerDeletion", 1));
    json_t *spec = json_is_object(json_object_get(tpl, "spec"))
                       ? json_deep_copy(json_object_get(tpl, "spec"))
                       : json_object();
    if (index >= 0) {
        add_index_env(json_object_get(spec, "containers"));
        add_index_env(json_object_get(spec, "initContainers"));
        if (!json_string_value(json_object_get(spec, "hostname"))) {
            char host[96];
            snprintf(host, sizeof(host), "%.*s-%s", (int)(62 - strlen(idx)), name ? name : "", idx);
            json_object_set_new(spec, "hostname", json_string(host));
        }
    }
    /* No scheduler: the Pod is bound to the node as it is created, unless
     * it waits for a scheduling gate (Kueue's topology gate): the kubelet
     * binds it once ungated (kubelet.h). */
    if (!json_array_size(json_object_get(spec, "schedulingGates")))
        json_object_set_new(spec, "nodeName", json_string(node_name));
    return json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", "v1", "kind", "Pod", "metadata", m, "spec",
                     spec);
}

int64_t js_pod_index(const json_t *pod, int64_t completions)
{
    const json_t *ann = json_object_get(json_object_get(pod, "metadata"), "annotations");
    const char *v = json_string_value(json_object_get(ann, JS_INDEX_KEY));
    if (!v || !*v || strlen(v) > 18)
        return -1;
    int64_t n = 0;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        n = n * 10 + (*p - '0');
    }
    return n < completions ? n : -1;
}

void js_parse_indexes(const char *s, bool *done, int64_t completions)
{
    /* Intervals in increasing order, as the Job controller writes them;
     * the rest of a list out of order is ignored, so that marking costs
     * at most completions whatever the string. */
    long long last = -1;
    while (s && *s) {
        char *end;
        long long a = strtoll(s, &end, 10), b = a;
        if (end == s || a <= last)
            return;
        if (*end == '-') {
            const char *q = end + 1;
            b = strtoll(q, &end, 10);
            if (end == q || b < a)
                return;
        }
        last = b;
        for (long long i = a; i <= b && i < completions; i++)
            done[i] = true;
        if (*end != ',')
            return;
        s = end + 1;
    }
}

char *js_format_indexes(const bool *done, int64_t completions)
{
    struct sb sb = SB_INIT;
    for (int64_t i = 0; i < completions; i++) {
        if (!done[i])
            continue;
        int64_t j = i;
        while (j + 1 < completions && done[j + 1])
            j++;
        if (sb.len)
            sb_addch(&sb, ',');
        if (j == i)
            sb_addf(&sb, "%lld", (long long)i);
        else
            sb_addf(&sb, "%lld-%lld", (long long)i, (long long)j);
        i = j;
    }
    char *r = xstrdup(sb_str(&sb));
    sb_release(&sb);
    return r;
}
