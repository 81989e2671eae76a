/*
 * test_runfile.c - unit tests of runfile.c: run files and seed files read through libcsv, with
 * every callback's contents and every problem's line checked.
 */
#define _GNU_SOURCE /* vasprintf */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "corpus.h"
#include "format.h"
#include "read/runfile.h"
#include "strbuf.h"
#include "base/util.h"

/* What the callbacks saw, one line of text per call. */
struct log {
    char *items[256];
    size_t n;
    int count_only; /* events are counted, not logged (large inputs) */
    size_t nevents;
};

/* Add one formatted line to the log. */
__attribute__((format(printf, 2, 3))) static void log_add(struct log *l, const char *fmt, ...)
{
    assert_true(l->n < sizeof l->items / sizeof l->items[0]);
    va_list ap;
    va_start(ap, fmt);
    assert_true(vasprintf(&l->items[l->n], fmt, ap) >= 0);
    va_end(ap);
    l->n++;
}

/* Free the log's lines. */
static void log_release(struct log *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    l->n = 0;
}

/* s[0..n) in brackets, bytes outside printable ASCII as \xNN, so lengths and NULs show. */
static const char *esc(char *out, const char *s, size_t n)
{
    size_t o = 0;
    out[o++] = '[';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f || c == '\\')
            o += (size_t)sprintf(out + o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    out[o++] = ']';
    out[o] = 0;
    return out;
}

/* Log a metadata record with all its fields. */
static void on_meta(void *ctx, const char *const *fields, const size_t *lens, size_t n)
{
    char line[1024] = "meta", e[400];
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(fields[i][lens[i]], 0); /* the model compares keys with strcmp */
        strcat(line, " ");
        strcat(line, esc(e, fields[i], lens[i]));
    }
    log_add(ctx, "%s", line);
}

/* Log the start of the table. */
static void on_begin(void *ctx, enum run_kind kind, uint64_t frequency)
{
    static const char *const names[] = {"events", "summary", "seed"};
    log_add(ctx, "begin %s %llu", names[kind], (unsigned long long)frequency);
}

/* Log an events or seed row, or count it for large inputs. */
static void on_event(void *ctx, const struct prof_event_rec *ev)
{
    struct log *l = ctx;
    char r[400], p[400], ticks[64] = "-", self[64] = "-";
    l->nevents++;
    /* Strings end with a NUL at their length, even when they hold NULs themselves. */
    assert_int_equal(ev->region[ev->region_len], 0);
    assert_int_equal(ev->parent[ev->parent_len], 0);
    if (l->count_only)
        return;
    if (ev->stopped) {
        snprintf(ticks, sizeof ticks, "%llu", (unsigned long long)ev->ticks);
        snprintf(self, sizeof self, "%llu", (unsigned long long)ev->self);
    } else {
        /* A region that never stopped carries no durations. */
        assert_int_equal(ev->ticks, 0);
        assert_int_equal(ev->self, 0);
    }
    log_add(l, "event %s parent=%s ticks=%s self=%s start=%llu thread=%u depth=%u nested=%d",
            esc(r, ev->region, ev->region_len), esc(p, ev->parent, ev->parent_len), ticks, self,
            (unsigned long long)ev->start, ev->thread, ev->depth, ev->nested);
}

/* Log a summary row with its histogram pairs. */
static void on_summary(void *ctx, const struct prof_summary_rec *s)
{
    char r[400], hist[2048] = "", path[64] = "";
    assert_int_equal(s->region[s->region_len], 0);
    for (size_t i = 0; i < s->nhist; i++)
        sprintf(hist + strlen(hist), "%s%u:%llu", i ? ";" : "", (unsigned)s->hist_bucket[i],
                (unsigned long long)s->hist_count[i]);
    /* Version 3 rows name their node; version 1 and 2 rows have node and parent 0. */
    if (s->node)
        snprintf(path, sizeof path, " node=%u parent=%u", s->node, s->parent);
    else
        assert_int_equal(s->parent, 0);
    log_add(ctx,
            "summary %s thread=%u calls=%llu ticks=%llu self=%llu min=%llu max=%llu sumsq=%.17g "
            "outer=%llu hist=%s%s",
            esc(r, s->region, s->region_len), s->thread, (unsigned long long)s->calls,
            (unsigned long long)s->ticks, (unsigned long long)s->self, (unsigned long long)s->min,
            (unsigned long long)s->max, s->sumsq, (unsigned long long)s->outer, hist, path);
}

/* Log a memory-section row. */
static void on_memory(void *ctx, const struct run_memory *m)
{
    char r[400], s[400], o[400];
    assert_int_equal(m->region[m->region_len], 0);
    log_add(ctx,
            "memory %s thread=%u region=%s site=%s count=%llu bytes=%llu alloc=%s free=%s "
            "other=%u %s",
            m->kind, m->thread, esc(r, m->region, m->region_len), esc(s, m->site, m->site_len),
            (unsigned long long)m->count, (unsigned long long)m->bytes, m->alloc_kind, m->free_kind,
            m->other_thread, esc(o, m->other_site, m->other_site_len));
    /* Function and Stack, only when given: a section written before them has neither. */
    if (m->function_len || m->stack_len)
        log_add(ctx, "  function=%s stack=%s", esc(r, m->function, m->function_len),
                esc(s, m->stack, m->stack_len));
}

/* Log a problem with its line. */
static void on_problem(void *ctx, unsigned long line, const char *message)
{
    log_add(ctx, "problem %lu: %s", line, message);
}

/* Parse len bytes of text as a run file into the log. */
static enum run_status parse_bytes(const char *text, size_t len, struct log *l,
                                   struct rep_error *why, unsigned long *line)
{
    struct run_handler h = {l,          on_meta,    on_begin,  on_event,
                            on_summary, on_problem, on_memory, NULL};
    FILE *f = fmemopen((void *)text, len, "r");
    assert_non_null(f);
    enum run_status st = runfile_parse(f, "test.csv", &h, why, line);
    fclose(f);
    return st;
}

/* Parse a NUL-terminated text as a run file into the log. */
static enum run_status parse_text(const char *text, struct log *l, struct rep_error *why,
                                  unsigned long *line)
{
    return parse_bytes(text, strlen(text), l, why, line);
}

/* The log holds exactly the expected lines, in order. */
static void check_log(struct log *l, const char *const *want, size_t n)
{
    for (size_t i = 0; i < n && i < l->n; i++)
        assert_string_equal(l->items[i], want[i]);
    assert_int_equal(l->n, n);
    log_release(l);
}

#define CHECK_LOG(l, ...)                                                                          \
    do {                                                                                           \
        static const char *const want_[] = {__VA_ARGS__};                                          \
        check_log(l, want_, sizeof want_ / sizeof want_[0]);                                       \
    } while (0)

/* Parse a text that must be refused, and check the reason and its line. */
static void check_skipped(const char *text, const char *want_why, unsigned long want_line)
{
    struct log l = {0};
    struct rep_error why;
    unsigned long line = 0;
    assert_int_equal(parse_text(text, &l, &why, &line), RUNFILE_SKIPPED);
    assert_int_equal(why.code, REP_ERR_NO_INPUT);
    assert_string_equal(why.msg, want_why);
    assert_int_equal(line, want_line);
    /* Nothing of a refused file reaches the model's tables. */
    for (size_t i = 0; i < l.n; i++)
        assert_null(strstr(l.items[i], "event "));
    log_release(&l);
}

#define V1_EVENTS                                                                                  \
    "Frequency,1000\n"                                                                             \
    "Format,profreport-run,1\n"                                                                    \
    "Mode,events\n"                                                                                \
    "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"

#define V1_SUMMARY                                                                                 \
    "Frequency,1000\n"                                                                             \
    "Format,profreport-run,1\n"                                                                    \
    "Mode,summary\n"                                                                               \
    "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram\n"

/* An events file: metadata with all its fields, begin, then every column of every row. */
static void events_table_gives_metadata_begin_and_rows(void **state)
{
    (void)state;
    struct log l = {0};
    struct rep_error why = {REP_ERR_INTERNAL, "unset"};
    unsigned long line = 99;
    assert_int_equal(parse_text("Frequency,2893456123\n"
                                "Format,profreport-run,1\n"
                                "Mode,events\n"
                                "Program,/usr/bin/app\n"
                                "Thread,1,4242,main,exited\n"
                                "Warning,unterminated,1,1,region never stopped\n"
                                "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                                "parse,34567,1,load,1,34567,6000,0\n"
                                "load,1234567,1,,0,1200000,5321,0\n"
                                "fib,10,2,fib,3,0,18446744073709551615,1\n",
                                &l, &why, &line),
                     RUNFILE_OK);
    assert_int_equal(why.code, REP_OK);
    assert_string_equal(why.msg, "");
    assert_int_equal(line, 0);
    CHECK_LOG(&l, "meta [Mode] [events]", "meta [Program] [/usr/bin/app]",
              "meta [Thread] [1] [4242] [main] [exited]",
              "meta [Warning] [unterminated] [1] [1] [region never stopped]",
              "begin events 2893456123",
              "event [parse] parent=[load] ticks=34567 self=34567 start=6000 thread=1 depth=1 "
              "nested=0",
              "event [load] parent=[] ticks=1234567 self=1200000 start=5321 thread=1 depth=0 "
              "nested=0",
              "event [fib] parent=[fib] ticks=10 self=0 start=18446744073709551615 thread=2 "
              "depth=3 nested=1");
}

