/* status.c -- Kubernetes Status replies onto err codes, and the
 * newline-delimited JSON of watch streams. See client.h. */
#include <stdio.h>
#include <string.h>

#include "api/codec.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "kube/client.h"

static int code_for(long http_code, const char *reason)
{
    switch (http_code) {
    case 400:
        return ERR_PARSE;
    case 401:
        return ERR_UNAUTHORIZED;
    case 403:
        return ERR_FORBIDDEN;
    case 404:
        return ERR_NOT_FOUND;
    case 405:
    case 415:
        return ERR_UNSUPPORTED;
    case 409:
        return reason && !strcmp(reason, "AlreadyExists") ? ERR_EXISTS : ERR_CONFLICT;
    case 410:
        return ERR_GONE;
    case 413:
        return ERR_TOO_LARGE;
    case 422:
        return ERR_INVALID;
    default:
        return ERR_IO;
    }
}

int kc_status_json_to_err(long http_code, const json_t *status, struct err *e)
{
    json_t *c = json_object_get(status, "code");
    if (json_is_integer(c) && json_integer_value(c) >= 100)
        http_code = (long)json_integer_value(c);
    const char *reason = json_string_value(json_object_get(status, "reason"));
    const char *msg = json_string_value(json_object_get(status, "message"));
    int code = code_for(http_code, reason);
    json_t *details = json_object_get(status, "details");
    json_t *causes = json_object_get(details, "causes");
    if (code == ERR_INVALID && json_array_size(causes)) {
        size_t i;
        json_t *cause;
        json_array_foreach(causes, i, cause)
        {
            const char *field = json_string_value(json_object_get(cause, "field"));
            const char *cmsg = json_string_value(json_object_get(cause, "message"));
            size_t mark = err_push_field(e, field ? field : "");
            err_field(e, ERR_INVALID, "%s", cmsg ? cmsg : "invalid");
            err_restore(e, mark);
        }
    }
    /* The Status message is the one a person reads; it names the object. */
    if (msg && *msg)
        err_set(e, code, "%s", msg);
    else if (reason && *reason)
        err_set(e, code, "HTTP %ld %s", http_code, reason);
    else
        err_set(e, code, "HTTP %ld", http_code);
    return code;
}

int kc_status_to_err(long http_code, const char *body, size_t len, struct err *e)
{
    json_t *status = body && len ? json_loadb(body, len, 0, NULL) : NULL;
    const char *kind = json_string_value(json_object_get(status, "kind"));
    if (kind && !strcmp(kind, "Status")) {
        int rc = kc_status_json_to_err(http_code, status, e);
        json_decref(status);
        return rc;
    }
    json_decref(status);
    int code = code_for(http_code, NULL);
    /* Not a Status (a proxy's page, plain text): show its start. */
    int shown = 0;
    while ((size_t)shown < len && shown < 200 && body[shown] != '\n')
        shown++;
    if (shown)
        return err_set(e, code, "HTTP %ld: %.*s", http_code, shown, body);
    return err_set(e, code, "HTTP %ld", http_code);
}

/* ---- lines ---------------------------------------------------------------- */

void kc_lines_init(struct kc_lines *l, size_t max)
{
    sb_init(&l->buf);
    l->max = max;
}

void kc_lines_release(struct kc_lines *l)
{
    sb_release(&l->buf);
}

static int deliver(const char *line, size_t len, kc_line_fn fn, void *arg)
{
    if (len && line[len - 1] == '\r')
        len--;
    if (!len)
        return 0;
    return fn(line, len, arg);
}

int kc_lines_feed(struct kc_lines *l, const char *data, size_t n, kc_line_fn fn, void *arg)
{
    while (n) {
        const char *nl = memchr(data, '\n', n);
        size_t take = nl ? (size_t)(nl - data) : n;
        if (l->buf.len + take > l->max) {
            sb_reset(&l->buf);
            return ERR_TOO_LARGE;
        }
        if (!nl) {
            sb_add(&l->buf, data, take);
            return 0;
        }
        int rc;
        if (l->buf.len) {
            /* The line began in an earlier chunk. */
            sb_add(&l->buf, data, take);
            rc = deliver(l->buf.buf, l->buf.len, fn, arg);
            sb_reset(&l->buf);
        } else {
            rc = deliver(data, take, fn, arg);
        }
        if (rc)
            return rc;
        data += take + 1;
        n -= take + 1;
    }
    return 0;
}

int kc_lines_finish(struct kc_lines *l, kc_line_fn fn, void *arg)
{
    int rc = 0;
    if (l->buf.len)
        rc = deliver(l->buf.buf, l->buf.len, fn, arg);
    sb_reset(&l->buf);
    return rc;
}

int kc_watch_event_decode(const char *line, size_t len, struct ac_event *ev, struct err *e)
{
    json_error_t jerr;
    json_t *doc = codec_load_json(line, len, JSON_ALLOW_NUL, &jerr);
    if (!doc)
        return err_set(e, ERR_PARSE, "watch event is not JSON: %s", jerr.text);
    const char *type = json_string_value(json_object_get(doc, "type"));
    json_t *obj = json_object_get(doc, "object");
    int rc = 0;
    if (!type || !json_is_object(obj)) {
        rc = err_set(e, ERR_PARSE, "watch event needs 'type' and 'object'");
    } else if (!strcmp(type, "ADDED")) {
        ev->type = AC_ADDED;
    } else if (!strcmp(type, "MODIFIED")) {
        ev->type = AC_MODIFIED;
    } else if (!strcmp(type, "DELETED")) {
        ev->type = AC_DELETED;
    } else if (!strcmp(type, "BOOKMARK")) {
        ev->type = AC_BOOKMARK;
    } else if (!strcmp(type, "ERROR")) {
        rc = kc_status_json_to_err(500, obj, e);
    } else {
        rc = err_set(e, ERR_PARSE, "unknown watch event type '%s'", type);
    }
    if (!rc) {
        ev->object = json_incref(obj);
        ev->text = NULL;
        ev->text_len = 0;
    }
    json_decref(doc);
    return rc;
}
