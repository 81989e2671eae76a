/*
 * paper.c - three regions whose names differ only after their tenth character, for the
 * printed report: "fio:compress" (1000 short calls), "fio:compress-dictionary" (holds them,
 * one call) and "fio:checksum" (a 1 ms sleep, one call).
 */
#include <profreport.h>

#include <time.h>

static volatile unsigned long sink;

/* A little work, so that a region takes some ticks. */
static void work(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        sink += i;
}

int main(void)
{
    PROFILER_START("fio:compress-dictionary");
    for (int i = 0; i < 1000; i++) {
        PROFILER_START("fio:compress");
        work(40);
        PROFILER_STOP();
    }
    PROFILER_STOP();
    PROFILER_START("fio:checksum");
    struct timespec t = {0, 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
    PROFILER_STOP();
    return 0;
}
