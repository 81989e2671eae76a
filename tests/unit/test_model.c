/*
 * test_model.c - unit tests of model.c: what it keeps of a run file's metadata and threads.
 * Run files are read from memory.
 */
#define _GNU_SOURCE /* fmemopen */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "read/input.h"
#include "read/runfile.h"
#include "base/util.h"

/* Read text as one run file into m. */
static void read_run(struct model *m, const char *text)
{
    FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
    assert_non_null(f);
    assert_int_equal(input_add_run(m, f, "run.csv", 0), RUNFILE_OK);
    fclose(f);
}

/* Bytes that are not UTF-8 in a Thread record's tid, name and state reach the workbook as
   U+FFFD, never as they are (libxlsxwriter would write them into the XML, which Excel refuses). */
static void thread_record_text_is_repaired(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
                 "Thread,1,12\xff"
                 "3,wo\xfek,ex\xc3ited\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "a,5,1,,0,5,0,0\n");
    assert_int_equal(m.nthreads, 1);
    assert_string_equal(m.threads[0].tid, "12\xef\xbf\xbd"
                                          "3");
    assert_string_equal(m.threads[0].name, "wo\xef\xbf\xbdk");
    assert_string_equal(m.threads[0].state, "ex\xef\xbf\xbdited");
    model_release(&m);
}

/* A sink that counts the rows it is given. */
static void count_event(void *ctx, const struct model *m, size_t run, const struct thread_rec *t,
                        const struct prof_event_rec *e, size_t region, double ns, double self_ns,
                        double start_ns)
{
    (void)m, (void)run, (void)t, (void)e, (void)region, (void)ns, (void)self_ns, (void)start_ns;
    ++*(int *)ctx;
}

/* model_finish puts every region's costs in order once, so the outputs read quantiles from a
   const model, and detaches the row sink: no row reaches it after the model is complete. */
static void finishing_sorts_the_costs_and_detaches_the_sink(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    int rows = 0;
    struct model_sink sink = {.ctx = &rows, .event = count_event};
    m.sink = &sink;
    read_run(&m, "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "a,5,1,,0,5,0,0\na,2,1,,0,2,10,0\na,9,1,,0,9,20,0\na,1,1,,0,1,30,0\n");
    assert_int_equal(rows, 4);
    const struct dist *d = &m.regions[model_find(&m, "a", 1)].cost;
    assert_false(d->sorted);
    model_finish(&m);
    assert_true(d->sorted);
    double want[] = {1e6, 2e6, 5e6, 9e6}; /* ns at 1000 ticks a second */
    for (int i = 0; i < 4; i++)
        assert_true(d->exact[i] == want[i]);
    assert_null(m.sink);
    model_release(&m);
}

/* A run left out, by the program pick or as no run file, leaves nothing of itself behind
   (its run, threads and warnings rolled back) but the "skipped" warning of a bad file. */
static void a_run_left_out_leaves_no_record(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_pick(&m, PICK_NAME, "a");
    read_run(&m, "Frequency,1000\nFormat,profreport-run,2\nMode,events\nProgram,/bin/a\n"
                 "Thread,1,11,main,exited\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\nx,5,1,,0,5,0,0\n");
    struct model_mark before = model_mark(&m);
    assert_int_equal(before.runs, 1);
    assert_int_equal(before.threads, 1);
    read_run(&m, "Frequency,1000\nFormat,profreport-run,2\nMode,events\nProgram,/bin/b\n"
                 "Thread,1,22,other,exited\nThread,2,23,other2,exited\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\ny,5,1,,0,5,0,0\n");
    struct model_mark after = model_mark(&m);
    assert_memory_equal(&before, &after, sizeof before);
    assert_string_equal(m.threads[0].tid, "11");
    static const char bad[] = "Thread,1,33,t,exited\nnot a run\n";
    FILE *f = fmemopen((void *)(uintptr_t)bad, strlen(bad), "r");
    assert_non_null(f);
    assert_int_equal(input_add_run(&m, f, "bad.csv", 0), RUNFILE_SKIPPED);
    fclose(f);
    after = model_mark(&m);
    assert_int_equal(after.runs, 1);
    assert_int_equal(after.threads, 1);
    assert_int_equal(after.warnings, before.warnings + 1);
    assert_string_equal(m.warnings[after.warnings - 1].kind, "skipped");
    model_release(&m);
}

/* A Warning record's kind is text from the file too: repaired like its message. */
static void warning_kind_is_repaired(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
                 "Warning,odd\xff,1,2,bad \xfe text\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n");
    assert_int_equal(m.nwarnings, 1);
    assert_string_equal(m.warnings[0].kind, "odd\xef\xbf\xbd");
    assert_string_equal(m.warnings[0].message, "thread 1: bad \xef\xbf\xbd text");
    model_release(&m);
}

/* A Crash record names the run's signal and thread; the first one counts, a name that is not
   letters and digits (or none) gives way to the number, and a record without a usable signal
   number is ignored. */
static void crash_record_names_the_signal_and_thread(void **state)
{
    (void)state;
    static const char *const runs[][2] = {
        {"Crash,11,SIGSEGV,1\nCrash,6,SIGABRT,2\n", "SIGSEGV (signal 11)"},
        {"Crash,7,SIG BUS\xff,1\n", "signal 7"},
        {"Crash,7\n", "signal 7"},
        {"Crash,0,SIGSEGV,1\nCrash,x,SIGSEGV,1\nCrash,99999,SIGSEGV,1\n", NULL},
    };
    struct model m;
    model_init(&m);
    char text[512], line[128];
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        snprintf(text, sizeof text,
                 "Frequency,1000\nFormat,profreport-run,3\nMode,events\nComplete,no\n%s"
                 "Threads,1\nThread,1,12,main,incomplete\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\na,5,1,,0,5,0,0\n",
                 runs[k][0]);
        read_run(&m, text);
        if (runs[k][1])
            assert_string_equal(m.runs[k].crash, runs[k][1]);
        else
            assert_null(m.runs[k].crash);
    }
    assert_int_equal(model_crashed_runs(&m), 3);
    model_run_crash_text(&m, 0, line, sizeof line);
    assert_string_equal(line, "run 1: SIGSEGV (signal 11) in thread 1 (main)");
    model_run_crash_text(&m, 2, line, sizeof line);
    assert_string_equal(line, "run 3: signal 7");
    model_release(&m);
}

