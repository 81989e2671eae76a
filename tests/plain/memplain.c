/*
 * memplain.c - an unmodified program (no profreport.h) with one leak, one double free, one free
 * of a pointer malloc never returned and one free on another thread, for the preload library.
 * The markers in comments name the lines test_memory.py expects as sites.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* glibc's allocator under malloc: a block the preload library never sees allocated. */
extern void *__libc_malloc(size_t size);

static void *shared;
/* Through a volatile pointer, so the compiler neither warns about nor removes the bad frees. */
static void (*volatile release)(void *) = free;

/* Free on another thread what main allocated. */
static void *worker(void *arg)
{
    (void)arg;
    release(shared); /* @CROSS */
    return NULL;
}

int main(int argc, char **argv)
{
    char *leak = malloc(100); /* @LEAK */
    memset(leak, 1, 100);
    char *twice = malloc(200); /* @TWICE */
    release(twice);            /* @FIRSTFREE */
    release(twice);            /* @DOUBLE */
    void *hidden = __libc_malloc(64);
    release(hidden);         /* @UNKNOWN */
    shared = calloc(3, 100); /* @SHARED */
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) != 0 || pthread_join(th, NULL) != 0)
        return 1;
    /* Output and exit status the test compares with and without the preload library. */
    char line[64];
    int n = snprintf(line, sizeof line, "memplain %d %d\n", argc, leak[99]);
    if (write(STDOUT_FILENO, line, (size_t)n) != n)
        return 1;
    return argc > 1 ? atoi(argv[1]) : 0;
}
