/*
 * flat.c - the terminal summary: a flat profile of the top regions in the spirit of gprof's
 * and uftrace's reports, printed after the workbook is written.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Print a value in the unit, or "-" when unknown. */
static void cell(FILE *out, double ns, struct unit u, int width)
{
    if (isfinite(ns))
        fprintf(out, " %*.*f", width, 3, ns / u.ns);
    else
        fprintf(out, " %*s", width, "-");
}

/* The region name for a terminal: control characters shown as '?', cut to width. */
static void name_cell(FILE *out, const char *name)
{
    size_t cols = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p && cols < 60; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            fputc('?', out);
            cols++;
        } else {
            fputc(*p, out);
            if ((*p & 0xc0) != 0x80)
                cols++;
        }
    }
    if (strlen(name) > 0 && cols >= 60)
        fputs("...", out);
}

/* The flat profile. */
void flat_print(FILE *out, struct model *m, const struct report_info *ri)
{
    size_t n;
    size_t *rank = model_ranked(m, &n);
    double largest = 0, busy = 0;
    for (size_t i = 0; i < n; i++)
        if (m->regions[rank[i]].outer_ns > largest)
            largest = m->regions[rank[i]].outer_ns;
    for (size_t i = 0; i < m->nthreads; i++)
        busy += m->threads[i].busy_ns;
    struct unit total = unit_for(largest, ri->unit);
    size_t top = n < ri->top ? n : ri->top;
    double typical = top ? dist_mean(&m->regions[rank[top / 2]].cost) : 0;
    struct unit cost = unit_for(isfinite(typical) ? typical : 0, ri->unit);

    fprintf(out, "%zu run%s, %zu thread%s, %llu events, %zu regions\n", m->nruns,
            m->nruns == 1 ? "" : "s", m->nthreads, m->nthreads == 1 ? "" : "s",
            (unsigned long long)m->events, n);
    if (top == 0) {
        free(rank);
        return;
    }
    fprintf(out, "\n  total%%  %10s  %10s  %10s  %10s  %10s  %10s  region\n", "total", "self",
            "calls", "mean", "median", "p99");
    fprintf(out, "         %10s  %10s  %10s  %10s  %10s  %10s\n", total.name, total.name, "",
            cost.name, cost.name, cost.name);
    for (size_t i = 0; i < top; i++) {
        struct region *r = &m->regions[rank[i]];
        double pct = busy > 0 ? 100 * r->outer_ns / busy : NAN;
        if (isfinite(pct))
            fprintf(out, "  %6.2f", pct);
        else
            fprintf(out, "  %6s", "-");
        cell(out, r->outer_ns, total, 11);
        cell(out, r->self_ns, total, 11);
        fprintf(out, " %11llu", (unsigned long long)r->cost.n);
        cell(out, dist_mean(&r->cost), cost, 11);
        cell(out, dist_quantile(&r->cost, 0.5), cost, 11);
        cell(out, dist_quantile(&r->cost, 0.99), cost, 11);
        fputs("  ", out);
        name_cell(out, r->display);
        fputc('\n', out);
    }
    if (n > top)
        fprintf(out, "  ... %zu more regions in the workbook\n", n - top);
    free(rank);
}
