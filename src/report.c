/*
 * report: text and JSON renderings of a struct report. The JSON schema is
 * documented in nfsload(1); keep the two in step.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "units.h"
#include "version.h"

#define BUSY_WARN_PCT 90.0


static const struct {
	const char *key;
	double pct;
} pcts[] = {
	{ "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p99.9", 99.9 }, { "p99.99", 99.99 },
};
#define NPCTS (sizeof(pcts) / sizeof(pcts[0]))

int report_series_get(const struct report *r, uint64_t i, struct interval_row *row)
{
	if (!r->series || i >= r->nseries ||
	    fseek(r->series, (long)(i * sizeof(*row)), SEEK_SET) ||
	    fread(row, sizeof(*row), 1, r->series) != 1)
		return -EIO;
	return 0;
}

void report_csv_header(FILE *out)
{
	fputs("start_s,length_s,op,ops,iops,mib_s,errors,p50_ns,p99_ns,p99.9_ns,max_ns\n", out);
}

void report_csv_row(FILE *out, const struct interval_row *row)
{
	double secs = (double)row->len_ns / 1e9;

	fprintf(out, "%.3f,%.3f,%s,%" PRIu64 ",%.1f,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
		PRIu64 ",%" PRIu64 "\n", (double)row->start_ns / 1e9, secs, op_name(row->op),
		row->ops, secs > 0 ? (double)row->ops / secs : 0.,
		secs > 0 ? (double)row->bytes / secs / 1048576.0 : 0., row->errors, row->p50_ns,
		row->p99_ns, row->p999_ns, row->max_ns);
}

uint64_t report_total_ops(const struct report *r)
{
	uint64_t n = 0;

	for (int t = 0; t < OP_NTYPES; t++)
		n += r->ops[t].ops;
	return n;
}

bool report_client_bound(const struct report *r)
{
	for (unsigned i = 0; i < r->nthreads; i++)
		if (r->threads[i].busy_pct >= BUSY_WARN_PCT)
			return true;
	return false;
}

static double per_sec(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

static double mib_s(uint64_t bytes, uint64_t ns)
{
	return per_sec(bytes, ns) / (1024.0 * 1024.0);
}

static double cpu_us_per_op(const struct report *r)
{
	uint64_t n = report_total_ops(r);

	return n ? (r->user_s + r->sys_s) * 1e6 / (double)n : 0.0;
}

static int by_p99_desc(const void *a, const void *b)
{
	const struct conn_report *x = a, *y = b;

	return x->p99_ns < y->p99_ns ? 1 : x->p99_ns > y->p99_ns ? -1 : 0;
}

/* "UNSTABLE, COMMIT after every 4 writes per file", "FILE_SYNC (--sync)", ... */
static const char *write_stability(const struct config *cfg, char *buf, size_t len)
{
	if (cfg->sync)
		snprintf(buf, len, "FILE_SYNC (--sync)");
	else if (cfg->commit_every)
		snprintf(buf, len, "UNSTABLE, COMMIT after every %u write%s per file",
			 cfg->commit_every, cfg->commit_every == 1 ? "" : "s");
	else
		snprintf(buf, len, "UNSTABLE, no COMMIT");
	return buf;
}

static void text_lat(FILE *out, uint64_t ns)
{
	char buf[32];

	fprintf(out, " %9s", units_format_duration(ns, buf, sizeof(buf)));
}

static void text_op_row(FILE *out, const char *name, const struct op_stats *s, uint64_t ns)
{
	fprintf(out, "%-6s %10" PRIu64 " %10.0f %9.1f %7" PRIu64, name, s->ops,
		per_sec(s->ops, ns), mib_s(s->bytes, ns), s->errors);
	if (s->ops == 0) {
		fputc('\n', out);
		return;
	}
	text_lat(out, s->lat.min);
	text_lat(out, (uint64_t)hist_mean(&s->lat));
	for (size_t i = 0; i < NPCTS; i++)
		text_lat(out, hist_percentile(&s->lat, pcts[i].pct));
	text_lat(out, s->lat.max);
	fputc('\n', out);
}

void report_outages(const struct report *r, struct outage_summary *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < r->nconns; i++) {
		const struct conn_report *c = &r->conns[i];

		s->reconnects += c->reconnects;
		if (!c->noutages)
			continue;
		s->connections++;
		s->count += c->noutages;
		for (uint64_t k = 0; k < c->noutages && k < CONN_OUTAGES_MAX; k++) {
			const struct conn_outage *o = &c->outages[k];

			s->failed_ops += o->failed_ops;
			s->unrecovered += !o->recovered;
			if (o->stall_ns > s->max_stall_ns)
				s->max_stall_ns = o->stall_ns;
			if (o->reconnect_ns > s->max_reconnect_ns)
				s->max_reconnect_ns = o->reconnect_ns;
			if ((s->connections == 1 && k == 0) || o->start_ns < s->first_ns)
				s->first_ns = o->start_ns;
		}
	}
}

