/* codec_yaml.c -- YAML text to JSON trees, as Kubernetes reads it.
 *
 * libyaml's event parser drives a stack of open containers; each finished
 * node is attached to its parent at once, so there is no intermediate node
 * tree. What go-yaml v2 and sigs.k8s.io/yaml do on the way to JSON is done
 * here: scalars are resolved (codec_resolve.c), explicit tags honoured,
 * non-string keys turned into strings, `<<` merge keys applied, aliases
 * expanded into copies.
 *
 * Hostile input is bounded: nesting by CODEC_MAX_DEPTH, keys by
 * CODEC__MAX_KEY_BYTES, and alias expansion by go-yaml's rule (the share of
 * nodes that come from aliases may not exceed a ratio that falls from 99% to
 * 10% as the document grows), so a "billion laughs" document fails after a
 * few hundred thousand copied nodes instead of exhausting memory. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "api/codec.h"
#include "api/codec_int.h"
#include "base/err.h"
#include "base/map.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#define TAG_PREFIX "tag:yaml.org,2002:"

/* An anchored node. Replaced anchors stay allocated until the document
 * ends, because an open container may still point at its own. */
struct yanchor {
    json_t *v;   /* owned container; NULL for a scalar or while being built */
    bool done;   /* the node is complete (an alias to it may be expanded) */
    bool scalar; /* a scalar: sc and text say what it was */
    struct codec__scalar sc;
    char *text; /* owned */
    size_t textlen;
    size_t nodes; /* nodes in the subtree, for alias accounting */
    size_t bytes; /* text in the subtree (strings, keys), likewise */
    int height;   /* containers on the longest path down */
};

/* A `<<` entry: its keys go where it stood, after explicit keys win. */
struct ymerge {
    size_t pos;  /* number of explicit keys before it */
    json_t *src; /* owned: an object or an array of objects */
};

/* An open mapping or sequence. */
struct yframe {
    json_t *v; /* owned; a mapping holds only its explicit keys */
    bool is_map;
    bool items;    /* the root's "items" sequence: element positions are kept */
    bool have_key; /* a mapping waiting for the value of key */
    bool key_merge;
    char *key; /* owned, NUL-terminated, no NUL inside */
    size_t keylen;
    int *klines; /* line of each explicit key, in insertion order */
    size_t nklines, capklines;
    struct ymerge *merges;
    size_t nmerges, capmerges;
    struct yanchor *anchor; /* borrowed from the reader, or NULL */
    size_t nodes;
    size_t bytes;
    int height;            /* of the tallest child so far */
    struct codec__pos pos; /* where the node starts */
};

struct yreader {
    const char *name;
    const char *data;
    size_t len;
    int first_line;
    struct err *e;
    codec__emit_fn emit;
    void *ctx;
    yaml_parser_t parser;
    struct yframe *stack;
    size_t depth, capstack;
    struct map anchors;     /* name -> struct yanchor *, the current definition */
    struct yanchor **owned; /* every anchor of the document */
    size_t nowned, capowned;
    size_t decode_count, alias_count, alias_bytes;
    json_t *root;
    struct codec__pos root_pos;
    struct codec__pos *items;
    size_t nitems, capitems;
};

static struct codec__pos pos_of(const struct yreader *r, yaml_mark_t m)
{
    struct codec__pos p = {r->first_line + (int)m.line, (int)m.column + 1};
    return p;
}

static int fail(struct yreader *r, int code, struct codec__pos p, const char *fmt, ...)
    CU_PRINTF(4, 5);

static int fail(struct yreader *r, int code, struct codec__pos p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return err_set(r->e, code, "%s:%d:%d: %s", r->name, p.line, p.col, msg);
}

static int parser_fail(struct yreader *r)
{
    yaml_parser_t *p = &r->parser;
    struct codec__pos pos;
    const char *problem = p->problem ? p->problem : "cannot parse YAML";
    if (p->error == YAML_MEMORY_ERROR) {
        fprintf(stderr, "fatal: out of memory in the YAML parser\n");
        abort();
    }
    if (p->error == YAML_READER_ERROR) {
        codec__position(r->data, r->len, p->problem_offset, r->first_line, &pos.line, &pos.col);
        if (p->problem_value != -1)
            return fail(r, ERR_PARSE, pos, "invalid input: %s (0x%x)", problem,
                        (unsigned)p->problem_value);
        return fail(r, ERR_PARSE, pos, "invalid input: %s", problem);
    }
    pos = pos_of(r, p->problem_mark);
    return fail(r, ERR_PARSE, pos, "%s", problem);
}

