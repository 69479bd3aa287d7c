#!/bin/sh
# latency.sh URL CONCURRENCY COUNT [REVIEW] -- COUNT reviews sent to the
# webhook at URL by CONCURRENCY connections at once (curl --parallel,
# keep-alive), and the latency of those sent on a connection already open
# (a TLS handshake is the API server's once per connection): p50, p99 and
# max. A figure, not a check: the machine is shared. REVIEW is
#   clusterqueue  (the default) a ClusterQueue CREATE, validated;
#   job           a batch/v1 Job CREATE in Namespace default, mutated: label
#                 kueue.x-k8s.io/queue-name user-queue, 3 pods, one
#                 container with cpu and memory requests, suspend false;
#   workload      a Workload CREATE in Namespace default, validated;
#   localqueue    a LocalQueue CREATE in Namespace default, validated;
#   workload-default  the Workload CREATE, defaulted (mutating webhook);
#   job-update    a running batch/v1 Job's UPDATE (a label added), validated;
#   jobset        a JobSet CREATE naming a queue, mutated (suspended): the
#                 integration must be enabled (jobset.x-k8s.io/jobset).
set -u
url=$1
par=$2
count=$3
what=${4:-clusterqueue}
case $what in
clusterqueue)
    path=/validate-kueue-x-k8s-io-v1beta2-clusterqueue
    body='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"kueue.x-k8s.io","version":"v1beta2","kind":"ClusterQueue"},"operation":"CREATE","object":{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"cq"},"spec":{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"f","resources":[{"name":"cpu","nominalQuota":"3"}]}]}]}}}}'
    ;;
job)
    path=/mutate-batch-v1-job
    body='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"batch","version":"v1","kind":"Job"},"resource":{"group":"batch","version":"v1","resource":"jobs"},"namespace":"default","operation":"CREATE","userInfo":{"username":"tester"},"object":{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"default","labels":{"kueue.x-k8s.io/queue-name":"user-queue"}},"spec":{"parallelism":3,"completions":3,"suspend":false,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"1","memory":"200Mi"}}}]}}}}}}'
    ;;
workload)
    path=/validate-kueue-x-k8s-io-v1beta2-workload
    body='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"kueue.x-k8s.io","version":"v1beta2","kind":"Workload"},"namespace":"default","operation":"CREATE","object":{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"wl","namespace":"default"},"spec":{"queueName":"user-queue","podSets":[{"name":"main","count":3,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"1","memory":"200Mi"}}}]}}}]}}}}'
    ;;
localqueue)
    path=/validate-kueue-x-k8s-io-v1beta2-localqueue
    body='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"kueue.x-k8s.io","version":"v1beta2","kind":"LocalQueue"},"namespace":"default","operation":"CREATE","object":{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue","metadata":{"name":"lq","namespace":"default"},"spec":{"clusterQueue":"cq"}}}}'
    ;;
workload-default)
    path=/mutate-kueue-x-k8s-io-v1beta2-workload
    body='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"kueue.x-k8s.io","version":"v1beta2","kind":"Workload"},"namespace":"default","operation":"CREATE","object":{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"wl","namespace":"default"},"spec":{"queueName":"user-queue","podSets":[{"name":"main","count":3,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"1","memory":"200Mi"}}}]}}}]}}}}'
    ;;
job-update)
    path=/validate-batch-v1-job
    body='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"batch","version":"v1","kind":"Job"},"resource":{"group":"batch","version":"v1","resource":"jobs"},"namespace":"default","operation":"UPDATE","userInfo":{"username":"tester"},"object":{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"default","uid":"6a5b7e39-93a4-4d3c-9c53-2f3a6d2e0b11","labels":{"kueue.x-k8s.io/queue-name":"user-queue","team":"a"}},"spec":{"parallelism":3,"completions":3,"suspend":false,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"1","memory":"200Mi"}}}]}}}},"oldObject":{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"default","uid":"6a5b7e39-93a4-4d3c-9c53-2f3a6d2e0b11","labels":{"kueue.x-k8s.io/queue-name":"user-queue"}},"spec":{"parallelism":3,"completions":3,"suspend":false,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"1","memory":"200Mi"}}}]}}}}}}'
    ;;
jobset)
    path=/mutate-jobset-x-k8s-io-v1alpha2-jobset
    body='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"jobset.x-k8s.io","version":"v1alpha2","kind":"JobSet"},"resource":{"group":"jobset.x-k8s.io","version":"v1alpha2","resource":"jobsets"},"namespace":"default","operation":"CREATE","userInfo":{"username":"tester"},"object":{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"js","namespace":"default","labels":{"kueue.x-k8s.io/queue-name":"user-queue"}},"spec":{"replicatedJobs":[{"name":"workers","replicas":2,"template":{"spec":{"parallelism":2,"completions":2,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"1","memory":"200Mi"}}}]}}}}}]}}}}'
    ;;
*)
    echo "latency.sh: unknown review $what (clusterqueue, job, workload, localqueue, workload-default, job-update or jobset)" >&2
    exit 2
    ;;
esac
cfg=$(mktemp)
i=0
while [ $i -lt "$count" ]; do
    echo "url = \"$url$path\""
    i=$((i + 1))
done >"$cfg"
start=$(date +%s.%N)
curl -sk -Z --parallel-max "$par" -H 'Content-Type: application/json' -d "$body" -o /dev/null \
    -w '%{time_total} %{time_appconnect} %{response_code}\n' -K "$cfg" 2>/dev/null |
    awk '$2 == 0 && $3 == 200 { print $1 * 1000, $3; next } { print "x", $3 }' | sort -n |
    awk -v par="$par" -v what="$what" -v start="$start" '
        $2 != 200 { bad++ }
        $1 != "x" { t[++m] = $1 }
        END {
            cmd = "date +%s.%N"; cmd | getline end; close(cmd)
            printf "latency: %d %s reviews, %d concurrent connections, %.1f s: on open connections p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d not 200\n",
                NR, what, par, end - start, t[int(m * 0.5)], t[int(m * 0.99)], t[m], bad
        }'
rm -f "$cfg"
