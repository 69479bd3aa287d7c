/* kubeconfig.c -- resolve a kubeconfig document or the in-cluster
 * service account into a kc_config. See kubeconfig.h. */
#include "kube/kubeconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#define KC_FILE_MAX (1u << 20) /* tokens and certificates are small */

void kc_config_release(struct kc_config *c)
{
    free(c->server);
    free(c->ca_file);
    free(c->ca_data);
    free(c->cert_file);
    free(c->cert_data);
    free(c->key_file);
    free(c->key_data);
    free(c->token);
    free(c->token_file);
    free(c->namespace);
    free(c->context);
    memset(c, 0, sizeof(*c));
}

static int b64val(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+')
        return 62;
    if (ch == '/')
        return 63;
    return -1;
}

int kc_base64_decode(const char *in, char **out, size_t *len)
{
    size_t n = strlen(in);
    char *buf = xmalloc(n / 4 * 3 + 4);
    size_t o = 0, pad = 0;
    unsigned acc = 0, bits = 0, count = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)in[i];
        if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t')
            continue;
        if (ch == '=') {
            pad++;
            continue;
        }
        int v = b64val(ch);
        if (v < 0 || pad)
            goto bad;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        count++;
        if (bits >= 8) {
            bits -= 8;
            buf[o++] = (char)((acc >> bits) & 0xff);
        }
    }
    if (count % 4 == 1 || pad > 2 || (pad && (count + pad) % 4))
        goto bad;
    buf[o] = 0;
    *out = buf;
    *len = o;
    return 0;
bad:
    free(buf);
    return ERR_INVALID;
}

int kc_read_file(const char *path, size_t max, char **out, size_t *len, struct err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set(e, ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    struct sb sb = SB_INIT;
    char chunk[4096];
    size_t n;
    int rc = 0;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (sb.len + n > max) {
            rc = err_set(e, ERR_TOO_LARGE, "'%s' is larger than %zu bytes", path, max);
            break;
        }
        sb_add(&sb, chunk, n);
    }
    if (!rc && ferror(f))
        rc = err_set(e, ERR_IO, "cannot read '%s'", path);
    fclose(f);
    if (rc) {
        sb_release(&sb);
        return rc;
    }
    *len = sb.len;
    sb_addch(&sb, 0); /* an empty file still yields an owned "" */
    *out = sb_take(&sb);
    return 0;
}

/* Find the entry of a named list (clusters, users, contexts) by name. */
static const json_t *named_entry(const json_t *doc, const char *list, const char *name,
                                 size_t *index)
{
    json_t *arr = json_object_get(doc, list);
    size_t i;
    json_t *it;
    json_array_foreach(arr, i, it)
    {
        const char *n = json_string_value(json_object_get(it, "name"));
        if (n && !strcmp(n, name)) {
            *index = i;
            return it;
        }
    }
    return NULL;
}

/* Context of the field-reading helpers below: the entry being read. */
struct fctx {
    const char *file; /* for messages */
    const char *list; /* "clusters" */
    size_t index;
    const char *inner; /* "cluster" */
    const json_t *obj; /* the inner object */
    struct err *e;
};

static int ferr(const struct fctx *f, const char *field, const char *what)
{
    return err_set(f->e, ERR_INVALID, "kubeconfig %s: %s[%zu].%s.%s: %s", f->file, f->list,
                   f->index, f->inner, field, what);
}

/* An optional string field: 0 with *out (owned or NULL), or ERR_INVALID. */
static int fstr(const struct fctx *f, const char *field, char **out)
{
    json_t *v = json_object_get(f->obj, field);
    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return ferr(f, field, "must be a string");
    if (json_string_length(v))
        *out = xstrdup(json_string_value(v));
    return 0;
}

