/*
 * report_text: the run's report as text, for a terminal (the format the
 * README shows).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "ops.h"
#include "report.h"
#include "report_int.h"
#include "units.h"
#include "version.h"

static void text_lat(FILE *out, uint64_t ns)
{
	char buf[32];

	fprintf(out, " %9s", units_format_duration(ns, buf, sizeof(buf)));
}

/* min, mean, the percentiles and max of h, then the end of the line. */
static void text_lats(FILE *out, const struct hist *h)
{
	text_lat(out, h->min);
	text_lat(out, (uint64_t)hist_mean(h));
	for (size_t i = 0; i < REPORT_NPCTS; i++)
		text_lat(out, hist_percentile(h, report_pcts[i].pct));
	text_lat(out, h->max);
	fputc('\n', out);
}

void report_text_unanswered(FILE *out, uint64_t n)
{
	/* Counted nowhere else: a server dropping calls would only show as a longer run. */
	if (n)
		fprintf(out, "unanswered at the stop: %" PRIu64 " request%s in flight when the "
			"measured window ended got no reply within --timeout (the run waited for "
			"%s)\n", n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
}

void report_text_op_row(FILE *out, const char *name, const struct op_stats *s, uint64_t ns)
{
	report_text_op_row_w(out, 6, name, s, ns);
}

void report_text_op_row_w(FILE *out, int w, const char *name, const struct op_stats *s,
			  uint64_t ns)
{
	fprintf(out, "%-*s %10" PRIu64 " %10.0f %9.1f %7" PRIu64, w, name, s->ops,
		report_per_sec(s->ops, ns), report_mib_s(s->bytes, ns), s->errors);
	if (s->ops == 0) {
		fputc('\n', out);
		return;
	}
	text_lats(out, &s->lat);
	/* Wire time (--wire-time): its rows under the op's, the count in the ops column. */
	if (s->wire.counts && s->wire.count) {
		fprintf(out, "  %-*s %8" PRIu64 " %10s %9s %7s", w, "wire", s->wire.count, "", "", "");
		text_lats(out, &s->wire);
		fprintf(out, "  %-*s %8" PRIu64 " %10s %9s %7s", w, "client", s->client.count, "", "",
			"");
		text_lats(out, &s->client);
	}
}

/* The client's share of p50 and p99 per op, and the replies left out. */
static void text_wire(FILE *out, const struct report *r, const struct op_stats *tot)
{
	char a[32], b[32], c[32], d[32];

	if (r->cfg->wire_time && !r->cfg->engine->wire_time) {
		fprintf(out, "wire time: not available with the %s engine (it reads its sockets "
			"itself)\n", r->cfg->engine->name);
		return;
	}
	if (!tot || !op_stats_has_wire(tot))
		return;
	for (int t = 0; t <= OP_NTYPES; t++) {
		const struct op_stats *s = t < OP_NTYPES ? &r->ops[t] : tot;
		const struct hist *base = s->lat_unc.counts ? &s->lat_unc : &s->lat;
		uint64_t p50, p99, w50, w99;

		if (!s->ops || !op_stats_has_wire(s))
			continue;
		fprintf(out, "wire time %-6s", t < OP_NTYPES ? op_name(t) : "total");
		if (s->wire.counts && s->wire.count) {
			p50 = hist_percentile(base, 50);
			p99 = hist_percentile(base, 99);
			w50 = hist_percentile(&s->wire, 50);
			w99 = hist_percentile(&s->wire, 99);
			fprintf(out, " client's share: %.0f%% of p50 (%s of %s), %.0f%% of p99 (%s of %s)",
				p50 > w50 ? 100.0 * (double)(p50 - w50) / (double)p50 : 0.0,
				units_format_duration(p50 > w50 ? p50 - w50 : 0, a, sizeof(a)),
				units_format_duration(p50, b, sizeof(b)),
				p99 > w99 ? 100.0 * (double)(p99 - w99) / (double)p99 : 0.0,
				units_format_duration(p99 > w99 ? p99 - w99 : 0, c, sizeof(c)),
				units_format_duration(p99, d, sizeof(d)));
		}
		if (s->wire_missed)
			fprintf(out, "%s%" PRIu64 " of %" PRIu64 " left out (no exact timestamp)",
				s->wire.count ? "; " : " ", s->wire_missed, s->ops);
		fputc('\n', out);
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
			report_mib_s(r->verify_pass.bytes, r->verify_pass_ns));
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
		qsort(sorted, r->nconns, sizeof(*sorted), report_by_p99_desc);
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


/* READ_PLUS: its bytes split into data and holes (the table's MiB/s counts both). */
static void text_holes(FILE *out, const struct report *r)
{
	const struct op_stats *s = &r->ops[OP_READ_PLUS];
	char a[32], b[32];

	if (!s->ops)
		return;
	fprintf(out, "read_plus: %s of data, %s of holes (%.1f%% holes) in %" PRIu64
		" bytes returned\n", units_format_size(s->bytes - s->holes, a, sizeof(a)),
		units_format_size(s->holes, b, sizeof(b)),
		s->bytes ? 100.0 * (double)s->holes / (double)s->bytes : 0.0, s->bytes);
}

/* State: the answers that denied a lock or a share reservation, with their latency. */
static void text_denied(FILE *out, const struct report *r)
{
	char a[32], b[32];

	for (int t = 0; t < OP_NTYPES; t++) {
		const struct op_stats *s = &r->ops[t];

		if (!s->denied)
			continue;
		fprintf(out, "%s: %" PRIu64 " denied (a conflict), p50 %s, p99 %s; not among its "
			"ops or errors\n", op_name((enum op_type)t), s->denied,
			units_format_duration(hist_percentile(&s->lat_denied, 50), a, sizeof(a)),
			units_format_duration(hist_percentile(&s->lat_denied, 99), b, sizeof(b)));
	}
}

/* State the engine held and what became of it, when there was any. */
static void text_state(FILE *out, const struct report *r)
{
	const struct engine_state_counts *st = &r->state;

	if (!r->has_state || (!st->held_opens && !st->delegations_returned && !st->grace_waits &&
			      !st->state_lost && !st->opens_remade && !st->locks_remade))
		return;
	fprintf(out, "state: %" PRIu64 " NFSv4 clients, %" PRIu64 " held opens, %" PRIu64
		" delegations returned, %" PRIu64 " grace-period waits, %" PRIu64
		" stateids lost, %" PRIu64 " opens and %" PRIu64 " locks made again\n",
		st->clients, st->held_opens, st->delegations_returned, st->grace_waits,
		st->state_lost, st->opens_remade, st->locks_remade);
}

/* The small-file test: one row per pass, files/s and MiB/s over that pass. */
static void text_small_files(FILE *out, const struct report *r)
{
	char a[32], b[32], c[32];

	fprintf(out, "\nsmall files: %u of %s\n  %-8s %9s %9s %10s %9s %9s %9s %7s\n",
		r->cfg->small_files, units_format_size(r->cfg->file_size, a, sizeof(a)), "pass",
		"files", "time", "files/s", "MiB/s", "p50", "p99", "errors");
	for (size_t p = 0; p < REPORT_NPASSES; p++) {
		const struct op_stats *s = &r->ops[report_small_passes[p]];
		uint64_t ns = r->pass_ns[report_small_passes[p]];

		fprintf(out, "  %-8s %9" PRIu64 " %9s %10.0f %9.1f %9s %9s %7" PRIu64 "\n",
			op_name(report_small_passes[p]), s->ops, units_format_duration(ns, a, sizeof(a)),
			report_per_sec(s->ops, ns), report_mib_s(s->bytes, ns),
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

/* "set-up: MOUNT p50 4.57 ms p99 5.39 ms, OPEN p50 ...": each step the engine timed. */
static void text_setup(FILE *out, const struct report *r)
{
	const struct setup_times *t = &r->setup;
	char a[32], b[32];
	bool any = false;

	for (unsigned i = 0; t->names && t->names[i] && i < SETUP_STEPS_MAX; i++) {
		if (!t->steps[i].count)
			continue;
		fprintf(out, "%s%s p50 %s p99 %s", any ? ", " : "set-up: ", t->names[i],
			units_format_duration(hist_percentile(&t->steps[i], 50), a, sizeof(a)),
			units_format_duration(hist_percentile(&t->steps[i], 99), b, sizeof(b)));
		any = true;
	}
	if (any)
		fputc('\n', out);
}

/* The settings the header lines do not say: "settings: runtime 10.0 s, seed 1, ...". */
static void text_settings(FILE *out, const struct report *r)
{
	struct setting set[REPORT_SETTINGS_MAX];
	unsigned n = report_settings(r, set);
	bool any = false;
	char v[CFG_URL_MAX];

	for (unsigned i = 0; i < n; i++) {
		if (!set[i].shown || set[i].header || !set[i].label)
			continue;
		fprintf(out, "%s%s %s", any ? ", " : "settings: ", set[i].label,
			report_setting_text(&set[i], v, sizeof(v)));
		any = true;
	}
	if (any)
		fputc('\n', out);
}

/* What ran: the URL, engine, workload, connections, layout and settings. */
static void text_header(FILE *out, const struct report *r)
{
	const struct config *cfg = r->cfg;
	char a[32], b[32];

	if (cfg->url[0] && cfg->engine && cfg->engine->takes_path)
		fprintf(out, "nfsload %s, %s (engine %s), %s\n", NFSLOAD_VERSION, cfg->url,
			r->engine, wl_mode_name(cfg->rw));
	else if (cfg->url[0])
		fprintf(out, "nfsload %s, %s%s%s%s%s, %s\n", NFSLOAD_VERSION, cfg->url,
			r->nfs_version ? ", NFSv" : "", r->nfs_version ? r->nfs_version : "",
			engine_sec_of(&cfg->opt) ? " " : "",
			engine_sec_of(&cfg->opt) ? engine_sec_name(engine_sec_of(&cfg->opt)) : "",
			wl_mode_name(cfg->rw));
	else
		fprintf(out, "nfsload %s, engine %s (no server), %s\n", NFSLOAD_VERSION, r->engine,
			wl_mode_name(cfg->rw));
	if (cfg->url[0])
		fprintf(out, "engine: %s%s%s\n", r->engine, r->ports && r->ports[0] ? ", " : "",
			r->ports ? r->ports : "");
	if (r->limits_note[0])
		fprintf(out, "note: %s\n", r->limits_note);
	if (r->cfg->opt.max_load)
		fprintf(out, "note: --max-load %u: each connection wakes once per %u replies, so a "
			"reply may wait for the others of its batch: latencies are upper bounds\n",
			r->cfg->opt.max_load, r->cfg->opt.max_load);
	if (r->replay) {
		fprintf(out, "workload: replay of %s: %" PRIu64 " operations on %u connections "
			"(iodepth up to %u), %u data file%s in /%s\n", r->replay->file,
			r->replay->ops, cfg->connections, cfg->iodepth, cfg->nrfiles,
			cfg->nrfiles == 1 ? "" : "s", cfg->dir);
	} else if (cfg->meta) {
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

			fprintf(out, "writes: %s\n", report_write_stability(cfg, w, sizeof(w)));
		}
	}
	fprintf(out, "connections: %u on %u thread%s (", cfg->connections, r->nthreads,
		r->nthreads == 1 ? "" : "s");
	for (unsigned i = 0; i < r->nthreads; i++)
		fprintf(out, "%s%u", i ? "+" : "", r->threads[i].connections);
	fprintf(out, "), all up in %s\n", units_format_duration(r->connect_ns, a, sizeof(a)));
	report_text_server_shares(out, r);
	if (r->layout_ran) {
		fprintf(out, "layout: %s written in %s (%.1f MiB/s), %" PRIu64 " errors",
			units_format_size(r->layout.bytes, a, sizeof(a)),
			units_format_duration(r->layout_ns, b, sizeof(b)),
			report_mib_s(r->layout.bytes, r->layout_ns), r->layout.errors);
		if (r->layout_retried)
			fprintf(out, ", %" PRIu64 " writes re-issued after outages", r->layout_retried);
		fputc('\n', out);
	} else {
		fprintf(out, "layout: not needed (files already at size) or skipped\n");
	}
	text_settings(out, r);
}

void report_text(FILE *out, const struct report *r)
{
	const struct config *cfg = r->cfg;
	char a[32], c[32];
	struct op_stats *tot = NULL;
	uint64_t ops = report_total_ops(r);
	int w = 6;

	if (r->source)
		fprintf(out, "nfsload %s, a report rebuilt from %s\n", NFSLOAD_VERSION, r->source);
	else
		text_header(out, r);
	fprintf(out, "measured: %s%s%s%s\n\n", units_format_duration(r->duration_ns, a, sizeof(a)),
		cfg->ramp_ns ? " after a ramp of " : "",
		cfg->ramp_ns ? units_format_duration(cfg->ramp_ns, c, sizeof(c)) : "",
		r->interrupted ? " (interrupted)" : "");

	/* The op column: 6 wide as it always was, wider for a longer name (removexattr). */
	for (int t = 0; t < OP_NTYPES; t++)
		if ((r->ops[t].ops || r->ops[t].errors || r->ops[t].denied) &&
		    (int)strlen(op_name(t)) > w)
			w = (int)strlen(op_name(t));
	fprintf(out, "%-*s %10s %10s %9s %7s %9s %9s %9s %9s %9s %9s %9s %9s\n", w, "op", "ops",
		"IOPS", "MiB/s", "errors", "min", "mean", "p50", "p90", "p99", "p99.9", "p99.99",
		"max");
	for (int t = 0; t < OP_NTYPES; t++)
		if (r->ops[t].ops || r->ops[t].errors || r->ops[t].denied)
			report_text_op_row_w(out, w, op_name(t), &r->ops[t], r->duration_ns);
	tot = calloc(1, sizeof(*tot));
	if (tot && op_stats_init(tot, HIST_PRECISE_BITS, false) == 0) {
		for (int t = 0; t < OP_NTYPES; t++)
			op_stats_add(tot, &r->ops[t]);
		report_text_op_row_w(out, w, "total", tot, r->duration_ns);
		text_wire(out, r, tot);
		op_stats_destroy(tot);
	} else {
		text_wire(out, r, NULL);
	}
	free(tot);
	text_holes(out, r);
	text_denied(out, r);
	text_state(out, r);

	if (r->cfg->small_files)
		text_small_files(out, r);
	if (r->rate > 0)
		text_open_loop(out, r);
	report_text_replay(out, r);
	if (r->curve)
		report_text_curve(out, r);
	fputc('\n', out);
	text_intervals(out, r);
	if (r->steady.verdict)
		fprintf(out, "steady state: %s\n", r->steady.verdict);

	text_verify(out, r);
	text_connections(out, r);
	report_text_servers(out, r);
	text_outages(out, r);
	report_text_unanswered(out, r->unanswered_at_stop);
	{
		char list[256];

		if (conn_list(r, false, list, sizeof(list))[0])
			fprintf(out, "outlier connections (p99 over 3x the median connection's): %s\n",
				list);
		if (conn_list(r, true, list, sizeof(list))[0])
			fprintf(out, "stuck connections (nothing completed in the last 2 intervals): %s\n",
				list);
	}
	text_setup(out, r);

	if (r->source)
		goto end;	/* a log does not hold the client's CPU */
	fprintf(out, "\nclient CPU: user %.2f s, system %.2f s, %.2f us per operation; threads busy",
		r->user_s, r->sys_s, report_us_per_op(r));
	for (unsigned i = 0; i < r->nthreads; i++)
		fprintf(out, " %.0f%%", r->threads[i].busy_pct);
	fprintf(out, ", %.2f sleeps per operation\n", report_sleeps_per_op(r));
	if (report_client_bound(r))
		fprintf(out, "warning: a worker thread was busy >= %.0f%% of the time: the client limited "
			"this run, the figures describe nfsload, not the server (add --threads or cores)\n",
			BUSY_WARN_PCT);
end:
	if (ops == 0)
		fprintf(out, "warning: no operation completed\n");
}
