# dashboard.sh -- the dashboard at /dashboard: its files hold no data and
# carry the headers that keep it from being framed or fed script; in
# headless Chromium each view shows the numbers of the quota-lab example and
# of a cohort under load, all of them to the admin and only its namespaces'
# workloads to a tenant (sourced by run.sh after lib.sh).
#
# DASHBOARD_SHOTS=DIR keeps the screenshots of the views there (docs/img
# holds the ones the docs show); else they go to the temporary directory.
need kubectl curl

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    if [ -n "${CI:-}" ]; then
        fail "chromium is needed to test the dashboard (scripts/deps.sh installs it)" ""
        return 0 2>/dev/null || exit 1
    fi
    note "SKIP: chromium is needed (scripts/deps.sh installs it); CI fails without it"
    exit 0
fi
SHOTS=${DASHBOARD_SHOTS:-$TMP/shots}
mkdir -p "$SHOTS"

# chrome ARGS... URL: headless Chromium, bounded; the page's script runs
# with 5 s of virtual time (the watches stay open: it does not wait for them).
chrome() {
    timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --ignore-certificate-errors --user-data-dir="$TMP/chromium" \
        --virtual-time-budget=5000 --window-size=1280,860 "$@" 2>>"$TMP/chromium.log"
}

# view TOKEN HASH: the DOM of the dashboard at #HASH once its script rendered
# the view, as the user of TOKEN (handed over in the address, as a user
# would paste it into the sign-in form).
view() {
    chrome --dump-dom "$URL/dashboard/#$2&token=$1"
}

# shot NAME TOKEN HASH: a screenshot of the view, NAME.png in $SHOTS.
shot() {
    chrome --screenshot="$SHOTS/$1.png" "$URL/dashboard/#$3&token=$2" >/dev/null
    if [ -s "$SHOTS/$1.png" ]; then pass "  ... screenshot $1.png"; else fail "  ... screenshot $1.png" ""; fi
}

# lacks DESC TEXT: $out does not hold TEXT.
lacks() {
    case "$out" in
    *"$2"*) fail "$1 (found: $2)" "$out" ;;
    *) pass "$1" ;;
    esac
}

token_of() { awk '/token:/ {print $2; exit}' "$1"; }

# job NS NAME CPU QUEUE: a Job that runs until the server stops.
job() {
    cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $2
  namespace: $1
  labels: {kueue.x-k8s.io/queue-name: $4}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: busybox, command: ["sh", "-c", "sleep 600"], resources: {requests: {cpu: "$3"}}}
YAML
}

start_server dash --controllers all --executor local || exit 1
note "# dashboard: the page and its headers"
ADMIN=$(token_of "$KC")
expect_status "the page needs no token (it holds no data)" 200 -k "$URL/dashboard"
expect_status "  ... nor its script" 200 -k "$URL/dashboard/app.js"
hdr=$(curl -sk -D- -o /dev/null "$URL/dashboard/")
expect "  ... Content-Security-Policy: no inline script, no framing" \
    "script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'" \
    printf '%s' "$hdr"
expect "  ... X-Content-Type-Options: nosniff" "X-Content-Type-Options: nosniff" printf '%s' "$hdr"
expect "  ... the script is served as JavaScript" "Content-Type: text/javascript" \
    curl -sk -D- -o /dev/null "$URL/dashboard/app.js"
expect_status "a file that is not the dashboard's is not found" 404 -k "$URL/dashboard/secret.yaml"
expect_status "  ... nor is one outside it" 404 -k --path-as-is "$URL/dashboard/../dashboard/../etc/passwd"
expect_status "the dashboard's files are only read" 405 -k -X POST "$URL/dashboard/app.js"
expect_status "a path that only starts like the dashboard's is the API's (401)" 401 -k "$URL/dashboardx"
expect_status "the API still needs the token" 401 -k "$URL/apis/kueue.x-k8s.io/v1beta2/workloads"
expect_grep "without a token the page asks for one and shows nothing else" \
    '<main id="view"></main>' chrome --dump-dom "$URL/dashboard/"

note "# dashboard: the quota-lab example"
sed 's/sleep 30/sleep 600/' "$SRC/examples/admitted-job.yaml" >"$TMP/admitted.yaml"
k apply -f "$SRC/examples/quota-lab-queues.yaml" >/dev/null
k apply -f "$TMP/admitted.yaml" >/dev/null
wait_for "the example's job is admitted" 30 "True" \
    k get workloads -n kueue-lab -l kueue.x-k8s.io/job-uid -o "jsonpath={.items[0].status.conditions[?(@.type=='Admitted')].status}"
