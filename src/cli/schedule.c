/* schedule.c -- `cueue schedule`: run the admission engine offline on a
 * state given as files and print what it decided.
 *
 * The contract is spec/scenarios.md: input kinds, cycles, the output
 * object, exit status 2 on bad input with nothing on stdout. Jobs are
 * turned into Workloads as Kueue's Job integration does
 * (spec/lifecycle.md §2.3). Workload statuses are written with the same
 * status writers the controllers use (api/status.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/codec.h"
#include "api/defaults.h"
#include "api/features.h"
#include "api/objects.h"
#include "api/quantity.h"
#include "api/status.h"
#include "api/validate.h"
#include "base/err.h"
#include "base/map.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "controller/admission.h"
#include "controller/explain.h"
#include "controller/jobs/job.h"
#include "engine/engine.h"

#define MAX_IDLE_CYCLES 1000000

/* One input document, decoded. */
struct doc {
    const char *file;
    size_t index;
    json_t *json; /* borrowed from the stream, or owned (Job workloads) */
    bool owned;
    struct api_object *obj; /* NULL for ResourceClaimTemplates, LimitRanges, Nodes */
    struct eng_wl *wl;      /* for Workloads */
    bool is_claim_tpl;
    bool is_limit_range;
    bool is_node;
    bool superseded; /* a later document of the same Workload replaced it */
};

struct run {
    struct codec_stream *streams;
    size_t n_streams;
    const char **files;
    struct doc *docs;
    size_t n_docs, cap_docs;
    struct eng *eng;
    struct map by_key; /* workload key -> index + 1 in docs */
    int64_t now;
    bool explain; /* keep what `cueue explain -f` needs */
    /* results */
    json_t *admitted;
    json_t *preempted;
    json_t *evicted; /* evictions other than preemption (stopped queues) */
    json_t *events;  /* Events the scheduler records beside statuses (SecondPassFailed) */
};

static void usage(FILE *out)
{
    fprintf(out, "usage: cueue schedule -f FILE [-f FILE ...] [--cycles N] [--now RFC3339] "
                 "[-o json|yaml|text]\n\n"
                 "Run the admission engine on the objects in FILEs and print what Kueue would\n"
                 "decide: admitted, preempted and evicted workloads, and why the others wait.\n"
                 "Nothing is contacted and nothing is written.\n\n"
                 "options:\n"
                 "  -f, --filename FILE  YAML (--- separated) or JSON documents, or a List; '-'\n"
                 "                       reads standard input; repeat for several files, read in\n"
                 "                       order\n"
                 "  --cycles N           run exactly N scheduling cycles; 0 (the default) runs\n"
                 "                       until nothing changes, a preempted workload giving its\n"
                 "                       quota back at once\n"
                 "  --now RFC3339        the engine's clock, used for condition times (default:\n"
                 "                       now)\n"
                 "  -o json|yaml|text    the result object as JSON (default) or YAML, or one line\n"
                 "                       per decision\n"
                 "  -h, --help           show this help\n\n"
                 "Exit status 0 after a run; 2 for bad input (file, document, object and field\n"
                 "path on standard error). See docs/schedule.md.\n");
}

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* The command named in error messages: `cueue explain -f` runs here too. */
static const char *prog = "cueue schedule";

/* "cueue schedule: FILE: document N: Kind/[ns/]name: path: message" (the
 * object is named in e, see decode_doc). */
static int bad_input(const char *file, size_t index, const json_t *doc, const struct err *e)
{
    struct sb sb = SB_INIT;
    err_format(e, &sb);
    if (e->object[0]) {
        fprintf(stderr, "%s: %s: document %zu: %s\n", prog, file, index, sb_str(&sb));
    } else {
        const char *kind = jstr(doc, "kind"), *name = api_doc_meta_str(doc, "name");
        fprintf(stderr, "%s: %s: document %zu: %s/%s: %s\n", prog, file, index, kind ? kind : "?",
                name ? name : "?", sb_str(&sb));
    }
    sb_release(&sb);
    return 2;
}

/* ---- Jobs ------------------------------------------------------------------------------- */

static const json_t *find_doc(const struct run *r, const char *kind, const char *name)
{
    for (size_t i = 0; i < r->n_docs; i++) {
        const json_t *d = r->docs[i].json;
        const char *k = jstr(d, "kind"), *n = api_doc_meta_str(d, "name");
        if (k && n && !strcmp(k, kind) && !strcmp(n, name))
            return d;
    }
    return NULL;
}

