/*
 * callheavy.c - the workload of the function-instrumentation bench (autobench.sh): a recursive
 * Fibonacci, nothing but calls. Built plain, with -finstrument-functions (empty hooks or
 * libprofreport-auto) and with -pg, it times itself, so the figures leave out process start
 * and exit.
 * Usage: callheavy N   prints "calls=<fib calls> ns=<nanoseconds of the fib(N) call>"
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

long fib(int n);

/*
 * fib(n) makes 2 * fib(n + 1) - 1 calls. The empty asm after the second call keeps gcc from
 * turning the recursion into a loop, so every build makes exactly those calls.
 */
__attribute__((noinline)) long fib(int n)
{
    if (n < 2)
        return n;
    long r = fib(n - 1);
    r += fib(n - 2);
    __asm__ volatile("" : "+r"(r));
    return r;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 30;
    double t0 = now_ns();
    long f = fib(n);
    double t1 = now_ns();
    long a = 0, b = 1; /* F(0), F(1) */
    for (int i = 0; i < n; i++) {
        long t = a + b;
        a = b;
        b = t;
    }
    long calls = 2 * b - 1; /* b = F(n + 1) */
    printf("calls=%ld ns=%.0f fib=%ld\n", calls, t1 - t0, f);
    return 0;
}
