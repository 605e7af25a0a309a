/*
 * report_json: the run's report as one JSON document. The schema is
 * documented in nfsload(1); keep the two in step.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "engine.h"
#include "ops.h"
#include "report.h"
#include "report_int.h"
#include "version.h"

static void json_small_files(FILE *out, const struct report *r)
{
	fprintf(out, "\"small_files\": {\"files\": %u, \"file_size\": %" PRIu64 ", \"passes\": [",
		r->cfg->small_files, r->cfg->file_size);
	for (size_t p = 0; p < REPORT_NPASSES && r->cfg->small_files; p++) {
		const struct op_stats *s = &r->ops[report_small_passes[p]];
		uint64_t ns = r->pass_ns[report_small_passes[p]];

		fprintf(out, "%s{\"pass\": \"%s\", \"files\": %" PRIu64 ", \"errors\": %" PRIu64
			", \"duration_ns\": %" PRIu64 ", \"files_s\": ", p ? ", " : "",
			op_name(report_small_passes[p]), s->ops, s->errors, ns);
		report_json_num(out, report_per_sec(s->ops, ns));
		fputs(", \"mib_s\": ", out);
		report_json_num(out, report_mib_s(s->bytes, ns));
		fprintf(out, ", \"lat_ns\": {\"p50\": %" PRIu64 ", \"p99\": %" PRIu64 "}}",
			hist_percentile(&s->lat, 50), hist_percentile(&s->lat, 99));
	}
	fputs("]},\n", out);
}

static void json_settings(FILE *out, const struct report *r)
{
	struct setting set[REPORT_SETTINGS_MAX];
	unsigned n = report_settings(r, set);
	bool first = true;

	if (r->source) {	/* what a log holds of the settings; the rest would be made up */
		fprintf(out, "\"settings\": {\"threads\": %u, \"connections\": %u, "
			"\"interval_ns\": %" PRIu64 "},\n\"source\": ", r->nthreads, r->nconns,
			r->interval_ns);
		report_json_str(out, r->source);
		fputs(",\n", out);
		return;
	}
	fputs("\"settings\": {", out);
	for (unsigned i = 0; i < n; i++) {
		const struct setting *s = &set[i];

		if (!s->key)
			continue;
		fprintf(out, "%s\"%s\": ", first ? "" : ", ", s->key);
		first = false;
		if (s->type == SETTING_TEXT)
			report_json_str(out, report_setting_str(s));
		else if (s->type == SETTING_FLAG)
			fputs(s->n ? "true" : "false", out);
		else if (s->type == SETTING_RATE)
			report_json_num(out, s->rate);
		else
			fprintf(out, "%" PRIu64, s->n);
	}
	fputs("},\n", out);
}

/* Each set-up step the engine timed (MOUNT, OPEN for libnfs), and the ports reached. */
static void json_setup(FILE *out, const struct report *r)
{
	fprintf(out, "\"setup\": {\"connect_ns\": %" PRIu64 ", \"ports\": ", r->connect_ns);
	report_json_str(out, r->ports ? r->ports : "");
	fputs(", \"procedures\": {", out);
	for (unsigned i = 0; r->setup.names && r->setup.names[i] && i < SETUP_STEPS_MAX; i++) {
		fprintf(out, "%s\"%s\": ", i ? ", " : "", r->setup.names[i]);
		report_json_lat(out, &r->setup.steps[i]);
	}
	fputs("}},\n", out);
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
	report_json_op(out, &r->verify_pass, r->verify_pass_ns, NULL);
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
		report_json_str(out, line);
		fputc('}', out);
	}
	fputs("]},\n", out);
}

/* , "key": [[lo, hi, count], ...]: n buckets of the series' buckets file from at. */
static void json_series_buckets(FILE *out, const struct report *r, const char *key,
				uint64_t at, uint64_t n)
{
	struct interval_row span = { .buckets_at = at, .nbuckets = n };
	struct series_bucket b;

	fprintf(out, ", \"%s\": [", key);
	for (uint64_t k = 0; report_series_bucket(r, &span, k, &b) == 0; k++)
		fprintf(out, "%s[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", k ? ", " : "", b.lo, b.hi,
			b.count);
	fputc(']', out);
}

