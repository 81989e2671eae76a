/*
 * localefirst.c - an unmodified program whose first allocations happen inside the C library
 * while it holds a lock of its own: the time zone's (localtime) and the locale's (setlocale).
 *
 *   localefirst        prints "year ok" and "locale ok", exits with status 0.
 */
#include <locale.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
    time_t now = time(NULL);
    struct tm *tm = localtime(&now);
    printf("year %s\n", tm && tm->tm_year > 100 ? "ok" : "bad");
    printf("locale %s\n", setlocale(LC_ALL, "") ? "ok" : "unset");
    return 0;
}
