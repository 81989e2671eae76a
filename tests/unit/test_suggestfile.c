/*
 * test_suggestfile.c - unit tests of suggestfile.c: the gcc options file a suggestion becomes
 * (read by gcc as libiberty reads @FILE: a backslash keeps the next character, white space
 * splits) and its PROFILER_EXCLUDE line. The expected texts were checked by hand against gcc 12:
 * `gcc @FILE` with this option left out exactly the functions named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "out/suggestfile.h"

static char bool_gcc[] = "YAML::Stream::operator bool",
            bool_glob[] = "YAML::Stream::operator bool() const", peek[] = "peek",
            size_gcc[] = "std::map<int, int>::size", f_glob[] = "f(char const\\*\\, it's)";

/* A suggestion of three functions, the second one not for gcc. */
static struct suggestion three(struct suggest_item *items)
{
    memset(items, 0, 3 * sizeof *items);
    items[0].gcc_name = bool_gcc;
    items[0].glob = bool_glob;
    items[1].gcc_name = peek;
    items[1].glob = peek;
    items[1].gcc = SUGGEST_GCC_CLASH;
    items[2].gcc_name = size_gcc;
    items[2].glob = f_glob;
    struct suggestion s = {.items = items, .n = 3};
    return s;
}

/* One option; a comma escaped for gcc ("\,") and a space, both escaped again for the file; a
   name listed once, however many instantiations share it. */
static void the_file_holds_one_option_escaped_twice(void **state)
{
    (void)state;
    struct suggest_item items[4];
    struct suggestion s = three(items);
    items[3] = items[2];
    s.n = 4;
    char *t = suggest_options_text(&s);
    assert_string_equal(t, "-finstrument-functions-exclude-function-list="
                           "YAML::Stream::operator\\ bool,std::map<int\\\\,\\ int>::size\n");
    free(t);
}

/* Every item's glob goes to PROFILER_EXCLUDE, quoted for a shell. */
static void the_environment_line_names_every_function(void **state)
{
    (void)state;
    struct suggest_item items[3];
    struct suggestion s = three(items);
    char *t = suggest_env_text(&s);
    assert_string_equal(t, "PROFILER_EXCLUDE='YAML::Stream::operator bool() const,peek,"
                           "f(char const\\*\\, it'\\''s)'");
    free(t);
}

/* Nothing for gcc: an empty file, which `gcc @FILE` reads as no option. */
static void nothing_for_gcc_is_an_empty_file(void **state)
{
    (void)state;
    struct suggest_item items[3];
    struct suggestion s = three(items);
    s.n = 2;
    items[0].gcc = SUGGEST_GCC_SPELLING;
    char *t = suggest_options_text(&s);
    assert_string_equal(t, "");
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_file_holds_one_option_escaped_twice),
        cmocka_unit_test(the_environment_line_names_every_function),
        cmocka_unit_test(nothing_for_gcc_is_an_empty_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
