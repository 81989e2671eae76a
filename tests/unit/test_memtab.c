/*
 * test_memtab.c - unit tests of memtab.c: the table of blocks finds leaks, double frees, frees of
 * unknown pointers, kind mismatches and cross-thread frees; findings add up by key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "memtab.h"
#include "profreport.h"

/* An operation of thread number thread (tid 100 + thread) at text site site. */
static struct prof_mem_op op_of(uint32_t thread, int kind, const char *site, const char *region)
{
    struct prof_mem_op op;
    memset(&op, 0, sizeof op);
    op.site.v = (uintptr_t)site;
    op.site.text = 1;
    op.region = region;
    op.thread = thread;
    op.run = 1;
    op.tid = (pid_t)(100 + thread);
    op.kind = kind;
    return op;
}

/* A free of a live block of the same kind on the same thread finds nothing. */
static void matched_free_finds_nothing(void **state)
{
    (void)state;
    struct prof_memtab t = {0};
    struct prof_mem_op a = op_of(1, PROF_MEM_MALLOC, "a.c:1", "r");
    struct prof_mem_op f = op_of(1, PROF_MEM_MALLOC, "a.c:2", "r");
    struct prof_mem_find out[2];
    uint64_t bytes[2];
    int n = -1;
    assert_int_equal(prof_memtab_alloc(&t, 0x1000, 10, &a), 0);
    assert_int_equal(prof_memtab_free(&t, 0x1000, &f, out, bytes, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(prof_memtab_find(&t, 0x1000)->freed, 1);
    prof_memtab_release(&t);
}

/* Freeing a tombstone is a double free, refused, naming the first free and the block's size. */
static void second_free_is_a_refused_double_free(void **state)
{
    (void)state;
    struct prof_memtab t = {0};
    struct prof_mem_op a = op_of(1, PROF_MEM_MALLOC, "a.c:1", NULL);
    struct prof_mem_op f1 = op_of(1, PROF_MEM_MALLOC, "a.c:2", NULL);
    struct prof_mem_op f2 = op_of(1, PROF_MEM_MALLOC, "a.c:3", "r");
    struct prof_mem_find out[2];
    uint64_t bytes[2];
    int n;
    prof_memtab_alloc(&t, 0x2000, 48, &a);
    assert_int_equal(prof_memtab_free(&t, 0x2000, &f1, out, bytes, &n), 0);
    assert_int_equal(prof_memtab_free(&t, 0x2000, &f2, out, bytes, &n), 1);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].kind, PROF_MF_DOUBLE_FREE);
    assert_int_equal(bytes[0], 48);
    assert_string_equal((const char *)out[0].site.v, "a.c:3");
    assert_string_equal((const char *)out[0].other.v, "a.c:2");
    assert_string_equal(out[0].region, "r");
    /* Allocated again at the same address: live, and its free is clean. */
    prof_memtab_alloc(&t, 0x2000, 8, &a);
    assert_int_equal(prof_memtab_free(&t, 0x2000, &f1, out, bytes, &n), 0);
    assert_int_equal(n, 0);
    prof_memtab_release(&t);
}

/* A pointer the table never saw is an unknown free, passed on; NULL is nothing at all. */
static void unknown_pointer_is_passed_on(void **state)
{
    (void)state;
    struct prof_memtab t = {0};
    struct prof_mem_op f = op_of(2, PROF_MEM_NEW, "b.c:9", NULL);
    struct prof_mem_find out[2];
    uint64_t bytes[2];
    int n;
    assert_int_equal(prof_memtab_free(&t, 0x3000, &f, out, bytes, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].kind, PROF_MF_UNKNOWN_FREE);
    assert_int_equal(out[0].alloc_kind, -1);
    assert_int_equal(out[0].free_kind, PROF_MEM_NEW);
    assert_int_equal(out[0].thread, 2);
    assert_int_equal(prof_memtab_free(&t, 0, &f, out, bytes, &n), 0);
    assert_int_equal(n, 0);
    prof_memtab_release(&t);
}

