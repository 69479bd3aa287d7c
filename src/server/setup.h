/* setup.h -- what `cueue serve` and `cueue token` keep in the data directory:
 * a CA and a serving certificate (GnuTLS), bearer tokens, kubeconfigs.
 *
 * Layout of DIR: lock (the running server's pid, flock'ed while it runs),
 * store.db (and SQLite's store.db-wal, store.db-shm), ca.crt, ca.key (the
 * CA, made once), server.crt, server.key (re-issued at every start for the
 * listen address, signed by the CA, so kubeconfigs stay valid), admin-token,
 * sa.key (signs service account tokens), tokens (users: `TOKEN USER
 * [GROUP,...]` per line; tokens.lock serialises appenders), endpoint (the server URL, for `cueue
 * token`), kubeconfig, pods/ (the local executor's logs). DIR is 0700 and every file in it 0600:
 * tenants' processes run on the same machine, and the directory holds every
 * secret and every tenant's objects.
 *
 * Files here are read only when they are regular files, never through a
 * symbolic link (the last component) and never by waiting on a FIFO: what
 * is read decides who may do what. */
#ifndef CUEUE_SERVER_SETUP_H
#define CUEUE_SERVER_SETUP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"

struct err;
struct sb;
struct stat;

/* Files read here are capped: what is read is small, and a huge file is a
 * mistake or an attack, not input. */
#define SRV_FILE_MAX (16 << 20)

/* The data directory of a running server. */
struct srv_datadir {
    int lock_fd; /* holds the flock on DIR/lock; -1 when closed */
};

/* Open DIR for a server: create it (0700, with missing parents), lock it
 * without waiting (ERR_EXISTS naming the pid of the server that holds it:
 * two servers on one store would each believe their own view), tighten
 * what is looser than private (group and other bits cleared on DIR and
 * everything under it, symbolic links left alone; each change logged), and
 * refuse a zero-length DIR/store.db beside keys of an earlier run
 * (ERR_INVALID: the store was truncated or lost, and an empty one would
 * silently take its place). The lock lasts until srv_datadir_close or the
 * process ends (kill -9 included). */
CU_MUST_CHECK int srv_datadir_open(const char *dir, struct srv_datadir *out, struct err *e);
void srv_datadir_close(struct srv_datadir *d);

/* PEM material for serving TLS; every field owned (srv_tls_release). */
struct srv_tls {
    char *ca_pem;
    char *cert_pem;
    char *key_pem;
};

/* Make sure DIR has a CA (create it the first time) and issue a serving
 * certificate for host (an IPv4 address; "localhost" and 127.0.0.1 are
 * always included). ERR_IO or ERR_INTERNAL with the reason. */
CU_MUST_CHECK int srv_tls_ensure(const char *dir, const char *host, struct srv_tls *out,
                                 struct err *e);
void srv_tls_release(struct srv_tls *t);

/* A new random token (64 hex digits) into buf (at least 65 bytes). */
CU_MUST_CHECK int srv_token_new(char *buf, size_t len, struct err *e);

/* Write data to path atomically (a new temporary file + rename) with mode.
 * ERR_IO with the reason. */
CU_MUST_CHECK int srv_write_file(const char *path, const char *data, size_t len, int mode,
                                 struct err *e);
/* Open path for reading when it is a regular file, without following a
 * symbolic link (the last component) and without blocking (a FIFO is
 * refused, not waited on). Returns the descriptor (close it) with *st
 * filled, or ERR_NOT_FOUND, ERR_INVALID (a symbolic link, not a regular
 * file) or ERR_IO, all negative. */
CU_MUST_CHECK int srv_open_regular(const char *path, struct stat *st, struct err *e);
/* Read fd (opened on path, named in errors) to its end: *out owned (free),
 * NUL-terminated, *len (may be NULL) its length. ERR_IO, or ERR_TOO_LARGE
 * beyond SRV_FILE_MAX. */
CU_MUST_CHECK int srv_read_fd(int fd, const char *path, char **out, size_t *len, struct err *e);
/* Read a whole regular file (as srv_open_regular opens it); *out owned
 * (free). ERR_NOT_FOUND, ERR_INVALID, ERR_IO, ERR_TOO_LARGE. */
CU_MUST_CHECK int srv_read_file(const char *path, char **out, struct err *e);

/* Append line (one `TOKEN USER [GROUP,...]` entry ending in a newline) to
 * DIR/tokens, created 0600. Appenders are serialised by a flock on
 * DIR/tokens.lock, so concurrent ones all land; the file is replaced
 * atomically, so a server reading it sees the old or the new content,
 * never half a line. ERR_IO, or what srv_read_file returns for the old
 * file (ERR_INVALID when it is not a regular file). */
CU_MUST_CHECK int srv_tokens_append(const char *dir, const char *line, struct err *e);

/* A kubeconfig for url with bearer token and, for https, the CA. Appends. */
void srv_kubeconfig(const char *url, const char *ca_pem, const char *user, const char *token,
                    const char *ns, struct sb *out);

#endif
