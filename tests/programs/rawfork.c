/*
 * rawfork.c - children made without fork's handlers (pthread_atfork): _Fork(), a raw
 * clone(SIGCHLD) and vfork().
 *
 *   rawfork _Fork|clone   the parent records "before", the child records "child" and exits
 *                         with exit(0); the parent then records "after"
 *   rawfork vfork FILE    the parent records nothing yet; the vfork child opens "child" and
 *                         execs /bin/true; the parent then opens FILE, writes "results" to it,
 *                         records "after" and exits with FILE open
 *
 * Prints "rawfork: child PID".
 */
#define _GNU_SOURCE
#include <profreport.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern pid_t _Fork(void);

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int vf = strcmp(argv[1], "vfork") == 0;
    if (vf && argc < 3)
        return 2;
    if (!vf) {
        PROFILER_START("before");
        PROFILER_STOP();
    }
    pid_t pid;
    if (vf) {
        pid = vfork();
        if (pid == 0) {
            PROFILER_START("child");
            execl("/bin/true", "true", (char *)NULL);
            _exit(127);
        }
    } else {
        pid = strcmp(argv[1], "_Fork") == 0 ? _Fork()
                                            : (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
        if (pid == 0) {
            PROFILER_START("child");
            PROFILER_STOP();
            exit(0);
        }
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return 3;
    if (vf) {
        int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || write(fd, "results\n", 8) != 8)
            return 4;
    }
    PROFILER_START("after");
    PROFILER_STOP();
    printf("rawfork: child %ld\n", (long)pid);
    return 0;
}
