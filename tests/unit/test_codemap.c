/*
 * test_codemap.c - unit tests of collector/codemap.c: the program's functions as the sampling
 * handler sees them, and the range a function without hooks gets at its first sample.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "codemap.h"
#include "hookcode.h"
#include "leftout.h"

/* A module of three functions at 0x10000: [0x10000, 0x10040), [0x10040, 0x10050) and, after
   a gap, [0x10100, 0x10180). */
static void publish(uintptr_t key, uintptr_t base)
{
    struct prof_code_fn *f = prof_codemap_alloc(3);
    assert_non_null(f);
    f[0] = (struct prof_code_fn){base, 0x40, 0};
    f[1] = (struct prof_code_fn){base + 0x40, 0x10, 0};
    f[2] = (struct prof_code_fn){base + 0x100, 0x80, 0};
    assert_false(prof_codemap_has(key));
    assert_int_equal(prof_codemap_add(key, f, 3), 0);
    assert_true(prof_codemap_has(key));
}

/* A function no hook described takes a range at its first sample, the same one after; a
   hooked one, an address between functions and one outside every module take none. */
static void a_function_without_hooks_gets_a_range_at_its_first_sample(void **state)
{
    (void)state;
    publish(0x10000, 0x10000);
    assert_int_equal(prof_codemap_mark(0x10040, PROF_CODE_HOOKED), PROF_CODE_UNKNOWN);
    assert_int_equal(prof_codemap_leftout(0x10044), PROF_CODE_HOOKED);
    assert_int_equal(prof_codemap_leftout(0x10080), 0); /* between functions */
    assert_int_equal(prof_codemap_leftout(0x20000), 0); /* no module */
    assert_int_equal(prof_codemap_leftout(0xffff), 0);
    /* the span of the function holding an address (sample.c's inlined copies); none between
       functions */
    struct prof_code_fn span = {0, 0, 7};
    assert_int_equal(prof_codemap_place(0x1004f, &span), PROF_CODE_HOOKED);
    assert_int_equal(span.lo, 0x10040);
    assert_int_equal(span.size, 0x10);
    assert_int_equal(span.state, 7);
    span = (struct prof_code_fn){0, 0, 0};
    assert_int_equal(prof_codemap_place(0x10050, &span), 0);
    assert_int_equal(span.lo, 0);
    assert_int_equal(span.size, 0);

    uint32_t r = prof_codemap_leftout(0x10010);
    assert_true(r != 0 && r != PROF_CODE_HOOKED && r != PROF_CODE_NONE);
    assert_int_equal(prof_leftout_entry(r), 0x10000);
    assert_int_equal(prof_leftout_at(0x1003f), r);
    assert_null(prof_leftout_fn(r)); /* described later, by its thread */
    assert_int_equal(prof_codemap_leftout(0x10000), r);
    assert_int_equal(prof_codemap_leftout(0x1003f), r);

    /* a mark on an address that is no function's entry changes nothing */
    assert_int_equal(prof_codemap_mark(0x10010, PROF_CODE_HOOKED), PROF_CODE_NONE);
    assert_int_equal(prof_codemap_leftout(0x10010), r);
}

/* A hook describes a function that already took a sample (its first call, still in its
   prologue): the mark says what the range was, so it can be dropped; the function's samples
   then follow the tree. A function the filters left out carries its own range number. */
static void a_hook_takes_a_function_back(void **state)
{
    (void)state;
    publish(0x30000, 0x30000);
    uint32_t r = prof_codemap_leftout(0x30120);
    assert_true(r != 0 && r != PROF_CODE_HOOKED);
    assert_int_equal(prof_codemap_mark(0x30100, PROF_CODE_HOOKED), r);
    assert_int_equal(prof_codemap_leftout(0x30120), PROF_CODE_HOOKED);

    uint32_t left = prof_leftout_add(NULL, 0x30040, 0x10);
    assert_int_equal(prof_codemap_mark(0x30040, left), PROF_CODE_UNKNOWN);
    assert_int_equal(prof_codemap_leftout(0x30048), left);
    /* left out with no range to spare: its context's time */
    assert_int_equal(prof_codemap_mark(0x30000, PROF_CODE_NONE), PROF_CODE_UNKNOWN);
    assert_int_equal(prof_codemap_leftout(0x30004), PROF_CODE_HOOKED);
}

