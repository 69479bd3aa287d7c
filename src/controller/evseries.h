/* evseries.h -- the Events that repeat (the controllers', and those of ac_event),
 * written as one Event with a count.
 *
 * A reconciler that finds the same problem on each pass (a member held
 * for a pod set it does not match, an object that fails the same check)
 * reports it on each pass, and a tenant decides how often its objects are
 * reconciled. As Kubernetes' event recorders, an Event that repeats one
 * already recorded -- the same object (by kind, namespace, name and uid,
 * whatever its resourceVersion), type, reason, component and message --
 * within EVS_SERIES_END_MS of its last occurrence is not a new Event: it
 * is the same Event (same name, same firstTimestamp) with its count
 * raised. The first occurrence is created, the second written at once;
 * later ones only raise the count held here, written when EVS_WRITE_EVERY_MS
 * have passed since the Event's last write (evs_due), so that a series
 * costs at most two writes and one per EVS_WRITE_EVERY_MS however often it
 * repeats. At most EVS_MAX series are remembered (the ones seen last).
 *
 * Pure: callers pass the time (a monotonic clock in ms). Thread safe. */
#ifndef CUEUE_CONTROLLER_EVSERIES_H
#define CUEUE_CONTROLLER_EVSERIES_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define EVS_MAX 4096
#define EVS_SERIES_END_MS (6 * 60 * 1000)
#define EVS_WRITE_EVERY_MS (30 * 1000)

struct evs;

enum evs_act {
    EVS_CREATE, /* a new Event: create it */
    EVS_UPDATE, /* a repeat to write now: update the Event of that name */
    EVS_HOLD,   /* a repeat counted here, written later by evs_due */
};

struct evs *evs_new(void);
void evs_free(struct evs *s);

/* An Event about to be recorded (a core/v1 Event as ac_event_new makes
 * it). For a repeat, ev is changed to the series' Event: its
 * metadata.name, firstTimestamp and count. */
enum evs_act evs_observe(struct evs *s, json_t *ev, int64_t now_ms);

/* Append to out (a JSON array) the held repeats whose write is due at
 * now_ms, as the Events to update; forget the series that ended. Returns
 * how many were appended. */
size_t evs_due(struct evs *s, int64_t now_ms, json_t *out);

/* Series remembered, and repeats held (not written yet). */
size_t evs_len(struct evs *s);
size_t evs_held(struct evs *s);

#endif
