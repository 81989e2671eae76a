/*
 * test_partfile.c - unit tests of reporter/read/partfile.c: a killed run's parts read straight into
 * a run_handler give the handler exactly what the run file written from them gives it.
 */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csvwrite.h"
#include "assemble.h"
#include "format.h"
#include "partwrite.h"
#include "strbuf.h"
#include "model/model.h"
#include "read/partfile.h"
#include "read/runfile.h"
#include "summary.h"

/* Every callback as one line of text, bytes shown as they are. */
static void add(struct prof_sbuf *log, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    prof_sbuf_str(log, line);
    prof_sbuf_char(log, '\n');
}

static void on_meta(void *ctx, const char *const *fields, const size_t *lens, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(fields[i][lens[i]], 0);
        prof_sbuf_add(ctx, fields[i], lens[i]);
        prof_sbuf_char(ctx, '|');
    }
    prof_sbuf_char(ctx, '\n');
}

static void on_begin(void *ctx, enum run_kind kind, uint64_t frequency)
{
    add(ctx, "begin %d %llu", (int)kind, (unsigned long long)frequency);
}

static void on_event(void *ctx, const struct prof_event_rec *e)
{
    prof_sbuf_add(ctx, e->region, e->region_len);
    prof_sbuf_char(ctx, '|');
    prof_sbuf_add(ctx, e->parent, e->parent_len);
    add(ctx, "|%d %llu %llu %llu %u %u %d", e->stopped, (unsigned long long)e->ticks,
        (unsigned long long)e->self, (unsigned long long)e->start, e->thread, e->depth, e->nested);
}

static void on_summary(void *ctx, const struct prof_summary_rec *s)
{
    prof_sbuf_add(ctx, s->region, s->region_len);
    add(ctx, "|%u %llu %llu %llu %llu %llu %llu %.17g %zu node %u parent %u", s->thread,
        (unsigned long long)s->calls, (unsigned long long)s->ticks, (unsigned long long)s->self,
        (unsigned long long)s->min, (unsigned long long)s->max, (unsigned long long)s->outer,
        s->sumsq, s->nhist, s->node, s->parent);
    for (size_t i = 0; i < s->nhist; i++)
        add(ctx, "  %u:%llu", s->hist_bucket[i], (unsigned long long)s->hist_count[i]);
}

static void on_problem(void *ctx, unsigned long line, const char *message)
{
    add(ctx, "problem %lu %s", line, message);
}

static void on_memory(void *ctx, const struct run_memory *m)
{
    add(ctx, "memory %s %u %s %s %s %s %u %s %llu %llu", m->kind, m->thread, m->region, m->site,
        m->alloc_kind, m->free_kind, m->other_thread, m->other_site, (unsigned long long)m->count,
        (unsigned long long)m->bytes);
}

/* What a handler is told about the run of the parts: through the run file (csv set) or
   straight from the parts. The log's text (caller frees). */
static char *told(const char *const *paths, size_t n, int csv)
{
    struct prof_sbuf log = {0};
    struct run_handler h = {&log,       on_meta,    on_begin,  on_event,
                            on_summary, on_problem, on_memory, NULL};
    struct rep_error why;
    unsigned long line = 0;
    if (csv) {
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        assert_int_equal(prof_assemble(paths, n, out, NULL), PROF_OK);
        fclose(out);
        FILE *in = fmemopen(text, len, "r");
        assert_int_equal(runfile_parse(in, "run", &h, &why, &line), RUNFILE_OK);
        fclose(in);
        free(text);
    } else {
        struct partfile pf;
        assert_int_equal(partfile_open(&pf, paths, n), PROF_OK);
        assert_int_equal(partfile_read(&pf, &h, &why, &line), RUNFILE_OK);
        partfile_close(&pf);
    }
    prof_sbuf_char(&log, 0);
    return log.data;
}

/* A part file of thread number, mode, ids and chunks (type, payload, length), end chunk last
   when state is set; returns its path (caller frees). */
