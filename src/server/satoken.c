/* satoken.c -- service account tokens: TokenRequest (`kubectl create token
 * SA`) and their authentication.
 *
 * A token is a JSON Web Token with the claims Kubernetes' bound tokens
 * carry (iss, sub system:serviceaccount:NS:NAME, aud, exp, iat, nbf, jti
 * and kubernetes.io: the namespace, the account's name and uid, the Pod or
 * Secret it is bound to), signed with HMAC-SHA256 under a key kept in the
 * data directory (sa.key). Only this server checks them -- components ask
 * it through TokenReview -- so a shared-key signature is enough, and no
 * public key is published.
 *
 * A token is as good as the objects it names: the account (and the bound
 * Pod or Secret) must still exist with the uid it had when the token was
 * made, so deleting the account revokes every token of it. That needs the
 * store, which the I/O thread that authenticates request heads does not
 * touch: the signature and times are checked there
 * (srv_sa_token_authenticate), the objects on the worker before the
 * request is answered (srv_sa_token_live). */
#include "server/srv_int.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/objects.h"
#include "base/base64.h"
#include "base/err.h"
#include "base/log.h"
#include "base/time.h"
#include "base/xalloc.h"

#define TOKEN_MAX 8192
#define SA_PREFIX "system:serviceaccount:"
/* TokenRequest's limits: at least ten minutes, at most 2^32 seconds; an
 * hour when none is asked. */
#define MIN_EXPIRATION_S 600
#define MAX_EXPIRATION_S 4294967296LL
#define DEFAULT_EXPIRATION_S 3600
/* nbf and iat may be this far in the future (clock steps). */
#define LEEWAY_S 60

static const char jwt_header[] = "{\"alg\":\"HS256\",\"typ\":\"JWT\"}";

static void hmac(const unsigned char *key, const char *data, size_t len, unsigned char out[32])
{
    if (gnutls_hmac_fast(GNUTLS_MAC_SHA256, key, 32, data, len, out))
        memset(out, 0, 32); /* never matches a real signature's check below */
}

char *srv_sa_token_sign(const unsigned char *key, const json_t *claims)
{
    struct sb t = SB_INIT;
    b64_encode(jwt_header, strlen(jwt_header), true, &t);
    sb_addch(&t, '.');
    char *payload = json_dumps(claims, JSON_COMPACT | JSON_SORT_KEYS);
    b64_encode(payload, strlen(payload), true, &t);
    free(payload);
    unsigned char mac[32];
    hmac(key, t.buf, t.len, mac);
    sb_addch(&t, '.');
    b64_encode(mac, sizeof(mac), true, &t);
    return sb_take(&t);
}

/* The claims of a correctly signed token (owned), or NULL. */
static json_t *verified_claims(const unsigned char *key, const char *token)
{
    size_t len = strlen(token);
    const char *d1 = memchr(token, '.', len);
    const char *d2 = d1 ? memchr(d1 + 1, '.', (size_t)(token + len - d1 - 1)) : NULL;
    if (len > TOKEN_MAX || !d2 || memchr(d2 + 1, '.', (size_t)(token + len - d2 - 1)))
        return NULL;
    struct sb part = SB_INIT;
    json_t *claims = NULL;
    /* The header must say what we sign with: no "none", no other key. */
    if (!b64_decode(token, (size_t)(d1 - token), true, &part) || strcmp(sb_str(&part), jwt_header))
        goto out;
    sb_reset(&part);
    unsigned char mac[32];
    hmac(key, token, (size_t)(d2 - token), mac);
    if (!b64_decode(d2 + 1, strlen(d2 + 1), true, &part) || part.len != sizeof(mac))
        goto out;
    unsigned char diff = 0;
    for (size_t i = 0; i < sizeof(mac); i++)
        diff |= (unsigned char)(mac[i] ^ (unsigned char)part.buf[i]);
    if (diff)
        goto out;
    sb_reset(&part);
    if (!b64_decode(d1 + 1, (size_t)(d2 - d1 - 1), true, &part))
        goto out;
    claims = json_loadb(part.buf ? part.buf : "", part.len, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(claims)) {
        json_decref(claims);
        claims = NULL;
    }
out:
    sb_release(&part);
    return claims;
}

