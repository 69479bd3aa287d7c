/* Unit tests for the codec: YAML and JSON text to and from jansson trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/codec.h"
#include "api/codec_int.h"
#include "base/err.h"
#include "base/strbuf.h"

#define DATA_DIR CUEUE_SOURCE_DIR "/tests/unit/api/data/"

/* Read text as a stream named "t.yaml"; the call must succeed. */
static void read_ok(const char *text, struct codec_stream *s)
{
    struct err e;
    err_init(&e);
    int rc = codec_read_stream(text, strlen(text), "t.yaml", s, &e);
    if (rc)
        fail_msg("unexpected error %d: %s", rc, e.message);
}

/* Read text; it must fail with code and exactly message, adding nothing. */
static void read_fails(const char *text, size_t len, int code, const char *message)
{
    struct codec_stream s = {0};
    struct err e;
    err_init(&e);
    int rc = codec_read_stream(text, len, "t.yaml", &s, &e);
    if (rc != code)
        fail_msg("expected %d, got %d (%s) for <%.60s>", code, rc, e.message, text);
    assert_string_equal(e.message, message);
    assert_int_equal(s.n, 0);
    codec_stream_release(&s);
}

static void fails(const char *text, int code, const char *message)
{
    read_fails(text, strlen(text), code, message);
}

static const char *context = ""; /* named in a failure message */

/* The tree text gives, compared with the JSON expected (any value). */
static void assert_json(const json_t *got, const char *expected)
{
    json_error_t jerr;
    json_t *want = json_loads(expected, JSON_DECODE_ANY, &jerr);
    if (!want)
        fail_msg("bad expectation %s: %s", expected, jerr.text);
    if (!json_equal(got, want)) {
        char *g = json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT);
        char *w = json_dumps(want, JSON_ENCODE_ANY | JSON_COMPACT);
        fail_msg("%s: got %s, want %s", context, g, w);
    }
    json_decref(want);
}

/* ---- scalar resolution ---- */

struct scalar_case {
    const char *yaml; /* the text after "v: " */
    const char *json; /* what v must become */
};

static const struct scalar_case scalar_cases[] = {
    /* nulls */
    {"~", "null"},
    {"null", "null"},
    {"Null", "null"},
    {"NULL", "null"},
    {"", "null"},
    {"nULL", "\"nULL\""},
    /* YAML 1.1 booleans, exactly go-yaml v2's spellings */
    {"true", "true"},
    {"True", "true"},
    {"TRUE", "true"},
    {"tRUE", "\"tRUE\""},
    {"yes", "true"},
    {"Yes", "true"},
    {"YES", "true"},
    {"yEs", "\"yEs\""},
    {"y", "true"},
    {"Y", "true"},
    {"on", "true"},
    {"On", "true"},
    {"ON", "true"},
    {"false", "false"},
    {"False", "false"},
    {"FALSE", "false"},
    {"no", "false"},
    {"No", "false"},
    {"NO", "false"},
    {"n", "false"},
    {"N", "false"},
    {"off", "false"},
    {"Off", "false"},
    {"OFF", "false"},
    /* integers */
    {"0", "0"},
    {"-0", "0"},
    {"+12", "12"},
    {"012", "10"},
    {"0o17", "15"},
    {"0x1F", "31"},
    {"0X1f", "31"},
    {"0b101", "5"},
    {"-0x10", "-16"},
    {"1_000", "1000"},
    {"0x", "\"0x\""},
    {"9223372036854775807", "9223372036854775807"},
    {"-9223372036854775808", "-9223372036854775808"},
    /* beyond int64: a real, as Go's JSON would carry it */
    {"9223372036854775808", "9223372036854775808.0"},
    {"-9223372036854775808.0", "-9223372036854775808"},
    {"-9223372036854775809", "-9223372036854775808"}, /* as a float, exactly -2^63 */
    {"18446744073709551616", "1.8446744073709552e19"},
    {"0x1FFFFFFFFFFFFFFFF", "\"0x1FFFFFFFFFFFFFFFF\""},
    /* floats: integral ones are integers once through JSON */
    {"09", "9"},
    {"1e3", "1000"},
    {"1.", "1"},
    {"1.0", "1"},
    {"1.5", "1.5"},
    {".5", "0.5"},
    {"-.5", "-0.5"},
    {"+.5e1", "5"},
    {"1_0.5", "10.5"},
    {"6.02e23", "6.02e23"},
    {"0.1", "0.1"},
    {"1e400", "\"1e400\""},
    {"12e", "\"12e\""},
    {"._5", "\"._5\""},
    /* strings */
    {"2001-12-14", "\"2001-12-14\""},
    {"1:20", "\"1:20\""},
    {"+", "\"+\""},
    {"-a", "\"-a\""},
    {"<<", "\"<<\""},
    {"hello world", "\"hello world\""},
    {"'1'", "\"1\""},
    {"\"true\"", "\"true\""},
    {"''", "\"\""},
    {"\"a\\tb\\u00e9\"", "\"a\\tb\\u00e9\""},
    /* explicit tags */
    {"!!str 1", "\"1\""},
    {"!!str true", "\"true\""},
    {"!!int \"0x10\"", "16"},
    {"!!float 2", "2"},
    {"!!float 2.5", "2.5"},
    {"!!bool yes", "true"},
    {"!!null ~", "\"~\""},
    {"! 12", "\"12\""},
    {"!custom 12", "\"12\""},
    /* block scalars are strings */
    {"|\n  12\n", "\"12\\n\""},
    {">-\n  a\n  b\n", "\"a b\""},
};

static void test_read_stream_scalars(void **state)
{
    for (size_t i = 0; i < sizeof(scalar_cases) / sizeof(scalar_cases[0]); i++) {
        const struct scalar_case *c = &scalar_cases[i];
        char text[256];
        snprintf(text, sizeof(text), "v: %s\n", c->yaml);
        struct codec_stream s = {0};
        read_ok(text, &s);
        assert_int_equal(s.n, 1);
        context = c->yaml;
        assert_json(json_object_get(s.docs[0].obj, "v"), c->json);
        context = "";
        codec_stream_release(&s);
    }
}

static void test_read_stream_scalar_errors(void **state)
{
    fails("a: .inf\n", ERR_PARSE, "t.yaml:1:4: cannot represent .inf in JSON");
    fails("a:\n  b: -.Inf\n", ERR_PARSE, "t.yaml:2:6: cannot represent -.Inf in JSON");
    fails("a: .NaN\n", ERR_PARSE, "t.yaml:1:4: cannot represent .NaN in JSON");
    fails("a: !!int x\n", ERR_PARSE, "t.yaml:1:4: cannot decode !!str `x` as a !!int");
    fails("a: !!bool 1\n", ERR_PARSE, "t.yaml:1:4: cannot decode !!int `1` as a !!bool");
    fails("a: !!int 1.5\n", ERR_PARSE, "t.yaml:1:4: cannot decode !!float `1.5` as a !!int");
}

