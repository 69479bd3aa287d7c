/* crd.h -- CustomResourceDefinitions (apiextensions.k8s.io/v1): a CRD
 * document checked and compiled into what serving its kind needs.
 *
 * crd_default and crd_parse do to a CRD what kube-apiserver's
 * apiextensions strategy does on a write: default it (listKind, singular,
 * conversion None), validate it with kube's wording (names, group, scope,
 * versions, schemas, subresources, printer columns) and compile each
 * version's structural schema (schema.h). The result is immutable and owned
 * by whoever serves the kind. Kueue's own kinds are CRDs too: their
 * manifests (config/components/crd, the files the cluster deployment
 * installs) are built into the binary and listed by crd_kueue_manifests. */
#ifndef CUEUE_API_CRD_H
#define CUEUE_API_CRD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"

struct err;
struct sch;

#define CRD_API_VERSION "apiextensions.k8s.io/v1"
#define CRD_CLEANUP_FINALIZER "customresourcecleanup.apiextensions.k8s.io"

/* A printer column (additionalPrinterColumns). */
struct crd_column {
    const char *name, *type, *format, *description, *json_path; /* borrowed from the doc */
    int priority;
};

struct crd_version {
    const char *name; /* borrowed from the doc */
    bool served, storage, deprecated;
    const char *deprecation_warning; /* NULL: the default warning */
    struct sch *schema;              /* owned */
    bool status;                     /* the status subresource */
    bool scale;                      /* the scale subresource, with: */
    const char *spec_replicas_path, *status_replicas_path, *label_selector_path;
    struct crd_column *columns; /* owned array */
    size_t ncolumns;
};

struct crd {
    json_t *doc; /* the CRD as stored (a reference) */
    const char *name, *group, *plural, *singular, *kind, *list_kind; /* borrowed from doc */
    const char **short_names;                                        /* NULL-terminated, owned */
    const char **categories;                                         /* NULL-terminated, owned */
    bool namespaced;
    struct crd_version *versions; /* owned array */
    size_t nversions;
    size_t storage;  /* index of the storage version */
    char **warnings; /* what the server should warn of (unevaluated rules ...) */
    size_t nwarnings;
};

/* Fill in what kube-apiserver defaults in a CRD (in place): names.singular
 * (the lower-cased kind), names.listKind (kind + "List"), conversion
 * strategy None. */
void crd_default(json_t *doc);

/* Check and compile a (defaulted) CRD document. Returns 0 and *out (free
 * with crd_free; it keeps a reference to doc, which must not change), or
 * ERR_INVALID with every problem as a cause in e. */
CU_MUST_CHECK int crd_parse(const json_t *doc, struct crd **out, struct err *e);
void crd_free(struct crd *c);

/* The version named name, or NULL. */
const struct crd_version *crd_version_find(const struct crd *c, const char *name);

/* Kueue's CRD manifests as built in (config/components/crd/bases, by
 * cmake/embed.cmake): NULL-terminated YAML texts (static), one CRD each,
 * in file name order. */
const char *const *crd_kueue_manifests(void);

#endif