/* An optional base64 field, decoded. */
static int fb64(const struct fctx *f, const char *field, char **out, size_t *len)
{
    char *text;
    int rc = fstr(f, field, &text);
    if (rc || !text)
        return rc;
    rc = kc_base64_decode(text, out, len);
    free(text);
    if (rc)
        return ferr(f, field, "must be base64-encoded");
    return 0;
}

/* An optional path field, made absolute against base_dir. */
static int fpath(const struct fctx *f, const char *field, const char *base_dir, char **out)
{
    int rc = fstr(f, field, out);
    if (rc || !*out || (*out)[0] == '/' || !base_dir || !*base_dir)
        return rc;
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s/%s", base_dir, *out);
    free(*out);
    *out = sb_take(&sb);
    return 0;
}

static int read_cluster(const json_t *doc, const char *name, const char *base_dir, const char *file,
                        struct kc_config *c, struct err *e)
{
    size_t i = 0;
    const json_t *entry = named_entry(doc, "clusters", name, &i);
    if (!entry)
        return err_set(e, ERR_INVALID, "kubeconfig %s: clusters: no cluster named '%s'", file,
                       name);
    struct fctx f = {file, "clusters", i, "cluster", json_object_get(entry, "cluster"), e};
    if (!json_is_object(f.obj))
        return err_set(e, ERR_INVALID, "kubeconfig %s: clusters[%zu].cluster: must be a mapping",
                       file, i);
    int rc = fstr(&f, "server", &c->server);
    if (rc)
        return rc;
    if (!c->server)
        return ferr(&f, "server", "required");
    if (strncmp(c->server, "https://", 8) && strncmp(c->server, "http://", 7))
        return ferr(&f, "server", "must be an http:// or https:// URL");
    size_t n = strlen(c->server);
    while (n > 0 && c->server[n - 1] == '/')
        c->server[--n] = 0;
    rc = fpath(&f, "certificate-authority", base_dir, &c->ca_file);
    if (!rc)
        rc = fb64(&f, "certificate-authority-data", &c->ca_data, &c->ca_data_len);
    if (rc)
        return rc;
    json_t *insecure = json_object_get(f.obj, "insecure-skip-tls-verify");
    if (insecure && !json_is_boolean(insecure))
        return ferr(&f, "insecure-skip-tls-verify", "must be true or false");
    c->insecure = json_is_true(insecure);
    return 0;
}

static int read_user(const json_t *doc, const char *name, const char *base_dir, const char *file,
                     struct kc_config *c, struct err *e)
{
    size_t i = 0;
    const json_t *entry = named_entry(doc, "users", name, &i);
    if (!entry)
        return err_set(e, ERR_INVALID, "kubeconfig %s: users: no user named '%s'", file, name);
    struct fctx f = {file, "users", i, "user", json_object_get(entry, "user"), e};
    if (!f.obj || json_is_null(f.obj))
        return 0; /* a user with no credentials: anonymous */
    if (!json_is_object(f.obj))
        return err_set(e, ERR_INVALID, "kubeconfig %s: users[%zu].user: must be a mapping", file,
                       i);
    int rc = fpath(&f, "client-certificate", base_dir, &c->cert_file);
    if (!rc)
        rc = fb64(&f, "client-certificate-data", &c->cert_data, &c->cert_data_len);
    if (!rc)
        rc = fpath(&f, "client-key", base_dir, &c->key_file);
    if (!rc)
        rc = fb64(&f, "client-key-data", &c->key_data, &c->key_data_len);
    if (!rc)
        rc = fstr(&f, "token", &c->token);
    if (!rc)
        rc = fpath(&f, "tokenFile", base_dir, &c->token_file);
    if (rc)
        return rc;
    bool has_cert = c->cert_file || c->cert_data;
    bool has_key = c->key_file || c->key_data;
    if (has_cert && !has_key)
        return ferr(&f, "client-key", "required with client-certificate");
    if (has_key && !has_cert)
        return ferr(&f, "client-certificate", "required with client-key");
    if (json_object_get(f.obj, "exec") || json_object_get(f.obj, "auth-provider"))
        return ferr(&f, json_object_get(f.obj, "exec") ? "exec" : "auth-provider",
                    "credential plugins are not supported; use a token or a client certificate");
    return 0;
}

