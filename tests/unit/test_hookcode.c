/*
 * test_hookcode.c - unit tests of collector/hookcode.c: the program's code around its calls of
 * the function hooks. The code is laid out by hand in a 4 KiB block, as clang
 * -finstrument-functions-after-inlining lays out a short function on x86-64.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "hookcode.h"

#if defined(__x86_64__)

#define BLOCK 4096

/* Offsets in the block: the function's code, and the two PLT stubs its hook calls go to. */
enum {
    F_ENTRY = 0,     /* push r15; push r14; push rbx; sub rsp,16; three moves (15 bytes) */
    F_SETUP = 15,    /* mov rsi,[rsp+0x28] (5); lea rdi,[rip-x] (7) */
    F_ENTER = 27,    /* call enter stub (5) */
    F_BODY = 32,     /* the body: 60 bytes of moves */
    F_XSETUP = 92,   /* the exit call's arguments (12) */
    F_EXIT = 104,    /* call exit stub (5) */
    F_EPI = 109,     /* add rsp,16 (4); pop rbx; pop r14; pop r15 (5) */
    F_RET = 118,     /* ret */
    F_AFTER = 119,   /* the next function: a body that calls something else */
    F_OTHER = 160,   /* call other (not a hook) */
    F_GOTCALL = 200, /* call *slot(%rip) (6), -fno-plt's form */
    F_GOTLAND = 206,
    F_GOTRET = 212,  /* ret */
    F_INLINED = 240, /* call exit stub (5), then 30 bytes more of the caller: gcc's inlined copy */
    STUB_ENTER = 2048,
    STUB_EXIT = 2064,
    OTHER = 3000,
    SLOT = 3500,
};

/* In the test binary's loaded data, as code is in a loaded segment: the collector reads only
   the bytes of segments it found instrumented code in. */
static unsigned char block_mem[BLOCK] __attribute__((aligned(BLOCK)));
static unsigned char *block = block_mem;

static void put_rel32(int at, int target)
{
    int32_t rel = target - (at + 5);
    block[at] = 0xe8;
    memcpy(block + at + 1, &rel, 4);
}

static int setup(void **state)
{
    (void)state;
    memset(block, 0x90, BLOCK); /* nop: no byte of it is a call or a return */
    static const unsigned char prologue[] = {0x41, 0x57, 0x41, 0x56, 0x53, 0x48, 0x83, 0xec,
                                             0x10, 0x49, 0x89, 0xd6, 0x89, 0xf3, 0x90};
    memcpy(block + F_ENTRY, prologue, sizeof prologue);
    static const unsigned char setup_args[] = {0x48, 0x8b, 0x74, 0x24, 0x28, 0x48,
                                               0x8d, 0x3d, 0xe2, 0xff, 0xff, 0xff};
    memcpy(block + F_SETUP, setup_args, sizeof setup_args);
    put_rel32(F_ENTER, STUB_ENTER);
    for (int i = F_BODY; i < F_XSETUP; i += 3)
        memcpy(block + i, "\x48\x89\xc8", 3); /* mov rax,rcx */
    memcpy(block + F_XSETUP, setup_args, sizeof setup_args);
    put_rel32(F_EXIT, STUB_EXIT);
    static const unsigned char epilogue[] = {0x48, 0x83, 0xc4, 0x10, 0x5b, 0x41, 0x5e, 0x41, 0x5f};
    memcpy(block + F_EPI, epilogue, sizeof epilogue);
    block[F_RET] = 0xc3;
    put_rel32(F_OTHER, OTHER);
    int32_t disp = SLOT - F_GOTLAND;
    block[F_GOTCALL] = 0xff;
    block[F_GOTCALL + 1] = 0x15;
    memcpy(block + F_GOTCALL + 2, &disp, 4);
    block[F_GOTRET] = 0xc3;
    put_rel32(F_INLINED, STUB_EXIT);
    for (int i = F_INLINED + 5; i < F_INLINED + 35; i += 3)
        memcpy(block + i, "\x48\x89\xc8", 3);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    prof_hookcode_reset();
    return 0;
}

