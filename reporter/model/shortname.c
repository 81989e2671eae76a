/*
 * shortname.c - C++ function names shortened by their structure (shortname.h): the return
 * type dropped, template arguments and parameters collapsed to <…> and (…), detail added back
 * only where two names would otherwise read the same.
 */
#include "model/shortname.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#define ELLIPSIS "\xe2\x80\xa6" /* U+2026 */

/* A character of an identifier (or of a mangled-looking name's pieces). */
static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || (unsigned char)c >= 0x80;
}

/* The operators' symbols, longer before shorter where one begins another. */
static const char *const operator_symbols[] = {
    "->*", "<<=", ">>=", "<=>", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "++",  "--",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "+",  "-",  "*",
    "/",   "%",   "^",   "&",   "|",  "~",  "!",  "=",  "<",  ">",  ","};

/*
 * The length of a piece at s[i] whose brackets are not groups: an operator's name
 * ("operator<<", "operator()", "operator new[]", "operator bool", with the space the demangler
 * puts before its template arguments in "operator< <int>"), or "(anonymous namespace)". 0 when
 * none starts there.
 */
static size_t atom_len(const char *s, size_t i, size_t n)
{
    static const char anon[] = "(anonymous namespace)";
    if (s[i] == '(' && n - i >= sizeof anon - 1 && memcmp(s + i, anon, sizeof anon - 1) == 0)
        return sizeof anon - 1;
    if (n - i < 8 || memcmp(s + i, "operator", 8) != 0 || (i > 0 && ident_char(s[i - 1])))
        return 0;
    size_t j = i + 8;
    if (j < n && ident_char(s[j]))
        return 0; /* "operators", an identifier */
    if (j + 1 < n && ((s[j] == '(' && s[j + 1] == ')') || (s[j] == '[' && s[j + 1] == ']')))
        return j + 2 - i;
    if (j < n && s[j] == ' ') {
        /* operator new, operator delete[], or a conversion operator: its type runs up to the
           parameter list. */
        size_t k = j + 1;
        int depth = 0;
        for (; k < n && !(depth == 0 && s[k] == '('); k++) {
            if (s[k] == '<' || s[k] == '(' || s[k] == '[')
                depth++;
            else if ((s[k] == '>' || s[k] == ')' || s[k] == ']') && depth > 0)
                depth--;
        }
        return k - i;
    }
    for (size_t o = 0; o < sizeof operator_symbols / sizeof *operator_symbols; o++) {
        size_t len = strlen(operator_symbols[o]);
        if (n - j >= len && memcmp(s + j, operator_symbols[o], len) == 0) {
            size_t k = j + len;
            if (k + 1 < n && s[k] == ' ' && s[k + 1] == '<')
                k++;
            return k - i;
        }
    }
    return 0;
}

/* The closing bracket of an opening one. */
static char closer(char c)
{
    switch (c) {
    case '(':
        return ')';
    case '<':
        return '>';
    case '[':
        return ']';
    default:
        return '}';
    }
}

/* Whether c opens a group. */
static int opener(char c) { return c == '(' || c == '<' || c == '[' || c == '{'; }

/* The index of the bracket that closes the group opened at s[i], or n when it is unbalanced. */
static size_t group_end(const char *s, size_t i, size_t n)
{
    char stack[256];
    size_t depth = 0;
    for (size_t k = i; k < n; k++) {
        size_t op = atom_len(s, k, n);
        if (op) {
            k += op - 1;
            continue;
        }
        if (opener(s[k])) {
            if (depth == sizeof stack)
                return n;
            stack[depth++] = closer(s[k]);
        } else if (s[k] == ')' || s[k] == '>' || s[k] == ']' || s[k] == '}') {
            if (depth == 0 || stack[depth - 1] != s[k])
                return n;
            if (--depth == 0)
                return k;
        }
    }
    return n;
}

/* A name read as a signature: [return type ]name(params) qualifiers. */
struct signature {
    size_t name;   /* where the name starts (after the return type and its space) */
    size_t params; /* the parameter list's '(' */
    size_t quals;  /* after its ')' */
};

/* Whether s[b..e) is made of qualifiers only: const, volatile, &, &&, noexcept, [...]. */
static int qualifiers_only(const char *s, size_t b, size_t e)
{
    size_t i = b;
    while (i < e) {
        if (s[i] == ' ') {
            i++;
            continue;
        }
        if (s[i] == '[') {
            size_t k = group_end(s, i, e);
            if (k == e)
                return 0;
            i = k + 1;
            continue;
        }
        static const char *const words[] = {"const", "volatile", "&&", "&", "noexcept", "restrict"};
        size_t w = 0;
        for (; w < sizeof words / sizeof *words; w++) {
            size_t len = strlen(words[w]);
            if (e - i >= len && memcmp(s + i, words[w], len) == 0 &&
                (i + len == e || !ident_char(s[i + len]) || !ident_char(words[w][0]))) {
                i += len;
                break;
            }
        }
        if (w == sizeof words / sizeof *words)
            return 0;
    }
    return 1;
}