/* Thread numbers are keys, not sizes: a row of thread 4000000000 makes one thread (it made the
   model ask for 32 GiB and the command stop), and numbers that share a hash slot stay apart. */
static void thread_numbers_of_any_size_are_kept_apart(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "a,5,4000000000,,0,5,0,0\n"
                 "a,5,1,,0,5,0,0\n"
                 "a,5,17,,0,5,0,0\n"
                 "a,5,33,,0,5,0,0\n"
                 "a,5,1,,0,5,0,0\n"
                 "a,5,4294967295,,0,5,0,0\n");
    static const unsigned number[] = {4000000000u, 1, 17, 33, 4294967295u};
    static const uint64_t events[] = {1, 2, 1, 1, 1};
    assert_int_equal(m.nthreads, 5);
    assert_int_equal(m.runs[0].threads, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(m.threads[i].number, number[i]);
        assert_int_equal(m.threads[i].events, events[i]);
    }
    model_release(&m);
}

/* Busy time (the base of Total %) is kept per thread of the run, whatever the thread's number:
   the time seen inside an outer region that never stopped counts for its own thread. */
static void busy_time_of_a_killed_run_follows_threads_of_any_number(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "b,30,4000000000,a,1,30,1,0\n"
                 "c,7,5,,0,7,0,0\n"
                 "b,20,4000000000,a,1,20,40,0\n"
                 "a,,4000000000,,0,,0,0\n");
    assert_int_equal(m.nthreads, 2);
    assert_int_equal(m.threads[0].number, 4000000000u);
    assert_true(m.threads[0].busy_ns == 50e6); /* 50 ticks at 1000 per second */
    assert_int_equal(m.threads[1].number, 5);
    assert_true(m.threads[1].busy_ns == 7e6);
    model_release(&m);
}

/* The child of parent named s, or CCT_NONE. */
static uint32_t child_named(const struct cct *t, uint32_t parent, const char *s)
{
    for (uint32_t c = t->nodes[parent].child; c != CCT_NONE; c = t->nodes[c].sibling)
        if (strcmp(t->names[t->nodes[c].name], s) == 0)
            return c;
    return CCT_NONE;
}

/* A model keeps no calling-context tree unless an output asked for one before reading. */
static void call_paths_are_kept_only_when_asked(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "a,5,1,,0,5,0,0\n");
    assert_null(model_paths(&m));
    model_release(&m);
}

/* The model's tree merges every thread and run by path: rows arrive in end order, a row at
   depth d adopting the subtrees read at depth d + 1; a summary row is a top-level path. */
static void call_paths_merge_threads_and_runs(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    /* 1 tick = 1 ns, each thread's rows together (as the collector writes them). Thread 1:
       main(10) > {b(2), b(3)}; thread 2: main(4) > b(1). */
    read_run(&m, "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "b,2,1,main,1,2,1,0\n"
                 "b,3,1,main,1,3,4,0\n"
                 "main,10,1,,0,5,0,0\n"
                 "b,1,2,main,1,1,1,0\n"
                 "main,4,2,,0,3,0,0\n");
    read_run(&m, "Frequency,1000000000\nFormat,profreport-run,1\nMode,summary\n"
                 "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram\n"
                 "s,1,4,40,30,10,10,400,40,\n");
    const struct cct *t = model_paths(&m);
    assert_non_null(t);
    uint32_t main_ = child_named(t, t->root, "main");
    assert_int_not_equal(main_, CCT_NONE);
    assert_int_equal(t->nodes[main_].calls, 2);
    assert_true(t->nodes[main_].total_ns == 14 && t->nodes[main_].self_ns == 8);
    uint32_t b = child_named(t, main_, "b");
    assert_int_not_equal(b, CCT_NONE);
    assert_int_equal(t->nodes[b].calls, 3);
    assert_true(t->nodes[b].total_ns == 6 && t->nodes[b].self_ns == 6);
    assert_int_equal(child_named(t, t->root, "b"), CCT_NONE);
    uint32_t s = child_named(t, t->root, "s");
    assert_int_not_equal(s, CCT_NONE);
    assert_int_equal(t->nodes[s].calls, 4);
    assert_true(t->nodes[s].total_ns == 40 && t->nodes[s].self_ns == 30);
    model_release(&m);
}

/* The index of the region named s, or SIZE_MAX. */
static size_t region_named(const struct model *m, const char *s)
{
    for (size_t i = 0; i < m->nregions; i++)
        if (strcmp(m->regions[i].name, s) == 0)
            return i;
    return SIZE_MAX;
}

/* The edge caller -> callee (caller NULL: the thread's top level), or NULL. */
static const struct edge *edge_named(const struct model *m, const char *caller, const char *callee)
{
    size_t from = caller ? region_named(m, caller) : SIZE_MAX, to = region_named(m, callee);
    for (size_t i = 0; i < m->nedges; i++)
        if (m->edges[i].caller == from && m->edges[i].callee == to)
            return &m->edges[i];
    return NULL;
}

/* The node at the end of a path of names from the root ("main", "parse", NULL), or CCT_NONE. */
static uint32_t path_node(const struct cct *t, const char *const *names)
{
    uint32_t n = t->root;
    for (; *names && n != CCT_NONE; names++)
        n = child_named(t, n, *names);
    return n;
}

/* One region's calls, total and self time (ns) in a calling-context node. */
static void check_node(const struct cct *t, const char *const *names, uint64_t calls, double total,
                       double self)
{
    uint32_t n = path_node(t, names);
    assert_int_not_equal(n, CCT_NONE);
    assert_int_equal(t->nodes[n].calls, calls);
    assert_true(t->nodes[n].total_ns == total);
    assert_true(t->nodes[n].self_ns == self);
}

/* An edge's calls, total and self time (ns). */
static void check_edge(const struct model *m, const char *caller, const char *callee,
                       uint64_t calls, double total, double self)
{
    const struct edge *e = edge_named(m, caller, callee);
    assert_non_null(e);
    assert_int_equal(e->calls, calls);
    assert_true(e->total_ns == total);
    assert_true(e->self_ns == self);
}

#define PATH(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Version 3 summary rows (1 tick = 1 ns). Thread 1: main > {parse > token, token, a > b > a};
   thread 2: idle (never stopped) > token. */
