/*
 * test_export.c - unit tests of export.c's pure parts: CSV, JSON, folded and callgrind text
 * for hostile names, trace events, and the folded, callgrind, CSV and JSON writers on small
 * trees and run files whose expected output is worked out by hand.
 */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "model/cct.h"
#include "out/export.h"
#include "model/model.h"
#include "read/input.h"
#include "base/util.h"

/* s after one of the sbuf formatters, as a fresh string. */
#define FORMAT(call, ...)                                                                          \
    ({                                                                                             \
        struct prof_sbuf b_ = {0};                                                                 \
        call(&b_, __VA_ARGS__);                                                                    \
        sbuf_take(&b_);                                                                            \
    })

/* Compare a formatter's output with the expected text. */
static void expect_csv(const char *in, const char *want)
{
    char *got = FORMAT(export_csv_text, in);
    assert_string_equal(got, want);
    free(got);
}

/* Cells a spreadsheet would run get a leading quote; RFC 4180 quoting as needed. */
static void csv_text_is_formula_safe(void **state)
{
    (void)state;
    expect_csv("plain", "plain");
    expect_csv("", "");
    expect_csv("=1+1", "'=1+1");
    expect_csv("+cmd", "'+cmd");
    expect_csv("-2", "'-2");
    expect_csv("@SUM(A1)", "'@SUM(A1)");
    expect_csv("\tx", "'\tx");
    expect_csv("\rx", "\"'\rx\"");
    expect_csv("a,b", "\"a,b\"");
    expect_csv("say \"hi\"", "\"say \"\"hi\"\"\"");
    expect_csv("=HYPERLINK(\"x\",\"y\")", "\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\"");
    expect_csv("line\nbreak", "\"line\nbreak\"");
    expect_csv("a=b", "a=b"); /* only the first character matters */
}

/* JSON strings escape quotes, backslashes and controls, and repair invalid UTF-8. */
static void json_text_is_valid_json(void **state)
{
    (void)state;
    char *got = FORMAT(export_json_text, "a\"b\\c\n\x01\x1f", 8);
    assert_string_equal(got, "\"a\\\"b\\\\c\\u000a\\u0001\\u001f\"");
    free(got);
    got = FORMAT(export_json_text,
                 "\xff"
                 "ok\xc3\xa9",
                 5);
    assert_string_equal(got, "\"\xef\xbf\xbdok\xc3\xa9\"");
    free(got);
    got = FORMAT(export_json_text, "a\0b", 3); /* a NUL inside an id */
    assert_string_equal(got, "\"a\xef\xbf\xbd"
                             "b\"");
    free(got);
}

/* A folded frame holds no ';' and no line break; a callgrind name no line break. */
static void folded_and_callgrind_names_stay_on_their_line(void **state)
{
    (void)state;
    char *got = FORMAT(export_folded_frame, "a;b\nc\td \x80", 9);
    /* Controls are written as C escapes, as everywhere names show. */
    assert_string_equal(got, "a:b\\nc\\td \xef\xbf\xbd");
    free(got);
    got = FORMAT(export_callgrind_name, "x;y\r\nz", 6);
    assert_string_equal(got, "x;y\\r\\nz");
    free(got);
}

/* Trace events: microseconds with ns resolution, B for an instance that never stopped. */
static void trace_events_are_complete_or_begin(void **state)
{
    (void)state;
    struct prof_sbuf b = {0};
    export_trace_event(&b, 1, "\"run\"", 2, 3, 1500, 1, 2000.4, 999.6, 1, 0);
    export_trace_event(&b, 0, "\"open\"", 2, 3, 7, 0, 0, 0, 0, 1);
    assert_string_equal(sbuf_text(&b),
                        "{\"name\":\"run\",\"cat\":\"region\",\"ph\":\"X\",\"ts\":1.500,"
                        "\"dur\":2.000,\"pid\":2,\"tid\":3,\"args\":{\"self_us\":1.000,"
                        "\"depth\":1}},\n"
                        "{\"name\":\"open\",\"cat\":\"region\",\"ph\":\"B\",\"ts\":0.007,"
                        "\"pid\":2,\"tid\":3,\"args\":{\"never_stopped\":1,\"depth\":0,"
                        "\"nested\":1}}");
    prof_sbuf_release(&b);
}