/* Read s[0..n) as a signature; 0 when it is not one (a C name, a region's own text). */
static int parse(const char *s, size_t n, struct signature *sig)
{
    /* The parameter list is the last top-level group of round brackets, with only qualifiers
       after it. */
    size_t params = SIZE_MAX, params_end = 0;
    for (size_t i = 0; i < n; i++) {
        size_t atom = atom_len(s, i, n);
        if (atom) {
            i += atom - 1;
            continue;
        }
        char c = s[i];
        if (opener(c)) {
            size_t k = group_end(s, i, n);
            if (k == n)
                return 0;
            if (c == '(') {
                params = i;
                params_end = k;
            }
            i = k;
        } else if (c == ')' || c == '>' || c == ']' || c == '}')
            return 0;
    }
    if (params == SIZE_MAX || params == 0 || !qualifiers_only(s, params_end + 1, n))
        return 0;
    /* A space may not precede the list ("walk (x)" is a region's text). */
    char before = s[params - 1];
    if (!(ident_char(before) || strchr("<>]})+-*/%^&|~!=,", before)))
        return 0;
    /* Only C++ names: a scope, template arguments or an operator before the list. A manual region's
       text such as "parse(file)" or "=HYPERLINK(...)" is the user's own and stays whole. */
    int cxx = 0;
    for (size_t i = 0; i + 1 < params && !cxx; i++)
        cxx = (s[i] == ':' && s[i + 1] == ':') || s[i] == '<' || atom_len(s, i, params);
    /* ... or parameters only C++ writes: a scope, template arguments or a reference (a function
       of the global namespace: ninja's ReadFile(std::__cxx11::basic_string<…> const&, …) stayed
       whole, 240 characters in the terminal and every sheet). */
    for (size_t i = params + 1; i < params_end && !cxx; i++)
        cxx = s[i] == '<' || s[i] == '&' || (s[i] == ':' && i + 1 < params_end && s[i + 1] == ':');
    if (!cxx)
        return 0;
    /* The return type ends at the last top-level space before the name. */
    size_t name = 0;
    for (size_t i = 0; i < params; i++) {
        size_t atom = atom_len(s, i, params);
        if (atom) {
            i += atom - 1;
            continue;
        }
        if (s[i] == ' ')
            name = i + 1;
        else if (opener(s[i])) {
            size_t k = group_end(s, i, params);
            if (k == params)
                return 0;
            i = k;
        }
    }
    sig->name = name;
    sig->params = params;
    sig->quals = params_end + 1;
    return 1;
}

/*
 * Append s[b..e) to out, with each group of angle or round brackets nested deeper than keep
 * collapsed to <…> or (…) (an empty one stays <> or ()); square and curly brackets are copied
 * and do not count.
 */
static void collapse(struct prof_sbuf *out, const char *s, size_t b, size_t e, int keep)
{
    int depth = 0;
    for (size_t i = b; i < e; i++) {
        size_t op = atom_len(s, i, e);
        if (op) {
            prof_sbuf_add(out, s + i, op);
            i += op - 1;
            continue;
        }
        char c = s[i];
        if (c == '(' || c == '<') {
            if (depth == keep) {
                size_t k = group_end(s, i, e);
                if (k < e) {
                    prof_sbuf_add(out, &c, 1);
                    if (k > i + 1)
                        prof_sbuf_str(out, ELLIPSIS);
                    prof_sbuf_add(out, s + k, 1);
                    i = k;
                    continue;
                }
            }
            depth++;
        } else if ((c == ')' || c == '>') && depth > 0)
            depth--;
        prof_sbuf_add(out, &c, 1);
    }
}

/* s[b..e) without the spaces at either end. */
static void trim(const char *s, size_t *b, size_t *e)
{
    while (*b < *e && s[*b] == ' ')
        (*b)++;
    while (*e > *b && s[*e - 1] == ' ')
        (*e)--;
}

char *shortname(const char *name, int level)
{
    size_t n = strlen(name);
    struct signature sig;
    if (level >= SHORTNAME_LEVELS - 1 || !parse(name, n, &sig))
        return xstrdup(name);
    if (level == SHORTNAME_LEVELS - 2)
        return xstrdup(name + sig.name);
    struct prof_sbuf out = {0};
    size_t qb = sig.quals, qe = n;
    trim(name, &qb, &qe);
    /* The name's own template arguments come back before the parameters' types: they are
       shorter, and they tell instances of one template apart. Then both, a level deeper at a
       time. */
    int name_depth = level < 2 ? level : level - 1, params_depth = level < 2 ? 0 : level - 1;
    collapse(&out, name, sig.name, sig.params, name_depth);
    collapse(&out, name, sig.params, sig.quals, params_depth);
    if (level >= 2 && qe > qb) {
        prof_sbuf_str(&out, " ");
        prof_sbuf_add(&out, name + qb, qe - qb);
    }
    return sbuf_take(&out);
}

