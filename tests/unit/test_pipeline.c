/*
 * test_pipeline.c - unit tests of pipeline.c: when the inputs are read on two threads, and that
 * the model read on two threads holds what the one-thread reading gives (runs, rows, regions,
 * and the warnings of files that cannot be opened or read, in the same order).
 */
#define _GNU_SOURCE /* setenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "base/cpus.h"
#include "read/pipeline.h"
#include "base/util.h"

#include <sys/stat.h>
#include <unistd.h>

/* A folder of its own for a test's files. */
static char *make_folder(void)
{
    char tmpl[] = "/tmp/test_pipeline.XXXXXX";
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    return strdup(dir);
}

/* Write text to dir/name; the path (caller frees). */
static char *write_file(const char *dir, const char *name, const char *text)
{
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static const char events_run[] = "Frequency,1000\nFormat,profreport-run,2\nProgram,p\nMode,events\n"
                                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                                 "b,4,1,a,1,4,1,0\na,10,1,,0,6,0,0\nx,oops,1,,0,1,1,0\n";
static const char seed_run[] = "Frequency,1000\na,5\nc,7\nc,\n";

/* PROFREPORT_THREADS decides when set to 1, 2 or more; without run files there is nothing to share.
 */
static void threads_follow_the_environment(void **state)
{
    (void)state;
    char *dir = make_folder();
    char *path = write_file(dir, "run.csv", seed_run);
    struct input one = {.path = path, .display = path};
    setenv(REP_THREADS_ENV, "1", 1);
    assert_false(pipeline_wanted(&one, 1));
    setenv(REP_THREADS_ENV, "2", 1);
    assert_true(pipeline_wanted(&one, 1));
    setenv(REP_THREADS_ENV, "3", 1);
    assert_true(pipeline_wanted(&one, 1));
    char killed[] = "killed";
    struct input parts = {.display = killed};
    assert_false(pipeline_wanted(&parts, 1));
    assert_false(pipeline_wanted(NULL, 0));
    /* A small file is read on one thread by default. */
    unsetenv(REP_THREADS_ENV);
    assert_false(pipeline_wanted(&one, 1));
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}

/* Read the inputs into a fresh model with PROFREPORT_THREADS set to threads. */
static void read_with(const char *threads, const struct input *in, size_t n, struct model *m)
{
    setenv(REP_THREADS_ENV, threads, 1);
    model_init(m);
    model_keep_paths(m);
    pipeline_read(in, n, m, NULL);
    unsetenv(REP_THREADS_ENV);
}

/* Two threads give the model one thread gives: the same runs, rows, regions, edges and
   warnings, in order, over run files, a file that is missing and one that is a folder. */
static void two_threads_give_the_model_of_one(void **state)
{
    (void)state;
    char *dir = make_folder();
    char *a = write_file(dir, "a.csv", events_run);
    char *b = write_file(dir, "b.csv", seed_run);
    char *missing = NULL, *sub = NULL;
    assert_true(asprintf(&missing, "%s/missing.csv", dir) > 0);
    assert_true(asprintf(&sub, "%s/sub.csv", dir) > 0);
    assert_int_equal(mkdir(sub, 0700), 0);
    struct input in[] = {{.path = a, .display = a},
                         {.path = missing, .display = missing},
                         {.path = sub, .display = sub},
                         {.path = b, .display = b},
                         {.path = a, .display = a}};
    size_t n = sizeof in / sizeof *in;
    struct model one, two;
    read_with("1", in, n, &one);
    read_with("2", in, n, &two);
    assert_int_equal(one.nruns, 3);
    assert_int_equal(two.nruns, one.nruns);
    assert_true(two.events == one.events && two.skipped_rows == one.skipped_rows);
    assert_int_equal(two.nregions, one.nregions);
    for (size_t r = 0; r < one.nregions; r++) {
        assert_string_equal(two.regions[r].name, one.regions[r].name);
        assert_true(two.regions[r].cost.n == one.regions[r].cost.n);
        assert_true(two.regions[r].self_ns == one.regions[r].self_ns);
        assert_true(two.regions[r].unterminated == one.regions[r].unterminated);
    }
    assert_int_equal(two.nedges, one.nedges);
    for (size_t e = 0; e < one.nedges; e++)
        assert_true(two.edges[e].caller == one.edges[e].caller &&
                    two.edges[e].callee == one.edges[e].callee &&
                    two.edges[e].calls == one.edges[e].calls);
    assert_int_equal(two.nwarnings, one.nwarnings);
    assert_true(one.nwarnings >= 4); /* missing, folder, malformed row x2, unterminated */
    for (size_t w = 0; w < one.nwarnings; w++) {
        assert_string_equal(two.warnings[w].where, one.warnings[w].where);
        assert_string_equal(two.warnings[w].kind, one.warnings[w].kind);
        assert_string_equal(two.warnings[w].message, one.warnings[w].message);
    }
    model_release(&one);
    model_release(&two);
    unlink(a);
    unlink(b);
    rmdir(sub);
    rmdir(dir);
    free(a);
    free(b);
    free(missing);
    free(sub);
    free(dir);
}

int main(void)
{
    util_quiet = 1; /* the warnings go to the models, which are compared */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(threads_follow_the_environment),
        cmocka_unit_test(two_threads_give_the_model_of_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
