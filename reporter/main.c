/*
 * main.c - the profreport command: read run files, write the workbook and chart images,
 * print a flat profile. Options and exit codes are documented in profreport(1).
 */
#define _GNU_SOURCE /* fopencookie */
#include "atomicfile.h"
#include "charts.h"
#include "compare.h"
#include "exitcode.h"
#include "export.h"
#include "flat.h"
#include "input.h"
#include "model.h"
#include "tables.h"
#include "util.h"
#include "workbook.h"

#include <profreport.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef PROF_TEMPLATES_DIR
#define PROF_TEMPLATES_DIR "/usr/local/share/profreport/templates"
#endif

/* Input larger than this gets a progress bar (on a terminal). */
#define PROGRESS_BYTES (32u << 20)

static const char usage_text[] =
    "usage: profreport [OPTIONS] PATH...\n"
    "       profreport [OPTIONS] --baseline OLD_PATH... -- NEW_PATH... [OPTIONS]\n"
    "Merge profreport run files (or folders of them) into an XLSX workbook with charts.\n"
    "With --baseline, compare the runs named up to '--' with the runs after it.\n"
    "\n"
    "  -o, --output FILE      workbook to write (default report.xlsx), replaced atomically\n"
    "      --charts-dir DIR   where PNG and SVG charts go (default: beside the output,\n"
    "                         <output>-charts/)\n"
    "      --no-gnuplot       no gnuplot charts (the workbook keeps its native charts)\n"
    "      --templates DIR    gnuplot templates to use instead of the installed ones\n"
    "      --top N            regions in charts and the terminal summary (default 15)\n"
    "      --unit UNIT        auto, s, ms, us or ns (default auto)\n"
    "      --include GLOB     report only regions whose id matches (repeatable)\n"
    "      --exclude GLOB     leave out regions whose id matches (repeatable)\n"
    "      --title TEXT       title of the report and its charts\n"
    "      --trace FILE       also write a Chrome trace (JSON) of every region instance\n"
    "      --folded FILE      also write folded stacks for flame graphs (self ns per path)\n"
    "      --callgrind FILE   also write the call paths in callgrind format (ns)\n"
    "      --csv DIR          also write the statistics as CSV files into DIR\n"
    "      --json FILE        also write the statistics as one JSON file\n"
    "  -q, --quiet            no summary or warnings on the terminal, errors only\n"
    "      --baseline OLD... --\n"
    "                         compare the OLD runs (files or folders) with the runs after\n"
    "                         '--': a Comparison sheet, the regions that changed\n"
    "      --noise PCT        comparison: smaller changes are not reported (default 1%)\n"
    "      --seed N           comparison: seed of the bootstrap intervals (default 1)\n"
    "      --version          print the version and exit\n"
    "  -h, --help             print this help and exit\n"
    "\n"
    "Exit status: 0 report written, 2 bad usage, 3 no readable run, 4 output not written,\n"
    "5 internal error. See profreport(1).\n";

/* The command line, parsed. */
struct options {
    const char *output, *charts_dir, *templates, *unit, *title;
    int no_gnuplot, quiet;
    size_t top;
    const char **include, **exclude;
    size_t ninclude, nexclude;
    char **paths;
    size_t npaths;
    char **args;     /* the copy of argv that getopt reads (owned) */
    char **baseline; /* --baseline OLD... --: the array is owned, the strings are argv's */
    size_t nbaseline;
    double noise;
    uint64_t seed;
    int noise_set, seed_set;
    struct export_options ex;
};

/* Bad usage: say why, point at --help, exit 2. */
static void usage_error(const char *fmt, const char *arg)
{
    fputs("profreport: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'profreport --help'.\n", stderr);
    exit(EXIT_USAGE);
}

/* Append to a growable array of strings. */
static void push(const char ***v, size_t *n, const char *s)
{
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = s;
}

/*
 * Take "--baseline OLD... --" out of argv (getopt cannot read an option with many values):
 * the paths up to "--" are the baseline runs, and everything around them stays for getopt.
 */
