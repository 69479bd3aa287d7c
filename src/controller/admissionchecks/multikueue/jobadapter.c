/* jobadapter.c -- MultiKueue's batch/v1 Job adapter: the worker's copy of
 * a Job and its status brought back (Kueue's
 * pkg/controller/jobs/job/job_multikueue_adapter.go). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/objects.h"
#include "base/err.h"
#include "base/log.h"
#include "controller/admissionchecks/multikueue/mk_int.h"
#include "controller/jobframework/jobframework.h"

static const struct store_resource *jobs(void)
{
    return store_resource_find("jobs.batch");
}

bool mk_job_managed(const json_t *job, char *why, size_t len)
{
    const char *mb = json_string_value(json_object_get(json_object_get(job, "spec"), "managedBy"));
    if (mb && !strcmp(mb, MK_CONTROLLER_NAME))
        return true;
    snprintf(why, len, "Expecting spec.managedBy to be \"%s\" not \"%s\"", MK_CONTROLLER_NAME,
             mb ? mb : "");
    return false;
}

static bool ours(struct mk *m, const json_t *obj)
{
    const char *o = json_string_value(json_object_get(
        json_object_get(json_object_get(obj, "metadata"), "labels"), MK_ORIGIN_LABEL));
    return o && !strcmp(o, m->set.origin);
}

static bool job_cond_true(const json_t *job, const char *type)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(job, "status"), "conditions"), i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        const char *s = json_string_value(json_object_get(c, "status"));
        if (t && s && !strcmp(t, type) && !strcmp(s, "True"))
            return true;
    }
    return false;
}

static bool suspended(const json_t *job)
{
    return json_is_true(json_object_get(json_object_get(job, "spec"), "suspend"));
}

/* The worker's copy (owned): Kueue's CloneObjectMetaForCreation, the
 * selector and the template's Job labels dropped (the worker's API server
 * sets its own), managedBy cleared so the worker's Job controller runs it,
 * and the prebuilt Workload and the origin named. */
static json_t *remote_copy(struct mk *m, const json_t *local, const char *wl_name)
{
    const json_t *meta = json_object_get(local, "metadata");
    json_t *labels = json_deep_copy(json_object_get(meta, "labels"));
    if (!json_is_object(labels)) {
        json_decref(labels);
        labels = json_object();
    }
    json_object_set_new(labels, JF_PREBUILT_LABEL, json_string(wl_name));
    json_object_set_new(labels, MK_ORIGIN_LABEL, json_string(m->set.origin));
    json_t *nm = json_pack("{s:O?,s:O?,s:o}", "name", json_object_get(meta, "name"), "namespace",
                           json_object_get(meta, "namespace"), "labels", labels);
    if (json_object_get(meta, "annotations"))
        json_object_set(nm, "annotations", json_object_get(meta, "annotations"));
    json_t *spec = json_deep_copy(json_object_get(local, "spec"));
    json_object_del(spec, "selector");
    json_object_del(spec, "managedBy");
    /* Started by the worker's Kueue once its copy of the Workload is
     * admitted, whatever the manager's Job is now. */
    json_object_set_new(spec, "suspend", json_true());
    json_t *tl =
        json_object_get(json_object_get(json_object_get(spec, "template"), "metadata"), "labels");
    static const char *const drop[] = {"controller-uid", "batch.kubernetes.io/controller-uid",
                                       "job-name", "batch.kubernetes.io/job-name"};
    for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
        json_object_del(tl, drop[i]);
    return json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", "batch/v1", "kind", "Job", "metadata", nm,
                     "spec", spec);
}

static int set_status_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    json_object_set(obj, "status", (json_t *)arg);
    return 0;
}

int mk_job_sync(struct mk *m, struct mk_cluster *c, const json_t *local_job, const char *wl_name,
                struct err *e)
{
    const char *ns = api_doc_meta_str(local_job, "namespace");
    const char *name = api_doc_meta_str(local_job, "name");
    char *key = ac_key(ns, name);
    const json_t *remote = c->remote_jobs ? json_object_get(c->remote_jobs, key) : NULL;
    free(key);
    int rc = 0;
    if (!remote) {
        json_t *copy = remote_copy(m, local_job, wl_name);
        rc = ac_create(c->client, jobs(), ns, copy, NULL, e);
        json_decref(copy);
        if (!rc)
            log_info("multikueue: job %s/%s created in cluster %s", ns, name, c->name);
        else if (rc == ERR_EXISTS)
            /* Kueue's ValidateRemoteObjectOwnership: not a copy of ours. */
            err_set(e, rc, "the job %s/%s in cluster %s is not of origin %s", ns, name, c->name,
                    m->set.origin);
        return rc;
    }
    /* Kueue's determineStatusUpdate: the worker's status, unless the
     * manager's Job is still suspended while the worker's runs. */
    bool finished = job_cond_true(remote, "Complete") || job_cond_true(remote, "Failed");
    const json_t *st = json_object_get(remote, "status");
    if ((!suspended(local_job) || suspended(remote) || finished) && st &&
        !json_equal(st, json_object_get(local_job, "status")))
        rc = ac_update_status_retry(m->ac, jobs(), ns, name, set_status_fn, (void *)st, NULL, e);
    return rc;
}

void mk_job_delete(struct mk *m, struct mk_cluster *c, const char *ns, const char *name)
{
    json_t *remote = NULL;
    struct err e;
    err_init(&e);
    if (ac_get(c->client, jobs(), ns, name, &remote, &e))
        return;
    if (ours(m, remote)) {
        struct ac_delete_opts d = {.propagation_policy = "Background"};
        err_init(&e);
        if (ac_delete(c->client, jobs(), ns, name, &d, NULL, &e) && e.code != ERR_NOT_FOUND)
            log_warn("multikueue: deleting job %s/%s in cluster %s: %s", ns, name, c->name,
                     e.message);
    }
    json_decref(remote);
}
