/*
 * test_suggest.c - unit tests of suggest.c: which functions of a -finstrument-functions run are
 * hot and tiny enough to leave out, and the names gcc 12 and PROFILER_EXCLUDE know them by. The
 * gcc names are what g++ 12 matched when compiling a test file with
 * -finstrument-functions-exclude-function-list (a substring of the qualified name, template
 * arguments in gcc's spelling, no parameters), checked by which functions still called the hooks.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/suggest.h"
#include "runtext.h"

/* One run, 1 tick = 1 ns: main (42 us) calls tiny 1000 times (2 ns each), small 500 times
   (10 ns), heavy 1000 times (11 ns: 26 % of the time), big 100 times (200 ns), rare 5 times
   (1 ns: 0.2 % of the calls), peekToken once (100 ns), and the PROFILER_START region loop 900
   times (1 ns), which no Function record names. */
static const char run[] =
    "Frequency,1000000000\nFormat,profreport-run,3\nMode,summary\n"
    "Function,main,/src/a.c,1,/bin/a,0x10\nFunction,tiny,/src/a.h,2,/bin/a,0x20\n"
    "Function,small,,,/bin/a,0x30\nFunction,heavy,/src/a.c,4,/bin/a,0x40\n"
    "Function,big,/src/a.c,5,/bin/a,0x50\nFunction,rare,/src/a.c,6,/bin/a,0x60\n"
    "Function,peekToken,/src/a.c,7,/bin/a,0x70\n"
    "Thread,1,10,main,exited\n"
    "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent\n"
    "main,1,1,42000,2995,42000,42000,1764000000,42000,,1,0\n"
    "tiny,1,1000,2000,2000,2,2,4000,2000,,2,1\n"
    "small,1,500,5000,5000,10,10,50000,5000,,3,1\n"
    "heavy,1,1000,11000,11000,11,11,121000,11000,,4,1\n"
    "big,1,100,20000,20000,200,200,4000000,20000,,5,1\n"
    "rare,1,5,5,5,1,1,5,5,,6,1\n"
    "peekToken,1,1,100,100,100,100,10000,100,,7,1\n"
    "loop,1,900,900,900,1,1,900,900,,8,1\n";

/* The suggestion for text with the threshold max_mean_ns (0: from the hooks' cost). */
static void suggest_text(const char *text, double max_mean_ns, struct model *m,
                         struct suggestion *s)
{
    model_init(m);
    runtext_read(m, text);
    model_finish(m);
    struct suggest_options o = {max_mean_ns};
    suggest_build(m, &o, s);
}

/* Functions with at least 1 % of the calls and each call under the threshold are suggested,
   most calls first; main, a function with a quarter of the time or more, a rare one, a long one
   and a region no Function record names are not. */
static void hot_tiny_functions_are_suggested_most_calls_first(void **state)
{
    (void)state;
    struct model m;
    struct suggestion s;
    suggest_text(run, 50, &m, &s);
    assert_int_equal(s.functions, 7);
    assert_int_equal(s.calls, 1 + 1000 + 500 + 1000 + 100 + 5 + 1);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.items[0].name, "tiny");
    assert_string_equal(s.items[1].name, "small");
    assert_true(fabs(s.items[0].mean_ns - 2) < 1e-9);
    assert_true(fabs(s.items[1].time_share - 5000.0 / 42000) < 1e-9);
    assert_true(fabs(s.items[0].self_share - 2000.0 / 42000) < 1e-9); /* what main would gain */
    assert_true(fabs(s.call_share - 1500.0 / 2607) < 1e-9);
    /* their hooks at the assumed cost, over main's 42 us */
    assert_true(fabs(s.hooks_share - 1500 * SUGGEST_DEFAULT_HOOK_NS / 42000) < 1e-9);
    assert_int_equal(s.items[0].gcc, SUGGEST_GCC_OK);
    assert_string_equal(s.items[0].gcc_name, "tiny");
    assert_string_equal(s.items[0].glob, "tiny");
    suggest_release(&s);
    model_release(&m);
}

/* Without --suggest-max-cost and without a measured hook cost, the threshold is the assumed
   cost times the factor: 48 ns, so a 100 ns function stays. */
static void the_threshold_defaults_to_a_multiple_of_the_hooks_cost(void **state)
{
    (void)state;
    struct model m;
    struct suggestion s;
    suggest_text(run, 0, &m, &s);
    assert_true(isnan(s.hook_ns));
    assert_true(fabs(s.max_mean_ns - SUGGEST_HOOK_FACTOR * SUGGEST_DEFAULT_HOOK_NS) < 1e-9);
    assert_int_equal(s.n, 2);
    suggest_release(&s);
    model_release(&m);
    /* a lower threshold leaves only tiny */
    suggest_text(run, 5, &m, &s);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.items[0].name, "tiny");
    suggest_release(&s);
    model_release(&m);
}