/* go-yaml's allowedAliasRatio: how much of a document may come from aliases. */
static double allowed_alias_ratio(size_t decode_count)
{
    const double low = 400000, high = 4000000;
    if (decode_count <= low)
        return 0.99;
    if (decode_count >= high)
        return 0.10;
    return 0.99 - 0.89 * (((double)decode_count - low) / (high - low));
}

static void drop_anchors(struct yreader *r)
{
    for (size_t i = 0; i < r->nowned; i++) {
        json_decref(r->owned[i]->v);
        free(r->owned[i]->text);
        free(r->owned[i]);
    }
    r->nowned = 0;
    map_release(&r->anchors);
    map_init(&r->anchors);
}

static struct yanchor *new_anchor(struct yreader *r, const char *name)
{
    struct yanchor *a = xcalloc(1, sizeof(*a));
    XGROW(r->owned, r->capowned, r->nowned + 1);
    r->owned[r->nowned++] = a;
    map_put(&r->anchors, name, a);
    return a;
}

static void frame_release(struct yframe *f)
{
    json_decref(f->v);
    free(f->key);
    free(f->klines);
    for (size_t i = 0; i < f->nmerges; i++)
        json_decref(f->merges[i].src);
    free(f->merges);
    memset(f, 0, sizeof(*f));
}

static bool expects_key(const struct yreader *r)
{
    return r->depth > 0 && r->stack[r->depth - 1].is_map && !r->stack[r->depth - 1].have_key;
}

static const char *kind_name(enum codec__kind k)
{
    switch (k) {
    case CODEC__NULL:
        return "null";
    case CODEC__BOOL:
        return "bool";
    case CODEC__INT:
    case CODEC__UINT:
        return "int";
    case CODEC__FLOAT:
        return "float";
    case CODEC__STR:
        break;
    }
    return "str";
}

/* Resolve a scalar event as go-yaml v2 does: untagged plain scalars by
 * their text, quoted and block scalars as strings, !!bool/!!int/!!float
 * checked against the text (an integer may be a !!float), every other tag
 * (!!str, !!null, !!timestamp, !!binary, local tags) as a string. */
static int resolve_event(struct yreader *r, const yaml_event_t *ev, struct codec__scalar *sc)
{
    const char *text = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    memset(sc, 0, sizeof(*sc));
    sc->kind = CODEC__STR;
    if (!tag) {
        if (ev->data.scalar.plain_implicit)
            codec__resolve(text, n, sc);
        return 0;
    }
    if (strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)) != 0)
        return 0;
    const char *want = tag + strlen(TAG_PREFIX);
    enum codec__kind k;
    if (strcmp(want, "bool") == 0)
        k = CODEC__BOOL;
    else if (strcmp(want, "int") == 0)
        k = CODEC__INT;
    else if (strcmp(want, "float") == 0)
        k = CODEC__FLOAT;
    else
        return 0;
    codec__resolve(text, n, sc);
    if (sc->kind == k || (k == CODEC__INT && sc->kind == CODEC__UINT))
        return 0;
    if (k == CODEC__FLOAT && sc->kind == CODEC__INT) {
        sc->d = (double)sc->i;
        sc->kind = CODEC__FLOAT;
        return 0;
    }
    if (k == CODEC__FLOAT && sc->kind == CODEC__UINT) {
        sc->d = (double)sc->u;
        sc->kind = CODEC__FLOAT;
        return 0;
    }
    return fail(r, ERR_PARSE, pos_of(r, ev->start_mark), "cannot decode !!%s `%.*s` as a !!%s",
                kind_name(sc->kind), (int)(n > 64 ? 64 : n), text, want);
}

