/*
 * crash.c - the fatal signals' handler: it writes what every thread has buffered, and a chunk
 * saying the run crashed and with which signal, into the parts with async-signal-safe calls
 * only, then lets the signal take the action it would have taken without profreport.
 *
 * Which signals: SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT unless ignored, and SIGTERM,
 * SIGINT, SIGHUP and SIGPIPE only while at their default action (a program that handles them
 * ends as it chooses). SIGPIPE is how `prog | head` ends prog when head exits: without it such
 * a run kept only what its threads had written by their last flush (pigz: nothing of a run cut
 * within its first second). The handlers are installed when the first thread begins recording; a
 * handler the program installs after that replaces ours, as it would replace the default.
 *
 * A program's handler installed before ours is called first, with its mask and flags, as the
 * kernel would call it; the data is written only when the signal is about to take its default
 * action: the program had none, its handler returned and was one-shot (SA_RESETHAND), it reset
 * the action to the default itself, or it returned from abort()'s SIGABRT (abort then resets
 * and raises again). A handler that leaves by longjmp or ends the process with _exit writes
 * nothing: the program did not crash, or chose its own end.
 *
 * A stack overflow is a SIGSEGV that no handler can take on the stack that overflowed, so our
 * handler runs on an alternate stack (SA_ONSTACK, unless the program's handler that we chain to
 * did not ask for it). A recording thread that has none when it begins recording gets one of
 * ours (64 KiB below a guard page, from mmap), given back when the thread ends if it is still
 * the thread's and not in use. A thread that has one keeps it: we never replace or change the
 * program's, and a program that sets its own later replaces ours (which then just waits to be
 * unmapped). A thread that never records gets none: its overflow ends the program by SIGSEGV
 * as without profreport, unwritten.
 */
#define _GNU_SOURCE /* SA_ONSTACK's siblings, syscall */
#include "crash.h"

#include "run.h"
#include "status.h"
#include "thread.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* One fatal signal: its number and name, and whether it is caught only at its default
   action. */
struct fatal {
    int sig;
    const char *name;
    int only_default;
};

static const struct fatal fatal[] = {
    {SIGSEGV, "SIGSEGV", 0}, {SIGBUS, "SIGBUS", 0},   {SIGFPE, "SIGFPE", 0},
    {SIGILL, "SIGILL", 0},   {SIGABRT, "SIGABRT", 0}, {SIGTERM, "SIGTERM", 1},
    {SIGINT, "SIGINT", 1},   {SIGHUP, "SIGHUP", 1},   {SIGPIPE, "SIGPIPE", 1},
};
#define NFATAL (sizeof fatal / sizeof *fatal)

/* The action each signal had before ours (what it does without profreport), written at
   install and by the handler (a one-shot program handler becomes the default). */
static struct sigaction prev[NFATAL];
/* atomic: the kernel id of the thread writing the crash now, 0 when none */
static pid_t writer;

/* How long the crash path waits for a lock or for another crashing thread, in steps of 1 ms:
   bounded, so a lock held by a thread that never lets go costs a moment, not the data of the
   others nor the program's end. */
#define WAIT_RUN_LOCK 100
#define WAIT_THREAD_LOCK 20
#define WAIT_OTHER_WRITER 5000

