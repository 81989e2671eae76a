/*
 * strbuf.h - growable byte strings (strbuf.c) with decimal numbers, printf and RFC 4180 CSV
 * fields: the one string buffer of the collector (part chunks, the run file) and of the
 * profreport command (exports).
 *
 * A prof_sbuf owns its data (unless made over the caller's memory by prof_sbuf_fixed);
 * prof_sbuf_release frees it. Appends never fail loudly: when memory
 * runs out the buffer is marked failed and later appends do nothing, so a caller checks once.
 */
#ifndef PROF_STRBUF_H
#define PROF_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A growable byte string; failed is set (and further appends ignored) when memory runs out. */
struct prof_sbuf {
    char *data;
    size_t len, cap;
    int failed;
    int fixed; /* data is the caller's memory of cap bytes: never grown nor freed */
};

/* A buffer over the caller's memory of cap bytes, which appends never grow (an append that does
   not fit marks it failed): no allocation, so a signal handler may build in it (crash.c). */
void prof_sbuf_fixed(struct prof_sbuf *b, char *mem, size_t cap);

/* Append n bytes, a NUL-terminated string, one byte, or v in decimal. */
void prof_sbuf_add(struct prof_sbuf *b, const char *s, size_t n);
void prof_sbuf_str(struct prof_sbuf *b, const char *s);
void prof_sbuf_char(struct prof_sbuf *b, char c);
void prof_sbuf_u64(struct prof_sbuf *b, uint64_t v);
/* Append v with three decimals, byte for byte as printf's "%.3f" writes it (a trace's
   microseconds): without printf unless v is negative, huge, not a number, or as near a
   rounding tie as the arithmetic can tell apart. */
void prof_sbuf_fixed3(struct prof_sbuf *b, double v);
/* Room for n more bytes: where to write them (then add n to len), or NULL when out of memory. */
char *prof_sbuf_grow(struct prof_sbuf *b, size_t n);
/* snprintf and vsnprintf in the "C" locale, whatever the program set: a collector writes run
   files inside a program that may have called setlocale(LC_ALL, ""), whose decimal comma would
   split a CSV field ("1,5e+18"). */
int prof_snprintf_c(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int prof_vsnprintf_c(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* strtod in the "C" locale: the collector reads its settings ("1.5ms") after the program may
   have made the decimal point a comma. */
double prof_strtod_c(const char *s, char **end);
/* Append formatted text (printf, in the "C" locale). */
void prof_sbuf_addf(struct prof_sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append s[0..n) as one CSV field (RFC 4180): quoted, with its quotes doubled, when it holds a
   comma, quote, CR or LF; as it is otherwise. */
void prof_sbuf_csv(struct prof_sbuf *b, const char *s, size_t n);
/* The text NUL-terminated (the NUL is not counted in len): "" while empty, NULL when the buffer
   failed. Valid until the next append. */
const char *prof_sbuf_cstr(struct prof_sbuf *b);
/* Free the buffer's memory (a fixed one's is the caller's: kept) and leave it empty and
   usable. */
void prof_sbuf_release(struct prof_sbuf *b);

/* Two decimal digits for each value 0..99 (strbuf.c). */
extern const char prof_digit_pairs[200];

/* Write the two digits of v (below 100) at p. */
static inline void prof_put_pair(char *p, uint32_t v) { memcpy(p, prof_digit_pairs + 2 * v, 2); }

/* Write v (below 10^8) as exactly 8 digits: four pairs computed side by side, not in a chain. */
static inline void prof_put_8(char *p, uint32_t v)
{
    uint32_t hi = v / 10000, lo = v % 10000;
    prof_put_pair(p, hi / 100);
    prof_put_pair(p + 2, hi % 100);
    prof_put_pair(p + 4, lo / 100);
    prof_put_pair(p + 6, lo % 100);
}

/* Write v (below 10^8) without leading zeros; returns the end. Digits go straight to their
   place: short numbers (a depth, a short duration) take one or two steps. */
static inline char *prof_u32_put(char *p, uint32_t v)
{
    if (v < 10) {
        *p = (char)('0' + v);
        return p + 1;
    }
    if (v < 100) {
        prof_put_pair(p, v);
        return p + 2;
    }
    if (v >= 10000) {
        uint32_t hi = v / 10000, lo = v % 10000;
        p = hi < 10     ? (*p = (char)('0' + hi), p + 1)
            : hi < 100  ? (prof_put_pair(p, hi), p + 2)
            : hi < 1000 ? (*p = (char)('0' + hi / 100), prof_put_pair(p + 1, hi % 100), p + 3)
                        : (prof_put_pair(p, hi / 100), prof_put_pair(p + 2, hi % 100), p + 4);
        prof_put_pair(p, lo / 100);
        prof_put_pair(p + 2, lo % 100);
        return p + 4;
    }
    if (v < 1000) {
        *p = (char)('0' + v / 100);
        prof_put_pair(p + 1, v % 100);
        return p + 3;
    }
    prof_put_pair(p, v / 100);
    prof_put_pair(p + 2, v % 100);
    return p + 4;
}

/* Write v in decimal at p (at most 20 bytes); returns the end. Inline: the run file at exit is
   mostly numbers, four to a row. */
static inline char *prof_u64_put(char *p, uint64_t v)
{
    if (v < 100000000)
        return prof_u32_put(p, (uint32_t)v);
    uint64_t hi = v / 100000000;
    if (hi >= 100000000) {
        p = prof_u32_put(p, (uint32_t)(hi / 100000000));
        prof_put_8(p, (uint32_t)(hi % 100000000));
        p += 8;
    } else {
        p = prof_u32_put(p, (uint32_t)hi);
    }
    prof_put_8(p, (uint32_t)(v % 100000000));
    return p + 8;
}

#endif /* PROF_STRBUF_H */
