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
 * the calling thread: a fixed CPU-bound loop timed (CLOCK_THREAD_CPUTIME_ID) without and with
 * such an event at a 50 us period, over 6 chunks each between two without (the lesser taken),
 * the median of the chunks' excess over their overflows. 10-12 ms of the caller's CPU time on
 * such a machine (each chunk with the event brings about 25 overflows); 0 when no event could be
 * opened or nothing measurable was found. The sampler's handler must own SIGTRAP: it answers the
 * calibration's signals (prof_calib_fd, on the thread prof_calib_tid) by reading the event's count,
 * as a sample does.
 */
uint64_t prof_sample_cost_calibrate(void);

/* The calibration's event while it runs (else -1), and its thread. */
extern volatile int prof_calib_fd;
extern volatile pid_t prof_calib_tid;

#endif /* PROF_SAMPLECOST_H */
