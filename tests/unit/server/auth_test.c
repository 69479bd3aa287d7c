/* auth_test.c -- the users' tokens file (server/auth.c): how its lines are
 * parsed, which files are read at all, and that every change is seen; and
 * service account tokens (server/satoken.c): what a forged, tampered,
 * expired or misdirected one gets, and which answers of the store make one
 * remembered dead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "server/srv_int.h"
#include "store/store.h"

struct fx {
    char dir[64];
    char path[96];
    struct srv_auth a;
};

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/cueue-auth-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof(f->path), "%s/tokens", f->dir);
    srv_auth_init(&f->a, "admin-secret", f->path, NULL);
    *state = f;
    /* A read that blocks (a FIFO) fails the test instead of hanging it. */
    alarm(20);
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    alarm(0);
    srv_auth_release(&f->a);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
    if (system(cmd))
        return -1;
    free(f);
    return 0;
}

/* Replace the file's content in place (same inode), mode 0600. */
static void write_tokens(struct fx *f, const char *text, size_t len)
{
    FILE *fp = fopen(f->path, "w");
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, len, fp), len);
    fclose(fp);
    assert_int_equal(chmod(f->path, 0600), 0);
}

/* The user of bearer token tok, or NULL when it is not accepted. */
static const char *who(struct fx *f, const char *tok)
{
    static struct srv_user u;
    char h[4096];
    snprintf(h, sizeof(h), "Bearer %s", tok);
    return srv_auth_lookup(&f->a, h, &u) ? u.name : NULL;
}

static void test_auth_tokens_lines(void **state)
{
    struct fx *f = *state;
    struct sb t = SB_INIT;
    sb_adds(&t, "# users\r\n\r\n");
    sb_adds(&t, "tok-crlf alice team-a,team-b\r\n");
    sb_adds(&t, "\ttok-tabs\tbob\tteam-a \n");
    sb_adds(&t, "tok-two dave\n"); /* no groups */
    /* A comment longer than any line buffer whose tail reads as an entry. */
    sb_adds(&t, "# ");
    for (int i = 0; i < 5000; i++)
        sb_addch(&t, 'x');
    sb_adds(&t, " tok-tail mallory team-a\n");
    /* A valid entry longer than any line buffer. */
    sb_adds(&t, "tok-long");
    for (int i = 0; i < 5000; i++)
        sb_addch(&t, ' ');
    sb_adds(&t, "carol team-a\n");
    /* Malformed lines are skipped whole. */
    sb_adds(&t, "tok-one\n");
    sb_adds(&t, "tok-four erin team-a extra\n");
    sb_adds(&t, "tok-gap frank team-a,,team-b\n");
    sb_adds(&t, "tok-long-group grace ");
    for (int i = 0; i < 128; i++)
        sb_addch(&t, 'g');
    sb_adds(&t, "\ntok-many heidi ");
    for (int i = 0; i < 17; i++)
        sb_addf(&t, "%sns%d", i ? "," : "", i);
    sb_adds(&t, "\ntok-nul ivan team");
    sb_addch(&t, '\0');
    sb_adds(&t, "-a\n");
    sb_adds(&t, "tok-last judy team-c"); /* no final newline */
    write_tokens(f, t.buf, t.len);
    sb_release(&t);

    struct srv_user u;
    assert_true(srv_auth_lookup(&f->a, "Bearer tok-crlf", &u));
    assert_string_equal(u.name, "alice");
    assert_int_equal(u.ngroups, 3);
    assert_string_equal(u.groups[0], "team-a");
    assert_string_equal(u.groups[1], "team-b"); /* not "team-b\r" */
    assert_string_equal(u.groups[2], "system:authenticated");
    assert_false(srv_user_in(&u, "system:masters"));
    assert_string_equal(who(f, "tok-tabs"), "bob");
    assert_null(who(f, "tok-tail"));
    assert_string_equal(who(f, "tok-long"), "carol");
    assert_true(srv_auth_lookup(&f->a, "Bearer tok-two", &u));
    assert_string_equal(u.name, "dave");
    assert_int_equal(u.ngroups, 1);
    assert_null(who(f, "tok-one"));
    assert_null(who(f, "tok-four"));
    assert_null(who(f, "tok-gap"));
    assert_null(who(f, "tok-long-group"));
    assert_null(who(f, "tok-many"));
    assert_null(who(f, "tok-nul"));
    assert_string_equal(who(f, "tok-last"), "judy");
    assert_null(who(f, "#"));
    assert_string_equal(who(f, "admin-secret"), "admin");
    assert_true(srv_auth_lookup(&f->a, "Bearer admin-secret", &u));
    assert_true(srv_user_in(&u, "system:masters"));
    assert_true(srv_user_in(&u, "system:authenticated"));
}

