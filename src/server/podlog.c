/* podlog.c -- the Pod log subresource for the node agent.
 *
 * `kubectl logs POD` asks GET /api/v1/namespaces/NS/pods/NAME/log; the
 * node agent (node/kubelet.c) writes each pod's output to
 * DIR/pods/<namespace>_<name>.log, and beside it an index of when each line
 * began (node/sandbox.h), which gives --timestamps and --since their
 * answers. The log is served as the kubelet serves it: tailLines,
 * sinceSeconds, sinceTime, timestamps, limitBytes, and follow, which streams
 * what the pod writes next until its output is over (the index ends) or the
 * pod is gone. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "node/sandbox.h"
#include "server/http.h"
#include "server/srv_int.h"
#include "store/store.h"

#define LOG_READ_MAX (64u << 20) /* as the agent keeps: SBX_LOG_MAX */
#define FOLLOW_CHUNK (64u << 10) /* bytes a follower is given per turn */

/* One record of the index: a line began at off, at sec.nsec. */
struct mark {
    uint64_t off;
    int64_t sec, nsec;
};

struct index {
    struct mark *m;
    size_t n, cap;
    bool ended; /* SBX_INDEX_END seen */
};

/* Parse index text into ix (appending); returns the bytes consumed (whole
 * records only). Malformed records are skipped. */
static size_t index_parse(struct index *ix, const char *t, size_t len)
{
    size_t used = 0;
    while (used < len) {
        const char *nl = memchr(t + used, '\n', len - used);
        if (!nl)
            break;
        size_t rl = (size_t)(nl - (t + used)) + 1;
        if (rl == strlen(SBX_INDEX_END) && !memcmp(t + used, SBX_INDEX_END, rl)) {
            ix->ended = true;
        } else {
            char rec[64];
            size_t k = rl < sizeof(rec) ? rl : sizeof(rec) - 1;
            memcpy(rec, t + used, k);
            rec[k] = '\0';
            unsigned long long off;
            long long sec, nsec;
            if (sscanf(rec, "%llu %lld.%lld", &off, &sec, &nsec) == 3) {
                XGROW(ix->m, ix->cap, ix->n + 1);
                ix->m[ix->n++] = (struct mark){off, sec, nsec};
            }
        }
        used += rl;
    }
    return used;
}

/* RFC 3339 with nanoseconds, trailing zeros dropped, as Go's
 * time.RFC3339Nano (the kubelet's --timestamps format), then a space. */
static void add_stamp(struct sb *out, int64_t sec, int64_t nsec)
{
    time_t t = (time_t)sec;
    struct tm tm;
    gmtime_r(&t, &tm);
    char frac[32] = "";
    if (nsec > 0 && nsec < 1000000000) {
        snprintf(frac, sizeof(frac), ".%09lld", (long long)nsec);
        size_t n = strlen(frac);
        while (n > 1 && frac[n - 1] == '0')
            frac[--n] = '\0';
    }
    sb_addf(out, "%04d-%02d-%02dT%02d:%02d:%02d%sZ ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
            tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}

/* What the client asked for. */
struct log_opts {
    bool timestamps, follow;
    bool has_since;
    int64_t since_ms;
    long tail;       /* < 0: all */
    long long limit; /* < 0: none */
};

/* The time of the line starting at off (the index is in offset order;
 * *pos walks it), or false when the index has none. */
static bool line_time(const struct index *ix, size_t *pos, uint64_t off, struct mark *out)
{
    while (*pos < ix->n && ix->m[*pos].off < off)
        (*pos)++;
    if (*pos < ix->n && ix->m[*pos].off == off) {
        *out = ix->m[*pos];
        return true;
    }
    return false;
}

/* The log text as asked: since, tail, timestamps (limitBytes is the
 * caller's). base is the log offset of text[0]. */
static void render(const char *text, size_t len, uint64_t base, const struct index *ix,
                   const struct log_opts *o, struct sb *out)
{
    size_t n_lines = 0, cap = 0;
    size_t *starts = NULL;
    size_t ipos = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) + 1 : len;
        struct mark m;
        bool has = line_time(ix, &ipos, base + i, &m);
        if (!o->has_since || !has || m.sec * 1000 + m.nsec / 1000000 >= o->since_ms) {
            XGROW(starts, cap, n_lines + 1);
            starts[n_lines++] = i;
        }
        i = end;
    }
    size_t first = o->tail >= 0 && (size_t)o->tail < n_lines ? n_lines - (size_t)o->tail : 0;
    ipos = 0;
    for (size_t k = first; k < n_lines; k++) {
        size_t i = starts[k];
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) + 1 : len;
        struct mark m;
        if (o->timestamps && line_time(ix, &ipos, base + i, &m))
            add_stamp(out, m.sec, m.nsec);
        sb_add(out, text + i, end - i);
    }
    free(starts);
}

