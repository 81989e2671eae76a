/*
 * memcheck.c - memory checks at run time: allocations and frees reported by the PROFILER_MEM_
 * macros, <profreport_new.hpp> or libprofreport-malloc.so go into a sharded table of blocks;
 * findings are counted for the run, and each thread counts the bytes it allocates per region.
 *
 * This code runs inside malloc and free of the host program: it saves errno, takes one lock per
 * operation (the block table's shard), and while it works it sets prof_mem_quiet so that the
 * allocations of the collector (and of the libc functions it calls) are not tracked.
 */
#define _GNU_SOURCE /* dladdr1 */
#include "memcheck.h"

#include "assemble.h"
#include "format.h"
#include "hooks.h"
#include "partwrite.h"
#include "program.h"
#include "memtab.h"
#include "run.h"
#include "status.h"
#include "thread.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* 32 shards: fork holds every shard's lock with the run's (see register_fork), and
   ThreadSanitizer follows at most 64 locks held by one thread. */
#define SHARD_BITS 5
#define SHARDS (1 << SHARD_BITS)

/* Allocations and bytes of one region on one thread. */
struct prof_memcount {
    uint64_t count, bytes;
};

/* A thread's allocations per id index, and outside regions (t->mem, owned here): written by
   the owner (relaxed atomics), grown under t->lock, read at the thread's end under it. One
   block, the counters inline: a count is one load away from the recorder, as when they were
   the recorder's own fields. */
struct prof_mem_counts {
    uint32_t cap;
    struct prof_memcount none;
    struct prof_memcount region[];
};

/* What a thread keeps about itself: its kernel id, and its number once its recorder is gone. */
static __thread struct {
    pid_t tid;
    int exiting; /* the pthread key destructor freed its recorder */
    uint32_t number;
    unsigned gen;
} me __attribute__((tls_model("initial-exec")));

/* The table of blocks, split by pointer so that threads seldom wait for each other. Aligned to
   a cache line each, so two shards' locks never share one. */
static struct shard {
    pthread_mutex_t lock;
    struct prof_memtab tab;
} __attribute__((aligned(64)))
shards[SHARDS] = {[0 ... SHARDS - 1] = {PTHREAD_MUTEX_INITIALIZER, {NULL, 0, 0}}};

/* The run's findings (leaks are added at its end). */
static pthread_mutex_t find_lock = PTHREAD_MUTEX_INITIALIZER;
static struct prof_memfind_map findings;
/* Which run a block belongs to: only the current run's live blocks are its leaks. */
static uint32_t run_serial = 1;
static int warned_nomem;

/* Return addresses kept per allocation (PROFILER_MEM_STACK, read at load; 0: the site only). */
#define MEM_STACK_DEFAULT 4
static uint32_t stack_depth = MEM_STACK_DEFAULT;
/* Frames of our own above the allocator's caller in a backtrace (stack_take, mem_alloc,
   prof_mem_alloc_at, the wrapper), with room to spare: the caller is found by its address. */
#define MEM_STACK_OWN 5
/* Names for the sites at the run's end (prof_mem_set_symbolizer); NULL: dladdr's only. */
static prof_mem_symbolizer symbolizer;

/* The shard of a pointer. */
static struct shard *shard_of(uintptr_t p)
{
    uint64_t h = (uint64_t)p * 0x9E3779B97F4A7C15ull;
    return &shards[h >> (64 - SHARD_BITS)];
}

/* Fork: hold every lock so the child's copy of the table is consistent. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&find_lock);
    for (int i = 0; i < SHARDS; i++)
        pthread_mutex_lock(&shards[i].lock);
}

static void fork_parent(void)
{
    for (int i = SHARDS - 1; i >= 0; i--)
        pthread_mutex_unlock(&shards[i].lock);
    pthread_mutex_unlock(&find_lock);
}

/* The child keeps the parent's blocks (it may free them) but starts a run of its own. */
static void fork_child(void)
{
    /* This thread holds the locks (fork_prepare): given back, as in the parent. Made anew
       instead, ThreadSanitizer took them as held for the child's life, and every lock the child
       took after as ordered after them. */
    fork_parent();
    prof_memfind_release(&findings); /* munmap: async-signal-safe */
    __atomic_add_fetch(&run_serial, 1, __ATOMIC_RELAXED);
}