/* A trace event as printf writes it: the reference the writer's inline numbers must match. */
static void trace_event_by_printf(struct prof_sbuf *b, int first, const char *name_json, size_t pid,
                                  unsigned tid, double start_ns, int stopped, double dur_ns,
                                  double self_ns, unsigned depth, int nested)
{
    if (!first)
        prof_sbuf_add(b, ",\n", 2);
    if (stopped)
        prof_sbuf_addf(b,
                       "{\"name\":%s,\"cat\":\"region\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
                       "\"pid\":%zu,\"tid\":%u,\"args\":{\"self_us\":%.3f,\"depth\":%u%s}}",
                       name_json, start_ns / 1e3, dur_ns / 1e3, pid, tid, self_ns / 1e3, depth,
                       nested ? ",\"nested\":1" : "");
    else
        prof_sbuf_addf(b,
                       "{\"name\":%s,\"cat\":\"region\",\"ph\":\"B\",\"ts\":%.3f,\"pid\":%zu,"
                       "\"tid\":%u,\"args\":{\"never_stopped\":1,\"depth\":%u%s}}",
                       name_json, start_ns / 1e3, pid, tid, depth, nested ? ",\"nested\":1" : "");
}

/* Random events (times from a 2.1 GHz clock, big and tiny, negative self times of clock skew,
   NaN) are written byte for byte as printf writes them. */
static void trace_events_match_printf(void **state)
{
    (void)state;
    struct prof_sbuf got = {0}, want = {0};
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double start = (double)(x >> (20 + i % 30)) * (1e9 / 2096008000.0);
        double dur = (double)(x >> (40 + i % 24)) * (1e9 / 2096008000.0);
        double self = i % 97 == 0 ? -dur / 7 : i % 101 == 0 ? NAN : dur * 0.4;
        int stopped = i % 13 != 0, nested = i % 3 == 0;
        unsigned depth = (unsigned)(x % 200), tid = (unsigned)(x >> 50);
        size_t pid = (size_t)(x % 1000);
        export_trace_event(&got, i == 0, "\"r\"", pid, tid, start, stopped, dur, self, depth,
                           nested);
        trace_event_by_printf(&want, i == 0, "\"r\"", pid, tid, start, stopped, dur, self, depth,
                              nested);
    }
    assert_false(got.failed || want.failed);
    assert_int_equal(got.len, want.len);
    assert_memory_equal(got.data, want.data, got.len);
    prof_sbuf_release(&got);
    prof_sbuf_release(&want);
}

/* A small tree: main (self 10.4) -> {b (self 5, 3 calls), a (self 0.2)}, a -> c (self 7). */
static void small_tree(struct cct *t)
{
    struct cct_stream s;
    cct_init(t);
    cct_stream_begin(&s, t, t->root);
    cct_stream_row(&s, "b", 1, 1, 1, 2, 2);
    cct_stream_row(&s, "c", 1, 2, 1, 7, 7);
    cct_stream_row(&s, "a;x", 3, 1, 1, 7.2, 0.2);
    cct_stream_row(&s, "b", 1, 1, 1, 1.5, 1.5);
    cct_stream_row(&s, "b", 1, 1, 1, 1.5, 1.5);
    cct_stream_row(&s, "main", 4, 0, 1, 22.6, 10.4);
    cct_stream_end(&s);
}

/* Text written to a memory stream by fn(f, ...). */
static char *written(int (*fn)(FILE *, const struct cct *), const struct cct *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(fn(f, t), 0);
    fclose(f);
    return text;
}

static int folded_of(FILE *f, const struct cct *t) { return export_folded_write(f, t, NULL); }

/* One line per path with at least 1 ns of self time, frames joined by ';'. */
static void folded_lines_are_paths_with_self_time(void **state)
{
    (void)state;
    struct cct t;
    small_tree(&t);
    char *text = written(folded_of, &t);
    /* "a;x" is one frame: its ';' becomes ':'. Self 0.2 rounds to 0: no line. */
    assert_string_equal(text, "main 10\nmain;a:x;c 7\nmain;b 5\n");
    free(text);
    cct_release(&t);
}

