/*
 * internal.h - declarations shared by the collector's modules; never installed.
 *
 * The library is built with -fvisibility=hidden, so everything declared here stays inside
 * libprofreport even though the names carry the prof_ prefix.
 */
#ifndef PROF_INTERNAL_H
#define PROF_INTERNAL_H

#include "profreport.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#define PROF_LIKELY(x) __builtin_expect(!!(x), 1)
#define PROF_UNLIKELY(x) __builtin_expect(!!(x), 0)

/*
 * Fields one thread writes and prof_finish reads from another thread use relaxed atomics: they
 * compile to plain moves on x86-64 and ARM64 but make the sharing well defined (and TSan-clean).
 */
#define PROF_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define PROF_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* ---- timer.c: the tick source ---- */

enum prof_clock { PROF_CLOCK_TSC, PROF_CLOCK_MONOTONIC };

/* Declarations of library-internal data: hidden, so PIC code reaches them without the GOT. */
#define PROF_INTERNAL __attribute__((visibility("hidden")))

/* Nonzero when ticks come from rdtsc; read on every event, written once at process init. */
extern PROF_INTERNAL int prof_use_tsc;

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t prof_monotonic_ns(void);

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/* The current tick count: the TSC when usable, else CLOCK_MONOTONIC nanoseconds. */
static inline uint64_t prof_ticks(void)
{
    if (PROF_LIKELY(prof_use_tsc))
        return __rdtsc();
    return prof_monotonic_ns();
}
#else
static inline uint64_t prof_ticks(void) { return prof_monotonic_ns(); }
#endif

/* A tick count and a CLOCK_MONOTONIC reading taken as close together as possible. */
void prof_clock_pair(uint64_t *ticks, uint64_t *ns);

/* Nonzero when this CPU has an invariant TSC (CPUID 0x80000007, EDX bit 8). */
int prof_tsc_invariant(void);

/* Ticks per second given ticks and nanoseconds elapsed over the same interval; 0 if undefined. */
uint64_t prof_frequency_from(uint64_t ticks, uint64_t ns);

/*
 * Pick the clock (PROF_CLOCK_TSC only if requested and invariant) and measure its rate.
 * Sets prof_use_tsc. Returns the ticks per second.
 */
uint64_t prof_timer_setup(enum prof_clock wanted, enum prof_clock *chosen);

struct tm;
/* The calendar date and time (fields as gmtime_r's) of secs seconds after the epoch, taking no
   lock of the C library. */
void prof_civil_time(int64_t secs, struct tm *out);

/* ---- the formats (format/) and the collector's part of them ---- */

/* format.h: chunk ids, event words, records; sbuf.h: the chunk buffers; csvwrite.h: the run
   file, written at finish (prof_assemble); regionstats.h: summary mode's statistics;
   partwrite.h: the chunks of a thread's part. */
#include "csvwrite.h"
#include "format.h"
#include "partwrite.h"
#include "regionstats.h"
#include "sbuf.h"

/* ---- thread.c / run.c: recording ---- */

#define PROF_MAX_DEPTH 4096
#define PROF_NAME_MAX 64
#define PROF_BUFFER_WORDS 65536u /* 256 KiB of event words per thread between writes */
#define PROF_PENDING 32          /* summary mode: histogram updates applied in batches */

enum prof_mode { PROF_MODE_EVENTS, PROF_MODE_SUMMARY };

/*
 * A function compiled with -finstrument-functions (auto.c, functions.c): described once per
 * process, at its first call, and never freed while the process lives.
 */
struct prof_fn {
    const void *addr;
    char *name; /* the region id: demangled, made unique among different functions */
    char *file; /* source file, or NULL when the module has no line data for it */
    unsigned line;
    char *module;    /* the ELF file holding it */
    uint64_t offset; /* addr minus the module's load bias */
    int skip;        /* left out by PROFILER_INCLUDE / PROFILER_EXCLUDE */
};