k apply -f "$SRC/examples/over-quota-job.yaml" >/dev/null
wait_for "  ... and the over-quota one waits" 30 "ExceedsMaxQuota" \
    k get workloads -n kueue-lab -o "jsonpath={.items[*].status.conditions[?(@.type=='QuotaReserved')].reason}"
OVER=$(k get workloads -n kueue-lab -o name | sed -n 's|.*/\(job-over-quota-job-.*\)|\1|p')

out=$(view "$ADMIN" "view=clusterqueues")
expect "ClusterQueues: lab-cq uses 1 of its 4 cpu" \
    '<td>cpu</td><td><span class="bar" role="img" aria-label="1 used of 4"><span class="used" style="width: 25%;"></span><span class="nominal" style="left: 100%;"></span></span></td><td class="num">1</td><td class="num">4</td><td class="num">0</td>' \
    printf '%s' "$out"
expect "  ... and 256Mi of its 8Gi memory" '<td class="num">256Mi</td><td class="num">8Gi</td>' printf '%s' "$out"
expect "  ... with its counts" 'ClusterQueue lab-cq<span class="note"> pending 1, reserving 1, admitted 1</span>' \
    printf '%s' "$out"
expect "  ... live through a watch" '<span id="live" class="live on">live</span>' printf '%s' "$out"
shot quota-lab-clusterqueues "$ADMIN" "view=clusterqueues"
expect "LocalQueues: lab-queue with 1 pending, 1 admitted and its usage" \
    '<td>kueue-lab</td><td>lab-queue</td><td>lab-cq</td><td class="num">1</td><td class="num">1</td><td class="num">1</td><td>cpu 1 (lab-default), memory 256Mi (lab-default)</td>' \
    view "$ADMIN" "view=localqueues"
shot quota-lab-localqueues "$ADMIN" "view=localqueues"
out=$(view "$ADMIN" "view=pending")
expect "Pending: the over-quota job first in its queues, asking 6 cpu" \
    ">kueue-lab/$OVER</a></td><td>lab-queue</td><td>lab-cq</td><td class=\"num\">0</td><td class=\"num\">0</td><td class=\"num\">0</td><td>cpu 6, memory 256Mi</td>" \
    printf '%s' "$out"
expect "  ... and why it waits" "current podset request (6) &gt; maximum capacity (4)" printf '%s' "$out"
shot quota-lab-pending "$ADMIN" "view=pending"
expect_grep "Admitted: the example's job holds 1 cpu of lab-default" \
    '>kueue-lab/job-admitted-job-[0-9a-f]+</a></td><td>lab-queue</td><td>lab-cq</td><td>Admitted</td><td class="num">0</td><td>cpu 1 \(lab-default\), memory 256Mi \(lab-default\)</td>' \
    view "$ADMIN" "view=admitted"
shot quota-lab-admitted "$ADMIN" "view=admitted"
out=$(view "$ADMIN" "view=workload&ns=kueue-lab&name=$OVER")
expect "Workload: the explanation's arithmetic (6 cpu requested, 1 used, 3 available, capacity 4, 3 missing)" \
    '<td>lab-default</td><td>cpu</td><td>NoFit</td><td>6</td><td>1</td><td>4</td><td>3</td><td>4</td><td>3</td><td>0</td><td>insufficient quota for cpu in flavor lab-default, previously considered podsets requests (0) + current podset request (6) &gt; maximum capacity (4)</td>' \
    printf '%s' "$out"
expect "  ... and its conditions" '<td>QuotaReserved</td><td>False</td><td>ExceedsMaxQuota</td>' printf '%s' "$out"
shot quota-lab-workload "$ADMIN" "view=workload&ns=kueue-lab&name=$OVER"

note "# dashboard: a cohort under load, as the admin and as a tenant"
cat >"$TMP/cohort.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: org}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-a}
spec:
  cohortName: org
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: team-a}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: "2"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-b}
spec:
  cohortName: org
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: team-b}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: "2", lendingLimit: "1"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: team-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-b}
spec: {clusterQueue: team-b}
YAML
k apply -f "$TMP/cohort.yaml" >/dev/null
job team-a train 3 lq | k apply -f - >/dev/null
wait_for "team-a's 3-cpu job is admitted, borrowing 1 cpu from team-b" 30 "^1$" \
    k get clusterqueue team-a -o "jsonpath={.status.flavorsUsage[0].resources[0].borrowed}"
job team-b serve 1 lq | k apply -f - >/dev/null
# The load: 12 more jobs per team, all waiting.
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
    job team-a "a-$i" 1 lq
    echo ---
    job team-b "b-$i" 1 lq
    echo ---
done | k apply -f - >/dev/null
wait_for "  ... team-b's 1-cpu job is admitted, the 24 others wait" 30 "^1 12 1 12$" \
    sh -c "kubectl --kubeconfig '$KC' get clusterqueue team-a team-b -o jsonpath='{range .items[*]}{.status.admittedWorkloads} {.status.pendingWorkloads} {end}' | sed 's/ \$//'"

