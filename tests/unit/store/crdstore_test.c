/* crdstore_test.c -- CustomResourceDefinitions in the store (registry.c,
 * crdstore.c and their hooks in store.c): Kueue's installed at open, a
 * CRD's kinds served from its commit, names accepted or not, objects
 * validated by the schema, deletion of a CRD deleting its objects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/crd.h"
#include "store_test_util.h"

static json_t *parse(const char *text)
{
    char *s = strdup(text);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_error_t je;
    json_t *v = json_loads(s, 0, &je);
    if (!v)
        fail_msg("bad test JSON: %s: %s", je.text, s);
    free(s);
    return v;
}

static const struct store_resource *CRD(void)
{
    return store_resource_find(STORE_CRD_KEY);
}

#define WIDGET_CRD                                                                                 \
    "{'apiVersion':'apiextensions.k8s.io/v1','kind':'CustomResourceDefinition','metadata':{"       \
    "'name':'widgets.example.com'},'spec':{'group':'example.com','names':{'kind':'Widget',"        \
    "'plural':'widgets','shortNames':['wd']},'scope':'Namespaced','versions':[{'name':'v1',"       \
    "'served':true,'storage':true,'subresources':{'status':{}},'schema':{'openAPIV3Schema':{"      \
    "'type':'object','properties':{'spec':{'type':'object','properties':{'size':{'type':"          \
    "'integer','default':3,'maximum':10}}},'status':{'type':'object','properties':{'ok':{"         \
    "'type':'boolean'}}}}}}}]}}"

static json_t *create(struct store *s, const struct store_resource *r, const char *ns,
                      const char *text, int want)
{
    json_t *obj = parse(text);
    json_t *out = NULL;
    struct err e;
    err_init(&e);
    int rc = store_create(s, r, ns, obj, NULL, &out, &e);
    if (rc != want)
        fail_msg("create: %d (want %d) %s", rc, want, e.message);
    json_decref(obj);
    return out;
}

static const char *condition(const json_t *crd, const char *type)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(crd, "status"), "conditions"), i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "type")), type))
            return json_string_value(json_object_get(c, "status"));
    }
    return NULL;
}

/* Kueue's CRDs are there from the start, and name the kinds the clients
 * know (store_resources). */
static void test_crd_kueue_installed(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    for (const struct store_resource *r = store_resources(); r->plural; r++) {
        if (!r->custom)
            continue;
        const struct store_resource *live = store_lookup_key(t->s, r->key);
        assert_non_null(live);
        assert_non_null(live->crd);
        assert_string_equal(live->kind, r->kind);
        assert_string_equal(live->singular, r->singular);
        assert_string_equal(live->version, r->version);
        assert_int_equal(live->namespaced, r->namespaced);
        assert_int_equal(live->has_status, r->has_status);
        for (size_t i = 0; r->short_names && r->short_names[i]; i++)
            assert_string_equal(live->short_names[i], r->short_names[i]);
        assert_ptr_equal(store_lookup(t->s, r->group, r->version, r->plural), live);
        json_t *crd = NULL;
        struct err e;
        err_init(&e);
        char name[128];
        snprintf(name, sizeof(name), "%s", r->key);
        assert_int_equal(store_get(t->s, CRD(), NULL, name, &crd, &e), 0);
        assert_string_equal(condition(crd, "Established"), "True");
        json_decref(crd);
    }
    /* Opening again changes nothing. */
    uint64_t rv = store_current_rv(t->s);
    tstore_reopen(t, 0, 0);
    assert_int_equal(store_current_rv(t->s), rv);
    tstore_free(t);
}

/* A Kueue CRD changed by hand is brought back at the next open. */
static void test_crd_kueue_restored(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_t *crd = NULL, *out = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_get(t->s, CRD(), NULL, "topologies.kueue.x-k8s.io", &crd, &e), 0);
    json_object_set_new(json_object_get(json_object_get(crd, "spec"), "names"), "shortNames",
                        json_pack("[s]", "tp"));
    assert_int_equal(
        store_update(t->s, CRD(), NULL, "topologies.kueue.x-k8s.io", crd, NULL, &out, &e), 0);
    assert_string_equal(store_lookup_key(t->s, "topologies.kueue.x-k8s.io")->short_names[0], "tp");
    tstore_reopen(t, 0, 0);
    assert_string_equal(store_lookup_key(t->s, "topologies.kueue.x-k8s.io")->short_names[0],
                        "topo");
    json_decref(crd);
    json_decref(out);
    tstore_free(t);
}