static void test_auth_tokens_not_regular(void **state)
{
    struct fx *f = *state;
    char outside[128];
    snprintf(outside, sizeof(outside), "%s/outside", f->dir);
    FILE *fp = fopen(outside, "w");
    fputs("tok-a alice team-a\n", fp);
    fclose(fp);
    assert_int_equal(symlink(outside, f->path), 0);
    assert_null(who(f, "tok-a"));
    unlink(f->path);
    assert_int_equal(mkfifo(f->path, 0600), 0);
    assert_null(who(f, "tok-a")); /* and returns: the alarm would fail it */
    unlink(f->path);
    assert_int_equal(mkdir(f->path, 0700), 0);
    assert_null(who(f, "tok-a"));
    rmdir(f->path);
    assert_int_equal(rename(outside, f->path), 0);
    assert_int_equal(chmod(f->path, 0600), 0);
    assert_string_equal(who(f, "tok-a"), "alice");
}

static void test_auth_tokens_modes(void **state)
{
    struct fx *f = *state;
    write_tokens(f, "tok-a alice team-a\n", 19);
    assert_int_equal(chmod(f->path, 0644), 0);
    assert_string_equal(who(f, "tok-a"), "alice"); /* readable by others: a warning */
    assert_int_equal(chmod(f->path, 0620), 0);
    assert_null(who(f, "tok-a")); /* writable by others: anyone could add a token */
    assert_int_equal(chmod(f->path, 0602), 0);
    assert_null(who(f, "tok-a"));
    assert_int_equal(chmod(f->path, 0600), 0);
    assert_string_equal(who(f, "tok-a"), "alice");
}

