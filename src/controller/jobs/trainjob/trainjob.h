/* trainjob.h -- the Kubeflow Trainer v2 integration
 * ("trainer.kubeflow.org/trainjob", Kueue pkg/controller/jobs/trainjob):
 * a TrainJob's pod sets are those of the JobSet the Trainer would make
 * from its runtime (spec.runtimeRef: a ClusterTrainingRuntime, the
 * default kind, or a TrainingRuntime of its namespace): one per replicated
 * Job of the runtime's template, the trainer step (labelled
 * trainer.kubeflow.org/trainjob-ancestor-step: trainer) one replica of
 * numNodes pods (the TrainJob's spec.trainer.numNodes, else the runtime's
 * mlPolicy.numNodes, else 1) whose "node" container has the TrainJob's
 * resourcesPerNode; the others replicas x parallelism. Suspended through
 * spec.suspend; started, the flavors go into Kueue's own runtime patch
 * (spec.runtimePatches, manager kueue.x-k8s.io/manager), cleared on stop.
 * Finished by the Complete or Failed condition; status.jobsStatus gives
 * pods ready, active and reclaimable pods. Pure functions over JSON trees;
 * the runtime is the object's JF_DEPENDENCY. */
#ifndef CUEUE_CONTROLLER_JOBS_TRAINJOB_TRAINJOB_H
#define CUEUE_CONTROLLER_JOBS_TRAINJOB_TRAINJOB_H

#include "controller/jobframework/jobframework.h"

#define TRAINJOB_RUNTIME_KEY "trainingruntimes.trainer.kubeflow.org"
#define TRAINJOB_CLUSTER_RUNTIME_KEY "clustertrainingruntimes.trainer.kubeflow.org"

extern const struct jf_integration trainjob_integration;

#endif
