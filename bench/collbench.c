/*
 * collbench.c - the collector benchmark: cost of a PROFILER_START/STOP pair in events and summary
 * mode, and of a naive fprintf collector, against a loop of two timer reads (bench/README.md).
 */

/*
 *   collbench [--pairs N] [--reps R]       run every configuration, each in its own process
 *   collbench run CONFIG THREADS N R       one configuration (events, summary or naive)
 *
 * Without arguments the program re-executes itself once per configuration, because the collector
 * reads PROFILER_MODE once per process, and prints one table of every child's results.
 */
#include "profreport.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define TIMER_NAME "__rdtsc()"
/* One timer read: the TSC, as the collector reads it. */
static inline uint64_t timer_read(void) { return __rdtsc(); }
#else
#define TIMER_NAME "clock_gettime()"
/* One timer read: elsewhere the collector's clock is CLOCK_MONOTONIC, so the baseline reads it. */
static inline uint64_t timer_read(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

#define MAX_THREADS 2
#define DEFAULT_PAIRS 20000000ull
#define DEFAULT_REPS 5
#define TARGET_EVENTS 1.30
#define TARGET_SUMMARY 1.10 /* issue 12: summary must be the cheap mode */
#define NAIVE_DEPTH 64
/* Pairs per block: the baseline and the measured loop alternate in blocks of this size. */
#define BLOCK_PAIRS 100000u
/* The naive collector runs pairs / NAIVE_SHARE pairs: it is several times slower per pair. */
#define NAIVE_SHARE 4

/* What a worker thread times. */
enum kind { KIND_PROF, KIND_NAIVE };

/* One timed thread: its loop, its pair count and, afterwards, its cost per pair. */
struct worker {
    pthread_t thread;
    enum kind kind;
    uint64_t pairs;
    unsigned index;
    const char *dir; /* naive: the folder of its output file */
    pthread_barrier_t *start;
    double base_ns, pair_ns; /* sums while running, then ns per pair */
    int failed;
};

/* One configuration's figures, as a child prints them and the driver reads them. */
struct result {
    char config[16];
    unsigned threads;
    uint64_t events;             /* region instances per repetition, all threads */
    double base_med, base_min;   /* two timer reads, ns per iteration */
    double pair_med, pair_min;   /* ns per START/STOP pair */
    double ratio_med, ratio_min; /* pair / baseline, each thread and repetition on its own */
    double fin_med, fin_min;     /* seconds of prof_finish */
    double part_bpe, csv_bpe;    /* bytes per event: part files (or naive file), run file */
    char clock[16];
};

/* Per-thread state of the naive collector: an open-region stack and its own FILE. */
struct naive_thread {
    FILE *f;
    unsigned depth;
    const char *id[NAIVE_DEPTH];
    uint64_t start[NAIVE_DEPTH];
};

static __thread struct naive_thread *naive_self;

/* Nanoseconds of CLOCK_MONOTONIC. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Print a message with the reason of the last failure and stop the process. */
static void die(const char *what, const char *arg)
{
    fprintf(stderr, "collbench: %s%s%s: %s\n", what, arg ? " " : "", arg ? arg : "",
            strerror(errno));
    exit(1);
}

/* The naive collector's START: remember the id and the time on this thread's stack. */
static __attribute__((noinline)) void naive_start(const char *id)
{
    struct naive_thread *t = naive_self;
    t->id[t->depth] = id;
    t->start[t->depth++] = timer_read();
}

/* The naive collector's STOP: one "id,delta" text line per region, as the seed articles did. */
static __attribute__((noinline)) void naive_stop(void)
{
    uint64_t now = timer_read();
    struct naive_thread *t = naive_self;
    unsigned d = --t->depth;
    fprintf(t->f, "%s,%llu\n", t->id[d], (unsigned long long)(now - t->start[d]));
}

/* The unit of comparison: two timer reads per iteration, their difference kept in a sink. */
static __attribute__((noinline)) void loop_baseline(uint64_t n, volatile uint64_t *sink)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = timer_read();
        uint64_t b = timer_read();
        *sink += b - a;
    }
}

