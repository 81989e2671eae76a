/*
 * irqcost.c - what one sample costs a thread on this machine, whoever takes it: the wall time
 * a fixed CPU-bound loop loses per overflow of a perf task-clock event (the collector's perf
 * sampler; also perf record's cpu-clock), with and without the SIGTRAP the collector asks for,
 * and per signal of a CPU-time POSIX timer (the collector's timer sampler).
 *
 * Usage: irqcost [PERIOD_US...]   (default: 250 100 1000)
 *
 * The handler does nothing but count, so the figures are the machine's (the interrupt, the
 * timer's reprogramming, the signal's delivery and return), not the collector's handler, which
 * measures its own work at each sample. Under some hypervisors the first part dominates and
 * lands where a thread cannot see it: this measures it from outside, as the loop's lost time.
 * Each figure is (loop time with the sampler - without) / samples, the loop's time being the
 * least of REPS runs of each kind, alternated; "slower" is the loop's time with the sampler over
 * without. The timer's signals come at the scheduler's tick whatever the period (each standing
 * for the periods since the last), so its figure per signal rests on few signals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define REPS 7
#define LOOP_NS 20000000.0 /* each timed loop: about 20 ms of CPU */

static volatile unsigned long sink;
static volatile sig_atomic_t signals;

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
    (void)sig, (void)info, (void)ctx;
    signals++;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* n steps of a dependent multiply-add chain: CPU only, no memory traffic; its wall time in ns. */
static double spin(unsigned long n)
{
    double t = now_ns();
    unsigned long x = 1;
    for (unsigned long i = 0; i < n; i++) {
        x = x * 6364136223846793005ul + 1442695040888963407ul;
        __asm__ volatile("" : "+r"(x));
    }
    sink = x;
    return now_ns() - t;
}

/* The event as collector/sample.c's perf_open sets it up, with the signal optional: this bench
   measures the machine, so it links no collector. */
static int perf_open(uint64_t period_ns, int sigtrap)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = period_ns;
    a.disabled = 1;
    a.sigtrap = (unsigned)sigtrap;
    a.remove_on_exec = (unsigned)sigtrap;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

enum kind { PERF_NOSIG, PERF_SIGTRAP, CPU_TIMER };
static const char *const kind_name[] = {"perf task-clock, no signal (perf record)",
                                        "perf task-clock + SIGTRAP (PROFILER_SAMPLER=perf)",
                                        "CPU-time timer + SIGPROF (PROFILER_SAMPLER=timer)"};

/* One loop of n steps under the sampler of kind k at period_ns; its wall time, and the samples
   it took in *samples (-1 when the sampler cannot be had here). */
static double sampled_loop(enum kind k, uint64_t period_ns, unsigned long n, double *samples)
{
    *samples = -1;
    signals = 0;
    if (k == CPU_TIMER) {
        timer_t tm;
        struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGPROF};
        if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &tm) != 0)
            return 0;
        struct itimerspec its = {{0, (long)period_ns}, {0, (long)period_ns}};
        timer_settime(tm, 0, &its, NULL);
        double t = spin(n);
        timer_delete(tm);
        *samples = signals;
        return t;
    }
    int fd = perf_open(period_ns, k == PERF_SIGTRAP);
    if (fd < 0)
        return 0;
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    double t = spin(n);
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    uint64_t count = 0;
    if (read(fd, &count, sizeof count) != (ssize_t)sizeof count)
        count = 0;
    close(fd);
    /* without a signal, the overflows are the event's count over the period */
    *samples = k == PERF_SIGTRAP ? (double)signals : (double)(count / period_ns);
    return t;
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGTRAP, &sa, NULL);
    sigaction(SIGPROF, &sa, NULL);

    /* steps for about LOOP_NS, from a short first measurement */
    double t = spin(1000000);
    for (int i = 0; i < 3; i++) {
        double u = spin(1000000);
        if (u < t)
            t = u;
    }
    unsigned long n = (unsigned long)(LOOP_NS / (t / 1e6));

    int nperiods = argc > 1 ? argc - 1 : 3;
    printf("irqcost: a loop of %.1f ms of CPU, least of %d runs each, with and without the "
           "sampler\n",
           LOOP_NS / 1e6, REPS);
    printf("%-52s %9s %8s %9s %12s %9s\n", "sampler", "period", "samples", "loop ms", "per sample",
           "slower");
    for (int p = 0; p < nperiods; p++) {
        double us = argc > 1 ? strtod(argv[p + 1], NULL) : (double[]){250, 100, 1000}[p];
        if (!(us >= 10 && us < 1e6)) {
            fprintf(stderr, "irqcost: '%s' is not a period in us (10 to 999999)\n", argv[p + 1]);
            return 2;
        }
        uint64_t period_ns = (uint64_t)(us * 1000);
        for (int k = 0; k <= CPU_TIMER; k++) {
            double plain = 1e300, with = 1e300, samples = 0;
            int absent = 0, err = 0;
            for (int r = 0; r < REPS; r++) {
                double s, u = spin(n);
                if (u < plain)
                    plain = u;
                u = sampled_loop((enum kind)k, period_ns, n, &s);
                if (s < 0) {
                    absent = 1, err = errno;
                    break;
                }
                if (u < with) {
                    with = u;
                    samples = s;
                }
            }
            if (absent || samples <= 0) {
                printf("%-52s %7.0fus %8s  (%s)\n", kind_name[k], us, "-",
                       absent ? strerror(err) : "no sample taken");
                continue;
            }
            double cost = (with - plain) / samples;
            printf("%-52s %7.0fus %8.0f %9.2f %10.1fus %8.1f%%\n", kind_name[k], us, samples,
                   with / 1e6, cost / 1e3, 100 * (with - plain) / plain);
        }
    }
    return 0;
}
