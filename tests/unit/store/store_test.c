/* Unit tests for the store: CRUD, generateName, conflicts, the status split,
 * generation, finalizers, garbage collection, namespace deletion, selectors,
 * pagination, admission, restart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "store/store.h"
#include "store/store_int.h"
#include "store_test_util.h"

static const struct store_resource *R(const char *key)
{
    const struct store_resource *r = store_resource_find(key);
    assert_non_null(r);
    return r;
}

#define WL "workloads.kueue.x-k8s.io"
#define CQ "clusterqueues.kueue.x-k8s.io"

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, 0, &je);
    if (!v)
        fail_msg("bad test JSON: %s: %s", je.text, text);
    return v;
}

#define TEMPLATE                                                                                   \
    "\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}],"             \
    "\"restartPolicy\":\"Never\"}}"

/* A valid batch/v1 Job. */
static json_t *job_doc(const char *name)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "{\"metadata\":{\"name\":\"%s\"},\"spec\":{" TEMPLATE "}}", name);
    return parse(buf);
}

static json_t *workload(const char *name, const char *labels)
{
    char buf[1024];
    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\","
             "\"metadata\":{\"name\":\"%s\",\"labels\":%s},"
             "\"spec\":{\"queueName\":\"lq\",\"podSets\":[{\"name\":\"main\",\"count\":1,"
             "\"template\":{}}]}}",
             name, labels ? labels : "{}");
    return parse(buf);
}

/* Create and return the stored object (owned). */
static json_t *create(struct store *s, const char *res, const char *ns, json_t *obj)
{
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = store_create(s, R(res), ns, obj, NULL, &out, &e);
    if (rc)
        fail_msg("create: %d %s", rc, e.message);
    json_decref(obj);
    return out;
}

static const char *mstr(const json_t *o, const char *f)
{
    return api_doc_meta_str(o, f);
}

static json_int_t generation(const json_t *o)
{
    return json_integer_value(json_object_get(json_object_get(o, "metadata"), "generation"));
}

static uint64_t rv_of(const json_t *o)
{
    return strtoull(mstr(o, "resourceVersion"), NULL, 10);
}

static bool exists_any(struct store *s, const char *res, const char *ns, const char *name)
{
    struct err e;
    err_init(&e);
    json_t *o = NULL;
    int rc = store_get(s, R(res), ns, name, &o, &e);
    json_decref(o);
    return rc == 0;
}

static void create_ns(struct store *s, const char *name)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "{\"metadata\":{\"name\":\"%s\"}}", name);
    json_decref(create(s, "namespaces", NULL, parse(buf)));
}

/* ---- CRUD ------------------------------------------------------------------------ */

static void test_store_create_sets_server_fields(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    uint64_t before = store_current_rv(t->s);
    json_t *in = workload("wl1", NULL);
    json_object_set_new(json_object_get(in, "metadata"), "uid", json_string("forged"));
    json_object_set_new(in, "status", parse("{\"admission\":{\"clusterQueue\":\"cq\"}}"));
    json_t *out = create(t->s, WL, "default", in);
    assert_string_equal(mstr(out, "name"), "wl1");
    assert_string_equal(mstr(out, "namespace"), "default");
    const char *uid = mstr(out, "uid");
    assert_int_equal(strlen(uid), 36);
    assert_string_not_equal(uid, "forged");
    assert_int_equal(uid[14], '4'); /* UUID version 4 */
    assert_int_equal(generation(out), 1);
    assert_non_null(mstr(out, "creationTimestamp"));
    assert_int_equal(strlen(mstr(out, "creationTimestamp")), 20);
    assert_int_equal(rv_of(out), before + 1);
    assert_int_equal(store_current_rv(t->s), before + 1);
    /* Workloads have a status subresource: status in a create is dropped. */
    assert_null(json_object_get(out, "status"));

    struct err e;
    err_init(&e);
    json_t *got;
    assert_int_equal(store_get(t->s, R(WL), "default", "wl1", &got, &e), 0);
    assert_true(json_equal(got, out));
    json_decref(got);
    json_decref(out);

    err_init(&e);
    assert_int_equal(store_get(t->s, R(WL), "default", "nope", &got, &e), ERR_NOT_FOUND);
    assert_string_equal(e.message, "workloads.kueue.x-k8s.io \"nope\" not found");
    tstore_free(t);
}

/* Only the kinds kube-apiserver gives a generation have one: a Job and a
 * Workload do; an Event and a ConfigMap never get one, also after an update. */
static void test_store_generation_only_where_kubernetes_sets_it(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *job = create(t->s, "jobs.batch", "default", job_doc("j"));
    assert_int_equal(generation(job), 1);
    json_t *cm = create(t->s, "configmaps", "default",
                        parse("{\"metadata\":{\"name\":\"c\"},\"data\":{\"a\":\"1\"}}"));
    assert_null(json_object_get(json_object_get(cm, "metadata"), "generation"));
    json_t *ev = create(t->s, "events", "default",
                        parse("{\"metadata\":{\"name\":\"e\"},\"involvedObject\":"
                              "{\"kind\":\"Job\",\"name\":\"j\",\"namespace\":\"default\"},"
                              "\"reason\":\"Created\",\"message\":\"m\",\"type\":\"Normal\"}"));
    assert_null(json_object_get(json_object_get(ev, "metadata"), "generation"));
    json_object_set_new(json_object_get(cm, "data"), "a", json_string("2"));
    struct err e;
    err_init(&e);
    json_t *cm2 = NULL;
    assert_int_equal(store_update(t->s, R("configmaps"), "default", "c", cm, NULL, &cm2, &e), 0);
    assert_null(json_object_get(json_object_get(cm2, "metadata"), "generation"));
    json_decref(cm2);
    json_decref(ev);
    json_decref(cm);
    json_decref(job);
    tstore_free(t);
}

static void test_store_create_exists(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_decref(create(t->s, WL, "default", workload("wl1", NULL)));
    struct err e;
    err_init(&e);
    json_t *in = workload("wl1", NULL), *out = NULL;
    assert_int_equal(store_create(t->s, R(WL), "default", in, NULL, &out, &e), ERR_EXISTS);
    assert_string_equal(e.message, "workloads.kueue.x-k8s.io \"wl1\" already exists");
    assert_null(out);
    json_decref(in);
    tstore_free(t);
}

static void test_store_create_namespace_rules(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct err e;
    json_t *out = NULL, *in = workload("wl1", NULL);
    err_init(&e);
    assert_int_equal(store_create(t->s, R(WL), "nons", in, NULL, &out, &e), ERR_NOT_FOUND);
    assert_string_equal(e.message, "namespaces \"nons\" not found");
    /* The initial namespaces exist from the start. */
    for (const char *const *n = (const char *const[]){"default", "kube-system", "kube-public",
                                                      "kube-node-lease", NULL};
         *n; n++) {
        json_t *ns;
        err_init(&e);
        assert_int_equal(store_get(t->s, R("namespaces"), NULL, *n, &ns, &e), 0);
        json_t *labels = json_object_get(json_object_get(ns, "metadata"), "labels");
        assert_string_equal(
            json_string_value(json_object_get(labels, "kubernetes.io/metadata.name")), *n);
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(ns, "status"), "phase")), "Active");
        json_decref(ns);
    }
    /* A body naming another namespace is a bad request. */
    json_object_set_new(json_object_get(in, "metadata"), "namespace", json_string("other"));
    err_init(&e);
    assert_int_equal(store_create(t->s, R(WL), "default", in, NULL, &out, &e), ERR_PARSE);
    assert_string_equal(e.message, "the namespace of the provided object does not match the "
                                   "namespace sent on the request");
    /* Without a namespace argument, the body's is used. */
    json_object_set_new(json_object_get(in, "metadata"), "namespace", json_string("kube-system"));
    err_init(&e);
    assert_int_equal(store_create(t->s, R(WL), NULL, in, NULL, &out, &e), 0);
    assert_string_equal(mstr(out, "namespace"), "kube-system");
    json_decref(out);
    json_decref(in);
    tstore_free(t);
}

static void test_store_create_generate_name(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *seen = json_object();
    for (int i = 0; i < 50; i++) {
        json_t *in =
            parse("{\"metadata\":{\"generateName\":\"gen-\"},"
                  "\"spec\":{\"podSets\":[{\"name\":\"main\",\"count\":1,\"template\":{}}]}}");
        json_t *out = create(t->s, WL, "default", in);
        const char *name = mstr(out, "name");
        assert_int_equal(strlen(name), 9);
        assert_memory_equal(name, "gen-", 4);
        for (int k = 4; k < 9; k++)
            assert_non_null(strchr("bcdfghjklmnpqrstvwxz2456789", name[k]));
        assert_null(json_object_get(seen, name));
        json_object_set_new(seen, name, json_true());
        json_decref(out);
    }
    json_decref(seen);
    struct err e;
    err_init(&e);
    json_t *in = parse("{\"metadata\":{}}"), *out = NULL;
    assert_int_equal(store_create(t->s, R(WL), "default", in, NULL, &out, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].field, "metadata.name");
    assert_string_equal(e.causes[0].message, "Required value: name or generateName is required");
    json_decref(in);
    tstore_free(t);
}

/* A create whose obj is given: the store keeps obj itself, defaulted, as
 * it would keep its copy; the namespace read from the body survives the
 * defaulting; a generated name is generated; a refused create stores
 * nothing and leaves obj to its caller's json_decref. */
static void test_store_create_obj_given(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct store_write_opts wo = {.obj_given = true};
    struct err e;
    err_init(&e);
    json_t *in = workload("given", NULL), *out = NULL;
    json_object_set_new(json_object_get(in, "metadata"), "namespace", json_string("kube-system"));
    assert_int_equal(store_create(t->s, R(WL), NULL, in, &wo, &out, &e), 0);
    assert_ptr_equal(out, in);
    assert_string_equal(mstr(out, "namespace"), "kube-system");
    assert_int_equal(strlen(mstr(out, "uid")), 36);
    assert_non_null(mstr(out, "resourceVersion"));
    json_decref(out);
    json_decref(in);
    json_t *got = NULL;
    err_init(&e);
    assert_int_equal(store_get(t->s, R(WL), "kube-system", "given", &got, &e), 0);
    assert_string_equal(mstr(got, "namespace"), "kube-system");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(got, "spec"), "queueName")), "lq");
    json_decref(got);

    in = parse("{\"metadata\":{\"generateName\":\"gen-\"},"
               "\"spec\":{\"podSets\":[{\"name\":\"main\",\"count\":1,\"template\":{}}]}}");
    err_init(&e);
    assert_int_equal(store_create(t->s, R(WL), "default", in, &wo, &out, &e), 0);
    assert_int_equal(strlen(mstr(out, "name")), 9);
    assert_memory_equal(mstr(out, "name"), "gen-", 4);
    json_decref(out);
    json_decref(in);

    uint64_t before = store_current_rv(t->s);
    in = workload("Bad_Name", NULL);
    err_init(&e);
    assert_int_equal(store_create(t->s, R(WL), "default", in, &wo, &out, &e), ERR_INVALID);
    assert_null(out);
    assert_int_equal(store_current_rv(t->s), before);
    json_decref(in);
    tstore_free(t);
}

