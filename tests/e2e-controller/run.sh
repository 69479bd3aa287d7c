#!/bin/sh
# run.sh -- end-to-end tests of the controllers, the Job integration and the
# local executor, with the real kubectl: the quota-lab walkthrough in-process
# and over HTTP (`cueue controller` against `cueue serve --controllers none`),
# preemption of a running Job, and restart safety under kill -9.
# usage: sh run.sh <cueue binary> <source dir> [PART...]
# PART: inproc, http, preempt, checks, restart, or a topic file NAME.sh of
# this directory (lifecycle, ...); all of them by default.
set -u
CUEUE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
shift 2
PARTS=${*:-inproc http preempt checks restart lifecycle lifecycle-config lifecycle-node lifecycle-kinds lifecycle-prebuilt lifecycle-priority lifecycle-elastic integrations integ-ray integ-appwrapper integ-trainjob integ-lws integ-serving cli metrics provisioning podsetupdates}
want() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
HERE="$SRC/tests/e2e-controller"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cueue-e2ec.XXXXXX")
export HOME="$TMP/home"
mkdir -p "$HOME"
. "$SRC/tests/e2e/lib.sh"
CTL_PIDS=""

cleanup() {
    for p in $CTL_PIDS; do
        if kill -0 "$p" 2>/dev/null; then stop_server "$p"; fi
    done
    stop_servers
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! command -v kubectl >/dev/null 2>&1; then
    note "SKIP: kubectl is needed for the controller end-to-end tests"
    exit 0
fi

# gone DESC SECONDS [-n NS] KIND/NAME: the object is deleted within SECONDS
# (times WAIT_SCALE).
gone() {
    gdesc=$1
    gsecs=$2
    shift 2
    wait_for "$gdesc" "$gsecs" 'NotFound' k get "$@"
}

# evict_readmit TAG NS RESOURCE NAME WORKLOAD SUSPEND_PATH SELECTORS_PATH
# RUNNING STOPPED: Kueue's eviction and readmission of an admitted object
# whose operator does not run (its status is set by hand to the RUNNING and
# then STOPPED merge patches). Deactivating its Workload suspends it
# (SUSPEND_PATH reads true) with every template's node selector
# (SELECTORS_PATH) restored; the quota is kept while it runs and released
# once it stopped; reactivated, it is admitted and started again with the
# flavor's instance-type label.
evict_readmit() {
    et=$1 ens=$2 er=$3 en=$4 ew=$5 esusp=$6 esel=$7 erun=$8 estop=$9
    k -n "$ens" patch "$er" "$en" --subresource=status --type=merge -p "$erun" >/dev/null
    k -n "$ens" patch workload "$ew" --type=merge -p '{"spec":{"active":false}}' >/dev/null
    wait_for "$et: evicted, suspended" 15 '^true$' k -n "$ens" get "$er" "$en" -o jsonpath="$esusp"
    expect_grep "$et: its templates restored (no node selector)" '^ *$' \
        k -n "$ens" get "$er" "$en" -o jsonpath="$esel"
    expect_exact "$et: the quota is kept while it runs" "True" \
        k -n "$ens" get workload "$ew" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status}'
    k -n "$ens" patch "$er" "$en" --subresource=status --type=merge -p "$estop" >/dev/null
    wait_for "$et: released once it stopped" 15 '^False$' \
        k -n "$ens" get workload "$ew" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status}'
    k -n "$ens" patch workload "$ew" --type=merge -p '{"spec":{"active":true}}' >/dev/null
    wait_for "$et: reactivated, admitted and started again" 15 '^false$' \
        k -n "$ens" get "$er" "$en" -o jsonpath="$esusp"
    expect_grep "$et: ... with the flavor's node selector again" '^on-demand( on-demand)* ?$' \
        k -n "$ens" get "$er" "$en" -o jsonpath="$esel"
}

# The walkthrough's objects, with the jobs' sleep shortened.
mkdir -p "$TMP/lab"
cp "$SRC/examples/quota-lab-queues.yaml" "$TMP/lab/queues.yaml"
sed 's/sleep 30/sleep 2/' "$SRC/examples/admitted-job.yaml" >"$TMP/lab/admitted-job.yaml"
sed 's/sleep 30/sleep 2/' "$SRC/examples/over-quota-job.yaml" >"$TMP/lab/over-quota-job.yaml"

