/* client.c -- the api_client over HTTP with libcurl. See client.h.
 *
 * Requests borrow an easy handle from a pool (curl_easy_reset keeps its
 * live connections), so keep-alive survives across calls and threads never
 * share a handle. A watch runs its own handle inside a private multi handle,
 * so ac_watch_next can wait with a timeout and return between events. */
#include "kube/client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/codec.h"
#include "base/err.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "kube/kubeconfig.h"

#define TOKEN_REREAD_MS 60000 /* a projected token rotates; read it again this often */

struct kc_client {
    struct ac_client base;
    char *server;
    char *ca_file;
    char *cert_file;
    char *key_file;
    bool insecure;
    char *token;
    char *token_file;
    char *tmp_files[3]; /* inline credentials written out; unlinked on free */
    size_t ntmp;
    long timeout_ms;
    long connect_timeout_ms;
    char *user_agent;
    bool dry_run;

    pthread_mutex_t mu; /* guards the fields below */
    CURL **pool;
    size_t npool;
    size_t cap;
    char *token_cache; /* token_file's content */
    int64_t token_read_ms;
};

static const struct ac_ops kc_ops;

static pthread_once_t global_once = PTHREAD_ONCE_INIT;

static void global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* ---- paths and URLs --------------------------------------------------------- */

char *kc_resource_path(const struct store_resource *r, const char *ns, const char *name,
                       const char *sub)
{
    struct sb sb = SB_INIT;
    if (!r->group || !*r->group)
        sb_addf(&sb, "/api/%s", r->version);
    else
        sb_addf(&sb, "/apis/%s/%s", r->group, r->version);
    if (r->namespaced && ns && *ns)
        sb_addf(&sb, "/namespaces/%s", ns);
    sb_addf(&sb, "/%s", r->plural);
    if (name)
        sb_addf(&sb, "/%s", name);
    if (name && sub)
        sb_addf(&sb, "/%s", sub);
    return sb_take(&sb);
}

static void add_query(struct sb *url, CURL *h, bool *first, const char *key, const char *value)
{
    if (!value || !*value)
        return;
    char *esc = curl_easy_escape(h, value, 0);
    sb_addf(url, "%c%s=%s", *first ? '?' : '&', key, esc);
    curl_free(esc);
    *first = false;
}

/* ---- handles ---------------------------------------------------------------- */

static CURL *handle_take(struct kc_client *c)
{
    CURL *h = NULL;
    pthread_mutex_lock(&c->mu);
    if (c->npool)
        h = c->pool[--c->npool];
    pthread_mutex_unlock(&c->mu);
    if (!h)
        h = curl_easy_init();
    if (!h)
        abort(); /* out of memory */
    return h;
}

static void handle_give(struct kc_client *c, CURL *h)
{
    pthread_mutex_lock(&c->mu);
    XGROW(c->pool, c->cap, c->npool + 1);
    c->pool[c->npool++] = h;
    pthread_mutex_unlock(&c->mu);
}

/* The bearer token: inline, or the file's current content. Owned or NULL. */
static char *current_token(struct kc_client *c)
{
    if (c->token)
        return xstrdup(c->token);
    if (!c->token_file)
        return NULL;
    char *tok = NULL;
    pthread_mutex_lock(&c->mu);
    int64_t now = tm_monotonic_ms();
    if (!c->token_cache || now - c->token_read_ms >= TOKEN_REREAD_MS) {
        char *text;
        size_t len;
        struct err e;
        err_init(&e);
        if (!kc_read_file(c->token_file, 1u << 20, &text, &len, &e)) {
            while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
                text[--len] = 0;
            free(c->token_cache);
            c->token_cache = text;
            c->token_read_ms = now;
        }
        /* On a read failure keep the last token: the file is being rotated. */
    }
    if (c->token_cache)
        tok = xstrdup(c->token_cache);
    pthread_mutex_unlock(&c->mu);
    return tok;
}

