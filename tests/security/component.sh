# component.sh -- `cueue controller` (with its node agent) runs against
# `cueue serve` as a service account holding only the ClusterRole the
# cluster deployment ships (kueue-manager-role of dist/manifests.yaml): the quota walkthrough
# works end to end, and the account can do nothing else (sourced by run.sh
# after lib.sh).
need kubectl

start_server component --controllers none || exit 1
/usr/bin/python3 -c '
import sys, yaml
want = {"Namespace", "ServiceAccount", "ClusterRole/kueue-manager-role", "ClusterRoleBinding"}
docs = [d for d in yaml.safe_load_all(sys.stdin)
        if d and (d["kind"] in want or d["kind"] + "/" + d["metadata"]["name"] in want)]
yaml.safe_dump_all(docs, sys.stdout)' <"$SRC/dist/manifests.yaml" >"$TMP/controller-rbac.yaml"
k apply -f "$TMP/controller-rbac.yaml" >/dev/null
tok=$(k -n kueue-system create token kueue-controller-manager --duration 2h)
CKC="$TMP/controller.kubeconfig"
cp "$KC" "$CKC"
kubectl --kubeconfig "$CKC" config set-credentials sa --token="$tok" >/dev/null
kubectl --kubeconfig "$CKC" config set-context --current --user=sa >/dev/null
expect_exact "the controller's account is the service account" \
    "system:serviceaccount:kueue-system:kueue-controller-manager" \
    kt "$CKC" auth whoami -o 'jsonpath={.status.userInfo.username}'
expect_exact "  ... which may not read Secrets" "no" kt "$CKC" auth can-i get secrets -A
expect_exact "  ... nor write RBAC" "no" kt "$CKC" auth can-i create clusterrolebindings
"$CUEUE" controller --metrics-bind-address 0 --kubeconfig "$CKC" --executor local --data-dir "$DATA" --leader-elect \
    --lease-namespace kueue-system >"$TMP/controller.log" 2>&1 &
CPID=$!
SERVER_PIDS="$SERVER_PIDS $CPID"
L="$TMP/lab"
mkdir -p "$L"
sed 's/sleep 30/sleep 1/' "$SRC/examples/admitted-job.yaml" >"$L/job.yaml"
k apply -f "$SRC/examples/quota-lab-queues.yaml" >/dev/null
wait_for "the ClusterQueue becomes active (the controller writes its status)" 20 '^True$' \
    k get clusterqueue lab-cq -o 'jsonpath={.status.conditions[?(@.type=="Active")].status}'
k apply -f "$L/job.yaml" >/dev/null
wait_for "the Job is admitted, its Pods run, it completes" 40 '^True$' \
    k -n kueue-lab get job admitted-job -o 'jsonpath={.status.conditions[?(@.type=="Complete")].status}'
expect_exact "  ... its Workload finished" "True" \
    k -n kueue-lab get workloads -o 'jsonpath={.items[0].status.conditions[?(@.type=="Finished")].status}'
expect_exact "  ... the node agent registered its Node" "cueue-local" \
    k get node cueue-local -o 'jsonpath={.metadata.name}'
expect_exact "the controller was refused nothing" "" \
    sh -c "grep -i 'forbidden' '$TMP/controller.log' | head -5"
