/*
 * options: the command line -> struct config (config.h), with every check
 * that needs no server. No I/O besides --help/--version on stdout.
 */
#ifndef NFSLOAD_OPTIONS_H
#define NFSLOAD_OPTIONS_H

#include <stddef.h>

#include "config.h"

/*
 * Fills cfg from argv. Returns CFG_RUN, CFG_EXIT_OK after printing --help or
 * --version to stdout, or -EINVAL with one line in err (without the
 * "nfsload: " prefix) naming the option or URL part and what is accepted.
 */
int config_parse(struct config *cfg, int argc, char **argv, char *err, size_t errlen);

/* In a copy of argv's pointers: an abbreviation of --connections (6 letters or more,
 * without '=') made the whole option, as config_parse reads it (also job.c's scan). */
void config_expand_abbrev(int argc, char **argv);

#endif
