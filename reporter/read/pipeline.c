/*
 * pipeline.c - read the inputs on two cores: a reader thread parses run files into batches of
 * recorded calls, the calling thread replays them into the model in the order they were made.
 */
#define _GNU_SOURCE /* fopencookie */
#include "read/pipeline.h"
#include "read/batch.h"
#include "cpuload.h"
#include "base/cpus.h"
#include "base/util.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the reader thread says of each run file before its run (batch_record_mark). */
enum open_mark {
    MARK_OPENED,     /* the run's calls follow */
    MARK_OPEN_ERROR, /* value: errno */
    MARK_NOT_REGULAR /* value: the file's mode */
};

/* The two threads' shared state: the batches handed over, and those given back. */
struct pipeline {
    const struct input *in;
    size_t n;
    int count_bytes;                /* record the bytes read (a progress bar is drawn) */
    const struct input_progress *p; /* the model thread's */
    pthread_mutex_t lock;
    pthread_cond_t filled, freed;
    struct run_batch *head, *tail; /* full batches, oldest first */
    struct run_batch *spare;       /* batches given back */
    size_t allocated;              /* batches in existence, at most PIPELINE_BATCHES */
    struct run_batch *last;        /* the reader's empty batch once it is done */
    /* Input index + 1 of the run whose rest the model does not want (its handler stopped
       it): the reader ends that file early. 0: none. */
    atomic_size_t cancel;
    size_t replaying; /* the model thread's input index + 1 */
};

/* Whether in[0..n) is worth two threads, by PROFREPORT_THREADS (cpus.h), the CPUs and the
   sizes. */
int pipeline_wanted(const struct input *in, size_t n)
{
    int asked = rep_threads_asked();
    if (asked == 1)
        return 0;
    size_t files = 0;
    off_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        if (!in[i].path)
            continue; /* a killed run's parts are read on the model's thread */
        struct stat st;
        files++;
        if (in[i].stream)
            bytes += PIPELINE_MIN_BYTES; /* a pipe's size is unknown: count it large */
        else if (stat(in[i].path, &st) == 0)
            bytes += st.st_size;
    }
    if (files == 0)
        return 0;
    if (asked >= 2)
        return 1;
    int cpus = rep_threads();
    return cpus >= 2 && bytes >= (off_t)PIPELINE_MIN_BYTES && prof_runnable_now() < cpus;
}

/* The reader's swap: queue the full batch for the model, then take an empty one (waiting
   while PIPELINE_BATCHES are in use). */
static struct run_batch *hand_over(void *ctx, struct run_batch *full)
{
    struct pipeline *pl = ctx;
    pthread_mutex_lock(&pl->lock);
    full->next = NULL;
    if (pl->tail)
        pl->tail->next = full;
    else
        pl->head = full;
    pl->tail = full;
    pthread_cond_signal(&pl->filled);
    while (!pl->spare && pl->allocated >= PIPELINE_BATCHES)
        pthread_cond_wait(&pl->freed, &pl->lock);
    struct run_batch *b = pl->spare;
    if (b)
        pl->spare = b->next;
    else
        pl->allocated++;
    pthread_mutex_unlock(&pl->lock);
    if (!b)
        b = batch_new(PIPELINE_BATCH_BYTES);
    b->len = 0;
    return b;
}

/* The cursor's next: the oldest full batch, waiting for one. */
static struct run_batch *take(void *ctx)
{
    struct pipeline *pl = ctx;
    pthread_mutex_lock(&pl->lock);
    while (!pl->head)
        pthread_cond_wait(&pl->filled, &pl->lock);
    struct run_batch *b = pl->head;
    pl->head = b->next;
    if (!pl->head)
        pl->tail = NULL;
    pthread_mutex_unlock(&pl->lock);
    return b;
}

/* The cursor's done: the batch goes back to the reader. */
static void give_back(void *ctx, struct run_batch *b)
{
    struct pipeline *pl = ctx;
    pthread_mutex_lock(&pl->lock);
    b->next = pl->spare;
    pl->spare = b;
    pthread_cond_signal(&pl->freed);
    pthread_mutex_unlock(&pl->lock);
}

/* The cursor's progress: recorded bytes, told to the model thread's progress bar. */
static void replay_progress(void *ctx, uint64_t bytes)
{
    struct pipeline *pl = ctx;
    pl->p->add(pl->p->ctx, (size_t)bytes);
}

/* The cursor's stopped: the run being replayed is not wanted past its metadata. */
static void replay_stopped(void *ctx)
{
    struct pipeline *pl = ctx;
    atomic_store(&pl->cancel, pl->replaying);
}

/* One run file as the reader thread reads it. */
struct reading {
    int fd;
    size_t index; /* + 1, as pipeline.cancel */
    struct pipeline *pl;
    struct batch_recorder *rec;
};

/* fopencookie read function: the file's bytes, recorded for the progress bar; the end of the
   file once the model has stopped this run (the rest would be left out anyway). */