/* The string a non-string key becomes (sigs.k8s.io/yaml): integers in
 * decimal, floats as Go prints a float32, booleans as true/false. Null and
 * integers beyond int64 have no JSON spelling there and are refused. */
static int key_text(struct yreader *r, const struct codec__scalar *sc, const char *text, size_t n,
                    struct codec__pos pos, char **out, size_t *outlen)
{
    char buf[64];
    switch (sc->kind) {
    case CODEC__STR:
        if (n > CODEC__MAX_KEY_BYTES)
            return fail(r, ERR_TOO_LARGE, pos, "mapping key longer than %u bytes",
                        CODEC__MAX_KEY_BYTES);
        if (memchr(text, '\0', n))
            return fail(r, ERR_PARSE, pos, "mapping key contains a NUL character");
        *out = xstrndup(text, n);
        *outlen = n;
        return 0;
    case CODEC__INT:
        snprintf(buf, sizeof(buf), "%lld", (long long)sc->i);
        break;
    case CODEC__BOOL:
        snprintf(buf, sizeof(buf), "%s", sc->b ? "true" : "false");
        break;
    case CODEC__FLOAT:
        codec__format_float(sc->d, 32, buf, sizeof(buf));
        break;
    case CODEC__NULL:
        return fail(r, ERR_PARSE, pos, "unsupported mapping key null");
    case CODEC__UINT:
        return fail(r, ERR_PARSE, pos, "unsupported mapping key %llu", (unsigned long long)sc->u);
    }
    *out = xstrdup(buf);
    *outlen = strlen(buf);
    return 0;
}

/* Line of the explicit key k of f, for the duplicate-key message. */
static int key_line(const struct yframe *f, const char *k)
{
    size_t i = 0;
    const char *name;
    json_t *v;
    json_object_foreach(f->v, name, v)
    {
        if (strcmp(name, k) == 0)
            return i < f->nklines ? f->klines[i] : 0;
        i++;
    }
    return 0;
}

/* Install key as the pending key of the mapping on top (takes ownership). */
static int set_key(struct yreader *r, char *key, size_t keylen, bool merge, struct codec__pos pos)
{
    struct yframe *f = &r->stack[r->depth - 1];
    if (!merge && json_object_getn(f->v, key, keylen)) {
        int first = key_line(f, key);
        int rc = fail(r, ERR_PARSE, pos, "mapping key \"%.*s\" already defined at line %d",
                      (int)(keylen > 128 ? 128 : keylen), key, first);
        free(key);
        return rc;
    }
    f->nodes++; /* go-yaml counts keys as decoded nodes too */
    f->bytes += keylen;
    f->key = key;
    f->keylen = keylen;
    f->key_merge = merge;
    f->have_key = true;
    if (!merge) {
        XGROW(f->klines, f->capklines, f->nklines + 1);
        f->klines[f->nklines++] = pos.line;
    }
    return 0;
}

static bool merge_source_ok(const json_t *v)
{
    if (json_is_object(v))
        return true;
    if (!json_is_array(v))
        return false;
    for (size_t i = 0; i < json_array_size(v); i++)
        if (!json_is_object(json_array_get(v, i)))
            return false;
    return true;
}

/* Attach a finished node to its parent, or make it the root. Takes
 * ownership of v. */
static int attach(struct yreader *r, json_t *v, size_t nodes, size_t bytes, int height,
                  struct codec__pos pos)
{
    if (r->depth == 0) {
        json_decref(r->root);
        r->root = v;
        r->root_pos = pos;
        return 0;
    }
    struct yframe *f = &r->stack[r->depth - 1];
    f->nodes += nodes;
    f->bytes += bytes;
    if (height > f->height)
        f->height = height;
    if (!f->is_map) {
        json_array_append_new(f->v, v);
        if (f->items) {
            XGROW(r->items, r->capitems, r->nitems + 1);
            r->items[r->nitems++] = pos;
        }
        return 0;
    }
    if (f->key_merge) {
        if (!merge_source_ok(v)) {
            json_decref(v);
            return fail(r, ERR_PARSE, pos,
                        "map merge requires map or sequence of maps as the value");
        }
        XGROW(f->merges, f->capmerges, f->nmerges + 1);
        f->merges[f->nmerges].pos = json_object_size(f->v);
        f->merges[f->nmerges++].src = v;
    } else {
        json_object_setn_new_nocheck(f->v, f->key, f->keylen, v);
    }
    free(f->key);
    f->key = NULL;
    f->have_key = false;
    return 0;
}

