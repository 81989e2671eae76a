/*
 * model.h - model.c: every run merged into regions, runs, threads, edges, memory findings
 * and warnings, fed row by row by runfile.c's parser.
 *
 * Ownership: the model owns everything its arrays point to (model_release frees it), except
 * the --include/--exclude globs and the sink, which are borrowed.
 */
#ifndef PROFREPORT_MODEL_H
#define PROFREPORT_MODEL_H

#include "base/util.h"
#include "model/cct.h"
#include "model/rows.h"
#include "model/stats.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One run file (or a killed run recovered from its parts). */
struct run_rec {
    char *file; /* as the user named it, UTF-8 repaired */
    char *program, *command, *host, *start, *clock, *pid, *mode;
    /* PROFILER_INCLUDE and PROFILER_EXCLUDE as the run had them (Include, Exclude); NULL: unset */
    char *include, *exclude;
    uint64_t frequency;
    double duration_ns; /* Duration record, else the latest region end seen */
    uint64_t events;    /* rows read (summary mode: calls) */
    unsigned threads;
    int complete;   /* Complete,yes (seed files: 1 unless truncated) */
    int has_memory; /* the run file has a memory section (memory checks were used) */
    int recovered;  /* rebuilt from .part files */
    enum run_kind kind;
    /* runcheck.c: the threads' share of wanted CPU time spent waiting for a CPU (NaN: the run
       does not say) and whether that makes it a busy machine's run; its busy time over the
       median run's (NaN: none) and whether that makes it an outlier */
    double wait_share, busy_ratio;
    int busy_machine, outlier;
    /* The Timing record (format 4): sampled timing's method ("perf-task-clock", "cpu-timer")
       and sample period in ns; NULL and 0 for a run that timed every call. overflow_ns: what
       one perf sample cost a thread before the handler could see it, calibrated at the run's
       start (0: not said, older files) */
    char *sampling;
    double period_ns, overflow_ns;
    double period_asked_ns; /* the period asked for: less than period_ns when lengthened */
    /* The Crash record (a run that ended by a fatal signal): the signal's number (0: the run
       did not crash), its text for output ("SIGSEGV (signal 11)") and the number of the thread
       it came to (0: one that recorded nothing) */
    int crash_signal;
    char *crash;
    unsigned crash_thread;
};

/* One thread of one run. key groups threads of the same name across runs (Hit count). */
struct thread_rec {
    size_t run, key;
    unsigned number;
    char *tid, *name, *state;
    /* an unnamed thread's role, what it runs (FORMAT.md 1.2: where the chain of the only
       children that call others ends, from its top), NULL when the run does not say; its key */
    char *role;
    uint64_t events;
    double busy_ns; /* time in regions at depth 0 */
    /* From the ThreadCpu record: CPU time and wall time while the thread recorded, and the
       time it waited for a CPU, ns; NaN when the run does not say (older files, killed runs) */
    double cpu_ns, wall_ns, wait_ns;
    /* A sampled run's ThreadCpu record: the thread's CPU-time samples, those in the
       collector's own code and those outside every region, and the measured cost of one
       call's hooks in ns (taken out of its Wall times); NaN when the run does not say */
    double samples, overhead, outside, hook_ns;
    double sample_cost_ns; /* what taking its samples cost, in ns (NaN: not said, older files) */
    /* of its samples, those a CPU-time timer took (all of a cpu-timer run's; in a
       perf-task-clock run, those after the thread traded its event for the timer), and the
       timer's signals that took them; 0 when none or not said (older files) */
    double timer_samples, timer_draws;
    /* of its overhead samples, those in the hooks' fast path, which measured hook_ns; NaN when
       not said (older files) */
    double hook_samples;
    /* Sampled runs: what the collector's work on the run's other threads is taken to have
       added to this thread's waits (othercost.h), ns, taken out of its timed contexts' Wall;
       0 when nothing is; others_sd_ns, that estimate's standard deviation (the other threads'
       overhead samples are counts) */
    double others_ns, others_sd_ns;
};

