/* json_fuzz.c -- arbitrary bytes through the JSON reader (one request body,
 * and a stream of objects); whatever it accepts must survive writing as YAML
 * and JSON and reading back unchanged. The reader reads plain JSON itself
 * and the rest with jansson: both must give what jansson alone gives (the
 * same tree, or a refusal with jansson's message), through codec_parse_json
 * and through codec_load_json with each set of flags its callers pass. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "api/codec.h"
#include "api/codec_int.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_as_jansson(const char *text, size_t len)
{
    json_error_t jerr;
    json_t *want =
        json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (!want && !strncmp(jerr.text, "too big integer", 15))
        return; /* widened to a real by the codec, as Go reads it */
    json_t *got = NULL;
    struct err e;
    err_init(&e);
    int rc = codec_parse_json(text, len, &got, &e);
    if (!want) {
        char msg[JSON_ERROR_TEXT_LENGTH + 64];
        snprintf(msg, sizeof(msg), "input:%d:%d: %s", jerr.line, jerr.column, jerr.text);
        if (rc == 0 || (rc == ERR_PARSE && strcmp(e.message, msg)))
            abort();
        return;
    }
    if (rc == ERR_TOO_LARGE) {
        json_decref(want);
        return; /* the codec's caps on size and depth are its own */
    }
    want = codec__normalize(want); /* takes the tree, gives another */
    if (rc || !json_equal(want, got))
        abort();
    json_decref(want);
    json_decref(got);
}

/* codec_load_json against json_loadb: the same tree, members in the same
 * order (compared as compact text), or the same error. */
static void check_load(const char *text, size_t len, size_t flags)
{
    json_error_t werr, gerr;
    json_t *want = json_loadb(text, len, flags, &werr);
    json_t *got = codec_load_json(text, len, flags, &gerr);
    if (!want != !got)
        abort();
    if (!want) {
        if (strcmp(werr.text, gerr.text) || werr.line != gerr.line || werr.column != gerr.column ||
            werr.position != gerr.position)
            abort();
        return;
    }
    size_t dump = JSON_COMPACT | JSON_ENCODE_ANY;
    char *w = json_dumps(want, dump), *g = json_dumps(got, dump);
    if (!w || !g || strcmp(w, g))
        abort();
    free(w);
    free(g);
    json_decref(want);
    json_decref(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_check_input((const char *)data, size, codec_parse_json);
    check_as_jansson((const char *)data, size);
    check_load((const char *)data, size, 0);
    check_load((const char *)data, size, JSON_ALLOW_NUL);
    check_load((const char *)data, size, JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL);
    return 0;
}