/* Another deallocator's kind, on another thread: a mismatch and a cross-thread free at once. */
static void wrong_kind_on_other_thread_finds_both(void **state)
{
    (void)state;
    struct prof_memtab t = {0};
    struct prof_mem_op a = op_of(1, PROF_MEM_NEW, "c.c:1", NULL);
    struct prof_mem_op f = op_of(3, PROF_MEM_NEW_ARRAY, "c.c:2", NULL);
    struct prof_mem_find out[2];
    uint64_t bytes[2];
    int n;
    prof_memtab_alloc(&t, 0x4000, 24, &a);
    assert_int_equal(prof_memtab_free(&t, 0x4000, &f, out, bytes, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(out[0].kind, PROF_MF_MISMATCH);
    assert_int_equal(out[0].alloc_kind, PROF_MEM_NEW);
    assert_int_equal(out[0].free_kind, PROF_MEM_NEW_ARRAY);
    assert_int_equal(out[1].kind, PROF_MF_CROSS_THREAD);
    assert_int_equal(out[1].thread, 3);
    assert_int_equal(out[1].other_thread, 1);
    assert_string_equal((const char *)out[1].other.v, "c.c:1");
    assert_int_equal(bytes[0], 24);
    assert_int_equal(bytes[1], 24);
    prof_memtab_release(&t);
}

/* Undoing a free (failed realloc) makes the block live again: a later free is clean. */
static void unfree_makes_the_block_live(void **state)
{
    (void)state;
    struct prof_memtab t = {0};
    struct prof_mem_op a = op_of(1, PROF_MEM_MALLOC, "d.c:1", NULL);
    struct prof_mem_find out[2];
    uint64_t bytes[2];
    int n;
    prof_memtab_alloc(&t, 0x5000, 5, &a);
    prof_memtab_free(&t, 0x5000, &a, out, bytes, &n);
    prof_memtab_unfree(&t, 0x5000);
    assert_int_equal(prof_memtab_free(&t, 0x5000, &a, out, bytes, &n), 0);
    assert_int_equal(n, 0);
    prof_memtab_release(&t);
}

/* Leaks are the run's live blocks allocated while recording, added up by site and thread. */
static void leaks_are_live_blocks_of_the_run(void **state)
{
    (void)state;
    struct prof_memtab t = {0};
    struct prof_mem_op a = op_of(1, PROF_MEM_MALLOC, "e.c:1", "load");
    struct prof_mem_op other_run = a, untracked = a;
    other_run.run = 2;
    untracked.thread = 0;
    struct prof_mem_find out[2];
    uint64_t bytes[2];
    int n;
    /* Thousands of blocks: the table grows many times over. */
    for (uintptr_t p = 1; p <= 5000; p++)
        assert_int_equal(prof_memtab_alloc(&t, p * 16, 10, &a), 0);
    for (uintptr_t p = 1; p <= 4990; p++)
        prof_memtab_free(&t, p * 16, &a, out, bytes, &n);
    prof_memtab_alloc(&t, 0x999990, 7, &other_run);
    prof_memtab_alloc(&t, 0x999980, 7, &untracked);
    struct prof_memfind_map m = {0};
    assert_int_equal(prof_memtab_leaks(&t, 1, &m), 0);
    size_t k;
    struct prof_memfind_slot **v = prof_memfind_sorted(&m, &k);
    assert_int_equal(k, 1);
    assert_int_equal(v[0]->key.kind, PROF_MF_LEAK);
    assert_int_equal(v[0]->count, 10);
    assert_int_equal(v[0]->bytes, 100);
    assert_string_equal(v[0]->key.region, "load");
    prof_mem_unmap(v, k * sizeof *v);
    prof_memfind_release(&m);
    prof_memtab_release(&t);
}

/* Equal keys add up (a site's text counts, not its address); the order is kind, then bytes. */
static void findings_add_up_by_key_in_report_order(void **state)
{
    (void)state;
    char copy[] = "f.c:7";
    struct prof_mem_op u1 = op_of(1, PROF_MEM_MALLOC, "f.c:7", NULL);
    struct prof_mem_op u2 = op_of(1, PROF_MEM_MALLOC, copy, NULL);
    struct prof_memtab t = {0};
    struct prof_mem_find out[2];
    uint64_t bytes[2];
    int n;
    struct prof_memfind_map m = {0};
    prof_memtab_free(&t, 0x10, &u1, out, bytes, &n);
    prof_memfind_add(&m, &out[0], 1, bytes[0]);
    prof_memtab_free(&t, 0x20, &u2, out, bytes, &n);
    prof_memfind_add(&m, &out[0], 1, bytes[0]);
    struct prof_mem_op a = op_of(1, PROF_MEM_MALLOC, "f.c:1", NULL);
    struct prof_mem_op b = op_of(1, PROF_MEM_MALLOC, "f.c:2", NULL);
    prof_memtab_alloc(&t, 0x30, 5, &a);
    prof_memtab_alloc(&t, 0x40, 500, &b);
    prof_memtab_leaks(&t, 1, &m);
    size_t k;
    struct prof_memfind_slot **v = prof_memfind_sorted(&m, &k);
    assert_int_equal(k, 3);
    assert_int_equal(v[0]->key.kind, PROF_MF_LEAK);
    assert_int_equal(v[0]->bytes, 500);
    assert_int_equal(v[1]->key.kind, PROF_MF_LEAK);
    assert_int_equal(v[1]->bytes, 5);
    assert_int_equal(v[2]->key.kind, PROF_MF_UNKNOWN_FREE);
    assert_int_equal(v[2]->count, 2);
    prof_mem_unmap(v, k * sizeof *v);
    prof_memfind_release(&m);
    prof_memtab_release(&t);
}

/* Two leaks at one site with different stacks are two findings; equal stacks add up. */
static void leaks_add_up_by_site_and_stack(void **state)
{
    (void)state;
    struct prof_memtab t = {0};
    struct prof_mem_op a = op_of(1, PROF_MEM_MALLOC, NULL, NULL);
    a.site.text = 0;
    a.site.v = 0x401000;
    a.stack.n = 2;
    a.stack.pc[0] = 0x401000;
    a.stack.pc[1] = 0x402000;
    prof_memtab_alloc(&t, 0x10, 8, &a);
    prof_memtab_alloc(&t, 0x20, 8, &a);
    a.stack.pc[1] = 0x403000;
    prof_memtab_alloc(&t, 0x30, 8, &a);
    struct prof_memfind_map m = {0};
    assert_int_equal(prof_memtab_leaks(&t, 1, &m), 0);
    size_t k;
    struct prof_memfind_slot **v = prof_memfind_sorted(&m, &k);
    assert_int_equal(k, 2);
    assert_int_equal(v[0]->count, 2);
    assert_int_equal(v[0]->key.stack.n, 2);
    assert_int_equal(v[0]->key.stack.pc[1], 0x402000);
    assert_int_equal(v[1]->count, 1);
    assert_int_equal(v[1]->key.stack.pc[1], 0x403000);
    prof_mem_unmap(v, k * sizeof *v);
    prof_memfind_release(&m);
    prof_memtab_release(&t);
}

/* The runtime's modules by path, whatever their folder; a program's library is not one. */
static void runtime_modules_are_the_loader_and_the_c_and_cxx_libraries(void **state)
{
    (void)state;
    assert_true(prof_mem_runtime_module("/lib64/ld-linux-x86-64.so.2"));
    assert_true(prof_mem_runtime_module("/lib/x86_64-linux-gnu/libc.so.6"));
    assert_true(prof_mem_runtime_module("/usr/lib/x86_64-linux-gnu/libstdc++.so.6"));
    assert_true(prof_mem_runtime_module("libgcc_s.so.1"));
    assert_false(prof_mem_runtime_module("/usr/bin/app"));
    assert_false(prof_mem_runtime_module("/opt/lib/libcrypto.so.3"));
    assert_false(prof_mem_runtime_module("/opt/libc.so.d/app")); /* the folder does not count */
    assert_false(prof_mem_runtime_module(NULL));
}

/* Functions that hand their allocation to the caller, mangled operator new among them. */
static void hands_over_names_the_allocating_library_functions(void **state)
{
    (void)state;
    assert_true(prof_mem_hands_over("strdup"));
    assert_true(prof_mem_hands_over("getline"));
    assert_true(prof_mem_hands_over("_Znwm"));                /* operator new(unsigned long) */
    assert_true(prof_mem_hands_over("_ZnamRKSt9nothrow_t"));  /* operator new[], nothrow */
    assert_false(prof_mem_hands_over("_IO_file_doallocate")); /* stdio's own buffer */
    assert_false(prof_mem_hands_over("strdupa"));
    assert_false(prof_mem_hands_over(""));
    assert_false(prof_mem_hands_over(NULL));
}

/* The names the memory section uses. */
static void names_of_kinds(void **state)
{
    (void)state;
    assert_string_equal(prof_mem_finding_name(PROF_MF_CROSS_THREAD), "cross-thread-free");
    assert_string_equal(prof_mem_alloc_name(PROF_MEM_NEW_ARRAY), "new[]");
    assert_string_equal(prof_mem_free_name(PROF_MEM_NEW_ARRAY), "delete[]");
    assert_string_equal(prof_mem_free_name(-1), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matched_free_finds_nothing),
        cmocka_unit_test(second_free_is_a_refused_double_free),
        cmocka_unit_test(unknown_pointer_is_passed_on),
        cmocka_unit_test(wrong_kind_on_other_thread_finds_both),
        cmocka_unit_test(unfree_makes_the_block_live),
        cmocka_unit_test(leaks_are_live_blocks_of_the_run),
        cmocka_unit_test(findings_add_up_by_key_in_report_order),
        cmocka_unit_test(names_of_kinds),
        cmocka_unit_test(leaks_add_up_by_site_and_stack),
        cmocka_unit_test(runtime_modules_are_the_loader_and_the_c_and_cxx_libraries),
        cmocka_unit_test(hands_over_names_the_allocating_library_functions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
