/* cel.c -- a small CEL: parse a rule into a tree once, evaluate it over
 * jansson values (cel.h).
 *
 * Values are jansson trees during evaluation too: an int is a JSON
 * integer, a double a real, a list an array, a map an object, so `self`
 * needs no conversion. An error is a NULL value with the reason in the
 * evaluation context. Grammar (CEL's, restricted):
 *   expr  = or ['?' expr ':' expr]
 *   or    = and {'||' and}      and = rel {'&&' rel}
 *   rel   = add {('=='|'!='|'<'|'<='|'>'|'>='|'in') add}
 *   add   = mul {('+'|'-') mul} mul = unary {('*'|'/'|'%') unary}
 *   unary = {'!'|'-'} member
 *   member = primary {'.' ident ['(' args ')'] | '[' expr ']'}
 *   primary = ident ['(' args ')'] | literal | '(' expr ')' | '[' args ']' */
#include "api/cel.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#define MAX_DEPTH 64
#define MAX_VARS 16

enum node_kind {
    N_LIT,    /* lit */
    N_IDENT,  /* name: self, oldSelf or a macro's variable */
    N_SELECT, /* a.name */
    N_HAS,    /* has(a.name) */
    N_INDEX,  /* a[b] */
    N_LIST,   /* [args] */
    N_NOT,    /* !a */
    N_NEG,    /* -a */
    N_BINARY, /* a op b */
    N_AND,    /* a && b */
    N_OR,     /* a || b */
    N_COND,   /* a ? b : c */
    N_CALL,   /* name(args) or a.name(args) (a may be NULL) */
    N_MACRO,  /* a.name(var, b) */
};

enum binop {
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_IN,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD
};

struct node {
    enum node_kind kind;
    enum binop op;
    json_t *lit;
    char *name;
    char *var; /* N_MACRO: the bound variable */
    struct node *a, *b, *c;
    struct node **args;
    size_t nargs;
};

struct cel {
    struct node *root;
    bool uses_old;
};

/* ---- lexer --------------------------------------------------------------------------------- */

enum tok_kind { T_EOF, T_IDENT, T_INT, T_UINT, T_DOUBLE, T_STRING, T_PUNCT };

struct tok {
    enum tok_kind kind;
    const char *p; /* start in the source */
    size_t n;
    json_t *val; /* literal value (owned) */
    char punct[3];
};

struct parser {
    const char *src, *p;
    struct tok t;
    int depth;
    int code; /* 0, ERR_PARSE or ERR_UNSUPPORTED */
    char *why;
    size_t why_len;
    bool uses_old;
    const char *vars[MAX_VARS]; /* bound macro variables, innermost last */
    int nvars;
};

static void perr(struct parser *ps, int code, const char *fmt, ...) CU_PRINTF(3, 4);
static void perr(struct parser *ps, int code, const char *fmt, ...)
{
    if (ps->code)
        return;
    ps->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->why, ps->why_len, fmt, ap);
    va_end(ap);
}

static void tok_clear(struct tok *t)
{
    json_decref(t->val);
    t->val = NULL;
}

/* A quoted string starting at p (the quote); raw strings keep backslashes. */
static const char *lex_string(struct parser *ps, const char *p, bool raw)
{
    char q = *p;
    bool triple = p[1] == q && p[2] == q;
    p += triple ? 3 : 1;
    struct sb out = SB_INIT;
    for (;;) {
        if (!*p) {
            perr(ps, ERR_PARSE, "unterminated string literal");
            sb_release(&out);
            return p;
        }
        if (triple ? (p[0] == q && p[1] == q && p[2] == q) : *p == q) {
            p += triple ? 3 : 1;
            break;
        }
        if (!triple && (*p == '\n' || *p == '\r')) {
            perr(ps, ERR_PARSE, "newline in string literal");
            sb_release(&out);
            return p;
        }
        if (*p != '\\' || raw) {
            sb_addch(&out, *p++);
            continue;
        }
        p++;
        switch (*p) {
        case 'n':
            sb_addch(&out, '\n');
            break;
        case 't':
            sb_addch(&out, '\t');
            break;
        case 'r':
            sb_addch(&out, '\r');
            break;
        case '\\':
        case '\'':
        case '"':
        case '`':
        case '?':
            sb_addch(&out, *p);
            break;
        default:
            perr(ps, ERR_UNSUPPORTED, "string escape \\%c", *p ? *p : ' ');
            sb_release(&out);
            return p;
        }
        p++;
    }
    ps->t.kind = T_STRING;
    ps->t.val = json_stringn(out.buf ? out.buf : "", out.len);
    if (!ps->t.val)
        perr(ps, ERR_PARSE, "string literal is not valid UTF-8");
    sb_release(&out);
    return p;
}

