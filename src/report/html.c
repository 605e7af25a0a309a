/*
 * html: the run's report as one self-contained HTML page.
 *
 * Owns: the page, its style sheet and its sections, each built from the
 * report (throughput and latency over time; the percentile spectrum;
 * per-connection p99; outages; verification). The summary section is
 * html_summary.c's, the drawing itself svg.c's.
 *
 * Inline CSS and SVG only: no script, no font, image or style sheet from the
 * network, so the file can be mailed, archived or opened offline and still
 * look the same. Sizes stay bounded whatever the run: long interval series are
 * merged into at most MAX_POINTS points, many connections into MAX_BARS bars.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "html_int.h"
#include "ops.h"
#include "report.h"
#include "report_int.h"
#include "svg.h"
#include "units.h"
#include "version.h"

#define MAX_POINTS 600		/* per line in the time charts */
#define MAX_BARS 200		/* above, connections are ranked into this many bins */
#define BAR_LABELS 5		/* ids written above the slowest bars */
#define TROUBLE_ROWS 20		/* rows of the troubled-connections table */
#define OUTAGE_ROWS 20
#define SPECTRUM_POINTS 100
#define SPECTRUM_MAX 1e5	/* 1/(1-p) at p = 99.999% */
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/*
 * Narrow windows (a laptop's half screen, 900 px) keep the whole totals
 * table in view: it has its own smaller numbers and padding, and below
 * 1000 px the page's margins shrink and the chart pairs stack.
 */