static const char v3_summary[] =
    "Frequency,1000000000\nFormat,profreport-run,3\nMode,summary\n"
    "Thread,1,10,main,exited\nThread,2,11,pool,exited\n"
    "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent\n"
    "main,1,1,100,40,100,100,10000,100,,1,0\n"
    "parse,1,2,40,30,15,25,850,40,,2,1\n"
    "token,1,5,10,10,2,2,20,10,2:5,3,2\n"
    "token,1,3,6,6,1,3,14,6,1:1;2:1;3:1,4,1\n"
    "a,1,1,14,4,14,14,196,14,,5,1\n"
    "b,1,1,10,5,10,10,100,10,,6,5\n"
    "a,1,1,5,5,5,5,25,0,,7,6\n"
    "idle,2,0,0,0,0,0,0,0,,1,0\n"
    "token,2,1,7,7,7,7,49,7,7:1,2,1\n";

/* A region's account is the sum of its rows (FORMAT.md 1.4): calls, total (Outer), self,
   min and max over the rows with calls; a Calls-0 row adds nothing, not even a region to
   report. The thread's busy time is its top-level time. */
static void version_3_summary_rows_add_up_per_region(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, v3_summary);
    size_t token = region_named(&m, "token"), a = region_named(&m, "a");
    assert_int_equal(m.regions[token].cost.n, 9);
    assert_true(m.regions[token].self_ns == 23 && m.regions[token].outer_ns == 23);
    assert_true(m.regions[token].cost.min == 1 && m.regions[token].cost.max == 7);
    assert_int_equal(m.regions[a].cost.n, 2);
    assert_true(m.regions[a].outer_ns == 14 && m.regions[a].self_ns == 9);
    assert_true(m.regions[a].cost.min == 5 && m.regions[a].cost.max == 14);
    size_t n;
    size_t *ranked = model_ranked(&m, &n);
    assert_int_equal(n, 5); /* main, parse, token, a, b: not idle */
    for (size_t i = 0; i < n; i++)
        assert_string_not_equal(m.regions[ranked[i]].name, "idle");
    free(ranked);
    assert_int_equal(m.events, 15);
    assert_int_equal(m.nthreads, 2);
    assert_true(m.threads[0].busy_ns == 100 && m.threads[1].busy_ns == 7);
    model_release(&m);
}

/* Each version 3 row with calls is the edge from its parent row's region (the thread's top
   level for Parent 0), with the row's calls, inclusive and self time, as events rows are. */
static void version_3_summary_rows_are_caller_edges(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, v3_summary);
    check_edge(&m, NULL, "main", 1, 100, 40);
    check_edge(&m, "main", "parse", 2, 40, 30);
    check_edge(&m, "parse", "token", 5, 10, 10);
    check_edge(&m, "main", "token", 3, 6, 6);
    check_edge(&m, "main", "a", 1, 14, 4);
    check_edge(&m, "a", "b", 1, 10, 5);
    check_edge(&m, "b", "a", 1, 5, 5);
    check_edge(&m, "idle", "token", 1, 7, 7);
    assert_null(edge_named(&m, NULL, "idle"));
    assert_int_equal(m.nedges, 8);
    model_release(&m);
}

/* Version 3 rows build the calling-context tree: each under its parent row's node, a Calls-0
   node still holding its children. */
static void version_3_summary_rows_are_call_paths(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    read_run(&m, v3_summary);
    const struct cct *t = model_paths(&m);
    check_node(t, PATH("main"), 1, 100, 40);
    check_node(t, PATH("main", "parse"), 2, 40, 30);
    check_node(t, PATH("main", "parse", "token"), 5, 10, 10);
    check_node(t, PATH("main", "token"), 3, 6, 6);
    check_node(t, PATH("main", "a", "b", "a"), 1, 5, 5);
    check_node(t, PATH("idle"), 0, 0, 0);
    check_node(t, PATH("idle", "token"), 1, 7, 7);
    assert_int_equal(path_node(t, PATH("token")), CCT_NONE);
    assert_int_equal(path_node(t, PATH("parse")), CCT_NONE);
    model_release(&m);
}

/* A version 4 sampled run (1 tick = 1 ns, a sample per 10 ns) whose Exclude record leaves
   "tiny*" out: tiny_add's rows (nodes 4 and 5) are a left-out function's, Calls 0 and their
   samples as self time (FORMAT.md 1.4); stuck (node 3), Calls 0 too, is kept by the filters:
   a context that never stopped. */
static const char left_out_run[] =
    "Frequency,1000000000\nFormat,profreport-run,4\nMode,summary\nExclude,\"tiny*, other\"\n"
    "Timing,sampled,perf-task-clock,10,200,20\nThread,1,10,main,exited\n"
    "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent,Samples,"
    "Timed,Wall\n"
    "main,1,1,100,20,0,0,0,100,,1,0,2,0,0\n"
    "work,1,4,60,20,0,0,0,60,,2,1,2,0,0\n"
    "stuck,1,0,10,10,0,0,0,10,,3,1,1,0,0\n"
    "tiny_add,1,0,40,40,0,0,0,40,,4,2,4,0,0\n"
    "tiny_add,1,0,10,10,0,0,0,10,,5,1,1,0,0\n";

/* A left-out function's rows are told apart by the run's filters at ingest: the region and
   its edges are marked left out, with its samples as its time and no call counted; a Calls-0
   row the filters keep is not marked and adds nothing, as before. */
static void left_out_rows_are_told_by_the_runs_filters(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, left_out_run);
    const struct region *tiny = &m.regions[region_named(&m, "tiny_add")];
    const struct region *stuck = &m.regions[region_named(&m, "stuck")];
    assert_true(tiny->left_out && region_uncounted(tiny));
    assert_int_equal(tiny->cost.n, 0);
    assert_true(tiny->self_ns == 50 && tiny->outer_ns == 50 && tiny->left_out_ns == 50);
    /* each sample adds the period squared to the variance: 5 samples of 10 ns */
    assert_true(tiny->var_self == 500 && tiny->var_outer == 500);
    assert_true(region_run(tiny, 0).sum == 50 && region_run(tiny, 0).calls == 0);
    assert_false(stuck->left_out);
    assert_true(stuck->self_ns == 0);
    assert_false(m.regions[region_named(&m, "work")].left_out);
    const struct edge *e = edge_named(&m, "work", "tiny_add");
    assert_non_null(e);
    assert_true(e->left_out && e->calls == 0 && e->total_ns == 40 && e->self_ns == 40);
    assert_true(edge_named(&m, "main", "tiny_add")->left_out);
    assert_false(edge_named(&m, "main", "work")->left_out);
    /* its time is the thread's as any function's: busy is every sample */
    assert_true(m.threads[0].busy_ns == 100 && m.self_total_ns == 100);
    size_t n;
    size_t *ranked = model_ranked(&m, &n);
    assert_int_equal(n, 3); /* main, work, tiny_add; not stuck */
    int seen = 0;
    for (size_t i = 0; i < n; i++)
        seen += strcmp(m.regions[ranked[i]].name, "tiny_add") == 0;
    assert_int_equal(seen, 1);
    free(ranked);
    struct cost_row c;
    model_cost_row(&m, region_named(&m, "tiny_add"), model_busy(&m), &c);
    assert_int_equal(c.left_out, 2);
    assert_int_equal(c.calls, 0);
    assert_true(isnan(c.mean) && isnan(c.min) && isnan(c.max) && isnan(c.run_mean));
    assert_true(c.total == 50 && c.self == 50 && c.total_share == 0.5);
    assert_string_equal(model_left_out_text(c.left_out, tiny->left_out),
                        "left out: calls not counted, time sampled");
    assert_null(model_left_out_text(0, 0));
    model_release(&m);
}

