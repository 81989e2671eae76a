/*
 * durable.c - events that must reach the part file before the process is killed or _exits.
 *
 *   durable loop       prints "ready", then records "tick" regions of about 200 us each until
 *                      it is killed: fewer than 5000 a second, so a 256 KiB buffer (65536
 *                      words, 3 per region) takes more than 4 seconds to fill
 *   durable nap SECS   records 100 "step" regions, then a "nap" region around a sleep of SECS
 *                      seconds, then ends with _exit(0): no exit handler runs
 */
#include <profreport.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Sleep for the given number of seconds (fractions allowed). */
static void nap(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "loop") == 0) {
        PROFILER_START("tick");
        PROFILER_STOP();
        printf("ready\n");
        fflush(stdout);
        for (;;) {
            PROFILER_START("tick");
            nap(200e-6);
            PROFILER_STOP();
        }
    }
    if (argc > 2 && strcmp(argv[1], "nap") == 0) {
        for (int i = 0; i < 100; i++) {
            PROFILER_START("step");
            PROFILER_STOP();
        }
        PROFILER_START("nap");
        nap(atof(argv[2]));
        PROFILER_STOP();
        printf("durable: _exit\n");
        fflush(stdout);
        _exit(0);
    }
    fprintf(stderr, "usage: durable loop | durable nap SECONDS\n");
    return 2;
}
