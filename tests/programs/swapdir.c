/*
 * swapdir.c - a run whose folder or parts someone changes while it records. The main thread
 * records "first" and a thread records "second" and ends; the program prints "ready" and waits
 * for a line on stdin (the test changes the folder then); a new thread records "fourth", the
 * main thread "third", and the program prints "swapdir: done".
 */
#include <profreport.h>

#include <pthread.h>
#include <stdio.h>

/* A thread that records one region named by its argument. */
static void *one_region(void *name)
{
    PROFILER_START((const char *)name);
    PROFILER_STOP();
    return NULL;
}

/* Run one_region(name) on a new thread and wait for it. */
static void on_a_thread(const char *name)
{
    pthread_t t;
    if (pthread_create(&t, NULL, one_region, (void *)name) == 0)
        pthread_join(t, NULL);
}

int main(void)
{
    PROFILER_START("first");
    PROFILER_STOP();
    on_a_thread("second");
    printf("ready\n");
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin))
        return 2;
    on_a_thread("fourth");
    PROFILER_START("third");
    PROFILER_STOP();
    printf("swapdir: done\n");
    return 0;
}
