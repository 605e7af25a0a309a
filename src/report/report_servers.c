/*
 * report_servers: the per-server part of the report when a run spreads its
 * connections over several servers (servers.c): which node is slow, which
 * one lost connections. Text table and JSON "servers"; nothing with one server.
 */
#include <inttypes.h>

#include "config.h"
#include "report.h"
#include "report_int.h"
#include "units.h"

void report_text_server_shares(FILE *out, const struct report *r)
{
	const struct config *cfg = r->cfg;

	if (cfg->nservers <= 1)
		return;
	fprintf(out, "servers: %u, %s; connections", cfg->nservers,
		cfg->shared_namespace ? "one namespace" : "a namespace each");
	for (unsigned k = 0; k < cfg->nservers; k++)
		fprintf(out, "%s%u", k ? "+" : " ", cfg->server[k].conns);
	fprintf(out, " (weights");
	for (unsigned k = 0; k < cfg->nservers; k++)
		fprintf(out, "%s%u", k ? ":" : " ", cfg->server[k].weight);
	fprintf(out, ")\n");
}

void report_text_servers(FILE *out, const struct report *r)
{
	char a[32], b[32], c[32];

	if (!r->nservers)
		return;
	fprintf(out, "\nservers: %u, %s (connections by weight)\n", r->nservers,
		r->cfg->shared_namespace ? "one namespace" : "a namespace each");
	fprintf(out, "  %-4s %6s %10s %9s %7s %9s %9s %9s %8s  %-8s %s\n", "srv", "conns", "ops",
		"MiB", "errors", "p50", "p99", "p99.9", "outages", "notes", "url");
	for (unsigned k = 0; k < r->nservers; k++) {
		const struct server_report *s = &r->servers[k];
		const struct hist *h = &s->st.lat;

		fprintf(out, "  %-4u %6u %10" PRIu64 " %9.1f %7" PRIu64 " %9s %9s %9s %8" PRIu64
			"  %-8s %s\n", k, s->conns, s->st.ops, (double)s->st.bytes / 1048576.0,
			s->st.errors,
			s->st.ops ? units_format_duration(hist_percentile(h, 50), a, sizeof(a)) : "-",
			s->st.ops ? units_format_duration(hist_percentile(h, 99), b, sizeof(b)) : "-",
			s->st.ops ? units_format_duration(hist_percentile(h, 99.9), c, sizeof(c)) : "-",
			s->outages, s->outlier ? "outlier" : s->down ? "down" : "", s->url);
	}
	for (unsigned k = 0; k < r->nservers; k++)
		if (r->servers[k].outlier)
			fprintf(out, "outlier server (p99 over 3x the median of the others'): %u %s\n",
				k, r->servers[k].url);
}

/* --series-by server: "series_by_server", each interval's row per server. */
static void json_server_series(FILE *out, const struct report *r)
{
	struct interval_row row;

	if (!r->srv_series)
		return;
	fputs("\"series_by_server\": [", out);
	for (uint64_t i = 0; i < r->nsrv_series; i++) {
		if (fseek(r->srv_series, (long)(i * sizeof(row)), SEEK_SET) ||
		    fread(&row, sizeof(row), 1, r->srv_series) != 1)
			break;
		fprintf(out, "%s\n  {\"start_ns\": %" PRIu64 ", \"len_ns\": %" PRIu64 ", \"server\": %u"
			", \"ops\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"errors\": %" PRIu64
			", \"iops\": ", i ? "," : "", row.start_ns, row.len_ns,
			(unsigned)(row.op - OP_NTYPES), row.ops, row.bytes, row.errors);
		report_json_num(out, report_per_sec(row.ops, row.len_ns));
		fprintf(out, ", \"lat_ns\": {\"min\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p99\": %"
			PRIu64 ", \"p99.9\": %" PRIu64 ", \"max\": %" PRIu64 "}}", row.min_ns, row.p50_ns,
			row.p99_ns, row.p999_ns, row.max_ns);
	}
	fputs("\n],\n", out);
}

void report_json_servers(FILE *out, const struct report *r)
{
	if (!r->nservers)
		return;
	json_server_series(out, r);
	fputs("\"servers\": [", out);
	for (unsigned k = 0; k < r->nservers; k++) {
		const struct server_report *s = &r->servers[k];

		fprintf(out, "%s{\"url\": ", k ? ",\n  " : "\n  ");
		report_json_str(out, s->url);
		fprintf(out, ", \"connections\": %u, \"weight\": %u, \"outages\": %" PRIu64
			", \"down\": %u, \"outlier\": %s, \"stats\": ", s->conns,
			r->cfg->server[k].weight, s->outages, s->down, s->outlier ? "true" : "false");
		/* With its buckets ("procedure": every op type): they add up to the totals'. */
		report_json_op(out, &s->st, r->duration_ns, "all");
		fputc('}', out);
	}
	fputs("],\n", out);
}
