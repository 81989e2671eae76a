/*
 * units.c - how a time is shown: the unit per value, three significant digits, and the
 * spreadsheet number format that renders a stored number as the terminal prints it.
 */
#include "model/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct unit units[UNIT_COUNT] = {{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}};

/* The index in units[] of a forced unit's name, or -1 for "auto", NULL or an unknown name. */
static int forced_unit(const char *forced)
{
    if (forced)
        for (int i = 0; i < UNIT_COUNT; i++)
            if (strcmp(forced, units[i].name) == 0)
                return i;
    return -1;
}

/* The unit for values around typical_ns. */
struct unit unit_for(double typical_ns, const char *forced)
{
    int f = forced_unit(forced);
    if (f >= 0)
        return units[f];
    for (int i = 0; i < UNIT_COUNT - 1; i++)
        if (typical_ns >= units[i].ns)
            return units[i];
    return units[UNIT_COUNT - 1];
}

/* |v| rounded to three significant digits, as printf rounds it. */
static double round3(double v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.2e", fabs(v));
    return strtod(buf, NULL);
}

/* Decimals that give a value whose rounded magnitude is r three significant digits. */
static int decimals_for(double r)
{
    if (r >= 100 || r == 0)
        return 0;
    if (r >= 10)
        return 1;
    if (r >= 1)
        return 2;
    int d = 2 - (int)floor(log10(r));
    return d > TIME_DECIMALS_MAX ? TIME_DECIMALS_MAX : d;
}

/* The unit and decimals ns is shown with. */
struct time_shown time_shown(double ns, const char *forced)
{
    struct time_shown s;
    double r = round3(ns);
    s.unit = forced_unit(forced);
    if (s.unit < 0) {
        /* Chosen from the rounded value, so 999.6 ns is "1.00 us", not "1000 ns". */
        s.unit = UNIT_COUNT - 1;
        for (int i = 0; i < UNIT_COUNT - 1; i++)
            if (r >= units[i].ns) {
                s.unit = i;
                break;
            }
    }
    s.decimals = decimals_for(round3(r / units[s.unit].ns));
    return s;
}

/* "19.0 ns"; thousands separated as the number format's "#,##0" does ("1,092,011 us"). */
const char *time_text(char *buf, size_t size, double ns, const char *forced)
{
    if (!isfinite(ns)) {
        snprintf(buf, size, "-");
        return buf;
    }
    struct time_shown s = time_shown(ns, forced);
    char digits[400];
    snprintf(digits, sizeof digits, "%.*f", s.decimals, ns / units[s.unit].ns);
    const char *p = digits;
    char sep[sizeof digits * 2], *o = sep;
    if (*p == '-')
        *o++ = *p++;
    size_t whole = strcspn(p, ".");
    for (size_t i = 0; i < whole; i++) {
        if (i > 0 && (whole - i) % 3 == 0)
            *o++ = ',';
        *o++ = p[i];
    }
    snprintf(o, sizeof sep - (size_t)(o - sep), "%s", p + whole);
    snprintf(buf, size, "%s %s", sep, units[s.unit].name);
    return buf;
}

/* "#,##0.00,,\" ms\"". */
const char *time_format(char *buf, size_t size, struct time_shown s, struct unit stored)
{
    double scale = units[s.unit].ns / stored.ns;
    int commas = 0;
    while (scale > 1.5 && commas < 3) {
        scale /= 1000;
        commas++;
    }
    if (scale < 0.5)
        return NULL;
    char zeros[TIME_DECIMALS_MAX + 2] = "";
    if (s.decimals > 0) {
        zeros[0] = '.';
        memset(zeros + 1, '0', (size_t)s.decimals);
        zeros[s.decimals + 1] = 0;
    }
    snprintf(buf, size, "#,##0%s%.*s\" %s\"", zeros, commas, ",,,", units[s.unit].name);
    return buf;
}
