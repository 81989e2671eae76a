/*
 * flat.c - the terminal summary: a flat profile of the top regions in the spirit of gprof's
 * and uftrace's reports, printed after the workbook is written; for a comparison (--baseline),
 * the regions that changed significantly instead.
 */
#include "model/compare.h"
#include "out/flat.h"
#include "model/model.h"
#include "model/runcheck.h"
#include "model/tables.h"
#include "base/util.h"
#include "out/workbook.h"
#include "model/shortname.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Print a time with its own unit (or --unit's), as the workbook shows it; "-" when unknown. */
static void cell(FILE *out, double ns, const char *unit, int width)
{
    char buf[64];
    fprintf(out, " %*s", width, time_text(buf, sizeof buf, ns, unit));
}

/* Columns a region name may take on the terminal. */
#define NAME_COLUMNS 60

/* The region name for a terminal: as text_visible shows it, fitted to NAME_COLUMNS by its
   distinguishing tail (shortname_fit). */
static void name_cell(FILE *out, const char *name)
{
    /* An ESC in a region id must not reach the terminal as one. */
    char *v = text_visible(name, strlen(name), 1);
    char *fit = shortname_fit(v, NAME_COLUMNS);
    fputs(fit, out);
    free(fit);
    free(v);
}

/* The flat profile: the Call cost table's top rows, a few of its columns. */
void flat_print(FILE *out, const struct model *m, const struct report_info *ri)
{
    struct table t;
    table_open(&t, m, TABLE_CALLCOST);
    size_t n = t.nrows;
    size_t top = n < ri->top ? n : ri->top;
    struct cell(*rows)[CC_NCOLS] = xmalloc((top ? top : 1) * sizeof *rows);
    size_t shortened = 0, inlined = 0;
    for (size_t i = 0; i < top; i++)
        table_row(&t, i, rows[i]);

    fprintf(out, "%zu run%s, %zu thread%s, %llu events, %zu regions\n", m->nruns,
            m->nruns == 1 ? "" : "s", m->nthreads, m->nthreads == 1 ? "" : "s",
            (unsigned long long)m->events, n);
    if (top > 0) {
        fprintf(out, "\n  total%%  %10s  %10s  %10s  %10s  %10s  %10s  region\n", "total", "self",
                "calls", "mean", "median", "p99");
    }
    for (size_t i = 0; i < top; i++) {
        const struct cell *c = rows[i];
        /* From the total itself, not the Total % column: 100 * (total / busy) can differ
           from 100 * total / busy in the last bit, and the terminal shows what it always did. */
        double pct = t.busy > 0 ? 100 * cell_number(&c[CC_TOTAL]) / t.busy : NAN;
        if (isfinite(pct))
            fprintf(out, "  %6.2f", pct);
        else
            fprintf(out, "  %6s", "-");
        cell(out, cell_number(&c[CC_TOTAL]), ri->unit, 11);
        cell(out, cell_number(&c[CC_SELF]), ri->unit, 11);
        if (c[CC_CALLS].kind == CELL_NONE) /* a left-out function's: unknown, not 0 */
            fprintf(out, " %11s", "not counted");
        else
            fprintf(out, " %11llu", (unsigned long long)c[CC_CALLS].i);
        cell(out, cell_number(&c[CC_MEAN]), ri->unit, 11);
        cell(out, cell_number(&c[CC_MEDIAN]), ri->unit, 11);
        cell(out, cell_number(&c[CC_P99]), ri->unit, 11);
        fputs("  ", out);
        name_cell(out, c[CC_SHORT].s);
        const struct region *r = &m->regions[t.order[i]];
        if (r->inlined && !r->left_out) { /* its calls with little time: the footnote says why */
            fputs(" *", out);
            inlined++;
        }
        fputc('\n', out);
        shortened += strcmp(c[CC_SHORT].s, c[CC_REGION].s) != 0;
    }
    if (n > top)
        fprintf(out, "  ... %zu more regions in the workbook\n", n - top);
    if (inlined)
        fprintf(out, "  * %s\n", MODEL_INLINED_TEXT);
    int sampled = 0;
    for (size_t k = 0; k < m->nruns; k++)
        sampled |= m->runs[k].period_ns > 0;
    if (top > 0 && sampled) /* total < calls x mean for a function that waits: say why */
        fprintf(out, "  (sampled timing: total and self are CPU time; mean, median and p99 are a\n"
                     "  call's wall time where its calls were timed, else its CPU time)\n");
    if (shortened)
        fprintf(out, "  (C++ names shortened: <…> and (…) stand for template arguments and "
                     "parameters, the return type is left out; the Call cost sheet has each full "
                     "name beside its short one)\n");
    free(rows);
    table_close(&t);
}

