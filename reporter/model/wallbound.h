/*
 * wallbound.h - wallbound.c: the 95 % bound of a region's Wall in sampled runs.
 *
 * A sampled run's Wall (FORMAT.md 1.4) is clock time less two estimates: the collector took
 * its thread's measured cost of one call's hooks out for each call made inside the timed calls
 * (ThreadCpu's hook, measured by a count of overhead samples, its thirteenth field), and the
 * reporter takes out what the collector's work on the run's other threads added to a waiting
 * thread's (othercost.h). Both are made of sample counts, so a Wall has a spread the clock
 * does not give it: the hooks' part has a relative standard deviation of 1 / sqrt(count), the
 * others' part that of their overhead samples.
 *
 * The calls made inside a row's timed calls are its descendants' calls, when every call of the
 * row was timed (the only rows whose Wall a region shows): a thread's rows come together,
 * parents first, so the sums wait for the thread's last row. One estimate serves all rows of
 * a thread, so a region's rows of one thread add their parts before squaring; a thread that
 * took its run's pooled hook cost shares that estimate with the run's other such threads, and
 * their parts add up unsquared (as if one measurement served them all, which errs wide).
 */
#ifndef PROFREPORT_WALLBOUND_H
#define PROFREPORT_WALLBOUND_H

#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

/* One thread's rows while they are read, and the regions they touched. */
struct wallbound {
    size_t thread; /* the thread's index in model.threads */
    size_t n, cap;
    size_t *parent;  /* each row's parent row (its place in these arrays), SIZE_MAX at the top */
    uint64_t *calls; /* its Calls */
    size_t *region;  /* the region whose Wall it adds to, SIZE_MAX: none */
    double *scale;   /* the reporter's factor on its Wall (othercost.h) */
    double *others;  /* the others' work the reporter took out of its Wall, ns */
    double *desc;    /* scratch: the calls made inside its calls */
    /* per region of the model, scratch: a thread's parts, and the regions touched */
    double *hooks_part, *others_part;
    size_t nscratch;
    size_t *touched;
    size_t ntouched, touched_cap;
};

/* Start the rows of thread (an index in m->threads), after wallbound_flush of the last one. */
void wallbound_begin(struct wallbound *b, size_t thread);

/* A row of the thread, under the row at parent (its place among the thread's rows, SIZE_MAX
   at the top), with its Calls; it adds to no Wall until wallbound_wall says so. */
void wallbound_row(struct wallbound *b, size_t parent, uint64_t calls);

/* The last row adds to region's Wall, times scale, others_ns of the others' work taken out. */
void wallbound_wall(struct wallbound *b, size_t region, double scale, double others_ns);

/* The thread's rows are over: add each touched region's variance (region.var_wall,
   region.wall_sd_pooled, region.wall_pm_unknown) and forget the rows. */
void wallbound_flush(struct wallbound *b, struct model *m);

void wallbound_release(struct wallbound *b);

/* The 95 % bound of region r's Wall in ns: 0 when nothing estimated was taken out of it, NaN
   when a thread's hook cost came without the count that measured it (older files). */
double wallbound_pm(const struct region *r);

#endif /* PROFREPORT_WALLBOUND_H */