/* What the store wrote, as its text: the same as encoding the object it
 * returns; nothing for a write that wrote nothing or failed. */
static void assert_text_of(struct store_text *text, const json_t *obj)
{
    assert_non_null(text);
    char *want = json_dumps(obj, JSON_COMPACT);
    size_t len;
    const char *got = store_text_str(text, &len);
    assert_int_equal(len, strlen(want));
    assert_string_equal(got, want);
    free(want);
    store_text_unref(text);
}

static void test_store_text_out(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct store_text *text = NULL;
    struct store_write_opts wo = {.shared_out = true, .text_out = &text};
    struct err e;
    err_init(&e);
    json_t *in = workload("texted", NULL), *out = NULL;
    assert_int_equal(store_create(t->s, R(WL), "default", in, &wo, &out, &e), 0);
    assert_text_of(text, out);
    /* A status update that changes something, then the same one again. */
    json_t *st = json_deep_copy(out);
    json_decref(out);
    json_object_set_new(st, "status",
                        parse("{\"conditions\":[{\"type\":\"QuotaReserved\","
                              "\"status\":\"False\",\"reason\":\"Pending\","
                              "\"message\":\"m\",\"lastTransitionTime\":"
                              "\"2024-01-01T00:00:00Z\"}]}"));
    wo.status = true;
    for (int i = 0; i < 2; i++) {
        text = (struct store_text *)&e; /* anything: the store sets it */
        err_init(&e);
        assert_int_equal(store_update(t->s, R(WL), "default", "texted", st, &wo, &out, &e), 0);
        if (i == 0)
            assert_text_of(text, out);
        else
            assert_null(text);
        json_object_set_new(json_object_get(st, "metadata"), "resourceVersion",
                            json_string(mstr(out, "resourceVersion")));
        json_decref(out);
    }

    /* A refused create and a dry run write nothing. */
    uint64_t before = store_current_rv(t->s);
    err_init(&e);
    assert_int_equal(store_create(t->s, R(WL), "default", in, &wo, &out, &e), ERR_EXISTS);
    assert_null(text);
    struct store_write_opts dry = {.dry_run = true, .text_out = &text};
    json_t *other = workload("dry", NULL);
    err_init(&e);
    assert_int_equal(store_create(t->s, R(WL), "default", other, &dry, &out, &e), 0);
    assert_null(text);
    json_decref(out);
    assert_int_equal(store_current_rv(t->s), before);
    json_decref(other);
    json_decref(st);
    json_decref(in);
    tstore_free(t);
}

/* An update's object given to the store is the one it keeps; a status
 * update so given still takes only the status from it. */
static void test_store_update_obj_given(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *cur = create(t->s, "workloads.kueue.x-k8s.io", "default", workload("upd", NULL));
    json_t *in = json_deep_copy(cur);
    json_decref(cur);
    json_object_set_new(json_object_get(in, "spec"), "queueName", json_string("other"));
    json_object_set_new(in, "status",
                        parse("{\"conditions\":[{\"type\":\"QuotaReserved\","
                              "\"status\":\"False\",\"reason\":\"Pending\","
                              "\"message\":\"m\",\"lastTransitionTime\":"
                              "\"2024-01-01T00:00:00Z\"}]}"));
    struct store_write_opts wo = {.status = true, .obj_given = true, .shared_out = true};
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    assert_int_equal(store_update(t->s, R(WL), "default", "upd", in, &wo, &out, &e), 0);
    assert_ptr_equal(out, in);
    json_decref(out);
    json_decref(in);
    json_t *got = NULL;
    err_init(&e);
    assert_int_equal(store_get(t->s, R(WL), "default", "upd", &got, &e), 0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(got, "spec"), "queueName")), "lq");
    assert_string_equal(
        json_string_value(json_object_get(
            json_array_get(json_object_get(json_object_get(got, "status"), "conditions"), 0),
            "reason")),
        "Pending");
    json_decref(got);
    tstore_free(t);
}

static void test_store_create_invalid_name(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct err e;
    err_init(&e);
    json_t *in = workload("Bad_Name", NULL), *out = NULL;
    uint64_t before = store_current_rv(t->s);
    assert_int_equal(store_create(t->s, R(WL), "default", in, NULL, &out, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].field, "metadata.name");
    assert_non_null(
        strstr(e.causes[0].message, "Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"));
    assert_int_equal(store_current_rv(t->s), before);
    json_decref(in);
    tstore_free(t);
}

static void test_store_dry_run_stores_nothing(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    uint64_t before = store_current_rv(t->s);
    struct err e;
    err_init(&e);
    struct store_write_opts wo = {.dry_run = true};
    json_t *in = workload("wl1", NULL), *out = NULL;
    assert_int_equal(store_create(t->s, R(WL), "default", in, &wo, &out, &e), 0);
    assert_string_equal(mstr(out, "name"), "wl1");
    json_decref(out);
    json_decref(in);
    assert_int_equal(store_current_rv(t->s), before);
    json_t *got;
    assert_int_equal(store_get(t->s, R(WL), "default", "wl1", &got, &e), ERR_NOT_FOUND);
    tstore_free(t);
}

/* ---- update ----------------------------------------------------------------------- */

static void test_store_update_conflict(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *v1 = create(t->s, WL, "default", workload("wl1", NULL));
    json_t *edit = json_deep_copy(v1);
    json_object_set_new(json_object_get(edit, "spec"), "queueName", json_string("lq2"));
    struct err e;
    err_init(&e);
    json_t *v2 = NULL;
    assert_int_equal(store_update(t->s, R(WL), "default", "wl1", edit, NULL, &v2, &e), 0);
    assert_true(rv_of(v2) > rv_of(v1));
    assert_int_equal(generation(v2), 2);
    /* Writing again with the old version is a conflict. */
    err_init(&e);
    json_t *v3 = NULL;
    assert_int_equal(store_update(t->s, R(WL), "default", "wl1", edit, NULL, &v3, &e),
                     ERR_CONFLICT);
    assert_string_equal(e.message,
                        "Operation cannot be fulfilled on workloads.kueue.x-k8s.io \"wl1\": the "
                        "object has been modified; please apply your changes to the latest "
                        "version and try again");
    assert_null(v3);
    /* Kueue kinds need a resourceVersion on update. */
    json_object_del(json_object_get(edit, "metadata"), "resourceVersion");
    err_init(&e);
    assert_int_equal(store_update(t->s, R(WL), "default", "wl1", edit, NULL, &v3, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].field, "metadata.resourceVersion");
    assert_string_equal(e.causes[0].message, "Invalid value: 0x0: must be specified for an update");
    /* A different name in the body is a bad request; a missing object 404. */
    err_init(&e);
    assert_int_equal(store_update(t->s, R(WL), "default", "other", v2, NULL, &v3, &e), ERR_PARSE);
    json_object_set_new(json_object_get(edit, "metadata"), "name", json_string("gone"));
    json_object_set_new(json_object_get(edit, "metadata"), "resourceVersion", json_string("1"));
    err_init(&e);
    assert_int_equal(store_update(t->s, R(WL), "default", "gone", edit, NULL, &v3, &e),
                     ERR_NOT_FOUND);
    json_decref(edit);
    json_decref(v1);
    json_decref(v2);
    tstore_free(t);
}

static void test_store_update_builtin_unconditional(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *lease =
        create(t->s, "leases.coordination.k8s.io", "default",
               parse("{\"metadata\":{\"name\":\"l\"},\"spec\":{\"holderIdentity\":\"a\"}}"));
    json_t *edit = parse("{\"metadata\":{\"name\":\"l\"},\"spec\":{\"holderIdentity\":\"b\"}}");
    struct err e;
    err_init(&e);
    json_t *out;
    assert_int_equal(
        store_update(t->s, R("leases.coordination.k8s.io"), "default", "l", edit, NULL, &out, &e),
        0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(out, "spec"), "holderIdentity")), "b");
    /* Server-set fields come from storage. */
    assert_string_equal(mstr(out, "uid"), mstr(lease, "uid"));
    assert_string_equal(mstr(out, "creationTimestamp"), mstr(lease, "creationTimestamp"));
    json_decref(out);
    json_decref(edit);
    json_decref(lease);
    tstore_free(t);
}

static void test_store_update_status_split(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *v1 = create(t->s, WL, "default", workload("wl1", "{\"a\":\"1\"}"));
    struct err e;
    /* A status write changes only status; generation stays. */
    json_t *st = json_deep_copy(v1);
    json_object_set_new(st, "status", parse("{\"admission\":{\"clusterQueue\":\"cq\"}}"));
    json_object_set_new(json_object_get(st, "spec"), "queueName", json_string("ignored"));
    json_object_set_new(json_object_get(json_object_get(st, "metadata"), "labels"), "a",
                        json_string("ignored"));
    struct store_write_opts so = {.status = true};
    json_t *v2;
    err_init(&e);
    assert_int_equal(store_update(t->s, R(WL), "default", "wl1", st, &so, &v2, &e), 0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(v2, "spec"), "queueName")), "lq");
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(v2, "metadata"), "labels"), "a")),
                        "1");
    assert_non_null(json_object_get(v2, "status"));
    assert_int_equal(generation(v2), 1);
    assert_true(rv_of(v2) > rv_of(v1));
    /* A main write keeps the stored status whatever the body says; a label
     * change does not bump generation. */
    json_t *main = json_deep_copy(v2);
    json_object_del(main, "status");
    json_object_set_new(json_object_get(json_object_get(main, "metadata"), "labels"), "b",
                        json_string("2"));
    json_t *v3;
    err_init(&e);
    assert_int_equal(store_update(t->s, R(WL), "default", "wl1", main, NULL, &v3, &e), 0);
    assert_true(json_equal(json_object_get(v3, "status"), json_object_get(v2, "status")));
    assert_int_equal(generation(v3), 1);
    /* Writing the same object again is a no-op: same version, no event. */
    uint64_t now = store_current_rv(t->s);
    json_t *v4;
    err_init(&e);
    assert_int_equal(store_update(t->s, R(WL), "default", "wl1", v3, NULL, &v4, &e), 0);
    assert_int_equal(rv_of(v4), rv_of(v3));
    assert_int_equal(store_current_rv(t->s), now);
    /* A status write on a kind without the subresource is 404. (A kind of a
     * CRD would prune a status its schema does not specify.) */
    json_t *rf = create(t->s, "leases.coordination.k8s.io", "default",
                        parse("{\"metadata\":{\"name\":\"rf\"},\"status\":{\"x\":1}}"));
    assert_non_null(json_object_get(rf, "status")); /* kept: no status subresource */
    json_t *v5;
    err_init(&e);
    assert_int_equal(
        store_update(t->s, R("leases.coordination.k8s.io"), "default", "rf", rf, &so, &v5, &e),
        ERR_NOT_FOUND);
    json_decref(rf);
    json_decref(v1);
    json_decref(v2);
    json_decref(v3);
    json_decref(v4);
    json_decref(st);
    json_decref(main);
    tstore_free(t);
}

