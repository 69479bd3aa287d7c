/* codec.c -- streams of YAML or JSON documents into jansson trees.
 *
 * A stream is cut into documents before anything is parsed, so that the
 * per-document cap (CODEC_MAX_DOC_BYTES) is enforced without allocating for
 * an oversized document: JSON streams by matching brackets, YAML streams at
 * "---" lines, as Kubernetes' YAML reader (k8s.io/apimachinery
 * util/yaml.YAMLReader) cuts them. A `---` line is always a document
 * boundary in YAML, so cutting there changes no meaning. Each piece is then
 * decoded (jansson, or codec_yaml.c), checked to be a mapping, and a List is
 * expanded into its items. */
#include "api/codec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/codec_int.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

/* Move pos, the position of data[from], to that of data[to]. */
static void advance(const char *data, size_t from, size_t to, struct codec__pos *pos)
{
    for (size_t i = from; i < to; i++) {
        unsigned char ch = (unsigned char)data[i];
        if (ch == '\n') {
            pos->line++;
            pos->col = 1;
        } else if ((ch & 0xC0) != 0x80) {
            pos->col++;
        }
    }
}

void codec__position(const char *data, size_t len, size_t off, int first_line, int *line, int *col)
{
    struct codec__pos pos = {first_line, 1};
    advance(data, 0, off < len ? off : len, &pos);
    *line = pos.line;
    *col = pos.col;
}

/* Where the documents of one codec_read_stream call go. */
struct sink {
    struct codec_stream *out;
    const char *name;
    size_t first; /* out->n when the call began: indices count from here */
};

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "mapping";
    case JSON_ARRAY:
        return "sequence";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    case JSON_NULL:
        break;
    }
    return "null";
}

static void push_doc(struct sink *s, json_t *obj, int line)
{
    struct codec_stream *out = s->out;
    XGROW(out->docs, out->cap, out->n + 1);
    out->docs[out->n].obj = obj;
    out->docs[out->n].index = out->n - s->first;
    out->docs[out->n].line = line;
    out->n++;
}

/* A List's kind: "List" or any kind ending in it (ClusterQueueList). */
static bool is_list_kind(const json_t *doc)
{
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    size_t n = kind ? strlen(kind) : 0;
    return n >= 4 && strcmp(kind + n - 4, "List") == 0;
}

static int add_doc(void *ctx, json_t *root, struct codec__pos pos, const struct codec__pos *items,
                   size_t nitems, struct err *e)
{
    struct sink *s = ctx;
    size_t index = s->out->n - s->first;
    int rc = 0;
    if (!root || json_is_null(root))
        goto out_put_root;
    if (!json_is_object(root)) {
        rc = err_set(e, ERR_PARSE, "%s:%d:%d: document %zu must be a mapping, got a %s", s->name,
                     pos.line, pos.col, index, json_kind(root));
        goto out_put_root;
    }
    json_t *list = json_object_get(root, "items");
    if (!is_list_kind(root) || (!json_is_array(list) && !json_is_null(list) && list)) {
        push_doc(s, json_incref(root), pos.line);
        goto out_put_root;
    }
    if (json_array_size(list) != nitems)
        items = NULL;
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *item = json_array_get(list, i);
        struct codec__pos ip = items ? items[i] : pos;
        if (!json_is_object(item)) {
            rc = err_set(e, ERR_PARSE, "%s:%d:%d: item %zu of the List must be a mapping, got a %s",
                         s->name, ip.line, ip.col, i, json_kind(item));
            goto out_put_root;
        }
        push_doc(s, json_incref(item), ip.line);
    }
out_put_root:
    json_decref(root);
    return rc;
}

/* Find where the JSON object or array at data[start] ends, refusing
 * nesting beyond CODEC_MAX_DEPTH and documents beyond CODEC_MAX_DOC_BYTES
 * before jansson sees them. An unterminated value extends to the end
 * (jansson then reports what is wrong). */
static int json_extent(const char *data, size_t len, size_t start, const char *name, size_t *end,
                       struct err *e)
{
    int depth = 0, line, col;
    bool in_str = false;
    for (size_t i = start; i < len; i++) {
        if (i - start >= CODEC_MAX_DOC_BYTES) {
            codec__position(data, len, start, 1, &line, &col);
            return err_set(e, ERR_TOO_LARGE, "%s:%d:%d: document is larger than %u bytes", name,
                           line, col, CODEC_MAX_DOC_BYTES);
        }
        char c = data[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
            continue;
        }
        if (c == '"') {
            in_str = true;
        } else if (c == '{' || c == '[') {
            if (++depth > CODEC_MAX_DEPTH) {
                codec__position(data, len, i, 1, &line, &col);
                return err_set(e, ERR_TOO_LARGE, "%s:%d:%d: nesting deeper than %d levels", name,
                               line, col, CODEC_MAX_DEPTH);
            }
        } else if (c == '}' || c == ']') {
            if (--depth <= 0) {
                *end = i + 1;
                return 0;
            }
        }
    }
    *end = len;
    return 0;
}

