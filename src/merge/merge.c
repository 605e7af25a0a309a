/*
 * merge: nfsload --merge FILE... reads JSON reports (--output-format json)
 * of runs on several client hosts, or of several runs, and prints one result
 * for all of them, for users who launch hosts some other way than MPI.
 *
 * The histograms add exactly: each report carries its operations' non-empty
 * buckets ([lo, hi, count] of HdrHistogram's scheme, hist.h); a bucket's lower
 * bound gives its index back, so the merged percentiles are those one process
 * would have reported for every operation of every run. min and max carry
 * over, the mean and standard deviation pool from each run's count, mean and
 * stdev. Wire time (--wire-time) adds the same way, from each operation's
 * wire and client buckets, and so do the per-server tables of runs over
 * several servers, by URL (merge_servers.c). A merged report is itself a
 * report --merge reads.
 *
 * The runs are taken as concurrent: rates are the sum of operations over the
 * longest run's measured time. One row per input names its host and shows a
 * slow one (p99 over 3x the median input's, the rule for connections).
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_status.h"
#include "merge.h"
#include "merge_read.h"
#include "merge_series.h"
#include "merge_servers.h"
#include "report.h"
#include "../report/report_int.h"
#include "stats.h"
#include "units.h"
#include "version.h"

#define SLOW_FACTOR 3.0

struct input {
	const char *file;
	char host[256];
	char engine[32];
	char nfs_version[8];		/* as the run reported it ("4.1"), "" if none */
	char rw[32];
	uint64_t bs;
	int64_t start_ns;
	uint64_t duration_ns, interval_ns;
	double user_s, sys_s;		/* the client's CPU */
	struct op_stats ops[OP_NTYPES];
	struct op_stats total;
	uint64_t unanswered_at_stop;	/* its total's */
	bool slow;
};

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static double real(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* The op type reported under name, or -1. */
static int op_from_name(const char *name)
{
	for (int t = 0; t < OP_NTYPES; t++)
		if (!strcmp(op_name(t), name))
			return t;
	return -1;
}

static void copy_str(char *dst, size_t cap, json_t *v)
{
	snprintf(dst, cap, "%s", json_is_string(v) ? json_string_value(v) : "");
}

/*
 * One report (a file, or text when text is not NULL) into in, its interval
 * series into ms: 0, or -errno with one line in err.
 */
static int read_input(const char *file, const char *text, struct input *in,
		      struct merge_series *ms, struct merge_servers *msrv, char *err, size_t len)
{
	json_error_t je;
	json_t *root = text ? json_loads(text, 0, &je) : json_load_file(file, 0, &je), *ops, *set, *o;
	const char *key;
	int rc = 0;

	in->file = file;
	if (!root)
		return fail(err, len, "--merge: %s: %s (line %d)", file, je.text, je.line);
	ops = json_object_get(root, "ops");
	set = json_object_get(root, "settings");
	if (!json_is_string(json_object_get(root, "nfsload_version")) || !json_is_object(ops) ||
	    !json_is_object(set)) {
		json_decref(root);
		return fail(err, len, "--merge: %s: not an nfsload JSON report "
			    "(--output-format json)", file);
	}
	copy_str(in->host, sizeof(in->host), json_object_get(root, "host"));
	copy_str(in->engine, sizeof(in->engine), json_object_get(set, "engine"));
	copy_str(in->nfs_version, sizeof(in->nfs_version), json_object_get(set, "nfs_version"));
	copy_str(in->rw, sizeof(in->rw), json_object_get(set, "rw"));
	in->bs = merge_num(set, "bs");
	in->start_ns = (int64_t)merge_num(root, "start_unix_ns");
	in->duration_ns = merge_num(root, "duration_ns");
	in->interval_ns = merge_num(set, "interval_ns");
	in->user_s = real(json_object_get(root, "cpu"), "user_s");
	in->sys_s = real(json_object_get(root, "cpu"), "sys_s");
	in->unanswered_at_stop = merge_num(json_object_get(root, "total"), "unanswered_at_stop");
	if ((rc = merge_series_add(ms, json_object_get(root, "series"), in->interval_ns,
				   op_from_name)) < 0) {
		json_decref(root);
		return rc == -ENOMEM ? rc : fail(err, len, "--merge: %s: series: a row of an "
						 "operation nfsload does not report", file);
	}
	if ((rc = merge_servers_add(msrv, json_object_get(root, "servers"),
				    json_is_true(json_object_get(set, "shared_namespace")))) < 0) {
		json_decref(root);
		return rc == -ENOMEM ? rc : fail(err, len, "--merge: %s: servers: not the per-server "
						 "entries nfsload reports (url, connections, stats "
						 "with buckets)", file);
	}
	json_object_foreach(ops, key, o) {
		int t = op_from_name(key);

		if (t < 0 || (rc = merge_read_op(o, &in->ops[t])) < 0) {
			if (rc != -ENOMEM)
				rc = fail(err, len, "--merge: %s: ops.%s: not an operation nfsload "
					  "reports (ops, bytes, errors, lat_ns and buckets; with wire "
					  "time, wire_count and its buckets)", file, key);
			break;
		}
		op_stats_add(&in->total, &in->ops[t]);
	}
	json_decref(root);
	return rc;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Flags the inputs whose p99 is over SLOW_FACTOR x the median input's. */
static void flag_slow(struct input *in, unsigned n)
{
	uint64_t *p = calloc(n, sizeof(*p)), med;
	unsigned k = 0;

	if (!p || n < 2) {
		free(p);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		if (in[i].total.ops)
			p[k++] = hist_percentile(&in[i].total.lat, 99);
	qsort(p, k, sizeof(*p), by_u64);
	med = k ? p[(k - 1) / 2] : 0;
	for (unsigned i = 0; i < n && med; i++)
		in[i].slow = in[i].total.ops &&
			     (double)hist_percentile(&in[i].total.lat, 99) > SLOW_FACTOR * (double)med;
	free(p);
}

/* "bs, rw": the settings in which the inputs differ ("" if none). */
static const char *differences(const struct input *in, unsigned n, char *buf, size_t cap)
{
	bool engine = false, rw = false, bs = false, ival = false;
	size_t k = 0;

	for (unsigned i = 1; i < n; i++) {
		engine |= strcmp(in[i].engine, in[0].engine) != 0;
		rw |= strcmp(in[i].rw, in[0].rw) != 0;
		bs |= in[i].bs != in[0].bs;
		ival |= in[i].interval_ns != in[0].interval_ns;
	}
	buf[0] = '\0';
	if (engine)
		k += (size_t)snprintf(buf + k, cap - k, "%sengine", k ? ", " : "");
	if (rw && k < cap)
		k += (size_t)snprintf(buf + k, cap - k, "%srw", k ? ", " : "");
	if (bs && k < cap)
		k += (size_t)snprintf(buf + k, cap - k, "%sbs", k ? ", " : "");
	if (ival && k < cap)
		snprintf(buf + k, cap - k, "%sinterval", k ? ", " : "");
	return buf;
}

static const char *name_of(int t)
{
	return op_name(t);
}

/*
 * The merged series: with text, a line on out; else the rows to what `to`
 * names (the JSON report's rows, CSV rows, the HdrHistogram log).
 */
static int series_out(FILE *out, struct merge_series_out *to, struct merge_series *ms,
		      uint64_t interval_ns)
{
	struct merge_series_summary sum;
	bool text = !to->json && !to->csv;
	char a[32], b[32], c[32];
	int rc;

	if (!merge_series_ok(ms)) {
		if (text)
			fputs("interval series: not merged (every input needs --series-buckets and "
			      "the same --interval)\n", out);
		return 0;
	}
	if ((rc = merge_series_emit(ms, interval_ns, to, name_of, &sum)) < 0 || !text ||
	    !sum.intervals)
		return rc;
	fprintf(out, "intervals: %u of %s, every input's added: IOPS per interval %.0f lowest, "
		"%.0f mean, %.0f highest; p99 per interval and op %s to %s\n", sum.intervals,
		units_format_duration(interval_ns, c, sizeof(c)), sum.iops_min, sum.iops_mean,
		sum.iops_max, units_format_duration(sum.p99_min_ns, a, sizeof(a)),
		units_format_duration(sum.p99_max_ns, b, sizeof(b)));
	return 0;
}

/* The inputs' requests in flight at their stop that got no reply, added. */
static uint64_t unanswered(const struct input *in, unsigned n)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++)
		sum += in[i].unanswered_at_stop;
	return sum;
}

static void print_text(FILE *out, struct input *in, unsigned n, const struct op_stats *ops,
		       uint64_t ns, const char *diff, const char *what, struct merge_series *ms,
		       const struct merge_servers *msrv, struct hdrlog *hdr)
{
	struct merge_series_out to = { .hdr = hdr };
	struct op_stats tot;
	char a[32], b[32];

	fprintf(out, "nfsload %s: %u %s merged, histograms added bucket by bucket\n",
		NFSLOAD_VERSION, n, what);
	fprintf(out, "measured: %s (the longest run's; rates are the sum over it, the runs "
		"taken as concurrent)\n", units_format_duration(ns, a, sizeof(a)));
	if (diff[0])
		fprintf(out, "note: the runs differ in %s\n", diff);
	fprintf(out, "\n%-6s %10s %10s %9s %7s %9s %9s %9s %9s %9s %9s %9s %9s\n", "op", "ops",
		"IOPS", "MiB/s", "errors", "min", "mean", "p50", "p90", "p99", "p99.9", "p99.99",
		"max");
	for (int t = 0; t < OP_NTYPES; t++) {
		if (ops[t].ops || ops[t].errors) {
			report_text_op_row(out, op_name(t), &ops[t], ns);
		}
	}
	if (op_stats_init(&tot, HIST_PRECISE_BITS, false) == 0) {
		for (int t = 0; t < OP_NTYPES; t++)
			op_stats_add(&tot, &ops[t]);
		report_text_op_row(out, "total", &tot, ns);
		op_stats_destroy(&tot);
	}
	fputc('\n', out);
	if (series_out(out, &to, ms, in[0].interval_ns) < 0)
		fputs("interval series: not merged (out of memory or a bad bucket)\n", out);
	report_text_unanswered(out, unanswered(in, n));
	fprintf(out, "\n%-24s %-16s %-8s %10s %10s %9s %7s %9s %9s  %s\n", "input", "host",
		"engine", "ops", "IOPS", "MiB/s", "errors", "p50", "p99", "note");
	for (unsigned i = 0; i < n; i++) {
		const struct op_stats *s = &in[i].total;

		fprintf(out, "%-24s %-16s %-8s %10" PRIu64 " %10.0f %9.1f %7" PRIu64 " %9s %9s  %s\n",
			in[i].file, in[i].host[0] ? in[i].host : "-", in[i].engine, s->ops,
			report_per_sec(s->ops, in[i].duration_ns),
			report_mib_s(s->bytes, in[i].duration_ns), s->errors,
			units_format_duration(hist_percentile(&s->lat, 50), a, sizeof(a)),
			units_format_duration(hist_percentile(&s->lat, 99), b, sizeof(b)),
			in[i].slow ? "slow: p99 over 3x the median input's" : "");
	}
	merge_servers_text(out, msrv, ns);
}

static void print_json(FILE *out, struct input *in, unsigned n, const struct op_stats *ops,
		       int64_t start_ns, uint64_t ns, const char *diff, struct merge_series *ms,
		       const struct merge_servers *msrv, struct hdrlog *hdr)
{
	struct merge_series_out to = { .json = out, .hdr = hdr };
	uint64_t o = 0, bytes = 0, errors = 0;

	fprintf(out, "{\n\"nfsload_version\": \"%s\",\n\"merged\": {\"files\": %u, \"differ_in\": ",
		NFSLOAD_VERSION, n);
	report_json_str(out, diff);
	fprintf(out, "},\n\"start_unix_ns\": %" PRId64 ",\n\"host\": \"\",\n\"settings\": "
		"{\"engine\": ", start_ns);
	report_json_str(out, in[0].engine);
	fputs(", \"rw\": ", out);
	report_json_str(out, in[0].rw);
	fprintf(out, ", \"bs\": %" PRIu64 ", \"interval_ns\": %" PRIu64 "%s},\n\"inputs\": [",
		in[0].bs, in[0].interval_ns,
		merge_servers_shared(msrv) ? ", \"shared_namespace\": true" : "");
	for (unsigned i = 0; i < n; i++) {
		const struct op_stats *s = &in[i].total;

		fputs(i ? ",\n  {\"file\": " : "\n  {\"file\": ", out);
		report_json_str(out, in[i].file);
		fputs(", \"host\": ", out);
		report_json_str(out, in[i].host);
		fputs(", \"engine\": ", out);
		report_json_str(out, in[i].engine);
		fprintf(out, ", \"start_unix_ns\": %" PRId64 ", \"duration_ns\": %" PRIu64
			", \"ops\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"errors\": %" PRIu64
			", \"iops\": ", in[i].start_ns, in[i].duration_ns, s->ops, s->bytes, s->errors);
		report_json_num(out, report_per_sec(s->ops, in[i].duration_ns));
		fprintf(out, ", \"p50_ns\": %" PRIu64 ", \"p99_ns\": %" PRIu64 ", \"slow\": %s"
			", \"unanswered_at_stop\": %" PRIu64 "}", hist_percentile(&s->lat, 50),
			hist_percentile(&s->lat, 99), in[i].slow ? "true" : "false",
			in[i].unanswered_at_stop);
	}
	fputs("\n],\n", out);
	merge_servers_json(out, msrv, ns);
	fprintf(out, "\"duration_ns\": %" PRIu64 ",\n\"ops\": {", ns);
	for (int t = 0, first = 1; t < OP_NTYPES; t++) {
		if (!ops[t].ops && !ops[t].errors)
			continue;
		fprintf(out, "%s\n  \"%s\": ", first ? "" : ",", op_name(t));
		report_json_op(out, &ops[t], ns, op_procedure(t));
		first = 0;
		o += ops[t].ops;
		bytes += ops[t].bytes;
		errors += ops[t].errors;
	}
	fprintf(out, "\n},\n\"total\": {\"ops\": %" PRIu64 ", \"count\": %" PRIu64 ", \"bytes\": %"
		PRIu64 ", \"errors\": %" PRIu64 ", \"iops\": ", o, o, bytes, errors);
	report_json_num(out, report_per_sec(o, ns));
	fputs(", \"mib_s\": ", out);
	report_json_num(out, report_mib_s(bytes, ns));
	fprintf(out, ", \"unanswered_at_stop\": %" PRIu64 "},\n\"series\": [", unanswered(in, n));
	series_out(out, &to, ms, in[0].interval_ns);
	fprintf(out, "\n],\n\"series_merged\": %s\n}\n", merge_series_ok(ms) ? "true" : "false");
}

bool merge_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--merge"))
			return true;
	return false;
}