/* job_lookup_fn over the input documents: a named object of kind, or with
 * name NULL the i-th PriorityClass. */
static const json_t *lookup_doc(void *arg, const char *kind, const char *name, size_t i)
{
    const struct run *r = arg;
    if (name)
        return find_doc(r, kind, name);
    for (size_t k = 0; k < r->n_docs; k++) {
        const char *dk = jstr(r->docs[k].json, "kind");
        if (dk && !strcmp(dk, kind) && i-- == 0)
            return r->docs[k].json;
    }
    return NULL;
}

/* The uid the API server would have given a Job of the input that has
 * none, so that its Workload's owner reference names one (a reference
 * without a uid is invalid): derived from the Job's namespace and name,
 * so a run's output does not change from one run to the next. */
static void job_input_uid(const json_t *job, char out[37])
{
    const json_t *meta = json_object_get(job, "metadata");
    const char *ns = jstr(meta, "namespace"), *name = jstr(meta, "name");
    char key[512];
    int n = snprintf(key, sizeof(key), "%s/%s", ns ? ns : "", name ? name : "");
    uint64_t a = map_hash(key, (size_t)n < sizeof(key) ? (size_t)n : sizeof(key) - 1);
    uint64_t b = map_hash((const char *)&a, sizeof(a));
    snprintf(out, 37, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xffff, (unsigned)(b >> 48),
             (unsigned long long)(b & 0xffffffffffffULL));
}

/* The Workload the Job integration makes for a managed Job (*out NULL
 * when the Job has no queue-name label). The Workload takes the Job's
 * creationTimestamp: here the input stands in for the API server, and
 * the Workload is created when its Job is. */
static int job_to_workload(struct run *r, const json_t *job, json_t **out, struct err *e)
{
    *out = NULL;
    if (!job_queue_name(job))
        return 0;
    int rc = job_build_workload(job, lookup_doc, r, out, e);
    if (rc)
        return rc;
    json_t *owner =
        json_array_get(json_object_get(json_object_get(*out, "metadata"), "ownerReferences"), 0);
    const char *uid = jstr(owner, "uid");
    if (owner && (!uid || !*uid)) {
        char gen[37];
        job_input_uid(job, gen);
        json_object_set_new(owner, "uid", json_string(gen));
    }
    const json_t *cts = json_object_get(json_object_get(job, "metadata"), "creationTimestamp");
    if (json_is_string(cts))
        json_object_set_new(json_object_get(*out, "metadata"), "creationTimestamp",
                            json_deep_copy(cts));
    return 0;
}

/* ---- input ---------------------------------------------------------------------------------- */

static struct doc *add_doc(struct run *r, const char *file, size_t index, json_t *json, bool owned)
{
    XGROW(r->docs, r->cap_docs, r->n_docs + 1);
    struct doc *d = &r->docs[r->n_docs++];
    memset(d, 0, sizeof(*d));
    d->file = file;
    d->index = index;
    d->json = json;
    d->owned = owned;
    return d;
}

static bool is_claim_template(const json_t *doc)
{
    const char *av = jstr(doc, "apiVersion"), *k = jstr(doc, "kind");
    return av && k && !strncmp(av, "resource.k8s.io/", 16) && !strcmp(k, "ResourceClaimTemplate");
}

static int decode_doc(struct doc *d)
{
    struct err e;
    err_init(&e);
    const char *kind = jstr(d->json, "kind");
    err_set_object(&e, kind ? kind : "", api_doc_meta_str(d->json, "namespace"),
                   api_doc_meta_str(d->json, "name") ? api_doc_meta_str(d->json, "name") : "");
    dflt_object(d->json);
    if (api_object_decode(d->json, &d->obj, &e))
        return bad_input(d->file, d->index, d->json, &e);
    if (val_object(d->obj, &e))
        return bad_input(d->file, d->index, d->json, &e);
    return 0;
}

static void claim_template(struct run *r, const json_t *doc)
{
    const char **classes;
    int64_t *counts;
    size_t k = api_claim_template_devices(doc, &classes, &counts);
    const char *ns = api_doc_meta_str(doc, "namespace");
    eng_set_claim_template(r->eng, ns ? ns : "default", api_doc_meta_str(doc, "name"), k, classes,
                           counts);
    free(classes);
    free(counts);
}

