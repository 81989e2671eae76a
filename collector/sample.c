/*
 * sample.c - per-thread CPU-time sampling: a perf task-clock event (or a POSIX CPU-time timer)
 * per recording thread, whose signal charges a sample to the thread's innermost calling context.
 * Both signal the thread as it returns to user space, never while it sleeps in a system call,
 * so the program's blocking calls are not interrupted (EINTR) by the sampling.
 */
#define _GNU_SOURCE /* SIGEV_THREAD_ID */
#include "sample.h"

#include "hookcode.h"
#include "codemap.h"
#include "hooks.h"
#include "leftout.h"
#include "run.h"
#include "samplecost.h"
#include "status.h"
#include "thread.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static int sample_signal; /* the signal the handler is installed on; 0: none */

/* The perf event was chosen, not asked for (PROFILER_SAMPLER unset): a thread that switches
   often may trade it for a CPU-time timer (switch_to_timer). */
static int may_switch;

/* The function hooks' code (sample.h), where the linker made the section: weak, so a library
   without the hooks has an empty range. */
extern const char __start_prof_hook_text[] __attribute__((weak, visibility("hidden")));
extern const char __stop_prof_hook_text[] __attribute__((weak, visibility("hidden")));

/* The instruction a signal interrupted, from its context; 0 where that is not known. */
static uintptr_t interrupted_pc(const void *context)
{
    const ucontext_t *uc = context;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

/* The interrupted stack pointer, from the signal's context; NULL where that is not known. */
static const uintptr_t *interrupted_sp(const void *context)
{
    const ucontext_t *uc = context;
#if defined(__x86_64__)
    return (const uintptr_t *)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__i386__)
    return (const uintptr_t *)uc->uc_mcontext.gregs[REG_ESP];
#else
    (void)uc;
    return NULL;
#endif
}

/* Whether pc is in the function hooks' code. */
static int in_hook_text(uintptr_t pc)
{
    return pc && pc >= (uintptr_t)__start_prof_hook_text && pc < (uintptr_t)__stop_prof_hook_text;
}

/* The kernel's id of the calling thread. */
static pid_t thread_id(void) { return (pid_t)syscall(SYS_gettid); }

/*
 * gcc's -finstrument-functions hooks the copies of a function it inlines: their enter hooks are
 * called from the code of the function they were inlined into. A sample in the code of hooked
 * function [code->lo, + code->size) whose innermost frames (below depth d) are copies inlined
 * into it is that function's own time, as perf's samples of its symbol are (the copies keep
 * their counts, and the time of the real calls they make). Returns the depth above that
 * function's frame, or 0 when the innermost frame is its own, or not a copy inlined into it.
 */
static uint32_t inlined_into(const struct prof_thread *t, uint32_t d,
                             const struct prof_code_fn *code)
{
    for (uint32_t k = d; k > 0; k--) {
        const struct prof_frame *f = &t->stack[k - 1];
        if ((uintptr_t)f->id == code->lo)
            return k == d ? 0 : k;
        /* a function's frame (a region's where is even, or PROF_WHERE_NONE) whose enter hook
           is called from the code */
        if (!(f->where & 1) || f->where == PROF_WHERE_NONE || f->hook - code->lo >= code->size)
            return 0;
    }
    return 0;
}

/*
 * Charge w sample periods, taken at instruction pc, to the thread's current place: the
 * collector's own code (overhead: busy, pc in the function hooks or in a PLT stub that jumps to
 * them, hookcode.h), nowhere (no region or function open), or the calling context of
 * the code pc is in: the innermost open frame's, or that of a function called from it whose
 * prologue (before its enter hook) or epilogue (after its exit hook) pc is in, or a program
 * function without hooks of its own (left out by the filters, or compiled without them) called
 * from the innermost frame: a row of its own (leftout.h, codemap.h); or the function whose code
 * gcc inlined the innermost frames' functions into (inlined_into). Only this thread writes
 * these counts, so plain relaxed stores suffice.
 */
