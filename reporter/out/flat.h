/*
 * flat.h - flat.c: the terminal summary printed after the workbook is written (a flat
 * profile, or a comparison's changed regions).
 */
#ifndef PROFREPORT_FLAT_H
#define PROFREPORT_FLAT_H

#include "model/compare.h"
#include "model/model.h"
#include "out/workbook.h"

#include <stdio.h>

/* The terminal's flat profile of the top regions, on out. */
void flat_print(FILE *out, const struct model *m, const struct report_info *ri);
/* The terminal's account of a comparison: the regions that changed significantly. */
void flat_print_compare(FILE *out, const struct comparison *c, const struct report_info *ri);
/* The threads that were mostly idle (model_thread_idle), at most top of them by name: one line
   saying how many, then one per thread; nothing when none was. */
void flat_print_idle(FILE *out, const struct model *m, size_t top);
/* The runs measured on a busy machine and the outlier runs, at most top of each. */
void flat_print_runchecks(FILE *out, const struct model *m, size_t top);
/* The runs that crashed, with their signals: the first top of them. */
void flat_print_crashes(FILE *out, const struct model *m, size_t top);

#endif /* PROFREPORT_FLAT_H */