static void test_auth_tokens_changes(void **state)
{
    struct fx *f = *state;
    write_tokens(f, "tok-aaaa alice team-a\n", 22);
    /* Read long enough after the file's last change that from then on its
     * identity and times alone tell whether it changed (auth.c). */
    sleep(3);
    assert_string_equal(who(f, "tok-aaaa"), "alice");
    struct stat before;
    assert_int_equal(stat(f->path, &before), 0);
    write_tokens(f, "tok-bbbb alice team-a\n", 22);
    struct timespec times[2] = {before.st_atim, before.st_mtim};
    assert_int_equal(utimensat(AT_FDCWD, f->path, times, 0), 0);
    struct stat after;
    assert_int_equal(stat(f->path, &after), 0);
    assert_int_equal(after.st_size, before.st_size);
    assert_int_equal(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    assert_int_equal(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
    assert_null(who(f, "tok-aaaa"));
    assert_string_equal(who(f, "tok-bbbb"), "alice");

    /* Removed: every tenant token goes with it. */
    unlink(f->path);
    assert_null(who(f, "tok-bbbb"));
    write_tokens(f, "tok-cccc carol team-a\n", 22);
    assert_string_equal(who(f, "tok-cccc"), "carol");
}

/* Claims of a token for team-a/runner, valid from now for an hour. */
static json_t *claims(void)
{
    json_int_t now = (json_int_t)time(NULL);
    return json_pack("{s:[s],s:I,s:I,s:s,s:s,s:{s:s,s:{s:s,s:s}},s:I,s:s}", "aud", SRV_SA_ISSUER,
                     "exp", now + 3600, "iat", now, "iss", SRV_SA_ISSUER, "jti", "j-1",
                     "kubernetes.io", "namespace", "team-a", "serviceaccount", "name", "runner",
                     "uid", "u-1", "nbf", now, "sub", "system:serviceaccount:team-a:runner");
}

static bool sa_ok(const unsigned char *key, json_t *c, const json_t *aud, struct srv_user *u)
{
    char *tok = srv_sa_token_sign(key, c);
    bool ok = srv_sa_token_authenticate(key, tok, aud, u);
    free(tok);
    json_decref(c);
    return ok;
}

static void test_sa_tokens(void **state)
{
    (void)state;
    unsigned char key[32], other[32];
    memset(key, 7, sizeof(key));
    memset(other, 8, sizeof(other));
    struct srv_user u;
    assert_true(sa_ok(key, claims(), NULL, &u));
    assert_string_equal(u.name, "system:serviceaccount:team-a:runner");
    assert_string_equal(u.uid, "u-1");
    assert_true(u.sa);
    assert_string_equal(u.sa_claims.ns, "team-a");
    assert_true(srv_user_in(&u, "system:serviceaccounts"));
    assert_true(srv_user_in(&u, "system:serviceaccounts:team-a"));
    assert_true(srv_user_in(&u, "system:authenticated"));

    /* Another key, a changed payload, no signature, alg none. */
    json_t *c = claims();
    char *tok = srv_sa_token_sign(other, c);
    assert_false(srv_sa_token_authenticate(key, tok, NULL, &u));
    free(tok);
    tok = srv_sa_token_sign(key, c);
    json_object_set_new(c, "sub", json_string("system:serviceaccount:team-a:admin"));
    char *forged = srv_sa_token_sign(other, c);
    /* forged's payload with tok's signature */
    char *p1 = strchr(tok, '.'), *f1 = strchr(forged, '.');
    char *p2 = strchr(p1 + 1, '.'), *f2 = strchr(f1 + 1, '.');
    struct sb mix = SB_INIT;
    sb_add(&mix, forged, (size_t)(f2 - forged));
    sb_adds(&mix, p2);
    assert_false(srv_sa_token_authenticate(key, sb_str(&mix), NULL, &u));
    sb_reset(&mix);
    sb_add(&mix, tok, (size_t)(p2 - tok) + 1);
    assert_false(srv_sa_token_authenticate(key, sb_str(&mix), NULL, &u));
    sb_reset(&mix);
    sb_adds(&mix, "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0"); /* {"alg":"none","typ":"JWT"} */
    sb_add(&mix, p1, (size_t)(p2 - p1) + 1);
    assert_false(srv_sa_token_authenticate(key, sb_str(&mix), NULL, &u));
    sb_release(&mix);
    free(tok);
    free(forged);
    json_decref(c);

    /* Expired, not yet valid, another issuer, a subject not its account's. */
    c = claims();
    json_object_set_new(c, "exp", json_integer((json_int_t)time(NULL) - 1));
    assert_false(sa_ok(key, c, NULL, &u));
    c = claims();
    json_object_set_new(c, "nbf", json_integer((json_int_t)time(NULL) + 600));
    assert_false(sa_ok(key, c, NULL, &u));
    c = claims();
    json_object_set_new(c, "iss", json_string("https://elsewhere"));
    assert_false(sa_ok(key, c, NULL, &u));
    c = claims();
    json_object_set_new(c, "sub", json_string("system:serviceaccount:team-a:other"));
    assert_false(sa_ok(key, c, NULL, &u));

    /* A token for another audience is no API token, but a review for that
     * audience accepts it. */
    c = claims();
    json_object_set_new(c, "aud", json_pack("[s]", "vault"));
    json_t *aud = json_pack("[s]", "vault");
    assert_false(sa_ok(key, json_deep_copy(c), NULL, &u));
    assert_true(sa_ok(key, c, aud, &u));
    json_decref(aud);
}

/* A token found dead is remembered by its id until it expires, and the
 * memory of them is bounded: expired ones make room, live ones are kept. */
static void test_dead_tokens(void **state)
{
    (void)state;
    struct srv_auth a;
    srv_auth_init(&a, "admin", NULL, NULL);
    struct srv_sa_claims c = {.exp = 2000};
    snprintf(c.jti, sizeof(c.jti), "one");
    assert_false(srv_auth_token_dead(&a, &c));
    srv_auth_token_died(&a, &c, 1000);
    assert_true(srv_auth_token_dead(&a, &c));
    struct srv_sa_claims other = {.exp = 2000};
    snprintf(other.jti, sizeof(other.jti), "two");
    assert_false(srv_auth_token_dead(&a, &other));
    /* No id, or expired already: nothing to remember. */
    struct srv_sa_claims noid = {.exp = 2000};
    srv_auth_token_died(&a, &noid, 1000);
    assert_false(srv_auth_token_dead(&a, &noid));
    struct srv_sa_claims old = {.exp = 900};
    snprintf(old.jti, sizeof(old.jti), "old");
    srv_auth_token_died(&a, &old, 1000);
    assert_false(srv_auth_token_dead(&a, &old));
    /* Full of unexpired ones: the next is not remembered. */
    for (int i = 0; a.dead.len < SRV_DEAD_TOKENS; i++) {
        struct srv_sa_claims f = {.exp = 1500};
        snprintf(f.jti, sizeof(f.jti), "fill-%d", i);
        srv_auth_token_died(&a, &f, 1000);
    }
    srv_auth_token_died(&a, &other, 1000);
    assert_false(srv_auth_token_dead(&a, &other));
    assert_int_equal(a.dead.len, SRV_DEAD_TOKENS);
    /* Once they expire they make room; the unexpired one stays. */
    srv_auth_token_died(&a, &other, 1600);
    assert_true(srv_auth_token_dead(&a, &other));
    assert_true(srv_auth_token_dead(&a, &c));
    assert_int_equal(a.dead.len, 2);
    srv_auth_release(&a);
}

/* Run sql on the store's database from a connection of its own. */
static void store_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "error");
    sqlite3_close(db);
}