/* Forgotten modules answer no more, and the same key may be published again. */
static void forgotten_modules_answer_no_more(void **state)
{
    (void)state;
    prof_codemap_forget();
    assert_false(prof_codemap_has(0x10000));
    assert_int_equal(prof_codemap_leftout(0x10010), 0);
    publish(0x10000, 0x10000);
    uint32_t r = prof_codemap_leftout(0x10010);
    assert_true(r != 0 && r != PROF_CODE_HOOKED);
}

/* An empty module is not published. */
static void an_empty_module_is_refused(void **state)
{
    (void)state;
    struct prof_code_fn *f = prof_codemap_alloc(0);
    assert_non_null(f);
    assert_int_equal(prof_codemap_add(0x50000, f, 0), -1);
    assert_false(prof_codemap_has(0x50000));
}

/* An enter hook that returns outside its function's code, into another published function, is
   a copy's inlined there; one in its own code, in a part (foo.cold, which may be its own), between
   functions or outside every module is not, nor any of a function whose code is not known. A
   part's samples are its context's, as a hooked function's; asking makes no range. */
static void a_hook_in_another_functions_code_is_an_inlined_copys(void **state)
{
    (void)state;
    prof_codemap_forget();
    struct prof_code_fn *f = prof_codemap_alloc(3);
    assert_non_null(f);
    f[0] = (struct prof_code_fn){0x60000, 0x40, 0};              /* not described yet */
    f[1] = (struct prof_code_fn){0x60040, 0x40, 0};              /* the copy's own code */
    f[2] = (struct prof_code_fn){0x60100, 0x20, PROF_CODE_PART}; /* a cold part */
    assert_int_equal(prof_codemap_add(0x60000, f, 3), 0);
    assert_true(prof_codemap_inlined(0x60010, 0x60040, 0x40));
    assert_false(prof_codemap_inlined(0x60045, 0x60040, 0x40));
    assert_false(prof_codemap_inlined(0x60110, 0x60040, 0x40));
    assert_false(prof_codemap_inlined(0x600c0, 0x60040, 0x40)); /* between functions */
    assert_false(prof_codemap_inlined(0x90000, 0x60040, 0x40)); /* no module */
    assert_false(prof_codemap_inlined(0x60010, 0x60040, 0));
    /* no range was made for the function the hook is in */
    assert_int_equal(prof_codemap_mark(0x60000, PROF_CODE_HOOKED), PROF_CODE_UNKNOWN);
    assert_int_equal(prof_codemap_leftout(0x60104), PROF_CODE_HOOKED);
}

#if defined(__x86_64__) || defined(__i386__)
/* Code bytes for prof_codemap_caller: functions f0 [code, code + 128), hooked, and f1
   [code + 128, code + 256), without hooks. */
static unsigned char code[256];

/* Write `call rel32` ending at code + end, to target. */
static void put_call(size_t end, uintptr_t target)
{
    int32_t rel = (int32_t)(intptr_t)(target - (uintptr_t)(code + end));
    code[end - 5] = 0xe8;
    memcpy(code + end - 4, &rel, sizeof rel);
}

/* The caller of a sample outside the program is the first word up the stack that returns
   into a published function right after a call out of the published ones: a call between
   program functions is a stale word, passed over; a hooked caller says so; no caller, 0. The
   scan never leaves the stack pointer's page. */
