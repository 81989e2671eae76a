/*
 * malloc.c - libprofreport-malloc.so, loaded with LD_PRELOAD: the malloc family of an
 * unmodified program, recorded by libprofreport's memory checks and then done by glibc.
 *
 * The real allocator is reached through glibc's __libc_ entry points, so nothing here needs
 * dlsym (which itself allocates). A double free is refused (glibc would abort the program);
 * everything else reaches glibc unchanged, with errno as glibc left it. malloc_usable_size is
 * not replaced: every block is glibc's, so glibc's own answers for it.
 *
 * Sites are named at the run's end, never in malloc: by function and file:line through the
 * libdw symbolizer of libprofreport-auto (symbols.c, linked in here).
 */
#define _GNU_SOURCE
#include <profreport.h>

#include "memcheck.h" /* prof_mem_realloc_at: private, not installed */
#include "symbols.h"

#include <stdio.h>
#include <string.h>

#include <errno.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

/* glibc's own allocator, exported for replacements like this one. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

#define EXPORT __attribute__((visibility("default")))
#define CALLER __builtin_return_address(0)

/* Whether the running glibc refuses an alignment that is not a power of two in aligned_alloc
   (2.38 and later); before 2.38 aligned_alloc was memalign, which rounds it up. */
static int aligned_alloc_strict;

/* libdw's view of the process, opened at the first site named (the run's end). */
static struct prof_symbolizer *symbols;

/* The memory checks' symbolizer: libdw's function name and the call's file and line. */
static int describe(const void *addr, char *function, size_t function_size, char *file,
                    size_t file_size, unsigned *line)
{
    if (!symbols)
        symbols = prof_sym_open();
    struct prof_fn fn;
    if (prof_sym_lookup_line(symbols, addr, &fn) != PROF_OK)
        return 0;
    /* Without a symbol libdw names the code module+0xoffset: no function name, then. */
    const char *mod = strrchr(fn.module, '/');
    mod = mod ? mod + 1 : fn.module;
    int named = strncmp(fn.name, mod, strlen(mod)) != 0 || strncmp(fn.name + strlen(mod), "+0x", 3);
    /* A versioned symbol's version (pthread_create@GLIBC_2.2.5) and the suffix of a clone the
       compiler made (make_block.constprop.0, .isra.0, .part.0, .cold) are no part of its name. */
    size_t len = named ? strcspn(fn.name, "@") : 0;
    static const char *const clones[] = {".constprop.", ".isra.", ".part.", ".cold", ".lto_priv."};
    for (size_t i = 0; i < sizeof clones / sizeof clones[0]; i++) {
        const char *c = strstr(fn.name, clones[i]);
        if (c && (size_t)(c - fn.name) < len)
            len = (size_t)(c - fn.name);
    }
    snprintf(function, function_size, "%.*s", (int)len, fn.name);
    snprintf(file, file_size, "%s", fn.file ? fn.file : "");
    *line = fn.line;
    prof_fn_release(&fn);
    return 1;
}

/* At load: sites get names, and the stack walk is ready before the program's first malloc;
   which aligned_alloc rule the C library follows (gnu_get_libc_version allocates nothing). */
__attribute__((constructor)) static void preload_init(void)
{
    unsigned major = 0, minor = 0;
    const char *v = gnu_get_libc_version();
    for (; *v >= '0' && *v <= '9'; v++)
        major = major * 10 + (unsigned)(*v - '0');
    if (*v == '.')
        for (v++; *v >= '0' && *v <= '9'; v++)
            minor = minor * 10 + (unsigned)(*v - '0');
    aligned_alloc_strict = major > 2 || (major == 2 && minor >= 38);
    prof_mem_set_symbolizer(describe);
}

/* malloc. */
EXPORT void *malloc(size_t size)
{
    void *p = __libc_malloc(size);
    prof_mem_alloc_at(p, size, PROF_MEM_MALLOC, CALLER);
    return p;
}

/* calloc: n * size bytes, recorded once calloc has checked the product. */
EXPORT void *calloc(size_t n, size_t size)
{
    void *p = __libc_calloc(n, size);
    prof_mem_alloc_at(p, n * size, PROF_MEM_MALLOC, CALLER);
    return p;
}

/* realloc: a free of ptr and an allocation of the result. */
EXPORT void *realloc(void *ptr, size_t size)
{
    return prof_mem_realloc_at(ptr, size, __libc_realloc, CALLER);
}

/* reallocarray, as glibc does it: realloc after an overflow check. */
EXPORT void *reallocarray(void *ptr, size_t n, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return prof_mem_realloc_at(ptr, bytes, __libc_realloc, CALLER);
}

/* free; a double free stops here. */
EXPORT void free(void *ptr)
{
    if (prof_mem_free_at(ptr, PROF_MEM_MALLOC, CALLER))
        return;
    __libc_free(ptr);
}

/* memalign. */
EXPORT void *memalign(size_t alignment, size_t size)
{
    void *p = __libc_memalign(alignment, size);
    prof_mem_alloc_at(p, size, PROF_MEM_MALLOC, CALLER);
    return p;
}

/* aligned_alloc: as the running glibc does it. */
EXPORT void *aligned_alloc(size_t alignment, size_t size)
{
    if (aligned_alloc_strict && (alignment == 0 || (alignment & (alignment - 1)) != 0)) {
        errno = EINVAL;
        return NULL;
    }
    void *p = __libc_memalign(alignment, size);
    prof_mem_alloc_at(p, size, PROF_MEM_MALLOC, CALLER);
    return p;
}

/* posix_memalign: an error number instead of errno, and *out untouched on failure. */
EXPORT int posix_memalign(void **out, size_t alignment, size_t size)
{
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0)
        return EINVAL;
    int saved = errno;
    void *p = __libc_memalign(alignment, size);
    if (!p) {
        int e = errno;
        errno = saved;
        return e ? e : ENOMEM;
    }
    prof_mem_alloc_at(p, size, PROF_MEM_MALLOC, CALLER);
    *out = p;
    return 0;
}

/* valloc. */
EXPORT void *valloc(size_t size)
{
    void *p = __libc_valloc(size);
    prof_mem_alloc_at(p, size, PROF_MEM_MALLOC, CALLER);
    return p;
}

/* pvalloc. */
EXPORT void *pvalloc(size_t size)
{
    void *p = __libc_pvalloc(size);
    prof_mem_alloc_at(p, size, PROF_MEM_MALLOC, CALLER);
    return p;
}
