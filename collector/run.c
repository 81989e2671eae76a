/*
 * run.c - the process side of recording: configuration from the environment, the run and its
 * registry of thread recorders, writing the run file at exit, fork, and failing quietly.
 */
#include "run.h"

#include "assemble.h"
#include "csvwrite.h"
#include "fileutil.h"
#include "hooks.h"
#include "partwrite.h"
#include "program.h"
#include "sample.h"
#include "status.h"
#include "thread.h"
#include "timer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Set once PROFILER_ENABLE=0 is seen: lets every event return before pthread_once. */
static int prof_off;

/* The calling thread's rounds of key destructors so far (thread_key_destructor), and whether
   its recorder was ended in the last: an event after that is dropped, never a second recorder
   for the same thread. */
static __thread unsigned key_rounds __attribute__((tls_model("initial-exec")));
static __thread int thread_ended __attribute__((tls_model("initial-exec")));

/* Everything here is guarded by g.lock except the atomics noted. */
static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    pthread_key_t key;
    int key_ok;
    int initialised; /* process_init ran */

    /* configuration, fixed at process init */
    int disabled; /* PROFILER_ENABLE=0 */
    enum prof_mode mode;
    enum prof_clock clock;
    uint64_t frequency;
    uint64_t live_interval;             /* PROFILER_REPORT_INTERVAL, in ticks */
    uint64_t flush_interval;            /* PROFILER_FLUSH_INTERVAL, in ticks; 0: write when full */
    uint64_t max_events;                /* PROFILER_MAX_EVENTS; 0: no cap */
    uint32_t max_nodes;                 /* PROFILER_MAX_NODES */
    int sample_method;                  /* PROFILER_TIMING=sampled: sample.h's method; 0: exact */
    uint64_t sample_period_ns;          /* PROFILER_SAMPLE_PERIOD, or lengthened (sample.h) */
    uint64_t sample_period_asked_ns;    /* PROFILER_SAMPLE_PERIOD or the default */
    uint64_t short_ticks;               /* a context's mean call below it is not timed */
    double clock_ns;                    /* one clock read, calibrated at start */
    enum prof_split_mode write_threads; /* PROFILER_WRITE_THREADS */
    char *program, *command;
    char *include, *exclude; /* prof_run_filters */
    char host[256];

    /* the current run (whether it stopped or failed: status.c) */
    int active; /* recording */
    char *dir;
    /* dir, opened once: every file of the run is made relative to it, so the folder swapped
       for a link while the program runs leads nowhere. -1: none. dir_id: which folder it is. */
    int dirfd;
    struct prof_part_id dir_id;
    char runname[128];
    unsigned runs;    /* runs started by this process: the second and later get a -N suffix */
    uint32_t token;   /* random, drawn once per process image: run names never repeat */
    long utc_offset;  /* atomic: seconds east of UTC, as localtime_r last said */
    int offset_known; /* atomic */
    pid_t token_pid;
    struct prof_sbuf header;
    uint64_t base_ticks, base_ns;
    uint64_t events_total; /* atomic: region instances the run's threads wrote so far */
    pid_t pid, ppid;
    int fork_child_pending; /* a fork child must name its run before recording */
    unsigned next_number;
    struct prof_thread *head, *tail; /* live threads' recorders */
    /* The part files of the run's threads that have ended, NUL-separated: all that is kept of
       them, so memory and fork do not grow with the threads a process ever ran. */
    struct prof_sbuf done;
    size_t ndone;
    struct prof_thread *orphans; /* a fork child's copies of the parent's other recorders */
    char *orphan_paths;          /* and of the parent's list of ended threads */
} g = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER, .dirfd = -1};

/* Whether an environment switch says "off". */
static int env_off(const char *v)
{
    return v && (strcmp(v, "0") == 0 || strcasecmp(v, "no") == 0 || strcasecmp(v, "off") == 0 ||
                 strcasecmp(v, "false") == 0);
}

/* Read a small /proc file whole; the caller frees. */
static char *read_small(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n == cap) {
            if (cap >= (1u << 20))
                break;
            char *b = realloc(buf, cap * 2 + 1);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    close(fd);
    if (buf) {
        buf[n] = 0;
        *len = n;
    }
    return buf;
}

/*
 * The command line from /proc/self/cmdline (arguments separated by NULs) as one string, each
 * argument that a shell would split or expand put in single quotes, so it can be run again.
 */
static char *command_line(const char *args, size_t len)
{
    struct prof_sbuf b = {0};
    for (size_t i = 0; i < len;) {
        const char *a = args + i;
        size_t n = strnlen(a, len - i);
        if (i)
            prof_sbuf_char(&b, ' ');
        if (n > 0 && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                               "-_./=:,+@%") == n) {
            prof_sbuf_add(&b, a, n);
        } else {
            prof_sbuf_char(&b, '\'');
            for (size_t k = 0; k < n; k++) {
                if (a[k] == '\'')
                    prof_sbuf_str(&b, "'\\''");
                else
                    prof_sbuf_char(&b, a[k]);
            }
            prof_sbuf_char(&b, '\'');
        }
        i += n + 1;
    }
    prof_sbuf_char(&b, 0);
    if (b.failed) {
        prof_sbuf_release(&b);
        return NULL;
    }
    return b.data;
}

static void thread_key_destructor(void *p);
static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);
static void fork_child_found_late(void);

/* PROFILER_MODE's default (prof_run_default_mode). */
static enum prof_mode default_mode = PROF_MODE_EVENTS;

void prof_run_default_mode(enum prof_mode mode) { default_mode = mode; }

void prof_run_filters(const char *include, const char *exclude)
{
    free(g.include);
    free(g.exclude);
    g.include = include && *include ? strdup(include) : NULL;
    g.exclude = exclude && *exclude ? strdup(exclude) : NULL;
}

int prof_run_filtered(void) { return g.include || g.exclude; }

const char *prof_run_include(void) { return g.include; }

const char *prof_run_exclude(void) { return g.exclude; }

/* PROFILER_TIMING's default (prof_run_default_timing). */
static enum prof_timing default_timing = PROF_TIMING_EXACT;

void prof_run_default_timing(enum prof_timing timing) { default_timing = timing; }

