/*
 * charts.c - the report's gnuplot charts: which charts, each one's data computed from the
 * model (or the comparison), drawn by the gnuplot engine (gnuplot.c) in a private work folder,
 * and copied beside the workbook once all is well.
 */
#define _GNU_SOURCE /* mkdtemp */
#include "out/charts.h"
#include "out/gnuplot.h"
#include "base/atomicfile.h"
#include "base/util.h"
#include "fileutil.h"
#include "hash.h"
#include "model/compare.h"
#include "model/flame.h"
#include "model/model.h"
#include "model/tables.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PROF_TEMPLATES_DIR
#define PROF_TEMPLATES_DIR "templates"
#endif

/* Past this many runs the trend chart shows each region's median and p10-p90 band per window
   of runs (trendband.gp) instead of every run's point: 1000 runs of 15 regions are a blur. */
#define TREND_BAND_RUNS 30
/* About this many windows of runs in the band chart. */
#define TREND_WINDOWS 25
/* The trend charts draw this many regions at most, each in a colour of its own (the
   templates have 10): more lines, with colours repeating, are a tangle nobody can read. */
#define TREND_LINES 8

/* ---- the report's charts ---- */

/* The report's charts, prepared one by one, drawn together (gnuplot_draw). */
struct chart_plan {
    struct chart_set *ch;
    size_t n;
    struct gnuplot_chart p[CHARTS_MAX];
    char *names[CHARTS_MAX], *titles[CHARTS_MAX];
    int ret[CHARTS_MAX];
    struct rep_error e[CHARTS_MAX];
};

/* Prepare one chart for the work folder (its data file written), to be drawn by gnuplot_draw. */
static void plan_add(struct chart_plan *bt, const struct chart_env *env, const char *name,
                     const char *title, const char *ylabel, const struct chart_table *t)
{
    if (bt->n == CHARTS_MAX)
        return;
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%s/%s", bt->ch->work, name);
    struct chart_request req = {name, base, title, ylabel, t};
    size_t i = bt->n++;
    bt->names[i] = xstrdup(name);
    bt->titles[i] = xstrdup(title);
    bt->ret[i] = gnuplot_prepare(env, &req, &bt->p[i], &bt->e[i]);
}

/* Draw the prepared charts (gnuplot_draw: one gnuplot per CPU) and remember those drawn, in
   order; the first failure is said in ch->note. */
static void plan_draw(struct chart_plan *bt, const struct chart_env *env)
{
    struct chart_set *ch = bt->ch;
    struct gnuplot_chart ready[CHARTS_MAX] = {{0}};
    size_t slot[CHARTS_MAX], n = 0;
    for (size_t i = 0; i < bt->n; i++)
        if (bt->ret[i] == 0) {
            ready[n] = bt->p[i];
            slot[n++] = i;
        }
    int ret[CHARTS_MAX];
    struct rep_error e[CHARTS_MAX];
    if (gnuplot_draw(env, ready, n, ret, e) && n > 0) {
        /* No gnuplot at all: one note for the lot, not one chart's failure. */
        size_t len = strlen(e[0].msg) + 64;
        ch->note = xmalloc(len);
        snprintf(ch->note, len, "no gnuplot charts: %s", e[0].msg);
    }
    for (size_t k = 0; k < n; k++) {
        bt->ret[slot[k]] = ret[k];
        if (ret[k] != 0)
            bt->e[slot[k]] = e[k];
    }
    for (size_t i = 0; i < bt->n; i++) {
        if (bt->ret[i] != 0 && !ch->note) {
            size_t len = strlen(bt->e[i].msg) + strlen(bt->names[i]) + 64;
            ch->note = xmalloc(len);
            snprintf(ch->note, len, "gnuplot chart '%s' not drawn: %s", bt->names[i], bt->e[i].msg);
        }
        if (bt->ret[i] == 0) {
            size_t len = strlen(bt->p[i].base) + 5;
            ch->pngs[ch->n] = xmalloc(len);
            snprintf(ch->pngs[ch->n], len, "%s.png", bt->p[i].base);
            ch->titles[ch->n] = bt->titles[i];
            ch->bases[ch->n] = bt->names[i];
            ch->n++;
        } else {
            free(bt->titles[i]);
            free(bt->names[i]);
        }
        gnuplot_release(&bt->p[i]);
    }
}

