/*
 * othercost.c - the collector's work on a run's other threads, taken out of the wall time of a
 * thread that waited for them (othercost.h).
 */
#include "model/othercost.h"

#include <math.h>

double othercost_delay(const struct thread_rec *th, size_t n, size_t i, double period_ns)
{
    const struct thread_rec *me = &th[i];
    if (!(period_ns > 0) || !isfinite(me->cpu_ns) || !isfinite(me->wall_ns) || me->wall_ns <= 0)
        return 0;
    double off = me->wall_ns - me->cpu_ns;
    if (off <= 0)
        return 0;
    double overhead = 0, cpu = 0;
    for (size_t j = 0; j < n; j++) {
        if (j == i || !isfinite(th[j].overhead) || !isfinite(th[j].cpu_ns))
            continue;
        overhead += th[j].overhead * period_ns;
        cpu += th[j].cpu_ns;
    }
    double side_by_side = cpu / me->wall_ns;
    double delay = overhead / (side_by_side > 1 ? side_by_side : 1);
    return delay < off ? delay : off;
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
