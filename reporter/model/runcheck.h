/*
 * runcheck.h - runcheck.c: runs whose figures are suspect, said next to the figures: a run
 * measured on a busy machine (its threads waited long for a CPU), and a run far from the
 * others of its program (an outlier by a robust rule).
 *
 * Reads the model's runs and threads, and fills the check fields of each run_rec.
 */
#ifndef PROFREPORT_RUNCHECK_H
#define PROFREPORT_RUNCHECK_H

#include "model/model.h"

#include <stddef.h>

/* A run was measured on a busy machine when its threads waited for a CPU (runnable but not
   running) more than this share of the time they wanted one (CPU + wait), over at least
   RUNCHECK_BUSY_MIN_NS of it. */
#define RUNCHECK_BUSY_SHARE 0.10
#define RUNCHECK_BUSY_MIN_NS 1e6

/* A run that ran to its end (no crash, complete) is an outlier when its busy time (its
   threads' time in top-level regions) is far from the median of such runs': a modified z-score
   (0.6745 |x - median| / MAD, Iglewicz and Hoaglin) above RUNCHECK_OUTLIER_Z, and at least
   RUNCHECK_OUTLIER_MIN away from the median in ratio, among at least RUNCHECK_OUTLIER_RUNS runs. */
#define RUNCHECK_OUTLIER_Z 3.5
#define RUNCHECK_OUTLIER_MIN 0.05
#define RUNCHECK_OUTLIER_RUNS 3

/* Fill every run's wait_share, busy_machine, busy_ratio and outlier (after the last run is
   read). */
void runcheck_apply(struct model *m);

/* The runs flagged busy_machine, and those flagged outlier. */
size_t runcheck_busy_runs(const struct model *m);
size_t runcheck_outlier_runs(const struct model *m);

/*
 * What the checks say of run k in a few words ("busy machine: waited for a CPU 34 % of the
 * time; outlier: 1.18x the median busy time"), into buf; "" when nothing. Returns buf.
 */
const char *runcheck_text(const struct model *m, size_t k, char *buf, size_t size);

/* The Summary's line on busy machines: "1 of 5 (run 3: waited for a CPU 34 % of the time; see
   Runs)", "none of 5", or why it cannot tell; into buf, returned. */
const char *runcheck_busy_summary(const struct model *m, char *buf, size_t size);
/* The Summary's line on outliers: "1 of 5 (run 2: 1.18x the median busy time; see Runs)",
   "none of 5", or why it cannot tell; into buf, returned. */
const char *runcheck_outlier_summary(const struct model *m, char *buf, size_t size);

#endif /* PROFREPORT_RUNCHECK_H */
