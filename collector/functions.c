/*
 * functions.c - the process-wide table of instrumented functions: each distinct address is
 * described once, at its first call on any thread, by symbols.c, given a region id that no
 * other function shares, and checked against PROFILER_INCLUDE / PROFILER_EXCLUDE.
 *
 * A function's source file and line are the reporter's to read from its module (the run says
 * module, offset and build id): DWARF is read here only for names two functions share (to tell
 * an inline's copies from two static functions), or for every function when
 * PROFILER_SOURCE_LINES=run asks for a run file that needs no module to say them.
 *
 * The table is only reached from the hooks' slow path (a thread's first call of a function),
 * so one mutex is enough. Descriptions live until the process ends: recorders keep pointers.
 */
#define _GNU_SOURCE
#include "functions.h"

#include "auto.h"
#include "filter.h"
#include "codemap.h"
#include "hash.h"
#include "leftout.h"
#include "run.h"
#include "status.h"

#include "profreport.h"

#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct prof_fn **by_addr; /* open addressing, mask + 1 slots */
static struct prof_fn **by_name;
static size_t mask, count;
static struct prof_symbolizer *symbolizer;
static const char *include, *exclude;
static int lines_at_run; /* PROFILER_SOURCE_LINES=run */

/* fork: the child must not inherit the lock held by a thread that no longer exists. */
static void fork_prepare(void) { pthread_mutex_lock(&lock); }
static void fork_release(void) { pthread_mutex_unlock(&lock); }

static void setup(void)
{
    /* the hooks' settings, PROFILER_INCLUDE=@FILE's file read: the same filters as the runs
       name */
    prof_auto_configure();
    include = prof_run_include();
    exclude = prof_run_exclude();
    const char *lines = prof_getenv("PROFILER_SOURCE_LINES");
    lines_at_run = lines && strcmp(lines, "run") == 0;
    if (lines && lines[0] && !lines_at_run && strcmp(lines, "report") != 0)
        prof_warn("ignoring PROFILER_SOURCE_LINES='%s': expected run or report", lines);
    pthread_atfork(fork_prepare, fork_release, fork_release);
}

static size_t addr_hash(const void *a)
{
    return (size_t)(((uintptr_t)a * 0x9E3779B97F4A7C15ull) >> 32);
}

static size_t name_hash(const char *s) { return (size_t)prof_hash_str(s); }