/* A sampled run's ThreadCpu record says what one call's hooks cost (20000 ps): the threshold is
   four times that. */
static void a_measured_hook_cost_sets_the_threshold(void **state)
{
    (void)state;
    struct model m;
    struct suggestion s;
    suggest_text("Frequency,1000000000\nFormat,profreport-run,4\nMode,summary\n"
                 "Timing,sampled,perf-task-clock,250000,706.8,8.8\n"
                 "Function,main,/src/a.c,1,/bin/a,0x10\nFunction,tiny,/src/a.c,5,/bin/a,0x20\n"
                 "Thread,1,10,main,exited\nThreadCpu,1,30000,30000,,120,10,0,20000\n"
                 "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent,"
                 "Samples,Timed,Wall\n"
                 "main,1,1,30000,28000,30000,30000,900000000,30000,,1,0,0,1,30000\n"
                 "tiny,1,1000,2000,2000,2,2,4000,2000,,2,1,0,0,0\n",
                 0, &m, &s);
    assert_true(fabs(s.hook_ns - 20) < 1e-9);
    assert_true(fabs(s.max_mean_ns - 80) < 1e-9);
    assert_int_equal(s.n, 1);
    suggest_release(&s);
    model_release(&m);
}

/* gcc matches a listed name anywhere in a function's name: "peek" would also leave out the
   kept peekToken, so it is suggested for PROFILER_EXCLUDE only; a member of a class template
   is not named to gcc (its arguments are spelled gcc's way). */
static void names_gcc_would_read_wider_stay_out_of_its_list(void **state)
{
    (void)state;
    struct model m;
    struct suggestion s;
    suggest_text("Frequency,1000000000\nFormat,profreport-run,3\nMode,summary\n"
                 "Function,main,,,/bin/a,0x10\nFunction,peek,,,/bin/a,0x20\n"
                 "Function,peekToken,,,/bin/a,0x30\n"
                 "Function,\"std::vector<int, std::allocator<int> >::size() const\",,,/bin/a,0x40\n"
                 "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent\n"
                 "main,1,1,30000,100,30000,30000,900000000,30000,,1,0\n"
                 "peek,1,1000,2000,2000,2,2,4000,2000,,2,1\n"
                 "peekToken,1,100,20000,20000,200,200,4000000,20000,,3,1\n"
                 "\"std::vector<int, std::allocator<int> >::size() const\",1,800,800,800,1,1,800,"
                 "800,,4,1\n",
                 50, &m, &s);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.items[0].name, "peek");
    assert_int_equal(s.items[0].gcc, SUGGEST_GCC_CLASH);
    assert_string_equal(s.items[0].clash, "peekToken");
    assert_int_equal(s.items[1].gcc, SUGGEST_GCC_SPELLING);
    assert_true(s.gcc_call_share == 0);
    assert_true(s.call_share > 0.9);
    suggest_release(&s);
    model_release(&m);
}

/* gcc_name(display) is want. */
static void gcc_names(const char *display, const char *want)
{
    char *s = suggest_gcc_name(display);
    assert_string_equal(s, want);
    free(s);
}

/* The name gcc matches: no parameters, qualifiers, return type or clone suffix; operators and
   conversion operators keep their words. */
static void the_gcc_name_is_the_qualified_name_alone(void **state)
{
    (void)state;
    gcc_names("tiny", "tiny");
    gcc_names("ZSTD_count.isra.0", "ZSTD_count");
    gcc_names("NS::Box::get() const", "NS::Box::get");
    gcc_names("int NS::twice<int>(int)", "NS::twice<int>");
    gcc_names("NS::Box::operator<(NS::Box const&) const", "NS::Box::operator<");
    gcc_names("NS::Box::operator[](int) const", "NS::Box::operator[]");
    gcc_names("operator new(unsigned long, void*)", "operator new");
    gcc_names("YAML::Stream::operator bool() const", "YAML::Stream::operator bool");
    gcc_names("std::_Select1st<std::pair<int const, int> >::operator()(std::pair<int const, "
              "int> const&) const",
              "std::_Select1st<std::pair<int const, int> >::operator()");
    gcc_names("bool std::operator==<char>(std::string const&, char const*)",
              "std::operator==<char>");
    gcc_names("Foo::bar() &&", "Foo::bar");
    gcc_names("Foo::bar() const [clone .cold]", "Foo::bar");
    gcc_names("NS::(anonymous namespace)::anon(int)", "NS::{anonymous}::anon");
    gcc_names("NS::C::~C()", "NS::C::~C");
}

