# event-ttl.sh -- Events expire --event-ttl after their newest time, so a
# tenant cannot fill the store with them: an old one goes at the next sweep,
# one whose lastTimestamp keeps being renewed stays while it is, and goes
# once it is not; Events written after the server started expire as well as
# those it found (sourced by run.sh after lib.sh).
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
event kept "$(stamp now)" >"$TMP/kept.yaml"
k create -f "$TMP/old.yaml" >/dev/null
k create -f "$TMP/kept.yaml" >/dev/null
wait_for "an Event written an hour ago goes at the next sweep" 10 'NotFound' \
    k -n team-a get event old
# Renewed every second for twice the TTL: each renewal is what the expiry
# judges, not the time the Event was first seen.
end=$(($(date +%s) + 8))
while [ "$(date +%s)" -lt "$end" ]; do
    k -n team-a patch event kept --type merge -p "{\"lastTimestamp\":\"$(stamp now)\"}" >/dev/null
    sleep 1
done
expect_exact "an Event renewed within the TTL stays" "kept" \
    k -n team-a get event kept -o 'jsonpath={.metadata.name}'
wait_for "  ... and goes once it is not renewed" 10 'NotFound' k -n team-a get event kept
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
