# Sourced by the scripts that start `cueue serve`.
# wait_kubeconfig FILE PID: wait (up to 10 s) until FILE, the kubeconfig
# cueue serve writes once it answers, is there; fails when PID exits or
# the time is up.
wait_kubeconfig() {
    _i=0
    while [ ! -s "$1" ]; do
        _i=$((_i + 1))
        if [ $_i -gt 200 ] || ! kill -0 "$2" 2>/dev/null; then
            return 1
        fi
        sleep 0.05
    done
}
