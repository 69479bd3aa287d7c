/* cel.h -- the subset of CEL that CustomResourceDefinition validation
 * rules (x-kubernetes-validations) are written in.
 *
 * A rule is compiled once, when its CRD is written, and evaluated against
 * JSON values: `self` is the value the rule sits on and `oldSelf` the same
 * value before an update (transition rules). The subset is what Kueue's own
 * CRDs use, and a little around it (docs/serve.md lists it):
 * - literals: integers, doubles, single- or double-quoted strings, true,
 *   false, null, lists [a, b];
 * - field selection self.a.b, indexing list[i] and map['key'];
 * - operators ! - * / % + - == != < <= > >= in && || and ?: with CEL's
 *   error absorption for && and || (false && error is false);
 * - has(x.f); the macros all, exists, exists_one, filter, map (one variable);
 * - size() as a function or a method; the string methods startsWith,
 *   endsWith, contains, matches (an RE2 pattern within POSIX ERE);
 *   int(), string().
 * Anything else (other functions, comprehensions over maps, optional
 * types, bytes, timestamps) does not compile: cel_compile says which part
 * and the caller reports the rule as not evaluated.
 *
 * Evaluation is bounded: each evaluation may take at most CEL_MAX_STEPS
 * steps, so a rule cannot be made to run for long by a large object. */
#ifndef CUEUE_API_CEL_H
#define CUEUE_API_CEL_H

#include <jansson.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"

#define CEL_MAX_STEPS 1000000
#define CEL_MAX_RULE 4096 /* characters of a rule that are compiled */

struct cel;

/* Compile rule. Returns 0 and *out (free with cel_free), or ERR_UNSUPPORTED
 * (something outside the subset) or ERR_PARSE (not CEL), with the reason
 * in why (len bytes). */
CU_MUST_CHECK int cel_compile(const char *rule, struct cel **out, char *why, size_t len);
void cel_free(struct cel *c);

/* Does the rule read oldSelf (a transition rule)? */
bool cel_uses_old(const struct cel *c);

enum cel_result { CEL_TRUE, CEL_FALSE, CEL_ERROR };

/* Evaluate against self and old_self (NULL when there is no old value; a
 * transition rule is then not evaluated and counts as true). Each step is
 * taken from *budget too, which the caller shares among the rules it
 * evaluates for one object. CEL_ERROR when the rule fails at run time (a
 * missing field, a type mismatch, a budget spent, a result that is not a
 * bool); why says what. */
enum cel_result cel_eval(const struct cel *c, const json_t *self, const json_t *old_self,
                         long *budget, char *why, size_t len);

/* Compile an RE2 pattern (CEL's matches(), OpenAPI's pattern) as POSIX ERE:
 * the classes \d \w \s (and negations) and non-capturing groups are
 * translated; other RE2-only syntax fails. Unanchored, as RE2 matches.
 * Returns 0 (regfree *out), or ERR_UNSUPPORTED with the reason in why. */
CU_MUST_CHECK int cel_regex(const char *pattern, regex_t *out, char *why, size_t len);

#endif