/* Template arguments in the scope (a class template's member) and a lambda's scope are spelled
   apart; a function template's own arguments and an operator's '<' are not. */
static void scopes_gcc_spells_apart_are_told(void **state)
{
    (void)state;
    assert_true(suggest_gcc_spelled_apart("std::vector<int>::size"));
    assert_true(
        suggest_gcc_spelled_apart("std::_Select1st<std::pair<int const, int> >::operator()"));
    assert_false(suggest_gcc_spelled_apart("NS::twice<int>"));
    assert_false(suggest_gcc_spelled_apart("NS::Box::operator<"));
    assert_false(suggest_gcc_spelled_apart("std::operator<<"));
    assert_false(suggest_gcc_spelled_apart("tiny"));
    assert_true(suggest_gcc_spelled_apart("main::{lambda(int)#1}::operator()"));
}

/* A comma is written "\," for both lists; a glob also escapes fnmatch's characters. */
static void commas_and_glob_characters_are_escaped(void **state)
{
    (void)state;
    char *s = suggest_escape("f(char const*, long)", 0);
    assert_string_equal(s, "f(char const*\\, long)");
    free(s);
    s = suggest_escape("f(char const*, long)", 1);
    assert_string_equal(s, "f(char const\\*\\, long)");
    free(s);
    s = suggest_escape("Box::operator[](int) const", 1);
    assert_string_equal(s, "Box::operator\\[\\](int) const");
    free(s);
}

/* The patterns the runs left out (their Exclude records) come with the suggestion, each once,
   in order: a `\,` stays inside its pattern, spaces around one and empty ones go. */
static void the_runs_exclusions_come_with_the_suggestion(void **state)
{
    (void)state;
    char *text = malloc(sizeof run + 256);
    assert_non_null(text);
    const char *head = "Frequency,1000000000\nFormat,profreport-run,3\nMode,summary\n";
    sprintf(text, "%sExclude,\"peek, f(char const*\\, int),,peek\"\n%s", head, run + strlen(head));
    struct model m;
    struct suggestion s;
    suggest_text(text, 50, &m, &s);
    assert_int_equal(s.nleft_out, 2);
    assert_string_equal(s.left_out[0], "peek");
    assert_string_equal(s.left_out[1], "f(char const*\\, int)");
    assert_int_equal(s.n, 2); /* tiny and small, as without the record */
    suggest_release(&s);
    model_release(&m);
    free(text);

    char **p = NULL;
    size_t n = 0;
    suggest_patterns(" a\\,b , c,,a\\,b,", &p, &n);
    suggest_patterns(NULL, &p, &n);
    suggest_patterns("c,d", &p, &n);
    assert_int_equal(n, 3);
    assert_string_equal(p[0], "a\\,b");
    assert_string_equal(p[1], "c");
    assert_string_equal(p[2], "d");
    for (size_t i = 0; i < n; i++)
        free(p[i]);
    free(p);
}

/* A sampled run after `run` whose Function records mark tiny and plain uninstrumented
   (compiled without hooks): their Calls-0 rows are their samples (FORMAT.md 1.4). */
static const char no_hooks_run[] =
    "Frequency,1000000000\nFormat,profreport-run,4\nMode,summary\n"
    "Timing,sampled,perf-task-clock,10,200,20\n"
    "Function,main,/src/a.c,1,/bin/a,0x10\n"
    "Function,tiny,/src/a.h,2,/bin/a,0x20,uninstrumented\n"
    "Function,plain,/src/a.h,9,/bin/a,0x90,uninstrumented\n"
    "Thread,1,10,main,exited\n"
    "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent,Samples,"
    "Timed,Wall\n"
    "main,1,1,100,40,0,0,0,100,,1,0,4,0,0\n"
    "tiny,1,0,30,30,0,0,0,30,,2,1,3,0,0\n"
    "plain,1,0,30,30,0,0,0,30,,3,1,3,0,0\n";

/* A function some run compiled without hooks is not suggested (where it had none, its time is
   sampled and its calls unknown: no cost per call to judge), and one without hooks in every
   run is not a function the runs kept: there is nothing of it to leave out. */
static void functions_without_hooks_are_neither_suggested_nor_counted(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    runtext_read(&m, run);
    runtext_read(&m, no_hooks_run);
    model_finish(&m);
    struct suggest_options o = {50};
    struct suggestion s;
    suggest_build(&m, &o, &s);
    assert_int_equal(s.functions, 7); /* the first run's seven, tiny among them; not plain */
    assert_int_equal(s.calls, 2607 + 1);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.items[0].name, "small");
    suggest_release(&s);
    model_release(&m);
}

/* The Summary's filter line says where the time of the functions the filters left out went:
   their own rows, with a collector that gives them rows (any function's rows of uncounted
   calls show it, one's without hooks too), else their callers' self time. */
