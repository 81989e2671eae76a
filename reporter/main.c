/*
 * main.c - the profreport command: read run files, write the workbook and chart images,
 * print a flat profile. Options and exit codes are documented in profreport(1).
 */
#include "atomicfile.h"
#include "charts.h"
#include "compact.h"
#include "compare.h"
#include "exitcode.h"
#include "export.h"
#include "fileutil.h"
#include "flat.h"
#include "input.h"
#include "memsum.h"
#include "model.h"
#include "pipeline.h"
#include "programs.h"
#include "rep_error.h"
#include "util.h"
#include "workbook.h"

#include <profreport.h>

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
    "      --sort KEY         order of the terminal summary and Call cost: total, self,\n"
    "                         calls or mean (cost per call), largest first (default total)\n"
    "      --unit UNIT        auto, s, ms, us or ns (default auto)\n"
    "      --include GLOB     report only regions whose id matches (repeatable)\n"
    "      --exclude GLOB     leave out regions whose id matches (repeatable)\n"
    "      --title TEXT       title of the report and its charts\n"
    "      --trace FILE       also write a Chrome trace (JSON) of every region instance\n"
    "      --trace-limit SIZE the largest trace, in bytes (k, M, G suffixes; default 1G,\n"
    "                         about what Perfetto's web UI loads; 0: no limit): runs that\n"
    "                         would pass it are left out whole\n"
    "      --folded FILE      also write folded stacks for flame graphs (self ns per path)\n"
    "      --callgrind FILE   also write the call paths in callgrind format (ns)\n"
    "      --csv DIR          also write the statistics as CSV files into DIR\n"
    "      --json FILE        also write the statistics as one JSON file\n"
    "      --program NAME     report the runs of this program (its path, or the last part\n"
    "                         of it); default: the program with the most runs\n"
    "      --all-programs     report the runs of every program together\n"
    "  -q, --quiet            no summary or warnings on the terminal, errors only\n"
    "      --baseline OLD... --\n"
    "                         compare the OLD runs (files or folders) with the runs after\n"
    "                         '--': a Comparison sheet, the regions that changed\n"
    "      --noise PCT        comparison: smaller changes are not reported (default 1%)\n"
    "      --seed N           comparison: seed of the bootstrap intervals (default 1)\n"
    "      --fail-on-regression\n"
    "                         comparison: exit with status 6 when a region is\n"
    "                         significantly slower (for CI)\n"
    "      --compact DIR      write each run as a calling-context summary run file of\n"
    "                         the same name into DIR (created if missing; an existing\n"
    "                         file is never replaced), for a report that merges many\n"
    "                         hosts' runs; no report is written unless -o names one\n"
    "      --version          print the version and exit\n"
    "  -h, --help             print this help and exit\n"
    "\n"
    "Exit status: 0 report (or compacts) written, 2 bad usage, 3 no readable run (or none of the\n"
    "--program named), 4 output not written, 5 internal error, 6 a region got slower\n"
    "(--fail-on-regression). See profreport(1).\n";

