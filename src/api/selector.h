/* selector.h -- Kubernetes label and field selectors given as text, over
 * objects' JSON trees.
 *
 * One parser and one matcher for the labelSelector and fieldSelector
 * parameters: the store filters lists and watches with them, the API server
 * checks every field selector with them (spec/apiserver.md section 4.2).
 * Structured selectors (metav1.LabelSelector in a spec) are
 * api_selector_matches in objects.h; both follow apimachinery's rules: a
 * != or notin requirement holds when the label is absent. */
#ifndef CUEUE_API_SELECTOR_H
#define CUEUE_API_SELECTOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"

struct err;

enum sel_op {
    SEL_EQ,         /* a=b, a==b */
    SEL_NEQ,        /* a!=b */
    SEL_IN,         /* a in (x,y) */
    SEL_NOTIN,      /* a notin (x,y) */
    SEL_EXISTS,     /* a */
    SEL_NOT_EXISTS, /* !a */
    SEL_GT,         /* a>1 */
    SEL_LT,         /* a<1 */
};

/* One requirement. For a field selector key is the dotted path into the
 * object (the selector's field label translated) and op SEL_EQ or SEL_NEQ
 * with one value. */
struct sel_req {
    char *key;
    enum sel_op op;
    char **values;
    size_t n_values;
};

/* A parsed label or field selector: every requirement must hold (none:
 * everything is selected). Owns its requirements; sel_release frees them. */
struct sel_selector {
    struct sel_req *reqs;
    size_t n;
};

/* Parse a label selector (labels.Parse syntax: `k=v`, `k==v`, `k!=v`,
 * `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>n`, `k<n`, comma-separated).
 * NULL or blank selects everything. Returns 0, or ERR_PARSE with the reason
 * in e (out left empty). */
CU_MUST_CHECK int sel_label_parse(const char *text, struct sel_selector *out, struct err *e);
/* Parse a field selector for the resource whose store key is resource
 * (e.g. "events", "pods", "jobs.batch"; NULL: metadata fields only):
 * `field=value`, `field==value`, `field!=value`, comma-separated, `\,`
 * escaping a comma. metadata.name and metadata.namespace are supported for
 * every resource, the fields the API server supports for Events, Pods,
 * Namespaces and Jobs for those. Returns 0 or ERR_PARSE: Kubernetes'
 * "field label not supported: <field>" for another field, "invalid
 * selector: ..." for a term without an operator (out left empty). */
CU_MUST_CHECK int sel_field_parse(const char *resource, const char *text, struct sel_selector *out,
                                  struct err *e);
/* Free the requirements; sel is empty afterwards. */
void sel_release(struct sel_selector *sel);

/* Do metadata.labels of obj satisfy sel? */
bool sel_label_matches(const struct sel_selector *sel, const json_t *obj);
/* Do obj's fields satisfy sel? A field is compared as text (a string, an
 * integer in decimal, "true"/"false"); an absent field is "". */
bool sel_field_matches(const struct sel_selector *sel, const json_t *obj);

/* Does a metav1.LabelSelector given as JSON ({"matchLabels": {...},
 * "matchExpressions": [{"key", "operator", "values"}]}) select these labels
 * (a JSON object, or NULL for none)? An empty selector ({}) selects
 * everything; NULL, or a selector that is not an object, selects nothing
 * (LabelSelectorAsSelector's nil); an unknown operator selects nothing. */
bool sel_json_matches(const json_t *selector, const json_t *labels);

/* A quick test on an object's JSON text (as jansson writes it) before
 * parsing it: false when the selectors (either may be NULL) cannot match
 * because a required key or value is absent from the text; true means
 * "parse and check". */
bool sel_may_match_text(const struct sel_selector *labels, const struct sel_selector *fields,
                        const char *json);

#endif
