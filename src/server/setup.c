/* setup.c -- see setup.h. Keys are ECDSA P-256: quick to generate at every
 * start, and accepted by Go's TLS stack (kubectl) and by Python's. */
#include "server/setup.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/base64.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#define CERT_DAYS 3650

int srv_write_file(const char *path, const char *data, size_t len, int mode, struct err *e)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
    /* A fresh file, never one left behind or planted under the name. */
    (void)unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return err_set(e, ERR_IO, "cannot create '%s': %s", tmp, strerror(errno));
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, data + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int saved = errno;
            close(fd);
            unlink(tmp);
            return err_set(e, ERR_IO, "cannot write '%s': %s", tmp, strerror(saved));
        }
        off += (size_t)n;
    }
    if (fchmod(fd, (mode_t)mode) || fsync(fd) || close(fd)) {
        unlink(tmp);
        return err_set(e, ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
    }
    if (rename(tmp, path)) {
        int saved = errno;
        unlink(tmp);
        return err_set(e, ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(saved));
    }
    return 0;
}

int srv_open_regular(const char *path, struct stat *st, struct err *e)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer; it only affects the open here, as regular files never block. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return err_set(e, ERR_NOT_FOUND, "cannot open '%s': %s", path, strerror(errno));
        if (errno == ELOOP)
            return err_set(e, ERR_INVALID, "'%s' is a symbolic link, which is not followed", path);
        return err_set(e, ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    }
    if (fstat(fd, st)) {
        int saved = errno;
        close(fd);
        return err_set(e, ERR_IO, "cannot stat '%s': %s", path, strerror(saved));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return err_set(e, ERR_INVALID, "'%s' is not a regular file", path);
    }
    return fd;
}

int srv_read_fd(int fd, const char *path, char **out, size_t *len, struct err *e)
{
    struct sb sb = SB_INIT;
    char buf[16384];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            sb_release(&sb);
            return err_set(e, ERR_IO, "cannot read '%s': %s", path, strerror(saved));
        }
        if (n == 0)
            break;
        sb_add(&sb, buf, (size_t)n);
        if (sb.len > SRV_FILE_MAX) {
            sb_release(&sb);
            return err_set(e, ERR_TOO_LARGE, "'%s' is larger than %d bytes", path, SRV_FILE_MAX);
        }
    }
    sb_add(&sb, "", 0);
    if (len)
        *len = sb.len;
    *out = sb_take(&sb);
    return 0;
}

/* Read the regular file path whole: *out owned, *len its length. */
static int read_regular(const char *path, char **out, size_t *len, struct err *e)
{
    struct stat st;
    int fd = srv_open_regular(path, &st, e);
    if (fd < 0)
        return fd;
    int rc = srv_read_fd(fd, path, out, len, e);
    close(fd);
    return rc;
}

int srv_read_file(const char *path, char **out, struct err *e)
{
    return read_regular(path, out, NULL, e);
}

int srv_token_new(char *buf, size_t len, struct err *e)
{
    unsigned char raw[32];
    if (len < 2 * sizeof(raw) + 1)
        return err_set(e, ERR_INTERNAL, "token buffer too small");
    if (gnutls_rnd(GNUTLS_RND_KEY, raw, sizeof(raw)))
        return err_set(e, ERR_INTERNAL, "cannot get random bytes");
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(buf + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

static char *path_in(const char *dir, const char *name)
{
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s/%s", dir, name);
    return sb_take(&sb);
}

static int tls_fail(struct err *e, const char *what, int ret)
{
    return err_set(e, ERR_INTERNAL, "cannot %s: %s", what, gnutls_strerror(ret));
}

static int export_crt(gnutls_x509_crt_t crt, char **out, struct err *e)
{
    gnutls_datum_t d = {NULL, 0};
    int ret = gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &d);
    if (ret < 0)
        return tls_fail(e, "export a certificate", ret);
    *out = xstrndup((const char *)d.data, d.size);
    gnutls_free(d.data);
    return 0;
}

static int export_key(gnutls_x509_privkey_t key, char **out, struct err *e)
{
    gnutls_datum_t d = {NULL, 0};
    int ret = gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &d);
    if (ret < 0)
        return tls_fail(e, "export a key", ret);
    *out = xstrndup((const char *)d.data, d.size);
    gnutls_free(d.data);
    return 0;
}

