/*
 * merge: nfsload --merge FILE...: several runs' JSON reports as one result
 * (histograms added exactly), with a row per input (src/merge.c).
 */
#ifndef NFSLOAD_MERGE_H
#define NFSLOAD_MERGE_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"

/* Whether argv asks for --merge. */
bool merge_wanted(int argc, char **argv);
/* The merge's whole life: 0, or EXIT_USAGE with one line on stderr. */
int merge_main(int argc, char **argv);
/*
 * n reports merged onto out, as text, JSON or CSV (the merged series): the
 * files names[], or, when texts is not NULL, the MPI ranks' JSON texts[]
 * (names[] then label them); hdr_log (NULL or "": none) gets the merged
 * series as an HdrHistogram log. 0, or -errno with one line in err.
 */
int merge_reports(const char *const *names, char *const *texts, unsigned n,
		  enum cfg_format fmt, const char *hdr_log, FILE *out, char *err, size_t len);

#endif
