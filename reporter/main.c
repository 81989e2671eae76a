/*
 * main.c - the profreport command: the stages of a report wired in order. Options (cli.c),
 * then: open the outputs, read the runs (read/), finish the model (model/), compare with a
 * baseline, draw the charts, write the workbook and the exports (out/), put them in place,
 * print the flat profile. Options and exit codes are documented in profreport(1).
 */
#include "cli.h"
#include "compact.h"
#include "base/atomicfile.h"
#include "base/exitcode.h"
#include "base/rep_error.h"
#include "base/util.h"
#include "read/read.h"
#include "model/compare.h"
#include "model/model.h"
#include "model/programs.h"
#include "model/suggest.h"
#include "out/charts.h"
#include "out/export.h"
#include "out/flat.h"
#include "out/memsum.h"
#include "out/suggestfile.h"
#include "out/workbook.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One report on its way: what each stage hands to the next, all owned here. */
struct report {
    char *charts_dir, *cmdline, *templates;
    struct atomicfile out; /* the workbook's temporary file */
    struct exports *ex;
    size_t ninputs, copied;
    struct model m, old; /* the runs; the --baseline runs */
    struct comparison cmp;
    int comparing;
    struct chart_set ch;
    struct suggestion sug;          /* the hot, tiny functions a rebuild could leave out */
    struct suggest_files sug_files; /* what --suggest-exclude and --suggest-list wrote */
    struct atomicfile sug_out[2];   /* their temporary files: options, list */
    char generated[64];             /* local time the report was made */
    struct rep_error err;           /* why a stage failed */
};

/* --compact: each run as a calling-context summary run file in o->compact (compact.h). 0, or
   -1 with r->err. */
