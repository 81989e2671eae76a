/*
 * memsites.c - an unmodified program for the preload library's sites: "leak" leaks one block
 * three calls deep and one strdup'd copy; "clean" frees everything of its own but writes
 * through stdio and starts a thread, whose buffers and thread data the C library and the
 * dynamic loader keep to the end. The markers in comments name the lines test_memory.py
 * expects.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The volatile sink keeps every call a real call: no inlining, no tail call. */
static void *volatile sink;

/* The block that is never freed. */
__attribute__((noinline)) static char *make_block(size_t n)
{
    char *p = malloc(n); /* @ALLOC */
    if (p)
        memset(p, 7, n);
    sink = p;
    return p;
}

/* One call above the allocation, so the stack has a frame between it and main. */
__attribute__((noinline)) static char *build_table(void)
{
    char *t = make_block(48); /* @BUILD */
    sink = t;
    return t;
}

/* A copy strdup allocates for its caller: the leak is keep_name's, not the C library's. */
__attribute__((noinline)) static char *keep_name(const char *s)
{
    char *c = strdup(s); /* @DUP */
    sink = c;
    return c;
}

/* A thread that only writes: its thread data is the loader's. */
static void *worker(void *arg)
{
    printf("worker %d\n", *(int *)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "leak") == 0) {
        char *t = build_table(); /* @MAIN */
        char *n = keep_name("memsites");
        printf("leak %d %s\n", t[0], n);
        sink = NULL; /* no pointer left: valgrind calls both blocks definitely lost */
        return 0;
    }
    int id = 1;
    pthread_t th;
    if (pthread_create(&th, NULL, worker, &id) != 0 || pthread_join(th, NULL) != 0)
        return 1;
    char *mine = malloc(64);
    snprintf(mine, 64, "clean %d", id);
    puts(mine);
    free(mine);
    return 0;
}