/* Whether thread t's hook cost is its run's pooled figure rather than its own (FORMAT.md 1.2,
   ThreadCpu's thirteenth field): the samples that measured it outnumber its own overhead
   samples. One that pooled as many as it has of its own reads as its own. */
static inline int thread_hooks_pooled(const struct thread_rec *t)
{
    return t->hook_samples > t->overhead;
}

/* Why a function's calls were not counted where it has rows of sampled time only (FORMAT.md
   1.4): the bits of region.left_out, edge.left_out and cct_node.uncounted. */
enum left_out_why {
    LEFT_OUT_FILTERS = 1, /* the run's Include/Exclude records leave it out */
    LEFT_OUT_NO_HOOKS = 2 /* the run's Function record marks it uninstrumented: no hooks */
};

/* Whether a function whose calls were not counted for the reasons why (enum left_out_why) is
   worded as one compiled without hooks: only when no run's filters left it out. The filters
   are the user's own choice, which the Summary names, so their words win when both happened
   (in different runs). */
static inline int left_out_no_hooks(int why) { return why == LEFT_OUT_NO_HOOKS; }

/* One region (all regions with the same id text, across threads and runs). Kept small: a
   run may have a million distinct regions. */
struct region {
    char *name; /* raw bytes of the id */
    size_t len;
    char *display;    /* valid UTF-8, for output (name itself when that is what shows) */
    char *short_name; /* display shortened by structure (shortname.h), unique; NULL before
                         model_short_names */
    char *file;       /* source file (instrumented functions' Function records), or NULL */
    unsigned long line;
    int excluded; /* by --include / --exclude */
    int function; /* a Function record names it instrumented: it has hooks */
    int inlined;  /* a run's Function record marks it inlined: gcc inlined copies of it, with their
                     hooks, into other functions, whose self time holds their samples */
    /* its entry in model.unlocated + 1 (0: none): its source place is to be read from its
       module */
    uint32_t unlocated;
    uint32_t run_cap, key_cap; /* the runs and thread keys cols has room for */
    struct dist cost;          /* inclusive ns per call */
    double self_ns, outer_ns;  /* outer: non-nested calls only (recursion counted once) */
    /* Sampled runs: the variances of outer_ns and self_ns (each sample of period p adds p^2),
       the wall time of the calling contexts whose every call was timed (outermost ones), and
       the sampled CPU time of those same contexts */
    double var_outer, var_self, wall_ns, wall_cpu_ns;
    /* Sampled runs: the variance of wall_ns from what was estimated and taken out of it (the
       hooks' cost, the other threads' work), and the standard deviations that add up unsquared
       (threads that took their run's pooled hook cost); wall_pm_unknown: a thread's hook cost
       came without the count that measured it (wallbound.h) */
    double var_wall, wall_sd_pooled;
    int wall_pm_unknown;
    int sampled; /* a row of a sampled run */
    /* Sampled runs: the calls of contexts whose calls proved short and were only counted (not
       every one timed). cost holds each at its context's sampled mean, a point that is no
       call's measured time: the region's median, percentiles, extremes and spread are then
       not shown, its mean is. */
    uint64_t counted_only;
    /* A left-out function's (FORMAT.md 1.4): some run's Include/Exclude records leave it out,
       or its Function record marks it compiled without hooks, and gave it Calls-0 rows of
       sampled self time; left_out_ns is that time (in self_ns and outer_ns too). Its calls
       there were not counted: cost has only the runs that counted them. The bits say why
       (enum left_out_why), 0: none. */
    int left_out;
    double left_out_ns;
    uint64_t unterminated;
    /* Per run: ns over calls, ns over non-nested calls (the run's share of Total), calls; per
       thread key: ns over non-nested calls, self ns, calls. One allocation, read through
       region_run and region_key:
       run_cap sums, run_cap outer sums, run_cap counts, then key_cap of each. */
    void *cols;
};

