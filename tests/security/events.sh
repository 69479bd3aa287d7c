# events.sh -- events.k8s.io/v1 served from the same Events as core/v1,
# converted both ways as kube-apiserver converts them, with its validation,
# field selectors, watch and RBAC: a tenant reads the Events of its own
# namespaces only (sourced by run.sh after lib.sh).
need kubectl

start_server events || exit 1
note "# events.k8s.io/v1: one store of Events, two views"
k create namespace team-a >/dev/null
k create namespace team-b >/dev/null

expect_grep "discovery lists events in events.k8s.io/v1, short name ev" \
    '^events +ev +events.k8s.io/v1 +true +Event' k api-resources --api-group=events.k8s.io

cat >"$TMP/ev1.yaml" <<'YAML'
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: ev1, namespace: team-a}
eventTime: "2026-12-01T10:00:00.000000Z"
reason: Admitted
note: admitted by ClusterQueue cq
type: Normal
action: Admit
reportingController: kueue-admission
reportingInstance: kueue-admission-1
regarding: {apiVersion: kueue.x-k8s.io/v1beta2, kind: Workload, name: wl1, namespace: team-a}
series: {count: 2, lastObservedTime: "2026-12-01T10:05:00.000000Z"}
YAML
expect "an events.k8s.io/v1 Event is created" "event.events.k8s.io/ev1 created" \
    k create -f "$TMP/ev1.yaml"
expect_exact "  ... read through core/v1: note is message, regarding is involvedObject, reportingController is reportingComponent" \
    "admitted by ClusterQueue cq|Workload/wl1|kueue-admission|2" \
    k -n team-a get events ev1 -o jsonpath='{.message}|{.involvedObject.kind}/{.involvedObject.name}|{.reportingComponent}|{.series.count}'
expect_exact "  ... and through events.k8s.io/v1 as it was written" \
    "events.k8s.io/v1|admitted by ClusterQueue cq|wl1|kueue-admission|" \
    k -n team-a get events.events.k8s.io ev1 -o jsonpath='{.apiVersion}|{.note}|{.regarding.name}|{.reportingController}|{.message}'

cat >"$TMP/legacy.yaml" <<'YAML'
apiVersion: v1
kind: Event
metadata: {name: legacy, namespace: team-a}
involvedObject: {apiVersion: batch/v1, kind: Job, name: job1, namespace: team-a}
reason: Suspended
message: job suspended
type: Normal
source: {component: job-controller}
firstTimestamp: "2026-12-01T09:00:00Z"
lastTimestamp: "2026-12-01T09:30:00Z"
count: 4
YAML
k create -f "$TMP/legacy.yaml" >/dev/null
expect_exact "a core/v1 Event read through events.k8s.io/v1: its deprecated* fields" \
    "job suspended|Job/job1|job-controller|4|2026-12-01T09:00:00Z|2026-12-01T09:30:00Z|" \
    k -n team-a get events.events.k8s.io legacy -o jsonpath='{.note}|{.regarding.kind}/{.regarding.name}|{.deprecatedSource.component}|{.deprecatedCount}|{.deprecatedFirstTimestamp}|{.deprecatedLastTimestamp}|{.count}'
expect_grep "kubectl get events.events.k8s.io: the Event table" \
    'Normal +Suspended +job/job1 +job suspended' k -n team-a get events.events.k8s.io
expect_grep "kubectl events shows both" 'Admitted +Workload/wl1 +admitted by ClusterQueue cq' \
    k events -n team-a

note "# field selectors in events.k8s.io's names"
expect_exact "regarding.name and reportingController select" "event.events.k8s.io/ev1" \
    k -n team-a get events.events.k8s.io --field-selector regarding.name=wl1,reportingController=kueue-admission -o name
expect_exact "  ... regarding.kind!=" "event.events.k8s.io/ev1" \
    k get events.events.k8s.io -A --field-selector regarding.kind!=Job -o name
expect "  ... core's names are not events.k8s.io's" "field label not supported: involvedObject.name" \
    k -n team-a get events.events.k8s.io --field-selector involvedObject.name=wl1

note "# kube-apiserver's rules of an events.k8s.io/v1 write"
cat >"$TMP/bad.yaml" <<'YAML'
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: bad, namespace: team-a}
type: Info
deprecatedCount: 3
regarding: {kind: Pod, name: p1, namespace: team-a}
YAML
expect "no eventTime, a bad type and a deprecated field: refused with each named" \
    '* eventTime: Required value
* type: Invalid value: "": has invalid value: Info
* count: Invalid value: "": needs to be unset' k create -f "$TMP/bad.yaml"
sed -e 's/^type: Info/type: Normal\neventTime: "2026-12-01T10:00:00.000000Z"/' -e '/deprecatedCount/d' \
    "$TMP/bad.yaml" >"$TMP/bad2.yaml"
expect "  ... an eventTime needs the reporting controller, instance, action and reason" \
    '* reportingController: Required value
* reportingInstance: Required value
* action: Required value
* reason: Required value' \
    k create -f "$TMP/bad2.yaml"
expect_exact "  ... nothing was stored" "" k -n team-a get events -o name --field-selector metadata.name=bad
expect "an update may not change the note" 'message: Invalid value: "changed": field is immutable' \
    k -n team-a patch events.events.k8s.io ev1 --type=merge -p '{"note":"changed"}'
