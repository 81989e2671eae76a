/*
 * plainsplit.c - split quote-free lines into exactly the fields and records libcsv reports for
 * them, several times faster than feeding them to libcsv (bench/README.md): one pass that
 * finds the commas and line ends of 8 bytes at a time.
 */
#include "read/plainsplit.h"

#include <stdint.h>
#include <string.h>

#define ONES 0x0101010101010101ull
#define LOW7 0x7f7f7f7f7f7f7f7full

/* The high bit of each byte of w that is zero, and no other bit: exact for every byte (the
   shorter (x - ONES) & ~x & HIGH test flags false bytes after a true one). */
static inline uint64_t zero_bytes(uint64_t w) { return ~(((w & LOW7) + LOW7) | w | LOW7); }

/* The high bit of each byte of w that is ',', '\r' or '\n'. */
static inline uint64_t stops(uint64_t w)
{
    return zero_bytes(w ^ (ONES * ',')) | zero_bytes(w ^ (ONES * '\r')) |
           zero_bytes(w ^ (ONES * '\n'));
}

/* Where the splitter is: the start of the field and of the line it is in. */
struct cut {
    const char *field, *line;
};

/* Act on the comma or line end at p: a comma ends a field; a line end ends the line's last
   field, unless the line is empty (no field), and its record. */
static inline void at_stop(struct cut *c, const char *p, plain_field_fn field,
                           plain_record_fn record, void *ctx)
{
    /* Read before the field callback, which may write over it. */
    unsigned char stop = (unsigned char)*p;
    if (stop == ',') {
        field(c->field, (size_t)(p - c->field), ctx);
    } else {
        /* libcsv ends a record at either byte; a '\n' after '\r' is then a line end between
           records, reported with no field (CSV_REPALL_NL). Without a space function no byte
           is trimmed. */
        if (p > c->line)
            field(c->field, (size_t)(p - c->field), ctx);
        record(stop, ctx);
        c->line = p + 1;
    }
    c->field = p + 1;
}

/* Split quote-free data into libcsv's fields and records; see plainsplit.h. */
size_t plain_split(const char *data, size_t len, plain_field_fn field, plain_record_fn record,
                   void *ctx)
{
    /* Only whole records: the end is just past the last line end (the caller's blocks end
       with one, so this is the last byte). */
    const char *end = data + len;
    while (end > data && end[-1] != '\n' && end[-1] != '\r')
        end--;
    struct cut c = {data, data};
    const char *p = data;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8); /* little-endian: byte k is bits 8k..8k+7 */
        for (uint64_t m = stops(w); m; m &= m - 1)
            at_stop(&c, p + (__builtin_ctzll(m) >> 3), field, record, ctx);
    }
#endif
    for (; p < end; p++)
        if (*p == ',' || *p == '\r' || *p == '\n')
            at_stop(&c, p, field, record, ctx);
    return (size_t)(end - data);
}
