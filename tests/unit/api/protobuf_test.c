/* protobuf_test.c -- api/protobuf.h: Kubernetes protobuf bodies into JSON.
 *
 * The kubectl bodies under data/protobuf were recorded from kubectl 1.32
 * (`kubectl create namespace|job|priorityclass|configmap|secret|service`,
 * `auth can-i`, `auth
 * whoami`); each *.json beside them is what `kubectl create ...
 * --dry-run=client -o json` prints for the same object, i.e. what the JSON
 * path receives. The other cases build messages with the small encoder
 * below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/protobuf.h"
#include "base/err.h"
#include "base/strbuf.h"

/* ---- a small protobuf encoder ------------------------------------------- */

static void put_varint(struct sb *b, uint64_t v)
{
    while (v >= 0x80) {
        sb_addch(b, (char)(v | 0x80));
        v >>= 7;
    }
    sb_addch(b, (char)v);
}

static void put_int(struct sb *b, unsigned num, int64_t v)
{
    put_varint(b, (uint64_t)num << 3);
    put_varint(b, (uint64_t)v);
}

static void put_bytes(struct sb *b, unsigned num, const void *p, size_t n)
{
    put_varint(b, (uint64_t)num << 3 | 2);
    put_varint(b, n);
    sb_add(b, p, n);
}

static void put_str(struct sb *b, unsigned num, const char *s)
{
    put_bytes(b, num, s, strlen(s));
}

/* Put inner as field num and empty it. */
static void put_msg(struct sb *b, unsigned num, struct sb *inner)
{
    put_bytes(b, num, inner->buf ? inner->buf : "", inner->len);
    sb_release(inner);
}

static void put_entry(struct sb *b, unsigned num, const char *k, const char *v)
{
    struct sb e = SB_INIT;
    put_str(&e, 1, k);
    put_str(&e, 2, v);
    put_msg(b, num, &e);
}

/* The envelope around an object message (obj is emptied). */
static void envelope(struct sb *out, const char *api_version, const char *kind, struct sb *obj)
{
    struct sb tm = SB_INIT, unk = SB_INIT;
    sb_add(out, "k8s", 4);
    put_str(&tm, 1, api_version);
    put_str(&tm, 2, kind);
    put_msg(&unk, 1, &tm);
    put_msg(&unk, 2, obj);
    sb_add(out, unk.buf, unk.len);
    sb_release(&unk);
}

/* ---- helpers -------------------------------------------------------------- */

static char *read_data(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/tests/unit/api/data/protobuf/%s", CUEUE_SOURCE_DIR, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    struct sb b = SB_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        sb_add(&b, buf, n);
    fclose(f);
    *len = b.len;
    return sb_take(&b);
}

static json_t *decode_ok(const void *data, size_t len, json_t **unknown)
{
    json_t *out = NULL, *unk = NULL;
    struct err e;
    err_init(&e);
    int rc = pb_decode(data, len, &out, &unk, &e);
    if (rc)
        fail_msg("pb_decode: %s", e.message);
    if (unknown)
        *unknown = unk;
    else
        assert_null(unk);
    return out;
}

static void assert_json(const json_t *got, const char *want)
{
    json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
    assert_non_null(w);
    if (!json_equal(got, w)) {
        char *s = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
        fail_msg("got  %s\nwant %s", s, want);
    }
    json_decref(w);
}

static void check_recorded(const char *name)
{
    char pbname[128], jsname[128];
    snprintf(pbname, sizeof(pbname), "%s.pb", name);
    snprintf(jsname, sizeof(jsname), "%s.json", name);
    size_t n, m;
    char *pb = read_data(pbname, &n);
    char *js = read_data(jsname, &m);
    json_t *got = decode_ok(pb, n, NULL);
    assert_json(got, js);
    /* And in the JSON order, apiVersion and kind first as Go writes them
     * after the envelope. */
    assert_string_equal(json_object_iter_key(json_object_iter(got)), "apiVersion");
    json_decref(got);
    free(pb);
    free(js);
}

static void check_fails(const void *data, size_t len, int code, const char *msg)
{
    json_t *out = NULL, *unk = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(pb_decode(data, len, &out, &unk, &e), code);
    assert_null(out);
    assert_null(unk);
    assert_string_equal(e.message, msg);
}

/* ---- cases ---------------------------------------------------------------- */

static void test_pb_decode_kubectl_creates(void **state)
{
    check_recorded("create-namespace");
    check_recorded("create-job");
    check_recorded("create-priorityclass");
    check_recorded("create-priorityclass-never");
    /* bytes fields (ConfigMap binaryData, Secret data) come out in base64. */
    check_recorded("create-configmap");
    check_recorded("create-secret");
    check_recorded("create-service");
}