/*
 * The trend of many runs: for each of the top regions (rows at[0..top) of the Call cost table tb)
 * and each window of about nruns / TREND_WINDOWS consecutive runs, the median, 10th and 90th
 * percentiles (as Excel's PERCENTILE.INC) of its mean cost per call in the window's runs
 * where it ran, at the window's middle run number; NaN for a window where it never ran.
 */
static void trend_band_chart(struct chart_plan *ch, const struct chart_env *env,
                             const struct table *tb, const size_t *at, size_t top, size_t nruns,
                             struct unit u, const struct chart_options *o)
{
    size_t width = (nruns + TREND_WINDOWS - 1) / TREND_WINDOWS;
    size_t windows = (nruns + width - 1) / width;
    const char **labels = xcalloc(top * windows, sizeof *labels);
    double *v = xcalloc(top * windows * 4, sizeof *v);
    size_t *ends = xcalloc(top, sizeof *ends);
    size_t n = 0;
    for (size_t i = 0; i < top; i++) {
        struct cell c[CC_NCOLS];
        table_row(tb, at[i], c);
        for (size_t w = 0; w < windows; w++) {
            size_t first = w * width, last = first + width < nruns ? first + width : nruns;
            struct dist d;
            dist_init(&d);
            for (size_t run = first; run < last; run++) {
                double x = table_run_mean(tb, at[i], run);
                if (isfinite(x))
                    dist_add(&d, x / u.ns);
            }
            labels[n] = c[CC_SHORT].s;
            /* Runs are numbered from 1: the window's runs are first + 1 .. last. */
            v[n * 4] = (double)(first + 1 + last) / 2;
            v[n * 4 + 1] = dist_quantile(&d, 0.5);
            v[n * 4 + 2] = dist_quantile(&d, 0.1);
            v[n * 4 + 3] = dist_quantile(&d, 0.9);
            dist_release(&d);
            n++;
        }
        ends[i] = n;
    }
    static const char *const cols[] = {"run", "median", "p10", "p90"};
    struct chart_table t = {n, 4, labels, v, cols, ends, top};
    char title[512], ylabel[64];
    snprintf(title, sizeof title,
             "%s: mean cost per call over %zu runs, top %zu regions (median and p10-p90 of "
             "each %zu runs)",
             o->title ? o->title : "profreport", nruns, top, width);
    snprintf(ylabel, sizeof ylabel, "cost per call (%s)", u.name);
    plan_add(ch, env, "trendband", title, ylabel, &t);
    free(labels);
    free(v);
    free(ends);
}

/* The four charts of the top regions (the Call cost table's top rows): cost per call, calls,
   distribution, trend. A left-out function's row (its calls not counted, FORMAT.md 1.4) has
   no calls and no cost per call to draw: it is in none of them, rather than a bar at 0. */
