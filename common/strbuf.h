/*
 * strbuf.h - growable byte strings (strbuf.c) with decimal numbers, printf and RFC 4180 CSV
 * fields: the one string buffer of the collector (part chunks, the run file) and of the
 * profreport command (exports).
 *
 * A prof_sbuf owns its data; prof_sbuf_release frees it. Appends never fail loudly: when memory
 * runs out the buffer is marked failed and later appends do nothing, so a caller checks once.
 */
#ifndef PROF_STRBUF_H
#define PROF_STRBUF_H

#include <stddef.h>
#include <stdint.h>

/* A growable byte string; failed is set (and further appends ignored) when memory runs out. */
struct prof_sbuf {
    char *data;
    size_t len, cap;
    int failed;
};

/* Append n bytes, a NUL-terminated string, one byte, or v in decimal. */
void prof_sbuf_add(struct prof_sbuf *b, const char *s, size_t n);
void prof_sbuf_str(struct prof_sbuf *b, const char *s);
void prof_sbuf_char(struct prof_sbuf *b, char c);
void prof_sbuf_u64(struct prof_sbuf *b, uint64_t v);
/* Room for n more bytes: where to write them (then add n to len), or NULL when out of memory. */
char *prof_sbuf_grow(struct prof_sbuf *b, size_t n);
/* Write v in decimal at p (at most 20 bytes); returns the end. */
char *prof_u64_put(char *p, uint64_t v);
/* Append formatted text (printf). */
void prof_sbuf_addf(struct prof_sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append s[0..n) as one CSV field (RFC 4180): quoted, with its quotes doubled, when it holds a
   comma, quote, CR or LF; as it is otherwise. */
void prof_sbuf_csv(struct prof_sbuf *b, const char *s, size_t n);
/* The text NUL-terminated (the NUL is not counted in len): "" while empty, NULL when the buffer
   failed. Valid until the next append. */
const char *prof_sbuf_cstr(struct prof_sbuf *b);
/* Free the buffer's memory and leave it empty and usable. */
void prof_sbuf_release(struct prof_sbuf *b);

#endif /* PROF_STRBUF_H */
