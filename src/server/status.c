/* status.c -- store errors as Kubernetes Status objects (spec/apiserver.md §9).
 *
 * kubectl builds its messages from these fields, so their wording matters:
 * NotFound/AlreadyExists/Conflict carry the plural resource in details.kind,
 * Invalid carries the Kind and one cause per field problem. */
#include "server/srv_int.h"

#include <stdio.h>
#include <string.h>

#include "base/err.h"

void srv_qualified(const struct store_resource *r, char *buf, size_t len)
{
    if (*r->group)
        snprintf(buf, len, "%s.%s", r->plural, r->group);
    else
        snprintf(buf, len, "%s", r->plural);
}

/* StatusDetails: kind is the resource's plural in most answers, its Kind
 * in an Invalid one, as Kubernetes writes them. */
static json_t *details(const struct store_resource *r, const char *name, bool kind)
{
    json_t *d = json_object();
    if (name && *name)
        json_object_set_new(d, "name", json_string(name));
    if (r && *r->group)
        json_object_set_new(d, "group", json_string(r->group));
    if (r)
        json_object_set_new(d, "kind", json_string(kind ? r->kind : r->plural));
    return d;
}

json_t *srv_details(const struct store_resource *r, const char *name)
{
    return details(r, name, false);
}

/* The Kubernetes cause reason of a field error, from its message's wording. */
static const char *cause_reason(const char *msg)
{
    static const struct {
        const char *prefix;
        const char *reason;
    } map[] = {
        {"Required value", "FieldValueRequired"},   {"Unsupported value", "FieldValueNotSupported"},
        {"Duplicate value", "FieldValueDuplicate"}, {"Forbidden", "FieldValueForbidden"},
        {"Too long", "FieldValueTooLong"},          {"Too many", "FieldValueTooMany"},
        {"Must have at most", "FieldValueTooMany"}, {"Not found", "FieldValueNotFound"},
        {"Internal error", "InternalError"},
    };
    for (size_t i = 0; i < CU_ARRAY_SIZE(map); i++)
        if (!strncmp(msg, map[i].prefix, strlen(map[i].prefix)))
            return map[i].reason;
    if (strstr(msg, "Invalid value") == msg && strstr(msg, "expected"))
        return "FieldValueTypeInvalid";
    return "FieldValueInvalid";
}

static int reply_invalid(struct srv_req *q, const struct err *e, const struct store_resource *r,
                         const char *name)
{
    char subject[256];
    if (r && *r->group)
        snprintf(subject, sizeof(subject), "%s.%s \"%s\"", r->kind, r->group, name ? name : "");
    else
        snprintf(subject, sizeof(subject), "%s \"%s\"", r ? r->kind : "", name ? name : "");

    json_t *causes = json_array();
    struct sb msg = SB_INIT;
    sb_addf(&msg, "%s is invalid: ", subject);
    unsigned n = e->ncauses;
    if (n > 1)
        sb_addch(&msg, '[');
    for (unsigned i = 0; i < n; i++) {
        const struct err_cause *c = &e->causes[i];
        if (i)
            sb_adds(&msg, ", ");
        if (c->field[0])
            sb_addf(&msg, "%s: ", c->field);
        sb_adds(&msg, c->message);
        json_array_append_new(causes, json_pack("{s:s,s:s,s:s}", "reason", cause_reason(c->message),
                                                "message", c->message, "field", c->field));
    }
    if (n > 1)
        sb_addch(&msg, ']');
    if (n == 0) {
        /* kubectl prints only the causes, so a bare message becomes one. */
        sb_adds(&msg, e->message);
        json_array_append_new(causes, json_pack("{s:s,s:s,s:s}", "reason", "FieldValueInvalid",
                                                "message", e->message, "field", e->path));
    }
    json_t *d = details(r, name, true);
    json_object_set_new(d, "causes", causes);
    int ret = srv_reply_status(q, 422, "Invalid", sb_str(&msg), d);
    json_decref(d);
    sb_release(&msg);
    return ret;
}

