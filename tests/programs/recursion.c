/*
 * recursion.c - recursion and C scopes in events mode.
 *
 * "top" holds three calls of rec(5). rec(n) is a PROFILER_SCOPE("rec") that, for odd n, opens a
 * PROFILER_SCOPE("mid") around rec(n - 1), and for even n > 0 calls rec(n - 1) directly. Then
 * early(1) and early(0): a PROFILER_SCOPE("early") left by an early return, and for early(0)
 * a PROFILER_SCOPE("late") inside it. tests/functional/test_collector.py replays the same
 * structure to know the expected rows.
 */
#include <profreport.h>

#include <stdio.h>

static volatile int sink;

static void rec(int n)
{
    PROFILER_SCOPE("rec");
    if (n == 0)
        return;
    if (n % 2 == 1) {
        PROFILER_SCOPE("mid");
        rec(n - 1);
    } else {
        rec(n - 1);
    }
}

static int early(int leave)
{
    PROFILER_SCOPE("early");
    if (leave)
        return 1;
    PROFILER_SCOPE("late");
    sink++;
    return 0;
}

int main(void)
{
    PROFILER_START("top");
    for (int i = 0; i < 3; i++)
        rec(5);
    PROFILER_STOP();
    int r = early(1) + early(0);
    printf("recursion: %d\n", r);
    return 0;
}