static void test_read_stream_keys(void **state)
{
    struct codec_stream s = {0};
    /* Non-string keys become strings as sigs.k8s.io/yaml writes them:
     * floats as a Go float32, y/n/on/off as booleans. */
    read_ok("1: a\ntrue: b\n1.5: c\n1e10: d\n0x10: e\n\"y\": f\noff: g\n\"on\": h\n0.1: i\n", &s);
    assert_json(s.docs[0].obj, "{\"1\":\"a\",\"true\":\"b\",\"1.5\":\"c\",\"1e+10\":\"d\","
                               "\"16\":\"e\",\"y\":\"f\",\"false\":\"g\",\"on\":\"h\","
                               "\"0.1\":\"i\"}");
    codec_stream_release(&s);
    /* the Norway problem, as Kubernetes has it: y is true */
    fails("true: 1\ny: 2\n", ERR_PARSE,
          "t.yaml:2:1: mapping key \"true\" already defined at line 1");
    fails("~: a\n", ERR_PARSE, "t.yaml:1:1: unsupported mapping key null");
    fails("? [a]\n: b\n", ERR_PARSE, "t.yaml:1:3: unsupported mapping key: a sequence");
    fails("a: 1\n\"\\0\": 2\n", ERR_PARSE, "t.yaml:2:1: mapping key contains a NUL character");
}

static void test_read_stream_duplicate_keys(void **state)
{
    fails("a: 1\nb: 2\na: 3\n", ERR_PARSE,
          "t.yaml:3:1: mapping key \"a\" already defined at line 1");
    fails("x:\n  a: 1\n  b:\n    c: 1\n  a: 2\n", ERR_PARSE,
          "t.yaml:5:3: mapping key \"a\" already defined at line 2");
    /* 1 and 0x1 are the same key once resolved */
    fails("1: a\n0x1: b\n", ERR_PARSE, "t.yaml:2:1: mapping key \"1\" already defined at line 1");
    fails("{\"a\": 1,\n \"a\": 2}", ERR_PARSE, "t.yaml:2:4: duplicate object key near '\"a\"'");
}

/* ---- anchors, aliases, merges ---- */

static void test_read_stream_anchors(void **state)
{
    struct codec_stream s = {0};
    read_ok("base: &b {cpu: 1, mem: 2}\n"
            "list: &l [1, 2]\n"
            "s: &s word\n"
            "c:\n"
            "  x: 0\n"
            "  <<: *b\n"
            "  cpu: 5\n"
            "d: *l\n"
            "e: [*s, *s]\n"
            "f:\n"
            "  <<: [{a: 1, cpu: 9}, *b]\n"
            "  b: 2\n"
            "*s : key-from-alias\n",
            &s);
    assert_json(s.docs[0].obj,
                "{\"base\":{\"cpu\":1,\"mem\":2},\"list\":[1,2],\"s\":\"word\","
                "\"c\":{\"x\":0,\"mem\":2,\"cpu\":5},\"d\":[1,2],\"e\":[\"word\",\"word\"],"
                "\"f\":{\"a\":1,\"cpu\":9,\"mem\":2,\"b\":2},\"word\":\"key-from-alias\"}");
    /* aliases are copies: changing one leaves the other */
    json_object_set_new(json_object_get(s.docs[0].obj, "base"), "cpu", json_integer(7));
    assert_json(json_object_get(json_object_get(s.docs[0].obj, "c"), "cpu"), "5");
    assert_json(json_object_get(json_object_get(s.docs[0].obj, "f"), "mem"), "2");
    codec_stream_release(&s);

    fails("a: *x\n", ERR_PARSE, "t.yaml:1:4: unknown anchor 'x' referenced");
    fails("a: &a [1, *a]\n", ERR_PARSE, "t.yaml:1:11: anchor 'a' value contains itself");
    fails("a: &a 1\n---\nb: *a\n", ERR_PARSE, "t.yaml:3:4: unknown anchor 'a' referenced");
    fails("a:\n  <<: 1\n", ERR_PARSE,
          "t.yaml:2:7: map merge requires map or sequence of maps as the value");
    fails("a:\n  <<: [{b: 1}, [2]]\n", ERR_PARSE,
          "t.yaml:2:7: map merge requires map or sequence of maps as the value");
}

static void test_read_stream_billion_laughs(void **state)
{
    struct sb y = SB_INIT;
    sb_adds(&y,
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (char c = 'b'; c <= 'i'; c++)
        sb_addf(&y, "%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c]\n", c, c, c - 1, c - 1, c - 1,
                c - 1, c - 1, c - 1, c - 1, c - 1, c - 1);
    struct codec_stream s = {0};
    struct err e;
    err_init(&e);
    int rc = codec_read_stream(y.buf, y.len, "t.yaml", &s, &e);
    assert_int_equal(rc, ERR_TOO_LARGE);
    assert_non_null(strstr(e.message, ": document contains excessive aliasing"));
    assert_int_equal(s.n, 0);
    sb_release(&y);

    /* Moderate reuse stays allowed: 2000 aliases of a small mapping. */
    struct sb ok = SB_INIT;
    sb_adds(&ok, "base: &b {a: 1, b: 2, c: 3}\nuse:\n");
    for (int i = 0; i < 2000; i++)
        sb_adds(&ok, "- *b\n");
    err_init(&e);
    rc = codec_read_stream(ok.buf, ok.len, "t.yaml", &s, &e);
    assert_int_equal(rc, 0);
    assert_int_equal(json_array_size(json_object_get(s.docs[0].obj, "use")), 2000);
    codec_stream_release(&s);
    sb_release(&ok);
}

/* ---- streams ---- */

static void test_read_stream_documents(void **state)
{
    struct codec_stream s = {0};
    read_ok("# leading comment\n"
            "a: 1\n"
            "---\n"
            "---\n"
            "# only a comment\n"
            "--- # separator with a comment\n"
            "\n"
            "b: 2\n"
            "...\n"
            "---\n"
            "~\n"
            "---\n"
            "c: 3\n",
            &s);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.docs[0].index, 0);
    assert_int_equal(s.docs[0].line, 2);
    assert_json(s.docs[0].obj, "{\"a\":1}");
    assert_int_equal(s.docs[1].index, 1);
    assert_int_equal(s.docs[1].line, 8);
    assert_json(s.docs[1].obj, "{\"b\":2}");
    assert_int_equal(s.docs[2].index, 2);
    assert_int_equal(s.docs[2].line, 13);
    codec_stream_release(&s);

    /* appending to a stream that already holds documents */
    read_ok("x: 1\n", &s);
    read_ok("y: 1\n---\nz: 1\n", &s);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.docs[2].index, 1);
    assert_int_equal(s.docs[2].line, 3);
    codec_stream_release(&s);

    read_ok("", &s);
    read_ok("# nothing\n---\n", &s);
    assert_int_equal(s.n, 0);
    codec_stream_release(&s);
}

static void test_read_stream_not_a_mapping(void **state)
{
    fails("a: 1\n---\n- x\n", ERR_PARSE,
          "t.yaml:3:1: document 1 must be a mapping, got a sequence");
    fails("hello\n", ERR_PARSE, "t.yaml:1:1: document 0 must be a mapping, got a string");
    fails("a: 1\n---\n42\n", ERR_PARSE, "t.yaml:3:1: document 1 must be a mapping, got a number");
    fails("[1, 2]", ERR_PARSE, "t.yaml:1:1: document 0 must be a mapping, got a sequence");
    fails("{\"a\": 1} 7", ERR_PARSE, "t.yaml:1:10: expected a JSON object, got '7'");
    /* the whole stream fails: documents before the bad one are not kept */
    struct codec_stream s = {0};
    struct err e;
    err_init(&e);
    const char *text = "a: 1\n---\nb: [\n";
    assert_int_equal(codec_read_stream(text, strlen(text), "t.yaml", &s, &e), ERR_PARSE);
    assert_int_equal(s.n, 0);
    codec_stream_release(&s);
}

