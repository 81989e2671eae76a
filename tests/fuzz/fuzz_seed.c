/*
 * fuzz_seed.c - libFuzzer target: the input as the rows of a file in the minimal seed form
 * (docs/FORMAT.md 2), after a Frequency record. Two checks besides runfile.c's promises:
 * without quotes, the rows, ticks and problems agree with an independent reading of the
 * format's few rules; and moving the rows across the parser's 64 KiB block boundary (with a
 * long extra field in the Frequency record, which the parser ignores) changes nothing.
 */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FREQUENCY "Frequency,3579545"

/* runfile.c reads 64 KiB at a time (RUNFILE_BLOCK). */
#define BLOCK (64 * 1024)

/* What FORMAT.md 2 says the rows hold. */
struct expect {
    int seed; /* 0: the first record is a Format record, not a seed row */
    size_t events, problems, unterminated;
    uint64_t tick_sum, region_hash;
};

/* s[0..n) as a decimal uint64 (digits only, no overflow); 0 when it is not one. */
static int decimal(const uint8_t *s, size_t n, uint64_t *v)
{
    *v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        if (__builtin_mul_overflow(*v, 10, v) || __builtin_add_overflow(*v, s[i] - '0', v))
            return 0;
    }
    return n > 0;
}

/* Read quote-free rows by the seed form's rules: records end at CR or LF; blank ones do not
   count; a row is id,delta with an empty delta for a region that never stopped. */
static void expect_seed(const uint8_t *s, size_t n, struct expect *x)
{
    memset(x, 0, sizeof *x);
    x->seed = 1;
    x->region_hash = FUZZ_HASH_START;
    int first = 1;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && s[j] != '\n' && s[j] != '\r')
            j++;
        size_t len = j - i, commas = 0, comma = 0;
        for (size_t k = i; k < j; k++)
            if (s[k] == ',' && commas++ == 0)
                comma = k;
        if (len > 0 && first) {
            first = 0;
            /* Format with at least three fields starts a versioned run file instead. */
            if (commas >= 2 && comma - i == 6 && memcmp(s + i, "Format", 6) == 0) {
                x->seed = 0;
                return;
            }
        }
        if (len > 0) {
            uint64_t v;
            if (commas != 1) {
                x->problems++;
            } else if (comma + 1 == j || decimal(s + comma + 1, j - comma - 1, &v)) {
                size_t idlen = comma - i;
                x->events++;
                if (comma + 1 == j)
                    x->unterminated++;
                else
                    x->tick_sum += v;
                x->region_hash = fuzz_hash(x->region_hash, &idlen, sizeof idlen);
                x->region_hash = fuzz_hash(x->region_hash, s + i, idlen);
            } else {
                x->problems++;
            }
        }
        i = j + 1;
    }
}

/* The Frequency record (with a third field of pad bytes when pad > 1), then the input;
 *len gets the length (caller frees). */
static uint8_t *seed_text(const uint8_t *data, size_t size, size_t pad, size_t *len)
{
    const size_t head = sizeof FREQUENCY - 1;
    uint8_t *t = malloc(head + pad + 1 + size);
    FUZZ_CHECK(t != NULL);
    memcpy(t, FREQUENCY, head);
    if (pad > 1) {
        t[head] = ',';
        memset(t + head + 1, 'x', pad - 1);
    } else {
        pad = 0;
    }
    t[head + pad] = '\n';
    if (size)
        memcpy(t + head + pad + 1, data, size);
    *len = head + pad + 1 + size;
    return t;
}

/* Read the rows plain and padded across a block boundary; check both against each other and,
   without quotes, against the rules. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t len;
    uint8_t *text = seed_text(data, size, 0, &len);
    struct fuzz_runlog plain = {0};
    enum run_status st = fuzz_parse(text, len, &plain);
    free(text);

    if (!memchr(data, '"', size)) {
        struct expect x;
        expect_seed(data, size, &x);
        if (x.seed) {
            FUZZ_CHECK(st == RUNFILE_OK && plain.kind == RUN_SEED);
            FUZZ_CHECK(plain.events == x.events);
            FUZZ_CHECK(plain.unterminated == x.unterminated);
            FUZZ_CHECK(plain.problems == x.problems);
            FUZZ_CHECK(plain.tick_sum == x.tick_sum);
            FUZZ_CHECK(plain.region_hash == x.region_hash);
        }
    }

    /* The boundary falls in the middle of the rows (or 60000 bytes into long ones). */
    size_t middle = size / 2 < 60000 ? size / 2 : 60000;
    size_t pad = BLOCK - sizeof FREQUENCY - middle;
    text = seed_text(data, size, pad, &len);
    struct fuzz_runlog padded = {0};
    enum run_status pst = fuzz_parse(text, len, &padded);
    free(text);
    FUZZ_CHECK(pst == st);
    FUZZ_CHECK(padded.begun == plain.begun && padded.kind == plain.kind);
    FUZZ_CHECK(padded.metas == plain.metas && padded.events == plain.events &&
               padded.summaries == plain.summaries && padded.memory == plain.memory);
    FUZZ_CHECK(padded.problems == plain.problems && padded.problem_hash == plain.problem_hash);
    FUZZ_CHECK(padded.tick_sum == plain.tick_sum && padded.region_hash == plain.region_hash);
    return 0;
}
