/* schema.h -- structural schemas: what a CustomResourceDefinition's
 * openAPIV3Schema does to the objects of its kind.
 *
 * A schema is compiled once, when its CRD is written (sch_compile checks
 * it is structural as kube-apiserver does, and compiles its CEL rules),
 * then applied to every object written, in kube-apiserver's order:
 * prune the fields the schema does not know (sch_prune, which also names
 * them, for fieldValidation=Strict/Warn), default (sch_default), validate
 * (sch_validate: types, formats, enums, bounds, patterns, required,
 * x-kubernetes-int-or-string, list types set/map, x-kubernetes-validations).
 * Errors are causes with kube-apiserver's wording and field paths:
 * `spec.replicas: Invalid value: "string": spec.replicas in body must be of
 * type integer: "string"`, `spec.mode: Unsupported value: "x": supported
 * values: "a", "b"`, `spec: Invalid value: "object": <the rule's message>`.
 *
 * A compiled schema is immutable: any number of threads may apply it at
 * once. */
#ifndef CUEUE_API_SCHEMA_H
#define CUEUE_API_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"

struct err;
struct sch;

/* Told of each x-kubernetes-validations rule that compiled but is not
 * evaluated (outside cel.h's subset): its path in the schema, the rule and
 * why. */
typedef void (*sch_warn_fn)(void *arg, const char *path, const char *rule, const char *why);

/* Compile schema (borrowed; what is needed is copied). Violations of the
 * structural rules are causes in e at the caller's path (push
 * "spec.versions[i].schema.openAPIV3Schema" first), ERR_INVALID. warn (may
 * be NULL) hears of the rules that will not be evaluated. */
CU_MUST_CHECK int sch_compile(const json_t *schema, sch_warn_fn warn, void *warn_arg,
                              struct sch **out, struct err *e);
void sch_free(struct sch *s);

/* The schema as written (borrowed, valid while s lives). */
const json_t *sch_json(const struct sch *s);

/* Told of each field pruned, by its path ("spec.foo", "spec.items[0].bar"). */
typedef void (*sch_pruned_fn)(void *arg, const char *path);

/* Remove from doc (a whole object: apiVersion, kind and metadata are kept,
 * metadata pruned to ObjectMeta's fields) every field the schema does not
 * specify, except under x-kubernetes-preserve-unknown-fields. */
void sch_prune(const struct sch *s, json_t *doc, sch_pruned_fn fn, void *arg);

/* Apply the schema's defaults to doc: an absent field with a default gets
 * it, a null that the schema does not allow gets the default or goes. */
void sch_default(const struct sch *s, json_t *doc);

/* Validate doc; old is the stored object on an update (for transition
 * rules, which see oldSelf), else NULL. Returns 0 or ERR_INVALID with the
 * causes in e. */
CU_MUST_CHECK int sch_validate(const struct sch *s, const json_t *doc, const json_t *old,
                               struct err *e);

/* sch_prune (reporting nothing), sch_default and sch_validate in turn: an
 * object of the schema's kind as the API server admits it. */
CU_MUST_CHECK int sch_admit(const struct sch *s, json_t *doc, const json_t *old, struct err *e);

/* sch_prune, sch_default and sch_validate in turn, for an update through
 * the status subresource: every top-level field of doc but status is
 * old's, and old is an object this schema pruned, defaulted and validated
 * (the caller knows it: same schema, unchanged since). So only status is
 * pruned and defaulted, and the value checks descend only into status;
 * the root's own checks and the x-kubernetes-validations rules (which may
 * read any part, and oldSelf) run as sch_validate runs them. The result,
 * the causes and their order are those of the three calls, as an
 * unchanged part that passed cannot fail the same checks again. */
CU_MUST_CHECK int sch_admit_status(const struct sch *s, json_t *doc, const json_t *old,
                                   struct err *e);

/* The sub-schema at a dotted path from the root ("spec.replicas",
 * "status"), as written; NULL when the schema does not specify it. */
const json_t *sch_json_at(const struct sch *s, const char *path);

#endif