static bool is_node(const json_t *doc)
{
    const char *av = jstr(doc, "apiVersion"), *k = jstr(doc, "kind");
    return av && k && !strcmp(av, "v1") && !strcmp(k, "Node");
}

/* A Node's name and quantities must read, as the API server checks them. */
static int check_node(const struct doc *d)
{
    struct err e;
    err_init(&e);
    const char *name = api_doc_meta_str(d->json, "name");
    err_set_object(&e, "Node", NULL, name ? name : "");
    if (!name || !*name) {
        err_push_field(&e, "metadata");
        err_push_field(&e, "name");
        err_field(&e, ERR_INVALID, "Required value: name or generateName is required");
        return bad_input(d->file, d->index, d->json, &e);
    }
    static const char *const lists[] = {"allocatable", "capacity"};
    for (size_t l = 0; l < 2; l++) {
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(json_object_get(d->json, "status"), lists[l]), k, v)
        {
            struct q_quantity q;
            struct err qe;
            err_init(&qe);
            if (json_is_string(v) && !q_parse(json_string_value(v), &q, &qe))
                continue;
            size_t m = err_push_field(&e, "status");
            err_push_field(&e, lists[l]);
            err_push_key(&e, k);
            err_field(&e, ERR_INVALID, "Invalid value: %s",
                      json_is_string(v) ? qe.message : "must be a quantity string");
            err_restore(&e, m);
            return bad_input(d->file, d->index, d->json, &e);
        }
    }
    return 0;
}

static bool is_limit_range(const json_t *doc)
{
    const char *av = jstr(doc, "apiVersion"), *k = jstr(doc, "kind");
    return av && k && !strcmp(av, "v1") && !strcmp(k, "LimitRange");
}

static void limit_range(struct run *r, const json_t *doc)
{
    struct api_limit *l;
    size_t n = api_limit_range_limits(doc, &l);
    const char *ns = api_doc_meta_str(doc, "namespace");
    const char *name = api_doc_meta_str(doc, "name");
    eng_set_limit_range(r->eng, ns ? ns : "default", name ? name : "", n, l);
    free(l);
}

static int load(struct run *r)
{
    /* Pass 1: decode and validate every document (Jobs later, they need
     * the priority classes). */
    size_t n_cfg = 0;
    for (size_t s = 0; s < r->n_streams; s++)
        for (size_t i = 0; i < r->streams[s].n; i++) {
            json_t *j = r->streams[s].docs[i].obj;
            struct doc *d = add_doc(r, r->files[s], r->streams[s].docs[i].index, j, false);
            if (is_claim_template(j)) {
                d->is_claim_tpl = true;
                continue;
            }
            if (is_limit_range(j)) {
                d->is_limit_range = true;
                continue;
            }
            if (is_node(j)) {
                d->is_node = true;
                int rc = check_node(d);
                if (rc)
                    return rc;
                continue;
            }
            int rc = decode_doc(d);
            if (rc)
                return rc;
            if (d->obj->kind == API_KIND_CONFIGURATION && ++n_cfg > 1) {
                struct err e;
                err_init(&e);
                err_set(&e, ERR_INVALID, "at most one Configuration may be given");
                return bad_input(d->file, d->index, d->json, &e);
            }
        }
    size_t n_input = r->n_docs;
    for (size_t i = 0; i < n_input; i++) {
        if (!r->docs[i].obj || r->docs[i].obj->kind != API_KIND_JOB)
            continue;
        json_t *wl;
        struct err e;
        err_init(&e);
        if (job_to_workload(r, r->docs[i].json, &wl, &e))
            return bad_input(r->docs[i].file, r->docs[i].index, r->docs[i].json, &e);
        if (!wl)
            continue;
        struct doc *d = add_doc(r, r->docs[i].file, r->docs[i].index, wl, true);
        int rc = decode_doc(d);
        if (rc)
            return rc;
    }
    /* The engine, with the configuration. */
    struct eng_options opt = {.record_preemptions = r->explain,
                              .workload_slices_off =
                                  !fg_enabled(FG_ELASTIC_JOBS_VIA_WORKLOAD_SLICES)};
    for (size_t i = 0; i < r->n_docs; i++)
        if (r->docs[i].obj && r->docs[i].obj->kind == API_KIND_CONFIGURATION)
            opt.config = r->docs[i].obj->u.config;
    r->eng = eng_new(&opt);
    /* Pass 2: cluster objects first, then workloads in input order. */
    for (size_t i = 0; i < r->n_docs; i++) {
        struct doc *d = &r->docs[i];
        if (d->is_claim_tpl)
            claim_template(r, d->json);
        else if (d->is_limit_range)
            limit_range(r, d->json);
        else if (d->is_node)
            ctl_node_feed(r->eng, d->json, NULL);
        else if (d->obj->kind != API_KIND_WORKLOAD)
            eng_apply(r->eng, d->obj, r->now);
    }
    for (size_t i = 0; i < r->n_docs; i++) {
        struct doc *d = &r->docs[i];
        if (d->obj && d->obj->kind == API_KIND_WORKLOAD) {
            d->wl = eng_apply(r->eng, d->obj, r->now);
            void *prev = map_put(&r->by_key, eng_wl_key(d->wl), (void *)(uintptr_t)(i + 1));
            if (prev) { /* the same Workload again: the later document wins, as an update */
                r->docs[(uintptr_t)prev - 1].wl = NULL;
                r->docs[(uintptr_t)prev - 1].superseded = true;
            }
        }
    }
    return 0;
}