/* One run's or one thread key's figures of a region (zero where it did not run). */
struct region_col {
    double sum, sum2; /* run: ns, outer ns; key: ns over non-nested calls, self ns */
    uint64_t calls;
};

/* Whether none of region r's calls were counted: every row of it was a left-out function's
   (FORMAT.md 1.4), so its Calls are unknown, not 0, and it has no cost per call. */
static inline int region_uncounted(const struct region *r) { return r->left_out && r->cost.n == 0; }

/* Region r's figures in run k. */
static inline struct region_col region_run(const struct region *r, size_t k)
{
    struct region_col c = {0, 0, 0};
    if (k < r->run_cap) {
        const double *d = (const double *)r->cols;
        c.sum = d[k];
        c.sum2 = d[r->run_cap + k];
        c.calls = ((const uint64_t *)(d + 2 * (size_t)r->run_cap))[k];
    }
    return c;
}

/* Region r's figures in the threads of key k. */
static inline struct region_col region_key(const struct region *r, size_t k)
{
    struct region_col c = {0, 0, 0};
    if (k < r->key_cap) {
        const double *d = (const double *)r->cols + 3 * (size_t)r->run_cap;
        c.sum = d[k];
        c.sum2 = d[r->key_cap + k];
        c.calls = ((const uint64_t *)(d + 2 * (size_t)r->key_cap))[k];
    }
    return c;
}

/* Caller -> callee, exact (from the Parent column of events rows and version 3 summary rows).
   caller is SIZE_MAX for top-level calls. */
struct edge {
    size_t caller, callee;
    uint64_t calls;
    double total_ns, self_ns; /* over every instance (total_ns / calls: the mean cost) */
    double outer_ns; /* total_ns but instances inside another of the same edge: the Total */
    int left_out;    /* time from a left-out callee's rows, whose calls were not counted: why */
};

/* One row of a run's memory section (FORMAT.md 1.5), strings UTF-8 repaired. */
struct mem_rec {
    size_t run;
    char *kind, *region, *site, *alloc_kind, *free_kind, *other_site;
    char *function, *stack; /* the site's function; a leak's allocation stack ("" if unknown) */
    unsigned thread, other_thread; /* 0: none */
    uint64_t count, bytes;
};

struct warning_rec {
    char *where; /* file, or file:line */
    char *kind;
    uint64_t count;
    char *message;
};

/* The runs of one program (their Program record) that the model met. */
struct program_count {
    char *name;  /* the Program record, UTF-8 repaired; NULL: runs without one */
    size_t runs; /* runs read up to their table */
    size_t kept; /* of them, the runs in the model */
    double ns;   /* the runs' Durations added up (those that say theirs), in ns */
};

/* Which runs the model keeps, by their Program record (model_pick). A run left out is read up
   to its table and counted in the model's programs, nothing more. A run without a Program
   record (the seed form) is kept whatever the pick but PICK_NONE: it names no other program. */
enum program_pick {
    PICK_ALL,   /* every run: a model's default */
    PICK_NONE,  /* none: each run is only counted (a first look at the inputs) */
    PICK_EXACT, /* the runs whose Program is the name given */
    PICK_NAME,  /* the runs whose Program, or its last path component, is the name given */
    PICK_FIRST  /* the program of the first run read, then as PICK_EXACT */
};

struct model;

/* The order of model_ranked (--sort): largest first by the region's total (outer) time, self
   time, calls, or mean cost per call. */
enum model_sort { SORT_TOTAL, SORT_SELF, SORT_CALLS, SORT_MEAN, SORT_COUNT };
/* "total", "self", "calls", "mean": the --sort values, in enum order. */
extern const char *const model_sort_names[SORT_COUNT];
/* "total time", "self time", "calls", "mean cost per call": for headings ("Top regions by"). */
extern const char *const model_sort_labels[SORT_COUNT];
/* The order named s, or -1 when s names none. */
int model_sort_parse(const char *s);

