/*
 * patch.c - taking the function hooks out of the calls of functions the filters leave out
 * (patch.h): the call instruction is checked, then overwritten with a no-op of its length.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "patch.h"

#include "status.h"
#include "thread.h"

#include <fcntl.h>
#include <link.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One patcher at a time (an atomic flag: a thread that finds it taken leaves its call as it is,
   and patches it at a later call); its holder holds its signals; fork waits for it. */
static int taken;
static pthread_once_t once = PTHREAD_ONCE_INIT;
/* -1 off (PROFILER_PATCH=0, or not x86), 1 with membarrier's SYNC_CORE, 0 without it. */
static int mode;
static uintptr_t tried[PROF_PATCH_TRIED];    /* open addressing by call instruction, 0: free */
static unsigned char made[PROF_PATCH_TRIED]; /* 1: that one is a no-op now */
static unsigned ntried, patched;
/* Calls counted of each hook call seen while recording is off (prof_patch_call_hot): open
   addressing by call instruction, 0: free. */
static uintptr_t hot_key[PROF_PATCH_TRIED];
static unsigned hot_calls[PROF_PATCH_TRIED];

/* Take the flag; 0 if another patcher holds it. */
static int take(void) { return !__atomic_exchange_n(&taken, 1, __ATOMIC_ACQUIRE); }
static void give(void) { __atomic_store_n(&taken, 0, __ATOMIC_RELEASE); }

/* fork: a child copied in the middle of a patch would spin at its `jmp .` forever. */
static void fork_prepare(void)
{
    while (!take())
        sched_yield();
}

static void setup(void)
{
#if defined(__x86_64__)
    const char *v = prof_getenv("PROFILER_PATCH");
    if (v && strcmp(v, "0") == 0) {
        mode = -1;
        return;
    }
    mode = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0;
    pthread_atfork(fork_prepare, give, give);
#else
    mode = -1;
#endif
}

#if defined(__x86_64__)

/* A loaded segment: the one holding [lo, lo + len) with the flags asked for, or none. */
struct segment {
    uintptr_t lo, len, start, end;
    unsigned flags, found;
};

/* dl_iterate_phdr callback: the PT_LOAD segment of s's range with s's flags. */
static int find_segment(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct segment *s = data;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
        if (ph->p_type == PT_LOAD && s->lo >= start && s->lo + s->len <= end) {
            if ((ph->p_flags & s->flags) != s->flags)
                return 1; /* it is there, but not with those rights */
            s->start = start;
            s->end = end;
            s->found = ph->p_flags;
            return 1;
        }
    }
    return 0;
}

/* The flags of the loaded segment holding [lo, lo + len) if it has flags, else 0. */
static unsigned segment(uintptr_t lo, uintptr_t len, unsigned flags, struct segment *s)
{
    *s = (struct segment){.lo = lo, .len = len, .flags = flags};
    dl_iterate_phdr(find_segment, s);
    return s->found;
}

static int32_t rel32(uintptr_t p)
{
    int32_t v;
    memcpy(&v, (const void *)p, sizeof v);
    return v;
}

/* Whether the pointer-sized word at slot, in a readable loaded segment, holds hook. */
static int slot_holds(uintptr_t slot, const void *hook)
{
    struct segment s;
    if (!segment(slot, sizeof(uintptr_t), PF_R, &s))
        return 0;
    uintptr_t v;
    memcpy(&v, (const void *)slot, sizeof v);
    return v == (uintptr_t)hook;
}

/* Whether a direct call to target reaches hook: it is hook, or a PLT stub (`jmp *slot(%rip)`,
   after `endbr64` and a `bnd` prefix when the stub has them) whose GOT slot holds hook. */
static int reaches(uintptr_t target, const void *hook)
{
    if (target == (uintptr_t)hook)
        return 1;
    struct segment s;
    if (!segment(target, 16, PF_R | PF_X, &s))
        return 0;
    const unsigned char *p = (const unsigned char *)target;
    if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
        p += 4;
    if (p[0] == 0xf2)
        p++;
    if (p[0] != 0xff || p[1] != 0x25)
        return 0;
    uintptr_t next = (uintptr_t)p + 6;
    return slot_holds(next + (uintptr_t)(intptr_t)rel32((uintptr_t)p + 2), hook);
}