static bool aud_has(const json_t *aud, const char *want)
{
    if (json_is_string(aud))
        return !strcmp(json_string_value(aud), want);
    size_t i;
    const json_t *a;
    json_array_foreach(aud, i, a)
    {
        if (json_is_string(a) && !strcmp(json_string_value(a), want))
            return true;
    }
    return false;
}

static bool copy_str(char *dst, size_t len, const json_t *v)
{
    const char *s = json_string_value(v);
    if (!s || strlen(s) >= len)
        return false;
    memcpy(dst, s, strlen(s) + 1);
    return true;
}

/* The claims' names into c; false when something required is missing. */
static bool read_claims(const json_t *claims, struct srv_sa_claims *c)
{
    const json_t *k8s = json_object_get(claims, "kubernetes.io");
    const json_t *sa = json_object_get(k8s, "serviceaccount");
    memset(c, 0, sizeof(*c));
    if (!copy_str(c->ns, sizeof(c->ns), json_object_get(k8s, "namespace")) ||
        !copy_str(c->name, sizeof(c->name), json_object_get(sa, "name")) ||
        !copy_str(c->uid, sizeof(c->uid), json_object_get(sa, "uid")) ||
        !copy_str(c->jti, sizeof(c->jti), json_object_get(claims, "jti")))
        return false;
    static const char *const bound[] = {"pod", "Pod", "secret", "Secret"};
    for (size_t i = 0; i < 4; i += 2) {
        const json_t *b = json_object_get(k8s, bound[i]);
        if (!b)
            continue;
        snprintf(c->bound_kind, sizeof(c->bound_kind), "%s", bound[i + 1]);
        if (!copy_str(c->bound_name, sizeof(c->bound_name), json_object_get(b, "name")) ||
            !copy_str(c->bound_uid, sizeof(c->bound_uid), json_object_get(b, "uid")))
            return false;
    }
    c->exp = json_integer_value(json_object_get(claims, "exp"));
    return true;
}

bool srv_sa_token_authenticate(const unsigned char *key, const char *token, const json_t *audiences,
                               struct srv_user *u)
{
    json_t *claims = verified_claims(key, token);
    if (!claims)
        return false;
    bool ok = false;
    struct srv_sa_claims c;
    int64_t now = tm_now_ms() / 1000;
    const json_t *aud = json_object_get(claims, "aud");
    bool aud_ok = false;
    if (audiences) {
        size_t i;
        const json_t *a;
        json_array_foreach(audiences, i, a)
        {
            aud_ok |= json_is_string(a) && aud_has(aud, json_string_value(a));
        }
    } else {
        aud_ok = aud_has(aud, SRV_SA_ISSUER);
    }
    const char *iss = json_string_value(json_object_get(claims, "iss"));
    if (!aud_ok || !iss || strcmp(iss, SRV_SA_ISSUER) || !read_claims(claims, &c) ||
        !json_is_integer(json_object_get(claims, "exp")) || c.exp <= now ||
        json_integer_value(json_object_get(claims, "nbf")) > now + LEEWAY_S)
        goto out;
    char sub[600];
    snprintf(sub, sizeof(sub), SA_PREFIX "%s:%s", c.ns, c.name);
    const char *csub = json_string_value(json_object_get(claims, "sub"));
    if (!csub || strcmp(csub, sub) || strlen(sub) >= sizeof(u->name))
        goto out;
    memset(u, 0, sizeof(*u));
    memcpy(u->name, sub, strlen(sub) + 1); /* shorter: checked above */
    snprintf(u->uid, sizeof(u->uid), "%s", c.uid);
    char group[128];
    srv_user_add_group(u, "system:serviceaccounts");
    snprintf(group, sizeof(group), "system:serviceaccounts:%s", c.ns);
    srv_user_add_group(u, group);
    srv_user_add_group(u, SRV_AUTHENTICATED);
    u->sa = true;
    u->sa_claims = c;
    ok = true;
out:
    json_decref(claims);
    return ok;
}

/* Is ns/name of the resource key there with uid, and not being deleted?
 * 0 when it is; 1 when it is not (gone, another object of that name now,
 * or deleting), a definite answer; a negative ERR_* with e set when the
 * store cannot tell (a read failed), which says nothing of the token. */
