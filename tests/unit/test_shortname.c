/*
 * test_shortname.c - unit tests of shortname.c: C++ names shortened by structure (return type
 * dropped, template arguments and parameters collapsed), detail added back only where two names
 * would read the same, and a short name fitted to a width by its tail. The names are real: g++
 * 12's demangled symbols of a small program using std::map, std::vector, std::sort and a lambda
 * (nm -C), and the yaml-cpp names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "model/shortname.h"

#define STR "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
#define VEC_STR "std::vector<" STR ", std::allocator<" STR " > >"
#define ITER_STR "__gnu_cxx::__normal_iterator<" STR "*, " VEC_STR " >"

/* shortname(name, level) is want. */
static void shows(const char *name, int level, const char *want)
{
    char *s = shortname(name, level);
    assert_string_equal(s, want);
    free(s);
}

/* The name: the return type goes, template arguments and parameters collapse, and the
   levels bring them back one at a time. */
static void a_signature_loses_return_type_arguments_and_parameters(void **state)
{
    (void)state;
    const char *n =
        "int YAML::RegEx::MatchUnchecked<YAML::StringCharSource>(YAML::StringCharSource "
        "const&) const";
    shows(n, 0, "YAML::RegEx::MatchUnchecked<…>(…)");
    shows(n, 1, "YAML::RegEx::MatchUnchecked<YAML::StringCharSource>(…)");
    shows(n, 2,
          "YAML::RegEx::MatchUnchecked<YAML::StringCharSource>(YAML::StringCharSource const&) "
          "const");
    shows(n, 5,
          "YAML::RegEx::MatchUnchecked<YAML::StringCharSource>(YAML::StringCharSource const&) "
          "const");
    shows(n, 6, n);
}

/* Deeper template arguments stay collapsed until a level reaches them. */
static void deeper_arguments_open_a_level_at_a_time(void **state)
{
    (void)state;
    const char *n = "bool __gnu_cxx::__ops::_Iter_less_iter::operator()<" ITER_STR ", " ITER_STR
                    " >(" ITER_STR ", " ITER_STR ") const";
    shows(n, 0, "__gnu_cxx::__ops::_Iter_less_iter::operator()<…>(…)");
    shows(n, 1,
          "__gnu_cxx::__ops::_Iter_less_iter::operator()<__gnu_cxx::__normal_iterator<…>, "
          "__gnu_cxx::__normal_iterator<…> >(…)");
    shows(n, 2,
          "__gnu_cxx::__ops::_Iter_less_iter::operator()<__gnu_cxx::__normal_iterator<…>, "
          "__gnu_cxx::__normal_iterator<…> >(__gnu_cxx::__normal_iterator<…>, "
          "__gnu_cxx::__normal_iterator<…>) const");
    shows("std::vector<int, std::allocator<int> >::size() const", 0, "std::vector<…>::size()");
    shows("std::vector<int, std::allocator<int> >::size() const", 2,
          "std::vector<int, std::allocator<…> >::size() const");
    shows("std::vector<int, std::allocator<int> >::size() const", 3,
          "std::vector<int, std::allocator<int> >::size() const");
}

/* Operators keep their brackets and angle signs, with or without template arguments, and
   anonymous namespaces and lambdas are not parameter lists. */
static void operators_namespaces_and_lambdas_read_right(void **state)
{
    (void)state;
    shows("bool __gnu_cxx::operator< <" STR "*, " VEC_STR " >(" ITER_STR " const&, " ITER_STR
          " const&)",
          0, "__gnu_cxx::operator< <…>(…)");
    shows("bool __gnu_cxx::operator==<" STR "*, " VEC_STR " >(" ITER_STR " const&, " ITER_STR
          " const&)",
          0, "__gnu_cxx::operator==<…>(…)");
    shows("__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >::"
          "difference_type __gnu_cxx::operator-<int*, std::vector<int, std::allocator<int> > >("
          "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > > const&, "
          "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > > const&)",
          1, "__gnu_cxx::operator-<int*, std::vector<…> >(…)");
    shows("RegEx::operator<(RegEx const&) const", 0, "RegEx::operator<(…)");
    shows("std::function<int (int)>::operator()(int) const", 0, "std::function<…>::operator()(…)");
    shows("main::{lambda(int)#1}::operator()(int) const", 0, "main::{lambda(…)#1}::operator()(…)");
    shows("(anonymous namespace)::hidden(int)", 0, "(anonymous namespace)::hidden(…)");
    shows("void f<int>(int)", 0, "f<…>(…)");
    shows("operator new(unsigned long)", 0, "operator new(…)");
    shows("operator delete[](void*)", 0, "operator delete[](…)");
    shows("std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::"
          "operator std::basic_string_view<char, std::char_traits<char> >() const",
          0,
          "std::__cxx11::basic_string<…>::operator std::basic_string_view<char, "
          "std::char_traits<char> >()");
    shows("std::_Any_data::_M_access() const", 0, "std::_Any_data::_M_access()");
    shows("std::_Vector_base<int, std::allocator<int> >::~_Vector_base()", 0,
          "std::_Vector_base<…>::~_Vector_base()");
}

/* A function of the global namespace is C++ by its parameters: a scope, template arguments or
   a reference there (ninja's ReadFile stayed whole, 240 characters). */
