/*
 * hooks.c - the table of the features' hooks: filled by the features at load, called by the
 * recorder and the run at their moments (hooks.h).
 */
#include "hooks.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Written before any recorder exists (constructors, pthread_once); count is release-stored
   after its entry, so a reader that sees the count sees the entry. */
static const struct prof_hooks *table[PROF_HOOKS_MAX];
static unsigned count;

/* Register a hook set once. */
int prof_hooks_add(const struct prof_hooks *h)
{
    unsigned n = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++)
        if (table[i] == h)
            return 1;
    if (n == PROF_HOOKS_MAX)
        return -1;
    table[n] = h;
    __atomic_store_n(&count, n + 1, __ATOMIC_RELEASE);
    return 0;
}

/* The number of hook sets registered so far. */
static unsigned registered(void) { return __atomic_load_n(&count, __ATOMIC_ACQUIRE); }

/* A recorder begins a run. */
void prof_hooks_thread_begin(struct prof_thread *t, const struct prof_run_info *run)
{
    for (unsigned i = 0, n = registered(); i < n; i++)
        if (table[i]->thread_begin)
            table[i]->thread_begin(t, run);
}

/* A recorder ends its part: the features' chunks, until one fails. */
int prof_hooks_thread_write(struct prof_thread *t)
{
    int err = 0;
    for (unsigned i = 0, n = registered(); i < n && !err; i++)
        if (table[i]->thread_write)
            err = table[i]->thread_write(t);
    return err;
}

/* A recorder's thread is exiting. */
void prof_hooks_thread_exit(struct prof_thread *t)
{
    for (unsigned i = 0, n = registered(); i < n; i++)
        if (table[i]->thread_exit)
            table[i]->thread_exit(t);
}

/* A recorder is freed. */
void prof_hooks_thread_free(struct prof_thread *t)
{
    for (unsigned i = 0, n = registered(); i < n; i++)
        if (table[i]->thread_free)
            table[i]->thread_free(t);
}

/* The run ends. */
void prof_hooks_run_end(struct prof_mem_report *memory)
{
    memset(memory, 0, sizeof *memory);
    for (unsigned i = 0, n = registered(); i < n; i++)
        if (table[i]->run_end)
            table[i]->run_end(memory);
}

/* The process is exiting on t's thread. */
void prof_hooks_exiting(struct prof_thread *t)
{
    for (unsigned i = 0, n = registered(); i < n; i++)
        if (table[i]->exiting)
            table[i]->exiting(t);
}

/* Free the rows of a report and their texts. */
void prof_mem_report_release(struct prof_mem_report *r)
{
    free(r->rows);
    prof_sbuf_release(&r->text);
    memset(r, 0, sizeof *r);
}