static void test_read_stream_syntax_errors(void **state)
{
    fails("a: [\n", ERR_PARSE, "t.yaml:2:1: did not find expected node content");
    fails("a: 1\n---\nb:\n\tc: 1\n", ERR_PARSE,
          "t.yaml:4:1: found character that cannot start any token");
    fails("a: b: c\n", ERR_PARSE, "t.yaml:1:5: mapping values are not allowed in this context");
    fails("a: 1\n b: 2\n", ERR_PARSE, "t.yaml:2:3: mapping values are not allowed in this context");
    fails("a: \"x\n", ERR_PARSE, "t.yaml:2:1: found unexpected end of stream");
    fails("{\n  \"a\": 1,\n  \"b\": x}", ERR_PARSE, "t.yaml:3:8: invalid token near 'x'");
    fails("{\"a\": 1", ERR_PARSE, "t.yaml:1:7: '}' expected near end of file");
    fails("\xff\xfe"
          "a\0:\0",
          ERR_PARSE, "t.yaml:1:1: input is UTF-16, not UTF-8");
}

static void test_read_stream_invalid_utf8(void **state)
{
    fails("a: 1\nb: \"x\xff\"\n", ERR_PARSE,
          "t.yaml:2:6: invalid input: invalid leading UTF-8 octet (0xff)");
    fails("a: 1\n---\nb: caf\xc3\n", ERR_PARSE,
          "t.yaml:3:8: invalid input: invalid trailing UTF-8 octet (0xa)");
    fails("a: \xc0\xaf\n", ERR_PARSE,
          "t.yaml:1:4: invalid input: invalid length of a UTF-8 sequence");
    fails("{\"a\": \"\xff\"}", ERR_PARSE, "t.yaml:1:7: unable to decode byte 0xff near '\"'");
    read_fails("a: \"x\0y\"\n", 9, ERR_PARSE,
               "t.yaml:1:6: invalid input: control characters are not allowed (0x0)");
}

/* ---- Lists ---- */

static void test_read_stream_lists(void **state)
{
    struct codec_stream s = {0};
    read_ok("a: 0\n"
            "---\n"
            "apiVersion: v1\n"
            "kind: List\n"
            "items:\n"
            "- kind: A\n"
            "  n: 1\n"
            "-   kind: B\n"
            "---\n"
            "kind: ClusterQueueList\n"
            "items: [{kind: C}]\n"
            "---\n"
            "kind: List\n"
            "items: []\n"
            "---\n"
            "kind: Last\n",
            &s);
    assert_int_equal(s.n, 5);
    const char *kinds[] = {NULL, "A", "B", "C", "Last"};
    const int lines[] = {1, 6, 8, 11, 16};
    for (size_t i = 0; i < s.n; i++) {
        assert_int_equal(s.docs[i].index, i);
        assert_int_equal(s.docs[i].line, lines[i]);
        if (kinds[i])
            assert_string_equal(json_string_value(json_object_get(s.docs[i].obj, "kind")),
                                kinds[i]);
    }
    codec_stream_release(&s);

    read_ok("{\"kind\": \"List\", \"items\": [{\"kind\": \"A\"}, {\"kind\": \"B\"}]}\n"
            "{\"kind\": \"C\"}",
            &s);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.docs[2].index, 2);
    assert_int_equal(s.docs[2].line, 2);
    codec_stream_release(&s);

    fails("kind: List\nitems:\n- a: 1\n- 2\n", ERR_PARSE,
          "t.yaml:4:3: item 1 of the List must be a mapping, got a number");
}

/* ---- JSON ---- */

static void test_read_stream_json(void **state)
{
    struct codec_stream s = {0};
    /* integral reals become integers, as YAML's 1.0 and 1e3 do */
    read_ok("  \n{\"z\": 1, \"a\": {\"y\": 1.0, \"b\": 2.5, \"c\": [1e3, \"x\"]}, \"m\": null}",
            &s);
    assert_int_equal(s.n, 1);
    assert_json(s.docs[0].obj, "{\"z\":1,\"a\":{\"y\":1,\"b\":2.5,\"c\":[1000,\"x\"]},\"m\":null}");
    const char *order[] = {"z", "a", "m"};
    size_t i = 0;
    const char *k;
    json_t *v;
    json_object_foreach(s.docs[0].obj, k, v)
    {
        assert_string_equal(k, order[i]);
        i++;
    }
    codec_stream_release(&s);
}

static void test_read_stream_json_big_integers(void **state)
{
    /* beyond int64 a JSON integer is a real, as in Kubernetes (float64) */
    struct codec_stream s = {0};
    read_ok("{\"a\": 18446744073709551616, \"b\": -9223372036854775809,\n"
            " \"c\": 9223372036854775807, \"d\": [\"99999999999999999999\", 1e2],\n"
            " \"e\": -9223372036854775808}",
            &s);
    assert_json(s.docs[0].obj, "{\"a\":1.8446744073709552e19,\"b\":-9223372036854775808,"
                               "\"c\":9223372036854775807,\"d\":[\"99999999999999999999\",100],"
                               "\"e\":-9223372036854775808}");
    codec_stream_release(&s);
    fails("{\"a\": 18446744073709551616,\n \"b\": x}", ERR_PARSE,
          "t.yaml:2:7: invalid token near 'x'");
}

static void test_parse_json(void **state)
{
    json_t *v;
    struct err e;
    err_init(&e);
    assert_int_equal(codec_parse_json("[1, 2.0, \"x\"]", strlen("[1, 2.0, \"x\"]"), &v, &e), 0);
    assert_json(v, "[1,2,\"x\"]");
    json_decref(v);
    assert_int_equal(codec_parse_json("\"s\"", strlen("\"s\""), &v, &e), 0);
    assert_json(v, "\"s\"");
    json_decref(v);
    assert_int_equal(codec_parse_json("{\"a\":1}{", strlen("{\"a\":1}{"), &v, &e), ERR_PARSE);
    assert_null(v);
    assert_string_equal(e.message, "input:1:8: end of file expected near '{'");
    assert_int_equal(codec_parse_json("{\"a\":1,\"a\":1}", strlen("{\"a\":1,\"a\":1}"), &v, &e),
                     ERR_PARSE);
}

/* codec_load_json(text, len, flags) against json_loadb: the same tree,
 * members in the same order, or the same error. */