/* One row per outage; times since the measured window began (negative: before it). */
static void text_outages(FILE *out, const struct report *r)
{
	struct outage_summary s;
	unsigned shown = 0;
	char a[32], b[32];

	report_outages(r, &s);
	if (!s.count)
		return;
	fprintf(out, "\noutages: %" PRIu64 " on %u connection%s, %" PRIu64 " recovered, first at "
		"%.2f s; %" PRIu64 " operations failed (--on-error %s)\n", s.count, s.connections,
		s.connections == 1 ? "" : "s", s.count - s.unrecovered, (double)s.first_ns / 1e9,
		s.failed_ops, r->cfg->on_error == CFG_ON_ERROR_STOP ? "stop" : "continue");
	if (s.unrecovered < s.count)
		fprintf(out, "  I/O stalled up to %s, reconnecting took up to %s\n",
			units_format_duration(s.max_stall_ns, a, sizeof(a)),
			units_format_duration(s.max_reconnect_ns, b, sizeof(b)));
	fprintf(out, "  %-6s %9s %9s %9s %11s %8s %6s\n", "conn", "start", "detected", "stalled",
		"reconnected", "attempts", "failed");
	for (unsigned i = 0; i < r->nconns && shown < 20; i++) {
		const struct conn_report *c = &r->conns[i];

		for (uint64_t k = 0; k < c->noutages && k < CONN_OUTAGES_MAX && shown < 20; k++) {
			const struct conn_outage *o = &c->outages[k];

			shown++;
			fprintf(out, "  %-6u %8.2fs %8.2fs %9s %11s %8u %6" PRIu64 "\n", c->id,
				(double)o->start_ns / 1e9, (double)o->detected_ns / 1e9,
				o->stall_ns ? units_format_duration(o->stall_ns, a, sizeof(a)) : "-",
				o->recovered ? units_format_duration(o->reconnect_ns, b, sizeof(b)) :
					       "no", o->attempts, o->failed_ops);
		}
	}
	if (shown < s.count)
		fprintf(out, "  (the first %u; all in --output-format json)\n", shown);
}

/* --verify: what was checked, and the first bad blocks in full. */
static void text_verify(FILE *out, const struct report *r)
{
	const struct verify_counts *v = &r->verify;
	char a[32], b[32], line[600];

	if (!r->cfg->verify)
		return;
	if (r->verify_pass_ran)
		fprintf(out, "read-back: %s read and checked in %s (%.1f MiB/s)\n",
			units_format_size(r->verify_pass.bytes, a, sizeof(a)),
			units_format_duration(r->verify_pass_ns, b, sizeof(b)),
			mib_s(r->verify_pass.bytes, r->verify_pass_ns));
	if (r->cfg->verify_only)
		snprintf(b, sizeof(b), "any generation");
	else
		snprintf(b, sizeof(b), "generation %u", r->verify_generation);
	fprintf(out, "verify: %" PRIu64 " blocks of %s checked (%s, seed %" PRIu64 "), %" PRIu64
		" bad", v->blocks, units_format_size(r->cfg->bs, a, sizeof(a)), b, r->cfg->seed,
		v->bad);
	for (int k = VERIFY_MAGIC; k <= VERIFY_CHECKSUM; k++)
		if (v->by_kind[k])
			fprintf(out, ", %s %" PRIu64, verify_kind_name(k), v->by_kind[k]);
	fputc('\n', out);
	for (unsigned i = 0; i < v->nkept; i++) {
		verify_describe(&v->kept[i], line, sizeof(line));
		fprintf(out, "  %s\n", line);
	}
	if (v->bad > v->nkept)
		fprintf(out, "  (the first %u in detail)\n", v->nkept);
}

static void text_connections(FILE *out, const struct report *r)
{
	struct conn_report *sorted;
	uint64_t lo = UINT64_MAX, hi = 0, idle = 0, failed = 0;
	char a[32], b[32];

	for (unsigned i = 0; i < r->nconns; i++) {
		const struct conn_report *c = &r->conns[i];

		lo = c->ops < lo ? c->ops : lo;
		hi = c->ops > hi ? c->ops : hi;
		idle += c->ops == 0;
		failed += c->error[0] != '\0';
	}
	fprintf(out, "\nconnections: %u, ops per connection %" PRIu64 "..%" PRIu64
		", %" PRIu64 " without completions, %" PRIu64 " failed\n",
		r->nconns, lo, hi, idle, failed);
	sorted = malloc(r->nconns * sizeof(*sorted));
	if (!sorted)
		return;
	memcpy(sorted, r->conns, r->nconns * sizeof(*sorted));
	if (r->nconns > 16)
		qsort(sorted, r->nconns, sizeof(*sorted), by_p99_desc);
	fprintf(out, "  %-6s %-6s %10s %9s %7s %9s %9s  %s\n", "conn", "thread", "ops", "MiB",
		"errors", "p50", "p99", "notes");
	for (unsigned i = 0; i < r->nconns; i++) {
		const struct conn_report *c = &sorted[i];
		bool troubled = !c->ops || c->errors || c->error[0] || c->outlier || c->stuck ||
				c->noutages;

		/* Short for many connections: the slowest five and every troubled one. */
		if (r->nconns > 16 && i >= 5 && !troubled)
			continue;
		fprintf(out, "  %-6u %-6u %10" PRIu64 " %9.1f %7" PRIu64 " %9s %9s", c->id,
			c->worker, c->ops, (double)c->bytes / 1048576.0, c->errors,
			units_format_duration(c->p50_ns, a, sizeof(a)),
			units_format_duration(c->p99_ns, b, sizeof(b)));
		if (troubled)
			fputc(' ', out);
		if (c->outlier)
			fputs(" outlier", out);
		if (c->stuck)
			fputs(" stuck", out);
		if (c->noutages)
			fprintf(out, " outages:%" PRIu64 " reconnects:%" PRIu64, c->noutages,
				c->reconnects);
		for (int k = 0; k < CONN_ERR_KINDS && c->err_kinds[k].count; k++)
			fprintf(out, " %s:%" PRIu64, conn_err_name(c->err_kinds[k].code),
				c->err_kinds[k].count);
		if (c->err_other)
			fprintf(out, " other:%" PRIu64, c->err_other);
		fprintf(out, "%s%s\n", c->error[0] ? " " : "", c->error);
	}
	if (r->nconns > 16)
		fprintf(out, "  (the slowest 5 by p99 and every troubled one; "
			"all in --output-format json)\n");
	free(sorted);
}

