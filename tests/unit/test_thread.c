/*
 * test_thread.c - unit tests of thread.c and run.c through the public API: buffering across
 * many flushes, nesting, id tables, scope tokens and mismatches, run state; and of sampled
 * timing's stop of a timed call (prof_summary_stop_timed) on a hand-made thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <profreport.h>

#include "thread.h"

/* A fresh output folder, and the one run file found in it after prof_finish. */
struct run {
    char dir[64];
    char *text;
};

static void run_begin(struct run *r)
{
    strcpy(r->dir, "/tmp/prof-unit-XXXXXX");
    assert_non_null(mkdtemp(r->dir));
    r->text = NULL;
    assert_int_equal(prof_init(r->dir), PROF_OK);
}

/* Finish the run, read its file, and remove the folder. */
static void run_end(struct run *r)
{
    assert_int_equal(prof_finish(), PROF_OK);
    DIR *d = opendir(r->dir);
    assert_non_null(d);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        files++;
        assert_non_null(strstr(e->d_name, ".csv"));
        char path[512];
        snprintf(path, sizeof path, "%s/%s", r->dir, e->d_name);
        FILE *f = fopen(path, "rb");
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        rewind(f);
        r->text = calloc(1, (size_t)n + 1);
        assert_int_equal(fread(r->text, 1, (size_t)n, f), (size_t)n);
        fclose(f);
        unlink(path);
    }
    closedir(d);
    rmdir(r->dir);
    assert_int_equal(files, 1); /* one run file, no parts left */
}

/* Lines of text that start with prefix. */
static long count_lines(const char *text, const char *prefix)
{
    long n = 0;
    size_t pl = strlen(prefix);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, prefix, pl) == 0)
            n++;
    return n;
}

/* Far more events than one buffer holds: every one reaches the run file. */
static void every_event_survives_buffer_flushes(void **state)
{
    (void)state;
    struct run r;
    run_begin(&r);
    for (int i = 0; i < 100000; i++) {
        prof_start("x");
        prof_stop();
    }
    run_end(&r);
    assert_int_equal(count_lines(r.text, "x,"), 100000);
    assert_non_null(strstr(r.text, "Complete,yes\n"));
    free(r.text);
}

/* Thousands of distinct ids grow the id table; each keeps its own rows. */
static void many_distinct_ids(void **state)
{
    (void)state;
    enum { N = 5000 };
    char(*names)[16] = malloc(sizeof(char[16]) * N);
    struct run r;
    run_begin(&r);
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < N; i++) {
            snprintf(names[i], sizeof names[i], "id%d", i);
            prof_start(names[i]);
            prof_stop();
        }
    run_end(&r);
    assert_int_equal(count_lines(r.text, "id4999,"), 2);
    assert_int_equal(count_lines(r.text, "id0,"), 2);
    assert_int_equal(count_lines(r.text, "id"), 2 * N);
    free(r.text);
    free(names);
}

/* Nested regions name their parent and depth. */
static void nested_regions_know_their_parent(void **state)
{
    (void)state;
    struct run r;
    run_begin(&r);
    prof_start("outer");
    prof_start("inner");
    prof_stop();
    prof_stop();
    run_end(&r);
    assert_int_equal(count_lines(r.text, "inner,"), 1);
    const char *inner = strstr(r.text, "\ninner,");
    const char *outer = strstr(r.text, "\nouter,");
    assert_non_null(inner);
    assert_non_null(outer);
    assert_true(inner < outer); /* rows in the order regions ended */
    assert_non_null(strstr(inner, ",1,outer,1,"));
    assert_non_null(strstr(outer, ",1,,0,"));
    free(r.text);
}

/* A stop with nothing open is a warning, and recording goes on. */
static void stray_stop_is_a_warning(void **state)
{
    (void)state;
    struct run r;
    run_begin(&r);
    prof_stop();
    prof_stop();
    prof_start("after");
    prof_stop();
    run_end(&r);
    assert_non_null(strstr(r.text, "\nWarning,stray-stop,1,2,"));
    assert_int_equal(count_lines(r.text, "after,"), 1);
    free(r.text);
}

/* A scope closes regions left open inside it and says so. */
static void scope_closes_what_was_left_open(void **state)
{
    (void)state;
    struct run r;
    run_begin(&r);
    {
        PROFILER_SCOPE("scope");
        prof_start("forgotten");
    }
    prof_start("next");
    prof_stop();
    run_end(&r);
    assert_non_null(strstr(r.text, "\nforgotten,"));
    assert_non_null(strstr(r.text, "\nscope,"));
    assert_non_null(strstr(r.text, "\nnext,"));
    assert_non_null(strstr(r.text, ",1,scope,1,")); /* forgotten's parent */
    assert_non_null(strstr(r.text, "\nWarning,scope-mismatch,1,1,"));
    assert_null(strstr(r.text, "unterminated"));
    free(r.text);
}

