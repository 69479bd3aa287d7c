/* codec_write.c -- jansson trees to YAML and JSON text.
 *
 * YAML is written as kubectl prints it (go-yaml v2's emitter, which is a
 * port of libyaml's, so libyaml's emitter gives the same layout): block
 * style, two-space indent, sequences under a mapping key not indented,
 * empty containers as {} and [], no line wrapping. The one decision libyaml
 * cannot make is quoting by meaning: a string that would read back as
 * another type ("true", "1", "null", "", "1e3", "1:20") is double-quoted,
 * as go-yaml does; strings with a newline are literal blocks; libyaml
 * itself quotes whatever plain style cannot carry (": ", " #", leading
 * indicators, outer spaces). Reading the output back gives an equal tree.
 *
 * JSON is written directly: jansson's layout (", " never, ": " when
 * pretty), keys in insertion order, reals in their shortest round-trip
 * form rather than jansson's 17 digits. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "api/codec.h"
#include "api/codec_int.h"
#include "base/strbuf.h"

static int write_to_sb(void *data, unsigned char *buffer, size_t size)
{
    sb_add(data, buffer, size);
    return 1;
}

static void emit(yaml_emitter_t *em, yaml_event_t *ev)
{
    /* Events built here are always well-formed; libyaml fails only on
     * allocation (or on a bug here), neither of which a caller can act on. */
    if (!yaml_emitter_emit(em, ev)) {
        fprintf(stderr, "fatal: YAML emitter: %s\n", em->problem ? em->problem : "out of memory");
        abort();
    }
}

/* go-yaml's isBase60Float: ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$
 * YAML 1.1 readers take these as sexagesimal numbers, so they are quoted. */
static bool is_base60_float(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i >= n || !isdigit((unsigned char)s[i]))
        return false;
    while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '_'))
        i++;
    int groups = 0;
    while (i < n && s[i] == ':') {
        i++;
        size_t d = 0;
        while (i + d < n && isdigit((unsigned char)s[i + d]) && d < 3)
            d++;
        if (d == 0 || d > 2 || (d == 2 && s[i] > '5'))
            return false;
        i += d;
        groups++;
    }
    if (groups == 0)
        return false;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '_'))
            i++;
    }
    return i == n;
}

static void emit_scalar(yaml_emitter_t *em, const char *s, size_t n, yaml_scalar_style_t style)
{
    yaml_event_t ev;
    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)n, 1, 1, style);
    emit(em, &ev);
}

/* 1 to maxd digits at s[*i], their value in *out. */
static bool take_num(const char *s, size_t n, size_t *i, int maxd, int *out)
{
    int v = 0, d = 0;
    while (*i < n && d < maxd && isdigit((unsigned char)s[*i])) {
        v = v * 10 + (s[*i] - '0');
        (*i)++;
        d++;
    }
    *out = v;
    return d > 0 && !(*i < n && isdigit((unsigned char)s[*i]));
}

static bool take_char(const char *s, size_t n, size_t *i, char c)
{
    if (*i < n && s[*i] == c) {
        (*i)++;
        return true;
    }
    return false;
}

static int days_in(int month, int year)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[month - 1];
}

/* go-yaml's parseTimestamp: 2006-1-2, optionally followed by T15:4:5 (or t,
 * with .fraction) and a zone Z or +07:00, or by a space and a zone-less
 * time. Such strings read back as timestamps in go-yaml, so kubectl quotes
 * them ("2024-05-01T10:00:00Z"); they are quoted here for the same look. */
static bool is_timestamp(const char *s, size_t n)
{
    size_t i = 0;
    int year, month, day, hour, min, sec;
    if (!take_num(s, n, &i, 4, &year) || i != 4 || !take_char(s, n, &i, '-') ||
        !take_num(s, n, &i, 2, &month) || !take_char(s, n, &i, '-') || !take_num(s, n, &i, 2, &day))
        return false;
    if (month < 1 || month > 12 || day < 1 || day > days_in(month, year))
        return false;
    if (i == n)
        return true;
    char sep = s[i++];
    if (sep != 'T' && sep != 't' && sep != ' ')
        return false;
    if (!take_num(s, n, &i, 2, &hour) || !take_char(s, n, &i, ':') ||
        !take_num(s, n, &i, 2, &min) || !take_char(s, n, &i, ':') || !take_num(s, n, &i, 2, &sec))
        return false;
    if (hour > 23 || min > 59 || sec > 59)
        return false;
    if (i + 1 < n && (s[i] == '.' || s[i] == ',') && isdigit((unsigned char)s[i + 1])) {
        i++;
        while (i < n && isdigit((unsigned char)s[i]))
            i++;
    }
    if (sep == ' ')
        return i == n;
    if (take_char(s, n, &i, 'Z'))
        return i == n;
    int zh, zm;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        i++;
        return take_num(s, n, &i, 2, &zh) && take_char(s, n, &i, ':') &&
               take_num(s, n, &i, 2, &zm) && i == n;
    }
    return false;
}

/* CR, NEL, LS or PS: YAML readers turn these line breaks into "\n" or fold
 * them, so only escapes in double quotes carry them through unchanged. */
static bool has_odd_break(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\r')
            return true;
        if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] == 0x85)
            return true;
        if (c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
            ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9))
            return true;
    }
    return false;
}

/* A string, quoted when a reader would take it for something else. "<<"
 * is a plain string as a value but a merge as a key. */