static void load_as_jansson(const char *text, size_t len, size_t flags)
{
    json_error_t werr, gerr;
    json_t *want = json_loadb(text, len, flags, &werr);
    json_t *got = codec_load_json(text, len, flags, &gerr);
    if (!want != !got)
        fail_msg("%.*s (flags %zu): want %s, got %s", (int)len, text, flags,
                 want ? "a tree" : werr.text, got ? "a tree" : gerr.text);
    if (!want) {
        if (strcmp(werr.text, gerr.text) || werr.line != gerr.line || werr.column != gerr.column ||
            werr.position != gerr.position)
            fail_msg("%.*s (flags %zu): want \"%s\" at %d:%d, got \"%s\" at %d:%d", (int)len, text,
                     flags, werr.text, werr.line, werr.column, gerr.text, gerr.line, gerr.column);
        return;
    }
    size_t dump = JSON_COMPACT | JSON_ENCODE_ANY;
    char *w = json_dumps(want, dump), *g = json_dumps(got, dump);
    if (strcmp(w, g))
        fail_msg("%.*s (flags %zu): want %s, got %s", (int)len, text, flags, w, g);
    free(w);
    free(g);
    json_decref(want);
    json_decref(got);
}

/* Plain JSON is read without jansson's lexer (codec.c's fast_decode), and
 * must give what jansson gives: the same tree, members in the same order,
 * or the same refusal. Every one-byte deletion, replacement and insertion
 * of three documents (the last one not plain) is read both ways, by
 * codec_parse_json and by codec_load_json with the flags of its callers
 * (a stored document may have bytes after it). */
static void parse_as_jansson(const char *text, size_t len)
{
    load_as_jansson(text, len, 0);
    load_as_jansson(text, len, JSON_ALLOW_NUL);
    load_as_jansson(text, len, JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL);

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
        if (rc != ERR_PARSE || strcmp(e.message, msg))
            fail_msg("%.*s: want \"%s\", got %d \"%s\"", (int)len, text, msg, rc, e.message);
        return;
    }
    if (rc)
        fail_msg("%.*s: want it read, got \"%s\"", (int)len, text, e.message);
    size_t flags = JSON_COMPACT | JSON_ENCODE_ANY;
    want = codec__normalize(want); /* takes the tree, gives another */
    char *w = json_dumps(want, flags), *g = json_dumps(got, flags);
    if (strcmp(w, g))
        fail_msg("%.*s: want %s, got %s", (int)len, text, w, g);
    free(w);
    free(g);
    json_decref(want);
    json_decref(got);
}

static void test_parse_json_plain_as_jansson(void **state)
{
    static const char *docs[] = {
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
        "\"uid\":\"u\",\"kind\":{\"group\":\"kueue.x-k8s.io\",\"kind\":\"ClusterQueue\"},"
        "\"operation\":\"CREATE\",\"object\":{\"metadata\":{\"name\":\"cq\"},\"spec\":{"
        "\"resourceGroups\":[{\"coveredResources\":[\"cpu\"],\"flavors\":[{\"name\":\"f\","
        "\"resources\":[{\"name\":\"cpu\",\"nominalQuota\":\"3\"}]}]}]}}}}",
        " {\"a0\" : [true, false,null,-0,0,7 ,-123456789012345678,123456789012345678],"
        " \"a1\":{\"\":[[ ],{}]},\"x\":\"s t\"}\n",
        " [ {\"a\" : [true, false, null, -0, 0, 7, -123456789012345678, 123456789012345678,"
        " 1.5, 2.0, \"\", \"s\\n\\u00e9\", \"\xc3\xa9\"], \"\": {\"b\": [[], {}]}, \"c\": 1e2} ]\n",
    };
    static const char subst[] = "\"\\{}[],: 0-.et\x01\x7f\xc3\xff";
    (void)state;
    for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
        size_t n = strlen(docs[d]);
        char *buf = malloc(n + 2);
        parse_as_jansson(docs[d], n);
        for (size_t i = 0; i <= n; i++) {
            if (i < n) { /* deleted */
                memcpy(buf, docs[d], i);
                memcpy(buf + i, docs[d] + i + 1, n - i - 1);
                parse_as_jansson(buf, n - 1);
            }
            for (size_t c = 0; c < sizeof(subst); c++) { /* the NUL too */
                if (i < n) {                             /* replaced */
                    memcpy(buf, docs[d], n);
                    buf[i] = subst[c];
                    parse_as_jansson(buf, n);
                }
                memcpy(buf, docs[d], i); /* inserted */
                buf[i] = subst[c];
                memcpy(buf + i + 1, docs[d] + i, n - i);
                parse_as_jansson(buf, n + 1);
            }
        }
        free(buf);
    }
}

/* What the store's and the clients' callers rely on: bytes after a stored
 * document are ignored only with JSON_DISABLE_EOF_CHECK; a real, an escape
 * or a duplicate member is read as jansson reads it. */
static void test_load_json(void **state)
{
    (void)state;
    static const char doc[] = "{\"a\":[1,{\"b\":null}],\"c\":\"d\"} x{";
    size_t value = strlen("{\"a\":[1,{\"b\":null}],\"c\":\"d\"}");
    json_error_t jerr;
    json_t *v = codec_load_json(doc, strlen(doc), JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL, &jerr);
    assert_non_null(v);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(v, "a"), 0)), 1);
    assert_string_equal(json_string_value(json_object_get(v, "c")), "d");
    assert_string_equal(jerr.text, "");
    json_decref(v);
    assert_null(codec_load_json(doc, strlen(doc), JSON_ALLOW_NUL, &jerr));
    assert_string_equal(jerr.text, "end of file expected near 'x'");
    v = codec_load_json(doc, value, 0, NULL);
    assert_non_null(v);
    json_decref(v);
    static const char *others[] = {
        "{\"a\":[7]} ",
        "{\"a\":1.5}",
        "{\"a\":\"\\u0000b\"}",
        "{\"a\":1,\"a\":2}",
        "[1234567890123456789]",
        "{\"a\":\"\xc3\xa9\"} {",
        "\"s\"",
        "",
    };
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
        for (size_t f = 0; f < 8; f++) {
            size_t flags = (f & 1 ? JSON_DISABLE_EOF_CHECK : 0) | (f & 2 ? JSON_ALLOW_NUL : 0) |
                           (f & 4 ? JSON_REJECT_DUPLICATES | JSON_DECODE_ANY : 0);
            load_as_jansson(others[i], strlen(others[i]), flags);
            load_as_jansson(others[i], strlen(others[i]), flags | JSON_DECODE_INT_AS_REAL);
        }
}

static void test_parse_yaml(void **state)
{
    json_t *v;
    struct err e;
    err_init(&e);
    assert_int_equal(codec_parse_yaml("- 1\n- yes\n", strlen("- 1\n- yes\n"), &v, &e), 0);
    assert_json(v, "[1,true]");
    json_decref(v);
    assert_int_equal(codec_parse_yaml("# nothing\n", strlen("# nothing\n"), &v, &e), 0);
    assert_true(json_is_null(v));
    json_decref(v);
    assert_int_equal(codec_parse_yaml("a: 1\n---\nb: 2\n", strlen("a: 1\n---\nb: 2\n"), &v, &e),
                     ERR_PARSE);
    assert_null(v);
    assert_string_equal(e.message, "input:3:1: expected one document, found another");
}

/* ---- caps ---- */

