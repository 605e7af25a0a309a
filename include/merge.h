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
 * n reports merged as o says (struct merge_out): the files names[], or, when
 * texts is not NULL, the MPI ranks' JSON texts[] (names[] then label them).
 * 0, or -errno with one line in err.
 */
struct merge_out {
	enum cfg_format fmt;		/* text, json, or csv (the merged series) */
	FILE *out;
	const char *hdr_log;		/* the merged series as an HdrHistogram log; NULL or "" */
	FILE *html;			/* the HTML report, or NULL; needs cfg */
	const struct config *cfg;	/* the run's settings (under MPI), or NULL */
};
int merge_reports(const char *const *names, char *const *texts, unsigned n,
		  const struct merge_out *o, char *err, size_t len);

#endif
