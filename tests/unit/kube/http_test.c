/* The HTTP client against a real server: a tiny libmicrohttpd server on a
 * loopback ephemeral port serves lists, watch streams (split mid-line, with
 * a bookmark and a 410), Status errors, and a slow route; kc_ is driven
 * against it through the ac_ interface. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "controller/api_client.h"
#include "controller/informer.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"

#define WL "/apis/kueue.x-k8s.io/v1beta2/namespaces/ns/workloads"

static const struct store_resource wl_res = {
    .group = "kueue.x-k8s.io",
    .version = "v1beta2",
    .plural = "workloads",
    .kind = "Workload",
    .key = "workloads.kueue.x-k8s.io",
    .namespaced = true,
};

struct server {
    struct MHD_Daemon *d;
    unsigned port;
    pthread_mutex_t mu;
    unsigned connections; /* TCP connections accepted */
    char last_query[512];
    char last_content_type[128];
    char last_body[2048];
    char last_method[16];
    char last_url[256];
};

static struct server srv;

static void on_conn(void *cls, struct MHD_Connection *c, void **sock,
                    enum MHD_ConnectionNotificationCode toe)
{
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        pthread_mutex_lock(&srv.mu);
        srv.connections++;
        pthread_mutex_unlock(&srv.mu);
    }
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *body)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result status(struct MHD_Connection *c, unsigned code, const char *reason,
                              const char *message)
{
    char body[1024];
    snprintf(body, sizeof(body),
             "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
             "\"message\":\"%s\",\"reason\":\"%s\",\"code\":%u}",
             message, reason, code);
    return reply(c, code, body);
}

/* A watch stream: chunks sent one by one with a pause, then the end. */
struct stream {
    const char *const *chunks;
    size_t i;
    int pause_ms;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct stream *s = cls;
    if (!s->chunks[s->i])
        return MHD_CONTENT_READER_END_OF_STREAM;
    usleep((useconds_t)s->pause_ms * 1000);
    size_t n = strlen(s->chunks[s->i]);
    if (n > max)
        n = max;
    memcpy(buf, s->chunks[s->i], n);
    s->i++;
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    free(cls);
}

static const char *const gone_stream[] = {
    "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"w1\",\"nam",
    "espace\":\"ns\",\"resourceVersion\":\"11\"}}}\n{\"type\":\"BOOK",
    "MARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"15\"}}}",
    "\n",
    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":"
    "\"Failure\",\"message\":\"too old resource version: 10 (20)\",\"reason\":\"Expired\","
    "\"code\":410}}\n",
    NULL,
};

static const char *const ending_stream[] = {
    "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"w2\",\"namespace\":\"ns\","
    "\"resourceVersion\":\"13\"}}}\n",
    NULL,
};

static const char *const silent_stream[] = {"\n", "\n", NULL};