/* A sampled run (1 tick = 1 ns, a sample per 1000 ns) of three timed contexts: wait (Wall
   100000 ns, one sample: 1000 ns of CPU), mult (Wall 1150 ns, no sample: pure arithmetic far
   shorter than the period) and loop (Wall 51000, 50 samples). */
static const char offcpu_run[] =
    "Frequency,1000000000\nFormat,profreport-run,4\nMode,summary\n"
    "Timing,sampled,perf-task-clock,1000,200,20\nThread,1,10,main,exited\n"
    "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent,Samples,"
    "Timed,Wall\n"
    "wait,1,1,1000,1000,100000,100000,10000000000,1000,,1,0,1,1,100000\n"
    "mult,1,2,0,0,500,650,672500,0,,2,0,0,2,1150\n"
    "loop,1,1,50000,50000,51000,51000,2601000000,50000,,3,0,50,1,51000\n";

/* Off-CPU is Wall less the sampled CPU time where that difference is more than the samples can
   be off (1.96 sqrt(samples + 1) periods); within it, unknown: a call shorter than the period
   with no sample is not off the CPU for all its Wall (pigz's multmodp read so). */
static void off_cpu_is_unknown_within_the_samples_bound(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, offcpu_run);
    struct cost_row c;
    model_cost_row(&m, region_named(&m, "wait"), model_busy(&m), &c);
    assert_true(c.wall == 100000 && c.offcpu == 99000); /* 99000 > 1.96 sqrt(2) 1000 */
    model_cost_row(&m, region_named(&m, "mult"), model_busy(&m), &c);
    assert_true(c.wall == 1150 && isnan(c.offcpu)); /* 1150 < 1.96 x 1000 */
    model_cost_row(&m, region_named(&m, "loop"), model_busy(&m), &c);
    assert_true(c.wall == 51000 && isnan(c.offcpu)); /* 1000 < 1.96 sqrt(51) 1000 */
    model_release(&m);
}

/* A timed call whose net Wall is 0 (the collector's costs taken out of it left nothing: a
   sanitized build's hooks) has no distribution of its own: no mean, median or extremes, and
   the Percentiles column says why; a timed call with Wall keeps them. */
static void wall_all_the_collectors_has_no_distribution(void **state)
{
    (void)state;
    static const char text[] =
        "Frequency,1000000000\nFormat,profreport-run,4\nMode,summary\n"
        "Timing,sampled,perf-task-clock,1000,200,20\nThread,1,10,main,exited\n"
        "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent,Samples,"
        "Timed,Wall\n"
        "main,1,1,80000,2000,5000,5000,25000000,80000,,1,0,2,1,5000\n"
        "caller,1,1,78000,3000,0,0,0,78000,,2,1,3,1,0\n";
    struct model m;
    model_init(&m);
    read_run(&m, text);
    struct cost_row c;
    model_cost_row(&m, region_named(&m, "caller"), model_busy(&m), &c);
    assert_int_equal(c.approximate, 3);
    assert_true(isnan(c.wall) && isnan(c.mean) && isnan(c.median) && isnan(c.min) && isnan(c.max) &&
                isnan(c.p99));
    assert_true(c.total == 78000);
    model_cost_row(&m, region_named(&m, "main"), model_busy(&m), &c);
    assert_true(c.approximate != 3 && c.wall == 5000 && c.mean == 5000);
    model_release(&m);
}

/* The Timing record's seventh field, what a perf overflow cost a thread as calibrated at start,
   is read when it is a cost under the period; older files (six fields) and nonsense read 0. */
static void timing_reads_the_calibrated_overflow_cost(void **state)
{
    (void)state;
    static const char *const timing[] = {
        "Timing,sampled,perf-task-clock,250000,800,10,41500\n",
        "Timing,sampled,perf-task-clock,250000,800,10\n",
        "Timing,sampled,perf-task-clock,250000,800,10,250000\n",
        "Timing,sampled,cpu-timer,250000,800,10,x\n",
    };
    static const double want[] = {41500, 0, 0, 0};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "Frequency,1000000000\nFormat,profreport-run,4\nMode,summary\n%s"
                 "Thread,1,10,main,exited\n"
                 "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent,"
                 "Samples,Timed,Wall\nmain,1,1,100,100,0,0,0,100,,1,0,1,0,0\n",
                 timing[i]);
        struct model m;
        model_init(&m);
        read_run(&m, text);
        assert_int_equal(m.nruns, 1);
        assert_true(m.runs[0].period_ns == 250000);
        assert_true(m.runs[0].overflow_ns == want[i]);
        model_release(&m);
    }
}

/* In the call paths a left-out function's nodes are marked uncounted, with their time and no
   calls; a kept Calls-0 node is not marked. */
static void left_out_rows_mark_their_call_paths(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    read_run(&m, left_out_run);
    const struct cct *t = model_paths(&m);
    check_node(t, PATH("main", "work", "tiny_add"), 0, 40, 40);
    check_node(t, PATH("main", "tiny_add"), 0, 10, 10);
    assert_true(t->nodes[path_node(t, PATH("main", "work", "tiny_add"))].uncounted);
    assert_true(t->nodes[path_node(t, PATH("main", "tiny_add"))].uncounted);
    assert_false(t->nodes[path_node(t, PATH("main", "stuck"))].uncounted);
    assert_false(t->nodes[path_node(t, PATH("main", "work"))].uncounted);
    model_release(&m);
}

