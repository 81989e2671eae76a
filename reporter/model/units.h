/*
 * units.h - units.c: how a time is shown, on the terminal and in the workbook alike: a unit
 * per value (ns, us, ms or s) with at least three significant digits, or the unit --unit fixes.
 *
 * One convention for every output that people read: the terminal prints time_text, and the
 * workbook stores the number and gives each cell the number format time_format names, which
 * Excel and LibreOffice render as the same text. Pure functions: nothing is allocated.
 */
#ifndef PROFREPORT_UNITS_H
#define PROFREPORT_UNITS_H

#include <stddef.h>

/* A time unit: its name and how many ns make one. */
struct unit {
    const char *name;
    double ns;
};

/* The units, largest first: "s", "ms", "us", "ns". */
#define UNIT_COUNT 4
extern const struct unit units[UNIT_COUNT];

/* The unit for values around typical_ns (auto), or the forced one ("s", "ms", "us", "ns"). */
struct unit unit_for(double typical_ns, const char *forced);

/* The most decimals a time is shown with (a forced unit far above the value). */
#define TIME_DECIMALS_MAX 9

/* How one time is shown: in which of units[] and with how many decimals. */
struct time_shown {
    int unit; /* index into units[] */
    int decimals;
};

/*
 * How ns is shown: with forced NULL or "auto", in the unit that makes its value, rounded to
 * three significant digits, lie in [1, 1000) (ns below 1 ns, s from 1000 s on) with 2, 1 or 0
 * decimals (19.0 ns, 1.09 s, 312 ms); with a forced unit, in that unit with the decimals that
 * give three significant digits (0.0000190 ms), at most TIME_DECIMALS_MAX. Meaningful for
 * finite ns only.
 */
struct time_shown time_shown(double ns, const char *forced);

/* ns as time_shown shows it: "19.0 ns"; "-" when ns is not finite. Returns buf. */
const char *time_text(char *buf, size_t size, double ns, const char *forced);

/*
 * The spreadsheet number format that shows a value stored in unit `stored` as s says,
 * "#,##0.00,,\" ms\"" for a number of ns shown in ms (each trailing comma divides by 1000).
 * Returns buf, or NULL when s's unit is smaller than stored's (a format cannot multiply).
 */
const char *time_format(char *buf, size_t size, struct time_shown s, struct unit stored);

#endif /* PROFREPORT_UNITS_H */
