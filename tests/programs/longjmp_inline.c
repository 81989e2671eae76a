/*
 * longjmp_inline.c - scoped regions in functions the compiler inlines, left by longjmp: their
 * tokens share main's stack frame, and the same block entered again puts a token where an
 * abandoned one was.
 *
 *   longjmp_inline [calls]   (default 200000)
 *
 * main's loop setjmps and calls work(i), PROFILER_SCOPE("work") around inner(i),
 * PROFILER_SCOPE("inner") that longjmps back for even i. Both are inlined into main
 * (always_inline, at -O0 too): two abandoned scopes in one stack frame per failed call.
 *
 * Expected, for an even number N of calls: "work" N, "inner" N, path work > inner, never
 * deeper; an unwound warning counting 2 * N / 2 regions; no other warning.
 * Built at -O0 and -O2 by tests/functional/test_longjmp.py.
 */
#include <profreport.h>

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static volatile long sink;

/* The inner scope: fails for even i. */
static inline __attribute__((always_inline)) void inner(int i)
{
    PROFILER_SCOPE("inner");
    sink += i;
    if (i % 2 == 0)
        longjmp(env, 1);
}

/* The outer scope. */
static inline __attribute__((always_inline)) void work(int i)
{
    PROFILER_SCOPE("work");
    inner(i);
    sink -= i;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200000;
    for (volatile int i = 0; i < n; i++)
        if (setjmp(env) == 0)
            work(i);
    printf("longjmp_inline: %d calls\n", n);
    return 0;
}