/* Grow both tables to twice their size; -1 when memory runs out. */
static int grow(void)
{
    size_t n = mask ? (mask + 1) * 2 : 256;
    struct prof_fn **a = calloc(n, sizeof *a), **b = calloc(n, sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    for (size_t i = 0; mask && i <= mask; i++) {
        if (by_addr[i]) {
            size_t h = addr_hash(by_addr[i]->addr) & (n - 1);
            while (a[h])
                h = (h + 1) & (n - 1);
            a[h] = by_addr[i];
        }
        if (by_name[i]) {
            size_t h = name_hash(by_name[i]->name) & (n - 1);
            while (b[h])
                h = (h + 1) & (n - 1);
            b[h] = by_name[i];
        }
    }
    free(by_addr);
    free(by_name);
    by_addr = a;
    by_name = b;
    mask = n - 1;
    return 0;
}

/* The function already named name, or NULL. */
static struct prof_fn *named(const char *name)
{
    for (size_t h = name_hash(name) & mask; by_name[h]; h = (h + 1) & mask)
        if (strcmp(by_name[h]->name, name) == 0)
            return by_name[h];
    return NULL;
}

/* Read where fn is declared, once (lock held): its decl_file stays NULL when DWARF does not
   say or memory runs out. */
static void locate(struct prof_fn *fn)
{
    if (fn->decl_known)
        return;
    fn->decl_known = 1;
    if (prof_sym_locate(symbolizer, fn->addr, &fn->decl_file, &fn->decl_line) <= 0) {
        free(fn->decl_file);
        fn->decl_file = NULL;
    }
}

/*
 * The functions a compiler makes for each unit of its own (gcc's static initializer helper,
 * clang's global initializers): file-local, one per unit, never copies of one source
 * function, and with no declared place DWARF could tell them apart by.
 */
static int unit_function(const struct prof_fn *fn)
{
    static const char *const made[] = {"__static_initialization_and_destruction_",
                                       "__cxx_global_var_init", "__cxx_global_array_dtor",
                                       "_GLOBAL__sub_I_", "_GLOBAL__sub_D_"};
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
        if (strncmp(fn->name, made[i], strlen(made[i])) == 0)
            return 1;
    return 0;
}

/* Whether two descriptions are copies of one source function: an inline in two modules, or a
   header's static function in two units; DWARF says, unless the symbols do (weak ones are one
   function, a unit's own compiler-made ones are not). */
static int same_source(struct prof_fn *a, struct prof_fn *b)
{
    if (a->weak && b->weak)
        return 1;
    if (unit_function(a) || unit_function(b))
        return 0;
    locate(a);
    locate(b);
    return a->decl_file && b->decl_file && a->decl_line == b->decl_line &&
           strcmp(a->decl_file, b->decl_file) == 0;
}

/*
 * A name no different function has yet: two static functions called helper in two files
 * become "helper (a.c:10)" and "helper (b.c:20)"; the first keeps the plain name.
 */
static char *unique_name(struct prof_fn *fn)
{
    struct prof_fn *other = named(fn->name);
    if (!other || same_source(other, fn))
        return strdup(fn->name);
    char where[64];
    for (unsigned k = 1;; k++) {
        /* a unit's own function is named for its unit (by the symbols: DWARF was not read) */
        const char *path = fn->decl_file ? fn->decl_file : unit_function(fn) ? fn->unit : NULL;
        const char *file = path ? strrchr(path, '/') : NULL;
        file = file ? file + 1 : path;
        size_t n = strlen(fn->name) + (file ? strlen(file) : strlen(fn->module)) + 80;
        char *s = malloc(n);
        if (!s)
            return NULL;
        if (k > 1)
            snprintf(where, sizeof where, " #%u", k);
        else
            where[0] = 0;
        if (file && fn->decl_file)
            snprintf(s, n, "%s (%s:%u)%s", fn->name, file, fn->decl_line, where);
        else if (file)
            snprintf(s, n, "%s (%s)%s", fn->name, file, where);
        else
            snprintf(s, n, "%s (+0x%" PRIx64 ")%s", fn->name, fn->offset, where);
        other = named(s);
        if (!other || same_source(other, fn))
            return s;
        free(s);
    }
}

/*
 * Publish the functions of fn's module for the sampling handler (codemap.h), once per module:
 * a sample in one of them that no hook describes is then that function's, not its caller's
 * (lock held). Without memory the module stays unpublished, as before.
 */
static void publish_module(const struct prof_fn *fn)
{
    uintptr_t key = prof_sym_module_key(fn->addr);
    if (!key || prof_codemap_has(key))
        return;
    size_t n = prof_sym_module_spans(symbolizer, fn->addr, NULL, 0);
    struct prof_sym_span *spans = n ? malloc(n * sizeof *spans) : NULL;
    struct prof_code_fn *fns = spans ? prof_codemap_alloc(n) : NULL;
    if (fns) {
        n = prof_sym_module_spans(symbolizer, fn->addr, spans, n);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (spans[i].size && spans[i].size <= UINT32_MAX)
                /* a function's cold part runs in its frame, a scope guard is the collector's:
                   the tree's, as a hooked function's */
                fns[k++] = (struct prof_code_fn){spans[i].lo, (uint32_t)spans[i].size,
                                                 spans[i].part ? PROF_CODE_PART : 0};
        prof_codemap_add(key, fns, k);
    }
    free(spans);
}

/* Left out by the filters: its samples are its own, not its caller's (sample.c) */
static void filter(struct prof_fn *fn)
{
    fn->skip = !prof_filter_selected(fn->name, include, exclude);
    fn->leftout = fn->skip ? prof_leftout_add(fn, (uintptr_t)fn->addr, fn->size) : 0;
}

/* Describe a new function (lock held); NULL when memory runs out. */
static struct prof_fn *describe(const void *addr)
{
    struct prof_fn *fn = calloc(1, sizeof *fn), d;
    if (!fn)
        return NULL;
    if (!symbolizer)
        symbolizer = prof_sym_open();
    if (prof_sym_lookup(symbolizer, addr, &d) != PROF_OK) {
        /* No module holds it (or no memory): the address is the only name there is. */
        char buf[32];
        snprintf(buf, sizeof buf, "0x%" PRIxPTR, (uintptr_t)addr);
        memset(&d, 0, sizeof d);
        d.addr = addr;
        d.name = strdup(buf);
        d.module = strdup("");
        d.offset = (uintptr_t)addr;
        if (!d.name || !d.module) {
            prof_fn_release(&d);
            free(fn);
            return NULL;
        }
    }
    *fn = d;
    char *name = unique_name(fn);
    if (!name) {
        prof_fn_release(fn);
        free(fn);
        return NULL;
    }
    free(fn->name);
    fn->name = name;
    /* Said in the run when read anyway (a shared name), or asked for: not published yet. */
    if (lines_at_run)
        locate(fn);
    if (fn->decl_file && !(fn->file = strdup(fn->decl_file))) {
        prof_fn_release(fn);
        free(fn);
        return NULL;
    }
    fn->line = fn->decl_line;
    return fn;
}

/* Add a new description to both tables (lock held, room made). */
static void insert(struct prof_fn *fn, size_t h)
{
    by_addr[h] = fn;
    size_t k = name_hash(fn->name) & mask;
    while (by_name[k] && strcmp(by_name[k]->name, fn->name) != 0)
        k = (k + 1) & mask;
    if (!by_name[k])
        by_name[k] = fn;
    count++;
}

/* The slot of addr's description in by_addr, or of the empty slot where it goes (lock held,
   room made). */
static size_t addr_slot(const void *addr)
{
    size_t h = addr_hash(addr) & mask;
    while (by_addr[h] && by_addr[h]->addr != addr)
        h = (h + 1) & mask;
    return h;
}

/*
 * A hook described fn: its samples follow the calling-context tree. A sample in its code
 * before (a first call still in its prologue) made it an uninstrumented function's range:
 * that range is emptied, so the rest of its samples are its own node's.
 */
static void hooked(struct prof_fn *fn)
{
    if (fn->uninstrumented) {
        /* described from its samples first: it has hooks after all */
        prof_leftout_drop(fn->leftout);
        fn->uninstrumented = 0;
    }
    filter(fn);
    uint32_t was = prof_codemap_mark((uintptr_t)fn->addr,
                                     fn->skip ? (fn->leftout ? fn->leftout : PROF_CODE_NONE)
                                              : PROF_CODE_HOOKED);
    if (was != PROF_CODE_UNKNOWN && was != PROF_CODE_NONE && was != PROF_CODE_HOOKED &&
        was != PROF_CODE_PART)
        prof_leftout_drop(was);
}

/* The process-wide description of the function at addr, made at its first call. */
const struct prof_fn *prof_fn_get(const void *addr)
{
    pthread_once(&once, setup);
    pthread_mutex_lock(&lock);
    struct prof_fn *fn = NULL;
    if ((count + 1) * 2 > mask + 1 && grow() != 0)
        goto out;
    size_t h = addr_slot(addr);
    fn = by_addr[h];
    if (fn) {
        if (fn->uninstrumented)
            hooked(fn);
        goto out;
    }
    fn = describe(addr);
    if (!fn)
        goto out;
    insert(fn, h);
    publish_module(fn);
    hooked(fn);
out:
    pthread_mutex_unlock(&lock);
    return fn;
}

/*
 * The description of left-out range r that a sample in a function without hooks made
 * (codemap.h), made now if no thread has made it: the owner of the samples asks, outside its
 * signal handler. NULL when memory runs out or the range is gone.
 */
const struct prof_fn *prof_fn_uninstrumented(uint32_t r)
{
    pthread_once(&once, setup);
    pthread_mutex_lock(&lock);
    struct prof_fn *fn = (struct prof_fn *)prof_leftout_fn(r);
    const void *addr = (const void *)prof_leftout_entry(r);
    if (fn || !addr || ((count + 1) * 2 > mask + 1 && grow() != 0))
        goto out;
    size_t h = addr_slot(addr);
    fn = by_addr[h];
    if (fn) {
        /* a hook described it since (its first call was sampled in its prologue): its
           samples are its context's, and no row of its own is written for that range */
        fn = NULL;
        goto out;
    }
    fn = describe(addr);
    if (!fn)
        goto out;
    /* the filters do not decide: it has no hooks to leave out */
    fn->leftout = r;
    fn->uninstrumented = 1;
    insert(fn, h);
    prof_leftout_set_fn(r, fn);
out:
    pthread_mutex_unlock(&lock);
    return fn;
}

void prof_fn_inlined_at(const struct prof_fn *fn, const void *hook)
{
    if (!prof_codemap_inlined((uintptr_t)hook, (uintptr_t)fn->addr, fn->size))
        return;
    /* The table owns the description (recorders hold it const); the mark is only ever set. */
    if (!__atomic_exchange_n(&((struct prof_fn *)fn)->inlined, 1, __ATOMIC_RELEASE))
        __atomic_add_fetch(&prof_inlined_gen, 1, __ATOMIC_RELEASE);
}

/*
 * Forget every address's description: a module was unloaded, and the next may take its
 * addresses. The descriptions stay allocated (recorders point to them) and keep their names,
 * so a function of a module still loaded gets its old name back at its next description. The
 * symbolizer goes too: libdwfl would place the new module's addresses in the old one.
 */
void prof_fn_forget(void)
{
    pthread_once(&once, setup);
    pthread_mutex_lock(&lock);
    if (mask)
        memset(by_addr, 0, (mask + 1) * sizeof *by_addr);
    prof_sym_close(symbolizer);
    symbolizer = NULL;
    pthread_mutex_unlock(&lock);
}