/* Without Include and Exclude records nothing is left out: the same Calls-0 rows are
   contexts that never stopped. With an Include record, a Calls-0 row is left out exactly when
   its region is not named by it. */
static void calls_0_rows_are_left_out_only_by_the_filters(void **state)
{
    (void)state;
    static const struct {
        const char *filter;
        int tiny, stuck;
    } cases[] = {{"", 0, 0},
                 {"Include,\"main,work,stuck,tiny_*\"\n", 0, 0},
                 {"Include,\"main,work,stuck\"\n", 1, 0},
                 {"Include,\"main,work,tiny_?dd\"\n", 0, 1}};
    const char *exclude = "Exclude,\"tiny*, other\"\n";
    const char *from = strstr(left_out_run, exclude);
    assert_non_null(from);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[2048];
        snprintf(text, sizeof text, "%.*s%s%s", (int)(from - left_out_run), left_out_run,
                 cases[i].filter, from + strlen(exclude));
        struct model m;
        model_init(&m);
        read_run(&m, text);
        assert_int_equal(m.regions[region_named(&m, "tiny_add")].left_out, cases[i].tiny);
        assert_int_equal(m.regions[region_named(&m, "stuck")].left_out, cases[i].stuck);
        assert_int_equal(edge_named(&m, "work", "tiny_add") != NULL, cases[i].tiny);
        model_release(&m);
    }
}

/* A version 4 sampled run without filters (1 tick = 1 ns, a sample per 10 ns) whose Function
   record marks plain_burn uninstrumented, compiled without hooks: its rows (nodes 4 and 5),
   Calls 0, are its samples (FORMAT.md 1.2, 1.4); stuck (node 3) never stopped. BURN is
   plain_burn's Function record, MARK its seventh field and what follows it. */
#define BURN_RECORD(MARK) "Function,plain_burn,burn.h,2,/bin/app,0x1200" MARK "\n"
#define NO_HOOKS_RUN(BURN)                                                                         \
    "Frequency,1000000000\nFormat,profreport-run,4\nMode,summary\n"                                \
    "Timing,sampled,perf-task-clock,10,200,20\nThread,1,10,main,exited\n"                          \
    "Function,main,app.c,3,/bin/app,0x1000\nFunction,work,app.c,9,/bin/app,0x1100\n" BURN          \
    "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent,Samples,"       \
    "Timed,Wall\n"                                                                                 \
    "main,1,1,100,20,0,0,0,100,,1,0,2,0,0\n"                                                       \
    "work,1,4,60,20,0,0,0,60,,2,1,2,0,0\n"                                                         \
    "stuck,1,0,10,10,0,0,0,10,,3,1,1,0,0\n"                                                        \
    "plain_burn,1,0,40,40,0,0,0,40,,4,2,4,0,0\n"                                                   \
    "plain_burn,1,0,10,10,0,0,0,10,,5,1,1,0,0\n"

/* What the model holds of NO_HOOKS_RUN when plain_burn is marked: its rows are a function's
   samples whose calls were not counted, because it has no hooks, on its region, its edges and
   its call-path nodes; it is not an instrumented function (no hooks to leave out), though its
   Function record still gives its source line. */
static void check_no_hooks(const struct model *m)
{
    const struct region *burn = &m->regions[region_named(m, "plain_burn")];
    assert_int_equal(burn->left_out, LEFT_OUT_NO_HOOKS);
    assert_true(region_uncounted(burn));
    assert_true(burn->self_ns == 50 && burn->outer_ns == 50 && burn->left_out_ns == 50);
    assert_true(burn->var_self == 500);
    assert_false(burn->function);
    assert_string_equal(burn->file, "burn.h");
    assert_true(m->regions[region_named(m, "work")].function);
    assert_false(m->regions[region_named(m, "stuck")].left_out);
    assert_true(m->regions[region_named(m, "stuck")].self_ns == 0);
    check_edge(m, "work", "plain_burn", 0, 40, 40);
    assert_int_equal(edge_named(m, "work", "plain_burn")->left_out, LEFT_OUT_NO_HOOKS);
    assert_int_equal(edge_named(m, "main", "plain_burn")->left_out, LEFT_OUT_NO_HOOKS);
    const struct cct *t = model_paths(m);
    assert_int_equal(t->nodes[path_node(t, PATH("main", "work", "plain_burn"))].uncounted,
                     LEFT_OUT_NO_HOOKS);
    assert_int_equal(t->nodes[path_node(t, PATH("main", "plain_burn"))].uncounted,
                     LEFT_OUT_NO_HOOKS);
    assert_false(t->nodes[path_node(t, PATH("main", "stuck"))].uncounted);
}

/* A run whose Function records leave file and line to the reporter (FORMAT.md 1.2): each such
   function is noted once, with its module, offset and the build id of the module's Module record
   (none when the run gives none), to be read from the module (srclines.c); a record with its
   file, or whose module is no absolute path (the vDSO) or offset no hexadecimal number, is not. */
static void functions_without_a_file_are_noted_for_their_modules(void **state)
{
    (void)state;
    static const char text[] =
        "Frequency,1000000000\nFormat,profreport-run,3\nMode,summary\nThread,1,10,main,exited\n"
        "Function,main,app.c,3,/bin/app,0x1000\n"
        "Function,work,,,/bin/app,0x1100\n"
        "Function,lib,,,/lib/libx.so,0x2a0,inlined\n"
        "Function,vdso,,,linux-vdso.so.1,0x900\n"
        "Function,odd,,,/bin/app,1100\n"
        "Function,half,,,/bin/app,0x11zz\n"
        "Module,/bin/app,00ab\nModule,/other,ffff\n"
        "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent\n"
        "main,1,1,100,20,0,0,0,100,,1,0\nwork,1,4,60,20,0,0,0,60,,2,1\n"
        "lib,1,1,5,5,0,0,0,5,,3,2\nvdso,1,1,5,5,0,0,0,5,,4,2\nodd,1,1,5,5,0,0,0,5,,5,2\n"
        "half,1,1,5,5,0,0,0,5,,6,2\n";
    struct model m;
    model_init(&m);
    read_run(&m, text);
    read_run(&m, text); /* a second run notes nothing again */
    assert_int_equal(m.nunlocated, 2);
    const struct unlocated *work = &m.unlocated[0], *lib = &m.unlocated[1];
    assert_int_equal(work->region, region_named(&m, "work"));
    assert_string_equal(work->module, "/bin/app");
    assert_string_equal(work->build_id, "00ab");
    assert_int_equal(work->offset, 0x1100);
    assert_int_equal(lib->region, region_named(&m, "lib"));
    assert_string_equal(lib->module, "/lib/libx.so");
    assert_null(lib->build_id);
    assert_int_equal(lib->offset, 0x2a0);
    assert_string_equal(m.regions[region_named(&m, "main")].file, "app.c");
    assert_true(m.regions[region_named(&m, "work")].function);
    model_release(&m);
}

