/*
 * rep_error.c - filling the reporter's error values (see rep_error.h).
 */
#include "base/rep_error.h"

#include <stdarg.h>
#include <stdio.h>

/* One name per code, in the enum's order; test_rep_error.c keeps the two in step. */
static const char *const rep_code_names[REP_ERR_LAST] = {"ok",     "usage", "no input",
                                                         "output", "chart", "internal"};

/* Record the failure in e. */
int rep_fail(struct rep_error *e, enum rep_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->code = code;
    return -1;
}

/* No error. */
void rep_error_clear(struct rep_error *e)
{
    e->code = REP_OK;
    e->msg[0] = 0;
}

/* The code's name. */
const char *rep_code_name(enum rep_code code)
{
    return (unsigned)code < REP_ERR_LAST ? rep_code_names[code] : "unknown";
}