static char *make_part(unsigned number, const char *mode, const char *const *ids, size_t nids,
                       const char *state)
{
    char *path = strdup("/tmp/prof-partfile-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    struct prof_sbuf h = {0};
    char num[16];
    snprintf(num, sizeof num, "%u", number);
    const char *pairs[] = {
        "Format",   PROF_PART_FORMAT, "Frequency", "2000", "Mode", mode,   "Program",
        "/bin/app", "Thread",         num,         "Tid",  "77",   "Name", "t,1"};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        prof_sbuf_add(&h, pairs[i], strlen(pairs[i]) + 1);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_HEADER, h.data, h.len), 0);
    h.len = 0;
    for (uint32_t i = 0; i < nids; i++) {
        uint32_t hdr[2] = {i, (uint32_t)strlen(ids[i])};
        prof_sbuf_add(&h, (const char *)hdr, 8);
        prof_sbuf_add(&h, ids[i], hdr[1]);
    }
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_IDS, h.data, h.len), 0);
    prof_sbuf_release(&h);
    if (strcmp(mode, "events") == 0) {
        uint32_t w[] = {0, 10, 1, 5, PROF_W_EXIT | 20, PROF_W_EXIT | 5, PROF_W_STRAY, 3, 2, 9};
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_EVENTS, w, sizeof w), 0);
        static const char warning[] = "kind\0folded\0count\0"
                                      "4\0message\0calls, folded\0";
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_WARNING, warning, sizeof warning - 1), 0);
        unsigned char mem[PROF_MEM_RECORD];
        uint32_t idx = 1;
        uint64_t cb[2] = {3, 96};
        memcpy(mem, &idx, 4);
        memcpy(mem + 4, cb, 16);
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_MEMORY, mem, sizeof mem), 0);
    } else {
        /* Version 3 records, one per calling context: a (no instance stopped) > b;c > a. */
        static uint64_t none[PROF_HIST_BUCKETS], hist[PROF_HIST_BUCKETS], one[PROF_HIST_BUCKETS];
        hist[2] = 1;
        hist[40] = 2;
        one[20] = 1;
        struct prof_summary_counts top = {.id = 0, .node = 1, .parent = 0};
        struct prof_summary_counts mid = {.id = 1,
                                          .calls = 3,
                                          .ticks = 300,
                                          .self = 250,
                                          .min = 2,
                                          .max = 149,
                                          .outer = 300,
                                          .sumsq = 2.0 / 3.0,
                                          .node = 2,
                                          .parent = 1};
        struct prof_summary_counts inner = {.id = 0,
                                            .calls = 1,
                                            .ticks = 50,
                                            .self = 50,
                                            .min = 50,
                                            .max = 50,
                                            .outer = 0,
                                            .sumsq = 2500,
                                            .node = 3,
                                            .parent = 2};
        struct prof_sbuf b = {0};
        prof_summary_encode(&b, &top, none);
        prof_summary_encode(&b, &mid, hist);
        prof_summary_encode(&b, &inner, one);
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_SNAPSHOT, b.data, b.len), 0);
        prof_sbuf_release(&b);
    }
    if (state)
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, state, strlen(state)), 0);
    close(fd);
    return path;
}

/* Events, parents, a region never stopped, a stray stop, warnings of the collector and of the
   reading, the memory section: the same callbacks either way. */
static void events_parts_tell_what_their_run_file_tells(void **state)
{
    (void)state;
    const char *ids[] = {"load", "parse \"x\",\ny", "idle"};
    char *p1 = make_part(1, "events", ids, 3, NULL);
    char *p2 = make_part(2, "events", ids, 3, "exited");
    const char *paths[] = {p2, p1};
    char *via_csv = told(paths, 2, 1), *direct = told(paths, 2, 0);
    assert_string_equal(direct, via_csv);
    /* And what it tells is the run: a few lines checked by hand. */
    assert_non_null(strstr(direct, "begin 0 2000\n"));
    assert_non_null(strstr(direct, "parse \"x\",\ny|load|1 20 20 15 1 1 0\n"));
    assert_non_null(strstr(direct, "Warning|folded|1|4|calls, folded|\n"));
    assert_non_null(strstr(direct, "Warning|unterminated|1|1|region never stopped: idle|\n"));
    assert_non_null(strstr(direct, "Thread|1|77|t,1|incomplete|\n"));
    assert_non_null(strstr(direct, "memory region-bytes 2 parse \"x\",\ny  "));
    free(via_csv);
    free(direct);
    unlink(p1);
    unlink(p2);
    free(p1);
    free(p2);
}

/* A killed summary-mode run: the snapshot's rows, histogram, node and parent included, the
   same either way. */
