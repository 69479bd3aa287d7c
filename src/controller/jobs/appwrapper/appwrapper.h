/* appwrapper.h -- the AppWrapper integration
 * ("workload.codeflare.dev/appwrapper", Kueue pkg/controller/jobs/appwrapper
 * over the AppWrapper project's utils): every pod template of every wrapped
 * component is a pod set, named "<appwrapper>-<i>" in order, of its
 * replicas. A component's pod templates are the ones its podSets declare
 * (a path such as template.spec.template into the wrapped object, and
 * replicas), else those inferred for its kind (Pod, Deployment,
 * StatefulSet, batch/v1 Job, JobSet, PyTorchJob, RayCluster, RayJob), else
 * none. Suspended and started through spec.suspend; started, each
 * component gets its pod sets' flavors as podSetInfos (which the
 * AppWrapper controller applies to what it creates), cleared on stop.
 * Finished by the Succeeded or Failed phase (a failed one once its
 * resources are gone); pods ready and active from its conditions. Pure
 * functions over JSON trees. */
#ifndef CUEUE_CONTROLLER_JOBS_APPWRAPPER_APPWRAPPER_H
#define CUEUE_CONTROLLER_JOBS_APPWRAPPER_APPWRAPPER_H

#include "controller/jobframework/jobframework.h"

extern const struct jf_integration appwrapper_integration;

#endif
