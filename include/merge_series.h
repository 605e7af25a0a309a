/*
 * merge_series: several reports' interval series as one, interval by
 * interval, histograms added exactly (rows need --series-buckets; see
 * src/merge_series.c), wire time included when the rows carry it.
 */
#ifndef NFSLOAD_MERGE_SERIES_H
#define NFSLOAD_MERGE_SERIES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hdrlog.h"

struct merge_series;

/* Across the merged intervals: their number, IOPS (all op types) and p99 (per op type). */
struct merge_series_summary {
	unsigned intervals;
	double iops_min, iops_mean, iops_max;
	uint64_t p99_min_ns, p99_max_ns;
};

struct merge_series *merge_series_new(unsigned inputs);
void merge_series_free(struct merge_series *ms);
/* Whether an input's rows carried wire time (--wire-time). */
bool merge_series_wire(const struct merge_series *ms);
/*
 * One input's "series" array (kept referenced until free): its rows by
 * interval (start_ns / interval_ns, rounded) and op type (op_of: the name's
 * type, or -1). 0, -EINVAL (an unknown op) or -ENOMEM.
 */
int merge_series_add(struct merge_series *ms, json_t *series, uint64_t interval_ns,
		     int (*op_of)(const char *name));
/* false if some input's rows had no buckets: nothing to merge exactly. */
bool merge_series_ok(const struct merge_series *ms);
/* The inputs' intervals do not line up (--interval differs): no merged series. */
void merge_series_drop(struct merge_series *ms);
/* Where the merged rows go besides the summary; each may be NULL. */
struct merge_series_out {
	FILE *json;		/* as a run's JSON series rows, with buckets (and wire
				 * time, when the inputs' rows carry it) */
	FILE *csv;		/* as a run's CSV rows (after its header) */
	struct hdrlog *hdr;	/* a line per row, tagged with the op (hdrlog.h), and one
				 * tagged <op>-wire for a row with wire time */
	FILE *rows;		/* struct interval_row records, as a run's series keeps them */
	uint64_t nrows;		/* how many went to rows */
};
/* The merged rows, in interval then op order: 0, or -errno. */
int merge_series_emit(struct merge_series *ms, uint64_t interval_ns,
		      struct merge_series_out *to, const char *(*op_name_of)(int op),
		      struct merge_series_summary *sum);

#endif