static enum MHD_Result watch(struct MHD_Connection *c, const char *rv)
{
    const char *const *chunks;
    int pause = 20;
    if (!strcmp(rv, "1"))
        return status(c, 410, "Expired", "too old resource version: 1 (20)");
    if (!strcmp(rv, "10"))
        chunks = gone_stream;
    else if (!strcmp(rv, "12"))
        chunks = ending_stream;
    else {
        chunks = silent_stream;
        pause = 400;
    }
    struct stream *s = calloc(1, sizeof(*s));
    s->chunks = chunks;
    s->pause_ms = pause;
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024, stream_read, s, stream_free);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result handle(struct MHD_Connection *c, const char *url, const char *method,
                              const char *body)
{
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (!auth || strcmp(auth, "Bearer s3cret"))
        return status(c, 401, "Unauthorized", "Unauthorized");
    const char *q_watch = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "watch");
    const char *q_rv = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "resourceVersion");
    const char *q_cont = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "continue");
    const char *q_limit = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
    const char *q_label = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "labelSelector");
    const char *q_bm = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "allowWatchBookmarks");
    const char *q_to = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "timeoutSeconds");
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    pthread_mutex_lock(&srv.mu);
    snprintf(srv.last_query, sizeof(srv.last_query),
             "watch=%s rv=%s continue=%s limit=%s "
             "label=%s bookmarks=%s timeout=%s",
             q_watch ? q_watch : "-", q_rv ? q_rv : "-", q_cont ? q_cont : "-",
             q_limit ? q_limit : "-", q_label ? q_label : "-", q_bm ? q_bm : "-",
             q_to ? q_to : "-");
    snprintf(srv.last_content_type, sizeof(srv.last_content_type), "%s", ct ? ct : "");
    snprintf(srv.last_body, sizeof(srv.last_body), "%s", body);
    snprintf(srv.last_method, sizeof(srv.last_method), "%s", method);
    snprintf(srv.last_url, sizeof(srv.last_url), "%s", url);
    pthread_mutex_unlock(&srv.mu);

    if (!strcmp(url, WL) && !strcmp(method, "GET")) {
        if (q_watch)
            return watch(c, q_rv ? q_rv : "");
        if (q_cont && !strcmp(q_cont, "page2"))
            return reply(c, 200,
                         "{\"kind\":\"WorkloadList\",\"metadata\":{\"resourceVersion\":"
                         "\"10\"},\"items\":[{\"metadata\":{\"name\":\"c\","
                         "\"namespace\":\"ns\",\"resourceVersion\":\"7\"}}]}");
        if (q_cont)
            return status(c, 410, "Expired", "The provided continue parameter is too old");
        return reply(c, 200,
                     "{\"kind\":\"WorkloadList\",\"metadata\":{\"resourceVersion\":"
                     "\"9\",\"continue\":\"page2\"},\"items\":[{\"metadata\":"
                     "{\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"5\"}},"
                     "{\"metadata\":{\"name\":\"b\",\"namespace\":\"ns\","
                     "\"resourceVersion\":\"6\"}}]}");
    }
    if (!strcmp(url, WL "/a") && !strcmp(method, "GET"))
        return reply(c, 200, "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"3\"}}");
    if (!strcmp(url, WL "/slow")) {
        usleep(1500 * 1000);
        return reply(c, 200, "{}");
    }
    if (!strcmp(url, WL) && !strcmp(method, "POST")) {
        if (strstr(body, "\"exists\""))
            return status(c, 409, "AlreadyExists",
                          "workloads.kueue.x-k8s.io \\\"exists\\\" "
                          "already exists");
        if (strstr(body, "\"bad\""))
            return reply(c, 422,
                         "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"Invalid\","
                         "\"code\":422,\"message\":\"Workload.kueue.x-k8s.io \\\"bad\\\" is "
                         "invalid: spec.podSets: Required value\",\"details\":{\"causes\":"
                         "[{\"reason\":\"FieldValueRequired\",\"message\":\"Required value\","
                         "\"field\":\"spec.podSets\"}]}}");
        return reply(c, 201, body);
    }
    if (!strcmp(url, WL "/a") && !strcmp(method, "PUT"))
        return status(c, 409, "Conflict",
                      "Operation cannot be fulfilled on workloads "
                      "\\\"a\\\": the object has been modified");
    if (!strcmp(url, WL "/a/status") && !strcmp(method, "PUT"))
        return reply(c, 200, body);
    if (!strcmp(url, WL "/a") && (!strcmp(method, "PATCH") || !strcmp(method, "DELETE")))
        return reply(c, 200, "{\"metadata\":{\"name\":\"a\"},\"done\":true}");
    if (!strcmp(url, "/api/v1/namespaces/ns/pods/p") && !strcmp(method, "GET"))
        return reply(c, 502, "<html>bad gateway</html>");
    return status(c, 404, "NotFound", "the server could not find the requested resource");
}

struct upload {
    struct sb body;
};

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
    struct upload *u = *con_cls;
    if (!u) {
        u = calloc(1, sizeof(*u));
        *con_cls = u;
        return MHD_YES;
    }
    if (*size) {
        sb_add(&u->body, data, *size);
        *size = 0;
        return MHD_YES;
    }
    return handle(c, url, method, sb_str(&u->body));
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
                    enum MHD_RequestTerminationCode toe)
{
    struct upload *u = *con_cls;
    if (u) {
        sb_release(&u->body);
        free(u);
    }
    *con_cls = NULL;
}