out=$(view "$ADMIN" "view=clusterqueues")
expect "Cohorts: org's total is 4 of 4 cpu used" \
    '<h2>Cohort org</h2><h3>Cohort total</h3><table><tr><th>Flavor</th><th>Resource</th><th>Usage</th><th>Used</th><th>Nominal</th></tr><tr><td>default-flavor</td><td>cpu</td><td><span class="bar" role="img" aria-label="4 used of 4"><span class="used" style="width: 100%;"></span><span class="nominal" style="left: 100%;"></span></span></td><td class="num">4</td><td class="num">4</td></tr></table>' \
    printf '%s' "$out"
expect "  ... team-a uses 3 of its 2 cpu, borrowing 1 (the bar shows the borrowed part)" \
    '<span class="used" style="width: 66.67%;"></span><span class="borrowed" style="left: 66.67%; width: 33.33%;"></span><span class="nominal" style="left: 66.67%;"></span></span></td><td class="num">3</td><td class="num">2</td><td class="num">1</td><td class="num">-</td><td class="num">-</td>' \
    printf '%s' "$out"
expect "  ... team-b uses 1 of 2 and lends at most 1" \
    '<td class="num">1</td><td class="num">2</td><td class="num">0</td><td class="num">-</td><td class="num">1</td>' \
    printf '%s' "$out"
expect "  ... with their counts" 'ClusterQueue team-b<span class="note"> pending 12, reserving 1, admitted 1</span>' \
    printf '%s' "$out"
shot cohort-clusterqueues "$ADMIN" "view=clusterqueues"
out=$(view "$ADMIN" "view=pending")
expect "Pending (admin): all 25 waiting workloads, of both teams" "<h2>25 pending workloads</h2>" printf '%s' "$out"
expect_grep "  ... team-b's first in line at position 0 of its queues" \
    '>team-b/job-b-[0-9]+-[0-9a-f]+</a></td><td>lq</td><td>team-b</td><td class="num">0</td><td class="num">0</td>' \
    printf '%s' "$out"
expect_grep "  ... and its last at position 11" \
    '>team-b/job-b-[0-9]+-[0-9a-f]+</a></td><td>lq</td><td>team-b</td><td class="num">11</td><td class="num">11</td>' \
    printf '%s' "$out"
shot cohort-pending "$ADMIN" "view=pending"
job team-a late 1 lq >"$TMP/late.yaml"
expect "Live: an open page shows a new workload without being reloaded (a watch event)" \
    "heading: 26 pending workloads
followed" \
    timeout 120 "$PY" "$SRC/tests/security/dashboard_live.py" "$CHROMIUM" \
    "$URL/dashboard/#view=pending&token=$ADMIN" "25 pending workloads" "26 pending workloads" \
    kubectl --kubeconfig "$KC" apply -f "$TMP/late.yaml"

tenant alice team-a
ALICE=$(token_of "$TKC")
out=$(view "$ALICE" "view=pending&namespaces=team-a")
expect "Pending (tenant): alice sees team-a's 13 waiting workloads" "<h2>13 pending workloads</h2>" \
    printf '%s' "$out"
expect_grep "  ... with their positions, the last at 12" \
    '>team-a/job-[a-z0-9-]+</a></td><td>lq</td><td>team-a</td><td class="num">12</td><td class="num">12</td>' \
    printf '%s' "$out"
lacks "  ... and none of team-b's" "team-b/"
out=$(view "$ALICE" "view=pending&namespaces=team-a,team-b")
expect "  ... naming team-b too gets the API's 403, not its workloads" \
    '<p class="error" data-code="403">' printf '%s' "$out"
lacks "  ... (none of them shown)" "team-b/job-"
shot tenant-pending "$ALICE" "view=pending&namespaces=team-a"
out=$(view "$ALICE" "view=admitted&namespaces=team-a")
expect "Admitted (tenant): alice sees her 3-cpu job" "<h2>1 admitted workload</h2>" printf '%s' "$out"
lacks "  ... and not team-b's" "team-b/"
expect "ClusterQueues (tenant): the API's 403 is shown in the view" \
    '<p class="error" data-code="403">You may not read ClusterQueues (403 Forbidden)' \
    view "$ALICE" "view=clusterqueues&namespaces=team-a"
BWL=$(k get workloads -n team-b -o name | sed -n 's|.*/\(job-serve-.*\)|\1|p')
expect "Workload (tenant): another namespace's workload is forbidden, not shown" \
    "<p class=\"error\" data-code=\"403\">You may not read workload team-b/$BWL (403 Forbidden)" \
    view "$ALICE" "view=workload&ns=team-b&name=$BWL"
