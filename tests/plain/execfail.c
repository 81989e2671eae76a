/*
 * execfail.c - an exec that fails between two allocations: the program goes on as before, with
 * the exec's errno. Prints "execfail: errno N".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
    char *volatile p = malloc(16);
    free(p);
    execl("/nonexistent/program", "program", (char *)NULL);
    int e = errno;
    p = malloc(32);
    free(p);
    printf("execfail: errno %d\n", e);
    return 0;
}
