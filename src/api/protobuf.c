/* protobuf.c -- Kubernetes protobuf bodies into the JSON the JSON path gets.
 *
 * The wire format is protobuf's (varints, length-delimited fields, field
 * number << 3 | wire type), inside Kubernetes' envelope
 * (k8s.io/apimachinery/pkg/runtime/serializer/protobuf): "k8s\0" then a
 * runtime.Unknown {typeMeta {apiVersion, kind}, raw, contentEncoding,
 * contentType}. Each message is decoded against its table
 * (protobuf_int.h): fields are collected by position, then written in the
 * Go struct's order with Go's omitempty rules, so that the object is the
 * one encoding/json would give for the same Go value. Error texts follow
 * the generated Go decoders' ("unexpected EOF", "proto: wrong wireType"). */
#include "api/protobuf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/codec.h"
#include "api/protobuf_int.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* A slice of the body being read. */
struct rd {
    const uint8_t *p;
    size_t n;
};

/* One decoding: the failure (its first words say which object), the
 * fields left out, and the path of the current field. */
struct dec {
    struct err *e;
    json_t *unknown;
    size_t nodes, max_nodes; /* JSON values made, and the bound on them */
    char what[512];          /* `Job in version "v1" cannot be handled as a Job` */
    struct sb path;
};

static int fail(struct dec *d, const char *why)
{
    return err_set(d->e, ERR_PARSE, "%s: %s", d->what, why);
}

static int rd_varint(struct dec *d, struct rd *r, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (!r->n)
            return fail(d, "unexpected EOF");
        uint8_t c = *r->p++;
        r->n--;
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return 0;
    }
    return fail(d, "proto: integer overflow");
}

/* The next field: its number, wire type and, for WT_LEN, its bytes; a
 * varint's value in *v. Fixed-size fields are skipped into *val. */
static int rd_field(struct dec *d, struct rd *r, uint32_t *num, int *wt, struct rd *val,
                    uint64_t *v)
{
    uint64_t key;
    if (rd_varint(d, r, &key))
        return ERR_PARSE;
    *num = (uint32_t)(key >> 3);
    *wt = (int)(key & 7);
    if (key >> 3 == 0 || key >> 3 > 0x1fffffff)
        return fail(d, "proto: illegal tag 0");
    size_t n = 0;
    switch (*wt) {
    case WT_VARINT:
        return rd_varint(d, r, v);
    case WT_I64:
        n = 8;
        break;
    case WT_I32:
        n = 4;
        break;
    case WT_LEN:
        if (rd_varint(d, r, v))
            return ERR_PARSE;
        if (*v > (uint64_t)r->n)
            return fail(d, "unexpected EOF");
        n = (size_t)*v;
        break;
    default:
        return fail(d, "proto: illegal wireType");
    }
    if (n > r->n)
        return fail(d, "unexpected EOF");
    val->p = r->p;
    val->n = n;
    r->p += n;
    r->n -= n;
    return 0;
}

static int wrong_wire(struct dec *d, int wt, const char *field)
{
    char why[160];
    snprintf(why, sizeof(why), "proto: wrong wireType = %d for field %s", wt, field);
    return fail(d, why);
}

/* A string field's bytes as a JSON string (UTF-8 checked: JSON cannot hold
 * anything else). */
static int pb_string(struct dec *d, struct rd v, json_t **out)
{
    *out = json_stringn((const char *)v.p, v.n);
    if (*out)
        return 0;
    char why[600];
    snprintf(why, sizeof(why), "invalid UTF-8 in field \"%s\"", sb_str(&d->path));
    return fail(d, why);
}

