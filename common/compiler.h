/*
 * compiler.h - the compiler's help that every module of the library may use and none owns:
 * branch hints, relaxed atomics for fields read across threads, and the hidden-visibility
 * marker of library-internal data. Never installed.
 */
#ifndef PROF_COMPILER_H
#define PROF_COMPILER_H

#define PROF_LIKELY(x) __builtin_expect(!!(x), 1)
#define PROF_UNLIKELY(x) __builtin_expect(!!(x), 0)

/*
 * Fields one thread writes and prof_finish reads from another thread use relaxed atomics: they
 * compile to plain moves on x86-64 and ARM64 but make the sharing well defined (and TSan-clean).
 */
#define PROF_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define PROF_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/*
 * Declarations of library-internal data: hidden, so PIC code reaches them without the GOT. The
 * library is built with -fvisibility=hidden, so every function declared in a private header
 * stays inside libprofreport even though its name carries the prof_ prefix.
 */
#define PROF_INTERNAL __attribute__((visibility("hidden")))

#endif /* PROF_COMPILER_H */