/* The command line: files, --output-format, --output FILE, --hdr-log FILE. 0 or -EINVAL. */
static int parse(int argc, char **argv, const char **files, unsigned *n, enum cfg_format *fmt,
		 const char **output, const char **hdr_log, char *err, size_t len)
{
	*n = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--merge"))
			continue;
		if (!strcmp(a, "--output-format") || !strcmp(a, "--output") ||
		    !strcmp(a, "--hdr-log")) {
			const char *v = i + 1 < argc ? argv[++i] : NULL;

			if (!v)
				return fail(err, len, "%s: needs a value", a);
			if (!strcmp(a, "--output"))
				*output = v;
			else if (!strcmp(a, "--hdr-log"))
				*hdr_log = v;
			else if (!strcmp(v, "text") || !strcmp(v, "json") || !strcmp(v, "csv"))
				*fmt = v[0] == 't' ? CFG_FORMAT_TEXT : v[0] == 'j' ? CFG_FORMAT_JSON :
				       CFG_FORMAT_CSV;
			else
				return fail(err, len, "--output-format: '%s' with --merge: text, json "
					    "or csv", v);
		} else if (a[0] == '-' && a[1]) {
			return fail(err, len, "--merge takes result files and --output-format "
				    "text|json|csv, --output FILE, --hdr-log FILE; not '%s'", a);
		} else {
			files[(*n)++] = a;
		}
	}
	if (*n == 0)
		return fail(err, len, "--merge: no result file given (nfsload --merge a.json b.json)");
	return 0;
}