/* bytes as Go's encoding/json writes a []byte: standard padded base64. */
static json_t *pb_base64(struct rd v)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = v.n, len = (n + 2) / 3 * 4;
    char *out = xmalloc(len + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned x = (unsigned)v.p[i] << 16;
        if (i + 1 < n)
            x |= (unsigned)v.p[i + 1] << 8;
        if (i + 2 < n)
            x |= v.p[i + 2];
        out[o++] = tab[(x >> 18) & 63];
        out[o++] = tab[(x >> 12) & 63];
        out[o++] = i + 1 < n ? tab[(x >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? tab[x & 63] : '=';
    }
    json_t *j = json_stringn(out, o);
    free(out);
    return j;
}

/* Read the fields of a small fixed message (Time, Quantity, map entries):
 * up to 4 fields by number, each a varint or bytes. */
struct small {
    bool has[5];
    uint64_t v[5];
    struct rd b[5];
};

static int rd_small(struct dec *d, struct rd r, struct small *s)
{
    memset(s, 0, sizeof(*s));
    while (r.n) {
        uint32_t num;
        int wt;
        struct rd val = {0};
        uint64_t v = 0;
        if (rd_field(d, &r, &num, &wt, &val, &v))
            return ERR_PARSE;
        if (num > 4)
            continue;
        s->has[num] = true;
        s->v[num] = v;
        s->b[num] = val;
    }
    return 0;
}

static json_t *time_json(uint64_t secs, uint64_t nanos, bool micro)
{
    time_t t = (time_t)(int64_t)secs;
    struct tm tm;
    char buf[64];
    if (!gmtime_r(&t, &tm))
        return json_null();
    size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
    if (micro)
        snprintf(buf + n, sizeof(buf) - n, ".%06uZ", (unsigned)((uint32_t)nanos / 1000 % 1000000));
    else
        snprintf(buf + n, sizeof(buf) - n, "Z");
    return json_string(buf);
}

static int dec_msg(struct dec *d, const struct pb_msg *m, struct rd r, json_t *obj);

/* Count a JSON value about to be made. A byte of protobuf can stand for
 * several JSON values (an empty message for an object with its defaults),
 * so the values are bounded by the body's size: no more than JSON's own
 * worst case of about one value per two bytes. */
static int spend(struct dec *d)
{
    if (++d->nodes <= d->max_nodes)
        return 0;
    return err_set(d->e, ERR_TOO_LARGE, "%s: the decoded object has more than %zu values", d->what,
                   d->max_nodes);
}

/* A value of a field that is not a plain scalar or message. */
static int dec_special(struct dec *d, unsigned type, struct rd v, json_t **out)
{
    struct small s;
    if (rd_small(d, v, &s))
        return ERR_PARSE;
    switch (type) {
    case PB_TIME:
    case PB_MICROTIME:
        /* Go writes the zero time as an empty message, and reads a
         * Time's seconds only. */
        *out = v.n ? time_json(s.v[1], s.v[2], type == PB_MICROTIME) : json_null();
        return 0;
    case PB_QUANTITY:
        return pb_string(d, s.b[1], out);
    case PB_INTORSTR:
        if (s.v[1] == 1)
            return pb_string(d, s.b[3], out);
        *out = json_integer((int32_t)(uint32_t)s.v[2]);
        return 0;
    case PB_RAWJSON: {
        struct err pe;
        err_init(&pe);
        if (!s.b[1].n) {
            *out = json_object();
            return 0;
        }
        if (codec_parse_json((const char *)s.b[1].p, s.b[1].n, out, &pe))
            return fail(d, pe.message);
        return 0;
    }
    default:
        return fail(d, "proto: unsupported field type");
    }
}

/* One map entry {key = 1, value = 2} into obj. */
static int dec_map_entry(struct dec *d, unsigned type, struct rd v, json_t *obj)
{
    struct small s;
    if (rd_small(d, v, &s))
        return ERR_PARSE;
    json_t *key = NULL, *val = NULL;
    if (pb_string(d, s.b[1], &key))
        return ERR_PARSE;
    int rc = 0;
    if (type == PB_MAP_STRING) {
        rc = pb_string(d, s.b[2], &val);
    } else if (type == PB_MAP_BYTES) {
        val = pb_base64(s.b[2]);
    } else if (type == PB_MAP_QUANTITY) {
        rc = dec_special(d, PB_QUANTITY, s.b[2], &val);
    } else {
        /* ExtraValue: a message whose only field is the list. */
        val = json_array();
        struct rd r = s.b[2];
        while (!rc && r.n) {
            uint32_t num;
            int wt;
            struct rd item = {0};
            uint64_t x;
            json_t *str = NULL;
            rc = rd_field(d, &r, &num, &wt, &item, &x);
            if (!rc && num == 1 && wt == WT_LEN && !(rc = pb_string(d, item, &str)))
                json_array_append_new(val, str);
        }
    }
    if (!rc) {
        if (strlen(json_string_value(key)) != json_string_length(key))
            rc = fail(d, "a map key contains a NUL character");
        else
            json_object_set(obj, json_string_value(key), val);
    }
    json_decref(key);
    json_decref(val);
    return rc;
}

static bool is_zero(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING:
        return json_string_length(v) == 0;
    case JSON_INTEGER:
        return json_integer_value(v) == 0;
    case JSON_FALSE:
    case JSON_NULL:
        return true;
    case JSON_ARRAY:
        return json_array_size(v) == 0;
    case JSON_OBJECT:
        return json_object_size(v) == 0;
    default:
        return false;
    }
}

