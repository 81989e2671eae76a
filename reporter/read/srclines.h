/*
 * srclines.h - the source file and line of the functions whose runs left them to the reporter
 * (FORMAT.md 1.2: a Function record with its module and offset but no file), read from each
 * module's DWARF with elfutils (common/dwdecl.h), once every run is read.
 */
#ifndef REP_SRCLINES_H
#define REP_SRCLINES_H

#include "model/model.h"

/*
 * Give each function noted in m->unlocated its source file and line from its module, opened
 * once per module: only a regular file whose build id is the one its run gave (a module
 * without one is taken as it is), at most 4096 of them. A module that is gone or was rebuilt
 * since becomes one warning, and its functions keep no file, as one without DWARF does.
 * Empties m->unlocated.
 */
void srclines_locate(struct model *m);

#endif /* REP_SRCLINES_H */