walkthrough() {
    tag=$1
    L="$TMP/lab"
    expect "$tag: apply the queues" "clusterqueue.kueue.x-k8s.io/lab-cq created" k apply -f "$L/queues.yaml"
    wait_for "$tag: ClusterQueue Active=True reason Ready" 10 '^Active=True reason=Ready$' \
        k get clusterqueue lab-cq -o jsonpath='{range .status.conditions[*]}{.type}{"="}{.status}{" reason="}{.reason}{"\n"}{end}'
    wait_for "$tag: LocalQueue Active=True" 10 '^Active=True$' \
        k -n kueue-lab get localqueue lab-queue -o jsonpath='{range .status.conditions[*]}{.type}{"="}{.status}{"\n"}{end}'
    wait_for "$tag: ClusterQueue has the resource-in-use finalizer" 10 'kueue.x-k8s.io/resource-in-use' \
        k get clusterqueue lab-cq -o jsonpath='{.metadata.finalizers}'
    expect "$tag: apply the admitted job" "job.batch/admitted-job created" k apply -f "$L/admitted-job.yaml"
    uid=$(k -n kueue-lab get job admitted-job -o jsonpath='{.metadata.uid}')
    wait_for "$tag: a Workload labelled with the job uid, admitted in lab-cq" 15 '^job-admitted-job-[0-9a-f]{5} lab-cq True$' \
        k -n kueue-lab get workloads -l "kueue.x-k8s.io/job-uid=$uid" \
        -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.status.admission.clusterQueue}{" "}{.status.conditions[?(@.type=="Admitted")].status}{"\n"}{end}'
    expect_exact "$tag: assignment lab-default, cpu 1, memory 256Mi" "lab-default lab-default 1 256Mi" \
        k -n kueue-lab get workloads -l "kueue.x-k8s.io/job-uid=$uid" \
        -o jsonpath='{.items[0].status.admission.podSetAssignments[0].flavors.cpu} {.items[0].status.admission.podSetAssignments[0].flavors.memory} {.items[0].status.admission.podSetAssignments[0].resourceUsage.cpu} {.items[0].status.admission.podSetAssignments[0].resourceUsage.memory}'
    expect_exact "$tag: QuotaReserved=True" "True" \
        k -n kueue-lab get workloads -l "kueue.x-k8s.io/job-uid=$uid" -o jsonpath='{.items[0].status.conditions[?(@.type=="QuotaReserved")].status}'
    wait_for "$tag: the job is unsuspended" 10 '^false$' k -n kueue-lab get job admitted-job -o jsonpath='{.spec.suspend}'
    wait_for "$tag: the job completes" 30 '^True$' \
        k -n kueue-lab get job admitted-job -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
    pods=$(k -n kueue-lab get pods -l job-name=admitted-job -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
    n=$(printf '%s\n' "$pods" | grep -c .)
    if [ "$n" = 2 ]; then pass "$tag: two pods ran"; else fail "$tag: two pods ran" "$pods"; fi
    if [ -n "$LOGS" ]; then
        p1=$(printf '%s\n' "$pods" | head -1)
        expect_exact "$tag: pod output is 'admitted' (kubectl logs)" "admitted" k -n kueue-lab logs "$p1"
    fi
    wait_for "$tag: workload Finished=True" 10 '^True$' \
        k -n kueue-lab get workloads -l "kueue.x-k8s.io/job-uid=$uid" -o jsonpath='{.items[0].status.conditions[?(@.type=="Finished")].status}'
    wait_for "$tag: quota released (reserving 0, usage 0)" 10 '^0 0$' \
        k get clusterqueue lab-cq -o jsonpath='{.status.reservingWorkloads} {.status.flavorsReservation[0].resources[0].total}'
    expect_grep "$tag: events CreatedWorkload, Started on the job" 'Started.*Admitted by clusterQueue lab-cq' \
        k -n kueue-lab get events --field-selector involvedObject.name=admitted-job
    expect_grep "$tag: events QuotaReserved on the workload" 'QuotaReserved.*Quota reserved in ClusterQueue lab-cq' \
        k -n kueue-lab get events
    expect "$tag: apply the over-quota job" "job.batch/over-quota-job created" k apply -f "$L/over-quota-job.yaml"
    wait_for "$tag: over-quota workload pending with Kueue's message" 15 \
        "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor lab-default, previously considered podsets requests \\(0\\) \\+ current podset request \\(6\\) > maximum capacity \\(4\\)" \
        k -n kueue-lab get workloads -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="QuotaReserved")].message}{"\n"}{end}'
    if [ -n "$METRICS" ]; then
        expect_grep "$tag: metrics: one admission counted in lab-cq" '^kueue_admitted_workloads_total\{cluster_queue="lab-cq",priority_class="",replica_role="standalone"\} 1$' \
            k get --raw /metrics
        wait_for "$tag: visibility: the ClusterQueue's pending list names the over-quota workload" 10 '"name":"job-over-quota-job-[0-9a-f]{5}".*"localQueueName":"lab-queue","positionInClusterQueue":0,"positionInLocalQueue":0' \
            k get --raw /apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/lab-cq/pendingworkloads
        expect_grep "$tag: visibility: the LocalQueue's pending list too" '"kind":"PendingWorkloadsSummary".*"name":"job-over-quota-job-' \
            k get --raw /apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/kueue-lab/localqueues/lab-queue/pendingworkloads
        wait_for "$tag: metrics: the over-quota workload is pending, inadmissible" 10 '^kueue_pending_workloads\{cluster_queue="lab-cq",status="inadmissible",replica_role="standalone"\} 1$' \
            k get --raw /metrics
    fi
    expect_exact "$tag: over-quota job stays suspended" "true" k -n kueue-lab get job over-quota-job -o jsonpath='{.spec.suspend}'
    expect_exact "$tag: no pod for the over-quota job" "" k -n kueue-lab get pods -l job-name=over-quota-job -o name
    wait_for "$tag: ClusterQueue counts one pending" 10 '^1$' k get clusterqueue lab-cq -o jsonpath='{.status.pendingWorkloads}'
    expect "$tag: delete the jobs" "deleted" k -n kueue-lab delete job admitted-job over-quota-job
    expect "$tag: workloads are gone" "" k -n kueue-lab wait --for=delete workload --all --timeout=20s
    expect "$tag: delete the LocalQueue" "deleted" k -n kueue-lab delete localqueue lab-queue
    expect "$tag: delete the ClusterQueue" "deleted" k delete clusterqueue lab-cq --timeout=20s
    expect "$tag: delete the ResourceFlavor" "deleted" k delete resourceflavor lab-default --timeout=20s
    expect "$tag: delete the Namespace" "deleted" k delete namespace kueue-lab --timeout=20s
    expect_exact "$tag: nothing left" "" k get clusterqueues,resourceflavors -o name
}