int srv_reply_err(struct srv_req *q, int rc, const struct err *e, const struct store_resource *r,
                  const char *ns, const char *name, const char *op)
{
    char qual[160] = "";
    char msg[1400];
    if (r)
        srv_qualified(r, qual, sizeof(qual));
    const char *nm = name ? name : "";
    json_t *d = NULL;
    int ret;
    switch (rc) {
    case ERR_INVALID:
        return reply_invalid(q, e, r, name);
    case ERR_NOT_FOUND:
        if (!strcmp(op, "create") && ns && *ns) {
            snprintf(msg, sizeof(msg), "namespaces \"%s\" not found", ns);
            d = json_pack("{s:s,s:s}", "name", ns, "kind", "namespaces");
        } else {
            snprintf(msg, sizeof(msg), "%s \"%s\" not found", qual, nm);
            d = srv_details(r, nm);
        }
        ret = srv_reply_status(q, 404, "NotFound", msg, d);
        break;
    case ERR_EXISTS:
        snprintf(msg, sizeof(msg), "%s \"%s\" already exists", qual, nm);
        d = srv_details(r, nm);
        ret = srv_reply_status(q, 409, "AlreadyExists", msg, d);
        break;
    case ERR_CONFLICT:
        if (!strncmp(e->message, "Precondition failed", 19) ||
            !strncmp(e->message, "Apply failed", 12))
            snprintf(msg, sizeof(msg), "Operation cannot be fulfilled on %s \"%s\": %s", qual, nm,
                     e->message);
        else
            snprintf(msg, sizeof(msg),
                     "Operation cannot be fulfilled on %s \"%s\": the object has been modified; "
                     "please apply your changes to the latest version and try again",
                     qual, nm);
        d = srv_details(r, nm);
        ret = srv_reply_status(q, 409, "Conflict", msg, d);
        break;
    case ERR_FORBIDDEN:
        d = srv_details(r, nm);
        /* The store words a terminating namespace as kube-apiserver's
         * lifecycle admission does; the server adds the cause it gives. */
        if (!strcmp(op, "create") && ns && *ns &&
            strstr(e->message, "because it is being terminated")) {
            snprintf(msg, sizeof(msg),
                     "%s \"%s\" is forbidden: unable to create new content in namespace %s "
                     "because it is being terminated",
                     qual, nm, ns);
            char cmsg[320];
            snprintf(cmsg, sizeof(cmsg), "namespace %s is being terminated", ns);
            json_object_set_new(d, "causes",
                                json_pack("[{s:s,s:s,s:s}]", "reason", "NamespaceTerminating",
                                          "message", cmsg, "field", "metadata.namespace"));
        } else {
            snprintf(msg, sizeof(msg), "%s \"%s\" is forbidden: %s", qual, nm, e->message);
        }
        ret = srv_reply_status(q, 403, "Forbidden", msg, d);
        break;
    case ERR_GONE:
        ret =
            srv_reply_status(q, 410, "Expired",
                             e->message[0] ? e->message : "the resource version is too old", NULL);
        break;
    case ERR_PARSE:
    case ERR_UNSUPPORTED:
    case ERR_RANGE:
        ret = srv_reply_status(q, 400, "BadRequest", e->message, NULL);
        break;
    case ERR_TOO_LARGE:
        /* An object too large to store: kube-apiserver passes etcd's error
         * on as an internal one, without a reason. */
        if (!strcmp(e->message, STORE_TOO_LARGE))
            ret = srv_reply_status(q, 500, NULL, e->message, NULL);
        else
            ret = srv_reply_status(q, 413, "RequestEntityTooLarge", e->message, NULL);
        break;
    default:
        snprintf(msg, sizeof(msg), "%s", e->message[0] ? e->message : "internal error");
        ret = srv_reply_status(q, 500, "InternalError", msg, NULL);
        break;
    }
    json_decref(d);
    return ret;
}
