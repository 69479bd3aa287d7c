/* select.c -- field selectors (spec/apiserver.md §4.2).
 *
 * The server checks every selector (so an unsupported field is refused with
 * Kubernetes' message whatever the kind) and evaluates the ones it does not
 * hand to the store (status.phase of Namespaces, status.successful of Jobs),
 * on lists and on watch events alike; the store evaluates metadata.* and the
 * Event (involvedObject.*, which `kubectl describe` uses) and Pod fields.
 * Parsing and matching are api/selector.h's, shared with the store. */
#include "server/srv_int.h"

#include <string.h>

#include "base/err.h"

int srv_fsel_parse(const char *text, const struct store_resource *r, struct srv_fsel *out,
                   struct err *e)
{
    out->store_can = true;
    if (sel_field_parse(r->key, text, &out->sel, e))
        return e->code = ERR_INVALID;
    bool store_kind = !strcmp(r->key, "events") || !strcmp(r->key, "pods");
    for (size_t i = 0; i < out->sel.n; i++)
        if (strncmp(out->sel.reqs[i].key, "metadata.", 9) && !store_kind)
            out->store_can = false;
    return 0;
}

bool srv_fsel_match(const struct srv_fsel *f, const json_t *obj)
{
    return sel_field_matches(&f->sel, obj);
}

void srv_fsel_release(struct srv_fsel *f)
{
    sel_release(&f->sel);
}
