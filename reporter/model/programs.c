/*
 * programs.c - runs that don't belong together: the program a report is of when the inputs
 * hold several (grouped by their Program record), and the notes that say so, and say when the
 * runs reported came from different hosts, clocks or tick rates.
 */
#define _GNU_SOURCE /* qsort_r */
#include "model/programs.h"
#include "base/util.h"
#include "model/units.h"

#include "strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* How a group without a Program record (seed-form runs) is shown. */
#define NO_PROGRAM "(no Program record)"

/* Which programs programs_list names. */
enum { LIST_ALL, LIST_KEPT, LIST_LEFT };

/*
 * Whether program a is a likelier subject than b: more time in its runs (their Durations
 * added up), then more runs. Time first, so that the few short runs of something else that
 * landed in the same folder are not chosen over the program profiled: autoconf's conftest,
 * say, which ./configure runs (for a millisecond) with the flags that also build the program.
 */
static int heavier(const struct program_count *a, const struct program_count *b)
{
    if (a->ns != b->ns)
        return a->ns > b->ns;
    return a->runs > b->runs;
}

/* Choose the program to report (programs.h). */
int programs_choose(const struct program_count *v, size_t n, const char *want, size_t *out,
                    struct rep_error *e)
{
    if (n == 0)
        return rep_fail(e, REP_ERR_NO_INPUT, "no readable run");
    if (!want) {
        /* Runs without a Program record go with any program: they are the choice only alone. */
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (v[i].name && (!v[best].name || heavier(&v[i], &v[best])))
                best = i;
        *out = best;
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (v[i].name && strcmp(v[i].name, want) == 0) {
            *out = i;
            return 0;
        }
    size_t found = SIZE_MAX, count = 0;
    struct prof_sbuf names = {0};
    for (size_t i = 0; i < n; i++)
        if (model_program_is(v[i].name, want)) {
            prof_sbuf_addf(&names, "%s'%s'", count ? ", " : "", v[i].name);
            found = count++ ? found : i;
        }
    if (count == 1) {
        prof_sbuf_release(&names);
        *out = found;
        return 0;
    }
    if (count > 1) {
        rep_fail(e, REP_ERR_USAGE, "--program '%s' names %zu programs: %s; give its whole path",
                 want, count, prof_sbuf_cstr(&names));
        prof_sbuf_release(&names);
        return -1;
    }
    prof_sbuf_release(&names);
    char *all = programs_list(v, n, LIST_ALL);
    rep_fail(e, REP_ERR_NO_INPUT, "no run of program '%s' (--program); the runs are of: %s", want,
             all);
    free(all);
    return -1;
}

/* Order of programs_list: the likelier subject first (heavier), then the order first met. */
static int by_weight(const void *a, const void *b, void *ctx)
{
    const struct program_count *v = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (heavier(&v[i], &v[j]))
        return -1;
    if (heavier(&v[j], &v[i]))
        return 1;
    return (i > j) - (i < j);
}

/* The programs of v that which selects (LIST_KEPT and LIST_LEFT: named ones only), the
   likelier subject first, with their runs and the time those took: "/a/zstd (2 runs, 1.31 s)". */
char *programs_list(const struct program_count *v, size_t n, int which)
{
    size_t *order = xmalloc((n ? n : 1) * sizeof *order), k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].runs &&
            (which == LIST_ALL || (v[i].name && (which == LIST_KEPT) == (v[i].kept > 0))))
            order[k++] = i;
    qsort_r(order, k, sizeof *order, by_weight, (void *)v);
    struct prof_sbuf b = {0};
    for (size_t i = 0; i < k; i++) {
        const struct program_count *c = &v[order[i]];
        char t[64] = "";
        if (c->ns > 0) {
            t[0] = ',';
            t[1] = ' ';
            time_text(t + 2, sizeof t - 2, c->ns, NULL);
        }
        prof_sbuf_addf(&b, "%s%s (%zu run%s%s)", i ? ", " : "", c->name ? c->name : NO_PROGRAM,
                       c->runs, c->runs == 1 ? "" : "s", t);
    }
    free(order);
    char *s = xstrdup(prof_sbuf_cstr(&b));
    prof_sbuf_release(&b);
    return s;
}

/* How many programs of the model have runs kept, how many have runs left out, and how many
   runs name no program. */
static void program_counts(const struct model *m, size_t *kept, size_t *left, size_t *unnamed)
{
    *kept = *left = *unnamed = 0;
    for (size_t i = 0; i < m->nprograms; i++) {
        const struct program_count *c = &m->programs[i];
        if (!c->name) {
            *unnamed += c->kept;
            continue;
        }
        *kept += c->kept > 0;
        *left += c->runs > 0 && c->kept == 0;
    }
}