static void merge_one(json_t *out, const json_t *explicit_keys, json_t *src)
{
    const char *k;
    json_t *v;
    json_object_foreach(src, k, v)
    {
        if (json_object_get(explicit_keys, k) || json_object_get(out, k))
            continue;
        json_object_set_nocheck(out, k, v);
    }
}

static void merge_source(json_t *out, const json_t *explicit_keys, json_t *src)
{
    if (json_is_object(src)) {
        merge_one(out, explicit_keys, src);
        return;
    }
    for (size_t i = 0; i < json_array_size(src); i++)
        merge_one(out, explicit_keys, json_array_get(src, i));
}

/* The mapping with its merges applied: explicit keys win over merged ones,
 * an earlier merge source over a later one, and merged keys take the place
 * of their `<<`. Returns an owned reference. */
static json_t *apply_merges(struct yframe *f)
{
    json_t *out = json_object();
    size_t idx = 0, m = 0;
    const char *k;
    json_t *v;
    json_object_foreach(f->v, k, v)
    {
        for (; m < f->nmerges && f->merges[m].pos <= idx; m++)
            merge_source(out, f->v, f->merges[m].src);
        json_object_set_nocheck(out, k, v);
        idx++;
    }
    for (; m < f->nmerges; m++)
        merge_source(out, f->v, f->merges[m].src);
    return out;
}

static void anchor_scalar(struct yreader *r, const yaml_event_t *ev, const struct codec__scalar *sc,
                          const char *text, size_t n)
{
    if (!ev->data.scalar.anchor)
        return;
    struct yanchor *a = new_anchor(r, (const char *)ev->data.scalar.anchor);
    a->done = true;
    a->scalar = true;
    a->sc = *sc;
    a->text = xmalloc(n + 1);
    memcpy(a->text, text, n);
    a->text[n] = '\0';
    a->textlen = n;
    a->nodes = 1;
    a->bytes = n + 1;
}

/* Go's base64.StdEncoding.DecodeString: padded standard alphabet, line
 * breaks ignored. */
static bool base64_decode(const char *s, size_t n, struct sb *out)
{
    unsigned acc = 0;
    int bits = 0, quad = 0, pad = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int v;
        if (c == '\r' || c == '\n')
            continue;
        if (c == '=') {
            if (quad < 2)
                return false;
            pad++;
            quad = (quad + 1) % 4;
            continue;
        }
        if (pad)
            return false;
        if (c >= 'A' && c <= 'Z')
            v = c - 'A';
        else if (c >= 'a' && c <= 'z')
            v = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            v = c - '0' + 52;
        else if (c == '+')
            v = 62;
        else if (c == '/')
            v = 63;
        else
            return false;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            sb_addch(out, (char)((acc >> bits) & 0xFF));
        }
        quad = (quad + 1) % 4;
    }
    return quad == 0;
}

/* Length of the valid UTF-8 sequence at s[0..n), 0 if none starts there. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4;
    else
        return 0;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}

/* A !!binary scalar's bytes as the string Go's JSON encoder makes of them:
 * each byte that is not part of valid UTF-8 becomes U+FFFD. */
static int decode_binary(struct yreader *r, const char *text, size_t n, struct codec__pos pos,
                         struct sb *out)
{
    struct sb raw = SB_INIT;
    if (!base64_decode(text, n, &raw)) {
        sb_release(&raw);
        return fail(r, ERR_PARSE, pos, "!!binary value contains invalid base64 data");
    }
    const unsigned char *b = (const unsigned char *)sb_str(&raw);
    for (size_t i = 0; i < raw.len;) {
        size_t k = utf8_seq(b + i, raw.len - i);
        if (k == 0) {
            sb_adds(out, "\xEF\xBF\xBD");
            i++;
        } else {
            sb_add(out, b + i, k);
            i += k;
        }
    }
    sb_release(&raw);
    return 0;
}

