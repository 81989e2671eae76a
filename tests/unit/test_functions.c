/*
 * test_functions.c - unit tests of functions.c and symbols.c (libprofreport-auto): the name
 * filters, and describing code addresses of this very test program from its DWARF.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "functions.h"

int described_function(int x);
/* Looked up by address below; the line after the macro declares it. */
#define DESCRIBED_LINE (__LINE__ + 1)
static const int described_line = DESCRIBED_LINE;
__attribute__((noinline)) int described_function(int x) { return x * 7 + 1; }

static __attribute__((noinline)) int static_function(int x) { return x - 3; }

/* With no filter every function is recorded. */
static void no_filter_selects_everything(void **state)
{
    (void)state;
    assert_true(prof_fn_selected("main", NULL, NULL));
    assert_true(prof_fn_selected("std::vector<int>::push_back(int const&)", NULL, NULL));
}

/* Include keeps only matches; exclude then removes matches; patterns are comma-separated and
   spaces around them do not count. */
static void include_then_exclude(void **state)
{
    (void)state;
    assert_true(prof_fn_selected("fib", "fib,is_*", NULL));
    assert_true(prof_fn_selected("is_even", "fib, is_*", NULL));
    assert_false(prof_fn_selected("main", "fib,is_*", NULL));
    assert_false(prof_fn_selected("is_odd", "fib,is_*", "is_odd"));
    assert_false(prof_fn_selected("std::sort<int*>(int*, int*)", NULL, "std::*"));
    assert_true(prof_fn_selected("mystd::sort(int)", NULL, "std::*"));
    assert_true(prof_fn_selected("x", "", NULL) == 0); /* an empty list matches nothing */
}

/* A C++ name matches with or without its parameter list and qualifiers after it. */
static void cxx_names_match_without_parameters(void **state)
{
    (void)state;
    assert_false(prof_fn_selected("Widget::OnPaint() const", NULL, "*::OnPaint"));
    assert_true(prof_fn_selected("Widget::OnPaint2() const", NULL, "*::OnPaint"));
    /* Template arguments and operator() keep their parentheses. */
    assert_false(prof_fn_selected("Fn<void (int)>::run(int)", NULL, "Fn<void (int)>::run"));
    assert_false(prof_fn_selected("Lambda::operator()(int) const", NULL, "*::operator()"));
    assert_false(prof_fn_selected("(anonymous namespace)::helper(int)", NULL,
                                  "(anonymous namespace)::helper"));
}

/* A template function's demangled name starts with its return type: a pattern for the
   qualified name matches whatever that type is (issue 24). */
static void cxx_names_match_whatever_their_return_type(void **state)
{
    (void)state;
    assert_false(prof_fn_selected("bool std::operator==<char, std::char_traits<char>, "
                                  "std::allocator<char> >(std::__cxx11::basic_string<char, "
                                  "std::char_traits<char>, std::allocator<char> > const&, "
                                  "char const*)",
                                  NULL, "std::*"));
    assert_false(prof_fn_selected("__gnu_cxx::__normal_iterator<int*, std::vector<int, "
                                  "std::allocator<int> > > std::vector<int, "
                                  "std::allocator<int> >::begin()",
                                  NULL, "std::*"));
    assert_false(prof_fn_selected("void std::swap<int>(int&, int&)", NULL, "std::swap<*>"));
    assert_false(prof_fn_selected("YAML::Node YAML::Load<char>(char const*)", NULL, "YAML::Load*"));
    /* Without both: the form --suggest-exclude writes (reporter/model/suggest.c). */
    assert_false(prof_fn_selected("int NS::twice<int>(int) const", NULL, "NS::twice<int>"));
    assert_false(prof_fn_selected("NS::pair<int, int> NS::make(int, int)", NULL, "NS::make"));
    assert_true(prof_fn_selected("NS::maker(int)", NULL, "NS::make"));
    /* The spaces of operator new and of a conversion operator belong to the name. */
    assert_true(prof_fn_selected("operator new(unsigned long)", NULL, "new"));
    assert_false(prof_fn_selected("Box::operator bool() const", NULL, "Box::operator bool"));
    assert_true(prof_fn_selected("Box::operator bool() const", NULL, "bool"));
}

/* "\," puts a comma inside a pattern; a full parameter list can then be matched. */
static void escaped_comma_is_part_of_the_pattern(void **state)
{
    (void)state;
    assert_false(prof_fn_selected("add(int, int)", NULL, "add(int\\, int)"));
    assert_true(prof_fn_selected("add(int, long)", NULL, "add(int\\, int)"));
}

/* An exported function of the program: name, declaration line, module and offset. */
static void describes_a_function_of_this_program(void **state)
{
    (void)state;
    struct prof_symbolizer *s = prof_sym_open();
    assert_non_null(s);
    struct prof_fn fn;
    assert_int_equal(prof_sym_lookup(s, (const void *)described_function, &fn), PROF_OK);
    assert_string_equal(fn.name, "described_function");
    assert_non_null(fn.file);
    assert_non_null(strstr(fn.file, "test_functions.c"));
    assert_int_equal(fn.line, described_line);
    assert_non_null(strstr(fn.module, "test_functions"));
    assert_true(fn.offset < (uint64_t)(uintptr_t)described_function);
    prof_fn_release(&fn);
    /* A static function is found through the symbol table too. */
    assert_int_equal(prof_sym_lookup(s, (const void *)static_function, &fn), PROF_OK);
    assert_string_equal(fn.name, "static_function");
    prof_fn_release(&fn);
    /* A function of a shared library (libc; one no sanitizer intercepts) is named from its
       dynamic symbols. */
    assert_int_equal(prof_sym_lookup(s, (const void *)getpid, &fn), PROF_OK);
    assert_non_null(strstr(fn.module, "libc"));
    assert_true(fn.name[0] != 0);
    prof_fn_release(&fn);
    /* No module holds a null address. */
    assert_int_equal(prof_sym_lookup(s, NULL, &fn), PROF_ERR_ARGUMENT);
    prof_sym_close(s);
}

/* C++ symbols are demangled; C names and unreadable ones come back unchanged. */
static void demangles_cxx_names_only(void **state)
{
    (void)state;
    char *d = prof_sym_demangle("_ZN6shapes6Square4areaEv");
    assert_string_equal(d, "shapes::Square::area()");
    free(d);
    d = prof_sym_demangle("main");
    assert_string_equal(d, "main");
    free(d);
    d = prof_sym_demangle("_Znot-a-mangled-name");
    assert_string_equal(d, "_Znot-a-mangled-name");
    free(d);
}

/* The process-wide table describes an address once and gives the same answer after. */
static void table_describes_each_address_once(void **state)
{
    (void)state;
    const struct prof_fn *a = prof_fn_get((const void *)described_function);
    const struct prof_fn *b = prof_fn_get((const void *)described_function);
    assert_non_null(a);
    assert_ptr_equal(a, b);
    assert_string_equal(a->name, "described_function");
    assert_false(a->skip);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_filter_selects_everything),
        cmocka_unit_test(include_then_exclude),
        cmocka_unit_test(cxx_names_match_without_parameters),
        cmocka_unit_test(cxx_names_match_whatever_their_return_type),
        cmocka_unit_test(escaped_comma_is_part_of_the_pattern),
        cmocka_unit_test(describes_a_function_of_this_program),
        cmocka_unit_test(demangles_cxx_names_only),
        cmocka_unit_test(table_describes_each_address_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