/* A run without filters: a Calls-0 row of a function its Function record marks uninstrumented
   is that function's samples, as a left-out function's row is (the filters play no part). */
static void uninstrumented_rows_are_told_by_the_function_record(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    read_run(&m, NO_HOOKS_RUN(BURN_RECORD(",uninstrumented")));
    check_no_hooks(&m);
    model_release(&m);
}

/* Only the word "uninstrumented" in the seventh field marks a function compiled without
   hooks; a six-field record, another word or an empty field is an instrumented function's,
   whose Calls-0 rows are contexts that never stopped. Only the word "inlined" marks one gcc
   inlined copies of (FORMAT.md 1.2): still an instrumented function, with its calls, whose note
   says where its time is; a function without hooks has the left-out note instead, any other
   none. A later version may add fields after the mark. */
static void only_the_seventh_fields_words_mark_a_function(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int no_hooks, inlined;
    } cases[] = {{NO_HOOKS_RUN(BURN_RECORD("")), 0, 0},
                 {NO_HOOKS_RUN(BURN_RECORD(",")), 0, 0},
                 {NO_HOOKS_RUN(BURN_RECORD(",instrumented")), 0, 0},
                 {NO_HOOKS_RUN(BURN_RECORD(",Uninstrumented")), 0, 0},
                 {NO_HOOKS_RUN(BURN_RECORD(",uninstrumented2")), 0, 0},
                 {NO_HOOKS_RUN(BURN_RECORD(",uninstrumented,later")), 1, 0},
                 {NO_HOOKS_RUN(BURN_RECORD(",Inlined")), 0, 0},
                 {NO_HOOKS_RUN(BURN_RECORD(",inlined")), 0, 1},
                 {NO_HOOKS_RUN(BURN_RECORD(",inlined,later")), 0, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct model m;
        model_init(&m);
        read_run(&m, cases[i].text);
        const struct region *burn = &m.regions[region_named(&m, "plain_burn")];
        assert_int_equal(burn->left_out, cases[i].no_hooks ? LEFT_OUT_NO_HOOKS : 0);
        assert_int_equal(burn->function, !cases[i].no_hooks);
        assert_true(burn->self_ns == (cases[i].no_hooks ? 50 : 0));
        assert_int_equal(edge_named(&m, "work", "plain_burn") != NULL, cases[i].no_hooks);
        assert_int_equal(burn->inlined, cases[i].inlined);
        assert_false(m.regions[region_named(&m, "work")].inlined);
        assert_null(model_note_text(&m.regions[region_named(&m, "work")], 0));
        if (cases[i].no_hooks)
            assert_string_equal(model_note_text(burn, 2), model_left_out_text(2, burn->left_out));
        else if (cases[i].inlined)
            assert_string_equal(model_note_text(burn, 0), MODEL_INLINED_TEXT);
        else
            assert_null(model_note_text(burn, 0));
        model_release(&m);
    }
}

/* A run_reader of NO_HOOKS_RUN's text without plain_burn's Function record, which it hands on
   after the rows: no reader does (rows.h: metadata before begin), but the model does not
   depend on it. */
static enum run_status function_record_last(void *src, const struct run_handler *h,
                                            struct rep_error *why, unsigned long *line)
{
    FILE *f = fmemopen(src, strlen(src), "r");
    assert_non_null(f);
    enum run_status st = runfile_parse(f, "run.csv", h, why, line);
    fclose(f);
    static const char *const rec[] = {"Function", "plain_burn", "burn.h",        "2",
                                      "/bin/app", "0x1200",     "uninstrumented"};
    size_t lens[7];
    for (size_t i = 0; i < 7; i++)
        lens[i] = strlen(rec[i]);
    h->meta(h->ctx, rec, lens, 7);
    return st;
}

/* A Function record that marks a function after its Calls-0 rows were read still makes them
   its samples: the rows are decided again at the run's end. */
static void a_mark_after_the_rows_still_counts_them(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    char text[] = NO_HOOKS_RUN("");
    assert_int_equal(model_read_run(&m, "run.csv", 0, function_record_last, text), RUNFILE_OK);
    check_no_hooks(&m);
    model_release(&m);
}

/* Run text (a NO_HOOKS_RUN) into out, with an Exclude record that leaves plain_burn out. */
static void excluding_plain(char *out, size_t size, const char *run)
{
    const char *at = strstr(run, "Timing,");
    assert_non_null(at);
    snprintf(out, size, "%.*sExclude,plain*\n%s", (int)(at - run), run, at);
}

/* In one run, a function its Function record marks uninstrumented is so, whatever its filters
   say (they never saw its calls); over runs, the bits say each reason some run had. */
static void the_mark_and_the_filters_are_told_apart(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    char text[2048];
    excluding_plain(text, sizeof text, NO_HOOKS_RUN(BURN_RECORD(",uninstrumented")));
    read_run(&m, text);
    assert_int_equal(m.regions[region_named(&m, "plain_burn")].left_out, LEFT_OUT_NO_HOOKS);
    excluding_plain(text, sizeof text, NO_HOOKS_RUN(BURN_RECORD("")));
    read_run(&m, text); /* a build with hooks, whose filters leave it out */
    const struct region *burn = &m.regions[region_named(&m, "plain_burn")];
    assert_int_equal(burn->left_out, LEFT_OUT_NO_HOOKS | LEFT_OUT_FILTERS);
    assert_true(burn->left_out_ns == 100 && burn->function);
    assert_int_equal(edge_named(&m, "work", "plain_burn")->left_out,
                     LEFT_OUT_NO_HOOKS | LEFT_OUT_FILTERS);
    model_release(&m);
}

/* The words for a function whose calls were not counted name the missing hooks only when no
   run's filters left it out: the Call cost row of a function without hooks says "not
   instrumented", and one also left out by some run's filters says "left out". */
