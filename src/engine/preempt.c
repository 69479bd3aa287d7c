/* preempt.c -- preemption target search (spec/preemption.md).
 *
 * Placeholder: until the classical and fair-sharing searches land here,
 * preemption never finds candidates, so every flavor that needs room is
 * "Preempt without candidates" (reason WaitingForQuota). */
#include "engine/preempt.h"

enum fa_pmode pre_oracle(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl, int fr,
                         int64_t val, int *level)
{
    (void)eng;
    (void)cq;
    (void)wl;
    (void)fr;
    (void)val;
    (void)level;
    return FA_P_NO_CANDIDATES;
}

size_t pre_targets(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
                   const struct fa_assignment *a, struct pre_target **out)
{
    (void)eng;
    (void)cq;
    (void)wl;
    (void)a;
    *out = NULL;
    return 0;
}
