/* validate.c -- `cueue validate`: check YAML/JSON files as the API server and
 * Kueue's webhooks would, without a cluster.
 *
 * Every document goes through what `kubectl apply` would put it through:
 * strict decoding (unknown fields), defaulting, typed decoding, then the CRD
 * schema and Kueue's webhook rules (api/validate.h), under the feature gates
 * given (api/features.h). A document that has a namesake among the --old
 * documents (same kind, namespace and name) is checked as an update of it,
 * with the rules on changes; any other as a create. Each object gets one
 * verdict line, or one line per problem; kinds cueue does not handle are
 * listed as skipped rather than silently ignored. */
#include <stdio.h>
#include <string.h>

#include "api/codec.h"
#include "api/defaults.h"
#include "api/features.h"
#include "api/objects.h"
#include "api/validate.h"
#include "base/err.h"
#include "base/map.h"
#include "base/strbuf.h"
#include "cli/cli.h"

#define MAX_FILES 256

static void usage(FILE *out)
{
    fprintf(out,
            "usage: cueue validate [--old FILE ...] [--feature-gates GATES] -f FILE [-f FILE ...]\n"
            "\n"
            "Check Kueue (kueue.x-k8s.io/v1beta2), batch/v1 Job, Namespace, PriorityClass and\n"
            "Configuration documents as the API server and Kueue's webhooks would: unknown\n"
            "fields, types, quantities, names, enums, required fields and Kueue's rules.\n"
            "\n"
            "  -f FILE                a YAML or JSON file (--- separated documents, or a List);\n"
            "                         '-' reads standard input; may be given several times\n"
            "  --old FILE             the objects as they are now: a document of -f with the\n"
            "                         same kind, namespace and name is checked as an update of\n"
            "                         it (immutable fields, transitions); may be repeated\n"
            "  --feature-gates GATES  Kueue's feature gates, as Kueue takes them\n"
            "                         (e.g. ConcurrentAdmission=true,PriorityBoost=true);\n"
            "                         Kueue's defaults otherwise\n"
            "  -h, --help             show this help\n"
            "\n"
            "Prints 'Kind/name: valid' for each valid object, one line per problem\n"
            "('Kind/name: field.path: message') otherwise, and 'Kind/name: skipped (kind not\n"
            "handled by cueue)' for other kinds. Exit status: 0 all valid, 1 some object\n"
            "invalid, 2 a file could not be read or parsed, or bad usage.\n");
}

static void print_err(const struct err *e)
{
    struct sb sb = SB_INIT;
    err_format(e, &sb);
    printf("%s\n", sb_str(&sb));
    sb_release(&sb);
}

/* The display name of a document: Kind/name, Kind/namespace/name, or Kind. */
static void doc_label(const json_t *doc, char *buf, size_t len)
{
    struct err e;
    err_init(&e);
    api_doc_err_object(doc, &e);
    snprintf(buf, len, "%s", e.object);
}

/* The key that pairs a document with its --old namesake: kind, namespace,
 * name (NUL-separated in buf). False for a document without a name. */
static bool doc_key(const json_t *doc, char *buf, size_t len)
{
    const char *name = api_doc_meta_str(doc, "name");
    const char *ns = api_doc_meta_str(doc, "namespace");
    if (!name || !*name || api_doc_kind(doc) == API_KIND_UNKNOWN)
        return false;
    int n = snprintf(buf, len, "%d/%s/%s", (int)api_doc_kind(doc), ns ? ns : "", name);
    return n > 0 && (size_t)n < len;
}

/* Index the --old documents by doc_key; the first of namesakes wins. */
static void index_olds(const struct codec_stream *olds, size_t n, struct map *m)
{
    char key[1024];
    for (size_t f = 0; f < n; f++)
        for (size_t i = 0; i < olds[f].n; i++)
            if (doc_key(olds[f].docs[i].obj, key, sizeof(key)) && !map_has(m, key))
                map_put(m, key, olds[f].docs[i].obj);
}

/* The --old document that doc updates, or NULL (borrowed). */
static json_t *find_old(const struct map *olds, const json_t *doc)
{
    char key[1024];
    return doc_key(doc, key, sizeof(key)) ? map_get(olds, key) : NULL;
}

/* Decode an --old document as the store holds it (defaulted). Returns the
 * view, or NULL after printing why it cannot be read. */
static struct api_object *decode_old(json_t *old, const char *label)
{
    json_t *copy = json_deep_copy(old);
    dflt_object(copy);
    struct api_object *o = NULL;
    struct err e;
    err_init(&e);
    int rc = api_object_decode(copy, &o, &e);
    json_decref(copy);
    if (rc) {
        struct sb sb = SB_INIT;
        err_format(&e, &sb);
        fprintf(stderr, "cueue validate: --old %s cannot be read: %s\n", label, sb_str(&sb));
        sb_release(&sb);
        return NULL;
    }
    return o;
}

/* Validate one document, as an update of old when old is not NULL; returns
 * 0 when valid or skipped, 1 when invalid, 2 when old cannot be read. */