/* The JSON value of a scalar, or an error for what JSON cannot hold. */
static int scalar_value(struct yreader *r, const struct codec__scalar *sc, const char *text,
                        size_t n, struct codec__pos pos, json_t **out)
{
    *out = codec__scalar_json(sc, text, n);
    if (*out)
        return 0;
    if (sc->kind == CODEC__FLOAT)
        return fail(r, ERR_PARSE, pos, "cannot represent %.*s in JSON", (int)(n > 64 ? 64 : n),
                    text);
    return fail(r, ERR_PARSE, pos, "invalid UTF-8 in a string");
}

static int on_scalar(struct yreader *r, const yaml_event_t *ev)
{
    struct codec__scalar sc;
    const char *text = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    struct codec__pos pos = pos_of(r, ev->start_mark);
    struct sb binary = SB_INIT;
    int rc = resolve_event(r, ev, &sc);
    if (rc)
        return rc;
    if (tag && strcmp(tag, TAG_PREFIX "binary") == 0) {
        rc = decode_binary(r, text, n, pos, &binary);
        if (rc)
            goto out_release;
        text = sb_str(&binary);
        n = binary.len;
    }
    r->decode_count++;
    if (expects_key(r)) {
        bool merge = n == 2 && memcmp(text, "<<", 2) == 0 && !tag && ev->data.scalar.plain_implicit;
        char *key;
        size_t keylen;
        rc = key_text(r, &sc, text, n, pos, &key, &keylen);
        if (rc)
            goto out_release;
        anchor_scalar(r, ev, &sc, text, n);
        rc = set_key(r, key, keylen, merge, pos);
        goto out_release;
    }
    json_t *v;
    rc = scalar_value(r, &sc, text, n, pos, &v);
    if (rc)
        goto out_release;
    anchor_scalar(r, ev, &sc, text, n);
    rc = attach(r, v, 1, n + 1, 0, pos);
out_release:
    sb_release(&binary);
    return rc;
}

static int on_start(struct yreader *r, const yaml_event_t *ev, bool is_map)
{
    struct codec__pos pos = pos_of(r, ev->start_mark);
    if (expects_key(r))
        return fail(r, ERR_PARSE, pos, "unsupported mapping key: a %s",
                    is_map ? "mapping" : "sequence");
    if (r->depth >= CODEC_MAX_DEPTH)
        return fail(r, ERR_TOO_LARGE, pos, "nesting deeper than %d levels", CODEC_MAX_DEPTH);
    const yaml_char_t *anchor =
        is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
    bool items = false;
    if (!is_map && r->depth == 1) {
        const struct yframe *p = &r->stack[0];
        items = p->is_map && p->have_key && !p->key_merge && strcmp(p->key, "items") == 0;
    }
    XGROW(r->stack, r->capstack, r->depth + 1);
    struct yframe *f = &r->stack[r->depth++];
    memset(f, 0, sizeof(*f));
    f->v = is_map ? json_object() : json_array();
    f->is_map = is_map;
    f->items = items;
    f->pos = pos;
    if (items)
        r->nitems = 0;
    if (anchor)
        f->anchor = new_anchor(r, (const char *)anchor);
    r->decode_count++;
    return 0;
}

static int on_end(struct yreader *r)
{
    struct yframe *f = &r->stack[r->depth - 1];
    struct codec__pos pos = f->pos;
    json_t *v = f->nmerges ? apply_merges(f) : json_incref(f->v);
    size_t nodes = f->nodes + 1;
    size_t bytes = f->bytes + 2;
    int height = f->height + 1;
    struct yanchor *a = f->anchor;
    frame_release(f);
    r->depth--;
    if (a) {
        a->v = json_incref(v);
        a->done = true;
        a->nodes = nodes;
        a->bytes = bytes;
        a->height = height;
    }
    return attach(r, v, nodes, bytes, height, pos);
}

/* Account for what an alias copies; fails once aliases make up too much of
 * the document (go-yaml's node ratio), or copy more text than a whole
 * document may hold (go-yaml shares strings, copies here do not). */
