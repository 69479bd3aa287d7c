# metrics.sh -- sourced by run.sh: Kueue's metrics as a user scrapes them.
# `promtool check metrics` over a busy server's /metrics; a deleted
# ClusterQueue's and LocalQueue's series (counters too) disappear; cohort
# metrics; `cueue controller --metrics-bind-address`; and a real Prometheus
# scraping `cueue serve` over TLS with the admin's bearer token, queried
# for a counter, a gauge and a histogram quantile.

cat >"$TMP/metrics-config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
metrics:
  enableClusterQueueResources: true
YAML
cat >"$TMP/metrics-cohort.yaml" <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: m-root}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: m-team}
spec: {parentName: m-root}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: m-cq}
spec:
  cohortName: m-team
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: lab-default
      resources:
      - {name: cpu, nominalQuota: "2", borrowingLimit: "1"}
YAML

start_server metrics --controllers all --executor local --config "$TMP/metrics-config.yaml" || return 1
MKC=$KC
MDATA=$DATA
k apply -f "$TMP/lab/queues.yaml" >/dev/null
k apply -f "$TMP/metrics-cohort.yaml" >/dev/null
k apply -f "$TMP/lab/admitted-job.yaml" >/dev/null
k apply -f "$TMP/lab/over-quota-job.yaml" >/dev/null
wait_for "metrics: the admitted job completes" 30 '^True$' \
    k -n kueue-lab get job admitted-job -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}'
wait_for "metrics: the finished workload is counted (gauge)" 10 \
    '^kueue_finished_workloads\{cluster_queue="lab-cq",replica_role="standalone"\} 1$' k get --raw /metrics
k get --raw /metrics >"$TMP/metrics.txt"
expect_grep "metrics: HELP and TYPE lines" '^# HELP kueue_admitted_workloads_total .+' cat "$TMP/metrics.txt"
expect_grep "metrics: the over-quota workload is unadmitted, ExceedsMaxQuota" \
    '^kueue_unadmitted_workloads\{cluster_queue="lab-cq",reason="NoReservation",underlying_cause="ExceedsMaxQuota",replica_role="standalone"\} 1$' \
    cat "$TMP/metrics.txt"
expect_grep "metrics: nominal quota in cores" \
    '^kueue_cluster_queue_nominal_quota\{cohort="",cluster_queue="lab-cq",flavor="lab-default",resource="cpu",replica_role="standalone"\} 4$' \
    cat "$TMP/metrics.txt"
expect_grep "metrics: an unset lending limit is +Inf" \
    '^kueue_cluster_queue_lending_limit\{cohort="",cluster_queue="lab-cq",flavor="lab-default",resource="memory",replica_role="standalone"\} \+Inf$' \
    cat "$TMP/metrics.txt"
expect_grep "metrics: borrowing limit of m-cq" \
    '^kueue_cluster_queue_borrowing_limit\{cohort="m-team",cluster_queue="m-cq",flavor="lab-default",resource="cpu",replica_role="standalone"\} 1$' \
    cat "$TMP/metrics.txt"
expect_grep "metrics: cluster_queue_info names parent and root cohorts" \
    '^kueue_cluster_queue_info\{cluster_queue="m-cq",parent_cohort="m-team",root_cohort="m-root",replica_role="standalone"\} 1$' \
    cat "$TMP/metrics.txt"
expect_grep "metrics: cohort_info of m-team" \
    '^kueue_cohort_info\{cohort="m-team",parent_cohort="m-root",root_cohort="m-root",replica_role="standalone"\} 1$' \
    cat "$TMP/metrics.txt"
expect_grep "metrics: the subtree quota of m-root holds m-cq's" \
    '^kueue_cohort_subtree_quota\{cohort="m-root",flavor="lab-default",resource="cpu",replica_role="standalone"\} 2$' \
    cat "$TMP/metrics.txt"
expect_grep "metrics: admission wait histogram, Kueue's exp16 buckets" \
    '^kueue_admission_wait_time_seconds_bucket\{cluster_queue="lab-cq",priority_class="",replica_role="standalone",le="40960"\} 1$' \
    cat "$TMP/metrics.txt"