/*
 * Rows of a run with wire time carry it (0 in an interval without); with
 * buckets also its min, max and buckets, for --merge. Other runs' rows are
 * as they were before wire time.
 */
static void json_series(FILE *out, const struct report *r)
{
	bool wire = r->cfg && r->cfg->wire_time && r->cfg->engine && r->cfg->engine->wire_time;
	struct interval_row row;

	fputs("\"series\": [", out);
	for (uint64_t i = 0; report_series_get(r, i, &row) == 0; i++) {
		fprintf(out, "%s\n  {\"start_ns\": %" PRIu64 ", \"len_ns\": %" PRIu64 ", \"op\": \"%s\", "
			"\"ops\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"iops\": ",
			i ? "," : "", row.start_ns, row.len_ns, op_name(row.op), row.ops, row.bytes,
			row.errors);
		report_json_num(out, report_per_sec(row.ops, row.len_ns));
		fputs(", \"mib_s\": ", out);
		report_json_num(out, report_mib_s(row.bytes, row.len_ns));
		fprintf(out, ", \"lat_ns\": {\"min\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p99\": %"
			PRIu64 ", \"p99.9\": %" PRIu64 ", \"max\": %" PRIu64 "}", row.min_ns, row.p50_ns,
			row.p99_ns, row.p999_ns, row.max_ns);
		if (r->series_buckets)
			json_series_buckets(out, r, "buckets", row.buckets_at, row.nbuckets);
		if (wire)
			fprintf(out, ", \"wire_p50_ns\": %" PRIu64 ", \"wire_p99_ns\": %" PRIu64,
				row.wire_p50_ns, row.wire_p99_ns);
		if (wire && r->series_buckets) {
			fprintf(out, ", \"wire_min_ns\": %" PRIu64 ", \"wire_max_ns\": %" PRIu64,
				row.wire_min_ns, row.wire_max_ns);
			json_series_buckets(out, r, "wire_buckets", row.wire_buckets_at,
					    row.wire_nbuckets);
		}
		fputc('}', out);
	}
	fputs("\n],\n\"steady_state\": {\"valid\": ", out);
	fprintf(out, "%s, \"intervals\": %u, \"mean_iops\": ", r->steady.valid ? "true" : "false",
		r->steady.intervals);
	report_json_num(out, r->steady.mean_iops);
	fputs(", \"cov_pct\": ", out);
	report_json_num(out, r->steady.cov_pct);
	fputs(", \"drift_pct\": ", out);
	report_json_num(out, r->steady.drift_pct);
	fprintf(out, ", \"steady\": %s, \"verdict\": ", r->steady.steady ? "true" : "false");
	report_json_str(out, r->steady.verdict ? r->steady.verdict : "");
	fputs("},\n", out);
}

static void json_open_loop(FILE *out, const struct report *r)
{
	fputs("\"open_loop\": {\"rate\": ", out);
	report_json_num(out, r->rate);
	fputs(", \"achieved_rate\": ", out);
	report_json_num(out, r->achieved_rate);
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
			"\"backlog_ops\": %" PRIu64 ", \"unanswered_at_stop\": %" PRIu64
			", \"errors_by_kind\": {", i ? "," : "", c->id,
			c->worker, c->ops, c->bytes, c->errors, c->p50_ns, c->p99_ns, c->timeouts,
			c->reconnects, c->last_done_ns, c->outlier ? "true" : "false",
			c->stuck ? "true" : "false", c->backlog_ops, c->unanswered_at_stop);
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
		report_json_str(out, c->error);
		fputc('}', out);
	}
	fputs("\n]\n", out);
}