/* Empty Ticks and Self: the region never stopped. */
static void empty_ticks_and_self_mean_not_stopped(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_EVENTS "open,,1,,0,,99,0\n", &l, NULL, NULL), RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "event [open] parent=[] ticks=- self=- start=99 thread=1 depth=0 nested=0");
}

/* Ticks and Self are empty together or not at all; a row with one of them is skipped. */
static void ticks_and_self_are_empty_together(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_EVENTS "a,,1,,0,5,0,0\n"
                                          "b,5,1,,0,,0,0\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "problem 5: column Self: \"5\" but Ticks is empty",
              "problem 6: column Self is empty but Ticks is not");
}

/* A summary file: every column, the histogram as pairs, and an empty histogram. */
static void summary_table_gives_rows_with_histogram(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_SUMMARY
                                "step,1,1000000,52000000,51000000,48,3100,2.75e+09,52000000,"
                                "6:12;7:3;495:18446744073709551615\n"
                                "idle,2,0,0,0,0,0,0,0,\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [summary]", "begin summary 1000",
              "summary [step] thread=1 calls=1000000 ticks=52000000 self=51000000 min=48 "
              "max=3100 sumsq=2750000000 outer=52000000 hist=6:12;7:3;495:18446744073709551615",
              "summary [idle] thread=2 calls=0 ticks=0 self=0 min=0 max=0 sumsq=0 outer=0 hist=");
}

/* SumSquares must be a finite, unsigned decimal number; each bad one is named. */
static void summary_bad_sum_of_squares_is_reported(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_SUMMARY "a,1,1,1,1,1,1,nan,1,\n"
                                           "a,1,1,1,1,1,1,inf,1,\n"
                                           "a,1,1,1,1,1,1,1e999,1,\n"
                                           "a,1,1,1,1,1,1,2.5x,1,\n"
                                           "a,1,1,1,1,1,1,-1,1,\n"
                                           "a,1,1,1,1,1,1, 1,1,\n"
                                           "a,1,1,1,1,1,1,,1,\n"
                                           "a,1,1,1,1,1,1,0x10,1,\n"
                                           "a,1,1,1,1,1,1,.5,1,\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [summary]", "begin summary 1000",
              "problem 5: column SumSquares: \"nan\" is not a finite non-negative number",
              "problem 6: column SumSquares: \"inf\" is not a finite non-negative number",
              "problem 7: column SumSquares: \"1e999\" is not a finite non-negative number",
              "problem 8: column SumSquares: \"2.5x\" is not a finite non-negative number",
              "problem 9: column SumSquares: \"-1\" is not a finite non-negative number",
              "problem 10: column SumSquares: \" 1\" is not a finite non-negative number",
              "problem 11: column SumSquares is empty",
              "problem 12: column SumSquares: \"0x10\" is not a finite non-negative number",
              "summary [a] thread=1 calls=1 ticks=1 self=1 min=1 max=1 sumsq=0.5 outer=1 hist=");
}

/* A histogram pair that is not bucket:count, or a bucket past 495, is named. */
static void summary_bad_histogram_is_reported(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_SUMMARY "a,1,1,1,1,1,1,1,1,6:x\n"
                                           "a,1,1,1,1,1,1,1,1,6:1;7\n"
                                           "a,1,1,1,1,1,1,1,1,496:1\n"
                                           "a,1,1,1,1,1,1,1,1,6:1;\n"
                                           "a,1,1,1,1,1,1,1,1,:1\n"
                                           "a,1,1,1,1,1,1,1,1,1:18446744073709551616\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [summary]", "begin summary 1000",
              "problem 5: column Histogram: \"6:x\" is not a bucket:count pair",
              "problem 6: column Histogram: \"7\" is not a bucket:count pair",
              "problem 7: column Histogram: bucket \"496\" is out of range (0-495)",
              "problem 8: column Histogram: empty bucket:count pair at the end",
              "problem 9: column Histogram: \":1\" is not a bucket:count pair",
              "problem 10: column Histogram: \"1:18446744073709551616\" is not a bucket:count "
              "pair");
}

/* Summary integers are checked like event ones, column by column. */
static void summary_bad_integers_are_reported(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_SUMMARY "a,x,1,1,1,1,1,1,1,\n"
                                           "a,1,1,1,1,1,-1,1,1,\n"
                                           "a,1,1,1,1,1,1,1,99999999999999999999,\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [summary]", "begin summary 1000",
              "problem 5: column Thread: \"x\" is not a number",
              "problem 6: column Max: \"-1\" is not a number",
              "problem 7: column Outer: \"99999999999999999999\" is too large");
}

/* The seed form: Frequency, then id,delta rows with no header. */
static void seed_form_gives_id_delta_rows(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,3579545\n"
                                "CFoo::Foo,961486\n"
                                "CFoo::Bar,0\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 3579545",
              "event [CFoo::Foo] parent=[] ticks=961486 self=0 start=0 thread=0 depth=0 nested=0",
              "event [CFoo::Bar] parent=[] ticks=0 self=0 start=0 thread=0 depth=0 nested=0");
}

/* An empty delta in the seed form is a region that never stopped. */
static void seed_empty_delta_never_stopped(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,3579545\nCFoo::Bar,\n", &l, NULL, NULL), RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 3579545",
              "event [CFoo::Bar] parent=[] ticks=- self=- start=0 thread=0 depth=0 nested=0");
}

/* A seed row has exactly two fields, and a bad delta is named. */
static void seed_rows_are_checked(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,10\n"
                                "a\n"
                                "a,1,2\n"
                                "a,-3\n"
                                "a,18446744073709551616\n"
                                "a,18446744073709551615\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 10", "problem 2: expected 2 fields, found 1",
              "problem 3: expected 2 fields, found 3",
              "problem 4: column delta: \"-3\" is not a number",
              "problem 5: column delta: \"18446744073709551616\" is too large",
              "event [a] parent=[] ticks=18446744073709551615 self=0 start=0 thread=0 depth=0 "
              "nested=0");
}

/* A Frequency record alone is a seed file with no rows. */
static void frequency_alone_is_a_seed_file_without_rows(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\n", &l, NULL, NULL), RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000");
}

/* A two-field record starting with Format is a seed row for a region named Format. */
static void two_field_format_record_is_a_seed_row(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\nFormat,7\n", &l, NULL, NULL), RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000",
              "event [Format] parent=[] ticks=7 self=0 start=0 thread=0 depth=0 nested=0");
}

/* Quoted ids keep commas, doubled quotes, line ends and spaces, byte for byte. */
static void quoted_ids_keep_commas_quotes_and_line_ends(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\n"
                                "\"std::map<int, int>::at\",5\n"
                                "\"say \"\"hi\"\"\",6\n"
                                "\"two\nlines\",7\n"
                                "\"  padded  \",8\n"
                                "\"\",9\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000",
              "event [std::map<int, int>::at] parent=[] ticks=5 self=0 start=0 thread=0 depth=0 "
              "nested=0",
              "event [say \"hi\"] parent=[] ticks=6 self=0 start=0 thread=0 depth=0 nested=0",
              "event [two\\x0alines] parent=[] ticks=7 self=0 start=0 thread=0 depth=0 nested=0",
              "event [  padded  ] parent=[] ticks=8 self=0 start=0 thread=0 depth=0 nested=0",
              "event [] parent=[] ticks=9 self=0 start=0 thread=0 depth=0 nested=0");
}

/* Spaces and tabs around unquoted fields belong to the field: libcsv must not trim them. */
static void unquoted_spaces_are_kept(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\n"
                                " lead,1\n"
                                "trail \t,2\n"
                                "a, 3\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000",
              "event [ lead] parent=[] ticks=1 self=0 start=0 thread=0 depth=0 nested=0",
              "event [trail \\x09] parent=[] ticks=2 self=0 start=0 thread=0 depth=0 nested=0",
              "problem 4: column delta: \" 3\" is not a number");
}

/* Events rows keep the spaces of Region and Parent too (a different code path: quotes). */
static void spaces_are_kept_in_a_block_with_quotes(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_EVENTS " a ,1,1, p ,1,1,0,0\n"
                                          "\"q\",2,1,,0,2,0,0\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "event [ a ] parent=[ p ] ticks=1 self=1 start=0 thread=1 depth=1 nested=0",
              "event [q] parent=[] ticks=2 self=2 start=0 thread=1 depth=0 nested=0");
}

/* NUL bytes inside a field are passed on with the field's real length. */
static void nul_bytes_keep_field_length(void **state)
{
    (void)state;
    struct log l = {0};
    static const char text[] = "Frequency,1000\na\0b,5\n\"c\0\",6\n";
    assert_int_equal(parse_bytes(text, sizeof text - 1, &l, NULL, NULL), RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000",
              "event [a\\x00b] parent=[] ticks=5 self=0 start=0 thread=0 depth=0 nested=0",
              "event [c\\x00] parent=[] ticks=6 self=0 start=0 thread=0 depth=0 nested=0");
}

