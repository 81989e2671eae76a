/*
 * cxxname.h - the parts of a demangled C++ function name that a function filter matches
 * without: its parameter list and a template function's return type. One definition for the
 * collector's filters (collector/functions.c), which match a pattern against the name with and
 * without them, and the reporter's suggestions (reporter/model/suggest.c), which write the
 * shortest pattern that leaves out the same functions.
 */
#ifndef PROF_CXXNAME_H
#define PROF_CXXNAME_H

#include <stddef.h>

/* The length of name without its parameter list ("Widget::OnPaint() const" -> 15). */
size_t prof_cxx_bare_length(const char *name);
/* Where the qualified name starts in name's first bare bytes: after a template function's
   return type ("bool std::operator==<char>(...)" -> 5); 0 when there is none. */
size_t prof_cxx_qualified_start(const char *name, size_t bare);

#endif /* PROF_CXXNAME_H */
