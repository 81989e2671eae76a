/*
 * memtab.h - the pure bookkeeping of memory checks (memtab.c), with no locks and no I/O: a table
 * of blocks keyed by pointer and a map of findings with counts and bytes, in mmap'd memory.
 *
 * Ownership: each table and map owns its slots (the _release functions unmap them); a block's
 * site and region strings belong to the program and are never freed here.
 */
#ifndef PROF_MEMTAB_H
#define PROF_MEMTAB_H

#include "compiler.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Finding kinds, in the order the memory section lists them. */
enum prof_mem_finding {
    PROF_MF_LEAK,
    PROF_MF_RUNTIME, /* a leak the runtime made for itself: memcheck.c reclassifies leaks */
    PROF_MF_DOUBLE_FREE,
    PROF_MF_UNKNOWN_FREE,
    PROF_MF_MISMATCH,
    PROF_MF_CROSS_THREAD,
    PROF_MF_LAST
};

/* Where a memory operation came from: a "file:line" string, or a return address. */
struct prof_site {
    uintptr_t v;
    int text; /* v is a const char * */
};

/* The most return addresses an allocation keeps (PROFILER_MEM_STACK is capped to it). */
#define PROF_MEM_STACK_MAX 8

/* An allocation's call stack: return addresses, pc[0] the allocator's caller. n 0: none kept. */
struct prof_mem_stack {
    uint32_t n;
    uintptr_t pc[PROF_MEM_STACK_MAX];
};

/* One memory operation as the table sees it. */
struct prof_mem_op {
    struct prof_site site;
    struct prof_mem_stack stack; /* allocations by return address only */
    const char *region;          /* innermost open region, or NULL */
    uint32_t thread;             /* the recorder's number in the run; 0: not recording */
    uint32_t run;                /* run serial (memcheck.c) */
    pid_t tid;                   /* kernel thread id: "same thread" */
    int kind;                    /* enum prof_mem_kind */
};

/* One block: live, or freed and kept as a tombstone until its address is allocated again. */
struct prof_mem_block {
    uintptr_t ptr; /* 0: empty slot */
    uint64_t size;
    struct prof_mem_op alloc; /* the allocation */
    struct prof_site free_site;
    uint32_t free_thread;
    int freed;
};

/* Open addressing by pointer; entries are never removed, only marked freed. Storage is mmap'd so
   the table never calls the allocator it watches. */
struct prof_memtab {
    struct prof_mem_block *slots;
    size_t mask, used; /* slots: mask + 1, or none */
};

/* A finding, aggregated by everything but count and bytes. */
struct prof_mem_find {
    int kind;                      /* enum prof_mem_finding */
    int alloc_kind, free_kind;     /* enum prof_mem_kind, or -1 when not known */
    uint32_t thread, other_thread; /* the operation's thread; the allocating/first-freeing one */
    const char *region;            /* region of the operation, NULL: none */
    struct prof_site site, other;  /* the operation's site; the allocation's or first free's */
    struct prof_mem_stack stack;   /* leaks: the allocation's stack */
};

/* Findings with their counts and bytes. */
struct prof_memfind_map {
    struct prof_memfind_slot {
        struct prof_mem_find key;
        uint64_t count, bytes;
        int used;
    } * slots;
    size_t mask, used;
};

/* Record an allocation of size bytes at ptr; a stale entry at ptr is replaced. 0 or -1 (no
   memory for the table: not recorded). */
int prof_memtab_alloc(struct prof_memtab *t, uintptr_t ptr, uint64_t size,
                      const struct prof_mem_op *op);
/*
 * Record a free of ptr by op (op->kind: the deallocator's kind). Writes up to two findings to
 * out[] with their bytes in bytes[], and returns their number in *n. Returns 1 when ptr must not
 * reach the real deallocator (a double free), else 0.
 */
int prof_memtab_free(struct prof_memtab *t, uintptr_t ptr, const struct prof_mem_op *op,
                     struct prof_mem_find out[2], uint64_t bytes[2], int *n);
/* Undo the free of ptr just recorded (a realloc that failed). */
void prof_memtab_unfree(struct prof_memtab *t, uintptr_t ptr);
/* The block at ptr, live or freed, or NULL. */
const struct prof_mem_block *prof_memtab_find(const struct prof_memtab *t, uintptr_t ptr);
/* Add the live blocks of run allocated while recording (thread != 0) to m as leaks. -1: no
   memory. */
int prof_memtab_leaks(const struct prof_memtab *t, uint32_t run, struct prof_memfind_map *m);
void prof_memtab_release(struct prof_memtab *t);

/* Count one finding of bytes. 0, or -1 when the map cannot grow. */
int prof_memfind_add(struct prof_memfind_map *m, const struct prof_mem_find *f, uint64_t count,
                     uint64_t bytes);
/* The used slots in report order: kind, then bytes (largest first), count, site. Caller frees
   with prof_mem_unmap(p, n * sizeof *p); NULL when empty or out of memory. */
struct prof_memfind_slot **prof_memfind_sorted(const struct prof_memfind_map *m, size_t *n);
void prof_memfind_release(struct prof_memfind_map *m);

/* Zeroed memory straight from the kernel, and its release. */
void *prof_mem_map(size_t bytes);
void prof_mem_unmap(void *p, size_t bytes);

/*
 * What decides that a leak is the runtime's (FORMAT.md 1.5): a module of the runtime (dynamic
 * loader, C and C++ libraries, libgcc), by its path; a function of the runtime that hands the
 * memory it allocates to its caller (strdup, operator new, ...), by its symbol name.
 */
int prof_mem_runtime_module(const char *path);
int prof_mem_hands_over(const char *symbol);

/* The section's name of a finding kind, and of an allocation or deallocation kind. */
const char *prof_mem_finding_name(int kind);
const char *prof_mem_alloc_name(int kind);
const char *prof_mem_free_name(int kind);

#endif /* PROF_MEMTAB_H */
