/*
 * worker_pool.c - a fixed pool of named worker threads taking jobs from a shared queue.
 *
 *   cc worker_pool.c $(pkg-config --cflags --libs profreport) -pthread -o worker_pool
 *   ./worker_pool [jobs [threads]]          (defaults: 200 jobs, 4 threads)
 *
 * The main thread starts the pool (region "start"), enqueues the jobs in batches ("enqueue",
 * which includes the time spent blocked on a full queue) and waits for the pool to drain and
 * its threads to end ("wait"). Each worker names itself "worker-1", "worker-2", ... and wraps
 * every job in a region named after its kind: "job:hash" (short), "job:sort" (longer, with
 * "sort:fill", "sort:qsort" and "sort:verify" inside) and "job:compress" (longest, with
 * "compress:fill", "compress:encode" and "compress:decode" inside). The run file left in
 * profiler-runs/ has a Thread record for main and one per worker.
 */
#include <profreport.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUEUE_CAP 16   /* slots in the job queue: the producer blocks when it is full */
#define BATCH 10       /* jobs enqueued per "enqueue" region */
#define MAX_THREADS 64 /* largest pool accepted on the command line */
#define MAX_JOBS 1000000

#define HASH_BYTES 8192
#define HASH_ROUNDS 4
#define SORT_COUNT 2048
#define COMPRESS_BYTES 65536

enum job_kind { JOB_HASH, JOB_SORT, JOB_COMPRESS, JOB_KINDS };

/* Each kind's region id (a string literal: it lives as long as the process) and label. */
static const struct {
    const char *region, *label;
} kinds[JOB_KINDS] = {{"job:hash", "hash"}, {"job:sort", "sort"}, {"job:compress", "compress"}};

struct job {
    unsigned id;
    enum job_kind kind;
    uint64_t seed;
};

/* The shared queue, a bounded ring guarded by one mutex, and the count of finished jobs. */
struct pool {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full, drained;
    struct job ring[QUEUE_CAP];
    unsigned head, count;
    unsigned finished;
    int closing;
    uint64_t *results; /* one per job, written by the worker that ran it */
};

/* Buffers a worker reuses from job to job. */
struct scratch {
    unsigned values[SORT_COUNT];
    unsigned char plain[COMPRESS_BYTES], packed[2 * COMPRESS_BYTES], unpacked[COMPRESS_BYTES];
};

struct worker {
    struct pool *pool;
    struct scratch *scratch;
    int number;
    pthread_t thread;
};

/* xorshift64*: a small, fast, deterministic pseudo-random generator. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

/* FNV-1a over a buffer of pseudo-random bytes, several rounds. */
static uint64_t job_hash(uint64_t seed)
{
    unsigned char buf[HASH_BYTES];
    uint64_t state = seed | 1;
    for (size_t i = 0; i < sizeof buf; i += 8) {
        uint64_t r = next_random(&state);
        memcpy(buf + i, &r, 8);
    }
    uint64_t h = 14695981039346656037ull;
    for (int round = 0; round < HASH_ROUNDS; round++)
        for (size_t i = 0; i < sizeof buf; i++)
            h = (h ^ buf[i]) * 1099511628211ull;
    return h;
}

