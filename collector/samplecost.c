/*
 * samplecost.c - what one perf task-clock overflow costs its thread, in CPU and wall time,
 * measured at start (samplecost.h).
 */
#define _GNU_SOURCE
#include "samplecost.h"

#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The calibration's event overflows every CALIB_PERIOD_NS of CPU time; each chunk's loop is
   about CALIB_WORK_NS of it without the event; CALIB_CHUNKS chunks of each kind. At 40 us an
   overflow, a chunk with the event takes about 5 times its work (the overflows' cost brings
   more of them), 12 overflows, 2 ms in all. */
#define CALIB_PERIOD_NS 50000u
#define CALIB_WORK_NS 100000.0
#define CALIB_CHUNKS 4
/* The pieces each chunk with the event is timed in, and how many of each kind (with a signal,
   without) a wall-clock figure needs */
#define CALIB_PIECE_NS 2000.0
#define CALIB_MIN_PIECES 8

/* The calling thread's CPU time in ns, or a negative number. */
static double cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return -1;
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* n steps of a dependent multiply-add chain: CPU only, no memory traffic, so that what the
   event adds is the overflows' cost and not a cache's. */
static void spin(unsigned long n)
{
    unsigned long x = 1;
    for (unsigned long i = 0; i < n; i++) {
        x = x * 6364136223846793005ul + 1442695040888963407ul;
        __asm__ volatile("" : "+r"(x));
    }
}

/* The CPU time n steps took, in ns (negative: unknown). */
static double spin_ns(unsigned long n)
{
    double t0 = cpu_ns();
    spin(n);
    double t1 = cpu_ns();
    return t0 < 0 || t1 < 0 ? -1 : t1 - t0;
}

/* The periods the event's count has passed, or UINT64_MAX when it cannot be read. */
static uint64_t periods(int fd)
{
    uint64_t v;
    if (syscall(SYS_read, fd, &v, sizeof v) != (long)sizeof v)
        return UINT64_MAX;
    return v / CALIB_PERIOD_NS;
}

void prof_task_clock_attr(struct perf_event_attr *a, uint64_t period_ns)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = PERF_TYPE_SOFTWARE;
    a->config = PERF_COUNT_SW_TASK_CLOCK;
    a->sample_period = period_ns;
    a->disabled = 1;
}

volatile int prof_calib_fd = -1;
volatile pid_t prof_calib_tid;
volatile uint64_t prof_calib_count;

/* The calling thread's CLOCK_MONOTONIC time in ns (the vDSO's: no system call). */
static double wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Insert v into the ascending a[0..*n) when room is left (cap). */
static void insert_sorted(double *a, int *n, int cap, double v)
{
    if (*n >= cap)
        return;
    int i = (*n)++;
    for (; i > 0 && a[i - 1] > v; i--)
        a[i] = a[i - 1];
    a[i] = v;
}

static double median_of(const double *a, int n)
{
    return n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

/* CALIB_PIECES_MAX: the pieces of each kind kept for their median (about 200 in all, a
   quarter of them interrupted, at 40 us an overflow). */
#define CALIB_PIECES_MAX 512

/* The chunk with the event on, in pieces of about CALIB_PIECE_NS of work timed on the wall
   clock: each piece's time goes to clean[] or, when an overflow's signal came during it, its
   time over the overflows (the count's periods the handler read) to hit[] (against the clean
   pieces' median, taken after all chunks). Returns the chunk's CPU time, or -1. */
static double spin_pieces(unsigned long n, unsigned long piece, double *clean, int *nclean,
                          double *hit, int *nhit)
{
    double c0 = cpu_ns();
    uint64_t h0 = prof_calib_count / CALIB_PERIOD_NS;
    double t0 = wall_ns();
    for (unsigned long done = 0; done < n; done += piece) {
        spin(piece);
        double t1 = wall_ns();
        uint64_t h1 = prof_calib_count / CALIB_PERIOD_NS;
        if (h1 == h0)
            insert_sorted(clean, nclean, CALIB_PIECES_MAX, t1 - t0);
        else if (*nhit < CALIB_PIECES_MAX) /* the time for now; made an excess later */
            hit[(*nhit)++] = (t1 - t0) / (double)(h1 - h0);
        t0 = t1;
        h0 = h1;
    }
    double c1 = cpu_ns();
    return c0 < 0 || c1 < 0 ? -1 : c1 - c0;
}

int prof_sample_cost_calibrate(struct prof_sample_calib *out)
{
    out->cpu_ns = out->wall_ns = 0;
    struct perf_event_attr a;
    prof_task_clock_attr(&a, CALIB_PERIOD_NS);
    a.sigtrap = 1;
    a.remove_on_exec = 1; /* which sigtrap requires */
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -1;
    prof_calib_tid = (pid_t)syscall(SYS_gettid);
    prof_calib_count = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    prof_calib_fd = fd;
    /* The loop's length: doubled until it takes 10 us, then scaled to the chunk's work. */
    unsigned long n = 1024;
    double t = spin_ns(n);
    while (t >= 0 && t < 10000 && n < (1ul << 40)) {
        n *= 2;
        t = spin_ns(n);
    }
    double est[CALIB_CHUNKS];
    static double clean[CALIB_PIECES_MAX], hit[CALIB_PIECES_MAX]; /* one calibration at a time */
    int got = 0, nclean = 0, nhit = 0;
    if (t > 0) {
        unsigned long piece = (unsigned long)((double)n * CALIB_PIECE_NS / t) + 1;
        n = (unsigned long)((double)n * CALIB_WORK_NS / t) + 1;
        for (int k = 0; k < CALIB_CHUNKS; k++) {
            double base = spin_ns(n);
            uint64_t p0 = periods(fd);
            if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
                break;
            double with = spin_pieces(n, piece, clean, &nclean, hit, &nhit);
            ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
            uint64_t p1 = periods(fd);
            if (base < 0 || with < 0 || p0 == UINT64_MAX || p1 == UINT64_MAX || p1 <= p0)
                continue;
            double e = (with - base) / (double)(p1 - p0);
            int i = got++; /* kept in order */
            for (; i > 0 && est[i - 1] > e; i--)
                est[i] = est[i - 1];
            est[i] = e;
        }
    }
    prof_calib_fd = -1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    close(fd);
    if (got >= 2) {
        double median = median_of(est, got);
        out->cpu_ns = median > 0 ? (uint64_t)median : 0;
    }
    if (nclean >= CALIB_MIN_PIECES && nhit >= CALIB_MIN_PIECES) {
        double base = median_of(clean, nclean), excess[CALIB_PIECES_MAX];
        int nexcess = 0;
        for (int i = 0; i < nhit; i++)
            insert_sorted(excess, &nexcess, CALIB_PIECES_MAX, hit[i] - base);
        double median = median_of(excess, nexcess);
        out->wall_ns = median > 0 ? (uint64_t)median : 0;
    }
    return 0;
}