/* The JSON of an absent field, as Go writes its zero value; NULL when Go
 * leaves it out. */
static json_t *zero_value(struct dec *d, const struct pb_field *f)
{
    unsigned type = f->type & PB_TYPE_MASK;
    if (f->type & (PB_PTR | PB_REPEATED))
        return NULL;
    switch (type) {
    case PB_STRING:
        return f->type & PB_KEEP ? json_string("") : NULL;
    case PB_INT32:
    case PB_INT64:
        return f->type & PB_KEEP ? json_integer(0) : NULL;
    case PB_BOOL:
        return f->type & PB_KEEP ? json_false() : NULL;
    case PB_TIME:
    case PB_MICROTIME:
        return json_null();
    case PB_MSG:
    case PB_INLINE: {
        if (spend(d))
            return NULL;
        json_t *o = json_object();
        struct rd none = {NULL, 0};
        if (dec_msg(d, f->msg, none, o)) {
            json_decref(o);
            return NULL;
        }
        return o;
    }
    default:
        return NULL;
    }
}

/* The value of one field occurrence, added to *slot (a list for repeated
 * fields, merged for a message sent twice, replaced otherwise). */
static int dec_value(struct dec *d, const struct pb_field *f, int wt, struct rd v, uint64_t x,
                     json_t **slot)
{
    unsigned type = f->type & PB_TYPE_MASK;
    bool rep = f->type & PB_REPEATED;
    json_t *val = NULL;
    int rc = spend(d);
    if (rc)
        return rc;
    if (type == PB_INT32 || type == PB_INT64 || type == PB_BOOL) {
        if (wt == WT_LEN && rep) {
            /* A packed list of varints. */
            if (!*slot)
                *slot = json_array();
            while (v.n && !rc && !(rc = spend(d)) && !(rc = rd_varint(d, &v, &x)))
                json_array_append_new(*slot, type == PB_BOOL    ? json_boolean(x)
                                             : type == PB_INT32 ? json_integer((int32_t)x)
                                                                : json_integer((json_int_t)x));
            return rc;
        }
        if (wt != WT_VARINT)
            return wrong_wire(d, wt, f->json);
        val = type == PB_BOOL    ? json_boolean(x)
              : type == PB_INT32 ? json_integer((int32_t)(uint32_t)x)
                                 : json_integer((json_int_t)x);
    } else if (wt != WT_LEN) {
        return wrong_wire(d, wt, f->json);
    } else if (type == PB_STRING) {
        rc = pb_string(d, v, &val);
    } else if (type == PB_BYTES) {
        val = pb_base64(v);
    } else if (type >= PB_MAP_STRING) {
        if (!*slot)
            *slot = json_object();
        return dec_map_entry(d, type, v, *slot);
    } else if (type == PB_MSG || type == PB_INLINE) {
        if (!rep && *slot)
            return dec_msg(d, f->msg, v, *slot);
        val = json_object();
        rc = dec_msg(d, f->msg, v, val);
    } else {
        rc = dec_special(d, type, v, &val);
    }
    if (rc) {
        json_decref(val);
        return rc;
    }
    if (rep) {
        if (!*slot)
            *slot = json_array();
        json_array_append_new(*slot, val);
    } else {
        json_decref(*slot);
        *slot = val;
    }
    return 0;
}

/* Push ".name" (or "name" at the top) onto the path; returns the mark. */
static size_t path_push(struct dec *d, const char *name)
{
    size_t mark = d->path.len;
    if (*name) {
        if (mark)
            sb_addch(&d->path, '.');
        sb_adds(&d->path, name);
    }
    return mark;
}

static void note_unknown(struct dec *d, uint32_t num)
{
    char msg[600];
    snprintf(msg, sizeof(msg), "unknown field number %u in \"%s\"", num,
             d->path.len ? sb_str(&d->path) : "(the object)");
    if (!d->unknown)
        d->unknown = json_array();
    if (json_array_size(d->unknown) < 64)
        json_array_append_new(d->unknown, json_string(msg));
}

