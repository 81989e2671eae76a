/*
 * hash.h - the one string hash of the library and the command: 64-bit FNV-1a, for the open
 * addressing tables that intern ids, function names, memory sites and call-path names.
 *
 * Not for anything an attacker chooses to collide: every table that uses it compares the keys
 * themselves and grows with its load, so a collision costs time, never a wrong answer.
 */
#ifndef PROF_HASH_H
#define PROF_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a's 64-bit offset basis and prime. */
#define PROF_HASH_INIT 14695981039346656037ull
#define PROF_HASH_PRIME 1099511628211ull

/* Continue the hash h over p[0..n): prof_hash_more(PROF_HASH_INIT, ...) is prof_hash. */
static inline uint64_t prof_hash_more(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * PROF_HASH_PRIME;
    return h;
}

/* The hash of p[0..n). */
static inline uint64_t prof_hash(const void *p, size_t n)
{
    return prof_hash_more(PROF_HASH_INIT, p, n);
}

/* The hash of a NUL-terminated string (the same as prof_hash over its bytes). */
static inline uint64_t prof_hash_str(const char *s)
{
    uint64_t h = PROF_HASH_INIT;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * PROF_HASH_PRIME;
    return h;
}

#endif /* PROF_HASH_H */