/* A token is remembered dead only when the store says its account is
 * gone: a store that cannot read (here its table is away) gets the
 * store's error, remembers nothing, and the token is live again once the
 * store reads again. */
static void test_token_check_store_failure(void **state)
{
    struct fx *f = *state;
    char db[128];
    snprintf(db, sizeof(db), "%s/store.db", f->dir);
    struct store_options o = {.path = db};
    struct store *st = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_open(&o, &st, &e), 0);
    json_t *ns = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "Namespace", "metadata",
                           "name", "team-a");
    json_t *sa = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "ServiceAccount",
                           "metadata", "name", "bot");
    json_t *out = NULL;
    assert_int_equal(store_create(st, store_resource_find("namespaces"), NULL, ns, NULL, &out, &e),
                     0);
    json_decref(out);
    assert_int_equal(
        store_create(st, store_resource_find("serviceaccounts"), "team-a", sa, NULL, &out, &e), 0);
    struct srv_sa_claims c = {.exp = 2000};
    snprintf(c.ns, sizeof(c.ns), "team-a");
    snprintf(c.name, sizeof(c.name), "bot");
    snprintf(c.uid, sizeof(c.uid), "%s",
             json_string_value(json_object_get(json_object_get(out, "metadata"), "uid")));
    snprintf(c.jti, sizeof(c.jti), "tok-1");
    json_decref(out);
    json_decref(ns);
    json_decref(sa);

    assert_int_equal(srv_sa_token_check(&f->a, st, &c, 1000, &e), 0);

    /* The store cannot read: an error that is no verdict on the token. */
    store_sql(db, "ALTER TABLE objects RENAME TO objects_away");
    err_init(&e);
    int rc = srv_sa_token_check(&f->a, st, &c, 1000, &e);
    assert_true(rc < 0);
    assert_int_not_equal(rc, ERR_UNAUTHORIZED);
    assert_non_null(strstr(e.message, "cannot check service account team-a/bot"));
    assert_false(srv_auth_token_dead(&f->a, &c));

    /* It reads again: the token is good. */
    store_sql(db, "ALTER TABLE objects_away RENAME TO objects");
    assert_int_equal(srv_sa_token_check(&f->a, st, &c, 1000, &e), 0);
    assert_false(srv_auth_token_dead(&f->a, &c));

    /* The account made anew (another uid): the token is dead, remembered. */
    bool deleted = false;
    assert_int_equal(store_delete(st, store_resource_find("serviceaccounts"), "team-a", "bot", NULL,
                                  NULL, &deleted, &e),
                     0);
    assert_true(deleted);
    sa = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "ServiceAccount", "metadata",
                   "name", "bot");
    assert_int_equal(
        store_create(st, store_resource_find("serviceaccounts"), "team-a", sa, NULL, &out, &e), 0);
    json_decref(out);
    json_decref(sa);
    err_init(&e);
    assert_int_equal(srv_sa_token_check(&f->a, st, &c, 1000, &e), ERR_UNAUTHORIZED);
    assert_string_equal(e.message, "service account team-a/bot has been deleted");
    assert_true(srv_auth_token_dead(&f->a, &c));
    store_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_auth_tokens_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auth_tokens_not_regular, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auth_tokens_modes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auth_tokens_changes, setup, teardown),
        cmocka_unit_test(test_sa_tokens),
        cmocka_unit_test(test_dead_tokens),
        cmocka_unit_test_setup_teardown(test_token_check_store_failure, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
