# owners.sh -- objects Kueue knows as owners, in `cueue serve`: a batch Job
# controlled by an object of a kind listed in integrations.externalFrameworks
# or of an enabled integration (a JobSet) runs under that owner's Workload:
# it gets none of its own, and is kept suspended while the owner's Workload
# is not admitted, as Kueue's FindAncestorJobManagedByKueue and
# shouldSuspendChildJob do. (Sourced by run.sh after lib.sh.)

need kubectl
cat >"$TMP/owners-config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, jobset.x-k8s.io/jobset]
  externalFrameworks: [MyJob.v1.example.com, Octopus.v1.example.com]
YAML
start_server owners --controllers all --executor none --config "$TMP/owners-config.yaml" || exit 1
k apply -f "$SRC/tests/data/jobset/jobset-crd.yaml" >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: myjobs.example.com}
spec:
  group: example.com
  names: {kind: MyJob, listKind: MyJobList, plural: myjobs, singular: myjob}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
YAML
# A kind whose plural is not its lower-case name plus "s".
k apply -f - >/dev/null <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: octopi.example.com}
spec:
  group: example.com
  names: {kind: Octopus, listKind: OctopusList, plural: octopi, singular: octopus}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
YAML
queues own 2
settle 10 'myjobs octopi' sh -c "kubectl --kubeconfig '$KC' api-resources --api-group=example.com -o name | sort | tr '\n' ' ' | sed 's/\.example\.com//g; s/ \$//'"

# child NAME APIVERSION KIND OWNER UID: a queued Job controlled by OWNER.
child() {
    k -n own create -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  labels: {kueue.x-k8s.io/queue-name: user-queue}
  ownerReferences:
  - {apiVersion: $2, kind: $3, name: $4, uid: $5, controller: true}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: ["true"], resources: {requests: {cpu: "1"}}}]
YAML
}
WLS='{range .items[*]}{.metadata.name}{"\n"}{end}'

# A kind of externalFrameworks: its controller makes its Workload.
k -n own create -f - >/dev/null <<'YAML'
apiVersion: example.com/v1
kind: MyJob
metadata: {name: parent, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec: {}
YAML
PU=$(k -n own get myjob parent -o jsonpath='{.metadata.uid}')
child ext-child example.com/v1 MyJob parent "$PU"
sleep 3
expect_exact "external owner: its child Job gets no Workload of its own" "" \
    k -n own get workloads -o jsonpath="$WLS"
k -n own patch job ext-child --type=merge -p '{"spec":{"suspend":false}}' >/dev/null
wait_for "external owner: the child is suspended while its owner's Workload is missing" 15 '^true$' \
    k -n own get job ext-child -o jsonpath='{.spec.suspend}'
expect_grep "external owner: ... with Kueue's event" 'Kueue managed child job suspended' \
    k -n own get events --field-selector involvedObject.name=ext-child -o jsonpath='{.items[*].message}'
# An external kind's object is found by the resource the API serves it
# under (its CRD's plural, octopi), not by a guess (octopuss).
k -n own create -f - >/dev/null <<'YAML'
apiVersion: example.com/v1
kind: Octopus
metadata: {name: ink, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec: {}
YAML
child oct-child example.com/v1 Octopus ink "$(k -n own get octopus ink -o jsonpath='{.metadata.uid}')"
k -n own patch job oct-child --type=merge -p '{"spec":{"suspend":false}}' >/dev/null
wait_for "external owner of plural octopi: its child is suspended while its owner's Workload is missing" 15 '^true$' \
    k -n own get job oct-child -o jsonpath='{.spec.suspend}'
expect_exact "external owner of plural octopi: ... and its child gets no Workload of its own" "" \
    sh -c "kubectl --kubeconfig '$KC' -n own get workloads -o name | grep job-oct-child"
# The owner's controller makes its Workload, named as Kueue names it.
H=$(printf 'MyJob\nexample.com\nparent\n%s' "$PU" | sha1sum | cut -c1-5)
k -n own create -f - >/dev/null <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: myjob-parent-$H
  ownerReferences:
  - {apiVersion: example.com/v1, kind: MyJob, name: parent, uid: $PU, controller: true}
spec:
  queueName: user-queue
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
YAML
wait_for "external owner: its Workload is admitted" 15 '^True$' \
    k -n own get workload "myjob-parent-$H" -o jsonpath='{.status.conditions[?(@.type=="Admitted")].status}'
k -n own patch job ext-child --type=merge -p '{"spec":{"suspend":false}}' >/dev/null
sleep 2
expect_exact "external owner: once it is admitted, the child started by its owner stays running" "false" \
    k -n own get job ext-child -o jsonpath='{.spec.suspend}'

# An integration's kind as owner: a JobSet's Job, the JobSet beyond quota.
k -n own create -f - >/dev/null <<'YAML'
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  replicatedJobs:
  - name: w
    replicas: 4
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
YAML
JU=$(k -n own get jobset js -o jsonpath='{.metadata.uid}')
wait_for "jobset owner: the JobSet's Workload waits beyond the quota" 15 '^jobset-js-[0-9a-f]{5} False$' \
    k -n own get workloads -o jsonpath='{range .items[?(@.spec.podSets[0].name=="w")]}{.metadata.name} {.status.conditions[?(@.type=="QuotaReserved")].status}{"\n"}{end}'
child js-w-0 jobset.x-k8s.io/v1alpha2 JobSet js "$JU"
k -n own patch job js-w-0 --type=merge -p '{"spec":{"suspend":false}}' >/dev/null
wait_for "jobset owner: its Job is kept suspended while the JobSet is not admitted" 15 '^true$' \
    k -n own get job js-w-0 -o jsonpath='{.spec.suspend}'
sleep 2
expect_exact "jobset owner: ... and gets no Workload of its own" "" \
    sh -c "kubectl --kubeconfig '$KC' -n own get workloads -o name | grep job-js-w-0"