static void test_crd_serves_its_kind(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    assert_null(store_lookup(t->s, "example.com", "v1", "widgets"));
    uint64_t gen = store_served_gen(t->s);
    json_t *crd = create(t->s, CRD(), NULL, WIDGET_CRD, 0);
    assert_string_equal(condition(crd, "NamesAccepted"), "True");
    assert_string_equal(condition(crd, "Established"), "True");
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(json_object_get(crd, "status"), "storedVersions"), 0)),
                        "v1");
    assert_true(store_served_gen(t->s) != gen);
    const struct store_resource *w = store_lookup(t->s, "example.com", "v1", "widgets");
    assert_non_null(w);
    assert_string_equal(w->key, "widgets.example.com");
    assert_true(w->custom && w->namespaced && w->has_status);
    const struct store_resource **served;
    size_t n = store_served(t->s, &served, NULL);
    assert_ptr_equal(served[n - 1], w); /* the newest CRD comes last */
    free(served);

    /* Its objects are defaulted and validated by the schema. */
    json_t *obj = create(t->s, w, "default",
                         "{'metadata':{'name':'w1'},'spec':{'extra':1},'status':{'ok':true}}", 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(obj, "spec"), "size")), 3);
    assert_null(json_object_get(json_object_get(obj, "spec"), "extra")); /* pruned */
    assert_null(json_object_get(obj, "status")); /* the status subresource */
    assert_string_equal(json_string_value(json_object_get(obj, "apiVersion")), "example.com/v1");
    json_t *bad = parse("{'metadata':{'name':'w2'},'spec':{'size':11}}");
    json_t *out = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_create(t->s, w, "default", bad, NULL, &out, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].message,
                        "Invalid value: 11: spec.size in body should be less than or equal to 10");
    json_decref(bad);

    /* Served again after a restart. */
    tstore_reopen(t, 0, 0);
    w = store_lookup(t->s, "example.com", "v1", "widgets");
    assert_non_null(w);
    json_t *got = NULL;
    err_init(&e);
    assert_int_equal(store_get(t->s, w, "default", "w1", &got, &e), 0);
    json_decref(got);
    json_decref(obj);
    json_decref(crd);
    tstore_free(t);
}

/* A status write's status is judged by the schema; the rest of the object,
 * unchanged, is judged again only when the schema is not the one that
 * admitted it (no ratcheting: a newer schema that refuses the stored spec
 * refuses the status write too). */
static void test_crd_status_write_schema(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_decref(create(t->s, CRD(), NULL, WIDGET_CRD, 0));
    const struct store_resource *w = store_lookup(t->s, "example.com", "v1", "widgets");
    json_decref(create(t->s, w, "default", "{'metadata':{'name':'w1'},'spec':{'size':8}}", 0));
    struct store_write_opts so = {.status = true, .shared_out = true};
    static const char *const statuses[] = {
        "{'metadata':{'name':'w1'},'status':{'ok':true}}",
        "{'metadata':{'name':'w1'},'status':{'ok':false}}",
        "{'metadata':{'name':'w1'},'status':{'ok':'x'}}",
    };
    for (size_t i = 0; i < 3; i++) {
        json_t *in = parse(statuses[i]);
        json_t *out = NULL;
        struct err e;
        err_init(&e);
        int rc = store_update(t->s, w, "default", "w1", in, &so, &out, &e);
        if (i < 2) {
            assert_int_equal(rc, 0);
        } else {
            assert_int_equal(rc, ERR_INVALID);
            assert_int_equal(e.ncauses, 2); /* and the CEL rules' notice */
            assert_string_equal(e.causes[0].field, "status.ok");
            assert_string_equal(e.causes[0].message,
                                "Invalid value: \"string\": status.ok in body must be of type "
                                "boolean: \"string\"");
        }
        json_decref(out);
        json_decref(in);
    }
    /* A newer schema allows a size of at most 5. */
    json_t *crd = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_get(t->s, CRD(), NULL, "widgets.example.com", &crd, &e), 0);
    json_t *size = json_object_get(json_object_get(crd, "spec"), "versions");
    static const char *const path[] = {"schema", "openAPIV3Schema", "properties",
                                       "spec",   "properties",      "size"};
    size = json_array_get(size, 0);
    for (size_t i = 0; i < 6; i++)
        size = json_object_get(size, path[i]);
    json_object_set_new(size, "maximum", json_integer(5));
    json_t *out = NULL;
    assert_int_equal(store_update(t->s, CRD(), NULL, "widgets.example.com", crd, NULL, &out, &e),
                     0);
    json_decref(out);
    json_decref(crd);
    w = store_lookup(t->s, "example.com", "v1", "widgets");
    json_t *in = parse(statuses[0]);
    out = NULL;
    assert_int_equal(store_update(t->s, w, "default", "w1", in, &so, &out, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].field, "spec.size");
    assert_string_equal(e.causes[0].message,
                        "Invalid value: 8: spec.size in body should be less than or equal to 5");
    json_decref(in);
    tstore_free(t);
}

/* A second CRD that wants names of the first in its group is stored, not
 * served: NamesAccepted False. */
static void test_crd_names_conflict(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_decref(create(t->s, CRD(), NULL, WIDGET_CRD, 0));
    json_t *other = create(
        t->s, CRD(), NULL,
        "{'metadata':{'name':'gadgets.example.com'},'spec':{'group':'example.com','names':{"
        "'kind':'Gadget','plural':'gadgets','shortNames':['wd']},'scope':'Cluster','versions':[{"
        "'name':'v1','served':true,'storage':true,'schema':{'openAPIV3Schema':{'type':'object'}}"
        "}]}}",
        0);
    assert_string_equal(condition(other, "NamesAccepted"), "False");
    assert_string_equal(condition(other, "Established"), "False");
    assert_null(store_lookup(t->s, "example.com", "v1", "gadgets"));
    json_decref(other);
    tstore_free(t);
}

