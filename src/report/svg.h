/*
 * svg: inline SVG charts for the HTML report (html.c, html_summary.c and html_servers.c only).
 *
 * Owns: axes (linear or log, fitted to the data or fixed), tick values and
 * labels, the plot frame, line charts with a legend, bars and the few marks
 * drawn on them. Knows nothing of the report: callers pass numbers, names
 * and colours, and style the classes it writes (grid, frame, label, series,
 * pt, bar, barlab, sw) in their CSS. Every text it writes is escaped.
 */
#ifndef NFSLOAD_SVG_H
#define NFSLOAD_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* How an axis labels its ticks. */
enum svg_tick {
	SVG_TICK_NUM,	/* "950", "12.5k", "1.2M" */
	SVG_TICK_SEC,	/* "30 s" in the axis' unit */
	SVG_TICK_LAT,	/* nanoseconds as "250 us", "1.5 ms" */
	SVG_TICK_PCT,	/* log axis of 1/(1-p): "90%", "99.9%" */
};

struct svg_axis {
	bool log, fixed;	/* fixed: lo and hi set by the caller, not the data */
	enum svg_tick fmt;
	double lo, hi, step;	/* step: linear axes only */
	const char *unit;	/* SVG_TICK_SEC: "s", "min" or "h" */
	double p0, p1;		/* pixel positions of lo and hi (svg_frame sets them) */
};

struct svg_box { double x0, y0, x1, y1; };

struct svg_line {
	const char *name, *color, *dash;	/* dash: NULL for a solid line */
	size_t n;
	const double *x, *y;
};

struct svg_chart {
	int w, h;			/* the viewBox; the page scales it to its width */
	const char *xlabel, *ylabel;
	struct svg_axis x, y;
};

/* Text content or an attribute value: & < > " ' as entities, control characters as spaces. */
void svg_esc(FILE *out, const char *s);
/* Short latencies: "250 us", "1.5 ms", "0" (ns in). */
const char *svg_fmt_lat(double ns, char *buf, size_t len);

/* v can be placed on the axis (finite; positive on a log axis). */
bool svg_ok(const struct svg_axis *a, double v);
/* v's pixel position on the axis (after svg_frame). */
double svg_px(const struct svg_axis *a, double v);
/* Widens [lo, hi] to whole steps from 0 (linear) or to ticks (log); a fixed axis stays. */
void svg_axis_fit(struct svg_axis *a, double lo, double hi);
/* Where a chart of c's size puts its plot: room left for tick labels, legend above. */
struct svg_box svg_plot_box(const struct svg_chart *c);

/*
 * Opens an <svg>, sets both axes' pixel ranges to the box, draws the grid,
 * the y ticks (and x ticks when xticks), the frame and the axis titles.
 * Close with svg_end.
 */
void svg_frame(FILE *out, struct svg_chart *c, const struct svg_box *b, bool xticks);
void svg_end(FILE *out);

/*
 * A whole line chart: axes fitted to the lines (unless fixed), each line
 * broken where a point cannot be placed and dotted when it is short, the
 * legend above the plot.
 */
void svg_line_chart(FILE *out, struct svg_chart *c, const struct svg_line *lines, int n);

/* One legend entry at *x, which moves past it: a line sample, or with cls a swatch. */
void svg_legend_item(FILE *out, double *x, const char *color, const char *dash,
		     const char *cls, const char *name);
/* A bar of class "bar cls" from top down to bottom, with a tooltip. */
void svg_bar(FILE *out, const char *cls, double x, double w, double top, double bottom,
	     const char *tip);
/* A label written upwards from (x, y), as over a narrow bar. */
void svg_up_label(FILE *out, double x, double y, const char *text);
/* A dashed horizontal line across the box at y, labelled at its right end. */
void svg_hline(FILE *out, const struct svg_box *b, double y, const char *label);

#endif
