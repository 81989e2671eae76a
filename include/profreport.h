/*
 * profreport.h - the collector's public API: regions timed in your program, one run file per
 * process.
 *
 * Copyright (c) 2026 the profreport authors. MIT licence (see LICENSE).
 *
 * This is the only header profreport installs. Wrap the code you want timed:
 *
 *     PROFILER_START("load");  load();  PROFILER_STOP();
 *     for (i = 0; i < n; i++) { PROFILER_SCOPE("step"); step(i); }
 *
 * and link with `pkg-config --libs profreport`. At exit the process leaves one run file,
 * profiler-runs/profiling_YYYY.MM.DD_HH.MM.SS_<pid>.csv, which `profreport` turns into a workbook.
 *
 * Ownership: every string passed in stays owned by the caller. A region id must stay valid and
 * unchanged until the run file is written (normally at exit): string literals and
 * __func__ are the usual ids. Thread names and directories are copied.
 *
 * Compiling with -DPROFILER_DISABLE turns every PROFILER_ macro into ((void)0): its arguments
 * are not evaluated and nothing is linked in. The prof_ functions stay callable.
 */
#ifndef PROFREPORT_H
#define PROFREPORT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PROF_VERSION_MAJOR 0
#define PROF_VERSION_MINOR 2
#define PROF_VERSION_PATCH 0
#define PROF_VERSION_STRING "0.2.0"

/* The run-file format version this library writes (docs/FORMAT.md). */
#define PROF_FORMAT_VERSION 4

#if defined(__GNUC__) && !defined(PROF_STATIC_BUILD)
#define PROF_API __attribute__((visibility("default")))
#else
#define PROF_API
#endif

/* The header's own functions are never instrumented: under -finstrument-functions their enter
   and exit hooks would bracket the region they open or close (a guard's constructor would
   close its own scope on return). */
#if defined(__GNUC__)
#define PROF_NO_INSTRUMENT __attribute__((no_instrument_function))
#else
#define PROF_NO_INSTRUMENT
#endif

/* Parameter i is an address kept, never read through: gcc then does not take the token
   passed in its own initializer for a read of an uninitialized object. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 10
#define PROF_ADDRESS_ONLY(i) __attribute__((access(none, i)))
#else
#define PROF_ADDRESS_ONLY(i)
#endif

/* Every prof_ function that can fail returns one of these; prof_strerror() names it. */
enum prof_error {
    PROF_OK = 0,       /* success */
    PROF_ERR_NOMEM,    /* memory allocation failed */
    PROF_ERR_IO,       /* a file could not be created, written or read */
    PROF_ERR_DISABLED, /* profiling is off (PROFILER_ENABLE=0, or stopped after an error) */
    PROF_ERR_STATE,  /* the call does not fit the current state (e.g. init after recording began) */
    PROF_ERR_FORMAT, /* a temporary file is not in a format this library can read */
    PROF_ERR_ARGUMENT, /* an argument is NULL or out of range */
    PROF_ERR_LAST      /* not an error: the number of codes */
};

/* A short lowercase description of err, never NULL ("unknown error" for values out of range). */
PROF_API const char *prof_strerror(enum prof_error err);

/* The library's version, "MAJOR.MINOR.PATCH". */
PROF_API const char *prof_version(void);

/*
 * Open a region named id on the calling thread. Regions nest: the innermost open region is the
 * parent of the next one opened. id must outlive the run (see above). Never fails visibly: when
 * profiling is off or has stopped after an error, this does nothing.
 */
PROF_API void prof_start(const char *id);

/* Close the innermost open region of the calling thread. With none open, a warning is recorded. */
PROF_API void prof_stop(void);

/*
 * Choose the output folder before the first region is opened: dir, or when dir is NULL
 * $PROFILER_DIR, or ./profiler-runs. The folder is created if missing. Optional: the first region
 * initialises with the defaults. Also starts a new run after prof_finish().
 * Returns PROF_ERR_STATE when a run is already recording (or stopped after an error and not yet
 * finished), PROF_ERR_DISABLED when PROFILER_ENABLE=0, PROF_ERR_IO when the folder cannot be
 * created or written.
 */
PROF_API enum prof_error prof_init(const char *dir);

/*
 * Write the run file now instead of at exit, and stop recording. Regions still open are written
 * as never stopped. Safe to call twice; the second call does nothing and returns PROF_OK.
 */
PROF_API enum prof_error prof_finish(void);

/*
 * Name the calling thread in the run file (copied; at most 63 bytes kept). Call it any time:
 * naming alone does not make a thread record, the name waits for its first region.
 */
PROF_API void prof_thread_name(const char *name);

/*
 * What PROFILER_SCOPE keeps to close its own region, and no other, at the end of the block.
 * Filled by prof_scope_begin_at; reserved is zero today and room for later versions, so the
 * token can grow without changing its size.
 */
