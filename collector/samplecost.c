/*
 * samplecost.c - the CPU time one perf task-clock overflow costs its thread, measured at start
 * (samplecost.h).
 */
#define _GNU_SOURCE
#include "samplecost.h"

#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The calibration's event overflows every CALIB_PERIOD_NS of CPU time; each chunk's loop is
   about CALIB_WORK_NS of it without the event; CALIB_CHUNKS chunks with it, each between two
   without. At 40-46 us an overflow a period leaves 4-10 us of work, so a chunk with the event
   brings about 25 overflows and lasts 1.5-2 ms, 10-12 ms in all on this project's virtual
   machine. Shorter chunks read lower (25-50 us of work: 25-33 us where these read 37-47), so
   the chunks stay this long. */
#define CALIB_PERIOD_NS 50000u
#define CALIB_WORK_NS 100000.0
#define CALIB_CHUNKS 6

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

uint64_t prof_sample_cost_calibrate(void)
{
    struct perf_event_attr a;
    prof_task_clock_attr(&a, CALIB_PERIOD_NS);
    a.sigtrap = 1;
    a.remove_on_exec = 1; /* which sigtrap requires */
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return 0;
    prof_calib_tid = (pid_t)syscall(SYS_gettid);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    prof_calib_fd = fd;
    /* The loop's length: doubled until it takes 10 us, then scaled to the chunk's work from
       the least of three timings (a preemption or a host's interrupt during the one timing
       made the chunks a tenth as long, with an overflow or none in them: 1 run in 20 said 0
       to 3 us on this project's virtual machine). */
    unsigned long n = 1024;
    double t = spin_ns(n);
    while (t >= 0 && t < 10000 && n < (1ul << 40)) {
        n *= 2;
        t = spin_ns(n);
    }
    for (int k = 0; k < 2 && t > 0; k++) {
        double again = spin_ns(n);
        if (again > 0 && again < t)
            t = again;
    }
    double est[CALIB_CHUNKS];
    int got = 0;
    if (t > 0) {
        n = (unsigned long)((double)n * CALIB_WORK_NS / t) + 1;
        double before = spin_ns(n);
        for (int k = 0; k < CALIB_CHUNKS; k++) {
            double base = before;
            uint64_t p0 = periods(fd);
            if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
                break;
            double with = spin_ns(n);
            ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
            uint64_t p1 = periods(fd);
            /* the lesser of the loops before and after (the next chunk's before): an
               interrupt of the host's in one of them made the estimate a few us low (4
               chunks: 19 to 47 us in 40 runs where this reads 33 to 47) */
            before = spin_ns(n);
            if (before >= 0 && (base < 0 || before < base))
                base = before;
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
    if (got < 2)
        return 0;
    double median = got % 2 ? est[got / 2] : (est[got / 2 - 1] + est[got / 2]) / 2;
    return median > 0 ? (uint64_t)median : 0;
}