/* Options every request shares: TLS, auth, headers. *hdrs is owned by the caller. */
static void setup(struct kc_client *c, CURL *h, const char *url, const char *method,
                  const char *content_type, struct curl_slist **hdrs, char *errbuf)
{
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_USERAGENT, c->user_agent);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    if (c->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (c->ca_file) {
        curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
    }
    if (c->cert_file) {
        curl_easy_setopt(h, CURLOPT_SSLCERT, c->cert_file);
        curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
        curl_easy_setopt(h, CURLOPT_SSLKEY, c->key_file);
        curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
    }
    if (strcmp(method, "GET") && strcmp(method, "POST"))
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    struct curl_slist *l = curl_slist_append(NULL, "Accept: application/json");
    /* No "Expect: 100-continue" round trip before large bodies. */
    l = curl_slist_append(l, "Expect:");
    if (content_type) {
        char line[128];
        snprintf(line, sizeof(line), "Content-Type: %s", content_type);
        l = curl_slist_append(l, line);
    }
    char *tok = current_token(c);
    if (tok) {
        struct sb sb = SB_INIT;
        sb_addf(&sb, "Authorization: Bearer %s", tok);
        l = curl_slist_append(l, sb_str(&sb));
        sb_release(&sb);
        free(tok);
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, l);
    *hdrs = l;
}

struct body {
    struct sb sb;
    bool too_big;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
    struct body *b = arg;
    size_t n = size * nmemb;
    if (b->sb.len + n > KC_BODY_MAX) {
        b->too_big = true;
        return 0;
    }
    sb_add(&b->sb, data, n);
    return n;
}

/* One request: method on path+query, an optional JSON body. On 2xx *out
 * (owned; may be NULL to discard) is the decoded reply. */
static int request(struct kc_client *c, const char *method, const char *url,
                   const char *content_type, const json_t *payload, json_t **out, struct err *e)
{
    CURL *h = handle_take(c);
    curl_easy_reset(h);
    char errbuf[CURL_ERROR_SIZE] = "";
    struct curl_slist *hdrs = NULL;
    struct sb dry = SB_INIT;
    if (c->dry_run && strcmp(method, "GET")) {
        sb_addf(&dry, "%s%cdryRun=All", url, strchr(url, '?') ? '&' : '?');
        url = sb_str(&dry);
    }
    setup(c, h, url, method, payload ? content_type : NULL, &hdrs, errbuf);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
    char *text = NULL;
    if (payload) {
        text = json_dumps(payload, JSON_COMPACT);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, text);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(text));
        if (!strcmp(method, "POST"))
            curl_easy_setopt(h, CURLOPT_POST, 1L);
    }
    struct body b = {SB_INIT, false};
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
    CURLcode cc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(hdrs);
    free(text);
    int rc = 0;
    if (b.too_big) {
        rc = err_set(e, ERR_TOO_LARGE, "%s %s: reply larger than %u bytes", method, url,
                     KC_BODY_MAX);
    } else if (cc != CURLE_OK) {
        rc = err_set(e, ERR_IO, "%s %s: %s", method, url,
                     errbuf[0] ? errbuf : curl_easy_strerror(cc));
    } else if (status < 200 || status >= 300) {
        rc = kc_status_to_err(status, b.sb.buf, b.sb.len, e);
    } else if (out) {
        json_error_t jerr;
        *out = codec_load_json(b.sb.buf ? b.sb.buf : "", b.sb.len, JSON_ALLOW_NUL, &jerr);
        if (!*out)
            rc = err_set(e, ERR_PARSE, "%s %s: reply is not JSON: %s", method, url, jerr.text);
    }
    sb_release(&b.sb);
    if (cc == CURLE_OK || cc == CURLE_WRITE_ERROR || cc == CURLE_OPERATION_TIMEDOUT)
        handle_give(c, h);
    else
        curl_easy_cleanup(h); /* a broken connection: do not reuse the handle */
    sb_release(&dry);
    return rc;
}

static char *object_url(struct kc_client *c, const struct store_resource *r, const char *ns,
                        const char *name, const char *sub)
{
    char *path = kc_resource_path(r, ns, name, sub);
    struct sb url = SB_INIT;
    sb_addf(&url, "%s%s", c->server, path);
    free(path);
    return sb_take(&url);
}

/* ---- operations ------------------------------------------------------------- */

static int kc_get(struct ac_client *ac, const struct store_resource *r, const char *ns,
                  const char *name, json_t **out, struct err *e)
{
    struct kc_client *c = (struct kc_client *)ac;
    char *url = object_url(c, r, ns, name, NULL);
    int rc = request(c, "GET", url, NULL, NULL, out, e);
    free(url);
    return rc;
}