static int compact_stage(struct report *r, const struct options *o)
{
    if (cli_check_output("compact folder", o->compact, &r->err) != 0)
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
   fails before any work. The exports attach to the model to be read (the trace is written as
   the rows come). 0, or -1 with r->err. */
static int open_outputs(struct report *r, struct options *o, int argc, char **argv)
{
    if (cli_check_output("output", o->output, &r->err) != 0)
        return -1;
    if (!o->no_gnuplot) {
        r->charts_dir = o->charts_dir ? xstrdup(o->charts_dir) : charts_dir_for(o->output);
        if (cli_check_output("charts folder", r->charts_dir, &r->err) != 0)
            return -1;
    }
    /* The suggestion files' temporaries too: their text waits for the model, but a place
       that cannot be written fails here, before the report is written. */
    if (o->suggest &&
        (cli_check_output("suggestion file", o->suggest, &r->err) != 0 ||
         suggest_open(&r->sug_out[0], o->suggest, SUGGEST_FILE_OPTIONS, &r->err) != 0))
        return -1;
    if (o->suggest_list &&
        (cli_check_output("suggestion list", o->suggest_list, &r->err) != 0 ||
         suggest_open(&r->sug_out[1], o->suggest_list, SUGGEST_FILE_LIST, &r->err) != 0))
        return -1;
    const char *ex_paths[] = {o->ex.trace, o->ex.folded, o->ex.callgrind, o->ex.csv_dir,
                              o->ex.json};
    for (size_t i = 0; i < sizeof ex_paths / sizeof *ex_paths; i++)
        if (ex_paths[i] && cli_check_output("export", ex_paths[i], &r->err) != 0)
            return -1;
    /* libxlsxwriter writes the workbook to a file name: it reopens this unique one. */
    if (atomicfile_open(&r->out, o->output, &r->err) != 0)
        return -1;
    close(r->out.fd);
    r->out.fd = -1;
    r->cmdline = cli_join_args(argc, argv);
    o->ex.command_line = r->cmdline;
    if (!(r->ex = exports_open(&o->ex, &r->m, &r->err)))
        return -1;
    return 0;
}

/* How the command line says to read runs. */
static struct read_options read_options(const struct options *o)
{
    return (struct read_options){o->include, o->exclude,      o->ninclude, o->nexclude,
                                 o->program, o->all_programs, !o->quiet};
}

/* Read the runs into the model and finish it. 0, or -1 with r->err (REP_ERR_NO_INPUT) when no
   run could be read. */
static int read_stage(struct report *r, const struct options *o)
{
    /* The workbook's Call paths sheet reads the calling-context tree: built as rows come. */
    model_keep_paths(&r->m);
    r->m.sort = o->sort;
    struct read_options ro = read_options(o);
    if (read_runs(&r->m, (const char *const *)o->paths, o->npaths, &ro, &r->ninputs, &r->err) != 0)
        return -1;
    model_finish(&r->m);
    return 0;
}

/* --baseline: those runs in a model of their own, set against the new ones. 0, or -1 with
   r->err when no baseline run could be read. */
static int compare_runs(struct report *r, const struct options *o)
{
    struct read_options ro = read_options(o);
    if (read_baseline(&r->old, &r->m, (const char *const *)o->baseline, o->nbaseline, &ro,
                      &r->err) != 0)
        return -1;
    model_finish(&r->old);
    struct compare_options copt = {o->noise, COMPARE_ALPHA, o->seed, COMPARE_RESAMPLES};
    compare_build(&r->old, &r->m, &copt, &r->cmp);
    r->comparing = 1;
    exports_compare(r->ex, &r->cmp);
    if (r->cmp.warning) {
        model_warn(&r->m, "comparison", "few runs", 1, "%s", r->cmp.warning);
        warn_msg("%s", r->cmp.warning);
    }
    char note[256];
    if (o->output && compare_matrix_note(&r->cmp, note, sizeof note)) {
        model_warn(&r->m, "comparison", "runs past the matrix", 1, "%s", note);
        warn_msg("%s", note);
    }
    return 0;
}

/* The gnuplot charts, rendered in a private folder; copied to the charts folder once all is
   well. A chart that cannot be drawn is a warning, not a failure. */
static void draw_charts(struct report *r, const struct options *o)
{
    r->templates = charts_templates(o->templates);
    if (o->no_gnuplot)
        return;
    struct chart_options co = {o->title, o->unit, o->top};
    charts_make(&r->ch, r->templates, &r->m, r->comparing ? &r->cmp : NULL, &co);
    if (r->ch.note)
        warn_msg("%s", r->ch.note);
}

/* The hot, tiny functions of a function-hooks run (--suggest-exclude writes them as gcc
   options, --suggest-list as a PROFILER_EXCLUDE list; without either the summary mentions
   them). 0, or -1 with r->err. */
static int suggest_stage(struct report *r, const struct options *o)
{
    struct suggest_options so = {o->suggest_max_cost};
    suggest_build(&r->m, &so, &r->sug);
    struct suggest_files *w = &r->sug_files;
    w->options = o->suggest;
    w->list = o->suggest_list;
    if (o->suggest &&
        suggest_fill(&r->sug_out[0], SUGGEST_FILE_OPTIONS, &r->sug, &w->options_kept, &r->err) != 0)
        return -1;
    if (o->suggest_list &&
        suggest_fill(&r->sug_out[1], SUGGEST_FILE_LIST, &r->sug, &w->list_kept, &r->err) != 0)
        return -1;
    return 0;
}

/* Write the workbook and the exports into their temporary files. 0, or -1 with r->err. */
static int write_outputs(struct report *r, const struct options *o, const struct report_info *ri)
{
    struct rep_error why;
    unsigned long cut = 0;
    if (workbook_write(r->out.tmp, &r->m, ri, &cut, &why) != 0)
        return rep_fail(&r->err, why.code, "cannot write '%s': %s", o->output, why.msg);
    workbook_warn_cut(&r->m, cut);
    return exports_write(r->ex, &r->m, &r->err);
}

/* Put everything in place: the charts first, then the exports and suggestion files, then the
   workbook, so that a failure leaves the old report. 0, or -1 with r->err. */
static int commit_outputs(struct report *r)
{
    if (charts_commit(&r->ch, r->charts_dir, &r->copied, &r->err) != 0)
        return -1;
    if (exports_commit(r->ex, &r->err) != 0)
        return -1;
    for (size_t k = 0; k < 2; k++)
        if (r->sug_out[k].tmp && atomicfile_commit(&r->sug_out[k], &r->err) != 0)
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
        flat_print(stdout, &r->m, ri);
    flat_print_idle(stdout, &r->m, o->top);
    flat_print_runchecks(stdout, &r->m, o->top);
    flat_print_crashes(stdout, &r->m, o->top);
    printf("\n");
    if (o->suggest || o->suggest_list)
        suggest_print(stdout, &r->sug, &r->sug_files);
    else
        suggest_hint(stdout, &r->sug);
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
    atomicfile_discard(&r->sug_out[0]);
    atomicfile_discard(&r->sug_out[1]);
    charts_release(&r->ch);
    exports_free(r->ex);
    free(r->templates);
    free(r->cmdline);
    free(r->charts_dir);
    model_release(&r->m);
    compare_release(&r->cmp);
    suggest_release(&r->sug);
    model_release(&r->old);
    cli_release(o);
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
    cli_parse(argc, argv, &o);
    util_quiet = o.quiet;
    struct report r = {.out = {.fd = -1, .slot = -1},
                       .sug_out = {{.fd = -1, .slot = -1}, {.fd = -1, .slot = -1}}};
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
        rc = read_stage(&r, &o);
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
        rc = suggest_stage(&r, &o);
        if (rc == 0)
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