static void charge(struct prof_thread *t, uint64_t w, uintptr_t pc, const uintptr_t *sp)
{
    struct prof_sample_state *s = &t->sampling;
    PROF_STORE(s->samples, s->samples + w);
    unsigned gen = t->gen;
    enum prof_hookcode_place place = PROF_HOOKCODE_NONE;
    if (prof_busy || (gen & PROF_GEN_BUSY) || t->hooks.in_hook || in_hook_text(pc) ||
        (place = prof_hookcode_at(pc)) == PROF_HOOKCODE_STUB) {
        PROF_STORE(s->overhead, s->overhead + w);
        if (prof_busy || t->hooks.in_hook)
            PROF_STORE(s->slow, s->slow + w);
        return;
    }
    if (gen != PROF_LOAD(prof_gen) || !t->summary.sampled || t->mode != PROF_MODE_SUMMARY)
        return; /* not recording this run: nothing to charge */
    uint32_t d = t->depth;
    if (d > t->stack_cap)
        d = t->stack_cap; /* deeper calls were folded into the deepest frame */
    struct prof_node *n = prof_node_above(t, d), *callee = NULL;
    /* The program function pc is in, when its samples are not the tree's: one the filters
       left out, or one without hooks, called from n */
    struct prof_code_fn code = {0, 0, 0};
    uint32_t r = prof_codemap_place(pc, &code);
    int hooked = r == PROF_CODE_HOOKED;
    if (!r)
        r = prof_leftout_at(pc);
    if (!r && sp && (uintptr_t)sp >= t->stack_lo && (uintptr_t)sp < t->stack_hi) {
        /* Outside the program's functions (the C library): its time is the program function's
           that called it, as perf's call chains charge it, if that one has no hooks. Called
           from n's code: deeper on the stack than n's frame. Only on the thread's own stack
           (not a signal stack or a coroutine's, whose ends are not known). */
        uintptr_t limit = d ? t->stack[d - 1].where & ~(uintptr_t)1 : UINTPTR_MAX;
        /* the innermost frame's function, where its enter hook returned (a function's frame,
           not a region's), for telling its callees' stale return addresses from live ones */
        uintptr_t home =
            d && (t->stack[d - 1].where & 1) && t->stack[d - 1].where != PROF_WHERE_NONE
                ? t->stack[d - 1].hook
                : 0;
        r = prof_codemap_caller(sp, limit < t->stack_hi ? limit : t->stack_hi, home);
    }
    if (r == PROF_CODE_HOOKED)
        r = 0;
    if (r && prof_leftout_charge(&s->leftout, n, r, w)) {
        /* Its own row. The owner names it in its part at its next general exit (thread.c). */
        if (!prof_leftout_id(&s->leftout, r))
            t->flush_at = 0;
        goto deadline;
    }
    if (place == PROF_HOOKCODE_EPILOGUE) {
        /* The call the exit hook just closed: n's latest child (each enter makes its child the
           parent's latest), a node of this run's tree, whose code starts below pc. A function
           the filters left out has no node: its epilogue goes to n's latest child all the
           same when that one's entry lies below pc (a few instructions a call). */
        callee = n->last;
        if (!callee->key || (uintptr_t)callee->key > pc)
            callee = NULL;
    } else if (place == PROF_HOOKCODE_NONE) {
        /* The nearest entry below pc of a function called from n, if pc is still before
           that function's enter hook (after it, pc is in n's own code: n's function may
           begin there, or follow the callee's code in memory). */
        callee = prof_cct_child_at(&t->summary.cct, n, pc, PROF_HOOKCODE_PROLOGUE_BYTES);
        if (callee &&
            !prof_hookcode_enter_ahead(pc, (uintptr_t)callee->key + PROF_HOOKCODE_PROLOGUE_BYTES))
            callee = NULL;
    }
    if (callee)
        n = callee;
    else if (hooked && code.size) {
        uint32_t k = inlined_into(t, d, &code);
        if (k)
            n = prof_node_above(t, k);
    }
    if (n == &t->summary.cct.root)
        PROF_STORE(s->outside, s->outside + w);
    else
        PROF_STORE(n->samples, n->samples + w);
deadline:
    /* The snapshot deadline: the next stop writes one (prof_summary_due). */
    if (t->flush_at != UINT64_MAX && prof_ticks() >= t->flush_at)
        t->flush_at = 0;
}

