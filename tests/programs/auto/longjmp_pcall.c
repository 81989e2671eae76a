/*
 * longjmp_pcall.c - the protected-call pattern of an interpreter (Lua's pcall) with
 * instrumented functions only: the setjmp is in main's loop, and after a longjmp main calls
 * the next function from the same stack position as the frames the jump abandoned.
 *
 *   longjmp_pcall [calls]   (default 200000)
 *
 * Call i is work_again(i) when i % 4 == 1, else work(i): two functions of the same code (so
 * the same stack frame), called from two call sites of main's loop. Each calls check(i), an
 * always_inline function (gcc instruments it too, on its caller's stack pointer), which
 * longjmps back to main for even i: two abandoned frames that share one stack frame. The next
 * call is made from the same stack position: work_again after work (another call site, the
 * abandoned frame's address reused) or work after work (the same function from the same call
 * site).
 *
 * Expected, for N calls (N a multiple of 4): main 1, work 3N / 4, work_again N / 4, check N;
 * the paths main > work > check and main > work_again > check, never deeper; an unwound
 * warning counting 2 * N / 2 frames (the function and its check, for each failed call); no
 * other warning. Built at -O0 and -O2 by tests/functional/test_longjmp.py.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static volatile long sink;

void work(int i);
void work_again(int i);

/* Raise an error for even i: inlined into its caller, instrumented all the same. */
static inline __attribute__((always_inline)) void check(int i)
{
    sink += i;
    if (i % 2 == 0)
        longjmp(env, 1);
}

/* A protected function (noipa: each keeps its own code, never merged with its twin). */
#define PROTECTED(name)                                                                            \
    __attribute__((noipa)) void name(int i)                                                        \
    {                                                                                              \
        check(i);                                                                                  \
        sink -= i;                                                                                 \
    }

PROTECTED(work)
PROTECTED(work_again)

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200000;
    for (volatile int i = 0; i < n; i++) {
        if (setjmp(env) == 0) {
            if (i % 4 == 1)
                work_again(i);
            else
                work(i);
        }
    }
    printf("longjmp_pcall: %d calls\n", n);
    return 0;
}