int kc_config_from_json(const json_t *doc, const char *context, const char *base_dir,
                        const char *name, struct kc_config *out, struct err *e)
{
    const char *file = name ? name : "-";
    memset(out, 0, sizeof(*out));
    if (!json_is_object(doc))
        return err_set(e, ERR_INVALID, "kubeconfig %s: must be a mapping", file);
    if (!context || !*context) {
        context = json_string_value(json_object_get(doc, "current-context"));
        if (!context || !*context)
            return err_set(e, ERR_INVALID,
                           "kubeconfig %s: current-context: required (or name a context)", file);
    }
    size_t ci = 0;
    const json_t *ctx_entry = named_entry(doc, "contexts", context, &ci);
    if (!ctx_entry)
        return err_set(e, ERR_INVALID, "kubeconfig %s: contexts: no context named '%s'", file,
                       context);
    json_t *ctx = json_object_get(ctx_entry, "context");
    const char *cluster = json_string_value(json_object_get(ctx, "cluster"));
    const char *user = json_string_value(json_object_get(ctx, "user"));
    const char *ns = json_string_value(json_object_get(ctx, "namespace"));
    if (!cluster || !*cluster)
        return err_set(e, ERR_INVALID, "kubeconfig %s: contexts[%zu].context.cluster: required",
                       file, ci);
    int rc = read_cluster(doc, cluster, base_dir, file, out, e);
    if (!rc && user && *user)
        rc = read_user(doc, user, base_dir, file, out, e);
    if (rc) {
        kc_config_release(out);
        return rc;
    }
    out->context = xstrdup(context);
    if (ns && *ns)
        out->namespace = xstrdup(ns);
    return 0;
}

static char *trimmed(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = 0;
    return s;
}

int kc_config_in_cluster(const char *sa_dir, struct kc_config *out, struct err *e)
{
    memset(out, 0, sizeof(*out));
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *port = getenv("KUBERNETES_SERVICE_PORT");
    if (!host || !*host || !port || !*port)
        return err_set(e, ERR_NOT_FOUND,
                       "not running in a cluster: KUBERNETES_SERVICE_HOST and "
                       "KUBERNETES_SERVICE_PORT must be set");
    if (!sa_dir)
        sa_dir = KC_SA_DIR;
    struct sb sb = SB_INIT;
    /* An IPv6 address needs brackets in a URL. */
    if (strchr(host, ':'))
        sb_addf(&sb, "https://[%s]:%s", host, port);
    else
        sb_addf(&sb, "https://%s:%s", host, port);
    out->server = sb_take(&sb);

    sb_addf(&sb, "%s/token", sa_dir);
    out->token_file = sb_take(&sb);
    char *token;
    size_t len;
    int rc = kc_read_file(out->token_file, KC_FILE_MAX, &token, &len, e);
    if (rc)
        goto fail;
    free(token);

    sb_addf(&sb, "%s/ca.crt", sa_dir);
    out->ca_file = sb_take(&sb);
    char *ca;
    rc = kc_read_file(out->ca_file, KC_FILE_MAX, &ca, &len, e);
    if (rc)
        goto fail;
    free(ca);

    sb_addf(&sb, "%s/namespace", sa_dir);
    char *ns_path = sb_take(&sb);
    char *ns;
    struct err ignored;
    err_init(&ignored);
    if (!kc_read_file(ns_path, KC_FILE_MAX, &ns, &len, &ignored)) {
        if (*trimmed(ns))
            out->namespace = ns;
        else
            free(ns);
    }
    free(ns_path);
    return 0;
fail:
    kc_config_release(out);
    return rc;
}
