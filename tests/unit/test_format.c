/*
 * test_format.c - unit tests of format/format.c: the run file's column names and column values,
 * checked against the text of docs/FORMAT.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

/* The names joined with commas, as a header line of the run file shows them (caller frees). */
static char *joined(const char *const *names, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(names[i]) + 1;
    char *s = calloc(1, len);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(s, ",");
        strcat(s, names[i]);
    }
    return s;
}

/* The three headers are FORMAT.md's lines 1.3, 1.4 and 1.5, column for column. */
static void headers_are_the_documented_lines(void **state)
{
    (void)state;
    char *s = joined(prof_event_columns, PROF_EV_N);
    assert_string_equal(s, "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested");
    free(s);
    s = joined(prof_summary_columns, PROF_SU_N);
    assert_string_equal(
        s, "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent,Samples,"
           "Timed,Wall");
    free(s);
    s = joined(prof_memory_columns, PROF_ME_N);
    assert_string_equal(
        s, "Kind,Thread,Region,Site,Count,Bytes,AllocKind,FreeKind,OtherThread,OtherSite,"
           "Function,Stack");
    free(s);
}

/* The enums name the columns where the lists hold them. */
static void column_enums_index_the_names(void **state)
{
    (void)state;
    assert_string_equal(prof_event_columns[PROF_EV_REGION], "Region");
    assert_string_equal(prof_event_columns[PROF_EV_NESTED], "Nested");
    assert_string_equal(prof_summary_columns[PROF_SU_REGION], "Region");
    assert_string_equal(prof_memory_columns[PROF_ME_KIND], "Kind");
    assert_string_equal(prof_memory_columns[PROF_ME_N_BASE - 1], "OtherSite");
    assert_string_equal(prof_memory_columns[PROF_ME_STACK], "Stack");
}

/* The Kind values of the memory section, one per enum prof_memory_kind, as FORMAT.md 1.5 lists. */
static void memory_kinds_are_the_documented_values(void **state)
{
    (void)state;
    assert_string_equal(prof_memory_kinds[PROF_MK_LEAK], "leak");
    assert_string_equal(prof_memory_kinds[PROF_MK_RUNTIME], "runtime-reachable");
    assert_string_equal(prof_memory_kinds[PROF_MK_DOUBLE_FREE], "double-free");
    assert_string_equal(prof_memory_kinds[PROF_MK_UNKNOWN_FREE], "unknown-free");
    assert_string_equal(prof_memory_kinds[PROF_MK_MISMATCH], "mismatch");
    assert_string_equal(prof_memory_kinds[PROF_MK_CROSS_THREAD], "cross-thread-free");
    assert_string_equal(prof_memory_kinds[PROF_MK_REGION_BYTES], "region-bytes");
    assert_int_equal(PROF_MK_N, 7);
}

/* AllocKind and FreeKind name each kind of the public enum; anything else is the empty field. */
static void kind_names_and_the_empty_field(void **state)
{
    (void)state;
    assert_string_equal(prof_alloc_kind_name(PROF_MEM_MALLOC), "malloc");
    assert_string_equal(prof_alloc_kind_name(PROF_MEM_NEW), "new");
    assert_string_equal(prof_alloc_kind_name(PROF_MEM_NEW_ARRAY), "new[]");
    assert_string_equal(prof_free_kind_name(PROF_MEM_MALLOC), "free");
    assert_string_equal(prof_free_kind_name(PROF_MEM_NEW), "delete");
    assert_string_equal(prof_free_kind_name(PROF_MEM_NEW_ARRAY), "delete[]");
    const int outside[] = {-1, PROF_MEM_KIND_LAST, 1000};
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        assert_string_equal(prof_alloc_kind_name(outside[i]), "");
        assert_string_equal(prof_free_kind_name(outside[i]), "");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(headers_are_the_documented_lines),
        cmocka_unit_test(column_enums_index_the_names),
        cmocka_unit_test(memory_kinds_are_the_documented_values),
        cmocka_unit_test(kind_names_and_the_empty_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