/* ---- follow ------------------------------------------------------------------------------- */

struct follower {
    int log_fd, idx_fd;
    uint64_t pos;      /* next log byte to send */
    struct sb idx_buf; /* index bytes read but not parsed yet */
    struct sb past;    /* the log as it was when asked, rendered: sent first */
    struct index ix;   /* records of lines from pos on */
    bool line_start;   /* pos starts a line */
    bool timestamps;
    long long left; /* limitBytes left, < 0 for none */
};

static void follower_free(void *arg)
{
    struct follower *f = arg;
    if (f->log_fd >= 0)
        close(f->log_fd);
    if (f->idx_fd >= 0)
        close(f->idx_fd);
    sb_release(&f->idx_buf);
    sb_release(&f->past);
    free(f->ix.m);
    free(f);
}

static void follow_index(struct follower *f)
{
    char buf[8192];
    ssize_t n;
    while (f->idx_fd >= 0 && (n = read(f->idx_fd, buf, sizeof(buf))) > 0)
        sb_add(&f->idx_buf, buf, (size_t)n);
    size_t used = index_parse(&f->ix, f->idx_buf.buf ? f->idx_buf.buf : "", f->idx_buf.len);
    if (used) {
        memmove(f->idx_buf.buf, f->idx_buf.buf + used, f->idx_buf.len - used);
        f->idx_buf.len -= used;
    }
}

static int follow_produce(void *arg, struct http_out *out, int64_t now_ms)
{
    struct follower *f = arg;
    if (f->past.len) {
        http_out_add(out, f->past.buf, f->past.len);
        f->past.len = 0;
        return HTTP_STREAM_MORE;
    }
    follow_index(f);
    char buf[FOLLOW_CHUNK];
    ssize_t n = pread(f->log_fd, buf, sizeof(buf), (off_t)f->pos);
    if (n > 0) {
        struct sb s = SB_INIT;
        size_t ipos = 0;
        for (ssize_t i = 0; i < n; i++) {
            struct mark m;
            if (f->line_start && f->timestamps && line_time(&f->ix, &ipos, f->pos + (size_t)i, &m))
                add_stamp(&s, m.sec, m.nsec);
            sb_addch(&s, buf[i]);
            f->line_start = buf[i] == '\n';
        }
        f->pos += (uint64_t)n;
        /* Marks already passed are not needed again. */
        memmove(f->ix.m, f->ix.m + ipos, (f->ix.n - ipos) * sizeof(*f->ix.m));
        f->ix.n -= ipos;
        size_t give = s.len;
        if (f->left >= 0 && (long long)give > f->left)
            give = (size_t)f->left;
        http_out_add(out, s.buf, give);
        if (f->left >= 0)
            f->left -= (long long)give;
        sb_release(&s);
        return f->left == 0 ? HTTP_STREAM_END : HTTP_STREAM_MORE;
    }
    /* Nothing new: over when the pod's output ended or the pod is gone. */
    struct stat st;
    if (f->ix.ended || fstat(f->log_fd, &st) || st.st_nlink == 0)
        return HTTP_STREAM_END;
    return HTTP_STREAM_WAIT;
}

static const struct http_stream_ops follow_ops = {follow_produce, follower_free};

/* ---- the handler -------------------------------------------------------------------------- */

static int bad_request(struct srv_req *q, const char *msg)
{
    return srv_reply_status(q, 400, "BadRequest", msg, NULL);
}

/* Read the query into o; false with the answer made. */
static bool read_opts(struct srv_req *q, struct log_opts *o, int *ret)
{
    memset(o, 0, sizeof(*o));
    o->tail = -1;
    o->limit = -1;
    const char *v;
    o->timestamps = (v = srv_query(q, "timestamps")) && !strcmp(v, "true");
    o->follow = (v = srv_query(q, "follow")) && !strcmp(v, "true");
    if ((v = srv_query(q, "tailLines"))) {
        char *end;
        o->tail = strtol(v, &end, 10);
        if (*end || o->tail < 0) {
            *ret = bad_request(q, "tailLines: Invalid value: must be a non-negative integer");
            return false;
        }
    }
    if ((v = srv_query(q, "limitBytes"))) {
        char *end;
        o->limit = strtoll(v, &end, 10);
        if (*end || o->limit < 1) {
            *ret = bad_request(q, "limitBytes: Invalid value: must be greater than 0");
            return false;
        }
    }
    const char *ss = srv_query(q, "sinceSeconds"), *st = srv_query(q, "sinceTime");
    if (ss && st) {
        *ret = bad_request(q, "at most one of sinceTime or sinceSeconds may be specified");
        return false;
    }
    if (ss) {
        char *end;
        long long s = strtoll(ss, &end, 10);
        if (*end || s < 1) {
            *ret = bad_request(q, "sinceSeconds: Invalid value: must be greater than 0");
            return false;
        }
        o->has_since = true;
        o->since_ms = tm_now_ms() - s * 1000;
    } else if (st) {
        struct err e;
        err_init(&e);
        if (tm_parse_rfc3339(st, &o->since_ms, &e)) {
            *ret = bad_request(q, "sinceTime: Invalid value: must be an RFC3339 time");
            return false;
        }
        o->has_since = true;
    }
    return true;
}