#ifndef TRAP_PERF
#define TRAP_PERF 6 /* si_code of a perf event's SIGTRAP (Linux 5.13) */
#endif

/* A perf event's SIGTRAP carries this in si_perf_data: ours, not a breakpoint's. */
#define SAMPLE_SIG_DATA 0x70726f66u

/* The lowest of the threads' lag_low so far (0: none yet), process-wide: sample_cost. */
static uint64_t lag_floor;

/* What one overflow of the perf event costs a thread, in ns of its CPU time: calibrated at
   setup (samplecost.h) or PROFILER_SAMPLE_COST; 0: unknown. */
static uint64_t overflow_cost;

/*
 * Count what a perf sample cost its thread. lag, the thread's CPU time from the event's overflow
 * to the handler's read of the count (the interrupt, the signal's delivery, the handler's
 * start: about 15-20 us a sample on a virtual machine, a few on bare metal), is time the
 * period's count holds and the program did not spend, as long as the overflows come at whole
 * periods of the count. They do not once the thread has been switched out and in often: the
 * event's timer starts again from what was left of its period each time, the overflows drift
 * from the period's multiples, and the count's remainder at the handler (v - periods * period)
 * grows by the drift, up to a period, where it wraps around. With 4 threads running on 2 CPUs
 * (pigz compressing with 2), the compressing threads' remainders were 43 us and more early in
 * the run and 120-170 us later (their lower thirty-second), where the threads that ran seldom
 * had 15-18 us, as has a thread alone on a CPU (a thread that only computed there lost 21 us of
 * work a sample: the loops it ran in the same CPU time, against a run without sampling); the
 * run used 0.1 s more CPU than the uninstrumented one, and the remainders, counted up to 4 times
 * their median, took 0.35 s out of every time (main's Wall 0.74x of the plain run's).
 *
 * So a sample counts at most the lags' running lower thirty-second on its thread (each lag
 * moves it by a sixteenth of it: down when below it, a thirty-first of that up when above), and
 * at most a quarter more than the lowest such figure of any thread of the process: the
 * delivery's cost, which the drift only adds to (each thread's first samples, before it drifts,
 * and the threads that seldom run keep that lowest figure near it). At most half a period; only
 * samples one period after the one before move the estimates.
 *
 * And at least what an overflow, its signal and a handler that reads the count cost, calibrated at
 * setup (overflow_cost, samplecost.h), for each of the w periods: under a hypervisor whose
 * interrupts are dear that is most of the cost (this project's VM: 36-48 us an overflow, of which
 * the lag showed 8-20).
 */
static void sample_cost(struct prof_sample_state *s, uint64_t lag, uint64_t w)
{
    uint64_t low = s->lag_low ? s->lag_low : s->period_ns / 16;
    uint64_t floor = __atomic_load_n(&lag_floor, __ATOMIC_RELAXED);
    if (w == 1) {
        uint64_t step = low / 16 + 1;
        low = lag > low ? low + (step + 30) / 31 : low > step ? low - step : 1;
        s->lag_low = low;
        if (!floor || low < floor) /* a race may keep a higher one: the next sample lowers it */
            __atomic_store_n(&lag_floor, floor = low, __ATOMIC_RELAXED);
    }
    uint64_t cap = s->period_ns / 2;
    if (low < cap)
        cap = low;
    if (floor && floor + floor / 4 < cap)
        cap = floor + floor / 4;
    uint64_t cost = lag < cap ? lag : cap;
    /* What the overflow cost before the handler could see it, calibrated (per period: a
       signal merged with the next is one overflow of each) */
    if (cost < overflow_cost * w)
        cost = overflow_cost * w;
    PROF_STORE(s->cost_ns, s->cost_ns + cost);
}

