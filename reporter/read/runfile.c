/*
 * runfile.c - stream one run file (docs/FORMAT.md sections 1 and 2) through libcsv and hand its
 * metadata and rows to a run_handler, naming the line of every malformed record.
 */
#define _GNU_SOURCE /* memrchr, strtod_l */
#include "read/runfile.h"
#include "read/plainsplit.h"
#include "read/rowscan.h"
#include "base/util.h"

#include "format.h"
#include "hist.h"

#include <csv.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Bytes read per fread: large enough that the per-call costs vanish. */
#define RUNFILE_BLOCK (64 * 1024)

/* libcsv's options, the ones plain_split reproduces for quote-free lines. */
#define RUNFILE_CSV_OPTS PLAIN_CSV_OPTS

/* Where the parser is in the file. */
enum runfile_state {
    ST_FREQUENCY, /* expecting the Frequency record */
    ST_FORMAT,    /* expecting Format, or else the first seed row */
    ST_META,      /* metadata, up to the Region header */
    ST_ROWS,      /* the table */
    ST_MEM_HEAD,  /* after Table,memory (sections: version 2 on), expecting its header */
    ST_MEM_ROWS,  /* the memory section's rows */
    ST_SUM_HEAD,  /* after Table,summary (an events run past PROFILER_MAX_EVENTS): its header */
    ST_SUM_ROWS,  /* the summary section's rows */
    ST_IGNORE     /* a section this reader does not know: its records are skipped */
};

/* The columns, their names and the memory section's values are format.h's. */
static const char *const *const event_header = prof_event_columns;
static const char *const *const summary_header = prof_summary_columns;
static const char *const *const memory_header = prof_memory_columns;

/* The state of one runfile_parse call; callbacks from libcsv reach it through their data. */
struct runfile {
    struct csv_parser csv;
    const struct run_handler *h;
    const struct runfile_tuning *tune;
    enum runfile_state state;
    enum run_kind kind;
    int mode_known;   /* a Mode record was read (kind holds it) */
    unsigned version; /* of the Format record: PROF_RUN_VERSION_MIN to PROF_RUN_VERSION */
    size_t ncols;     /* fields per table row: the header's count */
    uint64_t frequency;

    /* The record being assembled: field i is fptr[i], flen[i] bytes and a NUL. libcsv reuses
       its field buffer, so its fields are copied into rbuf (at foff[i]; fptr is set when the
       record ends, as rbuf may move until then); plain_split's stay in the read buffer, their
       NUL written over the comma or line end after them (copied is 0). */
    char *rbuf;
    size_t rlen, rcap;
    size_t *foff, *flen;
    const char **fptr;
    size_t nf, fcap;
    int copied;

    /* Line counting: line is the physical line libcsv is reading; rec_line is where the
       record being assembled (or the next one) starts. saw_nl says that libcsv reported the
       line end of the piece just fed, i.e. it was outside quotes. */
    unsigned long line, rec_line;
    int saw_nl;
    int clean;     /* libcsv is between records at a line start: lines may go in at once */
    int skip_line; /* skip to the next line end: libcsv failed on a line cut by a block end */

    /* Histogram pairs of the current summary row, reused from row to row. */
    uint32_t *hist_bucket;
    uint64_t *hist_count;
    size_t hist_cap;

    locale_t c_locale; /* SumSquares is read in the C locale whatever LC_NUMERIC says */

    /* Version 3 summary rows (the table, or a section, which numbers its nodes afresh): the
       thread whose rows are being read, the Node its next row must have, the nodes of it
       handed on (increasing, so found by bisection: a row whose parent was skipped is skipped
       too), and the threads whose rows are over (a thread's rows are contiguous). */
    int path_open;
    uint32_t path_thread;
    uint64_t path_next;
    uint32_t *path_nodes;
    size_t path_n, path_cap;
    uint32_t *path_done; /* sorted */
    size_t path_ndone, path_done_cap;

    int stop; /* the outcome is decided: ignore further callbacks */
    enum run_status status;
    struct rep_error *why; /* the reason of RUNFILE_SKIPPED or RUNFILE_IO_ERROR */
    unsigned long why_line;
};

/* Reasons are cut to this length, as they always were (a line of the Warnings sheet). */
#define WHY_MAX 256

/* The space function for libcsv: no byte is a space, so unquoted fields keep every byte. */
static int no_space(unsigned char c)
{
    (void)c;
    return 0;
}

/* Write s[0..n) in double quotes for a message, escaping control bytes and cutting long values. */
static const char *show(char *out, size_t cap, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, limit = 40;
    out[o++] = '"';
    for (size_t i = 0; i < n && o + 8 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i == limit) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        } else {
            out[o++] = (char)c;
        }
    }
    out[o++] = '"';
    out[o] = 0;
    return out;
}

/* Tell the handler about a problem at a line, formatted like printf. */
__attribute__((format(printf, 3, 4))) static void problem(struct runfile *r, unsigned long line,
                                                          const char *fmt, ...)
{
    if (!r->h->problem)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->h->problem(r->h->ctx, line, msg);
}

/* Stop reading with status st (RUNFILE_SKIPPED or RUNFILE_IO_ERROR) because of reason, which
   concerns line. */
static void give_up(struct runfile *r, enum run_status st, unsigned long line, const char *reason)
{
    rep_fail(r->why, REP_ERR_NO_INPUT, "%s", reason);
    r->status = st;
    r->why_line = line;
    r->stop = 1;
}

