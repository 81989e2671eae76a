/*
 * read.h - read.c: the read stage of a report: the runs a command line names, read into a
 * model (the program picked first, a progress bar on a terminal for large inputs), and a
 * comparison's baseline runs into a model of their own.
 *
 * Ownership: the model is the caller's; the options' strings are borrowed during the call.
 */
#ifndef PROFREPORT_READ_H
#define PROFREPORT_READ_H

#include "base/rep_error.h"
#include "model/model.h"

#include <stddef.h>

/* How runs are read: the command line's filters and program pick. */
struct read_options {
    const char *const *include, *const *exclude; /* --include, --exclude globs */
    size_t ninclude, nexclude;
    const char *program; /* --program, or NULL */
    int all_programs;    /* --all-programs */
    int progress;        /* a progress bar on stderr, when it is a terminal and inputs are large */
};

/*
 * Read the runs the paths name (files or folders of them) into m, keeping the program o picks
 * (programs.h). *ninputs: the inputs found. 0, or -1 with e (REP_ERR_NO_INPUT) when no run
 * could be read (each input's problems printed first) or --program names none (REP_ERR_USAGE
 * when it names several).
 */
int read_runs(struct model *m, const char *const *paths, size_t npaths,
              const struct read_options *o, size_t *ninputs, struct rep_error *e);
/*
 * --baseline: read the runs paths name into base, their warnings added to m's with their place
 * marked "baseline". 0, or -1 with e as read_runs says.
 */
int read_baseline(struct model *base, struct model *m, const char *const *paths, size_t npaths,
                  const struct read_options *o, struct rep_error *e);

#endif /* PROFREPORT_READ_H */
