/*
 * runcheck.c - runs whose figures are suspect (runcheck.h): measured on a busy machine, or far
 * from the program's other runs.
 */
#include "model/runcheck.h"

#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* qsort order of doubles. */
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place); n > 0. */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each run's share of its threads' wanted CPU time that they spent waiting for a CPU. */
static void busy_machine(struct model *m)
{
    double *cpu = xcalloc(m->nruns ? m->nruns : 1, sizeof *cpu);
    double *wait = xcalloc(m->nruns ? m->nruns : 1, sizeof *wait);
    for (size_t i = 0; i < m->nthreads; i++) {
        const struct thread_rec *t = &m->threads[i];
        if (t->run < m->nruns && isfinite(t->cpu_ns) && isfinite(t->wait_ns)) {
            cpu[t->run] += t->cpu_ns;
            wait[t->run] += t->wait_ns;
        }
    }
    for (size_t k = 0; k < m->nruns; k++) {
        struct run_rec *r = &m->runs[k];
        double wanted = cpu[k] + wait[k];
        r->wait_share = wanted > 0 ? wait[k] / wanted : NAN;
        r->busy_machine = wanted >= RUNCHECK_BUSY_MIN_NS && r->wait_share > RUNCHECK_BUSY_SHARE;
    }
    free(cpu);
    free(wait);
}

/* Whether run r can be held against the others: it ran to its end (a crashed, killed or cut
   run is short for a reason of its own). */
static int comparable(const struct run_rec *r) { return r->complete && !r->crash; }

/* Each comparable run's busy time against the median of theirs, and whether it is an
   outlier. */
static void outliers(struct model *m)
{
    size_t n = m->nruns, nc = 0;
    double *busy = xcalloc(n ? n : 1, sizeof *busy);
    for (size_t i = 0; i < m->nthreads; i++)
        if (m->threads[i].run < n)
            busy[m->threads[i].run] += m->threads[i].busy_ns;
    double *v = xmalloc((n ? n : 1) * sizeof *v);
    for (size_t k = 0; k < n; k++)
        if (comparable(&m->runs[k]))
            v[nc++] = busy[k];
    double med = nc ? median(v, nc) : NAN;
    nc = 0;
    for (size_t k = 0; k < n; k++)
        if (comparable(&m->runs[k]))
            v[nc++] = fabs(busy[k] - med);
    double mad = nc ? median(v, nc) : NAN;
    for (size_t k = 0; k < n; k++) {
        struct run_rec *r = &m->runs[k];
        r->outlier = 0;
        r->busy_ratio = comparable(r) && med > 0 ? busy[k] / med : NAN;
        if (nc < RUNCHECK_OUTLIER_RUNS || !isfinite(r->busy_ratio) ||
            fabs(r->busy_ratio - 1) < RUNCHECK_OUTLIER_MIN)
            continue;
        /* MAD 0 (most runs alike): any run as far from them as RUNCHECK_OUTLIER_MIN is one. */
        r->outlier = mad > 0 ? 0.6745 * fabs(busy[k] - med) / mad > RUNCHECK_OUTLIER_Z : 1;
    }
    free(v);
    free(busy);
}

void runcheck_apply(struct model *m)
{
    busy_machine(m);
    outliers(m);
}

size_t runcheck_busy_runs(const struct model *m)
{
    size_t n = 0;
    for (size_t k = 0; k < m->nruns; k++)
        n += m->runs[k].busy_machine != 0;
    return n;
}

size_t runcheck_outlier_runs(const struct model *m)
{
    size_t n = 0;
    for (size_t k = 0; k < m->nruns; k++)
        n += m->runs[k].outlier != 0;
    return n;
}

const char *runcheck_text(const struct model *m, size_t k, char *buf, size_t size)
{
    const struct run_rec *r = &m->runs[k];
    size_t len = 0;
    buf[0] = 0;
    if (r->busy_machine)
        len += (size_t)snprintf(buf, size, "busy machine: waited for a CPU %.0f %% of the time",
                                100 * r->wait_share);
    if (r->outlier && len < size)
        snprintf(buf + len, size - len, "%soutlier: %.2fx the median busy time", len ? "; " : "",
                 r->busy_ratio);
    return buf;
}

/* Append ", run K: what" for the first few runs that flag says, then "; see Runs)". */
static void list_runs(const struct model *m, int busy, char *buf, size_t size, size_t len)
{
    size_t shown = 0;
    for (size_t k = 0; k < m->nruns && len < size; k++) {
        const struct run_rec *r = &m->runs[k];
        if (!(busy ? r->busy_machine : r->outlier))
            continue;
        if (shown == 3) {
            len += (size_t)snprintf(buf + len, size - len, ", ...");
            break;
        }
        if (busy)
            len += (size_t)snprintf(buf + len, size - len, "%srun %zu: waited for a CPU %.0f %%",
                                    shown ? ", " : " (", k + 1, 100 * r->wait_share);
        else
            len += (size_t)snprintf(buf + len, size - len, "%srun %zu: %.2fx the median",
                                    shown ? ", " : " (", k + 1, r->busy_ratio);
        shown++;
    }
    if (shown && len < size)
        snprintf(buf + len, size - len, "; see Runs)");
}

const char *runcheck_busy_summary(const struct model *m, char *buf, size_t size)
{
    size_t known = 0;
    for (size_t k = 0; k < m->nruns; k++)
        known += isfinite(m->runs[k].wait_share);
    if (!known) {
        snprintf(buf, size,
                 "unknown (these runs do not say how long their threads waited for a "
                 "CPU)");
        return buf;
    }
    size_t n = runcheck_busy_runs(m);
    size_t len = n ? (size_t)snprintf(buf, size, "%zu of %zu", n, known)
                   : (size_t)snprintf(buf, size,
                                      "none of %zu (threads waited for a CPU under %.0f "
                                      "%% of the time)",
                                      known, 100 * RUNCHECK_BUSY_SHARE);
    if (n)
        list_runs(m, 1, buf, size, len);
    return buf;
}

const char *runcheck_outlier_summary(const struct model *m, char *buf, size_t size)
{
    size_t nc = 0;
    for (size_t k = 0; k < m->nruns; k++)
        nc += comparable(&m->runs[k]);
    if (nc < RUNCHECK_OUTLIER_RUNS) {
        snprintf(buf, size, "cannot tell from %zu complete run%s (at least %d)", nc,
                 nc == 1 ? "" : "s", RUNCHECK_OUTLIER_RUNS);
        return buf;
    }
    size_t n = runcheck_outlier_runs(m);
    size_t len =
        n ? (size_t)snprintf(buf, size, "%zu of %zu (busy time far from the median run's", n, nc)
          : (size_t)snprintf(buf, size, "none of %zu (busy time near the median run's)", nc);
    if (n) {
        list_runs(m, 0, buf, size, len);
        /* list_runs opened its own bracket: "(busy time ... (run 2: ...; see Runs)" reads
           badly, so the first bracket closes here when it added any. */
        char *second = strstr(buf, " (run");
        if (second)
            second[0] = ':', second[1] = ' ';
    }
    return buf;
}