/* A UTF-8 byte order mark at the start is skipped, and only there. */
static void bom_is_skipped(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("\xef\xbb\xbf"
                                "Frequency,1000\n"
                                "\xef\xbb\xbfx,1\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000",
              "event [\\xef\\xbb\\xbfx] parent=[] ticks=1 self=0 start=0 thread=0 depth=0 "
              "nested=0");
}

/* CR LF line ends work, and are counted as one line each, inside quotes too. */
static void crlf_line_ends_are_read_and_counted_once(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\r\n"
                                "a,5\r\n"
                                "\r\n"
                                "\"x\r\ny\",6\r\n"
                                "b,zz\r\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000",
              "event [a] parent=[] ticks=5 self=0 start=0 thread=0 depth=0 nested=0",
              "event [x\\x0d\\x0ay] parent=[] ticks=6 self=0 start=0 thread=0 depth=0 nested=0",
              "problem 6: column delta: \"zz\" is not a number");
    /* The same without quotes, where the file is parsed in one piece. */
    assert_int_equal(parse_text("Frequency,1000\r\n"
                                "a,5\r\n"
                                "\r\n"
                                "b,zz\r\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000",
              "event [a] parent=[] ticks=5 self=0 start=0 thread=0 depth=0 nested=0",
              "problem 4: column delta: \"zz\" is not a number");
}

/* Blank lines, and records of one empty field, are skipped but still counted as lines. */
static void blank_lines_and_empty_records_are_ignored(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("\n"
                                "Frequency,1000\n"
                                "\n"
                                "\"\"\n"
                                "a,x\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000", "problem 5: column delta: \"x\" is not a number");
    assert_int_equal(parse_text("\nFrequency,1000\n\n\na,x\n", &l, NULL, NULL), RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000", "problem 5: column delta: \"x\" is not a number");
}

/* Values in messages are quoted, control bytes and quotes escaped, long values cut. */
static void message_values_are_escaped_and_cut(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\n"
                                "a,\"1\t\"\"\"\n"
                                "a,12345678901234567890123456789012345678901234567890x\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000", "problem 2: column delta: \"1\\x09\\x22\" is not a number",
              "problem 3: column delta: \"1234567890123456789012345678901234567890...\" is not a "
              "number");
}

/* A version other than 1, 2 and 3 is refused, numeric or not. */
static void unknown_format_version_is_skipped(void **state)
{
    (void)state;
    check_skipped("Frequency,1000\nFormat,profreport-run,5\n", "unknown format version 5", 2);
    check_skipped("Frequency,1000\nFormat,profreport-run,0\n", "unknown format version 0", 2);
    check_skipped("Frequency,1000\nFormat,profreport-run,1.1\nMode,events\n",
                  "unknown format version \"1.1\"", 2);
}

/* The reason a file was skipped is the caller's value: a second parse does not change the
   first one's reason, and a parse that succeeds clears the value it was given. */
static void each_parse_keeps_its_own_reason(void **state)
{
    (void)state;
    struct log l = {0};
    struct rep_error first, second;
    unsigned long line1 = 0, line2 = 0;
    assert_int_equal(parse_text("Frequency,1000\nFormat,profreport-run,5\n", &l, &first, &line1),
                     RUNFILE_SKIPPED);
    assert_int_equal(
        parse_text("Frequency,1000\nFormat,profreport-run,1\nMode,x\n", &l, &second, &line2),
        RUNFILE_SKIPPED);
    assert_string_equal(first.msg, "unknown format version 5");
    assert_int_equal(line1, 2);
    assert_string_equal(second.msg, "unknown Mode \"x\"");
    assert_int_equal(line2, 3);
    assert_int_equal(parse_text(V1_EVENTS "a,1,1,,0,1,0,0\n", &l, &first, &line1), RUNFILE_OK);
    assert_int_equal(first.code, REP_OK);
    assert_string_equal(first.msg, "");
    assert_int_equal(line1, 0);
    assert_string_equal(second.msg, "unknown Mode \"x\"");
    log_release(&l);
}

/* A Format record of another kind of file is refused. */
static void other_format_kind_is_skipped(void **state)
{
    (void)state;
    check_skipped("Frequency,1000\nFormat,profreport-part,1\n",
                  "not a run file (Format \"profreport-part\")", 2);
}

/* The first record must be Frequency. */
static void missing_frequency_is_skipped(void **state)
{
    (void)state;
    check_skipped("Format,profreport-run,1\nFrequency,1000\n", "no Frequency record", 1);
    check_skipped("\n\nfrequency,1000\n", "no Frequency record", 3);
    check_skipped("Frequency\n", "no Frequency record", 1);
    check_skipped("\n\n", "no Frequency record", 2);
}

/* The frequency must be a positive decimal integer. */
static void bad_frequency_is_skipped(void **state)
{
    (void)state;
    check_skipped("Frequency,abc\na,1\n", "Frequency \"abc\" is not a positive integer", 1);
    check_skipped("Frequency,0\n", "Frequency \"0\" is not a positive integer", 1);
    check_skipped("Frequency,-5\n", "Frequency \"-5\" is not a positive integer", 1);
    check_skipped("Frequency,\n", "Frequency \"\" is not a positive integer", 1);
    check_skipped("Frequency,18446744073709551616\n",
                  "Frequency \"18446744073709551616\" is not a positive integer", 1);
}

/* An empty file is refused as such. */
static void empty_file_is_skipped(void **state)
{
    (void)state;
    check_skipped("", "empty file", 1);
}

/* A version 1 file that ends before its Region header is refused, naming its last line. */
static void file_ending_before_header_is_skipped(void **state)
{
    (void)state;
    check_skipped("Frequency,1000\nFormat,profreport-run,1\nMode,events\nPid,12\n",
                  "ends before the Region header", 4);
    check_skipped("Frequency,1000\nFormat,profreport-run,1", "ends before the Region header", 2);
    check_skipped("Frequency,1000\nFormat,profreport-run,1\nProgram,\"/bin/x\n",
                  "ends before the Region header", 3);
}

/* The Mode record must come before the header and name a known table. */
static void missing_or_unknown_mode_is_skipped(void **state)
{
    (void)state;
    check_skipped("Frequency,1000\nFormat,profreport-run,1\n"
                  "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n",
                  "no Mode record before the Region header", 3);
    check_skipped("Frequency,1000\nFormat,profreport-run,1\nMode,trace\n", "unknown Mode \"trace\"",
                  3);
    check_skipped("Frequency,1000\nFormat,profreport-run,1\nMode\n", "unknown Mode (none)", 3);
}

/* A header that lacks a column is refused, naming the column. */
static void header_missing_column_is_skipped(void **state)
{
    (void)state;
    check_skipped("Frequency,1000\nFormat,profreport-run,1\nMode,events\n"
                  "Region,Ticks,Thread,Parent,Depth,Self,Start\n",
                  "the events header lacks column Nested (column 8)", 4);
    check_skipped("Frequency,1000\nFormat,profreport-run,1\nMode,summary\n"
                  "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer\n",
                  "the summary header lacks column Histogram (column 10)", 4);
}

/* A header with another column in place of an expected one is refused. */
static void header_wrong_column_is_skipped(void **state)
{
    (void)state;
    check_skipped("Frequency,1000\nFormat,profreport-run,1\nMode,events\n"
                  "Region,Thread,Ticks,Parent,Depth,Self,Start,Nested\n",
                  "column 2 of the events header is \"Thread\", expected Ticks", 4);
    /* The summary header is not an events header. */
    check_skipped("Frequency,1000\nFormat,profreport-run,1\nMode,events\n"
                  "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram\n",
                  "column 2 of the events header is \"Thread\", expected Ticks", 4);
}

/* Columns and metadata keys of a later version are ignored or passed on, not refused. */
static void extra_trailing_columns_are_ignored(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\n"
                                "Format,profreport-run,1\n"
                                "Mode,events\n"
                                "FutureKey,x,y\n"
                                "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested,Cpu,Extra\n"
                                "a,1,1,,0,1,0,0,3,z\n"
                                "b,2,1,,0,2,0,0,3\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "meta [FutureKey] [x] [y]", "begin events 1000",
              "event [a] parent=[] ticks=1 self=1 start=0 thread=1 depth=0 nested=0",
              "problem 7: expected 10 fields, found 9");
}

/* A row with the wrong number of fields is reported at its line and skipped. */
static void wrong_field_count_is_reported_and_skipped(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_EVENTS "a,1,1,,0,1,0\n"
                                          "b,1,1,,0,1,0,0,0\n"
                                          "c,1,1,,0,1,0,0\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "problem 5: expected 8 fields, found 7", "problem 6: expected 8 fields, found 9",
              "event [c] parent=[] ticks=1 self=1 start=0 thread=1 depth=0 nested=0");
}