/* The group version's APIResourceList (/apis/GROUP/VERSION, /api/v1):
 * the resource, not a subresource ("pods/status"), whose kind is kind. */
static int kc_discover(struct ac_client *ac, const char *group, const char *version,
                       const char *kind, char **plural, bool *namespaced, struct err *e)
{
    struct kc_client *c = (struct kc_client *)ac;
    struct sb url = SB_INIT;
    if (*group)
        sb_addf(&url, "%s/apis/%s/%s", c->server, group, version);
    else
        sb_addf(&url, "%s/api/%s", c->server, version);
    json_t *list = NULL;
    int rc = request(c, "GET", sb_str(&url), NULL, NULL, &list, e);
    sb_release(&url);
    if (rc)
        return rc;
    rc = ERR_NOT_FOUND;
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(list, "resources"), i, r)
    {
        const char *name = json_string_value(json_object_get(r, "name"));
        const char *k = json_string_value(json_object_get(r, "kind"));
        if (name && k && !strchr(name, '/') && !strcmp(k, kind)) {
            *plural = xstrdup(name);
            *namespaced = json_is_true(json_object_get(r, "namespaced"));
            rc = 0;
            break;
        }
    }
    json_decref(list);
    return rc ? err_set(e, rc, "%s/%s serves no kind %s", group, version, kind) : 0;
}

static int kc_list(struct ac_client *ac, const struct store_resource *r, const char *ns,
                   const struct ac_list_opts *opts, struct ac_list *out, struct err *e)
{
    struct kc_client *c = (struct kc_client *)ac;
    memset(out, 0, sizeof(*out));
    char *base = object_url(c, r, ns, NULL, NULL);
    struct sb url = SB_INIT;
    sb_adds(&url, base);
    free(base);
    if (opts) {
        CURL *h = handle_take(c);
        bool first = true;
        add_query(&url, h, &first, "labelSelector", opts->label_selector);
        add_query(&url, h, &first, "fieldSelector", opts->field_selector);
        add_query(&url, h, &first, "continue", opts->continue_token);
        if (opts->limit)
            sb_addf(&url, "%climit=%zu", first ? '?' : '&', opts->limit);
        handle_give(c, h);
    }
    json_t *reply = NULL;
    int rc = request(c, "GET", sb_str(&url), NULL, NULL, &reply, e);
    sb_release(&url);
    if (rc)
        return rc;
    json_t *items = json_object_get(reply, "items");
    if (!json_is_array(items) && !json_is_null(items) && items) {
        json_decref(reply);
        return err_set(e, ERR_PARSE, "list of %s: 'items' is not an array", r->plural);
    }
    out->items = items && json_is_array(items) ? json_incref(items) : json_array();
    json_t *meta = json_object_get(reply, "metadata");
    const char *rv = json_string_value(json_object_get(meta, "resourceVersion"));
    const char *cont = json_string_value(json_object_get(meta, "continue"));
    out->resource_version = xstrdup(rv ? rv : "");
    out->continue_token = cont && *cont ? xstrdup(cont) : NULL;
    json_decref(reply);
    return 0;
}

static int kc_create(struct ac_client *ac, const struct store_resource *r, const char *ns,
                     const json_t *obj, json_t **out, struct err *e)
{
    struct kc_client *c = (struct kc_client *)ac;
    if (!ns)
        ns = ac_meta_str(obj, "namespace");
    char *url = object_url(c, r, ns, NULL, NULL);
    int rc = request(c, "POST", url, "application/json", obj, out, e);
    free(url);
    return rc;
}

static int kc_update(struct ac_client *ac, const struct store_resource *r, const char *ns,
                     const char *name, const json_t *obj, bool status, json_t **out, struct err *e)
{
    struct kc_client *c = (struct kc_client *)ac;
    char *url = object_url(c, r, ns, name, status ? "status" : NULL);
    int rc = request(c, "PUT", url, "application/json", obj, out, e);
    free(url);
    return rc;
}

static int kc_patch(struct ac_client *ac, const struct store_resource *r, const char *ns,
                    const char *name, enum ac_patch_type type, const json_t *patch, bool status,
                    json_t **out, struct err *e)
{
    struct kc_client *c = (struct kc_client *)ac;
    char *url = object_url(c, r, ns, name, status ? "status" : NULL);
    const char *ct =
        type == AC_PATCH_JSON ? "application/json-patch+json" : "application/merge-patch+json";
    int rc = request(c, "PATCH", url, ct, patch, out, e);
    free(url);
    return rc;
}

