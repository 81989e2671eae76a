/*
 * execself.c - fork, then exec in the child, both within a moment: the new image keeps the
 * child's pid, and its run must not meet the files of the image it replaced.
 *
 *   execself           records "parent"; forks; the child records "before-exec" (its part
 *                      is left behind by exec, as by a kill) and execs "execself exec"; the
 *                      parent waits for it and records "parent-after". Exit status 0.
 *   execself exec      records "after-exec" and exits with status 0.
 */
#include <profreport.h>

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "exec") == 0) {
        PROFILER_START("after-exec");
        PROFILER_STOP();
        return 0;
    }
    PROFILER_START("parent");
    PROFILER_STOP();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        PROFILER_START("before-exec");
        PROFILER_STOP();
        execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    PROFILER_START("parent-after");
    PROFILER_STOP();
    return 0;
}