static int count_alias(struct yreader *r, const struct yanchor *a, struct codec__pos pos)
{
    r->decode_count += a->nodes;
    r->alias_count += a->nodes;
    r->alias_bytes += a->bytes;
    if ((r->alias_count > 100 && r->decode_count > 1000 &&
         (double)r->alias_count / (double)r->decode_count > allowed_alias_ratio(r->decode_count)) ||
        r->alias_bytes > CODEC_MAX_DOC_BYTES)
        return fail(r, ERR_TOO_LARGE, pos, "document contains excessive aliasing");
    return 0;
}

static int on_alias(struct yreader *r, const yaml_event_t *ev)
{
    const char *name = (const char *)ev->data.alias.anchor;
    struct codec__pos pos = pos_of(r, ev->start_mark);
    struct yanchor *a = map_get(&r->anchors, name);
    if (!a)
        return fail(r, ERR_PARSE, pos, "unknown anchor '%s' referenced", name);
    if (!a->done)
        return fail(r, ERR_PARSE, pos, "anchor '%s' value contains itself", name);
    if (expects_key(r)) {
        if (!a->scalar)
            return fail(r, ERR_PARSE, pos, "unsupported mapping key: alias '%s' to a %s", name,
                        json_is_object(a->v) ? "mapping" : "sequence");
        char *key;
        size_t keylen;
        int rc = key_text(r, &a->sc, a->text, a->textlen, pos, &key, &keylen);
        if (rc)
            return rc;
        return set_key(r, key, keylen, false, pos);
    }
    r->decode_count++; /* the alias itself */
    int rc = count_alias(r, a, pos);
    if (rc)
        return rc;
    if (a->scalar) {
        json_t *v;
        rc = scalar_value(r, &a->sc, a->text, a->textlen, pos, &v);
        if (rc)
            return rc;
        return attach(r, v, 1, a->bytes, 0, pos);
    }
    if (r->depth + (size_t)a->height > CODEC_MAX_DEPTH)
        return fail(r, ERR_TOO_LARGE, pos, "nesting deeper than %d levels", CODEC_MAX_DEPTH);
    return attach(r, json_deep_copy(a->v), a->nodes, a->bytes, a->height, pos);
}

static int on_document_end(struct yreader *r)
{
    json_t *root = r->root;
    r->root = NULL;
    drop_anchors(r);
    r->decode_count = 0;
    r->alias_count = 0;
    r->alias_bytes = 0;
    int rc = r->emit(r->ctx, root, r->root_pos, r->nitems ? r->items : NULL, r->nitems, r->e);
    r->nitems = 0;
    return rc;
}

static int on_event(struct yreader *r, const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        return on_scalar(r, ev);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        return on_start(r, ev, ev->type == YAML_MAPPING_START_EVENT);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return on_end(r);
    case YAML_ALIAS_EVENT:
        return on_alias(r, ev);
    case YAML_DOCUMENT_END_EVENT:
        return on_document_end(r);
    default:
        return 0;
    }
}

int codec__read_yaml(const char *data, size_t len, const char *name, int first_line,
                     codec__emit_fn emit, void *ctx, struct err *e)
{
    struct yreader r;
    memset(&r, 0, sizeof(r));
    r.name = name;
    r.data = data;
    r.len = len;
    r.first_line = first_line;
    r.e = e;
    r.emit = emit;
    r.ctx = ctx;
    map_init(&r.anchors);
    if (!yaml_parser_initialize(&r.parser)) {
        fprintf(stderr, "fatal: out of memory in the YAML parser\n");
        abort();
    }
    yaml_parser_set_input_string(&r.parser, (const unsigned char *)data, len);
    yaml_parser_set_encoding(&r.parser, YAML_UTF8_ENCODING);
    int rc = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&r.parser, &ev)) {
            rc = parser_fail(&r);
            break;
        }
        rc = on_event(&r, &ev);
        bool done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        if (rc || done)
            break;
    }
    while (r.depth > 0)
        frame_release(&r.stack[--r.depth]);
    free(r.stack);
    json_decref(r.root);
    drop_anchors(&r);
    map_release(&r.anchors);
    free(r.owned);
    free(r.items);
    yaml_parser_delete(&r.parser);
    return rc;
}