static void top_region_charts(struct chart_plan *ch, const struct chart_env *env,
                              const struct model *m, const struct chart_options *o)
{
    struct table tb;
    table_open(&tb, m, TABLE_CALLCOST);
    size_t top = tb.nrows < o->top ? tb.nrows : o->top;
    if (top == 0) {
        table_close(&tb);
        return;
    }
    struct cell(*rows)[CC_NCOLS] = xmalloc(top * sizeof *rows);
    size_t *at = xmalloc(top * sizeof *at); /* each chart row's row of the table */
    size_t counted = 0;
    for (size_t i = 0; i < top; i++) {
        table_row(&tb, i, rows[counted]);
        if (rows[counted][CC_CALLS].kind != CELL_NONE)
            at[counted++] = i;
    }
    top = counted;
    if (top == 0) {
        free(rows);
        free(at);
        table_close(&tb);
        return;
    }
    const char **labels = xcalloc(top * (m->nruns + 1), sizeof *labels);
    double *v = xcalloc(top * (m->nruns + 1) * 5, sizeof *v);
    size_t *ends = xcalloc(top, sizeof *ends);
    /* The unit of the largest mean: every mean then reads as a plain number under 1000 (0.05,
       12, 340), never as 100m of one unit or 1M of another. */
    double largest = 0;
    for (size_t i = 0; i < top; i++)
        if (cell_number(&rows[i][CC_MEAN]) > largest)
            largest = cell_number(&rows[i][CC_MEAN]);
    struct unit u = unit_for(largest, o->unit);
    char title[512], ylabel[64];
    const char *prefix = o->title ? o->title : "profreport";

    /* Call cost: the mean of the run means with its 95 % interval across runs (from two
       runs on), else the mean of all calls. */
    for (size_t i = 0; i < top; i++) {
        const struct cell *c = rows[i];
        int spread = c[CC_RUNS].i >= 2;
        double run_mean = cell_number(&c[CC_RUN_MEAN]), ci95 = cell_number(&c[CC_CI95]);
        labels[i] = c[CC_SHORT].s;
        v[i * 3] = (spread ? run_mean : cell_number(&c[CC_MEAN])) / u.ns;
        v[i * 3 + 1] = spread ? (run_mean - ci95) / u.ns : NAN;
        v[i * 3 + 2] = spread ? (run_mean + ci95) / u.ns : NAN;
    }
    static const char *const cost_cols[] = {"mean", "low", "high"};
    struct chart_table t = {top, 3, labels, v, cost_cols, NULL, 0};
    snprintf(title, sizeof title, "%s: mean cost per call (95%% interval across runs)", prefix);
    snprintf(ylabel, sizeof ylabel, "cost per call (%s)", u.name);
    plan_add(ch, env, "callcost", title, ylabel, &t);

    /* Hit count. */
    for (size_t i = 0; i < top; i++)
        v[i] = cell_number(&rows[i][CC_CALLS]);
    static const char *const hit_cols[] = {"calls"};
    struct chart_table th = {top, 1, labels, v, hit_cols, NULL, 0};
    snprintf(title, sizeof title, "%s: calls per region", prefix);
    plan_add(ch, env, "hitcount", title, "calls", &th);

    /* Distribution of per-call costs: the row's min, median and max, and its quartiles. A
       region whose short calls were only counted has none (model_cost_row): left out, and
       the title says how many, rather than an empty row. */
    size_t nd = 0, unmeasured = 0;
    for (size_t i = 0; i < top; i++) {
        const struct cell *c = rows[i];
        if (c[CC_CALLS].i && isnan(cell_number(&c[CC_MEDIAN]))) {
            unmeasured++;
            continue;
        }
        double q[5] = {cell_number(&c[CC_MIN]), table_cost_quantile(&tb, at[i], 0.25),
                       cell_number(&c[CC_MEDIAN]), table_cost_quantile(&tb, at[i], 0.75),
                       cell_number(&c[CC_MAX])};
        labels[nd] = c[CC_SHORT].s;
        for (int j = 0; j < 5; j++)
            v[nd * 5 + j] = c[CC_CALLS].i ? q[j] / u.ns : NAN;
        nd++;
    }
    static const char *const dist_cols[] = {"min", "p25", "median", "p75", "max"};
    struct chart_table td = {nd, 5, labels, v, dist_cols, NULL, 0};
    if (unmeasured) /* short enough for the picture's width: its end was cut off */
        snprintf(title, sizeof title, "%s: cost of one call (%zu of %zu only counted, not drawn)",
                 prefix, unmeasured, top);
    else
        snprintf(title, sizeof title, "%s: distribution of the cost of one call", prefix);
    if (nd)
        plan_add(ch, env, "distribution", title, ylabel, &td);

    size_t lines = top < TREND_LINES ? top : TREND_LINES;
    if (m->nruns > TREND_BAND_RUNS) {
        trend_band_chart(ch, env, &tb, at, lines, m->nruns, u, o);
    } else {
        /* Trend: each region's mean per run, one block per region. */
        size_t nrows = 0;
        for (size_t i = 0; i < lines; i++) {
            for (size_t run = 0; run < m->nruns; run++) {
                labels[nrows] = rows[i][CC_SHORT].s;
                v[nrows * 2] = (double)(run + 1);
                v[nrows * 2 + 1] = table_run_mean(&tb, at[i], run) / u.ns;
                nrows++;
            }
            ends[i] = nrows;
        }
        static const char *const trend_cols[] = {"run", "mean"};
        struct chart_table tt = {nrows, 2, labels, v, trend_cols, ends, lines};
        snprintf(title, sizeof title, "%s: mean cost per call, run by run (top %zu regions)",
                 prefix, lines);
        plan_add(ch, env, "trend", title, ylabel, &tt);
    }

    free(labels);
    free(v);
    free(ends);
    free(rows);
    free(at);
    table_close(&tb);
}

