/*
 * error.c - names of the error codes, and the library's version.
 */
#include "profreport.h"

/* One entry per enum prof_error value, in order; tests/unit/test_error.c keeps them in sync. */
static const char *const messages[] = {
    "success",
    "out of memory",
    "input/output error",
    "profiling is disabled",
    "not allowed in the current state",
    "not a profreport temporary file, or of an unknown format version",
    "invalid argument",
};

_Static_assert(sizeof messages / sizeof messages[0] == PROF_ERR_LAST,
               "one message per enum prof_error value");

/* A short lowercase description of err. */
const char *prof_strerror(enum prof_error err)
{
    if ((unsigned)err >= PROF_ERR_LAST)
        return "unknown error";
    return messages[err];
}

/* The library's version. */
const char *prof_version(void) { return PROF_VERSION_STRING; }
