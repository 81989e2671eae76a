/*
 * unterminated.c - mistakes the run file must report: stops with nothing open and regions never
 * stopped.
 *
 *   unterminated [one|nested|finish]
 *
 * Records "done", then calls PROFILER_STOP three times with nothing open (three stray stops),
 * then opens "never-stopped" ("nested": and "also-open" inside it) and returns from main.
 * "finish": after opening "never-stopped", calls PROFILER_FINISH() (the run file is written with
 * the region open), then PROFILER_STOP() (not recorded: the run has finished).
 */
#include <profreport.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int nested = argc > 1 && strcmp(argv[1], "nested") == 0;
    int finish = argc > 1 && strcmp(argv[1], "finish") == 0;
    PROFILER_START("done");
    PROFILER_STOP();
    PROFILER_STOP();
    PROFILER_STOP();
    PROFILER_STOP();
    PROFILER_START("never-stopped");
    if (nested)
        PROFILER_START("also-open");
    if (finish) {
        PROFILER_FINISH();
        PROFILER_STOP();
    }
    printf("unterminated: exiting with %d region(s) open\n", nested ? 2 : 1);
    return 0;
}
