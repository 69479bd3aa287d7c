/* yaml.c -- one YAML document (an apply-patch or a YAML request body) to a
 * JSON tree, with the scalar rules of sigs.k8s.io/yaml: plain scalars may be
 * null, booleans, integers or floats; quoted ones are strings. Depth and size
 * are capped; aliases are refused (no billion-laughs). */
#include "server/srv_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/err.h"

#define YAML_MAX_DEPTH 64

static json_t *scalar(const yaml_event_t *ev)
{
    const char *v = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return json_stringn(v, len);
    if (!len || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
        !strcmp(v, "NULL"))
        return json_null();
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On",
                                      "ON"};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off",
                                     "OFF"};
    for (size_t i = 0; i < CU_ARRAY_SIZE(yes); i++) {
        if (!strcmp(v, yes[i]))
            return json_true();
        if (!strcmp(v, no[i]))
            return json_false();
    }
    char *end;
    errno = 0;
    long long iv = strtoll(v, &end, 10);
    if (*v && !*end && !errno)
        return json_integer(iv);
    errno = 0;
    double dv = strtod(v, &end);
    if (*v && !*end && !errno && isfinite(dv) && strpbrk(v, "0123456789") &&
        !strpbrk(v, "xXpP"))
        return json_real(dv);
    return json_stringn(v, len);
}

struct frame {
    json_t *node;
    char *key; /* pending mapping key (owned), or NULL */
};

int srv_yaml_parse(const char *data, size_t len, json_t **out, struct err *e)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return err_set(e, ERR_INTERNAL, "cannot initialise the YAML parser");
    yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
    struct frame stack[YAML_MAX_DEPTH + 1];
    int depth = 0;
    json_t *root = NULL;
    int rc = 0;
    bool done = false, have_doc = false;
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = err_set(e, ERR_PARSE, "the request body is not valid YAML: %s (line %zu)",
                         p.problem ? p.problem : "syntax error", p.problem_mark.line + 1);
            break;
        }
        json_t *val = NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (have_doc) {
                rc = err_set(e, ERR_PARSE, "the request body holds more than one YAML document");
                done = true;
            }
            have_doc = true;
            break;
        case YAML_ALIAS_EVENT:
            rc = err_set(e, ERR_PARSE, "YAML aliases are not accepted in a request body");
            done = true;
            break;
        case YAML_SCALAR_EVENT:
            val = scalar(&ev);
            break;
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            if (depth == YAML_MAX_DEPTH) {
                rc = err_set(e, ERR_TOO_LARGE, "the request body nests deeper than %d levels",
                             YAML_MAX_DEPTH);
                done = true;
                break;
            }
            stack[depth].node = ev.type == YAML_MAPPING_START_EVENT ? json_object() : json_array();
            stack[depth].key = NULL;
            depth++;
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            depth--;
            val = stack[depth].node;
            free(stack[depth].key);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
        if (!val || rc)
            continue;
        if (depth == 0) {
            json_decref(root);
            root = val;
            continue;
        }
        struct frame *f = &stack[depth - 1];
        if (json_is_array(f->node)) {
            json_array_append_new(f->node, val);
        } else if (!f->key) {
            if (!json_is_string(val)) {
                /* Kubernetes objects have string keys only. */
                char *t = json_dumps(val, JSON_ENCODE_ANY | JSON_COMPACT);
                f->key = t ? t : strdup("");
                json_decref(val);
            } else {
                f->key = strdup(json_string_value(val));
                json_decref(val);
            }
        } else {
            json_object_set_new(f->node, f->key, val);
            free(f->key);
            f->key = NULL;
        }
    }
    while (depth > 0) {
        depth--;
        json_decref(stack[depth].node);
        free(stack[depth].key);
    }
    yaml_parser_delete(&p);
    if (rc) {
        json_decref(root);
        return rc;
    }
    *out = root ? root : json_null();
    return 0;
}