static const struct prof_hooks hooks;

/*
 * The fork handlers are registered at load, before run.c registers its own (a constructor with a
 * priority runs before those without one): prepare handlers run in the reverse order of
 * registration, so fork takes the run's lock first and the memory table's locks after it, the order
 * prof_finish takes them in. Registered lazily at the first memory operation, they ran first, and a
 * fork racing with prof_finish deadlocked. Locking the 33 free locks costs about a microsecond per
 * fork, against the fork's own hundred or more.
 */
__attribute__((constructor(101))) static void register_fork(void)
{
    const char *v = prof_getenv("PROFILER_MEM_STACK");
    if (v && *v) {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (*end || *v < '0' || *v > '9')
            prof_warn("PROFILER_MEM_STACK='%s' is not a count; using %d", v, MEM_STACK_DEFAULT);
        else
            stack_depth = n < PROF_MEM_STACK_MAX ? (uint32_t)n : PROF_MEM_STACK_MAX;
    }
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    prof_hooks_add(&hooks); /* the recorder and the run reach the memory checks through these */
}

/* Out of memory for the table: say so once; the checks go on with what they have. */
static void nomem(void)
{
    if (!__atomic_exchange_n(&warned_nomem, 1, __ATOMIC_RELAXED))
        prof_warn("memory checks: out of memory for the table of blocks; some blocks are not "
                  "tracked");
}

/*
 * Describe the calling thread's operation. Returns 0 when memory checks are off (PROFILER_ENABLE
 * =0); *tp is the recorder when the run records, else NULL (the table is still kept, so a double
 * free is still refused, but nothing is reported). Called with prof_mem_quiet set.
 */
static int op_begin(struct prof_mem_op *op, struct prof_site site, int kind,
                    struct prof_thread **tp)
{
    struct prof_thread *t = prof_thread_self();
    if (!t || t->gen != PROF_LOAD(prof_gen)) {
        t = me.exiting ? NULL : prof_attach();
        if (!t && !me.exiting && prof_disabled())
            return 0;
    }
    if (!me.tid)
        me.tid = (pid_t)syscall(SYS_gettid);
    memset(op, 0, sizeof *op);
    op->site = site;
    op->tid = me.tid;
    op->kind = kind;
    if (t) {
        op->thread = t->number;
        uint32_t d = t->depth;
        if (d > t->stack_cap)
            d = t->stack_cap;
        if (d)
            op->region = t->stack[d - 1].id;
    } else if (me.exiting && me.gen == PROF_LOAD(prof_gen)) {
        op->thread = me.number;
    }
    op->run = op->thread ? __atomic_load_n(&run_serial, __ATOMIC_RELAXED) : 0;
    *tp = t;
    return 1;
}

/*
 * The allocation's stack, from its caller outwards: a backtrace, in which the caller is found by
 * its return address (the frames above it are ours). Called with prof_mem_quiet set, so that
 * what backtrace allocates at its first call is not tracked.
 */
static __attribute__((noinline)) void stack_take(struct prof_mem_op *op)
{
    void *pc[PROF_MEM_STACK_MAX + MEM_STACK_OWN];
    int n = backtrace(pc, (int)stack_depth + MEM_STACK_OWN);
    for (int i = 0; i < n; i++) {
        if ((uintptr_t)pc[i] != op->site.v)
            continue;
        uint32_t k = 0;
        while (k < stack_depth && i + (int)k < n) {
            op->stack.pc[k] = (uintptr_t)pc[i + (int)k];
            k++;
        }
        op->stack.n = k;
        return;
    }
    /* The caller is not in the walk (a frame without unwind data): its address alone. */
    op->stack.pc[0] = op->site.v;
    op->stack.n = 1;
}

/* Name sites through fn; warm the stack walk up. */
void prof_mem_set_symbolizer(prof_mem_symbolizer fn)
{
    void *pc[2];
    prof_mem_quiet_begin();
    backtrace(pc, 2);
    prof_mem_quiet_end();
    __atomic_store_n(&symbolizer, fn, __ATOMIC_RELEASE);
}