/* ---- status ---------------------------------------------------------------------------------- */

static struct doc *doc_of(struct run *r, const struct eng_wl *wl)
{
    void *v = map_get(&r->by_key, eng_wl_key(wl));
    return v ? &r->docs[(uintptr_t)v - 1] : NULL;
}

/* An active Evicted/Preempted/... condition is set False with reason
 * QuotaReserved and "Previously: <message>" (Kueue SetQuotaReservation). */
static void clear_condition(struct run *r, json_t *obj, const char *type, bool with_gen)
{
    if (!api_status_condition_true(obj, type))
        return;
    const char *old = jstr(api_status_condition(obj, type), "message");
    struct sb m = SB_INIT;
    sb_addf(&m, "Previously: %s", old ? old : "");
    if (with_gen)
        api_status_set_condition(obj, type, "False", "QuotaReserved", sb_str(&m), r->now);
    else
        api_status_set_condition_nogen(obj, type, "False", "QuotaReserved", sb_str(&m), r->now);
    sb_release(&m);
}

static void on_admitted(struct run *r, const struct eng_admitted *a)
{
    struct doc *d = doc_of(r, a->wl);
    json_array_append_new(r->admitted, json_string(eng_wl_key(a->wl)));
    if (!d)
        return;
    char msg[600];
    const char *cq = eng_wl_cluster_queue(a->wl);
    snprintf(msg, sizeof(msg), "Quota reserved in ClusterQueue %s", cq ? cq : "");
    ctl_admission_write(r->eng, a->wl, d->json);
    /* A placement that replaced failed Nodes clears them (Kueue's admit). */
    json_object_del(json_object_get(d->json, "status"), "unhealthyNodes");
    api_status_set_condition(d->json, "QuotaReserved", "True", "QuotaReserved", msg, r->now);
    clear_condition(r, d->json, "Evicted", true);
    clear_condition(r, d->json, "Preempted", false);
    clear_condition(r, d->json, "BlockedOnPreemptionGates", false);
    if (a->admitted == ENG_ADMITTED_TRUE)
        api_status_set_condition(d->json, "Admitted", "True", "Admitted",
                                 "The workload is admitted", r->now);
    else if (a->admitted == ENG_ADMITTED_FALSE)
        api_status_set_condition(d->json, "Admitted", "False", "UnsatisfiedAdmissionChecks",
                                 "The workload has not all checks ready", r->now);
    struct doc *old = a->replaced ? doc_of(r, a->replaced) : NULL;
    if (old) {
        char *m = ctl_slice_replaced_message(d->json);
        api_status_set_condition(old->json, "Finished", "True", "WorkloadSliceReplaced", m, r->now);
        free(m);
    }
}

static void on_pending(struct run *r, const struct eng_pending *p)
{
    struct doc *d = doc_of(r, p->wl);
    if (!d || !p->reason)
        return;
    api_status_set_condition(d->json, "QuotaReserved", "False", p->reason,
                             p->message ? p->message : "", r->now);
    api_status_set_condition(d->json, "Admitted", "False", "NoReservation",
                             "The workload has no reservation", r->now);
    api_status_set_admission(d->json, NULL);
    ctl_requests_write(r->eng, p->wl, d->json);
}

