/*
 * codemap.c - the functions of the program's modules and what their samples are (codemap.h).
 */
#include "codemap.h"

#include "hookcode.h"
#include "leftout.h"
#include "memtab.h"

#include <string.h>

/* The modules: each written once, before count covers it (release), never rewritten. */
static struct {
    uintptr_t key, lo, hi;
    struct prof_code_fn *fns;
    size_t n;
} mods[PROF_CODEMAP_MODULES];
static uint32_t count; /* modules written */
static uint32_t from;  /* the first module not forgotten */

/* The bytes of n functions' room, whole pages (prof_mem_map's). */
static size_t room(size_t n) { return (n ? n : 1) * sizeof(struct prof_code_fn); }

struct prof_code_fn *prof_codemap_alloc(size_t n)
{
    /* Straight from the kernel: the program's allocator is not ours to use for memory a
       signal handler reads for the rest of the process. */
    return prof_mem_map(room(n));
}

int prof_codemap_has(uintptr_t key)
{
    uint32_t n = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
    for (uint32_t i = __atomic_load_n(&from, __ATOMIC_RELAXED); i < n; i++)
        if (mods[i].key == key)
            return 1;
    return 0;
}

int prof_codemap_add(uintptr_t key, struct prof_code_fn *fns, size_t n)
{
    uint32_t i = __atomic_load_n(&count, __ATOMIC_RELAXED);
    if (i >= PROF_CODEMAP_MODULES || !n) {
        prof_mem_unmap(fns, room(n));
        return -1;
    }
    mods[i].key = key;
    mods[i].fns = fns;
    mods[i].n = n;
    mods[i].lo = fns[0].lo;
    mods[i].hi = fns[n - 1].lo + fns[n - 1].size;
    __atomic_store_n(&count, i + 1, __ATOMIC_RELEASE);
    return 0;
}

/* The published function whose code holds pc (entry == 0) or whose entry is pc (entry ==
   1), or NULL. */
static struct prof_code_fn *find(uintptr_t pc, int entry)
{
    uint32_t n = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
    for (uint32_t i = __atomic_load_n(&from, __ATOMIC_RELAXED); i < n; i++) {
        if (pc < mods[i].lo || pc >= mods[i].hi)
            continue;
        /* the last function whose entry is at or below pc */
        struct prof_code_fn *f = mods[i].fns;
        size_t lo = 0, hi = mods[i].n;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (f[mid].lo <= pc)
                lo = mid;
            else
                hi = mid;
        }
        if (entry ? f[lo].lo == pc : pc - f[lo].lo < f[lo].size)
            return &f[lo];
        return NULL; /* between two functions of this module: no other module holds it */
    }
    return NULL;
}

uint32_t prof_codemap_mark(uintptr_t addr, uint32_t state)
{
    struct prof_code_fn *f = find(addr, 1);
    return f ? __atomic_exchange_n(&f->state, state, __ATOMIC_RELEASE) : PROF_CODE_NONE;
}

uint32_t prof_codemap_leftout(uintptr_t pc) { return prof_codemap_place(pc, NULL); }

