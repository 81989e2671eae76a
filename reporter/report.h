/*
 * report.h - the profreport command's modules and the data they pass each other.
 *
 * Flow: input.c finds run files (and leftover .part files of killed runs) -> runfile.c streams
 * each through libcsv -> model.c merges rows into regions, runs, threads and edges, using the
 * pure statistics of stats.c -> workbook.c writes the XLSX, charts.c renders gnuplot charts,
 * flat.c prints the terminal summary; export.c writes the optional exports (trace, folded
 * stacks, callgrind, CSV, JSON), told of every row through the model's sink and building call
 * paths with cct.c (the Call paths sheet's too). main.c parses the command line and owns the
 * exit codes. With --baseline, a second model holds the baseline runs and compare.c sets both
 * side by side. Every output file is written through atomicfile.c (atomicfile.h).
 *
 * Ownership: a struct owns what its pointers point to unless a comment says otherwise, and its
 * _free/_release function frees it.
 */
#ifndef PROFREPORT_REPORT_H
#define PROFREPORT_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- exit codes (documented in profreport(1)) ---- */

enum exit_code {
    EXIT_OK = 0,       /* report written */
    EXIT_USAGE = 2,    /* bad command line */
    EXIT_NO_INPUT = 3, /* no readable run among the inputs */
    EXIT_OUTPUT = 4,   /* the workbook or chart images could not be written */
    EXIT_INTERNAL = 5  /* out of memory or another unexpected failure */
};

/* ---- util.c ---- */

/* "profreport: " + message on stderr (unless quiet for warn_msg). */
void die_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int util_quiet;

/* malloc/realloc/strdup that end the program with EXIT_INTERNAL when memory runs out. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* A copy of s[0..n) that is valid UTF-8: each invalid byte becomes U+FFFD. */
char *utf8_repair(const char *s, size_t n);

/*
 * A copy of s[0..n) fit to be shown anywhere text is displayed (workbook cells, charts,
 * document properties, gnuplot's SVG and PNG, the terminal, folded stacks and callgrind
 * names): valid UTF-8 that is also valid XML 1.0 text. Invalid bytes become U+FFFD; control
 * characters are written as C escapes (U+0001 -> \x01, ESC -> \x1b, DEL -> \x7f, tab -> \t,
 * line feed -> \n, carriage return -> \r), visible in any font, so different ids stay
 * different; the noncharacters U+FFFE and U+FFFF become U+FFFD. Tab, line feed and carriage
 * return are kept as they are unless one_line is set.
 */
char *text_visible(const char *s, size_t n, int one_line);

/*
 * How a region id is shown everywhere (workbook, terminal, charts, exports): the id itself,
 * or REGION_EMPTY for the empty id. The empty id stays a region of its own, apart from one
 * really named "(empty)" (regions are told apart by their bytes, not by how they are shown).
 * region_text gives the bytes to show (*len of them); region_display a repaired copy.
 */
#define REGION_EMPTY "(empty)"
const char *region_text(const char *s, size_t n, size_t *len);
char *region_display(const char *s, size_t n);

/* ---- runfile.c: one run file, streamed through libcsv (runfile.h) ---- */

#include "runfile.h"

/* ---- stats.c: pure statistics ---- */

/*
 * Distribution of per-call costs in nanoseconds: exact values while there are at most
 * STATS_EXACT of them, then a log-linear histogram over 1/16 ns units with STATS_SUB buckets
 * per power of two (bucket width 1/32 of its lower bound; a quantile read from it is the middle
 * of its bucket, within 1/64 = 1.6 % of the true value, or 1/32 ns below 4 ns). Memory is
 * bounded whatever the number of calls.
 */
#define STATS_EXACT 4096
#define STATS_SUB 32
#define STATS_BUCKETS (STATS_SUB * 61)

struct dist {
    uint64_t n;
    double sum, min, max;
    double shift, sd1, sd2; /* sums of (x - shift) and of its square: a stable variance */
    double *exact;          /* the values while exact mode lasts, else NULL */
    size_t nexact, exact_cap;
    int sorted;
    uint64_t *hist; /* STATS_BUCKETS counts once exact values overflowed or bins were added */
};