/* Give up on the file as not readable by us, for the formatted reason. */
__attribute__((format(printf, 3, 4))) static void skip(struct runfile *r, unsigned long line,
                                                       const char *fmt, ...)
{
    char reason[WHY_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    give_up(r, RUNFILE_SKIPPED, line, reason);
}

/* Field i of the current record equals the NUL-terminated word w. */
static int field_is(const struct runfile *r, size_t i, const char *w)
{
    size_t n = strlen(w);
    return r->flen[i] == n && memcmp(r->fptr[i], w, n) == 0;
}

/* Results of parse_u64. */
enum { NUM_OK, NUM_EMPTY, NUM_BAD, NUM_BIG };

/* Read s[0..n) as a decimal uint64: digits only, no sign, no spaces, no overflow. */
static int parse_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0)
        return NUM_EMPTY;
    /* 19 digits always fit, so only longer numbers need the overflow test. */
    uint64_t v = 0;
    size_t i = 0;
    /* The first 8 digits of a long number (a start time) at once, as the digits of one word:
       each byte less '0' must be at most 9; then pairs, quads and octets are combined by three
       multiplies (little-endian: the first digit is the lowest byte). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        w -= 0x3030303030303030ull;
        if (((w + 0x7676767676767676ull) | w) & 0x8080808080808080ull)
            return NUM_BAD;
        w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffull;
        w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffull;
        v = (w * 10000 + (w >> 32)) & 0xffffffffull;
        i = 8;
    }
#endif
    for (size_t short_n = n < 19 ? n : 19; i < short_n; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9)
            return NUM_BAD;
        v = v * 10 + d;
    }
    int over = 0;
    for (; i < n; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9)
            return NUM_BAD;
        over |= __builtin_mul_overflow(v, 10, &v);
        over |= __builtin_add_overflow(v, d, &v);
    }
    if (over)
        return NUM_BIG;
    *out = v;
    return NUM_OK;
}

/* Report why field i (column col) is not a number, for a parse_u64 result. */
static void report_number(struct runfile *r, size_t i, const char *col, int res)
{
    char v[96];
    if (res == NUM_EMPTY)
        problem(r, r->rec_line, "column %s is empty", col);
    else if (res == NUM_BIG)
        problem(r, r->rec_line, "column %s: %s is too large", col,
                show(v, sizeof v, r->fptr[i], r->flen[i]));
    else
        problem(r, r->rec_line, "column %s: %s is not a number", col,
                show(v, sizeof v, r->fptr[i], r->flen[i]));
}

/* Field i as a uint64 for column col; reports and returns -1 when it is not one. */
static int field_u64(struct runfile *r, size_t i, const char *col, uint64_t *out)
{
    int res = parse_u64(r->fptr[i], r->flen[i], out);
    if (res == NUM_OK)
        return 0;
    report_number(r, i, col, res);
    return -1;
}