/*
 * The HTML report of the merge, from a report model of its own: the merged
 * operations and series, the run's settings (cfg), no connections or threads
 * (they are each rank's). 0 or -errno.
 */
static int print_html(const struct merge_out *o, const struct op_stats *ops,
		      const struct input *in, unsigned n, int64_t start, uint64_t ns,
		      struct merge_series *ms)
{
	uint64_t interval_ns = in[0].interval_ns;
	static struct report r;	/* large; one at a time */
	struct merge_series_out to = { .rows = tmpfile() };
	char note[120];
	int rc;

	if (!to.rows)
		return -errno;
	memset(&r, 0, sizeof(r));
	r.cfg = o->cfg;
	r.engine = in[0].engine;
	r.nfs_version = in[0].nfs_version[0] ? in[0].nfs_version : NULL;
	for (unsigned i = 0; i < n; i++) {	/* every rank's CPU over every rank's ops */
		r.user_s += in[i].user_s;
		r.sys_s += in[i].sys_s;
	}
	r.ports = "";
	snprintf(note, sizeof(note), "%u MPI ranks' reports merged: histograms added exactly; "
		 "connections and threads are in each rank's own report", n);
	r.limits_note = note;
	memcpy(r.ops, ops, sizeof(r.ops));	/* shared buckets: read only here */
	r.duration_ns = ns;
	r.unanswered_at_stop = unanswered(in, n);
	r.start_unix_ns = start;
	r.interval_ns = interval_ns;
	if (merge_series_ok(ms) && (rc = merge_series_emit(ms, interval_ns, &to, name_of,
							  &(struct merge_series_summary){ 0 })) < 0) {
		fclose(to.rows);
		return rc;
	}
	r.series = to.rows;
	r.nseries = to.nrows;
	report_html(o->html, &r);
	fclose(to.rows);
	return fflush(o->html) ? -errno : 0;
}

