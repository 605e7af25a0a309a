/*
 * The report renderers' shared helpers (report*.c, html*.c and merge.c only).
 */
#ifndef NFSLOAD_REPORT_INT_H
#define NFSLOAD_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "workload.h"

struct config;
struct hist;
struct op_stats;
struct report;

/* A worker thread busy this much of the time limited the run. */
#define BUSY_WARN_PCT 90.0

/* The percentiles every renderer shows, with their JSON keys. */
struct report_pct {
	const char *key;
	double pct;
};
#define REPORT_NPCTS 5
extern const struct report_pct report_pcts[REPORT_NPCTS];

/* The small-file test's passes, in order. */
#define REPORT_NPASSES 4
extern const enum op_type report_small_passes[REPORT_NPASSES];

double report_per_sec(uint64_t n, uint64_t ns);
double report_mib_s(uint64_t bytes, uint64_t ns);
/* Client CPU (user + system) per completed operation, in microseconds. */
double report_us_per_op(const struct report *r);
/* The worker threads' sleeps (voluntary context switches) per operation. */
double report_sleeps_per_op(const struct report *r);
/* "UNSTABLE, COMMIT after every 4 writes per file", "FILE_SYNC (--sync)", ... */
const char *report_write_stability(const struct config *cfg, char *buf, size_t len);
/* qsort order of conn_report: highest p99 first. */
int report_by_p99_desc(const void *a, const void *b);

/* The line on requests in flight at the stop that never got a reply; nothing if n is 0. */
void report_text_unanswered(FILE *out, uint64_t n);
/* One row of the text report's operation table: ops, rates over ns, latencies. */
/* An op's row of the text table, with its wire and client rows under it (--wire-time). */
void report_text_op_row(FILE *out, const char *name, const struct op_stats *s, uint64_t ns);
/* The same with the op column w wide (report_text's table: its longest name). */
void report_text_op_row_w(FILE *out, int w, const char *name, const struct op_stats *s,
			  uint64_t ns);
/* report_servers.c: the per-server table and JSON "servers" (several servers only). */
void report_text_servers(FILE *out, const struct report *r);
/* The header's line: how the connections went over the servers. */
void report_text_server_shares(FILE *out, const struct report *r);
void report_json_servers(FILE *out, const struct report *r);
/* report_replay.c: --replay's section (nothing without one). */
void report_text_replay(FILE *out, const struct report *r);
void report_json_replay(FILE *out, const struct report *r);

/* json_write.c: a JSON string (quoted, escaped) and number (finite, 3 decimals). */
void report_json_str(FILE *out, const char *s);
void report_json_num(FILE *out, double v);
/* {"min": .., "max": .., "mean": .., "stdev": .., and the percentiles} of a histogram. */
void report_json_lat(FILE *out, const struct hist *h);
/* , "key": [[lo, hi, count], ...]: the histogram's non-empty buckets. */
void report_json_buckets(FILE *out, const char *key, const struct hist *h);
/* One operation as JSON; proc: its NFS procedure name, with the histogram buckets
 * ([lo, hi, count], the non-empty ones); NULL for neither. */
void report_json_op(FILE *out, const struct op_stats *s, uint64_t ns, const char *proc);

/* report_curve.c: a load curve's text table and JSON "load_curve"
 * (null without a curve). */
void report_text_curve(FILE *out, const struct report *r);
void report_json_curve(FILE *out, const struct report *r);

#endif
