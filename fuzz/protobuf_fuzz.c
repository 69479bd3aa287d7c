/* protobuf_fuzz.c -- arbitrary bytes through the protobuf body decoder;
 * whatever it accepts must be a JSON object that writes and reads back
 * unchanged. The corpus holds the bodies kubectl sends. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/codec.h"
#include "api/protobuf.h"
#include "base/err.h"
#include "base/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *obj = NULL, *unknown = NULL;
    struct err e;
    err_init(&e);
    if (pb_decode(data, size, &obj, &unknown, &e))
        return 0;
    if (!json_is_object(obj))
        abort();
    struct sb out = SB_INIT;
    codec_write_json(obj, false, &out);
    json_t *back = NULL;
    err_init(&e);
    if (codec_parse_json(out.buf, out.len, &back, &e) || !json_equal(obj, back))
        abort();
    json_decref(back);
    sb_release(&out);
    json_decref(obj);
    json_decref(unknown);
    return 0;
}
