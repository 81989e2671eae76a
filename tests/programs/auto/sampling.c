/*
 * sampling.c - an instrumented program whose CPU shares are known from its structure, for
 * sampled timing: one() and three() run the same loop, three() three times as long, sleeper()
 * sleeps without using the CPU, and tiny() is called many times (counted, never worth timing).
 * Usage: sampling shares N       (one(): N iterations, three(): 3N; sleeper: 200 ms)
 *        sampling poll N         (a worker burns CPU while main waits 300 ms in poll():
 *                                 the worker's samples must not interrupt main)
 *        sampling threads N      (4 threads each run one() and three())
 *        sampling contexts N [M] (level(N) recurses N deep, each level calling burn() for
 *                                 M iterations, 60 thousand by default: N calling contexts
 *                                 that run burn())
 *        sampling cancel N       (as late, then a thread spinning in burn() is cancelled, and
 *                                 one ends in pthread_exit inside three())
 *        sampling pending N      (a thread asks for its own cancellation, then runs one() and
 *                                 three() before its pthread_testcancel: the samples taken
 *                                 meanwhile must not be where the request acts)
 *        sampling pending-crash N (the same thread runs one(), then raises SIGSEGV: the
 *                                 process must end with the signal, not lose the thread)
 *        sampling pool N         (8 threads one after another, each caller(N): each takes
 *                                 few of its hooks' samples, together enough)
 *        sampling late N         (main runs one() and three(), then a thread runs them: with
 *                                 the filters leaving them out, its hook calls are patched
 *                                 out before the thread starts)
 *        sampling plain N        (as shares without sleeper(), but one() and three() burn in
 *                                 plain_burn(), compiled without hooks: its samples are its
 *                                 own all the same)
 *        sampling libc N         (as plain, but plain_fill() spends its time in the C
 *                                 library's memset, called from it: that time is its own)
 *        sampling inlined N      (as plain, but one() and three() burn in inl_burn(), which the
 *                                 compiler inlines into them with its hooks: the samples of
 *                                 its copies are one()'s and three()'s, whose code they are;
 *                                 before that each calls inl_step(), which calls inl_leaf(),
 *                                 100 000 times, both inlined too: counted exactly)
 *        sampling inlined-late N (as inlined, but main first calls inl_burn() out of line,
 *                                 through a pointer, then sleeps in sleeper(): with a short
 *                                 PROFILER_FLUSH_INTERVAL its id is written before any copy
 *                                 inlined into one() or three() runs)
 *        sampling pointer N      (as libc, but pointer_fill() calls tail_set() through a
 *                                 pointer, which ends in a jump to memset: that time is
 *                                 pointer_fill()'s, the innermost program frame on the stack)
 *        sampling named N        (as plain, in prof_own_burn(): a program function whose name
 *                                 begins as the collector's is the program's all the same)
 *        sampling calls N        (caller() calls tiny() N times; prints the CPU time that took,
 *                                 in ns: built without hooks, the program's own cost)
 *        sampling waits N        (a thread runs caller(N) while main waits for it in
 *                                 pthread_join: main's wait holds the thread's hooks' cost)
 *        sampling steady N [M]   (steady() calls burn(M) N times, 36000 iterations by
 *                                 default, and pace() after each, a loop of M / 20: calls of
 *                                 about 40 and 2 us, each kind alike, some of which a sample
 *                                 interrupts)
 *        sampling fresh N        (quick() is called N times and calls fresh(), a function
 *                                 not yet called, on its 33rd call: by then quick()'s context
 *                                 proved short and is only counted (a few microseconds after
 *                                 its timed calls, likely with no sample since), and
 *                                 describing fresh() must not make that call look timed)
 *        sampling pingpong N     (main and a thread hand a byte to each other through two
 *                                 pipes N times, each running volley() between: both block
 *                                 and wake thousands of times, each switch dearer with a
 *                                 perf event than the work between two samples)
 * With SAMPLING_OWN_HANDLER=PROF (or PROF,TRAP) the program installs handlers of its own on
 * SIGPROF (and SIGTRAP) before main, so the collector must leave those signals alone.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static __thread volatile unsigned long sink; /* per thread: the workers share no data */
static volatile sig_atomic_t own_signals;

/* The loop both burners run: arithmetic only, no call, so all its time is its caller's. */
static __attribute__((noinline)) void burn(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}

/* The same loop without hooks: a function the compiler was told not to instrument, as gcc's
   exclusion lists leave a header's functions out. */