static void next(struct parser *ps)
{
    tok_clear(&ps->t);
    const char *p = ps->p;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (p[0] == '/' && p[1] == '/') { /* a comment runs to the end of the line */
        while (*p && *p != '\n')
            p++;
        ps->p = p;
        next(ps);
        return;
    }
    ps->t.p = p;
    ps->t.kind = T_EOF;
    if (!*p) {
        ps->p = p;
        return;
    }
    if ((*p == 'r' || *p == 'R') && (p[1] == '\'' || p[1] == '"')) {
        ps->p = lex_string(ps, p + 1, true);
    } else if (*p == '\'' || *p == '"') {
        ps->p = lex_string(ps, p, false);
    } else if ((*p == 'b' || *p == 'B') && (p[1] == '\'' || p[1] == '"')) {
        perr(ps, ERR_UNSUPPORTED, "bytes literals");
        ps->p = p + 1;
    } else if (isalpha((unsigned char)*p) || *p == '_') {
        const char *s = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        ps->t.kind = T_IDENT;
        ps->t.n = (size_t)(p - s);
        ps->p = p;
    } else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
        const char *s = p;
        bool real = false;
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
            p += 2;
            while (isxdigit((unsigned char)*p))
                p++;
        } else {
            while (isdigit((unsigned char)*p))
                p++;
            if (*p == '.' && isdigit((unsigned char)p[1])) {
                real = true;
                p++;
                while (isdigit((unsigned char)*p))
                    p++;
            }
            if (*p == 'e' || *p == 'E') {
                real = true;
                p++;
                if (*p == '+' || *p == '-')
                    p++;
                while (isdigit((unsigned char)*p))
                    p++;
            }
        }
        char buf[64];
        size_t n = (size_t)(p - s);
        if (n >= sizeof(buf)) {
            perr(ps, ERR_PARSE, "number literal too long");
            ps->p = p;
            return;
        }
        memcpy(buf, s, n);
        buf[n] = '\0';
        errno = 0;
        if (real) {
            ps->t.kind = T_DOUBLE;
            ps->t.val = json_real(strtod(buf, NULL));
        } else {
            long long v = strtoll(buf, NULL, 0);
            if (errno)
                perr(ps, ERR_PARSE, "integer literal out of range: %s", buf);
            ps->t.kind = T_INT;
            if (*p == 'u' || *p == 'U') {
                ps->t.kind = T_UINT;
                p++;
            }
            ps->t.val = json_integer(v);
        }
        ps->p = p;
    } else {
        static const char *const two[] = {"==", "!=", "<=", ">=", "&&", "||", NULL};
        ps->t.kind = T_PUNCT;
        for (const char *const *t = two; *t; t++)
            if (p[0] == (*t)[0] && p[1] == (*t)[1]) {
                memcpy(ps->t.punct, *t, 3);
                ps->p = p + 2;
                return;
            }
        if (!strchr("()[]{}.,?:!<>+-*/%", *p)) {
            perr(ps, ERR_PARSE, "unexpected character '%c'", *p);
            ps->t.kind = T_EOF;
            ps->p = p + 1;
            return;
        }
        ps->t.punct[0] = *p;
        ps->t.punct[1] = '\0';
        ps->p = p + 1;
    }
}

static bool is_punct(const struct parser *ps, const char *s)
{
    return ps->t.kind == T_PUNCT && !strcmp(ps->t.punct, s);
}

static bool is_ident(const struct parser *ps, const char *s)
{
    return ps->t.kind == T_IDENT && strlen(s) == ps->t.n && !strncmp(ps->t.p, s, ps->t.n);
}

static void expect(struct parser *ps, const char *s)
{
    if (is_punct(ps, s))
        next(ps);
    else
        perr(ps, ERR_PARSE, "expected '%s' at offset %zu", s, (size_t)(ps->t.p - ps->src));
}

/* ---- parser -------------------------------------------------------------------------------- */

static struct node *node_new(enum node_kind k)
{
    struct node *n = xcalloc(1, sizeof(*n));
    n->kind = k;
    return n;
}

static void node_free(struct node *n)
{
    if (!n)
        return;
    json_decref(n->lit);
    free(n->name);
    free(n->var);
    node_free(n->a);
    node_free(n->b);
    node_free(n->c);
    for (size_t i = 0; i < n->nargs; i++)
        node_free(n->args[i]);
    free(n->args);
    free(n);
}

static struct node *parse_expr(struct parser *ps);

static void add_arg(struct node *n, struct node *a)
{
    n->args = xrealloc(n->args, (n->nargs + 1) * sizeof(*n->args));
    n->args[n->nargs++] = a;
}

/* Arguments up to the closing punctuation close (already past the opener). */
static void parse_args(struct parser *ps, struct node *n, const char *close)
{
    if (is_punct(ps, close)) {
        next(ps);
        return;
    }
    for (;;) {
        add_arg(n, parse_expr(ps));
        if (ps->code)
            return;
        if (is_punct(ps, ",")) {
            next(ps);
            if (is_punct(ps, close)) { /* a trailing comma */
                next(ps);
                return;
            }
            continue;
        }
        expect(ps, close);
        return;
    }
}

static char *tok_name(const struct parser *ps)
{
    return xstrndup(ps->t.p, ps->t.n);
}

static bool known_var(const struct parser *ps, const char *name)
{
    for (int i = ps->nvars - 1; i >= 0; i--)
        if (!strcmp(ps->vars[i], name))
            return true;
    return false;
}

static const char *const macros[] = {"all", "exists", "exists_one", "filter", "map", NULL};
static const char *const functions[] = {"size",    "startsWith", "endsWith", "contains",
                                        "matches", "int",        "string",   NULL};

