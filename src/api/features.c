/* features.c -- Kueue's feature gates (features.h).
 *
 * Mirrors Kueue pkg/features/kube_features.go and the parts of
 * k8s.io/component-base/featuregate that Kueue's --feature-gates and
 * featureGates go through (featureGate.Set, SetFromMap). Go walks its maps
 * in random order; here a text is applied in its own order and messages
 * come in table order, so the same input always gives the same answer. */
#include "api/features.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

static const struct {
    const char *name;
    bool def;
    enum fg_stage stage;
    bool locked;
} gates[FG_COUNT] = {
#define FG_ROW(id, name, def, stage, locked) {name, def, stage, locked},
    FG_LIST(FG_ROW)
#undef FG_ROW
};

/* Kueue's defaultFeatureGateDependencies: a gate may only be enabled when
 * all of its dependencies are. Sorted by gate name, as the messages are. */
static const struct {
    enum fg_feature gate;
    enum fg_feature deps[2];
    int n;
} dependencies[] = {
    {FG_ELASTIC_JOBS_VIA_WORKLOAD_SLICES_WITH_TAS,
     {FG_ELASTIC_JOBS_VIA_WORKLOAD_SLICES, FG_TOPOLOGY_AWARE_SCHEDULING},
     2},
    {FG_FLAVOR_FUNGIBILITY_PRESERVE_SCAN_PROGRESS, {FG_FLAVOR_FUNGIBILITY}, 1},
    {FG_KUEUE_DRA_INTEGRATION_CONSUMABLE_CAPACITY, {FG_KUEUE_DRA_INTEGRATION}, 1},
    {FG_KUEUE_DRA_INTEGRATION_EXTENDED_RESOURCE, {FG_KUEUE_DRA_INTEGRATION}, 1},
    {FG_KUEUE_DRA_INTEGRATION_PARTITIONABLE_DEVICES, {FG_KUEUE_DRA_INTEGRATION}, 1},
    {FG_TAS_BALANCED_PLACEMENT, {FG_TOPOLOGY_AWARE_SCHEDULING}, 1},
    {FG_TAS_FAILED_NODE_REPLACEMENT, {FG_TOPOLOGY_AWARE_SCHEDULING}, 1},
    {FG_TAS_FAILED_NODE_REPLACEMENT_FAIL_FAST,
     {FG_TAS_FAILED_NODE_REPLACEMENT, FG_TOPOLOGY_AWARE_SCHEDULING},
     2},
    {FG_TAS_HANDLE_OVERLAPPING_FLAVORS, {FG_TOPOLOGY_AWARE_SCHEDULING}, 1},
    {FG_TAS_MULTI_LAYER_TOPOLOGY, {FG_TOPOLOGY_AWARE_SCHEDULING}, 1},
    {FG_TAS_PROFILE_MIXED, {FG_TOPOLOGY_AWARE_SCHEDULING}, 1},
    {FG_TAS_RECOMPUTE_ASSIGNMENT_WITHIN_SCHEDULING_CYCLE, {FG_TOPOLOGY_AWARE_SCHEDULING}, 1},
    {FG_TAS_REPLACE_NODE_DUE_TO_NOT_READY_OVER_FIXED_TIME,
     {FG_TAS_FAILED_NODE_REPLACEMENT, FG_TOPOLOGY_AWARE_SCHEDULING},
     2},
    {FG_TAS_REPLACE_NODE_ON_NODE_TAINTS, {FG_TOPOLOGY_AWARE_SCHEDULING}, 1},
    {FG_TAS_REPLACE_NODE_ON_POD_TERMINATION,
     {FG_TAS_FAILED_NODE_REPLACEMENT, FG_TOPOLOGY_AWARE_SCHEDULING},
     2},
    {FG_TAS_RESPECT_NODE_AFFINITY_PREFERRED, {FG_TOPOLOGY_AWARE_SCHEDULING}, 1},
    {FG_UNADMITTED_WORKLOADS_EXPLICIT_STATUS, {FG_UNADMITTED_WORKLOADS_OBSERVABILITY}, 1},
};

