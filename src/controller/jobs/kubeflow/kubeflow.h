/* kubeflow.h -- the Kubeflow training-operator v1 integrations (Kueue
 * pkg/controller/jobs/kubeflow): one pod set per replica type present, in
 * the kind's order, named in lower case, of `replicas` pods (1 when
 * unset); suspended through spec.runPolicy.suspend; started with the
 * flavors in each replica's template and restored on stop; finished by
 * the Succeeded or Failed condition; pods ready once Running. Only
 * PyTorchJob ("kubeflow.org/pytorchjob") is registered yet. */
#ifndef CUEUE_CONTROLLER_JOBS_KUBEFLOW_KUBEFLOW_H
#define CUEUE_CONTROLLER_JOBS_KUBEFLOW_KUBEFLOW_H

#include "controller/jobframework/jobframework.h"

extern const struct jf_integration pytorchjob_integration;

#endif