/* A bad number names its column and value: signs, spaces, letters and empty values. */
static void bad_numbers_name_column_and_value(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_EVENTS "a,12x,1,,0,1,0,0\n"
                                          "a,+1,1,,0,1,0,0\n"
                                          "a,1,,,0,1,0,0\n"
                                          "a,1,1,,-1,1,0,0\n"
                                          "a,1,1,,0,1 ,0,0\n"
                                          "a,1,1,,0,1,,0\n"
                                          "a,1,1,,0,1,0,2\n"
                                          "a,1,1,,0,1,0,\n"
                                          "a,1,1,,0,1,0,00\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "problem 5: column Ticks: \"12x\" is not a number",
              "problem 6: column Ticks: \"+1\" is not a number",
              "problem 7: column Thread is empty",
              "problem 8: column Depth: \"-1\" is not a number",
              "problem 9: column Self: \"1 \" is not a number", "problem 10: column Start is empty",
              "problem 11: column Nested: \"2\" is not 0 or 1",
              "problem 12: column Nested: \"\" is not 0 or 1",
              "problem 13: column Nested: \"00\" is not 0 or 1");
}

/* A ThreadCpu record (thread, CPU ns, wall ns) reaches the handler as it is, trailing fields
   kept for later versions; one with a bad number or too few fields is a problem at its line,
   and the handler never sees it. */
static void thread_cpu_records_are_checked(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\n"
                                "Format,profreport-run,3\n"
                                "Mode,events\n"
                                "Thread,1,100,main,exited\n"
                                "ThreadCpu,1,1500000,2000000\n"
                                "ThreadCpu,2,0,18446744073709551615,later\n"
                                "ThreadCpu,3,12x,5\n"
                                "ThreadCpu,4,5,\n"
                                "ThreadCpu,4294967296,1,1\n"
                                "ThreadCpu,5,18446744073709551616,1\n"
                                "ThreadCpu,6,1\n"
                                "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "meta [Thread] [1] [100] [main] [exited]",
              "meta [ThreadCpu] [1] [1500000] [2000000]",
              "meta [ThreadCpu] [2] [0] [18446744073709551615] [later]",
              "problem 7: column ThreadCpu CPU: \"12x\" is not a number",
              "problem 8: column ThreadCpu wall is empty",
              "problem 9: column ThreadCpu thread: \"4294967296\" is too large",
              "problem 10: column ThreadCpu CPU: \"18446744073709551616\" is too large",
              "problem 11: ThreadCpu record: expected 4 fields, found 3", "begin events 1000");
}

/* Numbers past uint64 (or past unsigned for Thread and Depth) are too large; the limits pass. */
static void overflow_is_reported(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_EVENTS "a,18446744073709551616,1,,0,1,0,0\n"
                                          "a,1,4294967296,,0,1,0,0\n"
                                          "a,1,1,,4294967296,1,0,0\n"
                                          "a,1,1,,0,1,99999999999999999999999,0\n"
                                          "a,18446744073709551615,4294967295,,4294967295,"
                                          "018446744073709551615,0,0\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "problem 5: column Ticks: \"18446744073709551616\" is too large",
              "problem 6: column Thread: \"4294967296\" is too large",
              "problem 7: column Depth: \"4294967296\" is too large",
              "problem 8: column Start: \"99999999999999999999999\" is too large",
              "event [a] parent=[] ticks=18446744073709551615 self=18446744073709551615 start=0 "
              "thread=4294967295 depth=4294967295 nested=0");
}

/* Lines are physical lines: a quoted id with line ends moves later rows' numbers on. */
static void line_numbers_count_line_ends_inside_quoted_ids(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_EVENTS "\"two\nlines\",1,1,,0,1,0,0\n"
                                          "a,x,1,,0,1,0,0\n"
                                          "\"three\n\nlines\",1,1,,0,1,0,x\n"
                                          "b,1,1,\"p\n\",0,1,0,0\n"
                                          "a,y,1,,0,1,0,0\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "event [two\\x0alines] parent=[] ticks=1 self=1 start=0 thread=1 depth=0 nested=0",
              "problem 7: column Ticks: \"x\" is not a number",
              "problem 8: column Nested: \"x\" is not 0 or 1",
              "event [b] parent=[p\\x0a] ticks=1 self=1 start=0 thread=1 depth=0 nested=0",
              "problem 13: column Ticks: \"y\" is not a number");
}

/* A file cut inside a quoted field: the rows before are read, the cut is named. */
static void truncated_inside_quoted_field(void **state)
{
    (void)state;
    struct log l = {0};
    struct rep_error why = {REP_ERR_INTERNAL, "unset"};
    unsigned long line = 99;
    assert_int_equal(parse_text("Frequency,1000\n"
                                "a,1\n"
                                "\"cut\n"
                                "off,5\n",
                                &l, &why, &line),
                     RUNFILE_TRUNCATED);
    assert_int_equal(why.code, REP_OK);
    assert_string_equal(why.msg, "");
    CHECK_LOG(&l, "begin seed 1000",
              "event [a] parent=[] ticks=1 self=0 start=0 thread=0 depth=0 nested=0",
              "problem 3: file ends inside a quoted field");
}

/* A file cut in the quoted second record is still a seed file, cut short. */
static void truncated_seed_file_after_frequency(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\n\"Form", &l, NULL, NULL), RUNFILE_TRUNCATED);
    CHECK_LOG(&l, "begin seed 1000", "problem 2: file ends inside a quoted field");
}

/* The collector ends every events row with a line end: a row without one was cut short. */
static void events_row_without_line_end_is_truncated(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_EVENTS "a,1,1,,0,1,0,0\nb,2,1,,0,2,5", &l, NULL, NULL),
                     RUNFILE_TRUNCATED);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "event [a] parent=[] ticks=1 self=1 start=0 thread=1 depth=0 nested=0",
              "problem 6: file ends inside a record (no line end): row skipped");
}

/* A hand-made seed file may lack the last line end. */
static void seed_row_without_line_end_is_read(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\na,1", &l, NULL, NULL), RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000",
              "event [a] parent=[] ticks=1 self=0 start=0 thread=0 depth=0 nested=0");
}

/* A line libcsv refuses in strict mode is reported and skipped; the rows after it are read. */
static void strict_csv_error_skips_the_line_and_goes_on(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_EVENTS "a,1,1,,0,1,0,0\n"
                                          "b\"c,2,1,,0,2,0,0\n"
                                          "d,3,1,,0,3,0,0\n"
                                          "\"e\"x,4,1,,0,4,0,0\n"
                                          "f,5,1,\"p\" ,0,5,0,0\n"
                                          "g,6,1,,0,6,0,0\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "event [a] parent=[] ticks=1 self=1 start=0 thread=1 depth=0 nested=0",
              "problem 6: malformed CSV (error parsing data while strict checking enabled): "
              "line skipped",
              "event [d] parent=[] ticks=3 self=3 start=0 thread=1 depth=0 nested=0",
              "problem 8: malformed CSV (error parsing data while strict checking enabled): "
              "line skipped",
              "problem 9: malformed CSV (error parsing data while strict checking enabled): "
              "line skipped",
              "event [g] parent=[] ticks=6 self=6 start=0 thread=1 depth=0 nested=0");
}

/* A strict error inside a record spanning lines names where the record starts and the bad line. */
static void strict_csv_error_in_multiline_record_names_both_lines(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\n"
                                "f,1\n"
                                "\"g\nh\"x,1\n"
                                "i,2\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "begin seed 1000",
              "event [f] parent=[] ticks=1 self=0 start=0 thread=0 depth=0 nested=0",
              "problem 3: malformed CSV (error parsing data while strict checking enabled) on "
              "line 4: record skipped",
              "event [i] parent=[] ticks=2 self=0 start=0 thread=0 depth=0 nested=0");
}

/* A read error is RUNFILE_IO_ERROR with the system's reason. */
static void read_error_is_io_error(void **state)
{
    (void)state;
    struct log l = {0};
    struct run_handler h = {&l,         on_meta,    on_begin,  on_event,
                            on_summary, on_problem, on_memory, NULL};
    FILE *f = fopen("/", "r"); /* opens, but reading a directory fails with EISDIR */
    assert_non_null(f);
    struct rep_error why;
    unsigned long line = 0;
    assert_int_equal(runfile_parse(f, "/", &h, &why, &line), RUNFILE_IO_ERROR);
    fclose(f);
    assert_int_equal(why.code, REP_ERR_NO_INPUT);
    assert_string_equal(why.msg, "Is a directory");
    check_log(&l, NULL, 0);
}

/* All callbacks may be NULL. */
static void callbacks_may_be_null(void **state)
{
    (void)state;
    struct run_handler h = {0};
    static const char text[] = V1_EVENTS "a,x,1,,0,1,0,0\nb,1,1,,0,1,0,0\n";
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    assert_non_null(f);
    assert_int_equal(runfile_parse(f, "t", &h, NULL, NULL), RUNFILE_OK);
    fclose(f);
}

#define V2_EVENTS                                                                                  \
    "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"                                       \
    "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
#define MEM_HEAD                                                                                   \
    "Table,memory\nKind,Thread,Region,Site,Count,Bytes,AllocKind,FreeKind,OtherThread,OtherSite\n"