static void the_caller_is_the_first_return_into_the_program(void **state)
{
    (void)state;
    prof_codemap_forget();
    struct prof_code_fn *f = prof_codemap_alloc(2);
    assert_non_null(f);
    f[0] = (struct prof_code_fn){(uintptr_t)code, 128, 0};
    f[1] = (struct prof_code_fn){(uintptr_t)code + 128, 128, 0};
    assert_int_equal(prof_codemap_add((uintptr_t)code, f, 2), 0);
    prof_codemap_mark((uintptr_t)code, PROF_CODE_HOOKED);
    uintptr_t outside = (uintptr_t)code + 0x100000;
    put_call(25, outside);               /* f0 calls out */
    put_call(45, (uintptr_t)code + 130); /* f0 calls f1: program to program */
    put_call(155, outside);              /* f1 calls out */
    code[200] = 0x90;                    /* f1 + 72: after no call */

    /* Each stack made of words lies in one page, which the scan does not leave: on the
       thread's own stack, ASan's frame layout and the stack's random start put the words
       across a page boundary now and then (CI once: r was 0). */
    _Alignas(64) uintptr_t stack[4] = {0x1234, (uintptr_t)code + 45, (uintptr_t)code + 200,
                                       (uintptr_t)code + 155};
    uint32_t r = prof_codemap_caller(stack, UINTPTR_MAX, 0);
    assert_true(r != 0 && r != PROF_CODE_HOOKED);
    assert_int_equal(prof_leftout_entry(r), (uintptr_t)code + 128);

    _Alignas(64) uintptr_t hooked[2] = {(uintptr_t)code + 25, (uintptr_t)code + 155};
    assert_int_equal(prof_codemap_caller(hooked, UINTPTR_MAX, 0), PROF_CODE_HOOKED);
    uintptr_t none[PROF_CODEMAP_SCAN + 1] = {0};
    none[PROF_CODEMAP_SCAN] = (uintptr_t)code + 155; /* past the words looked at */
    assert_int_equal(prof_codemap_caller(none, UINTPTR_MAX, 0), 0);

    /* two words before a page no one may read: the caller beyond them is not looked for */
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *m =
        mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mprotect(m + page, (size_t)page, PROT_NONE), 0);
    uintptr_t *edge = (uintptr_t *)(m + page) - 2;
    edge[0] = edge[1] = 0x1234;
    assert_int_equal(prof_codemap_caller(edge, UINTPTR_MAX, 0), 0);
    edge[1] = (uintptr_t)code + 155;
    assert_int_equal(prof_codemap_caller(edge, UINTPTR_MAX, 0), r);
    /* nor beyond the innermost frame's position: those are its own and its callers' words */
    assert_int_equal(prof_codemap_caller(edge, (uintptr_t)(edge + 1), 0), 0);
    assert_int_equal(prof_codemap_caller(edge, (uintptr_t)(edge + 2), 0), r);
    munmap(m, 2 * (size_t)page);
}

/* Code bytes for the stale-word test: home [0, 64) hooked, the innermost frame's function;
   near [64, 128) without hooks, which home calls; far [128, 192) without hooks, which near
   calls; other [192, 256) hooked, not home. */
static unsigned char code2[256];

/* The end of a stack array: the words past it are not the test's. */
#define END(a) ((uintptr_t)((a) + sizeof(a) / sizeof((a)[0])))

/* Write `call rel32` ending at code2 + end, to target. */
static void put_call2(size_t end, uintptr_t target)
{
    int32_t rel = (int32_t)(intptr_t)(target - (uintptr_t)(code2 + end));
    code2[end - 5] = 0xe8;
    memcpy(code2 + end - 4, &rel, sizeof rel);
}

/* Below the innermost frame lie its callees' frames, and under them words of calls that
   returned before: the first return into the program after a call out may be stale. With the
   innermost frame's function known (home), the caller is the first such return that is live:
   in home, or in a function without hooks whose own return address, and its caller's, and so
   on, lie above it up to one into home. The first one when none is. A return after a call of
   a hook is never a caller. */
