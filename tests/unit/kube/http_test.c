/* The HTTP client against a real server: the server's own HTTP layer
 * (server/http.h) on a loopback ephemeral port serves lists, watch streams
 * (split mid-line, with a bookmark and a 410), Status errors, and a slow
 * route; kc_ is driven against it through the ac_ interface. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
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
#include "server/http.h"

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
    struct http_server *hs;
    unsigned port;
    pthread_mutex_t mu;
    char last_query[512];
    char last_content_type[128];
    char last_body[2048];
    char last_method[16];
    char last_url[256];
    char last_peer[64];
};

static struct server srv;

static void reply(struct http_resp *rs, unsigned code, const char *body)
{
    http_resp_header(rs, "Content-Type", "application/json");
    http_resp_set(rs, code, strdup(body), strlen(body));
}

static void status(struct http_resp *rs, unsigned code, const char *reason, const char *message)
{
    char body[1024];
    snprintf(body, sizeof(body),
             "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
             "\"message\":\"%s\",\"reason\":\"%s\",\"code\":%u}",
             message, reason, code);
    reply(rs, code, body);
}

/* A watch stream: chunks sent one by one, pause_ms apart (a thread wakes
 * the stream for each), then the end. */
struct stream {
    const char *const *chunks;
    size_t i;
    int pause_ms;
    struct http_stream *h;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    atomic_int ready; /* chunks the thread has let go */
};

