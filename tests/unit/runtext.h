/*
 * runtext.h - for unit tests that read run files written out in the test: a run file's text
 * read into a model, and the headers of a memory section. Include it after cmocka.h, with
 * _GNU_SOURCE defined (fmemopen).
 */
#ifndef PROFREPORT_TEST_RUNTEXT_H
#define PROFREPORT_TEST_RUNTEXT_H

#include "model/model.h"
#include "read/input.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A version 3 events run with one row of region a, for a memory section to follow. */
#define RUNTEXT_HEAD                                                                               \
    "Frequency,1000\nFormat,profreport-run,3\nMode,events\n"                                       \
    "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\na,5,1,,0,5,0,0\n"
/* The memory section's header lines (FORMAT.md 1.5). */
#define RUNTEXT_MEM_HEAD                                                                           \
    "Table,memory\nKind,Thread,Region,Site,Count,Bytes,AllocKind,FreeKind,OtherThread,OtherSite,"  \
    "Function,Stack\n"

/* Read text as one run file into m; it must read to the end. */
static inline void runtext_read(struct model *m, const char *text)
{
    FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
    assert_non_null(f);
    assert_int_equal(input_add_run(m, f, "run.csv", 0), RUNFILE_OK);
    fclose(f);
}

#endif /* PROFREPORT_TEST_RUNTEXT_H */