static void on_preempted(struct run *r, const struct eng_preempted *p, bool release)
{
    json_t *o = json_object();
    json_object_set_new(o, "workload", json_string(eng_wl_key(p->target)));
    json_object_set_new(o, "preemptor", json_string(eng_wl_key(p->preemptor)));
    json_object_set_new(o, "reason", json_string(p->reason ? p->reason : ""));
    json_array_append_new(r->preempted, o);
    struct doc *d = doc_of(r, p->target);
    const char *msg = p->message ? p->message : "";
    if (d) {
        api_status_set_condition(d->json, "Evicted", "True", "Preempted", msg, r->now);
        api_status_set_condition_nogen(d->json, "Preempted", "True", p->reason ? p->reason : "",
                                       msg, r->now);
    }
    if (!release)
        return;
    eng_wl_release(r->eng, p->target, r->now);
    if (d) {
        api_status_set_condition(d->json, "Requeued", "True", "Preempted", msg, r->now);
        api_status_set_condition(d->json, "QuotaReserved", "False", "PendingEvaluation", msg,
                                 r->now);
        api_status_set_condition(d->json, "Admitted", "False", "NoReservation",
                                 "The workload has no reservation", r->now);
        api_status_set_admission(d->json, NULL);
    }
}

static void on_evicted(struct run *r, const struct eng_evicted *ev, bool release)
{
    json_t *o = json_object();
    json_object_set_new(o, "workload", json_string(eng_wl_key(ev->wl)));
    json_object_set_new(o, "reason", json_string(ev->reason));
    json_array_append_new(r->evicted, o);
    struct doc *d = doc_of(r, ev->wl);
    if (d)
        api_status_set_condition(d->json, "Evicted", "True", ev->reason, ev->message, r->now);
    if (!release)
        return;
    eng_wl_release(r->eng, ev->wl, r->now);
    if (d) {
        api_status_set_condition(d->json, "QuotaReserved", "False", "Pending", ev->message, r->now);
        api_status_set_condition(d->json, "Admitted", "False", "NoReservation",
                                 "The workload has no reservation", r->now);
        api_status_set_admission(d->json, NULL);
    }
}

static int run_cycles(struct run *r, long cycles)
{
    int ran = 0;
    bool until_idle = cycles == 0;
    long limit = until_idle ? MAX_IDLE_CYCLES : cycles;
    for (long c = 0; c < limit; c++) {
        const struct eng_decisions *dec = eng_cycle(r->eng, r->now);
        if (until_idle && !dec->n_heads && !dec->n_evicted && !dec->n_admitted &&
            !dec->n_second_pass)
            break;
        ran++;
        for (size_t i = 0; i < dec->n_admitted; i++)
            on_admitted(r, &dec->admitted[i]);
        for (size_t i = 0; i < dec->n_pending; i++)
            on_pending(r, &dec->pending[i]);
        for (size_t i = 0; i < dec->n_second_pass; i++)
            json_array_append_new(
                r->events,
                json_pack("{s:s,s:s,s:s,s:s}", "workload", eng_wl_key(dec->second_pass[i].wl),
                          "type", "Warning", "reason", "SecondPassFailed", "message",
                          dec->second_pass[i].message ? dec->second_pass[i].message : ""));
        bool changed = dec->changed;
        size_t n_pre = dec->n_preempted;
        struct eng_preempted *pre = NULL;
        if (n_pre) {
            pre = xmalloc(n_pre * sizeof(*pre));
            memcpy(pre, dec->preempted, n_pre * sizeof(*pre));
        }
        for (size_t i = 0; i < n_pre; i++)
            on_preempted(r, &pre[i], until_idle);
        free(pre);
        size_t n_ev = dec->n_evicted;
        struct eng_evicted *ev = NULL;
        if (n_ev) {
            ev = xmalloc(n_ev * sizeof(*ev));
            memcpy(ev, dec->evicted, n_ev * sizeof(*ev));
        }
        for (size_t i = 0; i < n_ev; i++)
            on_evicted(r, &ev[i], until_idle);
        free(ev);
        if (until_idle && !changed)
            break;
    }
    return ran;
}

/* Statuses the engine set outside cycles (missing LocalQueue, stopped
 * queues, ...) are written too, as Kueue's workload controller writes them. */
