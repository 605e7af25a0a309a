/*
 * html: the run's report as one self-contained HTML page.
 *
 * Inline CSS and SVG only: no script, no font, image or style sheet from the
 * network, so the file can be mailed, archived or opened offline and still
 * look the same. Sizes stay bounded whatever the run: long interval series are
 * merged into at most MAX_POINTS points, many connections into MAX_BARS bars.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "units.h"
#include "version.h"

#define MAX_POINTS 600		/* per line in the time charts */
#define MARKER_MAX 60		/* dots on the points of shorter lines */
#define MAX_BARS 200		/* above, connections are ranked into this many bins */
#define BAR_LABELS 5		/* ids written above the slowest bars */
#define TROUBLE_ROWS 20		/* rows of the troubled-connections table */
#define SPECTRUM_POINTS 100
#define SPECTRUM_MAX 1e5	/* 1/(1-p) at p = 99.999% */
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static const char *const op_colors[OP_NTYPES] = {
	"#2563eb", "#059669", "#7c3aed", "#d97706", "#0891b2", "#db2777", "#65a30d", "#4f46e5",
	"#dc2626", "#0d9488", "#9333ea", "#ca8a04", "#475569", "#be123c",
};

static const char css[] =
	"body{font:14px/1.45 system-ui,'Segoe UI','DejaVu Sans',Arial,sans-serif;color:#1f2937;"
	"background:#f8fafc;margin:0}main{max-width:1200px;margin:0 auto;padding:16px 24px}\n"
	"h1{font-size:26px;margin:8px 0 2px}h2{font-size:19px;margin:0 0 10px;padding-bottom:4px;"
	"border-bottom:2px solid #e2e8f0}h3{font-size:14px;margin:4px 0;color:#475569}\n"
	"section{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:14px 18px;"
	"margin:14px 0}.meta,.none{color:#64748b}.none{font-style:italic}\n"
	".url{font:15px ui-monospace,'DejaVu Sans Mono',monospace;word-break:break-all}\n"
	".two{display:grid;grid-template-columns:auto minmax(0,1fr);gap:40px;margin-top:12px}.wide{overflow-x:auto}"
	".pair{display:grid;grid-template-columns:1fr 1fr;gap:16px}\n"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums}th,td{padding:3px 10px;"
	"border-bottom:1px solid #eef2f7;text-align:right;white-space:nowrap}\n"
	"th{background:#f1f5f9;font-weight:600}.kv th,.kv td,.l{text-align:left}"
	".kv th{background:none;color:#64748b;font-weight:normal}td.l{white-space:normal}\n"
	".warn,.info{background:#fff7ed;border-left:4px solid #f59e0b;padding:6px 10px;margin:6px 0}"
	".info{background:#f0f9ff;border-color:#38bdf8}\n"
	"svg{width:100%;height:auto;display:block}svg text{font-size:12px;fill:#334155}"
	".grid{stroke:#e5e7eb}.frame{fill:none;stroke:#94a3b8}.label{font-weight:600}\n"
	".series polyline{fill:none;stroke-width:2;stroke-linejoin:round}"
	".ok{fill:#94a3b8}.out{fill:#f59e0b}.bad{fill:#dc2626}\n"
	"footer{color:#94a3b8;font-size:12px;text-align:center;margin-bottom:16px}\n";

/* & < > " ' as entities; control characters as spaces (they have no glyph). */
static void esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
		}
	}
}