/* Version 2: the rows of the memory section follow the table, each field as written. */
static void version_2_memory_section_is_read(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V2_EVENTS "a,5,1,,0,5,0,0\n" MEM_HEAD
                                          "leak,1,a,x.c:3,2,200,malloc,,,\n"
                                          "double-free,2,,\"m,o+0x1\",1,8,new,delete,1,x.c:9\n"
                                          "region-bytes,1,,,4,64,,,,\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "event [a] parent=[] ticks=5 self=5 start=0 thread=1 depth=0 nested=0",
              "memory leak thread=1 region=[a] site=[x.c:3] count=2 bytes=200 alloc=malloc free= "
              "other=0 []",
              "memory double-free thread=2 region=[] site=[m,o+0x1] count=1 bytes=8 alloc=new "
              "free=delete other=1 [x.c:9]",
              "memory region-bytes thread=1 region=[] site=[] count=4 bytes=64 alloc= free= "
              "other=0 []");
}

/* The Function and Stack columns are read when the header has them; rows without values for
   them are read as before. */
static void memory_function_and_stack_are_read(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(
        parse_text(V2_EVENTS "a,5,1,,0,5,0,0\n"
                             "Table,memory\nKind,Thread,Region,Site,Count,Bytes,AllocKind,FreeKind,"
                             "OtherThread,OtherSite,Function,Stack\n"
                             "leak,1,a,x.c:3,2,200,malloc,,,,make,make (x.c:3) < main (x.c:9)\n"
                             "runtime-reachable,1,,dl.c:4,1,32,malloc,,,,,\n",
                   &l, NULL, NULL),
        RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "event [a] parent=[] ticks=5 self=5 start=0 thread=1 depth=0 nested=0",
              "memory leak thread=1 region=[a] site=[x.c:3] count=2 bytes=200 alloc=malloc free= "
              "other=0 []",
              "  function=[make] stack=[make (x.c:3) < main (x.c:9)]",
              "memory runtime-reachable thread=1 region=[] site=[dl.c:4] count=1 bytes=32 "
              "alloc=malloc free= other=0 []");
}

/* In a version 1 file, Table,memory is a malformed events row like any other. */
static void memory_section_needs_version_2(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V1_EVENTS MEM_HEAD, &l, NULL, NULL), RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "problem 5: expected 8 fields, found 2", "problem 6: expected 8 fields, found 10");
}

/* A bad memory row is a problem naming its line; an unknown section is skipped whole. */
static void bad_memory_rows_are_problems(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V2_EVENTS MEM_HEAD "lost,1,,,1,1,,,,\n"
                                                   "leak,x,,,1,1,malloc,,,\n"
                                                   "leak,1,,,1,1,calloc,,,\n"
                                                   "leak,1,,,1\n"
                                                   "Table,later\nwhatever,1\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "problem 7: column Kind: \"lost\" is not a known value",
              "problem 8: column Thread: \"x\" is not a number",
              "problem 9: column AllocKind: \"calloc\" is not a known value",
              "problem 10: expected 10 fields, found 5",
              "problem 11: unknown section \"later\": skipped");
}

#define SUM_HEAD                                                                                   \
    "Table,summary\nRegion,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram\n"

/* An events run past PROFILER_MAX_EVENTS: its summary section's rows, after the table or the
   memory section, are summary rows of the same run. */
static void summary_section_follows_the_table_or_the_memory_section(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V2_EVENTS "a,5,1,,0,5,0,0\n" SUM_HEAD "a,1,3,30,20,9,11,302,30,\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "event [a] parent=[] ticks=5 self=5 start=0 thread=1 depth=0 nested=0",
              "summary [a] thread=1 calls=3 ticks=30 self=20 min=9 max=11 sumsq=302 outer=30 "
              "hist=");
    assert_int_equal(parse_text(V2_EVENTS "a,5,1,,0,5,0,0\n" MEM_HEAD
                                          "region-bytes,1,,,4,64,,,,\n" SUM_HEAD
                                          "b,2,1,7,7,7,7,49,7,7:1\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "event [a] parent=[] ticks=5 self=5 start=0 thread=1 depth=0 nested=0",
              "memory region-bytes thread=1 region=[] site=[] count=4 bytes=64 alloc= free= "
              "other=0 []",
              "summary [b] thread=2 calls=1 ticks=7 self=7 min=7 max=7 sumsq=49 outer=7 hist=7:1");
}

/* A summary table has no summary section; one with a wrong header is skipped with a problem. */
static void summary_section_needs_an_events_table_and_its_header(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\nFormat,profreport-run,2\nMode,summary\n"
                                "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,"
                                "Histogram\n" SUM_HEAD "a,1,3,30,20,9,11,302,30,\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [summary]", "begin summary 1000",
              "problem 5: unknown section \"summary\": skipped");
    assert_int_equal(
        parse_text(V2_EVENTS "Table,summary\nRegion,Thread,Calls\na,1,3\n", &l, NULL, NULL),
        RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "problem 6: column 4 of the summary section's header is missing, expected Ticks: "
              "section skipped");
}

#define V3_SUMMARY                                                                                 \
    "Frequency,1000\nFormat,profreport-run,3\nMode,summary\n"                                      \
    "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent\n"

/* Version 3: each summary row is a calling context, its Node and Parent handed on; a node
   with no completed instance (Calls 0) is a row like the others. */
static void version_3_summary_rows_have_node_and_parent(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V3_SUMMARY "main,1,0,0,0,0,0,0,0,,1,0\n"
                                           "step,1,3,30,30,9,11,302,30,7:3,2,1\n"
                                           "load,1,1,40,30,40,40,1600,40,,3,1\n"
                                           "step,1,1,10,10,10,10,100,10,,4,3\n"
                                           "step,2,2,8,8,4,4,32,8,4:2,1,0\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(
        &l, "meta [Mode] [summary]", "begin summary 1000",
        "summary [main] thread=1 calls=0 ticks=0 self=0 min=0 max=0 sumsq=0 outer=0 hist= "
        "node=1 parent=0",
        "summary [step] thread=1 calls=3 ticks=30 self=30 min=9 max=11 sumsq=302 outer=30 "
        "hist=7:3 node=2 parent=1",
        "summary [load] thread=1 calls=1 ticks=40 self=30 min=40 max=40 sumsq=1600 outer=40 "
        "hist= node=3 parent=1",
        "summary [step] thread=1 calls=1 ticks=10 self=10 min=10 max=10 sumsq=100 outer=10 "
        "hist= node=4 parent=3",
        "summary [step] thread=2 calls=2 ticks=8 self=8 min=4 max=4 sumsq=32 outer=8 hist=4:2 "
        "node=1 parent=0");
}

/* A version 3 summary header has Node and Parent, a version 1 or 2 one need not: a file whose
   header lacks them for its version is refused, a section so headed is skipped. */