/* A chain of depth frames f0 -> f1 -> ..., each with 1 ns of self time, and a second
   branch "g" under the deepest frame with 5 ns. */
static void chain_tree(struct cct *t, unsigned depth)
{
    struct cct_stream s;
    cct_init(t);
    cct_stream_begin(&s, t, t->root);
    cct_stream_row(&s, "g", 1, depth, 1, 5, 5);
    for (unsigned d = depth; d-- > 0;) {
        char name[16];
        int n = snprintf(name, sizeof name, "f%u", d);
        cct_stream_row(&s, name, (size_t)n, d, 1, depth - d + 5, 1);
    }
    cct_stream_end(&s);
}

/* Paths deeper than the limit are folded: one line for their limit-deep prefix holds their
   self time (the total is kept), no line has more frames than the limit and the fold's frame,
   and the number of paths folded is told. */
static void folded_paths_deeper_than_the_limit_are_folded_and_counted(void **state)
{
    (void)state;
    unsigned depth = EXPORT_FOLDED_MAX_DEPTH + 500;
    struct cct t;
    chain_tree(&t, depth);
    char *text = NULL;
    size_t len = 0;
    uint64_t folded = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(export_folded_write(f, &t, &folded), 0);
    fclose(f);
    /* f1024 .. f1523 and g lie deeper than the limit. */
    assert_int_equal(folded, depth - EXPORT_FOLDED_MAX_DEPTH + 1);
    size_t lines = 0, most = 0;
    unsigned long long total = 0;
    const char *deeper = NULL;
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n');
        assert_non_null(end);
        size_t frames = 1;
        for (char *p = line; p < end; p++)
            frames += *p == ';';
        most = frames > most ? frames : most;
        char *space = end;
        while (space > line && *space != ' ')
            space--;
        assert_true(*space == ' ');
        total += strtoull(space + 1, NULL, 10);
        if (strstr(line, EXPORT_FOLDED_DEEPER) && strstr(line, EXPORT_FOLDED_DEEPER) < end)
            deeper = line;
        lines++;
        line = end + 1;
    }
    assert_int_equal(lines, EXPORT_FOLDED_MAX_DEPTH + 1);
    assert_int_equal(most, EXPORT_FOLDED_MAX_DEPTH + 1);
    assert_int_equal(total, depth + 5); /* every frame's 1 ns, and g's 5 */
    assert_non_null(deeper);
    char want[64];
    snprintf(want, sizeof want, ";f%u;%s %u\n", EXPORT_FOLDED_MAX_DEPTH - 1, EXPORT_FOLDED_DEEPER,
             depth - EXPORT_FOLDED_MAX_DEPTH + 5);
    assert_memory_equal(strchr(deeper, '\n') - strlen(want) + 1, want, strlen(want));
    /* Within the limit, nothing is folded. */
    free(text);
    cct_release(&t);
    chain_tree(&t, EXPORT_FOLDED_MAX_DEPTH - 1);
    f = open_memstream(&text, &len);
    assert_int_equal(export_folded_write(f, &t, &folded), 0);
    fclose(f);
    assert_int_equal(folded, 0);
    assert_null(strstr(text, EXPORT_FOLDED_DEEPER));
    free(text);
    cct_release(&t);
}

static int callgrind_of(FILE *f, const struct cct *t)
{
    return export_callgrind_write(f, t, "app --fast", 1, NULL);
}