/* An open region (or instrumented function call) on the recording thread. */
struct prof_frame {
    const void *id; /* the id table key: the id text pointer, or the function's address */
    uint32_t idx;
    uint32_t serial; /* which instance: lets PROFILER_SCOPE find its own region */
    uint64_t start, child;
    struct prof_stats *stats; /* summary mode: saves the stop a dependent load */
    const struct prof_fn *fn; /* a function's frame; NULL for a region */
    /* Events mode, functions: where the enter record went, to fold a short call away */
    uint32_t pos, epoch;
    uint64_t last_before;
};

/* One entry of a thread's id table: region id pointer or function address -> index. */
struct prof_idslot {
    const void *key;
    uint32_t idx; /* PROF_IDX_SKIP: a function the filters leave out */
};

/*
 * Per-thread recorder, reached through a thread-local pointer. While a run records, the run's
 * registry (run.c) lists it. When its thread ends, the pthread key destructor writes its part
 * and frees it: the run keeps only the part's path.
 */
struct prof_thread {
    /* hot: touched on every event, only by the owning thread */
    uint32_t *buf;
    uint32_t pos; /* words used; release-stored so prof_finish can read buf[flushed..pos) */
    uint32_t depth;
    uint32_t serial; /* regions opened so far */
    uint64_t last;   /* absolute ticks of the last record */
    /* ticks after which the next event writes what is buffered (PROFILER_FLUSH_INTERVAL);
       UINT64_MAX: only when full */
    uint64_t flush_at;
    unsigned gen; /* the prof_gen this recorder belongs to */
    enum prof_mode mode;
    struct prof_idslot *slots;
    uint32_t mask;
    uint32_t nslots; /* used slots: ids plus filtered-out functions */
    struct prof_frame *stack;
    struct prof_stats **stats; /* summary mode: per index */
    /*
     * Summary mode: histogram updates waiting to be applied. A store whose address depends on
     * a tick value makes the next rdtsc wait for it (measured on AMD: +0.2x per region), so
     * stops queue (stats, ticks) at sequential addresses and apply them PROF_PENDING at a time.
     */
    uint32_t npending;
    struct {
        struct prof_stats *stats;
        uint64_t ticks;
    } pending[PROF_PENDING];

    /* function hooks (auto.c) */
    uint32_t epoch;       /* buffer writes so far: a fold needs its enter record still there */
    uint32_t excess;      /* calls deeper than PROFILER_MAX_DEPTH open now, not recorded */
    int in_hook;          /* inside the hooks' slow path: calls made from there record nothing */
    uint64_t folded;      /* calls shorter than PROFILER_MIN_DURATION folded into their parent */
    uint64_t fold_ticks;  /* PROFILER_MIN_DURATION in ticks; 0: no folding */
    uint64_t unwound;     /* frames closed because an enclosing function returned */
    uint32_t fns_written; /* ids whose PRFL location chunk is written */

    /* live report (live.c): off when live_interval is 0 */
    uint64_t live_interval, live_next, live_since, live_frequency;
    struct prof_live {
        uint64_t calls, ticks;
    } * live; /* per index: since the last report */
    uint32_t live_cap;

    /* cold */
    pthread_mutex_t lock;    /* guards fd, flushed, ids; order: run lock, then this */
    uint64_t flush_interval; /* PROFILER_FLUSH_INTERVAL in ticks; 0: write only when full */
    unsigned mod_gen;        /* the prof_mod_gen its id table was filled under */
    /* events dropped because they came while the collector ran on this thread (a signal
       handler): the owner's thread-local counter, and how much of it earlier runs reported */
    const uint64_t *dropped;
    uint64_t dropped_seen;
    int fd;
    uint32_t flushed;           /* words of buf already written */
    const char **ids;           /* index -> id text (a function's name for a function) */
    const struct prof_fn **fns; /* index -> the function, or NULL for a region id */
    uint32_t *canon; /* summary mode: index -> first index with the same text (shares stats) */
    uint32_t *texts; /* summary mode: open addressing over id texts, index + 1 (0 = empty) */
    uint32_t tmask;
    uint32_t nids, ids_cap, ids_written;
    unsigned number;
    pid_t tid;
    char name[PROF_NAME_MAX];
    int registered, fork_pending;
    uint64_t stray, mismatch, depth_limit;
    char *path;

