/*
 * html_summary: the HTML report's first section, from the report model: the
 * totals table, the settings, the run (server, set-up steps, layout,
 * connections with I/O), client CPU and the notes and warnings.
 *
 * The page around it, its style sheet and the other sections are html.c's;
 * which settings there are and how they read is report.c's.
 */
#include <inttypes.h>

#include "engine.h"
#include "html_int.h"
#include "report.h"
#include "report_int.h"
#include "svg.h"
#include "units.h"

/* A row of a key-value table, both escaped; cls: the key's class, or NULL. */
static void kv(FILE *out, const char *cls, const char *k, const char *v)
{
	fprintf(out, "<tr><th%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	svg_esc(out, k);
	fputs("</th><td>", out);
	svg_esc(out, v);
	fputs("</td></tr>\n", out);
}

/* The settings table every rendering walks: the rows worth showing, in its order. */
static void settings(FILE *out, const struct report *r)
{
	struct setting set[REPORT_SETTINGS_MAX];
	unsigned n = report_settings(r, set);
	char v[CFG_URL_MAX];

	fputs("<div><h3>Settings</h3><table class=\"kv\" id=\"settings\">\n", out);
	for (unsigned i = 0; i < n; i++)
		if (set[i].shown && set[i].label)
			kv(out, NULL, set[i].label, report_setting_text(&set[i], v, sizeof(v)));
	fputs("</table></div>\n", out);
}

/* What came before the measured window: the server reached, set-up, layout; who did I/O. */
static void run_table(FILE *out, const struct report *r)
{
	const struct setup_times *t = &r->setup;
	unsigned busy = 0;
	char v[256], a[32], b[32];

	fputs("<h3>Run</h3><table class=\"kv\" id=\"run\">\n", out);
	if (r->cfg->engine && r->cfg->engine->takes_path)
		snprintf(v, sizeof(v), "none: %.150s (engine %s%s%s)", r->cfg->path,
			 r->engine ? r->engine : "?", r->ports && r->ports[0] ? ", " : "",
			 r->ports ? r->ports : "");
	else if (!r->cfg->url[0])
		snprintf(v, sizeof(v), "none (engine %s)", r->engine ? r->engine : "?");
	else if (r->ports && r->ports[0])
		snprintf(v, sizeof(v), "%s: %s", r->engine ? r->engine : "?", r->ports);
	else
		snprintf(v, sizeof(v), "%s", r->engine ? r->engine : "?");
	kv(out, NULL, "server", v);
	snprintf(v, sizeof(v), "%u connection%s up in %s", r->nconns, r->nconns == 1 ? "" : "s",
		 units_format_duration(r->connect_ns, a, sizeof(a)));
	kv(out, NULL, "set-up", v);
	for (unsigned i = 0; t->names && t->names[i] && i < SETUP_STEPS_MAX; i++) {
		if (!t->steps[i].count)
			continue;
		snprintf(v, sizeof(v), "p50 %s, p99 %s",
			 units_format_duration(hist_percentile(&t->steps[i], 50), a, sizeof(a)),
			 units_format_duration(hist_percentile(&t->steps[i], 99), b, sizeof(b)));
		kv(out, "sub", t->names[i], v);
	}
	if (r->layout_ran)
		snprintf(v, sizeof(v), "%s written in %s (%.1f MiB/s), %" PRIu64 " error%s",
			 units_format_size(r->layout.bytes, a, sizeof(a)),
			 units_format_duration(r->layout_ns, b, sizeof(b)),
			 report_mib_s(r->layout.bytes, r->layout_ns), r->layout.errors,
			 r->layout.errors == 1 ? "" : "s");
	else
		snprintf(v, sizeof(v), "not needed (files already at size) or skipped");
	kv(out, NULL, "layout", v);
	for (unsigned i = 0; i < r->nconns; i++)
		busy += r->conns[i].ops > 0;
	snprintf(v, sizeof(v), "%u of %u", busy, r->nconns);
	kv(out, NULL, "connections with I/O", v);
	fputs("</table>\n", out);
}

/* min, mean, the percentiles and max of h as cells ("-" each when not shown). */
static void lat_cells(FILE *out, const struct hist *h, bool shown)
{
	uint64_t lat[REPORT_NPCTS + 3] = { h->min, (uint64_t)hist_mean(h) };
	char v[32];

	for (int i = 0; i < REPORT_NPCTS; i++)
		lat[2 + i] = hist_percentile(h, report_pcts[i].pct);
	lat[REPORT_NPCTS + 2] = h->max;
	for (int i = 0; i < REPORT_NPCTS + 3; i++)
		fprintf(out, "<td>%s</td>", shown ? units_format_duration(lat[i], v, sizeof(v)) : "-");
}

static void totals_row(FILE *out, const char *name, const struct op_stats *s, uint64_t ns)
{
	fprintf(out, "<tr><th class=\"l\">%s</th><td>%" PRIu64 "</td><td>%.0f</td><td>%.1f</td><td>%"
		PRIu64 "</td>", name, s->ops, report_per_sec(s->ops, ns), report_mib_s(s->bytes, ns),
		s->errors);
	lat_cells(out, &s->lat, s->ops != 0);
	fputs("</tr>\n", out);
}

/* Under an op's row, its wire time and the client's share (--wire-time), counted, no rates. */
static void wire_rows(FILE *out, const char *name, const struct op_stats *s)
{
	for (int k = 0; k < 2 && s->ops && s->wire.counts && s->wire.count; k++) {
		const struct hist *h = k ? &s->client : &s->wire;

		fprintf(out, "<tr><th class=\"l\">%s %s</th><td>%" PRIu64 "</td><td></td><td></td>"
			"<td></td>", name, k ? "client" : "wire", h->count);
		lat_cells(out, h, true);
		fputs("</tr>\n", out);
	}
}

static void totals(FILE *out, const struct report *r)
{
	fputs("<h3>Totals</h3><div class=\"wide\"><table class=\"totals\" id=\"totals\"><tr>"
	      "<th class=\"l\">op</th><th>count</th><th>IOPS</th><th>MiB/s</th><th>errors</th>"
	      "<th>min</th><th>mean</th>", out);
	for (int i = 0; i < REPORT_NPCTS; i++)
		fprintf(out, "<th>%s</th>", report_pcts[i].key);
	fputs("<th>max</th></tr>\n", out);
	for (int t = 0; t < OP_NTYPES; t++) {
		if (html_op_seen(r, t)) {
			totals_row(out, op_name(t), &r->ops[t], r->duration_ns);
			wire_rows(out, op_name(t), &r->ops[t]);
		}
	}
	if (!html_op_seen(r, OP_READ) && !html_op_seen(r, OP_WRITE))
		fprintf(out, "<tr><td class=\"l none\" colspan=\"%d\">no operations</td></tr>\n",
			REPORT_NPCTS + 8);
	fputs("</table></div>\n", out);
}

static void cpu(FILE *out, const struct report *r)
{
	fprintf(out, "<h3>Client CPU</h3><table class=\"kv\"><tr><th>user</th><td>%.2f s</td></tr>"
		"<tr><th>system</th><td>%.2f s</td></tr><tr><th>per operation</th><td>%.2f us</td>"
		"</tr><tr><th>threads busy</th><td>", r->user_s, r->sys_s, report_us_per_op(r));
	for (unsigned i = 0; i < r->nthreads; i++)
		fprintf(out, "%s%.0f%%", i ? ", " : "", r->threads[i].busy_pct);
	fputs("</td></tr></table>\n", out);
}

static void notes(FILE *out, const struct report *r)
{
	unsigned failed = 0;
	uint64_t missed = 0;
	char lag[32];

	for (unsigned i = 0; i < r->nconns; i++)
		failed += r->conns[i].error[0] != '\0';
	for (int t = 0; t < OP_NTYPES; t++)
		missed += r->ops[t].wire_missed;
	if (r->limits_note && r->limits_note[0]) {
		fputs("<p class=\"info\">note: ", out);
		svg_esc(out, r->limits_note);
		fputs("</p>\n", out);
	}
	if (r->interrupted)
		fputs("<p class=\"warn\">The run was interrupted: the figures cover part of it.</p>\n", out);
	if (!report_total_ops(r))
		fputs("<p class=\"warn\">No operation completed.</p>\n", out);
	if (failed)
		fprintf(out, "<p class=\"warn\">%u of %u connections failed.</p>\n", failed, r->nconns);
	if (r->unanswered_at_stop)
		/* Not "unanswered": the page must not hold "nan" (test_html). */
		fprintf(out, "<p class=\"warn\">%" PRIu64 " request%s in flight at the stop got no "
			"reply within --timeout (the run waited for %s).</p>\n", r->unanswered_at_stop,
			r->unanswered_at_stop == 1 ? "" : "s", r->unanswered_at_stop == 1 ? "it" : "them");
	if (missed)
		fprintf(out, "<p class=\"info\">Wire time: %" PRIu64 " of %" PRIu64 " operations "
			"left out (no exact kernel timestamp).</p>\n", missed, report_total_ops(r));
	if (report_client_bound(r))
		fprintf(out, "<p class=\"warn\">Client-bound: a worker thread was busy at least %.0f%% "
			"of the time, so these figures describe nfsload, not the server (add --threads "
			"or cores).</p>\n", BUSY_WARN_PCT);
	if (r->steady.valid) {
		fprintf(out, "<p class=\"%s\">Steady state over %u intervals: ",
			r->steady.steady ? "info" : "warn", r->steady.intervals);
		svg_esc(out, r->steady.verdict ? r->steady.verdict : "");	/* it carries the figures */
		fputs("</p>\n", out);
	}
	if (r->rate > 0)
		fprintf(out, "<p class=\"%s\">Open loop: %.0f ops/s requested, %.0f achieved; "
			"backlog at the end %" PRIu64 " operations; worst issue lag %s. Latencies run "
			"from each operation's scheduled time.</p>\n",
			r->achieved_rate < 0.95 * r->rate ? "warn" : "info", r->rate, r->achieved_rate,
			r->backlog_ops, svg_fmt_lat((double)r->max_lag_ns, lag, sizeof(lag)));
}

void html_summary(FILE *out, const struct report *r)
{
	fputs("<section id=\"summary\"><h2>Summary</h2>\n", out);
	totals(out, r);
	if (r->source) {	/* no settings, set-up or CPU in what it was rebuilt from */
		notes(out, r);
		fputs("</section>\n", out);
		return;
	}
	fputs("<div class=\"two\">\n", out);
	settings(out, r);
	fputs("<div>", out);
	run_table(out, r);
	cpu(out, r);
	notes(out, r);
	fputs("</div></div></section>\n", out);
}
