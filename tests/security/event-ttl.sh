# event-ttl.sh -- Events expire --event-ttl after their newest time, so a
# tenant cannot fill the store with them: an old one goes at the next sweep,
# a recent one stays, and goes once a change makes it old; Events stored
# before the server started expire too (sourced by run.sh after lib.sh).
need kubectl

start_server ttl --event-ttl 4s || exit 1
k create namespace team-a >/dev/null

# event NAME LASTTIMESTAMP: a core/v1 Event in team-a.
event() {
    cat <<YAML
apiVersion: v1
kind: Event
metadata: {name: $1, namespace: team-a}
involvedObject: {kind: Pod, name: p, namespace: team-a}
reason: Test
message: expiry
type: Normal
firstTimestamp: "$2"
lastTimestamp: "$2"
YAML
}
stamp() { date -u -d "$1" +%Y-%m-%dT%H:%M:%SZ; }

event old "$(stamp '-1 hour')" >"$TMP/old.yaml"
event kept "$(stamp '+1 hour')" >"$TMP/kept.yaml"
k create -f "$TMP/old.yaml" >/dev/null
k create -f "$TMP/kept.yaml" >/dev/null
wait_for "an Event written an hour ago goes at the next sweep" 10 'NotFound' \
    k -n team-a get event old
expect_exact "an Event whose newest time is within the TTL stays" "kept" \
    k -n team-a get event kept -o 'jsonpath={.metadata.name}'
# What the expiry judges is the Event's latest version, not the one it
# first saw.
k -n team-a patch event kept --type merge -p "{\"lastTimestamp\":\"$(stamp '-1 hour')\"}" >/dev/null
wait_for "  ... and goes once a change makes it old" 10 'NotFound' k -n team-a get event kept
stop_server "$PID"

# Stored by a server that keeps Events, found by one that expires them.
start_server found --event-ttl 0 || exit 1
k create namespace team-a >/dev/null
event found "$(stamp '-1 hour')" >"$TMP/found.yaml"
k create -f "$TMP/found.yaml" >/dev/null
stop_server "$PID"
start_server found --event-ttl 4s || exit 1
wait_for "an old Event stored before the server started goes too" 10 'NotFound' \
    k -n team-a get event found