static int start_server(void **state)
{
    memset(&srv, 0, sizeof(srv));
    pthread_mutex_init(&srv.mu, NULL);
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    srv.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0,
                             NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR, &addr,
                             MHD_OPTION_NOTIFY_CONNECTION, on_conn, NULL,
                             MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL,
                             MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
    if (!srv.d)
        return -1;
    srv.port = MHD_get_daemon_info(srv.d, MHD_DAEMON_INFO_BIND_PORT)->port;
    return 0;
}

static int stop_server(void **state)
{
    MHD_stop_daemon(srv.d);
    pthread_mutex_destroy(&srv.mu);
    return 0;
}

static struct ac_client *client(const char *token, long timeout_ms)
{
    char server[64];
    snprintf(server, sizeof(server), "http://127.0.0.1:%u", srv.port);
    struct kc_config cfg = {0};
    cfg.server = server;
    cfg.token = (char *)token;
    struct kc_client_opts o = {.timeout_ms = timeout_ms};
    struct ac_client *c = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(kc_client_new(&cfg, &o, &c, &e), 0);
    return c;
}

static void test_kc_list_pages(void **state)
{
    struct ac_client *c = client("s3cret", 0);
    struct err e;
    err_init(&e);
    struct ac_list l;
    struct ac_list_opts lo = {.label_selector = "kueue.x-k8s.io/queue-name=q a", .limit = 2};
    assert_int_equal(ac_list(c, &wl_res, "ns", &lo, &l, &e), 0);
    assert_int_equal(json_array_size(l.items), 2);
    assert_string_equal(l.resource_version, "9");
    assert_string_equal(l.continue_token, "page2");
    assert_string_equal(srv.last_query,
                        "watch=- rv=- continue=- limit=2 "
                        "label=kueue.x-k8s.io/queue-name=q a bookmarks=- timeout=-");
    lo.continue_token = l.continue_token;
    struct ac_list l2;
    assert_int_equal(ac_list(c, &wl_res, "ns", &lo, &l2, &e), 0);
    assert_int_equal(json_array_size(l2.items), 1);
    assert_null(l2.continue_token);
    assert_string_equal(l2.resource_version, "10");
    ac_list_release(&l2);
    lo.continue_token = "stale";
    assert_int_equal(ac_list(c, &wl_res, "ns", &lo, &l2, &e), ERR_GONE);
    assert_string_equal(e.message, "The provided continue parameter is too old");
    assert_null(l2.items);
    ac_list_release(&l);
    ac_free(c);
}

static void test_kc_status_errors(void **state)
{
    struct ac_client *c = client("s3cret", 0);
    struct err e;
    json_t *out = NULL;
    err_init(&e);
    assert_int_equal(ac_get(c, &wl_res, "ns", "missing", &out, &e), ERR_NOT_FOUND);
    assert_string_equal(e.message, "the server could not find the requested resource");

    json_t *obj = json_pack("{s:{s:s}}", "metadata", "name", "exists");
    err_init(&e);
    assert_int_equal(ac_create(c, &wl_res, "ns", obj, &out, &e), ERR_EXISTS);
    assert_string_equal(e.message, "workloads.kueue.x-k8s.io \"exists\" already exists");
    json_decref(obj);

    obj = json_pack("{s:{s:s}}", "metadata", "name", "bad");
    err_init(&e);
    assert_int_equal(ac_create(c, &wl_res, "ns", obj, &out, &e), ERR_INVALID);
    assert_int_equal(e.ncauses, 1);
    assert_string_equal(e.causes[0].field, "spec.podSets");
    assert_string_equal(e.causes[0].message, "Required value");
    json_decref(obj);

    obj = json_pack("{s:{s:s, s:s}}", "metadata", "name", "a", "resourceVersion", "2");
    err_init(&e);
    assert_int_equal(ac_update(c, &wl_res, "ns", "a", obj, &out, &e), ERR_CONFLICT);
    assert_string_equal(e.message,
                        "Operation cannot be fulfilled on workloads \"a\": the object has been "
                        "modified");
    err_init(&e);
    assert_int_equal(ac_update_status(c, &wl_res, "ns", "a", obj, &out, &e), 0);
    assert_string_equal(srv.last_url, WL "/a/status");
    assert_string_equal(srv.last_method, "PUT");
    assert_string_equal(srv.last_content_type, "application/json");
    assert_string_equal(ac_meta_str(out, "resourceVersion"), "2"); /* echoed */
    json_decref(out);
    json_decref(obj);

    struct ac_client *anon = client(NULL, 0);
    err_init(&e);
    assert_int_equal(ac_get(anon, &wl_res, "ns", "a", &out, &e), ERR_UNAUTHORIZED);
    ac_free(anon);

    static const struct store_resource pods = {
        .group = "", .version = "v1", .plural = "pods", .namespaced = true};
    err_init(&e);
    assert_int_equal(ac_get(c, &pods, "ns", "p", &out, &e), ERR_IO);
    assert_string_equal(e.message, "HTTP 502: <html>bad gateway</html>");
    ac_free(c);
}