/* One name's place while shortnames compares the forms. */
struct form {
    char *text;
    size_t index;
};

/* qsort order of forms: by text, then by index. */
static int form_cmp(const void *a, const void *b)
{
    const struct form *x = a, *y = b;
    int c = strcmp(x->text, y->text);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

char **shortnames(const char *const *names, size_t n)
{
    char **out = xcalloc(n ? n : 1, sizeof *out);
    int *level = xcalloc(n ? n : 1, sizeof *level);
    struct form *f = xcalloc(n ? n : 1, sizeof *f);
    for (size_t i = 0; i < n; i++)
        out[i] = shortname(names[i], 0);
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < n; i++)
            f[i] = (struct form){out[i], i};
        qsort(f, n, sizeof *f, form_cmp);
        for (size_t i = 0; i < n;) {
            size_t j = i + 1;
            while (j < n && strcmp(f[i].text, f[j].text) == 0)
                j++;
            /* Names that read the same get more detail; two names equal in full stay so. */
            for (size_t k = i; j - i > 1 && k < j; k++) {
                size_t x = f[k].index;
                if (level[x] < SHORTNAME_LEVELS - 1) {
                    level[x]++;
                    changed = 1;
                }
            }
            i = j;
        }
        if (changed)
            for (size_t i = 0; i < n; i++) {
                char *s = shortname(names[i], level[i]);
                free(out[i]);
                out[i] = s;
            }
    }
    free(f);
    free(level);
    return out;
}

/* The number of UTF-8 code points in s[0..n). */
static size_t code_points(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xc0) != 0x80;
    return c;
}

/* The fewest code points of a name's end that shortname_fit keeps after its own name. */
#define FIT_TAIL 12

char *shortname_fit(const char *s, size_t width)
{
    size_t n = strlen(s);
    if (width < 2)
        width = 2;
    if (code_points(s, n) <= width)
        return xstrdup(s);
    /* Leading scope components go first: after each top-level "::" before the parameters. */
    struct signature sig;
    size_t end = parse(s, n, &sig) ? sig.params : n, from = parse(s, n, &sig) ? sig.name : 0;
    size_t last = from; /* where the function's own name begins */
    for (size_t i = from; i + 1 < end; i++) {
        size_t op = atom_len(s, i, end);
        if (op) {
            i += op - 1;
            continue;
        }
        if (opener(s[i])) {
            size_t k = group_end(s, i, end);
            if (k == end)
                break;
            i = k;
            continue;
        }
        if (s[i] == ':' && s[i + 1] == ':') {
            last = i + 2;
            if (code_points(s + i + 2, n - i - 2) + 1 <= width) {
                struct prof_sbuf out = {0};
                prof_sbuf_str(&out, ELLIPSIS);
                prof_sbuf_str(&out, s + i + 2);
                return sbuf_take(&out);
            }
        }
    }
    /* Then the function's own name and the end of its parameters, their middle left out
       ("ReadFile(…std::allocator<char> >*)"), while at least FIT_TAIL code points of the end
       remain: cut from the left, ninja's ReadFile read as the tail of its parameter list, and
       11 of its names as some other function's. */
    size_t head = end < n ? end + 1 - last : 0, head_cp = code_points(s + last, head);
    if (head && head_cp + 1 + FIT_TAIL <= width) {
        size_t keep = width - head_cp - 1, at = n;
        while (at > end + 1 && keep > 0) {
            at--;
            if (((unsigned char)s[at] & 0xc0) != 0x80)
                keep--;
        }
        while (at > end + 1 && ((unsigned char)s[at] & 0xc0) == 0x80)
            at--;
        struct prof_sbuf out = {0};
        prof_sbuf_add(&out, s + last, head);
        prof_sbuf_str(&out, ELLIPSIS);
        prof_sbuf_str(&out, s + at);
        return sbuf_take(&out);
    }
    /* Then the text itself, from the left: the last width - 1 code points. */
    size_t keep = width - 1, at = n;
    while (at > 0 && keep > 0) {
        at--;
        if (((unsigned char)s[at] & 0xc0) != 0x80)
            keep--;
    }
    while (at > 0 && ((unsigned char)s[at] & 0xc0) == 0x80)
        at--;
    struct prof_sbuf out = {0};
    prof_sbuf_str(&out, ELLIPSIS);
    prof_sbuf_str(&out, s + at);
    return sbuf_take(&out);
}
