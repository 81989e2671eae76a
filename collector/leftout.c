/*
 * leftout.c - the code ranges of left-out functions and each thread's samples in them
 * (leftout.h).
 */
#include "leftout.h"

#include "memtab.h"

#include <string.h>
#include <sys/mman.h>

/*
 * The ranges. A slot is reserved by one atomic add (functions.c adds under its lock, the
 * signal handler adds the uninstrumented functions it meets, codemap.h), written, then
 * published by its ready flag (release); a reader looks at ready slots only. A slot is never
 * rewritten, but its function may be given later (an uninstrumented function's description,
 * made by its thread outside the handler) and its range emptied (prof_leftout_drop).
 */
static struct {
    uintptr_t lo, hi;
    const void *fn;
    uint32_t ready;
} ranges[PROF_LEFTOUT_MAX];
static uint32_t reserved; /* slots taken; may pass PROF_LEFTOUT_MAX (those adds failed) */
static uint32_t from;     /* the first range not forgotten */

/* The slots that may be ready. */
static uint32_t slots(void)
{
    uint32_t n = __atomic_load_n(&reserved, __ATOMIC_ACQUIRE);
    return n < PROF_LEFTOUT_MAX ? n : PROF_LEFTOUT_MAX;
}

uint32_t prof_leftout_add(const void *fn, uintptr_t lo, uint64_t size)
{
    if (!size || __atomic_load_n(&reserved, __ATOMIC_RELAXED) >= PROF_LEFTOUT_MAX)
        return 0;
    uint32_t n = __atomic_fetch_add(&reserved, 1, __ATOMIC_RELAXED);
    if (n >= PROF_LEFTOUT_MAX)
        return 0;
    ranges[n].lo = lo;
    ranges[n].hi = lo + size;
    __atomic_store_n(&ranges[n].fn, fn, __ATOMIC_RELAXED);
    __atomic_store_n(&ranges[n].ready, 1, __ATOMIC_RELEASE);
    return n + 1;
}

uint32_t prof_leftout_at(uintptr_t pc)
{
    uint32_t n = slots();
    for (uint32_t i = __atomic_load_n(&from, __ATOMIC_RELAXED); i < n; i++)
        if (__atomic_load_n(&ranges[i].ready, __ATOMIC_ACQUIRE) &&
            pc - ranges[i].lo < __atomic_load_n(&ranges[i].hi, __ATOMIC_RELAXED) - ranges[i].lo)
            return i + 1;
    return 0;
}

/* Whether r names a ready range. */
static int ready(uint32_t r)
{
    return r && r <= slots() && __atomic_load_n(&ranges[r - 1].ready, __ATOMIC_ACQUIRE);
}

const void *prof_leftout_fn(uint32_t r)
{
    return ready(r) ? __atomic_load_n(&ranges[r - 1].fn, __ATOMIC_ACQUIRE) : NULL;
}

/* functions.c's, in libprofreport-auto; the plain library has no symbolizer. */
static const void *(*describer)(uint32_t r);

void prof_leftout_set_describer(const void *(*describe)(uint32_t r)) { describer = describe; }

const void *prof_leftout_describe(uint32_t r)
{
    const void *fn = prof_leftout_fn(r);
    /* a dropped range's function has hooks: its samples stay their context's */
    if (fn || !describer || !ready(r) ||
        __atomic_load_n(&ranges[r - 1].hi, __ATOMIC_RELAXED) == ranges[r - 1].lo)
        return fn;
    return describer(r);
}

uintptr_t prof_leftout_entry(uint32_t r) { return ready(r) ? ranges[r - 1].lo : 0; }

void prof_leftout_set_fn(uint32_t r, const void *fn)
{
    if (ready(r))
        __atomic_store_n(&ranges[r - 1].fn, fn, __ATOMIC_RELEASE);
}

void prof_leftout_drop(uint32_t r)
{
    if (ready(r))
        __atomic_store_n(&ranges[r - 1].hi, ranges[r - 1].lo, __ATOMIC_RELAXED);
}