/* Room for the counters of index idx (owner thread; under t->lock, which the reader takes).
   The first call makes the thread's counters. */
static int mem_grow(struct prof_thread *t, uint32_t idx)
{
    pthread_mutex_lock(&t->lock);
    struct prof_mem_counts *mc = t->mem;
    uint32_t old = mc ? mc->cap : 0, cap = old;
    if (idx != UINT32_MAX)
        cap = t->ids_cap > idx ? t->ids_cap : idx + 1;
    if (!mc || cap > old) {
        mc = realloc(mc, sizeof *mc + cap * sizeof mc->region[0]);
        if (mc) {
            if (!t->mem)
                memset(mc, 0, sizeof *mc);
            memset(mc->region + old, 0, (cap - old) * sizeof mc->region[0]);
            mc->cap = cap;
            t->mem = mc;
        }
    }
    pthread_mutex_unlock(&t->lock);
    return mc ? 0 : -1;
}

/* Count size bytes in the innermost open region of the recording thread. */
static void count_region(struct prof_thread *t, uint64_t size)
{
    uint32_t d = t->depth;
    if (d > t->stack_cap)
        d = t->stack_cap;
    uint32_t idx = d ? t->stack[d - 1].idx : UINT32_MAX;
    struct prof_mem_counts *mc = t->mem;
    if (!mc || (idx != UINT32_MAX && idx >= mc->cap)) {
        if (mem_grow(t, idx) != 0)
            return;
        mc = t->mem;
    }
    struct prof_memcount *c = idx == UINT32_MAX ? &mc->none : &mc->region[idx];
    PROF_STORE(c->count, c->count + 1);
    PROF_STORE(c->bytes, c->bytes + size);
}

/* Enter a block in its shard's table and count it in the thread's innermost region. */
static void enter_block(uintptr_t p, uint64_t size, const struct prof_mem_op *op,
                        struct prof_thread *t)
{
    struct shard *s = shard_of(p);
    pthread_mutex_lock(&s->lock);
    int err = prof_memtab_alloc(&s->tab, p, size, op);
    pthread_mutex_unlock(&s->lock);
    if (err)
        nomem();
    if (t)
        count_region(t, size);
}

/* Count what a free found, when the run records. */
static void add_findings(const struct prof_mem_find *f, const uint64_t *bytes, int n)
{
    if (n == 0 || f[0].thread == 0)
        return;
    pthread_mutex_lock(&find_lock);
    for (int i = 0; i < n; i++)
        if (prof_memfind_add(&findings, &f[i], 1, bytes[i]) != 0)
            nomem();
    pthread_mutex_unlock(&find_lock);
}

/* What taking a block out of the table found: up to two findings, counted once its shard is
   unlocked again. */
struct free_found {
    struct prof_mem_find f[2];
    uint64_t bytes[2];
    int n;
};

/* Lock ptr's shard and take ptr out of its table; *sp is the shard, which free_end unlocks.
   Nonzero when ptr must not reach the real free (a double free). */
static inline __attribute__((always_inline)) int
free_begin(uintptr_t ptr, const struct prof_mem_op *op, struct shard **sp, struct free_found *ff)
{
    struct shard *s = shard_of(ptr);
    pthread_mutex_lock(&s->lock);
    *sp = s;
    return prof_memtab_free(&s->tab, ptr, op, ff->f, ff->bytes, &ff->n);
}

/* Unlock the shard free_begin locked and count what it found. */
static inline __attribute__((always_inline)) void free_end(struct shard *s,
                                                           const struct free_found *ff)
{
    pthread_mutex_unlock(&s->lock);
    add_findings(ff->f, ff->bytes, ff->n);
}