static void take_baseline(int *argc, char **argv, struct options *o)
{
    int b = 1;
    while (b < *argc && strcmp(argv[b], "--") != 0 && strcmp(argv[b], "--baseline") != 0)
        b++;
    if (b == *argc || strcmp(argv[b], "--baseline") != 0)
        return;
    int end = b + 1;
    while (end < *argc && strcmp(argv[end], "--") != 0)
        end++;
    if (end == *argc)
        usage_error("%s", "--baseline needs its paths, then '--', then the new runs: "
                          "--baseline OLD_PATH... -- NEW_PATH...");
    if (end == b + 1)
        usage_error("%s", "--baseline needs at least one path before '--'");
    for (int i = b + 1; i < end; i++)
        if (argv[i][0] == '-')
            usage_error("'%s' between --baseline and '--': options go before --baseline or "
                        "after '--'",
                        argv[i]);
    o->nbaseline = (size_t)(end - b - 1);
    o->baseline = xmalloc(o->nbaseline * sizeof *o->baseline);
    memcpy(o->baseline, argv + b + 1, o->nbaseline * sizeof *o->baseline);
    int rest = *argc - end - 1;
    memmove(argv + b, argv + end + 1, (size_t)rest * sizeof *argv);
    *argc = b + rest;
    argv[*argc] = NULL;
}

/* Parse argv into o, or exit with EXIT_USAGE. */
static void parse_options(int argc, char **argv, struct options *o)
{
    enum {
        OPT_CHARTS = 256,
        OPT_NOGNUPLOT,
        OPT_TEMPLATES,
        OPT_TOP,
        OPT_UNIT,
        OPT_INCLUDE,
        OPT_EXCLUDE,
        OPT_TITLE,
        OPT_VERSION,
        OPT_BASELINE,
        OPT_NOISE,
        OPT_SEED,
        OPT_TRACE,
        OPT_FOLDED,
        OPT_CALLGRIND,
        OPT_CSV,
        OPT_JSON
    };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"charts-dir", required_argument, NULL, OPT_CHARTS},
        {"no-gnuplot", no_argument, NULL, OPT_NOGNUPLOT},
        {"templates", required_argument, NULL, OPT_TEMPLATES},
        {"top", required_argument, NULL, OPT_TOP},
        {"unit", required_argument, NULL, OPT_UNIT},
        {"include", required_argument, NULL, OPT_INCLUDE},
        {"exclude", required_argument, NULL, OPT_EXCLUDE},
        {"title", required_argument, NULL, OPT_TITLE},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"folded", required_argument, NULL, OPT_FOLDED},
        {"callgrind", required_argument, NULL, OPT_CALLGRIND},
        {"csv", required_argument, NULL, OPT_CSV},
        {"json", required_argument, NULL, OPT_JSON},
        {"quiet", no_argument, NULL, 'q'},
        {"version", no_argument, NULL, OPT_VERSION},
        {"baseline", no_argument, NULL, OPT_BASELINE},
        {"noise", required_argument, NULL, OPT_NOISE},
        {"seed", required_argument, NULL, OPT_SEED},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->output = "report.xlsx";
    o->unit = "auto";
    o->top = 15;
    o->noise = COMPARE_NOISE;
    o->seed = COMPARE_SEED;
    /* getopt reads a copy without "--baseline OLD... --"; argv stays whole for the Summary. */
    o->args = xmalloc(((size_t)argc + 1) * sizeof *o->args);
    memcpy(o->args, argv, ((size_t)argc + 1) * sizeof *o->args);
    argv = o->args;
    take_baseline(&argc, argv, o);
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'o':
            o->output = optarg;
            break;
        case OPT_CHARTS:
            o->charts_dir = optarg;
            break;
        case OPT_NOGNUPLOT:
            o->no_gnuplot = 1;
            break;
        case OPT_TEMPLATES:
            o->templates = optarg;
            break;
        case OPT_TOP: {
            errno = 0;
            unsigned long v = strtoul(optarg, &end, 10);
            if (*optarg == '-' || *end || end == optarg || errno || v == 0 || v > 1000)
                usage_error("--top needs a number from 1 to 1000, not '%s'", optarg);
            o->top = v;
            break;
        }
        case OPT_UNIT:
            if (strcmp(optarg, "auto") && strcmp(optarg, "s") && strcmp(optarg, "ms") &&
                strcmp(optarg, "us") && strcmp(optarg, "ns"))
                usage_error("--unit must be auto, s, ms, us or ns, not '%s'", optarg);
            o->unit = optarg;
            break;
        case OPT_INCLUDE:
            push(&o->include, &o->ninclude, optarg);
            break;
        case OPT_EXCLUDE:
            push(&o->exclude, &o->nexclude, optarg);
            break;
        case OPT_TITLE:
            o->title = optarg;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case OPT_BASELINE:
            usage_error("%s", "--baseline is given once: --baseline OLD_PATH... -- NEW_PATH...");
            break;
        case OPT_NOISE:
            if (compare_parse_noise(optarg, &o->noise) != 0)
                usage_error("--noise needs a percentage such as 1%% or 0.5%%, not '%s'", optarg);
            o->noise_set = 1;
            break;
        case OPT_SEED: {
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (*optarg == '-' || *end || end == optarg || errno)
                usage_error("--seed needs a whole number from 0 to 2^64 - 1, not '%s'", optarg);
            o->seed = v;
            o->seed_set = 1;
            break;
        }
        case OPT_TRACE:
            o->ex.trace = optarg;
            break;
        case OPT_FOLDED:
            o->ex.folded = optarg;
            break;
        case OPT_CALLGRIND:
            o->ex.callgrind = optarg;
            break;
        case OPT_CSV:
            o->ex.csv_dir = optarg;
            break;
        case OPT_JSON:
            o->ex.json = optarg;
            break;
        case OPT_VERSION:
            printf("profreport %s (run-file format %d)\n", prof_version(), PROF_FORMAT_VERSION);
            exit(EXIT_OK);
        case 'h':
            fputs(usage_text, stdout);
            exit(EXIT_OK);
        case ':':
            usage_error("option '%s' needs an argument", argv[optind - 1]);
            break;
        default:
            usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        usage_error("%s", o->nbaseline ? "no new runs after '--': --baseline OLD_PATH... -- "
                                         "NEW_PATH..."
                                       : "no PATH given: name run files or folders of them");
    if ((o->noise_set || o->seed_set) && !o->nbaseline)
        usage_error("%s", "--noise and --seed are for comparisons: add --baseline OLD_PATH... --");
    o->paths = argv + optind;
    o->npaths = (size_t)(argc - optind);
}