static void write_remaining(struct run *r)
{
    for (size_t i = 0; i < r->n_docs; i++) {
        struct doc *d = &r->docs[i];
        if (!d->wl || eng_wl_is_admitted(d->wl))
            continue;
        struct eng_pending p = {.wl = d->wl};
        eng_wl_pending(d->wl, &p.reason, &p.message, &p.inadmissible);
        json_t *c = api_status_condition(d->json, "QuotaReserved");
        const char *st = c ? jstr(c, "status") : NULL;
        if (!p.reason || (st && !strcmp(st, "True")))
            continue;
        on_pending(r, &p);
    }
}

/* ---- output ---------------------------------------------------------------------------------- */

static json_t *pending_entry(const struct eng_wl *wl)
{
    const char *reason, *message;
    bool inadm;
    eng_wl_pending(wl, &reason, &message, &inadm);
    json_t *o = json_object();
    json_object_set_new(o, "workload", json_string(eng_wl_key(wl)));
    json_object_set_new(o, "inadmissible", json_boolean(eng_wl_inadmissible(wl)));
    json_object_set_new(o, "reason", json_string(reason ? reason : ""));
    json_object_set_new(o, "message", json_string(message ? message : ""));
    return o;
}

static json_t *result(struct run *r, int cycles)
{
    json_t *out = json_object();
    json_object_set_new(out, "cycles", json_integer(cycles));
    json_object_set(out, "admitted", r->admitted);
    json_object_set(out, "preempted", r->preempted);
    json_object_set(out, "evicted", r->evicted);
    json_object_set(out, "events", r->events);
    json_t *asg = json_object();
    for (size_t i = 0; i < r->n_docs; i++) {
        struct doc *d = &r->docs[i];
        if (!d->wl || !eng_wl_is_admitted(d->wl))
            continue;
        json_t *a = json_object_get(json_object_get(d->json, "status"), "admission");
        if (a)
            json_object_set(asg, eng_wl_key(d->wl), a);
    }
    json_object_set_new(out, "assignments", asg);
    json_t *pend = json_object();
    size_t n_cqs = eng_n_cqs(r->eng);
    for (size_t i = 0; i < n_cqs; i++) {
        const char *name = eng_cq_name(r->eng, i);
        if (!name)
            continue;
        size_t n = eng_cq_n_pending(r->eng, i);
        struct eng_wl **wls = xcalloc(n + 1, sizeof(*wls));
        n = eng_cq_pending(r->eng, i, wls, n);
        json_t *arr = json_array();
        for (size_t k = 0; k < n; k++)
            json_array_append_new(arr, pending_entry(wls[k]));
        free(wls);
        json_object_set_new(pend, name, arr);
    }
    json_object_set_new(out, "pending", pend);
    json_t *wls = json_array();
    for (size_t i = 0; i < r->n_docs; i++)
        if (r->docs[i].obj && r->docs[i].obj->kind == API_KIND_WORKLOAD && !r->docs[i].superseded)
            json_array_append(wls, r->docs[i].json);
    json_object_set_new(out, "workloads", wls);
    return out;
}

static void print_text(const json_t *out)
{
    printf("cycles: %lld\n", (long long)json_integer_value(json_object_get(out, "cycles")));
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(out, "admitted"), i, v)
    {
        json_t *a = json_object_get(json_object_get(out, "assignments"), json_string_value(v));
        printf("admitted  %s in %s\n", json_string_value(v), a ? jstr(a, "clusterQueue") : "?");
    }
    json_array_foreach(json_object_get(out, "preempted"), i, v)
    {
        printf("preempted %s by %s (%s)\n", jstr(v, "workload"), jstr(v, "preemptor"),
               jstr(v, "reason"));
    }
    json_array_foreach(json_object_get(out, "evicted"), i, v)
    {
        printf("evicted   %s (%s)\n", jstr(v, "workload"), jstr(v, "reason"));
    }
    json_array_foreach(json_object_get(out, "events"), i, v)
    {
        printf("event     %s: %s %s: %s\n", jstr(v, "workload"), jstr(v, "type"), jstr(v, "reason"),
               jstr(v, "message"));
    }
    const char *cq;
    json_t *arr;
    json_object_foreach(json_object_get(out, "pending"), cq, arr)
    {
        json_array_foreach(arr, i, v)
            printf("pending   %s in %s%s: %s: %s\n", jstr(v, "workload"), cq,
                   json_is_true(json_object_get(v, "inadmissible")) ? " (inadmissible)" : "",
                   jstr(v, "reason"), jstr(v, "message"));
    }
}