void dist_init(struct dist *d);
void dist_release(struct dist *d);
/* One call's cost. */
void dist_add(struct dist *d, double ns);
/*
 * Calls known only by their count, sum, sum of squares and extremes (a summary-mode row); their
 * histogram follows through dist_add_bin, which adds to quantiles only.
 */
void dist_add_moments(struct dist *d, uint64_t n, double sum, double sumsq, double min, double max);
/* count values in [lo, hi) for the quantiles, from a summary-mode histogram bucket. */
void dist_add_bin(struct dist *d, double lo, double hi, uint64_t count);
/* Merge src into d (same units). */
void dist_merge(struct dist *d, const struct dist *src);
/* Nonzero when quantiles come from the histogram rather than exact values. */
int dist_approximate(const struct dist *d);
double dist_mean(const struct dist *d);
/* Sample standard deviation (n - 1); NaN when n < 2. */
double dist_stddev(const struct dist *d);
/* Quantile q in [0,1], interpolating between order statistics as Excel's PERCENTILE.INC does;
   NaN when empty. Sorts the exact values on first use. */
double dist_quantile(struct dist *d, double q);

/* Mean, sample standard deviation and 95% confidence half-width (Student's t) of n values. */
struct spread {
    size_t n;
    double mean, stddev, cv, ci95, min, max;
};
struct spread spread_of(const double *v, size_t n);
/* Two-sided 97.5% quantile of Student's t with df degrees of freedom. */
double student_t975(size_t df);

/* ---- compare.c: baseline runs against new runs, region by region (pure) ---- */

/* xoshiro256** (Blackman and Vigna), seeded through splitmix64: the bootstrap's own generator,
   so a comparison is the same on every machine and libc for the same seed. */
struct compare_rng {
    uint64_t s[4];
};
void compare_rng_seed(struct compare_rng *g, uint64_t seed);
uint64_t compare_rng_next(struct compare_rng *g);
/* Uniform in [0, n) for n > 0, without modulo bias (Lemire's method). */
uint64_t compare_rng_below(struct compare_rng *g, uint64_t n);

/* A two-sided Mann-Whitney U test of a (baseline) against b (new). */
struct compare_mwu {
    double u;  /* U of b: pairs with b > a, plus half the pairs that tie */
    double p;  /* two-sided p-value; NaN when a side is empty */
    int exact; /* 1: exact distribution (no ties, few values); 0: normal approximation */
};
struct compare_mwu compare_mwu(const double *a, size_t na, const double *b, size_t nb);
/* The smallest two-sided p-value the exact test can give for na and nb values:
   2 / C(na + nb, na) (capped at 1). */
double compare_mwu_min_p(size_t na, size_t nb);
/* Benjamini-Hochberg adjusted p-values of p[0..n) into q (NaN stays NaN, not counted). */
void compare_bh(const double *p, size_t n, double *q);
/* Median of v[0..n) (v is not changed); NaN when n is 0. */
double compare_median(const double *v, size_t n);
/* Percentile bootstrap 95 % interval of median(b) / median(a) with `resamples` resamples
   drawn from g. Bounds are NaN when undefined (an empty side, or a zero baseline median in
   more than 2.5 % of the resamples on the low side). */
void compare_bootstrap(const double *a, size_t na, const double *b, size_t nb, unsigned resamples,
                       struct compare_rng *g, double *low, double *high);

enum compare_verdict {
    VERDICT_SAME,   /* no significant change */
    VERDICT_FASTER, /* significant and smaller by more than the noise threshold */
    VERDICT_SLOWER,
    VERDICT_ADDED,  /* in the new runs only */
    VERDICT_REMOVED /* in the baseline runs only */
};
/* "faster", "slower", "no significant change", "added", "removed". */
const char *compare_verdict_name(enum compare_verdict v);

