/*
 * test_input.c - unit tests of input.c: which files a folder gives, and reading them with
 * their bytes counted for the progress bar. Files are made in a private temporary folder.
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

#include "read/input.h"
#include "model/model.h"
#include "base/util.h"

static const char run_text[] = "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
                               "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                               "a,5,1,,0,5,0,0\n";

/* A private folder with files name -> text; the caller removes it with remove_folder. */
static char *folder_with(const char *const *names, size_t n)
{
    char *dir = xstrdup("/tmp/test_input-XXXXXX");
    assert_non_null(mkdtemp(dir));
    for (size_t i = 0; i < n; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(run_text, f);
        fclose(f);
    }
    return dir;
}

/* Remove the folder and the files named in it. */
static void remove_folder(char *dir, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    free(dir);
}

/* A folder gives its run files in name order, hidden files and other names left out. */
static void folder_gives_its_run_files_by_name(void **state)
{
    (void)state;
    static const char *const names[] = {"b.csv", "a.csv", ".hidden.csv", "notes.txt"};
    char *dir = folder_with(names, 4);
    struct model m;
    model_init(&m);
    struct input *in = NULL;
    const char *paths[] = {dir};
    size_t n = inputs_collect(paths, 1, &in, &m);
    assert_int_equal(n, 2);
    assert_non_null(strstr(in[0].path, "/a.csv"));
    assert_non_null(strstr(in[1].path, "/b.csv"));
    assert_int_equal(inputs_size(in, n), 2 * (sizeof run_text - 1));
    inputs_free(in, n);
    model_release(&m);
    remove_folder(dir, names, 4);
}

/* Adds the bytes it is told of. */
static void count_bytes(void *ctx, size_t bytes) { *(size_t *)ctx += bytes; }

/* Reading with a progress counter reads the run as input_read does and counts every byte of
   the file, so the bar ends at 100 %. */
static void counted_read_counts_every_byte(void **state)
{
    (void)state;
    static const char *const names[] = {"run.csv"};
    char *dir = folder_with(names, 1);
    struct model m;
    model_init(&m);
    struct input *in = NULL;
    const char *paths[] = {dir};
    size_t n = inputs_collect(paths, 1, &in, &m);
    assert_int_equal(n, 1);
    size_t counted = 0;
    struct input_progress p = {count_bytes, &counted};
    assert_int_equal(input_read_counted(&in[0], &m, &p), RUNFILE_OK);
    assert_int_equal(counted, sizeof run_text - 1);
    assert_int_equal(m.nruns, 1);
    assert_int_equal(m.events, 1);
    inputs_free(in, n);
    model_release(&m);
    remove_folder(dir, names, 1);
}

/* A path that does not exist is a warning in the model, not an input. */
static void missing_path_is_a_warning(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    util_quiet = 1;
    struct input *in = NULL;
    const char *paths[] = {"/nonexistent/run.csv"};
    assert_int_equal(inputs_collect(paths, 1, &in, &m), 0);
    assert_int_equal(m.nwarnings, 1);
    assert_string_equal(m.warnings[0].kind, "unreadable");
    inputs_free(in, 0);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(folder_gives_its_run_files_by_name),
        cmocka_unit_test(counted_read_counts_every_byte),
        cmocka_unit_test(missing_path_is_a_warning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