/* "3, 17, 40" for the connections with the flag, into buf. */
static const char *conn_list(const struct report *r, bool stuck, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < r->nconns && used + 16 < len; i++)
		if (stuck ? r->conns[i].stuck : r->conns[i].outlier)
			used += (size_t)snprintf(buf + used, len - used, "%s%u", used ? ", " : "",
						 r->conns[i].id);
	return buf;
}

static const enum op_type small_passes[] = { OP_CREATE, OP_READ, OP_GETATTR, OP_REMOVE };
#define NPASSES (sizeof(small_passes) / sizeof(small_passes[0]))

/* The small-file test: one row per pass, files/s and MiB/s over that pass. */
static void text_small_files(FILE *out, const struct report *r)
{
	char a[32], b[32], c[32];

	fprintf(out, "\nsmall files: %u of %s\n  %-8s %9s %9s %10s %9s %9s %9s %7s\n",
		r->cfg->small_files, units_format_size(r->cfg->file_size, a, sizeof(a)), "pass",
		"files", "time", "files/s", "MiB/s", "p50", "p99", "errors");
	for (size_t p = 0; p < NPASSES; p++) {
		const struct op_stats *s = &r->ops[small_passes[p]];
		uint64_t ns = r->pass_ns[small_passes[p]];

		fprintf(out, "  %-8s %9" PRIu64 " %9s %10.0f %9.1f %9s %9s %7" PRIu64 "\n",
			op_name(small_passes[p]), s->ops, units_format_duration(ns, a, sizeof(a)),
			per_sec(s->ops, ns), mib_s(s->bytes, ns),
			units_format_duration(hist_percentile(&s->lat, 50), b, sizeof(b)),
			units_format_duration(hist_percentile(&s->lat, 99), c, sizeof(c)), s->errors);
	}
}

/* Per-interval IOPS (all op types): how many intervals, lowest, mean, highest. */
static void text_intervals(FILE *out, const struct report *r)
{
	struct interval_row row;
	uint64_t start = UINT64_MAX, ops = 0, len = 0, n = 0;
	double lo = INFINITY, hi = 0, sum = 0, v;
	char a[32];

	for (uint64_t i = 0; i <= r->nseries; i++) {
		bool more = i < r->nseries && report_series_get(r, i, &row) == 0;

		if (!more || row.start_ns != start) {
			if (start != UINT64_MAX && len) {
				v = (double)ops * 1e9 / (double)len;
				lo = fmin(lo, v);
				hi = fmax(hi, v);
				sum += v;
				n++;
			}
			if (!more)
				break;
			start = row.start_ns;
			len = row.len_ns;
			ops = 0;
		}
		ops += row.ops;
	}
	if (n)
		fprintf(out, "intervals: %" PRIu64 " of %s, IOPS per interval %.0f lowest, %.0f mean, "
			"%.0f highest\n", n, units_format_duration(r->interval_ns, a, sizeof(a)), lo,
			sum / (double)n, hi);
}

static void text_open_loop(FILE *out, const struct report *r)
{
	char a[32], b[32], c[32], d[32];

	fprintf(out, "\nopen loop: requested %.0f ops/s (%s arrivals), achieved %.0f ops/s; "
		"%" PRIu64 " due but not issued at the end; worst lateness %s\n", r->rate,
		r->cfg->arrival == CFG_ARRIVAL_POISSON ? "poisson" : "uniform", r->achieved_rate,
		r->backlog_ops, units_format_duration(r->max_lag_ns, a, sizeof(a)));
	if (r->achieved_rate < 0.95 * r->rate)
		fprintf(out, "warning: the server did not keep up with the requested rate: "
			"latency from the intended start includes the wait for a free slot\n");
	for (int t = 0; t < OP_NTYPES; t++) {
		const struct op_stats *s = &r->ops[t];

		if (!s->ops || !s->lat_unc.counts)
			continue;
		fprintf(out, "  %-6s from intended start p50 %s p99 %s | from issue p50 %s p99 %s\n",
			op_name(t), units_format_duration(hist_percentile(&s->lat, 50), a, sizeof(a)),
			units_format_duration(hist_percentile(&s->lat, 99), b, sizeof(b)),
			units_format_duration(hist_percentile(&s->lat_unc, 50), c, sizeof(c)),
			units_format_duration(hist_percentile(&s->lat_unc, 99), d, sizeof(d)));
	}
}

