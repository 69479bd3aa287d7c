#!/bin/sh
# latency.sh URL CONCURRENCY COUNT -- COUNT ClusterQueue reviews sent to the
# validating webhook at URL by CONCURRENCY connections at once (curl
# --parallel, keep-alive), and the latency of those sent on a connection
# already open (a TLS handshake is the API server's once per connection):
# p50, p99 and max. A figure, not a check: the machine is shared.
set -u
url=$1
par=$2
count=$3
body='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"kueue.x-k8s.io","version":"v1beta2","kind":"ClusterQueue"},"operation":"CREATE","object":{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"cq"},"spec":{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"f","resources":[{"name":"cpu","nominalQuota":"3"}]}]}]}}}}'
cfg=$(mktemp)
i=0
while [ $i -lt "$count" ]; do
    echo "url = \"$url/validate-kueue-x-k8s-io-v1beta2-clusterqueue\""
    i=$((i + 1))
done >"$cfg"
start=$(date +%s.%N)
curl -sk -Z --parallel-max "$par" -H 'Content-Type: application/json' -d "$body" -o /dev/null \
    -w '%{time_total} %{time_appconnect} %{response_code}\n' -K "$cfg" 2>/dev/null |
    awk '$2 == 0 && $3 == 200 { print $1 * 1000, $3; next } { print "x", $3 }' | sort -n |
    awk -v par="$par" -v start="$start" '
        $2 != 200 { bad++ }
        $1 != "x" { t[++m] = $1 }
        END {
            cmd = "date +%s.%N"; cmd | getline end; close(cmd)
            printf "latency: %d reviews, %d concurrent connections, %.1f s: on open connections p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d not 200\n",
                NR, par, end - start, t[int(m * 0.5)], t[int(m * 0.99)], t[m], bad
        }'
rm -f "$cfg"