/* A scope whose region was stopped by hand closes nothing more. */
static void scope_after_manual_stop_closes_nothing(void **state)
{
    (void)state;
    struct run r;
    run_begin(&r);
    prof_start("keep");
    {
        PROFILER_SCOPE("scope");
        prof_stop();
    }
    prof_stop(); /* closes keep: the scope must not have */
    run_end(&r);
    assert_non_null(strstr(r.text, "\nWarning,scope-mismatch,1,1,"));
    assert_null(strstr(r.text, "stray-stop"));
    assert_int_equal(count_lines(r.text, "keep,"), 1);
    free(r.text);
}

/* A scope whose region was stopped by hand leaves a later region at the same depth alone. */
static void scope_does_not_close_a_later_region(void **state)
{
    (void)state;
    struct run r;
    run_begin(&r);
    {
        PROFILER_SCOPE("a");
        prof_stop();     /* closes a */
        prof_start("b"); /* same depth as a */
    }                    /* must not close b */
    prof_stop();         /* closes b */
    run_end(&r);
    assert_non_null(strstr(r.text, "\nWarning,scope-mismatch,1,1,"));
    assert_null(strstr(r.text, "stray-stop"));
    assert_null(strstr(r.text, "unterminated"));
    assert_int_equal(count_lines(r.text, "b,"), 1);
    free(r.text);
}

/* Naming a thread does not make it record; the name is used when it does. */
static void naming_alone_records_nothing(void **state)
{
    (void)state;
    struct run r;
    run_begin(&r);
    prof_thread_name("renamed");
    prof_start("x");
    prof_stop();
    run_end(&r);
    assert_non_null(strstr(r.text, "\nThread,1,"));
    assert_non_null(strstr(r.text, ",renamed,running\n"));
    free(r.text);
}

PROFILER_API_DECLARE(allocator);
PROFILER_API_DEFINE(allocator);

/* A public function of the module: calls another one, as allocators do (realloc -> malloc). */
static void module_inner(void) { PROFILER_API(allocator); }
static void module_outer(int calls)
{
    PROFILER_API(allocator);
    for (int i = 0; i < calls; i++)
        module_inner();
}

/* Module API: only the outermost entry of a module opens its region; no time counted twice. */
static void module_api_counts_outermost_entries_only(void **state)
{
    (void)state;
    struct run r;
    run_begin(&r);
    module_outer(3); /* 1 region, not 4 */
    module_inner();  /* 1 region */
    prof_start("user");
    module_outer(2); /* 1 region, inside user */
    prof_stop();
    run_end(&r);
    assert_int_equal(count_lines(r.text, "allocator,"), 3);
    assert_non_null(strstr(r.text, "\nallocator,"));
    assert_non_null(strstr(r.text, ",1,user,1,")); /* the third one's parent */
    assert_null(strstr(r.text, ",allocator,"));    /* never its own parent */
    assert_null(strstr(r.text, "Warning"));
    free(r.text);
}

/* A region still open at finish is written without ticks and warned about. */
static void open_region_at_finish_is_unterminated(void **state)
{
    (void)state;
    struct run r;
    run_begin(&r);
    prof_start("never");
    run_end(&r);
    assert_non_null(strstr(r.text, "\nnever,,1,,0,,"));
    assert_non_null(strstr(r.text, "\nWarning,unterminated,1,1,region never stopped: never\n"));
    free(r.text);
}

/* init while recording is refused; finish twice is harmless; NULL ids are recorded. */
static void run_state_rules(void **state)
{
    (void)state;
    struct run r;
    run_begin(&r);
    assert_int_equal(prof_init(r.dir), PROF_ERR_STATE);
    prof_start(NULL);
    prof_stop();
    run_end(&r);
    assert_int_equal(prof_finish(), PROF_OK);
    assert_int_equal(count_lines(r.text, "(null),"), 1);
    free(r.text);
    /* After finish, regions are not recorded until the next init. */
    prof_start("ignored");
    prof_stop();
    run_begin(&r);
    run_end(&r);
    assert_null(strstr(r.text, "ignored"));
    free(r.text);
}

/* One stop of a timed call of ticks on node n of t (sampled timing), during which k sampler
   signals came, each a sample that cost the thread cost ns (sample.c, sample_cost). fn: a
   function's call (else a region's). */
static void stop_with(struct prof_thread *t, struct prof_node *n, uint64_t ticks, uint64_t k,
                      int fn, uint64_t cost)
{
    static const char fn_code[1];
    struct prof_frame f = {
        .node = n, .fn = fn ? (const struct prof_fn *)(const void *)fn_code : NULL, .start = 1000};
    f.interrupts0 = t->sampling.interrupts;
    t->sampling.samples += k;
    t->sampling.cost_ns += k * cost;
    t->sampling.interrupts += k;
    prof_summary_stop_timed(t, &f, 1000 + ticks);
}