static bool in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return true;
    return false;
}

/* target.name(var, expr) */
static struct node *parse_macro(struct parser *ps, struct node *target, char *name)
{
    struct node *m = node_new(N_MACRO);
    m->a = target;
    m->name = name;
    if (ps->t.kind != T_IDENT) {
        perr(ps, ERR_PARSE, "%s: the first argument must be a variable name", name);
        return m;
    }
    m->var = tok_name(ps);
    next(ps);
    if (is_punct(ps, ")")) {
        perr(ps, ERR_PARSE, "%s needs two arguments", name);
        return m;
    }
    expect(ps, ",");
    if (ps->t.kind == T_IDENT && !ps->code) {
        const char *q = ps->p;
        while (*q == ' ' || *q == '\t' || *q == '\n')
            q++;
        if (*q == ',') {
            perr(ps, ERR_UNSUPPORTED, "the three-argument form of %s", name);
            return m;
        }
    }
    if (ps->nvars == MAX_VARS) {
        perr(ps, ERR_UNSUPPORTED, "macros nested more than %d deep", MAX_VARS);
        return m;
    }
    ps->vars[ps->nvars++] = m->var;
    m->b = parse_expr(ps);
    ps->nvars--;
    if (is_punct(ps, ",") && !ps->code)
        perr(ps, ERR_UNSUPPORTED, "the three-argument form of %s", name);
    expect(ps, ")");
    return m;
}

static struct node *parse_call(struct parser *ps, struct node *target, char *name)
{
    if (target && in_list(name, macros))
        return parse_macro(ps, target, name);
    if (!in_list(name, functions) && strcmp(name, "has")) {
        perr(ps, ERR_UNSUPPORTED, "the function %s", name);
        free(name);
        node_free(target);
        return node_new(N_LIT);
    }
    struct node *c = node_new(N_CALL);
    c->a = target;
    c->name = name;
    parse_args(ps, c, ")");
    if (!strcmp(name, "has")) {
        if (target || c->nargs != 1 || c->args[0]->kind != N_SELECT) {
            perr(ps, ERR_PARSE, "has() takes one field selection, as in has(self.field)");
            return c;
        }
        struct node *h = c->args[0];
        c->args[0] = NULL;
        c->nargs = 0;
        node_free(c);
        h->kind = N_HAS;
        return h;
    }
    return c;
}

static struct node *parse_primary(struct parser *ps)
{
    if (++ps->depth > MAX_DEPTH) {
        perr(ps, ERR_UNSUPPORTED, "expressions nested more than %d deep", MAX_DEPTH);
        return node_new(N_LIT);
    }
    struct node *n = NULL;
    if (ps->t.kind == T_INT || ps->t.kind == T_DOUBLE || ps->t.kind == T_STRING ||
        ps->t.kind == T_UINT) {
        if (ps->t.kind == T_UINT)
            perr(ps, ERR_UNSUPPORTED, "unsigned integer literals");
        n = node_new(N_LIT);
        n->lit = ps->t.val;
        ps->t.val = NULL;
        next(ps);
    } else if (ps->t.kind == T_IDENT) {
        char *name = tok_name(ps);
        next(ps);
        if (!strcmp(name, "true") || !strcmp(name, "false") || !strcmp(name, "null")) {
            n = node_new(N_LIT);
            n->lit = !strcmp(name, "true")    ? json_true()
                     : !strcmp(name, "false") ? json_false()
                                              : json_null();
            free(name);
        } else if (is_punct(ps, "(")) {
            next(ps);
            n = parse_call(ps, NULL, name);
        } else {
            if (!strcmp(name, "oldSelf"))
                ps->uses_old = true;
            else if (strcmp(name, "self") && !known_var(ps, name))
                perr(ps, ERR_UNSUPPORTED, "the identifier %s", name);
            n = node_new(N_IDENT);
            n->name = name;
        }
    } else if (is_punct(ps, "(")) {
        next(ps);
        n = parse_expr(ps);
        expect(ps, ")");
    } else if (is_punct(ps, "[")) {
        next(ps);
        n = node_new(N_LIST);
        parse_args(ps, n, "]");
    } else if (is_punct(ps, "{")) {
        perr(ps, ERR_UNSUPPORTED, "map literals");
        n = node_new(N_LIT);
    } else {
        perr(ps, ERR_PARSE, "unexpected %s at offset %zu",
             ps->t.kind == T_EOF ? "end of rule" : "token", (size_t)(ps->t.p - ps->src));
        n = node_new(N_LIT);
    }
    ps->depth--;
    return n;
}

static struct node *parse_member(struct parser *ps)
{
    struct node *n = parse_primary(ps);
    while (!ps->code) {
        if (is_punct(ps, ".")) {
            next(ps);
            if (ps->t.kind != T_IDENT) {
                perr(ps, ERR_PARSE, "expected a field name after '.'");
                break;
            }
            char *name = tok_name(ps);
            next(ps);
            if (is_punct(ps, "(")) {
                next(ps);
                n = parse_call(ps, n, name);
                continue;
            }
            struct node *s = node_new(N_SELECT);
            s->a = n;
            s->name = name;
            n = s;
        } else if (is_punct(ps, "[")) {
            next(ps);
            struct node *ix = node_new(N_INDEX);
            ix->a = n;
            ix->b = parse_expr(ps);
            expect(ps, "]");
            n = ix;
        } else {
            break;
        }
    }
    return n;
}

