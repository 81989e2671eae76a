/*
 * export.h - export.c: the report's data for other tools (Chrome trace, folded stacks,
 * callgrind, CSV files, one JSON file), each written to a temporary file and renamed into
 * place.
 *
 * Ownership: struct exports owns its temporary files and buffers; exports_free removes what
 * was not committed and frees the rest. The model and its sink slot are borrowed.
 */
#ifndef PROFREPORT_EXPORT_H
#define PROFREPORT_EXPORT_H

#include "model/cct.h"
#include "model/model.h"
#include "base/rep_error.h"
#include "model/tables.h"
#include "base/util.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One CSV text field: a leading = + - @ TAB or CR gets a ' (OWASP), then RFC 4180 quoting. */
void export_csv_text(struct prof_sbuf *b, const char *s);
/* s[0..n) as a JSON string literal: invalid UTF-8 repaired, quotes and controls escaped. */
void export_json_text(struct prof_sbuf *b, const char *s, size_t n);
/* s[0..n) as one frame of a folded stack: repaired, ';' -> ':', control characters -> ' '. */
void export_folded_frame(struct prof_sbuf *b, const char *s, size_t n);
/* s[0..n) as a callgrind function name: repaired, control characters -> ' '. */
void export_callgrind_name(struct prof_sbuf *b, const char *s, size_t n);

/*
 * One Chrome trace event, with the comma that separates it from the previous one unless
 * first: a complete ("X") event, or a begin ("B") event for an instance that never stopped.
 * name_json is the name as a JSON literal; times in ns (written in microseconds).
 */
void export_trace_event(struct prof_sbuf *b, int first, const char *name_json, size_t pid,
                        unsigned tid, double start_ns, int stopped, double dur_ns, double self_ns,
                        unsigned depth, int nested);

/* A size in bytes as text: "1 GB", "500 MB", or "1234 bytes" when not a whole unit. */
void export_size_text(char *out, size_t n, uint64_t bytes);
/* Parse a --trace-limit size: digits, then optionally k, M, G or T (powers of 1000) and B.
   0, or -1 when s is not one. */
int export_size_parse(const char *s, uint64_t *out);

/* The folded stacks of every path with self time: "a;b;c <self ns>" lines. 0, or -1. */
int export_folded_write(FILE *f, const struct cct *t);
/* Where a function's code is, for callgrind: its source file (NULL when unknown) and line. */
struct export_source {
    const char *file;
    unsigned long line;
};
/*
 * The tree in callgrind format (events: ns); cmd names the profiled command. src, indexed by
 * the tree's name index (or NULL: nothing known), puts each function in its source file at its
 * line; a function with no known file goes in the pseudo file "regions", at line 0. 0, or -1.
 */
int export_callgrind_write(FILE *f, const struct cct *t, const char *cmd, size_t nruns,
                           const struct export_source *src);

/* The statistics tables of tables.c, written by --csv (one file each, named by table_names)
   and --json (one member each), times in ns. */
/* One table as CSV (header line first). 0, or -1 on a write error. */
int export_csv_write(FILE *f, const struct model *m, enum table_id which);
/* Every table as one JSON object, and, when cmp is not NULL, the comparison as its
   "comparison" member. 0, or -1 on a write error. */
struct comparison;
int export_json_write(FILE *f, const struct model *m, const char *command_line,
                      const struct comparison *cmp);
/* A comparison (--baseline) as CSV: its table (comparison.csv) and its summary
   (comparison_summary.csv, Key,Value lines). 0, or -1 on a write error. */
int export_compare_csv_write(FILE *f, const struct comparison *c);
int export_compare_summary_csv_write(FILE *f, const struct comparison *c);

/* What the command line asked for; NULL: not wanted. */
struct export_options {
    const char *trace, *folded, *callgrind, *csv_dir, *json;
    const char *command_line; /* for the exports' metadata */
    uint64_t trace_limit;     /* --trace-limit: bytes of trace; 0: no limit */
};

/* --trace-limit's default: 1 GB of JSON, about the most Perfetto's web UI loads (it holds the
   parsed trace in the browser's memory, several times the file's size). */
#define EXPORT_TRACE_LIMIT 1000000000ull

/*
 * The exports of one report. exports_open creates their temporary files (so an unwritable
 * place fails before any work), attaches the row sink to m for the trace and asks m to keep
 * its calling-context tree for folded stacks and callgrind; exports_write fills them
 * after reading; exports_commit renames them into place; exports_free removes what was not
 * committed. Errors: -1 (or NULL) with the message in e (rep_error.h).
 *
 * The trace keeps whole runs, in the order they are read, while they fit in
 * o->trace_limit: a run that would pass it is left out (a warning in m says which), and when
 * every run with instances is left out, exports_write refuses the trace (REP_ERR_OUTPUT).
 */
struct exports;
struct exports *exports_open(const struct export_options *o, struct model *m, struct rep_error *e);
int exports_write(struct exports *x, const struct model *m, struct rep_error *e);
int exports_commit(struct exports *x, struct rep_error *e);
/* Add the comparison (borrowed: it must outlive exports_write) to the CSV and JSON
   statistics, before exports_write. */
void exports_compare(struct exports *x, const struct comparison *c);
/* "trace:    FILE" lines for the terminal, one per export written. */
void exports_print(const struct exports *x, FILE *out);
void exports_free(struct exports *x);

#endif /* PROFREPORT_EXPORT_H */