expect_grep "metrics: workload creation latency of both Jobs" \
    '^kueue_workload_creation_latency_seconds_count\{job_kind="Job",replica_role="standalone"\} 2$' \
    cat "$TMP/metrics.txt"
expect_grep "metrics: no preemption skipped in lab-cq's last cycle" \
    '^kueue_admission_cycle_preemption_skips\{cluster_queue="lab-cq",replica_role="standalone"\} 0$' \
    cat "$TMP/metrics.txt"
if command -v promtool >/dev/null 2>&1; then
    expect_exact "metrics: promtool check metrics is clean" "clean" \
        sh -c "promtool check metrics <'$TMP/metrics.txt' >'$TMP/promtool.out' 2>&1 && echo clean || cat '$TMP/promtool.out'"
else
    note "SKIP: promtool (Debian's prometheus) is absent: exposition not linted"
fi

# A ClusterQueue stopped with Hold: its pending workload, and its
# LocalQueue's, are inadmissible. A stopped LocalQueue leaves the queues,
# as in Kueue: no pending series of its own, none counted in lab-cq.
k patch clusterqueue lab-cq --type merge -p '{"spec":{"stopPolicy":"Hold"}}' >/dev/null
wait_for "metrics: a held ClusterQueue's pending workload is inadmissible" 10 \
    '^kueue_pending_workloads\{cluster_queue="lab-cq",status="inadmissible",replica_role="standalone"\} 1$' \
    k get --raw /metrics
expect_grep "metrics: ... and its LocalQueue's" \
    '^kueue_local_queue_pending_workloads\{name="lab-queue",namespace="kueue-lab",status="inadmissible",replica_role="standalone"\} 1$' \
    k get --raw /metrics
k patch clusterqueue lab-cq --type merge -p '{"spec":{"stopPolicy":"None"}}' >/dev/null
k -n kueue-lab patch localqueue lab-queue --type merge -p '{"spec":{"stopPolicy":"Hold"}}' >/dev/null
wait_for "metrics: a held LocalQueue has no pending series" 10 '^0$' \
    sh -c "kubectl --kubeconfig '$KC' get --raw /metrics | grep -c '^kueue_local_queue_pending_workloads{name=\"lab-queue\"'"
expect_grep "metrics: ... and its workload is not pending in lab-cq" \
    '^kueue_pending_workloads\{cluster_queue="lab-cq",status="inadmissible",replica_role="standalone"\} 0$' \
    k get --raw /metrics
expect_exact "metrics: ... nor unadmitted there" 0 \
    sh -c "kubectl --kubeconfig '$KC' get --raw /metrics | grep -c '^kueue_unadmitted_workloads{cluster_queue=\"lab-cq\"'"
k -n kueue-lab patch localqueue lab-queue --type merge -p '{"spec":{"stopPolicy":"None"}}' >/dev/null
wait_for "metrics: resumed, the workload is pending again" 10 \
    '^kueue_local_queue_pending_workloads\{name="lab-queue",namespace="kueue-lab",status="inadmissible",replica_role="standalone"\} 1$' \
    k get --raw /metrics
expect_grep "metrics: ... and unadmitted again" \
    '^kueue_unadmitted_workloads\{cluster_queue="lab-cq",reason="NoReservation",underlying_cause="ExceedsMaxQuota",replica_role="standalone"\} 1$' \
    k get --raw /metrics

