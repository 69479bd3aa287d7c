/* visapi_test.c -- the visibility server's request-header user (what its
 * SubjectAccessReviews carry) and its remembered reviews (cli/visapi.c),
 * with a fake clock and a fake reviewer that counts what it is asked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cli/visapi.h"
#include "server/http.h"

static json_t *headers_user(const struct http_header *h, size_t n)
{
    struct http_req rq = {.headers = h, .nheaders = n};
    json_t *users = json_pack("[s,s]", "X-Remote-User", "X-Other-User");
    json_t *groups = json_pack("[s]", "X-Remote-Group");
    json_t *uids = json_pack("[s,s]", "X-Remote-Uid", "X-Other-Uid");
    json_t *extra = json_pack("[s,s]", "X-Remote-Extra-", "X-Acme-");
    struct visapi_header_names names = {users, uids, groups, extra};
    json_t *u = visapi_header_user(&rq, &names);
    json_decref(users);
    json_decref(uids);
    json_decref(groups);
    json_decref(extra);
    return u;
}

static void test_header_user_extra(void **state)
{
    (void)state;
    const struct http_header h[] = {
        {"x-remote-user", "alice"},
        {"X-Remote-Group", "team-a"},
        {"X-Remote-Group", "system:authenticated"},
        {"X-Remote-Extra-Scopes", "view"},
        {"X-Remote-Extra-scopes", "edit"},
        {"X-Remote-Extra-Acme.Com%2fProject", "p1"},
        {"X-Acme-Scopes", "admin"},
        {"X-Remote-Extra-Bad%zz", "kept"},
        {"X-Remote-Other", "ignored"},
    };
    json_t *u = headers_user(h, CU_ARRAY_SIZE(h));
    assert_non_null(u);
    char *s = json_dumps(u, JSON_COMPACT | JSON_SORT_KEYS);
    /* Keys lowercased and percent-decoded, values as sent, in the order of
     * the prefixes and then of the headers; a malformed escape keeps the
     * key as sent. */
    assert_string_equal(s, "{\"extra\":{\"acme.com/project\":[\"p1\"],\"bad%zz\":[\"kept\"],"
                           "\"scopes\":[\"view\",\"edit\",\"admin\"]},"
                           "\"groups\":[\"team-a\",\"system:authenticated\"],"
                           "\"username\":\"alice\"}");
    free(s);
    json_decref(u);
}

static void test_header_user_none(void **state)
{
    (void)state;
    const struct http_header h[] = {{"X-Remote-User", ""}, {"X-Remote-Group", "g"}};
    assert_null(headers_user(h, CU_ARRAY_SIZE(h)));
    /* The second user header when the first is missing. */
    const struct http_header h2[] = {{"X-Other-User", "bob"}};
    json_t *u = headers_user(h2, 1);
    assert_string_equal(json_string_value(json_object_get(u, "username")), "bob");
    assert_int_equal(json_object_size(json_object_get(u, "extra")), 0);
    /* No uid header: the review carries no uid, as the API server sends. */
    assert_null(json_object_get(u, "uid"));
    json_decref(u);
}

/* The uid from the first uid header with a value (Kubernetes 1.32+
 * X-Remote-Uid), which the SubjectAccessReview then carries. */
static void test_header_user_uid(void **state)
{
    (void)state;
    const struct http_header h[] = {{"X-Remote-User", "alice"},
                                    {"X-Remote-Uid", ""},
                                    {"x-other-uid", "0f6a-42"},
                                    {"X-Remote-Extra-Uid", "not-the-uid"}};
    json_t *u = headers_user(h, CU_ARRAY_SIZE(h));
    assert_non_null(u);
    assert_string_equal(json_string_value(json_object_get(u, "uid")), "0f6a-42");
    assert_string_equal(json_string_value(json_object_get(u, "username")), "alice");
    json_decref(u);
    /* A uid alone names no user. */
    const struct http_header h2[] = {{"X-Remote-Uid", "0f6a-42"}};
    assert_null(headers_user(h2, 1));
}

