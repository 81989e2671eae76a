/*
 * othercost.h - othercost.c: the collector's work on a run's other threads, taken out of the
 * wall time of a thread that waited for them.
 *
 * A sampled run (FORMAT.md 1.4) measures what the hooks cost each thread (its overhead samples)
 * and takes the cost of the calls inside a timed call out of that call's Wall. A thread that
 * waits for instrumented workers (a main thread joining them, a client waiting for a pool) waits
 * for their hooks too: its Wall reads long by about their overhead. That part is estimated from
 * the ThreadCpu records: the other threads' overhead time (their overhead samples, and what
 * taking all their samples cost them, when the record says it) over their parallelism (their CPU
 * time over the thread's wall time, at least 1: overhead of threads that ran side by side delays a
 * waiter once), at most the thread's own off-CPU time (wall minus CPU), and shared among its timed
 * contexts by their off-CPU time.
 */
#ifndef PROFREPORT_OTHERCOST_H
#define PROFREPORT_OTHERCOST_H

#include "model/model.h"

#include <stddef.h>

/*
 * Set others_ns of each of a run's threads th[0..n), whose samples are period_ns each: the
 * delay, in ns, that the collector's work on the run's other threads added to its waits; 0
 * when the run was not sampled or a figure is unknown. others_sd_ns: that figure's standard
 * deviation, from the count of overhead samples it was made of (the 95 % bound of a Wall it is
 * taken out of, wallbound.h). Linear in n (a run may have thousands of threads).
 */
void othercost_apply(struct thread_rec *th, size_t n, double period_ns);

/*
 * The factor that takes a timed context's part of its thread's delay out of its wall time:
 * the context's off-CPU time (wall_ns minus its sampled CPU time cpu_ns) over the thread's
 * (off_ns), times delay_ns, out of wall_ns. 1 when there is nothing to take out.
 */
double othercost_scale(double wall_ns, double cpu_ns, double delay_ns, double off_ns);

/*
 * The factor that keeps a timed context no longer off the CPU than its thread was: its wall
 * time (wall_ns, its other threads' part taken out) at most its sampled CPU time (cpu_ns) and a
 * sample more for each of its calls and one (the samples come at every period_ns of the
 * thread's CPU time, so a call's count is within one of its time), plus the thread's own
 * off-CPU time (off_ns: wall minus CPU, the kernel's). Beyond that is what the compensation
 * missed of the collector's cost: jq's CPU-bound main read 25 ms a run off the CPU where its
 * thread was off it 1 to 8 ms. 1 when within, or when a figure is unknown.
 */
double othercost_offcpu_cap(double wall_ns, double cpu_ns, uint64_t calls, double period_ns,
                            double off_ns);

#endif /* PROFREPORT_OTHERCOST_H */
