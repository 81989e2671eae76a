/*
 * recover.c - a killed run's part files, given as arguments, become one run file on stdout,
 * written by the library's run-file writer (format/csvwrite.h, linked from libprofreport.a) as
 * the finishing process would, but with the metadata of the parts. On failure, prints
 * prof_strerror() on stderr and exits 1.
 */
#include <profreport.h>

#include "csvwrite.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: recover PART...\n");
        return 2;
    }
    enum prof_error err =
        prof_assemble((const char *const *)(argv + 1), (size_t)(argc - 1), stdout, NULL);
    if (err != PROF_OK) {
        fprintf(stderr, "recover: %s\n", prof_strerror(err));
        return 1;
    }
    return 0;
}