/* The command line, parsed. */
struct options {
    const char *output, *charts_dir, *templates, *unit, *title;
    const char *program; /* --program, or NULL */
    int no_gnuplot, quiet, all_programs;
    size_t top;
    enum model_sort sort;
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
    int fail_on_regression; /* --fail-on-regression */
    struct export_options ex;
    const char *compact; /* --compact DIR, or NULL */
    int output_given;    /* -o was given */
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
        OPT_SORT,
        OPT_INCLUDE,
        OPT_EXCLUDE,
        OPT_TITLE,
        OPT_VERSION,
        OPT_BASELINE,
        OPT_NOISE,
        OPT_SEED,
        OPT_FAIL_ON_REGRESSION,
        OPT_TRACE,
        OPT_TRACE_LIMIT,
        OPT_FOLDED,
        OPT_CALLGRIND,
        OPT_CSV,
        OPT_JSON,
        OPT_PROGRAM,
        OPT_ALL_PROGRAMS,
        OPT_COMPACT
    };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"charts-dir", required_argument, NULL, OPT_CHARTS},
        {"no-gnuplot", no_argument, NULL, OPT_NOGNUPLOT},
        {"templates", required_argument, NULL, OPT_TEMPLATES},
        {"top", required_argument, NULL, OPT_TOP},
        {"unit", required_argument, NULL, OPT_UNIT},
        {"sort", required_argument, NULL, OPT_SORT},
        {"include", required_argument, NULL, OPT_INCLUDE},
        {"exclude", required_argument, NULL, OPT_EXCLUDE},
        {"title", required_argument, NULL, OPT_TITLE},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"trace-limit", required_argument, NULL, OPT_TRACE_LIMIT},
        {"folded", required_argument, NULL, OPT_FOLDED},
        {"callgrind", required_argument, NULL, OPT_CALLGRIND},
        {"csv", required_argument, NULL, OPT_CSV},
        {"json", required_argument, NULL, OPT_JSON},
        {"program", required_argument, NULL, OPT_PROGRAM},
        {"all-programs", no_argument, NULL, OPT_ALL_PROGRAMS},
        {"compact", required_argument, NULL, OPT_COMPACT},
        {"quiet", no_argument, NULL, 'q'},
        {"version", no_argument, NULL, OPT_VERSION},
        {"baseline", no_argument, NULL, OPT_BASELINE},
        {"noise", required_argument, NULL, OPT_NOISE},
        {"seed", required_argument, NULL, OPT_SEED},
        {"fail-on-regression", no_argument, NULL, OPT_FAIL_ON_REGRESSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->output = "report.xlsx";
    o->unit = "auto";
    o->top = 15;
    o->noise = COMPARE_NOISE;
    o->seed = COMPARE_SEED;
    o->ex.trace_limit = EXPORT_TRACE_LIMIT;
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
            o->output_given = 1;
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
        case OPT_SORT: {
            int k = model_sort_parse(optarg);
            if (k < 0)
                usage_error("--sort must be total, self, calls or mean, not '%s'", optarg);
            o->sort = (enum model_sort)k;
            break;
        }
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
        case OPT_FAIL_ON_REGRESSION:
            o->fail_on_regression = 1;
            break;
        case OPT_TRACE:
            o->ex.trace = optarg;
            break;
        case OPT_TRACE_LIMIT:
            if (export_size_parse(optarg, &o->ex.trace_limit) != 0)
                usage_error("--trace-limit needs a size in bytes such as 500M or 2G, not '%s'",
                            optarg);
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
        case OPT_PROGRAM:
            if (!*optarg)
                usage_error("%s", "--program needs a program's path or name");
            o->program = optarg;
            break;
        case OPT_ALL_PROGRAMS:
            o->all_programs = 1;
            break;
        case OPT_COMPACT:
            if (!*optarg)
                usage_error("%s", "--compact needs a folder");
            o->compact = optarg;
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
    if (o->program && o->all_programs)
        usage_error("%s", "--program and --all-programs exclude each other");
    if ((o->noise_set || o->seed_set) && !o->nbaseline)
        usage_error("%s", "--noise and --seed are for comparisons: add --baseline OLD_PATH... --");
    if (o->fail_on_regression && !o->nbaseline)
        usage_error("%s", "--fail-on-regression is for comparisons: add --baseline OLD_PATH... --");
    if (o->compact && o->nbaseline)
        usage_error("%s", "--compact and --baseline exclude each other: compact each side's "
                          "runs, then compare the compacts");
    if (o->compact && !o->output_given &&
        (o->ex.trace || o->ex.folded || o->ex.callgrind || o->ex.csv_dir || o->ex.json))
        usage_error("%s", "--compact writes no report unless -o names one: add -o FILE to "
                          "write the report and its exports too");
    o->paths = argv + optind;
    o->npaths = (size_t)(argc - optind);
}

/* Refuse output paths that look like pipes or redirections to a shell-minded tool. 0, or -1
   with e (REP_ERR_USAGE). */