static void test_read_stream_deep_nesting(void **state)
{
    size_t n = 100000;
    char *deep = malloc(n + 8);
    memset(deep, '[', n);
    deep[n] = '\0';
    read_fails(deep, n, ERR_TOO_LARGE, "t.yaml:1:65: nesting deeper than 64 levels");
    /* the same in YAML flow style, after a key */
    memcpy(deep, "a: ", 3);
    read_fails(deep, n, ERR_TOO_LARGE, "t.yaml:1:67: nesting deeper than 64 levels");
    json_t *v;
    struct err e;
    err_init(&e);
    memset(deep, '[', n);
    assert_int_equal(codec_parse_json(deep, n, &v, &e), ERR_TOO_LARGE);
    assert_string_equal(e.message, "input:1:65: nesting deeper than 64 levels");
    free(deep);

    /* exactly 64 levels is fine: the root mapping and 63 sequences */
    struct sb ok = SB_INIT;
    sb_adds(&ok, "{\"a\":");
    for (int i = 0; i < 63; i++)
        sb_addch(&ok, '[');
    for (int i = 0; i < 63; i++)
        sb_addch(&ok, ']');
    sb_addch(&ok, '}');
    struct codec_stream s = {0};
    read_ok(ok.buf, &s);
    assert_int_equal(s.n, 1);
    codec_stream_release(&s);
    /* and in block YAML, 65 nested mappings are refused */
    sb_reset(&ok);
    for (int i = 0; i < 65; i++) {
        for (int j = 0; j < i; j++)
            sb_adds(&ok, "  ");
        sb_adds(&ok, "k:\n");
    }
    read_fails(ok.buf, ok.len, ERR_TOO_LARGE, "t.yaml:65:129: nesting deeper than 64 levels");
    /* aliases count their depth too */
    sb_reset(&ok);
    sb_adds(&ok, "a: &a ");
    for (int i = 0; i < 40; i++)
        sb_addch(&ok, '[');
    for (int i = 0; i < 40; i++)
        sb_addch(&ok, ']');
    sb_adds(&ok, "\nb: [[[[[[[[[[[[[[[[[[[[[[[[[[*a]]]]]]]]]]]]]]]]]]]]]]]]]]\n");
    read_fails(ok.buf, ok.len, ERR_TOO_LARGE, "t.yaml:2:30: nesting deeper than 64 levels");
    sb_release(&ok);
}

static void test_read_stream_large_document(void **state)
{
    size_t n = 10u << 20;
    char *big = malloc(n + 1);
    memset(big, 'x', n);
    memcpy(big, "a: 1\n---\nb: ", 12);
    big[n] = '\0';
    read_fails(big, n, ERR_TOO_LARGE, "t.yaml:2:1: document is larger than 3145728 bytes");
    memcpy(big, "{\"a\":\"", 6);
    read_fails(big, n, ERR_TOO_LARGE, "t.yaml:1:1: document is larger than 3145728 bytes");
    json_t *v;
    struct err e;
    err_init(&e);
    assert_int_equal(codec_parse_json(big, n, &v, &e), ERR_TOO_LARGE);
    assert_int_equal(codec_parse_yaml(big, n, &v, &e), ERR_TOO_LARGE);
    free(big);

    /* the stream cap is checked before anything is read */
    read_fails("x", (size_t)CODEC_MAX_STREAM_BYTES + 1, ERR_TOO_LARGE,
               "t.yaml:1:1: stream is larger than 536870912 bytes");

    /* a document just under the cap is read */
    size_t m = CODEC_MAX_DOC_BYTES - 16;
    char *fits = malloc(m + 1);
    memset(fits, 'y', m);
    memcpy(fits, "a: ", 3);
    fits[m - 1] = '\n';
    fits[m] = '\0';
    struct codec_stream s = {0};
    read_ok(fits, &s);
    assert_int_equal(json_string_length(json_object_get(s.docs[0].obj, "a")), m - 4);
    codec_stream_release(&s);
    free(fits);
}

/* ---- files ---- */

static void test_read_file_examples(void **state)
{
    static const struct {
        const char *file;
        size_t docs;
    } files[] = {
        {"dra-gpu-config.yaml", 1},         {"dra-gpu-job-a.yaml", 1},
        {"dra-gpu-job-b.yaml", 1},          {"dra-gpu-queues.yaml", 5},
        {"quota-lab-admitted-job.yaml", 1}, {"quota-lab-over-quota-job.yaml", 1},
        {"quota-lab-queues.yaml", 4},
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), DATA_DIR "%s", files[i].file);
        struct codec_stream s = {0};
        struct err e;
        err_init(&e);
        int rc = codec_read_file(path, &s, &e);
        if (rc)
            fail_msg("%s: %s", path, e.message);
        assert_int_equal(s.n, files[i].docs);
        for (size_t d = 0; d < s.n; d++) {
            assert_true(json_is_string(json_object_get(s.docs[d].obj, "apiVersion")));
            assert_true(json_is_string(json_object_get(s.docs[d].obj, "kind")));
        }
        codec_stream_release(&s);
    }
}

static void test_read_file_errors(void **state)
{
    struct codec_stream s = {0};
    struct err e;
    err_init(&e);
    assert_int_equal(codec_read_file(DATA_DIR "no-such-file.yaml", &s, &e), ERR_IO);
    assert_non_null(strstr(e.message, "cannot open '"));
    assert_non_null(strstr(e.message, "no-such-file.yaml': No such file or directory"));
    assert_int_equal(codec_read_file(DATA_DIR, &s, &e), ERR_IO);
    assert_non_null(strstr(e.message, "Is a directory"));
    assert_int_equal(s.n, 0);
}

static void test_read_stream_binary(void **state)
{
    struct codec_stream s = {0};
    /* !!binary is decoded; bytes that are not UTF-8 become U+FFFD, as Go's
     * JSON encoder writes them */
    read_ok("a: !!binary aGVsbG8=\n"
            "b: !!binary |\n"
            "  aGVs\n"
            "  bG8=\n"
            "c: !!binary /w==\n",
            &s);
    assert_json(s.docs[0].obj, "{\"a\":\"hello\",\"b\":\"hello\",\"c\":\"\\ufffd\"}");
    codec_stream_release(&s);
    fails("a: !!binary aGVsbG8\n", ERR_PARSE,
          "t.yaml:1:4: !!binary value contains invalid base64 data");
}

static void test_read_stream_alias_bytes(void **state)
{
    /* Few aliases of a large string copy a lot of text: bounded too. */
    struct sb y = SB_INIT;
    sb_adds(&y, "a: &a ");
    for (int i = 0; i < 100000; i++)
        sb_addch(&y, 'x');
    sb_adds(&y, "\nb: [");
    for (int i = 0; i < 40; i++)
        sb_adds(&y, i ? ", *a" : "*a");
    sb_adds(&y, "]\n");
    read_fails(y.buf, y.len, ERR_TOO_LARGE, "t.yaml:2:129: document contains excessive aliasing");
    sb_release(&y);
}

static void test_read_stream_key_caps(void **state)
{
    struct sb y = SB_INIT;
    sb_adds(&y, "? \"");
    for (int i = 0; i < 70000; i++)
        sb_addch(&y, 'k');
    sb_adds(&y, "\"\n: 1\n");
    read_fails(y.buf, y.len, ERR_TOO_LARGE, "t.yaml:1:3: mapping key longer than 65536 bytes");
    sb_release(&y);
    fails("{\"a\\u0000b\": 1}", ERR_PARSE,
          "t.yaml:1:11: NUL byte in object key not supported near '\"a\\u0000b\"'");
    /* NUL is fine inside values, from YAML and from JSON alike */
    struct codec_stream s = {0};
    read_ok("a: \"x\\0y\"\n", &s);
    read_ok("{\"a\": \"x\\u0000y\"}", &s);
    assert_int_equal(s.n, 2);
    assert_true(json_equal(s.docs[0].obj, s.docs[1].obj));
    assert_int_equal(json_string_length(json_object_get(s.docs[0].obj, "a")), 3);
    codec_stream_release(&s);
}