static int exists(struct store *st, const char *key, const char *ns, const char *name,
                  const char *uid, struct err *e)
{
    const struct store_resource *r = store_resource_find(key);
    json_t *o = NULL;
    if (!r)
        return 1;
    int rc = store_get(st, r, ns, name, &o, e);
    if (rc == ERR_NOT_FOUND) {
        err_init(e);
        return 1;
    }
    if (rc)
        return rc;
    const char *have = api_doc_meta_str(o, "uid");
    bool ok = have && !strcmp(have, uid) && !json_object_get(api_doc_meta(o), "deletionTimestamp");
    json_decref(o);
    return ok ? 0 : 1;
}

int srv_sa_token_live(struct store *st, const struct srv_sa_claims *c, struct err *e)
{
    const char *what = "service account", *name = c->name;
    int rc = exists(st, "serviceaccounts", c->ns, c->name, c->uid, e);
    if (!rc && !strcmp(c->bound_kind, "Pod")) {
        what = "pod", name = c->bound_name;
        rc = exists(st, "pods", c->ns, c->bound_name, c->bound_uid, e);
    } else if (!rc && !strcmp(c->bound_kind, "Secret")) {
        what = "secret", name = c->bound_name;
        rc = exists(st, "secrets", c->ns, c->bound_name, c->bound_uid, e);
    }
    if (rc > 0)
        return err_set(e, ERR_UNAUTHORIZED, "%s %s/%s has been deleted", what, c->ns, name);
    if (rc < 0) {
        char why[sizeof(e->message)];
        snprintf(why, sizeof(why), "%s", e->message);
        return err_set(e, rc, "cannot check %s %s/%s: %s", what, c->ns, name, why);
    }
    return 0;
}

int srv_sa_token_check(struct srv_auth *a, struct store *st, const struct srv_sa_claims *c,
                       int64_t now_s, struct err *e)
{
    int rc = srv_sa_token_live(st, c, e);
    if (rc == ERR_UNAUTHORIZED)
        srv_auth_token_died(a, c, now_s);
    return rc;
}

/* ---- TokenRequest ------------------------------------------------------------------------- */

static int reply_invalid(struct srv_req *q, const char *name, const char *field, const char *msg)
{
    struct err e;
    err_init(&e);
    size_t m = err_push_field(&e, field);
    err_field(&e, ERR_INVALID, "%s", msg);
    err_restore(&e, m);
    struct store_resource tr = {.group = "authentication.k8s.io", .kind = "TokenRequest"};
    return srv_reply_err(q, ERR_INVALID, &e, &tr, NULL, name, "create");
}

/* The bound object of spec.boundObjectRef, checked; false after replying. */
static bool bound_object(struct srv_req *q, const struct srv_route *rt, const json_t *ref,
                         json_t *k8s, int *ret)
{
    if (!ref)
        return true;
    const char *kind = json_string_value(json_object_get(ref, "kind"));
    const char *name = json_string_value(json_object_get(ref, "name"));
    const char *uid = json_string_value(json_object_get(ref, "uid"));
    const char *key = kind && !strcmp(kind, "Pod")      ? "pods"
                      : kind && !strcmp(kind, "Secret") ? "secrets"
                                                        : NULL;
    if (!key) {
        char msg[300];
        snprintf(msg, sizeof(msg),
                 "Unsupported value: \"%.100s\": supported values: \"Pod\", "
                 "\"Secret\"",
                 kind ? kind : "");
        *ret = reply_invalid(q, rt->name, "spec.boundObjectRef.kind", msg);
        return false;
    }
    const struct store_resource *r = store_resource_find(key);
    struct err e;
    err_init(&e);
    json_t *o = NULL;
    int rc = r && name ? store_get(q->srv->store, r, rt->ns, name, &o, &e) : ERR_NOT_FOUND;
    if (rc) {
        char msg[400];
        snprintf(msg, sizeof(msg), "%s \"%s\" not found", key, name ? name : "");
        *ret = srv_reply_status(q, 404, "NotFound", msg, NULL);
        return false;
    }
    const char *have = api_doc_meta_str(o, "uid");
    if (uid && *uid && (!have || strcmp(uid, have))) {
        char msg[400];
        snprintf(msg, sizeof(msg),
                 "the UID in the bound object reference (%s) does not match the UID in record. "
                 "The object might have been deleted and then recreated",
                 uid);
        json_decref(o);
        *ret = srv_reply_status(q, 409, "Conflict", msg, NULL);
        return false;
    }
    json_object_set_new(k8s, !strcmp(kind, "Pod") ? "pod" : "secret",
                        json_pack("{s:s,s:s}", "name", name, "uid", have ? have : ""));
    json_decref(o);
    return true;
}

