/* admit.c -- the built-in mutating admission of `cueue serve`: what Kueue's
 * webhooks do to an object on its way into the store.
 *
 * A Job that Kueue manages (it names a queue) is suspended on create, as
 * Kueue's Job webhook does, so no pod of it can start before its Workload
 * is admitted: the node agent and the controllers run on their own threads
 * and would otherwise race for the first reconcile. */
#include <string.h>

#include "controller/jobs/job.h"
#include "server/srv_int.h"

bool srv_admit_create(struct srv_req *q, const struct store_resource *r, json_t *obj, int *ret)
{
    (void)q;
    (void)ret;
    if (!strcmp(r->key, "jobs.batch") && job_queue_name(obj)) {
        json_t *spec = json_object_get(obj, "spec");
        if (json_is_object(spec))
            json_object_set_new(spec, "suspend", json_true());
    }
    return true;
}
