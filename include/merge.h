/*
 * merge: nfsload --merge FILE...: several runs' JSON reports as one result
 * (histograms added exactly), with a row per input (src/merge.c).
 */
#ifndef NFSLOAD_MERGE_H
#define NFSLOAD_MERGE_H

#include <stdbool.h>

/* Whether argv asks for --merge. */
bool merge_wanted(int argc, char **argv);
/* The merge's whole life: 0, or EXIT_USAGE with one line on stderr. */
int merge_main(int argc, char **argv);

#endif
