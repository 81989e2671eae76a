/*
 * suggest.c - the hot, tiny functions a -finstrument-functions build should leave out, and
 * the names gcc and PROFILER_EXCLUDE know them by (suggest.h).
 */
#include "model/suggest.h"
#include "base/util.h"
#include "cxxname.h"
#include "strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether s[0..i) ends with "operator" (so s[i] belongs to an operator's name). */
static int after_operator(const char *s, size_t i)
{
    return i >= 8 && strncmp(s + i - 8, "operator", 8) == 0;
}

/* Whether s[i] is part of an operator's symbol (`operator<<`, `operator<=`), not a bracket of
   the name's structure. */
static int in_operator(const char *s, size_t i)
{
    size_t k = i;
    while (k > 0 && strchr("<>=!-+*/%^&|~", s[k - 1]))
        k--;
    return after_operator(s, k);
}

/* The name gcc matches for a demangled function name. */
char *suggest_gcc_name(const char *display)
{
    char *s = xstrdup(display);
    char *c = strstr(s, " [clone ");
    if (c)
        *c = 0;
    static const char *const clones[] = {".isra.", ".part.",     ".constprop.",
                                         ".cold",  ".lto_priv.", ".localalias"};
    for (size_t i = 0; i < sizeof clones / sizeof *clones; i++)
        if ((c = strstr(s, clones[i])) != NULL)
            *c = 0;
    size_t n = strlen(s);
    /* qualifiers after the parameter list */
    for (;;) {
        while (n > 0 && s[n - 1] == ' ')
            n--;
        static const char *const quals[] = {"const", "volatile", "noexcept", "&&", "&"};
        size_t q = 0;
        for (; q < sizeof quals / sizeof *quals; q++) {
            size_t l = strlen(quals[q]);
            if (n >= l && strncmp(s + n - l, quals[q], l) == 0 &&
                (n == l || s[n - l - 1] == ' ' || s[n - l - 1] == ')' || quals[q][0] == '&')) {
                n -= l;
                break;
            }
        }
        if (q == sizeof quals / sizeof *quals)
            break;
    }
    s[n] = 0;
    /* the parameter list: the last balanced (...) group, which operator() keeps before it */
    if (n > 0 && s[n - 1] == ')') {
        int depth = 0;
        for (size_t k = n; k-- > 0;) {
            if (s[k] == ')')
                depth++;
            else if (s[k] == '(' && --depth == 0) {
                if (k > 0)
                    s[k] = 0;
                break;
            }
        }
    }
    /* the return type of a function template: up to the last space outside brackets, before
       any "operator" (whose symbols would unbalance them) */
    n = strlen(s);
    char *op = strstr(s, "operator");
    size_t head = op ? (size_t)(op - s) : n;
    int depth = 0;
    size_t cut = 0;
    for (size_t k = 0; k < head; k++) {
        if (strchr("<([", s[k]))
            depth++;
        else if (strchr(">)]", s[k]))
            depth--;
        else if (s[k] == ' ' && depth == 0)
            cut = k + 1;
    }
    memmove(s, s + cut, n - cut + 1);
    /* gcc's pretty printer names an anonymous namespace "{anonymous}" */
    static const char anon[] = "(anonymous namespace)", gcc_anon[] = "{anonymous}";
    while ((c = strstr(s, anon)) != NULL) {
        memmove(c + sizeof gcc_anon - 1, c + sizeof anon - 1, strlen(c + sizeof anon - 1) + 1);
        memcpy(c, gcc_anon, sizeof gcc_anon - 1);
    }
    return s;
}

/* Where the last component of a qualified name starts (after its last "::" outside
   brackets). */
static size_t last_component(const char *s)
{
    int depth = 0;
    size_t start = 0;
    for (size_t k = 0; s[k]; k++) {
        if (s[k] == '<' && !in_operator(s, k))
            depth++;
        else if (s[k] == '>' && !in_operator(s, k) && depth > 0)
            depth--;
        else if (depth == 0 && s[k] == ':' && s[k + 1] == ':')
            start = k + 2;
    }
    return start;
}

