/*
 * reusefd.c - a program that takes the collector's descriptors for its own files, as programs
 * do: after its first region it either closes every descriptor from 3 up (closefrom) and opens
 * LOG and RESULTS, or opens LOG and puts it over its part's descriptor (dup2). It writes one
 * line to each, records more, and exits with the files open.
 *
 *   reusefd closefrom|dup2 LOG RESULTS   prints "reusefd: done"
 */
#define _GNU_SOURCE /* closefrom */
#include <profreport.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The descriptor of this process's part file (a link in /proc/self/fd to *.part), or -1. */
static int part_fd(void)
{
    DIR *d = opendir("/proc/self/fd");
    int found = -1;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char link[300], target[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n > 5 && (target[n] = 0, strcmp(target + n - 5, ".part") == 0))
            found = atoi(e->d_name);
    }
    if (d)
        closedir(d);
    return found;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    PROFILER_START("first");
    PROFILER_STOP();
    int log, results;
    if (strcmp(argv[1], "closefrom") == 0) {
        closefrom(3);
        log = open(argv[2], O_WRONLY | O_CREAT | O_APPEND, 0644);
        results = open(argv[3], O_WRONLY | O_CREAT | O_APPEND, 0644);
    } else {
        int part = part_fd();
        log = open(argv[2], O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (part < 0 || dup2(log, part) != part)
            return 3;
        results = open(argv[3], O_WRONLY | O_CREAT | O_APPEND, 0644);
    }
    if (log < 0 || results < 0 || write(log, "log\n", 4) != 4 ||
        write(results, "results\n", 8) != 8)
        return 4;
    for (int i = 0; i < 1000; i++) {
        PROFILER_START("second");
        PROFILER_STOP();
    }
    printf("reusefd: done\n");
    return 0; /* the files stay open: the collector writes at exit */
}