static int check_output_path(const char *what, const char *path, struct rep_error *e)
{
    if (!*path || path[0] == '|' || path[0] == '<' || path[0] == '>' || strchr(path, '\n'))
        return rep_fail(e, REP_ERR_USAGE,
                        "refusing %s '%s': it starts with '|', '<' or '>', or holds a newline",
                        what, path);
    return 0;
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
    off_t total, done;
    int shown; /* percent last drawn */
};

/* input_progress callback: redraw the bar when the percentage changes. */
static void progress_add(void *ctx, size_t n)
{
    struct progress *progress = ctx;
    progress->done += (off_t)n;
    int pct = progress->total ? (int)(100 * progress->done / progress->total) : 100;
    if (pct == progress->shown || pct > 100)
        return;
    progress->shown = pct;
    char bar[41];
    memset(bar, '#', (size_t)(pct * 40 / 100));
    memset(bar + pct * 40 / 100, '.', (size_t)(40 - pct * 40 / 100));
    bar[40] = 0;
    fprintf(stderr, "\rprofreport: reading [%s] %3d%%", bar, pct);
}

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

/* Each problem of the inputs that left m without a run, before the error that ends the command
   (warnings are kept for the Warnings sheet, and -q hid them as they came). */
static void print_problems(const struct model *m)
{
    for (size_t i = 0; i < m->nwarnings; i++)
        fprintf(stderr, "profreport: %s: %s\n", m->warnings[i].where, m->warnings[i].message);
}

/*
 * Which runs of the inputs m keeps (model_pick): with --all-programs all; else a first look at
 * each input's metadata counts the runs per program, and the program --program names, or the
 * one with the most runs, is picked. A pipe cannot be looked at twice: its run is counted when
 * it is read, and kept if it is of the program picked (or, when only pipes were given, of the
 * first program read). 0, or -1 with e when --program names no program or several.
 */
static int pick_program(const struct options *o, struct model *m, const struct input *in, size_t n,
                        struct rep_error *e)
{
    if (o->all_programs)
        return 0;
    struct model look;
    model_init(&look);
    model_pick(&look, PICK_NONE, NULL);
    size_t pipes = 0;
    int quiet = util_quiet;
    util_quiet = 1; /* the real reading says what is wrong with an input */
    for (size_t i = 0; i < n; i++) {
        if (in[i].stream)
            pipes++;
        else
            input_read(&in[i], &look);
    }
    util_quiet = quiet;
    size_t k;
    int rc = 0;
    if (look.nprograms == 0)
        model_pick(m, o->program ? PICK_NAME : PICK_FIRST, o->program);
    else if (programs_choose(look.programs, look.nprograms, o->program, &k, e) == 0)
        model_pick(m, PICK_EXACT, look.programs[k].name);
    else if (pipes && e->code == REP_ERR_NO_INPUT)
        model_pick(m, PICK_NAME, o->program); /* it may be a pipe's */
    else
        rc = -1;
    model_release(&look);
    return rc;
}

/* The error of a model that read runs but kept none, all of other programs than the one
   --program named (a pipe's run, which the first look could not see): -1 with e. */
static int no_run_picked(const struct options *o, const struct model *m, const char *side,
                         struct rep_error *e)
{
    size_t k;
    if (m->nprograms == 0 || programs_choose(m->programs, m->nprograms, o->program, &k, e) != 0)
        return -1;
    return rep_fail(e, REP_ERR_NO_INPUT, "no %srun of program '%s'", side,
                    o->program ? o->program : "(first read)");
}

/* Read the baseline runs into base; their warnings join m's, their place marked "baseline".
   0, or -1 with e (REP_ERR_NO_INPUT) when none can be read, its files' problems listed. */
static int read_baseline(const struct options *o, struct model *base, struct model *m,
                         struct rep_error *e)
{
    base->include = o->include;
    base->ninclude = o->ninclude;
    base->exclude = o->exclude;
    base->nexclude = o->nexclude;
    struct input *in = NULL;
    size_t n = inputs_collect((const char *const *)o->baseline, o->nbaseline, &in, base);
    if (pick_program(o, base, in, n, e) != 0) {
        inputs_free(in, n);
        struct rep_error why = *e;
        return rep_fail(e, why.code, "baseline: %s", why.msg);
    }
    pipeline_read(in, n, base, NULL);
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
        return 0;
    if (base->nprograms > 0)
        return no_run_picked(o, base, "baseline ", e);
    print_problems(base);
    return rep_fail(e, REP_ERR_NO_INPUT, "no readable baseline run among %zu input%s", n,
                    n == 1 ? "" : "s");
}

