/* server.h -- `cueue serve`'s Kubernetes-compatible HTTP API over the store.
 *
 * The server speaks enough of the Kubernetes API (discovery, OpenAPI v3 as
 * kubectl needs it, CRUD, watch, patch types, server-side apply, Table
 * output, Status errors) for the unmodified kubectl and client libraries to
 * use it as they use a real kube-apiserver (spec/apiserver.md). It owns no
 * object semantics: every read and write goes to the store (store/store.h),
 * which defaults, validates and versions objects.
 *
 * Threading: one I/O thread owns the connections and a pool of workers runs
 * the handlers (server/http.h); watches are fed from the I/O thread as the
 * store announces events. These threads touch the store and the server's
 * own tables only. */
#ifndef CUEUE_SERVER_SERVER_H
#define CUEUE_SERVER_SERVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct api_configuration;
struct err;
struct store;
struct srv;

/* Pending workloads of a queue for the visibility API (spec §11). kind is
 * "clusterqueue" or "localqueue"; ns is NULL for a ClusterQueue. Returns a
 * new JSON array of PendingWorkload items (owned by the caller) starting at
 * offset, at most limit long, or NULL when the queue is unknown to the
 * engine. Called from HTTP threads. */
typedef json_t *(*srv_pending_fn)(void *arg, const char *kind, const char *ns, const char *name,
                                  size_t offset, size_t limit);

/* Why a Workload is where it is (`cueue explain`): a new WorkloadExplanation
 * object (owned by the caller), or NULL when the scheduler has none for
 * it. Called from HTTP threads. */
typedef json_t *(*srv_explain_fn)(void *arg, const char *ns, const char *name);

/* The decision log (`cueue explain --history`): the newest limit entries
 * of workload ns/name, of namespace ns (name NULL) or of all (ns NULL), a
 * new array oldest first, or NULL on failure. Called from HTTP threads. */
typedef json_t *(*srv_decisions_fn)(void *arg, const char *ns, const char *name, size_t limit);

struct srv_options {
    const char *host;        /* IPv4 address to bind, e.g. "127.0.0.1"; NULL: no socket
                              * and no threads, requests only through srv_serve_bytes */
    int port;                /* 0 = any free port (see srv_port) */
    bool tls;                /* serve HTTPS with cert_pem/key_pem */
    const char *cert_pem;    /* serving certificate chain (PEM), when tls */
    const char *key_pem;     /* its private key (PEM), when tls */
    const char *admin_token; /* bearer token allowed everything; required */
    const char *tokens_path; /* users' tokens file (see auth), or NULL */
    /* The 32 bytes that sign service account tokens (kept so that tokens
     * outlive a restart), or NULL for a random key of this run. */
    const unsigned char *sa_key;
    /* A request without a token acts as the admin. For plain HTTP on
     * loopback only: kubectl never sends a bearer token over plain HTTP. A
     * token that is sent is still checked (401 when unknown). */
    bool anonymous_admin;
    size_t max_body;               /* request body cap in bytes; 0 = 3 MiB */
    unsigned max_conns;            /* open connections; 0 = the open-file limit less a reserve */
    unsigned max_conns_per_client; /* per client address; 0 = 512 */
    int max_watches_per_user;      /* watches a user holds open; 0 = 1000, < 0 = no limit */
    struct store *store;           /* borrowed; must outlive the server */
    int64_t event_ttl_s;           /* Events older than this are deleted; 0 = 3600, < 0 = never */
    srv_pending_fn pending;        /* visibility source, or NULL (empty lists) */
    void *pending_arg;
    srv_explain_fn explain; /* GET .../namespaces/NS/workloads/N/explanation, or NULL */
    void *explain_arg;
    srv_decisions_fn decisions; /* GET .../decisions, or NULL (404) */
    void *decisions_arg;
    const char *pod_log_dir; /* where the local executor keeps pod output, or NULL */
    /* GET /metrics: the Prometheus text (owned by the caller), or NULL. */
    char *(*metrics)(void *arg);
    void *metrics_arg;
    /* Kueue's Job management settings (manageJobsWithoutQueueName,
     * managedJobsNamespaceSelector) for the built-in admission; borrowed,
     * must outlive the server. NULL: Kueue's default configuration. */
    const struct api_configuration *config;
};

/* Start serving in background threads. Returns 0 and *out (stop with
 * srv_stop), or ERR_IO (address in use, TLS setup failed) with the reason. */
CU_MUST_CHECK int srv_start(const struct srv_options *o, struct srv **out, struct err *e);
/* The port actually bound (useful with port 0). */
int srv_port(const struct srv *s);
/* Stop: end every watch stream, close connections, join the threads and free
 * the server. The store stays open. srv_stop(NULL) is a no-op. */
void srv_stop(struct srv *s);

/* Kubernetes' and Kueue's bootstrap roles and bindings (cluster-admin
 * bound to the admin token's group system:masters, kueue-batch-admin-role,
 * kueue-batch-user-role, ...): create those missing from st and give
 * existing ones the rules and subjects they lack, as kube-apiserver does
 * at every start (an object annotated
 * rbac.authorization.kubernetes.io/autoupdate: "false" is left alone).
 * Returns 0 or the store's error. */
CU_MUST_CHECK int srv_rbac_bootstrap(struct store *st, struct err *e);

struct sb;
/* Serve the bytes in[0..n) as one client connection would, in the calling
 * thread, and append the server's answers to out; a watch is answered with
 * what is ready and then ended. For tests and fuzzing. */
void srv_serve_bytes(struct srv *s, const char *in, size_t n, struct sb *out);

#endif