/* Decode message m from r into obj (its members added in table order). */
static int dec_msg(struct dec *d, const struct pb_msg *m, struct rd r, json_t *obj)
{
    json_t **vals = xcalloc(m->n ? m->n : 1, sizeof(*vals));
    int rc = 0;
    while (!rc && r.n) {
        uint32_t num;
        int wt;
        struct rd v = {0};
        uint64_t x = 0;
        if ((rc = rd_field(d, &r, &num, &wt, &v, &x)))
            break;
        size_t i = 0;
        while (i < m->n && m->fields[i].num != num)
            i++;
        if (i == m->n) {
            note_unknown(d, num);
            continue;
        }
        size_t mark = path_push(d, m->fields[i].json);
        rc = dec_value(d, &m->fields[i], wt, v, x, &vals[i]);
        sb_truncate(&d->path, mark);
    }
    for (size_t i = 0; i < m->n; i++) {
        const struct pb_field *f = &m->fields[i];
        json_t *v = vals[i];
        if (rc) {
            json_decref(v);
            continue;
        }
        if (!v) {
            v = zero_value(d, f);
            if (d->e->code) {
                rc = d->e->code;
                continue;
            }
        } else if (!(f->type & (PB_PTR | PB_KEEP)) && is_zero(v) &&
                   ((f->type & PB_REPEATED) || (f->type & PB_TYPE_MASK) <= PB_BOOL ||
                    (f->type & PB_TYPE_MASK) >= PB_MAP_STRING)) {
            /* omitempty: zero scalars, empty lists and maps are left out. */
            json_decref(v);
            v = NULL;
        }
        if (!v)
            continue;
        if ((f->type & PB_TYPE_MASK) == PB_INLINE && !(f->type & PB_REPEATED))
            json_object_update(obj, v);
        else
            json_object_set(obj, f->json, v);
        json_decref(v);
    }
    free(vals);
    return rc;
}

static const struct pb_top *find_kind(const char *group, const char *kind)
{
    for (const struct pb_top *t = pb__kinds; t->kind; t++)
        if (!strcmp(t->kind, kind) && (!t->group || !strcmp(t->group, group)))
            return t;
    return NULL;
}

int pb_decode(const void *data, size_t len, json_t **out, json_t **unknown, struct err *e)
{
    static const uint8_t magic[4] = {'k', '8', 's', 0};
    struct dec d = {.e = e, .unknown = NULL, .max_nodes = len / 2 + 4096, .path = SB_INIT};
    snprintf(d.what, sizeof(d.what), "the object provided is unrecognized");
    if (len < 4 || memcmp(data, magic, 4))
        return fail(&d, "provided data does not appear to be a protobuf message, expected "
                        "prefix [107 56 115 0]");
    if (len == 4)
        return fail(&d, "empty body");
    struct rd r = {(const uint8_t *)data + 4, len - 4};
    struct small env;
    if (rd_small(&d, r, &env))
        return ERR_PARSE;
    struct small tm;
    if (rd_small(&d, env.b[1], &tm))
        return ERR_PARSE;
    char av[128], kind[128];
    snprintf(av, sizeof(av), "%.*s", (int)tm.b[1].n, (const char *)tm.b[1].p);
    snprintf(kind, sizeof(kind), "%.*s", (int)tm.b[2].n, (const char *)tm.b[2].p);
    const char *slash = strchr(av, '/');
    char group[128];
    snprintf(group, sizeof(group), "%.*s", slash ? (int)(slash - av) : 0, av);
    const char *version = slash ? slash + 1 : av;
    snprintf(d.what, sizeof(d.what), "%s in version \"%s\" cannot be handled as a %s", kind,
             version, kind);
    if (env.b[3].n)
        return fail(&d, "content encodings are not supported");
    if (env.b[4].n &&
        (env.b[4].n != strlen(PB_MEDIA_TYPE) || memcmp(env.b[4].p, PB_MEDIA_TYPE, env.b[4].n)))
        return fail(&d, "the embedded object is not protobuf");
    const struct pb_top *top = find_kind(group, kind);
    if (!top || strcmp(version, "v1"))
        return err_set(e, ERR_UNSUPPORTED, "protobuf is not supported for %s, Kind=%s", av, kind);

    json_t *obj = json_object();
    json_object_set_new(obj, "apiVersion", json_string(av));
    json_object_set_new(obj, "kind", json_string(kind));
    int rc = dec_msg(&d, top->msg, env.b[2], obj);
    sb_release(&d.path);
    if (rc) {
        json_decref(obj);
        json_decref(d.unknown);
        return rc;
    }
    *out = obj;
    *unknown = d.unknown;
    return 0;
}