static const char css[] =
	"body{font:14px/1.45 system-ui,'Segoe UI','DejaVu Sans',Arial,sans-serif;color:#1f2937;"
	"background:#f8fafc;margin:0}main{max-width:1200px;margin:0 auto;padding:16px 24px}\n"
	"h1{font-size:26px;margin:8px 0 2px}h2{font-size:19px;margin:0 0 10px;padding-bottom:4px;"
	"border-bottom:2px solid #e2e8f0}h3{font-size:14px;margin:4px 0;color:#475569}\n"
	"section{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:14px 18px;"
	"margin:14px 0}.meta,.none{color:#64748b}.none{font-style:italic}\n"
	".url{font:15px ui-monospace,'DejaVu Sans Mono',monospace;word-break:break-all}\n"
	".two,.pair{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px}"
	".two{gap:12px 40px;margin-top:12px}.wide{overflow-x:auto}\n"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums}th,td{padding:3px 10px;"
	"border-bottom:1px solid #eef2f7;text-align:right;white-space:nowrap}\n"
	"th{background:#f1f5f9;font-weight:600}.kv th,.kv td,.l{text-align:left}"
	".kv th{background:none;color:#64748b;font-weight:normal}.kv th.sub{padding-left:24px}"
	"td.l,.kv td{white-space:normal;overflow-wrap:anywhere}\n"
	".totals{font-size:13px}.totals th,.totals td{padding:3px 7px}\n"
	".warn,.info{background:#fff7ed;border-left:4px solid #f59e0b;padding:6px 10px;margin:6px 0}"
	".info{background:#f0f9ff;border-color:#38bdf8}\n"
	"svg{width:100%;height:auto;display:block}svg text{font-size:12px;fill:#334155}"
	".grid{stroke:#e5e7eb}.frame{fill:none;stroke:#94a3b8}.label{font-weight:600}\n"
	".series polyline{fill:none;stroke-width:2;stroke-linejoin:round}"
	".ok{fill:#94a3b8}.out{fill:#f59e0b}.bad{fill:#dc2626}.mid{fill:#475569}\n"
	"footer{color:#94a3b8;font-size:12px;text-align:center;margin-bottom:16px}\n"
	"@media (max-width:1000px){main{padding:8px 10px}section{padding:10px 12px}"
	".pair{grid-template-columns:minmax(0,1fr)}}\n"
	"@media (max-width:700px){.two{grid-template-columns:minmax(0,1fr)}}\n";

/* ---- interval series ---- */

enum { M_MIB, M_IOPS, M_P50, M_P99, M_P999, NMETRICS };

struct timeline {
	size_t n[OP_NTYPES];
	double x[OP_NTYPES][MAX_POINTS];
	double y[NMETRICS][OP_NTYPES][MAX_POINTS];
};

/*
 * Two passes over the series file (memory stays constant): count each type's
 * rows, then merge runs of `stride` rows into one point. A merged point shows
 * the worst percentiles of its intervals, so a latency spike stays visible.
 */
static void timeline_load(const struct report *r, struct timeline *tl, double time_unit_s)
{
	uint64_t rows[OP_NTYPES] = { 0 }, seen[OP_NTYPES] = { 0 }, stride[OP_NTYPES];
	struct interval_row row, acc[OP_NTYPES];

	for (uint64_t i = 0; i < r->nseries; i++)
		if (report_series_get(r, i, &row) == 0 && row.op < OP_NTYPES)
			rows[row.op]++;
	for (int t = 0; t < OP_NTYPES; t++)
		stride[t] = rows[t] > MAX_POINTS ? (rows[t] + MAX_POINTS - 1) / MAX_POINTS : 1;
	for (uint64_t i = 0; i < r->nseries; i++) {
		unsigned t;
		size_t k;

		if (report_series_get(r, i, &row) != 0 || row.op >= OP_NTYPES)
			continue;
		t = row.op;
		if (seen[t] % stride[t] == 0) {
			acc[t] = row;
		} else {
			acc[t].len_ns += row.len_ns, acc[t].ops += row.ops, acc[t].bytes += row.bytes;
			acc[t].p50_ns = MAX(acc[t].p50_ns, row.p50_ns);
			acc[t].p99_ns = MAX(acc[t].p99_ns, row.p99_ns);
			acc[t].p999_ns = MAX(acc[t].p999_ns, row.p999_ns);
		}
		if ((++seen[t] % stride[t] != 0 && seen[t] < rows[t]) || tl->n[t] == MAX_POINTS)
			continue;
		k = tl->n[t]++;
		tl->x[t][k] = (double)acc[t].start_ns / 1e9 / time_unit_s;
		tl->y[M_MIB][t][k] = report_mib_s(acc[t].bytes, acc[t].len_ns);
		tl->y[M_IOPS][t][k] = report_per_sec(acc[t].ops, acc[t].len_ns);
		tl->y[M_P50][t][k] = (double)acc[t].p50_ns;
		tl->y[M_P99][t][k] = (double)acc[t].p99_ns;
		tl->y[M_P999][t][k] = (double)acc[t].p999_ns;
	}
}

#define NO_INTERVALS "No interval data was recorded."

/* A chart under its heading, or a line saying why there is none. */
static void chart_or_none(FILE *out, const char *title, struct svg_chart *c,
			  const struct svg_line *s, int n, const char *none)
{
	if (n) {
		fprintf(out, "<h3>%s</h3>\n", title);
		svg_line_chart(out, c, s, n);
	} else {
		fprintf(out, "<p class=\"none\">%s</p>\n", none);
	}
}

static void time_charts(FILE *out, const struct report *r)
{
	static const char *const pct_dash[3] = { NULL, "7 4", "2 3" }, *pct[3] = { "p50", "p99", "p99.9" };
	char pct_name[3][OP_NTYPES][32];
	struct timeline *tl = calloc(1, sizeof(*tl));
	struct svg_line tput[2][OP_NTYPES], lines[3 * OP_NTYPES];
	/* long runs read better in minutes or hours than in thousands of seconds */
	double secs = (double)r->duration_ns / 1e9, unit_s = secs > 7200 ? 3600 : secs > 900 ? 60 : 1;
	const char *unit = unit_s == 3600 ? "h" : unit_s == 60 ? "min" : "s";
	struct svg_chart mib = { 580, 280, "interval start", "MiB/s",
				 { .fmt = SVG_TICK_SEC, .unit = unit }, { .fmt = SVG_TICK_NUM } };
	struct svg_chart iops = mib, lat = { 1160, 300, "interval start", "latency (log scale)",
					     { .fmt = SVG_TICK_SEC, .unit = unit },
					     { .log = true, .fmt = SVG_TICK_LAT } };
	int nt = 0, nl = 0;

	iops.ylabel = "IOPS";
	if (tl)
		timeline_load(r, tl, unit_s);
	for (int t = 0; tl && t < OP_NTYPES; t++) {
		if (!tl->n[t] || !html_op_seen(r, t))
			continue;
		for (int m = 0; m < 2; m++)
			tput[m][nt] = (struct svg_line){ op_name(t), op_info(t)->colour, NULL, tl->n[t],
							 tl->x[t], tl->y[M_MIB + m][t] };
		nt++;
		for (int p = 0; p < 3; p++) {
			snprintf(pct_name[p][t], sizeof(pct_name[p][t]), "%s %s", op_name(t), pct[p]);
			lines[nl++] = (struct svg_line){ pct_name[p][t], op_info(t)->colour, pct_dash[p],
							 tl->n[t], tl->x[t], tl->y[M_P50 + p][t] };
		}
	}
	fputs("<section id=\"throughput\"><h2>Throughput over time</h2>\n<div class=\"pair\"><div>",
	      out);
	chart_or_none(out, "Bandwidth", &mib, tput[0], nt, NO_INTERVALS);
	fputs("</div><div>", out);
	chart_or_none(out, "Operations per second", &iops, tput[1], nt, NO_INTERVALS);
	fputs("</div></div></section>\n<section id=\"latency\"><h2>Latency over time</h2>\n", out);
	chart_or_none(out, "p50 (solid), p99 (dashed) and p99.9 (dotted) of each interval", &lat,
		      lines, nl, NO_INTERVALS);
	fputs("</section>\n", out);
	free(tl);
}

/* Line k of the spectrum: op t's latency (c 0), from the issue (1), wire time (2), client (3). */
static const struct hist *spectrum_hist(const struct report *r, int k, int *t, int *c)
{
	const struct op_stats *s;

	/* every op's latency, then from the issue, as pages had them; then each op's wire, client */
	*t = k < 2 * OP_NTYPES ? k % OP_NTYPES : (k - 2 * OP_NTYPES) / 2;
	*c = k < 2 * OP_NTYPES ? k / OP_NTYPES : 2 + k % 2;
	s = &r->ops[*t];
	return *c == 0 ? &s->lat : *c == 1 ? &s->lat_unc : *c == 2 ? &s->wire : &s->client;
}

/*
 * Latency at 1/(1-p) log-spaced from 1 (p = 0) to SPECTRUM_MAX (p = 99.999%).
 * Open loop adds, dashed, the latency from the actual issue: the gap to the
 * solid line is what coordinated omission would have hidden. Wire time adds
 * an op's wire curve (dotted) and the client's share (dash-dot): where the
 * solid line leaves the wire curve behind, the time was the client's.
 */
static void spectrum(FILE *out, const struct report *r)
{
	static const char *const kind[4] = { "", ", from issue", " wire", " client" };
	static const char *const dash[4] = { NULL, "7 4", "2 3", "9 3 2 3" };
	char name[4 * OP_NTYPES][40];
	double x[SPECTRUM_POINTS], y[4 * OP_NTYPES][SPECTRUM_POINTS];
	struct svg_line s[4 * OP_NTYPES];
	struct svg_chart c = { 1160, 300, "percentile", "latency (log scale)",
			       { .log = true, .fixed = true, .fmt = SVG_TICK_PCT, .lo = 1,
				 .hi = SPECTRUM_MAX },
			       { .log = true, .fmt = SVG_TICK_LAT } };
	int n = 0, wire = 0;

	for (int i = 0; i < SPECTRUM_POINTS; i++)
		x[i] = pow(SPECTRUM_MAX, (double)i / (SPECTRUM_POINTS - 1));
	for (int k = 0, t, kd; k < 4 * OP_NTYPES; k++) {
		const struct hist *h = spectrum_hist(r, k, &t, &kd);

		if (!h->count || !h->counts)
			continue;
		/* p = 0 is not a percentile: the smallest positive one gives the minimum */
		for (int i = 0; i < SPECTRUM_POINTS; i++)
			y[n][i] = (double)hist_percentile(h, fmax(100.0 * (1.0 - 1.0 / x[i]), 1e-9));
		snprintf(name[n], sizeof(name[n]), "%s%s", op_name(t), kind[kd]);
		s[n] = (struct svg_line){ name[n], op_info(t)->colour, dash[kd], SPECTRUM_POINTS, x, y[n] };
		n++;
		wire += kd >= 2;
	}
	fputs("<section id=\"spectrum\"><h2>Latency percentile spectrum</h2>\n", out);
	chart_or_none(out, "Latency at or below which each fraction of operations completed", &c, s,
		      n, "No operation completed.");
	if (wire)
		fputs("<p class=\"meta\">wire: from the request&#39;s last byte out to the reply&#39;s "
		      "last byte in (kernel timestamps, --wire-time); client: the rest of each "
		      "operation&#39;s latency from its issue.</p>\n", out);
	fputs("</section>\n", out);
}

/* ---- connections ---- */

/* Slowest first; equal ones by id, so the page is the same whatever qsort does. */
static int by_p99_then_id(const void *a, const void *b)
{
	const struct conn_report *x = a, *y = b;
	int c = report_by_p99_desc(a, b);

	return c ? c : x->id < y->id ? -1 : x->id > y->id;
}

/* 2 stuck or failed, 1 outlier, 0 fine: a bar's colour and a bin's worst. */
static int conn_level(const struct conn_report *c)
{
	return c->stuck || c->error[0] ? 2 : c->outlier ? 1 : 0;
}

/* Sorted descending, so the first of a bin is its slowest connection. */
static void conn_bars(FILE *out, const struct conn_report *s, unsigned n)
{
	static const char *const cls[] = { "ok", "out", "bad" };
	static const char *const what[] = { "normal", "outlier: p99 over 3x the median connection",
					    "stuck or failed" };
	unsigned nb = n < MAX_BARS ? n : MAX_BARS;
	struct svg_chart c = { 1160, 290, NULL, "p99 latency", { 0 }, { .fmt = SVG_TICK_LAT } };
	struct svg_box b = svg_plot_box(&c);
	double bw = (b.x1 - b.x0) / nb, last_label = -1e9, lx = b.x0, med;
	char xl[96], tip[160], v1[32], v2[32];

	snprintf(xl, sizeof(xl), nb < n ? "connections ranked by p99, %.1f per bar" :
		 "connections ranked by p99", (double)n / nb);
	c.xlabel = xl;
	svg_axis_fit(&c.y, 0, (double)s[0].p99_ns * 1.25);	/* headroom for the id labels */
	svg_frame(out, &c, &b, false);
	for (unsigned j = 0; j < nb; j++) {
		unsigned lo = (unsigned)((uint64_t)j * n / nb), hi = (unsigned)((uint64_t)(j + 1) * n / nb);
		int lvl = 0;
		double top, x = b.x0 + j * bw;

		for (unsigned i = lo; i < hi; i++)
			lvl = MAX(lvl, conn_level(&s[i]));
		/* at least 3 px, so a failed connection without latencies still shows */
		top = fmin(svg_px(&c.y, (double)s[lo].p99_ns), b.y1 - 3);
		if (hi - lo == 1)
			snprintf(tip, sizeof(tip), "connection %u (thread %u): p99 %s, p50 %s, %"
				 PRIu64 " ops", s[lo].id, s[lo].worker,
				 svg_fmt_lat((double)s[lo].p99_ns, v1, sizeof(v1)),
				 svg_fmt_lat((double)s[lo].p50_ns, v2, sizeof(v2)), s[lo].ops);
		else
			snprintf(tip, sizeof(tip), "ranks %u-%u: p99 %s down to %s, slowest "
				 "connection %u", lo + 1, hi,
				 svg_fmt_lat((double)s[lo].p99_ns, v1, sizeof(v1)),
				 svg_fmt_lat((double)s[hi - 1].p99_ns, v2, sizeof(v2)), s[lo].id);
		svg_bar(out, cls[lvl], x + bw * 0.1, bw * 0.8, top, b.y1, tip);
		/*
		 * The slowest few get their id, unless it would overprint the last one;
		 * of merged bars only the first and troubled ones (the rest say little).
		 */
		if (j < BAR_LABELS && (nb == n || j == 0 || lvl) && x + bw / 2 - last_label >= 14) {
			last_label = x + bw / 2;
			snprintf(v1, sizeof(v1), "#%u", s[lo].id);
			/* rotated, the glyphs sit left of the anchor: keep them off the y axis */
			svg_up_label(out, fmax(last_label + 4, b.x0 + 13), top - 4, v1);
		}
	}
	/* the median connection: outliers are those past 3x this line */
	med = svg_px(&c.y, (double)s[n / 2].p99_ns);
	snprintf(tip, sizeof(tip), "median %s", svg_fmt_lat((double)s[n / 2].p99_ns, v1, sizeof(v1)));
	svg_hline(out, &b, med, tip);
	for (int i = 0; i < 3; i++)
		svg_legend_item(out, &lx, NULL, NULL, cls[i], what[i]);
	svg_end(out);
}

/* The slowest outliers and every stuck, failed or erroring connection. */
static void conn_table(FILE *out, const struct conn_report *s, unsigned n)
{
	unsigned shown = 0, more = 0;
	char a[32], b[32];

	for (unsigned i = 0; i < n; i++) {
		const struct conn_report *c = &s[i];

		if (!conn_level(c) && !c->errors && !c->noutages)
			continue;
		if (shown == TROUBLE_ROWS) {
			more++;
			continue;
		}
		if (!shown++)
			fputs("<h3>Connections that need a look</h3><table><tr><th>conn</th>"
			      "<th>thread</th><th>ops</th><th>errors</th><th>timeouts</th>"
			      "<th>reconnects</th><th>p50</th><th>p99</th><th class=\"l\">status</th>"
			      "</tr>\n", out);
		fprintf(out, "<tr><td>%u</td><td>%u</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%"
			PRIu64 "</td><td>%" PRIu64 "</td><td>%s</td><td>%s</td><td class=\"l\">%s%s",
			c->id, c->worker, c->ops, c->errors, c->timeouts, c->reconnects,
			c->ops ? units_format_duration(c->p50_ns, a, sizeof(a)) : "-",
			c->ops ? units_format_duration(c->p99_ns, b, sizeof(b)) : "-",
			c->outlier ? "outlier " : "", c->stuck ? "stuck " : "");
		svg_esc(out, c->error);
		fputs("</td></tr>\n", out);
	}
	if (shown)
		fputs("</table>\n", out);
	if (more)
		fprintf(out, "<p class=\"none\">and %u more (all in --output-format json)</p>\n", more);
}

static void connections(FILE *out, const struct report *r)
{
	struct conn_report *s = r->nconns ? malloc(r->nconns * sizeof(*s)) : NULL;

	fputs("<section id=\"connections\"><h2>Per-connection p99</h2>\n", out);
	if (s) {
		memcpy(s, r->conns, r->nconns * sizeof(*s));
		qsort(s, r->nconns, sizeof(*s), by_p99_then_id);
		conn_bars(out, s, r->nconns);
		conn_table(out, s, r->nconns);
		free(s);
	} else {
		fputs("<p class=\"none\">No connection data.</p>\n", out);
	}
	fputs("</section>\n", out);
}

/* Lost connections and how they came back (see SERVER FAULTS in nfsload(1)). */
static void outages(FILE *out, const struct report *r)
{
	struct outage_summary sum;
	unsigned shown = 0;
	char a[32], b[32];

	report_outages(r, &sum);
	if (!sum.count)
		return;
	fprintf(out, "<section id=\"outages\"><h2>Outages</h2>\n<p>%" PRIu64 " on %u connection%s, "
		"%" PRIu64 " recovered; %" PRIu64 " operations failed; longest stall %s, longest "
		"reconnect %s (--on-error %s).</p>\n<table><tr><th>conn</th><th>start</th>"
		"<th>detected</th><th>stalled</th><th>reconnected in</th><th>attempts</th>"
		"<th>failed ops</th></tr>\n", sum.count, sum.connections,
		sum.connections == 1 ? "" : "s", sum.count - sum.unrecovered, sum.failed_ops,
		svg_fmt_lat((double)sum.max_stall_ns, a, sizeof(a)),
		svg_fmt_lat((double)sum.max_reconnect_ns, b, sizeof(b)),
		r->cfg->on_error == CFG_ON_ERROR_STOP ? "stop" : "continue");
	for (unsigned i = 0; i < r->nconns && shown < OUTAGE_ROWS; i++) {
		const struct conn_report *c = &r->conns[i];

		for (uint64_t k = 0; k < c->noutages && k < CONN_OUTAGES_MAX && shown < OUTAGE_ROWS;
		     k++, shown++) {
			const struct conn_outage *o = &c->outages[k];

			fprintf(out, "<tr><td>%u</td><td>%.2f s</td><td>%.2f s</td><td>%s</td>"
				"<td>%s</td><td>%u</td><td>%" PRIu64 "</td></tr>\n", c->id,
				(double)o->start_ns / 1e9, (double)o->detected_ns / 1e9,
				o->stall_ns ? svg_fmt_lat((double)o->stall_ns, a, sizeof(a)) : "-",
				o->recovered ? svg_fmt_lat((double)o->reconnect_ns, b, sizeof(b)) :
					       "not recovered", o->attempts, o->failed_ops);
		}
	}
	fputs("</table>\n", out);
	if (shown < sum.count)
		fprintf(out, "<p class=\"none\">the first %u (all in --output-format json)</p>\n",
			shown);
	fputs("</section>\n", out);
}

/* --verify: what was checked and the first bad blocks. */
static void verification(FILE *out, const struct report *r)
{
	const struct verify_counts *v = &r->verify;
	char line[600];

	if (!r->cfg->verify)
		return;
	fprintf(out, "<section id=\"verify\"><h2>Data verification</h2>\n<p>%" PRIu64
		" blocks checked, <b>%" PRIu64 " bad</b>%s.</p>\n", v->blocks, v->bad,
		r->verify_pass_ran ? " (the written files were read back whole)" : "");
	if (v->nkept) {
		fputs("<ul>\n", out);
		for (unsigned i = 0; i < v->nkept; i++) {
			verify_describe(&v->kept[i], line, sizeof(line));
			fputs("<li>", out);
			svg_esc(out, line);
			fputs("</li>\n", out);
		}
		fputs("</ul>\n", out);
	}
	fputs("</section>\n", out);
}

void report_html(FILE *out, const struct report *r)
{
	char when[48], dur[32];
	time_t secs = (time_t)(r->start_unix_ns / 1000000000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<title>nfsload report</title>\n<style>\n%s</style></head>\n<body><main>\n"
		"<header><h1>nfsload report</h1>\n<div class=\"url\">", css);
	if (r->source) {
		fputs("rebuilt from ", out);
		svg_esc(out, r->source);
	} else if (r->cfg->url[0]) {
		svg_esc(out, r->cfg->url);
	} else {
		fputs("engine ", out);
		svg_esc(out, r->engine ? r->engine : "?");
		fputs(" (no server)", out);
	}
	fprintf(out, "</div>\n<div class=\"meta\">started %s &middot; measured %s%s &middot; "
		"nfsload %s</div></header>\n", r->source ? "-" : when,
		units_format_duration(r->duration_ns, dur, sizeof(dur)),
		r->interrupted ? " (interrupted)" : "", NFSLOAD_VERSION);
	html_summary(out, r);
	html_curve(out, r);
	html_replay(out, r);
	time_charts(out, r);
	spectrum(out, r);
	connections(out, r);
	html_servers(out, r);
	outages(out, r);
	verification(out, r);
	fputs("<footer>nfsload report &middot; self-contained: inline SVG and CSS</footer>\n"
	      "</main></body></html>\n", out);
}
