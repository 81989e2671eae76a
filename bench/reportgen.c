/*
 * reportgen.c - write the reporter benchmark's input: a seed-form run file (docs/FORMAT.md
 * section 2), "Frequency,N" then ROWS "id,delta" rows over 200 region ids (bench/README.md).
 */

/*
 *   reportgen FILE [ROWS]      write FILE (default 10,000,000 rows), or reuse it
 *
 * The output depends only on ROWS: a fixed seed drives every random choice. A stamp file,
 * FILE.stamp, records the generator's build time, its parameters and the size written; when FILE
 * exists with that size and the stamp matches, the file is reused (a rebuilt generator writes it
 * again, which takes about a second). The file is written under a temporary
 * name and renamed into place, so an interrupted run never leaves a short file behind.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_ROWS 10000000ull
#define NIDS 200
#define SEED 0x5eedbe7c4a11ull
/* A 3 GHz time-stamp counter: the deltas are ticks. */
#define FREQUENCY 3000000000ull
/* When this program was built: a rebuilt generator (perhaps changed) writes the file anew. */
#define GEN_BUILD __DATE__ " " __TIME__
/* Region choice: a table of this many slots, filled in proportion to each region's weight. */
#define PICK_SLOTS 65536u
#define BUF_SIZE (1u << 20)

/* Module namespaces: ids look like "render::region_017", of several lengths. */
static const char *const modules[] = {"net",   "db",    "render", "storage",
                                      "audio", "input", "physics"};
#define NMODULES (sizeof modules / sizeof modules[0])

static uint64_t rng_state = SEED;

/* splitmix64: a fast generator of good quality, enough for test data. */
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static double rng_unit(void) { return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0; }

/* Standard normal (Box-Muller, one value per call). */
static double rng_normal(void)
{
    double u = rng_unit(), v = rng_unit();
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* Write v in decimal at p; returns the number of digits. */
static size_t put_u64(char *p, uint64_t v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        p[i] = tmp[n - 1 - i];
    return n;
}

/* The stamp's text for these parameters, with the size written. */
static void stamp_text(char *out, size_t cap, uint64_t rows, unsigned long long bytes)
{
    snprintf(out, cap, "reportgen built %s, rows %llu, ids %d, seed %llx, bytes %llu\n", GEN_BUILD,
             (unsigned long long)rows, NIDS, (unsigned long long)SEED, bytes);
}

/* Whether file exists, its stamp names these parameters and its size is the one stamped. */
static int reusable(const char *file, const char *stamp, uint64_t rows)
{
    struct stat st;
    char have[256] = "", want[256];
    FILE *f = fopen(stamp, "r");
    if (!f || stat(file, &st) != 0) {
        if (f)
            fclose(f);
        return 0;
    }
    size_t n = fread(have, 1, sizeof have - 1, f);
    fclose(f);
    have[n] = 0;
    stamp_text(want, sizeof want, rows, (unsigned long long)st.st_size);
    return strcmp(have, want) == 0;
}

static void die(const char *what, const char *arg)
{
    fprintf(stderr, "reportgen: %s %s: %s\n", what, arg, strerror(errno));
    exit(1);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || argv[1][0] == '-') {
        fprintf(stderr, "usage: reportgen FILE [ROWS]\n");
        return 2;
    }
    const char *file = argv[1];
    uint64_t rows = DEFAULT_ROWS;
    if (argc == 3) {
        char *end;
        rows = strtoull(argv[2], &end, 10);
        if (*end || end == argv[2] || rows == 0) {
            fprintf(stderr, "reportgen: ROWS must be a positive number, not '%s'\n", argv[2]);
            return 2;
        }
    }
    size_t flen = strlen(file);
    char *stamp = malloc(flen + 8), *tmp = malloc(flen + 8);
    if (!stamp || !tmp)
        die("out of memory for", file);
    snprintf(stamp, flen + 8, "%s.stamp", file);
    snprintf(tmp, flen + 8, "%s.tmp", file);
    if (reusable(file, stamp, rows)) {
        printf("reportgen: reusing %s\n", file);
        return 0;
    }

    /* Each region: an id, a weight (Zipf-like: a few regions take most calls, every region
       gets thousands) and a log-normal cost (median from 10^6 to 10^10 ticks, a heavy
       right tail). */
    char ids[NIDS][32];
    size_t idlen[NIDS];
    double mu[NIDS], sigma[NIDS], weight[NIDS], wsum = 0;
    for (int i = 0; i < NIDS; i++) {
        int len =
            snprintf(ids[i], sizeof ids[i], "%s::region_%03d", modules[rng_next() % NMODULES], i);
        idlen[i] = (size_t)len;
        mu[i] = log(10) * (6 + 4 * rng_unit());
        sigma[i] = 0.4 + 0.9 * rng_unit();
        weight[i] = 1 / pow(i + 1, 0.7);
        wsum += weight[i];
    }
    static unsigned char pick[PICK_SLOTS];
    double cum = 0;
    size_t slot = 0;
    for (int i = 0; i < NIDS; i++) {
        cum += weight[i] / wsum;
        size_t end = i == NIDS - 1 ? PICK_SLOTS : (size_t)(cum * PICK_SLOTS + 0.5);
        for (; slot < end; slot++)
            pick[slot] = (unsigned char)i;
    }

    unlink(stamp); /* no stamp until the new file is in place */
    FILE *out = fopen(tmp, "w");
    if (!out)
        die("cannot write", tmp);
    char *buf = malloc(BUF_SIZE);
    if (!buf)
        die("out of memory for", file);
    size_t used = (size_t)snprintf(buf, BUF_SIZE, "Frequency,%llu\n", FREQUENCY);
    unsigned long long bytes = 0;
    for (uint64_t r = 0; r < rows; r++) {
        /* The first rows name every region once, so that each appears even in a short file. */
        int i = r < NIDS ? (int)r : pick[rng_next() % PICK_SLOTS];
        double d = exp(mu[i] + sigma[i] * rng_normal());
        uint64_t delta = d < 1 ? 1 : d > 1e15 ? (uint64_t)1e15 : (uint64_t)d;
        memcpy(buf + used, ids[i], idlen[i]);
        used += idlen[i];
        buf[used++] = ',';
        used += put_u64(buf + used, delta);
        buf[used++] = '\n';
        if (used > BUF_SIZE - 64) {
            if (fwrite(buf, 1, used, out) != used)
                die("cannot write", tmp);
            bytes += used;
            used = 0;
        }
    }
    if (fwrite(buf, 1, used, out) != used || fclose(out) != 0)
        die("cannot write", tmp);
    bytes += used;
    free(buf);
    if (rename(tmp, file) != 0)
        die("cannot rename into place", tmp);
    FILE *s = fopen(stamp, "w");
    char text[256];
    stamp_text(text, sizeof text, rows, bytes);
    if (!s || fputs(text, s) < 0 || fclose(s) != 0)
        die("cannot write", stamp);
    printf("reportgen: wrote %s: %llu rows, %llu bytes (%.1f bytes/row)\n", file,
           (unsigned long long)rows, bytes, (double)bytes / (double)rows);
    free(stamp);
    free(tmp);
    return 0;
}
