/* walfile.c -- the WAL's frames of one commit written in one write(2).
 *
 * SQLite writes each WAL frame in two calls, its 24-byte header and then
 * its page, so a commit of n pages costs 2n pwrite(2) calls. This VFS is
 * SQLite's default one with the WAL file's writes gathered: a frame
 * written at the end of the log is kept in memory until the frame whose
 * header marks a commit has its page written, and the frames so far then
 * go to the file in one call, before SQLite publishes the commit in the
 * WAL index (which it does after writing the frames). So a commit has
 * been written to the WAL when COMMIT returns, as before, and a reader
 * never finds in the index a frame that is not in the file.
 *
 * Anything else on the WAL file (a write elsewhere than the log's end,
 * SQLite's rewrite of a frame of the open transaction, the log's header,
 * a read, a sync, a size, a truncation, a lock, closing) first writes
 * what is kept, so the file sees the same writes in the same order, only
 * fewer calls. Other files (the database, temporary files) are SQLite's
 * own. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"

#define FRAME_HDR 24
#define WAL_HDR 32
/* Frames kept at most before they are written anyway (mid-transaction:
 * only a commit's last frame must reach the file before COMMIT returns). */
#define KEEP_MAX (96u << 10)
/* The most one call gives SQLite's unix file: it writes at most 128 KiB - 1
 * bytes a call (larger sizes are cut to their low 17 bits). */
#define WRITE_MAX (124u << 10)

struct wal_file {
    sqlite3_file base;
    sqlite3_file *real; /* SQLite's own file, just after this struct */
    unsigned char *buf; /* frames kept, from offset off */
    size_t len, cap;    /* bytes kept; the buffer's size */
    sqlite3_int64 off;  /* file offset of buf[0] */
    sqlite3_int64 end;  /* the end of the log: no frame beyond it was written */
    bool want_page;     /* the last write kept was a frame's header */
    bool commit;        /* ... and that header marks a commit */
};

static sqlite3_vfs *real_vfs;
static sqlite3_vfs wal_vfs;
static sqlite3_io_methods wal_methods;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Atomic uint64_t nwrites;

#define REAL(f) (((struct wal_file *)(f))->real)

/* Write what is kept. */
static int flush(struct wal_file *w)
{
    w->want_page = w->commit = false;
    int rc = SQLITE_OK;
    for (size_t at = 0; at < w->len && rc == SQLITE_OK;) {
        size_t n = w->len - at < WRITE_MAX ? w->len - at : WRITE_MAX;
        nwrites++;
        rc = w->real->pMethods->xWrite(w->real, w->buf + at, (int)n, w->off + (sqlite3_int64)at);
        at += n;
    }
    w->len = 0;
    return rc;
}

static int keep(struct wal_file *w, const void *p, int n, sqlite3_int64 off)
{
    if (w->len + (size_t)n > w->cap) {
        size_t cap = w->cap ? w->cap : 64u << 10;
        while (cap < w->len + (size_t)n)
            cap *= 2;
        unsigned char *b = realloc(w->buf, cap);
        if (!b)
            return SQLITE_NOMEM;
        w->buf = b;
        w->cap = cap;
    }
    if (!w->len)
        w->off = off;
    memcpy(w->buf + w->len, p, (size_t)n);
    w->len += (size_t)n;
    if (off + n > w->end)
        w->end = off + n;
    return SQLITE_OK;
}

static int w_write(sqlite3_file *f, const void *p, int n, sqlite3_int64 off)
{
    struct wal_file *w = (struct wal_file *)f;
    bool at_end = w->len ? off == w->off + (sqlite3_int64)w->len : off >= w->end;
    if (at_end && off >= w->end && n == FRAME_HDR && !w->want_page) {
        /* A new frame's header. Bytes 4-7: the database's size in pages
         * after a commit, 0 for a frame that does not end one. */
        const unsigned char *h = p;
        int rc = keep(w, p, n, off);
        if (rc)
            return rc;
        w->want_page = true;
        w->commit = h[4] | h[5] | h[6] | h[7];
        return SQLITE_OK;
    }
    if (at_end && w->want_page) {
        /* Its page. */
        bool commit = w->commit;
        int rc = keep(w, p, n, off);
        if (rc)
            return rc;
        w->want_page = w->commit = false;
        return commit || w->len >= KEEP_MAX ? flush(w) : SQLITE_OK;
    }
    int rc = flush(w);
    if (rc)
        return rc;
    nwrites++;
    rc = w->real->pMethods->xWrite(w->real, p, n, off);
    if (off == 0 && n == WAL_HDR)
        w->end = WAL_HDR; /* a new log: frames start again after its header */
    else if (off + n > w->end)
        w->end = off + n;
    return rc;
}

static int w_close(sqlite3_file *f)
{
    struct wal_file *w = (struct wal_file *)f;
    int rc = flush(w);
    int rc2 = w->real->pMethods->xClose(w->real);
    free(w->buf);
    w->buf = NULL;
    w->cap = 0;
    return rc ? rc : rc2;
}

