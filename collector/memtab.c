/*
 * memtab.c - the bookkeeping of memory checks, with no locks and no I/O: a table of blocks keyed
 * by pointer (freed ones kept as tombstones) and a map of findings with counts and bytes.
 *
 * Both live in mmap'd memory: the preload library routes malloc through this code, so the
 * table must never call malloc itself.
 */
#include "memtab.h"

#include "format.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MEMTAB_MIN_SLOTS 1024

/* Zeroed memory straight from the kernel. */
void *prof_mem_map(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Give memory from prof_mem_map back. */
void prof_mem_unmap(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
}

/* Slot of a pointer: allocators hand out addresses in steps of 16, so mix all the bits. */
static size_t ptr_slot(uintptr_t p, size_t mask)
{
    uint64_t h = (uint64_t)p * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 29)) & mask;
}

/* Double the table (or create it); 0 or -1. */
static int memtab_grow(struct prof_memtab *t)
{
    size_t n = t->slots ? (t->mask + 1) * 2 : MEMTAB_MIN_SLOTS;
    struct prof_mem_block *s = prof_mem_map(n * sizeof *s);
    if (!s)
        return -1;
    if (t->slots) {
        for (size_t i = 0; i <= t->mask; i++) {
            if (!t->slots[i].ptr)
                continue;
            size_t h = ptr_slot(t->slots[i].ptr, n - 1);
            while (s[h].ptr)
                h = (h + 1) & (n - 1);
            s[h] = t->slots[i];
        }
        prof_mem_unmap(t->slots, (t->mask + 1) * sizeof *t->slots);
    }
    t->slots = s;
    t->mask = n - 1;
    return 0;
}

/* The slot holding ptr, or NULL. */
static struct prof_mem_block *slot_find(const struct prof_memtab *t, uintptr_t ptr)
{
    if (!t->slots)
        return NULL;
    for (size_t h = ptr_slot(ptr, t->mask);; h = (h + 1) & t->mask) {
        if (t->slots[h].ptr == ptr)
            return &t->slots[h];
        if (!t->slots[h].ptr)
            return NULL;
    }
}

/* The block at ptr, live or freed, or NULL. */
const struct prof_mem_block *prof_memtab_find(const struct prof_memtab *t, uintptr_t ptr)
{
    return slot_find(t, ptr);
}

/* Record an allocation: the allocator returned ptr, so whatever the table said of it is over. */
int prof_memtab_alloc(struct prof_memtab *t, uintptr_t ptr, uint64_t size,
                      const struct prof_mem_op *op)
{
    if (!ptr)
        return 0;
    struct prof_mem_block *b = slot_find(t, ptr);
    if (!b) {
        /* Keep the load under 1/2: probes stay short even with many tombstones. */
        if ((!t->slots || (t->used + 1) * 2 > t->mask + 1) && memtab_grow(t) != 0)
            return -1;
        size_t h = ptr_slot(ptr, t->mask);
        while (t->slots[h].ptr)
            h = (h + 1) & t->mask;
        b = &t->slots[h];
        t->used++;
    }
    memset(b, 0, sizeof *b);
    b->ptr = ptr;
    b->size = size;
    b->alloc = *op;
    return 0;
}

/* Record a free and say what is wrong with it. */
int prof_memtab_free(struct prof_memtab *t, uintptr_t ptr, const struct prof_mem_op *op,
                     struct prof_mem_find out[2], uint64_t bytes[2], int *n)
{
    *n = 0;
    if (!ptr)
        return 0;
    struct prof_mem_block *b = slot_find(t, ptr);
    struct prof_mem_find f;
    memset(&f, 0, sizeof f);
    f.free_kind = op->kind;
    f.alloc_kind = -1;
    f.thread = op->thread;
    f.region = op->region;
    f.site = op->site;
    if (!b) {
        /* Perhaps allocated before tracking began: the real free gets it. */
        f.kind = PROF_MF_UNKNOWN_FREE;
        out[(*n)] = f;
        bytes[(*n)++] = 0;
        return 0;
    }
    f.alloc_kind = b->alloc.kind;
    if (b->freed) {
        f.kind = PROF_MF_DOUBLE_FREE;
        f.other_thread = b->free_thread;
        f.other = b->free_site;
        out[(*n)] = f;
        bytes[(*n)++] = b->size;
        return 1;
    }
    f.other_thread = b->alloc.thread;
    f.other = b->alloc.site;
    if (b->alloc.kind != op->kind) {
        f.kind = PROF_MF_MISMATCH;
        out[(*n)] = f;
        bytes[(*n)++] = b->size;
    }
    if (b->alloc.tid != op->tid) {
        f.kind = PROF_MF_CROSS_THREAD;
        out[(*n)] = f;
        bytes[(*n)++] = b->size;
    }
    b->freed = 1;
    b->free_site = op->site;
    b->free_thread = op->thread;
    return 0;
}