/* A warm colour (0xRRGGBB) for a region name, the same for every context of the region:
   flame graphs' usual palette, reds to yellows. */
static double flame_colour(const char *name, size_t len)
{
    uint64_t h = prof_hash(name, len);
    unsigned r = 205 + (unsigned)(h % 51), g = (unsigned)((h >> 16) % 231),
             b = (unsigned)((h >> 32) % 56);
    return (double)(r << 16 | g << 8 | b);
}

/* The flame graph of the call paths (all threads and runs merged): one rectangle per calling
   context as wide as its inclusive time, callers above callees. */
static void flame_chart(struct chart_plan *ch, const struct chart_env *env, const struct model *m,
                        const struct chart_options *o)
{
    const struct cct *t = model_paths(m);
    if (!t)
        return;
    struct flame f;
    flame_layout(t, FLAME_MIN_WIDTH, FLAME_MAX_DEPTH, &f);
    if (f.n > 0) {
        char **labels = xcalloc(f.n, sizeof *labels);
        double *v = xcalloc(f.n * 4, sizeof *v);
        for (size_t i = 0; i < f.n; i++) {
            const struct flame_rect *r = &f.rects[i];
            uint32_t name = t->nodes[r->node].name;
            size_t region = model_find(m, t->names[name], t->name_lens[name]);
            labels[i] = region != SIZE_MAX ? xstrdup(model_short(&m->regions[region]))
                                           : region_display(t->names[name], t->name_lens[name]);
            v[i * 4] = r->x0;
            v[i * 4 + 1] = r->x1;
            v[i * 4 + 2] = r->depth;
            v[i * 4 + 3] = flame_colour(t->names[name], t->name_lens[name]);
        }
        static const char *const cols[] = {"x0", "x1", "depth", "colour"};
        struct chart_table tb = {f.n, 4, (const char *const *)labels, v, cols, NULL, 0};
        char title[512], xlabel[256];
        snprintf(title, sizeof title, "%s: flame graph of the call paths",
                 o->title ? o->title : "profreport");
        /* Under the axis: a long title would run off the picture. */
        int len = snprintf(xlabel, sizeof xlabel,
                           "share of all time in top-level regions, threads and runs merged");
        if (f.dropped && len > 0 && (size_t)len < sizeof xlabel)
            snprintf(xlabel + len, sizeof xlabel - (size_t)len,
                     "; %zu call paths under %g%% wide or over %d deep not drawn", f.dropped,
                     100 * FLAME_MIN_WIDTH, FLAME_MAX_DEPTH);
        plan_add(ch, env, "flame", title, xlabel, &tb);
        for (size_t i = 0; i < f.n; i++)
            free(labels[i]);
        free(labels);
        free(v);
    }
    flame_release(&f);
}

