/*
 * summary.c - encode and decode the binary summary records of PRFS and PRFP chunks: fixed-width
 * little-endian words, so that a recording thread writes its statistics without formatting text.
 */
#include "summary.h"

#include <math.h>
#include <string.h>

/* Append a u32 or a u64 in the byte order of the file (the machine's: little-endian). */
static void put32(struct prof_sbuf *b, uint32_t v) { prof_sbuf_add(b, (const char *)&v, 4); }
static void put64(struct prof_sbuf *b, uint64_t v) { prof_sbuf_add(b, (const char *)&v, 8); }

/* Append one record. */
void prof_summary_encode(struct prof_sbuf *b, const struct prof_summary_counts *c,
                         const uint64_t *hist)
{
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t count[PROF_HIST_BUCKETS];
    uint32_t n = 0;
    for (uint32_t i = 0; i < PROF_HIST_BUCKETS; i++)
        if (hist[i]) {
            bucket[n] = i;
            count[n++] = hist[i];
        }
    prof_summary_encode_pairs(b, c, bucket, count, n);
}

/* Append the record of c and its n non-empty buckets, given in ascending order. */
void prof_summary_encode_pairs(struct prof_sbuf *b, const struct prof_summary_counts *c,
                               const uint32_t *bucket, const uint64_t *count, uint32_t n)
{
    uint64_t sumsq;
    memcpy(&sumsq, &c->sumsq, 8);
    put32(b, c->id);
    put32(b, n);
    put64(b, c->calls);
    put64(b, c->ticks);
    put64(b, c->self);
    put64(b, c->min);
    put64(b, c->max);
    put64(b, c->outer);
    put64(b, sumsq);
    put32(b, c->node);
    put32(b, c->parent);
    put64(b, c->samples);
    put64(b, c->timed);
    put64(b, c->wall);
    for (uint32_t i = 0; i < n; i++) {
        put32(b, bucket[i]);
        put64(b, count[i]);
    }
}

/* Read a u32 or a u64 at p. */
static uint32_t get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint64_t get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Decode one record. */
enum prof_error prof_summary_decode(const unsigned char *p, size_t len, size_t *off,
                                    unsigned version, struct prof_summary_counts *c,
                                    uint32_t *bucket, uint64_t *count, size_t *nhist)
{
    size_t head = version >= 4   ? PROF_SUMMARY_HEAD
                  : version == 3 ? PROF_SUMMARY_HEAD_V3
                                 : PROF_SUMMARY_HEAD_V2;
    if (*off > len || len - *off < head)
        return PROF_ERR_FORMAT;
    const unsigned char *r = p + *off;
    uint32_t n = get32(r + 4);
    if (n > PROF_HIST_BUCKETS || (len - *off - head) / PROF_SUMMARY_PAIR < n)
        return PROF_ERR_FORMAT;
    c->id = get32(r);
    c->calls = get64(r + 8);
    c->ticks = get64(r + 16);
    c->self = get64(r + 24);
    c->min = get64(r + 32);
    c->max = get64(r + 40);
    c->outer = get64(r + 48);
    uint64_t bits = get64(r + 56);
    memcpy(&c->sumsq, &bits, 8);
    c->node = head > 64 ? get32(r + 64) : 0;
    c->parent = head > 64 ? get32(r + 68) : 0;
    /* An older record timed every call exactly. */
    c->samples = head > 72 ? get64(r + 72) : 0;
    c->timed = head > 72 ? get64(r + 80) : c->calls;
    c->wall = head > 72 ? get64(r + 88) : c->ticks;
    /* A sum of squares is finite and not negative (nor -0, which reads as a sign). */
    if (!isfinite(c->sumsq) || signbit(c->sumsq))
        return PROF_ERR_FORMAT;
    r += head;
    for (uint32_t i = 0; i < n; i++, r += PROF_SUMMARY_PAIR) {
        bucket[i] = get32(r);
        count[i] = get64(r + 4);
        if (bucket[i] >= PROF_HIST_BUCKETS)
            return PROF_ERR_FORMAT;
    }
    *nhist = n;
    *off += head + (size_t)n * PROF_SUMMARY_PAIR;
    return PROF_OK;
}
