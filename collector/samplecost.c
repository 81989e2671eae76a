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

/* The calibration's event overflows every CALIB_PERIOD_NS of CPU time: longer than an overflow
   costs, or the signals would merge (36-50 us on this project's virtual machine). The gaps of
   CALIB_OVERFLOWS signals are timed after the first, whose delivery is dearer (up to 400 us
   here: the kernel's first signal to the thread); the calibration gives up after
   CALIB_LIMIT_NS. About 1.5 ms of the caller's time on this virtual machine. */
#define CALIB_PERIOD_NS 100000u
#define CALIB_OVERFLOWS 12
#define CALIB_LIMIT_NS 10000000u

/* The monotonic clock in ns (the vDSO's: tens of ns a read), or 0. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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
unsigned prof_calib_signals;

/* Insert gap into the first n of gaps, kept in order. */
static void gap_put(uint64_t *gaps, int n, uint64_t gap)
{
    int i = n;
    for (; i > 0 && gaps[i - 1] > gap; i--)
        gaps[i] = gaps[i - 1];
    gaps[i] = gap;
}

/*
 * Read the clock in a loop while the event runs; the handler counts its signals. An overflow,
 * its signal and the handler make the gap between two reads that the count moved across: what
 * the thread lost to them. The clock's value is taken early in its read, so the interrupt
 * lands after it more often than not, and the count is seen moving one read before the gap
 * ends: the larger of the gaps before and after that read is the overflow's. Gaps in which
 * nothing was counted are the rest of the machine's interrupts (on this virtual machine the
 * host's, about 24 us, several a ms): the program's cost, not the sampler's. Fills gaps
 * (sorted) and returns how many.
 */
static int overflow_gaps(int fd, uint64_t gaps[CALIB_OVERFLOWS])
{
    int got = 0, first = 1;
    uint64_t pending = 0; /* the gap before the read at which the count moved, plus one */
    unsigned seen = __atomic_load_n(&prof_calib_signals, __ATOMIC_RELAXED);
    uint64_t prev = now_ns(), end = prev + CALIB_LIMIT_NS;
    if (!prev || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
        return 0;
    while (got < CALIB_OVERFLOWS && prev < end) {
        uint64_t t = now_ns();
        unsigned c = __atomic_load_n(&prof_calib_signals, __ATOMIC_RELAXED);
        if (!t || t < prev)
            break;
        if (pending) {
            gap_put(gaps, got++, pending - 1 > t - prev ? pending - 1 : t - prev);
            pending = 0;
        }
        if (c != seen) {
            /* the first signal is dearer; two in one read are not one overflow's */
            if (c - seen == 1 && !first)
                pending = t - prev + 1;
            first = 0;
            seen = c;
        }
        prev = t;
    }
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    return got;
}

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
    uint64_t gaps[CALIB_OVERFLOWS];
    int got = overflow_gaps(fd, gaps);
    prof_calib_fd = -1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    close(fd);
    if (got < CALIB_OVERFLOWS / 2)
        return 0;
    return got % 2 ? gaps[got / 2] : (gaps[got / 2 - 1] + gaps[got / 2]) / 2;
}