# 3. A real Prometheus scraping over TLS with the admin's token.
if command -v prometheus >/dev/null 2>&1; then
    PDIR="$TMP/prometheus"
    mkdir -p "$PDIR"
    k config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d >"$PDIR/ca.crt"
    k config view --raw -o jsonpath='{.users[0].user.token}' >"$PDIR/token"
    chmod 600 "$PDIR/token"
    hostport=${URL#https://}
    pport=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat >"$PDIR/prometheus.yml" <<YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
- job_name: cueue
  scheme: https
  tls_config: {ca_file: $PDIR/ca.crt}
  authorization: {credentials_file: $PDIR/token}
  static_configs:
  - targets: ['$hostport']
YAML
    prometheus --config.file="$PDIR/prometheus.yml" --storage.tsdb.path="$PDIR/data" \
        --web.listen-address="127.0.0.1:$pport" >"$PDIR/log" 2>&1 &
    PROM_PID=$!
    SERVER_PIDS="$SERVER_PIDS $PROM_PID"
    # promq EXPR: the first result's value, or "" (no result yet).
    promq() {
        curl -s --max-time 5 -G "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" |
            /usr/bin/python3 -c 'import json,sys
r=json.load(sys.stdin).get("data",{}).get("result",[])
print(r[0]["value"][1] if r else "")' 2>/dev/null
    }
    wait_for "prometheus: the scrape target is up (TLS, bearer token)" 30 '^1$' promq 'up{job="cueue"}'
    wait_for "prometheus: counter: one admission in lab-cq" 15 '^1$' \
        promq 'sum(kueue_admitted_workloads_total{cluster_queue="lab-cq"})'
    wait_for "prometheus: gauge: one workload pending in lab-cq, inadmissible" 15 '^1$' \
        promq 'kueue_pending_workloads{cluster_queue="lab-cq",status="inadmissible"}'
    # Prometheus reads the buckets as a histogram: the median of the one
    # admission's wait is a finite number of seconds (not NaN, which
    # unordered or non-cumulative buckets give). How long it waited
    # depends on the machine's load, so it is not bounded here.
    wait_for "prometheus: histogram_quantile: the median admission wait is a number" 15 '^[0-9]+(\.[0-9]+)?$' \
        promq 'histogram_quantile(0.5, sum by (le) (kueue_admission_wait_time_seconds_bucket{cluster_queue="lab-cq"}))'
    stop_server "$PROM_PID"
else
    note "SKIP: prometheus (Debian's prometheus) is absent: no real scrape"
fi

# 2. Deleting the queues removes their series, counters and histograms too.
# The workload-count series follow a Workload that goes away.
k -n kueue-lab delete job over-quota-job >/dev/null
wait_for "metrics: a deleted workload is no longer counted unadmitted" 20 '^0$' \
    sh -c "kubectl --kubeconfig '$KC' get --raw /metrics | grep -c '^kueue_unadmitted_workloads{cluster_queue=\"lab-cq\"'"
k -n kueue-lab delete job admitted-job >/dev/null
k -n kueue-lab wait --for=delete workload --all --timeout=30s >/dev/null 2>&1
k -n kueue-lab delete localqueue lab-queue >/dev/null
k delete clusterqueue lab-cq m-cq --timeout=20s >/dev/null
k delete cohort m-team m-root >/dev/null
wait_for "metrics: no series of the deleted queues and cohorts remain" 10 '^0$' \
    sh -c "kubectl --kubeconfig '$MKC' get --raw /metrics | grep -v '^#' | grep -c 'lab-cq\|lab-queue\|m-cq\|m-team\|m-root'"
stop_server "$PID"

# 4. `cueue controller` serves the same metrics (over plain HTTP when not
# secure; HTTPS with the reviews is tested in tests/e2e-install).
start_server metrics-api --controllers none || return 1
"$CUEUE" controller --kubeconfig "$KC" --executor none --metrics-bind-address 127.0.0.1:0 \
    --metrics-secure=false >"$DATA/controller.log" 2>&1 &
MCPID=$!
CTL_PIDS="$CTL_PIDS $MCPID"
k apply -f "$TMP/lab/queues.yaml" >/dev/null
wait_for "controller: the metrics listener is announced" 10 'metrics served at' cat "$DATA/controller.log"
murl=$(sed -n 's/.*metrics served at \(http:[^ ]*\).*/\1/p' "$DATA/controller.log" | head -1)
wait_for "controller: /metrics shows lab-cq active" 15 \
    '^kueue_cluster_queue_status\{cluster_queue="lab-cq",status="active",replica_role="standalone"\} 1$' \
    curl -s --max-time 5 "$murl"
if command -v promtool >/dev/null 2>&1; then
    expect_exact "controller: promtool check metrics is clean" "clean" \
        sh -c "curl -sf --max-time 5 '$murl' >'$TMP/cmetrics.txt' && promtool check metrics <'$TMP/cmetrics.txt' >'$TMP/promtool.out' 2>&1 && echo clean || cat '$TMP/promtool.out'"
fi
expect_grep "controller: other paths are not found" '^404$' \
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 "${murl%/metrics}/debug"
expect_grep "controller: a bad --metrics-bind-address is refused" '"nonsense" is not HOST:PORT' \
    sh -c "'$CUEUE' controller --kubeconfig '$KC' --metrics-bind-address nonsense 2>&1"
expect_grep "controller: a bad --metrics-secure is refused" '"maybe" is not true or false' \
    sh -c "'$CUEUE' controller --kubeconfig '$KC' --metrics-secure=maybe 2>&1"
stop_server "$MCPID"
stop_server "$PID"

# 5. The plain-Pod integration times the removal of its scheduling gate,
# and admission fair sharing publishes each LocalQueue's usage.
cat >"$TMP/metrics-pod.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, pod]
admissionFairSharing:
  usageHalfLifeTime: 1h
  usageSamplingInterval: 1s
YAML
start_server metrics-pod --controllers all --executor none --config "$TMP/metrics-pod.yaml" || return 1
k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: mp}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: mp-f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: mp-cq}
spec:
  namespaceSelector: {}
  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: mp-f
      resources: [{name: cpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: mp-q, namespace: mp}
spec: {clusterQueue: mp-cq}
YAML
settle 10 '^True$' k -n mp get lq mp-q -o jsonpath='{.status.conditions[?(@.type=="Active")].status}'
k -n mp apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: p1, labels: {kueue.x-k8s.io/queue-name: mp-q}}
spec:
  containers:
  - {name: c, image: busybox, command: ["sleep", "60"], resources: {requests: {cpu: "2"}}}
