/*
 * test_tables.c - unit tests of tables.c: the tables every statistics output renders, their
 * column schemas and row orders. Run files are read from memory.
 */
#define _GNU_SOURCE /* fmemopen */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "read/input.h"
#include "model/tables.h"
#include "base/util.h"

/* Read text as one run file into m. */
static void read_run(struct model *m, const char *text)
{
    FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
    assert_non_null(f);
    assert_int_equal(input_add_run(m, f, "run.csv", 0), RUNFILE_OK);
    fclose(f);
}

/* 1 tick = 1 ns. main (100) calls a (30, twice) and b (30 once); b calls a (5). */
static const char tree_run[] = "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"
                               "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                               "a,15,1,main,1,15,0,0\n"
                               "a,5,1,b,2,5,20,0\n"
                               "b,30,1,main,1,25,16,0\n"
                               "a,15,1,main,1,15,50,0\n"
                               "main,100,1,,0,40,0,0\n";

/* A time column's header names the unit it is shown in: per-call columns the cost unit,
   summed ones the total unit; other columns are their name alone. */
static void time_headers_carry_their_unit(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    struct table t;
    table_open(&t, &m, TABLE_CALLCOST);
    struct unit us = {"us", 1e3}, ms = {"ms", 1e6};
    char h[64];
    assert_string_equal(column_header(h, sizeof h, &t.cols[0], us, ms), "Region");
    assert_string_equal(column_header(h, sizeof h, &t.cols[CC_TOTAL], us, ms), "Total (ms)");
    assert_string_equal(column_header(h, sizeof h, &t.cols[CC_TOTAL_SHARE], us, ms), "Total %");
    assert_string_equal(column_header(h, sizeof h, &t.cols[CC_MEAN], us, ms), "Mean (us)");
    assert_string_equal(column_header(h, sizeof h, &t.cols[CC_CI95], us, ms), "95% CI +/- (us)");
    assert_string_equal(column_header(h, sizeof h, &t.cols[CC_TOTAL_PM], us, ms), "Total +/- (ms)");
    assert_string_equal(column_header(h, sizeof h, &t.cols[CC_WALL_PM], us, ms), "Wall +/- (ms)");
    assert_string_equal(column_header(h, sizeof h, &t.cols[CC_OFFCPU], us, ms), "Off-CPU (ms)");
    assert_string_equal(column_header(h, sizeof h, &t.cols[CC_LEFT_OUT], us, ms), "Left out");
    assert_int_equal(t.ncols, 31);
    assert_int_equal(t.nrows, 0);
    table_close(&t);
    table_open(&t, &m, TABLE_RUNS);
    assert_string_equal(column_header(h, sizeof h, &t.cols[8], us, ms), "Frequency (Hz)");
    assert_string_equal(column_header(h, sizeof h, &t.cols[10], us, ms), "Duration (ms)");
    table_close(&t);
    model_release(&m);
}

/* Call tree rows: heavier edges first, equal ones by callee; a top-level caller is a note. */
static void call_tree_is_heaviest_edge_first(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, tree_run);
    struct table t;
    table_open(&t, &m, TABLE_CALLTREE);
    assert_int_equal(t.nrows, 4);
    struct cell c[TABLE_MAX_COLS];
    /* (top) -> main 100, main -> a 30 and main -> b 30 (a was seen first), b -> a 5. */
    static const char *const want[][2] = {
        {"(thread top level)", "main"}, {"main", "a"}, {"main", "b"}, {"b", "a"}};
    static const double total[] = {100, 30, 30, 5};
    for (size_t i = 0; i < 4; i++) {
        table_row(&t, i, c);
        assert_string_equal(c[0].s, want[i][0]);
        assert_int_equal(c[0].note, i == 0);
        assert_string_equal(c[1].s, want[i][1]);
        assert_int_equal(c[3].kind, CELL_NUM);
        assert_true(c[3].v == total[i]);
    }
    table_close(&t);
    model_release(&m);
}

/* Call tree rows of a callee left out by --exclude are left out too. */
static void excluded_callees_leave_the_call_tree(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    static const char *const exclude[] = {"a"};
    m.exclude = exclude;
    m.nexclude = 1;
    read_run(&m, tree_run);
    struct table t;
    table_open(&t, &m, TABLE_CALLTREE);
    struct cell c[TABLE_MAX_COLS];
    assert_int_equal(t.nrows, 2);
    for (size_t i = 0; i < t.nrows; i++) {
        table_row(&t, i, c);
        assert_string_not_equal(c[1].s, "a");
    }
    table_close(&t);
    model_release(&m);
}

/* Call cost rows come by total time, heaviest first; undefined statistics are empty cells. */
static void call_cost_rows_are_ranked_and_undefined_values_empty(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, tree_run);
    struct table t;
    table_open(&t, &m, TABLE_CALLCOST);
    assert_int_equal(t.nrows, 3);
    struct cell c[TABLE_MAX_COLS];
    static const char *const order[] = {"main", "a", "b"};
    for (size_t i = 0; i < 3; i++) {
        table_row(&t, i, c);
        assert_string_equal(c[0].s, order[i]);
    }
    /* b: one call, so no standard deviation; no source file, so no line. */
    assert_int_equal(c[CC_CALLS].kind, CELL_INT);
    assert_int_equal(c[CC_CALLS].i, 1);
    assert_int_equal(c[CC_STDDEV].kind, CELL_NONE);
    assert_int_equal(c[CC_FILE].kind, CELL_NONE);
    assert_int_equal(c[CC_LINE].kind, CELL_NONE);
    table_close(&t);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(time_headers_carry_their_unit),
        cmocka_unit_test(call_tree_is_heaviest_edge_first),
        cmocka_unit_test(excluded_callees_leave_the_call_tree),
        cmocka_unit_test(call_cost_rows_are_ranked_and_undefined_values_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
