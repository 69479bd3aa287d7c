# lib.sh -- helpers for the end-to-end scripts (sourced; POSIX sh).
#
# Every command that talks to the server is bounded by `timeout`; servers
# started here are stopped by stop_servers, which run.sh calls from its trap.

: "${E2E_TIMEOUT:=30}"
PASS=0
FAIL=0
SERVER_PIDS=""

note() { printf '%s\n' "$*"; }
pass() { PASS=$((PASS + 1)); note "ok   - $1"; }
fail() {
    FAIL=$((FAIL + 1))
    note "FAIL - $1"
    if [ -n "${2:-}" ]; then printf '%s\n' "$2" | sed 's/^/       | /' | head -40; fi
}

# start_server NAME [serve options...]: start `cueue serve` on a free port with
# data dir $TMP/NAME, wait (bounded) for its kubeconfig; sets KC, URL, PID, DATA.
# The API is tested alone (--controllers none --executor none) unless the
# options given say otherwise (the last occurrence of an option wins).
start_server() {
    name=$1
    shift
    DATA="$TMP/$name"
    mkdir -p "$DATA"
    rm -f "$DATA/kubeconfig"
    "$CUEUE" serve --listen 127.0.0.1:0 --data-dir "$DATA" --controllers none --executor none "$@" >>"$DATA/serve.log" 2>&1 &
    PID=$!
    SERVER_PIDS="$SERVER_PIDS $PID"
    i=0
    while [ ! -s "$DATA/kubeconfig" ]; do
        i=$((i + 1))
        if [ $i -gt $((200 * ${WAIT_SCALE:-3})) ] || ! kill -0 "$PID" 2>/dev/null; then
            note "server $name did not start:"
            cat "$DATA/serve.log"
            return 1
        fi
        sleep 0.05
    done
    KC="$DATA/kubeconfig"
    URL=$(cat "$DATA/endpoint")
    return 0
}

# stop_server PID: SIGTERM, wait up to 10 s for a clean exit, then SIGKILL.
# Returns the server's exit status (137 when it had to be killed).
stop_server() {
    p=$1
    kill -TERM "$p" 2>/dev/null || return 0
    i=0
    while kill -0 "$p" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 100 ]; then
            kill -KILL "$p" 2>/dev/null
            wait "$p" 2>/dev/null
            return 137
        fi
        sleep 0.1
    done
    wait "$p" 2>/dev/null
    return $?
}

stop_servers() {
    for p in $SERVER_PIDS; do
        if kill -0 "$p" 2>/dev/null; then stop_server "$p"; fi
    done
    SERVER_PIDS=""
}

# k ARGS...: kubectl against the current server, bounded.
k() { timeout "$E2E_TIMEOUT" kubectl --kubeconfig "$KC" "$@"; }

# expect DESC EXPECTED_SUBSTRING CMD...: CMD's combined output contains it.
expect() {
    desc=$1
    want=$2
    shift 2
    out=$("$@" 2>&1)
    case "$out" in
    *"$want"*) pass "$desc" ;;
    *) fail "$desc (wanted: $want)" "$out" ;;
    esac
}

# expect_exact DESC EXPECTED CMD...: CMD's standard output equals it.
expect_exact() {
    desc=$1
    want=$2
    shift 2
    out=$("$@" 2>/dev/null)
    if [ "$out" = "$want" ]; then pass "$desc"; else fail "$desc (wanted: $want)" "$out"; fi
}

# expect_status DESC CODE CURL_ARGS...: curl answers with this HTTP status.
expect_status() {
    desc=$1
    want=$2
    shift 2
    code=$(timeout "$E2E_TIMEOUT" curl -s -o "$TMP/curl.out" -w '%{http_code}' "$@")
    if [ "$code" = "$want" ]; then pass "$desc"; else
        fail "$desc (wanted HTTP $want, got $code)" "$(head -c 600 "$TMP/curl.out")"
    fi
}

# expect_grep DESC EXTENDED_REGEX CMD...: a line of CMD's output matches.
expect_grep() {
    desc=$1
    want=$2
    shift 2
    out=$("$@" 2>&1)
    if printf '%s\n' "$out" | grep -Eq -- "$want"; then pass "$desc"; else
        fail "$desc (wanted /$want/)" "$out"
    fi
}

# Waits end at the first match, so their limits cost nothing when things
# work; WAIT_SCALE (default 3) stretches every limit so that a loaded 2-core
# machine or a sanitizer build does not turn "slow" into "failed".
WAIT_SCALE=${WAIT_SCALE:-3}

# wait_for DESC SECONDS EXTENDED_REGEX CMD...: poll CMD until a line of its
# output matches within SECONDS (times WAIT_SCALE): a check, passes or fails.
wait_for() {
    desc=$1
    secs=$2
    want=$3
    shift 3
    end=$(($(date +%s) + secs * WAIT_SCALE))
    while :; do
        out=$("$@" 2>&1)
        if printf '%s\n' "$out" | grep -Eq -- "$want"; then
            pass "$desc"
            return 0
        fi
        if [ "$(date +%s)" -ge "$end" ]; then
            fail "$desc (wanted /$want/ within ${secs}s)" "$out"
            return 1
        fi
        sleep 0.2
    done
}

# settle SECONDS EXTENDED_REGEX CMD...: set-up that must happen before the
# next check; not a check itself (a failure is one).
settle() {
    ssecs=$1
    sre=$2
    shift 2
    end=$(($(date +%s) + ssecs * WAIT_SCALE))
    while :; do
        out=$("$@" 2>&1)
        if printf '%s\n' "$out" | grep -Eq -- "$sre"; then return 0; fi
        if [ "$(date +%s)" -ge "$end" ]; then
            fail "set-up: waited ${ssecs}s for /$sre/" "$out"
            return 1
        fi
        sleep 0.2
    done
}

# check_server_logs: no sanitizer report or crash in any server log.
check_server_logs() {
    bad=$(grep -lE 'Sanitizer|runtime error:|Segmentation' "$TMP"/*/serve.log 2>/dev/null)
    if [ -z "$bad" ]; then pass "server logs are free of sanitizer reports"; else
        fail "server logs are free of sanitizer reports" "$(cat $bad | head -60)"
    fi
}