int merge_reports(const char *const *names, char *const *texts, unsigned n,
		  const struct merge_out *o, char *err, size_t len)
{
	enum cfg_format fmt = o->fmt;
	const char *hdr_log = o->hdr_log;
	FILE *out = o->out;
	struct hdrlog *hdr = NULL;
	const char *what = texts ? "MPI ranks' reports" : "result files";
	struct op_stats ops[OP_NTYPES];
	struct input *in = calloc(n, sizeof(*in));
	struct merge_series *ms = merge_series_new(n);
	struct merge_servers *msrv = merge_servers_new();
	int64_t start = INT64_MAX;
	uint64_t ns = 0;
	char diff[64];
	int rc = -ENOMEM;

	memset(ops, 0, sizeof(ops));
	if (!in || !ms || !msrv || op_stats_init_all(ops, HIST_PRECISE_BITS, false) < 0)
		goto done;
	for (unsigned i = 0; i < n; i++)
		if (op_stats_init_all(in[i].ops, HIST_PRECISE_BITS, false) < 0 ||
		    op_stats_init(&in[i].total, HIST_PRECISE_BITS, false) < 0)
			goto done;
	for (unsigned i = 0; i < n; i++) {
		if ((rc = read_input(names[i], texts ? texts[i] : NULL, &in[i], ms, msrv, err,
				     len)) < 0)
			goto done;
		op_stats_add_all(ops, in[i].ops);
		if (in[i].start_ns < start)
			start = in[i].start_ns;
		if (in[i].duration_ns > ns)
			ns = in[i].duration_ns;
	}
	flag_slow(in, n);
	merge_servers_end(msrv);
	differences(in, n, diff, sizeof(diff));
	if (strstr(diff, "interval"))
		merge_series_drop(ms);	/* the intervals do not line up */
	/* CSV and the HdrHistogram log are the series: nothing to write without it. */
	if ((fmt == CFG_FORMAT_CSV || (hdr_log && hdr_log[0])) && !merge_series_ok(ms)) {
		rc = fail(err, len, "%s: the inputs' interval series cannot be merged (every "
			  "input needs --series-buckets and the same --interval)",
			  fmt == CFG_FORMAT_CSV ? "--output-format csv" : "--hdr-log");
		goto done;
	}
	if (hdr_log && hdr_log[0] && (rc = hdrlog_open(hdr_log, start, &hdr)) < 0) {
		rc = fail(err, len, "--hdr-log: cannot write '%s': %s", hdr_log, strerror(-rc));
		goto done;
	}
	if (fmt == CFG_FORMAT_JSON) {
		print_json(out, in, n, ops, start, ns, diff, ms, msrv, hdr);
	} else if (fmt == CFG_FORMAT_CSV) {
		struct merge_series_out to = { .csv = out, .hdr = hdr };

		report_csv_header(out, merge_series_wire(ms));
		series_out(out, &to, ms, in[0].interval_ns);
	} else {
		print_text(out, in, n, ops, ns, diff, what, ms, msrv, hdr);
	}
	rc = 0;
	if (hdr && hdrlog_close(hdr) < 0)
		rc = fail(err, len, "--hdr-log: writing '%s' failed", hdr_log);
	hdr = NULL;
	if (rc == 0 && o->html && o->cfg &&
	    (rc = print_html(o, ops, in, n, start, ns, ms)) < 0)
		rc = fail(err, len, "--report: writing the HTML report failed: %s", strerror(-rc));
done:
	if (rc == -ENOMEM)
		snprintf(err, len, "--merge: out of memory");
	for (unsigned i = 0; in && i < n; i++) {
		op_stats_destroy_all(in[i].ops);	/* safe on the ones never made (zeroed) */
		op_stats_destroy(&in[i].total);
	}
	op_stats_destroy_all(ops);
	merge_series_free(ms);
	merge_servers_free(msrv);
	free(in);
	return rc;
}