static struct node *parse_unary(struct parser *ps)
{
    if (is_punct(ps, "!") || is_punct(ps, "-")) {
        enum node_kind k = is_punct(ps, "!") ? N_NOT : N_NEG;
        next(ps);
        if (++ps->depth > MAX_DEPTH) {
            perr(ps, ERR_UNSUPPORTED, "expressions nested more than %d deep", MAX_DEPTH);
            return node_new(N_LIT);
        }
        struct node *n = node_new(k);
        n->a = parse_unary(ps);
        ps->depth--;
        return n;
    }
    return parse_member(ps);
}

static struct node *binary(enum binop op, struct node *a, struct node *b)
{
    struct node *n = node_new(N_BINARY);
    n->op = op;
    n->a = a;
    n->b = b;
    return n;
}

static struct node *parse_mul(struct parser *ps)
{
    struct node *n = parse_unary(ps);
    while (!ps->code && (is_punct(ps, "*") || is_punct(ps, "/") || is_punct(ps, "%"))) {
        enum binop op = is_punct(ps, "*") ? OP_MUL : is_punct(ps, "/") ? OP_DIV : OP_MOD;
        next(ps);
        n = binary(op, n, parse_unary(ps));
    }
    return n;
}

static struct node *parse_add(struct parser *ps)
{
    struct node *n = parse_mul(ps);
    while (!ps->code && (is_punct(ps, "+") || is_punct(ps, "-"))) {
        enum binop op = is_punct(ps, "+") ? OP_ADD : OP_SUB;
        next(ps);
        n = binary(op, n, parse_mul(ps));
    }
    return n;
}

static struct node *parse_rel(struct parser *ps)
{
    struct node *n = parse_add(ps);
    for (;;) {
        enum binop op;
        if (is_punct(ps, "=="))
            op = OP_EQ;
        else if (is_punct(ps, "!="))
            op = OP_NE;
        else if (is_punct(ps, "<="))
            op = OP_LE;
        else if (is_punct(ps, ">="))
            op = OP_GE;
        else if (is_punct(ps, "<"))
            op = OP_LT;
        else if (is_punct(ps, ">"))
            op = OP_GT;
        else if (is_ident(ps, "in"))
            op = OP_IN;
        else
            break;
        if (ps->code)
            break;
        next(ps);
        n = binary(op, n, parse_add(ps));
    }
    return n;
}

static struct node *parse_and(struct parser *ps)
{
    struct node *n = parse_rel(ps);
    while (!ps->code && is_punct(ps, "&&")) {
        next(ps);
        struct node *a = node_new(N_AND);
        a->a = n;
        a->b = parse_rel(ps);
        n = a;
    }
    return n;
}

static struct node *parse_or(struct parser *ps)
{
    struct node *n = parse_and(ps);
    while (!ps->code && is_punct(ps, "||")) {
        next(ps);
        struct node *o = node_new(N_OR);
        o->a = n;
        o->b = parse_and(ps);
        n = o;
    }
    return n;
}

static struct node *parse_expr(struct parser *ps)
{
    if (++ps->depth > MAX_DEPTH) {
        perr(ps, ERR_UNSUPPORTED, "expressions nested more than %d deep", MAX_DEPTH);
        return node_new(N_LIT);
    }
    struct node *n = parse_or(ps);
    if (!ps->code && is_punct(ps, "?")) {
        next(ps);
        struct node *c = node_new(N_COND);
        c->a = n;
        c->b = parse_or(ps);
        expect(ps, ":");
        c->c = parse_expr(ps);
        n = c;
    }
    ps->depth--;
    return n;
}

int cel_compile(const char *rule, struct cel **out, char *why, size_t len)
{
    *out = NULL;
    if (len)
        why[0] = '\0';
    if (strlen(rule) > CEL_MAX_RULE) {
        snprintf(why, len, "the rule is longer than %d characters", CEL_MAX_RULE);
        return ERR_UNSUPPORTED;
    }
    struct parser ps = {.src = rule, .p = rule, .why = why, .why_len = len};
    next(&ps);
    struct node *root = parse_expr(&ps);
    if (!ps.code && ps.t.kind != T_EOF)
        perr(&ps, ERR_PARSE, "unexpected token at offset %zu", (size_t)(ps.t.p - ps.src));
    tok_clear(&ps.t);
    if (ps.code) {
        node_free(root);
        return ps.code;
    }
    struct cel *c = xcalloc(1, sizeof(*c));
    c->root = root;
    c->uses_old = ps.uses_old;
    *out = c;
    return 0;
}

void cel_free(struct cel *c)
{
    if (!c)
        return;
    node_free(c->root);
    free(c);
}

bool cel_uses_old(const struct cel *c)
{
    return c->uses_old;
}

/* ---- evaluation ---------------------------------------------------------------------------- */

