/* quota.c -- ResourceQuota object counts, kept by the store.
 *
 * kube-apiserver's quota admission refuses a create that would take a
 * namespace past a ResourceQuota's `hard` limit, and its quota controller
 * writes each quota's `status.used`. cueue serve enforces the object
 * counts (`count/<resource>[.<group>]`, and the older names of the core
 * kinds: `services`, `secrets`, ...), which bound what a tenant can pile
 * into the store; the api layer refuses the compute and pod resources it
 * cannot enforce (api/builtin.c). Both happen in the create's own
 * transaction, so the count is exact and two creates cannot both take
 * the last place, and every quota's status is rewritten in the
 * transaction that changes what it counts. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "api/builtin.h"
#include "api/quantity.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "store/store_int.h"

static bool legacy_name(const struct store_resource *r)
{
    return !*r->group && builtin_quota_legacy_name(r->plural);
}

/* Does the quota resource name `name` count objects of r? */
static bool names_kind(const char *name, const struct store_resource *r)
{
    if (!strncmp(name, "count/", 6) && !strcmp(name + 6, r->key))
        return true;
    return legacy_name(r) && !strcmp(name, r->plural);
}

size_t store__quotas(struct store *s, const char *ns, json_t ***out)
{
    *out = NULL;
    size_t n = 0, cap = 0;
    sqlite3_stmt *st = store__stmt(store__writer(s), ST_QUOTAS);
    sqlite3_bind_text(st, 1, ns, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) {
        json_t *q = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
        if (!json_is_object(q)) {
            json_decref(q);
            continue;
        }
        XGROW(*out, cap, n + 1);
        (*out)[n++] = q;
    }
    sqlite3_reset(st);
    return n;
}

static void quotas_free(json_t **q, size_t n)
{
    for (size_t i = 0; i < n; i++)
        json_decref(q[i]);
    free(q);
}

static const json_t *hard_of(const json_t *q)
{
    return json_object_get(json_object_get(q, "spec"), "hard");
}

bool store__quota_counts(const json_t *q, const struct store_resource *r)
{
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)hard_of(q), k, v) if (names_kind(k, r)) return true;
    return false;
}

/* How many objects of the resource `name` counts are in ns (the store's
 * key of a kind is `count/`'s suffix: "jobs.batch", "configmaps"); -1 when
 * the read fails. */
static int64_t count_of(struct store *s, const char *name, const char *ns)
{
    const char *key = !strncmp(name, "count/", 6) ? name + 6 : name;
    sqlite3_stmt *st = store__stmt(store__writer(s), ST_NS_COUNT);
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, ns, -1, SQLITE_TRANSIENT);
    int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_reset(st);
    return n;
}

/* The limit of a hard entry in whole objects (quantities are validated
 * to be whole numbers on write); INT64_MAX when unreadable. */
static int64_t limit_of(const json_t *v)
{
    q_amount a;
    if (!json_is_string(v) || q_parse_amount(json_string_value(v), &a, NULL))
        return INT64_MAX;
    return a.milli / 1000;
}

int store__quota_admit(struct store *s, const struct store_resource *r, const char *ns,
                       struct err *e)
{
    json_t **qs;
    size_t n = store__quotas(s, ns, &qs);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)hard_of(qs[i]), k, v)
        {
            if (!names_kind(k, r))
                continue;
            int64_t used = count_of(s, k, ns), hard = limit_of(v);
            if (used < 0 || used + 1 <= hard)
                continue;
            /* The server puts `<kind> "<name>" is forbidden: ` in front. */
            rc = err_set(e, ERR_FORBIDDEN,
                         "exceeded quota: %s, requested: %s=1, used: %s=%lld, limited: %s=%s",
                         api_doc_meta_str(qs[i], "name"), k, k, (long long)used, k,
                         json_string_value(v));
            break;
        }
    }
    quotas_free(qs, n);
    return rc;
}

bool store__quota_status(struct store *s, json_t *q, bool self)
{
    const char *ns = api_doc_meta_str(q, "namespace");
    json_t *hard = json_object(), *used = json_object();
    const char *k;
    json_t *v;
    bool ok = true;
    json_object_foreach((json_t *)hard_of(q), k, v)
    {
        json_object_set(hard, k, v);
        int64_t n = count_of(s, k, ns ? ns : "");
        if (n < 0) {
            ok = false;
            break;
        }
        if (self && (!strcmp(k, "count/resourcequotas") || !strcmp(k, "resourcequotas")))
            n++;
        char buf[32];
        snprintf(buf, sizeof(buf), "%lld", (long long)n);
        json_object_set_new(used, k, json_string(buf));
    }
    if (ok)
        json_object_set_new(q, "status", json_pack("{s:o,s:o}", "hard", hard, "used", used));
    else {
        json_decref(hard);
        json_decref(used);
    }
    return ok;
}