void report_text(FILE *out, const struct report *r)
{
	const struct config *cfg = r->cfg;
	char a[32], b[32], c[32], d[32];
	struct op_stats *tot = NULL;
	uint64_t ops = report_total_ops(r);

	fprintf(out, "nfsload %s, %s, NFSv%d, %s\n", NFSLOAD_VERSION, cfg->url, cfg->nfs_version,
		wl_mode_name(cfg->rw));
	if (r->limits_note[0])
		fprintf(out, "note: %s\n", r->limits_note);
	if (cfg->meta) {
		fprintf(out, "workload: metadata mix %s, iodepth %u, per connection %u dirs x %u "
			"files of %s in /%s\n", cfg->mix_str, cfg->iodepth, cfg->dirs,
			cfg->files_per_dir, units_format_size(cfg->file_size, a, sizeof(a)), cfg->dir);
	} else {
		fprintf(out, "workload: %s, bs %s, iodepth %u", wl_mode_name(cfg->rw),
			units_format_size(cfg->bs, a, sizeof(a)), cfg->iodepth);
		if (cfg->rw == WL_READWRITE || cfg->rw == WL_RANDRW)
			fprintf(out, ", %u%% reads", cfg->rwmixread);
		fprintf(out, ", %u file%s of %s in /%s\n", cfg->nrfiles,
			cfg->nrfiles == 1 ? "" : "s", units_format_size(cfg->size, b, sizeof(b)),
			cfg->dir);
		if (wl_mode_read_pct(cfg->rw, cfg->rwmixread) < 100) {
			char w[80];

			fprintf(out, "writes: %s\n", write_stability(cfg, w, sizeof(w)));
		}
	}
	fprintf(out, "connections: %u on %u thread%s (", cfg->connections, r->nthreads,
		r->nthreads == 1 ? "" : "s");
	for (unsigned i = 0; i < r->nthreads; i++)
		fprintf(out, "%s%u", i ? "+" : "", r->threads[i].connections);
	fprintf(out, "), all up in %s\n", units_format_duration(r->connect_ns, a, sizeof(a)));
	if (r->layout_ran)
		fprintf(out, "layout: %s written in %s (%.1f MiB/s), %" PRIu64 " errors\n",
			units_format_size(r->layout.bytes, a, sizeof(a)),
			units_format_duration(r->layout_ns, b, sizeof(b)),
			mib_s(r->layout.bytes, r->layout_ns), r->layout.errors);
	else
		fprintf(out, "layout: not needed (files already at size) or skipped\n");
	fprintf(out, "measured: %s%s%s%s\n\n", units_format_duration(r->duration_ns, a, sizeof(a)),
		cfg->ramp_ns ? " after a ramp of " : "",
		cfg->ramp_ns ? units_format_duration(cfg->ramp_ns, c, sizeof(c)) : "",
		r->interrupted ? " (interrupted)" : "");

	fprintf(out, "%-6s %10s %10s %9s %7s %9s %9s %9s %9s %9s %9s %9s %9s\n", "op", "ops",
		"IOPS", "MiB/s", "errors", "min", "mean", "p50", "p90", "p99", "p99.9", "p99.99",
		"max");
	for (int t = 0; t < OP_NTYPES; t++)
		if (r->ops[t].ops || r->ops[t].errors)
			text_op_row(out, op_name(t), &r->ops[t], r->duration_ns);
	tot = calloc(1, sizeof(*tot));
	if (tot && op_stats_init(tot, HIST_PRECISE_BITS, false) == 0) {
		for (int t = 0; t < OP_NTYPES; t++)
			op_stats_add(tot, &r->ops[t]);
		text_op_row(out, "total", tot, r->duration_ns);
		op_stats_destroy(tot);
	}
	free(tot);

	if (r->cfg->small_files)
		text_small_files(out, r);
	if (r->rate > 0)
		text_open_loop(out, r);
	fputc('\n', out);
	text_intervals(out, r);
	if (r->steady.verdict)
		fprintf(out, "steady state: %s\n", r->steady.verdict);

	text_verify(out, r);
	text_connections(out, r);
	text_outages(out, r);
	{
		char list[256];

		if (conn_list(r, false, list, sizeof(list))[0])
			fprintf(out, "outlier connections (p99 over 3x the median connection's): %s\n",
				list);
		if (conn_list(r, true, list, sizeof(list))[0])
			fprintf(out, "stuck connections (nothing completed in the last 2 intervals): %s\n",
				list);
	}
	if (r->setup_mount.count)
		fprintf(out, "set-up: MOUNT p50 %s p99 %s, OPEN p50 %s p99 %s\n",
			units_format_duration(hist_percentile(&r->setup_mount, 50), a, sizeof(a)),
			units_format_duration(hist_percentile(&r->setup_mount, 99), b, sizeof(b)),
			units_format_duration(hist_percentile(&r->setup_open, 50), c, sizeof(c)),
			units_format_duration(hist_percentile(&r->setup_open, 99), d, sizeof(d)));

	fprintf(out, "\nclient CPU: user %.2f s, system %.2f s, %.2f us per operation; threads busy",
		r->user_s, r->sys_s, cpu_us_per_op(r));
	for (unsigned i = 0; i < r->nthreads; i++)
		fprintf(out, " %.0f%%", r->threads[i].busy_pct);
	fputc('\n', out);
	if (report_client_bound(r))
		fprintf(out, "warning: a worker thread was busy >= %.0f%% of the time: the client limited "
			"this run, the figures describe nfsload, not the server (add --threads or cores)\n",
			BUSY_WARN_PCT);
	if (ops == 0)
		fprintf(out, "warning: no operation completed\n");
}

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

static void json_num(FILE *out, double v)
{
	fprintf(out, isfinite(v) ? "%.3f" : "0", v);
}

static void json_lat(FILE *out, const struct hist *h)
{
	fprintf(out, "{\"min\": %" PRIu64 ", \"mean\": ", h->count ? h->min : 0);
	json_num(out, hist_mean(h));
	fputs(", \"stdev\": ", out);
	json_num(out, hist_stdev(h));
	for (size_t i = 0; i < NPCTS; i++)
		fprintf(out, ", \"%s\": %" PRIu64, pcts[i].key, hist_percentile(h, pcts[i].pct));
	fprintf(out, ", \"max\": %" PRIu64 "}", h->max);
}