static double per_sec(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

/* Short tick labels: "250 us", "1.5 ms" (units_format_duration pads to 3 digits). */
static const char *fmt_lat(double ns, char *buf, size_t len)
{
	static const struct { double div; const char *unit; } u[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" },
	};
	size_t i = 0;

	while (i < 3 && fabs(ns) < u[i].div * 0.9999)
		i++;
	snprintf(buf, len, ns == 0 ? "0" : "%.4g %s", ns / u[i].div, u[i].unit);
	return buf;
}

/* "950", "12.5k", "1.2M". */
static const char *fmt_num(double v, char *buf, size_t len)
{
	const char *sfx = fabs(v) >= 999999.5 ? "M" : fabs(v) >= 999.95 ? "k" : "";

	snprintf(buf, len, "%.4g%s", v / (*sfx == 'M' ? 1e6 : *sfx ? 1e3 : 1), sfx);
	return buf;
}

/* ---- charts ---- */

enum tick_fmt { TF_NUM, TF_SEC, TF_LAT, TF_PCT };

struct axis {
	bool log, fixed;	/* fixed: lo and hi set by the caller, not the data */
	enum tick_fmt fmt;
	double lo, hi, step;	/* step: linear axes only */
	const char *unit;	/* TF_SEC: "s", "min" or "h" */
	double p0, p1;		/* pixel positions of lo and hi */
};

struct box { double x0, y0, x1, y1; };

struct line {
	const char *name, *color, *dash;	/* dash: NULL for a solid line */
	size_t n;
	const double *x, *y;
};

struct chart {
	int w, h;
	const char *xlabel, *ylabel;
	struct axis x, y;
};

/* Points a log axis cannot place (0: an interval without operations) are skipped. */
static bool ax_ok(const struct axis *a, double v)
{
	return isfinite(v) && (!a->log || v > 0);
}

static double ax_px(const struct axis *a, double v)
{
	double f = a->log ? log10(v / a->lo) / log10(a->hi / a->lo) : (v - a->lo) / (a->hi - a->lo);

	return a->p0 + f * (a->p1 - a->p0);
}

/* 1, 2 or 5 x 10^k: about five ticks over the span. */
static double nice_step(double span)
{
	double raw = span / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return mag * (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10);
}

/* The nearest 1, 2 or 5 x 10^k below (or above) v: log axes end on a tick. */
static double log_bound(double v, bool up)
{
	static const double m[] = { 1, 2, 5, 10 };
	double mag = pow(10, floor(log10(v))), f = v / mag;
	int i = 0;

	while (i < 3 && (up ? f > m[i] * 1.0001 : f >= m[i + 1] * 0.9999))
		i++;
	return m[i] * mag;
}

/* Widens [lo, hi] to whole steps (linear, from 0) or to ticks (log). */
static void axis_fit(struct axis *a, double lo, double hi)
{
	if (a->fixed)
		return;
	if (a->log) {
		if (!(hi > 0))
			lo = 1e3, hi = 1e6;
		a->lo = log_bound(lo, false);
		a->hi = log_bound(hi, true);
		if (a->hi <= a->lo)
			a->hi = log_bound(a->lo * 1.01, true);
		if (a->hi / a->lo > 1000.5) {	/* decade ticks only: end on decades too */
			a->lo = pow(10, floor(log10(a->lo) + 1e-9));
			a->hi = pow(10, ceil(log10(a->hi) - 1e-9));
		}
		return;
	}
	a->lo = 0;	/* throughput, time and latency bars all read best from zero */
	a->step = nice_step(hi > 0 ? hi : 1);
	a->hi = ceil((hi > 0 ? hi : 1) / a->step) * a->step;
}

static void axis_from_data(struct axis *a, const struct line *s, int ns, bool x)
{
	double lo = INFINITY, hi = -INFINITY;

	for (int i = 0; i < ns; i++) {
		for (size_t k = 0; k < s[i].n; k++) {
			double v = x ? s[i].x[k] : s[i].y[k];

			if (ax_ok(a, v)) {
				lo = fmin(lo, v);
				hi = fmax(hi, v);
			}
		}
	}
	axis_fit(a, lo, hi);
}

static const char *tick_label(const struct axis *a, double v, char *buf, size_t len)
{
	int k;

	switch (a->fmt) {
	case TF_LAT: return fmt_lat(v, buf, len);
	case TF_SEC: snprintf(buf, len, "%.4g %s", v, a->unit); return buf;
	case TF_PCT:	/* 1/(1-p) = 10^k is the percentile 100 - 10^(2-k) */
		k = (int)lround(log10(v));
		snprintf(buf, len, "%.*f%%", k > 2 ? k - 2 : 0, 100.0 - pow(10, 2 - k));
		return buf;
	default: return fmt_num(v, buf, len);
	}
}

/* Tick values: whole steps, or decades (with 2x and 5x where they stay 22 px apart). */
static int axis_ticks(const struct axis *a, double *t, int max)
{
	static const double mult[] = { 1, 2, 5 };
	double decade_px = a->log ? fabs(a->p1 - a->p0) / log10(a->hi / a->lo) : 0;
	int n = 0, nm = decade_px * log10(2) >= 22 && a->fmt != TF_PCT ? 3 : 1;

	if (!a->log) {
		for (int k = 0; n < max && a->lo + k * a->step <= a->hi * (1 + 1e-9); k++)
			t[n++] = a->lo + k * a->step;
		return n;
	}
	for (double d = pow(10, floor(log10(a->lo) + 1e-9)); d <= a->hi * 1.001; d *= 10)
		for (int m = 0; m < nm && n < max; m++)
			if (d * mult[m] >= a->lo * 0.999 && d * mult[m] <= a->hi * 1.001)
				t[n++] = d * mult[m];
	return n;
}

/* Grid lines and tick labels of one axis (v: the vertical one) across the plot box. */
static void svg_axis(FILE *out, const struct axis *a, bool v, const struct box *b)
{
	double t[64];
	char lab[32];
	int n = axis_ticks(a, t, 64);

	for (int i = 0; i < n; i++) {
		double p = ax_px(a, t[i]);

		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
			v ? b->x0 : p, v ? p : b->y0, v ? b->x1 : p, v ? p : b->y1, v ? b->x0 - 6 : p,
			v ? p + 4 : b->y1 + 17, v ? "end" : "middle", tick_label(a, t[i], lab, sizeof(lab)));
	}
}

