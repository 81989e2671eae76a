/*
 * longjmp.c - scoped regions left by longjmp, as an interpreter's protected call (Lua's pcall)
 * leaves them on every error.
 *
 * Usage: longjmp [iterations] (default 1000). main opens "main" by hand, then "hand" by hand in
 * open_hand(), a function that returns with it open (closed later by close_hand(): a START and
 * its STOP in two other functions). Inside "hand", three loops of N protected calls each:
 *
 * 1. In main's PROFILER_SCOPE("bare"), pcall_bare: setjmp, then level(3): level(k) is
 *    PROFILER_SCOPE("level") around level(k-1), and level(0) longjmps back. pcall_bare has no
 *    region: the next call's level(3) finds the four "level" regions its predecessor left
 *    (three deeper on the stack, one where its own token goes) and closes them as unwound; the
 *    end of "bare", in main, closes the last four.
 * 2. pcall_scoped: PROFILER_SCOPE("pcall") around the same: its end, after the longjmp, closes
 *    the four "level" regions as unwound, then itself.
 * 3. In main's PROFILER_SCOPE("modules"), module calls: mod_outer and mod_inner are
 *    PROFILER_API(mod) functions; mod_outer calls mod_inner, which longjmps out of the module.
 *    The next mod_outer closes the region the previous one left (where its own token goes) and
 *    opens its own: one "mod" region per call, never nested. The end of "modules" closes the
 *    last one.
 *
 * Expected, for N iterations: "main" 1, "hand" 1 (main > hand), "bare" 1, "pcall" N,
 * "level" 8N, "modules" 1, "mod" N; the deepest paths are main > hand > bare > level > level >
 * level > level and main > hand > pcall > level > level > level > level (depth 6); an unwound
 * warning counting 4N + 4N + N frames; no other warning.
 */
#include <profreport.h>

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

PROFILER_API_DECLARE(mod);
PROFILER_API_DEFINE(mod);

static jmp_buf env;
static volatile int sink;
static volatile int raise_error = 1; /* always: volatile, so the compiler sees a way back */

/* A scoped region around the next level down; the last level longjmps out of all of them. */
static __attribute__((noinline)) void level(int k)
{
    PROFILER_SCOPE("level");
    sink = k;
    if (k > 0)
        level(k - 1);
    else if (raise_error)
        longjmp(env, 1);
}

/* A protected call with no region of its own. */
static __attribute__((noinline)) void pcall_bare(void)
{
    if (setjmp(env) == 0)
        level(3);
}

/* A protected call in a region of its own. */
static __attribute__((noinline)) void pcall_scoped(void)
{
    PROFILER_SCOPE("pcall");
    if (setjmp(env) == 0)
        level(3);
}

void mod_inner(void);
void mod_outer(void);

/* A module function that raises an error: longjmp out of the module. */
__attribute__((noinline)) void mod_inner(void)
{
    PROFILER_API(mod);
    sink = 1;
    if (raise_error)
        longjmp(env, 1);
}

/* The module's entry point: its region opens here. */
__attribute__((noinline)) void mod_outer(void)
{
    PROFILER_API(mod);
    mod_inner();
}

/* A protected call into the module. */
static __attribute__((noinline)) void pcall_module(void)
{
    if (setjmp(env) == 0)
        mod_outer();
}

/* Open "hand" and return with it open. */
static __attribute__((noinline)) void open_hand(void) { PROFILER_START("hand"); }

/* Close the innermost region, "hand", opened in open_hand. */
static __attribute__((noinline)) void close_hand(void) { PROFILER_STOP(); }

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    PROFILER_START("main");
    open_hand();
    {
        PROFILER_SCOPE("bare");
        for (int i = 0; i < n; i++)
            pcall_bare();
    }
    for (int i = 0; i < n; i++)
        pcall_scoped();
    {
        PROFILER_SCOPE("modules");
        for (int i = 0; i < n; i++)
            pcall_module();
    }
    close_hand();
    PROFILER_STOP();
    printf("longjmp: %d protected calls of each kind\n", n);
    return 0;
}