/* Whether gcc spells the name's scope its own way. */
int suggest_gcc_spelled_apart(const char *gcc_name)
{
    if (strstr(gcc_name, "{lambda") || strstr(gcc_name, "{unnamed type"))
        return 1;
    size_t last = last_component(gcc_name);
    for (size_t k = 0; k < last; k++)
        if (gcc_name[k] == '<' && !in_operator(gcc_name, k))
            return 1;
    return 0;
}

/* The name without a function template's arguments (`NS::twice<int>` -> `NS::twice`), so
   gcc's spelling of them does not matter: every instantiation matches. Caller frees. */
static char *without_template_args(const char *gcc_name)
{
    char *s = xstrdup(gcc_name);
    for (size_t k = last_component(s); s[k]; k++)
        if (s[k] == '<' && !in_operator(s, k)) {
            s[k] = 0;
            break;
        }
    return s;
}

/* s escaped for a comma list (and fnmatch when glob). */
char *suggest_escape(const char *s, int glob)
{
    char *out = xmalloc(2 * strlen(s) + 1), *p = out;
    for (; *s; s++) {
        if (*s == ',' || (glob && strchr("*?[]\\", *s)))
            *p++ = '\\';
        *p++ = *s;
    }
    *p = 0;
    return out;
}

/* The median of the runs' measured hook cost per call (ns), NaN when no thread says. */
static double hook_cost(const struct model *m)
{
    double *v = xmalloc((m->nthreads ? m->nthreads : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < m->nthreads; i++)
        if (isfinite(m->threads[i].hook_ns) && m->threads[i].hook_ns > 0)
            v[n++] = m->threads[i].hook_ns;
    double med = NAN;
    if (n) {
        for (size_t i = 1; i < n; i++) /* insertion sort: a handful of threads */
            for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
                double t = v[j];
                v[j] = v[j - 1];
                v[j - 1] = t;
            }
        med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
    free(v);
    return med;
}

/* Most calls first, then by name. */
static int by_calls(const void *a, const void *b)
{
    const struct suggest_item *x = a, *y = b;
    if (x->calls_per_run != y->calls_per_run)
        return x->calls_per_run > y->calls_per_run ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Give each item's gcc name its verdict: a scope gcc spells its own way cannot be named; a name
   that is part of a kept function's name would leave that one out too. Leaving an item out of
   the list keeps its function, which can clash with another item: repeat until none changes. */
static void check_gcc_names(const struct model *m, struct suggestion *s)
{
    char **full = xmalloc((m->nregions ? m->nregions : 1) * sizeof *full);
    char *listed = xmalloc(m->nregions ? m->nregions : 1);
    for (size_t r = 0; r < m->nregions; r++) {
        /* a function every run left out is kept by none: no clash with it */
        full[r] = m->regions[r].function && !region_uncounted(&m->regions[r])
                      ? suggest_gcc_name(m->regions[r].display)
                      : NULL;
        listed[r] = 0;
    }
    for (size_t i = 0; i < s->n; i++) {
        struct suggest_item *it = &s->items[i];
        it->gcc =
            suggest_gcc_spelled_apart(full[it->region]) ? SUGGEST_GCC_SPELLING : SUGGEST_GCC_OK;
        listed[it->region] = it->gcc == SUGGEST_GCC_OK;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < s->n; i++) {
            struct suggest_item *it = &s->items[i];
            if (it->gcc != SUGGEST_GCC_OK)
                continue;
            for (size_t r = 0; r < m->nregions; r++)
                if (full[r] && !listed[r] && strstr(full[r], it->gcc_name)) {
                    it->gcc = SUGGEST_GCC_CLASH;
                    it->clash = xstrdup(m->regions[r].display);
                    listed[it->region] = 0;
                    changed = 1;
                    break;
                }
        }
    }
    for (size_t r = 0; r < m->nregions; r++)
        free(full[r]);
    free(full);
    free(listed);
}

/* Whether name answers to the filter pattern text (unescaped) in one of the forms the collector
   matches: whole, without its parameters, or either without a template's return type. */
static int answers_to(const char *name, const char *text)
{
    size_t bare = prof_cxx_bare_length(name), from = prof_cxx_qualified_start(name, bare);
    size_t len = strlen(text);
    return strcmp(name, text) == 0 || (bare == len && strncmp(name, text, len) == 0) ||
           (from && strcmp(name + from, text) == 0) ||
           (from && bare - from == len && strncmp(name + from, text, len) == 0);
}

/* Give each item the shortest PROFILER_EXCLUDE pattern that leaves out its function and no
   function the runs keep: its qualified name without return type and parameters
   ("int NS::f<int>(int) const" -> NS::f<int>) when no kept function answers to that (another
   overload would), else its whole name. */
static void shorten_globs(const struct model *m, struct suggestion *s)
{
    char *listed = xmalloc(m->nregions ? m->nregions : 1);
    memset(listed, 0, m->nregions ? m->nregions : 1);
    for (size_t i = 0; i < s->n; i++)
        listed[s->items[i].region] = 1;
    for (size_t i = 0; i < s->n; i++) {
        struct suggest_item *it = &s->items[i];
        size_t bare = prof_cxx_bare_length(it->name);
        size_t from = prof_cxx_qualified_start(it->name, bare);
        char *text = xstrndup(it->name + from, bare - from);
        int ok = *text && strlen(text) < strlen(it->name) && text[strlen(text) - 1] != ' ' &&
                 !strstr(it->name, " [clone ");
        for (size_t r = 0; r < m->nregions && ok; r++)
            ok = !m->regions[r].function || listed[r] || region_uncounted(&m->regions[r]) ||
                 !answers_to(m->regions[r].display, text);
        if (ok) {
            free(it->glob);
            it->glob = suggest_escape(text, 1);
        }
        free(text);
    }
    free(listed);
}

void suggest_patterns(const char *value, char ***out, size_t *n)
{
    for (const char *p = value; p && *p;) {
        const char *e = p;
        while (*e && !(*e == ',' && (e == value || e[-1] != '\\')))
            e++;
        const char *a = p, *b = e;
        while (a < b && *a == ' ')
            a++;
        while (b > a && b[-1] == ' ')
            b--;
        char *pat = xstrndup(a, (size_t)(b - a));
        int seen = !*pat;
        for (size_t i = 0; i < *n && !seen; i++)
            seen = strcmp((*out)[i], pat) == 0;
        if (seen) {
            free(pat);
        } else {
            *out = xgrow_doubling(*out, *n, sizeof **out);
            (*out)[(*n)++] = pat;
        }
        p = *e ? e + 1 : e;
    }
}

char *suggest_filters_text(const struct model *m, int exclude)
{
    char **p = NULL;
    size_t n = 0, runs = 0;
    for (size_t k = 0; k < m->nruns; k++) {
        const char *v = exclude ? m->runs[k].exclude : m->runs[k].include;
        runs += v != NULL;
        suggest_patterns(v, &p, &n);
    }
    if (!n) {
        free(p);
        return NULL;
    }
    struct prof_sbuf b = {0};
    for (size_t i = 0; i < n; i++) {
        prof_sbuf_addf(&b, "%s%s", i ? ", " : "", p[i]);
        free(p[i]);
    }
    free(p);
    /* A collector that charges a left-out function its own samples gives it rows of its own
       (FORMAT.md 1.4); an older one left its time in its callers'. The rows of a function
       compiled without hooks come from such a collector too. */
    int own = 0;
    for (size_t r = 0; r < m->nregions && !own; r++)
        own = m->regions[r].left_out;
    prof_sbuf_addf(&b, " (%zu of %zu run%s): %s", runs, m->nruns, m->nruns == 1 ? "" : "s",
                   own && exclude ? "functions matching one were not counted; the samples that "
                                    "landed in them are their own self time (below), calls not "
                                    "counted"
                   : own     ? "only functions matching one were counted; the samples that landed "
                               "in the others are their own self time (below), calls not counted"
                   : exclude ? "functions matching one are in no row; their time is in their "
                               "callers' self time"
                             : "only functions matching one are in the rows; the others' time is "
                               "in their callers' self time");
    char *s = xstrdup(prof_sbuf_cstr(&b));
    prof_sbuf_release(&b);
    return s;
}

/* Free the strings of s's items; none are left (the array stays). */
static void free_items(struct suggestion *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->items[i].name);
        free(s->items[i].short_name);
        free(s->items[i].gcc_name);
        free(s->items[i].glob);
        free(s->items[i].clash);
    }
    s->n = 0;
}

