/*
 * test_filter.c - unit tests of common/filter.c: which function names PROFILER_INCLUDE and
 * PROFILER_EXCLUDE leave out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file of these bytes in a fresh temporary folder; its path (static). */
static const char *file_of(const void *bytes, size_t n)
{
    static char dir[64], path[96];
    strcpy(dir, "/tmp/test_filter.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/list", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    return path;
}

/* Remove file_of's file and its folder. */
static void remove_file(const char *path)
{
    assert_int_equal(unlink(path), 0);
    char dir[96];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = 0;
    assert_int_equal(rmdir(dir), 0);
}

/* The patterns of a file of text, or NULL with the error in *err. */
static char *patterns_of(const char *text, int *err)
{
    const char *path = file_of(text, strlen(text));
    char *v = prof_filter_file(path, err);
    remove_file(path);
    return v;
}

/* With no filter every function is recorded. */
static void no_filter_selects_everything(void **state)
{
    (void)state;
    assert_true(prof_filter_selected("main", NULL, NULL));
    assert_true(prof_filter_selected("std::vector<int>::push_back(int const&)", NULL, NULL));
}

/* Include keeps only matches; exclude then removes matches; patterns are comma-separated and
   spaces around them do not count. */
static void include_then_exclude(void **state)
{
    (void)state;
    assert_true(prof_filter_selected("fib", "fib,is_*", NULL));
    assert_true(prof_filter_selected("is_even", "fib, is_*", NULL));
    assert_false(prof_filter_selected("main", "fib,is_*", NULL));
    assert_false(prof_filter_selected("is_odd", "fib,is_*", "is_odd"));
    assert_false(prof_filter_selected("std::sort<int*>(int*, int*)", NULL, "std::*"));
    assert_true(prof_filter_selected("mystd::sort(int)", NULL, "std::*"));
    assert_true(prof_filter_selected("x", "", NULL) == 0); /* an empty list matches nothing */
}

/* A C++ name matches with or without its parameter list and qualifiers after it. */
static void cxx_names_match_without_parameters(void **state)
{
    (void)state;
    assert_false(prof_filter_selected("Widget::OnPaint() const", NULL, "*::OnPaint"));
    assert_true(prof_filter_selected("Widget::OnPaint2() const", NULL, "*::OnPaint"));
    /* Template arguments and operator() keep their parentheses. */
    assert_false(prof_filter_selected("Fn<void (int)>::run(int)", NULL, "Fn<void (int)>::run"));
    assert_false(prof_filter_selected("Lambda::operator()(int) const", NULL, "*::operator()"));
    assert_false(prof_filter_selected("(anonymous namespace)::helper(int)", NULL,
                                      "(anonymous namespace)::helper"));
}

/* A template function's demangled name starts with its return type: a pattern for the
   qualified name matches whatever that type is (issue 24). */
static void cxx_names_match_whatever_their_return_type(void **state)
{
    (void)state;
    assert_false(prof_filter_selected("bool std::operator==<char, std::char_traits<char>, "
                                      "std::allocator<char> >(std::__cxx11::basic_string<char, "
                                      "std::char_traits<char>, std::allocator<char> > const&, "
                                      "char const*)",
                                      NULL, "std::*"));
    assert_false(prof_filter_selected("__gnu_cxx::__normal_iterator<int*, std::vector<int, "
                                      "std::allocator<int> > > std::vector<int, "
                                      "std::allocator<int> >::begin()",
                                      NULL, "std::*"));
    assert_false(prof_filter_selected("void std::swap<int>(int&, int&)", NULL, "std::swap<*>"));
    assert_false(
        prof_filter_selected("YAML::Node YAML::Load<char>(char const*)", NULL, "YAML::Load*"));
    /* Without both: the form --suggest-exclude writes (reporter/model/suggest.c). */
    assert_false(prof_filter_selected("int NS::twice<int>(int) const", NULL, "NS::twice<int>"));
    assert_false(prof_filter_selected("NS::pair<int, int> NS::make(int, int)", NULL, "NS::make"));
    assert_true(prof_filter_selected("NS::maker(int)", NULL, "NS::make"));
    /* The spaces of operator new and of a conversion operator belong to the name. */
    assert_true(prof_filter_selected("operator new(unsigned long)", NULL, "new"));
    assert_false(prof_filter_selected("Box::operator bool() const", NULL, "Box::operator bool"));
    assert_true(prof_filter_selected("Box::operator bool() const", NULL, "bool"));
}

/* "\," puts a comma inside a pattern; a full parameter list can then be matched. */
static void escaped_comma_is_part_of_the_pattern(void **state)
{
    (void)state;
    assert_false(prof_filter_selected("add(int, int)", NULL, "add(int\\, int)"));
    assert_true(prof_filter_selected("add(int, long)", NULL, "add(int\\, int)"));
}

/* A filter file: a pattern or several a line; blank lines, '#' comments, the blanks around a
   line and CRLF endings do not count; the last line needs no newline. */
static void filter_file_lines_become_one_list(void **state)
{
    (void)state;
    int err = 0;
    char *v = patterns_of("# hot, tiny functions\nvdbeRecordCompareInt\n\n  getCellInfo  \r\n"
                          "\t# indented comment\nstd::*, __gnu_cxx::*\nlast\\,one",
                          &err);
    assert_non_null(v);
    assert_string_equal(v, "vdbeRecordCompareInt,getCellInfo,std::*, __gnu_cxx::*,last\\,one");
    assert_true(prof_filter_selected("std::sort<int*>(int*, int*)", NULL, v) == 0);
    assert_true(prof_filter_selected("last,one", NULL, v) == 0);
    assert_true(prof_filter_selected("getCellInfoX", NULL, v) == 1);
    free(v);
    v = patterns_of("# nothing but comments\n\n", &err);
    assert_non_null(v);
    assert_string_equal(v, "");
    free(v);
    v = patterns_of("", &err);
    assert_non_null(v);
    assert_string_equal(v, "");
    free(v);
}

/* What cannot be a filter file is refused with the reason: missing, a folder, a FIFO, a NUL
   byte, more than PROF_FILTER_FILE_MAX bytes. */
static void filter_file_refuses_what_is_not_one(void **state)
{
    (void)state;
    int err = 0;
    assert_null(prof_filter_file("/nonexistent/list", &err));
    assert_int_equal(err, ENOENT);
    err = 0;
    assert_null(prof_filter_file("/tmp", &err));
    assert_int_equal(err, EINVAL);
    char fifo[64];
    strcpy(fifo, "/tmp/test_filter.XXXXXX");
    assert_non_null(mkdtemp(fifo));
    strcat(fifo, "/fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    err = 0;
    assert_null(prof_filter_file(fifo, &err)); /* refused at once, not waited on */
    assert_int_equal(err, EINVAL);
    remove_file(fifo);
    const char *path = file_of("a\0b\n", 4);
    err = 0;
    assert_null(prof_filter_file(path, &err));
    assert_int_equal(err, EILSEQ);
    remove_file(path);
    size_t big = PROF_FILTER_FILE_MAX + 1;
    char *text = malloc(big);
    assert_non_null(text);
    memset(text, 'x', big);
    path = file_of(text, big);
    err = 0;
    assert_null(prof_filter_file(path, &err));
    assert_int_equal(err, EFBIG);
    remove_file(path);
    path = file_of(text, big - 1); /* exactly the limit: read */
    char *v = prof_filter_file(path, &err);
    assert_non_null(v);
    assert_int_equal(strlen(v), big - 1);
    free(v);
    remove_file(path);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_filter_selects_everything),
        cmocka_unit_test(include_then_exclude),
        cmocka_unit_test(cxx_names_match_without_parameters),
        cmocka_unit_test(cxx_names_match_whatever_their_return_type),
        cmocka_unit_test(escaped_comma_is_part_of_the_pattern),
        cmocka_unit_test(filter_file_lines_become_one_list),
        cmocka_unit_test(filter_file_refuses_what_is_not_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