static int new_key(gnutls_x509_privkey_t *key, struct err *e)
{
    int ret = gnutls_x509_privkey_init(key);
    if (ret >= 0)
        ret = gnutls_x509_privkey_generate(*key, GNUTLS_PK_ECDSA,
                                           GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0);
    return ret < 0 ? tls_fail(e, "generate a key", ret) : 0;
}

/* Fields every certificate gets: version, serial, validity, key, subject. */
static int crt_common(gnutls_x509_crt_t crt, gnutls_x509_privkey_t key, const char *cn,
                      struct err *e)
{
    unsigned char serial[16];
    if (gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial)))
        return err_set(e, ERR_INTERNAL, "cannot get random bytes");
    serial[0] &= 0x7f; /* positive */
    time_t now = time(NULL);
    char dn[128];
    snprintf(dn, sizeof(dn), "CN=%s,O=cueue", cn);
    int ret;
    if ((ret = gnutls_x509_crt_set_version(crt, 3)) < 0 ||
        (ret = gnutls_x509_crt_set_serial(crt, serial, sizeof(serial))) < 0 ||
        (ret = gnutls_x509_crt_set_activation_time(crt, now - 3600)) < 0 ||
        (ret = gnutls_x509_crt_set_expiration_time(crt, now + (time_t)CERT_DAYS * 86400)) < 0 ||
        (ret = gnutls_x509_crt_set_key(crt, key)) < 0 ||
        (ret = gnutls_x509_crt_set_dn(crt, dn, NULL)) < 0)
        return tls_fail(e, "fill a certificate", ret);
    unsigned char kid[64];
    size_t kidlen = sizeof(kid);
    if ((ret = gnutls_x509_crt_get_key_id(crt, GNUTLS_KEYID_USE_SHA1, kid, &kidlen)) < 0 ||
        (ret = gnutls_x509_crt_set_subject_key_id(crt, kid, kidlen)) < 0)
        return tls_fail(e, "set a key id", ret);
    return 0;
}

static int make_ca(const char *dir, struct err *e)
{
    gnutls_x509_privkey_t key = NULL;
    gnutls_x509_crt_t crt = NULL;
    char *crt_pem = NULL, *key_pem = NULL;
    int rc = new_key(&key, e);
    if (rc)
        goto out;
    int ret = gnutls_x509_crt_init(&crt);
    if (ret < 0) {
        rc = tls_fail(e, "make a certificate", ret);
        goto out;
    }
    if ((rc = crt_common(crt, key, "cueue-ca", e)))
        goto out;
    if ((ret = gnutls_x509_crt_set_basic_constraints(crt, 1, -1)) < 0 ||
        (ret = gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN |
                                                      GNUTLS_KEY_DIGITAL_SIGNATURE)) < 0 ||
        (ret = gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0)) < 0) {
        rc = tls_fail(e, "sign the CA", ret);
        goto out;
    }
    if ((rc = export_crt(crt, &crt_pem, e)) || (rc = export_key(key, &key_pem, e)))
        goto out;
    char *kp = path_in(dir, "ca.key"), *cp = path_in(dir, "ca.crt");
    rc = srv_write_file(kp, key_pem, strlen(key_pem), 0600, e);
    if (!rc)
        rc = srv_write_file(cp, crt_pem, strlen(crt_pem), 0600, e);
    free(kp);
    free(cp);
out:
    free(crt_pem);
    free(key_pem);
    if (crt)
        gnutls_x509_crt_deinit(crt);
    if (key)
        gnutls_x509_privkey_deinit(key);
    return rc;
}