/* The hot, tiny functions of m. */
void suggest_build(const struct model *m, const struct suggest_options *o, struct suggestion *s)
{
    memset(s, 0, sizeof *s);
    s->hook_ns = NAN;
    for (size_t k = 0; k < m->nruns; k++)
        suggest_patterns(m->runs[k].exclude, &s->left_out, &s->nleft_out);
    size_t runs = m->nruns ? m->nruns : 1;
    for (size_t r = 0; r < m->nregions; r++)
        if (m->regions[r].function && !region_uncounted(&m->regions[r])) {
            s->functions++;
            s->calls += m->regions[r].cost.n;
        }
    if (o && o->max_mean_ns > 0) {
        s->max_mean_ns = o->max_mean_ns;
    } else {
        s->hook_ns = hook_cost(m);
        s->max_mean_ns =
            SUGGEST_HOOK_FACTOR * (isfinite(s->hook_ns) ? s->hook_ns : SUGGEST_DEFAULT_HOOK_NS);
    }
    if (!s->calls)
        return;
    double busy = model_busy(m);
    size_t cap = 0;
    uint64_t in = 0, in_gcc = 0;
    for (size_t r = 0; r < m->nregions; r++) {
        const struct region *g = &m->regions[r];
        uint64_t calls = g->cost.n;
        /* a function the runs left out already is not suggested again */
        if (!g->function || !calls || g->left_out || strcmp(g->display, "main") == 0)
            continue;
        /* Its CPU time per call, or what its calls took by the clock where some were timed,
           if longer: a call that waits (a lock, I/O) has few CPU samples, and is not tiny */
        double mean = g->outer_ns / (double)calls, timed = dist_mean(&g->cost);
        if (isfinite(timed) && timed > mean)
            mean = timed;
        double share = busy > 0 ? g->outer_ns / busy : 0;
        double call_share = (double)calls / (double)s->calls;
        if (call_share < SUGGEST_MIN_CALL_SHARE || !(mean < s->max_mean_ns) ||
            share > SUGGEST_MAX_TIME_SHARE)
            continue;
        if (s->n == cap) {
            cap = cap ? 2 * cap : 16;
            s->items = xrealloc(s->items, cap * sizeof *s->items);
        }
        struct suggest_item *it = &s->items[s->n++];
        memset(it, 0, sizeof *it);
        it->region = r;
        it->name = xstrdup(g->display);
        it->short_name = xstrdup(model_short(g));
        char *full = suggest_gcc_name(g->display);
        it->gcc_name = without_template_args(full);
        free(full);
        it->glob = suggest_escape(g->display, 1);
        it->calls_per_run = (double)calls / (double)runs;
        it->mean_ns = mean;
        it->time_share = share;
        it->self_share = busy > 0 ? g->self_ns / busy : 0;
        it->call_share = call_share;
        in += calls;
    }
    if (!s->n)
        return;
    qsort(s->items, s->n, sizeof *s->items, by_calls);
    check_gcc_names(m, s);
    shorten_globs(m, s);
    for (size_t i = 0; i < s->n; i++)
        if (s->items[i].gcc == SUGGEST_GCC_OK)
            in_gcc += m->regions[s->items[i].region].cost.n;
    s->call_share = (double)in / (double)s->calls;
    double hook = isfinite(s->hook_ns) ? s->hook_ns : SUGGEST_DEFAULT_HOOK_NS;
    s->hooks_share = busy > 0 ? (double)in * hook / busy : 0;
    s->gcc_call_share = (double)in_gcc / (double)s->calls;
    /* A threshold given (--suggest-max-cost) is the user's judgement of what is worth a
       round: the list is theirs however little the hooks cost. */
    if (s->hooks_share < SUGGEST_MIN_HOOKS_SHARE && !(o && o->max_mean_ns > 0)) {
        s->cheap = s->n;
        free_items(s);
        s->call_share = s->gcc_call_share = 0;
    }
}

void suggest_release(struct suggestion *s)
{
    free_items(s);
    free(s->items);
    for (size_t i = 0; i < s->nleft_out; i++)
        free(s->left_out[i]);
    free(s->left_out);
    memset(s, 0, sizeof *s);
}