/* ---- the pipeline: read -> model -> tables -> outputs ---- */

/* One report on its way: what each stage hands to the next, all owned here. */
struct report {
    char *charts_dir, *cmdline, *templates;
    struct atomicfile out; /* the workbook's temporary file */
    struct exports *ex;
    struct input *inputs;
    size_t ninputs, copied;
    struct model m, old; /* the runs; the --baseline runs */
    struct comparison cmp;
    int comparing;
    struct chart_set ch;
    char generated[64];   /* local time the report was made */
    struct rep_error err; /* why a stage failed */
};

/* --compact: each run as a calling-context summary run file in o->compact (compact.h). 0, or
   -1 with r->err. */
static int compact_stage(struct report *r, const struct options *o)
{
    if (check_output_path("compact folder", o->compact, &r->err) != 0)
        return -1;
    struct compact_totals tot;
    if (compact_runs((const char *const *)o->paths, o->npaths, o->compact, &tot, &r->err) != 0)
        return -1;
    if (!o->quiet)
        printf("compacts: %s/ (%zu run%s, %.1f KiB read, %.1f KiB written)\n", o->compact, tot.runs,
               tot.runs == 1 ? "" : "s", (double)tot.in_bytes / 1024.0,
               (double)tot.out_bytes / 1024.0);
    return 0;
}

/* Check every output name, then create the outputs' temporary files: an unwritable place
   fails before any work. 0, or -1 with r->err. */
static int open_outputs(struct report *r, struct options *o, int argc, char **argv)
{
    if (check_output_path("output", o->output, &r->err) != 0)
        return -1;
    if (!o->no_gnuplot) {
        if (o->charts_dir) {
            r->charts_dir = xstrdup(o->charts_dir);
        } else {
            size_t n = strlen(o->output);
            size_t stem = n > 5 && strcmp(o->output + n - 5, ".xlsx") == 0 ? n - 5 : n;
            r->charts_dir = xmalloc(stem + 8);
            snprintf(r->charts_dir, stem + 8, "%.*s-charts", (int)stem, o->output);
        }
        if (check_output_path("charts folder", r->charts_dir, &r->err) != 0)
            return -1;
    }
    const char *ex_paths[] = {o->ex.trace, o->ex.folded, o->ex.callgrind, o->ex.csv_dir,
                              o->ex.json};
    for (size_t i = 0; i < sizeof ex_paths / sizeof *ex_paths; i++)
        if (ex_paths[i] && check_output_path("export", ex_paths[i], &r->err) != 0)
            return -1;
    /* libxlsxwriter writes the workbook to a file name: it reopens this unique one. */
    if (atomicfile_open(&r->out, o->output, &r->err) != 0)
        return -1;
    close(r->out.fd);
    r->out.fd = -1;
    r->cmdline = join_args(argc, argv);
    o->ex.command_line = r->cmdline;
    if (!(r->ex = exports_open(&o->ex, &r->m, &r->err)))
        return -1;
    return 0;
}

/* Read the runs named on the command line into the model, with a progress bar for large
   inputs on a terminal. 0, or -1 with r->err (REP_ERR_NO_INPUT) when no run could be read. */