void prof_leftout_forget(void) { __atomic_store_n(&from, slots(), __ATOMIC_RELAXED); }

/* The table's bytes: the pairs, then the id indexes (whole pages). */
#define HITS_BYTES                                                                                 \
    (PROF_LEFTOUT_HITS * sizeof(struct prof_leftout_hit) + PROF_LEFTOUT_MAX * sizeof(uint32_t))

int prof_leftout_hits_make(struct prof_leftout_hits *h)
{
    if (h->hits)
        return 0;
    /* Straight from the kernel, untouched until used: most threads of a program never take
       a sample in a left-out function. */
    void *m = prof_mem_map(HITS_BYTES);
    if (!m)
        return -1;
    h->ids = (uint32_t *)((char *)m + PROF_LEFTOUT_HITS * sizeof(struct prof_leftout_hit));
    h->lost = 0;
    h->used = h->reach = 0;
    __atomic_store_n(&h->hits, (struct prof_leftout_hit *)m, __ATOMIC_RELEASE);
    return 0;
}

void prof_leftout_hits_clear(struct prof_leftout_hits *h)
{
    /* Zero pages again, unless the kernel refuses (then written over). */
    if (h->hits && madvise(h->hits, HITS_BYTES, MADV_DONTNEED) != 0)
        memset(h->hits, 0, HITS_BYTES);
    h->lost = 0;
    h->used = h->reach = 0;
}

void prof_leftout_hits_free(struct prof_leftout_hits *h)
{
    if (h->hits)
        prof_mem_unmap(h->hits, HITS_BYTES);
    memset(h, 0, sizeof *h);
}

int prof_leftout_charge(struct prof_leftout_hits *h, struct prof_node *parent, uint32_t r,
                        uint64_t w)
{
    struct prof_leftout_hit *e = h->hits;
    if (!e)
        return 0;
    uint64_t k = ((uint64_t)(uintptr_t)parent ^ r) * 0x9E3779B97F4A7C15ull;
    /* Linear probing: within reach of its hash a pair is found, or the free entry where it
       goes; past reach only a new pair's free entry, within PROF_LEFTOUT_PROBES, and a full
       table takes no new pair. */
    uint32_t end = h->used < PROF_LEFTOUT_PAIRS ? PROF_LEFTOUT_PROBES : h->reach + 1;
    for (uint32_t i = 0, at = (uint32_t)(k >> 32); i < end; i++, at++) {
        struct prof_leftout_hit *x = &e[at & (PROF_LEFTOUT_HITS - 1)];
        struct prof_node *p = __atomic_load_n(&x->parent, __ATOMIC_RELAXED);
        if (p == parent && x->fn == r) {
            __atomic_store_n(&x->samples, x->samples + w, __ATOMIC_RELAXED);
            return 1;
        }
        if (!p) {
            if (h->used >= PROF_LEFTOUT_PAIRS)
                break;
            x->fn = r;
            x->samples = w;
            __atomic_store_n(&x->parent, parent, __ATOMIC_RELEASE);
            h->used++;
            if (i > h->reach)
                h->reach = i;
            return 1;
        }
    }
    __atomic_store_n(&h->lost, h->lost + w, __ATOMIC_RELAXED);
    return 0;
}

uint64_t prof_leftout_unnamed_under(const struct prof_leftout_hits *h, const struct prof_node *root)
{
    const struct prof_leftout_hit *e = __atomic_load_n(&h->hits, __ATOMIC_ACQUIRE);
    uint64_t n = 0;
    for (uint32_t i = 0; e && i < PROF_LEFTOUT_HITS; i++)
        if (__atomic_load_n(&e[i].parent, __ATOMIC_ACQUIRE) == root && !prof_leftout_id(h, e[i].fn))
            n += __atomic_load_n(&e[i].samples, __ATOMIC_RELAXED);
    return n;
}