/* interrupted says whether a sample came during the call; what it cost is not measured */
static void stop_timed(struct prof_thread *t, struct prof_node *n, uint64_t ticks, int interrupted,
                       int fn)
{
    stop_with(t, n, ticks, interrupted ? 1 : 0, fn, 0);
}

/* A function's call that a sample interrupted is counted but not timed where the context's
   other timed calls, less the longest, average below the short call: the sample's cost would
   keep a short context timed for ever (tiny() under TSan). Contexts that look long, a
   context's first two calls and regions stay timed, interrupted or not. */
static void interrupted_short_calls_are_counted_not_timed(void **state)
{
    (void)state;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static const uint32_t canon[] = {0, 1, 2, 3};
    struct prof_thread *t = calloc(1, sizeof *t);
    assert_non_null(t);
    prof_cct_init(&t->summary.cct, 100, &lock);
    t->summary.sampled = 1;
    t->summary.short_ticks = 100;
    struct prof_node *root = &t->summary.cct.root, *n[4];
    for (uint32_t i = 0; i < 4; i++)
        n[i] =
            prof_cct_child(&t->summary.cct, root, (const void *)(uintptr_t)(0x1000 + i), i, canon);
    /* short: two clean calls, then an interrupted one is only counted */
    stop_timed(t, n[0], 10, 0, 1);
    stop_timed(t, n[0], 10, 0, 1);
    stop_timed(t, n[0], 5000, 1, 1);
    assert_true(n[0]->st.calls == 3 && n[0]->st.timed == 2 && n[0]->st.ticks == 20);
    stop_timed(t, n[0], 12, 0, 1); /* a clean one is timed */
    assert_true(n[0]->st.calls == 4 && n[0]->st.timed == 3 && n[0]->st.ticks == 32);
    /* the longest timed call (a first call that faulted its pages in) is left out of the mean */
    stop_timed(t, n[1], 5000, 0, 1);
    stop_timed(t, n[1], 10, 0, 1);
    stop_timed(t, n[1], 10, 0, 1);
    stop_timed(t, n[1], 5000, 1, 1);
    assert_true(n[1]->st.calls == 4 && n[1]->st.timed == 3 && n[1]->st.ticks == 5020);
    /* long: interrupted calls stay timed (a wait keeps its wall time) */
    stop_timed(t, n[2], 1000, 0, 1);
    stop_timed(t, n[2], 1000, 0, 1);
    stop_timed(t, n[2], 5000, 1, 1);
    assert_true(n[2]->st.calls == 3 && n[2]->st.timed == 3 && n[2]->st.ticks == 7000);
    /* a context's first two calls, and a region's calls, are timed interrupted or not */
    stop_timed(t, n[3], 10, 1, 0);
    stop_timed(t, n[3], 10, 1, 0);
    stop_timed(t, n[3], 5000, 1, 0);
    assert_true(n[3]->st.calls == 3 && n[3]->st.timed == 3);
    struct prof_node *first = prof_cct_child(&t->summary.cct, n[0], (const void *)0x2000, 1, canon);
    stop_timed(t, first, 5000, 1, 1);
    stop_timed(t, first, 10, 1, 1);
    assert_true(first->st.calls == 2 && first->st.timed == 2);
    prof_cct_free(&t->summary.cct);
    free(t);
}

/* A stop of a call during which k samples were taken, each costing 40 us. */
static void stop_sampled(struct prof_thread *t, struct prof_node *n, uint64_t ticks, uint64_t k,
                         int fn)
{
    stop_with(t, n, ticks, k, fn, 40000);
}

/* A thread of sampled timing for the tests below: 1 tick a ns, a period of 250 us. */
static struct prof_thread *sampled_thread(pthread_mutex_t *lock)
{
    struct prof_thread *t = calloc(1, sizeof *t);
    assert_non_null(t);
    prof_cct_init(&t->summary.cct, 100, lock);
    t->summary.sampled = 1;
    t->frequency = 1000000000;
    t->sampling.period_ns = 250000;
    return t;
}

/*
 * What the sampler's signals cost a timed call, the thread's mean sample cost each, leaves that
 * call's time at its stop, so that its extremes, squares and histogram hold its own time: a
 * sample's 40 us must not become the tail of a path of 2 us calls. Worked by hand.
 */