static json_t *set_suspend(const json_t *cur, void *arg, struct err *e)
{
    json_t *n = json_deep_copy(cur);
    json_object_set_new(json_object_get(n, "spec"), "suspend", json_boolean(arg != NULL));
    return n;
}

static json_t *fail_mutation(const json_t *cur, void *arg, struct err *e)
{
    err_set(e, ERR_INVALID, "no");
    return NULL;
}

/* The store defaults as the API server does; suspending the Jobs Kueue
 * manages is the server's admission, not the store's. */
static void test_store_job_defaults_and_mutate(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *job = create(t->s, "jobs.batch", "default",
                         parse("{\"metadata\":{\"name\":\"j\",\"labels\":{\"kueue.x-k8s.io/"
                               "queue-name\":\"lq\"}},\"spec\":{\"suspend\":true," TEMPLATE "}}"));
    json_t *spec = json_object_get(job, "spec");
    assert_true(json_is_true(json_object_get(spec, "suspend")));
    json_t *ml = json_object_get(json_object_get(spec, "selector"), "matchLabels");
    assert_string_equal(
        json_string_value(json_object_get(ml, "batch.kubernetes.io/controller-uid")),
        mstr(job, "uid"));
    json_t *plain = create(t->s, "jobs.batch", "default", job_doc("p"));
    assert_true(json_is_false(json_object_get(json_object_get(plain, "spec"), "suspend")));
    json_decref(plain);

    struct err e;
    err_init(&e);
    json_t *out;
    assert_int_equal(
        store_mutate(t->s, R("jobs.batch"), "default", "j", set_suspend, NULL, NULL, &out, &e), 0);
    assert_true(json_is_false(json_object_get(json_object_get(out, "spec"), "suspend")));
    assert_int_equal(generation(out), 2);
    json_decref(out);
    err_init(&e);
    assert_int_equal(
        store_mutate(t->s, R("jobs.batch"), "default", "j", fail_mutation, NULL, NULL, &out, &e),
        ERR_INVALID);
    assert_null(out);
    json_decref(job);
    tstore_free(t);
}

/* A status mutation on its own copy that also changes a label, the spec
 * and adds a field: only its status is stored. */
static json_t *status_and_more(const json_t *cur, void *arg, struct err *e)
{
    json_t *n = json_deep_copy(cur);
    json_object_set_new(n, "status", parse("{\"admission\":{\"clusterQueue\":\"cq\"}}"));
    json_object_set_new(json_object_get(n, "spec"), "queueName", json_string("ignored"));
    json_object_set_new(json_object_get(json_object_get(n, "metadata"), "labels"), "a",
                        json_string("ignored"));
    json_object_set_new(n, "extra", json_true());
    return n;
}

/* Mutations whose result is their own (fn_fresh, as the controllers'
 * are) are changed in place: the same results as a copied one, and the
 * stored object a later write starts from is untouched. */
static void test_store_fresh_mutations(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *v1 = create(t->s, WL, "default", workload("wl1", "{\"a\":\"1\"}"));
    struct err e;
    err_init(&e);
    struct store_write_opts so = {.status = true, .fn_fresh = true};
    json_t *v2;
    assert_int_equal(
        store_mutate(t->s, R(WL), "default", "wl1", status_and_more, NULL, &so, &v2, &e), 0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(v2, "spec"), "queueName")), "lq");
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(v2, "metadata"), "labels"), "a")),
                        "1");
    assert_null(json_object_get(v2, "extra"));
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(v2, "status"), "admission"), "clusterQueue")),
        "cq");
    assert_int_equal(generation(v2), 1);
    json_t *got;
    assert_int_equal(store_get(t->s, R(WL), "default", "wl1", &got, &e), 0);
    assert_true(json_equal(got, v2));
    json_decref(got);
    /* A main write on its own copy: the stored status stays. */
    so.status = false;
    json_t *v3;
    assert_int_equal(
        store_mutate(t->s, R(WL), "default", "wl1", status_and_more, NULL, &so, &v3, &e), 0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(v3, "spec"), "queueName")), "ignored");
    assert_true(json_equal(json_object_get(v3, "status"), json_object_get(v2, "status")));
    assert_int_equal(store_get(t->s, R(WL), "default", "wl1", &got, &e), 0);
    assert_true(json_equal(got, v3));
    json_decref(got);
    json_decref(v1);
    json_decref(v2);
    json_decref(v3);
    tstore_free(t);
}

/* Several writes queued at once: each its own result, in order, one that
 * fails changing nothing of the others. */
static void test_store_write_many(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *job = create(t->s, "jobs.batch", "default", job_doc("j"));
    json_t *a = job_doc("a"), *dup = job_doc("j");
    struct store_write w[] = {
        {.r = R("jobs.batch"), .ns = "default", .obj = a},
        {.r = R("jobs.batch"), .ns = "default", .name = "j", .fn = set_suspend, .arg = "x"},
        {.r = R("jobs.batch"), .ns = "default", .obj = dup},
        {.r = R("jobs.batch"), .ns = "default", .name = "j", .fn = fail_mutation},
        {.r = R("jobs.batch"), .ns = "default", .name = "missing", .fn = set_suspend},
        {.r = R("jobs.batch"), .ns = "default", .name = "j", .fn = set_suspend},
    };
    size_t n = sizeof(w) / sizeof(w[0]);
    struct err errs[sizeof(w) / sizeof(w[0])];
    for (size_t i = 0; i < n; i++) {
        err_init(&errs[i]);
        w[i].e = &errs[i];
    }
    store_write_many(t->s, w, n);
    assert_int_equal(w[0].rc, 0);
    assert_string_equal(mstr(w[0].out, "name"), "a");
    assert_int_equal(w[1].rc, 0);
    assert_true(json_is_true(json_object_get(json_object_get(w[1].out, "spec"), "suspend")));
    assert_int_equal(w[2].rc, ERR_EXISTS);
    assert_string_equal(w[2].e->message, "jobs.batch \"j\" already exists");
    assert_null(w[2].out);
    assert_int_equal(w[3].rc, ERR_INVALID);
    assert_string_equal(w[3].e->message, "no");
    assert_int_equal(w[4].rc, ERR_NOT_FOUND);
    assert_int_equal(w[5].rc, 0);
    /* In order: the last change of j is the one stored, after the first. */
    assert_true(json_is_false(json_object_get(json_object_get(w[5].out, "spec"), "suspend")));
    assert_int_equal(rv_of(w[1].out), rv_of(w[0].out) + 1);
    assert_int_equal(rv_of(w[5].out), rv_of(w[1].out) + 1);
    json_t *got = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_get(t->s, R("jobs.batch"), "default", "j", &got, &e), 0);
    assert_int_equal(rv_of(got), rv_of(w[5].out));
    json_decref(got);
    assert_true(exists_any(t->s, "jobs.batch", "default", "a"));
    for (size_t i = 0; i < n; i++)
        json_decref(w[i].out);
    store_write_many(t->s, NULL, 0);
    json_decref(a);
    json_decref(dup);
    json_decref(job);
    tstore_free(t);
}

/* ---- admission hook ------------------------------------------------------------------- */

static int fake_admit(const struct store_resource *r, json_t *doc, const json_t *old,
                      struct store__views *v, struct err *e)
{
    json_t *spec = json_object_get(doc, "spec");
    if (!json_object_get(spec, "queueingStrategy"))
        json_object_set_new(spec, "queueingStrategy", json_string("BestEffortFIFO"));
    if (!strcmp(json_string_value(json_object_get(spec, "queueingStrategy")), "Random")) {
        size_t m = err_push_field(e, "spec");
        err_push_field(e, "queueingStrategy");
        err_field(e, ERR_INVALID, "Unsupported value: \"Random\"");
        err_restore(e, m);
        return ERR_INVALID;
    }
    return 0;
}

static void test_store_admission_hook(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    store__set_admit(t->s, fake_admit);
    json_t *cq = create(t->s, CQ, NULL, parse("{\"metadata\":{\"name\":\"cq\"},\"spec\":{}}"));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(cq, "spec"), "queueingStrategy")),
        "BestEffortFIFO");
    assert_null(mstr(cq, "namespace"));
    uint64_t before = store_current_rv(t->s);
    struct err e;
    err_init(&e);
    json_t *bad =
        parse("{\"metadata\":{\"name\":\"bad\"},\"spec\":{\"queueingStrategy\":\"Random\"}}");
    json_t *out = NULL;
    assert_int_equal(store_create(t->s, R(CQ), NULL, bad, NULL, &out, &e), ERR_INVALID);
    assert_int_equal(e.ncauses, 1);
    assert_string_equal(e.causes[0].field, "spec.queueingStrategy");
    assert_int_equal(store_current_rv(t->s), before);
    json_t *got;
    err_init(&e);
    assert_int_equal(store_get(t->s, R(CQ), NULL, "bad", &got, &e), ERR_NOT_FOUND);
    /* And on update: nothing changes. */
    json_t *edit = json_deep_copy(cq);
    json_object_set_new(json_object_get(edit, "spec"), "queueingStrategy", json_string("Random"));
    err_init(&e);
    assert_int_equal(store_update(t->s, R(CQ), NULL, "cq", edit, NULL, &out, &e), ERR_INVALID);
    err_init(&e);
    assert_int_equal(store_get(t->s, R(CQ), NULL, "cq", &got, &e), 0);
    assert_true(json_equal(got, cq));
    json_decref(got);
    json_decref(edit);
    json_decref(bad);
    json_decref(cq);
    tstore_free(t);
}