int srv_handle_pod_log(struct srv_req *q, const struct srv_route *rt)
{
    if (strcmp(q->method, "GET"))
        return srv_reply_status(q, 405, "MethodNotAllowed",
                                "the server does not allow this method on the requested resource",
                                NULL);
    struct err e;
    err_init(&e);
    json_t *pod = NULL;
    if (store_get(q->srv->store, rt->res, rt->ns, rt->name, &pod, &e)) {
        char msg[600];
        snprintf(msg, sizeof(msg), "pods \"%s\" not found", rt->name);
        return srv_reply_status(q, 404, "NotFound", msg, NULL);
    }
    json_decref(pod);
    int ret = 0;
    struct log_opts o;
    if (!read_opts(q, &o, &ret))
        return ret;
    struct sb path = SB_INIT, ipath = SB_INIT;
    sb_addf(&path, "%s/%s_%s.log", q->srv->pod_log_dir ? q->srv->pod_log_dir : "", rt->ns,
            rt->name);
    sb_addf(&ipath, "%s/%s_%s" SBX_LOG_INDEX_SUFFIX, q->srv->pod_log_dir ? q->srv->pod_log_dir : "",
            rt->ns, rt->name);
    struct sb body = SB_INIT, itext = SB_INIT, out = SB_INIT;
    int log_fd = q->srv->pod_log_dir ? open(sb_str(&path), O_RDONLY | O_CLOEXEC) : -1;
    int idx_fd = q->srv->pod_log_dir ? open(sb_str(&ipath), O_RDONLY | O_CLOEXEC) : -1;
    /* What is there now, from the descriptors a follower goes on with. */
    char buf[8192];
    ssize_t n;
    while (log_fd >= 0 && body.len < LOG_READ_MAX && (n = read(log_fd, buf, sizeof(buf))) > 0)
        sb_add(&body, buf, (size_t)n);
    while (idx_fd >= 0 && (n = read(idx_fd, buf, sizeof(buf))) > 0)
        sb_add(&itext, buf, (size_t)n);
    struct index ix = {0};
    size_t iused = index_parse(&ix, itext.buf ? itext.buf : "", itext.len);
    render(body.buf ? body.buf : "", body.len, 0, &ix, &o, &out);
    if (o.limit >= 0 && (long long)out.len > o.limit)
        out.len = (size_t)o.limit;
    if (!o.follow || log_fd < 0 || ix.ended || (o.limit >= 0 && (long long)out.len >= o.limit)) {
        ret = srv_reply(q, 200, "text/plain", sb_str(&out), out.len);
        if (log_fd >= 0)
            close(log_fd);
        if (idx_fd >= 0)
            close(idx_fd);
        free(ix.m);
    } else {
        struct follower *f = xcalloc(1, sizeof(*f));
        f->log_fd = log_fd;
        f->idx_fd = idx_fd;
        f->pos = body.len;
        f->line_start = !body.len || body.buf[body.len - 1] == '\n';
        f->timestamps = o.timestamps;
        f->left = o.limit >= 0 ? o.limit - (long long)out.len : -1;
        f->ix = ix; /* later records come after what was read */
        sb_add(&f->idx_buf, itext.buf ? itext.buf + iused : "", itext.len - iused);
        sb_add(&f->past, out.buf ? out.buf : "", out.len);
        http_resp_header(q->resp, "Content-Type", "text/plain");
        /* The agent writes the log without telling: the I/O thread asks
         * again every second (HTTP_STREAM_WAIT). */
        (void)http_resp_stream(q->resp, 200, &follow_ops, f);
        ret = SRV_REPLIED;
    }
    sb_release(&out);
    sb_release(&itext);
    sb_release(&body);
    sb_release(&path);
    sb_release(&ipath);
    return ret;
}