/* Refuse output paths that look like pipes or redirections to a shell-minded tool. */
static void check_output_path(const char *what, const char *path)
{
    if (!*path || path[0] == '|' || path[0] == '<' || path[0] == '>' || strchr(path, '\n')) {
        fprintf(stderr,
                "profreport: refusing %s '%s': it starts with '|', '<' or '>', or "
                "holds a newline\n",
                what, path);
        exit(EXIT_USAGE);
    }
}

/* The command line as one string, for the Summary sheet. */
static char *join_args(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 3;
    char *s = xmalloc(len), *p = s;
    for (int i = 0; i < argc; i++) {
        int quote = strpbrk(argv[i], " \t'\"") != NULL;
        p += sprintf(p, "%s%s%s%s", i ? " " : "", quote ? "'" : "", argv[i], quote ? "'" : "");
    }
    return s;
}

/* ---- progress bar ---- */

struct progress {
    int on;
    off_t total, done;
    int shown; /* percent last drawn */
};
static struct progress progress;

/* Redraw the bar when the percentage changes. */
static void progress_add(size_t n)
{
    progress.done += (off_t)n;
    int pct = progress.total ? (int)(100 * progress.done / progress.total) : 100;
    if (pct == progress.shown || pct > 100)
        return;
    progress.shown = pct;
    char bar[41];
    memset(bar, '#', (size_t)(pct * 40 / 100));
    memset(bar + pct * 40 / 100, '.', (size_t)(40 - pct * 40 / 100));
    bar[40] = 0;
    fprintf(stderr, "\rprofreport: reading [%s] %3d%%", bar, pct);
}

/* fopencookie read function: the file's bytes, counted for the bar. */
static ssize_t counted_read(void *cookie, char *buf, size_t size)
{
    ssize_t r = read((int)(intptr_t)cookie, buf, size);
    if (r > 0)
        progress_add((size_t)r);
    return r;
}

static int counted_close(void *cookie) { return close((int)(intptr_t)cookie); }

/* ---- charts ---- */

/*
 * Where the templates are: --templates, then beside the program (a build tree), then the folder
 * of the PREFIX it was built for, then <bin>/../share/profreport/templates (an installed tree that
 * was moved or is still staged under DESTDIR).
 */