/* A write's own check (store_write_opts.check) sees the object as it will
 * be stored and the stored one, under the write lock; its refusal changes
 * nothing, for an update and a mutation alike. */
struct check_seen {
    int calls;
    bool had_status;       /* the merged object kept the stored status */
    bool defaulted;        /* ... and was defaulted */
    json_int_t old_active; /* status.active of the stored object */
};

static int refuse_parallelism(void *arg, const struct store_resource *r, const json_t *next,
                              const json_t *cur, struct err *e)
{
    struct check_seen *c = arg;
    c->calls++;
    c->had_status = json_object_get(next, "status") != NULL;
    c->defaulted = json_object_get(json_object_get(next, "spec"), "backoffLimit") != NULL;
    c->old_active = json_integer_value(json_object_get(json_object_get(cur, "status"), "active"));
    if (json_integer_value(json_object_get(json_object_get(next, "spec"), "parallelism")) > 1)
        return err_set(e, ERR_FORBIDDEN, "no");
    return 0;
}

static json_t *set_status_active(const json_t *cur, void *arg, struct err *e)
{
    json_t *o = json_deep_copy(cur);
    json_object_set_new(o, "status", json_pack("{s:i}", "active", 1));
    return o;
}

static json_t *set_parallelism(const json_t *cur, void *arg, struct err *e)
{
    json_t *o = json_deep_copy(cur);
    json_object_set_new(json_object_get(o, "spec"), "parallelism", json_integer(*(int *)arg));
    return o;
}

static void test_store_write_check(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *job = create(t->s, "jobs.batch", "default", job_doc("j"));
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    assert_int_equal(store_mutate(t->s, R("jobs.batch"), "default", "j", set_status_active, NULL,
                                  &(struct store_write_opts){.status = true}, &out, &e),
                     0);
    json_decref(out);
    struct check_seen seen = {0};
    struct store_write_opts wo = {.check = refuse_parallelism, .check_arg = &seen};
    uint64_t before = store_current_rv(t->s);
    json_t *edit = json_deep_copy(job);
    json_object_set_new(json_object_get(edit, "spec"), "parallelism", json_integer(2));
    json_object_del(json_object_get(edit, "spec"), "backoffLimit");
    json_object_del(edit, "status");
    json_object_del(json_object_get(edit, "metadata"), "resourceVersion");
    err_init(&e);
    assert_int_equal(store_update(t->s, R("jobs.batch"), "default", "j", edit, &wo, &out, &e),
                     ERR_FORBIDDEN);
    assert_string_equal(e.message, "no");
    assert_int_equal(seen.calls, 1);
    assert_true(seen.had_status);
    assert_true(seen.defaulted);
    assert_int_equal(seen.old_active, 1);
    int two = 2, one = 1;
    err_init(&e);
    assert_int_equal(
        store_mutate(t->s, R("jobs.batch"), "default", "j", set_parallelism, &two, &wo, &out, &e),
        ERR_FORBIDDEN);
    assert_int_equal(seen.calls, 2);
    assert_int_equal(store_current_rv(t->s), before);
    err_init(&e);
    assert_int_equal(
        store_mutate(t->s, R("jobs.batch"), "default", "j", set_parallelism, &one, &wo, &out, &e),
        0);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(out, "spec"), "parallelism")), 1);
    json_decref(out);
    json_decref(edit);
    json_decref(job);
    tstore_free(t);
}

static json_t *get_obj(struct store *s, const char *res, const char *ns, const char *name)
{
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    assert_int_equal(store_get(s, R(res), ns, name, &out, &e), 0);
    return out;
}

/* Writes that follow each other read the object's last committed tree
 * from the writer's cache: what a caller does to the object it got back,
 * a write refused or rolled back, a delete and a new object of the same
 * name, never show in the next write, and the trees shared watchers got
 * are never changed by later writes. */
static void test_store_writer_cache_private(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct store_watch_opts so = {.shared = true};
    struct store_watch *w;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R("jobs.batch"), NULL, &so, &w, &e), 0);
    json_decref(create(t->s, "jobs.batch", "default", job_doc("j")));
    json_t *out = NULL;
    struct store_write_opts st = {.status = true};
    assert_int_equal(
        store_mutate(t->s, R("jobs.batch"), "default", "j", set_status_active, NULL, &st, &out, &e),
        0);
    /* The caller's tree is its own. */
    json_object_set_new(json_object_get(out, "status"), "active", json_integer(99));
    json_object_set_new(json_object_get(out, "metadata"), "labels", json_pack("{s:s}", "x", "y"));
    json_decref(out);
    /* Refused by the check after the mutation: nothing of it stays. */
    struct check_seen seen = {0};
    struct store_write_opts wo = {.check = refuse_parallelism, .check_arg = &seen};
    int two = 2, three = 3;
    assert_int_equal(
        store_mutate(t->s, R("jobs.batch"), "default", "j", set_parallelism, &two, &wo, &out, &e),
        ERR_FORBIDDEN);
    /* In a batch whose other write fails, the good write alone commits. */
    int four = 4;
    struct err e1, e2;
    err_init(&e1);
    err_init(&e2);
    struct store_write ws[2] = {
        {.r = R("jobs.batch"),
         .ns = "default",
         .name = "j",
         .fn = set_parallelism,
         .arg = &four,
         .e = &e1},
        {.r = R("jobs.batch"),
         .ns = "default",
         .name = "missing",
         .fn = set_parallelism,
         .arg = &four,
         .e = &e2},
    };
    store_write_many(t->s, ws, 2);
    assert_int_equal(ws[0].rc, 0);
    assert_int_equal(ws[1].rc, ERR_NOT_FOUND);
    json_decref(ws[0].out);
    err_init(&e);
    assert_int_equal(
        store_mutate(t->s, R("jobs.batch"), "default", "j", set_status_active, NULL, &st, &out, &e),
        0);
    json_t *got = get_obj(t->s, "jobs.batch", "default", "j");
    assert_true(json_equal(out, got));
    json_t *spec = json_object_get(got, "spec"), *status = json_object_get(got, "status");
    assert_int_equal(json_integer_value(json_object_get(spec, "parallelism")), 4);
    assert_int_equal(json_integer_value(json_object_get(status, "active")), 1);
    assert_null(json_object_get(json_object_get(got, "metadata"), "labels"));
    json_decref(out);
    json_decref(got);
    /* Deleted and made again: the new object, not the cached one. */
    bool deleted = false;
    assert_int_equal(store_delete(t->s, R("jobs.batch"), "default", "j", NULL, &out, &deleted, &e),
                     0);
    json_decref(out);
    json_t *again = job_doc("j");
    json_object_set_new(json_object_get(again, "spec"), "parallelism", json_integer(three));
    json_decref(create(t->s, "jobs.batch", "default", again));
    assert_int_equal(
        store_mutate(t->s, R("jobs.batch"), "default", "j", set_status_active, NULL, &st, &out, &e),
        0);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(out, "spec"), "parallelism")), 3);
    json_decref(out);
    /* Every event's tree still says what its text says. */
    struct store_event ev;
    int n = 0;
    while (store_watch_next(w, 0, &ev, &e) == 0) {
        assert_non_null(ev.text);
        char *text = json_dumps(ev.object, JSON_COMPACT);
        assert_string_equal(text, ev.text);
        free(text);
        store_event_release(&ev);
        n++;
    }
    assert_int_equal(n, 6);
    store_watch_close(w);
    tstore_free(t);
}

/* The next event of w, which must come; its object is returned (a
 * reference) and the event released. */
static json_t *next_object(struct store_watch *w)
{
    struct err e;
    err_init(&e);
    struct store_event ev;
    assert_int_equal(store_watch_next(w, 0, &ev, &e), 0);
    json_t *o = json_incref(ev.object);
    store_event_release(&ev);
    return o;
}

/* With shared_out, a write's result is the very tree its watchers in this
 * process get (no copy made for them); without, the caller's own copy.
 * Either way it is what is stored, and a write that changes nothing gives
 * the stored object back. */
static void test_store_shared_out(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct store_watch_opts so = {.shared = true};
    struct store_watch *w;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R("jobs.batch"), NULL, &so, &w, &e), 0);
    struct store_write_opts shared = {.shared_out = true};
    struct store_write_opts status = {.status = true, .shared_out = true};
    json_t *job = job_doc("j"), *out = NULL;
    assert_int_equal(store_create(t->s, R("jobs.batch"), "default", job, &shared, &out, &e), 0);
    json_decref(job);
    json_t *seen = next_object(w);
    assert_ptr_equal(seen, out);
    json_decref(seen);
    json_decref(out);
    assert_int_equal(store_mutate(t->s, R("jobs.batch"), "default", "j", set_status_active, NULL,
                                  &status, &out, &e),
                     0);
    seen = next_object(w);
    assert_ptr_equal(seen, out);
    json_t *got = get_obj(t->s, "jobs.batch", "default", "j");
    assert_true(json_equal(got, out));
    json_decref(got);
    json_decref(seen);
    json_decref(out);
    /* The same status again: no event, the stored object back. */
    assert_int_equal(store_mutate(t->s, R("jobs.batch"), "default", "j", set_status_active, NULL,
                                  &status, &out, &e),
                     0);
    got = get_obj(t->s, "jobs.batch", "default", "j");
    assert_true(json_equal(got, out));
    json_decref(got);
    json_decref(out);
    struct store_event ev;
    assert_int_equal(store_watch_next(w, 0, &ev, &e), ERR_NOT_FOUND);
    /* Without it: a copy of its own. */
    int two = 2;
    assert_int_equal(
        store_mutate(t->s, R("jobs.batch"), "default", "j", set_parallelism, &two, NULL, &out, &e),
        0);
    seen = next_object(w);
    assert_ptr_not_equal(seen, out);
    assert_true(json_equal(seen, out));
    json_decref(seen);
    json_decref(out);
    store_watch_close(w);
    tstore_free(t);
}

