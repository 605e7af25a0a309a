/*
 * html_servers: the HTML report's per-server section, when a run spreads its
 * connections over several servers: a p99 bar per server (amber for an
 * outlier, red for a server with connections down) with its p50 inside and a table with the
 * figures and the URLs.
 */
#include <inttypes.h>
#include <math.h>

#include "html_int.h"
#include "svg.h"
#include "units.h"

static uint64_t pct(const struct server_report *s, double p)
{
	return s->st.ops ? hist_percentile(&s->st.lat, p) : 0;
}

static void bars(FILE *out, const struct report *r)
{
	static const char *const cls[] = { "mid", "ok", "out", "bad" };
	static const char *const what[] = { "p50", "p99", "outlier: p99 over 3x the others' median",
					    "connections down at the end" };
	struct svg_chart c = { 1160, 290, "servers (p50 inside, p99 the whole bar)", "latency",
			       { 0 }, { .fmt = SVG_TICK_LAT } };
	struct svg_box b;
	double bw, lx, top = 0;
	char tip[160], v1[32], v2[32], v3[32];

	for (unsigned k = 0; k < r->nservers; k++)
		top = fmax(top, (double)pct(&r->servers[k], 99));
	b = svg_plot_box(&c);
	bw = (b.x1 - b.x0) / r->nservers;
	lx = b.x0;
	svg_axis_fit(&c.y, 0, top * 1.25);
	svg_frame(out, &c, &b, false);
	for (unsigned k = 0; k < r->nservers; k++) {
		const struct server_report *s = &r->servers[k];
		int lvl = s->down ? 3 : s->outlier ? 2 : 1;
		double x = b.x0 + k * bw;

		snprintf(tip, sizeof(tip), "server %u: p99 %s, p50 %s, p99.9 %s, %" PRIu64 " ops, %"
			 PRIu64 " outages", k, svg_fmt_lat((double)pct(s, 99), v1, sizeof(v1)),
			 svg_fmt_lat((double)pct(s, 50), v2, sizeof(v2)),
			 svg_fmt_lat((double)pct(s, 99.9), v3, sizeof(v3)), s->st.ops, s->outages);
		svg_bar(out, cls[lvl], x + bw * 0.2, bw * 0.6,
			fmin(svg_px(&c.y, (double)pct(s, 99)), b.y1 - 3), b.y1, tip);
		svg_bar(out, "mid", x + bw * 0.35, bw * 0.3,
			fmin(svg_px(&c.y, (double)pct(s, 50)), b.y1 - 1), b.y1, tip);
		snprintf(v1, sizeof(v1), "#%u", k);
		svg_up_label(out, x + bw / 2 + 4, fmin(svg_px(&c.y, (double)pct(s, 99)), b.y1 - 3) - 4,
			     v1);
	}
	for (int i = 0; i < 4; i++)
		svg_legend_item(out, &lx, NULL, NULL, cls[i], what[i]);
	svg_end(out);
}

void html_servers(FILE *out, const struct report *r)
{
	char a[32], b[32], c[32];

	if (!r->nservers)
		return;
	fputs("<section id=\"servers\"><h2>Per-server latency</h2>\n", out);
	bars(out, r);
	fputs("<table><tr><th>server</th><th>conns</th><th>ops</th><th>errors</th><th>p50</th>"
	      "<th>p99</th><th>p99.9</th><th>outages</th><th class=\"l\">status</th>"
	      "<th class=\"l\">URL</th></tr>\n", out);
	for (unsigned k = 0; k < r->nservers; k++) {
		const struct server_report *s = &r->servers[k];

		fprintf(out, "<tr><td>%u</td><td>%u</td><td>%" PRIu64 "</td><td>%" PRIu64
			"</td><td>%s</td><td>%s</td><td>%s</td><td>%" PRIu64 "</td><td class=\"l\">%s"
			"</td><td class=\"l\">", k, s->conns, s->st.ops, s->st.errors,
			s->st.ops ? units_format_duration(pct(s, 50), a, sizeof(a)) : "-",
			s->st.ops ? units_format_duration(pct(s, 99), b, sizeof(b)) : "-",
			s->st.ops ? units_format_duration(pct(s, 99.9), c, sizeof(c)) : "-",
			s->outages, s->outlier ? "outlier" : s->down ? "connections down" : "ok");
		svg_esc(out, s->url);
		fputs("</td></tr>\n", out);
	}
	fputs("</table></section>\n", out);
}