static void emit_string(yaml_emitter_t *em, const char *s, size_t n, bool key)
{
    yaml_scalar_style_t style = YAML_PLAIN_SCALAR_STYLE;
    struct codec__scalar sc;
    if (has_odd_break(s, n)) {
        style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    } else if (memchr(s, '\n', n)) {
        style = YAML_LITERAL_SCALAR_STYLE;
    } else {
        codec__resolve(s, n, &sc);
        if (sc.kind != CODEC__STR || is_base60_float(s, n) || is_timestamp(s, n) ||
            (key && n == 2 && memcmp(s, "<<", 2) == 0))
            style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    }
    emit_scalar(em, s, n, style);
}

static void emit_node(yaml_emitter_t *em, const json_t *v)
{
    yaml_event_t ev;
    char buf[64];
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
        emit(em, &ev);
        const char *k;
        json_t *el;
        json_object_foreach((json_t *)v, k, el)
        {
            emit_string(em, k, strlen(k), true);
            emit_node(em, el);
        }
        yaml_mapping_end_event_initialize(&ev);
        emit(em, &ev);
        break;
    }
    case JSON_ARRAY:
        yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
        emit(em, &ev);
        for (size_t i = 0; i < json_array_size(v); i++)
            emit_node(em, json_array_get(v, i));
        yaml_sequence_end_event_initialize(&ev);
        emit(em, &ev);
        break;
    case JSON_STRING:
        emit_string(em, json_string_value(v), json_string_length(v), false);
        break;
    case JSON_INTEGER:
        snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        emit_scalar(em, buf, strlen(buf), YAML_PLAIN_SCALAR_STYLE);
        break;
    case JSON_REAL:
        codec__format_real(json_real_value(v), buf, sizeof(buf));
        emit_scalar(em, buf, strlen(buf), YAML_PLAIN_SCALAR_STYLE);
        break;
    case JSON_TRUE:
        emit_scalar(em, "true", 4, YAML_PLAIN_SCALAR_STYLE);
        break;
    case JSON_FALSE:
        emit_scalar(em, "false", 5, YAML_PLAIN_SCALAR_STYLE);
        break;
    case JSON_NULL:
        emit_scalar(em, "null", 4, YAML_PLAIN_SCALAR_STYLE);
        break;
    }
}

void codec_write_yaml(const json_t *v, struct sb *out)
{
    yaml_emitter_t em;
    yaml_event_t ev;
    if (!yaml_emitter_initialize(&em)) {
        fprintf(stderr, "fatal: out of memory in the YAML emitter\n");
        abort();
    }
    yaml_emitter_set_output(&em, write_to_sb, out);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_indent(&em, 2);
    yaml_emitter_set_width(&em, -1);
    yaml_emitter_set_break(&em, YAML_LN_BREAK);
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    emit(&em, &ev);
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    emit(&em, &ev);
    emit_node(&em, v);
    yaml_document_end_event_initialize(&ev, 1);
    emit(&em, &ev);
    yaml_stream_end_event_initialize(&ev);
    emit(&em, &ev);
    yaml_emitter_delete(&em);
}

static void json_string_out(const char *s, size_t n, struct sb *out)
{
    static const char hex[] = "0123456789abcdef";
    sb_addch(out, '"');
    size_t run = 0; /* bytes copied as they are, flushed in one go */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        char u[7];
        switch (c) {
        case '"':
            esc = "\\\"";
            break;
        case '\\':
            esc = "\\\\";
            break;
        case '\b':
            esc = "\\b";
            break;
        case '\f':
            esc = "\\f";
            break;
        case '\n':
            esc = "\\n";
            break;
        case '\r':
            esc = "\\r";
            break;
        case '\t':
            esc = "\\t";
            break;
        default:
            if (c < 0x20) {
                memcpy(u, "\\u00", 4);
                u[4] = hex[c >> 4];
                u[5] = hex[c & 15];
                u[6] = '\0';
                esc = u;
            }
        }
        if (!esc)
            continue;
        sb_add(out, s + run, i - run);
        sb_adds(out, esc);
        run = i + 1;
    }
    sb_add(out, s + run, n - run);
    sb_addch(out, '"');
}

static void newline(struct sb *out, int indent)
{
    sb_addch(out, '\n');
    for (int i = 0; i < indent; i++)
        sb_addch(out, ' ');
}

static void json_out(const json_t *v, bool pretty, int indent, struct sb *out)
{
    char buf[64];
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        if (json_object_size(v) == 0) {
            sb_adds(out, "{}");
            break;
        }
        sb_addch(out, '{');
        const char *k;
        json_t *el;
        bool first = true;
        json_object_foreach((json_t *)v, k, el)
        {
            if (!first)
                sb_addch(out, ',');
            first = false;
            if (pretty)
                newline(out, indent + 2);
            json_string_out(k, strlen(k), out);
            sb_adds(out, pretty ? ": " : ":");
            json_out(el, pretty, indent + 2, out);
        }
        if (pretty)
            newline(out, indent);
        sb_addch(out, '}');
        break;
    }
    case JSON_ARRAY:
        if (json_array_size(v) == 0) {
            sb_adds(out, "[]");
            break;
        }
        sb_addch(out, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                sb_addch(out, ',');
            if (pretty)
                newline(out, indent + 2);
            json_out(json_array_get(v, i), pretty, indent + 2, out);
        }
        if (pretty)
            newline(out, indent);
        sb_addch(out, ']');
        break;
    case JSON_STRING:
        json_string_out(json_string_value(v), json_string_length(v), out);
        break;
    case JSON_INTEGER:
        sb_addf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        codec__format_real(json_real_value(v), buf, sizeof(buf));
        sb_adds(out, buf);
        break;
    case JSON_TRUE:
        sb_adds(out, "true");
        break;
    case JSON_FALSE:
        sb_adds(out, "false");
        break;
    case JSON_NULL:
        sb_adds(out, "null");
        break;
    }
}

void codec_write_json(const json_t *v, bool pretty, struct sb *out)
{
    json_out(v, pretty, 0, out);
}
