/*
 * test_rep_error.c - unit tests of rep_error.c, the reporter's error values, and of the
 * convention itself: a failing stage hands back its whole message and prints nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/atomicfile.h"
#include "out/charts.h"
#include "out/export.h"
#include "model/model.h"
#include "base/rep_error.h"

/* rep_fail records the code and the formatted message and returns -1, so that a function can
   end with `return rep_fail(...)`. */
static void rep_fail_records_code_and_message(void **state)
{
    (void)state;
    struct rep_error e;
    rep_error_clear(&e);
    assert_int_equal(e.code, REP_OK);
    assert_string_equal(e.msg, "");
    assert_int_equal(rep_fail(&e, REP_ERR_OUTPUT, "cannot write '%s': %s", "a.xlsx", "full"), -1);
    assert_int_equal(e.code, REP_ERR_OUTPUT);
    assert_string_equal(e.msg, "cannot write 'a.xlsx': full");
    rep_error_clear(&e);
    assert_int_equal(e.code, REP_OK);
    assert_string_equal(e.msg, "");
}

/* A message longer than the value holds is cut, still a string. */
static void long_messages_are_cut(void **state)
{
    (void)state;
    size_t n = REP_ERROR_MAX * 2;
    char *path = malloc(n + 1);
    memset(path, 'p', n);
    path[n] = 0;
    struct rep_error e;
    rep_fail(&e, REP_ERR_OUTPUT, "cannot write '%s'", path);
    assert_int_equal(strlen(e.msg), REP_ERROR_MAX - 1);
    assert_memory_equal(e.msg, "cannot write 'ppp", 17);
    free(path);
}

/* Every code has a name of its own, and a value past the table is "unknown". */
static void every_code_has_a_distinct_name(void **state)
{
    (void)state;
    for (int i = 0; i < REP_ERR_LAST; i++) {
        const char *name = rep_code_name((enum rep_code)i);
        assert_non_null(name);
        assert_string_not_equal(name, "unknown");
        for (int k = 0; k < i; k++)
            assert_string_not_equal(name, rep_code_name((enum rep_code)k));
    }
    assert_string_equal(rep_code_name(REP_OK), "ok");
    assert_string_equal(rep_code_name(REP_ERR_LAST), "unknown");
    assert_string_equal(rep_code_name((enum rep_code) - 1), "unknown");
}

/* Where stderr goes while a test watches it. */
struct watch {
    FILE *file;
    int saved;
};

/* Send stderr into a temporary file. */
static void watch_stderr(struct watch *w)
{
    w->file = tmpfile();
    assert_non_null(w->file);
    fflush(stderr);
    w->saved = dup(2);
    dup2(fileno(w->file), 2);
}

/* Put stderr back; the number of bytes written to it meanwhile. */
static long unwatch_stderr(struct watch *w)
{
    fflush(stderr);
    dup2(w->saved, 2);
    close(w->saved);
    fseek(w->file, 0, SEEK_END);
    long n = ftell(w->file);
    fclose(w->file);
    return n;
}

/* Stages that fail hand back the message main() will print, word for word, and print
   nothing themselves: an output in a missing folder, an export there, a bad chart. */
static void failing_stages_return_their_message_and_print_nothing(void **state)
{
    (void)state;
    struct watch w;
    struct rep_error e;
    watch_stderr(&w);

    struct atomicfile a;
    int rc = atomicfile_open(&a, "/nonexistent-folder/out.xlsx", &e);
    assert_int_equal(rc, -1);
    assert_int_equal(e.code, REP_ERR_OUTPUT);
    assert_string_equal(e.msg, "cannot write '/nonexistent-folder/out.xlsx': No such file or "
                               "directory");

    struct model m;
    model_init(&m);
    struct export_options eo = {0};
    eo.json = "/nonexistent-folder/stats.json";
    rep_error_clear(&e);
    assert_null(exports_open(&eo, &m, &e));
    assert_int_equal(e.code, REP_ERR_OUTPUT);
    assert_string_equal(e.msg, "cannot write '/nonexistent-folder/stats.json': No such file or "
                               "directory");
    model_release(&m);

    struct chart_env env = {"/nonexistent-templates", NULL, "/tmp", 5};
    struct chart_request req = {"../evil", "/tmp/chart", "t", "y", NULL};
    rep_error_clear(&e);
    assert_int_equal(gnuplot_render(&env, &req, &e), -1);
    assert_int_equal(e.code, REP_ERR_CHART);
    assert_string_equal(e.msg, "bad chart template name '../evil'");

    assert_int_equal(unwatch_stderr(&w), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rep_fail_records_code_and_message),
        cmocka_unit_test(long_messages_are_cut),
        cmocka_unit_test(every_code_has_a_distinct_name),
        cmocka_unit_test(failing_stages_return_their_message_and_print_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
