/*
 * cxxname.c - the parts of a demangled C++ function name that PROFILER_INCLUDE and
 * PROFILER_EXCLUDE patterns match without (cxxname.h).
 */
#include "cxxname.h"

#include <string.h>

/* The length of a C++ name without its parameter list, so "*::OnPaint" matches
   "Widget::OnPaint() const". */
size_t prof_cxx_bare_length(const char *name)
{
    int angle = 0;
    for (size_t i = 0; name[i]; i++) {
        if (name[i] == '<')
            angle++;
        else if (name[i] == '>' && angle > 0)
            angle--;
        else if (name[i] == '(' && angle == 0) {
            if (strncmp(name + i, "(anonymous namespace)", 21) == 0) {
                i += 20;
                continue;
            }
            if (i >= 8 && strncmp(name + i - 8, "operator", 8) == 0)
                continue;
            return i;
        }
    }
    return strlen(name);
}

/*
 * Where the qualified name starts in the first bare bytes of a C++ name (prof_cxx_bare_length):
 * after the return type that demangled template functions carry ("bool std::operator==<char>(...)",
 * "__gnu_cxx::__normal_iterator<...> std::vector<...>::begin()"), that is after the last space
 * outside template arguments and parentheses; 0 when there is none. The space of "operator
 * new" and of a conversion operator ("operator bool") is part of the name.
 */
size_t prof_cxx_qualified_start(const char *name, size_t bare)
{
    int angle = 0, paren = 0;
    size_t start = 0;
    for (size_t i = 0; i < bare; i++) {
        char c = name[i];
        if (c == '(' && strncmp(name + i, "(anonymous namespace)", 21) == 0)
            i += 20;
        else if (c == '<' && !(i >= 8 && strncmp(name + i - 8, "operator", 8) == 0))
            angle++;
        else if (c == '>' && angle > 0)
            angle--;
        else if (c == '(')
            paren++;
        else if (c == ')' && paren > 0)
            paren--;
        else if (c == ' ' && !angle && !paren &&
                 !(i >= 8 && strncmp(name + i - 8, "operator", 8) == 0))
            start = i + 1;
    }
    return start;
}