int merge_main(int argc, char **argv)
{
	const char **files = calloc((size_t)argc, sizeof(*files)), *output = NULL, *hdr_log = NULL;
	char err[600] = "--merge: out of memory", *buf = NULL;
	enum cfg_format fmt = CFG_FORMAT_TEXT;
	size_t blen = 0;
	unsigned n = 0;
	FILE *mem = NULL, *out = stdout;
	int rc = -ENOMEM;

	/* Into memory first: --output is written only once every input has been read. */
	if (files && (rc = parse(argc, argv, files, &n, &fmt, &output, &hdr_log, err,
				 sizeof(err))) == 0 &&
	    (rc = (mem = open_memstream(&buf, &blen)) ? 0 : -ENOMEM) == 0) {
		const struct merge_out o = { .fmt = fmt, .out = mem, .hdr_log = hdr_log };

		rc = merge_reports(files, NULL, n, &o, err, sizeof(err));
		fclose(mem);
		if (rc == 0 && output && !(out = fopen(output, "w")))
			rc = fail(err, sizeof(err), "--output: cannot write '%s': %s", output,
				  strerror(errno));
		if (rc == 0 && (fwrite(buf, 1, blen, out) != blen || fflush(out)))
			rc = fail(err, sizeof(err), "writing the merged report failed: %s",
				  strerror(errno));
		if (out != stdout)
			fclose(out);
	}
	free(buf);
	if (rc < 0)
		fprintf(stderr, "nfsload: %s\n", err);
	free(files);
	return rc < 0 ? EXIT_USAGE : 0;
}