static __attribute__((noinline, no_instrument_function)) void plain_burn(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}

/* The same again, under a name that begins as the collector's do: a program function all the
   same, whose samples are its own. */
static __attribute__((noinline, no_instrument_function)) void prof_own_burn(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++) /* other constants: never folded into plain_burn */
        x = x * 2862933555777941757ul + 3037000493ul;
    sink = x;
}

/* A buffer memset fills: big enough that the time is the C library's, not the call's. */
static unsigned char fill_buf[1 << 16];
static volatile size_t fill_size = sizeof fill_buf; /* unknown to the compiler: a real call */

/* Without hooks too: n / 2000 fills of the buffer, in the C library. */
static __attribute__((noinline, no_instrument_function)) void plain_fill(unsigned long n)
{
    for (unsigned long i = 0; i < n / 2000; i++)
        memset(fill_buf, (int)i, fill_size);
}

/* Without hooks: fill p by the C library's memset, as a tail call (a jump: no frame of its own
   on the stack under memset's), as Lua's l_alloc ends in realloc. */
static __attribute__((noinline, no_instrument_function)) void *tail_set(void *p, int c, size_t n)
{
    return memset(p, c, n);
}
static void *(*volatile tail_set_ptr)(void *, int, size_t) = tail_set;

/* Without hooks: n / 2000 fills of the buffer through tail_set, called through a pointer (as
   Lua's luaM_malloc_ calls l_alloc): the innermost program frame under memset is this one. */
static __attribute__((noinline, no_instrument_function)) void pointer_fill(unsigned long n)
{
    for (unsigned long i = 0; i < n / 2000; i++)
        tail_set_ptr(fill_buf, (int)i, fill_size);
}

/* The same loop again, always inlined: gcc (and clang without -after-inlining) hooks each
   copy it inlines, and calls the hooks from the code of the function it inlines into. */
static inline __attribute__((always_inline)) void inl_burn(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}

/* Two copies inlined into each other, and into their callers' loops (inlined mode): all of
   their hooks run on the stack pointer of the function they are inlined into. */
static inline __attribute__((always_inline)) void inl_leaf(unsigned long i) { sink += i; }
static inline __attribute__((always_inline)) void inl_step(unsigned long i)
{
    inl_leaf(i);
    sink ^= i;
}

/* one() and three() burn in plain_burn() (1), plain_fill() (2), inl_burn() (3),
   prof_own_burn() (4) or pointer_fill() (5) */
static int plain;

/* A call too short to time: its count must still be exact. */
unsigned long tiny(unsigned long x);
unsigned long caller(unsigned long n);
void one(void);
void three(void);
void sleeper(void);

__attribute__((noinline)) unsigned long tiny(unsigned long x) { return x + 1; }

static unsigned long iterations;

