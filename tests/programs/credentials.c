/*
 * credentials.c - a program that may be installed setuid or setgid: one region, and the
 * folder it names itself (PROFILER_INIT), if any.
 *
 *   credentials [DIR]   prints "credentials: done"
 */
#include <profreport.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc > 1)
        PROFILER_INIT(argv[1]);
    PROFILER_START("work");
    PROFILER_STOP();
    printf("credentials: done\n");
    return 0;
}
