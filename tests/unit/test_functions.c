/*
 * test_functions.c - unit tests of functions.c and symbols.c (libprofreport-auto): describing
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

#include "functions.h"

int described_function(int x);
/* Looked up by address below; the line after the macro declares it. */
#define DESCRIBED_LINE (__LINE__ + 1)
static const int described_line = DESCRIBED_LINE;
__attribute__((noinline)) int described_function(int x) { return x * 7 + 1; }

static __attribute__((noinline)) int static_function(int x) { return x - 3; }

/* The build id of this program as `readelf -n` prints it (binutils: not libdw's reading). */
static void readelf_build_id(char *out, size_t size)
{
    out[0] = 0;
    char cmd[4200], self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = 0;
    snprintf(cmd, sizeof cmd, "readelf -n '%s' | sed -n 's/.*Build ID: *//p'", self);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    if (fgets(out, (int)size, p))
        out[strcspn(out, "\n")] = 0;
    pclose(p);
}

/* An exported function of the program: name, module, build id and offset, no DWARF read; its
   declaration's file and line when asked (prof_sym_locate). */
static void describes_a_function_of_this_program(void **state)
{
    (void)state;
    struct prof_symbolizer *s = prof_sym_open();
    assert_non_null(s);
    struct prof_fn fn;
    assert_int_equal(prof_sym_lookup(s, (const void *)described_function, &fn), PROF_OK);
    assert_string_equal(fn.name, "described_function");
    assert_null(fn.file);
    assert_null(fn.unit); /* exported: no unit of its own */
    assert_false(fn.weak);
    assert_non_null(strstr(fn.module, "test_functions"));
    assert_true(fn.offset < (uint64_t)(uintptr_t)described_function);
    char want[256];
    readelf_build_id(want, sizeof want);
    assert_true(strlen(want) >= 16);
    assert_non_null(fn.build_id);
    assert_string_equal(fn.build_id, want);
    prof_fn_release(&fn);
    char *file = NULL;
    unsigned line = 0;
    assert_int_equal(prof_sym_locate(s, (const void *)described_function, &file, &line), 1);
    assert_non_null(strstr(file, "test_functions.c"));
    assert_int_equal(line, described_line);
    free(file);
    /* A static function is found through the symbol table too. */
    assert_int_equal(prof_sym_lookup(s, (const void *)static_function, &fn), PROF_OK);
    assert_string_equal(fn.name, "static_function");
    assert_non_null(fn.unit); /* a file-local symbol: its unit's file, from STT_FILE */
    assert_non_null(strstr(fn.unit, "test_functions.c"));
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
        cmocka_unit_test(describes_a_function_of_this_program),
        cmocka_unit_test(demangles_cxx_names_only),
        cmocka_unit_test(table_describes_each_address_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