void report_json(FILE *out, const struct report *r)
{
	uint64_t ops = 0, bytes = 0, errors = 0;
	char when[40], host[256];
	time_t secs = (time_t)(r->start_unix_ns / 1000000000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(out, "{\n\"nfsload_version\": \"%s\",\n\"start_time\": \"%s\",\n"
		"\"start_unix_ns\": %" PRId64 ",\n\"host\": ", NFSLOAD_VERSION, when, r->start_unix_ns);
	/* Which client ran it: nfsload --merge's rows name the hosts of several runs. */
	if (gethostname(host, sizeof(host)) < 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	report_json_str(out, host);
	fputs(",\n", out);
	json_settings(out, r);
	fputs("\"limits_note\": ", out);
	report_json_str(out, r->limits_note);
	fputs(",\n", out);
	if (r->has_state) {
		const struct engine_state_counts *st = &r->state;

		fprintf(out, "\"state\": {\"clients\": %" PRIu64 ", \"held_opens\": %" PRIu64
			", \"delegations_returned\": %" PRIu64 ", \"grace_waits\": %" PRIu64
			", \"state_lost\": %" PRIu64 ", \"opens_remade\": %" PRIu64
			", \"locks_remade\": %" PRIu64 "},\n", st->clients, st->held_opens,
			st->delegations_returned, st->grace_waits, st->state_lost, st->opens_remade,
			st->locks_remade);
	}
	json_setup(out, r);
	fprintf(out, "\"layout\": {\"ran\": %s, \"duration_ns\": %" PRIu64 ", \"retried\": %"
		PRIu64 ", \"stats\": ", r->layout_ran ? "true" : "false", r->layout_ns,
		r->layout_retried);
	report_json_op(out, &r->layout, r->layout_ns, NULL);
	fprintf(out, "},\n\"duration_ns\": %" PRIu64 ",\n\"interrupted\": %s,\n\"ops\": {",
		r->duration_ns, r->interrupted ? "true" : "false");
	for (int t = 0; t < OP_NTYPES; t++) {
		/* read, write and commit always; metadata operations when used. */
		if (op_info(t)->cls != OPC_IO && !r->ops[t].ops && !r->ops[t].errors &&
		    !r->ops[t].denied)
			continue;
		fprintf(out, "%s\n  \"%s\": ", t ? "," : "", op_name(t));
		report_json_op(out, &r->ops[t], r->duration_ns, op_procedure(t));
		ops += r->ops[t].ops;
		bytes += r->ops[t].bytes;
		errors += r->ops[t].errors;
	}
	fprintf(out, "\n},\n\"total\": {\"ops\": %" PRIu64 ", \"count\": %" PRIu64
		", \"bytes\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"iops\": ", ops, ops, bytes,
		errors);
	report_json_num(out, report_per_sec(ops, r->duration_ns));
	fputs(", \"mib_s\": ", out);
	report_json_num(out, report_mib_s(bytes, r->duration_ns));
	fprintf(out, ", \"unanswered_at_stop\": %" PRIu64 "},\n", r->unanswered_at_stop);
	json_series(out, r);
	json_verify(out, r);
	json_open_loop(out, r);
	report_json_replay(out, r);
	report_json_curve(out, r);
	json_small_files(out, r);
	fputs("\"cpu\": {\"user_s\": ", out);
	report_json_num(out, r->user_s);
	fputs(", \"sys_s\": ", out);
	report_json_num(out, r->sys_s);
	fputs(", \"us_per_op\": ", out);
	report_json_num(out, report_us_per_op(r));
	fputs(", \"sleeps_per_op\": ", out);
	report_json_num(out, report_sleeps_per_op(r));
	fprintf(out, ", \"client_bound\": %s},\n\"threads\": [",
		report_client_bound(r) ? "true" : "false");
	for (unsigned i = 0; i < r->nthreads; i++) {
		fprintf(out, "%s{\"connections\": %u, \"busy_pct\": ", i ? ", " : "",
			r->threads[i].connections);
		report_json_num(out, r->threads[i].busy_pct);
		fprintf(out, ", \"sleeps\": %" PRIu64 "}", r->threads[i].sleeps);
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
	report_json_servers(out, r);
	json_connections(out, r);
	fputs("}\n", out);
}