static ssize_t reading_read(void *cookie, char *buf, size_t size)
{
    struct reading *rd = cookie;
    if (atomic_load(&rd->pl->cancel) == rd->index)
        return 0;
    ssize_t r = read(rd->fd, buf, size);
    if (r > 0 && rd->pl->count_bytes)
        batch_record_progress(rd->rec, (uint64_t)r);
    return r;
}

/* fopencookie close function. */
static int reading_close(void *cookie)
{
    struct reading *rd = cookie;
    return close(rd->fd);
}

/* The reader thread: every run file in order, opened and parsed into the batches. */
static void *reader(void *arg)
{
    struct pipeline *pl = arg;
    struct batch_recorder rec;
    pthread_mutex_lock(&pl->lock);
    pl->allocated++;
    pthread_mutex_unlock(&pl->lock);
    batch_recorder_init(&rec, batch_new(PIPELINE_BATCH_BYTES), PIPELINE_BATCH_BYTES, hand_over, pl);
    /* The ids are looked up here, on the reader's thread: the model's thread, the slower one,
       then finds each id's region once per run. */
    rec.number_ids = 1;
    for (size_t i = 0; i < pl->n; i++) {
        const struct input *in = &pl->in[i];
        if (!in->path)
            continue;
        /* A pipe may keep the reader waiting: the model gets what is read before it. */
        if (in->stream)
            batch_record_flush(&rec);
        int err;
        mode_t mode;
        int fd = input_open_quiet(in, &err, &mode);
        if (fd < 0) {
            if (err)
                batch_record_mark(&rec, MARK_OPEN_ERROR, err);
            else
                batch_record_mark(&rec, MARK_NOT_REGULAR, (int64_t)mode);
            continue;
        }
        batch_record_mark(&rec, MARK_OPENED, 0);
        struct reading rd = {fd, i + 1, pl, &rec};
        cookie_io_functions_t io = {reading_read, NULL, NULL, reading_close};
        FILE *f = fopencookie(&rd, "r", io);
        /* Only memory can be missing (input.c's read_file says the same). */
        if (!f)
            die_nomem(NULL);
        struct rep_error why;
        unsigned long line;
        enum run_status st = runfile_parse(f, in->path, &rec.h, &why, &line);
        fclose(f);
        batch_record_end(&rec, st, &why, line);
    }
    batch_record_flush(&rec);
    batch_recorder_release(&rec);
    pl->last = rec.cur; /* read after the join */
    return NULL;
}

/* Read on two threads: the reader parses, this thread replays into m. */
static void read_two(const struct input *in, size_t n, struct model *m,
                     const struct input_progress *p)
{
    struct pipeline pl = {.in = in, .n = n, .count_bytes = p != NULL, .p = p};
    pthread_mutex_init(&pl.lock, NULL);
    pthread_cond_init(&pl.filled, NULL);
    pthread_cond_init(&pl.freed, NULL);
    atomic_init(&pl.cancel, 0);
    pthread_t thread;
    if (pthread_create(&thread, NULL, reader, &pl) != 0) {
        /* No thread to be had (resources): the one-thread reading gives the same report. */
        for (size_t i = 0; i < n; i++)
            input_read_counted(&in[i], m, p);
        return;
    }
    struct batch_cursor c;
    batch_cursor_init(&c, take, give_back, &pl);
    c.progress = p ? replay_progress : NULL;
    c.stopped = replay_stopped;
    for (size_t i = 0; i < n; i++) {
        if (!in[i].path) {
            input_read_counted(&in[i], m, p);
            continue;
        }
        int64_t value;
        switch (batch_take_mark(&c, &value)) {
        case MARK_OPEN_ERROR:
            input_open_failed(&in[i], m, (int)value, 0);
            break;
        case MARK_NOT_REGULAR:
            input_open_failed(&in[i], m, 0, (mode_t)value);
            break;
        default:
            pl.replaying = i + 1;
            model_read_run(m, in[i].path, 0, batch_replay_run, &c);
            break;
        }
    }
    batch_cursor_release(&c);
    pthread_join(thread, NULL);
    batch_free(pl.last);
    while (pl.head) { /* none: the model reads every record made */
        struct run_batch *b = pl.head;
        pl.head = b->next;
        batch_free(b);
    }
    while (pl.spare) {
        struct run_batch *b = pl.spare;
        pl.spare = b->next;
        batch_free(b);
    }
    pthread_cond_destroy(&pl.freed);
    pthread_cond_destroy(&pl.filled);
    pthread_mutex_destroy(&pl.lock);
}

/* Read the inputs into the model, on two threads when it pays. */
void pipeline_read(const struct input *in, size_t n, struct model *m,
                   const struct input_progress *p)
{
    if (pipeline_wanted(in, n)) {
        read_two(in, n, m, p);
        return;
    }
    for (size_t i = 0; i < n; i++)
        input_read_counted(&in[i], m, p);
}