/* proc: the NFS procedure name, with the histogram buckets; NULL for neither. */
static void json_op(FILE *out, const struct op_stats *s, uint64_t ns, const char *proc)
{
	bool buckets = proc != NULL;

	/* "count": the old name of "ops", kept as an alias for a release (see nfsload(1)). */
	if (proc)
		fprintf(out, "{\"procedure\": \"%s\", \"ops\": %" PRIu64 ", \"count\": %" PRIu64,
			proc, s->ops, s->ops);
	else
		fprintf(out, "{\"ops\": %" PRIu64 ", \"count\": %" PRIu64, s->ops, s->ops);
	fprintf(out, ", \"bytes\": %" PRIu64 ", \"errors\": %" PRIu64
		", \"iops\": ", s->bytes, s->errors);
	json_num(out, per_sec(s->ops, ns));
	fputs(", \"mib_s\": ", out);
	json_num(out, mib_s(s->bytes, ns));
	fputs(", \"lat_ns\": ", out);
	json_lat(out, &s->lat);
	if (s->lat_unc.counts) {
		fputs(", \"lat_ns_uncorrected\": ", out);
		json_lat(out, &s->lat_unc);
	}
	if (buckets) {
		bool first = true;

		fputs(", \"buckets\": [", out);
		for (int i = 0; i < s->lat.nbuckets; i++) {
			uint64_t lo, hi;

			if (!s->lat.counts[i])
				continue;
			hist_bucket_range(&s->lat, i, &lo, &hi);
			fprintf(out, "%s[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", first ? "" : ", ", lo,
				hi, s->lat.counts[i]);
			first = false;
		}
		fputc(']', out);
	}
	fputc('}', out);
}

static void json_small_files(FILE *out, const struct report *r)
{
	fprintf(out, "\"small_files\": {\"files\": %u, \"file_size\": %" PRIu64 ", \"passes\": [",
		r->cfg->small_files, r->cfg->file_size);
	for (size_t p = 0; p < NPASSES && r->cfg->small_files; p++) {
		const struct op_stats *s = &r->ops[small_passes[p]];
		uint64_t ns = r->pass_ns[small_passes[p]];

		fprintf(out, "%s{\"pass\": \"%s\", \"files\": %" PRIu64 ", \"errors\": %" PRIu64
			", \"duration_ns\": %" PRIu64 ", \"files_s\": ", p ? ", " : "",
			op_name(small_passes[p]), s->ops, s->errors, ns);
		json_num(out, per_sec(s->ops, ns));
		fputs(", \"mib_s\": ", out);
		json_num(out, mib_s(s->bytes, ns));
		fprintf(out, ", \"lat_ns\": {\"p50\": %" PRIu64 ", \"p99\": %" PRIu64 "}}",
			hist_percentile(&s->lat, 50), hist_percentile(&s->lat, 99));
	}
	fputs("]},\n", out);
}

static void json_settings(FILE *out, const struct report *r)
{
	const struct config *cfg = r->cfg;
	char buf[80];

	fputs("\"settings\": {\"url\": ", out);
	json_str(out, cfg->url);
	fprintf(out, ", \"nfs_version\": %d, \"threads\": %u, \"connections\": %u, \"iodepth\": %u, "
		"\"rw\": \"%s\", \"rwmixread\": %u, \"bs\": %" PRIu64 ", \"size\": %" PRIu64
		", \"nrfiles\": %u, \"dir\": ", cfg->nfs_version, r->nthreads, cfg->connections,
		cfg->iodepth, wl_mode_name(cfg->rw), cfg->rwmixread, cfg->bs, cfg->size, cfg->nrfiles);
	json_str(out, cfg->dir);
	fprintf(out, ", \"runtime_ns\": %" PRIu64 ", \"io_size\": %" PRIu64 ", \"ramp_time_ns\": %"
		PRIu64 ", \"timeout_ns\": %" PRIu64 ", \"seed\": %" PRIu64 ", \"interval_ns\": %"
		PRIu64 ", \"rate\": ", cfg->runtime_ns, cfg->io_size, cfg->ramp_ns, cfg->timeout_ns,
		cfg->seed, cfg->interval_ns);
	json_num(out, cfg->rate);
	fputs(", \"mix\": ", out);
	json_str(out, cfg->meta ? cfg->mix_str : "");
	fprintf(out, ", \"dirs\": %u, \"files_per_dir\": %u, \"file_size\": %" PRIu64,
		cfg->dirs, cfg->files_per_dir, cfg->file_size);
	fprintf(out, ", \"arrival\": \"%s\", \"sync\": %s, \"commit_every\": %u, "
		"\"on_error\": \"%s\", \"verify\": %s, \"verify_only\": %s, "
		"\"write_stability\": ", cfg->arrival == CFG_ARRIVAL_POISSON ? "poisson" : "uniform",
		cfg->sync ? "true" : "false", cfg->commit_every,
		cfg->on_error == CFG_ON_ERROR_STOP ? "stop" : "continue",
		cfg->verify ? "true" : "false", cfg->verify_only ? "true" : "false");
	json_str(out, write_stability(cfg, buf, sizeof(buf)));
	fputs("},\n", out);
}

static void json_hdr(FILE *out, const struct verify_hdr *h)
{
	fprintf(out, "{\"magic\": %u, \"file\": %u, \"offset\": %" PRIu64 ", \"generation\": %u, "
		"\"seed32\": %u, \"checksum\": %" PRIu64 "}", h->magic, h->file, h->offset,
		h->generation, h->seed32, h->checksum);
}