static void test_pb_decode_kubectl_reviews(void **state)
{
    size_t n;
    char *pb = read_data("can-i-create-jobs.pb", &n);
    json_t *got = decode_ok(pb, n, NULL);
    assert_json(got, "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":"
                     "\"SelfSubjectAccessReview\",\"metadata\":{\"creationTimestamp\":null},"
                     "\"spec\":{\"resourceAttributes\":{\"namespace\":\"t1\",\"verb\":\"create\","
                     "\"group\":\"batch\",\"resource\":\"jobs\"}},\"status\":{\"allowed\":false}}");
    json_decref(got);
    free(pb);
    pb = read_data("can-i-get-logs.pb", &n);
    got = decode_ok(pb, n, NULL);
    assert_json(json_object_get(got, "spec"),
                "{\"nonResourceAttributes\":{\"path\":\"/logs\",\"verb\":\"get\"}}");
    json_decref(got);
    free(pb);
    pb = read_data("whoami.pb", &n);
    got = decode_ok(pb, n, NULL);
    assert_json(got, "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":"
                     "\"SelfSubjectReview\",\"metadata\":{\"creationTimestamp\":null},"
                     "\"status\":{\"userInfo\":{}}}");
    json_decref(got);
    free(pb);
}

/* A Lease as client-go's leader election writes it: MicroTimes, pointers
 * to zero that stay in the JSON. */
static void test_pb_decode_lease(void **state)
{
    struct sb meta = SB_INIT, spec = SB_INIT, t = SB_INIT, obj = SB_INIT, body = SB_INIT;
    put_str(&meta, 1, "kueue-leader");
    put_str(&meta, 3, "kueue-system");
    put_msg(&obj, 1, &meta);
    put_str(&spec, 1, "cueue-1_abc");
    put_int(&spec, 2, 15);
    put_int(&t, 1, 1700000000);
    put_int(&t, 2, 123456789);
    put_msg(&spec, 4, &t);
    put_int(&spec, 5, 0);
    put_msg(&obj, 2, &spec);
    envelope(&body, "coordination.k8s.io/v1", "Lease", &obj);
    json_t *got = decode_ok(body.buf, body.len, NULL);
    assert_json(got, "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
                     "\"metadata\":{\"name\":\"kueue-leader\",\"namespace\":\"kueue-system\","
                     "\"creationTimestamp\":null},\"spec\":{\"holderIdentity\":\"cueue-1_abc\","
                     "\"leaseDurationSeconds\":15,\"renewTime\":\"2023-11-14T22:13:20.123456Z\","
                     "\"leaseTransitions\":0}}");
    json_decref(got);
    sb_release(&body);
}

/* An Event: a Time in seconds, a MicroTime, a reference, a count. */
static void test_pb_decode_event(void **state)
{
    struct sb meta = SB_INIT, ref = SB_INIT, t = SB_INIT, obj = SB_INIT, body = SB_INIT;
    put_str(&meta, 1, "wl.1");
    put_str(&meta, 3, "team-a");
    put_msg(&obj, 1, &meta);
    put_str(&ref, 1, "Workload");
    put_str(&ref, 2, "team-a");
    put_str(&ref, 3, "wl");
    put_msg(&obj, 2, &ref);
    put_str(&obj, 3, "QuotaReserved");
    put_str(&obj, 4, "Quota reserved in ClusterQueue cq");
    put_int(&t, 1, 1700000000);
    put_int(&t, 2, 999); /* a Time keeps seconds only */
    put_msg(&obj, 6, &t);
    put_int(&obj, 8, 2);
    put_str(&obj, 9, "Normal");
    envelope(&body, "v1", "Event", &obj);
    json_t *got = decode_ok(body.buf, body.len, NULL);
    assert_json(got,
                "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"wl.1\","
                "\"namespace\":\"team-a\",\"creationTimestamp\":null},\"involvedObject\":{"
                "\"kind\":\"Workload\",\"namespace\":\"team-a\",\"name\":\"wl\"},\"reason\":"
                "\"QuotaReserved\",\"message\":\"Quota reserved in ClusterQueue cq\","
                "\"source\":{},\"firstTimestamp\":\"2023-11-14T22:13:20Z\",\"lastTimestamp\":null,"
                "\"count\":2,\"type\":\"Normal\",\"eventTime\":null,\"reportingComponent\":\"\","
                "\"reportingInstance\":\"\"}");
    json_decref(got);
    sb_release(&body);
}

/* A Pod with the field kinds of a pod spec: maps, quantities, an inline
 * ProbeHandler with int-or-string ports, an inline VolumeSource, a negative
 * int32 (ten-byte varint), packed repeated varints, unknown fields. */
