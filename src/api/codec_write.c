/* codec_write.c -- NOT YET IMPLEMENTED: both writers append nothing. The
 * YAML and JSON writers replace this file in the next commit. */
#include "api/codec.h"
#include "base/strbuf.h"

void codec_write_yaml(const json_t *v, struct sb *out)
{
    (void)v;
    (void)out;
}

void codec_write_json(const json_t *v, bool pretty, struct sb *out)
{
    (void)v;
    (void)pretty;
    (void)out;
}
