/*
 * workbook.h - workbook.c: the report as an XLSX workbook written with libxlsxwriter.
 *
 * Ownership: everything in struct report_info is borrowed for the call.
 */
#ifndef PROFREPORT_WORKBOOK_H
#define PROFREPORT_WORKBOOK_H

#include "model/compare.h"
#include "model/model.h"
#include "base/rep_error.h"

#include <stddef.h>

/* What the outputs need besides the model. */
struct report_info {
    const char *title;
    const char *command_line;
    const char *generated; /* local time the report was made */
    const char *unit;      /* --unit: "auto", "s", "ms", "us" or "ns" */
    size_t top;            /* regions in charts and the terminal summary */
    size_t ninputs;
    const char *const *images; /* chart PNGs to embed; must exist until workbook_write returns */
    const char *const *image_titles;
    size_t nimages;
    const char *charts_note;          /* why there are no gnuplot charts, or NULL */
    const struct comparison *compare; /* --baseline: the Comparison sheets; NULL otherwise */
};

/*
 * Write the workbook to path (the caller renames it into place). 0, or -1 with e
 * (REP_ERR_OUTPUT) saying why, without the workbook's name (the caller knows it). *cut (when
 * cut is not NULL) is the number of strings cut to Excel's cell limit: the Warnings sheet says
 * so, and workbook_warn_cut tells the model for the outputs written after the workbook.
 */
int workbook_write(const char *path, const struct model *m, const struct report_info *ri,
                   unsigned long *cut, struct rep_error *e);
/* Add the "cut" warning of cut strings (workbook_write's *cut) to m; nothing when cut is 0. */
void workbook_warn_cut(struct model *m, unsigned long cut);

#endif /* PROFREPORT_WORKBOOK_H */