struct env {
    const json_t *self, *old_self;
    const char *names[MAX_VARS];
    json_t *vals[MAX_VARS]; /* borrowed */
    int n;
    long steps;
    long *budget;
    char *why;
    size_t why_len;
    bool failed;
};

/* Record a run-time error; returns NULL, the error value. */
static json_t *fail(struct env *env, const char *fmt, ...) CU_PRINTF(2, 3);
static json_t *fail(struct env *env, const char *fmt, ...)
{
    if (!env->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(env->why, env->why_len, fmt, ap);
        va_end(ap);
        env->failed = true;
    }
    return NULL;
}

static json_t *eval(struct env *env, const struct node *n);

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "map";
    case JSON_ARRAY:
        return "list";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "int";
    case JSON_REAL:
        return "double";
    case JSON_TRUE:
    case JSON_FALSE:
        return "bool";
    default:
        return "null_type";
    }
}

static bool is_num(const json_t *v)
{
    return json_is_integer(v) || json_is_real(v);
}

/* CEL equality: deep, numbers compared by value across int and double. */
static bool equal(const json_t *a, const json_t *b)
{
    if (is_num(a) && is_num(b)) {
        if (json_is_integer(a) && json_is_integer(b))
            return json_integer_value(a) == json_integer_value(b);
        return json_number_value(a) == json_number_value(b);
    }
    if (json_typeof(a) != json_typeof(b))
        return false;
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!equal(json_array_get(a, i), json_array_get(b, i)))
                return false;
        return true;
    }
    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b))
            return false;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)a, k, v)
        {
            const json_t *w = json_object_get(b, k);
            if (!w || !equal(v, w))
                return false;
        }
        return true;
    }
    return json_equal(a, b);
}

/* <0, 0, >0; false when the two cannot be ordered. */
static bool compare(const json_t *a, const json_t *b, int *out)
{
    if (is_num(a) && is_num(b)) {
        if (json_is_integer(a) && json_is_integer(b)) {
            json_int_t x = json_integer_value(a), y = json_integer_value(b);
            *out = x < y ? -1 : x > y;
        } else {
            double x = json_number_value(a), y = json_number_value(b);
            *out = x < y ? -1 : x > y;
        }
        return true;
    }
    if (json_is_string(a) && json_is_string(b)) {
        size_t la = json_string_length(a), lb = json_string_length(b);
        int c = memcmp(json_string_value(a), json_string_value(b), la < lb ? la : lb);
        *out = c ? c : la < lb ? -1 : la > lb;
        return true;
    }
    if (json_is_boolean(a) && json_is_boolean(b)) {
        *out = json_is_true(a) - json_is_true(b);
        return true;
    }
    return false;
}

static size_t utf8_len(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            count++;
    return count;
}

static bool step(struct env *env)
{
    if (--*env->budget < 0) {
        fail(env, "validation failed due to running out of cost budget, no further validation "
                  "rules will be run");
        return false;
    }
    if (++env->steps <= CEL_MAX_STEPS)
        return true;
    fail(env, "operation cancelled: actual cost limit exceeded");
    return false;
}