static void the_words_name_the_hooks_only_where_no_filter_left_it_out(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, NO_HOOKS_RUN(BURN_RECORD(",uninstrumented")));
    size_t burn = region_named(&m, "plain_burn");
    struct cost_row c;
    model_cost_row(&m, burn, model_busy(&m), &c);
    assert_int_equal(c.left_out, 2);
    assert_string_equal(model_left_out_text(c.left_out, m.regions[burn].left_out),
                        "not instrumented: calls not counted, time sampled");
    assert_string_equal(model_left_out_text(1, LEFT_OUT_NO_HOOKS),
                        "not instrumented in some runs: calls counted only where instrumented");
    int both = LEFT_OUT_NO_HOOKS | LEFT_OUT_FILTERS;
    assert_string_equal(model_left_out_text(2, both), "left out: calls not counted, time sampled");
    assert_string_equal(model_left_out_text(1, both),
                        "left out in some runs: calls counted only where kept");
    assert_null(model_left_out_text(0, LEFT_OUT_NO_HOOKS));
    model_release(&m);
}

/* The summary section of a version 3 events run: its Calls-0 node for the region open at the
   cap is the events table's path, so what it encloses counts under that path. */
static void version_3_summary_section_continues_the_events_paths(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    read_run(&m, "Frequency,1000000000\nFormat,profreport-run,3\nMode,events\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "b,10,1,main,1,10,5,0\n"
                 "main,100,1,,0,70,0,0\n"
                 "Table,summary\n"
                 "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent\n"
                 "main,1,0,0,0,0,0,0,0,,1,0\n"
                 "b,1,2,20,20,10,10,200,20,,2,1\n");
    const struct cct *t = model_paths(&m);
    check_node(t, PATH("main"), 1, 100, 70);
    check_node(t, PATH("main", "b"), 3, 30, 30);
    assert_int_equal(path_node(t, PATH("b")), CCT_NONE);
    check_edge(&m, "main", "b", 3, 30, 30);
    check_edge(&m, NULL, "main", 1, 100, 70);
    assert_int_equal(m.nedges, 2);
    assert_int_equal(m.regions[region_named(&m, "b")].cost.n, 3);
    assert_int_equal(m.regions[region_named(&m, "main")].cost.n, 1);
    assert_true(m.threads[0].busy_ns == 100);
    model_release(&m);
}

/* Version 1 and 2 summary rows know no callers: no edges. */
static void flat_summary_rows_have_no_edges(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000000000\nFormat,profreport-run,2\nMode,summary\n"
                 "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram\n"
                 "s,1,4,40,30,10,10,400,40,\n");
    assert_int_equal(m.nedges, 0);
    assert_int_equal(m.regions[0].cost.n, 4);
    assert_true(m.threads[0].busy_ns == 0);
    model_release(&m);
}

/* The names of model_ranked's regions, in its order, joined by spaces into buf. */
static const char *ranked_names(const struct model *m, char *buf, size_t size)
{
    size_t n;
    size_t *ranked = model_ranked(m, &n);
    buf[0] = 0;
    for (size_t i = 0; i < n; i++) {
        strncat(buf, i ? " " : "", size - strlen(buf) - 1);
        strncat(buf, m->regions[ranked[i]].name, size - strlen(buf) - 1);
    }
    free(ranked);
    return buf;
}

/* --sort ranks by total, self, calls or mean cost per call, largest first, ties by name: main
   (1 call, 100 total, 10 self), hot (3 calls of 20, all self) and slow (1 call of 30). */
static void regions_rank_by_the_chosen_key(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "hot,20,1,main,1,20,1,0\n"
                 "hot,20,1,main,1,20,21,0\n"
                 "hot,20,1,main,1,20,41,0\n"
                 "slow,30,1,main,1,30,61,0\n"
                 "main,100,1,,0,10,0,0\n");
    char buf[64];
    assert_int_equal(m.sort, SORT_TOTAL); /* the default */
    assert_string_equal(ranked_names(&m, buf, sizeof buf), "main hot slow");
    m.sort = SORT_SELF;
    assert_string_equal(ranked_names(&m, buf, sizeof buf), "hot slow main");
    m.sort = SORT_CALLS;
    assert_string_equal(ranked_names(&m, buf, sizeof buf), "hot main slow");
    m.sort = SORT_MEAN;
    assert_string_equal(ranked_names(&m, buf, sizeof buf), "main slow hot");
    model_release(&m);
}

/* The --sort values name the orders, and nothing else does. */
static void sort_names_parse_back(void **state)
{
    (void)state;
    for (int i = 0; i < SORT_COUNT; i++)
        assert_int_equal(model_sort_parse(model_sort_names[i]), i);
    assert_int_equal(model_sort_parse("Total"), -1);
    assert_int_equal(model_sort_parse(""), -1);
    assert_int_equal(model_sort_parse("selfish"), -1);
}

/* ---- the region table: ids by their exact bytes ---- */

/* Ids for feed_ids: id k is text[k][0..len[k]), read k % 3 + 1 times. */
struct id_set {
    char (*text)[48];
    size_t *len;
    size_t n;
};

/* A run_reader giving seed rows of every id of an id_set (src). */
static enum run_status feed_ids(void *src, const struct run_handler *h, struct rep_error *why,
                                unsigned long *line)
{
    const struct id_set *ids = src;
    h->begin(h->ctx, RUN_SEED, 1000000000);
    for (size_t k = 0; k < ids->n; k++)
        for (size_t c = 0; c < k % 3 + 1; c++) {
            struct prof_event_rec e = {.region = ids->text[k],
                                       .region_len = ids->len[k],
                                       .parent = "",
                                       .stopped = 1,
                                       .ticks = k + 1};
            h->event(h->ctx, &e);
        }
    rep_error_clear(why);
    *line = 0;
    return RUNFILE_OK;
}

/* Add the id s[0..n) to ids. */
static void id_add(struct id_set *ids, const char *s, size_t n)
{
    ids->text = realloc(ids->text, (ids->n + 1) * sizeof *ids->text);
    ids->len = realloc(ids->len, (ids->n + 1) * sizeof *ids->len);
    assert_true(ids->text && ids->len && n < sizeof *ids->text);
    memcpy(ids->text[ids->n], s, n);
    ids->len[ids->n++] = n;
}