struct fake_reviewer {
    int asked;
    unsigned answer;
};

static unsigned fake_ask(void *arg, const json_t *user, const char *key, const json_t *attrs)
{
    (void)user;
    (void)key;
    (void)attrs;
    struct fake_reviewer *f = arg;
    f->asked++;
    return f->answer;
}

static unsigned ask(struct visapi_reviews *c, struct fake_reviewer *f, const char *user,
                    const char *extra, const char *name, int64_t now_ms)
{
    json_t *u = json_pack("{s:s,s:[s],s:{s:[s]}}", "username", user, "groups", "g", "extra",
                          "scopes", extra);
    json_t *a = json_pack("{s:s,s:s}", "verb", "get", "name", name);
    unsigned st = visapi_reviews_ask(c, u, "resourceAttributes", a, now_ms, fake_ask, f);
    json_decref(u);
    json_decref(a);
    return st;
}

static void test_reviews_ttl(void **state)
{
    (void)state;
    struct visapi_reviews *c = visapi_reviews_new(16);
    struct fake_reviewer f = {0, 0};
    assert_int_equal(ask(c, &f, "alice", "x", "cq", 1000), 0);
    assert_int_equal(ask(c, &f, "alice", "x", "cq", 1000 + VISAPI_ALLOW_TTL_MS - 1), 0);
    assert_int_equal(f.asked, 1);
    /* Anything else in the review is another review. */
    ask(c, &f, "bob", "x", "cq", 1000);
    ask(c, &f, "alice", "y", "cq", 1000);
    ask(c, &f, "alice", "x", "other", 1000);
    assert_int_equal(f.asked, 4);
    /* Past the TTL it is asked again, and the new answer counts. */
    f.answer = 403;
    assert_int_equal(ask(c, &f, "alice", "x", "cq", 1000 + VISAPI_ALLOW_TTL_MS), 403);
    assert_int_equal(f.asked, 5);
    assert_int_equal(ask(c, &f, "alice", "x", "cq", 1000 + VISAPI_ALLOW_TTL_MS + 1), 403);
    assert_int_equal(f.asked, 5);
    assert_int_equal(
        ask(c, &f, "alice", "x", "cq", 1000 + VISAPI_ALLOW_TTL_MS + VISAPI_DENY_TTL_MS), 403);
    assert_int_equal(f.asked, 6);
    visapi_reviews_free(c);
}

static void test_reviews_failure_not_remembered(void **state)
{
    (void)state;
    struct visapi_reviews *c = visapi_reviews_new(16);
    struct fake_reviewer f = {0, 500};
    assert_int_equal(ask(c, &f, "alice", "x", "cq", 0), 500);
    f.answer = 0;
    assert_int_equal(ask(c, &f, "alice", "x", "cq", 1), 0);
    assert_int_equal(f.asked, 2);
    visapi_reviews_free(c);
}

static void test_reviews_bounded(void **state)
{
    (void)state;
    struct visapi_reviews *c = visapi_reviews_new(4);
    struct fake_reviewer f = {0, 0};
    char name[16];
    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof(name), "cq%d", i);
        ask(c, &f, "alice", "x", name, i);
        assert_true(visapi_reviews_len(c) <= 4);
    }
    assert_int_equal(f.asked, 10);
    /* The newest answers stay; the oldest went first. */
    ask(c, &f, "alice", "x", "cq9", 20);
    ask(c, &f, "alice", "x", "cq8", 20);
    assert_int_equal(f.asked, 10);
    ask(c, &f, "alice", "x", "cq0", 20);
    assert_int_equal(f.asked, 11);
    visapi_reviews_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_user_extra),
        cmocka_unit_test(test_header_user_none),
        cmocka_unit_test(test_header_user_uid),
        cmocka_unit_test(test_reviews_ttl),
        cmocka_unit_test(test_reviews_failure_not_remembered),
        cmocka_unit_test(test_reviews_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