/* The mean wall time of a calling context's calls below which sampled timing stops timing
   them: this many times the cost of timing a call (two clock reads). */
#define PROF_SHORT_FACTOR 40
/* And at least this, in ns. */
#define PROF_SHORT_MIN_NS 500.0

/* The cheapest of many back-to-back clock reads, in ns: what timing a call adds per read. */
static double calibrate_clock(void)
{
    uint64_t best = UINT64_MAX;
    for (int round = 0; round < 64; round++) {
        uint64_t a = prof_ticks();
        for (int i = 0; i < 16; i++)
            (void)prof_ticks();
        uint64_t b = prof_ticks();
        if (b - a < best)
            best = b - a;
    }
    return (double)best / 17 * 1e9 / (double)g.frequency;
}

/* A duration such as "250us", "1ms", "0" or "500000" (ns), in ns in *ns: 1, or 0 when
   malformed. */
static int parse_duration(const char *v, uint64_t *ns)
{
    char *end;
    double x = prof_strtod_c(v, &end);
    double unit = strcmp(end, "s") == 0               ? 1e9
                  : strcmp(end, "ms") == 0            ? 1e6
                  : strcmp(end, "us") == 0            ? 1e3
                  : (!*end || strcmp(end, "ns") == 0) ? 1
                                                      : 0;
    if (end == v || !(x >= 0) || unit <= 0 || x * unit >= 1e12)
        return 0;
    *ns = (uint64_t)(x * unit);
    return 1;
}

/* A positive duration (parse_duration), or 0 when malformed or 0. */
static uint64_t parse_duration_ns(const char *v)
{
    uint64_t ns = 0;
    return parse_duration(v, &ns) ? ns : 0;
}

/* PROFILER_TIMING, PROFILER_SAMPLE_PERIOD and PROFILER_SIGNAL: sampled timing's method, or 0
   for exact timing (events mode times every event; a sampler that cannot start says why). */
static void configure_timing(void)
{
    const char *v = getenv("PROFILER_TIMING");
    enum prof_timing timing = default_timing;
    if (v && strcmp(v, "exact") == 0)
        timing = PROF_TIMING_EXACT;
    else if (v && strcmp(v, "sampled") == 0)
        timing = PROF_TIMING_SAMPLED;
    else if (v && *v)
        prof_warn("PROFILER_TIMING='%s' is not 'exact' or 'sampled'; using '%s'", v,
                  default_timing == PROF_TIMING_SAMPLED ? "sampled" : "exact");
    g.clock_ns = calibrate_clock();
    double short_ns = PROF_SHORT_FACTOR * 2 * g.clock_ns;
    if (short_ns < PROF_SHORT_MIN_NS)
        short_ns = PROF_SHORT_MIN_NS;
    v = getenv("PROFILER_SHORT_CALL");
    if (v && *v) {
        uint64_t ns = parse_duration_ns(v);
        if (ns)
            short_ns = (double)ns;
        else
            prof_warn("PROFILER_SHORT_CALL='%s' is not a duration; using %.0fns", v, short_ns);
    }
    g.short_ticks = (uint64_t)(short_ns * (double)g.frequency / 1e9);
    if (timing != PROF_TIMING_SAMPLED || g.mode != PROF_MODE_SUMMARY)
        return;
    g.sample_period_ns = PROF_SAMPLE_PERIOD_NS;
    int period_set = 0;
    v = getenv("PROFILER_SAMPLE_PERIOD");
    if (v && *v) {
        uint64_t ns = parse_duration_ns(v);
        if (ns >= 10000) {
            g.sample_period_ns = ns;
            period_set = 1;
        } else
            prof_warn("PROFILER_SAMPLE_PERIOD='%s' is not a duration of 10us or more; using "
                      "250us",
                      v);
    }
    g.sample_period_asked_ns = g.sample_period_ns;
    int sig = SIGPROF;
    v = getenv("PROFILER_SIGNAL");
    if (v && *v) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end || n <= 0 || n >= NSIG || n == SIGKILL || n == SIGSTOP)
            prof_warn("PROFILER_SIGNAL='%s' is not a signal number; using %d", v, SIGPROF);
        else
            sig = (int)n;
    }
    enum prof_sample_method want = PROF_SAMPLE_NONE;
    v = getenv("PROFILER_SAMPLER");
    if (v && strcmp(v, "perf") == 0)
        want = PROF_SAMPLE_PERF;
    else if (v && strcmp(v, "timer") == 0)
        want = PROF_SAMPLE_TIMER;
    else if (v && *v)
        prof_warn("PROFILER_SAMPLER='%s' is not 'perf' or 'timer'; choosing one", v);
    /* What a perf sample costs the thread: a duration, "0" for only what the handler
       measures, or unset to calibrate it */
    int64_t cost_ns = -1;
    v = getenv("PROFILER_SAMPLE_COST");
    if (v && *v) {
        uint64_t ns;
        if (parse_duration(v, &ns))
            cost_ns = (int64_t)ns;
        else
            prof_warn("PROFILER_SAMPLE_COST='%s' is not a duration; measuring it", v);
    }
    g.sample_method = (int)prof_sample_setup(sig, &g.sample_period_ns, period_set, want, cost_ns);
    if (g.sample_method)
        prof_hooks_add(&prof_sample_hooks);
}

/* Seconds from an environment variable, in ticks; fallback when unset or malformed (warned).
   "0" gives 0. */
static uint64_t env_seconds(const char *name, const char *what, uint64_t fallback)
{
    const char *v = prof_getenv(name);
    if (!v || !*v)
        return fallback;
    char *end;
    double sec = prof_strtod_c(v, &end);
    if (*end == 0 && sec >= 0 && sec < 1e6)
        return (uint64_t)(sec * (double)g.frequency);
    prof_warn("%s='%s' is not a number of seconds; %s", name, v, what);
    return fallback;
}

/* A count from an environment variable; fallback when unset or malformed (warned). "0" gives
   0. */
static uint64_t env_count(const char *name, uint64_t fallback)
{
    const char *v = prof_getenv(name);
    if (!v || !*v)
        return fallback;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (*end == 0 && *v >= '0' && *v <= '9' && errno == 0)
        return n;
    prof_warn("%s='%s' is not a count; using %llu", name, v, (unsigned long long)fallback);
    return fallback;
}

