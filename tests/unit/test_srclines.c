/*
 * test_srclines.c - unit tests of srclines.c: the functions a run left unlocated get their
 * source file and line from their module (this test program itself), only when the module is
 * the one that ran; a module gone, rebuilt or not an ELF file is one warning each.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/index.h"
#include "model/model.h"
#include "read/srclines.h"

int located_here(int x);
/* Looked up by its offset below; the line after the macro declares it. */
enum { LOCATED_LINE = __LINE__ + 1 };
__attribute__((noinline)) int located_here(int x) { return x * 5 + 2; }

static char self[4096];
static char build_id[256];
static uint64_t offset; /* located_here's address minus this program's load bias */

/* dl_iterate_phdr callback: the main program's load bias (its entry comes first). */
static int first_bias(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(uintptr_t *)data = info->dlpi_addr;
    return 1;
}

/* This program's path, its build id as binutils' readelf prints it (not libdw's reading), and
   located_here's offset. */
static int setup(void **state)
{
    (void)state;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = 0;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "readelf -n '%s' | sed -n 's/.*Build ID: *//p'", self);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    if (!fgets(build_id, sizeof build_id, p))
        build_id[0] = 0;
    build_id[strcspn(build_id, "\n")] = 0;
    pclose(p);
    uintptr_t bias = 0;
    dl_iterate_phdr(first_bias, &bias);
    offset = (uintptr_t)located_here - bias;
    return strlen(build_id) >= 16 ? 0 : -1;
}

/* A model with one function region noted unlocated in module (build id id). */
static size_t one_function(struct model *m, const char *module, const char *id)
{
    model_init(m);
    size_t r = index_region_get(m, "located_here", strlen("located_here"));
    m->regions[r].function = 1;
    model_unlocated_add(m, r, module, id, offset);
    return r;
}

/* The one warning of the model, of kind kind, whose message holds text. */
static void one_warning(const struct model *m, const char *kind, const char *text,
                        const char *where)
{
    assert_int_equal(m->nwarnings, 1);
    assert_string_equal(m->warnings[0].kind, kind);
    assert_string_equal(m->warnings[0].where, where);
    assert_int_equal(m->warnings[0].count, 1);
    if (!strstr(m->warnings[0].message, text))
        fail_msg("warning '%s' lacks '%s'", m->warnings[0].message, text);
}

/* A function of this program, whose run gave the program's build id: located from DWARF. */
static void locates_a_function_in_its_module(void **state)
{
    (void)state;
    struct model m;
    size_t r = one_function(&m, self, build_id);
    assert_int_equal(m.nunlocated, 1);
    srclines_locate(&m);
    assert_int_equal(m.nunlocated, 0);
    assert_non_null(m.regions[r].file);
    assert_non_null(strstr(m.regions[r].file, "tests/unit/test_srclines.c"));
    assert_int_equal(m.regions[r].line, LOCATED_LINE);
    assert_int_equal(m.nwarnings, 0);
    model_release(&m);
}

/* A run that said no build id (a module linked without one): the module is taken as it is. */
static void locates_without_a_build_id(void **state)
{
    (void)state;
    struct model m;
    size_t r = one_function(&m, self, NULL);
    srclines_locate(&m);
    assert_int_equal(m.regions[r].line, LOCATED_LINE);
    assert_int_equal(m.nwarnings, 0);
    model_release(&m);
}

/* The module was rebuilt since the run: its lines would be another build's. */
static void a_rebuilt_module_gives_no_lines_and_a_warning(void **state)
{
    (void)state;
    struct model m;
    size_t r = one_function(&m, self, "00112233445566778899aabbccddeeff00112233");
    srclines_locate(&m);
    assert_null(m.regions[r].file);
    assert_int_equal(m.regions[r].line, 0);
    one_warning(&m, "module changed", "rebuilt since the run", self);
    assert_non_null(strstr(m.warnings[0].message, build_id)); /* now */
    model_release(&m);
}

/* A module that is gone, a device or a FIFO a run file names, a file that is not ELF: one
   warning each, nothing located, nothing read but regular files (the FIFO's open does not
   wait for a writer). */
static void unreadable_modules_give_warnings(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_srclines.XXXXXX", fifo[64], text[64];
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/pipe.so", dir);
    snprintf(text, sizeof text, "%s/text.so", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0); /* no writer: a blocking open would wait */
    FILE *f = fopen(text, "w");
    assert_non_null(f);
    fputs("not an ELF file\n", f);
    fclose(f);
    const struct {
        const char *path, *why;
    } cases[] = {{"/nonexistent/profreport/module.so", "No such file or directory"},
                 {"/dev/zero", "not a regular file"},
                 {fifo, "not a regular file"},
                 {text, "not an ELF file"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct model m;
        size_t r = one_function(&m, cases[i].path, build_id);
        srclines_locate(&m);
        assert_null(m.regions[r].file);
        one_warning(&m, "module not read", cases[i].why, cases[i].path);
        model_release(&m);
    }
    unlink(fifo);
    unlink(text);
    rmdir(dir);
}

/* A region is noted once, the run read last winning: runs of two builds read oldest first
   (an older build's id, then this program's) locate the function from the build on disk, with
   no warning; a region a run gave its file is never noted. */
static void a_region_is_noted_once_the_last_run_winning(void **state)
{
    (void)state;
    struct model m;
    size_t r = one_function(&m, "/elsewhere/app", "00112233445566778899aabbccddeeff00112233");
    model_unlocated_add(&m, r, self, build_id, offset);
    assert_int_equal(m.nunlocated, 1);
    size_t other = index_region_get(&m, "given", 5);
    m.regions[other].file = strdup("given.c");
    model_unlocated_add(&m, other, self, NULL, offset);
    assert_int_equal(m.nunlocated, 1);
    srclines_locate(&m);
    assert_string_equal(m.regions[other].file, "given.c");
    assert_int_equal(m.regions[r].line, LOCATED_LINE);
    assert_int_equal(m.nwarnings, 0);
    model_release(&m);
}

/* A run file that names more modules than any process maps: the first 4096 (by path) are
   tried, the rest are one warning that counts them, none opened. */
static void at_most_4096_modules_are_read(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    for (unsigned i = 0; i < 4100; i++) {
        char name[32], module[64];
        snprintf(name, sizeof name, "f%u", i);
        snprintf(module, sizeof module, "/nonexistent/profreport/m%05u.so", i);
        size_t r = index_region_get(&m, name, strlen(name));
        model_unlocated_add(&m, r, module, NULL, 0x10);
    }
    srclines_locate(&m);
    assert_int_equal(m.nwarnings, 4097);
    const struct warning_rec *w = &m.warnings[m.nwarnings - 1];
    assert_string_equal(w->kind, "modules not read");
    assert_int_equal(w->count, 4);
    assert_non_null(strstr(w->message, "4 functions without"));
    assert_string_equal(m.warnings[4095].where, "/nonexistent/profreport/m04095.so");
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(locates_a_function_in_its_module),
        cmocka_unit_test(locates_without_a_build_id),
        cmocka_unit_test(a_rebuilt_module_gives_no_lines_and_a_warning),
        cmocka_unit_test(unreadable_modules_give_warnings),
        cmocka_unit_test(a_region_is_noted_once_the_last_run_winning),
        cmocka_unit_test(at_most_4096_modules_are_read),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