/* Record an allocation. */
static void mem_alloc(void *ptr, size_t size, int kind, struct prof_site site)
{
    if (!ptr || prof_mem_quiet)
        return;
    int saved = errno;
    prof_mem_quiet_begin();
    struct prof_mem_op op;
    struct prof_thread *t;
    if ((unsigned)kind >= PROF_MEM_KIND_LAST)
        kind = PROF_MEM_MALLOC;
    if (op_begin(&op, site, kind, &t)) {
        if (op.thread && !site.text && stack_depth)
            stack_take(&op);
        enter_block((uintptr_t)ptr, size, &op, t);
    }
    prof_mem_quiet_end();
    errno = saved;
}

/* Record a free; nonzero when it is a double free, which must not reach the real free. */
static int mem_free(void *ptr, int kind, struct prof_site site)
{
    if (!ptr || prof_mem_quiet)
        return 0;
    int saved = errno, refuse = 0;
    prof_mem_quiet_begin();
    struct prof_mem_op op;
    struct prof_thread *t;
    if ((unsigned)kind >= PROF_MEM_KIND_LAST)
        kind = PROF_MEM_MALLOC;
    if (op_begin(&op, site, kind, &t)) {
        struct free_found ff;
        struct shard *s;
        refuse = free_begin((uintptr_t)ptr, &op, &s, &ff);
        free_end(s, &ff);
    }
    prof_mem_quiet_end();
    errno = saved;
    return refuse;
}

/* A "file:line" site. */
static struct prof_site text_site(const char *s)
{
    struct prof_site site = {(uintptr_t)s, 1};
    return site;
}

/* A return-address site. */
static struct prof_site addr_site(const void *a)
{
    struct prof_site site = {(uintptr_t)a, 0};
    return site;
}

/* PROFILER_MEM_ALLOC. */
void prof_mem_alloc(void *ptr, size_t size, enum prof_mem_kind kind, const char *site)
{
    mem_alloc(ptr, size, (int)kind, text_site(site));
}

/* PROFILER_MEM_FREE. */
int prof_mem_free(void *ptr, enum prof_mem_kind kind, const char *site)
{
    return mem_free(ptr, (int)kind, text_site(site));
}

/* An allocation known by its caller's return address. */
void prof_mem_alloc_at(void *ptr, size_t size, enum prof_mem_kind kind, const void *caller)
{
    mem_alloc(ptr, size, (int)kind, addr_site(caller));
}

/* A free known by its caller's return address. */
int prof_mem_free_at(void *ptr, enum prof_mem_kind kind, const void *caller)
{
    return mem_free(ptr, (int)kind, addr_site(caller));
}

/* realloc through real, with ptr's shard locked so no other thread sees ptr half-freed. */
void *prof_mem_realloc_at(void *ptr, size_t size, void *(*real)(void *, size_t), const void *caller)
{
    if (!ptr) {
        void *p = real(NULL, size);
        prof_mem_alloc_at(p, size, PROF_MEM_MALLOC, caller);
        return p;
    }
    if (prof_mem_quiet)
        return real(ptr, size);
    int saved = errno, refuse = 0, real_errno = 0;
    void *q = NULL;
    prof_mem_quiet_begin();
    struct prof_mem_op op;
    struct prof_thread *t;
    if (!op_begin(&op, addr_site(caller), PROF_MEM_MALLOC, &t)) {
        q = real(ptr, size);
        real_errno = errno;
    } else {
        struct free_found ff;
        struct shard *s;
        refuse = free_begin((uintptr_t)ptr, &op, &s, &ff);
        if (!refuse) {
            q = real(ptr, size);
            real_errno = errno;
            /* glibc's realloc(ptr, 0) frees ptr; any other NULL leaves it allocated. */
            if (!q && size != 0)
                prof_memtab_unfree(&s->tab, (uintptr_t)ptr);
        }
        free_end(s, &ff);
        if (q) {
            if (op.thread && stack_depth)
                stack_take(&op);
            enter_block((uintptr_t)q, size, &op, t);
        }
    }
    prof_mem_quiet_end();
    errno = refuse ? ENOMEM : q || size == 0 ? saved : real_errno;
    return q;
}

/* operator new of <profreport_new.hpp>: a malloc the preload library (if any) leaves alone. */
void *prof_mem_new(size_t size, enum prof_mem_kind kind, const void *caller)
{
    prof_mem_quiet_begin();
    void *p = malloc(size ? size : 1);
    int e = errno;
    prof_mem_quiet_end();
    if (p)
        prof_mem_alloc_at(p, size, kind, caller);
    errno = e;
    return p;
}