static void the_filter_line_says_where_the_left_out_time_went(void **state)
{
    (void)state;
    char text[2048];
    const char *at = strstr(no_hooks_run, "Timing,");
    snprintf(text, sizeof text, "%.*sExclude,zzz*\n%s", (int)(at - no_hooks_run), no_hooks_run, at);
    struct model m;
    model_init(&m);
    runtext_read(&m, text);
    char *line = suggest_filters_text(&m, 1);
    assert_string_equal(line, "zzz* (1 of 1 run): functions matching one were not counted; the "
                              "samples that landed in them are their own self time (below), "
                              "calls not counted");
    free(line);
    assert_null(suggest_filters_text(&m, 0));
    model_release(&m);
    const char *head = "Frequency,1000000000\nFormat,profreport-run,3\nMode,summary\n";
    snprintf(text, sizeof text, "%sExclude,zzz*\n%s", head, run + strlen(head));
    model_init(&m);
    runtext_read(&m, text);
    line = suggest_filters_text(&m, 1);
    assert_string_equal(line, "zzz* (1 of 1 run): functions matching one are in no row; their "
                              "time is in their callers' self time");
    free(line);
    model_release(&m);
}

/* A C++ function is suggested by its qualified name without return type and parameters, the
   form the collector's filters also match, unless a function the runs keep answers to that
   too (an overload) or the name has a part that is not the function's (a file and line that
   tell two static functions apart). */
static void cxx_names_are_suggested_in_their_shortest_form(void **state)
{
    (void)state;
    static const char text[] =
        "Frequency,1000000000\nFormat,profreport-run,3\nMode,summary\n"
        "Function,main,/src/a.cpp,1,/bin/a,0x10\n"
        "Function,int NS::twice<int>(int) const,/src/a.cpp,2,/bin/a,0x20\n"
        "Function,NS::get(int),/src/a.cpp,3,/bin/a,0x30\n"
        "Function,NS::get(double),/src/a.cpp,4,/bin/a,0x40\n"
        "Function,helper (b.cpp:5),/src/b.cpp,5,/bin/a,0x50\n"
        "Function,\"NS::pair<int, int> NS::make(int, int)\",/src/a.cpp,6,/bin/a,0x60\n"
        "Thread,1,10,main,exited\n"
        "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent\n"
        "main,1,1,42000,22000,42000,42000,1764000000,42000,,1,0\n"
        "int NS::twice<int>(int) const,1,1000,2000,2000,2,2,4000,2000,,2,1\n"
        "NS::get(int),1,1000,2000,2000,2,2,4000,2000,,3,1\n"
        "NS::get(double),1,10,10000,10000,1000,1000,10000000,10000,,4,1\n"
        "helper (b.cpp:5),1,1000,2000,2000,2,2,4000,2000,,5,1\n"
        "\"NS::pair<int, int> NS::make(int, int)\",1,1000,2000,2000,2,2,4000,2000,,6,1\n";
    struct model m;
    struct suggestion s;
    suggest_text(text, 50, &m, &s);
    assert_int_equal(s.n, 4);
    for (size_t i = 0; i < s.n; i++) {
        const char *name = s.items[i].name, *glob = s.items[i].glob;
        if (strcmp(name, "int NS::twice<int>(int) const") == 0)
            assert_string_equal(glob, "NS::twice<int>");
        else if (strcmp(name, "NS::get(int)") == 0)
            assert_string_equal(glob, "NS::get(int)"); /* NS::get would leave out the double one */
        else if (strcmp(name, "helper (b.cpp:5)") == 0)
            assert_string_equal(glob, "helper (b.cpp:5)");
        else
            assert_string_equal(glob, "NS::make"); /* a return type with a space in it */
    }
    suggest_release(&s);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hot_tiny_functions_are_suggested_most_calls_first),
        cmocka_unit_test(the_runs_exclusions_come_with_the_suggestion),
        cmocka_unit_test(functions_without_hooks_are_neither_suggested_nor_counted),
        cmocka_unit_test(the_filter_line_says_where_the_left_out_time_went),
        cmocka_unit_test(cxx_names_are_suggested_in_their_shortest_form),
        cmocka_unit_test(the_threshold_defaults_to_a_multiple_of_the_hooks_cost),
        cmocka_unit_test(a_measured_hook_cost_sets_the_threshold),
        cmocka_unit_test(names_gcc_would_read_wider_stay_out_of_its_list),
        cmocka_unit_test(the_gcc_name_is_the_qualified_name_alone),
        cmocka_unit_test(scopes_gcc_spells_apart_are_told),
        cmocka_unit_test(commas_and_glob_characters_are_escaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
