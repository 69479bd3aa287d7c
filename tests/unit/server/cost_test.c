/* cost_test.c -- what a request costs (server/cost.c): the seats of a LIST
 * or watch from the collection's last full list, and the watches a user
 * may hold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "server/fairq.h"
#include "server/http.h"
#include "server/srv_int.h"

#define JOBS "/apis/batch/v1/namespaces/a/jobs"

/* A request of method on path with up to two query parameters (NULL keys
 * end the list). */
static struct http_param params[2];
static struct http_req req(const char *method, const char *path, const char *k1, const char *v1,
                           const char *k2, const char *v2)
{
    struct http_req rq = {0};
    rq.method = method;
    rq.path = path;
    params[0] = (struct http_param){k1, v1};
    params[1] = (struct http_param){k2, v2};
    rq.params = params;
    rq.nparams = !k1 ? 0 : !k2 ? 1 : 2;
    return rq;
}

/* q listed its collection and read n objects; a list of one name there
 * is a get when name_gets. */
static void listed_as(struct srv_cost *c, struct http_req *rq, size_t n, bool name_gets)
{
    struct srv_req q = {0};
    q.http = rq;
    q.path = rq->path;
    srv_cost_listed(c, &q, n, name_gets);
}

static void listed(struct srv_cost *c, struct http_req *rq, size_t n)
{
    listed_as(c, rq, n, true);
}

static void test_list_width(void **state)
{
    (void)state;
    struct srv_cost c;
    srv_cost_init(&c, 0);
    struct http_req list = req("GET", JOBS, NULL, NULL, NULL, NULL);
    /* Not listed yet: one seat. */
    assert_int_equal(srv_cost_width(&c, &list), 1);
    listed(&c, &list, 300);
    assert_int_equal(srv_cost_width(&c, &list), 3);
    /* A selector reads as many; a smaller limit fewer. */
    struct http_req sel = req("GET", JOBS, "labelSelector", "app=x", NULL, NULL);
    assert_int_equal(srv_cost_width(&c, &sel), 3);
    struct http_req page = req("GET", JOBS, "limit", "50", NULL, NULL);
    assert_int_equal(srv_cost_width(&c, &page), 1);
    /* A page with a selector may scan everything to find its few. */
    struct http_req sel_page = req("GET", JOBS, "limit", "1", "labelSelector", "none=x");
    assert_int_equal(srv_cost_width(&c, &sel_page), 3);
    struct http_req fsel_page =
        req("GET", JOBS, "fieldSelector", "status.successful=9", "limit", "1");
    assert_int_equal(srv_cost_width(&c, &fsel_page), 3);
    /* ... and neither changes what the collection holds. */
    listed(&c, &sel, 0);
    listed(&c, &page, 50);
    assert_int_equal(srv_cost_width(&c, &list), 3);
    /* A watch reads it only when it starts with the current objects. */
    struct http_req w = req("GET", JOBS, "watch", "true", NULL, NULL);
    assert_int_equal(srv_cost_width(&c, &w), 3);
    struct http_req w0 = req("GET", JOBS, "watch", "1", "resourceVersion", "0");
    assert_int_equal(srv_cost_width(&c, &w0), 3);
    struct http_req wrv = req("GET", JOBS, "watch", "true", "resourceVersion", "42");
    assert_int_equal(srv_cost_width(&c, &wrv), 1);
    /* A write, or another path, costs one. */
    struct http_req post = req("POST", JOBS, NULL, NULL, NULL, NULL);
    assert_int_equal(srv_cost_width(&c, &post), 1);
    struct http_req other = req("GET", "/apis/batch/v1/namespaces/b/jobs", NULL, NULL, NULL, NULL);
    assert_int_equal(srv_cost_width(&c, &other), 1);
    /* A huge collection is capped; an emptied one is forgotten. */
    listed(&c, &list, 1000000);
    assert_int_equal(srv_cost_width(&c, &list), FQ_MAX_SEATS);
    listed(&c, &list, 3);
    assert_int_equal(srv_cost_width(&c, &list), 1);
    assert_int_equal(c.list_sizes.len, 0);
    srv_cost_release(&c);
}

