/*
 * svg: inline SVG charts for the HTML report: axes and their ticks, the
 * frame, line charts, legends and bars. Generic drawing only; what is
 * charted, in which colours and sections, is html.c's.
 *
 * Coordinates are in the chart's viewBox units, written with one or two
 * decimals: the page scales the SVG to its width, and the output stays
 * small and the same from one run of the tests to the next.
 */
#include <math.h>
#include <string.h>

#include "svg.h"

#define MARKER_MAX 60		/* dots on the points of lines this short or shorter */
#define MAX_TICKS 64

void svg_esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		/* control characters have no glyph, and most are not allowed in XML */
		default: fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
		}
	}
}

/* Shorter than units_format_duration, which pads to three digits ("1.50 ms"). */
const char *svg_fmt_lat(double ns, char *buf, size_t len)
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

/* Points a log axis cannot place (0: an interval without operations) are skipped. */
bool svg_ok(const struct svg_axis *a, double v)
{
	return isfinite(v) && (!a->log || v > 0);
}

double svg_px(const struct svg_axis *a, double v)
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

void svg_axis_fit(struct svg_axis *a, double lo, double hi)
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

static void axis_from_data(struct svg_axis *a, const struct svg_line *s, int ns, bool x)
{
	double lo = INFINITY, hi = -INFINITY;

	for (int i = 0; i < ns; i++) {
		for (size_t k = 0; k < s[i].n; k++) {
			double v = x ? s[i].x[k] : s[i].y[k];

			if (svg_ok(a, v)) {
				lo = fmin(lo, v);
				hi = fmax(hi, v);
			}
		}
	}
	svg_axis_fit(a, lo, hi);
}

static const char *tick_label(const struct svg_axis *a, double v, char *buf, size_t len)
{
	int k;

	switch (a->fmt) {
	case SVG_TICK_LAT: return svg_fmt_lat(v, buf, len);
	case SVG_TICK_SEC: snprintf(buf, len, "%.4g %s", v, a->unit); return buf;
	case SVG_TICK_PCT:	/* 1/(1-p) = 10^k is the percentile 100 - 10^(2-k) */
		k = (int)lround(log10(v));
		snprintf(buf, len, "%.*f%%", k > 2 ? k - 2 : 0, 100.0 - pow(10, 2 - k));
		return buf;
	default: return fmt_num(v, buf, len);
	}
}

/* Tick values: whole steps, or decades (with 2x and 5x where they stay 22 px apart). */
static int axis_ticks(const struct svg_axis *a, double *t, int max)
{
	static const double mult[] = { 1, 2, 5 };
	double decade_px = a->log ? fabs(a->p1 - a->p0) / log10(a->hi / a->lo) : 0;
	int n = 0, nm = decade_px * log10(2) >= 22 && a->fmt != SVG_TICK_PCT ? 3 : 1;

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
static void axis_draw(FILE *out, const struct svg_axis *a, bool v, const struct svg_box *b)
{
	double t[MAX_TICKS];
	char lab[32];
	int n = axis_ticks(a, t, MAX_TICKS);

	for (int i = 0; i < n; i++) {
		double p = svg_px(a, t[i]);

		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", v ? b->x0 : p,
			v ? p : b->y0, v ? b->x1 : p, v ? p : b->y1, v ? b->x0 - 6 : p,
			v ? p + 4 : b->y1 + 17, v ? "end" : "middle");
		svg_esc(out, tick_label(a, t[i], lab, sizeof(lab)));
		fputs("</text>\n", out);
	}
}

struct svg_box svg_plot_box(const struct svg_chart *c)
{
	return (struct svg_box){ 78, 30, c->w - 36, c->h - 42 };
}

void svg_frame(FILE *out, struct svg_chart *c, const struct svg_box *b, bool xticks)
{
	fprintf(out, "<svg viewBox=\"0 0 %d %d\" role=\"img\">\n", c->w, c->h);
	c->x.p0 = b->x0, c->x.p1 = b->x1;
	c->y.p0 = b->y1, c->y.p1 = b->y0;
	axis_draw(out, &c->y, true, b);
	if (xticks)
		axis_draw(out, &c->x, false, b);
	fprintf(out, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n"
		"<text class=\"label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", b->x0, b->y0,
		b->x1 - b->x0, b->y1 - b->y0, (b->x0 + b->x1) / 2, c->h - 6);
	svg_esc(out, c->xlabel ? c->xlabel : "");
	fprintf(out, "</text>\n<text class=\"label\" transform=\"translate(14,%.1f) rotate(-90)\" "
		"text-anchor=\"middle\">", (b->y0 + b->y1) / 2);
	svg_esc(out, c->ylabel ? c->ylabel : "");
	fputs("</text>\n", out);
}