/* One region of a comparison. Values are the region's total time per run (ns). */
struct compare_row {
    const char *display; /* the region's name, not owned (points into one of the models) */
    size_t base_runs;    /* baseline runs in which it ran */
    size_t new_runs;     /* new runs in which it ran */
    double *base, *new;  /* per-run totals: nbase and nnew values (0 where it did not run);
                            NULL for the side it is missing from */
    double base_median, new_median, base_mean, new_mean;
    double ratio;                 /* new_median / base_median */
    double ratio_low, ratio_high; /* bootstrap 95 % interval of the ratio */
    double change;                /* ratio - 1 */
    struct compare_mwu test;
    double q; /* Benjamini-Hochberg adjusted p */
    enum compare_verdict verdict;
};

/* What to compare with: the knobs of --noise, --seed. */
struct compare_options {
    double noise;       /* fraction: 0.01 = 1 % */
    double alpha;       /* significance level of the adjusted p (0.05) */
    uint64_t seed;      /* bootstrap seed */
    unsigned resamples; /* bootstrap resamples per region */
};
#define COMPARE_NOISE 0.01
#define COMPARE_ALPHA 0.05
#define COMPARE_SEED 1
#define COMPARE_RESAMPLES 5000
/* Runs per side the report recommends (below this the warning is shown). */
#define COMPARE_MIN_RUNS 5

/* A whole comparison. rows: regions on both sides, biggest change first (|log ratio|), then
   added, then removed regions, each group by time. */
struct comparison {
    struct compare_options opt;
    size_t nbase, nnew; /* runs per side */
    struct compare_row *rows;
    size_t nrows, nboth;
    size_t faster, slower, added, removed;
    double geomean;  /* geometric mean of the ratios over the regions on both sides */
    size_t ngeomean; /* regions in it (a ratio must be finite and positive) */
    double min_p;    /* compare_mwu_min_p(nbase, nnew) */
    char *warning;   /* too few runs for the test, or NULL */
    const struct model *base_model, *new_model; /* the two sides, not owned */
};

struct model;
/* Compare the regions of two models (excluded regions are left out). c owns its rows and
   their per-run values; region names point into the models, which must outlive c. */
void compare_build(const struct model *base, const struct model *new,
                   const struct compare_options *opt, struct comparison *c);
void compare_release(struct comparison *c);
/* Parse --noise: "1%", "0.5%" or a fraction "0.01". 0 on success, -1 when malformed. */
int compare_parse_noise(const char *s, double *noise);

/* ---- model.c: every run merged into regions, runs, threads, edges and warnings ---- */

/* One run file (or a killed run recovered from its parts). */
struct run_rec {
    char *file; /* as the user named it, UTF-8 repaired */
    char *program, *command, *host, *start, *clock, *pid, *mode;
    uint64_t frequency;
    double duration_ns; /* Duration record, else the latest region end seen */
    uint64_t events;    /* rows read (summary mode: calls) */
    unsigned threads;
    int complete;   /* Complete,yes (seed files: 1 unless truncated) */
    int has_memory; /* the run file has a memory section (memory checks were used) */
    int recovered;  /* rebuilt from .part files */
    enum run_kind kind;
};

/* One thread of one run. key groups threads of the same name across runs (Hit count). */
struct thread_rec {
    size_t run, key;
    unsigned number;
    char *tid, *name, *state;
    uint64_t events;
    double busy_ns; /* time in regions at depth 0 */
};

/* One region (all regions with the same id text, across threads and runs). */
struct region {
    char *name; /* raw bytes of the id */
    size_t len;
    char *display; /* valid UTF-8, for output */
    char *file;    /* source file (instrumented functions' Function records), or NULL */
    unsigned long line;
    int excluded;             /* by --include / --exclude */
    struct dist cost;         /* inclusive ns per call */
    double self_ns, outer_ns; /* outer: non-nested calls only (recursion counted once) */
    uint64_t unterminated;
    double *run_sum;     /* per run: ns over calls */
    double *run_outer;   /* per run: ns over non-nested calls (the run's share of Total) */
    uint64_t *run_calls; /* per run */
    size_t run_cap;
    double *key_sum, *key_self; /* per thread key */
    uint64_t *key_calls;
    size_t key_cap;
};

