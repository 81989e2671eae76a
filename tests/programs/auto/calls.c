/*
 * calls.c - an instrumented C program whose call counts are known from its structure:
 *   main 1, fib(N) 2*fib(N+1)-1 calls, is_even/is_odd mutual recursion, a static helper,
 *   functions of a shared library, and a manual region around part of the work.
 * Usage: calls [fib_n] [parity_n] [loops]
 */
#include "profreport.h"

#include <stdio.h>
#include <stdlib.h>

int shared_twice_square(int x);
int is_even(unsigned n);
int is_odd(unsigned n);
long fib(int n);

/* Recursive Fibonacci: fib(n) makes fib(n+1)*2-1 calls in all (fib(0)=0, fib(1)=1). */
long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

/* Mutual recursion: is_even(n) calls is_odd(n-1) ... down to 0: n+1 calls in all. */
int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

/* A static function: named from the symbol table although it is not exported. */
static __attribute__((noinline)) int helper(int i) { return i * 3 + 1; }

int never_called(void);

/* A function that is never called: must not appear. */
__attribute__((noinline)) int never_called(void) { return 42; }

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 15;
    unsigned p = argc > 2 ? (unsigned)atoi(argv[2]) : 10;
    int loops = argc > 3 ? atoi(argv[3]) : 7;
    long f = fib(n);
    int e = is_even(p);
    long sum = 0;
    PROFILER_START("manual loop");
    for (int i = 0; i < loops; i++)
        sum += helper(i) + shared_twice_square(i);
    PROFILER_STOP();
    printf("fib=%ld even=%d sum=%ld\n", f, e, sum);
    return 0;
}
