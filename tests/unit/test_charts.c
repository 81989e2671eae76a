/*
 * test_charts.c - unit tests of charts.c: where a report's charts go. (Drawing them is
 * gnuplot.c's, tested in test_gnuplot.c; the charts of real reports in the functional tests.)
 */
#define _GNU_SOURCE /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/charts.h"
#include "base/util.h"
#include "files.h"

/* The charts folder sits beside the workbook: its name without .xlsx, then -charts. */
static void charts_folder_is_named_after_the_workbook(void **state)
{
    (void)state;
    static const char *const cases[][2] = {{"report.xlsx", "report-charts"},
                                           {"out/r.xlsx", "out/r-charts"},
                                           {"r.XLSX", "r.XLSX-charts"},
                                           {".xlsx", ".xlsx-charts"},
                                           {"plain", "plain-charts"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *d = charts_dir_for(cases[i][0]);
        assert_string_equal(d, cases[i][1]);
        free(d);
    }
}

/* Committing copies each chart's PNG and SVG from the work folder into the charts folder,
   made on the way, and counts the files. */
static void commit_copies_both_pictures_of_each_chart(void **state)
{
    (void)state;
    char work[] = "/tmp/test_charts-XXXXXX";
    assert_non_null(mkdtemp(work));
    static const char *const files[] = {"flame.png", "flame.svg"};
    for (size_t i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", work, files[i]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(files[i], f);
        fclose(f);
    }
    struct chart_set ch = {0};
    ch.work = work;
    ch.bases[0] = (char[]){"flame"};
    ch.n = 1;
    char dest[128];
    snprintf(dest, sizeof dest, "%s/out/charts", work);
    size_t copied = 0;
    struct rep_error e;
    assert_int_equal(charts_commit(&ch, dest, &copied, &e), 0);
    assert_int_equal(copied, 2);
    for (size_t i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dest, files[i]);
        size_t len;
        char *text = file_read(path, &len);
        assert_string_equal(text, files[i]);
        free(text);
        unlink(path);
        snprintf(path, sizeof path, "%s/%s", work, files[i]);
        unlink(path);
    }
    rmdir(dest);
    snprintf(dest, sizeof dest, "%s/out", work);
    rmdir(dest);
    rmdir(work);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(charts_folder_is_named_after_the_workbook),
        cmocka_unit_test(commit_copies_both_pictures_of_each_chart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