/* Caller -> callee, exact (from the Parent column). caller is SIZE_MAX for top-level calls. */
struct edge {
    size_t caller, callee;
    uint64_t calls;
    double total_ns, self_ns;
};

/* One row of a run's memory section (FORMAT.md 1.5), strings UTF-8 repaired. */
struct mem_rec {
    size_t run;
    char *kind, *region, *site, *alloc_kind, *free_kind, *other_site;
    unsigned thread, other_thread; /* 0: none */
    uint64_t count, bytes;
};

struct warning_rec {
    char *where; /* file, or file:line */
    char *kind;
    uint64_t count;
    char *message;
};

struct model;

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
                  const struct run_event *e, size_t region, double ns, double self_ns,
                  double start_ns);
    void (*summary)(void *ctx, const struct model *m, size_t run, const struct thread_rec *t,
                    const struct run_summary *s, double ns_per_tick);
    void (*run_end)(void *ctx, const struct model *m, size_t run, int kept);
};

struct model {
    const struct model_sink *sink; /* NULL, or told of every row (not owned) */
    struct region *regions;
    size_t nregions, regions_cap;
    size_t *region_table; /* open addressing: index + 1 */
    size_t region_mask;
    struct run_rec *runs;
    size_t nruns;
    struct thread_rec *threads;
    size_t nthreads;
    char **keys; /* thread key names */
    size_t nkeys;
    struct edge *edges;
    size_t nedges, edges_cap;
    size_t *edge_table;
    size_t edge_mask;
    struct warning_rec *warnings;
    size_t nwarnings;
    struct mem_rec *mem; /* memory sections of every run, in file order */
    size_t nmem, mem_cap;
    const char *const *include, *const *exclude; /* globs, not owned */
    size_t ninclude, nexclude;
    uint64_t events, skipped_rows;
    double self_total_ns; /* all regions, filtered or not: the base of "% time" */
    int any_summary, any_approximate;
};

void model_init(struct model *m);
void model_release(struct model *m);
/*
 * Read one run file into the model. name is shown in messages; recovered marks a run rebuilt
 * from .part files. Returns the parser's status; problems become warnings.
 */
enum run_status model_add_run(struct model *m, FILE *f, const char *name, int recovered);
/* Read one run into the model from read(src, ...), which feeds the model's run_handler: a run
   file's parser (model_add_run), or a killed run's parts (partfile.h). */
enum run_status model_read_run(struct model *m, const char *name, int recovered, run_reader read,
                               void *src);
