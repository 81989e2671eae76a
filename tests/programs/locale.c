/*
 * locale.c - a program that makes the decimal point a comma before it records, as a program
 * calling setlocale(LC_ALL, "") does in much of Europe: the run file's numbers must still be
 * written with a point (a comma would split their CSV field).
 *
 *   locale NAME   set locale NAME (exit 3 when it cannot), print 1.5 as it now prints, then
 *                 run region "wait" twice for 300 ms each
 */
#include <locale.h>
#include <profreport.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc < 2 || !setlocale(LC_ALL, argv[1]))
        return 3;
    printf("%.1f\n", 1.5);
    for (int i = 0; i < 2; i++) {
        PROFILER_START("wait");
        struct timespec ts = {0, 300000000};
        nanosleep(&ts, NULL);
        PROFILER_STOP();
    }
    return 0;
}
