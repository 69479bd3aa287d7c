/* yaml_fuzz.c -- arbitrary bytes through the YAML reader (as a stream and
 * as one document); whatever it accepts must survive writing as YAML and
 * JSON and reading back unchanged. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_check_input((const char *)data, size, codec_parse_yaml);
    return 0;
}
