/*
 * othercost.c - the collector's work on a run's other threads, taken out of the wall time of a
 * thread that waited for them (othercost.h).
 */
#include "model/othercost.h"

#include <math.h>

/* The collector's work on thread t, in ns: its overhead samples, each standing for what a
   sample stands for (thread_sample_ns), and what taking its samples cost. */
static double collector_ns(const struct thread_rec *t, double period_ns)
{
    return t->overhead * thread_sample_ns(period_ns, t) + thread_sampling_ns(period_ns, t);
}

/* The variance of thread t's collector work (collector_ns) in ns^2: its overhead samples are a
   count, each of them adding what a sample stands for, squared, times the thread's spread;
   what taking the samples cost was measured at each one, and adds none. */
static double collector_var(const struct thread_rec *t, double period_ns)
{
    double s = thread_sample_ns(period_ns, t);
    return t->overhead * s * s * thread_sample_spread(t);
}

/* What the others' overhead added to thread me's waits, given every thread's overhead time,
   its variance and CPU time (ns) added up with me's own figures, when they count, taken out;
   *sd becomes the figure's standard deviation. */
static double delay_of(const struct thread_rec *me, double overhead, double var, double cpu,
                       double period_ns, double *sd)
{
    *sd = 0;
    if (!isfinite(me->cpu_ns) || !isfinite(me->wall_ns) || me->wall_ns <= 0)
        return 0;
    double off = me->wall_ns - me->cpu_ns;
    if (off <= 0)
        return 0;
    if (isfinite(me->overhead)) {
        overhead -= collector_ns(me, period_ns);
        var -= collector_var(me, period_ns);
        cpu -= me->cpu_ns;
    }
    if (overhead <= 0)
        return 0;
    double side_by_side = cpu > 0 ? cpu / me->wall_ns : 0;
    double delay = overhead / (side_by_side > 1 ? side_by_side : 1);
    /* capped by the off-CPU time: the spread shrinks with the figure */
    double kept = delay < off ? 1 : off / delay;
    *sd = var > 0 ? sqrt(var) / (side_by_side > 1 ? side_by_side : 1) * kept : 0;
    return delay * kept;
}

void othercost_apply(struct thread_rec *th, size_t n, double period_ns)
{
    /* of the threads that say both, once for all of them */
    double overhead = 0, var = 0, cpu = 0;
    for (size_t j = 0; period_ns > 0 && j < n; j++)
        if (isfinite(th[j].overhead) && isfinite(th[j].cpu_ns)) {
            overhead += collector_ns(&th[j], period_ns);
            var += collector_var(&th[j], period_ns);
            cpu += th[j].cpu_ns;
        }
    for (size_t i = 0; i < n; i++) {
        th[i].others_ns = period_ns > 0
                              ? delay_of(&th[i], overhead, var, cpu, period_ns, &th[i].others_sd_ns)
                              : 0;
        if (!(period_ns > 0))
            th[i].others_sd_ns = 0;
    }
}

double othercost_offcpu_cap(double wall_ns, double cpu_ns, uint64_t calls, double period_ns,
                            double off_ns)
{
    if (!(wall_ns > 0) || !(cpu_ns >= 0) || !(period_ns > 0) || !(off_ns >= 0))
        return 1;
    double most = cpu_ns + ((double)calls + 1) * period_ns + off_ns;
    return wall_ns > most ? most / wall_ns : 1;
}

double othercost_scale(double wall_ns, double cpu_ns, double delay_ns, double off_ns)
{
    if (!(wall_ns > 0) || !(delay_ns > 0) || !(off_ns > 0))
        return 1;
    double off = wall_ns - (cpu_ns > 0 ? cpu_ns : 0);
    if (off <= 0)
        return 1;
    double part = delay_ns * (off < off_ns ? off / off_ns : 1);
    return part < wall_ns ? (wall_ns - part) / wall_ns : 0;
}