struct prof_scope {
    unsigned depth;    /* the region's depth, or ~0u when it was not recorded */
    unsigned serial;   /* which instance at that depth */
    const void *where; /* the token's own address, where its stack frame is; NULL: unknown */
    void *reserved[1];
};

/*
 * Used by PROFILER_SCOPE: opens id, returns the token for prof_scope_end, which is stored at
 * where (the token's own address). The region lives as long as the token's stack frame: when
 * a longjmp leaves that frame, so that prof_scope_end never runs, the thread's next region
 * event from higher up the stack (a start, a stop, a scope's end) closes the region first and
 * counts an unwound warning.
 */
PROF_API struct prof_scope prof_scope_begin_at(const char *id, const void *where)
    PROF_ADDRESS_ONLY(2);

/* As prof_scope_begin_at with the token's address unknown (the 0.2.0 macros): such a region is
   never closed as unwound. */
PROF_API struct prof_scope prof_scope_begin(const char *id);

/*
 * Used by PROFILER_SCOPE: closes the region the token names, and any region opened inside it
 * and left open (an early return or an exception skipped its STOP). If that region was already
 * stopped by hand, closes nothing. Both cases count a scope-mismatch warning.
 */
PROF_API void prof_scope_end(const struct prof_scope *token);

/*
 * Module API profiling. A module (say an allocator) declares itself with PROFILER_API_DECLARE
 * in its header and PROFILER_API_DEFINE in one source file, and puts PROFILER_API(name) at the
 * top of each public function: time inside the module is then one region named after it, per
 * thread. A public function called from another public function of the same module (on the
 * same thread) opens no second region, so no time is counted twice.
 */
struct prof_api {
    const char *name;
};

/* What PROFILER_API keeps: the thread's nesting count for the module, and the region (whose
   where is set at the outermost entry only). reserved is zero today and room for later
   versions, as in struct prof_scope. */
struct prof_api_scope {
    unsigned *nesting;
    struct prof_scope scope;
    void *reserved[1];
};

/*
 * Used by PROFILER_API: enter the module; opens its region only at the outermost entry. The
 * token is stored at where (its own address): as with prof_scope_begin_at, a longjmp out of
 * the module closes the region at the thread's next event from higher up the stack, and sets
 * the nesting count back to zero; the outermost exit also sets it to zero, forgetting
 * entries a longjmp inside the module left.
 */
PROF_API struct prof_api_scope prof_api_enter_at(const struct prof_api *api, unsigned *nesting,
                                                 const void *where) PROF_ADDRESS_ONLY(3);

/* As prof_api_enter_at with the token's address unknown (the 0.2.0 macros). */
PROF_API struct prof_api_scope prof_api_enter(const struct prof_api *api, unsigned *nesting);

/* Used by PROFILER_API: leave the module; closes its region at the outermost exit. */
PROF_API void prof_api_leave(const struct prof_api_scope *s);

/*
 * Memory-operation checks. Each allocation and free reported here is entered in a table of
 * blocks: at the end of the run the blocks never freed are leaks, and a free of a block freed
 * already (double free), of a pointer never allocated (unknown free), with the deallocator of
 * another kind (free of a new'd block, delete of a new[]'d one...) or on another thread than
 * the allocation is a finding of the run file's memory section. Each thread also counts the
 * bytes it allocates in the innermost region it is inside. Three ways in: the PROFILER_MEM_
 * macros (site: file and line), the C++ header <profreport_new.hpp> (new and delete) and the
 * preload library libprofreport-malloc.so (malloc and free of an unmodified program).
 */
enum prof_mem_kind {
    PROF_MEM_MALLOC,    /* malloc/calloc/realloc..., freed with free */
    PROF_MEM_NEW,       /* operator new, freed with delete */
    PROF_MEM_NEW_ARRAY, /* operator new[], freed with delete[] */
    PROF_MEM_KIND_LAST  /* not a kind: the number of kinds */
};

/* Used by PROFILER_MEM_ALLOC: size bytes at ptr were allocated (NULL is ignored) at site. */
PROF_API void prof_mem_alloc(void *ptr, size_t size, enum prof_mem_kind kind, const char *site);

/*
 * Used by PROFILER_MEM_FREE: ptr is about to be freed with the deallocator of kind, at site.
 * Returns nonzero when ptr was freed already and not allocated again (a double free): the
 * caller should then not free it. site must be a string that outlives the run (a literal).
 * Returns 0 for NULL, and when profiling is off (the table of blocks is kept all the same).
 */
PROF_API int prof_mem_free(void *ptr, enum prof_mem_kind kind, const char *site);

/* As prof_mem_alloc, the site being a return address (printed as module+0xoffset). */
PROF_API void prof_mem_alloc_at(void *ptr, size_t size, enum prof_mem_kind kind,
                                const void *caller);

/* As prof_mem_free, the site being a return address. */
PROF_API int prof_mem_free_at(void *ptr, enum prof_mem_kind kind, const void *caller);

#ifdef __cplusplus
} /* extern "C" */
#endif

#define PROF_CONCAT_(a, b) a##b
#define PROF_CONCAT(a, b) PROF_CONCAT_(a, b)

