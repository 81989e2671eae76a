/*
 * read.c - the read stage: which runs of the inputs the model keeps (a first look at each
 * input's metadata picks the program), reading them on two cores (pipeline.c) with a progress
 * bar, then the source lines their functions left to the reporter (srclines.c), and the
 * baseline's runs for a comparison.
 */
#include "read/read.h"
#include "read/input.h"
#include "read/pipeline.h"
#include "read/srclines.h"
#include "model/programs.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Input larger than this gets a progress bar (on a terminal). */
#define PROGRESS_BYTES (32u << 20)

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

/* ---- which runs ---- */

/* Each problem of the inputs that left m without a run, before the error that ends the command
   (warnings are kept for the Warnings sheet, and -q hid them as they came). */
static void print_problems(const struct model *m)
{
    for (size_t i = 0; i < m->nwarnings; i++)
        fprintf(stderr, "profreport: %s: %s\n", m->warnings[i].where, m->warnings[i].message);
}

/*
 * Which runs of the inputs m keeps (model_pick): with --all-programs all; else a first look at
 * each input's metadata counts the runs per program and their time, and the program --program
 * names, or the one whose runs took the most time (programs_choose), is picked. A pipe cannot be
 * looked at twice: its run is counted when it is read, and kept if it is of the program picked (or,
 * when only pipes were given, of the first program read). 0, or -1 with e when --program names no
 * program or several.
 */
static int pick_program(const struct read_options *o, struct model *m, const struct input *in,
                        size_t n, struct rep_error *e)
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
static int no_run_picked(const struct read_options *o, const struct model *m, const char *side,
                         struct rep_error *e)
{
    size_t k;
    if (m->nprograms == 0 || programs_choose(m->programs, m->nprograms, o->program, &k, e) != 0)
        return -1;
    return rep_fail(e, REP_ERR_NO_INPUT, "no %srun of program '%s'", side,
                    o->program ? o->program : "(first read)");
}

/* The command line's --include and --exclude, for the model to apply as rows come. */
static void filter(struct model *m, const struct read_options *o)
{
    m->include = o->include;
    m->ninclude = o->ninclude;
    m->exclude = o->exclude;
    m->nexclude = o->nexclude;
}

/* Read the runs named on the command line into the model, with a progress bar for large
   inputs on a terminal. */
int read_runs(struct model *m, const char *const *paths, size_t npaths,
              const struct read_options *o, size_t *ninputs, struct rep_error *e)
{
    filter(m, o);
    struct input *in = NULL;
    size_t n = inputs_collect(paths, npaths, &in, m);
    *ninputs = n;
    if (n == 0)
        return rep_fail(e, REP_ERR_NO_INPUT,
                        "no run files found in the paths given (run files are *.csv; folders "
                        "are not searched recursively)");
    if (pick_program(o, m, in, n, e) != 0) {
        inputs_free(in, n);
        return -1;
    }
    struct progress bar = {inputs_size(in, n), 0, -1};
    struct input_progress counter = {progress_add, &bar};
    int shown = o->progress && isatty(STDERR_FILENO) && bar.total >= PROGRESS_BYTES;
    pipeline_read(in, n, m, shown ? &counter : NULL);
    inputs_free(in, n);
    if (shown)
        fputs("\n", stderr);
    srclines_locate(m);
    if (m->nruns > 0)
        return 0;
    if (m->nprograms > 0)
        return no_run_picked(o, m, "", e);
    print_problems(m);
    return rep_fail(e, REP_ERR_NO_INPUT, "no readable run among %zu input%s", n, n == 1 ? "" : "s");
}

/* Read the baseline runs into base; their warnings join m's, their place marked "baseline". */
int read_baseline(struct model *base, struct model *m, const char *const *paths, size_t npaths,
                  const struct read_options *o, struct rep_error *e)
{
    filter(base, o);
    struct input *in = NULL;
    size_t n = inputs_collect(paths, npaths, &in, base);
    if (pick_program(o, base, in, n, e) != 0) {
        inputs_free(in, n);
        struct rep_error why = *e;
        return rep_fail(e, why.code, "baseline: %s", why.msg);
    }
    pipeline_read(in, n, base, NULL);
    inputs_free(in, n);
    srclines_locate(base);
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