/* Deleting a CRD deletes its objects; one kept by a finalizer keeps the
 * CRD (Terminating, no new objects) until it goes. */
static void test_crd_delete_cascades(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_decref(create(t->s, CRD(), NULL, WIDGET_CRD, 0));
    const struct store_resource *w = store_lookup(t->s, "example.com", "v1", "widgets");
    json_decref(create(t->s, w, "default", "{'metadata':{'name':'a'}}", 0));
    json_t *kept =
        create(t->s, w, "kube-system", "{'metadata':{'name':'b','finalizers':['x/y']}}", 0);
    struct err e;
    err_init(&e);
    json_t *last = NULL;
    bool deleted = false;
    assert_int_equal(
        store_delete(t->s, CRD(), NULL, "widgets.example.com", NULL, &last, &deleted, &e), 0);
    assert_false(deleted);
    assert_string_equal(condition(last, "Terminating"), "True");
    json_decref(last);
    json_t *got = NULL;
    err_init(&e);
    assert_int_equal(store_get(t->s, w, "default", "a", &got, &e), ERR_NOT_FOUND);
    assert_true(store_crd_terminating(t->s, w));
    json_t *no = create(t->s, w, "default", "{'metadata':{'name':'c'}}", ERR_FORBIDDEN);
    assert_null(no);
    /* The last finalizer goes: the object, then the CRD. */
    json_decref(kept);
    err_init(&e);
    assert_int_equal(store_get(t->s, w, "kube-system", "b", &kept, &e), 0);
    assert_non_null(json_object_get(json_object_get(kept, "metadata"), "deletionTimestamp"));
    json_object_del(json_object_get(kept, "metadata"), "finalizers");
    json_t *out = NULL;
    err_init(&e);
    assert_int_equal(store_update(t->s, w, "kube-system", "b", kept, NULL, &out, &e), 0);
    json_decref(out);
    err_init(&e);
    assert_int_equal(store_get(t->s, CRD(), NULL, "widgets.example.com", &got, &e), ERR_NOT_FOUND);
    assert_null(store_lookup(t->s, "example.com", "v1", "widgets"));
    err_init(&e);
    assert_int_equal(store_create(t->s, w, "default", kept, NULL, &out, &e), ERR_NOT_FOUND);
    json_decref(kept);
    tstore_free(t);
}

/* A namespace's deletion deletes the objects of CRD kinds in it too. */
static void test_crd_namespace_deletion(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    json_decref(create(t->s, CRD(), NULL, WIDGET_CRD, 0));
    const struct store_resource *w = store_lookup(t->s, "example.com", "v1", "widgets");
    json_decref(
        create(t->s, store_resource_find("namespaces"), NULL, "{'metadata':{'name':'n'}}", 0));
    json_decref(create(t->s, w, "n", "{'metadata':{'name':'a'}}", 0));
    struct err e;
    err_init(&e);
    json_t *last = NULL;
    bool deleted = false;
    assert_int_equal(
        store_delete(t->s, store_resource_find("namespaces"), NULL, "n", NULL, &last, &deleted, &e),
        0);
    assert_true(deleted);
    json_decref(last);
    json_t *got = NULL;
    assert_int_equal(store_get(t->s, w, "n", "a", &got, &e), ERR_NOT_FOUND);
    tstore_free(t);
}

/* A watch opened on the built-in table's entry of a Kueue kind sees the
 * changes stored under the CRD's entry. */
static void test_crd_watch_by_key(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    const struct store_resource *rf = store_resource_find("resourceflavors.kueue.x-k8s.io");
    struct store_watch *w = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, rf, NULL, NULL, &w, &e), 0);
    json_decref(
        create(t->s, store_lookup_key(t->s, rf->key), NULL, "{'metadata':{'name':'f'}}", 0));
    struct store_event ev;
    assert_int_equal(store_watch_next(w, 5000, &ev, &e), 0);
    assert_int_equal(ev.type, STORE_ADDED);
    store_event_release(&ev);
    store_watch_close(w);
    /* A kind nobody serves cannot be watched. */
    struct store_resource ghost = {.group = "ghost.example.com",
                                   .version = "v1",
                                   .plural = "ghosts",
                                   .kind = "Ghost",
                                   .key = "ghosts.ghost.example.com",
                                   .custom = true};
    assert_int_equal(store_watch_open(t->s, &ghost, NULL, NULL, &w, &e), ERR_NOT_FOUND);
    tstore_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crd_kueue_installed), cmocka_unit_test(test_crd_kueue_restored),
        cmocka_unit_test(test_crd_serves_its_kind), cmocka_unit_test(test_crd_names_conflict),
        cmocka_unit_test(test_crd_delete_cascades), cmocka_unit_test(test_crd_namespace_deletion),
        cmocka_unit_test(test_crd_watch_by_key),    cmocka_unit_test(test_crd_status_write_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