static int load_ca(const char *dir, gnutls_x509_crt_t *crt, gnutls_x509_privkey_t *key,
                   char **ca_pem, struct err *e)
{
    char *cp = path_in(dir, "ca.crt"), *kp = path_in(dir, "ca.key");
    char *kpem = NULL;
    int rc = srv_read_file(cp, ca_pem, e);
    if (!rc)
        rc = srv_read_file(kp, &kpem, e);
    free(cp);
    free(kp);
    if (rc)
        goto out;
    gnutls_datum_t cd = {(unsigned char *)*ca_pem, (unsigned)strlen(*ca_pem)};
    gnutls_datum_t kd = {(unsigned char *)kpem, (unsigned)strlen(kpem)};
    int ret;
    if ((ret = gnutls_x509_crt_init(crt)) < 0 ||
        (ret = gnutls_x509_crt_import(*crt, &cd, GNUTLS_X509_FMT_PEM)) < 0 ||
        (ret = gnutls_x509_privkey_init(key)) < 0 ||
        (ret = gnutls_x509_privkey_import(*key, &kd, GNUTLS_X509_FMT_PEM)) < 0)
        rc = err_set(e, ERR_IO, "cannot load the CA in '%s': %s", dir, gnutls_strerror(ret));
out:
    free(kpem);
    return rc;
}

static int issue_server(const char *dir, const char *host, gnutls_x509_crt_t ca,
                        gnutls_x509_privkey_t ca_key, struct srv_tls *out, struct err *e)
{
    gnutls_x509_privkey_t key = NULL;
    gnutls_x509_crt_t crt = NULL;
    int rc = new_key(&key, e);
    if (rc)
        goto out;
    int ret = gnutls_x509_crt_init(&crt);
    if (ret < 0) {
        rc = tls_fail(e, "make a certificate", ret);
        goto out;
    }
    if ((rc = crt_common(crt, key, "cueue", e)))
        goto out;
    unsigned char ip[4], loop[4] = {127, 0, 0, 1};
    if ((ret = gnutls_x509_crt_set_basic_constraints(crt, 0, -1)) < 0 ||
        (ret = gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE |
                                                      GNUTLS_KEY_KEY_ENCIPHERMENT)) < 0 ||
        (ret = gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0)) < 0 ||
        (ret = gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, "localhost", 9,
                                                    GNUTLS_FSAN_APPEND)) < 0 ||
        (ret = gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, loop, 4,
                                                    GNUTLS_FSAN_APPEND)) < 0) {
        rc = tls_fail(e, "fill the serving certificate", ret);
        goto out;
    }
    if (inet_pton(AF_INET, host, ip) == 1 && memcmp(ip, loop, 4) &&
        (ret = gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip, 4,
                                                    GNUTLS_FSAN_APPEND)) < 0) {
        rc = tls_fail(e, "add the listen address", ret);
        goto out;
    }
    unsigned char kid[64];
    size_t kidlen = sizeof(kid);
    if ((ret = gnutls_x509_crt_get_subject_key_id(ca, kid, &kidlen, NULL)) >= 0)
        gnutls_x509_crt_set_authority_key_id(crt, kid, kidlen);
    if ((ret = gnutls_x509_crt_sign2(crt, ca, ca_key, GNUTLS_DIG_SHA256, 0)) < 0) {
        rc = tls_fail(e, "sign the serving certificate", ret);
        goto out;
    }
    if ((rc = export_crt(crt, &out->cert_pem, e)) || (rc = export_key(key, &out->key_pem, e)))
        goto out;
    char *cp = path_in(dir, "server.crt"), *kp = path_in(dir, "server.key");
    rc = srv_write_file(kp, out->key_pem, strlen(out->key_pem), 0600, e);
    if (!rc)
        rc = srv_write_file(cp, out->cert_pem, strlen(out->cert_pem), 0600, e);
    free(cp);
    free(kp);
out:
    if (crt)
        gnutls_x509_crt_deinit(crt);
    if (key)
        gnutls_x509_privkey_deinit(key);
    return rc;
}