static void interrupted_calls_lose_what_their_samples_cost(void **state)
{
    (void)state;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static const uint32_t canon[] = {0, 1, 2};
    struct prof_thread *t = sampled_thread(&lock);
    t->summary.short_ticks = 1000;
    struct prof_node *root = &t->summary.cct.root, *n[3];
    for (uint32_t i = 0; i < 3; i++)
        n[i] =
            prof_cct_child(&t->summary.cct, root, (const void *)(uintptr_t)(0x1000 + i), i, canon);
    /* a path of 2 us calls (long: timed), one interrupted: 42 us measured, 2 us its own */
    stop_sampled(t, n[0], 2000, 0, 1);
    stop_sampled(t, n[0], 2000, 0, 1);
    stop_sampled(t, n[0], 42000, 1, 1);
    assert_true(n[0]->st.calls == 3 && n[0]->st.timed == 3);
    assert_true(n[0]->st.ticks == 6000 && n[0]->st.max == 2000 && n[0]->st.min == 2000);
    assert_true(n[0]->st.sumsq == 3 * 2000.0 * 2000.0);
    unsigned b = prof_hist_bucket(2000);
    assert_non_null(n[0]->st.hist);
    assert_int_equal(n[0]->st.hist[b / PROF_HIST_BLOCK][b % PROF_HIST_BLOCK], 3);
    /* a region's call interrupted twice loses both */
    stop_sampled(t, n[1], 580000, 2, 0);
    assert_true(n[1]->st.calls == 1 && n[1]->st.timed == 1 && n[1]->st.ticks == 500000);
    /* a call no longer than what its signal cost has no time of its own to tell: it is given
       its context's mean so far (0 for a first call), and stays timed */
    stop_sampled(t, n[2], 39000, 1, 0);
    assert_true(n[2]->st.calls == 1 && n[2]->st.timed == 1 && n[2]->st.ticks == 0);
    stop_sampled(t, n[0], 39500, 1, 1);
    assert_true(n[0]->st.calls == 4 && n[0]->st.timed == 4 && n[0]->st.ticks == 8000);
    prof_cct_free(&t->summary.cct);
    free(t);
}

/*
 * Each signal in a timed call costs it the thread's mean sample cost so far (sample.c: what
 * each sample cost in ns of CPU time, and the handler's work in ticks), in ticks: summed over
 * the calls it is what the samples cost the thread, no more (a guess per signal took twice
 * that out of yaml-cpp's main). A signal before the thread's first sample (an overflow that
 * brought no period) costs nothing yet. Worked by hand, 2 ticks a ns.
 */
static void a_signal_costs_the_threads_mean_sample_cost(void **state)
{
    (void)state;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static const uint32_t canon[] = {0, 1};
    struct prof_thread *t = sampled_thread(&lock);
    t->frequency = 2000000000;
    t->summary.short_ticks = 100;
    struct prof_node *root = &t->summary.cct.root;
    struct prof_node *a = prof_cct_child(&t->summary.cct, root, (const void *)0x1000, 0, canon);
    struct prof_node *b = prof_cct_child(&t->summary.cct, root, (const void *)0x1001, 1, canon);
    /* no sample yet: the call keeps its time */
    stop_with(t, a, 100000, 1, 1, 0);
    t->sampling.samples = 0;
    assert_true(a->st.timed == 1 && a->st.ticks == 100000);
    /* three samples (the call's two and one before), 30, 40 and 50 us, and 30 us of handler
       work (60000 ticks) in all: 50 us a sample, 100000 ticks */
    t->sampling.samples = 1;
    t->sampling.cost_ns = 120000;
    t->sampling.cost_ticks = 60000;
    stop_with(t, a, 300000, 2, 1, 0);
    assert_true(a->st.timed == 2 && a->st.ticks == 200000 && a->st.max == 100000);
    /* the mean follows the samples: two more of 100 us each make it 70 us, 140000 ticks */
    t->sampling.samples = 4;
    t->sampling.cost_ns = 320000;
    stop_with(t, b, 150000, 1, 0, 0);
    assert_true(b->st.timed == 1 && b->st.ticks == 10000);
    prof_cct_free(&t->summary.cct);
    free(t);
}

int main(void)
{
    unsetenv("PROFILER_ENABLE");
    unsetenv("PROFILER_MODE");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_event_survives_buffer_flushes),
        cmocka_unit_test(many_distinct_ids),
        cmocka_unit_test(nested_regions_know_their_parent),
        cmocka_unit_test(stray_stop_is_a_warning),
        cmocka_unit_test(scope_closes_what_was_left_open),
        cmocka_unit_test(scope_after_manual_stop_closes_nothing),
        cmocka_unit_test(scope_does_not_close_a_later_region),
        cmocka_unit_test(naming_alone_records_nothing),
        cmocka_unit_test(module_api_counts_outermost_entries_only),
        cmocka_unit_test(open_region_at_finish_is_unterminated),
        cmocka_unit_test(run_state_rules),
        cmocka_unit_test(interrupted_short_calls_are_counted_not_timed),
        cmocka_unit_test(interrupted_calls_lose_what_their_samples_cost),
        cmocka_unit_test(a_signal_costs_the_threads_mean_sample_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