uint32_t prof_codemap_place(uintptr_t pc, struct prof_code_fn *span)
{
    struct prof_code_fn *f = find(pc, 0);
    if (!f)
        return 0;
    if (span) {
        span->lo = f->lo;
        span->size = f->size;
    }
    uint32_t s = __atomic_load_n(&f->state, __ATOMIC_ACQUIRE);
    if (s != PROF_CODE_UNKNOWN)
        return s == PROF_CODE_NONE || s == PROF_CODE_PART ? PROF_CODE_HOOKED : s;
    /* No hook has described it: a function without hooks (or one whose first call is still
       in its prologue, which its description then takes back, functions.c). One sample, of
       whichever thread, makes its range; another one meanwhile charges its context. */
    if (!__atomic_compare_exchange_n(&f->state, &s, PROF_CODE_NONE, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return PROF_CODE_HOOKED;
    uint32_t r = prof_leftout_add(NULL, f->lo, f->size);
    /* Unless a description marked it hooked meanwhile (then it keeps that, and the range,
       if any, is emptied). */
    uint32_t want = r ? r : PROF_CODE_NONE, was = PROF_CODE_NONE;
    if (!__atomic_compare_exchange_n(&f->state, &was, want, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        prof_leftout_drop(r);
        return PROF_CODE_HOOKED;
    }
    return r ? r : PROF_CODE_HOOKED;
}

int prof_codemap_inlined(uintptr_t ret, uintptr_t fn, uint64_t size)
{
    if (!size || ret - fn < size)
        return 0;
    const struct prof_code_fn *f = find(ret, 0);
    return f && __atomic_load_n(&f->state, __ATOMIC_ACQUIRE) != PROF_CODE_PART;
}

#if defined(__x86_64__) || defined(__i386__)
/* The length of an indirect call `call *r/m` (opcode 0xff, ModRM reg field 2) whose ModRM byte
   is m and whose next byte (a SIB byte, when m says there is one) is sib; 0 when m is not an
   indirect call's. */
static unsigned indirect_call_length(unsigned char m, unsigned char sib)
{
    unsigned mod = m >> 6, rm = m & 7u;
    if (((m >> 3) & 7u) != 2)
        return 0;
    if (mod == 3)
        return 2; /* call *%reg */
    if (mod == 0)
        return rm == 4 ? ((sib & 7u) == 5 ? 7 : 3) : rm == 5 ? 6 : 2; /* (%reg), disp32(%rip) */
    return (mod == 1 ? 3 : 6) + (rm == 4); /* disp8 or disp32, and a SIB byte */
}

/* Whether the instruction ending at ret, in published function f, is an indirect call. */
static int after_indirect_call(uintptr_t ret, const struct prof_code_fn *f)
{
    const unsigned char *r = (const unsigned char *)ret;
    static const unsigned char lengths[] = {2, 3, 4, 6, 7};
    for (size_t i = 0; i < sizeof lengths; i++) {
        unsigned n = lengths[i];
        if (ret - f->lo >= n && r[-(int)n] == 0xff &&
            indirect_call_length(r[1 - (int)n], n > 2 ? r[2 - (int)n] : 0) == n)
            return 1;
    }
    return 0;
}

/*
 * Whether the instruction ending at ret, in published function f, calls code outside the
 * published functions: `call rel32` to a PLT stub or a library, or an indirect call (through
 * the GOT, -fno-plt's `call *disp32(%rip)`, or through a function pointer). An indirect call
 * to a hooked function would have that function's frame innermost, above this return address
 * (the scan stops below it); to a function without hooks that tail-called the library (Lua's
 * l_alloc, reached through a pointer, jumps to realloc), the caller is the innermost program
 * frame, as perf's unwinding finds it. Its bytes lie in f's code.
 */
static int calls_out(uintptr_t ret, const struct prof_code_fn *f)
{
    const unsigned char *r = (const unsigned char *)ret;
    if (after_indirect_call(ret, f))
        return 1;
    if (ret - f->lo < 5 || r[-5] != 0xe8)
        return 0;
    int32_t rel;
    memcpy(&rel, r - 4, sizeof rel);
    return !find(ret + (uintptr_t)(intptr_t)rel, 0);
}

/* The function that holds return address w, if w follows a call of entry (e8 rel32) or an
   indirect call (whose target is not known); NULL otherwise. */
static const struct prof_code_fn *call_site_of(uintptr_t w, uintptr_t entry)
{
    const struct prof_code_fn *h = find(w, 0);
    if (!h)
        return NULL;
    const unsigned char *r = (const unsigned char *)w;
    if (w - h->lo >= 5 && r[-5] == 0xe8) {
        int32_t rel;
        memcpy(&rel, r - 4, sizeof rel);
        if (w + (uintptr_t)(intptr_t)rel == entry)
            return h;
    }
    return after_indirect_call(w, h) ? h : NULL;
}

/* Whether candidate caller g, found at sp[i], is live below home's frame: the words above it,
   up to sp[n], hold a chain of return addresses, each after a call of the function holding the
   one before (or an indirect call), that reaches home. A function with hooks on the way other
   than home would have had the innermost frame; a part of a function (foo.cold) is not told.
   The words are the interrupted frames', as prof_codemap_caller's: not checked. */
static __attribute__((no_sanitize("address"))) int reaches_home(const uintptr_t *sp, unsigned i,
                                                                unsigned n,
                                                                const struct prof_code_fn *g,
                                                                const struct prof_code_fn *home)
{
    for (unsigned links = 0; g != home; links++) {
        uint32_t state = __atomic_load_n(&g->state, __ATOMIC_ACQUIRE);
        if (state == PROF_CODE_PART)
            return 1;
        if (state == PROF_CODE_HOOKED || links >= PROF_CODEMAP_LINKS)
            return 0;
        const struct prof_code_fn *h = NULL;
        while (!h && ++i < n) {
            uintptr_t w;
            memcpy(&w, sp + i, sizeof w);
            h = call_site_of(w, g->lo);
        }
        if (!h)
            return 0;
        g = h;
    }
    return 1;
}
#endif

/* The words read are the interrupted frames', which an address sanitizer's instrumented
   frames poison in part: not an error here, so not checked. */
__attribute__((no_sanitize("address"))) uint32_t
prof_codemap_caller(const uintptr_t *sp, uintptr_t limit, uintptr_t home_pc)
{
#if defined(__x86_64__) || defined(__i386__)
    const struct prof_code_fn *home = home_pc && limit != UINTPTR_MAX ? find(home_pc, 0) : NULL;
    uintptr_t first = 0;
    uintptr_t end = ((uintptr_t)sp | 4095u) + 1;
    if (limit < end)
        end = limit;
    /* the chains' words: up to limit, the innermost frame's position on the thread's stack */
    unsigned chain = 0;
    if (home && limit > (uintptr_t)sp)
        chain = (limit - (uintptr_t)sp) / sizeof *sp < PROF_CODEMAP_CHAIN
                    ? (unsigned)((limit - (uintptr_t)sp) / sizeof *sp)
                    : PROF_CODEMAP_CHAIN;
    for (unsigned i = 0; i < PROF_CODEMAP_SCAN && (uintptr_t)(sp + i + 1) <= end; i++) {
        uintptr_t v;
        memcpy(&v, sp + i, sizeof v); /* the interrupted code may leave sp unaligned */
        const struct prof_code_fn *f = find(v, 0);
        if (!f || !calls_out(v, f) || prof_hookcode_calls_hook(f->lo, v))
            continue;
        if (!home || reaches_home(sp, i, chain, f, home)) {
            first = v;
            break;
        }
        if (!first)
            first = v;
    }
    if (!first)
        return 0;
    uint32_t s = prof_codemap_leftout(first);
    return s ? s : PROF_CODE_HOOKED;
#else
    (void)sp;
    (void)limit;
    (void)home_pc;
    return 0;
#endif
}

void prof_codemap_forget(void)
{
    __atomic_store_n(&from, __atomic_load_n(&count, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}
