/*
 * profreport_new.hpp - opt-in memory checks of C++ new and delete: replacement global operators
 * new, new[], delete and delete[] (plain, nothrow and sized) that record each block for
 * libprofreport's memory checks (see profreport.h) and allocate with malloc.
 *
 * Copyright (c) 2026 the profreport authors. MIT licence (see LICENSE).
 *
 * A program has one set of global operators, so exactly one source file of the program defines
 * them:
 *
 *     #define PROFILER_MEM_NEW_DEFINE
 *     #include <profreport_new.hpp>
 *
 * Other files need nothing. With -DPROFILER_DISABLE the header defines nothing and the standard
 * operators stay. The site of each block is the address that called new or delete, printed
 * as module+0xoffset. A delete of a block freed already is not passed on (the program runs on
 * and the run file reports the double free); a delete of a block from malloc, or a delete[] of
 * one from new, is reported as a mismatch. malloc and free are seen too only with the
 * PROFILER_MEM_ macros or the preload library libprofreport-malloc.so. The aligned operators
 * (std::align_val_t) are left to the standard library.
 */
#ifndef PROFREPORT_NEW_HPP
#define PROFREPORT_NEW_HPP

#include <profreport.h>

#include <cstddef>
#include <new>

#if defined(PROFILER_MEM_NEW_DEFINE) && !defined(PROFILER_DISABLE)

/* The two entry points of libprofreport these operators call; not for use elsewhere. */
extern "C" {
/* malloc(size) without tracking it as malloc, recorded as kind at caller; NULL when out of
   memory. */
PROF_API void *prof_mem_new(std::size_t size, enum prof_mem_kind kind, const void *caller);
/* Free ptr as kind at caller, unless that is a double free (then refused and reported). */
PROF_API void prof_mem_delete(void *ptr, enum prof_mem_kind kind, const void *caller);
}

namespace prof_mem_detail
{
/* Allocate as operator new must: retry through the new handler, else throw std::bad_alloc. */
PROF_NO_INSTRUMENT inline void *allocate(std::size_t size, enum prof_mem_kind kind,
                                         const void *caller)
{
    for (;;) {
        void *p = prof_mem_new(size, kind, caller);
        if (p)
            return p;
        std::new_handler handler = std::get_new_handler();
        if (!handler)
            throw std::bad_alloc();
        handler();
    }
}

/* The nothrow form: NULL instead of an exception. */
PROF_NO_INSTRUMENT inline void *allocate_nothrow(std::size_t size, enum prof_mem_kind kind,
                                                 const void *caller) noexcept
{
    try {
        return allocate(size, kind, caller);
    } catch (...) {
        return nullptr;
    }
}
} // namespace prof_mem_detail

/* Each operator is out of line, so that its return address is the code that called new. */
#define PROF_MEM_CALLER __builtin_return_address(0)

PROF_NO_INSTRUMENT __attribute__((noinline)) void *operator new(std::size_t size)
{
    return prof_mem_detail::allocate(size, PROF_MEM_NEW, PROF_MEM_CALLER);
}

PROF_NO_INSTRUMENT __attribute__((noinline)) void *operator new[](std::size_t size)
{
    return prof_mem_detail::allocate(size, PROF_MEM_NEW_ARRAY, PROF_MEM_CALLER);
}

PROF_NO_INSTRUMENT __attribute__((noinline)) void *operator new(std::size_t size,
                                                                const std::nothrow_t &) noexcept
{
    return prof_mem_detail::allocate_nothrow(size, PROF_MEM_NEW, PROF_MEM_CALLER);
}

PROF_NO_INSTRUMENT __attribute__((noinline)) void *operator new[](std::size_t size,
                                                                  const std::nothrow_t &) noexcept
{
    return prof_mem_detail::allocate_nothrow(size, PROF_MEM_NEW_ARRAY, PROF_MEM_CALLER);
}

PROF_NO_INSTRUMENT __attribute__((noinline)) void operator delete(void *p) noexcept
{
    prof_mem_delete(p, PROF_MEM_NEW, PROF_MEM_CALLER);
}

PROF_NO_INSTRUMENT __attribute__((noinline)) void operator delete[](void *p) noexcept
{
    prof_mem_delete(p, PROF_MEM_NEW_ARRAY, PROF_MEM_CALLER);
}

PROF_NO_INSTRUMENT __attribute__((noinline)) void operator delete(void *p,
                                                                  const std::nothrow_t &) noexcept
{
    prof_mem_delete(p, PROF_MEM_NEW, PROF_MEM_CALLER);
}

PROF_NO_INSTRUMENT __attribute__((noinline)) void operator delete[](void *p,
                                                                    const std::nothrow_t &) noexcept
{
    prof_mem_delete(p, PROF_MEM_NEW_ARRAY, PROF_MEM_CALLER);
}

PROF_NO_INSTRUMENT __attribute__((noinline)) void operator delete(void *p, std::size_t) noexcept
{
    prof_mem_delete(p, PROF_MEM_NEW, PROF_MEM_CALLER);
}

PROF_NO_INSTRUMENT __attribute__((noinline)) void operator delete[](void *p, std::size_t) noexcept
{
    prof_mem_delete(p, PROF_MEM_NEW_ARRAY, PROF_MEM_CALLER);
}

#undef PROF_MEM_CALLER

#endif /* PROFILER_MEM_NEW_DEFINE && !PROFILER_DISABLE */

#endif /* PROFREPORT_NEW_HPP */