/* Add a warning (copies the strings). */
void model_warn(struct model *m, const char *where, const char *kind, uint64_t count,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Region indexes sorted by total (outer) time, largest first, excluded ones left out. */
size_t *model_ranked(const struct model *m, size_t *n);
/* Mean cost per call of region r in run k (NaN when it did not run). */
double model_run_mean(const struct region *r, size_t k);
/* Time spent in top-level regions, all threads of all runs: the base of "Total %". */
double model_busy(const struct model *m);

/* The Call cost sheet's figures for one region: ns, fractions, NaN when undefined. */
struct cost_row {
    uint64_t calls, never;
    double total, total_share, self, self_share;
    double mean, median, stddev, min, max, p90, p99;
    size_t runs; /* runs where the region ran */
    double run_mean, run_stddev, run_cv, ci95, fastest, slowest;
    int approximate; /* percentiles from the histogram */
};
/* Fill *out for region r; busy is model_busy(m). */
void model_cost_row(struct model *m, size_t r, double busy, struct cost_row *out);

/* ---- cct.c: the calling-context tree, built while rows stream in ---- */

#define CCT_NONE UINT32_MAX

/*
 * One calling context: a region reached through one path of enclosing regions. calls counts
 * the instances that stopped, never those that did not (they add their children's time to
 * total_ns but nothing to self_ns). Times are nanoseconds. Nodes are linked by index.
 */
struct cct_node {
    uint32_t name;                   /* index into cct.names; CCT_NONE for the root */
    uint32_t parent, child, sibling; /* CCT_NONE when none */
    uint32_t hnext;                  /* next node in the same (parent, name) hash chain */
    uint64_t calls, never;
    double total_ns, self_ns;
};

/*
 * A forest of calling contexts under one root node (index cct.root, which holds no time).
 * Memory grows with the distinct call paths (and, while a thread's rows stream in, with the
 * distinct paths still waiting for their caller's row), never with rows. The tree owns the
 * interned names (raw bytes, NUL-ended) and the nodes.
 */
struct cct {
    struct cct_node *nodes;
    size_t nnodes, cap;
    uint32_t free_list; /* freed nodes, chained through sibling */
    uint32_t root;
    uint32_t *buckets; /* (parent, name) -> node chain heads */
    size_t bucket_mask, linked;
    char **names;
    size_t *name_lens;
    size_t nnames;
    uint32_t *name_table; /* name hash -> name index + 1 */
    size_t name_mask;
};

/*
 * One thread's rows on their way into the tree. Rows arrive in end order (FORMAT.md 1.3):
 * pending[d] is a placeholder node whose children are the merged subtrees at depth d still
 * waiting for their caller; a row at depth d adopts pending[d + 1].
 */
struct cct_stream {
    struct cct *tree;
    uint32_t under; /* where depth-0 rows go: the root, or a node chosen by the caller */
    uint32_t *pending;
    size_t npending; /* pending[0..npending) exist; pending[0] is under */
    size_t top;      /* no subtree waits at a depth above this */
};

/* Rows deeper than this are taken as depth-0 rows (a sane run never nests this deep). */
#define CCT_MAX_DEPTH (1u << 20)

void cct_init(struct cct *t);
void cct_release(struct cct *t);
/* The index of the name s[0..n), interned on first sight. */
uint32_t cct_intern(struct cct *t, const char *s, size_t n);
/* The child of parent named s[0..n), created (with no time) on first sight. */
uint32_t cct_child(struct cct *t, uint32_t parent, const char *s, size_t n);
/* Start a thread's rows; depth-0 rows become children of under (t->root for the forest). */
void cct_stream_begin(struct cct_stream *s, struct cct *t, uint32_t under);
/*
 * One row: region s[0..n) at depth, with inclusive and self ns; stopped 0 for an instance
 * that never stopped (its times are ignored).
 */
void cct_stream_row(struct cct_stream *s, const char *name, size_t n, unsigned depth, int stopped,
                    double total_ns, double self_ns);
/* cct_stream_row for a name already interned (its index from cct_intern). */
void cct_stream_row_interned(struct cct_stream *s, uint32_t id, unsigned depth, int stopped,
                             double total_ns, double self_ns);
/* End the thread: subtrees whose caller's row never came become children of under. */
void cct_stream_end(struct cct_stream *s);
/* Account calls and times to the child of parent named s[0..n) (summary-mode and seed rows). */
void cct_add(struct cct *t, uint32_t parent, const char *name, size_t n, uint64_t calls,
             double total_ns, double self_ns);

/*
 * Visit the nodes below from (not from itself) depth first, siblings in byte order of their
 * names. pre is called before a node's children, post after them; path[0..len) holds the
 * node indexes from the first level below from down to the node. Either may be NULL.
 */
/* The children of node in byte order of their names; *n of them; the caller frees it. */
uint32_t *cct_sorted_children(const struct cct *t, uint32_t node, size_t *n);
typedef void (*cct_visit)(void *ctx, const struct cct *t, const uint32_t *path, size_t len);
void cct_walk(const struct cct *t, uint32_t from, cct_visit pre, cct_visit post, void *ctx);

/* ---- input.c: which files to read ---- */

/* One run to read: a run file, or the .part files of a killed run. */
struct input {
    char *path;    /* the run file, or NULL for parts */
    char *display; /* name shown in messages and the Runs sheet */
    char **parts;  /* parts of a killed run */
    size_t nparts;
    int stream; /* a pipe named on the command line: read as it comes (other inputs that are
                   not regular files are skipped with a warning) */
};

/*
 * The runs named by the command line's paths: files as given, folders' run files (*.csv, not
 * hidden) and killed runs' parts (grouped by run, skipped when the run file exists), sorted by
 * name. Unreadable paths, and files that are neither regular files nor (named on the command
 * line) pipes, become warnings in m. Returns the number of inputs (*out owns them).
 */
size_t inputs_collect(const char *const *paths, size_t npaths, struct input **out, struct model *m);
void inputs_free(struct input *in, size_t n);
/* A run file input's descriptor, open for reading; -1 (with a warning in m) when it cannot
   be opened or is not a regular file (or a named pipe). */
int input_open(const struct input *in, struct model *m);
/* Read one input into the model (recovering parts through prof_recover). */
enum run_status input_read(const struct input *in, struct model *m);

/* ---- workbook.c / flat.c: the outputs ---- */

/* A time unit for a column: its name and how many ns make one. */
struct unit {
    const char *name;
    double ns;
};

/* The unit for values around typical_ns (auto), or the forced one ("s", "ms", "us", "ns"). */
struct unit unit_for(double typical_ns, const char *forced);

/* What the outputs need besides the model. */
struct report_info {
    const char *title;
    const char *command_line;
    const char *generated; /* local time the report was made */
    const char *unit;      /* --unit: "auto", "s", "ms", "us" or "ns" */
    size_t top;            /* regions in charts and the terminal summary */
    size_t ninputs;
    const char *const *images; /* chart PNGs to embed; must exist until workbook_write returns */
    const char *const *image_titles;
    size_t nimages;
    const char *charts_note;          /* why there are no gnuplot charts, or NULL */
    const struct comparison *compare; /* --baseline: the Comparison sheets; NULL otherwise */
    const struct cct *paths;          /* the calling-context tree, or NULL */
};

/* Write the workbook to path (the caller renames it into place). 0, or -1 with *why set. */
int workbook_write(const char *path, struct model *m, const struct report_info *ri,
                   const char **why);
/* The terminal's flat profile of the top regions, on out. */
void flat_print(FILE *out, struct model *m, const struct report_info *ri);
/* The terminal's account of a comparison: the regions that changed significantly. */
void flat_print_compare(FILE *out, const struct comparison *c, const struct report_info *ri);

/* ---- export.c: trace, folded stacks, callgrind, CSV and JSON exports ---- */

/* A growable string (always NUL-ended once anything was added). */
struct sbuf {
    char *s;
    size_t len, cap;
};
void sbuf_add(struct sbuf *b, const char *s, size_t n);
void sbuf_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_release(struct sbuf *b);

/* One CSV text field: a leading = + - @ TAB or CR gets a ' (OWASP), then RFC 4180 quoting. */
void export_csv_text(struct sbuf *b, const char *s);
/* s[0..n) as a JSON string literal: invalid UTF-8 repaired, quotes and controls escaped. */
void export_json_text(struct sbuf *b, const char *s, size_t n);
/* s[0..n) as one frame of a folded stack: repaired, ';' -> ':', control characters -> ' '. */
void export_folded_frame(struct sbuf *b, const char *s, size_t n);
/* s[0..n) as a callgrind function name: repaired, control characters -> ' '. */
void export_callgrind_name(struct sbuf *b, const char *s, size_t n);

/*
 * One Chrome trace event, with the comma that separates it from the previous one unless
 * first: a complete ("X") event, or a begin ("B") event for an instance that never stopped.
 * name_json is the name as a JSON literal; times in ns (written in microseconds).
 */
void export_trace_event(struct sbuf *b, int first, const char *name_json, size_t pid, unsigned tid,
                        double start_ns, int stopped, double dur_ns, double self_ns, unsigned depth,
                        int nested);

/* The folded stacks of every path with self time: "a;b;c <self ns>" lines. 0, or -1. */
int export_folded_write(FILE *f, const struct cct *t);
/* The tree in callgrind format (events: ns); cmd names the profiled command. 0, or -1. */
int export_callgrind_write(FILE *f, const struct cct *t, const char *cmd, size_t nruns);

/* The statistics tables written by --csv (one file each) and --json (one member each). */
enum export_table { TABLE_CALLCOST, TABLE_CALLTREE, TABLE_RUNS, TABLE_THREADS, TABLE_COUNT };
extern const char *const export_table_names[TABLE_COUNT]; /* "callcost", ... */
/* One table as CSV (header line first). 0, or -1 on a write error. */
int export_csv_write(FILE *f, struct model *m, enum export_table which);
/* Every table as one JSON object. 0, or -1 on a write error. */
int export_json_write(FILE *f, struct model *m, const char *command_line);

/* What the command line asked for; NULL: not wanted. */
struct export_options {
    const char *trace, *folded, *callgrind, *csv_dir, *json;
    const char *command_line; /* for the exports' metadata */
};

/*
 * The exports of one report. exports_open creates their temporary files (so an unwritable
 * place fails before any work) and attaches the row sink to m; exports_write fills them
 * after reading; exports_commit renames them into place; exports_free removes what was not
 * committed. Errors: -1 (or NULL) with a message in why[0..whylen).
 */
struct exports;
/* The calling-context tree of every row read so far (built whether or not an export needs it;
   complete once the last run is read). */
const struct cct *exports_paths(struct exports *x);
struct exports *exports_open(const struct export_options *o, struct model *m, char *why,
                             size_t whylen);
int exports_write(struct exports *x, struct model *m, char *why, size_t whylen);
int exports_commit(struct exports *x, char *why, size_t whylen);
/* "trace:    FILE" lines for the terminal, one per export written. */
void exports_print(const struct exports *x, FILE *out);
void exports_free(struct exports *x);

/* ---- charts.c: gnuplot charts ---- */

/*
 * The data of one chart: nrows rows of a label and ncols numbers. Labels are untrusted (region
 * ids): they reach gnuplot only inside the data file, never in script text. A NaN value is
 * written as missing data. Rows may be split into blocks (gnuplot's index / blank lines).
 */
struct chart_table {
    size_t nrows, ncols;
    const char *const *labels;  /* nrows labels */
    const double *values;       /* nrows * ncols, row by row */
    const char *const *columns; /* ncols column names (trusted: ours), for the header line */
    const size_t *block_ends;   /* nblocks exclusive ends ({3, 6}: rows 0-2, 3-5; the last
                                   equals nrows); NULL: one block */
    size_t nblocks;
};

/* One chart to render with a template (docs/TEMPLATES.md describes each template's data). */
struct chart_request {
    const char *template_name; /* e.g. "callcost" -> <templates_dir>/callcost.gp */
    const char *output_base;   /* path without extension: .png and .svg are written */
    const char *title;         /* trusted: ours or the user's --title */
    const char *ylabel;        /* trusted */
    const struct chart_table *data;
};

struct chart_env {
    const char *templates_dir; /* where <name>.gp live */
    const char *gnuplot;       /* the gnuplot program; NULL: "gnuplot" from PATH */
    const char *work_dir;      /* where data files are written (a private temporary folder) */
    int timeout_s;             /* gnuplot is killed after this long */
};

/* Nonzero when gnuplot can be run; otherwise 0 and *why says why (static storage). */
int chart_available(const struct chart_env *env, const char **why);

/*
 * Render one chart as output_base.png and output_base.svg. Returns 0, or -1 with *why set
 * (static storage) when the data file cannot be written or gnuplot fails or times out.
 */
int chart_render(const struct chart_env *env, const struct chart_request *req, const char **why);

#endif /* PROFREPORT_REPORT_H */