static int kc_delete(struct ac_client *ac, const struct store_resource *r, const char *ns,
                     const char *name, const struct ac_delete_opts *opts, json_t **out,
                     struct err *e)
{
    struct kc_client *c = (struct kc_client *)ac;
    char *url = object_url(c, r, ns, name, NULL);
    json_t *body = NULL;
    if (opts && (opts->precondition_uid || opts->precondition_resource_version ||
                 opts->propagation_policy)) {
        body = json_pack("{s:s, s:s}", "kind", "DeleteOptions", "apiVersion", "v1");
        json_t *pre = json_object();
        if (opts->precondition_uid)
            json_object_set_new(pre, "uid", json_string(opts->precondition_uid));
        if (opts->precondition_resource_version)
            json_object_set_new(pre, "resourceVersion",
                                json_string(opts->precondition_resource_version));
        if (json_object_size(pre))
            json_object_set_new(body, "preconditions", pre);
        else
            json_decref(pre);
        if (opts->propagation_policy)
            json_object_set_new(body, "propagationPolicy", json_string(opts->propagation_policy));
    }
    int rc = request(c, "DELETE", url, "application/json", body, out, e);
    json_decref(body);
    free(url);
    return rc;
}

/* ---- watch ------------------------------------------------------------------ */

struct kc_watch {
    struct ac_watch base;
    CURLM *multi;
    CURL *h;
    struct curl_slist *hdrs;
    char errbuf[CURL_ERROR_SIZE];
    struct kc_lines lines;
    struct ac_event *queue; /* decoded, not yet returned */
    size_t qhead, qlen, qcap;
    struct sb errbody;  /* the reply when the status is not 200 */
    struct err pending; /* an ERROR event or a decoding failure; code 0 if none */
    bool finished;      /* the transfer is over */
    CURLcode result;
};

static int watch_line(const char *line, size_t len, void *arg)
{
    struct kc_watch *w = arg;
    struct ac_event ev = {0};
    int rc = kc_watch_event_decode(line, len, &ev, &w->pending);
    if (rc)
        return rc;
    if (w->qhead == w->qlen) {
        w->qhead = w->qlen = 0;
    }
    XGROW(w->queue, w->qcap, w->qlen + 1);
    w->queue[w->qlen++] = ev;
    return 0;
}

static size_t on_watch_data(char *data, size_t size, size_t nmemb, void *arg)
{
    struct kc_watch *w = arg;
    size_t n = size * nmemb;
    long status = 0;
    curl_easy_getinfo(w->h, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) {
        if (w->errbody.len + n <= 1u << 20)
            sb_add(&w->errbody, data, n);
        return n;
    }
    if (w->pending.code)
        return 0; /* the stream is over for us; stop reading */
    int rc = kc_lines_feed(&w->lines, data, n, watch_line, w);
    if (rc == ERR_TOO_LARGE)
        err_set(&w->pending, ERR_TOO_LARGE, "watch event larger than %u bytes", KC_WATCH_LINE_MAX);
    return rc ? 0 : n;
}

/* Let curl move bytes for up to wait_ms. */
static void watch_pump(struct kc_watch *w, int wait_ms)
{
    int running = 0;
    curl_multi_perform(w->multi, &running);
    if (running && w->qhead == w->qlen && !w->pending.code) {
        curl_multi_poll(w->multi, NULL, 0, wait_ms, NULL);
        curl_multi_perform(w->multi, &running);
    }
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(w->multi, &left))) {
        if (m->msg == CURLMSG_DONE) {
            w->finished = true;
            w->result = m->data.result;
        }
    }
}

/* The watch is over (or failed to start): the error to report. */
static int watch_end_error(struct kc_watch *w, struct err *e)
{
    long status = 0;
    curl_easy_getinfo(w->h, CURLINFO_RESPONSE_CODE, &status);
    if (status && status != 200)
        return kc_status_to_err(status, w->errbody.buf, w->errbody.len, e);
    if (w->result != CURLE_OK)
        return err_set(e, ERR_IO, "watch: %s",
                       w->errbuf[0] ? w->errbuf : curl_easy_strerror(w->result));
    struct kc_lines *l = &w->lines;
    if (l->buf.len) {
        int rc = kc_lines_finish(l, watch_line, w);
        if (rc && w->pending.code) {
            *e = w->pending;
            return rc;
        }
    }
    return err_set(e, ERR_IO, "watch stream ended");
}