static char *find_templates(const char *opt)
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

/* Charts made for the workbook: their PNG paths and titles, all owned here. */
struct charts {
    char *work;
    char *pngs[8], *titles[8], *bases[8];
    size_t n;
    char *note;
};

/* Render one chart into the work folder and remember it. */
static void render(struct charts *ch, const struct chart_env *env, const char *name,
                   const char *title, const char *ylabel, const struct chart_table *t)
{
    if (ch->note || ch->n == 8)
        return;
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%s/%s", ch->work, name);
    struct chart_request req = {name, base, title, ylabel, t};
    const char *why = NULL;
    if (chart_render(env, &req, &why) != 0) {
        size_t len = strlen(why ? why : "failed") + strlen(name) + 64;
        ch->note = xmalloc(len);
        snprintf(ch->note, len, "gnuplot chart '%s' not drawn: %s", name, why ? why : "failed");
        return;
    }
    size_t len = strlen(base) + 5;
    ch->pngs[ch->n] = xmalloc(len);
    snprintf(ch->pngs[ch->n], len, "%s.png", base);
    ch->titles[ch->n] = xstrdup(title);
    ch->bases[ch->n] = xstrdup(name);
    ch->n++;
}

/* The four charts of the top regions. */
static void make_charts(struct charts *ch, const struct chart_env *env, struct model *m,
                        const struct options *o)
{
    size_t n;
    size_t *rank = model_ranked(m, &n);
    size_t top = n < o->top ? n : o->top;
    if (top == 0) {
        free(rank);
        return;
    }
    const char **labels = xcalloc(top * (m->nruns + 1), sizeof *labels);
    double *v = xcalloc(top * (m->nruns + 1) * 5, sizeof *v);
    size_t *ends = xcalloc(top, sizeof *ends);
    double typical = dist_mean(&m->regions[rank[top / 2]].cost);
    struct unit u = unit_for(isfinite(typical) ? typical : 0, o->unit);
    char title[512], ylabel[64];
    const char *prefix = o->title ? o->title : "profreport";

    /* Call cost: mean of the run means with its 95 % interval across runs. */
    for (size_t i = 0; i < top; i++) {
        struct region *r = &m->regions[rank[i]];
        double vals[64];
        size_t k = 0;
        for (size_t run = 0; run < m->nruns && k < 64; run++)
            if (isfinite(model_run_mean(r, run)))
                vals[k++] = model_run_mean(r, run);
        struct spread s = spread_of(vals, k);
        labels[i] = r->display;
        double mean = k >= 2 ? s.mean : dist_mean(&r->cost);
        v[i * 3] = mean / u.ns;
        v[i * 3 + 1] = k >= 2 ? (s.mean - s.ci95) / u.ns : NAN;
        v[i * 3 + 2] = k >= 2 ? (s.mean + s.ci95) / u.ns : NAN;
    }
    static const char *const cost_cols[] = {"mean", "low", "high"};
    struct chart_table t = {top, 3, labels, v, cost_cols, NULL, 0};
    snprintf(title, sizeof title, "%s: mean cost per call (95%% interval across runs)", prefix);
    snprintf(ylabel, sizeof ylabel, "cost per call (%s)", u.name);
    render(ch, env, "callcost", title, ylabel, &t);

    /* Hit count. */
    for (size_t i = 0; i < top; i++)
        v[i] = (double)m->regions[rank[i]].cost.n;
    static const char *const hit_cols[] = {"calls"};
    struct chart_table th = {top, 1, labels, v, hit_cols, NULL, 0};
    snprintf(title, sizeof title, "%s: calls per region", prefix);
    render(ch, env, "hitcount", title, "calls", &th);

    /* Distribution of per-call costs. */
    for (size_t i = 0; i < top; i++) {
        struct dist *d = &m->regions[rank[i]].cost;
        double q[5] = {d->min, dist_quantile(d, 0.25), dist_quantile(d, 0.5),
                       dist_quantile(d, 0.75), d->max};
        for (int j = 0; j < 5; j++)
            v[i * 5 + j] = d->n ? q[j] / u.ns : NAN;
    }
    static const char *const dist_cols[] = {"min", "p25", "median", "p75", "max"};
    struct chart_table td = {top, 5, labels, v, dist_cols, NULL, 0};
    snprintf(title, sizeof title, "%s: distribution of the cost of one call", prefix);
    render(ch, env, "distribution", title, ylabel, &td);

    /* Trend: each region's mean per run, one block per region. */
    size_t rows = 0;
    for (size_t i = 0; i < top; i++) {
        struct region *r = &m->regions[rank[i]];
        for (size_t run = 0; run < m->nruns; run++) {
            labels[rows] = r->display;
            v[rows * 2] = (double)(run + 1);
            v[rows * 2 + 1] = model_run_mean(r, run) / u.ns;
            rows++;
        }
        ends[i] = rows;
    }
    static const char *const trend_cols[] = {"run", "mean"};
    struct chart_table tt = {rows, 2, labels, v, trend_cols, ends, top};
    snprintf(title, sizeof title, "%s: mean cost per call, run by run", prefix);
    render(ch, env, "trend", title, ylabel, &tt);

    free(labels);
    free(v);
    free(ends);
    free(rank);
}