static void test_read_stream_many_documents(void **state)
{
    /* 200,000 JSON documents on one line and as many YAML documents: the
     * reader must stay linear (this would take minutes if quadratic). */
    struct sb j = SB_INIT, y = SB_INIT;
    for (int i = 0; i < 200000; i++) {
        sb_addf(&j, "{\"i\":%d}", i);
        sb_addf(&y, "---\ni: %d\n", i);
    }
    sb_adds(&j, " {");
    struct codec_stream s = {0};
    struct err e;
    err_init(&e);
    assert_int_equal(codec_read_stream(j.buf, j.len, "t.json", &s, &e), ERR_PARSE);
    char want[128];
    snprintf(want, sizeof(want), "t.json:1:%zu: string or '}' expected near end of file", j.len);
    assert_string_equal(e.message, want);
    assert_int_equal(codec_read_stream(y.buf, y.len, "t.yaml", &s, &e), 0);
    assert_int_equal(s.n, 200000);
    assert_int_equal(s.docs[199999].line, 2 * 199999 + 2);
    assert_int_equal(json_integer_value(json_object_get(s.docs[199999].obj, "i")), 199999);
    codec_stream_release(&s);
    sb_release(&j);
    sb_release(&y);
}

static void test_read_stream_bom_and_crlf(void **state)
{
    struct codec_stream s = {0};
    read_ok("\xef\xbb\xbf"
            "a: 1\r\nb: x\r\n---\r\nc: 2\r\n",
            &s);
    assert_int_equal(s.n, 2);
    assert_json(s.docs[0].obj, "{\"a\":1,\"b\":\"x\"}");
    assert_int_equal(s.docs[1].line, 4);
    codec_stream_release(&s);
    read_ok("\xef\xbb\xbf{\"a\": 1}", &s);
    assert_int_equal(s.n, 1);
    codec_stream_release(&s);
}

static void test_read_file_stdin(void **state)
{
    char path[] = "/tmp/codec_test_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "a: 1\n---\nb: 2\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_non_null(freopen(path, "r", stdin));
    struct codec_stream s = {0};
    struct err e;
    err_init(&e);
    assert_int_equal(codec_read_file("-", &s, &e), 0);
    assert_int_equal(s.n, 2);
    codec_stream_release(&s);
    unlink(path);
}

/* ---- writers ---- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    struct sb sb = SB_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        sb_add(&sb, buf, n);
    fclose(f);
    return sb_take(&sb);
}

static void yaml_is(const json_t *v, const char *expected)
{
    struct sb out = SB_INIT;
    codec_write_yaml(v, &out);
    assert_string_equal(sb_str(&out), expected);
    sb_release(&out);
}

/* The YAML file, read and written again, comes out byte for byte; so does
 * the same object read from JSON. */
static void check_canonical(const char *base)
{
    char path[512];
    snprintf(path, sizeof(path), DATA_DIR "%s.yaml", base);
    char *want = slurp(path);
    const char *exts[] = {"yaml", "json"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), DATA_DIR "%s.%s", base, exts[i]);
        struct codec_stream s = {0};
        struct err e;
        err_init(&e);
        if (codec_read_file(path, &s, &e))
            fail_msg("%s: %s", path, e.message);
        assert_int_equal(s.n, 1);
        yaml_is(s.docs[0].obj, want);
        codec_stream_release(&s);
    }
    free(want);
}

static void test_write_yaml_cluster_queue(void **state)
{
    check_canonical("clusterqueue");
}

static void test_write_yaml_job(void **state)
{
    check_canonical("job");
}

struct write_case {
    const char *json; /* a value */
    const char *yaml; /* how it is written after "v:" */
};

static const struct write_case write_cases[] = {
    {"\"plain\"", " plain\n"},
    {"\"true\"", " \"true\"\n"},
    {"\"y\"", " \"y\"\n"},
    {"\"Off\"", " \"Off\"\n"},
    {"\"1\"", " \"1\"\n"},
    {"\"0x1F\"", " \"0x1F\"\n"},
    {"\"1e3\"", " \"1e3\"\n"},
    {"\".5\"", " \".5\"\n"},
    {"\"null\"", " \"null\"\n"},
    {"\"~\"", " \"~\"\n"},
    {"\"\"", " \"\"\n"},
    {"\"1:20\"", " \"1:20\"\n"},
    {"\"2024-05-01T10:00:00Z\"", " \"2024-05-01T10:00:00Z\"\n"},
    {"\"2024-1-2 3:4:5\"", " \"2024-1-2 3:4:5\"\n"},
    {"\"2024-02-30\"", " 2024-02-30\n"},
    {"\"1e400\"", " 1e400\n"},
    {"\"0x\"", " 0x\n"},
    {"\"<<\"", " <<\n"},
    {"\"500m\"", " 500m\n"},
    {"\"x: y\"", " 'x: y'\n"},
    {"\"a #b\"", " 'a #b'\n"},
    {"\" lead\"", " ' lead'\n"},
    {"\"trail \"", " 'trail '\n"},
    {"\"*x\"", " '*x'\n"},
    {"\"-\"", " '-'\n"},
    {"\"-x\"", " -x\n"},
    {"\"it's\"", " it's\n"},
    {"\"'q'\"", " '''q'''\n"},
    {"\"tab\\there\"", " \"tab\\there\"\n"},
    {"\"caf\\u00e9\"", " café\n"},
    {"\"a\\rb\"", " \"a\\rb\"\n"},
    {"\"line\\n\"", " |\n  line\n"},
    {"\"two\\nlines\"", " |-\n  two\n  lines\n"},
    {"\"  indented\\nx\"", " |2-\n    indented\n  x\n"},
    {"1", " 1\n"},
    {"-9223372036854775808", " -9223372036854775808\n"},
    {"1.5", " 1.5\n"},
    {"0.1", " 0.1\n"},
    {"1e300", " 1e+300\n"},
    {"1234567.5", " 1.2345675e+06\n"},
    {"0.0001", " 0.0001\n"},
    {"0.00001", " 1e-05\n"},
    {"9223372036854775808.0", " 9.223372036854776e+18\n"},
    {"true", " true\n"},
    {"null", " null\n"},
    {"{}", " {}\n"},
    {"[]", " []\n"},
    {"[1, [2, 3], {\"a\": []}]", "\n- 1\n- - 2\n  - 3\n- a: []\n"},
};