/* Self time by region: the top regions by time spent in themselves, whatever --sort says,
   with their share of all self time. */
static void self_time_chart(struct chart_plan *ch, const struct chart_env *env,
                            const struct model *m, const struct chart_options *o)
{
    size_t n;
    size_t *rank = model_ranked_by(m, SORT_SELF, &n);
    size_t top = n < o->top ? n : o->top;
    if (top > 0) {
        const char **labels = xcalloc(top, sizeof *labels);
        double *v = xcalloc(top * 2, sizeof *v);
        struct unit u = unit_for(m->regions[rank[0]].self_ns, o->unit);
        for (size_t i = 0; i < top; i++) {
            const struct region *r = &m->regions[rank[i]];
            labels[i] = model_short(r);
            v[i * 2] = r->self_ns / u.ns;
            v[i * 2 + 1] = m->self_total_ns > 0 ? r->self_ns / m->self_total_ns : NAN;
        }
        static const char *const cols[] = {"self", "share"};
        struct chart_table t = {top, 2, labels, v, cols, NULL, 0};
        char title[512], ylabel[64];
        snprintf(title, sizeof title, "%s: self time by region (share of all self time)",
                 o->title ? o->title : "profreport");
        snprintf(ylabel, sizeof ylabel, "self time (%s)", u.name);
        plan_add(ch, env, "selftime", title, ylabel, &t);
        free(labels);
        free(v);
    }
    free(rank);
}

/* The comparison's chart: the biggest changes (in percent) with their 95 % intervals. */
static void compare_chart(struct chart_plan *ch, const struct chart_env *env,
                          const struct comparison *c, const struct chart_options *o)
{
    const char **labels = xcalloc(c->nboth + 1, sizeof *labels);
    double *v = xcalloc((c->nboth + 1) * 4, sizeof *v);
    size_t n = 0;
    /* Rows come biggest change first; regions on one side only have no ratio. */
    for (size_t i = 0; i < c->nrows && n < o->top; i++) {
        const struct compare_row *r = &c->rows[i];
        if (r->verdict == VERDICT_ADDED || r->verdict == VERDICT_REMOVED || !isfinite(r->ratio))
            continue;
        labels[n] = r->display;
        v[n * 4] = 100 * r->change;
        v[n * 4 + 1] = 100 * (r->ratio_low - 1);
        v[n * 4 + 2] = 100 * (r->ratio_high - 1);
        v[n * 4 + 3] = r->verdict == VERDICT_SLOWER ? 1 : r->verdict == VERDICT_FASTER ? -1 : 0;
        n++;
    }
    if (n) {
        static const char *const cols[] = {"change", "low", "high", "verdict"};
        struct chart_table t = {n, 4, labels, v, cols, NULL, 0};
        char title[512];
        snprintf(title, sizeof title, "%s: biggest changes, new runs against baseline",
                 o->title ? o->title : "profreport");
        plan_add(ch, env, "compare", title,
                 "change of the median total time per run, % (95% bootstrap interval)", &t);
    }
    free(labels);
    free(v);
}

/* Render the report's charts in a private work folder (see charts.h). */
void charts_make(struct chart_set *ch, const char *templates_dir, const struct model *m,
                 const struct comparison *c, const struct chart_options *o)
{
    memset(ch, 0, sizeof *ch);
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir)
        tmpdir = "/tmp";
    size_t len = strlen(tmpdir) + 24;
    char *w = xmalloc(len);
    snprintf(w, len, "%s/profreport-XXXXXX", tmpdir);
    if (!mkdtemp(w)) {
        free(w);
        ch->note = xstrdup("no gnuplot charts: cannot create a temporary folder");
        return;
    }
    ch->work = w;
    atomicfile_register_dir(w);
    /* No `gnuplot --version` first: a missing or broken gnuplot shows when drawing. */
    struct chart_env env = {templates_dir, NULL, ch->work, 30};
    struct chart_plan bt = {.ch = ch};
    if (c)
        compare_chart(&bt, &env, c, o);
    flame_chart(&bt, &env, m, o);
    self_time_chart(&bt, &env, m, o);
    top_region_charts(&bt, &env, m, o);
    plan_draw(&bt, &env);
}