static uintptr_t at(int offset) { return (uintptr_t)(block + offset); }

/* The hooks learn where the program calls them: the enter call returns to F_BODY, the exit
   call to F_EPI. */
static void learn_both(void)
{
    prof_hookcode_reset();
    prof_hookcode_learn(at(F_BODY), PROF_HOOKCODE_ENTER);
    prof_hookcode_learn(at(F_EPI), PROF_HOOKCODE_EXIT);
}

/* Before the hooks said where they are called from, nothing is known. */
static void nothing_before_learning(void **state)
{
    (void)state;
    prof_hookcode_reset();
    for (int o = 0; o < 256; o++)
        assert_int_equal(prof_hookcode_at(at(o)), PROF_HOOKCODE_NONE);
    assert_int_equal(prof_hookcode_at(at(STUB_ENTER)), PROF_HOOKCODE_NONE);
    assert_false(prof_hookcode_enter_ahead(at(F_ENTRY), at(F_ENTRY + 64)));
}

/* A PLT stub of a hook is the hooks', all 16 bytes of it; a target learned twice is one; the
   enter and exit stubs stay apart. */
static void plt_stubs(void **state)
{
    (void)state;
    learn_both();
    prof_hookcode_learn(at(F_BODY), PROF_HOOKCODE_ENTER);
    for (int o = STUB_ENTER; o < STUB_EXIT + 16; o++)
        assert_int_equal(prof_hookcode_at(at(o)), PROF_HOOKCODE_STUB);
    assert_int_equal(prof_hookcode_at(at(STUB_EXIT + 16)), PROF_HOOKCODE_NONE);
    assert_int_equal(prof_hookcode_at(at(STUB_ENTER - 1)), PROF_HOOKCODE_NONE);
    assert_int_equal(prof_hookcode_at(at(OTHER)), PROF_HOOKCODE_NONE);
}

/* From the exit hook's return point to the function's return is its epilogue; the next
   function is not, nor the body, nor the enter hook's return point and what follows it, nor
   the return point of a call to another function, nor the caller's code after the exit call
   of a copy gcc inlined (no return follows it). */
static void epilogue_ends_at_return(void **state)
{
    (void)state;
    learn_both();
    /* each instruction's first byte (an interrupted pc is one) */
    static const int epilogue[] = {F_EPI, F_EPI + 4, F_EPI + 5, F_EPI + 7, F_RET};
    for (size_t i = 0; i < sizeof epilogue / sizeof *epilogue; i++)
        assert_int_equal(prof_hookcode_at(at(epilogue[i])), PROF_HOOKCODE_EPILOGUE);
    static const int other[] = {F_ENTRY,  F_SETUP, F_ENTER, F_BODY,  F_BODY + 3,
                                F_XSETUP, F_EXIT,  F_AFTER, F_OTHER, F_OTHER + 5};
    for (size_t i = 0; i < sizeof other / sizeof *other; i++)
        assert_int_equal(prof_hookcode_at(at(other[i])), PROF_HOOKCODE_NONE);
}

/* Before the enter hook's call (the prologue) a call of it lies ahead; from its return point
   on, or when the call does not end by the limit, none does. */
static void enter_call_ahead(void **state)
{
    (void)state;
    learn_both();
    static const int prologue[] = {F_ENTRY, F_ENTRY + 2, F_ENTRY + 5,
                                   F_SETUP, F_SETUP + 5, F_ENTER};
    for (size_t i = 0; i < sizeof prologue / sizeof *prologue; i++)
        assert_true(prof_hookcode_enter_ahead(at(prologue[i]), at(F_ENTRY + 64)));
    assert_true(prof_hookcode_enter_ahead(at(F_ENTRY), at(F_ENTER + 5)));
    assert_false(prof_hookcode_enter_ahead(at(F_ENTRY), at(F_ENTER + 4)));
    assert_false(prof_hookcode_enter_ahead(at(F_BODY), at(F_ENTRY + 64)));
    /* the exit hook's call is no enter call */
    assert_false(prof_hookcode_enter_ahead(at(F_XSETUP), at(F_EPI)));
    /* nor is a call of another function */
    assert_false(prof_hookcode_enter_ahead(at(F_OTHER - 3), at(F_OTHER + 5)));
}