/*
 * Regions are told apart by every byte of their id, whatever their hash: ids of every length
 * from 0 to 40 (the word hash reads 8 bytes at a time, then a tail), ids differing only in
 * their last byte (all 256 values), ids made of NULs or ending with them (a shorter id padded
 * with zeros is another id), thousands of them in one table (so that many share a slot). Each
 * is one region with its own calls, found by its bytes; a prefix or an extension of an id is
 * not found.
 */
static void region_ids_differ_by_every_byte(void **state)
{
    (void)state;
    struct id_set ids = {0};
    char buf[48] = {0};
    for (size_t n = 0; n <= 40; n++) {
        for (size_t i = 0; i < n; i++)
            buf[i] = (char)('a' + i % 26);
        id_add(&ids, buf, n);
        memset(buf, 0, n);
        if (n)
            id_add(&ids, buf, n); /* n NULs */
    }
    for (size_t n = 1; n <= 40; n += 3) {
        for (size_t i = 0; i + 1 < n; i++)
            buf[i] = (char)('A' + i % 26);
        for (unsigned b = 0; b < 256; b++) {
            buf[n - 1] = (char)b;
            /* "A" and the one-byte ids of the first loop are there already */
            int dup = 0;
            for (size_t k = 0; k < ids.n && !dup; k++)
                dup = ids.len[k] == n && memcmp(ids.text[k], buf, n) == 0;
            if (!dup)
                id_add(&ids, buf, n);
        }
    }
    id_add(&ids, "x\0y", 3);
    id_add(&ids, "x\0z", 3);
    id_add(&ids, "x\0", 2); /* and "x", of the one-byte ids above */
    struct model m;
    model_init(&m);
    assert_int_equal(model_read_run(&m, "ids", 0, feed_ids, &ids), RUNFILE_OK);
    assert_int_equal(m.nregions, ids.n);
    for (size_t k = 0; k < ids.n; k++) {
        size_t r = model_find(&m, ids.text[k], ids.len[k]);
        assert_true(r != SIZE_MAX);
        assert_int_equal(m.regions[r].len, ids.len[k]);
        assert_memory_equal(m.regions[r].name, ids.text[k], ids.len[k]);
        assert_int_equal(m.regions[r].cost.n, k % 3 + 1);
        assert_true(m.regions[r].cost.min == (double)(k + 1)); /* 1 GHz: ticks are ns */
    }
    /* Neither a longer id nor a new last byte is one of them. */
    assert_true(model_find(&m, "abcdefghijklmnopqrstuvwxyzabcdefghijklmno", 41) == SIZE_MAX);
    assert_true(model_find(&m, "x\0\0", 3) == SIZE_MAX);
    assert_true(
        model_find(
            &m,
            "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
            41) == SIZE_MAX);
    model_release(&m);
    free(ids.text);
    free(ids.len);
}

/* Two ids that share their first slot in a fresh table (256 slots) and read the same up to a
   NUL: the second probes the first's slot and must not take it for its own. */
static void ids_in_the_same_slot_stay_apart(void **state)
{
    (void)state;
    struct id_set ids = {0};
    char a[4] = {'p', 0, 0, 0}, b[4] = {'p', 0, 0, 0};
    int found = 0;
    for (unsigned i = 0; i < 65536 && !found; i++) {
        a[2] = (char)(i & 255);
        a[3] = (char)(i >> 8);
        for (unsigned j = i + 1; j < 65536 && !found; j++) {
            b[2] = (char)(j & 255);
            b[3] = (char)(j >> 8);
            found = (id_hash(a, 4) & 255) == (id_hash(b, 4) & 255);
        }
    }
    assert_true(found);
    id_add(&ids, a, 4);
    id_add(&ids, b, 4);
    id_add(&ids, "p", 1);
    struct model m;
    model_init(&m);
    assert_int_equal(model_read_run(&m, "ids", 0, feed_ids, &ids), RUNFILE_OK);
    assert_int_equal(m.nregions, 3);
    for (size_t k = 0; k < ids.n; k++) {
        size_t r = model_find(&m, ids.text[k], ids.len[k]);
        assert_true(r == k);
        assert_int_equal(m.regions[r].cost.n, k % 3 + 1);
    }
    model_release(&m);
    free(ids.text);
    free(ids.len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thread_record_text_is_repaired),
        cmocka_unit_test(a_run_left_out_leaves_no_record),
        cmocka_unit_test(finishing_sorts_the_costs_and_detaches_the_sink),
        cmocka_unit_test(call_paths_are_kept_only_when_asked),
        cmocka_unit_test(call_paths_merge_threads_and_runs),
        cmocka_unit_test(warning_kind_is_repaired),
        cmocka_unit_test(crash_record_names_the_signal_and_thread),
        cmocka_unit_test(thread_numbers_of_any_size_are_kept_apart),
        cmocka_unit_test(busy_time_of_a_killed_run_follows_threads_of_any_number),
        cmocka_unit_test(version_3_summary_rows_add_up_per_region),
        cmocka_unit_test(version_3_summary_rows_are_caller_edges),
        cmocka_unit_test(version_3_summary_rows_are_call_paths),
        cmocka_unit_test(version_3_summary_section_continues_the_events_paths),
        cmocka_unit_test(flat_summary_rows_have_no_edges),
        cmocka_unit_test(left_out_rows_are_told_by_the_runs_filters),
        cmocka_unit_test(off_cpu_is_unknown_within_the_samples_bound),
        cmocka_unit_test(timing_reads_the_calibrated_overflow_cost),
        cmocka_unit_test(wall_all_the_collectors_has_no_distribution),
        cmocka_unit_test(left_out_rows_mark_their_call_paths),
        cmocka_unit_test(calls_0_rows_are_left_out_only_by_the_filters),
        cmocka_unit_test(functions_without_a_file_are_noted_for_their_modules),
        cmocka_unit_test(uninstrumented_rows_are_told_by_the_function_record),
        cmocka_unit_test(only_the_seventh_fields_words_mark_a_function),
        cmocka_unit_test(a_mark_after_the_rows_still_counts_them),
        cmocka_unit_test(the_mark_and_the_filters_are_told_apart),
        cmocka_unit_test(the_words_name_the_hooks_only_where_no_filter_left_it_out),
        cmocka_unit_test(regions_rank_by_the_chosen_key),
        cmocka_unit_test(sort_names_parse_back),
        cmocka_unit_test(region_ids_differ_by_every_byte),
        cmocka_unit_test(ids_in_the_same_slot_stay_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