/* The api layer's admission, counting the updates judged against the view
 * the writer kept of the stored tree instead of decoding it again. */
static int views_reused, views_wrong;

static int counting_admit(const struct store_resource *r, json_t *doc, const json_t *old,
                          struct store__views *v, struct err *e)
{
    if (old && v && v->old) {
        views_reused++;
        if (v->old->json != old)
            views_wrong++;
    }
    return store__admit_api(r, doc, old, v, e);
}

static json_t *set_label_x(const json_t *cur, void *arg, struct err *e)
{
    json_t *o = json_deep_copy(cur);
    json_object_set_new(api_doc_meta(o), "labels", json_pack("{s:s}", "x", (const char *)arg));
    return o;
}

static json_t *set_lq_cq(const json_t *cur, void *arg, struct err *e)
{
    json_t *o = json_deep_copy(cur);
    json_object_set_new(json_object_get(o, "spec"), "clusterQueue", json_string(arg));
    return o;
}

/* An update after a shared_out update is validated against the typed view
 * that write left with the tree it cached, and judged as before: an allowed
 * change passes, spec.clusterQueue of a LocalQueue stays immutable. A write
 * without shared_out leaves no view, and the next update decodes again. */
static void test_store_update_view(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    store__set_admit(t->s, counting_admit);
    views_reused = views_wrong = 0;
    const struct store_resource *lq = R("localqueues.kueue.x-k8s.io");
    struct store_write_opts so = {.shared_out = true};
    struct err e;
    err_init(&e);
    json_t *doc = parse("{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"LocalQueue\","
                        "\"metadata\":{\"name\":\"lq\"},\"spec\":{\"clusterQueue\":\"cq\"}}");
    json_t *out = NULL;
    assert_int_equal(store_create(t->s, lq, "default", doc, &so, &out, &e), 0);
    json_decref(doc);
    json_decref(out);
    assert_int_equal(store_mutate(t->s, lq, "default", "lq", set_label_x, "1", &so, &out, &e), 0);
    json_decref(out);
    assert_int_equal(views_reused, 0); /* a create leaves none */
    assert_int_equal(store_mutate(t->s, lq, "default", "lq", set_label_x, "2", &so, &out, &e), 0);
    json_decref(out);
    assert_int_equal(views_reused, 1);
    err_init(&e);
    assert_int_equal(store_mutate(t->s, lq, "default", "lq", set_lq_cq, "other", &so, &out, &e),
                     ERR_INVALID);
    assert_non_null(strstr(e.message, "field is immutable"));
    assert_null(out);
    assert_int_equal(views_reused, 2);
    err_init(&e);
    assert_int_equal(store_mutate(t->s, lq, "default", "lq", set_label_x, "3", NULL, &out, &e), 0);
    json_decref(out);
    assert_int_equal(views_reused, 3);
    assert_int_equal(store_mutate(t->s, lq, "default", "lq", set_label_x, "4", &so, &out, &e), 0);
    json_decref(out);
    assert_int_equal(views_reused, 3); /* the write before kept no view */
    err_init(&e);
    assert_int_equal(store_mutate(t->s, lq, "default", "lq", set_lq_cq, "other", &so, &out, &e),
                     ERR_INVALID);
    assert_int_equal(views_reused, 4);
    assert_int_equal(views_wrong, 0);
    json_t *got = get_obj(t->s, "localqueues.kueue.x-k8s.io", "default", "lq");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(got, "spec"), "clusterQueue")), "cq");
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(got, "metadata"), "labels"), "x")),
                        "4");
    json_decref(got);
    tstore_free(t);
}

/* The api layer's defaulting and validation run on every write. */
static void test_store_api_validation(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *cq =
        create(t->s, CQ, NULL,
               parse("{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ClusterQueue\","
                     "\"metadata\":{\"name\":\"cq\"},\"spec\":{}}"));
    json_t *spec = json_object_get(cq, "spec");
    assert_string_equal(json_string_value(json_object_get(spec, "queueingStrategy")),
                        "BestEffortFIFO");
    uint64_t before = store_current_rv(t->s);
    json_t *bad =
        parse("{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ClusterQueue\","
              "\"metadata\":{\"name\":\"bad\"},\"spec\":{\"queueingStrategy\":\"Random\"}}");
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    assert_int_equal(store_create(t->s, R(CQ), NULL, bad, NULL, &out, &e), ERR_INVALID);
    assert_null(out);
    assert_true(e.ncauses >= 1);
    assert_string_equal(e.causes[0].field, "spec.queueingStrategy");
    assert_int_equal(store_current_rv(t->s), before);
    assert_false(exists_any(t->s, CQ, NULL, "bad"));
    /* Immutable on update: a LocalQueue's clusterQueue. */
    json_t *lq =
        create(t->s, "localqueues.kueue.x-k8s.io", "default",
               parse("{\"metadata\":{\"name\":\"lq\"},\"spec\":{\"clusterQueue\":\"cq\"}}"));
    json_t *edit = json_deep_copy(lq);
    json_object_set_new(json_object_get(edit, "spec"), "clusterQueue", json_string("other"));
    err_init(&e);
    assert_int_equal(
        store_update(t->s, R("localqueues.kueue.x-k8s.io"), "default", "lq", edit, NULL, &out, &e),
        ERR_INVALID);
    assert_string_equal(e.causes[0].field, "spec.clusterQueue");
    json_decref(edit);
    json_decref(lq);
    json_decref(bad);
    json_decref(cq);
    tstore_free(t);
}

/* ---- delete, finalizers, GC, namespaces ------------------------------------------------- */

static void test_store_delete_plain(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_decref(create(t->s, WL, "default", workload("wl1", NULL)));
    struct err e;
    err_init(&e);
    json_t *out;
    bool deleted;
    assert_int_equal(store_delete(t->s, R(WL), "default", "wl1", NULL, &out, &deleted, &e), 0);
    assert_true(deleted);
    assert_int_equal(rv_of(out), store_current_rv(t->s));
    json_decref(out);
    err_init(&e);
    assert_int_equal(store_delete(t->s, R(WL), "default", "wl1", NULL, &out, &deleted, &e),
                     ERR_NOT_FOUND);
    tstore_free(t);
}

static void test_store_delete_preconditions(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_decref(create(t->s, WL, "default", workload("wl1", NULL)));
    struct err e;
    err_init(&e);
    bool deleted;
    struct store_delete_opts o = {.precondition_uid = "nope"};
    assert_int_equal(store_delete(t->s, R(WL), "default", "wl1", &o, NULL, &deleted, &e),
                     ERR_CONFLICT);
    assert_non_null(strstr(e.message, "Precondition failed: UID in precondition: nope"));
    o = (struct store_delete_opts){.precondition_resource_version = "1"};
    err_init(&e);
    assert_int_equal(store_delete(t->s, R(WL), "default", "wl1", &o, NULL, &deleted, &e),
                     ERR_CONFLICT);
    tstore_free(t);
}

static void test_store_finalizers(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *in = workload("wl1", NULL);
    json_object_set_new(json_object_get(in, "metadata"), "finalizers",
                        parse("[\"kueue.x-k8s.io/resource-in-use\"]"));
    json_t *v1 = create(t->s, WL, "default", in);
    struct err e;
    err_init(&e);
    json_t *out;
    bool deleted;
    assert_int_equal(store_delete(t->s, R(WL), "default", "wl1", NULL, &out, &deleted, &e), 0);
    assert_false(deleted);
    assert_non_null(mstr(out, "deletionTimestamp"));
    /* A second delete changes nothing. */
    json_t *again;
    err_init(&e);
    assert_int_equal(store_delete(t->s, R(WL), "default", "wl1", NULL, &again, &deleted, &e), 0);
    assert_false(deleted);
    assert_int_equal(rv_of(again), rv_of(out));
    json_decref(again);
    /* No new finalizer may be added now. */
    json_t *edit = json_deep_copy(out);
    json_array_append_new(json_object_get(json_object_get(edit, "metadata"), "finalizers"),
                          json_string("x/y"));
    json_t *v;
    err_init(&e);
    assert_int_equal(store_update(t->s, R(WL), "default", "wl1", edit, NULL, &v, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].field, "metadata.finalizers");
    assert_string_equal(e.causes[0].message,
                        "Forbidden: no new finalizers can be added if the object is being "
                        "deleted, found new finalizers []string{\"x/y\"}");
    json_decref(edit);
    /* Emptying the finalizers removes the object. */
    edit = json_deep_copy(out);
    json_object_set_new(json_object_get(edit, "metadata"), "finalizers", json_array());
    err_init(&e);
    assert_int_equal(store_update(t->s, R(WL), "default", "wl1", edit, NULL, &v, &e), 0);
    json_t *got;
    err_init(&e);
    assert_int_equal(store_get(t->s, R(WL), "default", "wl1", &got, &e), ERR_NOT_FOUND);
    json_decref(v);
    json_decref(edit);
    json_decref(out);
    json_decref(v1);
    tstore_free(t);
}

static json_t *owned(const char *res_kind, const char *name, const json_t *owner,
                     const json_t *owner2)
{
    char buf[1024];
    /* Workloads need pod sets; pods are stored as given. */
    bool wl = !strcmp(res_kind, "wl");
    snprintf(buf, sizeof(buf),
             "{\"metadata\":{\"name\":\"%s\",\"ownerReferences\":[]},\"spec\":{%s}}", name,
             wl ? "\"podSets\":[{\"name\":\"main\",\"count\":1," TEMPLATE "}]" : "");
    json_t *o = parse(buf);
    json_t *refs = json_object_get(json_object_get(o, "metadata"), "ownerReferences");
    const json_t *owners[2] = {owner, owner2};
    for (int i = 0; i < 2; i++) {
        if (!owners[i])
            continue;
        json_array_append_new(
            refs, json_pack("{s:s,s:s,s:s,s:s,s:b}", "apiVersion",
                            json_string_value(json_object_get(owners[i], "apiVersion")), "kind",
                            json_string_value(json_object_get(owners[i], "kind")), "name",
                            mstr(owners[i], "name"), "uid", mstr(owners[i], "uid"), "controller",
                            i == 0));
    }
    return o;
}

static bool exists(struct store *s, const char *res, const char *ns, const char *name)
{
    struct err e;
    err_init(&e);
    json_t *o = NULL;
    int rc = store_get(s, R(res), ns, name, &o, &e);
    json_decref(o);
    return rc == 0;
}