static void test_write_yaml_values(void **state)
{
    for (size_t i = 0; i < sizeof(write_cases) / sizeof(write_cases[0]); i++) {
        const struct write_case *c = &write_cases[i];
        json_error_t jerr;
        json_t *v = json_loads(c->json, JSON_DECODE_ANY, &jerr);
        assert_non_null(v);
        json_t *doc = json_pack("{s:O}", "v", v);
        char want[256];
        snprintf(want, sizeof(want), "v:%s", c->yaml);
        struct sb out = SB_INIT;
        codec_write_yaml(doc, &out);
        if (strcmp(sb_str(&out), want) != 0)
            fail_msg("%s: got <%s>, want <%s>", c->json, sb_str(&out), want);
        /* and it reads back as the same value */
        json_t *back;
        struct err e;
        err_init(&e);
        assert_int_equal(codec_parse_yaml(out.buf, out.len, &back, &e), 0);
        if (!json_equal(back, doc))
            fail_msg("%s does not read back", c->json);
        json_decref(back);
        sb_release(&out);
        json_decref(doc);
        json_decref(v);
    }
}

static void test_write_yaml_shapes(void **state)
{
    json_t *v = json_object();
    yaml_is(v, "{}\n");
    json_object_set_new(v, "<<", json_string("<<"));
    json_object_set_new(v, "", json_string("empty key"));
    json_object_set_new(v, "1", json_integer(1));
    yaml_is(v, "\"<<\": <<\n\"\": empty key\n\"1\": 1\n");
    json_decref(v);
    v = json_array();
    yaml_is(v, "[]\n");
    json_array_append_new(v, json_object());
    json_array_append_new(v, json_pack("{s:[s,s]}", "k", "a", "b"));
    yaml_is(v, "- {}\n- k:\n  - a\n  - b\n");
    json_decref(v);
    v = json_string("top");
    yaml_is(v, "top\n");
    json_decref(v);
}

static void test_write_json(void **state)
{
    json_t *v = json_pack("{s:i,s:[f,s,b,n],s:{},s:[],s:{s:s}}", "z", 1, "a", 2.5, "q\"\\\n\x01/",
                          1, "e", "l", "o", "k", "caf\xc3\xa9");
    struct sb out = SB_INIT;
    codec_write_json(v, false, &out);
    assert_string_equal(sb_str(&out),
                        "{\"z\":1,\"a\":[2.5,\"q\\\"\\\\\\n\\u0001/\",true,null],\"e\":{},\"l\":[],"
                        "\"o\":{\"k\":\"caf\xc3\xa9\"}}");
    sb_reset(&out);
    codec_write_json(v, true, &out);
    assert_string_equal(sb_str(&out), "{\n"
                                      "  \"z\": 1,\n"
                                      "  \"a\": [\n"
                                      "    2.5,\n"
                                      "    \"q\\\"\\\\\\n\\u0001/\",\n"
                                      "    true,\n"
                                      "    null\n"
                                      "  ],\n"
                                      "  \"e\": {},\n"
                                      "  \"l\": [],\n"
                                      "  \"o\": {\n"
                                      "    \"k\": \"caf\xc3\xa9\"\n"
                                      "  }\n"
                                      "}");
    /* jansson lays it out the same way (it gives reals 17 digits, though) */
    char *j = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    assert_string_equal(sb_str(&out), j);
    free(j);
    sb_reset(&out);
    json_decref(v);
    v = json_real(0.1);
    codec_write_json(v, false, &out);
    assert_string_equal(sb_str(&out), "0.1");
    json_decref(v);
    sb_release(&out);
}

/* ---- write -> read round trips ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Pieces that stress quoting: type look-alikes, indicators, breaks. */
static const char *pieces[] = {
    "",
    " ",
    "a",
    "true",
    "1",
    "null",
    "~",
    "<<",
    "- x",
    ": ",
    " #",
    "#",
    "x: y",
    "1e3",
    "0x1F",
    "1:20",
    "\n",
    "a\nb",
    "\n\n",
    " lead",
    "\t",
    "\xc3\xa9",
    "\xe2\x80\xa8",
    "\xc2\x85",
    "\xef\xbb\xbf",
    "'",
    "\"",
    "\\",
    "---",
    "...",
    "*a",
    "&a",
    "!x",
    "%",
    "@",
    "`",
    "|",
    ">",
    "[",
    "]",
    "{",
    "}",
    ",",
    "?",
    "y",
    "NO",
    ".inf",
    "0o7",
    "+1",
    "-",
    "\r",
    "\x01",
    "\x7f",
    "2024-01-02",
    "  ",
    "word",
    "\xf0\x9f\x98\x80",
    "1.5",
    "=",
};

static json_t *random_string(bool key)
{
    struct sb sb = SB_INIT;
    int n = (int)(rnd() % 4);
    for (int i = 0; i < n; i++)
        sb_adds(&sb, pieces[rnd() % (sizeof(pieces) / sizeof(pieces[0]))]);
    if (!key && rnd() % 16 == 0)
        sb_add(&sb, "\0", 1); /* values may hold NUL, keys may not */
    json_t *s = json_stringn(sb.buf ? sb.buf : "", sb.len);
    sb_release(&sb);
    return s;
}

static json_t *random_real(void)
{
    static const double fixed[] = {0.5,  -0.25, 1e300,   -1e-300, 9223372036854775808.0,
                                   1e19, 0.1,   3.14159, 5e-324};
    if (rnd() % 3 == 0)
        return json_real(fixed[rnd() % (sizeof(fixed) / sizeof(fixed[0]))]);
    double d = (double)(rnd() >> 11) / 9007199254740992.0;
    int exp = (int)(rnd() % 61) - 30;
    for (int i = 0; i < (exp < 0 ? -exp : exp); i++)
        d = exp < 0 ? d / 10 : d * 10;
    if (rnd() % 2)
        d = -d;
    /* integral reals below 2^63 read back as integers, as in Kubernetes */
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == (double)(int64_t)d)
        d = (double)(rnd() % 1000) + 0.5;
    return json_real(d);
}

static json_t *random_tree(int depth)
{
    int kind = (int)(rnd() % (depth < 6 ? 9 : 6));
    switch (kind) {
    case 0:
        return json_null();
    case 1:
        return json_boolean(rnd() % 2);
    case 2: {
        static const json_int_t fixed[] = {0, -1, INT64_MAX, INT64_MIN, 42, 8080};
        if (rnd() % 2)
            return json_integer(fixed[rnd() % 6]);
        return json_integer((json_int_t)(rnd() >> (rnd() % 64)));
    }
    case 3:
        return random_real();
    case 4:
    case 5:
        return random_string(false);
    case 6:
    case 7: {
        json_t *o = json_object();
        int n = (int)(rnd() % 5);
        for (int i = 0; i < n; i++) {
            json_t *k = random_string(true);
            json_object_set_new(o, json_string_value(k), random_tree(depth + 1));
            json_decref(k);
        }
        return o;
    }
    default: {
        json_t *a = json_array();
        int n = (int)(rnd() % 5);
        for (int i = 0; i < n; i++)
            json_array_append_new(a, random_tree(depth + 1));
        return a;
    }
    }
}