/*
 * A thread that traded its perf event for a CPU-time timer (switch_to_timer) has the timer
 * signal SIGTRAP, the signal the event's handler already owns, with this value: a signal of a
 * timer deleted since (the thread's recorder freed, the run ended) is still told from a
 * breakpoint's.
 */
#define SAMPLE_TIMER_TAG ((void *)(uintptr_t)0x70726f66u)

/* The samples between two looks at a thread's context switches (4 ms of its CPU time at the
   default period). */
#define SWITCH_LOOK_SAMPLES 16u
/* A thread that switched once per this much of its CPU time, or more often, trades its event
   for the timer: 16 % of that time at 10 us a switch. */
#define SWITCH_EVERY_NS 62500u

/* The calling thread's context switches so far, voluntary and not; UINT64_MAX when unknown.
   The system call itself, as in the handler. */
static uint64_t thread_switches(void)
{
    struct rusage ru;
    if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) != 0)
        return UINT64_MAX;
    return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

/* A CPU-time timer's notice, sig with value to the calling thread, and its setting: expiring
   every period_ns. */
static void timer_spec(uint64_t period_ns, int sig, void *value, struct sigevent *ev,
                       struct itimerspec *it)
{
    memset(ev, 0, sizeof *ev);
    ev->sigev_notify = SIGEV_THREAD_ID;
    ev->sigev_signo = sig;
    ev->sigev_value.sival_ptr = value;
    ev->_sigev_un._tid = thread_id();
    it->it_interval.tv_sec = (time_t)(period_ns / 1000000000u);
    it->it_interval.tv_nsec = (long)(period_ns % 1000000000u);
    it->it_value = it->it_interval;
}

/* A kernel CPU-time timer of the calling thread expiring every period_ns, signalled to it with
   sig and value: its id, or -1. System calls only (it is made in the signal handler): the C
   library's timer_create is not among the async-signal-safe functions. */
static int ktimer_open(uint64_t period_ns, int sig, void *value)
{
    struct sigevent ev;
    struct itimerspec it;
    timer_spec(period_ns, sig, value, &ev, &it);
    int id = -1;
    if (syscall(SYS_timer_create, CLOCK_THREAD_CPUTIME_ID, &ev, &id) != 0)
        return -1;
    if (syscall(SYS_timer_settime, id, 0, &it, NULL) != 0) {
        syscall(SYS_timer_delete, id);
        return -1;
    }
    return id;
}

static int perf_fd_ours(const struct prof_sample_state *s);

/*
 * A perf event makes each of its thread's context switches dearer: the kernel stops and starts
 * the event's timer at each (about 10 us on a virtual machine, where reprogramming the timer
 * traps to the hypervisor). pigz decompressing, whose threads wake each other 6,400 times in
 * 0.13 s, ran 1.25x slower with it and about as fast as without the collector with the timer,
 * whose expiries the scheduler's tick checks; and the switches' cost, charged to the thread's
 * CPU time, went to the functions that block. The timer looks where the thread is only at
 * the tick (250 or 1000 times a second of CPU time, against the event's 4,000 at the default
 * period), so it is the lesser evil only where the switches cost much: at every
 * SWITCH_LOOK_SAMPLES samples, a thread that switched once per SWITCH_EVERY_NS of its CPU time
 * or more often since the last look (16 % of that time on such a machine) trades the event
 * for the timer, on the same signal. Called from the event's signal handler, on the thread.
 */
