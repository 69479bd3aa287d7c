/* status.c -- see status.h. */
#include "api/status.h"

#include <string.h>

#include "api/quantity.h"
#include "base/time.h"
#include "base/xalloc.h"

static json_t *status_obj(json_t *obj)
{
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(obj, "status", st);
    }
    return st;
}

static int64_t generation(json_t *obj)
{
    json_t *g = json_object_get(json_object_get(obj, "metadata"), "generation");
    return json_is_integer(g) ? (int64_t)json_integer_value(g) : 0;
}

json_t *api_status_condition(json_t *obj, const char *type)
{
    json_t *conds = json_object_get(json_object_get(obj, "status"), "conditions");
    size_t i;
    json_t *c;
    json_array_foreach(conds, i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        if (t && !strcmp(t, type))
            return c;
    }
    return NULL;
}

static bool str_eq(json_t *v, const char *s)
{
    const char *x = json_string_value(v);
    return x && s && !strcmp(x, s);
}

/* Keys in Kubernetes' order: type, status, observedGeneration,
 * lastTransitionTime, reason, message. */
static json_t *cond_build(const char *type, const char *status, int64_t gen, const char *ltt,
                          const char *reason, const char *message)
{
    json_t *c = json_object();
    json_object_set_new(c, "type", json_string(type));
    json_object_set_new(c, "status", json_string(status));
    if (gen)
        json_object_set_new(c, "observedGeneration", json_integer(gen));
    json_object_set_new(c, "lastTransitionTime", json_string(ltt));
    json_object_set_new(c, "reason", json_string(reason));
    json_object_set_new(c, "message", json_string(message));
    return c;
}

static bool set_condition(json_t *obj, const char *type, const char *status, const char *reason,
                          const char *message, int64_t now_ms, bool with_gen)
{
    char *cut = NULL;
    if (strlen(message) > API_STATUS_MAX_MESSAGE) {
        cut = xmalloc(API_STATUS_MAX_MESSAGE + 1);
        memcpy(cut, message, API_STATUS_MAX_MESSAGE - 4);
        memcpy(cut + API_STATUS_MAX_MESSAGE - 4, " ...", 5);
        message = cut;
    }
    int64_t gen = with_gen ? generation(obj) : 0;
    json_t *st = status_obj(obj);
    json_t *conds = json_object_get(st, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(st, "conditions", conds);
    }
    char now[TM_RFC3339_LEN];
    tm_format_rfc3339(now_ms, now);
    json_t *old = api_status_condition(obj, type);
    bool changed;
    if (!old) {
        json_array_append_new(conds, cond_build(type, status, gen, now, reason, message));
        changed = true;
    } else {
        bool same_status = str_eq(json_object_get(old, "status"), status);
        json_t *oltt = json_object_get(old, "lastTransitionTime");
        const char *ltt = (same_status && json_is_string(oltt)) ? json_string_value(oltt) : now;
        json_int_t ogen = json_integer_value(json_object_get(old, "observedGeneration"));
        changed = !same_status || !str_eq(json_object_get(old, "reason"), reason) ||
                  !str_eq(json_object_get(old, "message"), message) || ogen != gen;
        if (changed) {
            json_t *nc = cond_build(type, status, gen, ltt, reason, message);
            size_t i;
            json_t *c;
            json_array_foreach(conds, i, c)
            {
                if (c == old) {
                    json_array_set_new(conds, i, nc);
                    break;
                }
            }
        }
    }
    free(cut);
    return changed;
}

bool api_status_set_condition(json_t *obj, const char *type, const char *status, const char *reason,
                              const char *message, int64_t now_ms)
{
    return set_condition(obj, type, status, reason, message, now_ms, true);
}

bool api_status_set_condition_nogen(json_t *obj, const char *type, const char *status,
                                    const char *reason, const char *message, int64_t now_ms)
{
    return set_condition(obj, type, status, reason, message, now_ms, false);
}

static json_t *quantity(const char *res, q_amount a)
{
    char buf[Q_BUFLEN];
    q_format_resource(res, q_resource_value(res, a), buf, sizeof(buf));
    return json_string(buf);
}

void api_status_set_admission(json_t *obj, const struct api_admission *a)
{
    json_t *st = status_obj(obj);
    if (!a) {
        json_object_del(st, "admission");
        return;
    }
    json_t *adm = json_object();
    json_object_set_new(adm, "clusterQueue", json_string(a->cluster_queue));
    json_t *psas = json_array();
    for (size_t i = 0; i < a->n_pod_set_assignments; i++) {
        const struct api_pod_set_assignment *p = &a->pod_set_assignments[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(p->name));
        json_t *fl = json_object();
        for (size_t k = 0; k < p->flavors.n; k++)
            json_object_set_new(fl, p->flavors.items[k].key,
                                json_string(p->flavors.items[k].value));
        json_object_set_new(o, "flavors", fl);
        json_t *ru = json_object();
        for (size_t k = 0; k < p->resource_usage.n; k++)
            json_object_set_new(
                ru, p->resource_usage.items[k].name,
                quantity(p->resource_usage.items[k].name, p->resource_usage.items[k].amount));
        json_object_set_new(o, "resourceUsage", ru);
        if (p->has_count)
            json_object_set_new(o, "count", json_integer(p->count));
        json_array_append_new(psas, o);
    }
    json_object_set_new(adm, "podSetAssignments", psas);
    json_object_set_new(st, "admission", adm);
}

void api_status_set_resource_requests(json_t *obj, const struct api_status_requests *ps, size_t n)
{
    json_t *st = status_obj(obj);
    if (!n) {
        json_object_del(st, "resourceRequests");
        return;
    }
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(ps[i].name));
        json_t *r = json_object();
        for (size_t k = 0; k < ps[i].resources.n; k++)
            json_object_set_new(
                r, ps[i].resources.items[k].name,
                quantity(ps[i].resources.items[k].name, ps[i].resources.items[k].amount));
        json_object_set_new(o, "resources", r);
        json_array_append_new(arr, o);
    }
    json_object_set_new(st, "resourceRequests", arr);
}

void api_status_set_requeue_state(json_t *obj, int32_t count, int64_t requeue_at_ms)
{
    json_t *rs = json_object();
    json_object_set_new(rs, "count", json_integer(count));
    if (requeue_at_ms) {
        char buf[TM_RFC3339_LEN];
        tm_format_rfc3339(requeue_at_ms, buf);
        json_object_set_new(rs, "requeueAt", json_string(buf));
    }
    json_object_set_new(status_obj(obj), "requeueState", rs);
}

void api_status_clear_requeue_state(json_t *obj)
{
    json_t *st = json_object_get(obj, "status");
    if (json_is_object(st))
        json_object_del(st, "requeueState");
}
