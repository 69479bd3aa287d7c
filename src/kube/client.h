/* client.h -- the api_client over HTTP: any Kubernetes API server.
 *
 * kc_client_new returns a struct ac_client (controller/api_client.h) whose
 * operations are REST calls made with libcurl: JSON bodies, a bearer token
 * or a client certificate, the server verified against the configured CA.
 * Failures come back as the server's Status mapped onto err codes (see
 * kc_status_to_err) with the Status message, so a controller handles a
 * 409 from a real cluster exactly as one from the in-process store.
 *
 * Connections are kept alive: a mutex-guarded pool of curl easy handles,
 * one taken per request and returned after it, so any thread may call at
 * once and a busy loop reuses its connections. A watch has its own handle
 * and reads the newline-delimited event stream incrementally, never holding
 * more than one event (capped) in memory. */
#ifndef CUEUE_KUBE_CLIENT_H
#define CUEUE_KUBE_CLIENT_H

#include <jansson.h>
#include <stddef.h>

#include "base/compiler.h"
#include "base/strbuf.h"
#include "controller/api_client.h"

struct err;
struct kc_config;

#define KC_WATCH_LINE_MAX (16u << 20) /* one watch event; larger is hostile */
#define KC_BODY_MAX (256u << 20)      /* one response body (a big list) */

struct kc_client_opts {
    long timeout_ms;         /* per request (not watches); 0 = 30 s */
    long connect_timeout_ms; /* 0 = 10 s */
    const char *user_agent;  /* NULL = "cueue" */
    bool dry_run;            /* every write asks for a server-side dry run (dryRun=All) */
};

/* Make a client for cfg (copied: cfg may be released after). opts may be
 * NULL. Inline credentials (certificate-authority-data, client-*-data) are
 * written to private temporary files for the TLS library, removed by
 * ac_free. Returns 0 and *out, ERR_INVALID when cfg has no server, or
 * ERR_IO when a credential file cannot be written. */
CU_MUST_CHECK int kc_client_new(const struct kc_config *cfg, const struct kc_client_opts *opts,
                                struct ac_client **out, struct err *e);

/* The REST path of a resource collection or object:
 * "/api/v1/namespaces/NS/pods/NAME", "/apis/GROUP/VERSION/PLURAL", with
 * "/status" when sub is "status". ns and name may be NULL. Owned. */
char *kc_resource_path(const struct store_resource *r, const char *ns, const char *name,
                       const char *sub);

/* Map an HTTP status and its body (a Kubernetes Status, or anything) onto
 * an err code and message: 404 ERR_NOT_FOUND, 409 with reason AlreadyExists
 * ERR_EXISTS, other 409 ERR_CONFLICT, 422 ERR_INVALID (details.causes
 * become e's causes), 410 ERR_GONE, 401 ERR_UNAUTHORIZED, 403 ERR_FORBIDDEN,
 * 400 ERR_PARSE, 413 ERR_TOO_LARGE, 405/415 ERR_UNSUPPORTED, 5xx, 429 and
 * others ERR_IO (try again later). The message is the Status message, or
 * "HTTP <code>" and the start of a non-Status body. Returns the code. */
int kc_status_to_err(long http_code, const char *body, size_t len, struct err *e);
/* The same for a decoded Status object (from a watch ERROR event). */
int kc_status_json_to_err(long http_code, const json_t *status, struct err *e);

/* A line splitter for a byte stream that arrives in arbitrary chunks. */
struct kc_lines {
    struct sb buf; /* the partial line carried over */
    size_t max;    /* longest line accepted */
};
typedef int (*kc_line_fn)(const char *line, size_t len, void *arg);

void kc_lines_init(struct kc_lines *l, size_t max);
void kc_lines_release(struct kc_lines *l);
/* Feed a chunk: fn is called for every complete non-empty line (without its
 * "\n" or "\r\n"), in order. Stops at and returns fn's first non-zero
 * result; ERR_TOO_LARGE when a line grows past max. */
CU_MUST_CHECK int kc_lines_feed(struct kc_lines *l, const char *data, size_t n, kc_line_fn fn,
                                void *arg);
/* The stream ended: deliver a last line that had no newline, if any. */
CU_MUST_CHECK int kc_lines_finish(struct kc_lines *l, kc_line_fn fn, void *arg);

/* Decode one watch event line ({"type":..., "object":...}). Returns 0 with
 * *ev (object owned); for an ERROR event the Status mapped as
 * kc_status_json_to_err (a 410 Expired is ERR_GONE); ERR_PARSE for a line
 * that is not an event. */
CU_MUST_CHECK int kc_watch_event_decode(const char *line, size_t len, struct ac_event *ev,
                                        struct err *e);

#endif