static void test_store_gc_owned_objects(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *job = create(t->s, "jobs.batch", "default", job_doc("j"));
    json_t *other = create(t->s, "jobs.batch", "default", job_doc("other"));
    json_t *wl = create(t->s, WL, "default", owned("wl", "job-j", job, NULL));
    json_decref(create(t->s, "pods", "default", owned("pod", "p1", job, NULL)));
    /* Owned by the workload: collected transitively. */
    json_decref(create(t->s, "pods", "default", owned("pod", "p2", wl, NULL)));
    /* Two owners, one stays: kept, with the dangling reference dropped. */
    json_decref(create(t->s, "pods", "default", owned("pod", "p3", job, other)));
    struct err e;
    err_init(&e);
    bool deleted;
    assert_int_equal(store_delete(t->s, R("jobs.batch"), "default", "j", NULL, NULL, &deleted, &e),
                     0);
    assert_true(deleted);
    assert_false(exists(t->s, WL, "default", "job-j"));
    assert_false(exists(t->s, "pods", "default", "p1"));
    assert_false(exists(t->s, "pods", "default", "p2"));
    json_t *p3;
    err_init(&e);
    assert_int_equal(store_get(t->s, R("pods"), "default", "p3", &p3, &e), 0);
    json_t *refs = json_object_get(json_object_get(p3, "metadata"), "ownerReferences");
    assert_int_equal(json_array_size(refs), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(refs, 0), "uid")),
                        mstr(other, "uid"));
    json_decref(p3);

    /* Orphan: the owner goes, dependents stay without the reference. */
    json_decref(create(t->s, "pods", "default", owned("pod", "p4", other, NULL)));
    struct store_delete_opts o = {.propagation_policy = "Orphan"};
    err_init(&e);
    assert_int_equal(
        store_delete(t->s, R("jobs.batch"), "default", "other", &o, NULL, &deleted, &e), 0);
    json_t *p4;
    err_init(&e);
    assert_int_equal(store_get(t->s, R("pods"), "default", "p4", &p4, &e), 0);
    assert_null(json_object_get(json_object_get(p4, "metadata"), "ownerReferences"));
    json_decref(p4);
    json_decref(job);
    json_decref(other);
    json_decref(wl);
    tstore_free(t);
}

/* Mark in's first owner reference blockOwnerDeletion: true. */
static void block_owner(json_t *in)
{
    json_t *refs = json_object_get(json_object_get(in, "metadata"), "ownerReferences");
    json_object_set_new(json_array_get(refs, 0), "blockOwnerDeletion", json_true());
}

static void test_store_gc_foreground(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *job = create(t->s, "jobs.batch", "default", job_doc("j"));
    json_t *in = owned("wl", "job-j", job, NULL);
    json_object_set_new(json_object_get(in, "metadata"), "finalizers", parse("[\"x/y\"]"));
    block_owner(in);
    json_decref(create(t->s, WL, "default", in));
    json_decref(create(t->s, "pods", "default", owned("pod", "p1", job, NULL)));
    struct err e;
    err_init(&e);
    bool deleted;
    json_t *out;
    struct store_delete_opts o = {.propagation_policy = "Foreground"};
    assert_int_equal(store_delete(t->s, R("jobs.batch"), "default", "j", &o, &out, &deleted, &e),
                     0);
    /* The pod went; the held workload keeps the job, marked foregroundDeletion. */
    assert_false(deleted);
    assert_false(exists(t->s, "pods", "default", "p1"));
    assert_non_null(mstr(out, "deletionTimestamp"));
    json_t *fin = json_object_get(json_object_get(out, "metadata"), "finalizers");
    assert_string_equal(json_string_value(json_array_get(fin, 0)), "foregroundDeletion");
    json_decref(out);
    json_t *wl;
    err_init(&e);
    assert_int_equal(store_get(t->s, R(WL), "default", "job-j", &wl, &e), 0);
    assert_non_null(mstr(wl, "deletionTimestamp"));
    /* Its last dependent gone, the job goes too. */
    json_object_del(json_object_get(wl, "metadata"), "finalizers");
    err_init(&e);
    assert_int_equal(store_update(t->s, R(WL), "default", "job-j", wl, NULL, &out, &e), 0);
    json_decref(out);
    json_decref(wl);
    assert_false(exists(t->s, WL, "default", "job-j"));
    assert_false(exists(t->s, "jobs.batch", "default", "j"));
    json_decref(job);
    tstore_free(t);
}

/* As in Kubernetes, only a dependent whose reference has
 * blockOwnerDeletion: true holds its owner in foreground deletion: one
 * without it, kept by its finalizer, is marked deleted, and the owner goes
 * at once; a blocking one keeps it until it goes, whatever the others. */
static void test_store_gc_foreground_non_blocking(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *job = create(t->s, "jobs.batch", "default", job_doc("j"));
    json_t *in = owned("pod", "loose", job, NULL);
    json_object_set_new(json_object_get(in, "metadata"), "finalizers", parse("[\"x/y\"]"));
    json_decref(create(t->s, "pods", "default", in));
    struct err e;
    err_init(&e);
    bool deleted;
    struct store_delete_opts o = {.propagation_policy = "Foreground"};
    assert_int_equal(store_delete(t->s, R("jobs.batch"), "default", "j", &o, NULL, &deleted, &e),
                     0);
    assert_true(deleted);
    assert_false(exists(t->s, "jobs.batch", "default", "j"));
    json_t *pod;
    err_init(&e);
    assert_int_equal(store_get(t->s, R("pods"), "default", "loose", &pod, &e), 0);
    assert_non_null(mstr(pod, "deletionTimestamp"));
    json_decref(pod);
    json_decref(job);

    /* A blocking and a loose dependent: the owner waits for the blocking
     * one only. */
    job = create(t->s, "jobs.batch", "default", job_doc("k"));
    in = owned("pod", "held", job, NULL);
    json_object_set_new(json_object_get(in, "metadata"), "finalizers", parse("[\"x/y\"]"));
    block_owner(in);
    json_decref(create(t->s, "pods", "default", in));
    in = owned("pod", "loose2", job, NULL);
    json_object_set_new(json_object_get(in, "metadata"), "finalizers", parse("[\"x/y\"]"));
    json_decref(create(t->s, "pods", "default", in));
    err_init(&e);
    assert_int_equal(store_delete(t->s, R("jobs.batch"), "default", "k", &o, NULL, &deleted, &e),
                     0);
    assert_false(deleted);
    json_t *out;
    err_init(&e);
    assert_int_equal(store_get(t->s, R("pods"), "default", "held", &pod, &e), 0);
    json_object_del(json_object_get(pod, "metadata"), "finalizers");
    assert_int_equal(store_update(t->s, R("pods"), "default", "held", pod, NULL, &out, &e), 0);
    json_decref(out);
    json_decref(pod);
    assert_false(exists(t->s, "jobs.batch", "default", "k"));
    assert_true(exists(t->s, "pods", "default", "loose2"));
    json_decref(job);

    /* A blocking reference with the owner's uid but another name (one its
     * writer may block) does not hold the owner. */
    job = create(t->s, "jobs.batch", "default", job_doc("m"));
    in = owned("pod", "alias", job, NULL);
    json_object_set_new(json_object_get(in, "metadata"), "finalizers", parse("[\"x/y\"]"));
    block_owner(in);
    json_t *refs = json_object_get(json_object_get(in, "metadata"), "ownerReferences");
    json_object_set_new(json_array_get(refs, 0), "name", json_string("mine"));
    json_decref(create(t->s, "pods", "default", in));
    err_init(&e);
    assert_int_equal(store_delete(t->s, R("jobs.batch"), "default", "m", &o, NULL, &deleted, &e),
                     0);
    assert_true(deleted);
    assert_true(exists(t->s, "pods", "default", "alias"));
    json_decref(job);
    tstore_free(t);
}

/* A dependent whose finalizer is dropped (store_update), gone after. */
static void release(struct store *s, const char *res, const char *name)
{
    json_t *o, *out;
    struct err e;
    err_init(&e);
    assert_int_equal(store_get(s, R(res), "default", name, &o, &e), 0);
    json_object_del(json_object_get(o, "metadata"), "finalizers");
    assert_int_equal(store_update(s, R(res), "default", name, o, NULL, &out, &e), 0);
    json_decref(out);
    json_decref(o);
}

/* Foreground deletion cascades as Kubernetes' garbage collector cascades
 * it: a dependent with dependents of its own is deleted in the foreground
 * too, so the owner waits until the deepest blocking dependent is gone. */
static void test_store_gc_foreground_chain(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *job = create(t->s, "jobs.batch", "default", job_doc("j"));
    json_t *in = owned("wl", "w", job, NULL);
    block_owner(in);
    json_t *wl = create(t->s, WL, "default", in);
    in = owned("pod", "p", wl, NULL);
    json_object_set_new(json_object_get(in, "metadata"), "finalizers", parse("[\"x/y\"]"));
    block_owner(in);
    json_decref(create(t->s, "pods", "default", in));
    struct err e;
    err_init(&e);
    bool deleted;
    struct store_delete_opts o = {.propagation_policy = "Foreground"};
    assert_int_equal(store_delete(t->s, R("jobs.batch"), "default", "j", &o, NULL, &deleted, &e),
                     0);
    assert_false(deleted);
    static const char *const held[][2] = {{"jobs.batch", "j"}, {WL, "w"}};
    for (size_t i = 0; i < 2; i++) {
        json_t *h;
        err_init(&e);
        assert_int_equal(store_get(t->s, R(held[i][0]), "default", held[i][1], &h, &e), 0);
        assert_non_null(mstr(h, "deletionTimestamp"));
        json_t *fin = json_object_get(json_object_get(h, "metadata"), "finalizers");
        assert_string_equal(json_string_value(json_array_get(fin, 0)), "foregroundDeletion");
        json_decref(h);
    }
    release(t->s, "pods", "p");
    assert_false(exists(t->s, "pods", "default", "p"));
    assert_false(exists(t->s, WL, "default", "w"));
    assert_false(exists(t->s, "jobs.batch", "default", "j"));
    json_decref(wl);
    json_decref(job);
    tstore_free(t);
}

/* Kubernetes' garbage collector judges every object written, not only the
 * dependents of an owner deleted: an object whose owners are all absent (no
 * such uid, or the name of another object's) is deleted as soon as it is
 * written, one with an owner present loses the others' references, and
 * one owned by a kind not served is left alone. */
