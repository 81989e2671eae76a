/*
 * shortname.h - shortname.c: C++ function names shortened by their structure, for the places
 * where a reader scans a column or a chart axis (the terminal, chart labels, the sheets' short
 * name column), with the full name kept beside them.
 *
 * A demangled name such as
 *     int YAML::RegEx::MatchUnchecked<YAML::StringCharSource>(YAML::StringCharSource const&) const
 * is read as a return type, a scope path of components (each with template arguments), a
 * parameter list and trailing qualifiers. Its short forms, from the shortest:
 *     level 0  YAML::RegEx::MatchUnchecked<…>(…)          return type, arguments and qualifiers
 * gone (deeper template arguments stay <…>) level 1
 * YAML::RegEx::MatchUnchecked<YAML::StringCharSource>(…) level 2
 * YAML::RegEx::MatchUnchecked<YAML::StringCharSource>(YAML::StringCharSource const&) const level 3
 * template arguments and parameters two deep, level 4 three deep level 5  the name without its
 * return type level 6  the name as given A name that does not read as a function signature (a C
 * function, a manual region's id such as "load file", an unbalanced bracket) is the same at every
 * level.
 *
 * Pure functions; every string returned is allocated (xmalloc) and the caller frees it.
 */
#ifndef PROFREPORT_SHORTNAME_H
#define PROFREPORT_SHORTNAME_H

#include <stddef.h>

/* The levels of shortname, shortest first. */
#define SHORTNAME_LEVELS 7

/* The short form of name at level (0 .. SHORTNAME_LEVELS - 1). */
char *shortname(const char *name, int level);

/*
 * Short forms of n distinct names, each as short as it can be while no two are equal: every
 * name starts at level 0, and the names whose short forms collide are shown in more detail,
 * level by level, until they differ. Returns an array of n strings (free each, then the
 * array).
 */
char **shortnames(const char *const *names, size_t n);

/*
 * s fitted into width characters (UTF-8 code points) by keeping its distinguishing tail:
 * leading scope components give way first ("…RegEx::MatchUnchecked<…>(…)"), then the text is
 * cut from the left. s itself (copied) when it fits; width under 2 is taken as 2.
 */
char *shortname_fit(const char *s, size_t width);

/* The width of a bar chart's category label (the workbook's native charts; gnuplot's labels,
   gnuplot.c, are as long): a longer one wraps, and LibreOffice then leaves every other bar
   unnamed. */
#define SHORTNAME_CHART_LABEL 48

#endif /* PROFREPORT_SHORTNAME_H */