/* Once per process: configuration, clock, thread key, fork handlers, program facts. */
static void process_init(void)
{
    g.initialised = 1;
    if (env_off(prof_getenv("PROFILER_ENABLE"))) {
        g.disabled = 1;
        __atomic_store_n(&prof_off, 1, __ATOMIC_RELAXED);
        return;
    }
    const char *mode = prof_getenv("PROFILER_MODE");
    g.mode = default_mode;
    if (mode && strcmp(mode, "summary") == 0)
        g.mode = PROF_MODE_SUMMARY;
    else if (mode && strcmp(mode, "events") == 0)
        g.mode = PROF_MODE_EVENTS;
    else if (mode && *mode)
        prof_warn("PROFILER_MODE='%s' is not 'events' or 'summary'; using '%s'", mode,
                  default_mode == PROF_MODE_SUMMARY ? "summary" : "events");
    const char *clock = prof_getenv("PROFILER_CLOCK");
    enum prof_clock want = PROF_CLOCK_TSC;
    if (clock && strcmp(clock, "monotonic") == 0)
        want = PROF_CLOCK_MONOTONIC;
    else if (clock && *clock && strcmp(clock, "tsc") != 0)
        prof_warn("PROFILER_CLOCK='%s' is not 'tsc' or 'monotonic'; using 'tsc'", clock);
    g.frequency = prof_timer_setup(want, &g.clock);
    g.live_interval = env_seconds("PROFILER_REPORT_INTERVAL", "no live report", 0);
    g.flush_interval =
        env_seconds("PROFILER_FLUSH_INTERVAL", "using 1 second", g.frequency ? g.frequency : 1);

    g.max_events = env_count("PROFILER_MAX_EVENTS", PROF_MAX_EVENTS_DEFAULT);
    /* 0: no limit but memory's */
    uint64_t nodes = env_count("PROFILER_MAX_NODES", PROF_MAX_NODES_DEFAULT);
    g.max_nodes = nodes && nodes < UINT32_MAX ? (uint32_t)nodes : UINT32_MAX - 1;
    configure_timing();

    const char *wt = prof_getenv("PROFILER_WRITE_THREADS");
    g.write_threads = PROF_SPLIT_AUTO;
    if (wt && strcmp(wt, "1") == 0)
        g.write_threads = PROF_SPLIT_NEVER;
    else if (wt && strcmp(wt, "2") == 0)
        g.write_threads = PROF_SPLIT_ALWAYS;
    else if (wt && *wt)
        prof_warn("PROFILER_WRITE_THREADS='%s' is not 1 or 2; choosing at exit", wt);

    g.key_ok = pthread_key_create(&g.key, thread_key_destructor) == 0;

    size_t len = 0;
    char *args = read_small("/proc/self/cmdline", &len);
    g.command = args ? command_line(args, len) : NULL;
    if (prof_program_path()[0]) {
        g.program = strdup(prof_program_path());
    } else if (args) {
        g.program = strdup(args);
    }
    free(args);
    if (gethostname(g.host, sizeof g.host - 1) != 0)
        g.host[0] = 0;
}

/* Whether g.dirfd is still the run's folder (the program may close it or reuse its number). */
static int folder_is_ours(void)
{
    struct stat st;
    return g.dirfd >= 0 && fstat(g.dirfd, &st) == 0 && S_ISDIR(st.st_mode) &&
           st.st_dev == g.dir_id.dev && st.st_ino == g.dir_id.ino;
}

/* Let go of the run's folder: closed only when the descriptor is still ours. */
static void folder_close(void)
{
    if (folder_is_ours())
        close(g.dirfd);
    g.dirfd = -1;
}

/*
 * The run's folder, usable (run lock held): open, and the folder the run opened. When the
 * program closed the descriptor (closefrom) the folder is opened again by its name, and used
 * only if it is the same folder (device and inode), not whatever the name leads to now.
 */
static int folder_usable(void)
{
    if (folder_is_ours())
        return 1;
    g.dirfd = -1; /* not ours any more: never closed */
    int fd = open(g.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == g.dir_id.dev && st.st_ino == g.dir_id.ino) {
        g.dirfd = fd;
        return 1;
    }
    if (fd >= 0)
        close(fd);
    return 0;
}

/*
 * The run's folder, made with its parents when missing (mode 0755), then opened once (g.dirfd)
 * without following a link at its last step, and writable: 0 or an errno value. g.dir becomes
 * its absolute path (the program may chdir before the run file is written).
 */
static int open_folder(void)
{
    int err = prof_mkdirs(g.dir);
    if (err)
        return err;
    /* A link named by the user leads where the user meant; what is opened is then fixed. */
    char *abs = realpath(g.dir, NULL);
    if (!abs)
        return errno;
    free(g.dir);
    g.dir = abs;
    folder_close();
    int fd = open(g.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno;
    struct stat st;
    if (fstat(fd, &st) != 0)
        err = errno;
    else if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) != 0)
        err = errno;
    if (err) {
        close(fd);
        return err;
    }
    g.dirfd = fd;
    g.dir_id.dev = st.st_dev;
    g.dir_id.ino = st.st_ino;
    return 0;
}

/* Add one key/value pair to the run's part header. */
static void header_kv(const char *key, const char *value)
{
    if (!value)
        return;
    prof_sbuf_add(&g.header, key, strlen(key) + 1);
    prof_sbuf_add(&g.header, value, strlen(value) + 1);
}

/* Remember the local time's offset from UTC at secs (localtime_r takes the time-zone lock). */
static void learn_utc_offset(time_t secs)
{
    struct tm lt;
    if (!localtime_r(&secs, &lt))
        return;
    __atomic_store_n(&g.utc_offset, lt.tm_gmtoff, __ATOMIC_RELAXED);
    __atomic_store_n(&g.offset_known, 1, __ATOMIC_RELEASE);
}

/*
 * Name the run after its start and build the header every part begins with. With lock_free
 * (called from inside an allocation, where the C library may hold its time-zone lock) the local
 * time uses the offset learnt last, at load or at a run begun from the program's own code.
 */