static void test_kc_write_requests(void **state)
{
    struct ac_client *c = client("s3cret", 0);
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    json_t *obj = json_pack("{s:s, s:{s:s}}", "kind", "Workload", "metadata", "name", "new");
    assert_int_equal(ac_create(c, &wl_res, "ns", obj, &out, &e), 0);
    assert_string_equal(srv.last_method, "POST");
    assert_true(json_equal(out, obj));
    json_decref(out);
    json_decref(obj);

    /* A large body (beyond curl's Expect: 100-continue threshold) round-trips. */
    size_t big = 3u << 20;
    char *blob = malloc(big + 1);
    memset(blob, 'x', big);
    blob[big] = 0;
    obj = json_pack("{s:{s:s}, s:s}", "metadata", "name", "big", "data", blob);
    assert_int_equal(ac_create(c, &wl_res, "ns", obj, &out, &e), 0);
    assert_int_equal(json_string_length(json_object_get(out, "data")), big);
    json_decref(out);
    json_decref(obj);
    free(blob);

    json_t *patch = json_pack("{s:{s:{s:n}}}", "metadata", "labels", "x");
    assert_int_equal(ac_patch(c, &wl_res, "ns", "a", AC_PATCH_MERGE, patch, false, NULL, &e), 0);
    assert_string_equal(srv.last_method, "PATCH");
    assert_string_equal(srv.last_content_type, "application/merge-patch+json");
    assert_string_equal(srv.last_body, "{\"metadata\":{\"labels\":{\"x\":null}}}");
    json_decref(patch);
    patch = json_pack("[{s:s, s:s}]", "op", "remove", "path", "/spec/active");
    assert_int_equal(ac_patch(c, &wl_res, "ns", "a", AC_PATCH_JSON, patch, false, NULL, &e), 0);
    assert_string_equal(srv.last_content_type, "application/json-patch+json");
    json_decref(patch);

    struct ac_delete_opts dopts = {.precondition_uid = "u-1", .propagation_policy = "Foreground"};
    assert_int_equal(ac_delete(c, &wl_res, "ns", "a", &dopts, &out, &e), 0);
    assert_string_equal(srv.last_method, "DELETE");
    assert_true(json_is_true(json_object_get(out, "done")));
    json_decref(out);
    assert_string_equal(srv.last_body, "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
                                       "\"preconditions\":{\"uid\":\"u-1\"},"
                                       "\"propagationPolicy\":\"Foreground\"}");
    ac_free(c);
}