static void switch_to_timer(struct prof_sample_state *s)
{
    if (s->samples - s->looked < SWITCH_LOOK_SAMPLES)
        return;
    uint64_t before = s->switches0, samples = s->samples - s->looked;
    s->looked = s->samples;
    s->switches0 = thread_switches();
    if (before == UINT64_MAX || s->switches0 == UINT64_MAX ||
        (s->switches0 - before) * SWITCH_EVERY_NS < samples * s->period_ns)
        return;
    int id = ktimer_open(s->period_ns, SIGTRAP, SAMPLE_TIMER_TAG);
    if (id < 0) {
        s->switches0 = UINT64_MAX; /* tried again after the next look */
        return;
    }
    s->ktimer = id;
    s->ktimer_ok = 1;
    int fd = s->fd;
    int ours = perf_fd_ours(s);
    s->fd = -1; /* its signals still pending are dropped */
    if (ours) {
        ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
        close(fd);
    }
}

/* The sampling signal: one timer expiry (plus its overruns), or a perf event's overflow. */
static void on_sample(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    int tagged = si->si_code == SI_TIMER && si->si_value.sival_ptr == SAMPLE_TIMER_TAG;
    if (sig == SIGTRAP && si->si_code != TRAP_PERF && !tagged) {
        /* A breakpoint of the program's own (int3 with no debugger): what it did before we
           took the signal, end the process. */
        signal(SIGTRAP, SIG_DFL);
        raise(SIGTRAP);
        errno = saved;
        return;
    }
    if (PROF_UNLIKELY(prof_calib_fd >= 0) && si->si_code == TRAP_PERF &&
        (pid_t)syscall(SYS_gettid) == prof_calib_tid) {
        /* the calibration's overflow (samplecost.h): read the count as a sample does */
        uint64_t v;
        syscall(SYS_read, prof_calib_fd, &v, sizeof v);
        __atomic_store_n(&prof_calib_signals, prof_calib_signals + 1, __ATOMIC_RELAXED);
        errno = saved;
        return;
    }
    struct prof_thread *t = prof_self;
    if (t && PROF_LOAD(t->sampling.period_ns)) {
        struct prof_sample_state *s = &t->sampling;
        uint64_t w = 0, lag = 0;
        int perf = 0, ours = 0;
        if (si->si_code == SI_TIMER) {
            if ((s->timer_ok && si->si_value.sival_ptr == s) || (tagged && s->ktimer_ok)) {
                w = 1 + (uint64_t)(si->si_overrun > 0 ? si->si_overrun : 0);
                PROF_STORE(s->timer_samples, s->timer_samples + w);
                PROF_STORE(s->timer_draws, s->timer_draws + 1);
                ours = 1;
            }
        } else if (s->fd >= 0) {
            /* The event's count is the thread's CPU time in ns: an overflow whose signal was
               merged with a pending one is not lost, it is in the periods since the last. The
               system call itself: the C library's read() is a cancellation point, where a
               thread with a cancellation request pending would be cancelled at whatever
               instruction the signal interrupted (holding the collector's locks, or the
               program's). */
            uint64_t v;
            if (syscall(SYS_read, s->fd, &v, sizeof v) == (long)sizeof v) {
                uint64_t periods = v / s->period_ns;
                w = periods > s->taken ? periods - s->taken : 0;
                s->taken = periods;
                /* an overflow a little before its period's end brings no period (the next
                   signal brings two): its lag is not known */
                lag = w ? v - periods * s->period_ns : 0;
                if (w)
                    sample_cost(s, lag, w);
                perf = ours = 1;
            }
        }
        uint64_t t0 = ours ? prof_ticks() : 0;
        if (w) {
            charge(t, w, interrupted_pc(uc), interrupted_sp(uc));
            if (perf) /* the rest of what the sample cost (the timer's: not measured) */
                PROF_STORE(s->cost_ticks, s->cost_ticks + (prof_ticks() - t0));
            if (perf && may_switch)
                switch_to_timer(s);
        }
        if (ours) /* the stop of a timed call it interrupted takes what it cost out */
            PROF_STORE(s->interrupts, s->interrupts + 1);
    }
    errno = saved;
}