static int name_run(int lock_free)
{
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    /* The run started at base_ns on the monotonic clock; move the wall time back to it. */
    uint64_t since = prof_monotonic_ns() - g.base_ns;
    uint64_t wall_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec - since;
    time_t secs = (time_t)(wall_ns / 1000000000u);
    if (!lock_free)
        learn_utc_offset(secs);
    long offset = __atomic_load_n(&g.offset_known, __ATOMIC_ACQUIRE)
                      ? __atomic_load_n(&g.utc_offset, __ATOMIC_RELAXED)
                      : 0;
    struct tm lt, ut;
    prof_civil_time((int64_t)secs + offset, &lt);
    prof_civil_time((int64_t)secs, &ut);
    char when[80], suffix[16] = "";
    snprintf(when, sizeof when, "%04d.%02d.%02d_%02d.%02d.%02d", lt.tm_year + 1900, lt.tm_mon + 1,
             lt.tm_mday, lt.tm_hour, lt.tm_min, lt.tm_sec);
    if (g.runs > 1)
        snprintf(suffix, sizeof suffix, "-%u", g.runs);
    /* The pid alone repeats: after exec (same pid, same second) and when two copies of the
       library record in one process (the preload library and a static link). */
    if (g.token_pid != g.pid) {
        g.token = prof_random32();
        g.token_pid = g.pid;
    }
    snprintf(g.runname, sizeof g.runname, "profiling_%s_%ld_%08x%s", when, (long)g.pid,
             (unsigned)g.token, suffix);

    char start[96], num[32];
    snprintf(start, sizeof start, "%04d-%02d-%02dT%02d:%02d:%02d.%06luZ", ut.tm_year + 1900,
             ut.tm_mon + 1, ut.tm_mday, ut.tm_hour, ut.tm_min, ut.tm_sec,
             (unsigned long)(wall_ns % 1000000000u / 1000));
    prof_sbuf_release(&g.header);
    header_kv("Format", PROF_PART_FORMAT);
    snprintf(num, sizeof num, "%llu", (unsigned long long)g.frequency);
    header_kv("Frequency", num);
    header_kv("Mode", g.mode == PROF_MODE_SUMMARY ? "summary" : "events");
    header_kv("Program", g.program);
    header_kv("Command", g.command);
    snprintf(num, sizeof num, "%ld", (long)g.pid);
    header_kv("Pid", num);
    if (g.ppid) {
        snprintf(num, sizeof num, "%ld", (long)g.ppid);
        header_kv("ParentPid", num);
    }
    header_kv("Host", g.host);
    header_kv("Start", start);
    header_kv("Clock", g.clock == PROF_CLOCK_TSC ? "tsc" : "monotonic");
    header_kv("Include", g.include);
    header_kv("Exclude", g.exclude);
    if (g.mode == PROF_MODE_SUMMARY) {
        /* The Timing record's fields (FORMAT.md 1.2), joined by commas. */
        char timing[160];
        if (g.sample_method)
            prof_snprintf_c(timing, sizeof timing, "%s,%s,%llu,%.1f,%.1f,%llu,%llu",
                            PROF_TIMING_WORD_SAMPLED,
                            prof_sample_method_name((enum prof_sample_method)g.sample_method),
                            (unsigned long long)g.sample_period_ns,
                            (double)g.short_ticks * 1e9 / (double)g.frequency, g.clock_ns,
                            (unsigned long long)prof_sample_overflow_cost(),
                            (unsigned long long)g.sample_period_asked_ns);
        else
            snprintf(timing, sizeof timing, "%s", PROF_TIMING_WORD_EXACT);
        header_kv(PROF_TIMING_RECORD, timing);
    }
    return g.header.failed ? ENOMEM : 0;
}

/* Begin a run in dir (NULL: $PROFILER_DIR or ./profiler-runs). Run lock held; lock_free as
   for name_run. */
static enum prof_error run_begin(const char *dir, int lock_free)
{
    /*
     * A program that runs with changed credentials (setuid, setgid) writes with rights its user
     * does not have, and its environment (PROFILER_DIR) and working folder (the default folder
     * is relative to it) are that user's to choose. It records only into an absolute folder
     * named by the program itself (PROFILER_INIT), and decides so before any folder is made.
     */
    if (prof_secure() && (!dir || dir[0] != '/')) {
        prof_fail("not recording: the program runs setuid or setgid and names no absolute "
                  "folder in PROFILER_INIT (PROFILER_* variables are ignored)",
                  NULL, EPERM);
        return PROF_ERR_DISABLED;
    }
    if (!dir || !*dir)
        dir = prof_getenv("PROFILER_DIR");
    if (!dir || !*dir)
        dir = "profiler-runs";
    free(g.dir);
    g.dir = strdup(dir);
    if (!g.dir) {
        prof_fail("cannot start a run", NULL, ENOMEM);
        return PROF_ERR_NOMEM;
    }
    int err = open_folder();
    if (err) {
        prof_fail("cannot use output folder", g.dir, err);
        return PROF_ERR_IO;
    }
    g.pid = getpid();
    g.runs++;
    prof_clock_pair(&g.base_ticks, &g.base_ns);
    if (name_run(lock_free) != 0) {
        prof_fail("cannot start a run", NULL, ENOMEM);
        return PROF_ERR_NOMEM;
    }
    g.next_number = 1;
    PROF_STORE(g.events_total, 0);
    g.head = g.tail = NULL;
    prof_status_restart();
    g.active = 1;
    __atomic_add_fetch(&prof_gen, 1, __ATOMIC_RELEASE);
    return PROF_OK;
}

/* The run-level facts a recorder needs. */
static struct prof_run_info run_info(void)
{
    struct prof_run_info ri = {.dir = g.dir,
                               .runname = g.runname,
                               .header = g.header.data,
                               .dirfd = g.dirfd,
                               .header_len = g.header.len,
                               .base_ticks = g.base_ticks,
                               .mode = g.mode,
                               .frequency = g.frequency,
                               .live_interval = g.live_interval,
                               .flush_interval = g.flush_interval,
                               .max_events = g.max_events,
                               .events_total = &g.events_total,
                               .max_nodes = g.max_nodes,
                               .sample_method = g.sample_method,
                               .sample_period_ns = g.sample_period_ns,
                               .short_ticks = g.short_ticks};
    return ri;
}