static void json_verify(FILE *out, const struct report *r)
{
	const struct verify_counts *v = &r->verify;
	char line[600];

	fprintf(out, "\"verify\": {\"enabled\": %s, \"block\": %" PRIu64 ", \"generation\": %u"
		", \"pass\": {\"ran\": %s, \"duration_ns\": %" PRIu64 ", \"stats\": ",
		r->cfg->verify ? "true" : "false", r->cfg->bs, r->verify_generation,
		r->verify_pass_ran ? "true" : "false", r->verify_pass_ns);
	json_op(out, &r->verify_pass, r->verify_pass_ns, NULL);
	fprintf(out, "}, \"blocks_checked\": %" PRIu64 ", \"mismatches\": %" PRIu64
		", \"by_kind\": {", v->blocks, v->bad);
	for (int k = VERIFY_MAGIC; k <= VERIFY_CHECKSUM; k++)
		fprintf(out, "%s\"%s\": %" PRIu64, k > VERIFY_MAGIC ? ", " : "", verify_kind_name(k),
			v->by_kind[k]);
	fputs("}, \"first\": [", out);
	for (unsigned i = 0; i < v->nkept; i++) {
		const struct verify_mismatch *m = &v->kept[i];

		fprintf(out, "%s\n  {\"file\": %u, \"offset\": %" PRIu64 ", \"kind\": \"%s\", "
			"\"first_diff\": %" PRId64 ", \"expected_byte\": %u, \"found_byte\": %u, "
			"\"expected\": ", i ? "," : "", m->file, m->offset, verify_kind_name(m->kind),
			m->first_diff == UINT64_MAX ? (int64_t)-1 : (int64_t)m->first_diff,
			m->expected_byte, m->found_byte);
		json_hdr(out, &m->expected);
		fputs(", \"found\": ", out);
		json_hdr(out, &m->found);
		fputs(", \"text\": ", out);
		verify_describe(m, line, sizeof(line));
		json_str(out, line);
		fputc('}', out);
	}
	fputs("]},\n", out);
}

static void json_series(FILE *out, const struct report *r)
{
	struct interval_row row;

	fputs("\"series\": [", out);
	for (uint64_t i = 0; report_series_get(r, i, &row) == 0; i++) {
		fprintf(out, "%s\n  {\"start_ns\": %" PRIu64 ", \"len_ns\": %" PRIu64 ", \"op\": \"%s\", "
			"\"ops\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"iops\": ",
			i ? "," : "", row.start_ns, row.len_ns, op_name(row.op), row.ops, row.bytes,
			row.errors);
		json_num(out, per_sec(row.ops, row.len_ns));
		fputs(", \"mib_s\": ", out);
		json_num(out, mib_s(row.bytes, row.len_ns));
		fprintf(out, ", \"lat_ns\": {\"p50\": %" PRIu64 ", \"p99\": %" PRIu64 ", \"p99.9\": %"
			PRIu64 ", \"max\": %" PRIu64 "}}", row.p50_ns, row.p99_ns, row.p999_ns, row.max_ns);
	}
	fputs("\n],\n\"steady_state\": {\"valid\": ", out);
	fprintf(out, "%s, \"intervals\": %u, \"mean_iops\": ", r->steady.valid ? "true" : "false",
		r->steady.intervals);
	json_num(out, r->steady.mean_iops);
	fputs(", \"cov_pct\": ", out);
	json_num(out, r->steady.cov_pct);
	fputs(", \"drift_pct\": ", out);
	json_num(out, r->steady.drift_pct);
	fprintf(out, ", \"steady\": %s, \"verdict\": ", r->steady.steady ? "true" : "false");
	json_str(out, r->steady.verdict ? r->steady.verdict : "");
	fputs("},\n", out);
}

static void json_open_loop(FILE *out, const struct report *r)
{
	fputs("\"open_loop\": {\"rate\": ", out);
	json_num(out, r->rate);
	fputs(", \"achieved_rate\": ", out);
	json_num(out, r->achieved_rate);
	fprintf(out, ", \"kept_up\": %s, \"backlog_ops\": %" PRIu64 ", \"max_lag_ns\": %" PRIu64
		"},\n", r->rate == 0 || r->achieved_rate >= 0.95 * r->rate ? "true" : "false",
		r->backlog_ops, r->max_lag_ns);
}

static void json_conn_ids(FILE *out, const struct report *r, bool stuck)
{
	bool first = true;

	fputc('[', out);
	for (unsigned i = 0; i < r->nconns; i++) {
		if (!(stuck ? r->conns[i].stuck : r->conns[i].outlier))
			continue;
		fprintf(out, "%s%u", first ? "" : ", ", r->conns[i].id);
		first = false;
	}
	fputc(']', out);
}

static void json_connections(FILE *out, const struct report *r)
{
	fputs("\"outliers\": {\"slow\": ", out);
	json_conn_ids(out, r, false);
	fputs(", \"stuck\": ", out);
	json_conn_ids(out, r, true);
	fputs("},\n\"connections\": [", out);
	for (unsigned i = 0; i < r->nconns; i++) {
		const struct conn_report *c = &r->conns[i];

		fprintf(out, "%s\n  {\"id\": %u, \"thread\": %u, \"ops\": %" PRIu64 ", \"bytes\": %"
			PRIu64 ", \"errors\": %" PRIu64 ", \"lat_ns\": {\"p50\": %" PRIu64
			", \"p99\": %" PRIu64 "}, \"timeouts\": %" PRIu64 ", \"reconnects\": %" PRIu64
			", \"last_done_ns\": %" PRIu64 ", \"outlier\": %s, \"stuck\": %s, "
			"\"backlog_ops\": %" PRIu64 ", \"errors_by_kind\": {", i ? "," : "", c->id,
			c->worker, c->ops, c->bytes, c->errors, c->p50_ns, c->p99_ns, c->timeouts,
			c->reconnects, c->last_done_ns, c->outlier ? "true" : "false",
			c->stuck ? "true" : "false", c->backlog_ops);
		for (int k = 0; k < CONN_ERR_KINDS && c->err_kinds[k].count; k++)
			fprintf(out, "%s\"%s\": %" PRIu64, k ? ", " : "",
				conn_err_name(c->err_kinds[k].code), c->err_kinds[k].count);
		if (c->err_other)
			fprintf(out, "%s\"other\": %" PRIu64, c->err_kinds[0].count ? ", " : "",
				c->err_other);
		fprintf(out, "}, \"down\": %s, \"outages\": [", c->down ? "true" : "false");
		for (uint64_t k = 0; k < c->noutages && k < CONN_OUTAGES_MAX; k++) {
			const struct conn_outage *o = &c->outages[k];

			fprintf(out, "%s{\"start_ns\": %" PRId64 ", \"detected_ns\": %" PRId64
				", \"stall_ns\": %" PRIu64 ", \"reconnect_ns\": %" PRIu64
				", \"attempts\": %u, \"failed_ops\": %" PRIu64 ", \"recovered\": %s}",
				k ? ", " : "", o->start_ns, o->detected_ns, o->stall_ns, o->reconnect_ns,
				o->attempts, o->failed_ops, o->recovered ? "true" : "false");
		}
		fputs("], \"error\": ", out);
		json_str(out, c->error);
		fputc('}', out);
	}
	fputs("\n]\n", out);
}

