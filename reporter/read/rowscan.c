/*
 * rowscan.c - read the rows the collector writes in one pass (rowscan.h), instead of splitting
 * them into fields and then parsing each field (bench/README.md has the figures). Where 8 bytes
 * remain in the caller's data, a text field's end and a wide number's digits are found a word at
 * a time.
 */
#include "read/rowscan.h"

#include <string.h>

#define ONES 0x0101010101010101ull
#define HIGH 0x8080808080808080ull
#define LOW7 0x7f7f7f7f7f7f7f7full

/* The high bit of each byte of w that is zero, and no other bit (plainsplit.c's test). */
static inline uint64_t zero_bytes(uint64_t w) { return ~(((w & LOW7) + LOW7) | w | LOW7); }

/* 10 to the power k, for k up to 8. */
static const uint64_t tens[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* Read up to 8 digits at p (8 bytes readable): their value into *v, their count returned. */
static inline unsigned digits8(const char *p, uint64_t *v)
{
    uint64_t w;
    memcpy(&w, p, 8); /* little-endian: the first digit is the lowest byte */
    w -= ONES * '0';
    /* A byte that is not a digit has its high bit set here, after w - '0' or w - '0' + 0x76.
       A byte below '0' borrows from the bytes after it, but the first such byte is exact. */
    uint64_t not_digit = (w | (w + ONES * 0x76)) & HIGH;
    unsigned n = not_digit ? (unsigned)__builtin_ctzll(not_digit) >> 3 : 8;
    if (n == 0)
        return 0;
    /* The digits to the top bytes, zeros (leading zeros) below them; then pairs, quads and
       octets are combined by three multiplies (runfile.c's parse_u64). */
    w <<= 8 * (8 - n);
    w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffull;
    w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffull;
    *v = (w * 10000 + (w >> 32)) & 0xffffffffull;
    return n;
}

/* Read a field of 1 to max digits ended by the byte stop (',' or '\n') into *v; the byte after
   the stop, or NULL. The line's '\n' stops every loop before end. Wide fields, often long (a
   Start, a seed delta), are read 8 digits a word; the others, mostly 1 to 4 digits, byte by
   byte, which measured faster for them (bench/README.md). */
static inline char *number(char *p, const char *end, unsigned max, char stop, uint64_t *v, int wide)
{
    uint64_t n = 0;
    unsigned len = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (wide && end - p >= 8 && len <= max) {
        uint64_t part;
        unsigned k = digits8(p, &part);
        if (k == 0)
            break;
        n = n * tens[k] + part; /* wraps only past max digits, refused below */
        len += k;
        p += k;
        if (k < 8)
            break;
    }
#endif
    unsigned d;
    while (len <= max && (d = (unsigned)(unsigned char)*p - '0') <= 9) {
        n = n * 10 + d;
        len++;
        p++;
    }
    if (len == 0 || len > max || *p != stop)
        return NULL;
    *v = n;
    return p + 1;
}

/* The comma that ends the text field at p, or NULL when a line end comes first. */
static inline char *comma(char *p, const char *end)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t m = zero_bytes(w ^ (ONES * ',')) | zero_bytes(w ^ (ONES * '\r')) |
                     zero_bytes(w ^ (ONES * '\n'));
        if (m) {
            p += __builtin_ctzll(m) >> 3;
            return *p == ',' ? p : NULL;
        }
    }
#endif
    (void)end;
    for (;; p++) {
        char c = *p;
        if (c == ',')
            return p;
        if (c == '\n' || c == '\r')
            return NULL;
    }
}

/* An events row in the collector's form; see rowscan.h. */
size_t rowscan_event(char *line, const char *end, struct scanned_event *e)
{
    uint64_t thread, depth;
    /* The NULs go in only once the row is taken: a line given back is the general path's, as
       it was. */
    char *region_end = comma(line, end), *parent_end, *p;
    if (!region_end || !(p = number(region_end + 1, end, 19, ',', &e->ticks, 0)) ||
        !(p = number(p, end, 9, ',', &thread, 0)) || !(parent_end = comma(p, end)))
        return 0;
    char *parent = p;
    if (!(p = number(parent_end + 1, end, 9, ',', &depth, 0)) ||
        !(p = number(p, end, 19, ',', &e->self, 0)) ||
        !(p = number(p, end, 19, ',', &e->start, 1)) || (p[0] != '0' && p[0] != '1') ||
        p[1] != '\n')
        return 0;
    e->nested = p[0] == '1';
    e->thread = (unsigned)thread;
    e->depth = (unsigned)depth;
    e->region = line;
    e->region_len = (size_t)(region_end - line);
    e->parent = parent;
    e->parent_len = (size_t)(parent_end - parent);
    *region_end = 0;
    *parent_end = 0;
    return (size_t)(p + 2 - line);
}

/* A seed-form row; see rowscan.h. */
size_t rowscan_seed(char *line, const char *end, const char **id, size_t *id_len, uint64_t *delta)
{
    char *id_end = comma(line, end), *next;
    if (!id_end || id_end == line || !(next = number(id_end + 1, end, 19, '\n', delta, 1)))
        return 0;
    *id = line;
    *id_len = (size_t)(id_end - line);
    *id_end = 0;
    return (size_t)(next - line);
}