/* n profreport region pairs, as a user writes them. */
static __attribute__((noinline)) void loop_prof(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        PROFILER_START("x");
        PROFILER_STOP();
    }
}

/* n naive collector region pairs. */
static __attribute__((noinline)) void loop_naive(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        naive_start("x");
        naive_stop();
    }
}

/* Time one block of the baseline and one of the measured loop; add each to the worker's sums. */
static void run_block(struct worker *w, uint64_t n, volatile uint64_t *sink)
{
    uint64_t t0 = now_ns();
    loop_baseline(n, sink);
    uint64_t t1 = now_ns();
    if (w->kind == KIND_PROF)
        loop_prof(n);
    else
        loop_naive(n);
    uint64_t t2 = now_ns();
    w->base_ns += (double)(t1 - t0);
    w->pair_ns += (double)(t2 - t1);
}

/*
 * Thread body: untimed set-up, wait for the other thread, then alternate blocks of the baseline
 * and of the measured loop, so that both see the same machine (a noisy neighbour, writeback).
 */
static void *worker_main(void *arg)
{
    struct worker *w = arg;
    volatile uint64_t sink = 0;
    struct naive_thread naive = {0};
    char path[4096];

    /* One untimed pair first: attaching the thread to the run and creating its part file (or
       opening the naive collector's file) happen outside the measurement. */
    if (w->kind == KIND_PROF) {
        PROFILER_START("x");
        PROFILER_STOP();
    } else {
        snprintf(path, sizeof path, "%s/naive.%u.csv", w->dir, w->index + 1);
        naive.f = fopen(path, "w");
        if (!naive.f)
            w->failed = errno;
        naive_self = &naive;
        if (naive.f) {
            naive_start("x");
            naive_stop();
        }
    }
    pthread_barrier_wait(w->start);
    if (w->failed)
        return NULL;

    for (uint64_t done = 0; done < w->pairs; done += BLOCK_PAIRS)
        run_block(w, w->pairs - done < BLOCK_PAIRS ? w->pairs - done : BLOCK_PAIRS, &sink);
    if (naive.f) {
        /* The naive collector's last buffer reaches its file inside the timing. */
        uint64_t t0 = now_ns();
        if (fflush(naive.f) != 0)
            w->failed = errno;
        w->pair_ns += (double)(now_ns() - t0);
    }
    w->base_ns /= (double)w->pairs;
    w->pair_ns /= (double)w->pairs;

    if (naive.f && fclose(naive.f) != 0 && !w->failed)
        w->failed = errno;
    naive_self = NULL;
    return NULL;
}

/* Run threads workers at once; thread i's baseline and pair costs (ns) go to base[i], pair[i]. */
static void run_workers(enum kind kind, unsigned threads, uint64_t pairs, const char *dir,
                        double *base, double *pair)
{
    struct worker w[MAX_THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, threads);
    for (unsigned i = 0; i < threads; i++) {
        w[i] =
            (struct worker){.kind = kind, .pairs = pairs, .index = i, .dir = dir, .start = &start};
        errno = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
        if (errno)
            die("cannot create a thread", NULL);
    }
    for (unsigned i = 0; i < threads; i++) {
        pthread_join(w[i].thread, NULL);
        if (w[i].failed) {
            errno = w[i].failed;
            die("cannot write the naive collector's file in", dir);
        }
        base[i] = w[i].base_ns;
        pair[i] = w[i].pair_ns;
    }
    pthread_barrier_destroy(&start);
}

/* Whether name ends with suffix. */
static int ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n >= s && strcmp(name + n - s, suffix) == 0;
}

/* Total size of the files in dir whose name ends with suffix; the last one's path to last. */
static uint64_t dir_bytes(const char *dir, const char *suffix, char *last, size_t last_size)
{
    DIR *d = opendir(dir);
    if (!d)
        die("cannot read", dir);
    uint64_t total = 0;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, suffix))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            die("cannot stat", path);
        total += (uint64_t)st.st_size;
        if (last)
            snprintf(last, last_size, "%s", path);
    }
    closedir(d);
    return total;
}