/* Remove the work folder (made by mkdtemp: everything in it is ours) and free the set. */
void charts_release(struct chart_set *ch)
{
    if (ch->work)
        atomicfile_remove_dir(ch->work);
    for (size_t i = 0; i < ch->n; i++) {
        free(ch->pngs[i]);
        free(ch->titles[i]);
        free(ch->bases[i]);
    }
    free(ch->note);
    free(ch->work);
    memset(ch, 0, sizeof *ch);
}

/* ---- where the charts come from and go ---- */

/*
 * Where the templates are: --templates, then beside the program (a build tree), then the folder
 * of the PREFIX it was built for, then <bin>/../share/profreport/templates (an installed tree that
 * was moved or is still staged under DESTDIR).
 */
/*
 * Where the templates are: --templates, then beside the program (a build tree), then the folder
 * of the PREFIX it was built for, then <bin>/../share/profreport/templates (an installed tree that
 * was moved or is still staged under DESTDIR).
 */
char *charts_templates(const char *opt)
{
    if (opt)
        return xstrdup(opt);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    char *dir = dirname(exe);
    char cand[PATH_MAX + 48];
    /* build/profreport, a sanitizer build one folder deeper, a relocated install */
    static const char *const up[] = {"../templates", "../../templates",
                                     "../share/profreport/templates"};
    for (size_t i = 0; n > 0 && i < sizeof up / sizeof *up; i++) {
        if (i == 2 && access(PROF_TEMPLATES_DIR "/callcost.gp", R_OK) == 0)
            break; /* the PREFIX it was built for has them */
        snprintf(cand, sizeof cand, "%s/%s/callcost.gp", dir, up[i]);
        if (access(cand, R_OK) == 0) {
            snprintf(cand, sizeof cand, "%s/%s", dir, up[i]);
            return xstrdup(cand);
        }
    }
    return xstrdup(PROF_TEMPLATES_DIR);
}

/* <output without .xlsx>-charts. */
char *charts_dir_for(const char *output)
{
    size_t n = strlen(output);
    size_t stem = n > 5 && strcmp(output + n - 5, ".xlsx") == 0 ? n - 5 : n;
    char *dir = xmalloc(stem + 8);
    snprintf(dir, stem + 8, "%.*s-charts", (int)stem, output);
    return dir;
}

/* Each chart's PNG and SVG copied into dir. The folder is opened without following a link,
   and written relative to that descriptor: a link planted at its name (in a shared folder)
   leads nowhere we write. */
int charts_commit(const struct chart_set *ch, const char *dir, size_t *copied, struct rep_error *e)
{
    if (ch->n == 0)
        return 0;
    int err = prof_mkdirs(dir);
    if (err && err != ENOTDIR)
        return rep_fail(e, REP_ERR_OUTPUT, "cannot write charts to '%s': %s", dir, strerror(err));
    int fd = atomicfile_dir_open(dir, "charts", e);
    if (fd < 0)
        return -1;
    for (size_t i = 0; i < ch->n; i++)
        for (int k = 0; k < 2; k++) {
            char from[PATH_MAX], name[PATH_MAX];
            snprintf(from, sizeof from, "%s/%s.%s", ch->work, ch->bases[i], k ? "svg" : "png");
            snprintf(name, sizeof name, "%s.%s", ch->bases[i], k ? "svg" : "png");
            if (atomicfile_copy_at(from, fd, dir, name, e) != 0) {
                close(fd);
                return -1;
            }
            (*copied)++;
        }
    close(fd);
    return 0;
}