static void release(struct run *r)
{
    for (size_t i = 0; i < r->n_docs; i++) {
        api_object_free(r->docs[i].obj);
        if (r->docs[i].owned)
            json_decref(r->docs[i].json);
    }
    free(r->docs);
    map_release(&r->by_key);
    for (size_t s = 0; s < r->n_streams; s++)
        codec_stream_release(&r->streams[s]);
    free(r->streams);
    free(r->files);
    eng_free(r->eng);
    json_decref(r->admitted);
    json_decref(r->preempted);
    json_decref(r->evicted);
    json_decref(r->events);
}

/* Read files (owned by r from here on), load them and run the cycles. */
static int run_files(struct run *r, const char **files, size_t n_files, const char *now,
                     long cycles, int *ran)
{
    r->files = files;
    r->now = tm_now_ms();
    r->admitted = json_array();
    r->preempted = json_array();
    r->evicted = json_array();
    r->events = json_array();
    if (now) {
        struct err e;
        err_init(&e);
        if (tm_parse_rfc3339(now, &r->now, &e)) {
            fprintf(stderr, "%s: --now: %s\n", prog, e.message);
            return 2;
        }
    }
    r->streams = xcalloc(n_files + 1, sizeof(*r->streams));
    r->n_streams = n_files;
    for (size_t i = 0; i < n_files; i++) {
        struct err e;
        err_init(&e);
        if (codec_read_file(files[i], &r->streams[i], &e)) {
            struct sb sb = SB_INIT;
            err_format(&e, &sb);
            fprintf(stderr, "%s: %s: %s\n", prog, files[i], sb_str(&sb));
            sb_release(&sb);
            return 2;
        }
    }
    int rc = load(r);
    if (rc)
        return rc;
    *ran = run_cycles(r, cycles);
    write_remaining(r);
    return 0;
}

int cli_schedule_explain(const char *const *files, size_t n_files, const char *now, long cycles,
                         const char *ns, const char *name, json_t **out)
{
    struct run r = {.explain = true};
    prog = "cueue explain";
    const char **copy = xcalloc(n_files + 1, sizeof(*copy));
    memcpy(copy, files, n_files * sizeof(*copy));
    int ran = 0;
    int rc = run_files(&r, copy, n_files, now, cycles, &ran);
    *out = rc ? NULL : explain_json(r.eng, ns, name);
    release(&r);
    return rc;
}

int cli_schedule(int argc, char **argv)
{
    struct run r = {0};
    long cycles = 0;
    const char *now = NULL, *fmt = "json";
    int rc = 0;
    size_t n_files = 0;
    const char **files = xcalloc((size_t)argc + 1, sizeof(*files));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            free(files);
            return 0;
        } else if ((!strcmp(a, "-f") || !strcmp(a, "--filename")) && val) {
            files[n_files++] = val;
            i++;
        } else if (!strcmp(a, "--cycles") && val) {
            char *end;
            cycles = strtol(val, &end, 10);
            if (*end || cycles < 0) {
                fprintf(stderr, "cueue schedule: --cycles must be a number >= 0, got '%s'\n", val);
                free(files);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--now") && val) {
            now = val;
            i++;
        } else if (!strcmp(a, "-o") && val) {
            fmt = val;
            i++;
        } else {
            fprintf(stderr, "cueue schedule: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            free(files);
            return 2;
        }
    }
    if (!n_files) {
        usage(stderr);
        free(files);
        return 2;
    }
    if (strcmp(fmt, "json") && strcmp(fmt, "yaml") && strcmp(fmt, "text")) {
        fprintf(stderr, "cueue schedule: -o must be json, yaml or text, got '%s'\n", fmt);
        free(files);
        return 2;
    }
    int ran = 0;
    rc = run_files(&r, files, n_files, now, cycles, &ran);
    if (rc)
        goto out;
    json_t *out = result(&r, ran);
    struct sb sb = SB_INIT;
    if (!strcmp(fmt, "yaml")) {
        codec_write_yaml(out, &sb);
        fputs(sb_str(&sb), stdout);
    } else if (!strcmp(fmt, "text")) {
        print_text(out);
    } else {
        codec_write_json(out, true, &sb);
        fputs(sb_str(&sb), stdout);
        if (!sb.len || sb.buf[sb.len - 1] != '\n')
            fputc('\n', stdout);
    }
    sb_release(&sb);
    json_decref(out);
out:
    release(&r);
    return rc;
}
