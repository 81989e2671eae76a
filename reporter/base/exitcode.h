/*
 * exitcode.h - the profreport command's exit codes, as profreport(1) documents them.
 *
 * Only main.c ends the command with one of these, turning an error's code (rep_error.h) into
 * its status; util.c's die_nomem uses EXIT_INTERNAL when memory runs out.
 */
#ifndef PROFREPORT_EXITCODE_H
#define PROFREPORT_EXITCODE_H

enum exit_code {
    EXIT_OK = 0,       /* report written */
    EXIT_USAGE = 2,    /* bad command line */
    EXIT_NO_INPUT = 3, /* no readable run among the inputs */
    EXIT_OUTPUT = 4,   /* the workbook or chart images could not be written */
    EXIT_INTERNAL = 5, /* out of memory or another unexpected failure */
    /* --fail-on-regression: everything was written, and a region is significantly slower.
       Not 1, which sanitizers, shells and crashed interpreters also give. */
    EXIT_REGRESSION = 6
};

#endif /* PROFREPORT_EXITCODE_H */