/* Make the block at ptr live again. */
void prof_memtab_unfree(struct prof_memtab *t, uintptr_t ptr)
{
    struct prof_mem_block *b = slot_find(t, ptr);
    if (b)
        b->freed = 0;
}

/* Every live block of the run, allocated while recording, as a leak. */
int prof_memtab_leaks(const struct prof_memtab *t, uint32_t run, struct prof_memfind_map *m)
{
    if (!t->slots)
        return 0;
    for (size_t i = 0; i <= t->mask; i++) {
        const struct prof_mem_block *b = &t->slots[i];
        if (!b->ptr || b->freed || b->alloc.run != run || b->alloc.thread == 0)
            continue;
        struct prof_mem_find f;
        memset(&f, 0, sizeof f);
        f.kind = PROF_MF_LEAK;
        f.alloc_kind = b->alloc.kind;
        f.free_kind = -1;
        f.thread = b->alloc.thread;
        f.region = b->alloc.region;
        f.site = b->alloc.site;
        f.stack = b->alloc.stack;
        if (prof_memfind_add(m, &f, 1, b->size) != 0)
            return -1;
    }
    return 0;
}

/* Give the table's memory back. */
void prof_memtab_release(struct prof_memtab *t)
{
    if (t->slots)
        prof_mem_unmap(t->slots, (t->mask + 1) * sizeof *t->slots);
    memset(t, 0, sizeof *t);
}

/* Hash of a site: a text site by its bytes (two copies of a literal are one site). */
static uint64_t site_hash(struct prof_site s)
{
    if (!s.text || !s.v)
        return s.v;
    return prof_hash_str((const char *)s.v) ^ 1ull << 63;
}

/* Hash of a finding's key: its fields, not its padding. */
static size_t find_hash(const struct prof_mem_find *f, size_t mask)
{
    uint64_t v[] = {(uint64_t)f->kind << 32 | (uint32_t)(f->alloc_kind + 1) << 16 |
                        (uint32_t)(f->free_kind + 1),
                    (uint64_t)f->thread << 32 | f->other_thread, (uintptr_t)f->region,
                    site_hash(f->site), site_hash(f->other)};
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        h = (h ^ v[i]) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 31;
    }
    for (uint32_t i = 0; i < f->stack.n && i < PROF_MEM_STACK_MAX; i++) {
        h = (h ^ f->stack.pc[i]) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 31;
    }
    return (size_t)h & mask;
}

/* Whether two sites are the same: equal text, or the same address. */
static int site_equal(struct prof_site a, struct prof_site b)
{
    if (a.text != b.text)
        return 0;
    if (a.v == b.v)
        return 1;
    /* Two copies of one "file:line" literal (two translation units) are one site. */
    return a.text && a.v && b.v && strcmp((const char *)a.v, (const char *)b.v) == 0;
}

/* Whether two findings have the same key. */
static int find_equal(const struct prof_mem_find *a, const struct prof_mem_find *b)
{
    return a->kind == b->kind && a->alloc_kind == b->alloc_kind && a->free_kind == b->free_kind &&
           a->thread == b->thread && a->other_thread == b->other_thread && a->region == b->region &&
           site_equal(a->site, b->site) && site_equal(a->other, b->other) &&
           a->stack.n == b->stack.n &&
           memcmp(a->stack.pc, b->stack.pc, a->stack.n * sizeof a->stack.pc[0]) == 0;
}

/* Double the map (or create it); 0 or -1. */
static int memfind_grow(struct prof_memfind_map *m)
{
    size_t n = m->slots ? (m->mask + 1) * 2 : 256;
    struct prof_memfind_slot *s = prof_mem_map(n * sizeof *s);
    if (!s)
        return -1;
    if (m->slots) {
        for (size_t i = 0; i <= m->mask; i++) {
            if (!m->slots[i].used)
                continue;
            size_t h = find_hash(&m->slots[i].key, n - 1);
            while (s[h].used)
                h = (h + 1) & (n - 1);
            s[h] = m->slots[i];
        }
        prof_mem_unmap(m->slots, (m->mask + 1) * sizeof *m->slots);
    }
    m->slots = s;
    m->mask = n - 1;
    return 0;
}

