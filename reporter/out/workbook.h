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

/* Write the workbook to path (the caller renames it into place). 0, or -1 with e
   (REP_ERR_OUTPUT) saying why, without the workbook's name (the caller knows it). */
int workbook_write(const char *path, struct model *m, const struct report_info *ri,
                   struct rep_error *e);

#endif /* PROFREPORT_WORKBOOK_H */