/* Free a fork child's copies of the recorders of threads that exist only in the parent. */
static void free_orphans(void)
{
    while (g.orphans) {
        struct prof_thread *t = g.orphans;
        g.orphans = t->next;
        prof_thread_free(t);
    }
    free(g.orphan_paths);
    g.orphan_paths = NULL;
}

/* Add a recorder to the end of the run's registry (run lock held). */
static void registry_add(struct prof_thread *t)
{
    t->next = NULL;
    t->prev = g.tail;
    if (g.tail)
        g.tail->next = t;
    else
        g.head = t;
    g.tail = t;
}

/* Take a recorder out of the run's registry (run lock held). */
static void registry_remove(struct prof_thread *t)
{
    if (t->prev)
        t->prev->next = t->next;
    else
        g.head = t->next;
    if (t->next)
        t->next->prev = t->prev;
    else
        g.tail = t->prev;
    t->next = t->prev = NULL;
}

/* Forget the run's ended threads (run lock held). */
static void done_clear(void)
{
    prof_sbuf_release(&g.done);
    g.ndone = 0;
}

/* Nonzero once PROFILER_ENABLE=0 was seen. */
int prof_disabled(void) { return __atomic_load_n(&prof_off, __ATOMIC_RELAXED); }

static struct prof_thread *attach(int lock_free);

/* Whether the calling thread is inside the collector already: a signal handler interrupted it. */
static int reentered(void)
{
    struct prof_thread *t = prof_thread_self();
    return prof_busy || (t && (t->gen & PROF_GEN_BUSY));
}

/* The slow path of every event: attach the calling thread to the current run. */
struct prof_thread *prof_attach(void)
{
    if (__atomic_load_n(&prof_off, __ATOMIC_RELAXED))
        return NULL; /* PROFILER_ENABLE=0: nothing to count, not even a dropped event */
    if (reentered()) {
        prof_dropped_event();
        return NULL;
    }
    if (__atomic_load_n(&prof_off, __ATOMIC_RELAXED) || thread_ended)
        return NULL; /* PROFILER_ENABLE=0, or the thread's recorder has ended */
    /* Called inside the collector's quiet section, we are in an allocation (memcheck.c), maybe
       one the C library makes while it holds a lock of its own: start without taking one. */
    int lock_free = prof_mem_quiet != 0;
    struct prof_host host = prof_host_hold(); /* the part's open and write, under the run lock */
    prof_busy_begin();
    prof_mem_quiet_begin(); /* the collector's allocations are not the program's */
    struct prof_thread *t = attach(lock_free);
    /* A module was unloaded since the id table was filled: its addresses may be another's. */
    if (t && t->mod_gen != __atomic_load_n(&prof_mod_gen, __ATOMIC_ACQUIRE))
        prof_thread_forget_keys(t);
    prof_mem_quiet_end();
    prof_busy_end();
    prof_host_release(host);
    return t;
}

/*
 * A recorder whose generation is stale while its thread is still in the current run (the
 * generation moved because a module was unloaded): bring it up to date. Starts nothing: NULL
 * when the thread is not recording in the current run.
 */
struct prof_thread *prof_resync(void)
{
    struct prof_thread *t = prof_thread_self();
    if (!t)
        return NULL;
    if (reentered()) {
        prof_dropped_event();
        return NULL;
    }
    prof_busy_begin();
    pthread_mutex_lock(&g.lock);
    int ok = t->registered && g.active && !g.fork_child_pending && !prof_stopped();
    if (ok)
        t->gen = __atomic_load_n(&prof_gen, __ATOMIC_ACQUIRE);
    pthread_mutex_unlock(&g.lock);
    if (ok && t->mod_gen != __atomic_load_n(&prof_mod_gen, __ATOMIC_ACQUIRE))
        prof_thread_forget_keys(t);
    prof_busy_end();
    return ok ? t : NULL;
}

/* prof_attach's work. */
static struct prof_thread *attach(int lock_free)
{
    /* A child sharing its parent's memory (vfork) records nothing and changes nothing; one
       made without fork's handlers (_Fork, clone) is handled as a fork child now. */
    if (prof_process_check() == PROF_PROCESS_SHARED)
        return NULL;
    pthread_once(&g.once, process_init);
    if (g.disabled || prof_stopped())
        return NULL;
    pthread_mutex_lock(&g.lock);
    free_orphans();
    struct prof_thread *t = prof_thread_self();
    int keep = 0;
    if (g.fork_child_pending) {
        g.fork_child_pending = 0;
        if (name_run(lock_free) != 0) {
            prof_fail("cannot start a run", NULL, ENOMEM);
            goto fail;
        }
    }
    if (!g.active && (prof_stopped() || run_begin(NULL, lock_free) != PROF_OK))
        goto fail;
    if (t && t->fork_pending) {
        keep = 1;
        t->fork_pending = 0;
    }
    if (!t) {
        t = prof_thread_new();
        if (!t) {
            prof_fail("cannot start recording a thread", NULL, ENOMEM);
            goto fail;
        }
        prof_thread_set_self(t);
        if (g.key_ok)
            pthread_setspecific(g.key, t);
    }
    if (!t->registered && !folder_usable()) {
        prof_fail("the program closed or reused the descriptor of the output folder", g.dir, EBADF);
        goto fail;
    }
    if (!t->registered) {
        struct prof_run_info ri = run_info();
        enum prof_error e = prof_thread_begin(t, &ri, g.next_number, keep);
        if (e == PROF_ERR_NOMEM)
            prof_fail("cannot start recording a thread", NULL, ENOMEM);
        /* Registered even on failure: prof_finish releases it and keeps its part, if any. */
        t->registered = 1;
        registry_add(t);
        g.next_number++;
        if (e != PROF_OK)
            goto fail;
    }
    t->gen = __atomic_load_n(&prof_gen, __ATOMIC_ACQUIRE);
    pthread_mutex_unlock(&g.lock);
    return t;
fail:
    pthread_mutex_unlock(&g.lock);
    return NULL;
}

