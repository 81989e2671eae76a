/*
 * test_suggestfile.c - unit tests of suggestfile.c: the gcc options file a suggestion becomes
 * (read by gcc as libiberty reads @FILE: a backslash keeps the next character, white space
 * splits), its PROFILER_EXCLUDE line, and its list for PROFILER_EXCLUDE=@FILE, read back by the
 * collector's own reader (common/filter.h). The expected options texts were checked by hand
 * against gcc 12: `gcc @FILE` with this option left out exactly the functions named.
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

#include "filter.h"
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
    char *t = suggest_options_text(&s, NULL, 0);
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

/* The patterns the runs left out come first, and a suggested function among them only once. */
static void the_environment_line_keeps_what_the_runs_left_out(void **state)
{
    (void)state;
    struct suggest_item items[3];
    struct suggestion s = three(items);
    char tiny[] = "tiny", peek_left[] = "peek";
    char *left[] = {tiny, peek_left};
    s.left_out = left;
    s.nleft_out = 2;
    char *t = suggest_env_text(&s);
    assert_string_equal(t, "PROFILER_EXCLUDE='tiny,peek,YAML::Stream::operator bool() const,"
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
    char *t = suggest_options_text(&s, NULL, 0);
    assert_string_equal(t, "");
    free(t);
}

/* A file read back gives gcc's list items (commas still "\\,"); written with them kept, the
   new names follow, each once. */
static void a_file_read_back_keeps_its_names_first(void **state)
{
    (void)state;
    size_t n;
    char **v = suggest_options_parse("-finstrument-functions-exclude-function-list="
                                     "YAML::Stream::operator\\ bool,std::map<int\\\\,\\ int>::size,"
                                     "luaH_getshortstr\n",
                                     &n);
    assert_non_null(v);
    assert_int_equal(n, 3);
    assert_string_equal(v[0], "YAML::Stream::operator bool");
    assert_string_equal(v[1], "std::map<int\\, int>::size");
    assert_string_equal(v[2], "luaH_getshortstr");
    struct suggest_item items[3];
    struct suggestion s = three(items);
    char *t = suggest_options_text(&s, (const char *const *)v + 2, 1);
    assert_string_equal(t, "-finstrument-functions-exclude-function-list=luaH_getshortstr,"
                           "YAML::Stream::operator\\ bool,std::map<int\\\\,\\ int>::size\n");
    free(t);
    /* all three kept: nothing new */
    t = suggest_options_text(&s, (const char *const *)v, n);
    assert_string_equal(t, "-finstrument-functions-exclude-function-list="
                           "YAML::Stream::operator\\ bool,std::map<int\\\\,\\ int>::size,"
                           "luaH_getshortstr\n");
    free(t);
    suggest_names_free(v, n);
}

/* An empty or blank file lists nothing; another option or a second argument is not ours. */
static void only_a_file_of_ours_is_read(void **state)
{
    (void)state;
    size_t n = 9;
    char **v = suggest_options_parse(" \n", &n);
    assert_non_null(v);
    assert_int_equal(n, 0);
    suggest_names_free(v, n);
    assert_null(suggest_options_parse("-O2\n", &n));
    assert_null(suggest_options_parse("-finstrument-functions-exclude-function-list=a -O2\n", &n));
    assert_null(suggest_options_parse("# a comment\n", &n));
}

#define HEAD                                                                                       \
    "# profreport --suggest-list: PROFILER_EXCLUDE=@FILE leaves these functions out at run "       \
    "time\n# (either compiler, no rebuild): one glob a line, the runs' own first, then the "       \
    "hot,\n# tiny functions they found. Edit freely; --suggest-list adds to the list it finds "    \
    "here.\n"

/* One glob a line: those kept from the file, those the runs left out, then the items, each
   once; a glob beginning with '#' escaped so as not to be a comment (and then the same line as
   the kept one written so), one with a line break left out. */
static void the_list_holds_one_glob_a_line(void **state)
{
    (void)state;
    struct suggest_item items[3];
    struct suggestion s = three(items);
    char tiny[] = "tiny", peek_left[] = "peek", hash[] = "#weird", broken[] = "a\nb";
    char *left[] = {tiny, peek_left, hash, broken};
    s.left_out = left;
    s.nleft_out = 4;
    const char *kept[] = {"luaH_get*", "tiny", "\\#weird"};
    char *t = suggest_list_text(&s, kept, 3);
    assert_string_equal(t, HEAD "luaH_get*\ntiny\n\\#weird\npeek\n"
                                "YAML::Stream::operator bool() const\n"
                                "f(char const\\*\\, it's)\n");
    free(t);
    s.n = 0;
    s.nleft_out = 0;
    t = suggest_list_text(&s, NULL, 0);
    assert_string_equal(t, HEAD);
    free(t);
}

/* What the collector reads of the list (PROFILER_EXCLUDE=@FILE) leaves out exactly the
   functions suggested, whatever their names hold. */
static void the_collector_reads_the_list_as_written(void **state)
{
    (void)state;
    struct suggest_item items[3];
    struct suggestion s = three(items);
    char hash[] = "#weird";
    char *left[] = {hash};
    s.left_out = left;
    s.nleft_out = 1;
    char *t = suggest_list_text(&s, NULL, 0);
    char path[] = "/tmp/test_suggestfile.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, t, strlen(t)), (ssize_t)strlen(t));
    close(fd);
    int err = 0;
    char *patterns = prof_filter_file(path, &err);
    unlink(path);
    free(t);
    assert_non_null(patterns);
    const char *out[] = {"YAML::Stream::operator bool() const", "peek", "f(char const*, it's)",
                         "#weird"};
    for (size_t i = 0; i < sizeof out / sizeof *out; i++)
        assert_false(prof_filter_selected(out[i], NULL, patterns));
    const char *in[] = {"YAML::Stream::operator bool() const volatile", "peeking", "f(char const*)",
                        "weird", "main"};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++)
        assert_true(prof_filter_selected(in[i], NULL, patterns));
    free(patterns);
}

