/*
 * suggest.h - suggest.c: the hot, tiny functions of a -finstrument-functions run (many calls,
 * each shorter than a few times the hooks' own cost) that a rebuild should leave out, as
 * Score-P's `scorep-score -g` proposes a filter: each with the name gcc's
 * -finstrument-functions-exclude-function-list matches and the glob PROFILER_EXCLUDE matches.
 *
 * What gcc 12 matches (measured with g++ 12 and gcc 12, docs/profreport.1): each listed name
 * is looked for as a substring of the function's qualified name without parameters or return
 * type (`NS::Box::get`, `NS::twice<int>`), in gcc's own spelling (`long int` where the
 * demangler writes `long`, `{anonymous}` for `(anonymous namespace)`); a comma splits the list
 * unless written `\,`.
 * So a name is only suggested when it is not also part of the name of a function that ran and
 * is kept; a function template is named without its arguments (every instantiation); and a
 * member of a class template (a `<` before the last `::`) or of a lambda is not suggested for
 * gcc at all: its PROFILER_EXCLUDE glob still is.
 *
 * Ownership: a struct suggestion owns its items' strings; suggest_release frees them. Items
 * borrow nothing from the model.
 */
#ifndef PROFREPORT_SUGGEST_H
#define PROFREPORT_SUGGEST_H

#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

/* A function is tiny when its mean inclusive time per call is under this many times the
   hooks' cost per call (what the hooks add to each call), or under --suggest-max-cost. */
#define SUGGEST_HOOK_FACTOR 4.0
/* The hooks' cost per call assumed when the runs do not say (format 3 and older, exact
   timing): about libprofreport-auto's measured cost on a 2020s x86-64 core. */
#define SUGGEST_DEFAULT_HOOK_NS 12.0
/* A function is hot when it makes at least this share of all calls of instrumented functions. */
#define SUGGEST_MIN_CALL_SHARE 0.01
/* A function whose calls take more than this share of the program's time stays, however short
   each call: leaving it out would hide too much of where the time goes. */
#define SUGGEST_MAX_TIME_SHARE 0.25
/* The reporter says the suggestion exists (without --suggest-exclude) when the functions it
   would leave out make at least this share of the calls and their hooks cost at least this
   share of the program's time (their calls times the hooks' cost per call): a program making
   few calls loses nothing to its hooks. */
#define SUGGEST_HINT_CALL_SHARE 0.25
#define SUGGEST_HINT_COST_SHARE 0.10
/* Nothing is suggested when the hooks of all the functions that qualify cost less than this
   share of the program's time: a rebuild or a round would gain nothing and hide their calls
   (pigz makes 3,600 hooked calls for 8 MB: its lock and I/O functions qualified), unless the
   user gave the threshold (suggest_options.max_mean_ns). */
#define SUGGEST_MIN_HOOKS_SHARE 0.01

/* Why a function that qualifies was not put in the gcc list. */
enum suggest_gcc {
    SUGGEST_GCC_OK,       /* gcc_name leaves out this function and none that is kept */
    SUGGEST_GCC_SPELLING, /* gcc spells its scope its own way: a class template's arguments, a
                             lambda or unnamed type */
    SUGGEST_GCC_CLASH     /* gcc_name is also part of a kept function's name (clash names it) */
};

/* One function to leave out. */
struct suggest_item {
    size_t region;        /* index in the model */
    char *name;           /* the region's display name */
    char *short_name;     /* its short name (model_short), for the terminal */
    char *gcc_name;       /* for -finstrument-functions-exclude-function-list, unescaped */
    char *glob;           /* for PROFILER_EXCLUDE, escaped for fnmatch and the comma list */
    enum suggest_gcc gcc; /* whether gcc_name is in the gcc list */
    char *clash;          /* SUGGEST_GCC_CLASH: the kept function's name, else NULL */
    double calls_per_run, mean_ns, time_share, call_share;
    double self_share; /* its self time over the program's: what its callers gain left out */
};

struct suggestion {
    struct suggest_item *items; /* most calls first */
    size_t n;
    size_t functions;      /* instrumented functions that ran */
    uint64_t calls;        /* all their calls, every run */
    double call_share;     /* of those calls, the items' share */
    double gcc_call_share; /* the share of the items in the gcc list */
    double hooks_share;    /* their hooks' cost over the program's time (busy time) */
    double max_mean_ns;    /* the threshold used */
    double hook_ns;        /* the hooks' cost per call it came from (NaN: max_mean_ns given) */
    size_t cheap;          /* functions that qualified, left out of items: their hooks cost
                              under SUGGEST_MIN_HOOKS_SHARE (then n is 0) */
    /* The patterns the runs left out already (their Exclude records, each pattern once, as
       written), which a PROFILER_EXCLUDE setting for the next run keeps */
    char **left_out;
    size_t nleft_out;
};

/* The thresholds: max_mean_ns 0 takes SUGGEST_HOOK_FACTOR times the runs' hook cost. */
struct suggest_options {
    double max_mean_ns;
};

/* The hot, tiny functions of m's instrumented functions, by the thresholds above, main never.
   Nothing (n 0) for runs without instrumented functions. */
void suggest_build(const struct model *m, const struct suggest_options *o, struct suggestion *s);
void suggest_release(struct suggestion *s);
/* The patterns of a PROFILER_INCLUDE or _EXCLUDE value, in order, each once (commas written `\,`
   stay inside a pattern, spaces around one are dropped), appended to *out (*n of them). */
void suggest_patterns(const char *value, char ***out, size_t *n);
/* What the runs' function filters were, for the Summary sheet: every pattern of their Exclude
   (exclude) or Include records once, how many runs had one, and what that means for the
   report. NULL when no run had one. Caller frees. */
char *suggest_filters_text(const struct model *m, int exclude);

/* The name gcc 12 matches for a demangled function name: without a clone suffix, parameters,
   qualifiers and return type (`int NS::twice<int>(int) const` -> `NS::twice<int>`), an
   anonymous namespace written gcc's way (`{anonymous}`). Caller frees. */
char *suggest_gcc_name(const char *display);
/* Whether gcc spells the name's scope differently from the demangler, beyond what the list can
   avoid: template arguments in its scope (`std::vector<int>::size`: gcc writes `long int` for
   `long`), a lambda (`{lambda()#1}`) or an unnamed type. */
int suggest_gcc_spelled_apart(const char *gcc_name);
/* s with `,` written `\,`, as gcc's option lists and PROFILER_EXCLUDE read it; glob also
   escapes fnmatch's `*?[]\`. Caller frees. */
char *suggest_escape(const char *s, int glob);

#endif /* PROFREPORT_SUGGEST_H */