int srv_tls_ensure(const char *dir, const char *host, struct srv_tls *out, struct err *e)
{
    memset(out, 0, sizeof(*out));
    char *cp = path_in(dir, "ca.crt");
    bool have = access(cp, R_OK) == 0;
    free(cp);
    int rc = 0;
    if (!have && (rc = make_ca(dir, e)))
        return rc;
    gnutls_x509_crt_t ca = NULL;
    gnutls_x509_privkey_t ca_key = NULL;
    rc = load_ca(dir, &ca, &ca_key, &out->ca_pem, e);
    if (!rc)
        rc = issue_server(dir, host, ca, ca_key, out, e);
    if (ca)
        gnutls_x509_crt_deinit(ca);
    if (ca_key)
        gnutls_x509_privkey_deinit(ca_key);
    if (rc)
        srv_tls_release(out);
    return rc;
}

void srv_tls_release(struct srv_tls *t)
{
    free(t->ca_pem);
    free(t->cert_pem);
    free(t->key_pem);
    memset(t, 0, sizeof(*t));
}

void srv_kubeconfig(const char *url, const char *ca_pem, const char *user, const char *token,
                    const char *ns, struct sb *out)
{
    sb_adds(out, "apiVersion: v1\nkind: Config\nclusters:\n- name: cueue\n  cluster:\n");
    sb_addf(out, "    server: %s\n", url);
    if (ca_pem) {
        sb_adds(out, "    certificate-authority-data: ");
        b64_encode(ca_pem, strlen(ca_pem), false, out);
        sb_addch(out, '\n');
    }
    sb_addf(out, "users:\n- name: %s\n  user:\n    token: %s\n", user, token);
    sb_addf(out, "contexts:\n- name: cueue\n  context:\n    cluster: cueue\n    user: %s\n", user);
    if (ns)
        sb_addf(out, "    namespace: %s\n", ns);
    sb_adds(out, "current-context: cueue\npreferences: {}\n");
}

/* ---- the data directory ---------------------------------------------------------------- */

static int make_dirs(const char *dir, struct err *e)
{
    char buf[4096];
    if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
        return err_set(e, ERR_INVALID, "data dir path is too long: '%s'", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0700) && errno != EEXIST)
            return err_set(e, ERR_IO, "cannot create '%s': %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0700) && errno != EEXIST)
        return err_set(e, ERR_IO, "cannot create '%s': %s", buf, strerror(errno));
    return 0;
}

/* Take DIR/lock without waiting; on success it holds our pid. */
static int take_lock(const char *dir, int *out, struct err *e)
{
    char *path = path_in(dir, "lock");
    int rc = 0;
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        rc = err_set(e, ERR_IO, "cannot open '%s': %s", path, strerror(errno));
        goto out;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        int saved = errno;
        if (saved != EWOULDBLOCK) {
            rc = err_set(e, ERR_IO, "cannot lock '%s': %s", path, strerror(saved));
            close(fd);
            goto out;
        }
        /* The holder writes its pid right after locking: give it a moment. */
        char pid[32] = "";
        for (int i = 0; i < 50 && !pid[0]; i++) {
            ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
            pid[n > 0 ? n : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            if (!pid[0])
                usleep(10000);
        }
        close(fd);
        rc = err_set(e, ERR_EXISTS,
                     "data dir '%s' is in use by another cueue serve (pid %s): stop it, or give "
                     "this one another --data-dir",
                     dir, pid[0] ? pid : "unknown");
        goto out;
    }
    char line[32];
    int n = snprintf(line, sizeof(line), "%d\n", (int)getpid());
    if (ftruncate(fd, 0) || pwrite(fd, line, (size_t)n, 0) != n) {
        rc = err_set(e, ERR_IO, "cannot write '%s': %s", path, strerror(errno));
        close(fd);
        goto out;
    }
    *out = fd;
out:
    free(path);
    return rc;
}

/* Clear the group and other bits of what dfd's entries (and dfd itself,
 * named path) hold, depth-first; symbolic links are left alone (never
 * followed). Each change is logged: a loose data dir is worth knowing of. */
