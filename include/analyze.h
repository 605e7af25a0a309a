/*
 * analyze: nfsload --analyze LOG...: the report of a run rebuilt from its
 * --op-log files (src/merge/analyze.c), cut by time, connection or op.
 */
#ifndef NFSLOAD_ANALYZE_H
#define NFSLOAD_ANALYZE_H

#include <stdbool.h>

/* Whether argv asks for --analyze. */
bool analyze_wanted(int argc, char **argv);
/* The analysis's whole life: 0, or EXIT_USAGE with one line on stderr. */
int analyze_main(int argc, char **argv);

#endif
