/* manager.h -- what `cueue controller` serves besides its controllers, as
 * Kueue's controller manager does: the admission webhooks (webhookd.h)
 * with their certificates (certs.h, or files from a directory), and the
 * health probes /healthz and /readyz (ready once the controllers' caches
 * are synced and the webhooks serve).
 *
 * Settings come from the Configuration file (Kueue's
 * controller_manager_config.yaml: namespace, webhook.port, webhook.host,
 * webhook.certDir, health.healthProbeBindAddress, internalCertManagement)
 * and the command line, which wins. The webhooks are served when a port is
 * set by either. */
#ifndef CUEUE_CLI_MANAGER_H
#define CUEUE_CLI_MANAGER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"

struct ac_client;
struct certs;
struct ctl;
struct err;
struct mgr;

/* Certificates read from files elsewhere (the metrics listener's), which
 * mgr_run checks with the others and hands to reload when they change. */
struct mgr_cert_watch {
    const char *dir; /* tls.crt and tls.key; NULL: nothing to watch */
    int (*reload)(void *arg, const char *cert_pem, const char *key_pem, struct err *e);
    void *arg;
};

struct mgr_options {
    struct ac_client *client; /* borrowed */
    const struct ctl *ctl;    /* borrowed: /readyz waits for its caches; NULL: does not */
    const char *config_path;  /* the Configuration, or NULL */
    int webhook_port;         /* -1: the Configuration's (none: no webhooks) */
    const char *webhook_host; /* NULL: the Configuration's, else every address */
    const char *cert_dir;     /* NULL: the Configuration's, else controller-runtime's */
    const char *probe_addr;   /* HOST:PORT or :PORT; NULL: the Configuration's; "0": off */
    int cert_check_s;         /* seconds between checks of the certificates; 0: 60 */
    struct mgr_cert_watch metrics;
};

/* The string at section.key of the Configuration file config_path (NULL:
 * none), else dflt, copied to out[len] (an integer in decimal): settings of
 * the controller that are not the manager's (metrics.bindAddress). 0, or an error naming the file.
 */
CU_MUST_CHECK int mgr_config_string(const char *config_path, const char *section, const char *key,
                                    const char *dflt, char *out, size_t len, struct err *e);

/* Has the Configuration file config_path (NULL: none) a section named
 * section: 0 and *out, or an error naming the file. */
CU_MUST_CHECK int mgr_config_has(const char *config_path, const char *section, bool *out,
                                 struct err *e);

/* Where Kueue's Deployment mounts the metrics Certificate's Secret. */
#define MGR_METRICS_CERT_DIR "/etc/kueue/metrics/certs"

/* The metrics listener's certificate as Kueue's manager chooses it: with
 * internalCertManagement off (cert-manager), tls.crt and tls.key of dir
 * (NULL: MGR_METRICS_CERT_DIR) into *out; else none (out zeroed: the
 * caller makes a self-signed one, as controller-runtime does). 0, or an
 * error naming the file. */
CU_MUST_CHECK int mgr_metrics_certs(const char *config_path, const char *dir, struct certs *out,
                                    struct err *e);

/* Read the settings, start the probes, get the certificates and start
 * the webhooks. 0 and *out, or an error naming the setting or file. */
CU_MUST_CHECK int mgr_start(const struct mgr_options *o, struct mgr **out, struct err *e);
/* Wait for a signal of set (SIGTERM, SIGINT), renewing the certificates
 * and re-injecting the caBundle when they change meanwhile; certificates
 * from files (the webhook's with internalCertManagement off, o->metrics)
 * are served anew when the files change. */
void mgr_run(struct mgr *m, const sigset_t *set);
/* Stop serving and free; NULL is a no-op. */
void mgr_stop(struct mgr *m);

#endif
