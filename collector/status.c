/*
 * status.c - whether this process records: the generations every event checks, the thread's
 * busy and quiet marks and its dropped events, failing quietly with one warning, which process
 * the state belongs to, and the environment as a process with changed credentials may read it.
 */
#define _GNU_SOURCE /* secure_getenv, MADV_WIPEONFORK */
#include "status.h"

#include "fileutil.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

unsigned prof_gen = 1;
unsigned prof_mod_gen = 1;
unsigned prof_inlined_gen;

/* Nonzero while a slow path of the collector runs on this thread (status.h). */
__thread unsigned prof_busy __attribute__((tls_model("initial-exec")));
/* Nonzero while the collector's own allocations run on this thread (status.h). */
__thread unsigned prof_mem_quiet __attribute__((tls_model("initial-exec")));
/* Events this thread dropped because they came while the collector ran on it. Thread-local, so
   it counts from a signal handler even before the thread has a recorder. */
static __thread uint64_t dropped_events __attribute__((tls_model("initial-exec")));

/* Atomics: set by any thread, read by every slow path. */
static int failed, stopped, warned;

/* Count one event dropped because the collector was busy on this thread. */
__attribute__((noinline, cold)) void prof_dropped_event(void)
{
    /* One instruction on x86-64: a nested handler cannot tear it. Read by other threads. */
    __atomic_add_fetch(&dropped_events, 1, __ATOMIC_RELAXED);
}

/* The calling thread's dropped-event counter, for its recorder to report. */
const uint64_t *prof_dropped_counter(void) { return &dropped_events; }

/* One line on stderr with one write(), so lines from threads do not interleave. */
void prof_warn(const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "profreport: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        return;
    n += m;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    prof_write_stderr(line, (size_t)n);
}

/* Stop all profiling in this process after an error; the first failure is reported. */
void prof_fail(const char *what, const char *path, int err)
{
    __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&stopped, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&prof_gen, 1, __ATOMIC_RELEASE);
    if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        return;
    if (path)
        prof_warn("%s '%s': %s; profiling is off for the rest of this run", what, path,
                  prof_errno_text(err));
    else
        prof_warn("%s: %s; profiling is off for the rest of this run", what, prof_errno_text(err));
}

/* Whether a failure stopped profiling. */
int prof_failed(void) { return __atomic_load_n(&failed, __ATOMIC_RELAXED); }

/* Whether profiling stopped, by prof_finish or a failure. */
int prof_stopped(void) { return __atomic_load_n(&stopped, __ATOMIC_RELAXED); }

/* Stop profiling without a failure (prof_finish). */
void prof_stop_all(void) { __atomic_store_n(&stopped, 1, __ATOMIC_RELAXED); }

/* A run begins: clear the failure, the stop and the warning. */
void prof_status_restart(void)
{
    __atomic_store_n(&failed, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&warned, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stopped, 0, __ATOMIC_RELAXED);
}

/*
 * The process this image's collector state belongs to. fork() tells the collector through its
 * pthread_atfork handler (prof_process_forked); _Fork() and a raw clone() do not, so the slow
 * paths compare the pid. A child that got a copy of memory (fork without the handlers) is told
 * from one that shares its parent's (vfork, CLONE_VM) by a page the kernel empties in the
 * former (MADV_WIPEONFORK): zero there, still the parent's pid in the latter.
 */
static pid_t known_pid;   /* atomic */
static pid_t *image_page; /* NULL when the kernel cannot wipe it */
static int process_lock;  /* spin lock: the checks are rare, and must not allocate */
static void (*on_new_process)(void);

/* Take and release the spin lock. */
static void process_lock_take(void)
{
    while (__atomic_exchange_n(&process_lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}
static void process_lock_drop(void) { __atomic_store_n(&process_lock, 0, __ATOMIC_RELEASE); }

/* Note the current process, in memory and in the page (process lock held). */
static void process_note(pid_t pid)
{
    if (!image_page) {
        void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED && madvise(p, (size_t)sysconf(_SC_PAGESIZE), MADV_WIPEONFORK) == 0)
            image_page = p;
        else if (p != MAP_FAILED)
            munmap(p, (size_t)sysconf(_SC_PAGESIZE));
    }
    if (image_page)
        *image_page = pid;
    __atomic_store_n(&known_pid, pid, __ATOMIC_RELEASE);
}

/* At load: the process the state belongs to, and what to do in a child found late. */
void prof_process_setup(void (*new_process)(void))
{
    process_lock_take();
    on_new_process = new_process;
    if (!__atomic_load_n(&known_pid, __ATOMIC_ACQUIRE))
        process_note(getpid());
    process_lock_drop();
}

/* fork's child handler: the state is this process's now (async-signal-safe). */
void prof_process_forked(void)
{
    process_lock = 0; /* the parent's other threads are gone, with any hold they had */
    if (image_page)
        *image_page = getpid();
    __atomic_store_n(&known_pid, getpid(), __ATOMIC_RELEASE);
}

/* Which process calls: the state's, a child made without fork's handlers (handled now, as
   fork's child handler would have), or a child sharing the parent's memory. */
int prof_process_check(void)
{
    pid_t now = getpid();
    if (__atomic_load_n(&known_pid, __ATOMIC_ACQUIRE) == now)
        return PROF_PROCESS_SAME;
    process_lock_take();
    int r = PROF_PROCESS_SAME;
    pid_t known = __atomic_load_n(&known_pid, __ATOMIC_ACQUIRE);
    if (known == 0) {
        process_note(now);
    } else if (known != now) {
        if (image_page && *image_page == 0) {
            if (on_new_process)
                on_new_process();
            process_note(now);
            r = PROF_PROCESS_FORKED;
        } else {
            r = PROF_PROCESS_SHARED; /* changes nothing: the memory is the parent's */
        }
    }
    process_lock_drop();
    return r;
}

/* Whether the program runs with credentials it did not start with (setuid, setgid, file
   capabilities): the kernel's AT_SECURE, which glibc's secure_getenv follows too. */
int prof_secure(void) { return getauxval(AT_SECURE) != 0; }

/* A PROFILER_* variable: NULL in a secure process. */
const char *prof_getenv(const char *name) { return secure_getenv(name); }
