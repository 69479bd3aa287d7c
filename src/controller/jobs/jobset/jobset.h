/* jobset.h -- the JobSet integration ("jobset.x-k8s.io/jobset", Kueue
 * pkg/controller/jobs/jobset): one pod set per replicated Job, of
 * replicas x the Job's pods; suspended and started through spec.suspend
 * with the flavors injected into each replicated Job's pod template and
 * restored on stop; finished by the JobSet's Completed or Failed
 * condition. Pure functions over JSON trees; the generic job reconciler
 * drives them. */
#ifndef CUEUE_CONTROLLER_JOBS_JOBSET_JOBSET_H
#define CUEUE_CONTROLLER_JOBS_JOBSET_JOBSET_H

#include "controller/jobframework/jobframework.h"

extern const struct jf_integration jobset_integration;

#endif
