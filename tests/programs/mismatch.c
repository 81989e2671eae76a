/*
 * mismatch.c - C PROFILER_SCOPEs that do not match the regions open at their end.
 *
 * 1. "outer" (by hand) holds a block with PROFILER_SCOPE("scoped") and a PROFILER_STOP() that
 *    stops "scoped" by hand: at the end of the block the scope finds its region already
 *    stopped, so it stops nothing (not "outer") and counts one scope-mismatch. "outer" is then
 *    stopped by hand.
 * 2. A block with PROFILER_SCOPE("scope2") opens "left-open" and never stops it: the scope's end
 *    stops "left-open" and "scope2", and counts one scope-mismatch.
 * 3. A block with PROFILER_SCOPE("scope3") stops it by hand and opens "other" (at the same depth)
 *    by hand: the scope's end must not stop "other" (not its region) and counts one
 *    scope-mismatch. After the block, "after-block" is recorded (inside "other"), then "other"
 *    is stopped by hand.
 *
 * Expected: three scope-mismatch, every region stopped, no stray stop.
 */
#include <profreport.h>

#include <stdio.h>

int main(void)
{
    PROFILER_START("outer");
    {
        PROFILER_SCOPE("scoped");
        PROFILER_STOP(); /* stops "scoped" */
    }
    PROFILER_STOP(); /* stops "outer" */

    {
        PROFILER_SCOPE("scope2");
        PROFILER_START("left-open");
    }

    {
        PROFILER_SCOPE("scope3");
        PROFILER_STOP(); /* stops "scope3" */
        PROFILER_START("other");
    }
    PROFILER_START("after-block");
    PROFILER_STOP();
    PROFILER_STOP(); /* stops "other" */
    printf("mismatch: done\n");
    return 0;
}