/* Callgrind: self cost per function, calls and inclusive cost per call, exact sums. */
static void callgrind_has_calls_and_inclusive_costs(void **state)
{
    (void)state;
    struct cct t;
    small_tree(&t);
    char *text = written(callgrind_of, &t);
    /* Whole ns: main 10, a;x 0, c 7, b 5 -> total 22; a;x's inclusive is 0 + 7. */
    assert_non_null(strstr(text, "cmd: app --fast\n"));
    assert_non_null(strstr(text, "events: ns\nsummary: 22\n"));
    assert_non_null(strstr(text, "\ntotals: 22\n"));
    const char *body = strstr(text, "fl=(1) regions\n");
    assert_non_null(body);
    char want[512];
    unsigned main_id = (unsigned)cct_intern(&t, "main", 4) + 1;
    unsigned a_id = (unsigned)cct_intern(&t, "a;x", 3) + 1;
    unsigned b_id = (unsigned)cct_intern(&t, "b", 1) + 1;
    unsigned c_id = (unsigned)cct_intern(&t, "c", 1) + 1;
    snprintf(want, sizeof want,
             "fl=(1) regions\n"
             "fn=(%u) main\n0 10\n"
             "cfn=(%u) a;x\ncalls=1 0\n0 7\n"
             "cfn=(%u) b\ncalls=3 0\n0 5\n"
             "fn=(%u)\n0 0\n"
             "cfn=(%u) c\ncalls=1 0\n0 7\n"
             "fn=(%u)\n0 7\n"
             "fn=(%u)\n0 5\n"
             "\ntotals: 22\n",
             main_id, a_id, b_id, a_id, c_id, c_id, b_id);
    assert_string_equal(body, want);
    free(text);
    cct_release(&t);
}

/* Sources by name index, for callgrind_with_sources (set by the test that uses it). */
static struct export_source sources[8];

static int callgrind_with_sources(FILE *f, const struct cct *t)
{
    return export_callgrind_write(f, t, "app", 1, sources);
}

/* Callgrind with known sources: each function under fl= of its file at its line, "regions"
   only for the rest, file names compressed apart from function names, cfi= for a callee in
   another file, a call's cost at the caller's line and calls= naming the callee's line. */
static void callgrind_puts_functions_in_their_source_files(void **state)
{
    (void)state;
    struct cct t;
    small_tree(&t);
    assert_true(t.nnames <= 8);
    /* main in app.c at line 10, c in lib.c at line 3, the others unknown. */
    memset(sources, 0, sizeof sources);
    sources[cct_intern(&t, "main", 4)] = (struct export_source){"app.c", 10};
    sources[cct_intern(&t, "c", 1)] = (struct export_source){"lib.c", 3};
    char *text = written(callgrind_with_sources, &t);
    const char *body = strstr(text, "fl=");
    assert_non_null(body);
    char want[512];
    unsigned main_id = (unsigned)cct_intern(&t, "main", 4) + 1;
    unsigned a_id = (unsigned)cct_intern(&t, "a;x", 3) + 1;
    unsigned b_id = (unsigned)cct_intern(&t, "b", 1) + 1;
    unsigned c_id = (unsigned)cct_intern(&t, "c", 1) + 1;
    /* Files by name: app.c is (2), lib.c (3); (1) is "regions". */
    snprintf(want, sizeof want,
             "fl=(2) app.c\n"
             "fn=(%u) main\n10 10\n"
             "cfi=(1) regions\ncfn=(%u) a;x\ncalls=1 0\n10 7\n"
             "cfi=(1)\ncfn=(%u) b\ncalls=3 0\n10 5\n"
             "fl=(1)\nfn=(%u)\n0 0\n"
             "cfi=(3) lib.c\ncfn=(%u) c\ncalls=1 3\n0 7\n"
             "fl=(3)\nfn=(%u)\n3 7\n"
             "fl=(1)\nfn=(%u)\n0 5\n"
             "\ntotals: 22\n",
             main_id, a_id, b_id, a_id, c_id, c_id, b_id);
    assert_string_equal(body, want);
    free(text);
    cct_release(&t);
}

/* A run file in memory, read into a model. */
static void model_of(struct model *m, const char *text)
{
    model_init(m);
    FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
    assert_int_equal(input_add_run(m, f, "mem.csv", 0), RUNFILE_OK);
    fclose(f);
}

static const char run_text[] = "Frequency,1000000000\n"
                               "Format,profreport-run,1\n"
                               "Mode,events\n"
                               "Program,/bin/app\n"
                               "Threads,1\n"
                               "Thread,1,77,main,exited\n"
                               "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                               "\"=cmd|'/c calc'!A0\",100,1,top,1,100,10,0\n"
                               "top,400,1,,0,300,0,0\n"
                               "top,200,1,,0,200,500,0\n";

