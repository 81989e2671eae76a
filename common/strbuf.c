/*
 * strbuf.c - growable byte strings with decimal numbers, printf and CSV fields, in which the
 * collector builds its part chunks and run file and the profreport command its exports.
 */
#define _GNU_SOURCE /* newlocale, uselocale (POSIX 2008) */
#include "strbuf.h"

#include <locale.h>
#include <math.h>
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
    if (b->fixed) {
        b->failed = 1;
        return 0;
    }
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

/* A buffer that never grows, over mem. */
void prof_sbuf_fixed(struct prof_sbuf *b, char *mem, size_t cap)
{
    memset(b, 0, sizeof *b);
    b->data = mem;
    b->cap = cap;
    b->fixed = 1;
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
const char prof_digit_pairs[200] = "00010203040506070809101112131415161718192021222324"
                                   "25262728293031323334353637383940414243444546474849"
                                   "50515253545556575859606162636465666768697071727374"
                                   "75767778798081828384858687888990919293949596979899";

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

/* Below this, v * 1000 and its fraction are exact enough in a double (2^53 / 1000). */
#define FIXED3_MAX 9.0e12

/* Append v with three decimals as "%.3f" would; see strbuf.h. */
void prof_sbuf_fixed3(struct prof_sbuf *b, double v)
{
    /* printf rounds the exact value of v to 3 decimals, ties to even. s = v * 1000 carries a
       relative error of at most 2^-53: when its fraction is further than that from a half,
       rounding s gives the same thousandths; nearer a half (true ties such as 0.0625
       included), printf decides. NaN fails the first test, and -0.0 (printed "-0.000") the
       sign's. */
    if (!signbit(v) && v < FIXED3_MAX) {
        double s = v * 1000.0;
        uint64_t n = (uint64_t)s;
        double f = s - (double)n;
        if (f - 0.5 > s * 0x1p-51 || 0.5 - f > s * 0x1p-51 + 0x1p-60) {
            n += f > 0.5;
            char *p = prof_sbuf_grow(b, 24);
            if (!p)
                return;
            p = prof_u64_put(p, n / 1000);
            uint32_t t = (uint32_t)(n % 1000);
            p[0] = '.';
            p[1] = (char)('0' + t / 100);
            prof_put_pair(p + 2, t % 100);
            b->len = (size_t)(p + 4 - b->data);
            return;
        }
    }
    prof_sbuf_addf(b, "%.3f", v);
}

/* The "C" locale (glibc hands out its built-in object for it, nothing allocated), made once;
   (locale_t)0 if the system has none. */
static locale_t c_locale(void)
{
    static locale_t made;
    locale_t l = __atomic_load_n(&made, __ATOMIC_ACQUIRE);
    if (l)
        return l;
    locale_t n = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!n)
        return (locale_t)0;
    if (!__atomic_compare_exchange_n(&made, &l, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        freelocale(n);
        return l;
    }
    return n;
}

int prof_vsnprintf_c(char *buf, size_t size, const char *fmt, va_list ap)
{
    locale_t c = c_locale();
    locale_t old = c ? uselocale(c) : (locale_t)0;
    int n = vsnprintf(buf, size, fmt, ap);
    if (c)
        uselocale(old);
    return n;
}

int prof_snprintf_c(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = prof_vsnprintf_c(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

double prof_strtod_c(const char *s, char **end)
{
    locale_t c = c_locale();
    return c ? strtod_l(s, end, c) : strtod(s, end);
}

/* Append formatted text: straight into the buffer when it fits, else once more with room. */
void prof_sbuf_addf(struct prof_sbuf *b, const char *fmt, ...)
{
    char *p = prof_sbuf_grow(b, 64);
    if (!p)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = prof_vsnprintf_c(p, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= b->cap - b->len) {
        p = prof_sbuf_grow(b, (size_t)n + 1);
        if (!p)
            return;
        va_start(ap, fmt);
        prof_vsnprintf_c(p, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

/*
 * Append one RFC 4180 field. The C library's memchr looks for the four bytes that matter many
 * bytes at a time (a run file writes every C++ function name once per calling context, a few
 * hundred kilobytes at a program's exit); a field is copied whole unless it has quotes to
 * double.
 */
void prof_sbuf_csv(struct prof_sbuf *b, const char *s, size_t n)
{
    const char *q = memchr(s, '"', n);
    if (!q && !memchr(s, ',', n) && !memchr(s, '\n', n) && !memchr(s, '\r', n)) {
        prof_sbuf_add(b, s, n);
        return;
    }
    size_t quotes = 0;
    for (; q; q = memchr(q + 1, '"', (size_t)(s + n - (q + 1))))
        quotes++;
    char *d = prof_sbuf_grow(b, n + quotes + 2);
    if (!d)
        return;
    *d++ = '"';
    if (!quotes) {
        memcpy(d, s, n);
        d += n;
    } else {
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '"')
                *d++ = '"';
            *d++ = s[i];
        }
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
    if (b->fixed) { /* the caller's memory: emptied, kept */
        b->len = 0;
        b->failed = 0;
        return;
    }
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}