/* The round of key destructors in which a thread's recorder ends: the one before the C
   library's last (PTHREAD_DESTRUCTOR_ITERATIONS, 4 in glibc), in which the sanitizers' runtimes
   finish a thread the same way (after that, not even a mutex may be taken). */
#define KEY_ROUND_END (PTHREAD_DESTRUCTOR_ITERATIONS > 2 ? PTHREAD_DESTRUCTOR_ITERATIONS - 1 : 1)

/*
 * A thread is exiting: its data goes to its part now, and its recorder is freed. Only the
 * part's path stays, for the run file. The program's own key destructors may record after
 * ours (a key made later runs later in each round): the recorder stays, set again for the
 * next round, until round KEY_ROUND_END; what the thread records after that is dropped, never
 * a second recorder for the same thread.
 */
static void thread_key_destructor(void *p)
{
    struct prof_thread *t = p;
    if (prof_process_check() == PROF_PROCESS_SHARED)
        return; /* the recorder is the parent's */
    if (++key_rounds < KEY_ROUND_END && pthread_setspecific(g.key, t) == 0)
        return;
    thread_ended = 1;
    struct prof_host host = prof_host_hold();
    prof_busy_begin();
    prof_busy_mark(t); /* a signal handler's event takes the slow path, and is dropped */
    prof_mem_quiet_begin();
    prof_hooks_thread_exit(t);
    pthread_mutex_lock(&g.lock);
    if (t->registered) {
        /* A copy of the descriptor, to note the part's final size and time once it is closed:
           at the end of the run it is read by name only if it is still that file. */
        int fd = prof_part_is(t->fd, &t->part_id) ? fcntl(t->fd, F_DUPFD_CLOEXEC, 3) : -1;
        prof_thread_end(t, "exited");
        if (fd >= 0) {
            prof_part_seal(fd, &t->part_id);
            close(fd);
        }
        registry_remove(t);
        if (t->path) {
            /* The part's path, then which file it is: read back only if it still is. */
            prof_sbuf_add(&g.done, t->path, strlen(t->path) + 1);
            prof_sbuf_add(&g.done, (const char *)&t->part_id, sizeof t->part_id);
            g.ndone++;
            if (g.done.failed) /* the part stays on disk, for profreport to recover */
                prof_fail("cannot keep the list of ended threads", NULL, ENOMEM);
        }
    }
    prof_thread_set_self(NULL);
    prof_thread_free(t);
    pthread_mutex_unlock(&g.lock);
    prof_mem_quiet_end();
    prof_busy_end();
    prof_host_release(host);
}

/* The run file's second writer thread (csvwrite.h), at its start and end: the collector's own
   thread, whose allocations the memory checks leave alone and whose events are dropped. */
static void split_thread(int begin)
{
    if (begin) {
        prof_busy_begin();
        prof_mem_quiet_begin();
    } else {
        prof_mem_quiet_end();
        prof_busy_end();
    }
}

/* The run's parts as the run file is written from them: a name, which file it is, and a
   descriptor to read it through (-1: removed or replaced while the program ran). */
struct part_ref {
    const char *path;
    struct prof_part_id id;
    int fd;
};

/* The part's name in the run's folder. */
static const char *part_name(const char *path) { return path + strlen(g.dir) + 1; }