/* Opens the svg, sets the axes' pixel ranges, draws the grid, frame and axis titles. */
static void svg_frame(FILE *out, struct chart *c, const struct box *b, bool xticks)
{
	fprintf(out, "<svg viewBox=\"0 0 %d %d\" role=\"img\">\n", c->w, c->h);
	c->x.p0 = b->x0, c->x.p1 = b->x1;
	c->y.p0 = b->y1, c->y.p1 = b->y0;
	svg_axis(out, &c->y, true, b);
	if (xticks)
		svg_axis(out, &c->x, false, b);
	fprintf(out, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n"
		"<text class=\"label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n"
		"<text class=\"label\" transform=\"translate(14,%.1f) rotate(-90)\" "
		"text-anchor=\"middle\">%s</text>\n", b->x0, b->y0, b->x1 - b->x0, b->y1 - b->y0,
		(b->x0 + b->x1) / 2, c->h - 6, c->xlabel, (b->y0 + b->y1) / 2, c->ylabel);
}

/* One line, broken where a point cannot be placed; dots too when it is short. */
static void svg_series(FILE *out, const struct line *s, const struct axis *ax,
		       const struct axis *ay)
{
	bool open = false;

	fprintf(out, "<g class=\"series\" stroke=\"%s\" fill=\"%s\">", s->color, s->color);
	for (size_t i = 0; i < s->n; i++) {
		if (!ax_ok(ax, s->x[i]) || !ax_ok(ay, s->y[i])) {
			if (open)
				fputs("\"/>", out);
			open = false;
			continue;
		}
		if (!open)
			fprintf(out, "<polyline stroke-dasharray=\"%s\" points=\"",
				s->dash ? s->dash : "none");
		fprintf(out, "%.1f,%.1f ", ax_px(ax, s->x[i]), ax_px(ay, s->y[i]));
		open = true;
	}
	if (open)
		fputs("\"/>", out);
	for (size_t i = 0; s->n <= MARKER_MAX && i < s->n; i++)
		if (ax_ok(ax, s->x[i]) && ax_ok(ay, s->y[i]))
			fprintf(out, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>",
				ax_px(ax, s->x[i]), ax_px(ay, s->y[i]));
	fputs("</g>\n", out);
}

/* One legend entry at *x, which moves past it: a line sample, or with cls a swatch. */
static void legend_item(FILE *out, double *x, const char *color, const char *dash,
			const char *cls, const char *name)
{
	if (cls)
		fprintf(out, "<rect class=\"sw %s\" x=\"%.1f\" y=\"8\" width=\"14\" height=\"11\"/>",
			cls, *x);
	else
		fprintf(out, "<line x1=\"%.1f\" y1=\"14\" x2=\"%.1f\" y2=\"14\" stroke=\"%s\" "
			"stroke-width=\"2.5\" stroke-dasharray=\"%s\"/>", *x, *x + 24, color,
			dash ? dash : "none");
	fprintf(out, "<text x=\"%.1f\" y=\"18\">%s</text>\n", *x + (cls ? 20 : 30), name);
	*x += (cls ? 36 : 46) + 6.5 * (double)strlen(name);
}