static void round_trip(json_t *v)
{
    struct sb out = SB_INIT;
    struct err e;
    json_t *back;
    err_init(&e);
    codec_write_yaml(v, &out);
    if (codec_parse_yaml(out.buf, out.len, &back, &e))
        fail_msg("cannot read back <%s>: %s", sb_str(&out), e.message);
    if (!json_equal(back, v)) {
        char *g = json_dumps(back, JSON_ENCODE_ANY);
        char *w = json_dumps(v, JSON_ENCODE_ANY);
        fail_msg("YAML <%s> read back as %s, want %s", sb_str(&out), g, w);
    }
    json_decref(back);
    if (json_is_object(v) && json_object_size(v) > 0) {
        struct codec_stream s = {0};
        if (codec_read_stream(out.buf, out.len, "t.yaml", &s, &e))
            fail_msg("cannot read back <%s>: %s", sb_str(&out), e.message);
        assert_int_equal(s.n, 1);
        assert_true(json_equal(s.docs[0].obj, v));
        codec_stream_release(&s);
    }
    for (int pretty = 0; pretty < 2; pretty++) {
        sb_reset(&out);
        codec_write_json(v, pretty, &out);
        if (codec_parse_json(out.buf, out.len, &back, &e))
            fail_msg("cannot read back <%s>: %s", sb_str(&out), e.message);
        if (!json_equal(back, v))
            fail_msg("JSON <%s> read back differently", sb_str(&out));
        json_decref(back);
    }
    sb_release(&out);
}

static void test_write_round_trip_random(void **state)
{
    for (int i = 0; i < 3000; i++) {
        json_t *v = random_tree(0);
        round_trip(v);
        json_decref(v);
    }
    /* long keys take YAML's explicit "? " form */
    json_t *v = json_object();
    char key[300];
    memset(key, 'k', sizeof(key) - 1);
    key[sizeof(key) - 1] = '\0';
    json_object_set_new(v, key, json_string("v"));
    json_object_set_new(v, "multi\nline key", json_string("v"));
    round_trip(v);
    json_decref(v);
}

static void test_write_round_trip_examples(void **state)
{
    const char *files[] = {"dra-gpu-queues.yaml", "quota-lab-queues.yaml", "dra-gpu-job-a.yaml",
                           "clusterqueue.json", "job.json"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), DATA_DIR "%s", files[i]);
        struct codec_stream s = {0};
        struct err e;
        err_init(&e);
        assert_int_equal(codec_read_file(path, &s, &e), 0);
        for (size_t d = 0; d < s.n; d++)
            round_trip(s.docs[d].obj);
        codec_stream_release(&s);
    }
}

/* ---- codec_mem: the per-thread node lists ---------------------------------------------- */

#define MEM_TREES 200

/* A document whose strings and objects take every size of node the lists
 * keep and some they do not (up to 600 bytes). */
static char *mem_doc_text(void)
{
    struct sb b;
    sb_init(&b);
    sb_adds(&b, "{\"items\":[");
    for (int i = 0; i < 600; i += 7) {
        sb_addf(&b, "%s{\"k%d\":\"", i ? "," : "", i);
        for (int j = 0; j < i; j++)
            sb_addch(&b, (char)('a' + (i + j) % 26));
        sb_addf(&b, "\",\"n\":%d,\"o\":{\"x\":[%d,{\"y\":\"z\"}]}}", i, i);
    }
    sb_adds(&b, "]}");
    return sb_take(&b);
}

static json_t *mem_parse(const char *text)
{
    json_t *v = NULL;
    struct err e;
    err_init(&e);
    if (codec_parse_json(text, strlen(text), &v, &e))
        fail_msg("%s", e.message);
    return v;
}

struct mem_peer {
    json_t **trees; /* the other thread's, to free here */
    const char *text;
    const char *want; /* the tree written back compactly */
    int bad;
};

/* Frees the trees another thread built, then builds and checks its own
 * from what that left in this thread's lists, and ends (its lists go). */
static void *mem_peer_run(void *arg)
{
    struct mem_peer *p = arg;
    for (int i = 0; i < MEM_TREES; i++)
        json_decref(p->trees[i]);
    for (int round = 0; round < 3; round++) {
        json_t *mine[MEM_TREES];
        for (int i = 0; i < MEM_TREES; i++)
            mine[i] = mem_parse(p->text);
        for (int i = 0; i < MEM_TREES; i++) {
            char *got = json_dumps(mine[i], JSON_COMPACT | JSON_PRESERVE_ORDER);
            p->bad += !got || strcmp(got, p->want);
            free(got);
            json_decref(mine[i]);
        }
    }
    return NULL;
}

/* Trees built from reused nodes are the trees parsed from fresh memory,
 * whichever thread freed the nodes, and a thread's end loses nothing. */
static void test_mem_reuse_across_threads(void **state)
{
    (void)state;
    char *text = mem_doc_text();
    json_t *ref = mem_parse(text);
    char *want = json_dumps(ref, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(ref);
    codec_mem_install();
    json_t *trees[MEM_TREES];
    for (int i = 0; i < MEM_TREES; i++)
        trees[i] = mem_parse(text);
    struct mem_peer p = {trees, text, want, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, mem_peer_run, &p), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(p.bad, 0);
    /* This thread's own lists, filled and emptied in turn. */
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < MEM_TREES; i++)
            trees[i] = mem_parse(text);
        for (int i = 0; i < MEM_TREES; i++) {
            char *got = json_dumps(trees[i], JSON_COMPACT | JSON_PRESERVE_ORDER);
            assert_non_null(got);
            assert_string_equal(got, want);
            free(got);
            json_decref(trees[i]);
        }
    }
    free(want);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_stream_scalars),
        cmocka_unit_test(test_read_stream_scalar_errors),
        cmocka_unit_test(test_read_stream_keys),
        cmocka_unit_test(test_read_stream_duplicate_keys),
        cmocka_unit_test(test_read_stream_anchors),
        cmocka_unit_test(test_read_stream_billion_laughs),
        cmocka_unit_test(test_read_stream_documents),
        cmocka_unit_test(test_read_stream_not_a_mapping),
        cmocka_unit_test(test_read_stream_syntax_errors),
        cmocka_unit_test(test_read_stream_invalid_utf8),
        cmocka_unit_test(test_read_stream_lists),
        cmocka_unit_test(test_read_stream_json),
        cmocka_unit_test(test_read_stream_json_big_integers),
        cmocka_unit_test(test_parse_json),
        cmocka_unit_test(test_parse_json_plain_as_jansson),
        cmocka_unit_test(test_load_json),
        cmocka_unit_test(test_parse_yaml),
        cmocka_unit_test(test_read_stream_deep_nesting),
        cmocka_unit_test(test_read_stream_large_document),
        cmocka_unit_test(test_read_file_examples),
        cmocka_unit_test(test_read_file_errors),
        cmocka_unit_test(test_read_stream_binary),
        cmocka_unit_test(test_read_stream_alias_bytes),
        cmocka_unit_test(test_read_stream_key_caps),
        cmocka_unit_test(test_read_stream_many_documents),
        cmocka_unit_test(test_read_stream_bom_and_crlf),
        cmocka_unit_test(test_read_file_stdin),
        cmocka_unit_test(test_write_yaml_cluster_queue),
        cmocka_unit_test(test_write_yaml_job),
        cmocka_unit_test(test_write_yaml_values),
        cmocka_unit_test(test_write_yaml_shapes),
        cmocka_unit_test(test_write_json),
        cmocka_unit_test(test_write_round_trip_random),
        cmocka_unit_test(test_write_round_trip_examples),
        cmocka_unit_test(test_mem_reuse_across_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