/* jansson on data[start..end), with its error placed in the whole input.
 * Strings may hold NUL (\u0000) as YAML's "\0" can; jansson refuses it in
 * keys, as the YAML reader does. */
/* Whether the integer literal s[0..n) (optional '-', digits) is beyond
 * int64. */
static bool int_too_big(const char *s, size_t n)
{
    bool neg = n > 0 && s[0] == '-';
    const char *lim = neg ? "9223372036854775808" : "9223372036854775807";
    size_t d = n - neg;
    if (d != 19)
        return d > 19;
    return memcmp(s + neg, lim, 19) > 0;
}

/* text with ".0" after every integer literal beyond int64, so that jansson
 * reads them as reals, as Go's JSON decoding into Kubernetes' unstructured
 * objects gives float64 for them. Returns NULL when there is none. */
static char *widen_big_ints(const char *text, size_t n, size_t *outlen)
{
    struct sb out = SB_INIT;
    bool in_str = false, changed = false;
    size_t copied = 0;
    for (size_t i = 0; i < n; i++) {
        char c = text[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
            continue;
        }
        if (c == '"') {
            in_str = true;
            continue;
        }
        if (c != '-' && (c < '0' || c > '9'))
            continue;
        size_t j = i + (c == '-');
        while (j < n && text[j] >= '0' && text[j] <= '9')
            j++;
        bool integer = j == n || (text[j] != '.' && text[j] != 'e' && text[j] != 'E');
        if (integer && int_too_big(text + i, j - i)) {
            sb_add(&out, text + copied, j - copied);
            sb_adds(&out, ".0");
            copied = j;
            changed = true;
        }
        i = j - 1;
    }
    if (!changed) {
        sb_release(&out);
        return NULL;
    }
    sb_add(&out, text + copied, n - copied);
    *outlen = out.len;
    return sb_take(&out);
}

/* ---- the plain JSON most documents are, read without jansson's lexer ---------------- */

/* jansson reads a document one byte at a time through a callback, and that
 * was most of the CPU of parsing a webhook's AdmissionReview, and of a
 * restart that reads every stored document (codec_load_json). Most
 * documents are plain: ASCII strings without escapes, integers of at most
 * 18 digits, true, false and null. fast_* reads such a document into the
 * tree jansson would build (members in the same order) and gives up, for
 * jansson to read it all again, at anything else: an escape, a byte
 * beyond ASCII or below the space, a real, a longer integer, a duplicate
 * member, a syntax error. So what is accepted, refused, and every message,
 * stay jansson's. */
struct fast {
    const char *p, *end;
    int depth;
};

static void fast_space(struct fast *f)
{
    while (f->p < f->end && (*f->p == ' ' || *f->p == '\t' || *f->p == '\n' || *f->p == '\r'))
        f->p++;
}

/* The string at f->p ('"'): its bytes s[0..n), or false. */
static bool fast_string(struct fast *f, const char **s, size_t *n)
{
    const char *q = f->p + 1;
    while (q < f->end && *q != '"') {
        unsigned char c = (unsigned char)*q;
        if (c < 0x20 || c >= 0x7f || c == '\\')
            return false;
        q++;
    }
    if (q >= f->end)
        return false;
    *s = f->p + 1;
    *n = (size_t)(q - *s);
    f->p = q + 1;
    return true;
}

static json_t *fast_value(struct fast *f);