/* Sleep 1 ms (nanosleep is async-signal-safe). */
static void pause_ms(void)
{
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

/* The place of sig in fatal[], or NFATAL. */
static size_t fatal_index(int sig)
{
    size_t i = 0;
    while (i < NFATAL && fatal[i].sig != sig)
        i++;
    return i;
}

/* Take t's lock, waiting at most tries - 1 ms; 0 when it stays busy. */
static int lock_thread(struct prof_thread *t, int tries)
{
    for (int k = 0; k < tries; k++) {
        if (pthread_mutex_trylock(&t->lock) == 0)
            return 1;
        if (k + 1 < tries)
            pause_ms();
    }
    return 0;
}

/*
 * Write every recording thread's buffered data and the crash chunk for signal i. One thread
 * writes; another that crashes meanwhile waits for it (its signal then ends the process). A
 * recorder whose lock stays busy (its thread is writing its part, or this thread crashed inside
 * the collector) is skipped rather than waited for.
 */
static void crash_write_held(size_t i)
{
    pid_t me = (pid_t)syscall(SYS_gettid), none = 0;
    if (!__atomic_compare_exchange_n(&writer, &none, me, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (none == me)
            return; /* a fault while writing: the signal ends the process now */
        for (int k = 0; k < WAIT_OTHER_WRITER && __atomic_load_n(&writer, __ATOMIC_ACQUIRE); k++)
            pause_ms();
        return;
    }
    int saved = errno;
    struct prof_thread *self = prof_thread_self();
    char mark[PROF_CRASH_RECORD + 16];
    uint32_t head[2] = {(uint32_t)fatal[i].sig, self && self->registered ? self->number : 0};
    size_t nlen = strlen(fatal[i].name) + 1;
    memcpy(mark, head, sizeof head);
    memcpy(mark + PROF_CRASH_RECORD, fatal[i].name, nlen);
    /* This thread may hold the run lock itself when it crashed inside the collector. */
    int held = 0, tries = prof_busy ? 1 : WAIT_RUN_LOCK;
    struct prof_thread *t = NULL;
    for (int k = 0; k < tries; k++) {
        t = prof_run_crash_hold(&held);
        if (held)
            break;
        if (k + 1 < tries)
            pause_ms();
    }
    if (held) {
        for (; t; t = t->next) {
            if (!lock_thread(t, t == self ? 1 : WAIT_THREAD_LOCK))
                continue;
            prof_thread_crash_write(t, mark, PROF_CRASH_RECORD + nlen);
            pthread_mutex_unlock(&t->lock);
        }
        prof_run_crash_release();
    }
    __atomic_store_n(&writer, 0, __ATOMIC_RELEASE);
    errno = saved;
}

/* The same, with cancellation held off: write() and nanosleep() are cancellation points, and a
   request pending on this thread must not end it here, half-way through the crash's record,
   with the process left running without it. */
static void crash_write(size_t i)
{
    struct prof_host host = prof_host_hold();
    crash_write_held(i);
    prof_host_release(host);
}

/* Call the program's handler p as the kernel would: its mask (and sig, unless SA_NODEFER)
   blocked while it runs. */
static void call_program(int sig, siginfo_t *info, void *uc, const struct sigaction *p)
{
    sigset_t mask = p->sa_mask, old;
    if (!(p->sa_flags & SA_NODEFER))
        sigaddset(&mask, sig);
    pthread_sigmask(SIG_BLOCK, &mask, &old);
    if (p->sa_flags & SA_NODEFER) {
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    }
    if (p->sa_flags & SA_SIGINFO)
        p->sa_sigaction(sig, info, uc);
    else
        p->sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void on_signal(int sig, siginfo_t *info, void *uc);

/* Whether the program's handler, now returned, left the signal about to take its default
   action (so the process is ending): it reset the action itself, or it returned from abort()'s
   first SIGABRT, after which abort resets the action and raises the signal again. */
static int ending_after(int sig, const siginfo_t *info)
{
    struct sigaction cur;
    if (sigaction(sig, NULL, &cur) != 0)
        return 0;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal)
        return sig == SIGABRT && info && info->si_code <= 0 && info->si_pid == getpid();
    return !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL;
}

/* The fatal signals' handler. */
static void on_signal(int sig, siginfo_t *info, void *uc)
{
    int saved = errno;
    size_t i = fatal_index(sig);
    if (i == NFATAL)
        return;
    struct sigaction p = prev[i];
    if (!(p.sa_flags & SA_SIGINFO) && p.sa_handler == SIG_IGN) {
        errno = saved;
        return;
    }
    if ((p.sa_flags & SA_SIGINFO) || p.sa_handler != SIG_DFL) {
        /* The program's handler, as without us. A one-shot handler gives way to the default. */
        if (p.sa_flags & SA_RESETHAND) {
            memset(&prev[i], 0, sizeof prev[i]);
            prev[i].sa_handler = SIG_DFL;
        }
        call_program(sig, info, uc, &p);
        if (ending_after(sig, info))
            crash_write(i);
        errno = saved;
        return;
    }
    crash_write(i);
    /* The default action: this handler blocks sig, so the raised signal waits for the return
       (a fault's registers are then the faulting instruction's in the core dump). */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
    errno = saved;
}

/* Install the handlers, once per process (PROFILER_CRASH=0: never); 1 when they are ours.
   Called under the run lock (a thread_begin hook), so one thread at a time. */
static int install(void)
{
    static int installed, ours;
    if (installed)
        return ours;
    installed = 1;
    const char *v = getenv("PROFILER_CRASH");
    if (v && strcmp(v, "0") == 0)
        return 0;
    ours = 1;
    for (size_t i = 0; i < NFATAL; i++) {
        struct sigaction old;
        if (sigaction(fatal[i].sig, NULL, &old) != 0)
            continue;
        int is_default = !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL;
        int ignored = !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN;
        if (ignored || (fatal[i].only_default && !is_default))
            continue;
        struct sigaction act;
        memset(&act, 0, sizeof act);
        act.sa_sigaction = on_signal;
        /* Before a program's handler, its own stack and restart flags: a system call that
           its handler interrupts fails or restarts as without us. */
        act.sa_flags = SA_SIGINFO | (is_default ? SA_ONSTACK | SA_RESTART
                                                : old.sa_flags & (SA_ONSTACK | SA_RESTART));
        sigemptyset(&act.sa_mask);
        prev[i] = old;
        sigaction(fatal[i].sig, &act, NULL);
    }
    return 1;
}

/* The alternate stack this thread got from us (its usable part above the guard page), or
   NULL. */
#define ALT_SIZE (64u * 1024u)
static __thread char *alt_stack __attribute__((tls_model("initial-exec")));

/* The page size, for the guard page below the alternate stack. */
static size_t page_size(void)
{
    long n = sysconf(_SC_PAGESIZE);
    return n > 0 ? (size_t)n : 4096;
}

/* Give the calling thread an alternate stack when it has none (never replacing the
   program's). */
static void alt_stack_give(void)
{
    stack_t cur;
    if (alt_stack || sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
        return;
    size_t guard = page_size();
    char *p =
        mmap(NULL, guard + ALT_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return;
    mprotect(p, guard, PROT_NONE); /* an overflow of this stack faults, never writes below */
    stack_t ss = {.ss_sp = p + guard, .ss_flags = 0, .ss_size = ALT_SIZE};
    if (sigaltstack(&ss, NULL) != 0) {
        munmap(p, guard + ALT_SIZE);
        return;
    }
    alt_stack = p + guard;
}

/* The thread ends: its alternate stack goes back, disabled first if it is still the thread's
   (and not in use: a handler on it that ends the thread keeps it). */
static void alt_stack_take_back(void)
{
    if (!alt_stack)
        return;
    stack_t cur;
    if (sigaltstack(NULL, &cur) != 0 || (cur.ss_flags & SS_ONSTACK))
        return;
    if (!(cur.ss_flags & SS_DISABLE) && cur.ss_sp == alt_stack) {
        stack_t off = {.ss_sp = NULL, .ss_flags = SS_DISABLE, .ss_size = 0};
        if (sigaltstack(&off, NULL) != 0)
            return;
    }
    size_t guard = page_size();
    munmap(alt_stack - guard, guard + ALT_SIZE);
    alt_stack = NULL;
}

/* A recorder begins a run (on its own thread): the first one installs the handlers, and each
   thread gets an alternate stack if it has none. */
static void crash_thread_begin(struct prof_thread *t, const struct prof_run_info *run)
{
    (void)t;
    (void)run;
    if (install())
        alt_stack_give();
}

/* The recorder's thread is exiting (on that thread). */
static void crash_thread_exit(struct prof_thread *t)
{
    (void)t;
    alt_stack_take_back();
}

const struct prof_hooks prof_crash_hooks = {
    .name = "crash",
    .thread_begin = crash_thread_begin,
    .thread_exit = crash_thread_exit,
};