void svg_end(FILE *out)
{
	fputs("</svg>\n", out);
}

/* One line, broken where a point cannot be placed; dots too when it is short. */
static void series_draw(FILE *out, const struct svg_line *s, const struct svg_axis *ax,
			const struct svg_axis *ay)
{
	bool open = false;

	fputs("<g class=\"series\" stroke=\"", out);
	svg_esc(out, s->color);
	fputs("\" fill=\"", out);
	svg_esc(out, s->color);
	fputs("\">", out);
	for (size_t i = 0; i < s->n; i++) {
		if (!svg_ok(ax, s->x[i]) || !svg_ok(ay, s->y[i])) {
			if (open)
				fputs("\"/>", out);
			open = false;
			continue;
		}
		if (!open)
			fprintf(out, "<polyline stroke-dasharray=\"%s\" points=\"",
				s->dash ? s->dash : "none");
		fprintf(out, "%.1f,%.1f ", svg_px(ax, s->x[i]), svg_px(ay, s->y[i]));
		open = true;
	}
	if (open)
		fputs("\"/>", out);
	for (size_t i = 0; s->n <= MARKER_MAX && i < s->n; i++)
		if (svg_ok(ax, s->x[i]) && svg_ok(ay, s->y[i]))
			fprintf(out, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>",
				svg_px(ax, s->x[i]), svg_px(ay, s->y[i]));
	fputs("</g>\n", out);
}

void svg_legend_item(FILE *out, double *x, const char *color, const char *dash,
		     const char *cls, const char *name)
{
	if (cls) {
		fputs("<rect class=\"sw ", out);
		svg_esc(out, cls);
		fprintf(out, "\" x=\"%.1f\" y=\"8\" width=\"14\" height=\"11\"/>", *x);
	} else {
		fprintf(out, "<line x1=\"%.1f\" y1=\"14\" x2=\"%.1f\" y2=\"14\" stroke=\"", *x,
			*x + 24);
		svg_esc(out, color);
		fprintf(out, "\" stroke-width=\"2.5\" stroke-dasharray=\"%s\"/>",
			dash ? dash : "none");
	}
	fprintf(out, "<text x=\"%.1f\" y=\"18\">", *x + (cls ? 20 : 30));
	svg_esc(out, name);
	fputs("</text>\n", out);
	/* about 6.5 px a glyph at the page's 12 px chart font */
	*x += (cls ? 36 : 46) + 6.5 * (double)strlen(name);
}

void svg_line_chart(FILE *out, struct svg_chart *c, const struct svg_line *s, int ns)
{
	struct svg_box b = svg_plot_box(c);
	double lx = b.x0;

	axis_from_data(&c->x, s, ns, true);
	axis_from_data(&c->y, s, ns, false);
	svg_frame(out, c, &b, true);
	for (int i = 0; i < ns; i++)
		series_draw(out, &s[i], &c->x, &c->y);
	for (int i = 0; i < ns; i++)
		svg_legend_item(out, &lx, s[i].color, s[i].dash, NULL, s[i].name);
	svg_end(out);
}

void svg_bar(FILE *out, const char *cls, double x, double w, double top, double bottom,
	     const char *tip)
{
	fputs("<rect class=\"bar ", out);
	svg_esc(out, cls);
	fprintf(out, "\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"><title>", x, top, w,
		bottom - top);
	svg_esc(out, tip);
	fputs("</title></rect>\n", out);
}

void svg_up_label(FILE *out, double x, double y, const char *text)
{
	fprintf(out, "<text class=\"barlab\" transform=\"translate(%.1f,%.1f) rotate(-90)\">", x, y);
	svg_esc(out, text);
	fputs("</text>\n", out);
}

void svg_hline(FILE *out, const struct svg_box *b, double y, const char *label)
{
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#475569\" "
		"stroke-dasharray=\"6 4\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", b->x0,
		y, b->x1, y, b->x1 - 4, y - 5);
	svg_esc(out, label);
	fputs("</text>\n", out);
}