    /* memory checks (memcheck.c): allocations and bytes per id index, and outside regions;
       written by the owner (relaxed atomics), grown under lock, read at thread end */
    struct prof_memcount {
        uint64_t count, bytes;
    } * mem, mem_none;
    uint32_t mem_cap;
    struct prof_thread *next, *prev; /* the run's registry of live threads (run.c) */
};

/* Bumped whenever recorders must re-check the run (finish, failure, fork, dlclose): read per
   event. */
extern PROF_INTERNAL unsigned prof_gen;
/* Bumped (before prof_gen) when a module was unloaded: code addresses may now mean other
   functions, so each thread empties its id table at its next event (run.c, prof_attach). */
extern PROF_INTERNAL unsigned prof_mod_gen;

/*
 * Re-entry from signal handlers. While an event runs on a thread, its recorder's gen has the
 * PROF_GEN_BUSY bit set (one or and one and on memory: the hot path's generation check, already
 * there, then fails for a handler; prof_gen never counts that high), and
 * while a slow path runs without a current recorder (attach, finish, the thread's end),
 * prof_busy is set. An event that finds either comes from a signal handler that interrupted
 * the collector (or from code the collector itself called): prof_attach and prof_resync drop
 * it and count it (prof_dropped_event), so no lock is taken twice and no record is written by
 * two hands.
 */
#define PROF_GEN_BUSY 0x80000000u
extern __thread unsigned prof_busy __attribute__((tls_model("initial-exec")));
/* Mark the thread's current recorder busy; compiler barriers keep every change of collector
   state between the two marks, where a signal handler sees them. */
