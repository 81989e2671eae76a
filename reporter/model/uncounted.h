/*
 * uncounted.h - uncounted.c: a sampled run's rows of a function whose calls were not counted
 * (FORMAT.md 1.4) - one its filters left out, or one compiled without hooks - told apart from
 * contexts that never stopped and merged into the model.
 *
 * Ownership: struct uncounted_run owns its copies of the names marked and the rows it keeps;
 * uncounted_run_end frees them.
 */
#ifndef PROFREPORT_UNCOUNTED_H
#define PROFREPORT_UNCOUNTED_H

#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

/* A summary row with Calls 0, as the model places it: its times converted to ns. */
struct uncounted_row {
    size_t region, key;        /* its region; its thread's key */
    size_t caller;             /* its parent row's region; SIZE_MAX at the top level */
    uint32_t cct;              /* its call-path node; CCT_NONE when the tree is not kept */
    int node;                  /* a version 3 row: it has a calling context, and caller */
    double ticks, self, outer; /* ns */
    double sample_ns;          /* what one sample of its thread stands for (thread_sample_ns) */
    double spread;             /* its thread's samples' spread (thread_sample_spread) */
};

/* What the run being read says of its functions compiled without hooks, and its Calls-0 rows
   not yet known to be a function's (zeroed before the run). */
struct uncounted_run {
    struct uncounted_name {
        char *s; /* the region id, NUL-ended */
        size_t n;
    } * marked;                         /* the regions its Function records mark uninstrumented */
    size_t nmarked, marked_cap, sorted; /* marked[0..sorted) are in order */
    struct uncounted_row *rows;
    size_t nrows, rows_cap;
};

/* A Function record f[0..n): remember its region when its seventh field marks it as compiled
   without hooks (FORMAT.md 1.2). Returns whether it does. */
int uncounted_function_record(struct uncounted_run *u, const char *const *f, const size_t *lens,
                              size_t n);
/*
 * A Calls-0 row x of run `run`: when the run's Function records mark its region uninstrumented
 * or the run's filters leave it out, a function's samples whose calls were not counted,
 * counted as its self time (per run, thread key and caller edge) and marked on its call-path
 * node; otherwise a context that never stopped, which adds nothing, kept in u in case a
 * Function record marking its region comes later in the run.
 */
void uncounted_row_add(struct uncounted_run *u, struct model *m, size_t run,
                       const struct uncounted_row *x);
/* The run's records are all read: the rows u kept whose region a later record marked are
   counted, unless the run is not kept; u is freed and zeroed. */
void uncounted_run_end(struct uncounted_run *u, struct model *m, size_t run, int kept);

#endif /* PROFREPORT_UNCOUNTED_H */