/* Axes with ticks, the lines and a legend above the plot. */
static void svg_line_chart(FILE *out, struct chart *c, const struct line *s, int ns)
{
	struct box b = { 78, 30, c->w - 36, c->h - 42 };
	double lx = b.x0;

	axis_from_data(&c->x, s, ns, true);
	axis_from_data(&c->y, s, ns, false);
	svg_frame(out, c, &b, true);
	for (int i = 0; i < ns; i++)
		svg_series(out, &s[i], &c->x, &c->y);
	for (int i = 0; i < ns; i++)
		legend_item(out, &lx, s[i].color, s[i].dash, NULL, s[i].name);
	fputs("</svg>\n", out);
}

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
		tl->y[M_MIB][t][k] = per_sec(acc[t].bytes, acc[t].len_ns) / 1048576.0;
		tl->y[M_IOPS][t][k] = per_sec(acc[t].ops, acc[t].len_ns);
		tl->y[M_P50][t][k] = (double)acc[t].p50_ns;
		tl->y[M_P99][t][k] = (double)acc[t].p99_ns;
		tl->y[M_P999][t][k] = (double)acc[t].p999_ns;
	}
}

static bool op_seen(const struct report *r, int t)
{
	return r->ops[t].ops || r->ops[t].errors;
}

#define NO_INTERVALS "No interval data was recorded."