static json_t *eval_binary(struct env *env, enum binop op, json_t *a, json_t *b)
{
    int c;
    switch (op) {
    case OP_EQ:
        return json_boolean(equal(a, b));
    case OP_NE:
        return json_boolean(!equal(a, b));
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE:
        if (!compare(a, b, &c))
            return fail(env, "no such overload: %s %s %s", type_name(a),
                        op == OP_LT   ? "<"
                        : op == OP_LE ? "<="
                        : op == OP_GT ? ">"
                                      : ">=",
                        type_name(b));
        return json_boolean(op == OP_LT   ? c < 0
                            : op == OP_LE ? c <= 0
                            : op == OP_GT ? c > 0
                                          : c >= 0);
    case OP_IN:
        if (json_is_array(b)) {
            for (size_t i = 0; i < json_array_size(b); i++) {
                if (!step(env))
                    return NULL;
                if (equal(a, json_array_get(b, i)))
                    return json_true();
            }
            return json_false();
        }
        if (json_is_object(b) && json_is_string(a))
            return json_boolean(json_object_get(b, json_string_value(a)) != NULL);
        return fail(env, "no such overload: %s in %s", type_name(a), type_name(b));
    default:
        break;
    }
    if (json_is_integer(a) && json_is_integer(b)) {
        json_int_t x = json_integer_value(a), y = json_integer_value(b), r = 0;
        bool over = false;
        switch (op) {
        case OP_ADD:
            over = __builtin_add_overflow(x, y, &r);
            break;
        case OP_SUB:
            over = __builtin_sub_overflow(x, y, &r);
            break;
        case OP_MUL:
            over = __builtin_mul_overflow(x, y, &r);
            break;
        case OP_DIV:
        case OP_MOD:
            if (y == 0)
                return fail(env, op == OP_DIV ? "division by zero" : "modulus by zero");
            if (x == INT64_MIN && y == -1)
                return fail(env, "integer overflow");
            r = op == OP_DIV ? x / y : x % y;
            break;
        default:
            break;
        }
        if (over)
            return fail(env, "integer overflow");
        return json_integer(r);
    }
    if (json_is_real(a) && json_is_real(b) && op != OP_MOD) {
        double x = json_real_value(a), y = json_real_value(b);
        return json_real(op == OP_ADD   ? x + y
                         : op == OP_SUB ? x - y
                         : op == OP_MUL ? x * y
                                        : x / y);
    }
    if (op == OP_ADD && json_is_string(a) && json_is_string(b)) {
        struct sb s = SB_INIT;
        sb_add(&s, json_string_value(a), json_string_length(a));
        sb_add(&s, json_string_value(b), json_string_length(b));
        json_t *r = json_stringn(s.buf ? s.buf : "", s.len);
        sb_release(&s);
        return r;
    }
    if (op == OP_ADD && json_is_array(a) && json_is_array(b)) {
        json_t *r = json_copy(a);
        json_array_extend(r, b);
        return r;
    }
    static const char *const names[] = {
        [OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/", [OP_MOD] = "%"};
    return fail(env, "no such overload: %s %s %s", type_name(a), names[op], type_name(b));
}

/* A bool operand of && and ||: 1, 0, or -1 for an error. */
static int truth(struct env *env, const struct node *n, char *saved, size_t len, bool *had_error)
{
    json_t *v = eval(env, n);
    int r = -1;
    if (v && json_is_boolean(v))
        r = json_is_true(v);
    else if (v)
        fail(env, "no such overload: logical operator on %s", type_name(v));
    json_decref(v);
    if (r < 0 && !*had_error) {
        snprintf(saved, len, "%s", env->why);
        *had_error = true;
    }
    env->failed = false;
    return r;
}

/* a && b and a || b with CEL's commutative error absorption. */
static json_t *eval_logic(struct env *env, const struct node *n)
{
    bool is_and = n->kind == N_AND;
    char saved[512] = "";
    bool had_error = false;
    int a = truth(env, n->a, saved, sizeof(saved), &had_error);
    if (a == !is_and)
        return json_boolean(a);
    int b = truth(env, n->b, saved, sizeof(saved), &had_error);
    if (b == !is_and)
        return json_boolean(b);
    if (a < 0 || b < 0)
        return fail(env, "%s", saved);
    return json_boolean(is_and);
}

static json_t *member_of(struct env *env, json_t *target, const char *name)
{
    if (!json_is_object(target))
        return fail(env, "no such key: %s (on %s)", name, type_name(target));
    json_t *v = json_object_get(target, name);
    if (!v)
        return fail(env, "no such key: %s", name);
    return json_incref(v);
}

static json_t *eval_index(struct env *env, json_t *a, json_t *b)
{
    if (json_is_array(a)) {
        if (!json_is_integer(b) &&
            !(json_is_real(b) && json_real_value(b) == floor(json_real_value(b))))
            return fail(env, "no such overload: list[%s]", type_name(b));
        json_int_t i = json_is_integer(b) ? json_integer_value(b) : (json_int_t)json_real_value(b);
        if (i < 0 || (size_t)i >= json_array_size(a))
            return fail(env, "index out of bounds: %" JSON_INTEGER_FORMAT, i);
        return json_incref(json_array_get(a, (size_t)i));
    }
    if (json_is_object(a) && json_is_string(b))
        return member_of(env, a, json_string_value(b));
    return fail(env, "no such overload: %s[%s]", type_name(a), type_name(b));
}

int cel_regex(const char *pattern, regex_t *out, char *why, size_t len)
{
    struct sb s = SB_INIT;
    int flags = REG_EXTENDED | REG_NOSUB;
    /* RE2's case-insensitive flag, where Kubernetes' patterns put it. */
    if (!strncmp(pattern, "^(?i)", 5)) {
        sb_addch(&s, '^');
        pattern += 5;
        flags |= REG_ICASE;
    } else if (!strncmp(pattern, "(?i)", 4)) {
        pattern += 4;
        flags |= REG_ICASE;
    }
    for (const char *p = pattern; *p; p++) {
        if (p[0] == '(' && p[1] == '?' && p[2] == ':') {
            sb_addch(&s, '(');
            p += 2;
        } else if (p[0] == '\\' && p[1]) {
            const char *cls = NULL;
            switch (p[1]) {
            case 'd':
                cls = "[0-9]";
                break;
            case 'D':
                cls = "[^0-9]";
                break;
            case 'w':
                cls = "[A-Za-z0-9_]";
                break;
            case 'W':
                cls = "[^A-Za-z0-9_]";
                break;
            case 's':
                cls = "[[:space:]]";
                break;
            case 'S':
                cls = "[^[:space:]]";
                break;
            default:
                break;
            }
            if (cls)
                sb_adds(&s, cls);
            else
                sb_add(&s, p, 2);
            p++;
        } else {
            sb_addch(&s, *p);
        }
    }
    int rc = regcomp(out, s.buf ? s.buf : "", flags);
    sb_release(&s);
    if (rc) {
        regerror(rc, out, why, len);
        return ERR_UNSUPPORTED;
    }
    return 0;
}

static json_t *call_matches(struct env *env, json_t *s, json_t *re)
{
    if (!json_is_string(s) || !json_is_string(re))
        return fail(env, "no such overload: %s.matches(%s)", type_name(s), type_name(re));
    regex_t rx;
    char why[200];
    if (cel_regex(json_string_value(re), &rx, why, sizeof(why)))
        return fail(env, "invalid regular expression: %s", why);
    int rc = regexec(&rx, json_string_value(s), 0, NULL, 0);
    regfree(&rx);
    return json_boolean(rc == 0);
}

static bool contains(const char *s, size_t ls, const char *t, size_t lt)
{
    for (size_t i = 0; i + lt <= ls; i++)
        if (!memcmp(s + i, t, lt))
            return true;
    return false;
}

static json_t *call(struct env *env, const char *name, json_t *target, json_t **args, size_t n)
{
    json_t *x = target ? target : (n ? args[0] : NULL);
    json_t *y = target ? (n ? args[0] : NULL) : (n > 1 ? args[1] : NULL);
    size_t want = target ? n + 1 : n;
    if (!strcmp(name, "size") && want == 1) {
        if (json_is_string(x))
            return json_integer((json_int_t)utf8_len(json_string_value(x), json_string_length(x)));
        if (json_is_array(x))
            return json_integer((json_int_t)json_array_size(x));
        if (json_is_object(x))
            return json_integer((json_int_t)json_object_size(x));
        return fail(env, "no such overload: size(%s)", type_name(x));
    }
    if (!strcmp(name, "int") && want == 1 && !target) {
        if (json_is_integer(x))
            return json_incref(x);
        if (json_is_real(x)) {
            double d = json_real_value(x);
            if (!(d > -9.3e18 && d < 9.3e18))
                return fail(env, "integer overflow");
            return json_integer((json_int_t)d);
        }
        if (json_is_string(x)) {
            char *end;
            errno = 0;
            long long v = strtoll(json_string_value(x), &end, 10);
            if (errno || *end || !*json_string_value(x))
                return fail(env, "cannot convert \"%s\" to int", json_string_value(x));
            return json_integer(v);
        }
        return fail(env, "no such overload: int(%s)", type_name(x));
    }
    if (!strcmp(name, "string") && want == 1 && !target) {
        char buf[64];
        if (json_is_string(x))
            return json_incref(x);
        if (json_is_integer(x)) {
            snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(x));
            return json_string(buf);
        }
        if (json_is_real(x)) {
            snprintf(buf, sizeof(buf), "%g", json_real_value(x));
            return json_string(buf);
        }
        if (json_is_boolean(x))
            return json_string(json_is_true(x) ? "true" : "false");
        return fail(env, "no such overload: string(%s)", type_name(x));
    }
    if (!strcmp(name, "matches") && want == 2)
        return call_matches(env, x, y);
    if (want == 2 &&
        (!strcmp(name, "startsWith") || !strcmp(name, "endsWith") || !strcmp(name, "contains"))) {
        if (!json_is_string(x) || !json_is_string(y))
            return fail(env, "no such overload: %s.%s(%s)", type_name(x), name, type_name(y));
        const char *s = json_string_value(x), *t = json_string_value(y);
        size_t ls = json_string_length(x), lt = json_string_length(y);
        bool r;
        if (!strcmp(name, "startsWith"))
            r = lt <= ls && !memcmp(s, t, lt);
        else if (!strcmp(name, "endsWith"))
            r = lt <= ls && !memcmp(s + ls - lt, t, lt);
        else
            r = contains(s, ls, t, lt);
        return json_boolean(r);
    }
    return fail(env, "no such overload: %s with %zu arguments", name, want);
}

/* all, exists, exists_one, filter, map over a list (elements) or a map (keys). */
static json_t *eval_macro(struct env *env, const struct node *n)
{
    json_t *target = eval(env, n->a);
    if (!target)
        return NULL;
    json_t *items;
    if (json_is_array(target)) {
        items = json_incref(target);
    } else if (json_is_object(target)) {
        items = json_array();
        const char *k;
        json_t *v;
        json_object_foreach(target, k, v) json_array_append_new(items, json_string(k));
    } else {
        json_decref(target);
        return fail(env, "no such overload: %s.%s()", type_name(target), n->name);
    }
    json_decref(target);
    if (env->n == MAX_VARS) {
        json_decref(items);
        return fail(env, "macros nested too deep");
    }
    int slot = env->n++;
    env->names[slot] = n->var;
    bool all = !strcmp(n->name, "all"), exists = !strcmp(n->name, "exists");
    bool one = !strcmp(n->name, "exists_one"), filter = !strcmp(n->name, "filter");
    json_t *out = (filter || !strcmp(n->name, "map")) ? json_array() : NULL;
    size_t count = 0;
    char saved[512] = "";
    bool had_error = false, decided = false;
    for (size_t i = 0; i < json_array_size(items) && !decided; i++) {
        if (!step(env))
            break;
        env->vals[slot] = json_array_get(items, i);
        if (out && !filter) {
            json_t *v = eval(env, n->b);
            if (!v)
                break;
            json_array_append_new(out, v);
            continue;
        }
        json_t *v = eval(env, n->b);
        int t = v && json_is_boolean(v) ? json_is_true(v) : -1;
        if (v && t < 0)
            fail(env, "no such overload: %s predicate of type %s", n->name, type_name(v));
        json_decref(v);
        if (t < 0) {
            if (filter || one)
                break; /* errors are not absorbed by these */
            if (!had_error)
                snprintf(saved, sizeof(saved), "%s", env->why);
            had_error = true;
            env->failed = false;
            continue;
        }
        if (filter) {
            if (t)
                json_array_append(out, env->vals[slot]);
        } else if (all && !t) {
            decided = true;
        } else if (exists && t) {
            decided = true;
        } else if (one && t) {
            count++;
        }
    }
    env->n--;
    json_decref(items);
    if (env->failed) {
        json_decref(out);
        return NULL;
    }
    if (out)
        return out;
    if (one)
        return json_boolean(count == 1);
    if (decided)
        return json_boolean(exists);
    if (had_error)
        return fail(env, "%s", saved);
    return json_boolean(all);
}

static json_t *eval_inner(struct env *env, const struct node *n)
{
    json_t *a = NULL, *b = NULL, *r = NULL;
    switch (n->kind) {
    case N_LIT:
        return n->lit ? json_incref(n->lit) : fail(env, "unsupported expression");
    case N_IDENT:
        for (int i = env->n - 1; i >= 0; i--)
            if (!strcmp(env->names[i], n->name))
                return json_incref(env->vals[i]);
        if (!strcmp(n->name, "self"))
            return json_incref((json_t *)env->self);
        if (!strcmp(n->name, "oldSelf") && env->old_self)
            return json_incref((json_t *)env->old_self);
        return fail(env, "undeclared reference to '%s'", n->name);
    case N_SELECT:
        if (!(a = eval(env, n->a)))
            return NULL;
        r = member_of(env, a, n->name);
        json_decref(a);
        return r;
    case N_HAS:
        if (!(a = eval(env, n->a)))
            return NULL;
        if (!json_is_object(a))
            r = fail(env, "no such overload: has() on %s", type_name(a));
        else
            r = json_boolean(json_object_get(a, n->name) != NULL);
        json_decref(a);
        return r;
    case N_INDEX:
        if (!(a = eval(env, n->a)))
            return NULL;
        if ((b = eval(env, n->b)))
            r = eval_index(env, a, b);
        json_decref(a);
        json_decref(b);
        return r;
    case N_LIST:
        r = json_array();
        for (size_t i = 0; i < n->nargs; i++) {
            json_t *v = eval(env, n->args[i]);
            if (!v) {
                json_decref(r);
                return NULL;
            }
            json_array_append_new(r, v);
        }
        return r;
    case N_NOT:
        if (!(a = eval(env, n->a)))
            return NULL;
        r = json_is_boolean(a) ? json_boolean(!json_is_true(a))
                               : fail(env, "no such overload: !%s", type_name(a));
        json_decref(a);
        return r;
    case N_NEG:
        if (!(a = eval(env, n->a)))
            return NULL;
        if (json_is_integer(a) && json_integer_value(a) != INT64_MIN)
            r = json_integer(-json_integer_value(a));
        else if (json_is_real(a))
            r = json_real(-json_real_value(a));
        else
            r = fail(env, "no such overload: -%s", type_name(a));
        json_decref(a);
        return r;
    case N_BINARY:
        if (!(a = eval(env, n->a)))
            return NULL;
        if ((b = eval(env, n->b)))
            r = eval_binary(env, n->op, a, b);
        json_decref(a);
        json_decref(b);
        return r;
    case N_AND:
    case N_OR:
        return eval_logic(env, n);
    case N_COND:
        if (!(a = eval(env, n->a)))
            return NULL;
        if (!json_is_boolean(a))
            r = fail(env, "no such overload: %s ? _ : _", type_name(a));
        else
            r = eval(env, json_is_true(a) ? n->b : n->c);
        json_decref(a);
        return r;
    case N_CALL: {
        json_t *args[4] = {NULL};
        if (n->nargs > 3)
            return fail(env, "too many arguments to %s", n->name);
        if (n->a && !(a = eval(env, n->a)))
            return NULL;
        size_t i = 0;
        for (; i < n->nargs; i++)
            if (!(args[i] = eval(env, n->args[i])))
                break;
        if (i == n->nargs)
            r = call(env, n->name, a, args, n->nargs);
        for (size_t j = 0; j < i; j++)
            json_decref(args[j]);
        json_decref(a);
        return r;
    }
    case N_MACRO:
        return eval_macro(env, n);
    }
    return fail(env, "unsupported expression");
}

static json_t *eval(struct env *env, const struct node *n)
{
    if (!step(env))
        return NULL;
    return eval_inner(env, n);
}

enum cel_result cel_eval(const struct cel *c, const json_t *self, const json_t *old_self,
                         long *budget, char *why, size_t len)
{
    if (len)
        why[0] = '\0';
    if (c->uses_old && !old_self)
        return CEL_TRUE;
    struct env env = {
        .self = self, .old_self = old_self, .budget = budget, .why = why, .why_len = len};
    json_t *v = eval(&env, c->root);
    if (!v)
        return CEL_ERROR;
    enum cel_result r = CEL_ERROR;
    if (json_is_boolean(v))
        r = json_is_true(v) ? CEL_TRUE : CEL_FALSE;
    else
        snprintf(why, len, "the rule returned %s, not bool", type_name(v));
    json_decref(v);
    return r;
}