/* The calling thread's CPU time in ns. */
static __attribute__((no_instrument_function)) long long cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* The CPU time one() and three() took on this thread: the shares their samples should have
   (the machine's speed may change between the two calls; printed as `cpu one=N three=N`). */
static __thread long long one_ns, three_ns;

/* Print this thread's one_ns and three_ns when it ran them (without hooks: no row). */
static __attribute__((no_instrument_function)) void print_cpu(void)
{
    if (one_ns || three_ns)
        printf("cpu one=%lld three=%lld\n", one_ns, three_ns);
}

__attribute__((noinline)) void one(void)
{
    long long c0 = cpu_ns();
    if (plain == 3) {
        for (unsigned long i = 0; i < 100000; i++)
            inl_step(i);
        inl_burn(iterations);
    } else if (plain == 4)
        prof_own_burn(iterations);
    else if (plain == 5)
        pointer_fill(iterations);
    else if (plain == 2)
        plain_fill(iterations);
    else if (plain)
        plain_burn(iterations);
    else
        burn(iterations);
    one_ns += cpu_ns() - c0;
}

__attribute__((noinline)) void three(void)
{
    long long c0 = cpu_ns();
    if (plain == 3) {
        for (unsigned long i = 0; i < 100000; i++)
            inl_step(i);
        inl_burn(3 * iterations);
    } else if (plain == 4)
        prof_own_burn(3 * iterations);
    else if (plain == 5)
        pointer_fill(3 * iterations);
    else if (plain == 2)
        plain_fill(3 * iterations);
    else if (plain)
        plain_burn(3 * iterations);
    else
        burn(3 * iterations);
    three_ns += cpu_ns() - c0;
}

/* Sleep 200 ms: wall time, no CPU time. */
__attribute__((noinline)) void sleeper(void)
{
    struct timespec ts = {0, 200000000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

unsigned long fresh(unsigned long x);
unsigned long quick(unsigned long x, unsigned long i);
__attribute__((noinline)) unsigned long fresh(unsigned long x) { return x * 3; }
__attribute__((noinline)) unsigned long quick(unsigned long x, unsigned long i)
{
    return i == 32 ? fresh(x) : x + 1;
}

/* Call tiny() n times: the hooks' cost, and little else. */
__attribute__((noinline)) unsigned long caller(unsigned long n)
{
    unsigned long t = 0;
    for (unsigned long i = 0; i < n; i++)
        t = tiny(t);
    return t;
}

/* A level of `contexts` mode: its own calling context, and burn() called from it. */
static unsigned long level_iterations = 60000;
void level(unsigned long k);
__attribute__((noinline)) void level(unsigned long k)
{
    burn(level_iterations);
    if (k > 1)
        level(k - 1);
    sink++; /* after the call: not a tail call */
}

/* `cancel` mode: burn() until cancelled. */
static void *spinner(void *arg)
{
    (void)arg;
    for (;;) {
        burn(100000);
        pthread_testcancel();
    }
    return NULL;
}

/* `pending` and `pending-crash` modes: work with a cancellation request pending; reached
   when the work was done. */
static volatile int reached;
static void *pending(void *arg)
{
    pthread_cancel(pthread_self()); /* deferred: acts at the next cancellation point */
    one();
    if (arg) {
        raise(SIGSEGV);
        return NULL;
    }
    three();
    reached = 1;
    pthread_testcancel();
    return NULL;
}

/* `cancel` mode: one() and three(), then pthread_exit from inside a call. */
void exits(void);
__attribute__((noinline)) void exits(void)
{
    three();
    pthread_exit(NULL);
}
static void *exiter(void *arg)
{
    (void)arg;
    one();
    exits();
    return NULL;
}

/* A worker of `threads` mode and of `poll` mode. */
static void *worker(void *arg)
{
    (void)arg;
    one();
    three();
    print_cpu();
    return NULL;
}

/* pingpong mode: the pipes main writes to (ping) and the thread answers on (pong). */
static int ping[2], pong[2];

/* A volley's work: 3 000 iterations of the loop, a few us. */
static __attribute__((noinline)) void volley(void) { burn(3000); }

/* Receive a byte on fd, then run a volley and send it on out: n times. */
static void rally(int in, int out, unsigned long n)
{
    char c = 0;
    for (unsigned long i = 0; i < n; i++) {
        if (read(in, &c, 1) != 1)
            abort();
        volley();
        if (write(out, &c, 1) != 1)
            abort();
    }
}

/* The thread of pingpong mode. */
static void *returner(void *arg)
{
    (void)arg;
    rally(ping[0], pong[1], iterations);
    return NULL;
}

/* steady mode's short calls: burn's loop, inline. */
static __attribute__((noinline)) void pace(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}

/* steady mode: n calls of burn(m) and of pace(m / 20), each kind alike. */
static __attribute__((noinline)) void steady(unsigned long n, unsigned long m)
{
    for (unsigned long i = 0; i < n; i++) {
        burn(m);
        pace(m / 20);
    }
}

/* The thread of `waits` mode: caller(iterations). */
static void *calls_worker(void *arg)
{
    (void)arg;
    return (void *)caller(iterations);
}

/* The threads of `pool` mode, one after another: each caller(iterations). */
static void *pool_worker(void *arg)
{
    (void)arg;
    return (void *)caller(iterations);
}

/* The program's own SIGPROF handler (SAMPLING_OWN_HANDLER). */
static void __attribute__((no_instrument_function)) own_handler(int sig)
{
    (void)sig;
    own_signals++;
}

/* Before main: take SIGPROF (and SIGTRAP) when asked to. */
static void __attribute__((constructor, no_instrument_function)) take_signals(void)
{
    const char *v = getenv("SAMPLING_OWN_HANDLER");
    if (!v)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = own_handler;
    sigaction(SIGPROF, &sa, NULL);
    if (strstr(v, "TRAP"))
        sigaction(SIGTRAP, &sa, NULL);
}

/* The value of plain for a mode whose one() and three() burn elsewhere than in burn(); 0 for
   the other modes. Without hooks: no path of its own in the runs. */
static __attribute__((no_instrument_function)) int burner_of(const char *mode)
{
    static const char *const modes[] = {"plain", "libc", "inlined", "named", "pointer"};
    for (int i = 0; i < 5; i++)
        if (strcmp(mode, modes[i]) == 0)
            return i + 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "shares";
    iterations = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000000;
    unsigned long t = 0;
    for (int i = 0; i < 100000; i++)
        t = tiny(t);
    if (strcmp(mode, "shares") == 0) {
        one();
        three();
        sleeper();
    } else if ((plain = burner_of(mode)) != 0) {
        one();
        three();
    } else if (strcmp(mode, "inlined-late") == 0) {
        void (*volatile out_of_line)(unsigned long) = inl_burn;
        out_of_line(1000);
        sleeper();
        plain = burner_of("inlined");
        one();
        three();
    } else if (strcmp(mode, "steady") == 0) {
        steady(iterations, argc > 3 ? strtoul(argv[3], NULL, 10) : 36000);
    } else if (strcmp(mode, "fresh") == 0) {
        for (unsigned long i = 0; i < iterations; i++)
            t = quick(t, i);
    } else if (strcmp(mode, "calls") == 0) {
        long long c0 = cpu_ns();
        t += caller(iterations);
        printf("cpu_ns=%lld\n", cpu_ns() - c0);
    } else if (strcmp(mode, "waits") == 0) {
        pthread_t w;
        void *res = NULL;
        pthread_create(&w, NULL, calls_worker, NULL);
        pthread_join(w, &res);
        t += (unsigned long)res;
    } else if (strcmp(mode, "poll") == 0) {
        pthread_t w;
        pthread_create(&w, NULL, worker, NULL);
        /* 300 ms with nothing to wait for: interrupted only by a signal sent to this thread. */
        int r = poll(NULL, 0, 300);
        pthread_join(w, NULL);
        if (r != 0) {
            fprintf(stderr, "poll returned %d: %s\n", r, strerror(errno));
            return 1;
        }
    } else if (strcmp(mode, "contexts") == 0) {
        if (argc > 3)
            level_iterations = strtoul(argv[3], NULL, 10);
        level(iterations);
    } else if (strcmp(mode, "cancel") == 0) {
        worker(NULL);
        pthread_t w;
        void *res = NULL;
        pthread_create(&w, NULL, spinner, NULL);
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
        pthread_cancel(w);
        pthread_join(w, &res);
        if (res != PTHREAD_CANCELED)
            return 2;
        pthread_create(&w, NULL, exiter, NULL);
        pthread_join(w, NULL);
    } else if (strncmp(mode, "pending", 7) == 0) {
        int crash = strcmp(mode, "pending-crash") == 0;
        pthread_t w;
        void *res = NULL;
        pthread_create(&w, NULL, pending, crash ? &w : NULL);
        pthread_join(w, &res);
        if (crash) {
            fprintf(stderr, "the thread was cancelled where it crashed\n");
            return 4;
        }
        if (res != PTHREAD_CANCELED || !reached) {
            fprintf(stderr, "the thread %s\n",
                    reached ? "was not cancelled" : "was cancelled before its own point");
            return 3;
        }
    } else if (strcmp(mode, "pingpong") == 0) {
        pthread_t w;
        if (pipe(ping) != 0 || pipe(pong) != 0)
            return 5;
        pthread_create(&w, NULL, returner, NULL);
        char c = 0;
        if (write(ping[1], &c, 1) != 1) /* the serve */
            return 5;
        rally(pong[0], ping[1], iterations - 1);
        if (read(pong[0], &c, 1) != 1)
            return 5;
        pthread_join(w, NULL);
    } else if (strcmp(mode, "pool") == 0) {
        for (int i = 0; i < 8; i++) {
            pthread_t w;
            void *res = NULL;
            pthread_create(&w, NULL, pool_worker, NULL);
            pthread_join(w, &res);
            t += (unsigned long)res;
        }
    } else if (strcmp(mode, "late") == 0) {
        worker(NULL);
        pthread_t w;
        pthread_create(&w, NULL, worker, NULL);
        pthread_join(w, NULL);
    } else {
        pthread_t w[4];
        for (int i = 0; i < 4; i++)
            pthread_create(&w[i], NULL, worker, NULL);
        for (int i = 0; i < 4; i++)
            pthread_join(w[i], NULL);
    }
    printf("%lu %lu\n", t, (unsigned long)own_signals);
    print_cpu();
    return 0;
}
