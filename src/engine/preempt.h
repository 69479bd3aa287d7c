/* preempt.h -- where preemption plugs into the admission engine.
 *
 * Two calls, both made against the cycle's snapshot (engine_int.h), which
 * they must leave exactly as they found it (use snap_mark/snap_rollback
 * around any simulated removal):
 * - the flavor assigner's oracle (spec/admission.md §4.5, preemption.md
 *   §2.1 step 4): for one fr that does not fit, could preemption make room?
 * - the target search for a whole assignment (admission.md §4.6 step 2,
 *   §4.8 probes, preemption.md §4 classical and §6 fair sharing).
 * The cycle does the rest of §6.3 (overlap with victims chosen earlier in
 * the cycle, the fit check with victims removed, issuing the preemptions). */
#ifndef CUEUE_ENGINE_PREEMPT_H
#define CUEUE_ENGINE_PREEMPT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine_int.h"

/* A chosen victim. */
struct pre_target {
    struct eng_wl *wl;   /* an admitted workload (holds quota) */
    const char *reason;  /* static: InClusterQueue, InCohortReclamation,
                          * InCohortFairSharing, InCohortReclaimWhileBorrowing */
    const char *message; /* the preemption message (preemption.md §8.1);
                          * cycle arena, or static */
};

/* Oracle for one fr: wl (pending, in cq) needs val of fr, more than is
 * Available. Returns FA_P_NO_CANDIDATES when no targets exist, FA_P_PREEMPT
 * when some target is in cq, FA_P_RECLAIM when all targets are in other
 * CQs. *level receives the borrowing level of val as if the targets were
 * gone (left as given when there are no candidates). */
enum fa_pmode pre_oracle(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl, int fr,
                         int64_t val, int *level);

/* Targets for the whole assignment a of wl in cq (mode FA_PREEMPT): P is
 * a->preempt_fr, the preemptor's usage a->usage_*. Writes the targets to
 * *out (cycle arena, valid until the cycle ends) and returns how many;
 * 0 = no candidates. */
size_t pre_targets(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
                   const struct fa_assignment *a, struct pre_target **out);

#endif