/*
 * Rows as they are read, for the exports that need more than the model keeps (instances,
 * call paths). Every row of every run is passed on, --include/--exclude notwithstanding.
 * ns, self_ns and start_ns are the row's ticks converted with its run's Frequency (self_ns
 * equals ns in the seed form). run_end's kept is 0 when the run was dropped (skipped file).
 */
struct model_sink {
    void *ctx;
    void (*run_begin)(void *ctx, const struct model *m, size_t run);
    void (*event)(void *ctx, const struct model *m, size_t run, const struct thread_rec *t,
                  const struct prof_event_rec *e, size_t region, double ns, double self_ns,
                  double start_ns);
    void (*summary)(void *ctx, const struct model *m, size_t run, const struct thread_rec *t,
                    const struct prof_summary_rec *s, double ns_per_tick);
    void (*run_end)(void *ctx, const struct model *m, size_t run, int kept);
};

/*
 * The calling-context tree of every row read (model_keep_paths), --include/--exclude
 * notwithstanding: events rows through their Depth and end order, version 3 summary rows under
 * their Parent's node, version 1 and 2 summary rows and seed rows as top-level paths. The
 * stream of the thread being read is closed at the end of each run.
 */
struct model_paths {
    struct cct tree;
    struct cct_stream stream;
    int streaming; /* stream is open for (run, thread) */
    size_t run;
    unsigned thread;
    uint32_t *name_of; /* region index -> tree name index + 1 (0: not interned yet) */
    size_t nname_of;
};

struct model {
    const struct model_sink *sink; /* NULL, or told of every row (not owned) */
    struct model_paths *paths;     /* NULL unless model_keep_paths was called */
    struct region *regions;
    size_t nregions, regions_cap;
    uint64_t *region_table; /* open addressing: index + 1, hash bits above (model.c) */
    size_t region_mask;
    struct run_rec *runs;
    size_t nruns, runs_cap;
    struct thread_rec *threads;
    size_t nthreads, threads_cap;
    char **keys; /* thread key names */
    size_t nkeys;
    struct str_index key_index; /* keys[0..nkeys) by name */
    struct edge *edges;
    size_t nedges, edges_cap;
    size_t *edge_table;
    size_t edge_mask;
    struct warning_rec *warnings;
    size_t nwarnings, warnings_cap;
    struct mem_rec *mem; /* memory sections of every run, in file order */
    size_t nmem, mem_cap;
    const char *const *include, *const *exclude; /* globs, not owned */
    size_t ninclude, nexclude;
    enum model_sort sort; /* model_ranked's order (SORT_TOTAL after model_init) */
    uint64_t events, skipped_rows;
    double self_total_ns; /* all regions, filtered or not: the base of "% time" */
    int any_summary, any_approximate;
    enum program_pick pick;
    char *pick_name;                /* owned */
    struct program_count *programs; /* every program met, in the order first met */
    size_t nprograms;
    /* Functions whose runs left their source file and line to the reporter: read from their
       modules once every run is in (srclines.h), then emptied */
    struct unlocated *unlocated;
    size_t nunlocated, unlocated_cap;
};

/* A function to locate in its module: its region, module path, address in the module (its
   offset from the load bias) and the module's build id when the run said it (all owned). */
struct unlocated {
    size_t region;
    char *module, *build_id;
    uint64_t offset;
};
/* Note region r's function at offset in module (build id, or NULL) for srclines_locate: once
   per region, the run read last winning (runs are read oldest first, and the newest is the
   likeliest to be of the build on disk now). */
void model_unlocated_add(struct model *m, size_t r, const char *module, const char *build_id,
                         uint64_t offset);
/* Forget the list (srclines_locate is done with it). */
void model_unlocated_clear(struct model *m);

void model_init(struct model *m);
void model_release(struct model *m);
/*
 * The model complete, once every run is read: each region's cost distribution put in order
 * (dist_finish) and the row sink detached. From here on the outputs take const struct model *
 * and change nothing; model_warn still adds a warning.
 */
