/*
 * report_curve: a load curve (--load-curve) in each rendering: its settings'
 * words, the text table, the JSON "load_curve" object and the HTML section
 * with latency against achieved IOPS. Formatting only; the points and the
 * verdicts are curve.c's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "html_int.h"
#include "report.h"
#include "report_int.h"
#include "svg.h"
#include "units.h"

const char *report_curve_spec(const struct config *cfg, char *buf, size_t len)
{
	const struct curve_spec *c = &cfg->curve;

	if (c->end > 0)
		snprintf(buf, len, "%.0f:%.0f:%.0f", c->start, c->step, c->end);
	else
		snprintf(buf, len, "%.0f:%.0f (to the knee)", c->start, c->step);
	return buf;
}

const char *report_curve_target(const struct curve_target *t, char *buf, size_t len)
{
	char p[16], d[32];

	if (t->pct <= 0)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%s <= %s", curve_pct_name(t->pct, p, sizeof(p)),
			 units_format_duration(t->ns, d, sizeof(d)));
	return buf;
}

/* The target's percentile gets a column of its own unless it is p50 or p99. */
static bool own_column(const struct curve_target *t)
{
	return t->pct > 0 && t->pct != 50 && t->pct != 99;
}

/* Why a point was not met, in words. */
static const char *verdict(const struct curve_point *p, const struct curve_target *t, char *buf,
			   size_t len)
{
	char pn[16];

	switch (p->miss) {
	case CURVE_MET:
		return "met";
	case CURVE_SHORT:
		snprintf(buf, len, "achieved < %d%% of offered", CURVE_KNEE_PCT);
		return buf;
	case CURVE_ERRORS:
		return "errors";
	case CURVE_SLOW:
		snprintf(buf, len, "%s over target", curve_pct_name(t->pct, pn, sizeof(pn)));
		return buf;
	}
	return "?";
}

void report_text_curve(FILE *out, const struct report *r)
{
	const struct curve *c = r->curve;
	const struct curve_target *t = &c->target;
	char a[32], b[32], d[32], w[64], pn[16];

	fprintf(out, "\nload curve: %s ops/s, %u point%s (%u refined); past the knee: achieved "
		"< %d%% of offered, errors%s%s\n", report_curve_spec(r->cfg, w, sizeof(w)), c->n,
		c->n == 1 ? "" : "s", c->refines, CURVE_KNEE_PCT, t->pct > 0 ? ", or not " : "",
		t->pct > 0 ? report_curve_target(t, d, sizeof(d)) : "");
	fputs("   offered   achieved       p50       p99", out);
	if (own_column(t))
		fprintf(out, " %9s", curve_pct_name(t->pct, pn, sizeof(pn)));
	fputs("    errors  verdict\n", out);
	for (unsigned i = 0; i < c->n; i++) {
		const struct curve_point *p = &c->pt[i];

		fprintf(out, "%10.0f %10.0f %9s %9s", p->offered, p->achieved,
			units_format_duration(p->p50_ns, a, sizeof(a)),
			units_format_duration(p->p99_ns, b, sizeof(b)));
		if (own_column(t))
			fprintf(out, " %9s", units_format_duration(p->target_ns, d, sizeof(d)));
		fprintf(out, " %9" PRIu64 "  %s%s%s\n", p->errors,
			verdict(p, t, w, sizeof(w)), p->refined ? " (refined)" : "",
			(int)i == c->best ? "  <- best" : "");
	}
	if (c->best < 0) {
		fprintf(out, "best: none: no point met %s; the figures above are the first point's, "
			"the connections below the last point's\n", t->pct > 0 ? "the target" : "the bar");
		return;
	}
	fprintf(out, "best: %.0f ops/s offered, %.0f achieved, p99 %s%s; the figures above are "
		"this point's, the connections below the last point's\n", c->pt[c->best].offered,
		c->pt[c->best].achieved, units_format_duration(c->pt[c->best].p99_ns, a, sizeof(a)),
		t->pct > 0 ? " (within the target)" : "");
}

static void json_point(FILE *out, const struct curve_point *p)
{
	fputs("{\"offered\": ", out);
	report_json_num(out, p->offered);
	fputs(", \"achieved\": ", out);
	report_json_num(out, p->achieved);
	fprintf(out, ", \"ops\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"p50_ns\": %" PRIu64
		", \"p99_ns\": %" PRIu64 ", \"target_ns\": %" PRIu64 ", \"duration_ns\": %" PRIu64
		", \"refined\": %s, \"met\": %s, \"verdict\": \"%s\"}", p->ops, p->errors, p->p50_ns,
		p->p99_ns, p->target_ns, p->duration_ns, p->refined ? "true" : "false",
		p->miss == CURVE_MET ? "true" : "false", curve_miss_name(p->miss));
}