/* operator delete of <profreport_new.hpp>. */
void prof_mem_delete(void *ptr, enum prof_mem_kind kind, const void *caller)
{
    if (!ptr || prof_mem_free_at(ptr, kind, caller))
        return;
    prof_mem_quiet_begin();
    free(ptr);
    prof_mem_quiet_end();
}

/* Free the thread's counters (the recorder is freed, or a new run starts). */
static void thread_free(struct prof_thread *t)
{
    free(t->mem);
    t->mem = NULL;
}

/* A new run starts: the thread's counters start again. */
static void thread_begin(struct prof_thread *t, const struct prof_run_info *run)
{
    (void)run;
    thread_free(t);
}

/* Append one PRFM record. */
static void put_count(struct prof_sbuf *b, uint32_t idx, const struct prof_memcount *c)
{
    uint64_t count = PROF_LOAD(c->count), bytes = PROF_LOAD(c->bytes);
    if (!count)
        return;
    prof_sbuf_add(b, (const char *)&idx, 4);
    prof_sbuf_add(b, (const char *)&count, 8);
    prof_sbuf_add(b, (const char *)&bytes, 8);
}

/* The thread's allocations per region as one PRFM chunk (FORMAT.md 3; t->lock held). */
static int write_part(struct prof_thread *t)
{
    struct prof_mem_counts *mc = t->mem;
    if (!mc)
        return 0;
    struct prof_sbuf b = {0};
    for (uint32_t i = 0; i < mc->cap && i < t->nids; i++)
        put_count(&b, i, &mc->region[i]);
    put_count(&b, UINT32_MAX, &mc->none);
    int err = b.failed ? ENOMEM : 0;
    if (!err && b.len)
        err = prof_part_write(t->fd, PROF_CHUNK_MEMORY, b.data, b.len);
    prof_sbuf_release(&b);
    return err;
}

/* The thread's recorder is going: later operations keep its number, without region counts. */
static void thread_exit(struct prof_thread *t)
{
    me.number = t->registered ? t->number : 0;
    me.gen = t->gen;
    me.exiting = 1;
}

/* What is known of one return address: where it is, and what the symbolizer says of it. */
struct frame {
    const char *module; /* path of the module holding it, or NULL */
    uintptr_t offset;   /* of the byte before it (inside the call), from the module's load bias */
    uintptr_t addr;     /* that byte */
    const char *symbol; /* the exported symbol holding it (dladdr), or NULL */
    char function[512]; /* the symbolizer's name for its function, else symbol, else "" */
    char file[1024];    /* the symbolizer's source file of the call, or "" */
    unsigned line;
};