static void test_store_gc_dangling_at_write(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *ghost = parse("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":"
                          "\"ghost\",\"uid\":\"00000000-0000-4000-8000-000000000000\"}}");
    json_decref(create(t->s, "pods", "default", owned("pod", "orphan", ghost, NULL)));
    assert_false(exists(t->s, "pods", "default", "orphan"));
    json_t *job = create(t->s, "jobs.batch", "default", job_doc("j"));
    json_t *pod = create(t->s, "pods", "default", owned("pod", "two", ghost, job));
    assert_true(exists(t->s, "pods", "default", "two"));
    json_decref(pod);
    struct err e;
    err_init(&e);
    assert_int_equal(store_get(t->s, R("pods"), "default", "two", &pod, &e), 0);
    json_t *refs = json_object_get(json_object_get(pod, "metadata"), "ownerReferences");
    assert_int_equal(json_array_size(refs), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(refs, 0), "uid")),
                        mstr(job, "uid"));
    json_decref(pod);
    /* The name of a live Job with another uid: absent too. */
    json_object_set_new(api_doc_meta(ghost), "name", json_string("j"));
    json_decref(create(t->s, "pods", "default", owned("pod", "renamed", ghost, NULL)));
    assert_false(exists(t->s, "pods", "default", "renamed"));
    /* A reference added by an update. */
    json_decref(create(t->s, "pods", "default", owned("pod", "later", NULL, NULL)));
    err_init(&e);
    assert_int_equal(store_get(t->s, R("pods"), "default", "later", &pod, &e), 0);
    json_t *in = owned("pod", "later", ghost, NULL);
    json_object_set(api_doc_meta(pod), "ownerReferences",
                    json_object_get(api_doc_meta(in), "ownerReferences"));
    json_decref(in);
    json_t *out;
    err_init(&e);
    assert_int_equal(store_update(t->s, R("pods"), "default", "later", pod, NULL, &out, &e), 0);
    json_decref(out);
    json_decref(pod);
    assert_false(exists(t->s, "pods", "default", "later"));
    /* A kind not served cannot be judged. */
    json_object_set_new(ghost, "apiVersion", json_string("example.com/v1"));
    json_decref(create(t->s, "pods", "default", owned("pod", "unjudged", ghost, NULL)));
    assert_true(exists(t->s, "pods", "default", "unjudged"));
    /* Nothing is left for the sweep of a store opened. */
    err_init(&e);
    assert_int_equal(store_gc_orphans(t->s, &e), 0);
    json_decref(job);
    json_decref(ghost);
    tstore_free(t);
}

/* The index names of the database (objects only), comma-separated, sorted. */
static void object_indexes(const char *path, char *out, size_t len)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT group_concat(name) FROM (SELECT name FROM "
                                        "sqlite_master WHERE type='index' AND tbl_name='objects' "
                                        "AND sql IS NOT NULL ORDER BY name)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* A store an older cueue wrote (its uid index without the namespace) is
 * opened as before: the index is replaced, and the sweep at open still
 * tells owners in the dependent's namespace from those elsewhere. */
static void test_store_open_replaces_uid_index(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    create_ns(t->s, "team-a");
    create_ns(t->s, "team-b");
    json_t *job = create(t->s, "jobs.batch", "team-a", job_doc("j"));
    json_decref(create(t->s, "pods", "team-a", owned("pod", "mine", job, NULL)));
    json_decref(create(t->s, "pods", "team-b", owned("pod", "stray", job, NULL)));
    store_close(t->s);
    t->s = NULL;
    sqlite3 *db;
    assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "DROP INDEX objects_uid_ns; "
                                  "CREATE INDEX objects_uid ON objects(uid);",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    char idx[256];
    object_indexes(t->path, idx, sizeof(idx));
    assert_string_equal(idx, "objects_logged,objects_uid");

    tstore_reopen(t, 0, 0);
    object_indexes(t->path, idx, sizeof(idx));
    assert_string_equal(idx, "objects_logged,objects_uid_ns");
    assert_true(exists(t->s, "pods", "team-a", "mine"));
    assert_false(exists(t->s, "pods", "team-b", "stray"));
    json_decref(job);
    tstore_free(t);
}

/* An owner is looked for in its dependent's namespace (or among
 * cluster-scoped objects), as Kubernetes' garbage collector looks: an object
 * of another namespace named by uid owns nothing there. Such a "dependent"
 * is deleted as soon as it is made, and the object's deletion, even in the
 * foreground, is not held by it. */
static void test_store_gc_owner_other_namespace(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    create_ns(t->s, "team-a");
    create_ns(t->s, "team-b");
    json_t *job = create(t->s, "jobs.batch", "team-b", job_doc("j"));
    json_t *in = owned("pod", "p", job, NULL);
    json_object_set_new(json_object_get(in, "metadata"), "finalizers", parse("[\"x/y\"]"));
    block_owner(in);
    json_decref(create(t->s, "pods", "team-a", in));
    json_decref(create(t->s, "pods", "team-b", owned("pod", "mine", job, NULL)));
    json_t *pod;
    struct err e;
    err_init(&e);
    assert_int_equal(store_get(t->s, R("pods"), "team-a", "p", &pod, &e), 0);
    assert_non_null(mstr(pod, "deletionTimestamp"));
    json_decref(pod);
    bool deleted;
    struct store_delete_opts o = {.propagation_policy = "Foreground"};
    err_init(&e);
    assert_int_equal(store_delete(t->s, R("jobs.batch"), "team-b", "j", &o, NULL, &deleted, &e), 0);
    assert_true(deleted);
    assert_false(exists(t->s, "pods", "team-b", "mine"));
    assert_true(exists(t->s, "pods", "team-a", "p"));
    json_decref(job);
    tstore_free(t);
}

static void test_store_namespace_deletion(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    create_ns(t->s, "team-a");
    json_decref(create(t->s, WL, "team-a", workload("wl1", NULL)));
    json_decref(
        create(t->s, "localqueues.kueue.x-k8s.io", "team-a",
               parse("{\"metadata\":{\"name\":\"lq\"},\"spec\":{\"clusterQueue\":\"cq\"}}")));
    json_t *held = workload("held", NULL);
    json_object_set_new(json_object_get(held, "metadata"), "finalizers", parse("[\"x/y\"]"));
    json_t *heldo = create(t->s, WL, "team-a", held);
    json_decref(create(t->s, WL, "default", workload("elsewhere", NULL)));

    struct err e;
    err_init(&e);
    json_t *out;
    bool deleted;
    assert_int_equal(store_delete(t->s, R("namespaces"), NULL, "team-a", NULL, &out, &deleted, &e),
                     0);
    /* The held workload keeps the namespace, Terminating. */
    assert_false(deleted);
    assert_string_equal(json_string_value(json_object_get(json_object_get(out, "status"), "phase")),
                        "Terminating");
    json_decref(out);
    assert_false(exists(t->s, WL, "team-a", "wl1"));
    assert_false(exists(t->s, "localqueues.kueue.x-k8s.io", "team-a", "lq"));
    assert_true(exists(t->s, WL, "team-a", "held"));
    assert_true(exists(t->s, WL, "default", "elsewhere"));
    /* No new content in a terminating namespace. */
    json_t *in = workload("late", NULL);
    err_init(&e);
    assert_int_equal(store_create(t->s, R(WL), "team-a", in, NULL, &out, &e), ERR_FORBIDDEN);
    assert_string_equal(e.message, "workloads.kueue.x-k8s.io \"late\" is forbidden: unable to "
                                   "create new content in namespace team-a because it is being "
                                   "terminated");
    json_decref(in);
    /* Removing the last finalizer removes the object and then the namespace. */
    json_t *got;
    err_init(&e);
    assert_int_equal(store_get(t->s, R(WL), "team-a", "held", &got, &e), 0);
    json_object_set_new(json_object_get(got, "metadata"), "finalizers", json_array());
    err_init(&e);
    assert_int_equal(store_update(t->s, R(WL), "team-a", "held", got, NULL, &out, &e), 0);
    json_decref(out);
    json_decref(got);
    assert_false(exists(t->s, "namespaces", NULL, "team-a"));
    json_decref(heldo);

    /* An empty namespace goes at once. */
    create_ns(t->s, "empty");
    err_init(&e);
    assert_int_equal(store_delete(t->s, R("namespaces"), NULL, "empty", NULL, NULL, &deleted, &e),
                     0);
    assert_true(deleted);
    assert_false(exists(t->s, "namespaces", NULL, "empty"));
    tstore_free(t);
}

/* ---- list ---------------------------------------------------------------------------------- */

static void list_names(struct store *s, const char *ns, const char *lsel, const char *fsel,
                       const char *want)
{
    struct err e;
    err_init(&e);
    struct store_list_opts o = {.label_selector = lsel, .field_selector = fsel};
    struct store_list l;
    int rc = store_list(s, R(WL), ns, &o, &l, &e);
    if (rc)
        fail_msg("list %s/%s: %s", lsel ? lsel : "", fsel ? fsel : "", e.message);
    char got[1024] = "";
    for (size_t i = 0; i < l.n; i++) {
        strcat(got, i ? "," : "");
        strcat(got, mstr(l.items[i], "name"));
    }
    assert_string_equal(got, want);
    store_list_release(&l);
}

static void test_store_list_selectors(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    create_ns(t->s, "b");
    json_decref(create(t->s, WL, "default", workload("w1", "{\"env\":\"prod\",\"tier\":\"1\"}")));
    json_decref(create(t->s, WL, "default", workload("w2", "{\"env\":\"dev\"}")));
    json_decref(create(t->s, WL, "b", workload("w3", "{\"env\":\"prod\",\"foo\":\"x\"}")));
    json_decref(create(t->s, WL, "default", workload("w0", "{}")));
    list_names(t->s, NULL, NULL, NULL, "w3,w0,w1,w2");
    list_names(t->s, "default", NULL, NULL, "w0,w1,w2");
    list_names(t->s, NULL, "env=prod", NULL, "w3,w1");
    list_names(t->s, NULL, "env==prod", NULL, "w3,w1");
    list_names(t->s, NULL, "env!=prod", NULL, "w0,w2");
    list_names(t->s, NULL, "env in (dev, prod),tier", NULL, "w1");
    list_names(t->s, NULL, "env notin (prod)", NULL, "w0,w2");
    list_names(t->s, NULL, "!foo", NULL, "w0,w1,w2");
    list_names(t->s, NULL, "foo", NULL, "w3");
    list_names(t->s, NULL, "tier>0", NULL, "w1");
    list_names(t->s, NULL, NULL, "metadata.name=w2", "w2");
    list_names(t->s, NULL, NULL, "metadata.namespace==b", "w3");
    list_names(t->s, NULL, "env=prod", "metadata.namespace!=b", "w1");

    struct err e;
    struct store_list l;
    err_init(&e);
    struct store_list_opts bad = {.label_selector = "env in (a"};
    assert_int_equal(store_list(t->s, R(WL), NULL, &bad, &l, &e), ERR_PARSE);
    err_init(&e);
    bad = (struct store_list_opts){.field_selector = "spec.queueName=lq"};
    assert_int_equal(store_list(t->s, R(WL), NULL, &bad, &l, &e), ERR_PARSE);
    assert_string_equal(e.message, "field label not supported: spec.queueName");
    tstore_free(t);
}

static void test_store_list_pagination(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    char name[16];
    for (int i = 0; i < 25; i++) {
        snprintf(name, sizeof(name), "w%02d", i);
        json_decref(create(t->s, WL, "default", workload(name, i % 2 ? "{\"odd\":\"y\"}" : "{}")));
    }
    uint64_t rv = store_current_rv(t->s);
    struct err e;
    char *tok = NULL;
    int seen = 0, pages = 0;
    do {
        struct store_list_opts o = {.limit = 10, .continue_token = tok};
        struct store_list l;
        err_init(&e);
        assert_int_equal(store_list(t->s, R(WL), "default", &o, &l, &e), 0);
        assert_int_equal(l.resource_version, rv);
        for (size_t i = 0; i < l.n; i++) {
            snprintf(name, sizeof(name), "w%02d", seen++);
            assert_string_equal(mstr(l.items[i], "name"), name);
        }
        if (pages == 0)
            assert_int_equal(l.remaining, 15);
        free(tok);
        tok = l.continue_token ? strdup(l.continue_token) : NULL;
        pages++;
        /* A write between pages does not change the list's version. */
        if (pages == 1)
            json_decref(create(t->s, "pods", "default", parse("{\"metadata\":{\"name\":\"x\"}}")));
        store_list_release(&l);
    } while (tok);
    assert_int_equal(seen, 25);
    assert_int_equal(pages, 3);

    /* Filtered pages hold exactly limit matches. */
    struct store_list_opts o = {.limit = 5, .label_selector = "odd"};
    struct store_list l;
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), NULL, &o, &l, &e), 0);
    assert_int_equal(l.n, 5);
    assert_string_equal(mstr(l.items[4], "name"), "w09");
    assert_non_null(l.continue_token);
    assert_int_equal(l.remaining, -1);
    o.continue_token = l.continue_token;
    o.limit = 10;
    struct store_list l2;
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), NULL, &o, &l2, &e), 0);
    assert_int_equal(l2.n, 7); /* w11 ... w23 */
    assert_string_equal(mstr(l2.items[0], "name"), "w11");
    assert_null(l2.continue_token);
    store_list_release(&l2);
    /* The token continues its own list only: not the list of one namespace
     * (even the one its last item is in), not another resource's. */
    struct store_list_opts other = {.limit = 10, .continue_token = l.continue_token};
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), "default", &other, &l2, &e), ERR_PARSE);
    assert_string_equal(e.message,
                        "invalid continue token: continue key is not valid: default/w09");
    err_init(&e);
    assert_int_equal(store_list(t->s, R("pods"), NULL, &other, &l2, &e), ERR_PARSE);
    store_list_release(&l);
    o = (struct store_list_opts){.limit = 10};
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), "default", &o, &l, &e), 0);
    other.continue_token = l.continue_token;
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), "kube-system", &other, &l2, &e), ERR_PARSE);
    assert_string_equal(e.message, "invalid continue token: continue key is not valid: w09");
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), NULL, &other, &l2, &e), ERR_PARSE);
    store_list_release(&l);

    /* Raw items, and a garbage token. */
    o = (struct store_list_opts){.raw = true};
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), "default", &o, &l, &e), 0);
    assert_int_equal(l.n, 25);
    assert_null(l.items);
    assert_non_null(strstr(l.raw[0], "\"w00\""));
    store_list_release(&l);
    o = (struct store_list_opts){.continue_token = "!!!"};
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), "default", &o, &l, &e), ERR_PARSE);
    tstore_free(t);
}