/* Whether the process has one thread (/proc/self/stat's num_threads, the 20th field). */
static int alone(void)
{
    char buf[1024];
    struct prof_host host = prof_host_hold();
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    prof_host_release(host);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* after the command's name, which may hold spaces */
    for (int field = 2; p && field < 20; field++)
        p = strchr(p + 1, ' ');
    return p && strtol(p + 1, NULL, 10) == 1;
}

static void sync_cores(void)
{
    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}

/* The stores into code are moves of their own, which no sanitizer instruments: ThreadSanitizer
   keeps no shadow for code, and a store it checked there crashed it. */
static void store1(uintptr_t at, unsigned char b)
{
    __asm__ volatile("movb %b1, %0" : "=m"(*(unsigned char *)at) : "q"(b) : "memory");
}

/* Two bytes stored at once: one move (x86 keeps a 16-bit store within a cache line whole). */
static void store2(uintptr_t at, const unsigned char b[2])
{
    uint16_t v;
    memcpy(&v, b, sizeof v);
    __asm__ volatile("movw %w1, %0" : "=m"(*(unsigned char(*)[2])at) : "r"(v) : "memory");
}

/*
 * Overwrite the len bytes at site, in the loaded segment s, with code, while other threads
 * may run them: `jmp .` first, so that a thread arriving waits, then the rest, then the first
 * two bytes, every thread serializing in between (the SYNC_CORE barrier). 0 when the pages
 * cannot be made writable.
 */
static int overwrite(uintptr_t site, const unsigned char *code, size_t len, const struct segment *s,
                     int others)
{
    static const unsigned char spin[2] = {0xeb, 0xfe};
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = site & ~(page - 1), hi = (site + len + page - 1) & ~(page - 1);
    int back = (s->found & PF_R ? PROT_READ : 0) | (s->found & PF_W ? PROT_WRITE : 0) | PROT_EXEC;
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        return 0;
    if (others) {
        store2(site, spin);
        sync_cores();
        for (size_t i = 2; i < len; i++)
            store1(site + i, code[i]);
        sync_cores();
        store2(site, code);
        sync_cores();
    } else {
        for (size_t i = 0; i < len; i++)
            store1(site + i, code[i]);
    }
    mprotect((void *)lo, hi - lo, back);
    return 1;
}

/* The no-ops of 5 and 6 bytes (nopl 0(%rax,%rax,1), with an operand-size prefix for 6). */
static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
static const unsigned char nop6[6] = {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00};

/* Whether the bytes that end at ret are one of the no-ops a patch writes. */
static int is_nop(uintptr_t ret)
{
    return memcmp((const void *)(ret - 5), nop5, 5) == 0 ||
           memcmp((const void *)(ret - 6), nop6, 6) == 0;
}

/* Patch the call of hook that returns to ret, if it is one: 1 done, 0 not. Flag held. */
static int patch(uintptr_t ret, const void *hook)
{
    struct segment s;
    if (!segment(ret - 6, 6, PF_R | PF_X, &s))
        return 0;
    const unsigned char *r = (const unsigned char *)ret;
    const unsigned char *code;
    size_t len;
    if (r[-5] == 0xe8 && reaches(ret + (uintptr_t)(intptr_t)rel32(ret - 4), hook)) {
        code = nop5; /* call rel32: direct, or through the PLT */
        len = 5;
    } else if (r[-6] == 0xff && r[-5] == 0x15 &&
               slot_holds(ret + (uintptr_t)(intptr_t)rel32(ret - 4), hook)) {
        code = nop6; /* call *slot(%rip): -fno-plt */
        len = 6;
    } else {
        return 0;
    }
    uintptr_t site = ret - len;
    /* The first two bytes are stored at once: not across a cache line. */
    int others = mode == 1 || !alone();
    if (others && (mode != 1 || (site & 63) == 63))
        return 0;
    return overwrite(site, code, len, &s, others); /* signals held (prof_patch_call) */
}

#else

static int patch(uintptr_t ret, const void *hook)
{
    (void)ret;
    (void)hook;
    return 0;
}

static int is_nop(uintptr_t ret)
{
    (void)ret;
    return 0;
}

#endif

/* The first slot to look at for ret in a table of PROF_PATCH_TRIED. */
static size_t hash_of(uintptr_t ret)
{
    return (size_t)((ret * 0x9E3779B97F4A7C15ull) >> 40) & (PROF_PATCH_TRIED - 1);
}

/* The slot of ret in the table of calls tried, or the free slot where it would go. Without the
   flag, a reader may miss an entry being added (and then takes the flag to look again). */
