/*
 * shared_lib.c - a shared library built with -finstrument-functions: its functions must appear
 * by name in the run of the program that loads it (position-independent code, own load bias).
 */
int shared_square(int x);
int shared_twice_square(int x);

/* Called 2 times per shared_twice_square call. */
int shared_square(int x) { return x * x; }

int shared_twice_square(int x) { return shared_square(x) + shared_square(x); }
