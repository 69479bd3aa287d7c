/* fuzz_check.h -- the property both codec fuzzers assert: a tree the
 * reader accepted is written as YAML and as JSON (compact and indented),
 * and each text reads back to an equal tree (jansson's json_equal). */
#ifndef CUEUE_FUZZ_CHECK_H
#define CUEUE_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "api/codec.h"
#include "base/err.h"
#include "base/strbuf.h"

static void fuzz_fail(const char *what, const struct sb *text, const json_t *want)
{
    char *w = json_dumps(want, JSON_ENCODE_ANY | JSON_COMPACT);
    fprintf(stderr, "%s\n--- text ---\n%s\n--- tree ---\n%s\n", what, sb_str(text), w);
    free(w);
    abort();
}

/* Read text back with parse (codec_parse_yaml or codec_parse_json) and
 * compare. Output can exceed a reader's caps when aliases multiplied the
 * input (a 64 KiB input can expand past CODEC_MAX_DOC_BYTES): that alone is
 * not a failure. */
static void fuzz_read_back(int (*parse)(const char *, size_t, json_t **, struct err *),
                           const char *what, const struct sb *text, const json_t *want)
{
    json_t *back = NULL;
    struct err e;
    err_init(&e);
    int rc = parse(text->buf ? text->buf : "", text->len, &back, &e);
    if (rc == ERR_TOO_LARGE && text->len > CODEC_MAX_DOC_BYTES)
        return;
    if (rc) {
        fprintf(stderr, "%s: %s\n", what, e.message);
        fuzz_fail("written text does not read back", text, want);
    }
    if (!json_equal(back, want))
        fuzz_fail(what, text, want);
    json_decref(back);
}

static void fuzz_check_tree(const json_t *v)
{
    struct sb text = SB_INIT;
    codec_write_yaml(v, &text);
    fuzz_read_back(codec_parse_yaml, "YAML round trip differs", &text, v);
    for (int pretty = 0; pretty < 2; pretty++) {
        sb_reset(&text);
        codec_write_json(v, pretty, &text);
        fuzz_read_back(codec_parse_json, "JSON round trip differs", &text, v);
    }
    sb_release(&text);
}

/* Every document of a stream, then the input as one YAML or JSON value. */
static void fuzz_check_input(const char *data, size_t size,
                             int (*parse)(const char *, size_t, json_t **, struct err *))
{
    struct codec_stream s = {0};
    struct err e;
    err_init(&e);
    if (codec_read_stream(data, size, "fuzz", &s, &e) == 0) {
        for (size_t i = 0; i < s.n; i++) {
            if (!json_is_object(s.docs[i].obj) || s.docs[i].index != i)
                abort();
            fuzz_check_tree(s.docs[i].obj);
        }
    } else if (s.n != 0 || e.message[0] == '\0') {
        abort(); /* a failed read adds nothing and says why */
    }
    codec_stream_release(&s);

    json_t *v = NULL;
    err_init(&e);
    if (parse(data, size, &v, &e) == 0) {
        fuzz_check_tree(v);
        json_decref(v);
    } else if (v != NULL || e.message[0] == '\0') {
        abort();
    }
}

#endif