/* Field i as an unsigned int for column col; reports and returns -1 when it is not one. */
static int field_uint(struct runfile *r, size_t i, const char *col, unsigned *out)
{
    uint64_t v;
    int res = parse_u64(r->fptr[i], r->flen[i], &v);
    if (res == NUM_OK && v > UINT_MAX)
        res = NUM_BIG;
    if (res != NUM_OK) {
        report_number(r, i, col, res);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

/* The record has the row's number of fields; otherwise it is reported. */
static int check_field_count(struct runfile *r, size_t want)
{
    if (r->nf == want)
        return 0;
    problem(r, r->rec_line, "expected %zu fields, found %zu", want, r->nf);
    return -1;
}

/* Handle one id,delta row of the seed form. */
static void seed_row(struct runfile *r)
{
    struct prof_event_rec e = {0};
    if (check_field_count(r, 2) != 0)
        return;
    e.region = r->fptr[0];
    e.region_len = r->flen[0];
    e.parent = "";
    if (r->flen[1] != 0) {
        if (field_u64(r, 1, "delta", &e.ticks) != 0)
            return;
        e.stopped = 1;
    }
    if (r->h->event)
        r->h->event(r->h->ctx, &e);
}

/* Handle one row of an events table (FORMAT.md 1.3). */
static void event_row(struct runfile *r)
{
    struct prof_event_rec e = {0};
    if (check_field_count(r, r->ncols) != 0)
        return;
    const char *const *col = event_header;
    e.region = r->fptr[PROF_EV_REGION];
    e.region_len = r->flen[PROF_EV_REGION];
    int has_self = r->flen[PROF_EV_SELF] != 0;
    e.stopped = r->flen[PROF_EV_TICKS] != 0;
    if (e.stopped && field_u64(r, PROF_EV_TICKS, col[PROF_EV_TICKS], &e.ticks) != 0)
        return;
    if (field_uint(r, PROF_EV_THREAD, col[PROF_EV_THREAD], &e.thread) != 0)
        return;
    e.parent = r->fptr[PROF_EV_PARENT];
    e.parent_len = r->flen[PROF_EV_PARENT];
    if (field_uint(r, PROF_EV_DEPTH, col[PROF_EV_DEPTH], &e.depth) != 0)
        return;
    /* Self is empty exactly when Ticks is: the region never stopped. */
    if (has_self && !e.stopped) {
        char v[96];
        problem(r, r->rec_line, "column Self: %s but Ticks is empty",
                show(v, sizeof v, r->fptr[PROF_EV_SELF], r->flen[PROF_EV_SELF]));
        return;
    }
    if (!has_self && e.stopped) {
        problem(r, r->rec_line, "column Self is empty but Ticks is not");
        return;
    }
    if (has_self && field_u64(r, PROF_EV_SELF, col[PROF_EV_SELF], &e.self) != 0)
        return;
    if (field_u64(r, PROF_EV_START, col[PROF_EV_START], &e.start) != 0)
        return;
    if (field_is(r, PROF_EV_NESTED, "0") || field_is(r, PROF_EV_NESTED, "1")) {
        e.nested = r->fptr[PROF_EV_NESTED][0] == '1';
    } else {
        char v[96];
        problem(r, r->rec_line, "column Nested: %s is not 0 or 1",
                show(v, sizeof v, r->fptr[PROF_EV_NESTED], r->flen[PROF_EV_NESTED]));
        return;
    }
    if (r->h->event)
        r->h->event(r->h->ctx, &e);
}

/* Read SumSquares: a finite, non-negative decimal number with nothing after it. */
static int field_sumsq(struct runfile *r, size_t i, double *out)
{
    const char *s = r->fptr[i];
    size_t n = r->flen[i];
    char v[96];
    if (n == 0) {
        problem(r, r->rec_line, "column SumSquares is empty");
        return -1;
    }
    /* strtod would skip spaces and take a sign, "inf", "nan" or hexadecimal: none of them
       belongs in a sum of squares written with %.17g. */
    char *end = NULL;
    double d = 0;
    int hex = n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (((s[0] >= '0' && s[0] <= '9') || s[0] == '.') && !hex)
        d = strtod_l(s, &end, r->c_locale);
    if (end != s + n || !isfinite(d)) {
        problem(r, r->rec_line, "column SumSquares: %s is not a finite non-negative number",
                show(v, sizeof v, s, n));
        return -1;
    }
    *out = d;
    return 0;
}

/* Read the Histogram field: bucket:count pairs joined by ';' into the reusable arrays. */
static int field_hist(struct runfile *r, size_t i, size_t *nhist)
{
    const char *s = r->fptr[i], *end = s + r->flen[i];
    char v[96];
    size_t n = 0;
    while (s < end) {
        const char *semi = memchr(s, ';', (size_t)(end - s));
        const char *pe = semi ? semi : end;
        const char *colon = memchr(s, ':', (size_t)(pe - s));
        uint64_t bucket, count;
        if (!colon || parse_u64(s, (size_t)(colon - s), &bucket) != NUM_OK ||
            parse_u64(colon + 1, (size_t)(pe - colon - 1), &count) != NUM_OK) {
            problem(r, r->rec_line, "column Histogram: %s is not a bucket:count pair",
                    show(v, sizeof v, s, (size_t)(pe - s)));
            return -1;
        }
        if (bucket >= PROF_HIST_BUCKETS) {
            problem(r, r->rec_line, "column Histogram: bucket %s is out of range (0-%d)",
                    show(v, sizeof v, s, (size_t)(colon - s)), PROF_HIST_BUCKETS - 1);
            return -1;
        }
        if (n == r->hist_cap) {
            r->hist_cap = r->hist_cap ? 2 * r->hist_cap : 64;
            r->hist_bucket = xrealloc(r->hist_bucket, r->hist_cap * sizeof *r->hist_bucket);
            r->hist_count = xrealloc(r->hist_count, r->hist_cap * sizeof *r->hist_count);
        }
        r->hist_bucket[n] = (uint32_t)bucket;
        r->hist_count[n] = count;
        n++;
        if (!semi)
            break;
        s = semi + 1;
        if (s == end) { /* a trailing ';' leaves an empty pair */
            problem(r, r->rec_line, "column Histogram: empty bucket:count pair at the end");
            return -1;
        }
    }
    *nhist = n;
    return 0;
}

/* The columns a summary header must start with in this file's version: Node and Parent from
   version 3 on (FORMAT.md 1.4). */
static size_t summary_columns(const struct runfile *r)
{
    return r->version >= PROF_RUN_VERSION_TIMING  ? PROF_SU_N
           : r->version >= PROF_RUN_VERSION_PATHS ? PROF_SU_N_PATHS
                                                  : PROF_SU_N_FLAT;
}

/* A new table of summary rows starts (the summary section numbers its nodes afresh). */
static void path_reset(struct runfile *r)
{
    r->path_open = 0;
    r->path_n = 0;
    r->path_ndone = 0;
}

/* Where thread n is, or would go, in the sorted path_done. */
static size_t done_slot(const struct runfile *r, uint32_t n)
{
    return u32_lower_bound(r->path_done, r->path_ndone, n);
}

/* Whether node is one of the current thread's nodes handed on (path_nodes increases). */
static int path_has(const struct runfile *r, uint32_t node)
{
    size_t at = u32_lower_bound(r->path_nodes, r->path_n, node);
    return at < r->path_n && r->path_nodes[at] == node;
}

/*
 * Place a version 3 row in its thread's calling-context tree (FORMAT.md 1.4): its Node follows
 * the thread's previous row's, its Parent is 0 or an earlier node of the thread that was read,
 * and the thread's rows are not interleaved with another's. Reports and returns -1 when the row
 * does not fit, so that a handler only ever sees a row under a parent it was given. A row
 * out of sequence is skipped and the next one is checked against it, so one duplicated or
 * missing row is one problem, not one per row after it.
 */
static int summary_path(struct runfile *r, struct prof_summary_rec *s)
{
    const char *const *col = summary_header;
    if (!r->path_open || s->thread != r->path_thread) {
        size_t k = done_slot(r, s->thread);
        if (k < r->path_ndone && r->path_done[k] == s->thread) {
            problem(r, r->rec_line,
                    "thread %u: its rows are not together (rows of thread %u came between)",
                    s->thread, r->path_thread);
            return -1;
        }
        if (r->path_open) {
            /* The thread being read is over: remember it, sorted. */
            size_t at = done_slot(r, r->path_thread);
            r->path_done =
                xgrow_zeroed(r->path_done, &r->path_done_cap, r->path_ndone, sizeof *r->path_done);
            memmove(r->path_done + at + 1, r->path_done + at,
                    (r->path_ndone - at) * sizeof *r->path_done);
            r->path_done[at] = r->path_thread;
            r->path_ndone++;
        }
        r->path_open = 1;
        r->path_thread = s->thread;
        r->path_next = 1;
        r->path_n = 0;
    }
    uint64_t want = r->path_next++;
    if (field_uint(r, PROF_SU_NODE, col[PROF_SU_NODE], &s->node) != 0)
        return -1;
    r->path_next = (uint64_t)s->node + 1;
    if (s->node != want) {
        problem(r, r->rec_line,
                "column Node: %u, expected %llu (a thread's nodes are 1, 2, 3, ... in row order)",
                s->node, (unsigned long long)want);
        return -1;
    }
    if (field_uint(r, PROF_SU_PARENT, col[PROF_SU_PARENT], &s->parent) != 0)
        return -1;
    if (s->parent >= s->node) {
        problem(r, r->rec_line, "column Parent: %u is not below Node %u", s->parent, s->node);
        return -1;
    }
    if (s->parent != 0 && !path_has(r, s->parent)) {
        problem(r, r->rec_line, "column Parent: node %u of thread %u was skipped", s->parent,
                s->thread);
        return -1;
    }
    return 0;
}

/* Handle one row of a summary table (FORMAT.md 1.4), or of the summary section (1.6). */
static void summary_row(struct runfile *r)
{
    struct prof_summary_rec s = {0};
    const char *const *col = summary_header;
    if (check_field_count(r, r->ncols) != 0)
        return;
    s.region = r->fptr[PROF_SU_REGION];
    s.region_len = r->flen[PROF_SU_REGION];
    if (field_uint(r, PROF_SU_THREAD, col[PROF_SU_THREAD], &s.thread) != 0)
        return;
    int paths = r->version >= PROF_RUN_VERSION_PATHS;
    if (paths && summary_path(r, &s) != 0)
        return;
    if (field_u64(r, PROF_SU_CALLS, col[PROF_SU_CALLS], &s.calls) != 0 ||
        field_u64(r, PROF_SU_TICKS, col[PROF_SU_TICKS], &s.ticks) != 0 ||
        field_u64(r, PROF_SU_SELF, col[PROF_SU_SELF], &s.self) != 0 ||
        field_u64(r, PROF_SU_MIN, col[PROF_SU_MIN], &s.min) != 0 ||
        field_u64(r, PROF_SU_MAX, col[PROF_SU_MAX], &s.max) != 0 ||
        field_sumsq(r, PROF_SU_SUMSQ, &s.sumsq) != 0 ||
        field_u64(r, PROF_SU_OUTER, col[PROF_SU_OUTER], &s.outer) != 0 ||
        field_hist(r, PROF_SU_HIST, &s.nhist) != 0)
        return;
    s.timed = s.calls; /* before version 4 every call was timed */
    s.wall = s.ticks;
    if (r->version >= PROF_RUN_VERSION_TIMING &&
        (field_u64(r, PROF_SU_SAMPLES, col[PROF_SU_SAMPLES], &s.samples) != 0 ||
         field_u64(r, PROF_SU_TIMED, col[PROF_SU_TIMED], &s.timed) != 0 ||
         field_u64(r, PROF_SU_WALL, col[PROF_SU_WALL], &s.wall) != 0))
        return;
    s.hist_bucket = r->hist_bucket;
    s.hist_count = r->hist_count;
    if (paths) {
        r->path_nodes = xgrow_zeroed(r->path_nodes, &r->path_cap, r->path_n, sizeof *r->path_nodes);
        r->path_nodes[r->path_n++] = s.node;
    }
    if (r->h->summary)
        r->h->summary(r->h->ctx, &s);
}

/* Field i is one of the n words; reports and returns -1 when it is not. */
static int field_word(struct runfile *r, size_t i, const char *col, const char *const *words,
                      size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (field_is(r, i, words[k]))
            return 0;
    char v[96];
    problem(r, r->rec_line, "column %s: %s is not a known value", col,
            show(v, sizeof v, r->fptr[i], r->flen[i]));
    return -1;
}

/* Field i as an optional thread number: 0 when empty. */
static int field_thread(struct runfile *r, size_t i, const char *col, unsigned *out)
{
    *out = 0;
    return r->flen[i] == 0 ? 0 : field_uint(r, i, col, out);
}

/* Handle one row of the memory section (FORMAT.md 1.5). */
static void memory_row(struct runfile *r)
{
    struct run_memory m = {0};
    const char *const *col = memory_header;
    if (check_field_count(r, r->ncols) != 0)
        return;
    if (field_word(r, PROF_ME_KIND, col[PROF_ME_KIND], prof_memory_kinds, PROF_MK_N) != 0 ||
        field_thread(r, PROF_ME_THREAD, col[PROF_ME_THREAD], &m.thread) != 0 ||
        field_u64(r, PROF_ME_COUNT, col[PROF_ME_COUNT], &m.count) != 0 ||
        field_u64(r, PROF_ME_BYTES, col[PROF_ME_BYTES], &m.bytes) != 0 ||
        field_word(r, PROF_ME_ALLOC, col[PROF_ME_ALLOC], prof_alloc_kinds, PROF_MEM_KIND_NAMES) !=
            0 ||
        field_word(r, PROF_ME_FREE, col[PROF_ME_FREE], prof_free_kinds, PROF_MEM_KIND_NAMES) != 0 ||
        field_thread(r, PROF_ME_OTHER_THREAD, col[PROF_ME_OTHER_THREAD], &m.other_thread) != 0)
        return;
    m.kind = r->fptr[PROF_ME_KIND];
    m.region = r->fptr[PROF_ME_REGION];
    m.region_len = r->flen[PROF_ME_REGION];
    m.site = r->fptr[PROF_ME_SITE];
    m.site_len = r->flen[PROF_ME_SITE];
    m.alloc_kind = r->fptr[PROF_ME_ALLOC];
    m.free_kind = r->fptr[PROF_ME_FREE];
    m.other_site = r->fptr[PROF_ME_OTHER_SITE];
    m.other_site_len = r->flen[PROF_ME_OTHER_SITE];
    /* Function and Stack came later: a section without them reads as empty ones. */
    m.function = m.stack = "";
    if (r->ncols > PROF_ME_STACK) {
        m.function = r->fptr[PROF_ME_FUNCTION];
        m.function_len = r->flen[PROF_ME_FUNCTION];
        m.stack = r->fptr[PROF_ME_STACK];
        m.stack_len = r->flen[PROF_ME_STACK];
    }
    if (r->h->memory)
        r->h->memory(r->h->ctx, &m);
}

/* A section's header (1.5, 1.6): the columns names[0..n), extra trailing ones allowed. On a
   mismatch the section is skipped; header and section name them in the problem. */
static void section_header_record(struct runfile *r, const char *const *names, size_t n,
                                  const char *header, const char *section, int rows)
{
    char v[96];
    for (size_t i = 0; i < n; i++) {
        if (i >= r->nf || !field_is(r, i, names[i])) {
            problem(r, r->rec_line, "column %zu of %s is %s, expected %s: %s skipped", i + 1,
                    header, i < r->nf ? show(v, sizeof v, r->fptr[i], r->flen[i]) : "missing",
                    names[i], section);
            r->state = ST_IGNORE;
            return;
        }
    }
    r->ncols = r->nf;
    r->state = rows;
}

/* Version 2: a Table record ends the table and starts a section. */
static int section_record(struct runfile *r)
{
    if (r->version < PROF_RUN_VERSION_SECTIONS || r->nf != 2 || !field_is(r, 0, "Table"))
        return 0;
    char v[96];
    if (field_is(r, 1, PROF_MEMORY_SECTION) && r->state == ST_ROWS) {
        r->state = ST_MEM_HEAD;
    } else if (field_is(r, 1, PROF_SUMMARY_SECTION) && r->kind == RUN_EVENTS &&
               (r->state == ST_ROWS || r->state == ST_MEM_ROWS)) {
        r->state = ST_SUM_HEAD;
        path_reset(r);
    } else {
        problem(r, r->rec_line, "unknown section %s: skipped",
                show(v, sizeof v, r->fptr[1], r->flen[1]));
        r->state = ST_IGNORE;
    }
    return 1;
}

/* Check the Region header against the table's columns; extra trailing columns are allowed. */
static void table_header(struct runfile *r)
{
    const char *const *want = r->kind == RUN_EVENTS ? event_header : summary_header;
    size_t nwant = r->kind == RUN_EVENTS ? PROF_EV_N : summary_columns(r);
    const char *mode = r->kind == RUN_EVENTS ? "events" : "summary";
    char v[96];
    for (size_t i = 0; i < nwant; i++) {
        if (i >= r->nf) {
            skip(r, r->rec_line, "the %s header lacks column %s (column %zu)", mode, want[i],
                 i + 1);
            return;
        }
        if (!field_is(r, i, want[i])) {
            skip(r, r->rec_line, "column %zu of the %s header is %s, expected %s", i + 1, mode,
                 show(v, sizeof v, r->fptr[i], r->flen[i]), want[i]);
            return;
        }
    }
    r->ncols = r->nf;
    r->state = ST_ROWS;
    if (r->h->begin)
        r->h->begin(r->h->ctx, r->kind, r->frequency);
    if (r->h->stop && r->h->stop(r->h->ctx))
        r->stop = 1;
}

/* Check a ThreadCpu record (FORMAT.md 1.2): a thread number and two times in ns. Reports and
   returns -1 when it is not one, so the handler never sees it. */
static int thread_cpu_record(struct runfile *r)
{
    unsigned thread;
    uint64_t ns;
    if (r->nf < PROF_THREAD_CPU_FIELDS) { /* a later version may add fields */
        problem(r, r->rec_line, "%s record: expected %d fields, found %zu", PROF_THREAD_CPU_RECORD,
                PROF_THREAD_CPU_FIELDS, r->nf);
        return -1;
    }
    if (field_uint(r, 1, PROF_THREAD_CPU_RECORD " thread", &thread) != 0 ||
        field_u64(r, 2, PROF_THREAD_CPU_RECORD " CPU", &ns) != 0 ||
        field_u64(r, 3, PROF_THREAD_CPU_RECORD " wall", &ns) != 0)
        return -1;
    return 0;
}

/* Handle one record before the table: Mode, the header, or metadata for the handler. */
static void meta_record(struct runfile *r)
{
    char v[96];
    if (field_is(r, 0, "Region")) {
        if (!r->mode_known)
            skip(r, r->rec_line, "no Mode record before the Region header");
        else
            table_header(r);
        return;
    }
    if (field_is(r, 0, "Mode")) {
        if (r->nf >= 2 && field_is(r, 1, "events")) {
            r->kind = RUN_EVENTS;
        } else if (r->nf >= 2 && field_is(r, 1, "summary")) {
            r->kind = RUN_SUMMARY;
        } else {
            skip(r, r->rec_line, "unknown Mode %s",
                 r->nf >= 2 ? show(v, sizeof v, r->fptr[1], r->flen[1]) : "(none)");
            return;
        }
        r->mode_known = 1;
    }
    /* The parser owns these two; repeating them is odd but harmless. */
    if (field_is(r, 0, "Frequency") || field_is(r, 0, "Format"))
        return;
    if (field_is(r, 0, PROF_THREAD_CPU_RECORD) && thread_cpu_record(r) != 0)
        return;
    if (r->h->meta)
        r->h->meta(r->h->ctx, r->fptr, r->flen, r->nf);
}

/* Handle the record after Frequency: Format starts version 1, anything else is a seed row. */
static void format_record(struct runfile *r)
{
    char v[96];
    /* A seed row has two fields, so a two-field "Format,..." record is a region named Format. */
    if (!field_is(r, 0, "Format") || r->nf < 3) {
        r->kind = RUN_SEED;
        r->state = ST_ROWS;
        if (r->h->begin)
            r->h->begin(r->h->ctx, RUN_SEED, r->frequency);
        if (r->h->stop && r->h->stop(r->h->ctx)) {
            r->stop = 1;
            return;
        }
        seed_row(r);
        return;
    }
    if (!field_is(r, 1, PROF_RUN_FORMAT)) {
        skip(r, r->rec_line, "not a run file (Format %s)",
             show(v, sizeof v, r->fptr[1], r->flen[1]));
        return;
    }
    uint64_t version;
    if (parse_u64(r->fptr[2], r->flen[2], &version) != NUM_OK) {
        skip(r, r->rec_line, "unknown format version %s",
             show(v, sizeof v, r->fptr[2], r->flen[2]));
        return;
    }
    if (version < PROF_RUN_VERSION_MIN || version > PROF_RUN_VERSION) {
        skip(r, r->rec_line, "unknown format version %llu", (unsigned long long)version);
        return;
    }
    r->version = (unsigned)version;
    r->state = ST_META;
}

/* Handle the first record, which must be Frequency,<positive integer>. */
static void frequency_record(struct runfile *r)
{
    char v[96];
    if (!field_is(r, 0, "Frequency") || r->nf < 2) {
        skip(r, r->rec_line, "no Frequency record");
        return;
    }
    uint64_t f;
    if (parse_u64(r->fptr[1], r->flen[1], &f) != NUM_OK || f == 0) {
        skip(r, r->rec_line, "Frequency %s is not a positive integer",
             show(v, sizeof v, r->fptr[1], r->flen[1]));
        return;
    }
    r->frequency = f;
    r->state = ST_FORMAT;
}

/* Dispatch a complete record; c is what ended it (-1: the end of the file). */
static void handle_record(struct runfile *r, int c)
{
    switch (r->state) {
    case ST_FREQUENCY:
        frequency_record(r);
        break;
    case ST_FORMAT:
        format_record(r);
        break;
    case ST_META:
        meta_record(r);
        break;
    case ST_ROWS:
    case ST_MEM_HEAD:
    case ST_MEM_ROWS:
    case ST_SUM_HEAD:
    case ST_SUM_ROWS:
    case ST_IGNORE:
        /* The collector ends every record with a line end: a row without one was cut short
           and its last number may be too. A hand-made seed file may just lack the last one. */
        if (c == -1 && r->kind != RUN_SEED) {
            problem(r, r->rec_line, "file ends inside a record (no line end): row skipped");
            r->status = RUNFILE_TRUNCATED;
            break;
        }
        if (section_record(r) || r->state == ST_IGNORE)
            break;
        if (r->state == ST_MEM_HEAD)
            section_header_record(r, memory_header, r->nf >= PROF_ME_N ? PROF_ME_N : PROF_ME_N_BASE,
                                  "the memory header", "memory section", ST_MEM_ROWS);
        else if (r->state == ST_SUM_HEAD)
            section_header_record(r, summary_header, summary_columns(r),
                                  "the summary section's header", "section", ST_SUM_ROWS);
        else if (r->state == ST_SUM_ROWS)
            summary_row(r);
        else if (r->state == ST_MEM_ROWS)
            memory_row(r);
        else if (r->kind == RUN_SEED)
            seed_row(r);
        else if (r->kind == RUN_EVENTS)
            event_row(r);
        else
            summary_row(r);
        break;
    }
}

/* Room for one more field in the record's arrays. */
static void field_room(struct runfile *r)
{
    if (r->nf == r->fcap) {
        r->fcap = r->fcap ? 2 * r->fcap : 16;
        r->foff = xrealloc(r->foff, r->fcap * sizeof *r->foff);
        r->flen = xrealloc(r->flen, r->fcap * sizeof *r->flen);
        r->fptr = xrealloc(r->fptr, r->fcap * sizeof *r->fptr);
    }
}

/* What both paths do as a field arrives: show it to the tuning's hook and make room for it;
   0 when the reader has stopped (the field is dropped). */
static int field_begin(struct runfile *r, const char *s, size_t len)
{
    if (r->tune->field)
        r->tune->field(r->tune->ctx, s, len);
    if (r->stop)
        return 0;
    field_room(r);
    return 1;
}

/* The end of a field from libcsv: copy it into the record. */
static void add_field(const char *s, size_t len, void *data)
{
    struct runfile *r = data;
    if (!field_begin(r, s, len))
        return;
    if (r->rcap - r->rlen < len + 1) {
        while (r->rcap - r->rlen < len + 1)
            r->rcap = r->rcap ? 2 * r->rcap : 256;
        r->rbuf = xrealloc(r->rbuf, r->rcap);
    }
    memcpy(r->rbuf + r->rlen, s, len);
    r->rbuf[r->rlen + len] = 0;
    r->foff[r->nf] = r->rlen;
    r->flen[r->nf] = len;
    r->nf++;
    r->rlen += len + 1;
    r->copied = 1;
}

/* libcsv's end-of-field callback. */
static void on_field(void *s, size_t len, void *data) { add_field(s, len, data); }

/* The end of a field from plain_split: it stays where it is, in the read buffer, ended by a
   NUL over the delimiter after it (plain_split has read that byte; plainsplit.h). */
static void plain_field(const char *s, size_t len, void *data)
{
    struct runfile *r = data;
    if (!field_begin(r, s, len))
        return;
    ((char *)s)[len] = 0;
    r->fptr[r->nf] = s;
    r->flen[r->nf] = len;
    r->nf++;
}

/* The end of a record (also of each line end between records), from libcsv or plain_split. */
static void on_record(int c, void *data)
{
    struct runfile *r = data;
    if (r->tune->record)
        r->tune->record(r->tune->ctx, c);
    if (c == '\n') {
        r->line++;
        r->saw_nl = 1;
    }
    if (r->copied)
        for (size_t i = 0; i < r->nf; i++)
            r->fptr[i] = r->rbuf + r->foff[i];
    /* No field: a blank line. One empty field (e.g. a lone "") counts as blank too. */
    if (r->nf != 0 && !r->stop && !(r->nf == 1 && r->flen[0] == 0))
        handle_record(r, c);
    r->nf = 0;
    r->rlen = 0;
    r->copied = 0;
    r->rec_line = r->line;
}

/* Put libcsv back at the start of a record after an error, dropping the partial record. */
static void reset_parser(struct runfile *r)
{
    /* csv_fini resets the parser, but refuses to in strict-fini mode inside a quoted field. */
    csv_set_opts(&r->csv, RUNFILE_CSV_OPTS & ~CSV_STRICT_FINI);
    csv_fini(&r->csv, NULL, NULL, NULL);
    csv_set_opts(&r->csv, RUNFILE_CSV_OPTS);
    r->nf = 0;
    r->rlen = 0;
    r->copied = 0;
}

/* Report a libcsv error met on the line being fed; 0 when parsing can go on after it. */
static int parse_failed(struct runfile *r)
{
    int err = csv_error(&r->csv);
    if (err != CSV_EPARSE) {
        /* Memory errors end the command in xrealloc, so this is not expected. */
        give_up(r, RUNFILE_IO_ERROR, r->rec_line, csv_strerror(err));
        return -1;
    }
    if (r->line != r->rec_line)
        problem(r, r->rec_line, "malformed CSV (%s) on line %lu: record skipped", csv_strerror(err),
                r->line);
    else
        problem(r, r->rec_line, "malformed CSV (%s): line skipped", csv_strerror(err));
    reset_parser(r);
    return 0;
}

/* The length of the start of data that holds no quote. */
static size_t quote_free(const char *data, size_t len)
{
    const char *q = memchr(data, '"', len);
    return q ? (size_t)(q - data) : len;
}

/* Feed one line (through its line end, or the rest of data when it has none); returns its
   length. Line by line, the line where each record starts is known even when quoted fields
   hold line ends, which libcsv does not report. */
static size_t feed_line(struct runfile *r, const char *data, size_t len)
{
    const char *nl = memchr(data, '\n', len);
    size_t piece = nl ? (size_t)(nl - data) + 1 : len;
    csv_set_space_func(&r->csv, no_space);
    r->saw_nl = 0;
    size_t done = csv_parse(&r->csv, data, piece, on_field, on_record, r);
    int error = done < piece;
    if (error && parse_failed(r) != 0)
        return len;
    if (nl) {
        /* A line end inside quotes, or in the rest of a line skipped after an error. */
        if (!r->saw_nl)
            r->line++;
        if (error)
            r->rec_line = r->line;
        r->clean = r->saw_nl || error;
    } else {
        r->clean = 0;
        r->skip_line = error; /* the line goes on in the next block */
    }
    return piece;
}

/* The end of a row read by rowscan, as on_record ends one: its line is over. */
static void scanned_row_done(struct runfile *r)
{
    r->line++;
    r->saw_nl = 1;
    r->rec_line = r->line;
}

/* Hand on the events row at line if rowscan reads it; its bytes, or 0 (event_row would take
   the same values from its fields). */
static size_t scan_event_row(struct runfile *r, char *line, const char *end)
{
    struct scanned_event s;
    size_t n = rowscan_event(line, end, &s);
    if (n == 0)
        return 0;
    struct prof_event_rec e = {.region = s.region,
                               .region_len = s.region_len,
                               .parent = s.parent,
                               .parent_len = s.parent_len,
                               .ticks = s.ticks,
                               .self = s.self,
                               .start = s.start,
                               .thread = s.thread,
                               .depth = s.depth,
                               .stopped = 1,
                               .nested = s.nested};
    if (r->h->event)
        r->h->event(r->h->ctx, &e);
    scanned_row_done(r);
    return n;
}

/* Hand on the seed row at line if rowscan reads it; its bytes, or 0 (as seed_row). */
static size_t scan_seed_row(struct runfile *r, char *line, const char *end)
{
    struct prof_event_rec e = {.parent = "", .stopped = 1};
    size_t n = rowscan_seed(line, end, &e.region, &e.region_len, &e.ticks);
    if (n == 0)
        return 0;
    if (r->h->event)
        r->h->event(r->h->ctx, &e);
    scanned_row_done(r);
    return n;
}

/* Split whole quote-free lines, starting between records: the table's rows in the collector's
   form through rowscan, every other line through plain_split (the tuning's hooks, which watch
   the fields, turn rowscan off). Returns the bytes used: all of data, which ends with '\n'. */
static size_t split_plain(struct runfile *r, const char *data, size_t len)
{
    int scan = !r->tune->field && !r->tune->record && !r->tune->no_rowscan;
    const char *p = data, *end = data + len;
    while (p < end && !r->stop) {
        size_t n = 0;
        if (scan && r->state == ST_ROWS) {
            /* The bytes are the read buffer's: rowscan writes a row's NULs there, as
               plain_field does. A section record ("Table,...") has 2 fields, never a row's. */
            if (r->kind == RUN_EVENTS && r->ncols == PROF_EV_N)
                n = scan_event_row(r, (char *)p, end);
            else if (r->kind == RUN_SEED && r->version < PROF_RUN_VERSION_SECTIONS)
                n = scan_seed_row(r, (char *)p, end);
            else
                scan = 0; /* another table: it stays so to the end */
        }
        if (n == 0 && scan && r->state <= ST_ROWS) {
            /* Metadata, the header, or a row rowscan leaves to the checks: one line. */
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            n = plain_split(p, (size_t)(nl - p) + 1, plain_field, on_record, r);
        } else if (n == 0) {
            n = plain_split(p, (size_t)(end - p), plain_field, on_record, r);
        }
        p += n;
    }
    return len;
}

/* Feed whole lines without quotes, starting between records, in one call; returns the bytes
   used. */
static size_t feed_plain(struct runfile *r, const char *data, size_t len)
{
    /* libcsv is between records and data ends with a line end: the fast paths take it all. */
    if (!r->tune->libcsv_only) {
        r->clean = 1;
        return split_plain(r, data, len);
    }
    /* libcsv calls the space function for every byte of an unquoted field, which costs a
       third of its time; without spaces or tabs its default test (spaces and tabs) finds
       nothing either, so the result is the same. */
    if (memchr(data, ' ', len) || memchr(data, '\t', len))
        csv_set_space_func(&r->csv, no_space);
    else
        csv_set_space_func(&r->csv, NULL);
    /* Without quotes every line end ends a record or a blank line and libcsv reports it: the
       line count in on_record is exact. */
    size_t done = csv_parse(&r->csv, data, len, on_field, on_record, r);
    if (done < len) {
        /* Strict errors need a quote, so this is not expected: skip the line all the same. */
        if (parse_failed(r) == 0)
            r->skip_line = 1;
        r->clean = 0;
        return done;
    }
    r->clean = 1;
    return len;
}

/* Feed a block of the file: runs of lines without quotes at once, other lines one by one. */
static void feed(struct runfile *r, const char *data, size_t len)
{
    while (len > 0 && !r->stop) {
        size_t n;
        const char *nl;
        if (r->skip_line) {
            /* The rest of a line where libcsv failed. */
            nl = memchr(data, '\n', len);
            if (!nl)
                return;
            n = (size_t)(nl - data) + 1;
            r->line++;
            r->rec_line = r->line;
            r->clean = 1;
            r->skip_line = 0;
        } else if (r->clean && (nl = memrchr(data, '\n', quote_free(data, len))) != NULL) {
            n = feed_plain(r, data, (size_t)(nl - data) + 1);
        } else {
            n = feed_line(r, data, len);
        }
        data += n;
        len -= n;
    }
}

/* Decide the outcome once the whole file has been fed (or reading failed). */
static void finish(struct runfile *r, int any, int ends_with_nl)
{
    int fini = csv_fini(&r->csv, on_field, on_record, r);
    int in_quotes = fini != 0 && csv_error(&r->csv) == CSV_EPARSE;
    if (r->stop)
        return;
    /* The last line of the file, for reasons that concern the end of the file. */
    unsigned long last = r->line - (ends_with_nl && r->line > 1);
    switch (r->state) {
    case ST_FREQUENCY:
        skip(r, in_quotes ? r->rec_line : last, any ? "no Frequency record" : "empty file");
        return;
    case ST_META:
        skip(r, last, "ends before the Region header");
        return;
    case ST_FORMAT:
        /* Frequency alone is a seed file with no rows. */
        r->kind = RUN_SEED;
        r->state = ST_ROWS;
        if (r->h->begin)
            r->h->begin(r->h->ctx, RUN_SEED, r->frequency);
        break;
    default: /* in a table, or past it: nothing more to say */
        break;
    }
    if (in_quotes) {
        problem(r, r->rec_line, "file ends inside a quoted field");
        r->status = RUNFILE_TRUNCATED;
    }
}

/* Parse the run file in f and feed h; see runfile.h. */
enum run_status runfile_parse(FILE *f, const char *name, const struct run_handler *h,
                              struct rep_error *why, unsigned long *line)
{
    struct runfile_tuning t = {0};
    t.libcsv_only = getenv(RUNFILE_LIBCSV_ONLY_ENV) != NULL;
    return runfile_parse_tuned(f, name, h, why, line, &t);
}

/* Parse the run file in f and feed h as t says; see runfile.h. */
enum run_status runfile_parse_tuned(FILE *f, const char *name, const struct run_handler *h,
                                    struct rep_error *why, unsigned long *line,
                                    const struct runfile_tuning *t)
{
    (void)name; /* the caller names the file in its messages */
    struct rep_error unused;
    struct runfile r = {0};
    size_t block = t->block ? t->block : RUNFILE_BLOCK;
    r.h = h;
    r.tune = t;
    r.why = why ? why : &unused;
    rep_error_clear(r.why);
    r.state = ST_FREQUENCY;
    r.line = r.rec_line = 1;
    r.clean = 1;
    r.status = RUNFILE_OK;
    /* Both fail only when memory runs out, which ends the command (rep_error.h). */
    if (csv_init(&r.csv, RUNFILE_CSV_OPTS) != 0)
        die_nomem(NULL);
    csv_set_space_func(&r.csv, no_space);
    csv_set_realloc_func(&r.csv, xrealloc);
    csv_set_blk_size(&r.csv, 4096);
    r.c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (r.c_locale == (locale_t)0)
        die_nomem(NULL);

    char *buf = xmalloc(block);
    size_t keep = 0; /* bytes of an unfinished line carried to the next block */
    int first = 1, at_eof = 0, any = 0, ends_with_nl = 0;
    while (!at_eof && !r.stop) {
        size_t n = fread(buf + keep, 1, block - keep, f);
        if (n < block - keep) {
            if (ferror(f)) {
                give_up(&r, RUNFILE_IO_ERROR, r.line, strerror(errno ? errno : EIO));
                break;
            }
            at_eof = 1;
        }
        size_t avail = keep + n, start = 0;
        if (first) {
            first = 0;
            if (avail >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
                start = 3;
        }
        /* Feed whole lines so that each block starts at a line start; the rest waits for the
           next block, unless the file ends or one line fills the buffer. */
        size_t end = avail;
        if (!at_eof && avail > start) {
            const char *nl = memrchr(buf + start, '\n', avail - start);
            if (nl)
                end = (size_t)(nl - buf) + 1;
        }
        if (end > start) {
            /* Before feeding: the fast path writes NULs over the line ends it has read. */
            ends_with_nl = buf[end - 1] == '\n';
            feed(&r, buf + start, end - start);
            any = 1;
        }
        keep = avail - end;
        memmove(buf, buf + end, keep);
    }
    if (r.status != RUNFILE_IO_ERROR)
        finish(&r, any, ends_with_nl);

    free(buf);
    csv_free(&r.csv);
    freelocale(r.c_locale);
    free(r.rbuf);
    free(r.foff);
    free(r.flen);
    free(r.fptr);
    free(r.hist_bucket);
    free(r.hist_count);
    free(r.path_nodes);
    free(r.path_done);
    if (line)
        *line = r.status == RUNFILE_SKIPPED || r.status == RUNFILE_IO_ERROR ? r.why_line : 0;
    return r.status;
}