/* Count a finding. */
int prof_memfind_add(struct prof_memfind_map *m, const struct prof_mem_find *f, uint64_t count,
                     uint64_t bytes)
{
    if ((!m->slots || (m->used + 1) * 2 > m->mask + 1) && memfind_grow(m) != 0)
        return -1;
    size_t h = find_hash(f, m->mask);
    while (m->slots[h].used && !find_equal(&m->slots[h].key, f))
        h = (h + 1) & m->mask;
    struct prof_memfind_slot *s = &m->slots[h];
    if (!s->used) {
        s->used = 1;
        s->key = *f;
        m->used++;
    }
    s->count += count;
    s->bytes += bytes;
    return 0;
}

/* Report order: finding kind, then more bytes, more count, then thread. */
static int by_report(const void *a, const void *b)
{
    const struct prof_memfind_slot *x = *(const struct prof_memfind_slot *const *)a;
    const struct prof_memfind_slot *y = *(const struct prof_memfind_slot *const *)b;
    if (x->key.kind != y->key.kind)
        return x->key.kind - y->key.kind;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return (x->key.thread > y->key.thread) - (x->key.thread < y->key.thread);
}

/* The used slots in report order. */
struct prof_memfind_slot **prof_memfind_sorted(const struct prof_memfind_map *m, size_t *n)
{
    *n = 0;
    if (!m->used)
        return NULL;
    struct prof_memfind_slot **v = prof_mem_map(m->used * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i <= m->mask; i++)
        if (m->slots[i].used)
            v[(*n)++] = &m->slots[i];
    qsort(v, *n, sizeof *v, by_report);
    return v;
}

/* Give the map's memory back. */
void prof_memfind_release(struct prof_memfind_map *m)
{
    if (m->slots)
        prof_mem_unmap(m->slots, (m->mask + 1) * sizeof *m->slots);
    memset(m, 0, sizeof *m);
}

/* The last path component. */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Whether s starts with one of the prefixes in list (NULL-terminated). */
static int has_prefix(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strncmp(s, *list, strlen(*list)) == 0)
            return 1;
    return 0;
}

/* The runtime's modules: the dynamic loader, glibc's libraries, the C++ runtime. */
int prof_mem_runtime_module(const char *path)
{
    static const char *const runtime[] = {
        "ld-linux",       "ld.so",        "ld64.so",   "libc.so.",      "libm.so.",
        "libpthread.so.", "libdl.so.",    "librt.so.", "libresolv.so.", "libnss_",
        "libstdc++.so.",  "libgcc_s.so.", NULL};
    return path && has_prefix(base_name(path), runtime);
}

/* The runtime's functions whose allocations are their caller's: operator new and new[] (_Znw,
   _Zna), std::string's members, and the C library's functions that return allocated memory (or
   memory the caller must release with a matching function). */
int prof_mem_hands_over(const char *symbol)
{
    static const char *const prefixes[] = {"_Znw", "_Zna", "_ZNSt7__cxx1112basic_string", "_ZNSs",
                                           NULL};
    static const char *const names[] = {"strdup",
                                        "__strdup",
                                        "strndup",
                                        "__strndup",
                                        "wcsdup",
                                        "asprintf",
                                        "__asprintf",
                                        "vasprintf",
                                        "__vasprintf",
                                        "__asprintf_chk",
                                        "__vasprintf_chk",
                                        "getline",
                                        "getdelim",
                                        "__getdelim",
                                        "realpath",
                                        "canonicalize_file_name",
                                        "get_current_dir_name",
                                        "getcwd",
                                        "open_memstream",
                                        "open_wmemstream",
                                        "scandir",
                                        "scandir64",
                                        "scandirat",
                                        "scandirat64",
                                        "tempnam",
                                        "backtrace_symbols",
                                        "opendir",
                                        "fdopendir",
                                        "newlocale",
                                        "duplocale",
                                        "iconv_open",
                                        "glob",
                                        "glob64",
                                        "getaddrinfo",
                                        NULL};
    if (!symbol || !symbol[0])
        return 0;
    if (has_prefix(symbol, prefixes))
        return 1;
    for (const char *const *n = names; *n; n++)
        if (strcmp(symbol, *n) == 0)
            return 1;
    return 0;
}

/* Names used in the memory section (FORMAT.md 1.5). */
const char *prof_mem_finding_name(int kind)
{
    /* The memory section's Kind values (format.h) list the findings in this order. */
    return kind >= 0 && kind < PROF_MF_LAST ? prof_memory_kinds[kind] : "";
}

const char *prof_mem_alloc_name(int kind) { return prof_alloc_kind_name(kind); }

const char *prof_mem_free_name(int kind) { return prof_free_kind_name(kind); }