enum { UNSET = 0, SET_FALSE = 1, SET_TRUE = 2 };

const char *fg_name(enum fg_feature f)
{
    return gates[f].name;
}

bool fg_default(enum fg_feature f)
{
    return gates[f].def;
}

enum fg_stage fg_stage(enum fg_feature f)
{
    return gates[f].stage;
}

bool fg_gates_enabled(const struct fg_gates *g, enum fg_feature f)
{
    return g->state[f] == UNSET ? gates[f].def : g->state[f] == SET_TRUE;
}

static int lookup(const char *name)
{
    for (int f = 0; f < FG_COUNT; f++)
        if (!strcmp(gates[f].name, name))
            return f;
    return -1;
}

/* One name=value of a request, in the order first given. */
struct setting {
    char name[128];
    bool value;
};

/* Messages are collected as component-base aggregates them: one as it is,
 * several as "[a, b]". */
static int fail(struct err *e, const struct sb *msgs, int n)
{
    return err_set(e, ERR_INVALID, n > 1 ? "[%s]" : "%s", msgs->buf);
}

static void next_msg(struct sb *msgs, int *n)
{
    if ((*n)++)
        sb_adds(msgs, ", ");
}

/* featureGate.SetFromMap: apply the settings onto a copy of g, check locks
 * and dependencies, and keep the copy only when all is well. */
static int apply(struct fg_gates *g, const struct setting *s, size_t n, struct err *e)
{
    struct fg_gates next = *g;
    struct sb msgs = SB_INIT;
    int nmsg = 0;
    for (size_t i = 0; i < n; i++)
        if (lookup(s[i].name) < 0) {
            err_set(e, ERR_INVALID, "unrecognized feature gate: %s", s[i].name);
            sb_release(&msgs);
            return ERR_INVALID;
        }
    for (size_t i = 0; i < n; i++) {
        int f = lookup(s[i].name);
        if (gates[f].locked && gates[f].def != s[i].value) {
            next_msg(&msgs, &nmsg);
            sb_addf(&msgs, "cannot set feature gate %s to %s, feature is locked to %s", s[i].name,
                    s[i].value ? "true" : "false", gates[f].def ? "true" : "false");
            continue;
        }
        next.state[f] = s[i].value ? SET_TRUE : SET_FALSE;
    }
    /* AllAlpha and AllBeta set every gate of their stage that nothing set. */
    for (size_t i = 0; i < n; i++) {
        int f = lookup(s[i].name);
        if (f != FG_ALL_ALPHA && f != FG_ALL_BETA)
            continue;
        enum fg_stage stage = f == FG_ALL_ALPHA ? FG_ALPHA : FG_BETA;
        for (int k = 0; k < FG_COUNT; k++)
            if (k != FG_ALL_ALPHA && k != FG_ALL_BETA && gates[k].stage == stage &&
                g->state[k] == UNSET && next.state[k] == UNSET)
                next.state[k] = s[i].value ? SET_TRUE : SET_FALSE;
    }
    if (!nmsg)
        for (size_t i = 0; i < CU_ARRAY_SIZE(dependencies); i++) {
            if (!fg_gates_enabled(&next, dependencies[i].gate))
                continue;
            struct sb off = SB_INIT;
            for (int d = 0; d < dependencies[i].n; d++)
                if (!fg_gates_enabled(&next, dependencies[i].deps[d]))
                    sb_addf(&off, "%s%s", off.len ? " " : "", gates[dependencies[i].deps[d]].name);
            if (off.len) {
                next_msg(&msgs, &nmsg);
                sb_addf(&msgs, "%s is enabled, but depends on features that are disabled: [%s]",
                        gates[dependencies[i].gate].name, off.buf);
            }
            sb_release(&off);
        }
    int rc = 0;
    if (nmsg)
        rc = fail(e, &msgs, nmsg);
    else
        *g = next;
    sb_release(&msgs);
    return rc;
}

