/*
 * crash.c - a run that crashes about 0.2 s in, before its first write (PROFILER_FLUSH_INTERVAL
 * is 1 s): what it recorded reaches its parts only through the crash handler (collector/crash.c).
 *
 *   crash HOW [HANDLER]
 *
 * A worker thread records 500 "w" regions and waits, still alive; the main thread records
 * "outer" (left open) holding 1000 "k" regions and a 0.2 s "sleep" region, then ends by HOW:
 *   abort    abort()                          SIGABRT
 *   assert   a failed assert()                SIGABRT
 *   segv     a write through a null pointer   SIGSEGV
 *   fpe      an integer division by zero      SIGFPE
 *   bus      a read past the end of a file's mapping   SIGBUS
 *   ill      __builtin_trap()                 SIGILL
 *   overflow endless recursion: the stack overflows          SIGSEGV
 *   term, int, hup   raise() of SIGTERM, SIGINT, SIGHUP
 *   pipe     a write to a pipe whose reader is gone          SIGPIPE (`prog | head`)
 * HANDLER, installed before the first region, so profreport's handler chains to it:
 *   oneshot  an SA_RESETHAND handler that writes "handler ran" on stderr and returns
 *   reset    a handler that writes "handler ran", resets the action to the default and raises
 *            the signal again
 *   ignore   the signal is ignored (with term, int, hup or pipe: the program then exits
 *            with 3)
 *   late     the oneshot handler, installed after the first region: it replaces profreport's
 * or instead of a handler:
 *   altstack the main thread sets an alternate signal stack of its own before the first region,
 *            and says on stderr before it crashes whether it is still its own ("own alternate
 *            stack kept")
 *   busy     the worker goes on recording "spin" regions of 20 us while main crashes
 */
#include <profreport.h>

#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static int recorded, busy;
static char own_stack[64 * 1024];

/* The worker: its regions stay in its buffer while it waits, never to end. */
static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 500; i++) {
        PROFILER_START("w");
        PROFILER_STOP();
    }
    pthread_mutex_lock(&lock);
    recorded = 1;
    pthread_cond_signal(&done);
    pthread_mutex_unlock(&lock);
    while (busy) {
        PROFILER_START("spin");
        usleep(20);
        PROFILER_STOP();
    }
    for (;;)
        pause();
    return NULL;
}

/* The program's own handler: says it ran (write: async-signal-safe). */
static void say(void)
{
    static const char msg[] = "handler ran\n";
    ssize_t n = write(2, msg, sizeof msg - 1);
    (void)n;
}
static void oneshot(int sig)
{
    (void)sig;
    say();
}
static void reset(int sig)
{
    say();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The signal HOW ends the program with. */
static int signal_of(const char *how)
{
    static const struct {
        const char *how;
        int sig;
    } table[] = {{"abort", SIGABRT}, {"assert", SIGABRT},   {"segv", SIGSEGV}, {"fpe", SIGFPE},
                 {"bus", SIGBUS},    {"ill", SIGILL},       {"term", SIGTERM}, {"int", SIGINT},
                 {"hup", SIGHUP},    {"overflow", SIGSEGV}, {"pipe", SIGPIPE}};
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strcmp(how, table[i].how) == 0)
            return table[i].sig;
    return 0;
}

/* Recurse until the stack overflows: each call keeps 1 KiB and adds after its call, so no
   compiler turns it into a loop (the limit is never reached: a compiler cannot know that). */
static volatile int never = -1;
__attribute__((noinline, no_sanitize("address", "undefined"))) static int deep(int n)
{
    volatile char frame[1024];
    frame[0] = (char)n;
    if (n == never)
        return 0;
    return deep(n + 1) + frame[0];
}

/* Crash as HOW says. Not instrumented by the sanitizers, whose checks of a null pointer or a
   division by zero would end the program before the fault does. */
__attribute__((no_sanitize("address", "undefined"))) static void crash(const char *how, int sig)
{
    if (strcmp(how, "abort") == 0)
        abort();
    if (strcmp(how, "assert") == 0)
        assert(how == NULL);
    if (strcmp(how, "segv") == 0)
        *(volatile int *)NULL = 1;
    if (strcmp(how, "fpe") == 0) {
        volatile int one = 1, zero = 0; /* both unknown: 1 / x alone needs no division */
        volatile int x = one / zero;
        (void)x;
    }
    if (strcmp(how, "bus") == 0) {
        char path[] = "/tmp/crash-bus-XXXXXX";
        int fd = mkstemp(path);
        if (fd < 0)
            return;
        unlink(path);
        volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0); /* an empty file */
        if (p == MAP_FAILED)
            return;
        (void)p[0];
    }
    if (strcmp(how, "ill") == 0)
        __builtin_trap();
    if (strcmp(how, "overflow") == 0)
        deep(0);
    if (strcmp(how, "pipe") == 0) {
        int fds[2];
        if (pipe(fds) != 0)
            return;
        close(fds[0]);
        if (write(fds[1], "x", 1) < 0) /* EPIPE: the signal was ignored or handled */
            close(fds[1]);
        return;
    }
    raise(sig);
}

int main(int argc, char **argv)
{
    int sig = argc > 1 ? signal_of(argv[1]) : 0;
    if (!sig) {
        fprintf(stderr, "usage: crash abort|assert|segv|fpe|bus|ill|overflow|term|int|hup "
                        "[oneshot|reset|ignore|late|altstack|busy]\n");
        return 2;
    }
    const char *handler = argc > 2 ? argv[2] : "";
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    if (strcmp(handler, "oneshot") == 0) {
        sa.sa_handler = oneshot;
        sa.sa_flags = SA_RESETHAND;
    } else if (strcmp(handler, "reset") == 0) {
        sa.sa_handler = reset;
    } else if (strcmp(handler, "ignore") == 0) {
        sa.sa_handler = SIG_IGN;
    }
    int late = strcmp(handler, "late") == 0;
    if (late) {
        sa.sa_handler = oneshot;
        sa.sa_flags = SA_RESETHAND;
    }
    busy = strcmp(handler, "busy") == 0;
    int own = strcmp(handler, "altstack") == 0;
    if (own) {
        stack_t ss = {.ss_sp = own_stack, .ss_flags = 0, .ss_size = sizeof own_stack};
        if (sigaltstack(&ss, NULL) != 0)
            return 1;
    } else if (*handler && !late && !busy) {
        sigaction(sig, &sa, NULL);
    }

    PROFILER_START("outer");
    if (late)
        sigaction(sig, &sa, NULL);
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    for (int i = 0; i < 1000; i++) {
        PROFILER_START("k");
        PROFILER_STOP();
    }
    pthread_mutex_lock(&lock);
    while (!recorded)
        pthread_cond_wait(&done, &lock);
    pthread_mutex_unlock(&lock);
    PROFILER_START("sleep");
    usleep(200000);
    PROFILER_STOP();
    if (own) {
        stack_t cur;
        int kept = sigaltstack(NULL, &cur) == 0 && cur.ss_sp == own_stack &&
                   cur.ss_size == sizeof own_stack && !(cur.ss_flags & SS_DISABLE);
        fprintf(stderr, "own alternate stack %s\n", kept ? "kept" : "replaced");
    }
    crash(argv[1], sig);
    return 3; /* the signal was ignored */
}