static void a_global_functions_cxx_parameters_make_it_a_signature(void **state)
{
    (void)state;
    shows(
        "ReadFile(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > "
        "const&, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> "
        ">*)",
        0, "ReadFile(…)");
    shows("swap(int&, int&)", 0, "swap(…)");
    shows("fill(std::vector<int>*)", 0, "fill(…)");
    shows("fill(std::vector<int>*)", 2, "fill(std::vector<…>*)");
}

/* What is not a signature stays as it is at every level: C functions, manual regions' ids,
   unbalanced brackets. */
static void other_names_stay_as_they_are(void **state)
{
    (void)state;
    const char *names[] = {"main",
                           "ZSTD_compressBlock_lazy2",
                           "handle node",
                           "load file",
                           "walk (x)",
                           "a<b",
                           "f(",
                           "x) y(",
                           "",
                           "parse [step 2]",
                           "parse(file)",
                           "copy(a, b)"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        for (int level = 0; level < SHORTNAME_LEVELS; level++)
            shows(names[i], level, names[i]);
}

/* shortnames of names gives want, name for name. */
static void all_show(const char *const *names, const char *const *want, size_t n)
{
    char **s = shortnames(names, n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(s[i], want[i]);
        free(s[i]);
    }
    free(s);
}

/* Names that would read the same get just enough detail to differ; the others stay short. */
static void collisions_get_just_enough_detail(void **state)
{
    (void)state;
    const char *names[] = {
        "int YAML::RegEx::MatchUnchecked<YAML::StringCharSource>(YAML::StringCharSource const&) "
        "const",
        "int YAML::RegEx::MatchUnchecked<YAML::StreamCharSource>(YAML::StreamCharSource const&) "
        "const",
        "std::_Any_data::_M_access() const",
        "std::_Any_data::_M_access()",
        "YAML::Scanner::ScanNextToken()",
        "std::_Rb_tree<" STR ", int, std::_Select1st<int>, std::less<int>, std::allocator<int> "
        ">::_S_key(std::_Rb_tree_node_base const*)",
        "std::_Rb_tree<" STR ", int, std::_Select1st<int>, std::less<int>, std::allocator<int> "
        ">::_S_key(std::_Rb_tree_node<int> const*)",
        "handle node",
    };
    const char *want[] = {
        "YAML::RegEx::MatchUnchecked<YAML::StringCharSource>(…)",
        "YAML::RegEx::MatchUnchecked<YAML::StreamCharSource>(…)",
        "std::_Any_data::_M_access() const",
        "std::_Any_data::_M_access()",
        "YAML::Scanner::ScanNextToken()",
        "std::_Rb_tree<std::__cxx11::basic_string<…>, int, std::_Select1st<…>, std::less<…>, "
        "std::allocator<…> >::_S_key(std::_Rb_tree_node_base const*)",
        "std::_Rb_tree<std::__cxx11::basic_string<…>, int, std::_Select1st<…>, std::less<…>, "
        "std::allocator<…> >::_S_key(std::_Rb_tree_node<…> const*)",
        "handle node",
    };
    all_show(names, want, sizeof names / sizeof *names);
}

/* Two names that differ only in their return type (instances of one template) differ in
   full, and a short name never collides with another name's text. */
static void names_equal_but_for_the_return_type_show_it(void **state)
{
    (void)state;
    const char *names[] = {"int f<1>()", "long f<1>()", "f<…>()"};
    const char *want[] = {"int f<1>()", "long f<1>()", "f<…>()"};
    all_show(names, want, 3);
}

/* shortname_fit(s, width) is want. */
static void fits(const char *s, size_t width, const char *want)
{
    char *f = shortname_fit(s, width);
    assert_string_equal(f, want);
    free(f);
}

/* A name too wide keeps its tail: leading scopes go first, then leading characters. */
static void fitting_keeps_the_distinguishing_tail(void **state)
{
    (void)state;
    fits("YAML::RegEx::MatchUnchecked<…>(…)", 40, "YAML::RegEx::MatchUnchecked<…>(…)");
    fits("YAML::RegEx::MatchUnchecked<…>(…)", 30, "…RegEx::MatchUnchecked<…>(…)");
    fits("YAML::RegEx::MatchUnchecked<…>(…)", 24, "…MatchUnchecked<…>(…)");
    fits("YAML::RegEx::MatchUnchecked<…>(…)", 10, "…ked<…>(…)");
    fits("ZSTD_compressBlock_lazy2", 10, "…ock_lazy2");
    fits("std::vector<std::pair<int, int> >::size()", 12, "…size()");
    /* Too long without its scopes: its own name and the end of its parameters, the middle
       left out (cut from the left, ninja's ReadFile read as the tail of its parameters) */
    fits("RealDiskInterface::ReadFile(std::__cxx11::basic_string<char, std::char_traits<char>, "
         "std::allocator<char> > const&, std::__cxx11::basic_string<char, "
         "std::char_traits<char>, std::allocator<char> >*)",
         60, "ReadFile(…, std::char_traits<char>, std::allocator<char> >*)");
    fits("NS::f(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >)",
         24, "f(…d::allocator<char> >)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_signature_loses_return_type_arguments_and_parameters),
        cmocka_unit_test(deeper_arguments_open_a_level_at_a_time),
        cmocka_unit_test(operators_namespaces_and_lambdas_read_right),
        cmocka_unit_test(a_global_functions_cxx_parameters_make_it_a_signature),
        cmocka_unit_test(other_names_stay_as_they_are),
        cmocka_unit_test(collisions_get_just_enough_detail),
        cmocka_unit_test(names_equal_but_for_the_return_type_show_it),
        cmocka_unit_test(fitting_keeps_the_distinguishing_tail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
