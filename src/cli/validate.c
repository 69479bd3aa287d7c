/* validate.c -- `cueue validate`: check YAML/JSON files as the API server and
 * Kueue's webhooks would, without a cluster.
 *
 * Every document goes through what `kubectl apply` would put it through:
 * strict decoding (unknown fields), defaulting, typed decoding, then the CRD
 * schema and Kueue's webhook rules (api/validate.h). Each object gets one
 * verdict line, or one line per problem; kinds cueue does not handle are
 * listed as skipped rather than silently ignored. */
#include <stdio.h>
#include <string.h>

#include "api/codec.h"
#include "api/defaults.h"
#include "api/objects.h"
#include "api/validate.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "cli/cli.h"

#define MAX_FILES 256

static void usage(FILE *out)
{
    fprintf(out,
            "usage: cueue validate -f FILE [-f FILE ...]\n"
            "\n"
            "Check Kueue (kueue.x-k8s.io/v1beta2), batch/v1 Job, Namespace, PriorityClass and\n"
            "Configuration documents as the API server and Kueue's webhooks would: unknown\n"
            "fields, types, quantities, names, enums, required fields and Kueue's rules.\n"
            "\n"
            "  -f FILE    a YAML or JSON file (--- separated documents, or a List); '-' reads\n"
            "             standard input; may be given several times\n"
            "  -h, --help show this help\n"
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

/* Validate one document; returns 0 when valid or skipped, 1 when invalid. */
static int check_doc(json_t *doc)
{
    char label[sizeof(((struct err *)0)->object)];
    doc_label(doc, label, sizeof(label));
    const char *api_version = json_string_value(json_object_get(doc, "apiVersion"));
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    if (!api_version || !kind || !*api_version || !*kind) {
        printf("%s: apiVersion and kind are required\n", label);
        return 1;
    }
    if (api_doc_kind(doc) == API_KIND_UNKNOWN) {
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

    struct err e;
    err_init(&e);
    int bad = val_unknown_fields(doc, &e) != 0;
    dflt_object(doc);
    struct api_object *o = NULL;
    if (api_object_decode(doc, &o, &e))
        bad = 1;
    else if (!bad && val_object(o, &e))
        bad = 1;
    api_object_free(o);
    if (bad) {
        if (!e.object[0])
            api_doc_err_object(doc, &e);
        print_err(&e);
        return 1;
    }
    printf("%s: valid\n", label);
    return 0;
}

int cli_validate(int argc, char **argv)
{
    const char *files[MAX_FILES];
    size_t n = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        const char *path = NULL;
        if ((!strcmp(a, "-f") || !strcmp(a, "--filename")) && i + 1 < argc)
            path = argv[++i];
        else if (!strncmp(a, "-f", 2) && a[2])
            path = a + 2;
        else if (!strncmp(a, "--filename=", 11))
            path = a + 11;
        if (!path) {
            fprintf(stderr, "cueue validate: unexpected argument '%s'\n\n", a);
            usage(stderr);
            return 2;
        }
        if (n == MAX_FILES) {
            fprintf(stderr, "cueue validate: at most %d files\n", MAX_FILES);
            return 2;
        }
        files[n++] = path;
    }
    if (!n) {
        fprintf(stderr, "cueue validate: no file given (-f FILE)\n\n");
        usage(stderr);
        return 2;
    }

    int status = 0;
    for (size_t f = 0; f < n; f++) {
        struct codec_stream s = {0};
        struct err e;
        err_init(&e);
        if (codec_read_file(files[f], &s, &e)) {
            struct sb sb = SB_INIT;
            err_format(&e, &sb);
            fprintf(stderr, "cueue validate: %s\n", sb_str(&sb));
            sb_release(&sb);
            codec_stream_release(&s);
            status = 2;
            continue;
        }
        for (size_t i = 0; i < s.n; i++)
            if (check_doc(s.docs[i].obj) && status == 0)
                status = 1;
        codec_stream_release(&s);
    }
    fflush(stdout);
    return status;
}
