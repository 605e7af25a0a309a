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
#include "stats.h"

/* One interval of one op type, as the interval series stores it. */
struct interval_row {
	uint64_t start_ns;		/* since the measured window began */
	uint64_t len_ns;
	uint32_t op;			/* enum op_type */
	uint64_t ops, bytes, errors;
	uint64_t p50_ns, p99_ns, p999_ns, max_ns;
	uint64_t min_ns;
	uint64_t buckets_at;		/* --series-buckets: its first in the buckets file */
	uint64_t nbuckets;		/* its non-empty buckets there */
	/*
	 * Wire time (--wire-time), 0 when the interval has none: beside p50 and
	 * p99 a client falling behind shows as a widening gap. min, max and the
	 * wire histogram's buckets (--series-buckets) are what merging the
	 * series exactly needs.
	 */
	uint64_t wire_p50_ns, wire_p99_ns;
	uint64_t wire_min_ns, wire_max_ns;
	uint64_t wire_buckets_at, wire_nbuckets;
};

/* --series-buckets: one non-empty bucket of an interval row's histogram. */
struct series_bucket {
	uint64_t lo, hi, count;
};

/* Steady-state verdict over the measured intervals (all op types together). */
struct steady_state {
	bool valid;			/* at least 3 full intervals */
	unsigned intervals;
	double mean_iops;
	double cov_pct;			/* stdev / mean of per-interval IOPS */
	double drift_pct;		/* mean of the last third vs the first, in % */
	bool steady;			/* cov and |drift| both within 10% */
	const char *verdict;		/* one line, e.g. "steady" or "bursting: ..." */
};

/* The interval series as CSV: a header line, then one row per interval and op type. */
/* A row's op name, or "serverK" for a server's row (--series-by server). */
const char *report_row_name(const struct interval_row *row, char *buf, size_t len);
/* wire: the run has wire time (--wire-time): two more columns. */
void report_csv_header(FILE *out, bool wire);
void report_csv_row(FILE *out, const struct interval_row *row, bool wire);

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
