/* storetext_fuzz.c -- arbitrary bytes through the check every listed text
 * passes (store__json_object_ok): it must agree with jansson on whether
 * the text is a JSON object, except where jansson cannot hold valid JSON
 * (numbers beyond a double or an int64, \u escapes of lone surrogates). */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    bool ours = store__json_object_ok(text);
    json_error_t je;
    json_t *v = json_loads(text, JSON_ALLOW_NUL, &je);
    bool theirs = v && json_is_object(v);
    bool aside = !v && (strstr(je.text, "overflow") || strstr(je.text, "too big") ||
                        strstr(je.text, "surrogate") || strstr(je.text, "Unicode"));
    if (ours != theirs && !aside) {
        fprintf(stderr, "store__json_object_ok says %d, jansson %d (%s): %s\n", ours, theirs,
                v ? "ok" : je.text, text);
        abort();
    }
    json_decref(v);
    free(text);
    return 0;
}