/* A random version-4 UUID for jti. */
static void uuid4(char *buf, size_t len)
{
    unsigned char b[16];
    if (gnutls_rnd(GNUTLS_RND_NONCE, b, sizeof(b)))
        abort();
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

int srv_handle_token_request(struct srv_req *q, const struct srv_route *rt)
{
    if (strcmp(q->method, "POST"))
        return srv_reply_status(q, 405, "MethodNotAllowed",
                                "the server does not allow this method on the requested resource",
                                NULL);
    struct err e;
    err_init(&e);
    json_t *body = NULL;
    if (srv_body_parse(q, false, &body, &e))
        return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    int ret = 0;
    json_t *sa = NULL, *claims = NULL;
    const json_t *spec = json_object_get(body, "spec");
    const json_t *exp = json_object_get(spec, "expirationSeconds");
    json_int_t secs = json_is_integer(exp) ? json_integer_value(exp) : DEFAULT_EXPIRATION_S;
    if (secs < MIN_EXPIRATION_S) {
        ret = reply_invalid(q, rt->name, "spec.expirationSeconds",
                            "Invalid value: may not specify a duration less than 10 minutes");
        goto out;
    }
    if (secs > MAX_EXPIRATION_S) {
        ret = reply_invalid(q, rt->name, "spec.expirationSeconds",
                            "Invalid value: may not specify a duration larger than 2^32 seconds");
        goto out;
    }
    if (store_get(q->srv->store, rt->res, rt->ns, rt->name, &sa, &e)) {
        ret = srv_reply_err(q, ERR_NOT_FOUND, &e, rt->res, rt->ns, rt->name, "get");
        goto out;
    }
    json_t *aud = json_object_get(spec, "audiences");
    json_t *audiences =
        json_array_size(aud) ? json_deep_copy(aud) : json_pack("[s]", SRV_SA_ISSUER);
    int64_t now = tm_now_ms() / 1000;
    char jti[40];
    uuid4(jti, sizeof(jti));
    const char *uid = api_doc_meta_str(sa, "uid");
    json_t *k8s = json_pack("{s:s,s:{s:s,s:s}}", "namespace", rt->ns, "serviceaccount", "name",
                            rt->name, "uid", uid ? uid : "");
    char sub[600];
    snprintf(sub, sizeof(sub), SA_PREFIX "%s:%s", rt->ns, rt->name);
    claims = json_pack("{s:o,s:I,s:I,s:s,s:s,s:o,s:I,s:s}", "aud", audiences, "exp",
                       (json_int_t)(now + secs), "iat", (json_int_t)now, "iss", SRV_SA_ISSUER,
                       "jti", jti, "kubernetes.io", k8s, "nbf", (json_int_t)now, "sub", sub);
    if (!bound_object(q, rt, json_object_get(spec, "boundObjectRef"), k8s, &ret))
        goto out;
    char *token = srv_sa_token_sign(q->srv->auth.sa_key, claims);
    char when[TM_RFC3339_LEN];
    tm_format_rfc3339((now + secs) * 1000, when);
    json_t *status = json_pack("{s:s,s:s}", "token", token, "expirationTimestamp", when);
    free(token);
    json_t *out = json_deep_copy(body);
    json_object_set_new(out, "kind", json_string("TokenRequest"));
    json_object_set_new(out, "apiVersion", json_string("authentication.k8s.io/v1"));
    json_t *ospec = json_object_get(out, "spec");
    if (!json_is_object(ospec)) {
        ospec = json_object();
        json_object_set_new(out, "spec", ospec);
    }
    json_object_set(ospec, "audiences", json_object_get(claims, "aud"));
    json_object_set_new(ospec, "expirationSeconds", json_integer(secs));
    json_object_set_new(
        out, "metadata",
        json_pack("{s:s,s:s,s:n}", "name", rt->name, "namespace", rt->ns, "creationTimestamp"));
    json_object_set_new(out, "status", status);
    log_info("token: issued a token for service account %s/%s to %s (expires %s)", rt->ns, rt->name,
             q->user.name, when);
    ret = srv_reply_json(q, 201, out, NULL);
    json_decref(out);
out:
    json_decref(claims);
    json_decref(sa);
    json_decref(body);
    return ret;
}