/* The Summary's account of the programs. */
char *programs_summary(const struct model *m)
{
    size_t kept, left, unnamed;
    program_counts(m, &kept, &left, &unnamed);
    if (kept == 0)
        return programs_list(m->programs, m->nprograms, LIST_ALL);
    char *in = programs_list(m->programs, m->nprograms, LIST_KEPT);
    char *out = programs_list(m->programs, m->nprograms, LIST_LEFT);
    struct prof_sbuf b = {0};
    if (left == 0 && kept == 1)
        prof_sbuf_str(&b, in);
    else if (kept > 1)
        prof_sbuf_addf(&b, "%zu programs merged (--all-programs): %s", kept, in);
    else
        prof_sbuf_addf(&b, "%zu programs in the input; reported: %s", kept + left, in);
    if (left)
        prof_sbuf_addf(&b,
                       "; left out: %s (--program NAME reports another, --all-programs "
                       "merges them)",
                       out);
    if (unnamed)
        prof_sbuf_addf(&b, "; with %zu run%s that name%s no program (seed form)", unnamed,
                       unnamed == 1 ? "" : "s", unnamed == 1 ? "s" : "");
    free(in);
    free(out);
    char *s = xstrdup(prof_sbuf_cstr(&b));
    prof_sbuf_release(&b);
    return s;
}

/* A run's Host and Clock records, for distinct. */
static const char *run_host(const struct run_rec *r) { return r->host; }
static const char *run_clock(const struct run_rec *r) { return r->clock; }

/* The distinct values of field over the model's runs (NULL left out), each with its runs, as
   "a (3 runs), b (1 run)" into b; returns how many there are. */
static size_t distinct(const struct model *m, const char *(*field)(const struct run_rec *),
                       struct prof_sbuf *b)
{
    size_t n = 0;
    for (size_t k = 0; k < m->nruns; k++) {
        const char *v = field(&m->runs[k]);
        int seen = !v;
        for (size_t j = 0; j < k && !seen; j++)
            seen = field(&m->runs[j]) && strcmp(v, field(&m->runs[j])) == 0;
        if (seen)
            continue;
        size_t runs = 0;
        for (size_t j = k; j < m->nruns; j++)
            runs += field(&m->runs[j]) && strcmp(v, field(&m->runs[j])) == 0;
        prof_sbuf_addf(b, "%s%s (%zu run%s)", n ? ", " : "", v, runs, runs == 1 ? "" : "s");
        n++;
    }
    return n;
}

/* What makes the runs unlike each other. */
char *programs_mixed(const struct model *m)
{
    struct prof_sbuf b = {0}, list = {0};
    if (distinct(m, run_host, &list) > 1)
        prof_sbuf_addf(&b, "runs from different hosts: %s", prof_sbuf_cstr(&list));
    list.len = 0;
    if (distinct(m, run_clock, &list) > 1)
        prof_sbuf_addf(&b, "%sdifferent clocks: %s", b.len ? "; " : "", prof_sbuf_cstr(&list));
    /* Tick rates per clock: each run's ticks are converted with its own rate, but rates far
       apart mean different machines or CPU settings. */
    for (size_t k = 0; k < m->nruns; k++) {
        const char *clock = m->runs[k].clock;
        int first = 1;
        for (size_t j = 0; j < k && first; j++)
            first = !(clock && m->runs[j].clock && strcmp(clock, m->runs[j].clock) == 0);
        if (!clock || !first)
            continue;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (size_t j = k; j < m->nruns; j++)
            if (m->runs[j].clock && strcmp(clock, m->runs[j].clock) == 0) {
                lo = m->runs[j].frequency < lo ? m->runs[j].frequency : lo;
                hi = m->runs[j].frequency > hi ? m->runs[j].frequency : hi;
            }
        if (lo > 0 && (double)hi > (double)lo * (1 + PROGRAMS_RATE_SPREAD))
            prof_sbuf_addf(&b, "%stick rates of the %s clock differ by %.1f %% (%llu to %llu Hz)",
                           b.len ? "; " : "", clock, 100 * ((double)hi / (double)lo - 1),
                           (unsigned long long)lo, (unsigned long long)hi);
    }
    prof_sbuf_release(&list);
    char *s = b.len ? xstrdup(prof_sbuf_cstr(&b)) : NULL;
    prof_sbuf_release(&b);
    return s;
}

/* The terminal's note on programs and mixed runs. */
void programs_print(FILE *out, const struct model *m)
{
    size_t kept, left, unnamed;
    program_counts(m, &kept, &left, &unnamed);
    if (kept + left > 1) {
        char *in = programs_list(m->programs, m->nprograms, LIST_KEPT);
        if (kept > 1)
            fprintf(out, "%zu programs merged (--all-programs): %s\n", kept, in);
        else
            fprintf(out, "%zu programs in the input; this report is of %s\n", kept + left, in);
        free(in);
        if (left) {
            char *rest = programs_list(m->programs, m->nprograms, LIST_LEFT);
            fprintf(out,
                    "  left out: %s\n"
                    "  --program NAME reports another, --all-programs merges them\n",
                    rest);
            free(rest);
        }
    }
    char *mixed = programs_mixed(m);
    if (mixed)
        fprintf(out, "note: %s\n", mixed);
    if (kept + left > 1 || mixed)
        fputc('\n', out);
    free(mixed);
}