/* A list read back gives its globs in order, each once (a line may hold several, split at the
   commas the collector splits at); a blank file holds none; a file without the head is not
   ours. */
static void a_list_read_back_gives_its_globs(void **state)
{
    (void)state;
    size_t n = 9;
    char **v = suggest_list_parse(HEAD "luaH_get*\n\n  # mine\n  tiny , std::map<int\\, int>*\r\n"
                                       "tiny\n\\#weird",
                                  &n);
    assert_non_null(v);
    assert_int_equal(n, 4);
    assert_string_equal(v[0], "luaH_get*");
    assert_string_equal(v[1], "tiny");
    assert_string_equal(v[2], "std::map<int\\, int>*");
    assert_string_equal(v[3], "\\#weird");
    suggest_names_free(v, n);
    v = suggest_list_parse("\n \n", &n);
    assert_non_null(v);
    assert_int_equal(n, 0);
    suggest_names_free(v, n);
    assert_null(suggest_list_parse("tiny\n", &n));
    assert_null(suggest_list_parse("# my own list\ntiny\n", &n));
}

/* The terminal lists each function by its short name, as the profile shows it; the files keep
   the full names (a C++ name in full ran to 1,900 characters a line). */
static void the_terminal_lists_the_short_names(void **state)
{
    (void)state;
    struct suggest_item items[3];
    struct suggestion s = three(items);
    static char full[] = "std::vector<int, std::allocator<int> >::size() const",
                brief[] = "std::vector<…>::size";
    items[0].name = full;
    items[0].short_name = brief;
    items[1].name = items[2].name = peek;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    struct suggest_files w = {0};
    suggest_print(f, &s, &w);
    fclose(f);
    assert_non_null(strstr(text, "%  std::vector<…>::size\n"));
    assert_null(strstr(text, "allocator"));
    assert_non_null(strstr(text, "%  peek\n")); /* no short name: the name */
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_terminal_lists_the_short_names),
        cmocka_unit_test(the_file_holds_one_option_escaped_twice),
        cmocka_unit_test(the_environment_line_names_every_function),
        cmocka_unit_test(the_environment_line_keeps_what_the_runs_left_out),
        cmocka_unit_test(nothing_for_gcc_is_an_empty_file),
        cmocka_unit_test(a_file_read_back_keeps_its_names_first),
        cmocka_unit_test(only_a_file_of_ours_is_read),
        cmocka_unit_test(the_list_holds_one_glob_a_line),
        cmocka_unit_test(the_collector_reads_the_list_as_written),
        cmocka_unit_test(a_list_read_back_gives_its_globs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