static int check_doc(json_t *doc, json_t *old)
{
    char label[sizeof(((struct err *)0)->object)];
    doc_label(doc, label, sizeof(label));
    const char *api_version = json_string_value(json_object_get(doc, "apiVersion"));
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    if (!api_version || !kind || !*api_version || !*kind) {
        printf("%s: apiVersion and kind are required\n", label);
        return 1;
    }
    struct err e;
    err_init(&e);
    if (api_doc_kind(doc) == API_KIND_UNKNOWN) {
        int rc = val_crd_object(doc, old, &e);
        if (rc != ERR_UNSUPPORTED) {
            if (rc) {
                print_err(&e);
                return 1;
            }
            printf("%s: valid\n", label);
            return 0;
        }
        /* Kueue's own groups are cueue's business: a wrong version or kind
         * there is a mistake, not another system's object. */
        if (!strncmp(api_version, "kueue.x-k8s.io/", 15) ||
            !strncmp(api_version, "config.kueue.x-k8s.io/", 22)) {
            printf("%s: unsupported kind %s in apiVersion \"%s\" (cueue speaks %s and %s)\n", label,
                   kind, api_version, API_VERSION_KUEUE, API_VERSION_CONFIG);
            return 1;
        }
        printf("%s: skipped (kind not handled by cueue)\n", label);
        return 0;
    }

    struct api_object *prev = NULL;
    if (old && !(prev = decode_old(old, label)))
        return 2;
    int bad = val_unknown_fields(doc, &e) != 0;
    dflt_object(doc);
    struct api_object *o = NULL;
    if (api_object_decode(doc, &o, &e))
        bad = 1;
    else if (!bad && (prev ? val_object_update(prev, o, &e) : val_object(o, &e)))
        bad = 1;
    api_object_free(o);
    api_object_free(prev);
    if (bad) {
        if (!e.object[0])
            api_doc_err_object(doc, &e);
        print_err(&e);
        return 1;
    }
    printf("%s: valid\n", label);
    return 0;
}

/* Read a file into s; prints the error and returns 2 when it cannot be. */
static int read_file(const char *path, struct codec_stream *s)
{
    struct err e;
    err_init(&e);
    if (!codec_read_file(path, s, &e))
        return 0;
    struct sb sb = SB_INIT;
    err_format(&e, &sb);
    fprintf(stderr, "cueue validate: %s\n", sb_str(&sb));
    sb_release(&sb);
    return 2;
}

/* The value of option `name` at argv[*i] ("--name V", "--name=V", or for
 * -f also "-fV"), advancing *i; NULL when argv[*i] is not that option. */
static const char *option(int argc, char **argv, int *i, const char *name, const char *short_)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if ((!strcmp(a, name) || (short_ && !strcmp(a, short_))) && *i + 1 < argc)
        return argv[++*i];
    if (!strncmp(a, name, n) && a[n] == '=')
        return a + n + 1;
    if (short_ && !strncmp(a, short_, 2) && a[2])
        return a + 2;
    return NULL;
}

int cli_validate(int argc, char **argv)
{
    const char *files[MAX_FILES], *olds[MAX_FILES];
    size_t n = 0, n_old = 0;
    const char *gates_text = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        const char *v;
        if ((v = option(argc, argv, &i, "--feature-gates", NULL))) {
            gates_text = v;
            continue;
        }
        bool is_old = (v = option(argc, argv, &i, "--old", NULL)) != NULL;
        if (!v)
            v = option(argc, argv, &i, "--filename", "-f");
        if (!v) {
            fprintf(stderr, "cueue validate: unexpected argument '%s'\n\n", a);
            usage(stderr);
            return 2;
        }
        if ((is_old ? n_old : n) == MAX_FILES) {
            fprintf(stderr, "cueue validate: at most %d files\n", MAX_FILES);
            return 2;
        }
        if (is_old)
            olds[n_old++] = v;
        else
            files[n++] = v;
    }
    if (!n) {
        fprintf(stderr, "cueue validate: no file given (-f FILE)\n\n");
        usage(stderr);
        return 2;
    }
    struct fg_gates gates;
    struct err e;
    err_init(&e);
    if (fg_gates_load(&gates, gates_text, NULL, &e)) {
        fprintf(stderr, "cueue validate: --feature-gates: %s\n", e.message);
        return 2;
    }
    fg_use(&gates);

    int status = 0;
    struct codec_stream old_streams[MAX_FILES];
    memset(old_streams, 0, sizeof(old_streams));
    for (size_t f = 0; f < n_old && !status; f++)
        status = read_file(olds[f], &old_streams[f]);
    struct map by_key = MAP_INIT;
    index_olds(old_streams, n_old, &by_key);
    for (size_t f = 0; f < n && !(n_old && status == 2); f++) {
        struct codec_stream s = {0};
        if (read_file(files[f], &s)) {
            status = 2;
        } else {
            for (size_t i = 0; i < s.n; i++) {
                int rc = check_doc(s.docs[i].obj, find_old(&by_key, s.docs[i].obj));
                if (rc > status)
                    status = rc;
            }
        }
        codec_stream_release(&s);
    }
    map_release(&by_key);
    for (size_t f = 0; f < n_old; f++)
        codec_stream_release(&old_streams[f]);
    fflush(stdout);
    return status;
}