static void test_kc_watch_stream_until_gone(void **state)
{
    struct ac_client *c = client("s3cret", 0);
    struct err e;
    err_init(&e);
    struct ac_watch *w = NULL;
    struct ac_watch_opts wo = {.resource_version = "10", .timeout_seconds = 60};
    assert_int_equal(ac_watch_open(c, &wl_res, "ns", &wo, &w, &e), 0);
    assert_string_equal(srv.last_query, "watch=1 rv=10 continue=- limit=- label=- "
                                        "bookmarks=true timeout=60");
    struct ac_event ev;
    assert_int_equal(ac_watch_next(w, 5000, &ev, &e), 0);
    assert_int_equal(ev.type, AC_ADDED);
    assert_string_equal(ac_meta_str(ev.object, "name"), "w1");
    assert_string_equal(ac_meta_str(ev.object, "resourceVersion"), "11");
    json_decref(ev.object);
    assert_int_equal(ac_watch_next(w, 5000, &ev, &e), 0);
    assert_int_equal(ev.type, AC_BOOKMARK);
    assert_string_equal(ac_meta_str(ev.object, "resourceVersion"), "15");
    json_decref(ev.object);
    assert_int_equal(ac_watch_next(w, 5000, &ev, &e), ERR_GONE);
    assert_string_equal(e.message, "too old resource version: 10 (20)");
    assert_int_equal(ac_watch_next(w, 5000, &ev, &e), ERR_GONE); /* stays over */
    ac_watch_close(w);
    ac_free(c);
}

static void test_kc_watch_open_gone_end_and_timeout(void **state)
{
    struct ac_client *c = client("s3cret", 0);
    struct err e;
    err_init(&e);
    struct ac_watch *w = NULL;
    struct ac_watch_opts wo = {.resource_version = "1"};
    assert_int_equal(ac_watch_open(c, &wl_res, "ns", &wo, &w, &e), ERR_GONE);
    assert_string_equal(e.message, "too old resource version: 1 (20)");
    assert_null(w);

    wo.resource_version = "12";
    err_init(&e);
    assert_int_equal(ac_watch_open(c, &wl_res, "ns", &wo, &w, &e), 0);
    struct ac_event ev;
    assert_int_equal(ac_watch_next(w, 5000, &ev, &e), 0);
    assert_int_equal(ev.type, AC_DELETED);
    json_decref(ev.object);
    assert_int_equal(ac_watch_next(w, 5000, &ev, &e), ERR_IO);
    assert_string_equal(e.message, "watch stream ended");
    ac_watch_close(w);

    wo.resource_version = "14"; /* a stream that stays quiet */
    err_init(&e);
    assert_int_equal(ac_watch_open(c, &wl_res, "ns", &wo, &w, &e), 0);
    int64_t t0 = tm_monotonic_ms();
    assert_int_equal(ac_watch_next(w, 100, &ev, &e), ERR_NOT_FOUND);
    int64_t took = tm_monotonic_ms() - t0;
    assert_true(took >= 90 && took < 1000);
    ac_watch_close(w); /* closing mid-stream is fine */
    ac_free(c);
}

static void test_kc_timeout(void **state)
{
    struct ac_client *c = client("s3cret", 300);
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int64_t t0 = tm_monotonic_ms();
    assert_int_equal(ac_get(c, &wl_res, "ns", "slow", &out, &e), ERR_IO);
    int64_t took = tm_monotonic_ms() - t0;
    assert_true(took >= 250 && took < 1400);
    assert_non_null(strstr(e.message, "GET http://127.0.0.1:"));
    assert_non_null(strstr(e.message, "timed out"));
    ac_free(c);
}

/* Sequential requests reuse one connection. */
static void test_kc_keep_alive(void **state)
{
    struct ac_client *c = client("s3cret", 0);
    pthread_mutex_lock(&srv.mu);
    unsigned before = srv.connections;
    pthread_mutex_unlock(&srv.mu);
    for (int i = 0; i < 10; i++) {
        struct err e;
        err_init(&e);
        json_t *out = NULL;
        assert_int_equal(ac_get(c, &wl_res, "ns", "a", &out, &e), 0);
        json_decref(out);
    }
    pthread_mutex_lock(&srv.mu);
    assert_int_equal(srv.connections - before, 1);
    pthread_mutex_unlock(&srv.mu);
    ac_free(c);
}

struct worker {
    struct ac_client *c;
    int ok;
};

static void *hammer(void *arg)
{
    struct worker *w = arg;
    for (int i = 0; i < 25; i++) {
        struct err e;
        err_init(&e);
        json_t *out = NULL;
        if (!ac_get(w->c, &wl_res, "ns", "a", &out, &e) && !strcmp(ac_meta_str(out, "name"), "a"))
            w->ok++;
        json_decref(out);
    }
    return NULL;
}

