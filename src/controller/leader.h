/* leader.h -- leader election over a coordination.k8s.io/v1 Lease.
 *
 * As client-go's leaderelection with a LeaseLock: candidates race to write
 * their identity into spec.holderIdentity of one Lease; the holder renews
 * spec.renewTime every retry period; others take over only once the lease
 * has gone unrenewed for leaseDurationSeconds as measured on their own
 * clock (from when they last saw the record change, so clock skew between
 * replicas does not matter). Every write is an update with the
 * resourceVersion read just before, so of two candidates racing for an
 * expired lease exactly one wins: the other gets a conflict. A leader that
 * cannot renew within renew_deadline_ms stops leading before its lease can
 * expire for the others (renew deadline < lease duration), which is what
 * keeps two replicas from ever both leading.
 *
 * The elector is driven by the caller's loop: le_tick(now_ms) does at most
 * one read and one write and says when to call again. */
#ifndef CUEUE_CONTROLLER_LEADER_H
#define CUEUE_CONTROLLER_LEADER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/compiler.h"

struct ac_client;
struct err;
struct le;

struct le_config {
    const char *ns;            /* the Lease's namespace */
    const char *name;          /* the Lease's name */
    const char *identity;      /* this candidate: unique per replica (hostname_uuid) */
    int64_t lease_duration_ms; /* 0 = 15 s */
    int64_t renew_deadline_ms; /* 0 = 10 s; must be < lease_duration_ms */
    int64_t retry_period_ms;   /* 0 = 2 s */
    /* Called from le_tick/le_release when leadership starts or ends. */
    void (*on_started)(void *arg);
    void (*on_stopped)(void *arg);
    void *arg;
};

/* Make an elector (config copied, client borrowed). ERR_INVALID when the
 * durations are inconsistent or identity is empty. */
CU_MUST_CHECK int le_new(struct ac_client *client, const struct le_config *cfg, struct le **out,
                         struct err *e);
void le_free(struct le *le);

/* Try to acquire or renew at now_ms (the caller's clock, wall or virtual).
 * Returns the delay until the next call. Failures of the API are absorbed
 * (logged); leadership is lost only past the renew deadline. */
int64_t le_tick(struct le *le, int64_t now_ms);

/* Whether this candidate leads (as of its last tick). */
bool le_is_leader(const struct le *le);

/* Step down: when leading, clear holderIdentity so another candidate may
 * take over at once, and call on_stopped. */
CU_MUST_CHECK int le_release(struct le *le, int64_t now_ms, struct err *e);

/* The holder seen in the last record read ("" if none). Borrowed. */
const char *le_holder(const struct le *le);

#endif
