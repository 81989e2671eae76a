/*
 * scope_cxx.cpp - PROFILER_SCOPE as RAII in C++, with exceptions.
 *
 * main holds a "main" scope. Four times: a "try" scope calls level1 > level2 > level3, each a
 * scope; level3 throws for odd i (caught in main, three frames up) and otherwise opens a
 * "level3-tail" scope; after the try block, an "after-catch" scope. Every region is closed by a
 * destructor, also those left by the exception.
 */
#include <profreport.h>

#include <cstdio>
#include <stdexcept>

static volatile unsigned long sink;

static void level3(int i)
{
    PROFILER_SCOPE("level3");
    sink += (unsigned long)i;
    if (i % 2 == 1)
        throw std::runtime_error("odd");
    PROFILER_SCOPE("level3-tail");
    sink++;
}

static void level2(int i)
{
    PROFILER_SCOPE("level2");
    level3(i);
}

static void level1(int i)
{
    PROFILER_SCOPE("level1");
    level2(i);
}

int main()
{
    PROFILER_SCOPE("main");
    int caught = 0;
    for (int i = 0; i < 4; i++) {
        try {
            PROFILER_SCOPE("try");
            level1(i);
        } catch (const std::exception &) {
            caught++;
        }
        PROFILER_SCOPE("after-catch");
        sink++;
    }
    std::printf("scope_cxx: caught %d\n", caught);
    return 0;
}
