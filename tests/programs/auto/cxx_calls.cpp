/*
 * cxx_calls.cpp - an instrumented C++ program: names must come out demangled, and exceptions
 * unwinding through instrumented functions must keep the call stack right.
 * Usage: cxx_calls [throws]   (each of `throws` iterations throws through 3 frames)
 */
#include "profreport.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace shapes
{

struct Square {
    double side;
    double area() const { return side * side; }
};

template <typename T> double total_area(const std::vector<T> &v)
{
    double sum = 0;
    for (const T &x : v)
        sum += x.area();
    return sum;
}

} // namespace shapes

/* Throws from the innermost of three instrumented frames. */
static void thrower(int i)
{
    if (i >= 0)
        throw std::runtime_error("boom");
}
static void middle(int i) { thrower(i); }
static void outer(int i) { middle(i); }

/* Catches what outer throws: its own frame stays open, the three inner ones close. */
static int catcher(int i)
{
    try {
        outer(i);
    } catch (const std::exception &) {
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int throws = argc > 1 ? std::atoi(argv[1]) : 4;
    std::vector<shapes::Square> v{{1}, {2}, {3}};
    double a = shapes::total_area(v);
    int caught = 0;
    for (int i = 0; i < throws; i++)
        caught += catcher(i);
    std::printf("area=%g caught=%d\n", a, caught);
    return 0;
}
