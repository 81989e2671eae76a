/*
 * samplecost.h - what one perf task-clock overflow costs the thread it interrupts, measured
 * once at start (samplecost.c).
 *
 * The sampler's handler measures part of each sample's cost itself: the thread's CPU time from
 * the overflow to its read of the count (sample.c, sample_cost). Under some hypervisors most of
 * the cost comes before that, where a thread cannot see it: on this project's virtual machine
 * an overflow took 36-48 us of the thread's CPU time, of which the handler saw 8-20 (bench/
 * irqcost.c measures it from outside). That time is in the period's count, and the program did
 * not spend it, so a sample stands for the period less the larger of the two.
 */
#ifndef PROF_SAMPLECOST_H
#define PROF_SAMPLECOST_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/types.h>

/* *a set for a perf task-clock event of the calling thread overflowing every period_ns of its
   CPU time, made disabled: the sampler's and the calibration's. */
void prof_task_clock_attr(struct perf_event_attr *a, uint64_t period_ns);

/* What one overflow costs the calling thread, in ns: of its CPU time, and of the wall time of
   the code it interrupts. */
struct prof_sample_calib {
    uint64_t cpu_ns, wall_ns;
};

/*
 * Measure what one overflow of a perf task-clock event, with its SIGTRAP, costs the calling
 * thread: a fixed CPU-bound loop run without and with such an event at a 50 us period,
 * alternated over a few chunks. cpu_ns: the median of the chunks' excess CPU time
 * (CLOCK_THREAD_CPUTIME_ID) over their overflows. wall_ns: the chunks with the event are timed
 * on the wall clock in pieces of about 2 us, and a piece a signal came in took longer than the
 * clean ones by the median of this, for each signal (on this project's virtual machine 45-52
 * us, some microseconds more than the CPU time the overflow is charged: what an interrupted
 * call of the program loses). About 2 ms of the caller's time on such a machine; 0 for a
 * figure that could not be measured; -1 when no event could be opened. The sampler's handler
 * must own SIGTRAP: it answers the calibration's signals (prof_calib_fd, on the thread
 * prof_calib_tid) by reading the event's count, as a sample does, into prof_calib_count.
 */
int prof_sample_cost_calibrate(struct prof_sample_calib *out);

/* The calibration's event while it runs (else -1), its thread, and its count (ns of CPU time)
   at the last signal. */
extern volatile int prof_calib_fd;
extern volatile pid_t prof_calib_tid;
extern volatile uint64_t prof_calib_count;

#endif /* PROF_SAMPLECOST_H */
