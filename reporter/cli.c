/*
 * cli.c - profreport's command line: the help text, the options parsed into struct options,
 * and the checks of the output paths they name. Documented in profreport(1).
 */
#include "cli.h"
#include "model/compare.h"
#include "base/exitcode.h"
#include "base/util.h"

#include <profreport.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    "                         of it); default: the program whose runs took the most time\n"
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
    "      --suggest-exclude FILE\n"
    "                         write the gcc options (for gcc @FILE) that leave the hot,\n"
    "                         tiny instrumented functions out of a rebuild, and show the\n"
    "                         matching PROFILER_EXCLUDE setting\n"
    "      --suggest-list FILE\n"
    "                         write the same functions as a list for\n"
    "                         PROFILER_EXCLUDE=@FILE (either compiler, no rebuild)\n"
    "      --suggest-max-cost NS\n"
    "                         tiny: under this many ns a call (default: 4 times the\n"
    "                         hooks' measured cost per call, and nothing when the hooks\n"
    "                         of all such calls cost under 1% of the program's time)\n"
    "      --version          print the version and exit\n"
    "  -h, --help             print this help and exit\n"
    "\n"
    "Exit status: 0 report (or compacts) written, 2 bad usage, 3 no readable run (or none of the\n"
    "--program named), 4 output not written, 5 internal error, 6 a region got slower\n"
    "(--fail-on-regression). See profreport(1).\n";

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
void cli_parse(int argc, char **argv, struct options *o)
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
        OPT_COMPACT,
        OPT_SUGGEST,
        OPT_SUGGEST_LIST,
        OPT_SUGGEST_MAX_COST
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
        {"suggest-exclude", required_argument, NULL, OPT_SUGGEST},
        {"suggest-list", required_argument, NULL, OPT_SUGGEST_LIST},
        {"suggest-max-cost", required_argument, NULL, OPT_SUGGEST_MAX_COST},
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
        case OPT_SUGGEST:
            if (!*optarg)
                usage_error("%s", "--suggest-exclude needs a file name");
            o->suggest = optarg;
            break;
        case OPT_SUGGEST_LIST:
            if (!*optarg)
                usage_error("%s", "--suggest-list needs a file name");
            o->suggest_list = optarg;
            break;
        case OPT_SUGGEST_MAX_COST: {
            errno = 0;
            double v = strtod(optarg, &end);
            if (*end || end == optarg || errno || !(v > 0) || v > 1e9)
                usage_error("--suggest-max-cost needs a time per call in ns, such as 40, not '%s'",
                            optarg);
            o->suggest_max_cost = v;
            break;
        }
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
    if (o->suggest_max_cost > 0 && !o->suggest && !o->suggest_list)
        usage_error("%s",
                    "--suggest-max-cost is for --suggest-exclude FILE or --suggest-list FILE");
    if ((o->suggest || o->suggest_list) && o->compact && !o->output_given)
        usage_error("%s", o->suggest ? "--suggest-exclude reads the report's runs: add -o FILE "
                                       "with --compact"
                                     : "--suggest-list reads the report's runs: add -o FILE "
                                       "with --compact");
    if (o->suggest && o->suggest_list && strcmp(o->suggest, o->suggest_list) == 0)
        usage_error("%s", "--suggest-exclude and --suggest-list need two files");
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

/* Free the arrays cli_parse made. */
void cli_release(struct options *o)
{
    free(o->baseline);
    free(o->args);
    free(o->include);
    free(o->exclude);
}

/* Refuse output paths that look like pipes or redirections to a shell-minded tool. 0, or -1
   with e (REP_ERR_USAGE). */
int cli_check_output(const char *what, const char *path, struct rep_error *e)
{
    if (!*path || path[0] == '|' || path[0] == '<' || path[0] == '>' || strchr(path, '\n'))
        return rep_fail(e, REP_ERR_USAGE,
                        "refusing %s '%s': it starts with '|', '<' or '>', or holds a newline",
                        what, path);
    return 0;
}

/* The command line as one string, for the Summary sheet. */
char *cli_join_args(int argc, char **argv)
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
