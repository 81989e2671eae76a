/*
 * format.c - the run file's column names and column values (docs/FORMAT.md 1.3 to 1.5), the
 * one list the run-file writer and the run-file reader both use.
 */
#include "format.h"

const char *const prof_event_columns[PROF_EV_N] = {"Region", "Ticks", "Thread", "Parent",
                                                   "Depth",  "Self",  "Start",  "Nested"};

const char *const prof_summary_columns[PROF_SU_N] = {
    "Region", "Thread",    "Calls", "Ticks",  "Self",    "Min",   "Max", "SumSquares",
    "Outer",  "Histogram", "Node",  "Parent", "Samples", "Timed", "Wall"};

const char *const prof_memory_columns[PROF_ME_N] = {
    "Kind",      "Thread",   "Region",      "Site",      "Count",    "Bytes",
    "AllocKind", "FreeKind", "OtherThread", "OtherSite", "Function", "Stack"};

const char *const prof_memory_kinds[PROF_MK_N] = {
    "leak",     "runtime-reachable", "double-free", "unknown-free",
    "mismatch", "cross-thread-free", "region-bytes"};

const char *const prof_alloc_kinds[PROF_MEM_KIND_NAMES] = {"", "malloc", "new", "new[]"};
const char *const prof_free_kinds[PROF_MEM_KIND_NAMES] = {"", "free", "delete", "delete[]"};

/* The AllocKind value of an allocation kind. */
const char *prof_alloc_kind_name(int kind)
{
    return kind >= 0 && kind < PROF_MEM_KIND_LAST ? prof_alloc_kinds[kind + 1] : "";
}

/* The FreeKind value of a deallocation kind. */
const char *prof_free_kind_name(int kind)
{
    return kind >= 0 && kind < PROF_MEM_KIND_LAST ? prof_free_kinds[kind + 1] : "";
}
