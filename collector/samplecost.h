/*
 * samplecost.h - what one perf task-clock overflow costs the thread it interrupts, measured
 * once at start (samplecost.c).
 *
 * The sampler's handler measures part of each sample's cost itself: the thread's CPU time from
 * the overflow to its read of the count (sample.c, sample_cost). Under some hypervisors most of
 * the cost comes before that, where a thread cannot see it: on this project's virtual machine
 * an overflow took 36-48 us of the thread's CPU time, of which the handler saw 8-20 in one
 * session and nearly all in another (bench/irqcost.c measures it from outside). That time is in the
 * period's count, and the program did not spend it, so a sample stands for the period less the
 * larger of the two.
 */
#ifndef PROF_SAMPLECOST_H
#define PROF_SAMPLECOST_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/types.h>

/* *a set for a perf task-clock event of the calling thread overflowing every period_ns of its
   CPU time, made disabled: the sampler's and the calibration's. */
void prof_task_clock_attr(struct perf_event_attr *a, uint64_t period_ns);

/*
 * The CPU time, in ns, that one overflow of a perf task-clock event, with its SIGTRAP, costs
 * the calling thread: the median over 12 overflows, at a 100 us period, of the gap each one
 * leaves in a loop that reads the clock (the first overflow's, dearer, left out). About 1.5 ms
 * of the caller's time on a machine whose overflows cost 50 us; 0 when no event could be opened
 * or too few overflows were seen in 10 ms. The gap is all the thread's CPU time (its CPU clock
 * and the task clock moved as the wall clock did over 100 such overflows on this project's
 * virtual machine). The sampler's handler must own SIGTRAP: it answers the calibration's
 * signals (prof_calib_fd, on the thread prof_calib_tid) by reading the event's count, as a
 * sample does, and counting them (prof_calib_signals).
 */
uint64_t prof_sample_cost_calibrate(void);

/* The calibration's event while it runs (else -1), its thread, and the signals its handler
   answered (only ever changed on that thread). */
extern volatile int prof_calib_fd;
extern volatile pid_t prof_calib_tid;
extern unsigned prof_calib_signals;

#endif /* PROF_SAMPLECOST_H */