/* A chart under its heading, or a line saying why there is none. */
static void chart_or_none(FILE *out, const char *title, struct chart *c, const struct line *s,
			  int n, const char *none)
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
	struct line tput[2][OP_NTYPES], lines[3 * OP_NTYPES];
	/* long runs read better in minutes or hours than in thousands of seconds */
	double secs = (double)r->duration_ns / 1e9, unit_s = secs > 7200 ? 3600 : secs > 900 ? 60 : 1;
	const char *unit = unit_s == 3600 ? "h" : unit_s == 60 ? "min" : "s";
	struct chart mib = { 580, 280, "interval start", "MiB/s", { .fmt = TF_SEC, .unit = unit },
			     { .fmt = TF_NUM } };
	struct chart iops = mib, lat = { 1160, 300, "interval start", "latency (log scale)",
					  { .fmt = TF_SEC, .unit = unit }, { .log = true, .fmt = TF_LAT } };
	int nt = 0, nl = 0;

	iops.ylabel = "IOPS";
	if (tl)
		timeline_load(r, tl, unit_s);
	for (int t = 0; tl && t < OP_NTYPES; t++) {
		if (!tl->n[t] || !op_seen(r, t))
			continue;
		for (int m = 0; m < 2; m++)
			tput[m][nt] = (struct line){ op_name(t), op_colors[t], NULL, tl->n[t],
						       tl->x[t], tl->y[M_MIB + m][t] };
		nt++;
		for (int p = 0; p < 3; p++) {
			snprintf(pct_name[p][t], sizeof(pct_name[p][t]), "%s %s", op_name(t), pct[p]);
			lines[nl++] = (struct line){ pct_name[p][t], op_colors[t], pct_dash[p],
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

/*
 * Latency at 1/(1-p) log-spaced from 1 (p = 0) to SPECTRUM_MAX (p = 99.999%).
 * Open loop adds, dashed, the latency from the actual issue: the gap to the
 * solid line is what coordinated omission would have hidden.
 */
static void spectrum(FILE *out, const struct report *r)
{
	char unc_name[OP_NTYPES][40];
	double x[SPECTRUM_POINTS], y[2 * OP_NTYPES][SPECTRUM_POINTS];
	struct line s[2 * OP_NTYPES];
	struct chart c = { 1160, 300, "percentile", "latency (log scale)",
			   { .log = true, .fixed = true, .fmt = TF_PCT, .lo = 1, .hi = SPECTRUM_MAX },
			   { .log = true, .fmt = TF_LAT } };
	int n = 0;

	for (int i = 0; i < SPECTRUM_POINTS; i++)
		x[i] = pow(SPECTRUM_MAX, (double)i / (SPECTRUM_POINTS - 1));
	for (int k = 0; k < 2 * OP_NTYPES; k++) {
		int t = k % OP_NTYPES;
		const struct hist *h = k < OP_NTYPES ? &r->ops[t].lat : &r->ops[t].lat_unc;

		if (!h->count || !h->counts)
			continue;
		/* p = 0 is not a percentile: the smallest positive one gives the minimum */
		for (int i = 0; i < SPECTRUM_POINTS; i++)
			y[n][i] = (double)hist_percentile(h, fmax(100.0 * (1.0 - 1.0 / x[i]), 1e-9));
		snprintf(unc_name[t], sizeof(unc_name[t]), "%s, from issue", op_name(t));
		s[n] = (struct line){ k < OP_NTYPES ? op_name(t) : unc_name[t], op_colors[t],
				      k < OP_NTYPES ? NULL : "7 4", SPECTRUM_POINTS, x, y[n] };
		n++;
	}
	fputs("<section id=\"spectrum\"><h2>Latency percentile spectrum</h2>\n", out);
	chart_or_none(out, "Latency at or below which each fraction of operations completed", &c, s,
		      n, "No operation completed.");
	fputs("</section>\n", out);
}

/* ---- connections ---- */

static int by_p99_desc(const void *a, const void *b)
{
	const struct conn_report *x = a, *y = b;

	if (x->p99_ns != y->p99_ns)
		return x->p99_ns < y->p99_ns ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
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
	struct chart c = { 1160, 290, NULL, "p99 latency", {0}, { .fmt = TF_LAT } };
	struct box b = { 78, 30, c.w - 36, c.h - 42 };
	double bw = (b.x1 - b.x0) / nb, last_label = -1e9, lx = b.x0, med;
	char xl[96], v1[32], v2[32];

	snprintf(xl, sizeof(xl), nb < n ? "connections ranked by p99, %.1f per bar" :
		 "connections ranked by p99", (double)n / nb);
	c.xlabel = xl;
	axis_fit(&c.y, 0, (double)s[0].p99_ns * 1.25);	/* headroom for the id labels */
	svg_frame(out, &c, &b, false);
	for (unsigned j = 0; j < nb; j++) {
		unsigned lo = (unsigned)((uint64_t)j * n / nb), hi = (unsigned)((uint64_t)(j + 1) * n / nb);
		int lvl = 0;
		double top, x = b.x0 + j * bw;

		for (unsigned i = lo; i < hi; i++)
			lvl = MAX(lvl, conn_level(&s[i]));
		/* at least 3 px, so a failed connection without latencies still shows */
		top = fmin(ax_px(&c.y, (double)s[lo].p99_ns), b.y1 - 3);
		fprintf(out, "<rect class=\"bar %s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
			"height=\"%.1f\"><title>", cls[lvl], x + bw * 0.1, top, bw * 0.8, b.y1 - top);
		if (hi - lo == 1)
			fprintf(out, "connection %u (thread %u): p99 %s, p50 %s, %" PRIu64 " ops",
				s[lo].id, s[lo].worker, fmt_lat((double)s[lo].p99_ns, v1, sizeof(v1)),
				fmt_lat((double)s[lo].p50_ns, v2, sizeof(v2)), s[lo].ops);
		else
			fprintf(out, "ranks %u-%u: p99 %s down to %s, slowest connection %u", lo + 1,
				hi, fmt_lat((double)s[lo].p99_ns, v1, sizeof(v1)),
				fmt_lat((double)s[hi - 1].p99_ns, v2, sizeof(v2)), s[lo].id);
		fputs("</title></rect>\n", out);
		/*
		 * The slowest few get their id, unless it would overprint the last one;
		 * of merged bars only the first and troubled ones (the rest say little).
		 */
		if (j < BAR_LABELS && (nb == n || j == 0 || lvl) && x + bw / 2 - last_label >= 14) {
			last_label = x + bw / 2;
			/* rotated, the glyphs sit left of the anchor: keep them off the y axis */
			fprintf(out, "<text class=\"barlab\" transform=\"translate(%.1f,%.1f) "
				"rotate(-90)\">#%u</text>\n", fmax(last_label + 4, b.x0 + 13), top - 4,
				s[lo].id);
		}
	}
	/* the median connection: outliers are those past 3x this line */
	med = ax_px(&c.y, (double)s[n / 2].p99_ns);
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#475569\" "
		"stroke-dasharray=\"6 4\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">median "
		"%s</text>\n", b.x0, med, b.x1, med, b.x1 - 4, med - 5,
		fmt_lat((double)s[n / 2].p99_ns, v1, sizeof(v1)));
	for (int i = 0; i < 3; i++)
		legend_item(out, &lx, NULL, NULL, cls[i], what[i]);
	fputs("</svg>\n", out);
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
		esc(out, c->error);
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
		qsort(s, r->nconns, sizeof(*s), by_p99_desc);
		conn_bars(out, s, r->nconns);
		conn_table(out, s, r->nconns);
		free(s);
	} else {
		fputs("<p class=\"none\">No connection data.</p>\n", out);
	}
	fputs("</section>\n", out);
}

/* ---- summary ---- */

/* A settings row; the value printf-style, escaped. */
__attribute__((format(printf, 3, 4)))
static void kv(FILE *out, const char *k, const char *fmt, ...)
{
	char v[CFG_URL_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	fprintf(out, "<tr><th>%s</th><td>", k);
	esc(out, v);
	fputs("</td></tr>\n", out);
}

static void settings(FILE *out, const struct report *r)
{
	const struct config *cfg = r->cfg;
	char v[32];

	fputs("<div><h3>Settings</h3><table class=\"kv\">\n", out);
	kv(out, "NFS version", "%d", cfg->nfs_version);
	kv(out, "threads", "%u", r->nthreads);
	kv(out, "connections", "%u", cfg->connections);
	kv(out, "iodepth", "%u", cfg->iodepth);
	kv(out, "rw", "%s", wl_mode_name(cfg->rw));
	if (cfg->rw == WL_READWRITE || cfg->rw == WL_RANDRW)
		kv(out, "rwmixread", "%u%%", cfg->rwmixread);
	kv(out, "bs", "%s", units_format_size(cfg->bs, v, sizeof(v)));
	kv(out, "size", "%s", units_format_size(cfg->size, v, sizeof(v)));
	kv(out, "nrfiles", "%u", cfg->nrfiles);
	if (cfg->runtime_ns)
		kv(out, "runtime", "%s", units_format_duration(cfg->runtime_ns, v, sizeof(v)));
	if (cfg->io_size)
		kv(out, "io-size", "%s", units_format_size(cfg->io_size, v, sizeof(v)));
	if (cfg->one_pass)
		kv(out, "amount", "each file once");
	if (cfg->ramp_ns)
		kv(out, "ramp", "%s", units_format_duration(cfg->ramp_ns, v, sizeof(v)));
	if (r->rate > 0)
		kv(out, "rate", "%.0f ops/s", r->rate);
	if (r->interval_ns)
		kv(out, "interval", "%s", units_format_duration(r->interval_ns, v, sizeof(v)));
	fputs("</table></div>\n", out);
}

static void totals_row(FILE *out, const char *name, const struct op_stats *s, uint64_t ns)
{
	static const double pct[] = { 50, 90, 99, 99.9, 99.99 };
	uint64_t lat[8] = { s->lat.min, (uint64_t)hist_mean(&s->lat) };
	char v[32];

	for (int i = 0; i < 5; i++)
		lat[2 + i] = hist_percentile(&s->lat, pct[i]);
	lat[7] = s->lat.max;
	fprintf(out, "<tr><th class=\"l\">%s</th><td>%" PRIu64 "</td><td>%.0f</td><td>%.1f</td><td>%"
		PRIu64 "</td>", name, s->ops, per_sec(s->ops, ns), per_sec(s->bytes, ns) / 1048576.0,
		s->errors);
	for (int i = 0; i < 8; i++)
		fprintf(out, "<td>%s</td>", s->ops ? units_format_duration(lat[i], v, sizeof(v)) : "-");
	fputs("</tr>\n", out);
}

static void totals(FILE *out, const struct report *r)
{
	fputs("<h3>Totals</h3><div class=\"wide\"><table><tr><th class=\"l\">op</th><th>count</th><th>IOPS</th>"
	      "<th>MiB/s</th><th>errors</th><th>min</th><th>mean</th><th>p50</th><th>p90</th>"
	      "<th>p99</th><th>p99.9</th><th>p99.99</th><th>max</th></tr>\n", out);
	for (int t = 0; t < OP_NTYPES; t++)
		if (op_seen(r, t))
			totals_row(out, op_name(t), &r->ops[t], r->duration_ns);
	if (!op_seen(r, OP_READ) && !op_seen(r, OP_WRITE))
		fputs("<tr><td class=\"l none\" colspan=\"13\">no operations</td></tr>\n", out);
	fputs("</table></div>\n", out);
}

static void cpu(FILE *out, const struct report *r)
{
	uint64_t ops = report_total_ops(r);

	fprintf(out, "<h3>Client CPU</h3><table class=\"kv\"><tr><th>user</th><td>%.2f s</td></tr>"
		"<tr><th>system</th><td>%.2f s</td></tr><tr><th>per operation</th><td>%.2f us</td>"
		"</tr><tr><th>threads busy</th><td>", r->user_s, r->sys_s,
		ops ? (r->user_s + r->sys_s) * 1e6 / (double)ops : 0.0);
	for (unsigned i = 0; i < r->nthreads; i++)
		fprintf(out, "%s%.0f%%", i ? ", " : "", r->threads[i].busy_pct);
	fputs("</td></tr></table>\n", out);
}

static void notes(FILE *out, const struct report *r)
{
	unsigned failed = 0;
	char lag[32];

	for (unsigned i = 0; i < r->nconns; i++)
		failed += r->conns[i].error[0] != '\0';
	if (r->limits_note && r->limits_note[0]) {
		fputs("<p class=\"info\">note: ", out);
		esc(out, r->limits_note);
		fputs("</p>\n", out);
	}
	if (r->interrupted)
		fputs("<p class=\"warn\">The run was interrupted: the figures cover part of it.</p>\n", out);
	if (!report_total_ops(r))
		fputs("<p class=\"warn\">No operation completed.</p>\n", out);
	if (failed)
		fprintf(out, "<p class=\"warn\">%u of %u connections failed.</p>\n", failed, r->nconns);
	if (report_client_bound(r))
		fputs("<p class=\"warn\">Client-bound: a worker thread was busy at least 90% of the "
		      "time, so these figures describe nfsload, not the server (add --threads or "
		      "cores).</p>\n", out);
	if (r->steady.valid) {
		fprintf(out, "<p class=\"%s\">Steady state over %u intervals: ",
			r->steady.steady ? "info" : "warn", r->steady.intervals);
		esc(out, r->steady.verdict ? r->steady.verdict : "");	/* it carries the figures */
		fputs("</p>\n", out);
	}
	if (r->rate > 0)
		fprintf(out, "<p class=\"%s\">Open loop: %.0f ops/s requested, %.0f achieved; "
			"backlog at the end %" PRIu64 " operations; worst issue lag %s. Latencies run "
			"from each operation's scheduled time.</p>\n",
			r->achieved_rate < 0.95 * r->rate ? "warn" : "info", r->rate, r->achieved_rate,
			r->backlog_ops, fmt_lat((double)r->max_lag_ns, lag, sizeof(lag)));
}

#define OUTAGE_ROWS 20

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
		fmt_lat((double)sum.max_stall_ns, a, sizeof(a)),
		fmt_lat((double)sum.max_reconnect_ns, b, sizeof(b)),
		r->cfg->on_error == CFG_ON_ERROR_STOP ? "stop" : "continue");
	for (unsigned i = 0; i < r->nconns && shown < OUTAGE_ROWS; i++) {
		const struct conn_report *c = &r->conns[i];

		for (uint64_t k = 0; k < c->noutages && k < CONN_OUTAGES_MAX && shown < OUTAGE_ROWS;
		     k++, shown++) {
			const struct conn_outage *o = &c->outages[k];

			fprintf(out, "<tr><td>%u</td><td>%.2f s</td><td>%.2f s</td><td>%s</td>"
				"<td>%s</td><td>%u</td><td>%" PRIu64 "</td></tr>\n", c->id,
				(double)o->start_ns / 1e9, (double)o->detected_ns / 1e9,
				o->stall_ns ? fmt_lat((double)o->stall_ns, a, sizeof(a)) : "-",
				o->recovered ? fmt_lat((double)o->reconnect_ns, b, sizeof(b)) :
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
			esc(out, line);
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
	esc(out, r->cfg->url);
	fprintf(out, "</div>\n<div class=\"meta\">started %s &middot; measured %s%s &middot; "
		"nfsload %s</div></header>\n", when,
		units_format_duration(r->duration_ns, dur, sizeof(dur)),
		r->interrupted ? " (interrupted)" : "", NFSLOAD_VERSION);
	fputs("<section id=\"summary\"><h2>Summary</h2>\n", out);
	totals(out, r);
	fputs("<div class=\"two\">\n", out);
	settings(out, r);
	fputs("<div>", out);
	cpu(out, r);
	notes(out, r);
	fputs("</div></div></section>\n", out);
	time_charts(out, r);
	spectrum(out, r);
	connections(out, r);
	outages(out, r);
	verification(out, r);
	fputs("<footer>nfsload report &middot; self-contained: inline SVG and CSS</footer>\n"
	      "</main></body></html>\n", out);
}
