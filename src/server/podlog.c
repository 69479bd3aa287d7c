/* podlog.c -- the Pod log subresource for the node agent.
 *
 * `kubectl logs POD` asks GET /api/v1/namespaces/NS/pods/NAME/log; the
 * node agent (node/kubelet.c) writes each pod's output to
 * DIR/pods/<namespace>_<name>.log, and beside it an index of when each line
 * began (node/sandbox.h), which gives --timestamps and --since their
 * answers. The log is served as the kubelet serves it: tailLines,
 * sinceSeconds, sinceTime, timestamps, limitBytes, and follow, which streams
 * what the pod writes next until its output is over (the index ends) or the
 * pod is gone. Every answer is streamed a step at a time, reading the log
 * and its index forward: a pod may print 64 MiB of empty lines, and its
 * log must not cost the server that (nor the index an older agent wrote
 * for it, a record a line: some 2 GB). */
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

/* Log bytes read per step. Each step's answer is at most this much text
 * and a time stamp per line, whatever the log holds: the server never holds
 * a log, its index or its answer whole. */
#define LOG_CHUNK (16u << 10)

/* One record of the index: a line began at off, at sec.nsec. */
struct mark {
    uint64_t off;
    int64_t sec, nsec;
};

/* The index read forward a record at a time, a buffer's worth in memory:
 * an older agent's index holds a record per line, dozens of times the
 * bytes of a log of empty lines. */
struct icur {
    int fd;        /* or -1: no index */
    off_t fpos;    /* the next index byte to read */
    size_t len;    /* buf[0, len) read */
    size_t at;     /* buf[0, at) parsed */
    bool skipping; /* in a line too long to be a record: dropped to its end */
    bool have;     /* cur is a record not passed yet */
    struct mark cur;
    bool has_prev; /* prev is the last record passed */
    struct mark prev;
    char buf[8192];
};

/* The next record into c->cur; false when the index has no more (yet: a
 * partial record is kept for the next call). Malformed records are
 * skipped. */
static bool icur_next(struct icur *c)
{
    for (;;) {
        char *rec = c->buf + c->at;
        char *nl = memchr(rec, '\n', c->len - c->at);
        if (!nl) {
            if (c->fd < 0)
                return false;
            size_t part = c->len - c->at;
            if (part == sizeof(c->buf)) {
                c->skipping = true;
                part = 0;
            }
            memmove(c->buf, c->buf + c->at, part);
            c->len = part;
            c->at = 0;
            ssize_t n = pread(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, c->fpos);
            if (n <= 0)
                return false;
            c->fpos += n;
            c->len += (size_t)n;
            continue;
        }
        size_t rl = (size_t)(nl - rec) + 1;
        c->at += rl;
        if (c->skipping) {
            c->skipping = false;
            continue;
        }
        char t[64];
        if (rl >= sizeof(t))
            continue;
        memcpy(t, rec, rl);
        t[rl] = '\0';
        unsigned long long off;
        long long sec, nsec;
        if (sscanf(t, "%llu %lld.%lld", &off, &sec, &nsec) == 3) {
            c->cur = (struct mark){off, sec, nsec};
            return true;
        }
    }
}

/* The mark of the line starting at off: the last record at or before it
 * (node/sandbox.h), if any. Asked in increasing order of off; the same off
 * may be asked again. */
static bool icur_mark_at(struct icur *c, uint64_t off, struct mark *out)
{
    while (c->have || (c->have = icur_next(c))) {
        if (c->cur.off > off)
            break;
        c->prev = c->cur;
        c->has_prev = true;
        c->have = false;
    }
    if (c->has_prev)
        *out = c->prev;
    return c->has_prev;
}

/* Has the agent marked the pod's output over? (SBX_INDEX_END is the
 * index's last record; no record of a line ends so.) */
