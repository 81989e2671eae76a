/*
 * leftout.h - where the CPU samples that land in a function PROFILER_EXCLUDE or
 * PROFILER_INCLUDE leaves out go (leftout.c): to that function, under the calling context
 * innermost when the sample came, as a row of its own whose calls are not counted
 * (docs/FORMAT.md 1.4). Without it a left-out function's time was its caller's.
 *
 * Two tables. The process-wide one holds the code ranges of the left-out functions
 * (functions.c adds each at its description, from its symbol's size); the signal handler looks
 * the interrupted address up in it. Each sampled thread has a table of (context, function) ->
 * samples that only its own signal handler adds to, and of the id index under which its part
 * names each function (given by the owner thread outside the handler, thread.c).
 *
 * Ownership: the ranges live as long as the process (entries are never rewritten; a forgotten
 * module's are skipped); a thread's table is its sampler's (sample.c makes and frees it).
 */
#ifndef PROF_LEFTOUT_H
#define PROF_LEFTOUT_H

#include "compiler.h"

#include <stdint.h>

/* Left-out functions whose ranges are kept (the rest keep charging their callers). */
#define PROF_LEFTOUT_MAX 4096u
/* (context, function) pairs a thread keeps, in a table of twice as many entries (24 bytes
   each, touched as used), each within PROF_LEFTOUT_PROBES entries of its hash: half full at
   most, a pair's probe stays short, and a sample's handler never searches further (the whole
   table's 4096 entries, once full, made each sample in a new context search thousands: a
   thread under TSan took minutes). */
#define PROF_LEFTOUT_PAIRS 4096u
#define PROF_LEFTOUT_HITS (2 * PROF_LEFTOUT_PAIRS)
#define PROF_LEFTOUT_PROBES 64u

/* Add the left-out function fn (opaque to this table; NULL: given later) whose code is
   [lo, lo + size): its number, 1 or more, or 0 when the table is full or size is 0.
   Async-signal-safe, and safe against concurrent adds. */
uint32_t prof_leftout_add(const void *fn, uintptr_t lo, uint64_t size);
/* The number of the left-out function whose code holds pc, or 0: async-signal-safe. */
uint32_t prof_leftout_at(uintptr_t pc);
/* The function added as number r (prof_leftout_add's or prof_leftout_set_fn's fn), or NULL. */
const void *prof_leftout_fn(uint32_t r);
/* The function of range r, described now when it has none yet (a function without hooks,
   codemap.h) by the describer libprofreport-auto sets, unless the range was dropped; NULL
   when there is none. Not in a signal handler, nor with a lock of the collector held. */
const void *prof_leftout_describe(uint32_t r);
void prof_leftout_set_describer(const void *(*describe)(uint32_t r));
/* The entry address of range r (0: no such range). */
uintptr_t prof_leftout_entry(uint32_t r);
/* Give range r its function (one added with NULL, once described). */
void prof_leftout_set_fn(uint32_t r, const void *fn);
/* Empty range r: its function proved to have hooks after all (codemap.h); its number stays. */
void prof_leftout_drop(uint32_t r);
/* Forget every range (a module was unloaded: its addresses may be another's). */
void prof_leftout_forget(void);

struct prof_node;

/* One (context, function) pair of a thread. */
struct prof_leftout_hit {
    struct prof_node *parent; /* the context; NULL: a free entry (written last) */
    uint32_t fn;              /* the function's number */
    uint64_t samples;
};

/* A thread's table (all zero: none made). */
struct prof_leftout_hits {
    struct prof_leftout_hit *hits; /* PROF_LEFTOUT_HITS entries, or NULL */
    uint32_t *ids; /* function number - 1 -> its id index + 1 on the thread; 0: none yet */
    uint64_t lost; /* samples that found the table full (charged to their context) */
    /* The pairs held, and the longest probe any took from its hash (under
       PROF_LEFTOUT_PROBES): a pair not within that many entries of its hash is not in the
       table (the owner thread's signal handler alone writes them) */
    uint32_t used, reach;
};

/* Make h's table (empty); -1 when memory runs out. */
int prof_leftout_hits_make(struct prof_leftout_hits *h);
/* Empty it (a new run), keeping its memory. */
void prof_leftout_hits_clear(struct prof_leftout_hits *h);
void prof_leftout_hits_free(struct prof_leftout_hits *h);

/*
 * Charge w samples to function r under context parent (the owner thread's signal handler): 1,
 * or 0 when the table is full or not made (the caller charges the context). Nothing else
 * writes the table's counts.
 */
int prof_leftout_charge(struct prof_leftout_hits *h, struct prof_node *parent, uint32_t r,
                        uint64_t w);

/* The samples of h's pairs under context root that have no id (so no row): outside every
   context, as the thread's other samples with no open context are (owner thread). */
uint64_t prof_leftout_unnamed_under(const struct prof_leftout_hits *h,
                                    const struct prof_node *root);

/* The id index + 1 of function r on the thread, or 0 when it has none yet. */
static inline uint32_t prof_leftout_id(const struct prof_leftout_hits *h, uint32_t r)
{
    return h->ids && r && r <= PROF_LEFTOUT_MAX ? __atomic_load_n(&h->ids[r - 1], __ATOMIC_ACQUIRE)
                                                : 0;
}

#endif /* PROF_LEFTOUT_H */