/* The comparison's chart: the biggest changes (in percent) with their 95 % intervals. */
static void make_compare_chart(struct charts *ch, const struct chart_env *env,
                               const struct comparison *c, const struct options *o)
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
        render(ch, env, "compare", title,
               "change of the median total time per run, % (95% bootstrap interval)", &t);
    }
    free(labels);
    free(v);
}

/* Read the baseline runs into base; their warnings join m's, their place marked "baseline".
   EXIT_OK, or EXIT_NO_INPUT when none can be read. */
static int read_baseline(const struct options *o, struct model *base, struct model *m)
{
    base->include = o->include;
    base->ninclude = o->ninclude;
    base->exclude = o->exclude;
    base->nexclude = o->nexclude;
    struct input *in = NULL;
    size_t n = inputs_collect((const char *const *)o->baseline, o->nbaseline, &in, base);
    for (size_t i = 0; i < n; i++)
        input_read(&in[i], base);
    inputs_free(in, n);
    for (size_t i = 0; i < base->nwarnings; i++) {
        const struct warning_rec *w = &base->warnings[i];
        size_t len = strlen(w->where) + 16;
        char *where = xmalloc(len);
        snprintf(where, len, "baseline: %s", w->where);
        model_warn(m, where, w->kind, w->count, "%s", w->message);
        free(where);
    }
    if (base->nruns > 0)
        return EXIT_OK;
    for (size_t i = 0; i < base->nwarnings; i++)
        fprintf(stderr, "profreport: %s: %s\n", base->warnings[i].where, base->warnings[i].message);
    fprintf(stderr, "profreport: no readable baseline run among %zu input%s\n", n,
            n == 1 ? "" : "s");
    return EXIT_NO_INPUT;
}

/* mkdir -p; 0 or an errno value. */
static int make_dirs(const char *dir)
{
    char *p = xstrdup(dir);
    int err = 0;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != 0)
            continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            err = errno;
            break;
        }
        *s = c;
        if (!c)
            break;
    }
    free(p);
    return err;
}