/* A ratio or bound with three decimals, or "-" when unknown. */
static void ratio_text(char *buf, size_t size, double v)
{
    if (isfinite(v))
        snprintf(buf, size, "%.3f", v);
    else
        snprintf(buf, size, "-");
}

/* Names of the regions with verdict v, comma-separated, at most top of them. */
static void list_regions(FILE *out, const struct comparison *c, enum compare_verdict v,
                         const char *what, size_t count, size_t top)
{
    if (count == 0)
        return;
    fprintf(out, "%s (%zu): ", what, count);
    size_t shown = 0;
    for (size_t i = 0; i < c->nrows && shown < top; i++) {
        if (c->rows[i].verdict != v)
            continue;
        fputs(shown ? ", " : "", out);
        name_cell(out, c->rows[i].display);
        shown++;
    }
    if (count > shown)
        fprintf(out, ", ... %zu more in the workbook", count - shown);
    fputc('\n', out);
}

/* The comparison: counts, the geometric mean, then the regions that changed significantly. */
void flat_print_compare(FILE *out, const struct comparison *c, const struct report_info *ri)
{
    fprintf(out,
            "baseline: %zu run%s, new: %zu run%s; %zu region%s in both, %zu added, %zu removed\n",
            c->nbase, c->nbase == 1 ? "" : "s", c->nnew, c->nnew == 1 ? "" : "s", c->nboth,
            c->nboth == 1 ? "" : "s", c->added, c->removed);
    if (isfinite(c->geomean)) {
        fprintf(out,
                "geometric-mean ratio (new / baseline): %.4f over %zu region%s, 95%% interval ",
                c->geomean, c->ngeomean, c->ngeomean == 1 ? "" : "s");
        if (isfinite(c->geomean_low) && isfinite(c->geomean_high))
            fprintf(out, "[%.4f, %.4f]: ", c->geomean_low, c->geomean_high);
        else
            fprintf(out, "[-, -]: ");
        /* A change is named only when the interval leaves 1 out: a point estimate of -7.87 %
           from two sets of the same build reads as a finding when it is not one. */
        if (c->geomean_verdict == VERDICT_SAME)
            fprintf(out, "no significant change\n");
        else
            fprintf(out, "%s (%+.2f%%)\n", compare_verdict_name(c->geomean_verdict),
                    100 * (c->geomean - 1));
    }
    size_t changed = c->faster + c->slower;
    char rule[160];
    snprintf(rule, sizeof rule,
             "(Benjamini-Hochberg adjusted p < %g, and the median total time per run moved by "
             "more than %g%%)",
             c->opt.alpha, 100 * c->opt.noise);
    if (changed == 0) {
        fprintf(out, "\nno region changed significantly\n%s\n", rule);
    } else {
        fprintf(out, "\n%zu region%s changed significantly: %zu slower, %zu faster\n%s\n", changed,
                changed == 1 ? "" : "s", c->slower, c->faster, rule);
        fprintf(out, "\n  %-7s %9s %8s  %-18s %10s %12s %12s  region\n", "verdict", "change",
                "ratio", "95% interval", "adj. p", "baseline", "new");
        fprintf(out, "  %-7s %9s %8s  %-18s %10s %12s %12s\n", "", "", "", "", "", "median",
                "median");
        size_t shown = 0;
        for (size_t i = 0; i < c->nrows && shown < ri->top; i++) {
            const struct compare_row *r = &c->rows[i];
            if (r->verdict != VERDICT_FASTER && r->verdict != VERDICT_SLOWER)
                continue;
            char lo[32], hi[32], interval[72], ratio[32];
            ratio_text(ratio, sizeof ratio, r->ratio);
            ratio_text(lo, sizeof lo, r->ratio_low);
            ratio_text(hi, sizeof hi, r->ratio_high);
            snprintf(interval, sizeof interval, "[%s, %s]", lo, hi);
            fprintf(out, "  %-7s", compare_verdict_name(r->verdict));
            if (isfinite(r->change))
                fprintf(out, " %+8.2f%%", 100 * r->change);
            else
                fprintf(out, " %9s", "-");
            fprintf(out, " %8s  %-18s %10.3g", ratio, interval, r->q);
            cell(out, r->base_median, ri->unit, 12);
            cell(out, r->new_median, ri->unit, 12);
            fputs("  ", out);
            name_cell(out, r->display);
            fputc('\n', out);
            shown++;
        }
        if (changed > shown)
            fprintf(out, "  ... %zu more in the workbook's Comparison sheet\n", changed - shown);
    }
    if (c->added || c->removed)
        fputc('\n', out);
    list_regions(out, c, VERDICT_ADDED, "added", c->added, ri->top);
    list_regions(out, c, VERDICT_REMOVED, "removed", c->removed, ri->top);
}