static void test_store_list_continue_expired(void **state)
{
    struct tstore *t = tstore_new(300, 0);
    char name[16];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof(name), "w%d", i);
        json_decref(create(t->s, WL, "default", workload(name, NULL)));
    }
    struct store_list_opts o = {.limit = 1};
    struct store_list l;
    struct err e;
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), NULL, &o, &l, &e), 0);
    char *tok = strdup(l.continue_token);
    store_list_release(&l);
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "p%d", i);
        json_t *p = parse("{\"metadata\":{}}");
        json_object_set_new(json_object_get(p, "metadata"), "name", json_string(name));
        json_decref(create(t->s, "pods", "default", p));
    }
    o.continue_token = tok;
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), NULL, &o, &l, &e), ERR_GONE);
    free(tok);
    tstore_free(t);
}

/* ---- restart -----------------------------------------------------------------------------------
 */

static void test_store_restart_keeps_everything(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    char name[16];
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof(name), "w%d", i);
        json_decref(create(t->s, WL, "default", workload(name, NULL)));
    }
    struct err e;
    bool deleted;
    err_init(&e);
    assert_int_equal(store_delete(t->s, R(WL), "default", "w3", NULL, NULL, &deleted, &e), 0);
    uint64_t rv = store_current_rv(t->s);
    tstore_reopen(t, 0, 0);
    assert_int_equal(store_current_rv(t->s), rv);
    json_t *out = create(t->s, WL, "default", workload("after", NULL));
    assert_int_equal(rv_of(out), rv + 1);
    json_decref(out);
    struct store_list l;
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), "default", NULL, &l, &e), 0);
    assert_int_equal(l.n, 20);
    store_list_release(&l);
    tstore_free(t);
}

static void test_store_open_errors(void **state)
{
    struct store *s = NULL;
    struct err e;
    err_init(&e);
    struct store_options o = {.path = "/nonexistent-dir/x/cueue.db"};
    assert_int_equal(store_open(&o, &s, &e), ERR_IO);
    assert_null(s);
    assert_non_null(strstr(e.message, "/nonexistent-dir/x/cueue.db"));
    /* A file that is not a database. */
    struct tstore *t = tstore_new(0, 0);
    store_close(t->s);
    t->s = NULL;
    char junk[160];
    snprintf(junk, sizeof(junk), "%s/junk.db", t->dir);
    FILE *f = fopen(junk, "w");
    assert_non_null(f);
    for (int i = 0; i < 200; i++)
        fputs("this is not an SQLite database file\n", f);
    fclose(f);
    o.path = junk;
    err_init(&e);
    assert_int_equal(store_open(&o, &s, &e), ERR_IO);
    assert_null(s);
    tstore_free(t);
}

static void test_store_resources_table(void **state)
{
    const struct store_resource *r = store_resource_by_path("kueue.x-k8s.io", "localqueues");
    assert_non_null(r);
    assert_true(r->namespaced);
    assert_true(r->has_status);
    assert_string_equal(r->short_names[2], "lq");
    assert_ptr_equal(store_resource_by_kind("kueue.x-k8s.io/v1beta2", "Workload"), R(WL));
    assert_ptr_equal(store_resource_by_kind("batch/v1", "Job"), R("jobs.batch"));
    assert_ptr_equal(store_resource_by_kind("v1", "Namespace"), R("namespaces"));
    assert_null(store_resource_by_kind("kueue.x-k8s.io/v1beta1", "Workload"));
    assert_false(R("resourceflavors.kueue.x-k8s.io")->has_status);
    assert_false(R("topologies.kueue.x-k8s.io")->has_status);
    assert_false(R("workloadpriorityclasses.kueue.x-k8s.io")->has_status);
    assert_string_equal(R("pods")->categories[0], "all");
    assert_string_equal(R("jobs.batch")->categories[0], "all");
    assert_null(R(CQ)->categories);
    assert_null(store_resource_by_path("", "jobs"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_resources_table),
        cmocka_unit_test(test_store_open_errors),
        cmocka_unit_test(test_store_create_sets_server_fields),
        cmocka_unit_test(test_store_generation_only_where_kubernetes_sets_it),
        cmocka_unit_test(test_store_create_exists),
        cmocka_unit_test(test_store_create_namespace_rules),
        cmocka_unit_test(test_store_create_generate_name),
        cmocka_unit_test(test_store_create_obj_given),
        cmocka_unit_test(test_store_text_out),
        cmocka_unit_test(test_store_update_obj_given),
        cmocka_unit_test(test_store_create_invalid_name),
        cmocka_unit_test(test_store_dry_run_stores_nothing),
        cmocka_unit_test(test_store_update_conflict),
        cmocka_unit_test(test_store_fresh_mutations),
        cmocka_unit_test(test_store_write_many),
        cmocka_unit_test(test_store_update_builtin_unconditional),
        cmocka_unit_test(test_store_update_status_split),
        cmocka_unit_test(test_store_job_defaults_and_mutate),
        cmocka_unit_test(test_store_admission_hook),
        cmocka_unit_test(test_store_write_check),
        cmocka_unit_test(test_store_api_validation),
        cmocka_unit_test(test_store_delete_plain),
        cmocka_unit_test(test_store_delete_preconditions),
        cmocka_unit_test(test_store_finalizers),
        cmocka_unit_test(test_store_gc_owned_objects),
        cmocka_unit_test(test_store_gc_foreground),
        cmocka_unit_test(test_store_gc_foreground_non_blocking),
        cmocka_unit_test(test_store_open_replaces_uid_index),
        cmocka_unit_test(test_store_gc_foreground_chain),
        cmocka_unit_test(test_store_gc_dangling_at_write),
        cmocka_unit_test(test_store_gc_owner_other_namespace),
        cmocka_unit_test(test_store_namespace_deletion),
        cmocka_unit_test(test_store_list_selectors),
        cmocka_unit_test(test_store_list_pagination),
        cmocka_unit_test(test_store_list_continue_expired),
        cmocka_unit_test(test_store_restart_keeps_everything),
        cmocka_unit_test(test_store_writer_cache_private),
        cmocka_unit_test(test_store_shared_out),
        cmocka_unit_test(test_store_update_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
