/* mkconnect.c -- the worker clients of the MultiKueue controller: a
 * kubeconfig document made into an HTTP client (kube/), which the
 * controller layer leaves to its caller. */
#include "cli/cli.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"

int cli_mk_connect(const json_t *kubeconfig, struct ac_client **out, struct err *e)
{
    struct kc_config cfg;
    int rc = kc_config_from_json(kubeconfig, NULL, NULL, "MultiKueueCluster kubeconfig", &cfg, e);
    if (rc)
        return rc;
    /* Short timeouts: a worker that does not answer is a lost worker, and
     * the controller's pass must not wait on it. */
    struct kc_client_opts ko = {
        .timeout_ms = 10000, .connect_timeout_ms = 3000, .user_agent = "cueue-multikueue"};
    rc = kc_client_new(&cfg, &ko, out, e);
    kc_config_release(&cfg);
    return rc;
}