/*
 * A task-clock event on the calling thread overflowing every period_ns of its CPU time; -1
 * (errno set) when the system refuses. Its overflow sends SIGTRAP synchronously (sigtrap: from
 * task work, as the thread returns to user space), never while the thread sleeps in a system
 * call: a signal sent from the overflow's interrupt (O_ASYNC, as async-profiler does) arrives
 * late enough to interrupt a poll() the thread entered after it, measured in 7 to 17 % of
 * polls that followed 0.3 ms of work (issue 24).
 */
static int perf_open(uint64_t period_ns)
{
    struct perf_event_attr a;
    prof_task_clock_attr(&a, period_ns);
    a.sigtrap = 1;
    a.remove_on_exec = 1; /* which sigtrap requires */
    a.sig_data = SAMPLE_SIG_DATA;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* A CPU-time timer of the calling thread expiring every period_ns, signalled to it with sig
   and value; 0, or -1 (errno set). */
static int timer_open(uint64_t period_ns, int sig, void *value, timer_t *out)
{
    struct sigevent ev;
    struct itimerspec it;
    timer_spec(period_ns, sig, value, &ev, &it);
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, out) != 0)
        return -1;
    if (timer_settime(*out, 0, &it, NULL) != 0) {
        int e = errno;
        timer_delete(*out);
        errno = e;
        return -1;
    }
    return 0;
}

/* Whether the program left signal sig to us: no handler of its own (or ours already). */
static int signal_free(int sig)
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0)
        return 0;
    if (old.sa_flags & SA_SIGINFO)
        return old.sa_sigaction == on_sample;
    return old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN;
}

/* Install the handler on sig; 0 or -1. */
static int take_signal(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sample;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL);
}

/*
 * Whether a tool that owns SIGTRAP watches the process: a debugger (TracerPid in
 * /proc/self/status) or valgrind (its preloaded core), which stop at, or die of, a SIGTRAP they
 * did not cause. The perf event's signal is left out then.
 */
static int trap_watched(void)
{
    const char *pre = getenv("LD_PRELOAD");
    if (pre && strstr(pre, "vgpreload"))
        return 1;
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *tp = strstr(buf, "TracerPid:");
    return tp && strtol(tp + 10, NULL, 10) != 0;
}

/*
 * Whether the kernel drops the pending signal of a timer deleted since it fired (Linux 6.13
 * on): exec deletes the process's timers, and an older kernel delivers such a signal to the new
 * program, in which SIGTRAP's default action ends it with a core dump. The perf event is removed
 * at exec without that risk (remove_on_exec), so only there may a thread trade it for a timer.
 */
static int drops_deleted_timer_signals(void)
{
    struct utsname u;
    unsigned major = 0, minor = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
        return 0;
    return major > 6 || (major == 6 && minor >= 13);
}

/*
 * The perf event's overflow cost: cost_ns, or calibrated when negative. With the period not set
 * (period_set 0), one dearer than PROF_SAMPLE_COST_SHARE of it lengthens *period_ns to that
 * many overflows' cost, up to PROF_SAMPLE_PERIOD_MAX_NS, as the kernel lowers perf's rate when
 * its interrupts take too long (perf_cpu_time_max_percent): on this project's virtual machine
 * an overflow costs 49 us, a fifth of the default period, and yaml-cpp's clang build with the
 * README's recipe ran 2.00x plain at 250 us, 1.78-1.79x at 500 us, its top-15 shares within
 * 0.50 points of perf's on average (0.41 at 250 us). At most twice the default: bounds at
 * most 1.4 times as wide. One of half the period or more is said and not taken out (a reader
 * would not believe it); the report says what a smaller one costs the program.
 */