void model_finish(struct model *m);
/* Build the calling-context tree while rows stream in (the Call paths sheet, folded stacks
   and callgrind need it); call before the first run is read. */
void model_keep_paths(struct model *m);
/* The calling-context tree of the runs read so far, or NULL when it is not kept. */
const struct cct *model_paths(const struct model *m);
/* Read one run into the model from read(src, ...), which feeds the model's run_handler: a run
   file's parser (input_add_run, read/input.h), or a killed run's parts (read/partfile.h).
   name is shown in messages; recovered marks a run rebuilt from .part files. Returns the
   reader's status; problems become warnings. */
enum run_status model_read_run(struct model *m, const char *name, int recovered, run_reader read,
                               void *src);
/* Give every region its short name (shortname.h): the same in the terminal, the charts and
   the sheets' Short name column (once, after the last run is read). */
void model_short_names(struct model *m);
/* The region's short name, or its display name before model_short_names. */
const char *model_short(const struct region *r);
/* Keep only the runs pick and name (copied) select, from the next run read on. */
void model_pick(struct model *m, enum program_pick pick, const char *name);
/* Whether a Program record names the program name: the whole path, or its last component. */
int model_program_is(const char *program, const char *name);
/* Add a warning (copies the strings). */
void model_warn(struct model *m, const char *where, const char *kind, uint64_t count,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* ---- for reading runs into the model (ingest.c) ---- */

/* How many runs, threads, warnings, thread keys and memory findings the model holds. */
struct model_mark {
    size_t runs, threads, warnings, keys, mem;
};
/* The model's counts now. */
struct model_mark model_mark(const struct model *m);
/* Free every run, thread, warning, thread key and memory finding added since mark: a skipped
   run forgotten with the one code that frees these records (model_release uses it too). */
void model_rollback(struct model *m, const struct model_mark *mark);
/* The count of the runs of program (NULL: without a Program record), made on first sight. */
struct program_count *model_program_count(struct model *m, const char *program);
/* Whether the model keeps a run of program, by its pick (model_pick). */
int model_program_wanted(struct model *m, const char *program);
/* The index of the region with id s[0..n), or SIZE_MAX when there is none. */
size_t model_find(const struct model *m, const char *s, size_t n);
/* Region indexes in m->sort's order (largest first, ties by name), excluded ones left out. */
size_t *model_ranked(const struct model *m, size_t *n);
/* model_ranked in the order sort, whatever m->sort says (the self time charts). */
size_t *model_ranked_by(const struct model *m, enum model_sort sort, size_t *n);
/* Mean cost per call of region r in run k (NaN when it did not run, or ran uncounted). */
double model_run_mean(const struct region *r, size_t k);
/* A thread is mostly idle (waiting, not working) when its CPU time is under this share of
   its wall time while it recorded, over at least MODEL_IDLE_MIN_NS of wall time (shorter
   threads are too brief to judge). */
#define MODEL_IDLE_SHARE 0.10
#define MODEL_IDLE_MIN_NS 1e6
/* 1 when thread t was mostly idle, 0 when not, -1 when its run does not say (no ThreadCpu
   record, or too short to judge). */
int model_thread_idle(const struct thread_rec *t);

/* The runs that crashed (a Crash record). */
size_t model_crashed_runs(const struct model *m);
/* Run k's crash in words, into buf: "run 2: SIGSEGV (signal 11) in thread 1 (main)"; the
   thread is left out when the signal came to one that recorded nothing. */
void model_run_crash_text(const struct model *m, size_t k, char *buf, size_t size);
/* Time spent in top-level regions, all threads of all runs: the base of "Total %". */
double model_busy(const struct model *m);

/* The Call cost sheet's figures for one region: ns, fractions, NaN when undefined. */
struct cost_row {
    uint64_t calls, never;
    double total, total_share, self, self_share;
    double mean, median, stddev, min, max, p90, p99;
    size_t runs; /* runs where the region ran */
    double run_mean, run_stddev, run_cv, ci95, fastest, slowest;
    int approximate; /* percentiles from the histogram; 2: none (calls only counted); 3: none
                        (timed, but the net wall time is 0: all of it the collector's) */
    /* A left-out function's (region.left_out): 2 when none of its calls were counted (calls
       is then unknown, not 0), 1 when some runs counted them and others left it out, else 0 */
    int left_out;
    /* Sampled runs: the 95 % bounds of total and self (1.96 standard deviations of their
       sample counts), the wall time of the contexts timed on every call, its 95 % bound
       (wallbound.h) and its part off the CPU (wall minus their sampled CPU time); NaN when not
       sampled or not timed */
    double total_pm, self_pm, wall, wall_pm, offcpu;
};
/* The text that says a left-out function's calls were not counted (cost_row.left_out 2, or 1:
   in some runs only), worded for the reasons why (region.left_out, edge.left_out:
   left_out_no_hooks); NULL for 0. */
const char *model_left_out_text(int left_out, int why);
/* What region r's figures need said beside them: model_left_out_text for a left-out function
   (cost_row.left_out), else for an inlined one (region.inlined) that its time is elsewhere;
   NULL for neither. */
const char *model_note_text(const struct region *r, int left_out);
/* The words for an inlined function (region.inlined), as a note beside its figures. */
#define MODEL_INLINED_TEXT                                                                         \
    "inlined by the compiler: calls counted, time in the self time of the functions it was "       \
    "inlined into"
/* Fill *out for region r; busy is model_busy(m). */
void model_cost_row(const struct model *m, size_t r, double busy, struct cost_row *out);

/* What one of thread t's samples stands for in ns, the period of its run less what taking a
   sample cost the thread on average (FORMAT.md 1.2, ThreadCpu): the period when the run does
   not say (older files), or says a cost of half a period or more; for a thread a CPU-time
   timer sampled, its CPU time less that cost over its samples, as the collector counts it. */
static inline double thread_sample_ns(double period_ns, const struct thread_rec *t)
{
    double c = t->samples > 0 && isfinite(t->sample_cost_ns) ? t->sample_cost_ns : 0;
    if (t->timer_samples > 0 && t->samples > 0 && isfinite(t->cpu_ns) && t->cpu_ns > c)
        return (t->cpu_ns - c) / t->samples;
    c = t->samples > 0 ? c / t->samples : 0;
    return c > 0 && c < period_ns / 2 ? period_ns - c : period_ns;
}

/* What taking thread t's samples cost it in all, in ns, as thread_sample_ns took it out of
   them (0 when it took nothing out). */
static inline double thread_sampling_ns(double period_ns, const struct thread_rec *t)
{
    double s = thread_sample_ns(period_ns, t);
    if (t->timer_samples > 0 && t->samples > 0 && isfinite(t->cpu_ns))
        return isfinite(t->sample_cost_ns) && t->cpu_ns > t->sample_cost_ns ? t->sample_cost_ns : 0;
    return s < period_ns ? t->samples * (period_ns - s) : 0;
}

/*
 * How much more a time made of thread t's samples varies than their count says: a CPU-time
 * timer's signal looks where the thread is once for all the w periods since the one before (the
 * scheduler's tick checks it), so its time varies as w^2 periods^2 do, not as w; a perf event's
 * sample looks once a period. Their mean over the thread's samples: (samples not the timer's +
 * timer samples^2 / its signals) / samples; 1 when the run does not say (older files).
 */
static inline double thread_sample_spread(const struct thread_rec *t)
{
    if (!(t->timer_draws > 0) || !(t->timer_samples > 0) || !(t->samples >= t->timer_samples))
        return 1;
    double f =
        (t->samples - t->timer_samples + t->timer_samples * t->timer_samples / t->timer_draws) /
        t->samples;
    return f > 1 ? f : 1;
}

#endif /* PROFREPORT_MODEL_H */
