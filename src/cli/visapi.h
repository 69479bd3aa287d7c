/* visapi.h -- Kueue's visibility API as `cueue controller` serves it to a
 * cluster: the aggregated API server of visibility.kueue.x-k8s.io (v1beta1
 * and v1beta2, as Kueue's pkg/visibility), over HTTPS on Kueue's port
 * (visibilityServer.bindPort, 8082), behind the APIService objects that
 * make the cluster's API server proxy /apis/visibility.kueue.x-k8s.io/ to
 * it.
 *
 * Paths (GET):
 *   /apis, /apis/visibility.kueue.x-k8s.io, .../VERSION  discovery
 *   .../VERSION/clusterqueues/NAME/pendingworkloads
 *   .../VERSION/namespaces/NS/localqueues/NAME/pendingworkloads
 *     ?offset=N&limit=N: a PendingWorkloadsSummary from the controllers'
 *     snapshot (controller/visibility.h)
 *   /healthz, /readyz, /livez  ok, unauthenticated
 *
 * Every other request is authenticated as an aggregated API server does:
 * a client certificate signed by the front proxy's CA (and, when the list
 * is not empty, with one of its allowed common names) vouches for the user
 * and groups in the request-header headers (X-Remote-User, X-Remote-Group),
 * all read from the ConfigMap kube-system/extension-apiserver-
 * authentication at start; else a bearer token, reviewed by the API server
 * (TokenReview). Each is then authorized by a SubjectAccessReview of get on
 * the subresource (clusterqueues/pendingworkloads, localqueues/
 * pendingworkloads) or of the path (discovery). */
#ifndef CUEUE_CLI_VISAPI_H
#define CUEUE_CLI_VISAPI_H

#include <stdbool.h>

#include "base/compiler.h"

struct ac_client;
struct ctl;
struct err;
struct vis;
struct visapi;

struct visapi_options {
    struct ac_client *ac;  /* borrowed: the reviews and the front proxy's ConfigMap */
    struct vis *vis;       /* borrowed: the pending-workloads snapshot */
    const struct ctl *ctl; /* borrowed: whether a queue exists; or NULL */
    const char *host;      /* IPv4 address to bind; NULL: every address */
    int port;              /* 0: any free port */
};

/* Read the front proxy's settings, make a self-signed serving certificate
 * (as Kueue's server does; its APIServices skip verifying it) and serve.
 * Returns 0 and *out, or an error naming what failed (bind). */
CU_MUST_CHECK int visapi_start(const struct visapi_options *o, struct visapi **out, struct err *e);
/* The port bound. */
int visapi_port(const struct visapi *v);
/* Stop serving and free; NULL is a no-op. */
void visapi_stop(struct visapi *v);

#endif