static void test_pb_decode_pod(void **state)
{
    struct sb meta = SB_INIT, spec = SB_INIT, c = SB_INIT, res = SB_INIT, q = SB_INIT;
    struct sb probe = SB_INIT, http = SB_INIT, port = SB_INIT, vol = SB_INIT, ed = SB_INIT;
    struct sb obj = SB_INIT, body = SB_INIT;
    put_str(&meta, 1, "p");
    put_entry(&meta, 11, "app", "x");
    put_msg(&obj, 1, &meta);
    put_str(&c, 1, "main");
    put_str(&c, 2, "busybox");
    put_str(&q, 1, "500m");
    struct sb entry = SB_INIT;
    put_str(&entry, 1, "cpu");
    put_msg(&entry, 2, &q);
    put_msg(&res, 1, &entry);
    put_msg(&c, 8, &res);
    put_int(&port, 1, 1);
    put_str(&port, 3, "http");
    put_str(&http, 1, "/healthz");
    put_msg(&http, 2, &port);
    put_msg(&probe, 2, &http); /* ProbeHandler.httpGet */
    struct sb handler = SB_INIT;
    sb_add(&handler, probe.buf, probe.len);
    sb_release(&probe);
    put_msg(&probe, 1, &handler); /* Probe.handler (inline) */
    put_int(&probe, 4, 0);        /* periodSeconds 0: omitempty */
    put_msg(&c, 10, &probe);      /* livenessProbe */
    put_int(&c, 99, 7);           /* unknown */
    put_msg(&spec, 2, &c);
    put_str(&vol, 1, "scratch");
    put_bytes(&ed, 2, "", 0); /* VolumeSource.emptyDir {} */
    put_msg(&vol, 2, &ed);    /* Volume.volumeSource (inline) */
    put_msg(&spec, 1, &vol);
    put_int(&spec, 4, -30); /* terminationGracePeriodSeconds */
    put_msg(&obj, 2, &spec);
    envelope(&body, "v1", "Pod", &obj);
    json_t *unknown = NULL;
    json_t *got = decode_ok(body.buf, body.len, &unknown);
    json_t *s = json_object_get(got, "spec");
    assert_json(json_object_get(json_object_get(got, "metadata"), "labels"), "{\"app\":\"x\"}");
    assert_json(json_object_get(s, "volumes"), "[{\"name\":\"scratch\",\"emptyDir\":{}}]");
    assert_json(json_object_get(s, "terminationGracePeriodSeconds"), "-30");
    json_t *c0 = json_array_get(json_object_get(s, "containers"), 0);
    assert_json(json_object_get(c0, "resources"), "{\"limits\":{\"cpu\":\"500m\"}}");
    assert_json(json_object_get(c0, "livenessProbe"),
                "{\"httpGet\":{\"path\":\"/healthz\",\"port\":\"http\"}}");
    assert_json(unknown, "[\"unknown field number 99 in \\\"spec.containers\\\"\"]");
    json_decref(unknown);
    json_decref(got);
    sb_release(&body);
}

/* DeleteOptions, as a protobuf client sends them with a DELETE. */
static void test_pb_decode_delete_options(void **state)
{
    struct sb obj = SB_INIT, pre = SB_INIT, body = SB_INIT;
    put_int(&obj, 1, 0);
    put_str(&pre, 1, "u-1");
    put_msg(&obj, 2, &pre);
    put_str(&obj, 4, "Foreground");
    put_str(&obj, 5, "All");
    envelope(&body, "batch/v1", "DeleteOptions", &obj);
    json_t *got = decode_ok(body.buf, body.len, NULL);
    assert_json(got, "{\"apiVersion\":\"batch/v1\",\"kind\":\"DeleteOptions\","
                     "\"gracePeriodSeconds\":0,\"preconditions\":{\"uid\":\"u-1\"},"
                     "\"propagationPolicy\":\"Foreground\",\"dryRun\":[\"All\"]}");
    json_decref(got);
    sb_release(&body);
}

static void test_pb_decode_packed_varints(void **state)
{
    struct sb req = SB_INIT, rule = SB_INIT, pol = SB_INIT, spec = SB_INIT, obj = SB_INIT;
    struct sb body = SB_INIT, packed = SB_INIT;
    put_str(&req, 2, "In");
    put_varint(&packed, 1);
    put_varint(&packed, 42);
    put_bytes(&req, 3, packed.buf, packed.len);
    sb_release(&packed);
    put_str(&rule, 1, "FailJob");
    put_msg(&rule, 2, &req);
    put_msg(&pol, 1, &rule);
    put_msg(&spec, 11, &pol);
    put_msg(&obj, 2, &spec);
    envelope(&body, "batch/v1", "Job", &obj);
    json_t *got = decode_ok(body.buf, body.len, NULL);
    assert_json(json_object_get(json_object_get(got, "spec"), "podFailurePolicy"),
                "{\"rules\":[{\"action\":\"FailJob\",\"onExitCodes\":{\"operator\":\"In\","
                "\"values\":[1,42]}}]}");
    json_decref(got);
    sb_release(&body);
}

