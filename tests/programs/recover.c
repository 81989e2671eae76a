/*
 * recover.c - prof_recover() from the command line: the part files given as arguments become
 * one run file on stdout. On failure, prints prof_strerror() on stderr and exits 1.
 */
#include <profreport.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: recover PART...\n");
        return 2;
    }
    enum prof_error err = prof_recover((const char *const *)(argv + 1), (size_t)(argc - 1), stdout);
    if (err != PROF_OK) {
        fprintf(stderr, "recover: %s\n", prof_strerror(err));
        return 1;
    }
    return 0;
}
