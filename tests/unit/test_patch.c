/*
 * test_patch.c - unit tests of collector/patch.c: a call of a hook becomes a no-op of its
 * length, while threads run it; anything that is not a call of that hook in loaded code stays.
 * The "hooks" here are this file's own functions, called directly (`call rel32`); the PLT's
 * and the GOT's forms are the functional tests' (test_auto.py).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "patch.h"

#if defined(__x86_64__)

static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

/* A hook: counts its calls, and asks for the call that reached it to be patched out, as
   the hooks do for a left-out function. */
struct hook {
    unsigned long calls;
    uintptr_t ret;
    int patched;
    const void *target; /* the hook the patch is asked for */
    int hot;            /* asked as recording off does: once the call proves frequent */
};

#define HOOK_AND_CALLER(name)                                                                      \
    static struct hook name##_state;                                                               \
    static __attribute__((noinline, noipa)) void name##_hook(void)                                 \
    {                                                                                              \
        __atomic_add_fetch(&name##_state.calls, 1, __ATOMIC_RELAXED);                              \
        uintptr_t ret = (uintptr_t)__builtin_return_address(0);                                    \
        __atomic_store_n(&name##_state.ret, ret, __ATOMIC_RELAXED);                                \
        int done = name##_state.hot ? prof_patch_call_hot(ret, name##_state.target)                \
                                    : prof_patch_call(ret, name##_state.target);                   \
        __atomic_store_n(&name##_state.patched, done, __ATOMIC_RELAXED);                           \
    }                                                                                              \
    static __attribute__((noinline, noipa)) unsigned long name##_caller(unsigned long x)           \
    {                                                                                              \
        name##_hook();                                                                             \
        return x + 1;                                                                              \
    }

HOOK_AND_CALLER(direct)
HOOK_AND_CALLER(other)
HOOK_AND_CALLER(threads)
HOOK_AND_CALLER(reload)
HOOK_AND_CALLER(hot)

static void a_direct_call_becomes_a_no_op(void **state)
{
    (void)state;
    direct_state.target = (const void *)direct_hook;
    unsigned before = prof_patch_count();
    assert_int_equal(direct_caller(1), 2);
    assert_int_equal(direct_state.calls, 1);
    assert_int_equal(direct_state.patched, 1);
    assert_memory_equal((const void *)(direct_state.ret - 5), nop5, 5);
    assert_int_equal(prof_patch_count(), before + 1);
    unsigned long x = 0;
    for (int i = 0; i < 1000; i++)
        x = direct_caller(x);
    assert_int_equal(x, 1000);
    assert_int_equal(direct_state.calls, 1); /* the hook is reached no more */
    /* Asked again for the same call: it is a no-op already. */
    assert_int_equal(prof_patch_call(direct_state.ret, (const void *)direct_hook), 1);
    assert_int_equal(prof_patch_count(), before + 1);
}

static void a_call_of_another_function_stays(void **state)
{
    (void)state;
    other_state.target = (const void *)direct_hook; /* not the function this call reaches */
    unsigned before = prof_patch_count();
    for (unsigned long i = 0; i < 10; i++)
        assert_int_equal(other_caller(i), i + 1);
    assert_int_equal(other_state.calls, 10);
    assert_int_equal(other_state.patched, 0);
    assert_int_equal(((const unsigned char *)other_state.ret)[-5], 0xe8);
    assert_int_equal(prof_patch_count(), before);
}

/* Recording off: a call is left as it is until its PROF_PATCH_HOT_CALLS-th, which patches it. */
static void a_frequent_call_is_patched_at_its_countth_call(void **state)
{
    (void)state;
    hot_state.target = (const void *)hot_hook;
    hot_state.hot = 1;
    unsigned before = prof_patch_count();
    unsigned long x = 0;
    for (unsigned i = 0; i + 1 < PROF_PATCH_HOT_CALLS; i++)
        x = hot_caller(x);
    assert_int_equal(hot_state.calls, PROF_PATCH_HOT_CALLS - 1);
    assert_int_equal(hot_state.patched, 0);
    assert_int_equal(((const unsigned char *)hot_state.ret)[-5], 0xe8);
    assert_int_equal(prof_patch_count(), before);
    for (unsigned i = 0; i < 1000; i++)
        x = hot_caller(x);
    assert_int_equal(x, PROF_PATCH_HOT_CALLS - 1 + 1000);
    assert_int_equal(hot_state.calls, PROF_PATCH_HOT_CALLS); /* then no more */
    assert_int_equal(hot_state.patched, 1);
    assert_memory_equal((const void *)(hot_state.ret - 5), nop5, 5);
    assert_int_equal(prof_patch_count(), before + 1);
}

/* A call of direct_hook, laid out in data: the bytes of a call, but not loaded code. */
static unsigned char block[64];

static void a_call_outside_loaded_code_stays(void **state)
{
    (void)state;
    memset(block, 0x90, sizeof block);
    uintptr_t site = (uintptr_t)block + 16, ret = site + 5;
    int32_t rel = (int32_t)((intptr_t)(uintptr_t)direct_hook - (intptr_t)ret);
    block[16] = 0xe8;
    memcpy(block + 17, &rel, 4);
    unsigned char copy[sizeof block];
    memcpy(copy, block, sizeof block);
    assert_int_equal(prof_patch_call(ret, (const void *)direct_hook), 0);
    assert_memory_equal(block, copy, sizeof block);
    /* Nor bytes of loaded code that end no call: the middle of the caller's code. */
    assert_int_equal(prof_patch_call(direct_state.ret - 2, (const void *)direct_hook), 0);
    assert_int_equal(prof_patch_call(0, (const void *)direct_hook), 0);
}

/* Put back the call of reload_hook that returns to ret, as a module loaded again at the same
   address has it (stores of their own: ThreadSanitizer keeps no shadow for code). */
static void put_call_back(uintptr_t ret)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = (ret - 5) & ~(page - 1);
    size_t len = ret - lo > page ? 2 * page : page;
    assert_int_equal(mprotect((void *)lo, len, PROT_READ | PROT_WRITE | PROT_EXEC), 0);
    unsigned char code[5] = {0xe8};
    int32_t rel = (int32_t)((intptr_t)(uintptr_t)reload_hook - (intptr_t)ret);
    memcpy(code + 1, &rel, 4);
    for (int i = 0; i < 5; i++)
        __asm__ volatile("movb %b1, %0" : "=m"(*(unsigned char *)(ret - 5 + i)) : "q"(code[i]));
    assert_int_equal(mprotect((void *)lo, len, PROT_READ | PROT_EXEC), 0);
}

/* After a dlclose the calls tried are forgotten: a call at the same address is patched again.
   Remembered, it would reach the hook on every call (the table says it was tried). */
static void a_call_at_a_forgotten_address_is_patched_again(void **state)
{
    (void)state;
    reload_state.target = (const void *)reload_hook;
    assert_int_equal(reload_caller(1), 2);
    uintptr_t ret = reload_state.ret;
    assert_memory_equal((const void *)(ret - 5), nop5, 5);

    put_call_back(ret);
    for (unsigned long i = 0; i < 3; i++)
        assert_int_equal(reload_caller(i), i + 1);
    assert_int_equal(reload_state.calls, 4);   /* tried already: left alone, reached every time */
    assert_int_equal(reload_state.patched, 0); /* and not said to be a no-op */

    prof_patch_forget();
    for (unsigned long i = 0; i < 3; i++)
        assert_int_equal(reload_caller(i), i + 1);
    assert_int_equal(reload_state.calls, 5); /* patched again at the first of them */
    assert_memory_equal((const void *)(ret - 5), nop5, 5);
}

#define THREADS 4
#define CALLS 200000ul
static pthread_barrier_t start;

static void *runner(void *arg)
{
    unsigned long *out = arg, x = 0;
    pthread_barrier_wait(&start);
    for (unsigned long i = 0; i < CALLS; i++)
        x = threads_caller(x);
    *out = x;
    return NULL;
}

static void threads_running_the_call_while_it_changes(void **state)
{
    (void)state;
    threads_state.target = (const void *)threads_hook;
    pthread_t t[THREADS];
    unsigned long out[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, runner, &out[i]), 0);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(out[i], CALLS);
    }
    pthread_barrier_destroy(&start);
    unsigned long seen = threads_state.calls;
    assert_true(seen >= 1 && seen < THREADS * CALLS / 10);
    assert_memory_equal((const void *)(threads_state.ret - 5), nop5, 5);
    assert_int_equal(threads_caller(7), 8);
    assert_int_equal(threads_state.calls, seen);
}

int main(void)
{
    unsetenv("PROFILER_PATCH"); /* patching on, as by default */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_direct_call_becomes_a_no_op),
        cmocka_unit_test(a_call_of_another_function_stays),
        cmocka_unit_test(a_frequent_call_is_patched_at_its_countth_call),
        cmocka_unit_test(a_call_outside_loaded_code_stays),
        cmocka_unit_test(a_call_at_a_forgotten_address_is_patched_again),
        cmocka_unit_test(threads_running_the_call_while_it_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void) { return 0; }

#endif