static json_t *fast_number(struct fast *f)
{
    const char *q = f->p;
    bool neg = *q == '-';
    q += neg;
    const char *digits = q;
    if (q < f->end && *q == '0')
        q++;
    else
        while (q < f->end && *q >= '0' && *q <= '9')
            q++;
    size_t nd = (size_t)(q - digits);
    if (nd == 0 || nd > 18 ||
        (q < f->end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E')))
        return NULL;
    json_int_t v = 0;
    for (const char *d = digits; d < q; d++)
        v = v * 10 + (*d - '0');
    f->p = q;
    return json_integer(neg ? -v : v);
}

static json_t *fast_word(struct fast *f, const char *w, size_t n, json_t *v)
{
    if ((size_t)(f->end - f->p) < n || memcmp(f->p, w, n))
        return NULL;
    f->p += n;
    return v;
}

static json_t *fast_object(struct fast *f)
{
    json_t *o = json_object();
    f->p++;
    fast_space(f);
    if (f->p < f->end && *f->p == '}') {
        f->p++;
        return o;
    }
    for (;;) {
        const char *k;
        size_t kn;
        if (f->p >= f->end || *f->p != '"' || !fast_string(f, &k, &kn))
            break;
        fast_space(f);
        if (f->p >= f->end || *f->p != ':')
            break;
        f->p++;
        fast_space(f);
        json_t *v = fast_value(f);
        if (!v)
            break;
        if (json_object_getn(o, k, kn) || json_object_setn_new_nocheck(o, k, kn, v)) {
            json_decref(v);
            break;
        }
        fast_space(f);
        if (f->p < f->end && *f->p == '}') {
            f->p++;
            return o;
        }
        if (f->p >= f->end || *f->p != ',')
            break;
        f->p++;
        fast_space(f);
    }
    json_decref(o);
    return NULL;
}

static json_t *fast_array(struct fast *f)
{
    json_t *a = json_array();
    f->p++;
    fast_space(f);
    if (f->p < f->end && *f->p == ']') {
        f->p++;
        return a;
    }
    for (;;) {
        json_t *v = fast_value(f);
        if (!v || json_array_append_new(a, v))
            break;
        fast_space(f);
        if (f->p < f->end && *f->p == ']') {
            f->p++;
            return a;
        }
        if (f->p >= f->end || *f->p != ',')
            break;
        f->p++;
        fast_space(f);
    }
    json_decref(a);
    return NULL;
}

static json_t *fast_value(struct fast *f)
{
    if (f->p >= f->end)
        return NULL;
    const char *s;
    size_t n;
    json_t *v = NULL;
    switch (*f->p) {
    case '{':
    case '[':
        if (++f->depth > CODEC_MAX_DEPTH)
            return NULL;
        v = *f->p == '{' ? fast_object(f) : fast_array(f);
        f->depth--;
        return v;
    case '"':
        return fast_string(f, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
    case 't':
        return fast_word(f, "true", 4, json_true());
    case 'f':
        return fast_word(f, "false", 5, json_false());
    case 'n':
        return fast_word(f, "null", 4, json_null());
    default:
        return fast_number(f);
    }
}

/* The object or array data[0..n) is (with spaces around it, or with any
 * bytes after it when rest_ok), or NULL for jansson to read. */
static json_t *fast_decode(const char *data, size_t n, bool rest_ok)
{
    struct fast f = {data, data + n, 0};
    fast_space(&f);
    if (f.p >= f.end || (*f.p != '{' && *f.p != '['))
        return NULL;
    json_t *v = fast_value(&f);
    if (!v || rest_ok)
        return v;
    fast_space(&f);
    if (f.p != f.end) {
        json_decref(v);
        v = NULL;
    }
    return v;
}

/* jansson's flags whose meaning fast_decode keeps: it gives up at a
 * duplicate member, at every escape (so at any NUL) and at a scalar
 * document, and reads past the value only as JSON_DISABLE_EOF_CHECK
 * says. */
#define FAST_FLAGS                                                                                 \
    (JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY | JSON_ALLOW_NUL)

json_t *codec_load_json(const char *text, size_t len, size_t flags, json_error_t *error)
{
    if (text && !(flags & ~(size_t)FAST_FLAGS)) {
        json_t *v = fast_decode(text, len, flags & JSON_DISABLE_EOF_CHECK);
        if (v) {
            if (error) { /* as jansson leaves it after a success */
                error->line = -1;
                error->column = -1;
                error->position = 0;
                snprintf(error->source, sizeof(error->source), "<buffer>");
                error->text[0] = '\0';
            }
            return v;
        }
    }
    return json_loadb(text, len, flags, error);
}

static int json_decode(const char *data, size_t start, size_t end, struct codec__pos at,
                       const char *name, size_t flags, json_t **out, struct err *e)
{
    /* Nothing to normalize in what fast_decode reads: it has no reals. */
    *out = fast_decode(data + start, end - start, false);
    if (*out)
        return 0;
    json_error_t jerr;
    flags |= JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL;
    *out = json_loadb(data + start, end - start, flags, &jerr);
    if (!*out && strncmp(jerr.text, "too big integer", 15) == 0) {
        size_t wlen;
        char *wide = widen_big_ints(data + start, end - start, &wlen);
        if (wide) {
            /* Should this fail too, its message is the one that helps;
             * its columns may be off by the ".0"s added before it. */
            *out = json_loadb(wide, wlen, flags, &jerr);
            free(wide);
        }
    }
    int line = at.line, col = at.col;
    if (*out) {
        *out = codec__normalize(*out);
        return 0;
    }
    if (jerr.line > 1)
        col = jerr.column;
    else if (jerr.line == 1)
        col += jerr.column - 1;
    if (jerr.line >= 1)
        line += jerr.line - 1;
    return err_set(e, ERR_PARSE, "%s:%d:%d: %s", name, line, col, jerr.text);
}

static size_t skip_space(const char *data, size_t len, size_t i)
{
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    return i;
}

/* A stream of JSON objects (or Lists), one after another. */
static int read_json_stream(const char *data, size_t len, size_t i, struct sink *s, struct err *e)
{
    /* Positions advance with the documents, so that a stream of many small
     * documents is not rescanned from its start for each one. */
    size_t at = 0; /* pos is the position of data[at] */
    struct codec__pos pos = {1, 1};
    for (i = skip_space(data, len, i); i < len; i = skip_space(data, len, i)) {
        advance(data, at, i, &pos);
        at = i;
        if (data[i] != '{' && data[i] != '[')
            return err_set(e, ERR_PARSE, "%s:%d:%d: expected a JSON object, got '%c'", s->name,
                           pos.line, pos.col, data[i]);
        size_t end;
        int rc = json_extent(data, len, i, s->name, &end, e);
        if (rc)
            return rc;
        json_t *doc;
        rc = json_decode(data, i, end, pos, s->name, 0, &doc, e);
        if (rc)
            return rc;
        rc = add_doc(s, doc, pos, NULL, 0, e);
        if (rc)
            return rc;
        i = end;
    }
    return 0;
}

/* "---" alone on its line (spaces or a comment may follow): where
 * Kubernetes cuts a YAML stream. */
static bool is_separator(const char *p, size_t n)
{
    if (n < 3 || memcmp(p, "---", 3) != 0)
        return false;
    if (n == 3)
        return true;
    if (p[3] != ' ' && p[3] != '\t' && p[3] != '\r')
        return false;
    for (size_t i = 4; i < n; i++) {
        if (p[i] == '#')
            return true;
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return false;
    }
    return true;
}

/* A line that is more than blanks, a comment or a directive. */
static bool has_content(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
        i++;
    return i < n && p[i] != '#' && !(i == 0 && p[0] == '%');
}

/* One piece of a YAML stream, data[start..end), starting on line line. */
static int read_yaml_piece(const char *data, size_t start, size_t end, int line, struct sink *s,
                           struct err *e)
{
    if (end - start > CODEC_MAX_DOC_BYTES)
        return err_set(e, ERR_TOO_LARGE, "%s:%d:1: document is larger than %u bytes", s->name, line,
                       CODEC_MAX_DOC_BYTES);
    return codec__read_yaml(data + start, end - start, s->name, line, add_doc, s, e);
}

/* A UTF-8 byte order mark is skipped here: libyaml, told the encoding,
 * would count it as a column and misread the first line's indentation. */
static size_t skip_bom(const char *data, size_t len)
{
    return len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/* Cut the stream at separator lines; a piece holding nothing but comments
 * and directives is joined to the next one. Only line ends are looked at,
 * so an oversized piece is refused before any of it is parsed. */
static int read_yaml_stream(const char *data, size_t len, struct sink *s, struct err *e)
{
    size_t start = skip_bom(data, len);
    int start_line = 1, line = 1;
    bool content = false;
    for (size_t pos = start; pos < len; line++) {
        const char *nl = memchr(data + pos, '\n', len - pos);
        size_t eol = nl ? (size_t)(nl - data) : len;
        if (is_separator(data + pos, eol - pos)) {
            if (content) {
                int rc = read_yaml_piece(data, start, pos, start_line, s, e);
                if (rc)
                    return rc;
                start = pos;
                start_line = line;
                content = false;
            }
        } else if (!content && has_content(data + pos, eol - pos)) {
            content = true;
        }
        if (!content && pos - start > CODEC_MAX_DOC_BYTES)
            return read_yaml_piece(data, start, pos, start_line, s, e);
        pos = eol + 1;
    }
    if (!content)
        return 0;
    return read_yaml_piece(data, start, len, start_line, s, e);
}

static bool is_utf16(const char *data, size_t len)
{
    return len >= 2 && ((memcmp(data, "\xFF\xFE", 2) == 0) || memcmp(data, "\xFE\xFF", 2) == 0);
}

int codec_read_stream(const char *data, size_t len, const char *name, struct codec_stream *out,
                      struct err *e)
{
    struct sink s = {out, name, out->n};
    int rc;
    if (len > CODEC_MAX_STREAM_BYTES) {
        rc = err_set(e, ERR_TOO_LARGE, "%s:1:1: stream is larger than %u bytes", name,
                     CODEC_MAX_STREAM_BYTES);
    } else if (is_utf16(data, len)) {
        rc = err_set(e, ERR_PARSE, "%s:1:1: input is UTF-16, not UTF-8", name);
    } else {
        size_t i = skip_space(data, len, skip_bom(data, len));
        if (i < len && (data[i] == '{' || data[i] == '['))
            rc = read_json_stream(data, len, i, &s, e);
        else
            rc = read_yaml_stream(data, len, &s, e);
    }
    if (rc) {
        for (size_t k = s.first; k < out->n; k++)
            json_decref(out->docs[k].obj);
        out->n = s.first;
    }
    return rc;
}

int codec_read_file(const char *path, struct codec_stream *out, struct err *e)
{
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set(e, ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    struct sb buf = SB_INIT;
    char chunk[65536];
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = err_set(e, ERR_IO, "cannot read '%s': %s", path, strerror(errno));
            goto out_close;
        }
        if (n == 0)
            break;
        if (buf.len + (size_t)n > CODEC_MAX_STREAM_BYTES) {
            rc = err_set(e, ERR_TOO_LARGE, "'%s' is larger than %u bytes", path,
                         CODEC_MAX_STREAM_BYTES);
            goto out_close;
        }
        sb_add(&buf, chunk, (size_t)n);
    }
    rc = codec_read_stream(sb_str(&buf), buf.len, path, out, e);
out_close:
    if (!is_stdin)
        close(fd);
    sb_release(&buf);
    return rc;
}

void codec_stream_release(struct codec_stream *s)
{
    for (size_t i = 0; i < s->n; i++)
        json_decref(s->docs[i].obj);
    free(s->docs);
    s->docs = NULL;
    s->n = 0;
    s->cap = 0;
}

/* Name used in messages about a request body or string, which has no file. */
#define INPUT_NAME "input"

int codec_parse_json(const char *data, size_t len, json_t **out, struct err *e)
{
    *out = NULL;
    if (len > CODEC_MAX_DOC_BYTES)
        return err_set(e, ERR_TOO_LARGE, "%s:1:1: document is larger than %u bytes", INPUT_NAME,
                       CODEC_MAX_DOC_BYTES);
    size_t i = skip_space(data, len, 0), end = len;
    if (i < len && (data[i] == '{' || data[i] == '[')) {
        int rc = json_extent(data, len, i, INPUT_NAME, &end, e);
        if (rc)
            return rc;
    }
    struct codec__pos start = {1, 1};
    return json_decode(data, 0, len, start, INPUT_NAME, JSON_DECODE_ANY, out, e);
}

struct one {
    json_t *root;
    int ndocs;
};

static int keep_one(void *ctx, json_t *root, struct codec__pos pos, const struct codec__pos *items,
                    size_t nitems, struct err *e)
{
    struct one *o = ctx;
    if (o->ndocs++ > 0) {
        json_decref(root);
        return err_set(e, ERR_PARSE, "%s:%d:%d: expected one document, found another", INPUT_NAME,
                       pos.line, pos.col);
    }
    o->root = root;
    return 0;
}

int codec_parse_yaml(const char *data, size_t len, json_t **out, struct err *e)
{
    *out = NULL;
    if (len > CODEC_MAX_DOC_BYTES)
        return err_set(e, ERR_TOO_LARGE, "%s:1:1: document is larger than %u bytes", INPUT_NAME,
                       CODEC_MAX_DOC_BYTES);
    struct one o = {NULL, 0};
    size_t bom = skip_bom(data, len);
    int rc = codec__read_yaml(data + bom, len - bom, INPUT_NAME, 1, keep_one, &o, e);
    if (rc) {
        json_decref(o.root);
        return rc;
    }
    *out = o.root ? o.root : json_null();
    return 0;
}
