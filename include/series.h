/*
 * series: the interval series of the measured phase.
 *
 * Owns: turning each interval's merged statistics into rows, and sending them
 * where they go as they come (a temporary file for the JSON and HTML reports,
 * CSV on the output, the HdrHistogram log), so memory does not grow with the
 * length of a run; and the steady-state verdict over the rows.
 * Does not own: the ticks and the hand-over from the worker threads (main).
 * Main thread only.
 */
#ifndef NFSLOAD_SERIES_H
#define NFSLOAD_SERIES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hdrlog.h"
#include "report.h"
#include "stats.h"

struct series {
	FILE *rows;		/* struct interval_row records */
	uint64_t nrows;
	FILE *buckets;		/* --series-buckets: struct series_bucket records, else NULL */
	uint64_t nbuckets;
	FILE *csv;		/* or NULL */
	bool wire;		/* the run has wire time: the CSV's two last columns */
	struct hdrlog *hdr;	/* or NULL */
	FILE *srv_rows;		/* --series-by server: their rows (op OP_NTYPES + server) */
	uint64_t nsrv_rows;
	bool used[OP_NTYPES];	/* op types the workload issues: a row each per interval */
	uint64_t interval_ns;
	uint64_t log_start_ns;	/* CLOCK_MONOTONIC at the log's StartTime */
	uint64_t measure_start_ns;
	char verdict[200];
};

/*
 * Called before anything touches the server, so a bad --hdr-log path stops
 * the run early. csv: where CSV rows go (NULL: none). hdr_path: "" for no
 * log, else the log is created now, its StartTime now. used: op types with
 * rows. 0 or -errno with a one-line reason in err.
 */
int series_init(struct series *s, uint64_t interval_ns, const bool used[OP_NTYPES], FILE *csv,
		bool wire, const char *hdr_path, char *err, size_t len);
/* --series-buckets: every row keeps its histogram's non-empty buckets too. 0 or -errno. */
int series_keep_buckets(struct series *s);
/* The measured window begins (CLOCK_MONOTONIC ns): rows count from here. */
void series_begin(struct series *s, uint64_t measure_start_ns);
/*
 * One interval [start_ns, end_ns) on CLOCK_MONOTONIC, with its stats. An op
 * with wire time (--wire-time) also has its wire and client histograms in the
 * HdrHistogram log, tagged <op>-wire and <op>-client after its own line.
 */
int series_add(struct series *s, uint64_t start_ns, uint64_t end_ns,
	       const struct op_stats ival[OP_NTYPES]);
/* --series-by server: the same interval per server (n of them; 0: nothing), every op
 * type together, in rows of their own (op = OP_NTYPES + server; CSV "serverK", log tag
 * "serverK"); not in the steady-state verdict. 0 or -EIO. */
int series_add_servers(struct series *s, uint64_t start_ns, uint64_t end_ns,
		       const struct op_stats *srv, unsigned n);
/*
 * Steady-state verdict over the intervals of full length (>= 90% of an
 * interval) and those short only because a late cut began them; not the
 * last one cut short by the stop.
 */
void series_steady(struct series *s, struct steady_state *st);
/* Closes the HdrHistogram log (0 or -errno); the rows stay readable. */
int series_finish(struct series *s);
void series_destroy(struct series *s);

#endif
