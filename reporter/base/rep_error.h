/*
 * rep_error.h - rep_error.c: the reporter's one error convention. A function that can fail
 * fills a struct rep_error (a code and the whole message, as it will be shown) and returns
 * -1 (or NULL); the message travels with the value up to main(), the only place that prints
 * an error on stderr and turns its code into an exit status (exitcode.h).
 *
 * The one exception is running out of memory: xmalloc and its kin end the command through
 * die_nomem (util.h) with EXIT_INTERNAL, because a report half-made has nothing worth keeping
 * and every path that allocates would otherwise need an error path it could not test; the
 * atexit handler of atomicfile.c still removes the temporary files.
 *
 * Ownership: a struct rep_error is a plain value (no pointers); the caller provides it.
 */
#ifndef PROFREPORT_REP_ERROR_H
#define PROFREPORT_REP_ERROR_H

#include <stddef.h>

/* What kind of failure, which main() maps to an exit status (see rep_code_names). */
enum rep_code {
    REP_OK = 0,
    REP_ERR_USAGE,    /* the command line cannot be followed */
    REP_ERR_NO_INPUT, /* no run could be read */
    REP_ERR_OUTPUT,   /* an output (workbook, export, chart file) could not be written */
    REP_ERR_CHART,    /* a gnuplot chart could not be drawn (the report goes on without it) */
    REP_ERR_INTERNAL, /* an unexpected failure of the system */
    REP_ERR_LAST      /* the number of codes, not a code */
};

/* Long enough for a message naming two paths of a few thousand bytes. */
#define REP_ERROR_MAX 4400

struct rep_error {
    enum rep_code code;
    char msg[REP_ERROR_MAX]; /* "cannot write 'report.xlsx': Permission denied", no prefix */
};

/* Set e to code with the formatted message (cut to fit). Returns -1, for `return rep_fail(...)`. */
int rep_fail(struct rep_error *e, enum rep_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clear e: no error, empty message. */
void rep_error_clear(struct rep_error *e);

/* A code's name, "ok", "usage", ... ("unknown" past the table). */
const char *rep_code_name(enum rep_code code);

#endif /* PROFREPORT_REP_ERROR_H */