/* A page of one name by fieldSelector is a get where the collection's
 * list allows it (one namespace, or cluster-scoped objects): one seat, as
 * kube-apiserver charges it; anything more than that one term is charged
 * the collection. */
static void test_name_width(void **state)
{
    (void)state;
    struct srv_cost c;
    srv_cost_init(&c, 0);
    struct http_req list = req("GET", JOBS, NULL, NULL, NULL, NULL);
    listed(&c, &list, 300);
    struct http_req one = req("GET", JOBS, "fieldSelector", "metadata.name=j", NULL, NULL);
    assert_int_equal(srv_cost_width(&c, &one), 1);
    struct http_req two_eq = req("GET", JOBS, "fieldSelector", "metadata.name==j", NULL, NULL);
    assert_int_equal(srv_cost_width(&c, &two_eq), 1);
    struct http_req lim = req("GET", JOBS, "fieldSelector", "metadata.name=j", "limit", "500");
    assert_int_equal(srv_cost_width(&c, &lim), 1);
    /* The handler scans for these: the collection is charged. */
    struct http_req ne = req("GET", JOBS, "fieldSelector", "metadata.name!=j", NULL, NULL);
    assert_int_equal(srv_cost_width(&c, &ne), 3);
    struct http_req both =
        req("GET", JOBS, "fieldSelector", "metadata.name=j,metadata.namespace=a", NULL, NULL);
    assert_int_equal(srv_cost_width(&c, &both), 3);
    struct http_req labels =
        req("GET", JOBS, "fieldSelector", "metadata.name=j", "labelSelector", "app=x");
    assert_int_equal(srv_cost_width(&c, &labels), 3);
    struct http_req cont = req("GET", JOBS, "fieldSelector", "metadata.name=j", "continue", "x");
    assert_int_equal(srv_cost_width(&c, &cont), 3);
    struct http_req ns = req("GET", JOBS, "fieldSelector", "metadata.namespace=a", NULL, NULL);
    assert_int_equal(srv_cost_width(&c, &ns), 3);
    struct http_req bad = req("GET", JOBS, "fieldSelector", "metadata.name", NULL, NULL);
    assert_int_equal(srv_cost_width(&c, &bad), 3);
    /* A watch of one name is charged as before. */
    struct http_req w = req("GET", JOBS, "watch", "true", "fieldSelector", "metadata.name=j");
    assert_int_equal(srv_cost_width(&c, &w), 3);
    /* Across namespaces the handler scans: the collection is charged. */
    struct http_req all = req("GET", "/apis/batch/v1/jobs", NULL, NULL, NULL, NULL);
    listed_as(&c, &all, 300, false);
    struct http_req all_one =
        req("GET", "/apis/batch/v1/jobs", "fieldSelector", "metadata.name=j", NULL, NULL);
    assert_int_equal(srv_cost_width(&c, &all_one), 3);
    srv_cost_release(&c);
}

static void test_watches(void **state)
{
    (void)state;
    struct srv_cost c;
    srv_cost_init(&c, 2);
    assert_true(srv_cost_watch_take(&c, "a"));
    assert_true(srv_cost_watch_take(&c, "a"));
    assert_false(srv_cost_watch_take(&c, "a"));
    assert_true(srv_cost_watch_take(&c, "b"));
    srv_cost_watch_give(&c, "a");
    assert_true(srv_cost_watch_take(&c, "a"));
    srv_cost_watch_give(&c, "a");
    srv_cost_watch_give(&c, "a");
    srv_cost_watch_give(&c, "b");
    assert_int_equal(c.watches.len, 0);
    srv_cost_release(&c);
    /* 0: no limit. */
    srv_cost_init(&c, 0);
    for (int i = 0; i < 5000; i++)
        assert_true(srv_cost_watch_take(&c, "a"));
    srv_cost_release(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_width),
        cmocka_unit_test(test_name_width),
        cmocka_unit_test(test_watches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
