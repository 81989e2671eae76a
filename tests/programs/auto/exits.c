/*
 * exits.c - an instrumented program that ends with exit() below main, as many command-line
 * programs do (ninja's real_main): main -> real_main -> run -> work x 20 (about 20 ms), then
 * exit(3) from run.
 * Usage: exits [open]   with "open", real_main starts a region by hand ("left open") before it
 * calls run, which the exit leaves open.
 */
#include "profreport.h"

#include <stdlib.h>
#include <string.h>

static volatile double sink;

__attribute__((noinline)) static void work(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += i * 0.5;
    sink = s;
}

__attribute__((noinline, noreturn)) static void run(void)
{
    for (int i = 0; i < 20; i++)
        work(1000000);
    exit(3);
}

__attribute__((noinline, noreturn)) static void real_main(int open)
{
    if (open)
        PROFILER_START("left open");
    run();
}

int main(int argc, char **argv) { real_main(argc > 1 && strcmp(argv[1], "open") == 0); }
