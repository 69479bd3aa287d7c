/* ray.h -- the KubeRay integrations "ray.io/rayjob", "ray.io/raycluster" and
 * "ray.io/rayservice" (Kueue pkg/controller/jobs/rayjob, raycluster,
 * rayservice): a Ray cluster's head group is the pod set "head" of one
 * pod, each worker group a pod set named after it of replicas x
 * numOfHosts pods; a RayJob submitted as a
 * Kubernetes Job (submissionMode K8sJobMode, the CRD's default) adds the
 * pod set "submitter" of one pod (its submitterPodTemplate, else KubeRay's
 * default submitter), and in SidecarMode the submitter container counts
 * in the head pod. Suspended and started through spec.suspend with the
 * flavors in every group's template, restored on stop. A RayJob finishes
 * when its jobDeploymentStatus is Complete or Failed (succeeded when its
 * jobStatus is SUCCEEDED); a RayCluster is long-running and never
 * finishes, nor does a RayService, whose cluster spec (suspend included)
 * is its spec.rayClusterSpec and whose pods are ready while it is Ready.
 * Autoscaling is refused for a managed object (Kueue allows it only for
 * elastic workloads, which cueue does not have); a RayJob using an
 * existing cluster (clusterSelector) and a RayCluster made by a RayJob or
 * a RayService are not Kueue's to queue. Pure functions over JSON trees. */
#ifndef CUEUE_CONTROLLER_JOBS_RAY_RAY_H
#define CUEUE_CONTROLLER_JOBS_RAY_RAY_H

#include "controller/jobframework/jobframework.h"

extern const struct jf_integration rayjob_integration;
extern const struct jf_integration raycluster_integration;
extern const struct jf_integration rayservice_integration;

#endif
