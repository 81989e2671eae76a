/*
 * api_cxx.cpp - module API profiling in C++: public functions of a module call each other, and
 * one throws from inside the nested call; the module's region must open once per outermost
 * entry and close while the exception unwinds.
 */
#include <profreport.h>

#include <cstdio>
#include <stdexcept>

PROFILER_API_DECLARE(store);
PROFILER_API_DEFINE(store);

/* Public: may throw from inside the module. */
static int store_get(int key)
{
    PROFILER_API(store);
    if (key < 0)
        throw std::out_of_range("negative key");
    return key * 2;
}

/* Public: calls another public function of the module. */
static int store_sum(int n)
{
    PROFILER_API(store);
    int s = 0;
    for (int i = 0; i < n; i++)
        s += store_get(i);
    return s + store_get(n - 10); /* throws when n < 10 */
}

int main()
{
    int total = 0, caught = 0;
    for (int n = 0; n < 20; n++) {
        PROFILER_SCOPE("caller");
        try {
            total += store_sum(n);
        } catch (const std::out_of_range &) {
            caught++;
        }
    }
    total += store_get(1); /* an outermost entry of its own */
    std::printf("total %d caught %d\n", total, caught);
    return 0;
}