static void summary_header_columns_follow_the_version(void **state)
{
    (void)state;
    check_skipped("Frequency,1000\nFormat,profreport-run,3\nMode,summary\n"
                  "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram\n",
                  "the summary header lacks column Node (column 11)", 4);
    check_skipped("Frequency,1000\nFormat,profreport-run,3\nMode,summary\n"
                  "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Parent,Node\n",
                  "column 11 of the summary header is \"Parent\", expected Node", 4);
    struct log l = {0};
    assert_int_equal(parse_text("Frequency,1000\nFormat,profreport-run,3\nMode,events\n"
                                "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n" SUM_HEAD
                                "a,1,3,30,20,9,11,302,30,\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "problem 6: column 11 of the summary section's header is missing, expected Node: "
              "section skipped");
    /* A version 2 file with the version 3 columns reads them as extra columns: flat rows. */
    assert_int_equal(parse_text("Frequency,1000\nFormat,profreport-run,2\nMode,summary\n"
                                "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,"
                                "Histogram,Node,Parent\n"
                                "a,1,1,5,5,5,5,25,5,,1,0\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [summary]", "begin summary 1000",
              "summary [a] thread=1 calls=1 ticks=5 self=5 min=5 max=5 sumsq=25 outer=5 hist=");
}

/* The section of a version 3 events run: its nodes, Calls 0 for the regions open at the
   cap, numbered per thread from 1. */
static void version_3_summary_section_has_paths(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(
        parse_text("Frequency,1000\nFormat,profreport-run,3\nMode,events\n"
                   "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                   "main,50,1,,0,20,0,0\n"
                   "Table,summary\n"
                   "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent\n"
                   "main,1,0,0,0,0,0,0,0,,1,0\n"
                   "b,1,3,30,30,9,11,302,30,,2,1\n",
                   &l, NULL, NULL),
        RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [events]", "begin events 1000",
              "event [main] parent=[] ticks=50 self=20 start=0 thread=1 depth=0 nested=0",
              "summary [main] thread=1 calls=0 ticks=0 self=0 min=0 max=0 sumsq=0 outer=0 hist= "
              "node=1 parent=0",
              "summary [b] thread=1 calls=3 ticks=30 self=30 min=9 max=11 sumsq=302 outer=30 "
              "hist= node=2 parent=1");
}

/* A row that breaks a thread's tree is a problem at its line and is skipped: a Node out of
   sequence (the next row is checked against it, so one bad row is one problem), a Parent not
   below its Node or skipped itself, a thread whose rows are not together; a row skipped for
   another column keeps its place in the sequence, but its children are skipped. */
static void version_3_rows_out_of_their_tree_are_problems(void **state)
{
    (void)state;
    struct log l = {0};
    assert_int_equal(parse_text(V3_SUMMARY "a,1,1,10,10,10,10,100,10,,1,0\n"
                                           "b,1,1,5,5,5,5,25,5,,3,1\n"
                                           "c,1,1,5,5,5,5,25,5,,4,3\n"
                                           "d,1,1,5,5,5,5,25,5,,5,5\n"
                                           "e,1,1,5,5,5,5,25,5,,6,1\n"
                                           "a,2,1,10,10,10,10,100,10,,1,0\n"
                                           "f,1,1,5,5,5,5,25,5,,7,1\n"
                                           "g,2,x,5,5,5,5,25,5,,2,1\n"
                                           "h,2,1,5,5,5,5,25,5,,3,2\n"
                                           "i,2,1,5,5,5,5,25,5,,4,0\n"
                                           "j,2,1,5,5,5,5,25,5,,x,0\n"
                                           "k,2,1,5,5,5,5,25,5,,6,4\n"
                                           "l,2,1,5,5,5,5,25,5,,7,0\n",
                                &l, NULL, NULL),
                     RUNFILE_OK);
    CHECK_LOG(&l, "meta [Mode] [summary]", "begin summary 1000",
              "summary [a] thread=1 calls=1 ticks=10 self=10 min=10 max=10 sumsq=100 outer=10 "
              "hist= node=1 parent=0",
              "problem 6: column Node: 3, expected 2 (a thread's nodes are 1, 2, 3, ... in row "
              "order)",
              "problem 7: column Parent: node 3 of thread 1 was skipped",
              "problem 8: column Parent: 5 is not below Node 5",
              "summary [e] thread=1 calls=1 ticks=5 self=5 min=5 max=5 sumsq=25 outer=5 hist= "
              "node=6 parent=1",
              "summary [a] thread=2 calls=1 ticks=10 self=10 min=10 max=10 sumsq=100 outer=10 "
              "hist= node=1 parent=0",
              "problem 11: thread 1: its rows are not together (rows of thread 2 came between)",
              "problem 12: column Calls: \"x\" is not a number",
              "problem 13: column Parent: node 2 of thread 2 was skipped",
              "summary [i] thread=2 calls=1 ticks=5 self=5 min=5 max=5 sumsq=25 outer=5 hist= "
              "node=4 parent=0",
              "problem 15: column Node: \"x\" is not a number",
              "summary [k] thread=2 calls=1 ticks=5 self=5 min=5 max=5 sumsq=25 outer=5 hist= "
              "node=6 parent=4",
              "summary [l] thread=2 calls=1 ticks=5 self=5 min=5 max=5 sumsq=25 outer=5 hist= "
              "node=7 parent=0");
}

/* The smallest power of two, at least 64, that holds n bytes. */
static size_t room_for(size_t n)
{
    size_t cap = 64;
    while (cap < n)
        cap *= 2;
    return cap;
}

/* Append printf output to a growing buffer. Its size is always room_for(*len + 1), so it grows
   by doubling: under the sanitizers every realloc copies, and growing byte by byte made this
   file's longest test take minutes. */
__attribute__((format(printf, 3, 4))) static void append(char **buf, size_t *len, const char *fmt,
                                                         ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    size_t need = *len + (size_t)n + 1;
    if (!*buf || need > room_for(*len + 1)) {
        *buf = realloc(*buf, room_for(need));
        assert_non_null(*buf);
    }
    va_start(ap, fmt);
    vsnprintf(*buf + *len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    *len += (size_t)n;
}

/* The line where the byte at offset pos lies, counted independently of the parser. */
static unsigned long line_at(const char *s, size_t pos)
{
    unsigned long line = 1;
    for (size_t i = 0; i < pos; i++)
        line += s[i] == '\n';
    return line;
}

/* Records that cross the 64 KiB read blocks, quoted or very long, keep exact line numbers. */
static void records_across_read_blocks_keep_line_numbers(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0, rows = 0;
    append(&text, &len, "Frequency,1000\n");
    /* Plain rows up to just before the first block boundary, then a quoted id spanning it. */
    while (len < 65536 - 20) {
        append(&text, &len, "r,%zu\n", rows);
        rows++;
    }
    append(&text, &len, "\"across\n\nthe\nboundary\",1\n");
    rows++;
    size_t bad1 = len;
    append(&text, &len, "r,bad1\n");
    /* A 100000-byte id, longer than a block, then more plain rows past the next boundary. */
    append(&text, &len, "\"");
    for (int i = 0; i < 10000; i++)
        append(&text, &len, "long\nid.\n");
    append(&text, &len, "\",2\n");
    rows++;
    size_t bad2 = len;
    append(&text, &len, "r,bad2\n");
    while (len < 5 * 65536) {
        append(&text, &len, "r,%zu\n", rows);
        rows++;
    }
    size_t bad3 = len;
    append(&text, &len, "r,\"bad3\"\n");
    /* An unquoted line longer than a block. */
    append(&text, &len, "x");
    for (int i = 0; i < 70000; i++)
        append(&text, &len, "y");
    append(&text, &len, ",3\n");
    rows++;
    size_t bad4 = len;
    append(&text, &len, "r,bad4\n");
    /* A line longer than a block that libcsv refuses near its start: all of it is skipped. */
    size_t bad5 = len;
    append(&text, &len, "r\"q");
    for (int i = 0; i < 70000; i++)
        append(&text, &len, "y");
    append(&text, &len, ",4\n");
    size_t bad6 = len;
    append(&text, &len, "r,bad6\n");

    struct log l = {0};
    l.count_only = 1;
    assert_int_equal(parse_bytes(text, len, &l, NULL, NULL), RUNFILE_OK);
    assert_int_equal(l.nevents, rows);
    char want[6][160];
    snprintf(want[0], sizeof want[0], "problem %lu: column delta: \"bad1\" is not a number",
             line_at(text, bad1));
    snprintf(want[1], sizeof want[1], "problem %lu: column delta: \"bad2\" is not a number",
             line_at(text, bad2));
    snprintf(want[2], sizeof want[2], "problem %lu: column delta: \"bad3\" is not a number",
             line_at(text, bad3));
    snprintf(want[3], sizeof want[3], "problem %lu: column delta: \"bad4\" is not a number",
             line_at(text, bad4));
    snprintf(want[4], sizeof want[4],
             "problem %lu: malformed CSV (error parsing data while strict checking enabled): "
             "line skipped",
             line_at(text, bad5));
    snprintf(want[5], sizeof want[5], "problem %lu: column delta: \"bad6\" is not a number",
             line_at(text, bad6));
    const char *const wants[] = {"begin seed 1000", want[0], want[1], want[2],
                                 want[3],           want[4], want[5]};
    check_log(&l, wants, 7);
    free(text);
}

/* Record a field of the CSV layer in a trace: its length, then its bytes. */
static void trace_field(void *ctx, const char *s, size_t len)
{
    prof_sbuf_addf(ctx, "F%zu:", len);
    prof_sbuf_add(ctx, s, len);
}

/* Record a record end of the CSV layer and the byte that ended it. */
static void trace_record(void *ctx, int c) { prof_sbuf_addf(ctx, "R%d;", c); }

/* Record a metadata record in a trace. */
static void trace_meta(void *ctx, const char *const *fields, const size_t *lens, size_t n)
{
    prof_sbuf_addf(ctx, "meta %zu", n);
    for (size_t i = 0; i < n; i++)
        trace_field(ctx, fields[i], lens[i]);
    prof_sbuf_char(ctx, '\n');
}

/* Record the start of the table. */
static void trace_begin(void *ctx, enum run_kind kind, uint64_t frequency)
{
    prof_sbuf_addf(ctx, "begin %d %llu\n", (int)kind, (unsigned long long)frequency);
}

/* Record an events or seed row, every member. */
static void trace_event(void *ctx, const struct prof_event_rec *e)
{
    /* runfile.h: every text has a NUL at [len], whichever path read it. */
    assert_true(e->region && e->region[e->region_len] == 0);
    assert_true(e->parent && e->parent[e->parent_len] == 0);
    prof_sbuf_str(ctx, "event");
    trace_field(ctx, e->region, e->region_len);
    trace_field(ctx, e->parent, e->parent_len);
    prof_sbuf_addf(ctx, " %u %u %d %d %llu %llu %llu %u %u\n", e->thread, e->depth, e->stopped,
                   e->nested, (unsigned long long)e->ticks, (unsigned long long)e->self,
                   (unsigned long long)e->start, e->region_id, e->parent_id);
}

/* Record a summary row, every member and histogram pair. */
static void trace_summary(void *ctx, const struct prof_summary_rec *s)
{
    prof_sbuf_str(ctx, "summary");
    trace_field(ctx, s->region, s->region_len);
    prof_sbuf_addf(ctx, " %u %u %u %llu %llu %llu %llu %llu %llu %a", s->thread, s->node, s->parent,
                   (unsigned long long)s->calls, (unsigned long long)s->ticks,
                   (unsigned long long)s->self, (unsigned long long)s->min,
                   (unsigned long long)s->max, (unsigned long long)s->outer, s->sumsq);
    for (size_t i = 0; i < s->nhist; i++)
        prof_sbuf_addf(ctx, " %u:%llu", (unsigned)s->hist_bucket[i],
                       (unsigned long long)s->hist_count[i]);
    prof_sbuf_char(ctx, '\n');
}

/* Record a memory-section row. */
static void trace_memory(void *ctx, const struct run_memory *m)
{
    prof_sbuf_addf(ctx, "memory %s %u %u %s %s %llu %llu", m->kind, m->thread, m->other_thread,
                   m->alloc_kind, m->free_kind, (unsigned long long)m->count,
                   (unsigned long long)m->bytes);
    trace_field(ctx, m->region, m->region_len);
    trace_field(ctx, m->site, m->site_len);
    trace_field(ctx, m->other_site, m->other_site_len);
    trace_field(ctx, m->function, m->function_len);
    trace_field(ctx, m->stack, m->stack_len);
    prof_sbuf_char(ctx, '\n');
}

/* Record a problem and its line. */
static void trace_problem(void *ctx, unsigned long line, const char *message)
{
    prof_sbuf_addf(ctx, "problem %lu %s\n", line, message);
}

/* What one reading gave: the CSV layer's fields and records, and the handler's calls. */
struct reading {
    struct prof_sbuf csv, calls;
};

/* The reader's ways through quote-free lines. */
enum way {
    WAY_LIBCSV,  /* libcsv only */
    WAY_PLAIN,   /* plain_split, its fields and records traced */
    WAY_ROWSCAN, /* rows through rowscan (no fields to trace), other lines through plain_split */
};

/* Read text[0..len) with runfile_parse_tuned the given way, block bytes per read. */
static void read_traced(const char *text, size_t len, enum way way, size_t block,
                        struct reading *out)
{
    memset(out, 0, sizeof *out);
    struct run_handler h = {&out->calls,   trace_meta,    trace_begin,  trace_event,
                            trace_summary, trace_problem, trace_memory, NULL};
    struct runfile_tuning t = {.libcsv_only = way == WAY_LIBCSV, .block = block};
    if (way != WAY_ROWSCAN) {
        t.field = trace_field;
        t.record = trace_record;
        t.ctx = &out->csv;
    }
    FILE *f = fmemopen((void *)text, len, "r");
    assert_non_null(f);
    struct rep_error why;
    unsigned long line = 0;
    enum run_status st = runfile_parse_tuned(f, "t", &h, &why, &line, &t);
    fclose(f);
    prof_sbuf_addf(&out->calls, "status %d %lu %s\n", (int)st, line, why.msg);
    assert_false(out->csv.failed || out->calls.failed);
}

/* Two traces are equal (their first difference shown when they are not). */
static void check_same_trace(const struct prof_sbuf *want, const struct prof_sbuf *got,
                             const char *what, size_t block)
{
    if (want->len == got->len && (want->len == 0 || memcmp(want->data, got->data, want->len) == 0))
        return;
    size_t at = 0;
    while (at < want->len && at < got->len && want->data[at] == got->data[at])
        at++;
    fprintf(stderr, "%s, %zu-byte reads: traces differ at byte %zu of %zu/%zu\n", what, block, at,
            want->len, got->len);
    fail();
}

/* The reader gives the same fields, records and handler calls with plain_split as with libcsv
   alone, and the same handler calls with rowscan, reading block bytes at a time. */
static void check_fast_path(const char *text, size_t len, size_t block, const char *what)
{
    struct reading slow, fast, rows;
    read_traced(text, len, WAY_LIBCSV, block, &slow);
    read_traced(text, len, WAY_PLAIN, block, &fast);
    read_traced(text, len, WAY_ROWSCAN, block, &rows);
    check_same_trace(&slow.csv, &fast.csv, what, block);
    check_same_trace(&slow.calls, &fast.calls, what, block);
    check_same_trace(&slow.calls, &rows.calls, what, block);
    prof_sbuf_release(&slow.csv);
    prof_sbuf_release(&slow.calls);
    prof_sbuf_release(&fast.csv);
    prof_sbuf_release(&fast.calls);
    prof_sbuf_release(&rows.calls);
}

/* Check the fast path on text read in reads of every size from 1 to its length: every
   record is cut at every offset by some read. */
static void check_fast_path_every_block(const char *text, size_t len, size_t max_block,
                                        const char *what)
{
    check_fast_path(text, len, 0, what);
    for (size_t b = 1; b <= len + 1 && b <= max_block; b++)
        check_fast_path(text, len, b, what);
}

/* A corpus file reads the same with the fast path and without, in reads of up to 64 bytes. */
static void check_corpus_fast_path(const char *path, const char *text, size_t len, void *ctx)
{
    (void)ctx;
    check_fast_path_every_block(text, len, 64, path);
}

/* Every file of the fuzz corpus of run files and seed files gives the same fields, records and
   rows with the fast path as with libcsv alone, in 64 KiB reads and in short ones. */
static void fast_path_agrees_with_libcsv_on_the_corpus(void **state)
{
    (void)state;
    static const char *const dirs[] = {"tests/fuzz/corpus/runfile", "tests/fuzz/corpus/seed"};
    assert_true(corpus_each(dirs, 2, check_corpus_fast_path, NULL) >= 10);
}

/* Quoted fields in the middle of plain lines, CRLF, lone CRs, empty lines, spaces, NULs,
   malformed quotes and a last row without its line end: both paths agree however the file is
   cut into reads. */
static void fast_path_agrees_with_libcsv_on_tricky_lines(void **state)
{
    (void)state;
    static const char events[] = "\xef\xbb\xbf"
                                 "Frequency,1000\r\nFormat,profreport-run,2\r\nMode,events\n\n"
                                 "Note, spaced ,\t,\n"
                                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\r\n"
                                 "a,5,1,,0,5,0,0\n"
                                 "\"b,\"\"q\"\"\",7,1,a,1,7,1,0\r\n"
                                 "\r\n\n"
                                 "c,9,1,\"a\nb\",1,9,2,0\n"
                                 "d,1,1,,0,1,3,1\rx,y\n"
                                 "e,2,1,,0,2,4,0\n"
                                 "f\"g,2,1,,0,2,4,0\n"
                                 "h,3,2,,0,3,5,0\n"
                                 "i,,2,,0,,6,0\n"
                                 "n\0ul,4,2,,0,4,7,0\n"
                                 /* at the edges of rowscan's rows (rowscan.h) */
                                 "k,18446744073709551615,1,,0,1,9,0\n"
                                 "k,1234567890123456789,1,,0,1,9,0\n"
                                 "k,5,4294967296,,0,5,9,0\n"
                                 "k,5,4294967295,,999999999,5,9,0\n"
                                 "l,5,1,p\rq,1,5,9,0\n"
                                 "m,5,1,,0,5,9,2\n"
                                 "m,5,1,,0,5,9,01\n"
                                 "m,5,1,,0,5,9,1,extra\n"
                                 "m,5,1,,0,5,9\n"
                                 ",5,1,,0,5,9,0\n"
                                 "m,5,1,,0,5,9,1\r\n"
                                 "m,+5,1,,0,5,9,1\n"
                                 "m,5,1,,0,5 ,9,1\n"
                                 "j,4,2,,0,4,8,0";
    check_fast_path_every_block(events, sizeof events - 1, sizeof events, "events");
    static const char seed[] = "Frequency,1000\nr,1\n\nr,\n\"q\",2\nr,3\r\n,\n,,\n,7\n"
                               "r,1234567890123456789\nr,12345678901234567890\nr,+5\nr,5 \n"
                               "Table,memory\nr,5,6\nlast,4";
    check_fast_path_every_block(seed, sizeof seed - 1, sizeof seed, "seed");
    static const char quoted_tail[] = "Frequency,1000\nr,1\n\"open,2\nr,3\n";
    check_fast_path_every_block(quoted_tail, sizeof quoted_tail - 1, sizeof quoted_tail,
                                "quoted tail");
}

/* Lines longer than a read, plain and quoted, around many short ones: both paths agree. */
static void fast_path_agrees_with_libcsv_on_long_lines(void **state)
{
    (void)state;
    struct prof_sbuf text = {0};
    prof_sbuf_str(&text, "Frequency,1000\n");
    for (int i = 0; i < 20000; i++)
        prof_sbuf_addf(&text, "r%d,%d\n", i % 50, i);
    prof_sbuf_str(&text, "x");
    for (int i = 0; i < 100000; i++)
        prof_sbuf_char(&text, (char)('a' + i % 26));
    prof_sbuf_str(&text, ",5\n\"");
    for (int i = 0; i < 10000; i++)
        prof_sbuf_str(&text, "long\r\nid,");
    prof_sbuf_str(&text, "\",6\n");
    for (int i = 0; i < 20000; i++)
        prof_sbuf_addf(&text, "r%d,%d\r\n", i % 50, i);
    assert_false(text.failed);
    check_fast_path(text.data, text.len, 0, "long lines");
    check_fast_path(text.data, text.len, 4096, "long lines");
    check_fast_path(text.data, text.len, 65537, "long lines");
    prof_sbuf_release(&text);
}

/* Starts read from an events table, and the rows refused. */
/* What a reading of numbers gave: the value of one column of each row, and the rows refused. */
struct numbers {
    int column; /* PROF_EV_* */
    uint64_t v[4096];
    size_t n, problems;
};

/* Keep the row's value of the column read. */
static void numbers_event(void *ctx, const struct prof_event_rec *e)
{
    struct numbers *s = ctx;
    assert_true(s->n < sizeof s->v / sizeof *s->v);
    uint64_t v = s->column == PROF_EV_TICKS    ? e->ticks
                 : s->column == PROF_EV_THREAD ? e->thread
                 : s->column == PROF_EV_DEPTH  ? e->depth
                 : s->column == PROF_EV_SELF   ? e->self
                                               : e->start;
    s->v[s->n++] = v;
}

/* Count the rows refused. */
static void numbers_problem(void *ctx, unsigned long line, const char *message)
{
    (void)line;
    (void)message;
    ((struct numbers *)ctx)->problems++;
}

/* Numbers of every length from 1 to 21 digits, and with a byte that is not a digit (just
   below '0', just above '9', a letter, a space) at each place, in each numeric column of an
   events row: read as strtoull reads them (Thread and Depth up to UINT_MAX), by rowscan and by
   plain_split alike. Rowscan takes up to 9 or 19 digits and leaves longer numbers to the
   checks; the general path reads the first 8 digits of a long number at once. */
static void numbers_of_every_length_are_read_exactly(void **state)
{
    (void)state;
    static const char bad[] = {'/', ':', 'x', ' '};
    static const int columns[] = {PROF_EV_TICKS, PROF_EV_THREAD, PROF_EV_DEPTH, PROF_EV_SELF,
                                  PROF_EV_START};
    for (size_t c = 0; c < sizeof columns / sizeof *columns; c++) {
        int column = columns[c];
        uint64_t limit =
            column == PROF_EV_THREAD || column == PROF_EV_DEPTH ? UINT_MAX : UINT64_MAX;
        struct prof_sbuf text = {0};
        prof_sbuf_str(&text, "Frequency,1000\nFormat,profreport-run,3\nMode,events\n"
                             "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n");
        static uint64_t want[4096];
        size_t nwant = 0, nbad = 0;
        uint64_t x = 0x2545f4914f6cdd1dull;
        for (int len = 1; len <= 21; len++) {
            for (int k = 0; k < 40; k++) {
                char num[32];
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                for (int i = 0; i < len; i++)
                    num[i] = (char)('0' + (x >> (i * 3 % 60)) % 10);
                num[len] = 0;
                if (k == 0)
                    memset(num, '9', (size_t)len); /* the largest of each length */
                if (k == 1 && len == 10)
                    memcpy(num, "4294967295", 10); /* UINT_MAX */
                if (k == 1 && len == 20)
                    memcpy(num, "18446744073709551615", 20); /* UINT64_MAX */
                int poisoned = k >= 30 && k - 30 < len;
                if (poisoned) {
                    num[k - 30] = bad[k % 4];
                    nbad++;
                }
                const char *f[PROF_EV_N] = {"r", "7", "2", "p", "3", "5", "11", "1"};
                f[column] = num;
                prof_sbuf_addf(&text, "%s,%s,%s,%s,%s,%s,%s,%s\n", f[0], f[1], f[2], f[3], f[4],
                               f[5], f[6], f[7]);
                if (poisoned)
                    continue;
                errno = 0;
                unsigned long long v = strtoull(num, NULL, 10);
                if (errno == ERANGE || v > limit)
                    nbad++;
                else
                    want[nwant++] = v;
            }
        }
        assert_false(text.failed);
        for (int no_rowscan = 0; no_rowscan <= 1; no_rowscan++) {
            struct numbers got = {.column = column};
            struct run_handler h = {
                .ctx = &got, .event = numbers_event, .problem = numbers_problem};
            FILE *f = fmemopen(text.data, text.len, "r");
            assert_non_null(f);
            struct runfile_tuning t = {.no_rowscan = no_rowscan};
            runfile_parse_tuned(f, "t", &h, NULL, NULL, &t);
            fclose(f);
            assert_int_equal(got.problems, nbad);
            assert_int_equal(got.n, nwant);
            for (size_t i = 0; i < nwant; i++)
                if (got.v[i] != want[i])
                    fail_msg("column %d, row %zu%s: read %llu, want %llu", column, i,
                             no_rowscan ? " (plain_split)" : "", (unsigned long long)got.v[i],
                             (unsigned long long)want[i]);
        }
        prof_sbuf_release(&text);
    }
}

/* Run every test of runfile.c. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(events_table_gives_metadata_begin_and_rows),
        cmocka_unit_test(empty_ticks_and_self_mean_not_stopped),
        cmocka_unit_test(ticks_and_self_are_empty_together),
        cmocka_unit_test(summary_table_gives_rows_with_histogram),
        cmocka_unit_test(summary_bad_sum_of_squares_is_reported),
        cmocka_unit_test(summary_bad_histogram_is_reported),
        cmocka_unit_test(summary_bad_integers_are_reported),
        cmocka_unit_test(seed_form_gives_id_delta_rows),
        cmocka_unit_test(seed_empty_delta_never_stopped),
        cmocka_unit_test(seed_rows_are_checked),
        cmocka_unit_test(frequency_alone_is_a_seed_file_without_rows),
        cmocka_unit_test(two_field_format_record_is_a_seed_row),
        cmocka_unit_test(quoted_ids_keep_commas_quotes_and_line_ends),
        cmocka_unit_test(unquoted_spaces_are_kept),
        cmocka_unit_test(spaces_are_kept_in_a_block_with_quotes),
        cmocka_unit_test(nul_bytes_keep_field_length),
        cmocka_unit_test(bom_is_skipped),
        cmocka_unit_test(crlf_line_ends_are_read_and_counted_once),
        cmocka_unit_test(blank_lines_and_empty_records_are_ignored),
        cmocka_unit_test(message_values_are_escaped_and_cut),
        cmocka_unit_test(unknown_format_version_is_skipped),
        cmocka_unit_test(other_format_kind_is_skipped),
        cmocka_unit_test(missing_frequency_is_skipped),
        cmocka_unit_test(bad_frequency_is_skipped),
        cmocka_unit_test(empty_file_is_skipped),
        cmocka_unit_test(file_ending_before_header_is_skipped),
        cmocka_unit_test(missing_or_unknown_mode_is_skipped),
        cmocka_unit_test(header_missing_column_is_skipped),
        cmocka_unit_test(header_wrong_column_is_skipped),
        cmocka_unit_test(extra_trailing_columns_are_ignored),
        cmocka_unit_test(wrong_field_count_is_reported_and_skipped),
        cmocka_unit_test(bad_numbers_name_column_and_value),
        cmocka_unit_test(thread_cpu_records_are_checked),
        cmocka_unit_test(overflow_is_reported),
        cmocka_unit_test(line_numbers_count_line_ends_inside_quoted_ids),
        cmocka_unit_test(truncated_inside_quoted_field),
        cmocka_unit_test(truncated_seed_file_after_frequency),
        cmocka_unit_test(events_row_without_line_end_is_truncated),
        cmocka_unit_test(seed_row_without_line_end_is_read),
        cmocka_unit_test(strict_csv_error_skips_the_line_and_goes_on),
        cmocka_unit_test(strict_csv_error_in_multiline_record_names_both_lines),
        cmocka_unit_test(read_error_is_io_error),
        cmocka_unit_test(each_parse_keeps_its_own_reason),
        cmocka_unit_test(callbacks_may_be_null),
        cmocka_unit_test(version_2_memory_section_is_read),
        cmocka_unit_test(memory_function_and_stack_are_read),
        cmocka_unit_test(memory_section_needs_version_2),
        cmocka_unit_test(bad_memory_rows_are_problems),
        cmocka_unit_test(summary_section_follows_the_table_or_the_memory_section),
        cmocka_unit_test(version_3_summary_rows_have_node_and_parent),
        cmocka_unit_test(summary_header_columns_follow_the_version),
        cmocka_unit_test(version_3_summary_section_has_paths),
        cmocka_unit_test(version_3_rows_out_of_their_tree_are_problems),
        cmocka_unit_test(summary_section_needs_an_events_table_and_its_header),
        cmocka_unit_test(records_across_read_blocks_keep_line_numbers),
        cmocka_unit_test(fast_path_agrees_with_libcsv_on_the_corpus),
        cmocka_unit_test(fast_path_agrees_with_libcsv_on_tricky_lines),
        cmocka_unit_test(fast_path_agrees_with_libcsv_on_long_lines),
        cmocka_unit_test(numbers_of_every_length_are_read_exactly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