/* -fno-plt calls the hook through its GOT slot: the slot is learned, an enter call through it
   lies ahead of the prologue, and an exit call through it starts the epilogue; no pc inside
   the slot is a stub. */
static void got_calls(void **state)
{
    (void)state;
    prof_hookcode_reset();
    assert_false(prof_hookcode_enter_ahead(at(F_GOTCALL - 10), at(F_GOTLAND)));
    prof_hookcode_learn(at(F_GOTLAND), PROF_HOOKCODE_ENTER);
    assert_true(prof_hookcode_enter_ahead(at(F_GOTCALL - 10), at(F_GOTLAND)));
    assert_false(prof_hookcode_enter_ahead(at(F_GOTCALL - 10), at(F_GOTLAND - 1)));
    assert_int_equal(prof_hookcode_at(at(F_GOTLAND)), PROF_HOOKCODE_NONE);
    assert_int_equal(prof_hookcode_at(at(SLOT)), PROF_HOOKCODE_NONE);
    prof_hookcode_reset();
    prof_hookcode_learn(at(F_GOTLAND), PROF_HOOKCODE_EXIT);
    assert_int_equal(prof_hookcode_at(at(F_GOTLAND)), PROF_HOOKCODE_EPILOGUE);
    assert_int_equal(prof_hookcode_at(at(F_GOTLAND + 3)), PROF_HOOKCODE_EPILOGUE);
}

/* A return point whose call is no call (the hook called in some other way) teaches
   nothing. */
static void odd_calls_teach_nothing(void **state)
{
    (void)state;
    prof_hookcode_reset();
    prof_hookcode_learn(at(F_BODY + 3), PROF_HOOKCODE_ENTER);
    for (int o = 0; o < 256; o++)
        assert_int_equal(prof_hookcode_at(at(o)), PROF_HOOKCODE_NONE);
    assert_false(prof_hookcode_enter_ahead(at(F_ENTRY), at(F_ENTRY + 64)));
}

/* Code outside every loaded segment (memory the program mapped itself, which may be
   execute-only) is never read: the same function copied to the heap teaches its call targets
   but no epilogue or prologue is found in it. */
static void unloaded_code_is_not_read(void **state)
{
    (void)state;
    unsigned char *heap = aligned_alloc(BLOCK, BLOCK);
    assert_non_null(heap);
    memcpy(heap, block, BLOCK);
    prof_hookcode_reset();
    prof_hookcode_learn((uintptr_t)heap + F_BODY, PROF_HOOKCODE_ENTER);
    prof_hookcode_learn((uintptr_t)heap + F_EPI, PROF_HOOKCODE_EXIT);
    assert_int_equal(prof_hookcode_at((uintptr_t)heap + STUB_ENTER), PROF_HOOKCODE_STUB);
    assert_int_equal(prof_hookcode_at((uintptr_t)heap + F_EPI + 4), PROF_HOOKCODE_NONE);
    assert_false(prof_hookcode_enter_ahead((uintptr_t)heap + F_SETUP, (uintptr_t)heap + 64));
    /* the block in the binary's segment, learned now, is read */
    learn_both();
    assert_int_equal(prof_hookcode_at(at(F_EPI + 4)), PROF_HOOKCODE_EPILOGUE);
    free(heap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nothing_before_learning),
        cmocka_unit_test(plt_stubs),
        cmocka_unit_test(epilogue_ends_at_return),
        cmocka_unit_test(enter_call_ahead),
        cmocka_unit_test(got_calls),
        cmocka_unit_test(odd_calls_teach_nothing),
        cmocka_unit_test(unloaded_code_is_not_read),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

#else

int main(void)
{
    /* The code patterns are x86-64's; elsewhere prof_hookcode_at says 0 and is not tested. */
    return 0;
}

#endif