/* Remove a part that was read into the run file, if its name still leads to it. */
static void part_remove(const struct part_ref *r)
{
    struct stat st;
    if (fstatat(g.dirfd, part_name(r->path), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(st.st_mode) && st.st_dev == r->id.dev && st.st_ino == r->id.ino)
        unlinkat(g.dirfd, part_name(r->path), 0);
}

/*
 * The parts of the run (run lock held), each with a descriptor to read it through: a live
 * thread's own (a copy taken before its part is closed), so a part removed while the program
 * ran is still read; an ended thread's opened again by name only if it is still the same file,
 * so a FIFO or another file planted at its name is never read. at_exit names live threads.
 */
static struct part_ref *collect_parts(int at_exit, size_t *count)
{
    size_t n = g.done.failed ? 0 : g.ndone;
    for (struct prof_thread *t = g.head; t; t = t->next)
        n++;
    struct part_ref *refs = calloc(n ? n : 1, sizeof *refs);
    size_t np = 0;
    int dir_ok = folder_usable();
    if (refs && !g.done.failed)
        for (size_t off = 0; off < g.done.len;) {
            struct part_ref *r = &refs[np++];
            r->path = g.done.data + off;
            off += strlen(r->path) + 1;
            memcpy(&r->id, g.done.data + off, sizeof r->id);
            off += sizeof r->id;
            r->fd = dir_ok ? prof_part_reopen(g.dirfd, part_name(r->path), &r->id) : -1;
        }
    struct prof_thread *me = prof_thread_self();
    /* Every live thread's hooks' samples in the pool before any writes its rows: a thread with
       too few of its own takes the run's (thread.c) */
    for (struct prof_thread *t = g.head; t; t = t->next) {
        pthread_mutex_lock(&t->lock);
        prof_thread_pool_hooks(t);
        pthread_mutex_unlock(&t->lock);
    }
    for (struct prof_thread *t = g.head; t; t = t->next) {
        int fd = prof_part_is(t->fd, &t->part_id) ? fcntl(t->fd, F_DUPFD_CLOEXEC, 3) : -1;
        prof_thread_end(t, at_exit && t == me ? "exited" : "running");
        if (!t->path || !refs) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        struct part_ref *r = &refs[np++];
        r->path = t->path;
        r->id = t->part_id;
        r->fd =
            fd >= 0 || !dir_ok ? fd : prof_part_reopen(g.dirfd, part_name(t->path), &t->part_id);
    }
    *count = np;
    return refs;
}

/* Write the run file from the registry's parts (run lock held); at_exit names live threads. */
static enum prof_error run_finish(int at_exit)
{
    g.active = 0;
    prof_stop_all();
    __atomic_add_fetch(&prof_gen, 1, __ATOMIC_RELEASE);

    uint64_t end_ticks, end_ns;
    prof_clock_pair(&end_ticks, &end_ns);
    struct prof_run_override ov = {
        0, end_ticks - g.base_ticks, 1, g.header.data, g.header.len, NULL, 0, NULL};
    /* Measure the TSC rate again over the whole run: more exact than the 250 us at start. */
    if (g.clock == PROF_CLOCK_TSC && end_ns - g.base_ns >= PROF_REMEASURE_NS)
        ov.frequency = prof_frequency_from(end_ticks - g.base_ticks, end_ns - g.base_ns);

    struct prof_mem_report memory;
    prof_hooks_run_end(&memory);
    ov.memory = memory.rows;
    ov.nmemory = memory.n;

    size_t nrefs = 0;
    struct part_ref *refs = collect_parts(at_exit, &nrefs);
    /* The parts that can be read, in the order of refs; the others are missing. */
    const char **paths = calloc(nrefs ? nrefs : 1, sizeof *paths);
    int *fds = calloc(nrefs ? nrefs : 1, sizeof *fds);
    size_t np = 0, missing = 0;
    const char *first_missing = NULL;
    for (size_t i = 0; refs && paths && fds && i < nrefs; i++) {
        if (refs[i].fd < 0) {
            if (!missing++)
                first_missing = refs[i].path;
            continue;
        }
        paths[np] = refs[i].path;
        fds[np++] = refs[i].fd;
    }
    ov.fds = fds;
    enum prof_error err = PROF_OK;
    /* After a failure the user has had the one warning; say nothing more, keep what exists. */
    int quiet = prof_failed();
    if (quiet || missing)
        ov.complete = 0;
    if (missing && !quiet)
        prof_warn("%zu part%s of this run %s removed or replaced while the program ran "
                  "(the first: '%s'); the run file lacks %s thread%s",
                  missing, missing == 1 ? "" : "s", missing == 1 ? "was" : "were", first_missing,
                  missing == 1 ? "its" : "their", missing == 1 ? "" : "s");
    if (quiet && np == 0)
        goto done;

    size_t dl = strlen(g.dir) + strlen(g.runname) + 16;
    char *final = malloc(dl), *tmp = NULL;
    if (!refs || !paths || !fds || !final) {
        err = PROF_ERR_NOMEM;
        if (!quiet)
            prof_warn("cannot write the run file: %s; parts kept in '%s'", prof_errno_text(ENOMEM),
                      g.dir);
    } else if (!folder_usable()) {
        err = PROF_ERR_IO;
        if (!quiet)
            prof_warn("cannot write the run file: the program closed the descriptor of '%s' and "
                      "the folder is gone or replaced; parts kept there",
                      g.dir);
    } else {
        snprintf(final, dl, "%s/%s.csv", g.dir, g.runname);
        const char *final_name = part_name(final);
        /* The folder may be shared: a new file under a random name, and a rename that replaces
           nothing (fileutil.h), so a link planted at either name leads nowhere; both relative
           to the folder the run opened. */
        int fd = prof_file_create_temp_at(g.dirfd, NULL, g.runname, ".csv.tmp", 0644, &tmp);
        FILE *out = fd >= 0 ? fdopen(fd, "wb") : NULL;
        if (!out) {
            int e = errno;
            if (fd >= 0) {
                close(fd);
                unlinkat(g.dirfd, tmp, 0);
            }
            err = PROF_ERR_IO;
            if (!quiet)
                prof_warn("cannot create a temporary file in '%s': %s; parts kept there", g.dir,
                          prof_errno_text(e));
        } else {
            struct prof_signal_guard guard;
            prof_signals_hold(&guard);
            struct prof_split_opts split = {g.write_threads, g.dir, split_thread, 0, &g.dirfd};
            err = prof_assemble_split(paths, np, out, &ov, &split);
            int e = errno;
            if (fclose(out) != 0 && err == PROF_OK) {
                err = PROF_ERR_IO;
                e = errno;
            }
            prof_signals_release(&guard);
            if (err == PROF_OK && prof_file_publish_at(g.dirfd, tmp, final_name) != 0) {
                err = PROF_ERR_IO;
                e = errno;
            }
            if (err != PROF_OK) {
                unlinkat(g.dirfd, tmp, 0);
                if (!quiet)
                    prof_warn("cannot write '%s': %s; parts kept in '%s'", final,
                              err == PROF_ERR_IO ? prof_errno_text(e) : prof_strerror(err), g.dir);
            } else {
                for (size_t i = 0; i < nrefs; i++)
                    if (refs[i].fd >= 0)
                        part_remove(&refs[i]);
            }
        }
    }
    free(final);
    free(tmp);

done:
    for (size_t i = 0; refs && i < nrefs; i++)
        if (refs[i].fd >= 0)
            close(refs[i].fd);
    free(refs);
    free(paths);
    free(fds);
    prof_mem_report_release(&memory);

    /* Live threads keep their recorder for a later run. */
    struct prof_thread *t = g.head;
    while (t) {
        struct prof_thread *next = t->next;
        t->registered = 0;
        t->next = t->prev = NULL;
        t = next;
    }
    g.head = g.tail = NULL;
    done_clear();
    return err;
}

/* Write the run file now. */
enum prof_error prof_finish(void)
{
    if (prof_process_check() == PROF_PROCESS_SHARED)
        return PROF_ERR_STATE; /* a vfork child: the run is its parent's */
    struct prof_host host = prof_host_hold();
    prof_busy_begin();
    prof_mem_quiet_begin();
    pthread_once(&g.once, process_init);
    pthread_mutex_lock(&g.lock);
    enum prof_error err = PROF_OK;
    if (g.active && g.fork_child_pending)
        g.active = 0; /* a fork child that recorded nothing: no run of its own */
    if (g.active)
        err = run_finish(0);
    else
        prof_stop_all(); /* no lazy start after this */
    pthread_mutex_unlock(&g.lock);
    prof_mem_quiet_end();
    prof_busy_end();
    prof_host_release(host);
    return err;
}

/* Choose the output folder and begin a run. */
enum prof_error prof_init(const char *dir)
{
    struct prof_host host = prof_host_hold();
    prof_busy_begin();
    prof_mem_quiet_begin();
    pthread_once(&g.once, process_init);
    prof_mem_quiet_end();
    if (g.disabled) {
        prof_busy_end();
        prof_host_release(host);
        return PROF_ERR_DISABLED;
    }
    prof_mem_quiet_begin();
    pthread_mutex_lock(&g.lock);
    enum prof_error err;
    if (g.active) {
        err = PROF_ERR_STATE;
        prof_warn("PROFILER_INIT called while a run is recording; call it before the first "
                  "region, or after PROFILER_FINISH");
    } else {
        err = run_begin(dir, 0);
    }
    pthread_mutex_unlock(&g.lock);
    prof_mem_quiet_end();
    prof_busy_end();
    prof_host_release(host);
    return err;
}

/* At exit (or when the library is unloaded): the run file, unless it is written already. */
__attribute__((destructor)) static void at_exit(void)
{
    if (!g.initialised || g.disabled)
        return;
    /* A vfork child that called exit: the run is its parent's. A child of _Fork is handled as
       a fork child here, so it neither writes its parent's run nor removes its parts. */
    if (prof_process_check() == PROF_PROCESS_SHARED)
        return;
    struct prof_host host = prof_host_hold(); /* exit() may run on any thread */
    /* The exiting thread's open functions end now (libprofreport-auto), when its recorder is
       current: neither busy nor left behind by a finished run (which moved prof_gen). */
    struct prof_thread *self = prof_self;
    if (self && self->gen == PROF_LOAD(prof_gen))
        prof_hooks_exiting(self);
    prof_busy_begin();
    prof_mem_quiet_begin();
    pthread_mutex_lock(&g.lock);
    free_orphans();
    if (g.active && !g.fork_child_pending)
        run_finish(1);
    pthread_mutex_unlock(&g.lock);
    prof_mem_quiet_end();
    prof_busy_end();
    prof_host_release(host);
}

/* Before an exec: the run file of this image, as at exit; nonzero when a run was finished. */
int prof_exec_begin(void)
{
    if (!g.initialised || g.disabled || prof_process_check() == PROF_PROCESS_SHARED)
        return 0;
    prof_busy_begin();
    prof_mem_quiet_begin();
    pthread_mutex_lock(&g.lock);
    free_orphans();
    int finished = g.active && !g.fork_child_pending;
    if (finished)
        run_finish(1);
    pthread_mutex_unlock(&g.lock);
    prof_mem_quiet_end();
    prof_busy_end();
    return finished;
}

/* The exec failed: the image goes on, and its next event begins a new run (unless a failure
   stopped profiling). */
void prof_exec_failed(int finished)
{
    if (finished && !prof_failed()) {
        prof_status_restart();
        __atomic_add_fetch(&prof_gen, 1, __ATOMIC_RELEASE);
    }
}

/*
 * At load, where the caller holds no lock of the C library: what the start of a run would
 * otherwise do from inside an allocation. The fork handlers (pthread_atfork takes the lock that
 * fork holds while it runs the prepare handlers, which may allocate) and the local time's offset
 * (localtime_r takes the time-zone lock, which localtime holds while it allocates).
 */
__attribute__((constructor)) static void at_load(void)
{
    prof_mem_quiet_begin();
    prof_process_setup(fork_child_found_late);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    learn_utc_offset(time(NULL));
    prof_mem_quiet_end();
}

/* Fork: hold the run lock so the child sees a consistent registry. */
static void fork_prepare(void) { pthread_mutex_lock(&g.lock); }
static void fork_parent(void) { pthread_mutex_unlock(&g.lock); }

/*
 * The child records a run of its own. Only async-signal-safe work here (a multithreaded parent
 * may have held malloc's locks): files are created at the child's next event. t: the recorder
 * of the thread that forked, the child's only thread; NULL when that is not known (a child
 * found late, on another thread), and then every recorder is dropped but none freed, since any
 * of them may be that thread's.
 */
static void child_begin(struct prof_thread *t, int known)
{
    pthread_mutex_init(&g.lock, NULL);
    /* The parent's other threads do not exist here: their recorders are freed at the child's
       next event or exit (not here: free() is not async-signal-safe). */
    for (struct prof_thread *o = g.head, *next; o; o = next) {
        next = o->next;
        if (!known) {
            prof_thread_forked(o);
            o->next = o->prev = NULL;
        } else if (o != t) {
            o->next = g.orphans;
            g.orphans = o;
        }
    }
    g.head = g.tail = NULL;
    if (t)
        t->next = t->prev = NULL;
    /* The parent's ended threads: one block, freed with the orphans. */
    g.orphan_paths = g.done.data;
    memset(&g.done, 0, sizeof g.done);
    g.ndone = 0;
    prof_thread_pool_reset(); /* the parent's threads' hooks are not the child run's */
    if (!g.active) {
        if (t)
            t->registered = 0;
        return;
    }
    g.ppid = g.pid;
    g.pid = getpid();
    g.runs = 1;
    prof_clock_pair(&g.base_ticks, &g.base_ns);
    g.next_number = 1;
    PROF_STORE(g.events_total, 0);
    g.fork_child_pending = 1;
    if (t)
        prof_thread_forked(t);
    __atomic_add_fetch(&prof_gen, 1, __ATOMIC_RELEASE);
}

/* The crash handler's way to the registry (crash.c): the run lock if it is free now, never
   waiting for it. */
struct prof_thread *prof_run_crash_hold(int *held)
{
    *held = pthread_mutex_trylock(&g.lock) == 0;
    return *held && g.active ? g.head : NULL;
}

/* Give back what prof_run_crash_hold took. */
void prof_run_crash_release(void) { pthread_mutex_unlock(&g.lock); }

/* fork's child handler. */
static void fork_child(void)
{
    prof_process_forked();
    /* This thread holds the lock (fork_prepare): given back before child_begin makes it anew,
       or ThreadSanitizer takes it as held for the child's life and every lock the child takes
       after as ordered after it. */
    pthread_mutex_unlock(&g.lock);
    child_begin(prof_thread_self(), 1);
}

/*
 * A child made without fork's handlers (_Fork, clone), found at a slow path (status.c). The
 * thread that finds it is the one that forked when it has a recorder (a thread the child
 * started has none before its first attach, which is a slow path too).
 */
static void fork_child_found_late(void)
{
    struct prof_thread *t = prof_thread_self();
    child_begin(t, t != NULL);
}