static void a_stale_return_is_passed_over_for_a_live_one(void **state)
{
    (void)state;
    prof_codemap_forget();
    prof_hookcode_reset();
    struct prof_code_fn *f = prof_codemap_alloc(4);
    assert_non_null(f);
    uintptr_t c = (uintptr_t)code2;
    for (int i = 0; i < 4; i++)
        f[i] = (struct prof_code_fn){c + 64 * (uintptr_t)i, 64, 0};
    assert_int_equal(prof_codemap_add(c, f, 4), 0);
    prof_codemap_mark(c, PROF_CODE_HOOKED);
    prof_codemap_mark(c + 192, PROF_CODE_HOOKED);
    uintptr_t outside = c + 0x100000, hook = c + 0x200000;
    put_call2(20, c + 64);   /* home calls near */
    put_call2(40, outside);  /* home calls out */
    put_call2(90, outside);  /* near calls out */
    put_call2(110, c + 128); /* near calls far */
    put_call2(150, outside); /* far calls out */
    put_call2(170, hook);    /* far calls a hook */
    put_call2(220, outside); /* other calls out */
    uintptr_t home = c + 10; /* where home's enter hook returned */

    /* far's return is stale, near's is live: home called near (each array in one page, as
       above) */
    _Alignas(64) uintptr_t stale[4] = {c + 150, c + 90, 0x1234, c + 20};
    uint32_t far = prof_codemap_caller(stale, END(stale), 0);
    assert_true(far != 0 && far != PROF_CODE_HOOKED);
    assert_int_equal(prof_leftout_entry(far), c + 128);
    uint32_t near = prof_codemap_caller(stale, END(stale), home);
    assert_true(near != 0 && near != PROF_CODE_HOOKED && near != far);
    assert_int_equal(prof_leftout_entry(near), c + 64);
    /* two links: home called near, which called far */
    _Alignas(64) uintptr_t chain[3] = {c + 150, c + 110, c + 20};
    assert_int_equal(prof_codemap_caller(chain, END(chain), home), far);
    /* the chain must reach home: one into near alone does not */
    _Alignas(64) uintptr_t cut[2] = {c + 150, c + 110};
    _Alignas(64) uintptr_t cut_live[3] = {c + 150, c + 90, c + 20};
    assert_int_equal(prof_codemap_caller(cut_live, END(cut_live), home), near);
    assert_int_equal(prof_codemap_caller(cut, END(cut), home), far); /* none live: the first */

    /* home itself: its own context's time */
    _Alignas(64) uintptr_t own[2] = {c + 150, c + 40};
    assert_int_equal(prof_codemap_caller(own, END(own), home), PROF_CODE_HOOKED);
    /* a hooked function other than home would be the innermost frame: stale */
    _Alignas(64) uintptr_t hooked[3] = {c + 220, c + 90, c + 20};
    assert_int_equal(prof_codemap_caller(hooked, END(hooked), home), near);
    /* nothing live: the first candidate, as without home */
    _Alignas(64) uintptr_t only[1] = {c + 150};
    assert_int_equal(prof_codemap_caller(only, END(only), home), far);

    /* a return after a call of a learnt hook is the collector's, whatever home says */
    _Alignas(64) uintptr_t hooks[3] = {c + 170, c + 90, c + 20};
    assert_int_equal(prof_codemap_caller(hooks, END(hooks), 0), far);
    prof_hookcode_learn(c + 170, PROF_HOOKCODE_ENTER);
    assert_int_equal(prof_codemap_caller(hooks, END(hooks), 0), near);
    prof_hookcode_reset();
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_function_without_hooks_gets_a_range_at_its_first_sample),
        cmocka_unit_test(a_hook_takes_a_function_back),
        cmocka_unit_test(forgotten_modules_answer_no_more),
        cmocka_unit_test(an_empty_module_is_refused),
        cmocka_unit_test(a_hook_in_another_functions_code_is_an_inlined_copys),
#if defined(__x86_64__) || defined(__i386__)
        cmocka_unit_test(the_caller_is_the_first_return_into_the_program),
        cmocka_unit_test(a_stale_return_is_passed_over_for_a_live_one),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