static void *stream_clock(void *arg)
{
    struct stream *s = arg;
    pthread_mutex_lock(&s->mu);
    for (size_t n = 0; s->chunks[n] && !s->stop; n++) {
        struct timespec until = tm_deadline(CLOCK_REALTIME, s->pause_ms);
        while (!s->stop && pthread_cond_timedwait(&s->cv, &s->mu, &until) == 0)
            ;
        if (s->stop)
            break;
        atomic_fetch_add(&s->ready, 1);
        http_stream_wake(s->h);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static int stream_produce(void *arg, struct http_out *out, int64_t now)
{
    struct stream *s = arg;
    if ((int)s->i >= atomic_load(&s->ready))
        return HTTP_STREAM_WAIT;
    http_out_adds(out, s->chunks[s->i++]);
    return s->chunks[s->i] ? HTTP_STREAM_MORE : HTTP_STREAM_END;
}

static void stream_release(void *arg)
{
    struct stream *s = arg;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->th, NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

static const struct http_stream_ops stream_ops = {stream_produce, stream_release};

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

static void watch(struct http_resp *rs, const char *rv)
{
    const char *const *chunks;
    int pause = 20;
    if (!strcmp(rv, "1")) {
        status(rs, 410, "Expired", "too old resource version: 1 (20)");
        return;
    }
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
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    http_resp_header(rs, "Content-Type", "application/json");
    s->h = http_resp_stream(rs, 200, &stream_ops, s);
    pthread_create(&s->th, NULL, stream_clock, s);
}

static void handle(void *arg, struct http_req *rq, struct http_resp *rs)
{
    const char *url = rq->path, *method = rq->method, *body = sb_str(&rq->body);
    const char *auth = http_req_header(rq, "Authorization");
    if (!auth || strcmp(auth, "Bearer s3cret")) {
        status(rs, 401, "Unauthorized", "Unauthorized");
        return;
    }
    const char *q_watch = http_req_param(rq, "watch");
    const char *q_rv = http_req_param(rq, "resourceVersion");
    const char *q_cont = http_req_param(rq, "continue");
    const char *q_limit = http_req_param(rq, "limit");
    const char *q_label = http_req_param(rq, "labelSelector");
    const char *q_bm = http_req_param(rq, "allowWatchBookmarks");
    const char *q_to = http_req_param(rq, "timeoutSeconds");
    const char *ct = http_req_header(rq, "Content-Type");
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
    snprintf(srv.last_peer, sizeof(srv.last_peer), "%s", rq->peer);
    pthread_mutex_unlock(&srv.mu);

    if (!strcmp(url, WL) && !strcmp(method, "GET")) {
        if (q_watch)
            watch(rs, q_rv ? q_rv : "");
        else if (q_cont && !strcmp(q_cont, "page2"))
            reply(rs, 200,
                  "{\"kind\":\"WorkloadList\",\"metadata\":{\"resourceVersion\":"
                  "\"10\"},\"items\":[{\"metadata\":{\"name\":\"c\","
                  "\"namespace\":\"ns\",\"resourceVersion\":\"7\"}}]}");
        else if (q_cont)
            status(rs, 410, "Expired", "The provided continue parameter is too old");
        else
            reply(rs, 200,
                  "{\"kind\":\"WorkloadList\",\"metadata\":{\"resourceVersion\":"
                  "\"9\",\"continue\":\"page2\"},\"items\":[{\"metadata\":"
                  "{\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"5\"}},"
                  "{\"metadata\":{\"name\":\"b\",\"namespace\":\"ns\","
                  "\"resourceVersion\":\"6\"}}]}");
        return;
    }
    if (!strcmp(url, "/apis/example.com/v1") && !strcmp(method, "GET")) {
        reply(rs, 200,
              "{\"kind\":\"APIResourceList\",\"groupVersion\":\"example.com/v1\","
              "\"resources\":[{\"name\":\"octopi/status\",\"namespaced\":true,\"kind\":"
              "\"Octopus\"},{\"name\":\"octopi\",\"singularName\":\"octopus\","
              "\"namespaced\":true,\"kind\":\"Octopus\"},{\"name\":\"reefs\","
              "\"namespaced\":false,\"kind\":\"Reef\"}]}");
        return;
    }
    if (!strcmp(url, WL "/a") && !strcmp(method, "GET")) {
        reply(rs, 200, "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"3\"}}");
        return;
    }
    if (!strcmp(url, WL "/slow")) {
        usleep(1500 * 1000);
        reply(rs, 200, "{}");
        return;
    }
    if (!strcmp(url, WL) && !strcmp(method, "POST")) {
        if (strstr(body, "\"exists\""))
            status(rs, 409, "AlreadyExists",
                   "workloads.kueue.x-k8s.io \\\"exists\\\" "
                   "already exists");
        else if (strstr(body, "\"bad\""))
            reply(rs, 422,
                  "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"Invalid\","
                  "\"code\":422,\"message\":\"Workload.kueue.x-k8s.io \\\"bad\\\" is "
                  "invalid: spec.podSets: Required value\",\"details\":{\"causes\":"
                  "[{\"reason\":\"FieldValueRequired\",\"message\":\"Required value\","
                  "\"field\":\"spec.podSets\"}]}}");
        else
            reply(rs, 201, body);
        return;
    }
    if (!strcmp(url, WL "/a") && !strcmp(method, "PUT"))
        status(rs, 409, "Conflict",
               "Operation cannot be fulfilled on workloads "
               "\\\"a\\\": the object has been modified");
    else if (!strcmp(url, WL "/a/status") && !strcmp(method, "PUT"))
        reply(rs, 200, body);
    else if (!strcmp(url, WL "/a") && (!strcmp(method, "PATCH") || !strcmp(method, "DELETE")))
        reply(rs, 200, "{\"metadata\":{\"name\":\"a\"},\"done\":true}");
    else if (!strcmp(url, "/api/v1/namespaces/ns/pods/p") && !strcmp(method, "GET"))
        reply(rs, 502, "<html>bad gateway</html>");
    else
        status(rs, 404, "NotFound", "the server could not find the requested resource");
}

static int start_server(void **state)
{
    memset(&srv, 0, sizeof(srv));
    pthread_mutex_init(&srv.mu, NULL);
    struct http_options o = {
        .host = "127.0.0.1", .max_body = 16u << 20, .handler = {.handle = handle}};
    struct err e;
    err_init(&e);
    if (http_server_start(&o, &srv.hs, &e))
        return -1;
    srv.port = (unsigned)http_server_port(srv.hs);
    return 0;
}

static int stop_server(void **state)
{
    http_server_stop(srv.hs);
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

/* A kind's resource from the API's discovery: the CRD's plural, not a
 * subresource; its scope; none for a kind not served. */
static void test_kc_discover(void **state)
{
    (void)state;
    struct ac_client *c = client("s3cret", 0);
    struct err e;
    err_init(&e);
    char *plural = NULL;
    bool namespaced = false;
    assert_int_equal(ac_discover(c, "example.com", "v1", "Octopus", &plural, &namespaced, &e), 0);
    assert_string_equal(plural, "octopi");
    assert_true(namespaced);
    assert_string_equal(srv.last_url, "/apis/example.com/v1");
    free(plural);
    assert_int_equal(ac_discover(c, "example.com", "v1", "Reef", &plural, &namespaced, &e), 0);
    assert_string_equal(plural, "reefs");
    assert_false(namespaced);
    free(plural);
    assert_int_equal(ac_discover(c, "example.com", "v1", "Squid", &plural, &namespaced, &e),
                     ERR_NOT_FOUND);
    assert_int_equal(ac_discover(c, "example.org", "v1", "Octopus", &plural, &namespaced, &e),
                     ERR_NOT_FOUND);
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

/* Sequential requests reuse one connection: every one comes from the
 * same client port. */
static void test_kc_keep_alive(void **state)
{
    struct ac_client *c = client("s3cret", 0);
    char first[64] = "";
    for (int i = 0; i < 10; i++) {
        struct err e;
        err_init(&e);
        json_t *out = NULL;
        assert_int_equal(ac_get(c, &wl_res, "ns", "a", &out, &e), 0);
        json_decref(out);
        pthread_mutex_lock(&srv.mu);
        if (!i)
            snprintf(first, sizeof(first), "%s", srv.last_peer);
        assert_string_equal(srv.last_peer, first);
        pthread_mutex_unlock(&srv.mu);
    }
    assert_non_null(strchr(first, ':'));
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
    struct inf_handlers h = {inf_add, inf_update, inf_delete, &log, NULL};
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
        cmocka_unit_test(test_kc_discover),
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