static int kc_watch_next(struct ac_watch *aw, int timeout_ms, struct ac_event *ev, struct err *e)
{
    struct kc_watch *w = (struct kc_watch *)aw;
    int64_t deadline = timeout_ms < 0 ? -1 : tm_monotonic_ms() + timeout_ms;
    for (;;) {
        if (w->qhead < w->qlen) {
            *ev = w->queue[w->qhead++];
            return 0;
        }
        if (w->pending.code) {
            *e = w->pending;
            return e->code;
        }
        if (w->finished) {
            int rc = watch_end_error(w, e);
            if (w->qhead < w->qlen && rc == ERR_IO) {
                err_init(e);
                continue; /* a last event without newline */
            }
            return rc;
        }
        int wait = 1000;
        if (deadline >= 0) {
            int64_t left = deadline - tm_monotonic_ms();
            if (left <= 0) {
                /* One last non-blocking look before giving up. */
                watch_pump(w, 0);
                if (w->qhead < w->qlen || w->pending.code || w->finished)
                    continue;
                return ERR_NOT_FOUND;
            }
            if (left < wait)
                wait = (int)left;
        }
        watch_pump(w, wait);
    }
}

static void kc_watch_close(struct ac_watch *aw)
{
    struct kc_watch *w = (struct kc_watch *)aw;
    curl_multi_remove_handle(w->multi, w->h);
    curl_easy_cleanup(w->h);
    curl_multi_cleanup(w->multi);
    curl_slist_free_all(w->hdrs);
    for (size_t i = w->qhead; i < w->qlen; i++)
        json_decref(w->queue[i].object);
    free(w->queue);
    kc_lines_release(&w->lines);
    sb_release(&w->errbody);
    free(w);
}

static int kc_watch_open(struct ac_client *ac, const struct store_resource *r, const char *ns,
                         const struct ac_watch_opts *opts, struct ac_watch **out, struct err *e)
{
    struct kc_client *c = (struct kc_client *)ac;
    struct kc_watch *w = xcalloc(1, sizeof(*w));
    w->base.ops = &kc_ops;
    kc_lines_init(&w->lines, KC_WATCH_LINE_MAX);
    err_init(&w->pending);
    w->h = curl_easy_init();
    w->multi = curl_multi_init();
    if (!w->h || !w->multi)
        abort();

    char *base = object_url(c, r, ns, NULL, NULL);
    struct sb url = SB_INIT;
    sb_addf(&url, "%s?watch=1&allowWatchBookmarks=true", base);
    free(base);
    bool first = false;
    int timeout_s = opts && opts->timeout_seconds > 0 ? opts->timeout_seconds : 0;
    if (opts) {
        add_query(&url, w->h, &first, "resourceVersion", opts->resource_version);
        add_query(&url, w->h, &first, "labelSelector", opts->label_selector);
        add_query(&url, w->h, &first, "fieldSelector", opts->field_selector);
    }
    if (timeout_s)
        sb_addf(&url, "&timeoutSeconds=%d", timeout_s);
    setup(c, w->h, sb_str(&url), "GET", NULL, &w->hdrs, w->errbuf);
    sb_release(&url);
    curl_easy_setopt(w->h, CURLOPT_WRITEFUNCTION, on_watch_data);
    curl_easy_setopt(w->h, CURLOPT_WRITEDATA, w);
    /* Bound a watch whose server went silent: it may not outlive its timeout by much. */
    if (timeout_s)
        curl_easy_setopt(w->h, CURLOPT_TIMEOUT_MS, (long)(timeout_s + 30) * 1000L);
    curl_multi_add_handle(w->multi, w->h);

    /* Wait for the status line, so a refused watch (410, 403) fails here. */
    int64_t deadline = tm_monotonic_ms() + c->timeout_ms;
    long status = 0;
    while (!w->finished && !status && tm_monotonic_ms() < deadline) {
        watch_pump(w, 100);
        curl_easy_getinfo(w->h, CURLINFO_RESPONSE_CODE, &status);
    }
    int rc = 0;
    if (w->finished && (status != 200 || w->result != CURLE_OK))
        rc = watch_end_error(w, e);
    else if (status && status != 200) {
        /* Read the Status body to the end before mapping it. */
        while (!w->finished && tm_monotonic_ms() < deadline)
            watch_pump(w, 100);
        rc = kc_status_to_err(status, w->errbody.buf, w->errbody.len, e);
    } else if (!status && !w->finished)
        rc = err_set(e, ERR_IO, "watch of %s: no reply within %ld ms", r->plural, c->timeout_ms);
    if (rc) {
        kc_watch_close(&w->base);
        return rc;
    }
    *out = &w->base;
    return 0;
}