static void overflow_cost_setup(int64_t cost_ns, uint64_t *period_ns, int period_set)
{
    uint64_t c = cost_ns >= 0 ? (uint64_t)cost_ns : prof_sample_cost_calibrate();
    uint64_t want = c * PROF_SAMPLE_COST_SHARE;
    if (!period_set && want > *period_ns) {
        want = (want + 9999) / 10000 * 10000; /* whole tens of us */
        *period_ns = want < PROF_SAMPLE_PERIOD_MAX_NS ? want : PROF_SAMPLE_PERIOD_MAX_NS;
    }
    overflow_cost = c < *period_ns / 2 ? c : 0;
    if (!overflow_cost && c)
        prof_warn("a perf sample costs each thread about %.0f us of CPU time here, %.0f %% of the "
                  "%.0f us period, which the times keep; a longer PROFILER_SAMPLE_PERIOD or "
                  "PROFILER_SAMPLER=timer disturbs the program less",
                  (double)c / 1e3, 100.0 * (double)c / (double)*period_ns,
                  (double)*period_ns / 1e3);
}

/* Install the handler and find a method that works here: a perf event with SIGTRAP, else a
   CPU-time timer on sig (want: PROF_SAMPLE_NONE to choose so, or the one method to try). */
enum prof_sample_method prof_sample_setup(int sig, uint64_t *period_ns, int period_set,
                                          enum prof_sample_method want, int64_t cost_ns)
{
    int perf_err = EPERM;
    if (want != PROF_SAMPLE_TIMER && (want == PROF_SAMPLE_PERF || !trap_watched()) &&
        signal_free(SIGTRAP)) {
        int fd = perf_open(*period_ns);
        perf_err = errno;
        if (fd >= 0) {
            close(fd);
            if (take_signal(SIGTRAP) == 0) {
                sample_signal = SIGTRAP;
                may_switch = want == PROF_SAMPLE_NONE && drops_deleted_timer_signals();
                overflow_cost_setup(cost_ns, period_ns, period_set);
                return PROF_SAMPLE_PERF;
            }
            perf_err = errno;
        }
    }
    if (want == PROF_SAMPLE_PERF) {
        prof_warn("no perf task-clock sampling here (%s); timing every call exactly",
                  strerror(perf_err));
        return PROF_SAMPLE_NONE;
    }
    if (!signal_free(sig)) {
        prof_warn("the program handles signal %d (%s) itself; timing every call exactly "
                  "(PROFILER_SIGNAL picks another signal)",
                  sig, strsignal(sig));
        return PROF_SAMPLE_NONE;
    }
    timer_t tm;
    if (take_signal(sig) == 0 && timer_open(*period_ns, sig, NULL, &tm) == 0) {
        timer_delete(tm);
        sample_signal = sig;
        return PROF_SAMPLE_TIMER;
    }
    prof_warn("no CPU-time sampling here (perf_event_open: %s; timer_create: %s); timing every "
              "call exactly",
              strerror(perf_err), strerror(errno));
    signal(sig, SIG_DFL);
    return PROF_SAMPLE_NONE;
}

uint64_t prof_sample_overflow_cost(void) { return overflow_cost; }

/* The method's name. */
const char *prof_sample_method_name(enum prof_sample_method m)
{
    return m == PROF_SAMPLE_PERF ? "perf-task-clock" : m == PROF_SAMPLE_TIMER ? "cpu-timer" : "";
}

static void sampler_stop(struct prof_thread *t);

/* Whether the thread's perf descriptor is still the event it opened: the program may have
   closed it (closefrom) and got the number back for a file of its own, which we must neither
   touch nor close. A perf event's own id ioctl answers only on a perf event. */
static int perf_fd_ours(const struct prof_sample_state *s)
{
    uint64_t id = 0;
    return s->fd >= 0 && ioctl(s->fd, PERF_EVENT_IOC_ID, &id) == 0 && id == s->id;
}