static int read_runs(struct report *r, const struct options *o)
{
    struct model *m = &r->m;
    /* The workbook's Call paths sheet reads the calling-context tree: built as rows come. */
    model_keep_paths(m);
    m->include = o->include;
    m->ninclude = o->ninclude;
    m->exclude = o->exclude;
    m->nexclude = o->nexclude;
    m->sort = o->sort;
    r->ninputs = inputs_collect((const char *const *)o->paths, o->npaths, &r->inputs, m);
    if (r->ninputs == 0)
        return rep_fail(&r->err, REP_ERR_NO_INPUT,
                        "no run files found in the paths given (run files are *.csv; folders "
                        "are not searched recursively)");
    if (pick_program(o, m, r->inputs, r->ninputs, &r->err) != 0)
        return -1;
    struct progress bar = {inputs_size(r->inputs, r->ninputs), 0, -1};
    struct input_progress counter = {progress_add, &bar};
    int shown = !o->quiet && isatty(STDERR_FILENO) && bar.total >= PROGRESS_BYTES;
    pipeline_read(r->inputs, r->ninputs, m, shown ? &counter : NULL);
    if (shown)
        fputs("\n", stderr);
    if (m->nruns > 0)
        return 0;
    if (m->nprograms > 0)
        return no_run_picked(o, m, "", &r->err);
    print_problems(m);
    return rep_fail(&r->err, REP_ERR_NO_INPUT, "no readable run among %zu input%s", r->ninputs,
                    r->ninputs == 1 ? "" : "s");
}

/* --baseline: those runs in a model of their own, set against the new ones. 0, or -1 with
   r->err when no baseline run could be read. */
static int compare_runs(struct report *r, const struct options *o)
{
    if (read_baseline(o, &r->old, &r->m, &r->err) != 0)
        return -1;
    struct compare_options copt = {o->noise, COMPARE_ALPHA, o->seed, COMPARE_RESAMPLES};
    compare_build(&r->old, &r->m, &copt, &r->cmp);
    r->comparing = 1;
    exports_compare(r->ex, &r->cmp);
    if (r->cmp.warning) {
        model_warn(&r->m, "comparison", "few runs", 1, "%s", r->cmp.warning);
        warn_msg("%s", r->cmp.warning);
    }
    return 0;
}

/* The gnuplot charts, rendered in a private folder; copied to the charts folder once all is
   well. A chart that cannot be drawn is a warning, not a failure. */
static void draw_charts(struct report *r, const struct options *o)
{
    r->templates = find_templates(o->templates);
    if (o->no_gnuplot)
        return;
    struct chart_options co = {o->title, o->unit, o->top};
    charts_make(&r->ch, r->templates, &r->m, r->comparing ? &r->cmp : NULL, &co);
    if (r->ch.note)
        warn_msg("%s", r->ch.note);
}

/* Write the workbook and the exports into their temporary files. 0, or -1 with r->err. */
static int write_outputs(struct report *r, const struct options *o, const struct report_info *ri)
{
    struct rep_error why;
    if (workbook_write(r->out.tmp, &r->m, ri, &why) != 0)
        return rep_fail(&r->err, why.code, "cannot write '%s': %s", o->output, why.msg);
    return exports_write(r->ex, &r->m, &r->err);
}

/* Put everything in place: the charts first, then the exports, then the workbook, so that a
   failure leaves the old report. 0, or -1 with r->err. */
static int commit_outputs(struct report *r)
{
    if (r->ch.n > 0) {
        int err = prof_mkdirs(r->charts_dir);
        if (err)
            return rep_fail(&r->err, REP_ERR_OUTPUT, "cannot write charts to '%s': %s",
                            r->charts_dir, strerror(err));
        for (size_t i = 0; i < r->ch.n; i++)
            for (int k = 0; k < 2; k++) {
                char from[PATH_MAX], to[PATH_MAX];
                snprintf(from, sizeof from, "%s/%s.%s", r->ch.work, r->ch.bases[i],
                         k ? "svg" : "png");
                snprintf(to, sizeof to, "%s/%s.%s", r->charts_dir, r->ch.bases[i],
                         k ? "svg" : "png");
                if (atomicfile_copy(from, to, &r->err) != 0)
                    return -1;
                r->copied++;
            }
    }
    if (exports_commit(r->ex, &r->err) != 0)
        return -1;
    return atomicfile_commit(&r->out, &r->err);
}