/* One client, four threads at once. */
static void test_kc_threads(void **state)
{
    struct ac_client *c = client("s3cret", 0);
    pthread_t t[4];
    struct worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (struct worker){c, 0};
        pthread_create(&t[i], NULL, hammer, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].ok, 25);
    }
    ac_free(c);
}

/* Inline credentials are spilled to private files, removed on free. */
static void test_kc_client_new_inline_ca(void **state)
{
    struct kc_config cfg = {0};
    cfg.server = "https://127.0.0.1:1";
    cfg.ca_data = "-----BEGIN CERTIFICATE-----\n";
    cfg.ca_data_len = strlen(cfg.ca_data);
    char dir[] = "/tmp/cueue-kc-XXXXXX";
    assert_non_null(mkdtemp(dir));
    setenv("TMPDIR", dir, 1);
    struct ac_client *c = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(kc_client_new(&cfg, NULL, &c, &e), 0);
    unsetenv("TMPDIR");
    assert_int_equal(rmdir(dir), -1); /* not empty: the CA file is there */
    ac_free(c);
    assert_int_equal(rmdir(dir), 0);
}

static void note(void *arg, const char *what, const json_t *obj)
{
    char *key = ac_object_key(obj);
    sb_addf(arg, "%s:%s ", what, key);
    free(key);
}

static void inf_add(void *arg, const json_t *obj)
{
    note(arg, "add", obj);
}

static void inf_update(void *arg, const json_t *old_obj, const json_t *new_obj)
{
    note(arg, "update", new_obj);
}

static void inf_delete(void *arg, const json_t *obj)
{
    note(arg, "delete", obj);
}

/* The informer over HTTP: a paged list, a watch from its version, an event
 * split across reads, a bookmark, a 410, and the relist that reveals the
 * watched object is gone. */
static void test_kc_informer_relists_on_gone(void **state)
{
    struct ac_client *c = client("s3cret", 0);
    struct sb log = SB_INIT;
    struct inf_handlers h = {inf_add, inf_update, inf_delete, &log};
    struct inf_opts o = {.ns = "ns", .page_size = 2, .backoff_initial_ms = 20};
    struct inf *inf = inf_new(c, &wl_res, &o, &h);
    struct err e;
    err_init(&e);
    assert_int_equal(inf_start(inf, &e), 0);
    int64_t end = tm_monotonic_ms() + 10000;
    while (!strstr(sb_str(&log), "delete:ns/w1") && tm_monotonic_ms() < end) {
        struct pollfd p = {inf_fd(inf), POLLIN, 0};
        poll(&p, 1, 50);
        inf_dispatch(inf);
    }
    inf_stop(inf);
    if (!strstr(sb_str(&log), "add:ns/a add:ns/b add:ns/c add:ns/w1 delete:ns/w1 "))
        fail_msg("informer saw '%s'", sb_str(&log));
    assert_null(strstr(sb_str(&log), "update:")); /* the relist found a, b, c unchanged */
    struct inf_stats st;
    char rv[32];
    inf_stats(inf, &st, rv, sizeof(rv));
    assert_true(st.lists >= 2);
    assert_true(st.gone >= 1);
    assert_int_equal(st.failures, 0);
    assert_int_equal(inf_len(inf), 3);
    assert_null(inf_get(inf, "ns", "w1"));
    inf_free(inf);
    sb_release(&log);
    ac_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kc_list_pages),
        cmocka_unit_test(test_kc_status_errors),
        cmocka_unit_test(test_kc_write_requests),
        cmocka_unit_test(test_kc_watch_stream_until_gone),
        cmocka_unit_test(test_kc_watch_open_gone_end_and_timeout),
        cmocka_unit_test(test_kc_timeout),
        cmocka_unit_test(test_kc_keep_alive),
        cmocka_unit_test(test_kc_threads),
        cmocka_unit_test(test_kc_client_new_inline_ca),
        cmocka_unit_test(test_kc_informer_relists_on_gone),
    };
    return cmocka_run_group_tests(tests, start_server, stop_server);
}