void report_json_curve(FILE *out, const struct report *r)
{
	const struct curve *c = r->curve;
	char pn[16];

	fputs("\"load_curve\": ", out);
	if (!c) {
		fputs("null,\n", out);
		return;
	}
	fputs("{\"start\": ", out);
	report_json_num(out, c->rates.start);
	fputs(", \"step\": ", out);
	report_json_num(out, c->rates.step);
	fputs(", \"end\": ", out);
	if (c->rates.end > 0)
		report_json_num(out, c->rates.end);
	else
		fputs("null", out);
	fprintf(out, ", \"knee_pct\": %d, \"target\": ", CURVE_KNEE_PCT);
	if (c->target.pct > 0) {
		fputs("{\"percentile\": ", out);
		report_json_num(out, c->target.pct);
		fprintf(out, ", \"name\": \"%s\", \"ns\": %" PRIu64 "}",
			curve_pct_name(c->target.pct, pn, sizeof(pn)), c->target.ns);
	} else {
		fputs("null", out);
	}
	fputs(", \"points\": [", out);
	for (unsigned i = 0; i < c->n; i++) {
		fputs(i ? ",\n  " : "\n  ", out);
		json_point(out, &c->pt[i]);
	}
	fputs("],\n  \"best\": ", out);
	if (c->best >= 0)
		json_point(out, &c->pt[c->best]);
	else
		fputs("null", out);
	fputs("},\n", out);
}

static int by_offered(const void *x, const void *y)
{
	const struct curve_point *a = x, *b = y;

	return (a->offered > b->offered) - (a->offered < b->offered);
}

void html_curve(FILE *out, const struct report *r)
{
	const struct curve *c = r->curve;
	struct curve_point pt[CURVE_POINTS_MAX];
	double x[CURVE_POINTS_MAX], y50[CURVE_POINTS_MAX], y99[CURVE_POINTS_MAX];
	double yt[CURVE_POINTS_MAX], tx[2], ty[2];
	struct svg_chart chart = { 1160, 320, "achieved IOPS", "latency (log scale)",
				   { .fmt = SVG_TICK_NUM }, { .log = true, .fmt = SVG_TICK_LAT } };
	struct svg_line lines[4];
	char tname[48], pn[16], a[32], b[32], w[64];
	int nl = 0;

	if (!c)
		return;
	/* The refined points slot in by rate: one line from the lowest load to the highest. */
	memcpy(pt, c->pt, c->n * sizeof(*pt));
	qsort(pt, c->n, sizeof(*pt), by_offered);
	for (unsigned i = 0; i < c->n; i++) {
		x[i] = pt[i].achieved;
		y50[i] = (double)pt[i].p50_ns;
		y99[i] = (double)pt[i].p99_ns;
		yt[i] = (double)pt[i].target_ns;
	}
	lines[nl++] = (struct svg_line){ "p50", "#2563eb", NULL, c->n, x, y50 };
	lines[nl++] = (struct svg_line){ "p99", "#dc2626", "7 4", c->n, x, y99 };
	if (c->target.pct > 0 && c->n) {
		curve_pct_name(c->target.pct, pn, sizeof(pn));
		if (own_column(&c->target))
			lines[nl++] = (struct svg_line){ pn, "#7c3aed", "2 3", c->n, x, yt };
		snprintf(tname, sizeof(tname), "target %s %s", pn,
			 units_format_duration(c->target.ns, a, sizeof(a)));
		tx[0] = x[0];
		tx[1] = x[c->n - 1];
		ty[0] = ty[1] = (double)c->target.ns;
		lines[nl++] = (struct svg_line){ tname, "#475569", "6 4", 2, tx, ty };
	}
	fputs("<section id=\"load-curve\"><h2>Load curve</h2>\n", out);
	if (c->best >= 0)
		fprintf(out, "<p class=\"info\">Best: %.0f ops/s offered, %.0f achieved, p99 %s. "
			"The other sections show this point (connections: the last point).</p>\n",
			c->pt[c->best].offered, c->pt[c->best].achieved,
			svg_fmt_lat((double)c->pt[c->best].p99_ns, a, sizeof(a)));
	else
		fputs("<p class=\"warn\">No point met the bar: the other sections show the first "
		      "point.</p>\n", out);
	if (c->n) {
		fputs("<h3>Latency against achieved IOPS</h3>\n", out);
		svg_line_chart(out, &chart, lines, nl);
	}
	fprintf(out, "<table><tr><th>offered</th><th>achieved</th><th>p50</th><th>p99</th>%s%s%s"
		"<th>errors</th><th class=\"l\">verdict</th></tr>\n", own_column(&c->target) ? "<th>" : "",
		own_column(&c->target) ? curve_pct_name(c->target.pct, pn, sizeof(pn)) : "",
		own_column(&c->target) ? "</th>" : "");
	for (unsigned i = 0; i < c->n; i++) {
		const struct curve_point *p = &c->pt[i];

		fprintf(out, "<tr><td>%.0f</td><td>%.0f</td><td>%s</td><td>%s</td>", p->offered,
			p->achieved, svg_fmt_lat((double)p->p50_ns, a, sizeof(a)),
			svg_fmt_lat((double)p->p99_ns, b, sizeof(b)));
		if (own_column(&c->target))
			fprintf(out, "<td>%s</td>", svg_fmt_lat((double)p->target_ns, a, sizeof(a)));
		fprintf(out, "<td>%" PRIu64 "</td><td class=\"l\">", p->errors);
		svg_esc(out, verdict(p, &c->target, w, sizeof(w)));
		fprintf(out, "%s%s</td></tr>\n", p->refined ? " (refined)" : "",
			(int)i == c->best ? ", best" : "");
	}
	fputs("</table></section>\n", out);
}