static void summary_parts_tell_what_their_run_file_tells(void **state)
{
    (void)state;
    const char *ids[] = {"a", "b;c"};
    char *p = make_part(5, "summary", ids, 2, NULL);
    const char *paths[] = {p};
    char *via_csv = told(paths, 1, 1), *direct = told(paths, 1, 0);
    assert_string_equal(direct, via_csv);
    assert_non_null(strstr(direct,
                           "begin 1 2000\n"
                           "a|5 0 0 0 0 0 0 0 0 node 1 parent 0\n"
                           "b;c|5 3 300 250 2 149 300 0.66666666666666663 2 node 2 parent 1\n"
                           "  2:1\n  40:2\n"
                           "a|5 1 50 50 50 50 0 2500 1 node 3 parent 2\n"
                           "  20:1\n"));
    free(via_csv);
    free(direct);
    unlink(p);
    free(p);
}

/* A killed summary-mode run read into the model: its call paths, callers and regions come
   from the part's version 3 records as they would from its run file. */
static void summary_parts_give_the_model_their_paths(void **state)
{
    (void)state;
    const char *ids[] = {"a", "b;c"};
    char *p = make_part(5, "summary", ids, 2, NULL);
    const char *paths[] = {p};
    struct partfile pf;
    assert_int_equal(partfile_open(&pf, paths, 1), PROF_OK);
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    assert_int_equal(model_read_run(&m, "killed", 1, partfile_read, &pf), RUNFILE_OK);
    partfile_close(&pf);
    const struct cct *t = model_paths(&m);
    uint32_t a = t->nodes[t->root].child;
    assert_int_not_equal(a, CCT_NONE);
    assert_string_equal(t->names[t->nodes[a].name], "a");
    assert_int_equal(t->nodes[a].sibling, CCT_NONE);
    assert_int_equal(t->nodes[a].calls, 0);
    uint32_t bc = t->nodes[a].child;
    assert_string_equal(t->names[t->nodes[bc].name], "b;c");
    assert_int_equal(t->nodes[bc].calls, 3);
    uint32_t inner = t->nodes[bc].child;
    assert_string_equal(t->names[t->nodes[inner].name], "a");
    assert_int_equal(t->nodes[inner].calls, 1);
    assert_true(t->nodes[inner].total_ns == 25e6); /* 50 ticks at 2000 per second */
    /* Two edges, a -> b;c and b;c -> a; a's one call is its recursive one. */
    assert_int_equal(m.nedges, 2);
    for (size_t i = 0; i < m.nedges; i++)
        assert_int_equal(m.edges[i].calls, strcmp(m.regions[m.edges[i].callee].name, "a") ? 3 : 1);
    assert_int_equal(m.regions[0].cost.n + m.regions[1].cost.n, 4);
    model_release(&m);
    unlink(p);
    free(p);
}

/* A part gone between partfile_open and partfile_read makes the run a read error, whose
   reason is an error value of the caller's (nothing static). */
static void part_gone_since_open_is_a_read_error(void **state)
{
    (void)state;
    const char *ids[] = {"a"};
    char *p = make_part(1, "events", ids, 1, "exited");
    const char *paths[] = {p};
    struct partfile pf;
    assert_int_equal(partfile_open(&pf, paths, 1), PROF_OK);
    unlink(p);
    struct prof_sbuf log = {0};
    struct run_handler h = {&log,       on_meta,    on_begin,  on_event,
                            on_summary, on_problem, on_memory, NULL};
    struct rep_error why = {REP_OK, "unset"};
    unsigned long line = 99;
    assert_int_equal(partfile_read(&pf, &h, &why, &line), RUNFILE_IO_ERROR);
    partfile_close(&pf);
    assert_int_equal(why.code, REP_ERR_NO_INPUT);
    assert_string_equal(why.msg, prof_strerror(PROF_ERR_IO));
    assert_int_equal(line, 0);
    prof_sbuf_release(&log);
    free(p);
}

/* Files that are not parts are refused before the handler hears of them. */
static void foreign_files_are_refused(void **state)
{
    (void)state;
    char path[] = "/tmp/prof-partfile-XXXXXX";
    int fd = mkstemp(path);
    assert_int_equal(write(fd, "Frequency,1000\n", 15), 15);
    close(fd);
    const char *paths[] = {path, "/nonexistent/x.1.part"};
    struct partfile pf;
    assert_int_equal(partfile_open(&pf, paths, 2), PROF_ERR_FORMAT);
    assert_int_equal(partfile_open(&pf, paths, 0), PROF_ERR_ARGUMENT);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(events_parts_tell_what_their_run_file_tells),
        cmocka_unit_test(summary_parts_tell_what_their_run_file_tells),
        cmocka_unit_test(summary_parts_give_the_model_their_paths),
        cmocka_unit_test(foreign_files_are_refused),
        cmocka_unit_test(part_gone_since_open_is_a_read_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