/* Describe the return address pc: module and offset, symbol, and the symbolizer's names. */
static void frame_describe(uintptr_t pc, struct frame *f)
{
    memset(f, 0, sizeof *f);
    f->addr = pc - 1;
    Dl_info info;
    struct link_map *lm = NULL;
    if (dladdr1((void *)f->addr, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm) {
        f->module = lm->l_name;
        if (!f->module || !f->module[0]) {
            f->module = prof_program_path()[0] ? prof_program_path() : "(program)";
        }
        f->offset = f->addr - lm->l_addr;
    }
    const ElfW(Sym) *sym = NULL;
    /* dladdr names the nearest exported symbol below: only one whose extent holds the address
       is the function's (a file-local function has no exported symbol). */
    if (dladdr1((void *)f->addr, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && info.dli_sname &&
        f->addr - (uintptr_t)info.dli_saddr < sym->st_size)
        f->symbol = info.dli_sname;
    prof_mem_symbolizer fn = __atomic_load_n(&symbolizer, __ATOMIC_ACQUIRE);
    if (!fn || !fn((const void *)f->addr, f->function, sizeof f->function, f->file, sizeof f->file,
                   &f->line)) {
        f->function[0] = f->file[0] = 0;
        f->line = 0;
    }
    if (!f->function[0] && f->symbol)
        snprintf(f->function, sizeof f->function, "%s", f->symbol);
}

/* The last path component. */
static const char *path_base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/*
 * A frame's place: "file:line" when the symbolizer knows it, else the module's path (short: its
 * last component) and "+0xOFFSET", the address that addr2line -e module takes.
 */
static void frame_place(struct prof_sbuf *b, const struct frame *f, int short_path)
{
    char hex[32];
    if (f->file[0] && f->line) {
        prof_sbuf_str(b, short_path ? path_base(f->file) : f->file);
        snprintf(hex, sizeof hex, ":%u", f->line);
    } else if (f->module) {
        prof_sbuf_str(b, short_path ? path_base(f->module) : f->module);
        snprintf(hex, sizeof hex, "+0x%lx", (unsigned long)f->offset);
    } else {
        snprintf(hex, sizeof hex, "0x%lx", (unsigned long)f->addr);
    }
    prof_sbuf_str(b, hex);
}

/* Keep the text of a site in r's text: its offset, or SIZE_MAX when it is empty. */
static size_t site_keep(struct prof_mem_report *r, struct prof_site site)
{
    size_t off = r->text.len;
    if (site.text && site.v) {
        prof_sbuf_str(&r->text, (const char *)site.v);
    } else if (!site.text && site.v) {
        struct frame f;
        frame_describe(site.v, &f);
        frame_place(&r->text, &f, 0);
    }
    if (r->text.len == off)
        return SIZE_MAX;
    prof_sbuf_char(&r->text, 0);
    return off;
}

/* Where a row's texts are in the report's text while it grows; SIZE_MAX: empty. */
struct row_text {
    size_t site, other, function, stack;
};

/*
 * A leak by return address: its frames described, the site moved out of the runtime's hands-over
 * functions to their caller, and the leak made the runtime's own when the first frames lie in
 * the runtime and none of them hands its memory over (FORMAT.md 1.5). Fills *kind and the texts.
 */
static void leak_describe(struct prof_mem_report *r, const struct prof_mem_find *f, int *kind,
                          struct row_text *t)
{
    struct prof_mem_stack st = f->stack;
    if (st.n == 0) {
        st.pc[0] = f->site.v;
        st.n = 1;
    }
    struct frame *fr = calloc(st.n, sizeof *fr);
    if (!fr) {
        t->site = site_keep(r, f->site);
        return;
    }
    uint32_t inside = 0, hands = 0;
    for (uint32_t i = 0; i < st.n; i++)
        frame_describe(st.pc[i], &fr[i]);
    while (inside < st.n && prof_mem_runtime_module(fr[inside].module)) {
        if (prof_mem_hands_over(fr[inside].symbol))
            hands = 1;
        inside++;
    }
    /* The site: the program's frame that asked for the memory, or the innermost one. */
    uint32_t at = 0;
    if (inside > 0 && hands)
        at = inside < st.n ? inside : st.n - 1;
    else if (inside > 0)
        *kind = PROF_MF_RUNTIME;
    t->site = r->text.len;
    frame_place(&r->text, &fr[at], 0);
    prof_sbuf_char(&r->text, 0);
    if (fr[at].function[0]) {
        t->function = r->text.len;
        prof_sbuf_str(&r->text, fr[at].function);
        prof_sbuf_char(&r->text, 0);
    }
    if (f->stack.n) {
        t->stack = r->text.len;
        for (uint32_t i = at; i < st.n; i++) {
            if (i > at)
                prof_sbuf_str(&r->text, " < ");
            if (fr[i].function[0]) {
                prof_sbuf_str(&r->text, fr[i].function);
                prof_sbuf_str(&r->text, " (");
                frame_place(&r->text, &fr[i], 1);
                prof_sbuf_char(&r->text, ')');
            } else {
                frame_place(&r->text, &fr[i], 1);
            }
            if (strcmp(fr[i].function, "main") == 0)
                break; /* what calls main is the C library's start-up, the same for all */
        }
        prof_sbuf_char(&r->text, 0);
    }
    free(fr);
}

/* The function of a return-address site, kept in r's text: its offset, or SIZE_MAX. */
static size_t function_keep(struct prof_mem_report *r, struct prof_site site)
{
    if (site.text || !site.v)
        return SIZE_MAX;
    struct frame f;
    frame_describe(site.v, &f);
    if (!f.function[0])
        return SIZE_MAX;
    size_t off = r->text.len;
    prof_sbuf_str(&r->text, f.function);
    prof_sbuf_char(&r->text, 0);
    return off;
}

/* A text offset as a pointer into the finished text. */
static const char *text_at(const struct prof_mem_report *r, size_t off)
{
    return off == SIZE_MAX ? NULL : r->text.data + off;
}

/* The run's findings and leaks as memory-section rows; the next run starts afresh. */
static void run_end(struct prof_mem_report *out)
{
    uint32_t run = __atomic_load_n(&run_serial, __ATOMIC_RELAXED);
    pthread_mutex_lock(&find_lock);
    for (int i = 0; i < SHARDS; i++) {
        pthread_mutex_lock(&shards[i].lock);
        if (prof_memtab_leaks(&shards[i].tab, run, &findings) != 0)
            nomem();
        pthread_mutex_unlock(&shards[i].lock);
    }
    /* Blocks allocated from now on belong to the next run. */
    __atomic_add_fetch(&run_serial, 1, __ATOMIC_RELAXED);
    size_t n = 0;
    struct prof_memfind_slot **v = prof_memfind_sorted(&findings, &n);
    if (findings.used && !v)
        nomem();
    /* The texts move while they grow: offsets first, pointers once every text is in. */
    struct row_text *tx = n ? calloc(n, sizeof *tx) : NULL;
    int *kind = n ? calloc(n, sizeof *kind) : NULL;
    out->rows = n ? calloc(n, sizeof *out->rows) : NULL;
    if (n && (!tx || !kind || !out->rows))
        n = 0;
    for (size_t i = 0; i < n; i++) {
        const struct prof_mem_find *f = &v[i]->key;
        struct row_text *t = &tx[i];
        t->site = t->other = t->function = t->stack = SIZE_MAX;
        kind[i] = f->kind;
        if (f->kind == PROF_MF_LEAK && !f->site.text && f->site.v) {
            leak_describe(out, f, &kind[i], t);
        } else {
            t->site = site_keep(out, f->site);
            t->function = function_keep(out, f->site);
        }
        t->other = site_keep(out, f->other);
    }
    if (out->text.failed)
        n = 0;
    /* The program's leaks, then the runtime's, then the other findings: the section's order. */
    size_t k = 0;
    for (int pass = 0; pass < 3; pass++) {
        for (size_t i = 0; i < n; i++) {
            int want = pass == 0   ? kind[i] == PROF_MF_LEAK
                       : pass == 1 ? kind[i] == PROF_MF_RUNTIME
                                   : kind[i] != PROF_MF_LEAK && kind[i] != PROF_MF_RUNTIME;
            if (!want)
                continue;
            const struct prof_mem_find *f = &v[i]->key;
            struct prof_memory_rec *m = &out->rows[k++];
            m->kind = kind[i];
            m->alloc_kind = f->alloc_kind;
            m->free_kind = f->free_kind;
            m->thread = f->thread;
            m->other_thread = f->other_thread;
            m->region = f->region;
            m->region_len = f->region ? strlen(f->region) : 0;
            m->count = v[i]->count;
            m->bytes = v[i]->bytes;
            m->site = text_at(out, tx[i].site);
            m->other_site = text_at(out, tx[i].other);
            m->function = text_at(out, tx[i].function);
            m->stack = text_at(out, tx[i].stack);
        }
    }
    out->n = k;
    free(tx);
    free(kind);
    if (v)
        prof_mem_unmap(v, findings.used * sizeof *v);
    prof_memfind_release(&findings);
    pthread_mutex_unlock(&find_lock);
}

static const struct prof_hooks hooks = {
    .name = "memory checks",
    .thread_begin = thread_begin,
    .thread_write = write_part,
    .thread_exit = thread_exit,
    .thread_free = thread_free,
    .run_end = run_end,
};
