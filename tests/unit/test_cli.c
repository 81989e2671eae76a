/*
 * test_cli.c - unit tests of cli.c: the options a command line gives (--baseline's paths taken
 * out before getopt reads the rest), the refused output paths and the command line as shown in
 * the Summary sheet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/util.h"

/* A command line of its own: words copied (argv's strings are the caller's to keep). */
struct cmdline {
    int argc;
    char *argv[32];
};

/* Parse the NULL-terminated words into o, keeping their copies in c. */
static void parse(struct options *o, struct cmdline *c, const char *const *words)
{
    c->argc = 0;
    while (words[c->argc]) {
        c->argv[c->argc] = xstrdup(words[c->argc]);
        c->argc++;
    }
    c->argv[c->argc] = NULL;
    optind = 0; /* getopt starts afresh for each command line of the test */
    cli_parse(c->argc, c->argv, o);
}

/* Free the copies. */
static void cmdline_free(struct cmdline *c)
{
    for (int i = 0; i < c->argc; i++)
        free(c->argv[i]);
}

/* Options around --baseline OLD... -- are read; the old and the new paths go apart. */
static void baseline_paths_are_taken_apart_from_the_options(void **state)
{
    (void)state;
    const char *words[] = {"profreport", "-q", "--baseline", "old1",   "old2",      "--", "new",
                           "--top",      "3",  "-o",         "r.xlsx", "--include", "a*", NULL};
    struct options o;
    struct cmdline c;
    parse(&o, &c, words);
    assert_true(o.quiet);
    assert_int_equal(o.top, 3);
    assert_string_equal(o.output, "r.xlsx");
    assert_true(o.output_given);
    assert_int_equal(o.nbaseline, 2);
    assert_string_equal(o.baseline[0], "old1");
    assert_string_equal(o.baseline[1], "old2");
    assert_int_equal(o.npaths, 1);
    assert_string_equal(o.paths[0], "new");
    assert_int_equal(o.ninclude, 1);
    assert_string_equal(o.include[0], "a*");
    /* argv itself is left whole, for the Summary's command line */
    assert_string_equal(c.argv[2], "--baseline");
    cli_release(&o);
    cmdline_free(&c);
}

/* Without options, the defaults of profreport(1). */
static void defaults_are_the_documented_ones(void **state)
{
    (void)state;
    const char *words[] = {"profreport", "runs", NULL};
    struct options o;
    struct cmdline c;
    parse(&o, &c, words);
    assert_string_equal(o.output, "report.xlsx");
    assert_false(o.output_given);
    assert_string_equal(o.unit, "auto");
    assert_int_equal(o.top, 15);
    assert_int_equal(o.sort, SORT_TOTAL);
    assert_null(o.program);
    assert_int_equal(o.nbaseline, 0);
    cli_release(&o);
    cmdline_free(&c);
}

/* An output path that a shell-minded tool would read as a pipe or a redirection is refused,
   naming what it is for. */
static void pipe_like_output_paths_are_refused(void **state)
{
    (void)state;
    struct rep_error e;
    assert_int_equal(cli_check_output("output", "report.xlsx", &e), 0);
    assert_int_equal(cli_check_output("output", "|cat", &e), -1);
    assert_int_equal(e.code, REP_ERR_USAGE);
    assert_non_null(strstr(e.msg, "refusing output '|cat'"));
    assert_int_equal(cli_check_output("export", ">x", &e), -1);
    assert_int_equal(cli_check_output("export", "a\nb", &e), -1);
    assert_int_equal(cli_check_output("export", "", &e), -1);
}

/* Words with spaces or quotes are quoted in the command line shown. */
static void command_line_quotes_words_with_spaces(void **state)
{
    (void)state;
    const char *words[] = {"profreport", "--title", "my run", "runs", NULL};
    struct cmdline c;
    c.argc = 0;
    for (; words[c.argc]; c.argc++)
        c.argv[c.argc] = xstrdup(words[c.argc]);
    char *s = cli_join_args(c.argc, c.argv);
    assert_string_equal(s, "profreport --title 'my run' runs");
    free(s);
    cmdline_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(baseline_paths_are_taken_apart_from_the_options),
        cmocka_unit_test(defaults_are_the_documented_ones),
        cmocka_unit_test(pipe_like_output_paths_are_refused),
        cmocka_unit_test(command_line_quotes_words_with_spaces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