#ifdef __cplusplus
/* RAII form of a region: opened on construction, closed at the end of the enclosing block. */
class prof_scope_guard
{
  public:
    PROF_NO_INSTRUMENT explicit prof_scope_guard(const char *id)
        : token_(prof_scope_begin_at(id, &token_))
    {
    }
    PROF_NO_INSTRUMENT ~prof_scope_guard() { prof_scope_end(&token_); }
    prof_scope_guard(const prof_scope_guard &) = delete;
    prof_scope_guard &operator=(const prof_scope_guard &) = delete;

  private:
    struct prof_scope token_;
};
#endif

#ifdef __cplusplus
/* RAII form of PROFILER_API. */
class prof_api_guard
{
  public:
    PROF_NO_INSTRUMENT prof_api_guard(const struct prof_api *api, unsigned *nesting)
        : scope_(prof_api_enter_at(api, nesting, &scope_))
    {
    }
    PROF_NO_INSTRUMENT ~prof_api_guard() { prof_api_leave(&scope_); }
    prof_api_guard(const prof_api_guard &) = delete;
    prof_api_guard &operator=(const prof_api_guard &) = delete;

  private:
    struct prof_api_scope scope_;
};
#endif

#ifdef PROFILER_DISABLE
#define PROFILER_START(id) ((void)0)
#define PROFILER_STOP() ((void)0)
#define PROFILER_SCOPE(id) ((void)0)
#define PROFILER_INIT(dir) ((void)0)
#define PROFILER_FINISH() ((void)0)
#define PROFILER_THREAD_NAME(name) ((void)0)
/* At file scope ((void)0) is not valid: these declare an unused incomplete type instead. */
#define PROFILER_API_DECLARE(name) struct prof_api_off_##name
#define PROFILER_API_DEFINE(name) struct prof_api_off_##name
#define PROFILER_API(name) ((void)0)
#define PROFILER_MEM_ALLOC(ptr, size, kind) ((void)0)
/* An int expression like the macro it replaces, usable as a statement without a warning:
   0, never a double free known, so the caller frees. Evaluates no argument. */
PROF_NO_INSTRUMENT static inline int prof_mem_free_off(void) { return 0; }
#define PROFILER_MEM_FREE(ptr, kind) prof_mem_free_off()
#else
#define PROFILER_START(id) prof_start(id)
#define PROFILER_STOP() prof_stop()
#ifdef __cplusplus
#define PROFILER_SCOPE(id) prof_scope_guard PROF_CONCAT(prof_scope_, __COUNTER__)(id)
#else
/* The token's own address is passed in: its name is in scope in its initializer. */
#define PROFILER_SCOPE(id) PROF_SCOPE_(PROF_CONCAT(prof_scope_, __COUNTER__), id)
#define PROF_SCOPE_(token, id)                                                                     \
    const struct prof_scope token __attribute__((cleanup(prof_scope_end), unused)) =               \
        prof_scope_begin_at(id, &token)
#endif
#define PROFILER_INIT(dir) ((void)prof_init(dir))
#define PROFILER_FINISH() ((void)prof_finish())
#define PROFILER_THREAD_NAME(name) prof_thread_name(name)
#define PROF_STRING_(x) #x
#define PROF_STRING(x) PROF_STRING_(x)
#define PROFILER_MEM_ALLOC(ptr, size, kind)                                                        \
    prof_mem_alloc((ptr), (size), (kind), __FILE__ ":" PROF_STRING(__LINE__))
/* Nonzero when ptr is a double free, which the caller must not pass to free:
   if (!PROFILER_MEM_FREE(p, PROF_MEM_MALLOC)) free(p); */
#define PROFILER_MEM_FREE(ptr, kind)                                                               \
    prof_mem_free((ptr), (kind), __FILE__ ":" PROF_STRING(__LINE__))
#define PROFILER_API_DECLARE(name)                                                                 \
    extern const struct prof_api prof_api_##name;                                                  \
    extern __thread unsigned prof_api_nesting_##name
#define PROFILER_API_DEFINE(name)                                                                  \
    extern const struct prof_api prof_api_##name; /* external linkage in C++ too */                \
    const struct prof_api prof_api_##name = {#name};                                               \
    __thread unsigned prof_api_nesting_##name
#ifdef __cplusplus
#define PROFILER_API(name)                                                                         \
    prof_api_guard PROF_CONCAT(prof_api_, __COUNTER__)(&prof_api_##name, &prof_api_nesting_##name)
#else
#define PROFILER_API(name) PROF_API_SCOPE_(PROF_CONCAT(prof_api_, __COUNTER__), name)
#define PROF_API_SCOPE_(token, name)                                                               \
    const struct prof_api_scope token __attribute__((cleanup(prof_api_leave), unused)) =           \
        prof_api_enter_at(&prof_api_##name, &prof_api_nesting_##name, &token)
#endif
#endif

#endif /* PROFREPORT_H */