expect "  ... a series must count at least 2" 'series.count: Invalid value: "": should be at least 2' \
    k -n team-a patch events.events.k8s.io ev1 --type=merge -p '{"series":{"count":1}}'
expect_exact "  ... the series may grow" "3" \
    k -n team-a patch events.events.k8s.io ev1 --type=merge \
    -p '{"series":{"count":3,"lastObservedTime":"2026-12-01T10:09:00.000000Z"}}' -o 'jsonpath={.series.count}'
expect_exact "  ... and core/v1 sees it" "3" k -n team-a get events ev1 -o 'jsonpath={.series.count}'
sed 's/^reason: Admitted/bogus: 1/' "$TMP/ev1.yaml" >"$TMP/bogus.yaml"
expect "an unknown field is refused (kubectl asks for strict decoding)" \
    'Event in version "v1" cannot be handled as a Event: strict decoding error: unknown field "bogus"' \
    k create -f "$TMP/bogus.yaml"

note "# watch"
timeout $((6 * WAIT_SCALE)) kubectl --kubeconfig "$KC" -n team-a get events.events.k8s.io -w -o 'jsonpath={.note}{"\n"}' \
    >"$TMP/watch.out" 2>&1 &
WPID=$!
# ev2 is made once the watch has listed ev1, so that it comes as a watch event.
settle 6 'admitted by ClusterQueue cq' cat "$TMP/watch.out"
sed -e 's/name: ev1/name: ev2/' -e 's/note: admitted by ClusterQueue cq/note: watched/' "$TMP/ev1.yaml" |
    k create -f - >/dev/null
settle 6 '^watched$' cat "$TMP/watch.out"
kill "$WPID" 2>/dev/null
wait "$WPID" 2>/dev/null
expect_exact "a watch through events.k8s.io/v1 delivers the converted Event" \
    "watched" grep -x watched "$TMP/watch.out"

if $PY -c 'import kubernetes' 2>/dev/null; then
    expect_exact "the Python client reads and writes events.k8s.io/v1 Events" \
        "admitted by ClusterQueue cq|Workload|3
py|Pod/p9" $PY - "$KC" <<'PY'
import sys
from kubernetes import client, config
config.load_kube_config(sys.argv[1])
api = client.EventsV1Api()
e = api.read_namespaced_event("ev1", "team-a")
print(f"{e.note}|{e.regarding.kind}|{e.series.count}")
ev = client.EventsV1Event(
    metadata=client.V1ObjectMeta(name="py", namespace="team-a"),
    event_time="2026-12-01T11:00:00.000000Z", reason="FromPython", note="py",
    type="Warning", action="Make", reporting_controller="example.com/py",
        reporting_instance="py-1",
    regarding=client.V1ObjectReference(kind="Pod", name="p9", namespace="team-a"))
api.create_namespaced_event("team-a", ev)
c = client.CoreV1Api().read_namespaced_event("py", "team-a")
print(f"{c.message}|{c.involved_object.kind}/{c.involved_object.name}")
PY
fi

note "# RBAC: a tenant reads its own namespaces' Events"
sed 's/namespace: team-a/namespace: team-b/' "$TMP/legacy.yaml" | k create -f - >/dev/null
k create clusterrole event-reader --verb=get,list,watch --resource=events.events.k8s.io,events >/dev/null
ROLES=event-reader tenant reader team-a
expect_exact "a tenant allowed Events in team-a lists them through events.k8s.io/v1" \
    "event.events.k8s.io/ev1
event.events.k8s.io/ev2
event.events.k8s.io/legacy
event.events.k8s.io/py" kt "$TKC" -n team-a get events.events.k8s.io -o name
expect "  ... not team-b's" 'cannot list resource "events" in API group "events.k8s.io" in the namespace "team-b"' \
    kt "$TKC" -n team-b get events.events.k8s.io
expect "  ... nor one of them by name" 'cannot get resource "events" in API group "events.k8s.io" in the namespace "team-b"' \
    kt "$TKC" -n team-b get events.events.k8s.io legacy
expect "  ... nor every namespace's" 'cannot list resource "events" in API group "events.k8s.io" at the cluster scope' \
    kt "$TKC" get events.events.k8s.io -A
TTOKEN=$(kubectl config view --raw --kubeconfig "$TKC" -o 'jsonpath={.users[0].user.token}')
expect_status "  ... nor watch team-b's" 403 --cacert "$DATA/ca.crt" -H "Authorization: Bearer $TTOKEN" \
    "$URL/apis/events.k8s.io/v1/namespaces/team-b/events?watch=true&timeoutSeconds=2"
expect_status "  ... but may watch team-a's" 200 --cacert "$DATA/ca.crt" -H "Authorization: Bearer $TTOKEN" \
    "$URL/apis/events.k8s.io/v1/namespaces/team-a/events?watch=true&timeoutSeconds=1"
expect "  ... and may not write them" 'cannot create resource "events" in API group "events.k8s.io"' \
    kt "$TKC" create -f "$TMP/ev1.yaml"
tenant user team-a
expect "Kueue's batch-user role reads no Events" 'cannot list resource "events" in API group "events.k8s.io"' \
    kt "$TKC" -n team-a get events.events.k8s.io

note "# delete"
expect "an Event deleted through events.k8s.io/v1" 'event.events.k8s.io "ev2" deleted' \
    k -n team-a delete events.events.k8s.io ev2
expect "  ... is gone from core/v1" 'events "ev2" not found' k -n team-a get events ev2
