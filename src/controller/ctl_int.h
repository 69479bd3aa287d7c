/* ctl_int.h -- what the controllers' files share (not a public API). */
#ifndef CUEUE_CONTROLLER_CTL_INT_H
#define CUEUE_CONTROLLER_CTL_INT_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/map.h"
#include "controller/api_client.h"
#include "controller/ctl.h"

struct eng;
struct inf;
struct le;
struct wq;

enum ctl_kind { CK_NS, CK_RF, CK_COHORT, CK_AC, CK_CQ, CK_LQ, CK_WPC, CK_PC, CK_WL, CK_JOB, CK_N };

/* One watched resource: its informer and the newest state known, from the
 * informer or from our own writes (whichever has the higher
 * resourceVersion), so a reconcile never acts on a state older than one it
 * wrote itself. */
struct ctl_res {
    struct ctl *c;
    enum ctl_kind kind;
    const struct store_resource *r;
    struct inf *inf;
    struct map cache; /* key -> json_t * (owned reference) */
};

struct ctl {
    struct ac_client *ac;
    struct ctl_res res[CK_N];
    struct eng *eng;
    struct api_object *config; /* decoded Configuration, or NULL */
    struct wq *q; /* "J:ns/name" jobs, "W:ns/name" workloads, "C:name" cq, "F:name" rf */
    struct le *le;
    bool leading;
    bool synced;       /* every informer listed, engine rebuilt */
    bool cycle_dirty;  /* run a scheduling cycle */
    bool status_dirty; /* recompute queue status */
    int64_t next_cycle_ms, next_status_ms;
    pthread_t thread;
    bool started;
    int wake[2];
    volatile int stop;
    struct mreg *metrics; /* or NULL */
    struct vis *vis;      /* or NULL */
};

/* The newest known object (borrowed), or NULL. */
const json_t *ctl_get(struct ctl *c, enum ctl_kind k, const char *ns, const char *name);
/* Take a state we read or wrote (borrowed) into the cache and react to it. */
void ctl_observe(struct ctl *c, enum ctl_kind k, const json_t *obj);
/* Queue a key ("J:ns/name", ...) for reconcile. */
void ctl_enqueue(struct ctl *c, const char *prefix, const char *ns, const char *name);
/* Emit a core/v1 Event about obj. */
void ctl_event(struct ctl *c, const json_t *obj, const char *type, const char *reason,
               const char *component, const char *fmt, ...) CU_PRINTF(6, 7);

#endif