/* The Call cost table as CSV: ns, shares as fractions, the hostile id made harmless. */
static void csv_callcost_has_workbook_columns_in_ns(void **state)
{
    (void)state;
    struct model m;
    model_of(&m, run_text);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(export_csv_write(f, &m, TABLE_CALLCOST), 0);
    fclose(f);
    /* top: 2 calls, total 600, self 500 of 600, busy 600; mean 300, median 300, no source
       file or line, sample std dev sqrt(2 * 100^2) = 141.42..., min 200, max 400, P90 380,
       P99 398. */
    const char *want_top = "\ntop,top,2,600,1,500,0.8333333333333334,300,300,,,141.4213562373095,"
                           "200,400,380,398,1,300,,,,300,300,0,exact,,,,,,\n";
    assert_non_null(strstr(text, want_top));
    assert_non_null(strstr(text, "\n'=cmd|'/c calc'!A0,'=cmd|'/c calc'!A0,1,100,"));
    assert_true(strncmp(text, "Region,Short name,Calls,Total (ns),Total %,Self (ns)", 52) == 0);
    free(text);
    model_release(&m);
}

/* The JSON export holds every table as arrays of objects, null where the sheet is empty. */
static void json_holds_every_table(void **state)
{
    (void)state;
    struct model m;
    model_of(&m, run_text);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(export_json_write(f, &m, "profreport x", NULL), 0);
    fclose(f);
    assert_non_null(strstr(text, "\"command\": \"profreport x\""));
    assert_non_null(strstr(text,
                           "\"callcost\": [\n  {\"Region\": \"top\", \"Short name\": \"top\", "
                           "\"Calls\": 2, "
                           "\"Total (ns)\": 600,"));
    assert_non_null(strstr(text, "\"Run std dev (ns)\": null"));
    assert_non_null(strstr(text, "{\"Caller\": \"top\", \"Callee\": \"=cmd|'/c calc'!A0\", "
                                 "\"Calls\": 1, \"Total (ns)\": 100,"));
    assert_non_null(strstr(text, "\"threads\": [\n  {\"Run\": 1, \"File\": \"mem.csv\", "
                                 "\"Thread\": 1, \"Tid\": \"77\", \"Name\": \"main\""));
    free(text);
    model_release(&m);
}

/* --trace-limit sizes: digits, then k, M, G or T as powers of 1000, and an optional B. */
static void trace_limit_sizes_parse_and_print(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t bytes;
        const char *shown;
    } ok[] = {{"0", 0, "0 bytes"},
              {"1234", 1234, "1234 bytes"},
              {"600k", 600000, "600 kB"},
              {"500MB", 500000000, "500 MB"},
              {"1G", 1000000000, "1 GB"},
              {"2T", 2000000000000ull, "2 TB"},
              {"1500M", 1500000000, "1500 MB"}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        uint64_t v = 7;
        char text[32];
        assert_int_equal(export_size_parse(ok[i].text, &v), 0);
        assert_int_equal(v, ok[i].bytes);
        export_size_text(text, sizeof text, v);
        assert_string_equal(text, ok[i].shown);
    }
    static const char *const bad[] = {"",   "G",   "-1",  "+5",           "1.5G",
                                      "5X", "1GG", "1 G", "99999999999T", "18446744073709551616"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t v = 7;
        assert_int_equal(export_size_parse(bad[i], &v), -1);
        assert_int_equal(v, 7);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_text_is_formula_safe),
        cmocka_unit_test(json_text_is_valid_json),
        cmocka_unit_test(folded_and_callgrind_names_stay_on_their_line),
        cmocka_unit_test(trace_events_are_complete_or_begin),
        cmocka_unit_test(trace_events_match_printf),
        cmocka_unit_test(trace_limit_sizes_parse_and_print),
        cmocka_unit_test(folded_lines_are_paths_with_self_time),
        cmocka_unit_test(folded_paths_deeper_than_the_limit_are_folded_and_counted),
        cmocka_unit_test(callgrind_has_calls_and_inclusive_costs),
        cmocka_unit_test(callgrind_puts_functions_in_their_source_files),
        cmocka_unit_test(csv_callcost_has_workbook_columns_in_ns),
        cmocka_unit_test(json_holds_every_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
