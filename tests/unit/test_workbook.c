/*
 * test_workbook.c - unit tests of workbook.c's one public function, workbook_write, on small
 * models read from run files in memory.
 *
 * What they prove, and what not: C has no XLSX reader here, so the cells themselves are
 * checked by the functional tests (openpyxl). These tests read what needs no unpacking: an
 * XLSX file is a ZIP archive whose member names are stored uncompressed, so the sheets a
 * model produced can be counted from the names xl/worksheets/sheetN.xml; and workbook_write's
 * effects on the model (the "cut" warning) and its error value are plain data.
 */
#define _GNU_SOURCE /* fmemopen, memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "model/model.h"
#include "read/input.h"
#include "base/rep_error.h"
#include "out/workbook.h"

/* Read text as one run file into m. */
static void read_run(struct model *m, const char *text)
{
    FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
    assert_non_null(f);
    assert_int_equal(input_add_run(m, f, "run.csv", 0), RUNFILE_OK);
    fclose(f);
}

#define RUN_HEAD                                                                                   \
    "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"                                 \
    "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"

static const char plain_run[] = RUN_HEAD "a,20,1,main,1,20,0,0\n"
                                         "main,100,1,,0,80,0,0\n";

/* The report's options as the command passes them, without charts. */
static struct report_info info(void)
{
    struct report_info ri = {0};
    ri.title = "test";
    ri.command_line = "profreport run.csv";
    ri.generated = "2026-01-01 00:00:00 UTC";
    ri.unit = "auto";
    ri.top = 15;
    ri.ninputs = 1;
    ri.charts_note = "no gnuplot charts: a unit test";
    return ri;
}

/* A fresh path for a workbook in a private folder (caller frees both). */
static char *book_path(char **dir)
{
    *dir = strdup("/tmp/test_workbook-XXXXXX");
    assert_non_null(mkdtemp(*dir));
    size_t len = strlen(*dir) + 16;
    char *p = malloc(len);
    snprintf(p, len, "%s/r.xlsx", *dir);
    return p;
}

/* Worksheets in the archive: each member name is stored twice (its local header and the
   central directory), so the distinct sheets are half the occurrences. */
static size_t sheet_count(const char *zip, size_t len)
{
    static const char name[] = "xl/worksheets/sheet";
    size_t n = 0;
    const char *p = zip, *end = zip + len;
    while ((p = memmem(p, (size_t)(end - p), name, sizeof name - 1))) {
        n++;
        p += sizeof name - 1;
    }
    return n / 2;
}

/* Write m and count its sheets; *cut (when cut is not NULL): the strings cut. */
static size_t sheets_cut(const struct model *m, const struct report_info *ri, unsigned long *cut)
{
    char *dir, *path = book_path(&dir);
    struct rep_error e;
    assert_int_equal(workbook_write(path, m, ri, cut, &e), 0);
    size_t len;
    char *zip = file_read(path, &len);
    assert_memory_equal(zip, "PK\3\4", 4);
    size_t n = sheet_count(zip, len);
    free(zip);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
    return n;
}

/* Write m and count its sheets. */
static size_t sheets_of(const struct model *m, const struct report_info *ri)
{
    return sheets_cut(m, ri, NULL);
}

/* Without memory findings or a comparison the workbook has its ten sheets: Summary, Call cost,
   Hit count, Runs, Threads, Call tree, Call paths, Warnings, Charts, About. */
static void a_plain_report_has_ten_sheets(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    read_run(&m, plain_run);
    struct report_info ri = info();
    assert_int_equal(sheets_of(&m, &ri), 10);
    model_release(&m);
}

/* A run with a memory section adds the Memory sheet. */
static void memory_findings_add_the_memory_sheet(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    read_run(&m, RUN_HEAD "main,100,1,,0,100,0,0\n"
                          "Table,memory\nKind,Thread,Region,Site,Count,Bytes,AllocKind,"
                          "FreeKind,OtherThread,OtherSite\n"
                          "leak,1,main,x.c:3,2,200,malloc,,,\n");
    struct report_info ri = info();
    assert_int_equal(sheets_of(&m, &ri), 11);
    model_release(&m);
}

/* A comparison puts its two sheets (Comparison, Comparison runs) before the others. */
static void a_comparison_adds_its_two_sheets(void **state)
{
    (void)state;
    struct model base, now;
    model_init(&base);
    model_init(&now);
    model_keep_paths(&now);
    read_run(&base, plain_run);
    read_run(&now, plain_run);
    struct compare_options o = {0.01, 0.05, 1, 100};
    struct comparison c;
    compare_build(&base, &now, &o, &c);
    struct report_info ri = info();
    ri.compare = &c;
    assert_int_equal(sheets_of(&now, &ri), 12);
    compare_release(&c);
    model_release(&base);
    model_release(&now);
}

/* A region id longer than Excel's 32767-character cell limit is cut wherever it is written,
   and the workbook says so once, as a "cut" warning that workbook_warn_cut adds to the model. */
static void overlong_strings_are_cut_and_counted(void **state)
{
    (void)state;
    size_t n = 40000;
    char *text = malloc(sizeof RUN_HEAD + n + 64);
    strcpy(text, RUN_HEAD);
    char *p = text + strlen(text);
    memset(p, 'x', n);
    strcpy(p + n, ",10,1,,0,10,0,0\n");
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    read_run(&m, text);
    free(text);
    size_t before = m.nwarnings;
    struct report_info ri = info();
    unsigned long cut = 0;
    assert_int_equal(sheets_cut(&m, &ri, &cut), 10);
    assert_int_equal(m.nwarnings, before); /* the workbook changes no model */
    workbook_warn_cut(&m, cut);
    assert_int_equal(m.nwarnings, before + 1);
    const struct warning_rec *w = &m.warnings[before];
    assert_string_equal(w->kind, "cut");
    assert_string_equal(w->where, "workbook");
    assert_true(w->count >= 2); /* at least the Call cost and Hit count sheets' cells */
    assert_non_null(strstr(w->message, "32767-character cell limit were cut"));
    model_release(&m);
}

/* A workbook that cannot be created is an error value saying why, and profreport prints
   nothing: the message is the caller's to show. (libxlsxwriter itself prints an "[ERROR]"
   line, which we cannot turn off; the command's workbook path is a temporary file it has
   just created, so it shows only when that file vanishes.) */
static void an_unwritable_place_is_an_error_value(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, plain_run);
    struct report_info ri = info();
    char err_path[] = "/tmp/test_workbook-stderr-XXXXXX";
    int fd = mkstemp(err_path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    struct rep_error e;
    int rc = workbook_write("/nonexistent-folder/r.xlsx", &m, &ri, NULL, &e);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    assert_int_equal(rc, -1);
    assert_int_equal(e.code, REP_ERR_OUTPUT);
    assert_string_equal(e.msg, "libxlsxwriter: Error creating output xlsx file. Usually a "
                               "permissions error.");
    char printed[4096] = "";
    assert_true(pread(fd, printed, sizeof printed - 1, 0) >= 0);
    close(fd);
    assert_null(strstr(printed, "profreport"));
    assert_null(strstr(printed, "Usually a permissions error"));
    unlink(err_path);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_plain_report_has_ten_sheets),
        cmocka_unit_test(memory_findings_add_the_memory_sheet),
        cmocka_unit_test(a_comparison_adds_its_two_sheets),
        cmocka_unit_test(overlong_strings_are_cut_and_counted),
        cmocka_unit_test(an_unwritable_place_is_an_error_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