static size_t slot_of(uintptr_t ret)
{
    size_t h = hash_of(ret);
    for (uintptr_t v; (v = __atomic_load_n(&tried[h], __ATOMIC_ACQUIRE)) && v != ret;)
        h = (h + 1) & (PROF_PATCH_TRIED - 1);
    return h;
}

/* Whether the call tried at slot h is a no-op now: patched, and not put back since (a
   debugger's breakpoint restores the bytes it replaced). */
static int still_patched(size_t h, uintptr_t ret)
{
    return __atomic_load_n(&made[h], __ATOMIC_RELAXED) && is_nop(ret);
}

/* The ticks (prof_ticks) this thread has spent patching (prof_patch_ticks). */
static __thread uint64_t spent __attribute__((tls_model("initial-exec")));

uint64_t prof_patch_ticks(void) { return spent; }

/* prof_patch_call's work. */
static int patch_call(uintptr_t ret, const void *hook)
{
    pthread_once(&once, setup);
    if (mode < 0 || !ret)
        return 0;
    /* A call tried before (a patch refused, or a thread that was inside the call as it
       changed): answered without the flag or a system call. */
    size_t h = slot_of(ret);
    if (__atomic_load_n(&tried[h], __ATOMIC_ACQUIRE))
        return still_patched(h, ret);
    /* The collector's slow path from here on: a sample taken in it (delivered when the
       signals come back) is its overhead, and its time is no call's (prof_patch_ticks). */
    prof_busy_begin();
    uint64_t t0 = prof_ticks();
    /* The thread's signals are held while it holds the flag: a handler of this thread that
       forked would wait for the flag forever (fork_prepare), and one that reached the hooks
       must not run the bytes being changed. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int done = 0;
    if (take()) {
        h = slot_of(ret);
        if (__atomic_load_n(&tried[h], __ATOMIC_RELAXED)) {
            done = still_patched(h, ret);
        } else if (ntried + 1 < PROF_PATCH_TRIED) { /* one slot stays free: the probe ends */
            done = patch(ret, hook);
            __atomic_store_n(&made[h], (unsigned char)done, __ATOMIC_RELAXED);
            __atomic_store_n(&tried[h], ret, __ATOMIC_RELEASE); /* after its verdict */
            ntried++;
            if (done)
                __atomic_store_n(&patched, patched + 1, __ATOMIC_RELAXED);
        }
        give();
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    uint64_t t1 = prof_ticks();
    spent += t1 > t0 ? t1 - t0 : 0;
    prof_busy_end();
    return done;
}

int prof_patch_call(uintptr_t ret, const void *hook)
{
    int err = errno; /* membarrier's and mprotect's refusals are not the program's */
    int done = patch_call(ret, hook);
    errno = err;
    return done;
}

int prof_patch_call_hot(uintptr_t ret, const void *hook)
{
    size_t h = hash_of(ret);
    for (unsigned probe = 0; probe < 64; probe++, h = (h + 1) & (PROF_PATCH_TRIED - 1)) {
        uintptr_t key = __atomic_load_n(&hot_key[h], __ATOMIC_RELAXED);
        if (key == 0 &&
            !__atomic_compare_exchange_n(&hot_key[h], &key, ret, 0, __ATOMIC_RELAXED,
                                         __ATOMIC_RELAXED) &&
            key != ret)
            continue; /* another thread took the slot for another call */
        if (key != 0 && key != ret)
            continue;
        /* racing threads may lose a count: the patch only comes a call or two later */
        unsigned n = __atomic_load_n(&hot_calls[h], __ATOMIC_RELAXED) + 1;
        __atomic_store_n(&hot_calls[h], n, __ATOMIC_RELAXED);
        return n >= PROF_PATCH_HOT_CALLS && prof_patch_call(ret, hook);
    }
    return prof_patch_call(ret, hook); /* no room to count it: patched at once */
}

unsigned prof_patch_count(void) { return __atomic_load_n(&patched, __ATOMIC_RELAXED); }

void prof_patch_forget(void)
{
    while (!take())
        sched_yield();
    for (size_t i = 0; i < PROF_PATCH_TRIED; i++) { /* readers look without the flag */
        __atomic_store_n(&tried[i], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&made[i], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&hot_key[i], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&hot_calls[i], 0, __ATOMIC_RELAXED);
    }
    ntried = 0;
    give();
}