/* Remove the private work folder (made by mkdtemp: everything in it is ours). */
static void remove_work(struct charts *ch)
{
    if (ch->work)
        atomicfile_remove_dir(ch->work);
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "C"); /* numbers with '.', whatever the environment says */
    atomicfile_signals_init();
    struct options o;
    parse_options(argc, argv, &o);
    util_quiet = o.quiet;
    int rc = EXIT_OK;
    char *charts_dir = NULL, *templates = NULL, *cmdline = NULL;
    struct atomicfile out = {.fd = -1, .slot = -1};
    struct input *inputs = NULL;
    size_t ninputs = 0, copied = 0;
    struct charts ch = {0};
    struct exports *ex = NULL;
    char why_ex[4400];
    struct model m, old;
    model_init(&m);
    model_init(&old);
    struct comparison cmp = {0};
    int comparing = 0;

    /* Every output name is checked before anything is created. */
    check_output_path("output", o.output);
    if (!o.no_gnuplot) {
        if (o.charts_dir) {
            charts_dir = xstrdup(o.charts_dir);
        } else {
            size_t n = strlen(o.output);
            size_t stem = n > 5 && strcmp(o.output + n - 5, ".xlsx") == 0 ? n - 5 : n;
            charts_dir = xmalloc(stem + 8);
            snprintf(charts_dir, stem + 8, "%.*s-charts", (int)stem, o.output);
        }
        check_output_path("charts folder", charts_dir);
    }
    const char *ex_paths[] = {o.ex.trace, o.ex.folded, o.ex.callgrind, o.ex.csv_dir, o.ex.json};
    for (size_t i = 0; i < sizeof ex_paths / sizeof *ex_paths; i++)
        if (ex_paths[i])
            check_output_path("export", ex_paths[i]);

    /* The output's temporary file first: an unwritable place fails before any work.
       libxlsxwriter writes the workbook to a file name: it reopens this unique one. */
    if (atomicfile_open(&out, o.output, why_ex, sizeof why_ex) != 0) {
        fprintf(stderr, "profreport: %s\n", why_ex);
        rc = EXIT_OUTPUT;
        goto done;
    }
    close(out.fd);
    out.fd = -1;
    cmdline = join_args(argc, argv);
    o.ex.command_line = cmdline;
    if (!(ex = exports_open(&o.ex, &m, why_ex, sizeof why_ex))) {
        fprintf(stderr, "profreport: %s\n", why_ex);
        rc = EXIT_OUTPUT;
        goto done;
    }

    /* The workbook's Call paths sheet reads the calling-context tree: built as rows come. */
    model_keep_paths(&m);
    m.include = o.include;
    m.ninclude = o.ninclude;
    m.exclude = o.exclude;
    m.nexclude = o.nexclude;
    ninputs = inputs_collect((const char *const *)o.paths, o.npaths, &inputs, &m);
    if (ninputs == 0) {
        fprintf(stderr, "profreport: no run files found in the paths given (run files are "
                        "*.csv; folders are not searched recursively)\n");
        rc = EXIT_NO_INPUT;
        goto done;
    }
    off_t total = 0;
    for (size_t i = 0; i < ninputs; i++) {
        struct stat st;
        for (size_t k = 0; k < (inputs[i].path ? 1 : inputs[i].nparts); k++)
            if (stat(inputs[i].path ? inputs[i].path : inputs[i].parts[k], &st) == 0)
                total += st.st_size;
    }
    progress.on = !o.quiet && isatty(STDERR_FILENO) && total >= PROGRESS_BYTES;
    progress.total = total;
    progress.shown = -1;
    for (size_t i = 0; i < ninputs; i++) {
        if (progress.on && inputs[i].path) {
            int fd = input_open(&inputs[i], &m);
            if (fd < 0)
                continue;
            cookie_io_functions_t io = {counted_read, NULL, NULL, counted_close};
            FILE *f = fopencookie((void *)(intptr_t)fd, "r", io);
            if (!f)
                die_msg("cannot read '%s': %s", inputs[i].path, strerror(errno));
            model_add_run(&m, f, inputs[i].path, 0);
            fclose(f);
            continue;
        }
        input_read(&inputs[i], &m);
    }
    if (progress.on)
        fputs("\n", stderr);
    if (m.nruns == 0) {
        for (size_t i = 0; i < m.nwarnings; i++)
            fprintf(stderr, "profreport: %s: %s\n", m.warnings[i].where, m.warnings[i].message);
        fprintf(stderr, "profreport: no readable run among %zu input%s\n", ninputs,
                ninputs == 1 ? "" : "s");
        rc = EXIT_NO_INPUT;
        goto done;
    }

    /* --baseline: those runs in a model of their own, set against the new ones. */
    if (o.nbaseline) {
        rc = read_baseline(&o, &old, &m);
        if (rc != EXIT_OK)
            goto done;
        struct compare_options copt = {o.noise, COMPARE_ALPHA, o.seed, COMPARE_RESAMPLES};
        compare_build(&old, &m, &copt, &cmp);
        comparing = 1;
        if (cmp.warning) {
            model_warn(&m, "comparison", "few runs", 1, "%s", cmp.warning);
            warn_msg("%s", cmp.warning);
        }
    }

    /* Charts, rendered in a private folder; copied to the charts folder once all is well. */
    templates = find_templates(o.templates);
    if (!o.no_gnuplot) {
        const char *tmpdir = getenv("TMPDIR");
        if (!tmpdir || !*tmpdir)
            tmpdir = "/tmp";
        size_t len = strlen(tmpdir) + 24;
        char *w = xmalloc(len);
        snprintf(w, len, "%s/profreport-XXXXXX", tmpdir);
        if (!mkdtemp(w)) {
            free(w);
            ch.note = xstrdup("no gnuplot charts: cannot create a temporary folder");
        } else {
            ch.work = w;
            atomicfile_register_dir(w);
            struct chart_env env = {templates, NULL, ch.work, 30};
            const char *why = NULL;
            if (!chart_available(&env, &why)) {
                size_t wl = strlen(why) + 64;
                ch.note = xmalloc(wl);
                snprintf(ch.note, wl, "no gnuplot charts: %s", why);
            } else {
                if (comparing)
                    make_compare_chart(&ch, &env, &cmp, &o);
                make_charts(&ch, &env, &m, &o);
            }
        }
        if (ch.note)
            warn_msg("%s", ch.note);
    }

    char generated[64];
    time_t now = time(NULL);
    struct tm lt;
    localtime_r(&now, &lt);
    strftime(generated, sizeof generated, "%Y-%m-%d %H:%M:%S %Z", &lt);
    struct report_info ri = {o.title,
                             cmdline,
                             generated,
                             o.unit,
                             o.top,
                             ninputs,
                             (const char *const *)ch.pngs,
                             (const char *const *)ch.titles,
                             ch.n,
                             o.no_gnuplot ? NULL : ch.note,
                             comparing ? &cmp : NULL};
    const char *why = NULL;
    if (workbook_write(out.tmp, &m, &ri, &why) != 0) {
        fprintf(stderr, "profreport: cannot write '%s': %s\n", o.output, why);
        rc = EXIT_OUTPUT;
        goto done;
    }
    if (exports_write(ex, &m, why_ex, sizeof why_ex) != 0) {
        fprintf(stderr, "profreport: %s\n", why_ex);
        rc = EXIT_OUTPUT;
        goto done;
    }
    /* The charts go into place before the workbook does: a failure leaves the old report. */
    if (ch.n > 0) {
        int err = make_dirs(charts_dir);
        if (err) {
            fprintf(stderr, "profreport: cannot write charts to '%s': %s\n", charts_dir,
                    strerror(err));
            rc = EXIT_OUTPUT;
            goto done;
        }
        for (size_t i = 0; i < ch.n; i++)
            for (int k = 0; k < 2; k++) {
                char from[PATH_MAX], to[PATH_MAX];
                snprintf(from, sizeof from, "%s/%s.%s", ch.work, ch.bases[i], k ? "svg" : "png");
                snprintf(to, sizeof to, "%s/%s.%s", charts_dir, ch.bases[i], k ? "svg" : "png");
                if (atomicfile_copy(from, to, why_ex, sizeof why_ex) != 0) {
                    fprintf(stderr, "profreport: %s\n", why_ex);
                    rc = EXIT_OUTPUT;
                    goto done;
                }
                copied++;
            }
    }
    if (exports_commit(ex, why_ex, sizeof why_ex) != 0) {
        fprintf(stderr, "profreport: %s\n", why_ex);
        rc = EXIT_OUTPUT;
        goto done;
    }
    if (atomicfile_commit(&out, why_ex, sizeof why_ex) != 0) {
        fprintf(stderr, "profreport: %s\n", why_ex);
        rc = EXIT_OUTPUT;
        goto done;
    }

    if (!o.quiet) {
        if (comparing)
            flat_print_compare(stdout, &cmp, &ri);
        else
            flat_print(stdout, &m, &ri);
        printf("\nworkbook: %s\n", o.output);
        if (copied)
            printf("charts:   %s/ (%zu files)\n", charts_dir, copied);
        exports_print(ex, stdout);
        if (m.nwarnings)
            printf("warnings: %zu (see the Warnings sheet)\n", m.nwarnings);
    }

done:
    atomicfile_discard(&out);
    remove_work(&ch);
    exports_free(ex);
    for (size_t i = 0; i < ch.n; i++) {
        free(ch.pngs[i]);
        free(ch.titles[i]);
        free(ch.bases[i]);
    }
    free(ch.note);
    free(ch.work);
    free(templates);
    free(cmdline);
    free(charts_dir);
    inputs_free(inputs, ninputs);
    model_release(&m);
    compare_release(&cmp);
    model_release(&old);
    free(o.baseline);
    free(o.args);
    free(o.include);
    free(o.exclude);
    return rc;
}