static bool index_ended(int fd)
{
    char t[sizeof(SBX_INDEX_END) - 1];
    struct stat st;
    return fd >= 0 && !fstat(fd, &st) && st.st_size >= (off_t)sizeof(t) &&
           pread(fd, t, sizeof(t), st.st_size - (off_t)sizeof(t)) == (ssize_t)sizeof(t) &&
           !memcmp(t, SBX_INDEX_END, sizeof(t));
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

/* ---- the answer, a step at a time ---------------------------------------------------------- */

/* The log as it is served: the lines before end (the log's size when
 * asked) filtered by since and tail; with follow, everything after them
 * until the pod's output is over or the pod is gone. */
struct logstream {
    int log_fd;
    struct icur ix;
    uint64_t pos; /* the next log byte */
    uint64_t end; /* the log's size when asked */
    bool follow;
    bool line_start; /* pos starts a line */
    bool send;       /* the line pos is in is sent */
    struct log_opts o;
    uint64_t skip;  /* lines that pass since still to leave out, for tailLines */
    long long left; /* limitBytes left, < 0 for none */
};

static void logstream_free(void *arg)
{
    struct logstream *f = arg;
    if (f->log_fd >= 0)
        close(f->log_fd);
    if (f->ix.fd >= 0)
        close(f->ix.fd);
    free(f);
}

/* Does the line starting at off pass since? Its mark in *m, *has. */
static bool passes_since(struct logstream *f, uint64_t off, struct mark *m, bool *has)
{
    *has = (f->o.timestamps || (f->o.has_since && off < f->end)) && icur_mark_at(&f->ix, off, m);
    if (off >= f->end || !f->o.has_since || !*has)
        return true;
    return m->sec * 1000 + m->nsec / 1000000 >= f->o.since_ms;
}

/* Go over buf[0, n), the log bytes at f->pos (f->pos is the caller's to
 * advance), adding what is sent to out. With out NULL, stop before the
 * first line that is sent. Returns the bytes gone over. */
static size_t step(struct logstream *f, const char *buf, size_t n, struct sb *out)
{
    size_t i = 0;
    for (; i < n; i++) {
        if (f->line_start) {
            uint64_t off = f->pos + i;
            struct mark m;
            bool has;
            bool send = passes_since(f, off, &m, &has);
            if (send && off < f->end && f->skip) {
                f->skip--;
                send = false;
            }
            if (send && !out)
                return i;
            f->send = send;
            if (send && f->o.timestamps && has)
                add_stamp(out, m.sec, m.nsec);
        }
        if (f->send && out)
            sb_addch(out, buf[i]);
        f->line_start = buf[i] == '\n';
    }
    return i;
}

/* The lines before end that pass since. */
static uint64_t count_lines(struct logstream *f, char *buf)
{
    uint64_t lines = 0;
    bool start = true;
    for (uint64_t pos = 0; pos < f->end;) {
        size_t want = f->end - pos < LOG_CHUNK ? (size_t)(f->end - pos) : LOG_CHUNK;
        ssize_t n = pread(f->log_fd, buf, want, (off_t)pos);
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++) {
            struct mark m;
            bool has;
            if (start && (!f->o.has_since || passes_since(f, pos + (uint64_t)i, &m, &has)))
                lines++;
            start = buf[i] == '\n';
        }
        pos += (uint64_t)n;
    }
    /* The answer reads the index again from its start. */
    f->ix.fpos = 0;
    f->ix.len = f->ix.at = 0;
    f->ix.have = f->ix.skipping = f->ix.has_prev = false;
    return lines;
}

/* Up to the first line sent, in the worker: the I/O thread is given only
 * what it sends. */
static void skip_to_first(struct logstream *f, char *buf)
{
    while (f->pos < f->end) {
        size_t want = f->end - f->pos < LOG_CHUNK ? (size_t)(f->end - f->pos) : LOG_CHUNK;
        ssize_t n = pread(f->log_fd, buf, want, (off_t)f->pos);
        if (n <= 0)
            return;
        size_t used = step(f, buf, (size_t)n, NULL);
        f->pos += used;
        if (used < (size_t)n)
            return;
    }
}

static int logstream_produce(void *arg, struct http_out *out, int64_t now_ms)
{
    struct logstream *f = arg;
    (void)now_ms;
    /* Looked at before the read: the agent marks the output over only once
     * all of it is in the log. */
    bool over = !f->follow || index_ended(f->ix.fd);
    size_t want = LOG_CHUNK;
    if (!f->follow && f->end - f->pos < want)
        want = (size_t)(f->end - f->pos);
    char buf[LOG_CHUNK];
    ssize_t n = want ? pread(f->log_fd, buf, want, (off_t)f->pos) : 0;
    if (n > 0) {
        struct sb s = SB_INIT;
        step(f, buf, (size_t)n, &s);
        f->pos += (uint64_t)n;
        size_t give = s.len;
        if (f->left >= 0 && (long long)give > f->left)
            give = (size_t)f->left;
        if (give)
            http_out_add(out, s.buf, give);
        if (f->left >= 0)
            f->left -= (long long)give;
        sb_release(&s);
        return f->left == 0 ? HTTP_STREAM_END : HTTP_STREAM_MORE;
    }
    /* Nothing new: over when the pod's output ended or the pod is gone. */
    struct stat st;
    if (over || fstat(f->log_fd, &st) || st.st_nlink == 0)
        return HTTP_STREAM_END;
    return HTTP_STREAM_WAIT;
}

static const struct http_stream_ops logstream_ops = {logstream_produce, logstream_free};

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
    int log_fd = q->srv->pod_log_dir ? open(sb_str(&path), O_RDONLY | O_CLOEXEC) : -1;
    int idx_fd = q->srv->pod_log_dir ? open(sb_str(&ipath), O_RDONLY | O_CLOEXEC) : -1;
    sb_release(&path);
    sb_release(&ipath);
    struct stat st;
    if (log_fd < 0 || fstat(log_fd, &st)) {
        if (log_fd >= 0)
            close(log_fd);
        if (idx_fd >= 0)
            close(idx_fd);
        return srv_reply(q, 200, "text/plain", "", 0);
    }
    struct logstream *f = xcalloc(1, sizeof(*f));
    f->log_fd = log_fd;
    f->ix.fd = idx_fd;
    f->end = (uint64_t)st.st_size;
    f->follow = o.follow && !index_ended(idx_fd);
    f->line_start = true;
    f->o = o;
    f->left = o.limit;
    char *buf = xmalloc(LOG_CHUNK);
    if (o.tail >= 0) {
        uint64_t lines = count_lines(f, buf);
        f->skip = lines > (uint64_t)o.tail ? lines - (uint64_t)o.tail : 0;
    }
    skip_to_first(f, buf);
    free(buf);
    http_resp_header(q->resp, "Content-Type", "text/plain");
    /* The agent writes the log without telling: a follower's I/O thread
     * asks again every second (HTTP_STREAM_WAIT). */
    (void)http_resp_stream(q->resp, 200, &logstream_ops, f);
    return SRV_REPLIED;
}