void report_json(FILE *out, const struct report *r)
{
	uint64_t ops = 0, bytes = 0, errors = 0;
	char when[40];
	time_t secs = (time_t)(r->start_unix_ns / 1000000000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(out, "{\n\"nfsload_version\": \"%s\",\n\"start_time\": \"%s\",\n"
		"\"start_unix_ns\": %" PRId64 ",\n", NFSLOAD_VERSION, when, r->start_unix_ns);
	json_settings(out, r);
	fputs("\"limits_note\": ", out);
	json_str(out, r->limits_note);
	fprintf(out, ",\n\"setup\": {\"connect_ns\": %" PRIu64 ", \"procedures\": {\"MOUNT\": ",
		r->connect_ns);
	json_lat(out, &r->setup_mount);
	fputs(", \"OPEN\": ", out);
	json_lat(out, &r->setup_open);
	fputs("}},\n", out);
	fprintf(out, "\"layout\": {\"ran\": %s, \"duration_ns\": %" PRIu64 ", \"stats\": ",
		r->layout_ran ? "true" : "false", r->layout_ns);
	json_op(out, &r->layout, r->layout_ns, NULL);
	fprintf(out, "},\n\"duration_ns\": %" PRIu64 ",\n\"interrupted\": %s,\n\"ops\": {",
		r->duration_ns, r->interrupted ? "true" : "false");
	for (int t = 0; t < OP_NTYPES; t++) {
		/* read, write and commit always; metadata operations when used. */
		if (t > OP_COMMIT && !r->ops[t].ops && !r->ops[t].errors)
			continue;
		fprintf(out, "%s\n  \"%s\": ", t ? "," : "", op_name(t));
		json_op(out, &r->ops[t], r->duration_ns, op_procedure(t));
		ops += r->ops[t].ops;
		bytes += r->ops[t].bytes;
		errors += r->ops[t].errors;
	}
	fprintf(out, "\n},\n\"total\": {\"ops\": %" PRIu64 ", \"count\": %" PRIu64
		", \"bytes\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"iops\": ", ops, ops, bytes,
		errors);
	json_num(out, per_sec(ops, r->duration_ns));
	fputs(", \"mib_s\": ", out);
	json_num(out, mib_s(bytes, r->duration_ns));
	fputs("},\n", out);
	json_series(out, r);
	json_verify(out, r);
	json_open_loop(out, r);
	json_small_files(out, r);
	fputs("\"cpu\": {\"user_s\": ", out);
	json_num(out, r->user_s);
	fputs(", \"sys_s\": ", out);
	json_num(out, r->sys_s);
	fputs(", \"us_per_op\": ", out);
	json_num(out, cpu_us_per_op(r));
	fprintf(out, ", \"client_bound\": %s},\n\"threads\": [",
		report_client_bound(r) ? "true" : "false");
	for (unsigned i = 0; i < r->nthreads; i++) {
		fprintf(out, "%s{\"connections\": %u, \"busy_pct\": ", i ? ", " : "",
			r->threads[i].connections);
		json_num(out, r->threads[i].busy_pct);
		fputc('}', out);
	}
	fputs("],\n", out);
	{
		struct outage_summary s;

		report_outages(r, &s);
		fprintf(out, "\"outages\": {\"count\": %" PRIu64 ", \"connections\": %u, "
			"\"failed_ops\": %" PRIu64 ", \"max_stall_ns\": %" PRIu64
			", \"max_reconnect_ns\": %" PRIu64 ", \"unrecovered\": %" PRIu64
			", \"reconnects\": %" PRIu64 "},\n", s.count, s.connections, s.failed_ops,
			s.max_stall_ns, s.max_reconnect_ns, s.unrecovered, s.reconnects);
	}
	json_connections(out, r);
	fputs("}\n", out);
}

void report_job_run_begin(FILE *out, enum cfg_format fmt, const char *job_path,
			  const struct job_row *row, unsigned i, unsigned n)
{
	if (fmt == CFG_FORMAT_CSV) {
		fprintf(out, "# run %s\n", row->name);
		return;
	}
	if (fmt == CFG_FORMAT_TEXT) {
		fprintf(out, "%s=== run %u of %u: %s\n", i ? "\n" : "", i + 1, n, row->name);
		return;
	}
	if (i == 0) {
		fputs("{\n\"job\": ", out);
		json_str(out, job_path);
		fputs(",\n\"runs\": [\n", out);
	}
	fprintf(out, "%s{\"name\": ", i ? ",\n" : "");
	json_str(out, row->name);
	fputs(", \"sweep\": {\"key\": ", out);
	json_str(out, row->sweep_key);
	fputs(", \"value\": ", out);
	json_str(out, row->sweep_value);
	fputs("},\n\"report\": ", out);
}

void report_job_run_end(FILE *out, enum cfg_format fmt)
{
	if (fmt == CFG_FORMAT_JSON)
		fputc('}', out);
}

/*
 * The job summary table: run, then IOPS, MiB/s and p99 of reads and of
 * writes, errors, status. Columns are as wide as their widest cell, header
 * included, so the headers sit over their numbers whatever the values.
 */
enum { JOB_COL_RUN, JOB_COL_ERRORS = 7, JOB_COL_STATUS, JOB_NCOLS };

static const char *const job_heads[JOB_NCOLS] = {
	"run", "read IOPS", "read MiB/s", "read p99", "write IOPS", "write MiB/s", "write p99",
	"errors", "status",
};

/*
 * Whether the run issued this op type. The row has no per-op counts, so
 * "completed some" stands in (a p99 needs one): an op type whose every
 * request failed reads '-' too, its errors are in the errors column.
 */
static bool job_op_issued(const struct job_row *r, int t)
{
	return r->iops[t] > 0 || r->p99_ns[t] > 0;
}

/* The run's exit status in words, with the code a script would see. */
static void job_status(int status, char *buf, size_t len)
{
	static const char *const why[] = { "ok", "failed", "usage", "verify" };

	if (status == 0)
		snprintf(buf, len, "ok");
	else if (status == 128 + 2 || status == 128 + 15)	/* SIGINT, SIGTERM */
		snprintf(buf, len, "interrupted");
	else if (status > 128)
		snprintf(buf, len, "signal %d", status - 128);
	else if (status > 0 && status < (int)(sizeof(why) / sizeof(why[0])))
		snprintf(buf, len, "exit %d %s", status, why[status]);
	else
		snprintf(buf, len, "exit %d", status);
}

/* Every cell of a row but the run name, which may be longer than a cell. */
static void job_cells(const struct job_row *r, char cells[JOB_NCOLS][32])
{
	static const int types[] = { OP_READ, OP_WRITE };

	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		int t = types[k];
		char *iops = cells[1 + 3 * k], *mib = cells[2 + 3 * k], *p99 = cells[3 + 3 * k];

		if (!job_op_issued(r, t)) {
			strcpy(iops, "-");
			strcpy(mib, "-");
			strcpy(p99, "-");
			continue;
		}
		snprintf(iops, 32, "%.0f", r->iops[t]);
		snprintf(mib, 32, "%.1f", r->mib_s[t]);
		units_format_duration(r->p99_ns[t], p99, 32);
	}
	cells[JOB_COL_RUN][0] = '\0';
	snprintf(cells[JOB_COL_ERRORS], 32, "%" PRIu64, r->errors);
	job_status(r->status, cells[JOB_COL_STATUS], 32);
}

