/* kubeflow.h -- the Kubeflow training-operator v1 integrations (Kueue
 * pkg/controller/jobs/kubeflow): one pod set per replica type present, in
 * the kind's order, named in lower case, of `replicas` pods (1 when
 * unset); suspended through spec.runPolicy.suspend; started with the
 * flavors in each replica's template and restored on stop; finished by
 * the Succeeded or Failed condition; pods ready once Running. PyTorchJob,
 * TFJob, XGBoostJob, PaddleJob and JAXJob (kubeflow.org/v1) and MPIJob
 * (kubeflow.org/v2beta1, launcher and workers). */
#ifndef CUEUE_CONTROLLER_JOBS_KUBEFLOW_KUBEFLOW_H
#define CUEUE_CONTROLLER_JOBS_KUBEFLOW_KUBEFLOW_H

#include "controller/jobframework/jobframework.h"

extern const struct jf_integration pytorchjob_integration;
extern const struct jf_integration tfjob_integration;
extern const struct jf_integration xgboostjob_integration;
extern const struct jf_integration paddlejob_integration;
extern const struct jf_integration jaxjob_integration;
extern const struct jf_integration mpijob_integration;

#endif