/* ---- lifetime --------------------------------------------------------------- */

static void kc_free(struct ac_client *ac)
{
    struct kc_client *c = (struct kc_client *)ac;
    for (size_t i = 0; i < c->npool; i++)
        curl_easy_cleanup(c->pool[i]);
    free(c->pool);
    for (size_t i = 0; i < c->ntmp; i++) {
        unlink(c->tmp_files[i]);
        free(c->tmp_files[i]);
    }
    pthread_mutex_destroy(&c->mu);
    free(c->server);
    free(c->ca_file);
    free(c->cert_file);
    free(c->key_file);
    free(c->token);
    free(c->token_file);
    free(c->token_cache);
    free(c->user_agent);
    free(c);
}

static const struct ac_ops kc_ops = {
    .name = "http",
    .get = kc_get,
    .list = kc_list,
    .watch_open = kc_watch_open,
    .watch_next = kc_watch_next,
    .watch_close = kc_watch_close,
    .create = kc_create,
    .update = kc_update,
    .patch = kc_patch,
    .del = kc_delete,
    .free = kc_free,
    .discover = kc_discover,
};

/* Write inline credential bytes to a private file; its path is owned by c. */
static int spill(struct kc_client *c, const char *data, size_t len, const char *what, char **path,
                 struct err *e)
{
    const char *dir = getenv("TMPDIR");
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s/cueue-%s-XXXXXX", dir && *dir ? dir : "/tmp", what);
    char *tmpl = sb_take(&sb);
    int fd = mkstemp(tmpl); /* mode 0600 */
    if (fd < 0) {
        int rc = err_set(e, ERR_IO, "cannot write %s to '%s'", what, tmpl);
        free(tmpl);
        return rc;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(fd);
    c->tmp_files[c->ntmp++] = tmpl;
    if (done < len)
        return err_set(e, ERR_IO, "cannot write %s to '%s'", what, tmpl);
    *path = xstrdup(tmpl);
    return 0;
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

int kc_client_new(const struct kc_config *cfg, const struct kc_client_opts *opts,
                  struct ac_client **out, struct err *e)
{
    pthread_once(&global_once, global_init);
    if (!cfg->server)
        return err_set(e, ERR_INVALID, "no API server address");
    struct kc_client *c = xcalloc(1, sizeof(*c));
    c->base.ops = &kc_ops;
    pthread_mutex_init(&c->mu, NULL);
    c->server = xstrdup(cfg->server);
    c->insecure = cfg->insecure;
    c->token = dup_or_null(cfg->token);
    c->token_file = dup_or_null(cfg->token_file);
    c->timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : 30000;
    c->connect_timeout_ms = opts && opts->connect_timeout_ms > 0 ? opts->connect_timeout_ms : 10000;
    c->user_agent = xstrdup(opts && opts->user_agent ? opts->user_agent : "cueue");
    c->dry_run = opts && opts->dry_run;
    int rc = 0;
    if (cfg->ca_data)
        rc = spill(c, cfg->ca_data, cfg->ca_data_len, "ca", &c->ca_file, e);
    else
        c->ca_file = dup_or_null(cfg->ca_file);
    if (!rc && cfg->cert_data)
        rc = spill(c, cfg->cert_data, cfg->cert_data_len, "cert", &c->cert_file, e);
    else if (!rc)
        c->cert_file = dup_or_null(cfg->cert_file);
    if (!rc && cfg->key_data)
        rc = spill(c, cfg->key_data, cfg->key_data_len, "key", &c->key_file, e);
    else if (!rc)
        c->key_file = dup_or_null(cfg->key_file);
    if (rc) {
        kc_free(&c->base);
        return rc;
    }
    *out = &c->base;
    return 0;
}
