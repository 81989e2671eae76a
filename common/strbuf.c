/*
 * strbuf.c - growable byte strings with decimal numbers, printf and CSV fields, in which the
 * collector builds its part chunks and run file and the profreport command its exports.
 */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Make room for n more bytes; on failure mark the buffer failed and return 0. */
static int sbuf_reserve(struct prof_sbuf *b, size_t n)
{
    if (b->failed)
        return 0;
    if (b->len + n <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) {
        if (cap > SIZE_MAX / 2) {
            b->failed = 1;
            return 0;
        }
        cap *= 2;
    }
    char *d = realloc(b->data, cap);
    if (!d) {
        b->failed = 1;
        return 0;
    }
    b->data = d;
    b->cap = cap;
    return 1;
}

/* Append n bytes. */
void prof_sbuf_add(struct prof_sbuf *b, const char *s, size_t n)
{
    if (n && sbuf_reserve(b, n)) {
        memcpy(b->data + b->len, s, n);
        b->len += n;
    }
}

/* Append a NUL-terminated string. */
void prof_sbuf_str(struct prof_sbuf *b, const char *s) { prof_sbuf_add(b, s, strlen(s)); }

/* Append one byte. */
void prof_sbuf_char(struct prof_sbuf *b, char c)
{
    if (sbuf_reserve(b, 1))
        b->data[b->len++] = c;
}

/* Two decimal digits for each value 0..99: halves the divisions when formatting integers. */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                  "25262728293031323334353637383940414243444546474849"
                                  "50515253545556575859606162636465666768697071727374"
                                  "75767778798081828384858687888990919293949596979899";

/* Write the two digits of v (below 100) at p. */
static inline void put_pair(char *p, uint32_t v) { memcpy(p, digit_pairs + 2 * v, 2); }

/* Write v (below 10^8) as exactly 8 digits: four pairs computed side by side, not in a chain. */
static inline void put_8(char *p, uint32_t v)
{
    uint32_t hi = v / 10000, lo = v % 10000;
    put_pair(p, hi / 100);
    put_pair(p + 2, hi % 100);
    put_pair(p + 4, lo / 100);
    put_pair(p + 6, lo % 100);
}

/* Write v (below 10^8) without leading zeros; returns the end. Digits go straight to their
   place: short numbers (a depth, a short duration) take one or two steps. */
static char *put_u32(char *p, uint32_t v)
{
    if (v < 10) {
        *p = (char)('0' + v);
        return p + 1;
    }
    if (v < 100) {
        put_pair(p, v);
        return p + 2;
    }
    if (v < 10000) {
        p = put_u32(p, v / 100);
        put_pair(p, v % 100);
        return p + 2;
    }
    p = put_u32(p, v / 10000);
    uint32_t lo = v % 10000;
    put_pair(p, lo / 100);
    put_pair(p + 2, lo % 100);
    return p + 4;
}

/* Write v in decimal at p (at most 20 bytes); returns the end. */
char *prof_u64_put(char *p, uint64_t v)
{
    if (v < 100000000)
        return put_u32(p, (uint32_t)v);
    uint64_t hi = v / 100000000;
    if (hi >= 100000000) {
        p = put_u32(p, (uint32_t)(hi / 100000000));
        put_8(p, (uint32_t)(hi % 100000000));
        p += 8;
    } else {
        p = put_u32(p, (uint32_t)hi);
    }
    put_8(p, (uint32_t)(v % 100000000));
    return p + 8;
}

/* Room for n more bytes at the end of b: the place to write them, or NULL. */
char *prof_sbuf_grow(struct prof_sbuf *b, size_t n)
{
    return sbuf_reserve(b, n) ? b->data + b->len : NULL;
}

/* Append v in decimal. */
void prof_sbuf_u64(struct prof_sbuf *b, uint64_t v)
{
    char *p = prof_sbuf_grow(b, 20);
    if (p)
        b->len = (size_t)(prof_u64_put(p, v) - b->data);
}

/* Append formatted text: straight into the buffer when it fits, else once more with room. */
void prof_sbuf_addf(struct prof_sbuf *b, const char *fmt, ...)
{
    char *p = prof_sbuf_grow(b, 64);
    if (!p)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(p, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= b->cap - b->len) {
        p = prof_sbuf_grow(b, (size_t)n + 1);
        if (!p)
            return;
        va_start(ap, fmt);
        vsnprintf(p, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

/* Append one RFC 4180 field: the quotes are counted first so the field is written in one go. */
void prof_sbuf_csv(struct prof_sbuf *b, const char *s, size_t n)
{
    size_t quotes = 0;
    int special = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            quotes++;
        else if (s[i] == ',' || s[i] == '\n' || s[i] == '\r')
            special = 1;
    }
    if (!quotes && !special) {
        prof_sbuf_add(b, s, n);
        return;
    }
    char *d = prof_sbuf_grow(b, n + quotes + 2);
    if (!d)
        return;
    *d++ = '"';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            *d++ = '"';
        *d++ = s[i];
    }
    *d++ = '"';
    b->len = (size_t)(d - b->data);
}

/* The text with a NUL after it, for the C library. */
const char *prof_sbuf_cstr(struct prof_sbuf *b)
{
    if (b->failed)
        return NULL;
    if (!prof_sbuf_grow(b, 1))
        return NULL;
    b->data[b->len] = 0;
    return b->data;
}

/* Free the buffer's memory and leave it empty and usable. */
void prof_sbuf_release(struct prof_sbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}