static void text_job_summary(FILE *out, const struct job_row *rows, unsigned n)
{
	char cells[JOB_NCOLS][32];
	int width[JOB_NCOLS];

	for (int c = 0; c < JOB_NCOLS; c++)
		width[c] = (int)strlen(job_heads[c]);
	for (unsigned i = 0; i < n; i++) {
		job_cells(&rows[i], cells);
		for (int c = 0; c < JOB_NCOLS; c++) {
			size_t w = c == JOB_COL_RUN ? strlen(rows[i].name) : strlen(cells[c]);

			if ((int)w > width[c])
				width[c] = (int)w;
		}
	}
	fprintf(out, "\njob summary, %u run%s:\n%-*s", n, n == 1 ? "" : "s", width[0], job_heads[0]);
	for (int c = 1; c < JOB_NCOLS; c++)
		fprintf(out, "  %*s", width[c], job_heads[c]);
	fputc('\n', out);
	for (unsigned i = 0; i < n; i++) {
		job_cells(&rows[i], cells);
		fprintf(out, "%-*s", width[0], rows[i].name);
		for (int c = 1; c < JOB_NCOLS; c++)
			fprintf(out, "  %*s", width[c], cells[c]);
		fputc('\n', out);
	}
}

void report_job_summary(FILE *out, enum cfg_format fmt, const struct job_row *rows, unsigned n)
{
	if (fmt == CFG_FORMAT_TEXT) {
		text_job_summary(out, rows, n);
		return;
	}
	if (fmt != CFG_FORMAT_JSON)
		return;
	fputs("\n],\n\"summary\": [", out);
	for (unsigned i = 0; i < n; i++) {
		const struct job_row *r = &rows[i];

		fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
		json_str(out, r->name);
		fputs(", \"sweep_key\": ", out);
		json_str(out, r->sweep_key);
		fputs(", \"sweep_value\": ", out);
		json_str(out, r->sweep_value);
		for (int t = 0; t <= OP_COMMIT; t++) {
			fprintf(out, ", \"%s_iops\": ", op_name(t));
			json_num(out, r->iops[t]);
			fprintf(out, ", \"%s_mib_s\": ", op_name(t));
			json_num(out, r->mib_s[t]);
			fprintf(out, ", \"%s_p99_ns\": %" PRIu64, op_name(t), r->p99_ns[t]);
		}
		fprintf(out, ", \"errors\": %" PRIu64 ", \"status\": %d}", r->errors, r->status);
	}
	fputs("\n]\n}\n", out);
}