/* Arm the calling thread's sampler: 0, or -1 when none could be made (the thread then gets no
   samples, and times every call). */
static int sampler_start(struct prof_thread *t, const struct prof_run_info *run)
{
    struct prof_sample_state *s = &t->sampling;
    sampler_stop(t);
    s->samples = s->overhead = s->slow = s->outside = s->taken = s->interrupts = 0;
    s->cost_ns = s->cost_ticks = s->lag_low = 0;
    s->looked = s->timer_samples = s->timer_draws = 0;
    if (run->sample_method == PROF_SAMPLE_NONE || !sample_signal)
        return 0;
    s->pid = getpid();
    s->switches0 = may_switch ? thread_switches() : UINT64_MAX;
    if (run->sample_method == PROF_SAMPLE_PERF) {
        s->fd = perf_open(run->sample_period_ns);
        if (s->fd < 0)
            return -1;
        if (ioctl(s->fd, PERF_EVENT_IOC_ID, &s->id) != 0) {
            close(s->fd);
            s->fd = -1;
            return -1;
        }
    } else {
        if (timer_open(run->sample_period_ns, sample_signal, s, &s->timer) != 0)
            return -1;
        s->timer_ok = 1;
    }
    __atomic_store_n(&s->period_ns, run->sample_period_ns, __ATOMIC_RELEASE);
    if (s->fd >= 0)
        ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
    return 0;
}

/* Disarm and close. */
static void sampler_stop(struct prof_thread *t)
{
    struct prof_sample_state *s = &t->sampling;
    __atomic_store_n(&s->period_ns, 0, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    int own = s->pid == getpid(); /* a fork child's copy: the event or timer is the parent's */
    if (s->fd >= 0) {
        /* A descriptor the program closed and reused is its own now: left alone. */
        if (perf_fd_ours(s)) {
            if (own)
                ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
            close(s->fd);
        }
        s->fd = -1;
    }
    if (s->timer_ok) {
        if (own)
            timer_delete(s->timer);
        s->timer_ok = 0;
    }
    if (s->ktimer_ok) {
        if (own)
            syscall(SYS_timer_delete, s->ktimer);
        s->ktimer_ok = 0;
    }
}

/* A recorder begins a run (on its own thread): a summary run's threads sample, and a run
   that leaves functions out charges their samples to them. */
static void hook_begin(struct prof_thread *t, const struct prof_run_info *run)
{
    t->summary.sampled = run->mode == PROF_MODE_SUMMARY && run->sample_method &&
                         sampler_start(t, run) == 0 && t->sampling.period_ns;
    prof_leftout_hits_clear(&t->sampling.leftout);
    /* Any sampled run: functions without hooks (codemap.h) take samples even when the
       filters leave nothing out. Without it each sample charges its context. */
    if (t->summary.sampled)
        prof_leftout_hits_make(&t->sampling.leftout);
}

/* A recorder is freed. */
static void hook_free(struct prof_thread *t)
{
    sampler_stop(t);
    prof_leftout_hits_free(&t->sampling.leftout);
}

/* Samples in left-out functions that found the thread's table full: said in a warning
   (t->lock held). */
static int hook_write(struct prof_thread *t)
{
    uint64_t lost = PROF_LOAD(t->sampling.leftout.lost);
    if (!lost)
        return 0;
    char msg[160];
    snprintf(msg, sizeof msg,
             "samples in left-out functions under more than %u calling contexts were charged to "
             "those contexts' own time",
             PROF_LEFTOUT_HITS);
    return prof_thread_write_warning(t, "left-out-full", lost, msg);
}

const struct prof_hooks prof_sample_hooks = {
    .name = "sampled timing",
    .thread_begin = hook_begin,
    .thread_write = hook_write,
    .thread_free = hook_free,
};
