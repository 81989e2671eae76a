/*
 * uncounted.h - uncounted.c: a sampled run's rows of a function whose calls were not counted
 * (FORMAT.md 1.4), told apart from contexts that never stopped and merged into the model.
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
};

/*
 * A Calls-0 row x of run `run`: when the run left its region out, a function's samples whose
 * calls were not counted, counted as its self time (per run, thread key and caller edge) and
 * marked on its call-path node; otherwise a context that never stopped, which adds nothing.
 */
void uncounted_row_add(struct model *m, size_t run, const struct uncounted_row *x);

#endif /* PROFREPORT_UNCOUNTED_H */
