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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_filter_selects_everything),
        cmocka_unit_test(include_then_exclude),
        cmocka_unit_test(cxx_names_match_without_parameters),
        cmocka_unit_test(cxx_names_match_whatever_their_return_type),
        cmocka_unit_test(escaped_comma_is_part_of_the_pattern),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
