/*
 * test_read.c - unit tests of read.c, the read stage: the program with the most runs is
 * picked, --program picks another, the baseline's warnings join the new model's, and no run
 * at all is an error value. Files are made in a private temporary folder.
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

#include "read/read.h"
#include "model/model.h"
#include "base/util.h"

/* A run of program prog with one region. */
static void write_run(const char *dir, const char *name, const char *prog, const char *region)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "Frequency,1000\nFormat,profreport-run,2\nMode,events\nProgram,%s\n"
            "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n%s,5,1,,0,5,0,0\n",
            prog, region);
    fclose(f);
}

/* A private folder: two runs of /bin/a, one of /bin/b (the caller removes it). */
static char *three_runs(void)
{
    char *dir = xstrdup("/tmp/test_read-XXXXXX");
    assert_non_null(mkdtemp(dir));
    write_run(dir, "1.csv", "/bin/a", "ra");
    write_run(dir, "2.csv", "/bin/a", "ra");
    write_run(dir, "3.csv", "/bin/b", "rb");
    return dir;
}

/* Remove the folder of three_runs. */
static void remove_runs(char *dir)
{
    const char *names[] = {"1.csv", "2.csv", "3.csv", "bad.csv"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    free(dir);
}

/* Without --program, the program with the most runs is the report's. */
static void the_program_with_most_runs_is_read(void **state)
{
    (void)state;
    char *dir = three_runs();
    const char *paths[] = {dir};
    struct read_options o = {0};
    struct model m;
    model_init(&m);
    struct rep_error e;
    size_t n = 0;
    assert_int_equal(read_runs(&m, paths, 1, &o, &n, &e), 0);
    assert_int_equal(n, 3);
    assert_int_equal(m.nruns, 2);
    assert_true(model_find(&m, "ra", 2) != SIZE_MAX);
    assert_true(model_find(&m, "rb", 2) == SIZE_MAX);
    model_release(&m);
    remove_runs(dir);
}

/* --program b reads b's run only; --all-programs reads all three. */
static void program_and_all_programs_choose_other_runs(void **state)
{
    (void)state;
    char *dir = three_runs();
    const char *paths[] = {dir};
    struct rep_error e;
    size_t n = 0;
    struct read_options o = {.program = "b"};
    struct model m;
    model_init(&m);
    assert_int_equal(read_runs(&m, paths, 1, &o, &n, &e), 0);
    assert_int_equal(m.nruns, 1);
    assert_true(model_find(&m, "rb", 2) != SIZE_MAX);
    model_release(&m);
    struct read_options all = {.all_programs = 1};
    model_init(&m);
    assert_int_equal(read_runs(&m, paths, 1, &all, &n, &e), 0);
    assert_int_equal(m.nruns, 3);
    model_release(&m);
    remove_runs(dir);
}

/* A folder without run files is an error value that says run files are *.csv. */
static void no_run_file_is_an_error_value(void **state)
{
    (void)state;
    char *dir = xstrdup("/tmp/test_read-XXXXXX");
    assert_non_null(mkdtemp(dir));
    const char *paths[] = {dir};
    struct read_options o = {0};
    struct model m;
    model_init(&m);
    struct rep_error e;
    size_t n = 1;
    assert_int_equal(read_runs(&m, paths, 1, &o, &n, &e), -1);
    assert_int_equal(n, 0);
    assert_int_equal(e.code, REP_ERR_NO_INPUT);
    assert_non_null(strstr(e.msg, "run files are *.csv"));
    model_release(&m);
    remove_runs(dir);
}

/* The baseline's warnings are added to the new model's, marked "baseline: ". */
static void baseline_warnings_join_the_new_model(void **state)
{
    (void)state;
    char *dir = three_runs();
    char bad[512];
    snprintf(bad, sizeof bad, "%s/bad.csv", dir);
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("not a run file\n", f);
    fclose(f);
    const char *paths[] = {dir};
    struct read_options o = {.all_programs = 1};
    struct model base, m;
    model_init(&base);
    model_init(&m);
    struct rep_error e;
    assert_int_equal(read_baseline(&base, &m, paths, 1, &o, &e), 0);
    assert_int_equal(base.nruns, 3);
    assert_true(base.nwarnings >= 1);
    assert_int_equal(m.nwarnings, base.nwarnings);
    assert_non_null(strstr(m.warnings[0].where, "baseline: "));
    assert_non_null(strstr(m.warnings[0].where, "bad.csv"));
    model_release(&base);
    model_release(&m);
    remove_runs(dir);
}

int main(void)
{
    util_quiet = 1; /* the skipped file's warning is checked in the model, not on stderr */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_program_with_most_runs_is_read),
        cmocka_unit_test(program_and_all_programs_choose_other_runs),
        cmocka_unit_test(no_run_file_is_an_error_value),
        cmocka_unit_test(baseline_warnings_join_the_new_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