/* The mostly idle threads: how many, then the first top of them. */
void flat_print_idle(FILE *out, const struct model *m, size_t top)
{
    size_t idle = 0, known = 0;
    for (size_t i = 0; i < m->nthreads; i++) {
        int k = model_thread_idle(&m->threads[i]);
        known += k >= 0;
        idle += k > 0;
    }
    if (idle == 0)
        return;
    fprintf(out,
            "\nmostly idle: %zu of %zu thread%s used the CPU less than %.0f%% of their wall time "
            "(waiting, not working; see the Threads sheet)\n",
            idle, known, known == 1 ? "" : "s", 100 * MODEL_IDLE_SHARE);
    size_t shown = 0;
    for (size_t i = 0; i < m->nthreads && shown < top; i++) {
        const struct thread_rec *t = &m->threads[i];
        if (model_thread_idle(t) <= 0)
            continue;
        char cpu[32], wall[32];
        time_text(cpu, sizeof cpu, t->cpu_ns, NULL);
        time_text(wall, sizeof wall, t->wall_ns, NULL);
        fprintf(out, "  run %zu, thread %u", t->run + 1, t->number);
        if (t->name[0]) {
            fputs(" (", out);
            name_cell(out, t->name);
            fputc(')', out);
        }
        fprintf(out, ": CPU %s of %s wall (%.1f%%)\n", cpu, wall, 100 * t->cpu_ns / t->wall_ns);
        shown++;
    }
    if (idle > shown)
        fprintf(out, "  ... %zu more in the Threads sheet\n", idle - shown);
}

/* The runs measured on a busy machine, and the outlier runs (runcheck.h): how many, then the
   first top of each. */
void flat_print_runchecks(FILE *out, const struct model *m, size_t top)
{
    size_t busy = runcheck_busy_runs(m), outl = runcheck_outlier_runs(m);
    if (busy)
        fprintf(out,
                "\nbusy machine: in %zu of %zu run%s the threads waited for a CPU over %.0f%% of "
                "the time they wanted one: their times include waiting (see the Runs sheet)\n",
                busy, m->nruns, m->nruns == 1 ? "" : "s", 100 * RUNCHECK_BUSY_SHARE);
    for (size_t k = 0, shown = 0; busy && k < m->nruns && shown < top; k++)
        if (m->runs[k].busy_machine) {
            fprintf(out, "  run %zu waited %.1f%% of the time\n", k + 1,
                    100 * m->runs[k].wait_share);
            shown++;
        }
    if (outl)
        fprintf(out,
                "\noutliers: %zu of %zu runs took a busy time far from the median run's (see the "
                "Runs sheet)\n",
                outl, m->nruns);
    for (size_t k = 0, shown = 0; outl && k < m->nruns && shown < top; k++)
        if (m->runs[k].outlier) {
            fprintf(out, "  run %zu took %.2fx the median\n", k + 1, m->runs[k].busy_ratio);
            shown++;
        }
}

/* The runs that crashed: how many, then the first top of them with their signals. */
void flat_print_crashes(FILE *out, const struct model *m, size_t top)
{
    size_t crashed = model_crashed_runs(m), shown = 0;
    if (crashed == 0)
        return;
    fprintf(out, "\ncrashed: %zu of %zu run%s ended by a fatal signal (see the Runs sheet)\n",
            crashed, m->nruns, m->nruns == 1 ? "" : "s");
    for (size_t k = 0; k < m->nruns && shown < top; k++) {
        if (!m->runs[k].crash)
            continue;
        char line[256];
        model_run_crash_text(m, k, line, sizeof line);
        char *v = text_visible(line, strlen(line), 1); /* a thread name's ESC stays text */
        fprintf(out, "  %s\n", v);
        free(v);
        shown++;
    }
    if (crashed > shown)
        fprintf(out, "  ... %zu more in the Runs sheet\n", crashed - shown);
}
