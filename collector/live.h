/*
 * live.h - the live per-thread report (live.c, PROFILER_REPORT_INTERVAL): at most once per
 * interval, a thread prints where its time went since its previous report.
 *
 * The report is a feature of the recorder: its hooks set up and free its per-thread counters
 * (owned by live.c) and watch stops through the recorder's on_stop. The two layers whose stops
 * it counts, the region API (regions.c) and the function hooks (auto.c), register it, so a
 * static link that holds either holds the report too.
 */
#ifndef PROF_LIVE_H
#define PROF_LIVE_H

#include "hooks.h"

/* The live report's hooks, for prof_hooks_add. */
extern const struct prof_hooks prof_live_hooks;

#endif /* PROF_LIVE_H */