static inline void prof_busy_mark(struct prof_thread *t)
{
    t->gen |= PROF_GEN_BUSY;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline void prof_busy_unmark(struct prof_thread *t)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->gen &= ~PROF_GEN_BUSY;
}
/* The same for slow paths, by the thread-local flag; they nest. */
static inline void prof_busy_begin(void)
{
    prof_busy++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline void prof_busy_end(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    prof_busy--;
}
/* thread.c: count one event dropped because the collector was busy on this thread. */
void prof_dropped_event(void);

/* Run-level facts a recorder needs to start its part file. */
struct prof_run_info {
    const char *dir, *runname, *header; /* header: NUL-separated key/value pairs, run-level */
    size_t header_len;
    uint64_t base_ticks;
    enum prof_mode mode;
    uint64_t frequency;
    uint64_t live_interval;  /* PROFILER_REPORT_INTERVAL in ticks; 0: no live report */
    uint64_t flush_interval; /* PROFILER_FLUSH_INTERVAL in ticks; 0: write when full */
};

/* run.c: the slow path of every event; returns the caller's recorder or NULL when not recording. */
struct prof_thread *prof_attach(void);
/* run.c: bring a recorder whose generation is stale up to date when its thread still records
   in the current run (a module was unloaded); NULL otherwise. Starts no run and no part. */
struct prof_thread *prof_resync(void);
/* run.c: stop the whole process's profiling after an error; warns once. Takes no lock. */
void prof_fail(const char *what, const char *path, int err);
/* run.c: one line on stderr, prefixed "profreport: ". */
void prof_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* live.c: make room for the live counters of ids up to t->ids_cap; -1 when out of memory. */
int prof_live_grow(struct prof_thread *t);
/* live.c: count a stop of the region at depth d (its frame is still on the stack) and print
   the thread's report when its interval has passed. */
void prof_live_stop(struct prof_thread *t, uint32_t d, uint64_t now);

/* ---- libprofreport-auto only: symbols.c, functions.c, auto.c ---- */

struct prof_symbolizer;
/* symbols.c: open a symbolizer for this process's code; NULL when libdwfl cannot start. */
struct prof_symbolizer *prof_sym_open(void);
void prof_sym_close(struct prof_symbolizer *s);
/* symbols.c: describe the code at addr (name, file, line, module, offset) into out. */
enum prof_error prof_sym_lookup(struct prof_symbolizer *s, const void *addr, struct prof_fn *out);
/* symbols.c: a C++ symbol demangled, anything else copied; NULL when memory runs out. */
char *prof_sym_demangle(const char *name);
/* symbols.c: free the strings of a description. */
void prof_fn_release(struct prof_fn *fn);

/* functions.c: the process-wide description of the function at addr (resolved at its first
   call, with the filters applied); NULL when it cannot be described. */
const struct prof_fn *prof_fn_get(const void *addr);
/* functions.c: forget every address's description (a module was unloaded, another may take
   its addresses); the descriptions stay allocated, as recorders keep pointers to them. */
void prof_fn_forget(void);
/* functions.c: whether name passes PROFILER_INCLUDE / PROFILER_EXCLUDE (comma-separated globs). */
int prof_fn_selected(const char *name, const char *include, const char *exclude);

/* thread.c: the calling thread's recorder, or NULL. */
struct prof_thread *prof_thread_self(void);
void prof_thread_set_self(struct prof_thread *t);
/* thread.c: allocate an empty recorder; NULL when memory runs out. */
struct prof_thread *prof_thread_new(void);
/* thread.c: start recording the current run into a new part file (under the run lock). */
enum prof_error prof_thread_begin(struct prof_thread *t, const struct prof_run_info *run,
                                  unsigned number, int keep_stack);
/* thread.c: write everything still in memory and the end chunk, then close (takes t->lock). */
void prof_thread_end(struct prof_thread *t, const char *state);
/* thread.c: free a recorder. */
void prof_thread_free(struct prof_thread *t);
/* thread.c: empty the id table, so every key is looked up again (a module was unloaded). */
void prof_thread_forget_keys(struct prof_thread *t);
/* thread.c: forget the parent's file and buffer in a fork child (async-signal-safe). */
void prof_thread_forked(struct prof_thread *t);

/* run.c: nonzero once PROFILER_ENABLE=0 was seen (valid after prof_attach returned). */
int prof_disabled(void);

/* ---- memtab.c: the pure bookkeeping of memory checks ---- */

/* Finding kinds, in the order the memory section lists them. */
enum prof_mem_finding {
    PROF_MF_LEAK,
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

/* One memory operation as the table sees it. */
struct prof_mem_op {
    struct prof_site site;
    const char *region; /* innermost open region, or NULL */
    uint32_t thread;    /* the recorder's number in the run; 0: not recording */
    uint32_t run;       /* run serial (memcheck.c) */
    pid_t tid;          /* kernel thread id: "same thread" */
    int kind;           /* enum prof_mem_kind */
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

/* The section's name of a finding kind, and of an allocation or deallocation kind. */
const char *prof_mem_finding_name(int kind);
const char *prof_mem_alloc_name(int kind);
const char *prof_mem_free_name(int kind);

/* ---- memcheck.c: memory checks at run time ---- */

/*
 * Nonzero while the collector itself works on this thread: its own allocations and frees (and
 * those of the libc functions it calls) are not tracked. Every collector path that allocates
 * runs between prof_mem_quiet_begin and prof_mem_quiet_end.
 */
extern __thread unsigned prof_mem_quiet __attribute__((tls_model("initial-exec")));
static inline void prof_mem_quiet_begin(void) { prof_mem_quiet++; }
static inline void prof_mem_quiet_end(void) { prof_mem_quiet--; }

/* Append the text of a site: the string, or module+0xoffset of a return address. */
void prof_mem_site_text(struct prof_sbuf *b, struct prof_site site);
/* thread.c: forget the thread's memory counters (a new run). */
void prof_mem_thread_reset(struct prof_thread *t);
/* thread.c: write the thread's PRFM chunk, if it allocated anything (t->lock held). */
int prof_mem_write_part(struct prof_thread *t);
/* run.c: the thread's recorder is going away (pthread key destructor). */
void prof_mem_thread_exit(struct prof_thread *t);
/* The run's memory findings as rows of the memory section (FORMAT.md 1.5), for the run-file
   writer; owns the rows and the site texts they point into. */
struct prof_mem_report {
    struct prof_memory_rec *rows;
    size_t n;
    struct prof_sbuf text;
};
/* run.c: the run's memory findings and leaks (none when memory runs out); starts the next
   run's accounting. */
void prof_mem_run_end(struct prof_mem_report *out);
void prof_mem_report_release(struct prof_mem_report *r);

#endif /* PROF_INTERNAL_H */