/* The terminal's account: the flat profile (or the comparison) and where the files went. */
static void print_summary(const struct report *r, const struct options *o,
                          const struct report_info *ri)
{
    programs_print(stdout, &r->m);
    if (r->comparing)
        flat_print_compare(stdout, &r->cmp, ri);
    else
        flat_print(stdout, (struct model *)&r->m, ri);
    flat_print_idle(stdout, &r->m, o->top);
    flat_print_crashes(stdout, &r->m, o->top);
    printf("\n");
    memsum_print(stdout, &r->m);
    printf("workbook: %s\n", o->output);
    if (r->copied)
        printf("charts:   %s/ (%zu files)\n", r->charts_dir, r->copied);
    exports_print(r->ex, stdout);
    if (r->m.nwarnings)
        printf("warnings: %zu (see the Warnings sheet)\n", r->m.nwarnings);
}

/* Remove what was not committed and free everything. */
static void report_release(struct report *r, struct options *o)
{
    atomicfile_discard(&r->out);
    charts_release(&r->ch);
    exports_free(r->ex);
    free(r->templates);
    free(r->cmdline);
    free(r->charts_dir);
    inputs_free(r->inputs, r->ninputs);
    model_release(&r->m);
    compare_release(&r->cmp);
    model_release(&r->old);
    free(o->baseline);
    free(o->args);
    free(o->include);
    free(o->exclude);
}

/* The exit status profreport(1) gives for an error of this kind. */
static int exit_status(enum rep_code code)
{
    switch (code) {
    case REP_OK:
        return EXIT_OK;
    case REP_ERR_USAGE:
        return EXIT_USAGE;
    case REP_ERR_NO_INPUT:
        return EXIT_NO_INPUT;
    case REP_ERR_OUTPUT:
    case REP_ERR_CHART:
        return EXIT_OUTPUT;
    default:
        return EXIT_INTERNAL;
    }
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "C"); /* numbers with '.', whatever the environment says */
    atomicfile_signals_init();
    struct options o;
    parse_options(argc, argv, &o);
    util_quiet = o.quiet;
    struct report r = {.out = {.fd = -1, .slot = -1}};
    model_init(&r.m);
    model_init(&r.old);

    /* Each stage returns 0, or -1 with r.err: the one place an error is printed is below.
       --compact alone writes the compacts only; with -o, the report of the same runs too. */
    int rc = 0, report = !o.compact || o.output_given;
    if (o.compact)
        rc = compact_stage(&r, &o);
    if (rc == 0 && report)
        rc = open_outputs(&r, &o, argc, argv);
    if (rc == 0 && report)
        rc = read_runs(&r, &o);
    if (rc == 0 && report && o.nbaseline)
        rc = compare_runs(&r, &o);
    if (rc == 0 && report) {
        draw_charts(&r, &o);
        time_t now = time(NULL);
        struct tm lt;
        localtime_r(&now, &lt);
        strftime(r.generated, sizeof r.generated, "%Y-%m-%d %H:%M:%S %Z", &lt);
        struct report_info ri = {o.title,
                                 r.cmdline,
                                 r.generated,
                                 o.unit,
                                 o.top,
                                 r.ninputs,
                                 (const char *const *)r.ch.pngs,
                                 (const char *const *)r.ch.titles,
                                 r.ch.n,
                                 o.no_gnuplot ? NULL : r.ch.note,
                                 r.comparing ? &r.cmp : NULL};
        rc = write_outputs(&r, &o, &ri);
        if (rc == 0)
            rc = commit_outputs(&r);
        if (rc == 0 && !o.quiet)
            print_summary(&r, &o, &ri);
    }
    int status = EXIT_OK;
    if (rc != 0) {
        fprintf(stderr, "profreport: %s\n", r.err.msg);
        status = exit_status(r.err.code);
    } else if (o.fail_on_regression && r.cmp.slower > 0) {
        /* Said even with -q: it is why the status is not 0. */
        fprintf(stderr,
                "profreport: %zu region%s significantly slower than the baseline "
                "(--fail-on-regression)\n",
                r.cmp.slower, r.cmp.slower == 1 ? "" : "s");
        status = EXIT_REGRESSION;
    }
    report_release(&r, &o);
    return status;
}