/* qsort comparator for unsigned ints. */
static int compare_uint(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* Sort a vector of pseudo-random numbers and check the order. */
static uint64_t job_sort(struct scratch *s, uint64_t seed)
{
    unsigned *values = s->values;
    uint64_t state = seed | 1, sum = 0;
    {
        PROFILER_SCOPE("sort:fill");
        for (size_t i = 0; i < SORT_COUNT; i++)
            values[i] = (unsigned)(next_random(&state) >> 32);
    }
    {
        PROFILER_SCOPE("sort:qsort");
        qsort(values, SORT_COUNT, sizeof *values, compare_uint);
    }
    {
        PROFILER_SCOPE("sort:verify");
        for (size_t i = 0; i < SORT_COUNT; i++) {
            if (i > 0 && values[i - 1] > values[i])
                return 0;
            sum = sum * 31 + values[i];
        }
    }
    return sum;
}

/* Run-length encode in PackBits style; returns the encoded size (out holds 2 * n bytes). */
static size_t rle_encode(const unsigned char *in, size_t n, unsigned char *out)
{
    size_t i = 0, o = 0;
    while (i < n) {
        size_t run = 1;
        while (i + run < n && run < 128 && in[i + run] == in[i])
            run++;
        if (run >= 3) {
            out[o++] = (unsigned char)(257 - run); /* 129..254: a run of 3..128 bytes */
            out[o++] = in[i];
            i += run;
            continue;
        }
        size_t lit = 0; /* literals up to the next run of 3 */
        while (
            i + lit < n && lit < 128 &&
            !(i + lit + 2 < n && in[i + lit] == in[i + lit + 1] && in[i + lit] == in[i + lit + 2]))
            lit++;
        out[o++] = (unsigned char)(lit - 1); /* 0..127: 1..128 literal bytes follow */
        memcpy(out + o, in + i, lit);
        o += lit;
        i += lit;
    }
    return o;
}

/* Decode rle_encode's output; returns the decoded size, at most cap. */
static size_t rle_decode(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
    size_t i = 0, o = 0;
    while (i < n) {
        unsigned c = in[i++];
        size_t len = c < 128 ? c + 1 : 257 - c;
        if (o + len > cap || i + (c < 128 ? len : 1) > n)
            return 0;
        if (c < 128) {
            memcpy(out + o, in + i, len);
            i += len;
        } else {
            memset(out + o, in[i++], len);
        }
        o += len;
    }
    return o;
}

/* Compress a buffer of runs and noise, decode it again and compare. */
static uint64_t job_compress(struct scratch *s, uint64_t seed)
{
    unsigned char *plain = s->plain, *packed = s->packed, *unpacked = s->unpacked;
    uint64_t state = seed | 1;
    {
        PROFILER_SCOPE("compress:fill");
        size_t i = 0;
        while (i < COMPRESS_BYTES) {
            uint64_t r = next_random(&state);
            size_t len = 1 + (r & 31);
            if (len > COMPRESS_BYTES - i)
                len = COMPRESS_BYTES - i;
            if (r & 0x100) {
                memset(plain + i, (int)((r >> 16) & 0xff), len);
            } else {
                for (size_t k = 0; k < len; k++)
                    plain[i + k] = (unsigned char)(next_random(&state) >> 56);
            }
            i += len;
        }
    }
    size_t packed_len, unpacked_len;
    {
        PROFILER_SCOPE("compress:encode");
        packed_len = rle_encode(plain, COMPRESS_BYTES, packed);
    }
    {
        PROFILER_SCOPE("compress:decode");
        unpacked_len = rle_decode(packed, packed_len, unpacked, COMPRESS_BYTES);
    }
    if (unpacked_len != COMPRESS_BYTES || memcmp(plain, unpacked, COMPRESS_BYTES) != 0)
        return 0;
    return packed_len;
}

/* Run one job inside a region named after its kind. */
static uint64_t run_job(struct scratch *s, const struct job *job)
{
    PROFILER_SCOPE(kinds[job->kind].region);
    switch (job->kind) {
    case JOB_HASH:
        return job_hash(job->seed);
    case JOB_SORT:
        return job_sort(s, job->seed);
    case JOB_COMPRESS:
        return job_compress(s, job->seed);
    default:
        return 0;
    }
}

/* Add a job to the queue, waiting while it is full. */
static void queue_push(struct pool *p, const struct job *job)
{
    pthread_mutex_lock(&p->lock);
    while (p->count == QUEUE_CAP)
        pthread_cond_wait(&p->not_full, &p->lock);
    p->ring[(p->head + p->count) % QUEUE_CAP] = *job;
    p->count++;
    pthread_cond_signal(&p->not_empty);
    pthread_mutex_unlock(&p->lock);
}

/* Take the next job; returns 0 when the queue is empty and closing. */
static int queue_pop(struct pool *p, struct job *job)
{
    pthread_mutex_lock(&p->lock);
    while (p->count == 0 && !p->closing)
        pthread_cond_wait(&p->not_empty, &p->lock);
    int got = p->count > 0;
    if (got) {
        *job = p->ring[p->head];
        p->head = (p->head + 1) % QUEUE_CAP;
        p->count--;
        pthread_cond_signal(&p->not_full);
    }
    pthread_mutex_unlock(&p->lock);
    return got;
}

/* A worker thread: name itself, then run jobs until the queue closes. */
static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct pool *p = w->pool;
    char name[32];
    snprintf(name, sizeof name, "worker-%d", w->number);
    PROFILER_THREAD_NAME(name);

    struct job job;
    while (queue_pop(p, &job)) {
        p->results[job.id] = run_job(w->scratch, &job);
        pthread_mutex_lock(&p->lock);
        p->finished++;
        pthread_cond_signal(&p->drained);
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

/* Wait until n jobs have finished. */
static void pool_wait(struct pool *p, unsigned n)
{
    pthread_mutex_lock(&p->lock);
    while (p->finished < n)
        pthread_cond_wait(&p->drained, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

/* Tell the workers to stop once the queue is empty, and join them. */
static void pool_close(struct pool *p, struct worker *workers, int n)
{
    pthread_mutex_lock(&p->lock);
    p->closing = 1;
    pthread_cond_broadcast(&p->not_empty);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < n; i++)
        pthread_join(workers[i].thread, NULL);
}

/* A whole decimal number in [lo, hi] from s, or -1. */
static long parse_count(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    return v;
}

/* Start the pool, feed it the jobs in batches, wait for them and print a summary. */
int main(int argc, char **argv)
{
    long njobs = argc > 1 ? parse_count(argv[1], 0, MAX_JOBS) : 200;
    long nthreads = argc > 2 ? parse_count(argv[2], 1, MAX_THREADS) : 4;
    if (argc > 3 || njobs < 0 || nthreads < 0) {
        fprintf(stderr, "usage: %s [jobs (0-%d) [threads (1-%d)]]\n", argv[0], MAX_JOBS,
                MAX_THREADS);
        return 2;
    }

    struct pool pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
                        .not_empty = PTHREAD_COND_INITIALIZER,
                        .not_full = PTHREAD_COND_INITIALIZER,
                        .drained = PTHREAD_COND_INITIALIZER};
    pool.results = calloc(njobs ? (size_t)njobs : 1, sizeof *pool.results);
    struct scratch *scratch = calloc((size_t)nthreads, sizeof *scratch);
    struct worker workers[MAX_THREADS];
    if (!pool.results || !scratch) {
        fprintf(stderr, "worker_pool: out of memory\n");
        free(pool.results);
        free(scratch);
        return 1;
    }
    /* The main thread's first region, so it is thread 1 in the run file. */
    PROFILER_START("start");
    int started = 0;
    for (; started < nthreads; started++) {
        workers[started].pool = &pool;
        workers[started].scratch = &scratch[started];
        workers[started].number = started + 1;
        int err = pthread_create(&workers[started].thread, NULL, worker_main, &workers[started]);
        if (err) {
            fprintf(stderr, "worker_pool: cannot start a thread: %s\n", strerror(err));
            break;
        }
    }
    PROFILER_STOP();
    if (started < nthreads) {
        pool_close(&pool, workers, started);
        free(pool.results);
        free(scratch);
        return 1;
    }

    unsigned per_kind[JOB_KINDS] = {0};
    for (long first = 0; first < njobs; first += BATCH) {
        PROFILER_SCOPE("enqueue");
        for (long i = first; i < first + BATCH && i < njobs; i++) {
            /* A fixed mix of kinds; the seed makes every job's data different. */
            struct job job = {(unsigned)i, (enum job_kind)((i * 7 + i / 3) % JOB_KINDS),
                              0x9E3779B97F4A7C15ull * (uint64_t)(i + 1)};
            per_kind[job.kind]++;
            queue_push(&pool, &job);
        }
    }
    {
        PROFILER_SCOPE("wait");
        pool_wait(&pool, (unsigned)njobs);
        pool_close(&pool, workers, started);
    }

    uint64_t checksum = 0;
    unsigned failed = 0;
    for (long i = 0; i < njobs; i++) {
        checksum = (checksum ^ pool.results[i]) * 0x100000001B3ull;
        failed += pool.results[i] == 0;
    }
    printf("worker_pool: %ld jobs (%s %u, %s %u, %s %u) on %ld threads, %u failed, "
           "checksum %016llx\n",
           njobs, kinds[JOB_HASH].label, per_kind[JOB_HASH], kinds[JOB_SORT].label,
           per_kind[JOB_SORT], kinds[JOB_COMPRESS].label, per_kind[JOB_COMPRESS], nthreads, failed,
           (unsigned long long)checksum);
    free(pool.results);
    free(scratch);
    return failed ? 1 : 0;
}