static int w_read(sqlite3_file *f, void *p, int n, sqlite3_int64 off)
{
    int rc = flush((struct wal_file *)f);
    return rc ? rc : REAL(f)->pMethods->xRead(REAL(f), p, n, off);
}

static int w_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    struct wal_file *w = (struct wal_file *)f;
    int rc = flush(w);
    if (rc)
        return rc;
    if (w->end > size)
        w->end = size;
    return w->real->pMethods->xTruncate(w->real, size);
}

static int w_sync(sqlite3_file *f, int flags)
{
    int rc = flush((struct wal_file *)f);
    return rc ? rc : REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int w_size(sqlite3_file *f, sqlite3_int64 *size)
{
    int rc = flush((struct wal_file *)f);
    return rc ? rc : REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int w_lock(sqlite3_file *f, int lock)
{
    int rc = flush((struct wal_file *)f);
    return rc ? rc : REAL(f)->pMethods->xLock(REAL(f), lock);
}

static int w_unlock(sqlite3_file *f, int lock)
{
    int rc = flush((struct wal_file *)f);
    return rc ? rc : REAL(f)->pMethods->xUnlock(REAL(f), lock);
}

static int w_reserved(sqlite3_file *f, int *out)
{
    int rc = flush((struct wal_file *)f);
    return rc ? rc : REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int w_control(sqlite3_file *f, int op, void *arg)
{
    int rc = flush((struct wal_file *)f);
    return rc ? rc : REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int w_sector(sqlite3_file *f)
{
    return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int w_chars(sqlite3_file *f)
{
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int w_shm_map(sqlite3_file *f, int pg, int sz, int extend, void volatile **p)
{
    int rc = flush((struct wal_file *)f);
    return rc ? rc : REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, extend, p);
}

static int w_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
    int rc = flush((struct wal_file *)f);
    return rc ? rc : REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}

static void w_shm_barrier(sqlite3_file *f)
{
    (void)flush((struct wal_file *)f);
    REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int w_shm_unmap(sqlite3_file *f, int del)
{
    int rc = flush((struct wal_file *)f);
    return rc ? rc : REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}

static int w_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **p)
{
    int rc = flush((struct wal_file *)f);
    return rc ? rc : REAL(f)->pMethods->xFetch(REAL(f), off, n, p);
}

static int w_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
    return REAL(f)->pMethods->xUnfetch(REAL(f), off, p);
}

static int v_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags)
{
    (void)vfs;
    if (!(flags & SQLITE_OPEN_WAL))
        /* Not the WAL: SQLite's own file, in place. */
        return real_vfs->xOpen(real_vfs, name, f, flags, out_flags);
    struct wal_file *w = (struct wal_file *)f;
    memset(w, 0, sizeof(*w));
    w->real = (sqlite3_file *)(w + 1);
    int rc = real_vfs->xOpen(real_vfs, name, w->real, flags, out_flags);
    if (rc != SQLITE_OK || !w->real->pMethods) {
        w->base.pMethods = NULL;
        return rc;
    }
    /* The log's end: frames are only ever appended past what the file holds. */
    sqlite3_int64 size = 0;
    if (w->real->pMethods->xFileSize(w->real, &size) == SQLITE_OK)
        w->end = size;
    int v = w->real->pMethods->iVersion;
    wal_methods.iVersion = v < 3 ? v : 3;
    w->base.pMethods = &wal_methods;
    return rc;
}

static void init(void)
{
    real_vfs = sqlite3_vfs_find(NULL);
    if (!real_vfs)
        return;
    wal_methods = (sqlite3_io_methods){
        .iVersion = 3,
        .xClose = w_close,
        .xRead = w_read,
        .xWrite = w_write,
        .xTruncate = w_truncate,
        .xSync = w_sync,
        .xFileSize = w_size,
        .xLock = w_lock,
        .xUnlock = w_unlock,
        .xCheckReservedLock = w_reserved,
        .xFileControl = w_control,
        .xSectorSize = w_sector,
        .xDeviceCharacteristics = w_chars,
        .xShmMap = w_shm_map,
        .xShmLock = w_shm_lock,
        .xShmBarrier = w_shm_barrier,
        .xShmUnmap = w_shm_unmap,
        .xFetch = w_fetch,
        .xUnfetch = w_unfetch,
    };
    wal_vfs = *real_vfs;
    wal_vfs.pNext = NULL;
    wal_vfs.zName = STORE__WAL_VFS;
    wal_vfs.szOsFile = (int)sizeof(struct wal_file) + real_vfs->szOsFile;
    wal_vfs.xOpen = v_open;
    if (sqlite3_vfs_register(&wal_vfs, 0) != SQLITE_OK)
        real_vfs = NULL;
}

const char *store__wal_vfs(void)
{
    pthread_once(&once, init);
    return real_vfs ? STORE__WAL_VFS : NULL;
}

uint64_t store__wal_writes(void)
{
    return nwrites;
}
