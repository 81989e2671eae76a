/*
 * sample.h - per-thread CPU-time sampling (sample.c): a timer on each recording thread whose
 * signal charges one sample to the thread's current calling context (summary mode with
 * PROFILER_TIMING=sampled), so the hooks only count calls and the time comes from samples.
 *
 * Ownership: the per-thread state lives inside struct prof_thread (thread.h: struct
 * prof_sample_state), opened at the thread's begin and closed at its exit or free; the signal
 * handler touches only the interrupted thread's own state, through the initial-exec
 * thread-local recorder pointer.
 */
#ifndef PROF_SAMPLE_H
#define PROF_SAMPLE_H

#include <stdint.h>

struct prof_hooks;

/*
 * The function hooks' code (auto.c) lives in a section of its own, so that a sample whose
 * interrupted instruction is there is the collector's overhead wherever in the hook it landed:
 * the lean path marks the thread busy only around its stores, after its checks. The linker
 * names the section's bounds (__start_/__stop_prof_hook_text); a library without the hooks has
 * no such section.
 */
#define PROF_HOOK_TEXT __attribute__((section("prof_hook_text"), noinline))

/* How samples are taken: a perf task-clock event (an hrtimer on the thread's CPU time, its
   overflow a synchronous SIGTRAP; Linux 5.13 on) or a POSIX CPU-time timer on a signal of our
   choice (checked at the scheduler's tick, so its expiries come in bursts, weighted by their
   overruns). With the event chosen rather than asked for, a thread that switches often trades
   its event for such a timer on SIGTRAP (sample.c, switch_to_timer). */
enum prof_sample_method { PROF_SAMPLE_NONE, PROF_SAMPLE_PERF, PROF_SAMPLE_TIMER };

/* The default sample period: 250 us of a thread's CPU time; with the perf event, at least
   PROF_SAMPLE_COST_SHARE times what an overflow costs, up to PROF_SAMPLE_PERIOD_MAX_NS (so
   that taking the samples costs the program a tenth of its time, where bounds at most 1.4
   times as wide allow it). */
#define PROF_SAMPLE_PERIOD_NS 250000u
#define PROF_SAMPLE_COST_SHARE 10u
#define PROF_SAMPLE_PERIOD_MAX_NS 500000u

/*
 * Process-wide setup, once: find which method this system allows, trying it on the calling
 * thread, and install the handler on its signal (SIGTRAP for the perf event, sig for the timer)
 * unless the program has a handler of its own there. want: PROF_SAMPLE_NONE to take the perf
 * event unless a debugger or valgrind watches SIGTRAP, else the timer; or the one method to
 * try. PROF_SAMPLE_NONE when none works (why is said once on stderr). cost_ns: what a perf
 * sample costs (PROFILER_SAMPLE_COST), or negative to calibrate it with the perf event.
 * *period_ns: the period, lengthened with the perf event when an overflow costs more than a
 * PROF_SAMPLE_COST_SHARE of it, unless period_set (PROFILER_SAMPLE_PERIOD).
 */
enum prof_sample_method prof_sample_setup(int sig, uint64_t *period_ns, int period_set,
                                          enum prof_sample_method want, int64_t cost_ns);

/* What one perf sample costs a thread at least, in ns of its CPU time (the overflow, its
   signal, and a handler that reads the count): the cost_ns given to prof_sample_setup, or
   calibrated there when that was negative (samplecost.h); each perf sample stands for the
   period less at least this. 0: unknown, not the perf event, or half a period or more (said
   at setup, and not taken out). */
uint64_t prof_sample_overflow_cost(void);

/* The method's name in the run file's Timing record. */
const char *prof_sample_method_name(enum prof_sample_method m);

/* The sampler's hooks (hooks.h), which run.c registers when the run samples: at a recorder's
   begin (on its own thread) its sampler is armed, and t->summary.sampled says whether one
   could be; at its free the sampler is closed (a fork child's copy is closed, never disarmed,
   as its event or timer is the parent's). */
extern const struct prof_hooks prof_sample_hooks;

#endif /* PROF_SAMPLE_H */