/* Bad bodies fail as kube-apiserver's protobuf decoding words it. */
static void test_pb_decode_refusals(void **state)
{
    check_fails("{\"kind\":\"Job\"}", 14, ERR_PARSE,
                "the object provided is unrecognized: provided data does not appear to be a "
                "protobuf message, expected prefix [107 56 115 0]");
    check_fails("k8s", 4, ERR_PARSE, "the object provided is unrecognized: empty body");

    struct sb obj = SB_INIT, body = SB_INIT, meta = SB_INIT;
    sb_add(&obj, "\x0a\x05\x0a\x01n", 5); /* metadata says 5 bytes, holds 3 */
    envelope(&body, "v1", "Namespace", &obj);
    check_fails(body.buf, body.len, ERR_PARSE,
                "Namespace in version \"v1\" cannot be handled as a Namespace: unexpected EOF");
    sb_release(&body);
    check_fails("k8s\0\x0a\x09", 6, ERR_PARSE,
                "the object provided is unrecognized: unexpected EOF");

    put_int(&obj, 1, 5); /* metadata as a varint */
    envelope(&body, "v1", "Namespace", &obj);
    check_fails(body.buf, body.len, ERR_PARSE,
                "Namespace in version \"v1\" cannot be handled as a Namespace: proto: wrong "
                "wireType = 0 for field metadata");
    sb_release(&body);

    put_str(&meta, 1, "bad\xff");
    put_msg(&obj, 1, &meta);
    envelope(&body, "v1", "Namespace", &obj);
    check_fails(body.buf, body.len, ERR_PARSE,
                "Namespace in version \"v1\" cannot be handled as a Namespace: invalid UTF-8 in "
                "field \"metadata.name\"");
    sb_release(&body);

    put_str(&obj, 1, "");
    envelope(&body, "v1", "Node", &obj);
    check_fails(body.buf, body.len, ERR_UNSUPPORTED, "protobuf is not supported for v1, Kind=Node");
    sb_release(&body);
}

/* Empty messages stand for objects with defaults: a body of 100,000 empty
 * containers would make far more JSON than its bytes allow. */
static void test_pb_decode_bounded(void **state)
{
    struct sb spec = SB_INIT, obj = SB_INIT, body = SB_INIT;
    for (int i = 0; i < 100000; i++)
        put_bytes(&spec, 2, "", 0);
    put_msg(&obj, 2, &spec);
    envelope(&body, "v1", "Pod", &obj);
    json_t *out = NULL, *unk = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(pb_decode(body.buf, body.len, &out, &unk, &e), ERR_TOO_LARGE);
    assert_null(out);
    assert_non_null(strstr(e.message, "Pod in version \"v1\" cannot be handled as a Pod: the "
                                      "decoded object has more than"));
    sb_release(&body);
}

/* A NUL inside a string travels as it is: what becomes of it is the JSON
 * path's business. */
static void test_pb_decode_keeps_nul(void **state)
{
    struct sb obj = SB_INIT, meta = SB_INIT, body = SB_INIT;
    put_str(&meta, 1, "n");
    put_entry(&meta, 12, "note", "a");
    /* "a\0b" as the value: put_entry takes C strings, so build it here. */
    struct sb e = SB_INIT;
    put_str(&e, 1, "text");
    put_bytes(&e, 2, "a\0b", 3);
    put_msg(&meta, 12, &e);
    put_msg(&obj, 1, &meta);
    envelope(&body, "v1", "Namespace", &obj);
    json_t *got = decode_ok(body.buf, body.len, NULL);
    json_t *v =
        json_object_get(json_object_get(json_object_get(got, "metadata"), "annotations"), "text");
    assert_int_equal(json_string_length(v), 3);
    assert_memory_equal(json_string_value(v), "a\0b", 3);
    json_decref(got);
    sb_release(&body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pb_decode_kubectl_creates),
        cmocka_unit_test(test_pb_decode_kubectl_reviews),
        cmocka_unit_test(test_pb_decode_lease),
        cmocka_unit_test(test_pb_decode_event),
        cmocka_unit_test(test_pb_decode_pod),
        cmocka_unit_test(test_pb_decode_delete_options),
        cmocka_unit_test(test_pb_decode_packed_varints),
        cmocka_unit_test(test_pb_decode_refusals),
        cmocka_unit_test(test_pb_decode_keeps_nul),
        cmocka_unit_test(test_pb_decode_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