# 1. In-process controllers and executor.
if want inproc; then
    start_server inproc --controllers all --executor local || exit 1
    LOGS=1
    METRICS=1
    walkthrough "in-process"
    stop_server "$PID"
fi

# 2. The cluster path: `cueue controller` over HTTP against an API-only server.
if want http; then
    start_server apionly --controllers none || exit 1
    "$CUEUE" controller --metrics-bind-address 0 --kubeconfig "$KC" --executor local --data-dir "$DATA" --leader-elect \
        --lease-namespace default >"$DATA/controller.log" 2>&1 &
    CTL_PIDS="$CTL_PIDS $!"
    CPID=$!
    k create namespace default >/dev/null 2>&1
    LOGS=1
    METRICS=
    walkthrough "over HTTP"
    expect_grep "over HTTP: the controller holds the Lease" '^.+$' \
        k -n default get lease c1f6bfd2.kueue.x-k8s.io -o jsonpath='{.spec.holderIdentity}'
    stop_server "$CPID"
    stop_server "$PID"
fi

# 3. Preemption of a running Job by a higher-priority one.
if want preempt; then
    start_server preempt --controllers all --executor local || exit 1
    . "$HERE/preempt.sh"
fi

# 4. Admission checks and waitForPodsReady.
if want checks; then . "$HERE/checks.sh"; fi

# 5. Restart safety.
if want restart; then . "$HERE/restart.sh"; fi

# 6. The lifecycle topics, each with servers of its own.
for t in $PARTS; do
    case "$t" in
    inproc | http | preempt | checks | restart) ;;
    *) . "$HERE/$t.sh" ;;
    esac
done

check_server_logs
note "controller e2e: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
