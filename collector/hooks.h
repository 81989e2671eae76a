/*
 * hooks.h - the features' hooks (hooks.c): the memory checks, the live report and the function
 * hooks register what they do at a recorder's begin, end, exit and free and at a run's end, and
 * the recorder (thread.c) and the run (run.c) call the table, never the features by name.
 *
 * Ownership: the table keeps pointers to the registered hook sets, which live as long as the
 * process (static data of the registering module). A feature's per-thread state is its own: it
 * allocates it in thread_begin (or later) and frees it in thread_free.
 */
#ifndef PROF_HOOKS_H
#define PROF_HOOKS_H

#include "strbuf.h"

#include <stddef.h>

struct prof_thread;
struct prof_run_info;
struct prof_memory_rec;

/* The run's rows of the memory section (docs/FORMAT.md 1.5), for the run-file writer: the
   memory checks fill it at the run's end. Owns the rows and the site texts they point into. */
struct prof_mem_report {
    struct prof_memory_rec *rows;
    size_t n;
    struct prof_sbuf text;
};

/* What a feature does at each moment; any member may be NULL. */
struct prof_hooks {
    const char *name; /* the feature, for tests and messages */
    /* A recorder begins a run: set up or reset the feature's state (run lock held). */
    void (*thread_begin)(struct prof_thread *t, const struct prof_run_info *run);
    /* A recorder ends its part: write the feature's chunks before the end chunk (t->lock
       held); 0 or an errno value. */
    int (*thread_write)(struct prof_thread *t);
    /* The recorder's thread is exiting, before its part ends (pthread key destructor). */
    void (*thread_exit)(struct prof_thread *t);
    /* The recorder is freed: free the feature's state. */
    void (*thread_free)(struct prof_thread *t);
    /* The run ends: fill the memory section's rows (one feature, the memory checks, does). */
    void (*run_end)(struct prof_mem_report *memory);
    /* The process is exiting (exit(), or the return from main) on the thread of t, its own
       recorder, before the run ends: no collector lock held. */
    void (*exiting)(struct prof_thread *t);
};

/* Hook sets the table holds; the library registers four. */
#define PROF_HOOKS_MAX 8

/*
 * Register a hook set, from a constructor (before any thread records) or under a pthread_once.
 * Hooks run in the order registered. 0, 1 when h is registered already, -1 when the table is
 * full.
 */
int prof_hooks_add(const struct prof_hooks *h);

/* Call every registered hook of one kind. prof_hooks_thread_write stops at the first error and
   returns it. */
void prof_hooks_thread_begin(struct prof_thread *t, const struct prof_run_info *run);
int prof_hooks_thread_write(struct prof_thread *t);
void prof_hooks_thread_exit(struct prof_thread *t);
void prof_hooks_thread_free(struct prof_thread *t);
/* The run ends: memory is emptied, then filled by the run_end hooks; the caller releases it. */
void prof_hooks_run_end(struct prof_mem_report *memory);
/* The process is exiting on the thread of t (its own recorder). */
void prof_hooks_exiting(struct prof_thread *t);
/* Free a memory report's rows and texts, leaving it empty. */
void prof_mem_report_release(struct prof_mem_report *r);

#endif /* PROF_HOOKS_H */