static void tighten(int dfd, const char *path, int depth)
{
    struct stat st;
    if (fstat(dfd, &st) == 0 && (st.st_mode & 077)) {
        if (fchmod(dfd, st.st_mode & 07700))
            log_warn("cannot tighten the mode of '%s': %s", path, strerror(errno));
        else
            log_warn("tightened the mode of '%s' from %04o to %04o", path,
                     (unsigned)(st.st_mode & 07777), (unsigned)(st.st_mode & 07700));
    }
    if (depth > 32)
        return;
    int copy = dup(dfd);
    DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
    if (!d) {
        if (copy >= 0)
            close(copy);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char *child = path_in(path, de->d_name);
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode)) {
            if (S_ISDIR(st.st_mode)) {
                int cfd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (cfd >= 0) {
                    tighten(cfd, child, depth + 1);
                    close(cfd);
                }
            } else if (st.st_mode & 077) {
                if (fchmodat(dfd, de->d_name, st.st_mode & 07700, 0))
                    log_warn("cannot tighten the mode of '%s': %s", child, strerror(errno));
                else
                    log_warn("tightened the mode of '%s' from %04o to %04o", child,
                             (unsigned)(st.st_mode & 07777), (unsigned)(st.st_mode & 07700));
            }
        }
        free(child);
    }
    closedir(d);
}

/* A store that is there but empty, beside keys an earlier run made, was
 * truncated or lost: serving an empty store in its place would look like
 * every object had been deleted. */
static int check_store_file(const char *dir, struct err *e)
{
    static const char *const keys[] = {"admin-token", "ca.key", "sa.key", "tokens", NULL};
    char *db = path_in(dir, "store.db");
    struct stat st;
    int rc = 0;
    if (lstat(db, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
        for (const char *const *k = keys; *k && !rc; k++) {
            char *kp = path_in(dir, *k);
            if (lstat(kp, &st) == 0)
                rc = err_set(e, ERR_INVALID,
                             "store '%s' is empty, but '%s' is from an earlier run: the store "
                             "was truncated or lost; restore it from a backup, or remove it to "
                             "start over with no objects",
                             db, kp);
            free(kp);
        }
    }
    free(db);
    return rc;
}

int srv_datadir_open(const char *dir, struct srv_datadir *out, struct err *e)
{
    out->lock_fd = -1;
    int rc = make_dirs(dir, e);
    if (rc)
        return rc;
    /* The lock first: a second server leaves the directory as it is. */
    rc = take_lock(dir, &out->lock_fd, e);
    if (rc)
        return rc;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        rc = err_set(e, ERR_IO, "cannot open '%s': %s", dir, strerror(errno));
    } else {
        /* tighten does the directory before its entries: from then on no
         * one else can enter it. */
        tighten(dfd, dir, 0);
        close(dfd);
        rc = check_store_file(dir, e);
    }
    if (rc)
        srv_datadir_close(out);
    return rc;
}

void srv_datadir_close(struct srv_datadir *d)
{
    if (d->lock_fd >= 0)
        close(d->lock_fd);
    d->lock_fd = -1;
}

/* ---- tenant tokens ------------------------------------------------------------------- */

int srv_tokens_append(const char *dir, const char *line, struct err *e)
{
    char *path = path_in(dir, "tokens"), *lpath = path_in(dir, "tokens.lock");
    char *old = NULL;
    int rc = 0;
    int lfd = open(lpath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lfd < 0) {
        rc = err_set(e, ERR_IO, "cannot open '%s': %s", lpath, strerror(errno));
        goto out;
    }
    /* Read, append, replace: under the lock, so that two appenders do not
     * each write the file without the other's line. */
    while (flock(lfd, LOCK_EX)) {
        if (errno != EINTR) {
            rc = err_set(e, ERR_IO, "cannot lock '%s': %s", lpath, strerror(errno));
            goto out_close;
        }
    }
    size_t n = 0;
    rc = read_regular(path, &old, &n, e);
    if (rc == ERR_NOT_FOUND) {
        err_init(e);
        rc = 0;
    }
    if (rc)
        goto out_close;
    struct sb all = SB_INIT;
    if (old)
        sb_add(&all, old, n);
    if (all.len && all.buf[all.len - 1] != '\n')
        sb_addch(&all, '\n');
    sb_adds(&all, line);
    rc = srv_write_file(path, all.buf, all.len, 0600, e);
    sb_release(&all);
out_close:
    close(lfd); /* releases the lock */
out:
    free(old);
    free(path);
    free(lpath);
    return rc;
}