/* Go's strconv.ParseBool. */
static bool parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < CU_ARRAY_SIZE(yes); i++) {
        if (!strcmp(s, yes[i])) {
            *out = true;
            return true;
        }
        if (!strcmp(s, no[i])) {
            *out = false;
            return true;
        }
    }
    return false;
}

/* Go's strings.TrimSpace on s[0..n), into buf. */
static void trimmed(const char *s, size_t n, char *buf, size_t len)
{
    while (n && strchr(" \t\n\r\v\f", s[0])) {
        s++;
        n--;
    }
    while (n && strchr(" \t\n\r\v\f", s[n - 1]))
        n--;
    snprintf(buf, len, "%.*s", (int)n, s);
}

/* Record name=value, a later value of a name replacing an earlier one. */
static void put(struct setting *s, size_t *n, const char *name, bool value)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(s[i].name, name)) {
            s[i].value = value;
            return;
        }
    snprintf(s[*n].name, sizeof(s[*n].name), "%s", name);
    s[(*n)++].value = value;
}

int fg_gates_parse(struct fg_gates *g, const char *text, struct err *e)
{
    size_t cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == ',';
    struct setting *s = xcalloc(cap, sizeof(*s));
    size_t n = 0;
    int rc = 0;
    for (const char *p = text; !rc;) {
        size_t len = strcspn(p, ",");
        if (len) {
            const char *eq = memchr(p, '=', len);
            char name[128], value[128];
            trimmed(p, eq ? (size_t)(eq - p) : len, name, sizeof(name));
            bool v = false;
            if (!eq) {
                rc = err_set(e, ERR_INVALID, "missing bool value for %s", name);
            } else {
                trimmed(eq + 1, len - (size_t)(eq - p) - 1, value, sizeof(value));
                if (!parse_bool(value, &v))
                    rc = err_set(e, ERR_INVALID,
                                 "invalid value of %s=%s, err: strconv.ParseBool: parsing \"%s\": "
                                 "invalid syntax",
                                 name, value, value);
                else
                    put(s, &n, name, v);
            }
        }
        if (!p[len])
            break;
        p += len + 1;
    }
    if (!rc)
        rc = apply(g, s, n, e);
    free(s);
    return rc;
}

int fg_gates_set_map(struct fg_gates *g, const json_t *map, struct err *e)
{
    if (!json_is_object(map))
        return err_set(e, ERR_INVALID, "featureGates must be a map of gate names to booleans");
    struct setting *s = xcalloc(json_object_size(map) + 1, sizeof(*s));
    size_t n = 0;
    const char *key;
    const json_t *v;
    int rc = 0;
    json_object_foreach((json_t *)map, key, v)
    {
        if (!json_is_boolean(v)) {
            rc = err_set(e, ERR_INVALID, "featureGates.%s must be true or false", key);
            break;
        }
        put(s, &n, key, json_is_true(v));
    }
    if (!rc)
        rc = apply(g, s, n, e);
    free(s);
    return rc;
}

int fg_gates_load(struct fg_gates *g, const char *cli, const json_t *config, struct err *e)
{
    const json_t *map = json_is_object(config) ? json_object_get(config, "featureGates") : NULL;
    if (json_is_null(map))
        map = NULL;
    memset(g, 0, sizeof(*g));
    if (cli && *cli && map)
        return err_set(e, ERR_INVALID,
                       "feature gates for CLI and configuration cannot both specified");
    if (cli && *cli)
        return fg_gates_parse(g, cli, e);
    return map ? fg_gates_set_map(g, map, e) : 0;
}

static struct fg_gates current;

void fg_use(const struct fg_gates *g)
{
    if (g)
        current = *g;
    else
        memset(&current, 0, sizeof(current));
}

bool fg_enabled(enum fg_feature f)
{
    return fg_gates_enabled(&current, f);
}