/* Delete every file in dir (the folder itself stays). */
static void empty_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        die("cannot read", dir);
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0)
            die("cannot delete", path);
    }
    closedir(d);
}

/* Check the run file's Mode record and copy its Clock value to clock. */
static void check_run_file(const char *path, const char *mode, char *clock, size_t clock_size)
{
    char head[8192], want[32];
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot open", path);
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = 0;
    snprintf(want, sizeof want, "\nMode,%s\n", mode);
    if (!strstr(head, want)) {
        fprintf(stderr, "collbench: %s is not a run file of mode %s\n", path, mode);
        exit(1);
    }
    const char *c = strstr(head, "\nClock,");
    snprintf(clock, clock_size, "%.*s", c ? (int)strcspn(c + 7, "\n") : 1, c ? c + 7 : "?");
}

/* Order two doubles for qsort. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (v is sorted in place). */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The smallest of v[0..n). */
static double minimum(const double *v, size_t n)
{
    double m = v[0];
    for (size_t i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

/* The mean of v[0..n). */
static double mean(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s / (double)n;
}

/*
 * Child mode: measure one configuration reps times in this process, with its baseline, in a fresh
 * temporary folder; print one result line on stdout.
 */
static int run_config(const char *config, unsigned threads, uint64_t pairs, unsigned reps)
{
    int prof = strcmp(config, "events") == 0 || strcmp(config, "summary") == 0;
    if ((!prof && strcmp(config, "naive") != 0) || threads < 1 || threads > MAX_THREADS ||
        pairs < 1 || reps < 1) {
        fprintf(stderr, "collbench: bad configuration %s %u %llu %u\n", config, threads,
                (unsigned long long)pairs, reps);
        return 2;
    }
    /* Before the first prof_ call: the collector reads these once per process. */
    setenv("PROFILER_ENABLE", "1", 1);
    setenv("PROFILER_CLOCK", "tsc", 1);
    if (prof)
        setenv("PROFILER_MODE", config, 1);

    const char *tmp = getenv("TMPDIR");
    char dir[2048], runfile[4096];
    snprintf(dir, sizeof dir, "%s/collbench.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        die("cannot create a temporary folder from", dir);
    setenv("PROFILER_DIR", dir, 1);

    const char *v = getenv("COLLBENCH_VERBOSE");
    int verbose = v && *v && strcmp(v, "0") != 0;
    size_t ns = (size_t)reps * threads;
    double *base = calloc(ns, sizeof *base), *pair = calloc(ns, sizeof *pair);
    double *fin = calloc(reps, sizeof *fin), *part = calloc(reps, sizeof *part);
    double *csv = calloc(reps, sizeof *csv), *ratio = calloc(ns, sizeof *ratio);
    if (!base || !pair || !fin || !part || !csv || !ratio)
        die("out of memory", NULL);
    struct result r = {.threads = threads, .events = threads * (pairs + 1)};
    snprintf(r.config, sizeof r.config, "%s", config);
    snprintf(r.clock, sizeof r.clock, "%s", prof ? "?" : "tsc");

    for (unsigned rep = 0; rep < reps; rep++) {
        if (prof) {
            enum prof_error e = prof_init(dir);
            if (e != PROF_OK) {
                fprintf(stderr, "collbench: prof_init: %s\n", prof_strerror(e));
                return 1;
            }
        }
        run_workers(prof ? KIND_PROF : KIND_NAIVE, threads, pairs, dir, base + rep * threads,
                    pair + rep * threads);
        /* The threads have exited, so their parts hold everything but the merge. */
        if (prof) {
            part[rep] = (double)dir_bytes(dir, ".part", NULL, 0) / (double)r.events;
            uint64_t t0 = now_ns();
            enum prof_error e = prof_finish();
            uint64_t t1 = now_ns();
            if (e != PROF_OK) {
                fprintf(stderr, "collbench: prof_finish: %s\n", prof_strerror(e));
                return 1;
            }
            fin[rep] = (double)(t1 - t0) / 1e9;
            runfile[0] = 0;
            csv[rep] = (double)dir_bytes(dir, ".csv", runfile, sizeof runfile) / (double)r.events;
            if (!runfile[0] || dir_bytes(dir, ".part", NULL, 0) != 0) {
                fprintf(stderr, "collbench: prof_finish left no run file or left parts in %s\n",
                        dir);
                return 1;
            }
            check_run_file(runfile, config, r.clock, sizeof r.clock);
        } else {
            part[rep] = (double)dir_bytes(dir, ".csv", NULL, 0) / (double)r.events;
        }
        empty_dir(dir);
        if (verbose) {
            fprintf(stderr, "%s/%u rep %u: baseline", config, threads, rep + 1);
            for (unsigned i = 0; i < threads; i++)
                fprintf(stderr, " %.2f", base[rep * threads + i]);
            fprintf(stderr, " ns, pair");
            for (unsigned i = 0; i < threads; i++)
                fprintf(stderr, " %.2f", pair[rep * threads + i]);
            fprintf(stderr, " ns, finish %.3f s\n", fin[rep]);
        }
    }
    if (rmdir(dir) != 0)
        die("cannot delete", dir);

    for (size_t i = 0; i < ns; i++)
        ratio[i] = pair[i] / base[i];
    r.ratio_min = minimum(ratio, ns);
    r.ratio_med = median(ratio, ns);
    r.base_min = minimum(base, ns);
    r.base_med = median(base, ns);
    r.pair_min = minimum(pair, ns);
    r.pair_med = median(pair, ns);
    if (prof) {
        r.fin_min = minimum(fin, reps);
        r.fin_med = median(fin, reps);
        r.csv_bpe = mean(csv, reps);
    }
    r.part_bpe = mean(part, reps);
    printf("RESULT %s %u %llu %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %s\n", r.config,
           r.threads, (unsigned long long)r.events, r.base_med, r.base_min, r.pair_med, r.pair_min,
           r.ratio_med, r.ratio_min, r.fin_med, r.fin_min, r.part_bpe, r.csv_bpe, r.clock);
    free(base);
    free(pair);
    free(fin);
    free(part);
    free(csv);
    free(ratio);
    return 0;
}

/* Run "self run CONFIG THREADS PAIRS REPS" in a new process and read back its result line. */
static int run_child(const char *config, unsigned threads, uint64_t pairs, unsigned reps,
                     struct result *r)
{
    int fds[2];
    if (pipe(fds) != 0)
        die("cannot create a pipe", NULL);
    /* The previous configuration's files are still being written back by the kernel; on two
       cores that writeback otherwise lands inside this configuration's measurement. */
    sync();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("cannot fork", NULL);
    if (pid == 0) {
        char t[16], p[32], n[16];
        snprintf(t, sizeof t, "%u", threads);
        snprintf(p, sizeof p, "%llu", (unsigned long long)pairs);
        snprintf(n, sizeof n, "%u", reps);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl("/proc/self/exe", "collbench", "run", config, t, p, n, (char *)NULL);
        die("cannot execute", "/proc/self/exe");
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    if (!in)
        die("cannot read from a child", NULL);
    char line[512];
    int got = 0;
    while (fgets(line, sizeof line, in)) {
        unsigned long long events;
        if (sscanf(line, "RESULT %15s %u %llu %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %15s",
                   r->config, &r->threads, &events, &r->base_med, &r->base_min, &r->pair_med,
                   &r->pair_min, &r->ratio_med, &r->ratio_min, &r->fin_med, &r->fin_min,
                   &r->part_bpe, &r->csv_bpe, r->clock) == 14) {
            r->events = events;
            got = 1;
        } else {
            fputs(line, stdout);
        }
    }
    fclose(in);
    int status;
    if (waitpid(pid, &status, 0) < 0)
        die("cannot wait for a child", NULL);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !got) {
        fprintf(stderr, "collbench: configuration %s, %u thread(s) failed\n", config, threads);
        return -1;
    }
    return 0;
}

/* The timer's rate in GHz (ticks per ns), over a 50 ms sleep. */
static double timer_ghz(void)
{
    uint64_t n0 = now_ns(), t0 = timer_read();
    struct timespec pause = {0, 50000000};
    nanosleep(&pause, NULL);
    uint64_t n1 = now_ns(), t1 = timer_read();
    return (double)(t1 - t0) / (double)(n1 - n0);
}

/* The CPU's model name from /proc/cpuinfo, or "unknown CPU". */
static void cpu_model(char *out, size_t size)
{
    char line[512];
    snprintf(out, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon += 1 + strspn(colon + 1, " \t");
            snprintf(out, size, "%.*s", (int)strcspn(colon, "\n"), colon);
            break;
        }
    }
    fclose(f);
}

/* "PASS" or "MISS" for a ratio against its target. */
static const char *verdict(double ratio, double target)
{
    return ratio <= target ? "PASS" : "MISS";
}

/* The name a configuration has in the tables. */
static const char *label(unsigned c)
{
    return c == 0 ? "events" : c == 1 ? "summary" : "naive fprintf";
}

/* Driver mode: every configuration in its own process, then the tables. */
static int run_all(uint64_t pairs, unsigned reps)
{
    static const char *const configs[] = {"events", "summary", "naive"};
    struct result res[3][MAX_THREADS];
    int ok[3][MAX_THREADS] = {{0}}, all_ok = 1;
    uint64_t naive_pairs = pairs / NAIVE_SHARE ? pairs / NAIVE_SHARE : 1;
    const char *tmp = getenv("TMPDIR");
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    printf("profreport collector benchmark (bench/README.md), library %s\n", prof_version());
    printf("%s, %ld CPUs online, %s at %.3f GHz, temporary folders under %s\n", cpu,
           sysconf(_SC_NPROCESSORS_ONLN), TIMER_NAME, timer_ghz(), tmp && *tmp ? tmp : "/tmp");
    printf("%llu pairs per thread and measurement (naive fprintf: %llu), %u repetitions\n",
           (unsigned long long)pairs, (unsigned long long)naive_pairs, reps);
    printf("running:");
    uint64_t t0 = now_ns();
    for (unsigned c = 0; c < 3; c++)
        for (unsigned t = 1; t <= MAX_THREADS; t++) {
            printf(" %s/%u", configs[c], t);
            fflush(stdout);
            ok[c][t - 1] =
                run_child(configs[c], t, c == 2 ? naive_pairs : pairs, reps, &res[c][t - 1]) == 0;
            all_ok &= ok[c][t - 1];
        }
    printf(" (%.1f s)\n\n", (double)(now_ns() - t0) / 1e9);

    printf("Cost of one START/STOP pair per thread, part-file writes included. Baseline: two\n"
           "%s reads per iteration, timed by the same threads in blocks of %u alternating\n"
           "with the measured loop. ns: median (min) over repetitions x threads. Ratio: pair /\n"
           "baseline of the same thread and repetition, median (min).\n\n",
           TIMER_NAME, BLOCK_PAIRS);
    printf("%-14s %7s %16s %16s %15s %8s %6s\n", "configuration", "threads", "baseline ns",
           "ns/pair", "ratio", "target", "result");
    for (unsigned c = 0; c < 3; c++)
        for (unsigned t = 0; t < MAX_THREADS; t++) {
            const struct result *r = &res[c][t];
            if (!ok[c][t]) {
                printf("%-14s %7u %16s\n", label(c), t + 1, "(failed)");
                continue;
            }
            double target = c == 0 ? TARGET_EVENTS : c == 1 ? TARGET_SUMMARY : 0;
            char b[32], p[32], q[32], tg[16];
            snprintf(b, sizeof b, "%.2f (%.2f)", r->base_med, r->base_min);
            snprintf(p, sizeof p, "%.2f (%.2f)", r->pair_med, r->pair_min);
            snprintf(q, sizeof q, "%.2fx (%.2fx)", r->ratio_med, r->ratio_min);
            snprintf(tg, sizeof tg, target > 0 ? "<= %.2fx" : "-", target);
            printf("%-14s %7u %16s %16s %15s %8s %6s\n", label(c), t + 1, b, p, q, tg,
                   target > 0 ? verdict(r->ratio_med, target) : "-");
        }

    printf(
        "\nNaive fprintf collector / profreport events mode: median ratios divided (raw ns/pair\n"
        "medians divided):");
    for (unsigned t = 0; t < MAX_THREADS; t++)
        if (ok[0][t] && ok[2][t])
            printf("%s %u thread%s %.2fx (%.2fx)", t ? "," : "", t + 1, t ? "s" : "",
                   res[2][t].ratio_med / res[0][t].ratio_med,
                   res[2][t].pair_med / res[0][t].pair_med);
    printf("\n\nprof_finish, the merge of the parts into the run file (not in ns/pair), and bytes\n"
           "written per event (one event = one pair = one row of the events table): median (min).\n"
           "The naive collector writes only its own text file, shown as its run file.\n\n");
    printf("%-14s %7s %10s %17s %10s %11s %10s\n", "configuration", "threads", "events",
           "prof_finish ms", "events/s", "parts B/ev", "run B/ev");
    for (unsigned c = 0; c < 3; c++)
        for (unsigned t = 0; t < MAX_THREADS; t++) {
            const struct result *r = &res[c][t];
            if (!ok[c][t])
                continue;
            char f[40] = "-", rate[24] = "-", part[16] = "-", run[16];
            if (c < 2) {
                snprintf(f, sizeof f, "%.1f (%.1f)", r->fin_med * 1e3, r->fin_min * 1e3);
                snprintf(part, sizeof part, "%.3g", r->part_bpe);
                snprintf(run, sizeof run, "%.3g", r->csv_bpe);
            } else {
                snprintf(run, sizeof run, "%.3g", r->part_bpe);
            }
            if (c == 0)
                snprintf(rate, sizeof rate, "%.1f M", (double)r->events / r->fin_med / 1e6);
            printf("%-14s %7u %10llu %17s %10s %11s %10s\n", label(c), t + 1,
                   (unsigned long long)r->events, f, rate, part, run);
            if (c < 2 && strcmp(r->clock, "tsc") != 0)
                printf("  (the run file says Clock,%s: the collector did not use the TSC)\n",
                       r->clock);
        }
    printf("\nTargets (informational): events <= %.2fx and summary <= %.2fx the baseline, on the\n"
           "median ratio. Summary mode's parts and run file do not grow with the event count.\n",
           TARGET_EVENTS, TARGET_SUMMARY);
    return all_ok ? 0 : 1;
}

/* Parse a positive decimal count, or stop with a usage message. */
static uint64_t count_arg(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || v == 0) {
        fprintf(stderr, "collbench: '%s' is not a positive count\n", s);
        exit(2);
    }
    return v;
}

/* Driver mode without arguments or with --pairs/--reps; child mode with "run". */
int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "run") == 0)
        return run_config(argv[2], (unsigned)count_arg(argv[3]), count_arg(argv[4]),
                          (unsigned)count_arg(argv[5]));
    uint64_t pairs = DEFAULT_PAIRS;
    unsigned reps = DEFAULT_REPS;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--pairs") == 0 && i + 1 < argc)
            pairs = count_arg(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = (unsigned)count_arg(argv[++i]);
        else {
            fprintf(stderr, "usage: collbench [--pairs N] [--reps R]\n"
                            "       collbench run events|summary|naive THREADS PAIRS REPS\n");
            return 2;
        }
    }
    return run_all(pairs, reps);
}