YAML
wait_for "metrics: the Pod is admitted and its gate removed" 15 '^$' \
    k -n mp get pod p1 -o jsonpath='{.spec.schedulingGates}'
wait_for "metrics: kueue_pod_scheduling_gate_removal_seconds counts the removal" 10 \
    '^kueue_pod_scheduling_gate_removal_seconds_count\{name="kueue.x-k8s.io/admission",cluster_queue="mp-cq",is_group="false",replica_role="standalone"\} 1$' \
    k get --raw /metrics
expect_grep "  ... with Prometheus' default buckets" \
    '^kueue_pod_scheduling_gate_removal_seconds_bucket\{name="kueue.x-k8s.io/admission",cluster_queue="mp-cq",is_group="false",replica_role="standalone",le="0.005"\} [01]$' \
    k get --raw /metrics
wait_for "metrics: the LocalQueue's admission fair sharing usage grows with its 2 cpu" 15 \
    '^kueue_local_queue_admission_fair_sharing_usage\{name="mp-q",namespace="mp",cluster_queue="mp-cq",replica_role="standalone"\} [0-9.e+-]*[1-9]' \
    k get --raw /metrics
if command -v promtool >/dev/null 2>&1; then
    expect_exact "metrics: promtool check metrics is clean with both" "clean" \
        sh -c "kubectl --kubeconfig '$KC' get --raw /metrics >'$TMP/pmetrics.txt' && promtool check metrics <'$TMP/pmetrics.txt' >'$TMP/promtool.out' 2>&1 && echo clean || cat '$TMP/promtool.out'"
fi
k -n mp delete pod p1 --wait=false >/dev/null
k -n mp delete lq mp-q >/dev/null
k delete cq mp-cq --wait=false >/dev/null
wait_for "metrics: both go with their queues" 15 '^0$' \
    sh -c "kubectl --kubeconfig '$KC' get --raw /metrics | grep -v '^#' | grep -c 'mp-cq\|mp-q'"
stop_server "$PID"
