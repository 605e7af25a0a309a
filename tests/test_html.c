/*
 * HTML report unit tests: a struct report built by hand (as in test_report.c)
 * plus an interval series, rendered with report_html and checked for
 * structure: balanced tags, no script or network reference, the five
 * sections, the number of points and bars, escaping, bounded size; and for
 * the summary, the values: the settings table row by row, the run's set-up,
 * layout, ports and connections that did I/O.
 *
 * With HTML_OUT=DIR set, the pages are also written there (sample.html,
 * empty.html, reads.html, many.html, null.html, wire.html, ...) to look at
 * or to feed tests/check_html.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "options.h"
#include "report.h"
#include "stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NS_S UINT64_C(1000000000)
#define NIVALS 10
#define NCONNS 20
#define URL "nfs://srv/ex<p>&\"ort'/http-dir"
#define URL_ESC "nfs://srv/ex&lt;p&gt;&amp;&quot;ort&#39;/http-dir"
#define ERR "mount failed: <b>&denied\""
#define ERR_ESC "mount failed: &lt;b&gt;&amp;denied&quot;"
#define IDLE_WRITE_IVAL 4	/* a write interval without operations: 0 on a log axis */
#define PORTS "NFS port 2049 (given), MOUNT port 20048 (from rpcbind)"
#define MIB (UINT64_C(1) << 20)

struct fixture {
	struct config cfg;
	struct report r;
	struct thread_report threads[2];
	struct conn_report *conns;
};

static void rows_add(struct report *r, const struct interval_row *row)
{
	if (!r->series)
		r->series = tmpfile();
	assert_non_null(r->series);
	assert_int_equal(fseeko(r->series, 0, SEEK_END), 0);
	assert_int_equal(fwrite(row, sizeof(*row), 1, r->series), 1);
	r->nseries++;
}

/* Both op types over nivals one-second intervals. */
static void series_fill(struct report *r, unsigned nivals, bool writes)
{
	for (unsigned i = 0; i < nivals; i++) {
		for (unsigned t = 0; t < (writes ? 2u : 1u); t++) {
			struct interval_row row = {
				.start_ns = i * NS_S, .len_ns = NS_S, .op = t,
				.ops = 500 + 20 * i + 200 * t, .p50_ns = 150000 + 1000 * i,
				.p99_ns = 400000 + 20000 * i * (t + 1), .p999_ns = 900000 + 90000 * i,
				.max_ns = 2000000,
			};

			row.bytes = row.ops * 4096;
			if (t == OP_WRITE && i == IDLE_WRITE_IVAL)
				row.ops = row.bytes = row.p50_ns = row.p99_ns = row.p999_ns = 0;
			rows_add(r, &row);
		}
	}
}

/* open_loop: latencies from the schedule, plus a quarter of them from the issue. */
static void fixture_init(struct fixture *f, unsigned nconns, unsigned nivals, bool open_loop)
{
	static char *argv[] = { "nfsload", "-c", "20", "-t", "2", "--rw", "randrw",
				"--rwmixread", "70", "--runtime", "10s", "nfs://srv/export", NULL };
	char err[256] = "";
	int rc;

	memset(f, 0, sizeof(*f));
	rc = config_parse(&f->cfg, (int)N(argv) - 1, argv, err, sizeof(err));
	if (rc != CFG_RUN)
		fail_msg("config_parse: %d %s", rc, err);
	snprintf(f->cfg.url, sizeof(f->cfg.url), "%s", URL);
	assert_int_equal(op_stats_init_all(f->r.ops, HIST_PRECISE_BITS, open_loop), 0);
	assert_int_equal(op_stats_init(&f->r.layout, HIST_PRECISE_BITS, false), 0);
	for (int i = 0; i < 10000; i++) {
		/* a long tail: mostly ~150 us, one in 100 ~2 ms, a few ~20 ms */
		uint64_t v = 100000 + (uint64_t)(i % 100) * 1000;

		v = i % 100 == 99 ? 2000000 + (uint64_t)i * 10 : v;
		v = i % 2000 == 1999 ? 20000000 : v;
		op_stats_record(&f->r.ops[OP_READ], 4096, v, v / 4);
		if (i % 3 == 0)
			op_stats_record(&f->r.ops[OP_WRITE], 4096, 2 * v, v / 2);
	}
	op_stats_record(&f->r.ops[OP_WRITE], -EIO, 0, 0);

	/* 256 MiB laid out in 400 ms, one write failed */
	for (int i = 0; i < 256; i++)
		op_stats_record(&f->r.layout, (int)MIB, 1000000, 1000000);
	op_stats_record(&f->r.layout, -EIO, 0, 0);
	f->r.layout_ran = true;
	f->r.layout_ns = 400000000;
	/* MOUNT p50 4.60 ms p99 9.00 ms, OPEN p50 1.24 ms p99 1.29 ms */
	assert_int_equal(setup_times_init(&f->r.setup, &f->cfg), 0);
	for (int i = 0; i < 20; i++) {
		hist_record(&f->r.setup.steps[0], i == 19 ? 9000000 : 4500000 + 10000 * (uint64_t)i);
		hist_record(&f->r.setup.steps[1], 1200000 + 5000 * (uint64_t)i);
	}
	f->r.connect_ns = 6680000;
	f->r.engine = "libnfs";
	f->r.nfs_version = "4.0";
	f->r.ports = PORTS;
	f->r.cfg = &f->cfg;
	f->r.limits_note = "";
	f->r.start_unix_ns = INT64_C(1700000000) * (int64_t)NS_S;
	f->r.duration_ns = nivals * NS_S;
	f->r.interval_ns = NS_S;
	f->r.user_s = 0.5;
	f->r.sys_s = 0.25;
	f->threads[0] = (struct thread_report){ nconns / 2, 40.0, 0 };
	f->threads[1] = (struct thread_report){ nconns - nconns / 2, 50.0, 0 };
	f->r.nthreads = 2;
	f->r.threads = f->threads;
	f->conns = calloc(nconns ? nconns : 1, sizeof(*f->conns));
	assert_non_null(f->conns);
	for (unsigned i = 0; i < nconns; i++)
		f->conns[i] = (struct conn_report){
			.id = i, .worker = i % 2, .ops = 700, .bytes = 700 * 4096,
			.p50_ns = 150000 + 1000 * (i % 7), .p99_ns = 400000 + 7000 * ((i * 37) % 23),
			.error = "",
		};
	if (nconns >= NCONNS) {
		f->conns[3].p99_ns = 5000000, f->conns[3].outlier = true;
		f->conns[11].p99_ns = 3000000, f->conns[11].outlier = true;
		f->conns[7].ops = 0, f->conns[7].p99_ns = 0, f->conns[7].error = ERR;
		f->conns[7].errors = 1;
	}
	f->r.nconns = nconns;
	f->r.conns = f->conns;
	if (nivals)
		series_fill(&f->r, nivals, true);
	f->r.steady = (struct steady_state){ .valid = true, .intervals = nivals, .cov_pct = 4.2,
					     .drift_pct = 1.5, .steady = true, .verdict = "steady" };
}

static void fixture_destroy(struct fixture *f)
{
	op_stats_destroy_all(f->r.ops);
	op_stats_destroy(&f->r.layout);
	setup_times_destroy(&f->r.setup);
	if (f->r.series)
		fclose(f->r.series);
	free(f->conns);
}

/* Renders into a malloc'd string; with HTML_OUT set, also into HTML_OUT/name. */
static char *render(const struct report *r, const char *name)
{
	char *buf = NULL, path[4096];
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	const char *dir = getenv("HTML_OUT");

	assert_non_null(out);
	report_html(out, r);
	assert_int_equal(fclose(out), 0);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), len);
	if (dir && *dir) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		out = fopen(path, "w");
		assert_non_null(out);
		fputs(buf, out);
		fclose(out);
	}
	return buf;
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The text of <section id="id">...</section>, malloc'd; fails when absent. */
static char *section(const char *html, const char *id)
{
	char open[64];
	const char *p, *e;

	snprintf(open, sizeof(open), "<section id=\"%s\">", id);
	p = strstr(html, open);
	if (!p)
		fail_msg("no section %s", id);
	e = strstr(p, "</section>");
	assert_non_null(e);
	return strndup(p, (size_t)(e - p));
}

/* s with & < > " ' as the page writes them, malloc'd. */
static char *esc_dup(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
	}
	assert_int_equal(fclose(out), 0);
	return buf;
}

/* The text of the <table> with the id, malloc'd; fails when absent. */
static char *table_of(const char *html, const char *id)
{
	char open[64];
	const char *p, *e;

	snprintf(open, sizeof(open), " id=\"%s\">", id);
	p = strstr(html, open);
	if (!p)
		fail_msg("no table %s", id);
	e = strstr(p, "</table>");
	assert_non_null(e);
	return strndup(p, (size_t)(e - p));
}

/*
 * The settings table is report_settings() walked: every row worth showing
 * (shown, with a label), in order, label and value in words, escaped; no
 * other row. Returns the number of problems.
 */
static int check_settings(const char *html, const struct report *r)
{
	struct setting set[REPORT_SETTINGS_MAX];
	unsigned n = report_settings(r, set), rows = 0;
	char *t = table_of(html, "settings"), v[CFG_URL_MAX];
	const char *at = t;
	int bad = 0;

	for (unsigned i = 0; i < n; i++) {
		char *k, *val, *row = NULL;
		const char *p;

		if (!set[i].shown || !set[i].label)
			continue;
		rows++;
		k = esc_dup(set[i].label);
		val = esc_dup(report_setting_text(&set[i], v, sizeof(v)));
		assert_true(asprintf(&row, "<tr><th>%s</th><td>%s</td></tr>", k, val) > 0);
		p = strstr(at, row);
		if (!p) {
			print_error("settings: no row %s (in order) in\n%s\n", row, t);
			bad++;
		} else {
			at = p + strlen(row);
		}
		free(k);
		free(val);
		free(row);
	}
	if (count(t, "<tr>") != rows) {
		print_error("settings: %u rows, %u shown settings\n", count(t, "<tr>"), rows);
		bad++;
	}
	free(t);
	return bad;
}

/* Points over every polyline of the text ("x,y " pairs). */
static unsigned polyline_points(const char *s)
{
	unsigned n = 0;

	for (const char *p = s; (p = strstr(p, " points=\"")); p++)
		for (p += 9; *p && *p != '"'; p++)
			n += *p == ',';
	return n;
}

/*
 * Nothing unescaped: every '<' opens a tag (or the doctype) and every '&'
 * starts one of the entities the page writes. Returns the number of problems.
 */
static int check_escaped(const char *html)
{
	static const char *const entities[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;",
						"&middot;" };
	int bad = 0;

	for (const char *p = html; *p; p++) {
		bool ok = true;

		if (*p == '<') {
			ok = isalpha((unsigned char)p[1]) || p[1] == '/' || p[1] == '!';
		} else if (*p == '&') {
			ok = false;
			for (size_t i = 0; i < N(entities); i++)
				ok = ok || !strncmp(p, entities[i], strlen(entities[i]));
		}
		if (!ok && bad++ < 5)
			print_error("unescaped '%c' at ...%.40s\n", *p, p > html + 20 ? p - 20 : html);
	}
	return bad;
}

/* Checks every page must pass; returns the number of problems. */
static int check_structure(const char *html)
{
	static const char *const pairs[][2] = {
		{ "<svg", "</svg>" }, { "<section", "</section>" }, { "<table", "</table>" },
		{ "<g ", "</g>" }, { "<tr", "</tr>" }, { "<title", "</title>" },
		{ "<html", "</html>" }, { "<body", "</body>" }, { "<style", "</style>" },
	};
	static const char *const sections[] = {
		"<section id=\"summary\">", "<section id=\"throughput\">",
		"<section id=\"latency\">", "<section id=\"spectrum\">",
		"<section id=\"connections\">",
	};
	static const char *const tables[] = {
		"<table class=\"totals\" id=\"totals\">", "<table class=\"kv\" id=\"settings\">",
		"<table class=\"kv\" id=\"run\">",
	};
	static const char *const banned[] = {
		"<script", "javascript:", "src=", "href=", "url(", "@import", "<link", "<img",
		"<iframe", "onload", "onclick", "nan", "inf\"", "inf ",
	};
	char *copy = strdup(html), *p;
	const char *prev = html;
	int bad = 0;

	for (size_t i = 0; i < N(pairs); i++) {
		if (count(html, pairs[i][0]) != count(html, pairs[i][1])) {
			print_error("%u %s but %u %s\n", count(html, pairs[i][0]), pairs[i][0],
				    count(html, pairs[i][1]), pairs[i][1]);
			bad++;
		}
	}
	for (size_t i = 0; i < N(sections); i++) {
		const char *s = strstr(html, sections[i]);

		if (!s || s < prev) {
			print_error("%s missing or out of order\n", sections[i]);
			bad++;
		}
		prev = s ? s : prev;
	}
	for (size_t i = 0; i < N(tables); i++) {
		if (count(html, tables[i]) != 1) {
			print_error("%u times %s\n", count(html, tables[i]), tables[i]);
			bad++;
		}
	}
	bad += check_escaped(html);
	if (strncmp(html, "<!DOCTYPE html>", 15) != 0 || !strstr(html, "<h1>nfsload report</h1>")) {
		print_error("no doctype or title\n");
		bad++;
	}
	/* Network references: "http" only inside the escaped URL, which we blank out. */
	for (p = copy; (p = strstr(p, URL_ESC));)
		memset(p, 'x', strlen(URL_ESC));
	for (p = copy; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (strstr(copy, "http")) {
		print_error("\"http\" outside the URL: ...%.60s\n", strstr(copy, "http") - 20);
		bad++;
	}
	for (size_t i = 0; i < N(banned); i++) {
		if (strstr(copy, banned[i])) {
			print_error("found \"%s\"\n", banned[i]);
			bad++;
		}
	}
	free(copy);
	return bad;
}

static void test_sample(void **state)
{
	struct fixture f;
	char *html, *s;
	int bad;

	(void)state;
	fixture_init(&f, NCONNS, NIVALS, false);
	f.r.unanswered_at_stop = 1;
	html = render(&f.r, "sample.html");
	bad = check_structure(html);

#define WANT(cond, ...) do { if (!(cond)) { print_error(__VA_ARGS__); bad++; } } while (0)
	/* Escaped URL and error string; the raw ones nowhere. */
	WANT(strstr(html, URL_ESC), "escaped URL missing\n");
	WANT(!strstr(html, "ex<p>"), "raw URL in the page\n");
	WANT(strstr(html, ERR_ESC), "escaped error missing\n");
	WANT(!strstr(html, "<b>&denied"), "raw error in the page\n");
	WANT(strstr(html, "2023-11-14 22:13:20 UTC"), "start time missing\n");

	bad += check_settings(html, &f.r);
	s = table_of(html, "settings");
	WANT(strstr(s, "<tr><th>engine</th><td>libnfs</td></tr>"), "settings: engine\n");
	WANT(strstr(s, "<tr><th>URL</th><td>" URL_ESC "</td></tr>"), "settings: URL\n");
	WANT(strstr(s, "<tr><th>NFS version</th><td>4.0</td></tr>"), "settings: NFS version\n");
	WANT(strstr(s, "<th>connections</th><td>20</td>"), "settings: connections\n");
	WANT(strstr(s, "<th>rwmixread %</th><td>70</td>"), "settings: rwmixread\n");
	WANT(strstr(s, "<th>runtime</th><td>10.0 s</td>"), "settings: runtime\n");
	WANT(strstr(s, "<th>seed</th><td>1</td>"), "settings: seed\n");
	WANT(!strstr(s, "<th>rate"), "settings: rate in a closed-loop run\n");
	free(s);

	s = table_of(html, "run");
	WANT(strstr(s, "<tr><th>server</th><td>libnfs: " PORTS "</td></tr>"), "run: ports\n");
	WANT(strstr(s, "<tr><th>set-up</th><td>20 connections up in 6.68 ms</td></tr>\n"
		     "<tr><th class=\"sub\">MOUNT</th><td>p50 4.60 ms, p99 9.00 ms</td></tr>\n"
		     "<tr><th class=\"sub\">OPEN</th><td>p50 1.24 ms, p99 1.29 ms</td></tr>"),
	     "run: set-up and its steps\n%s\n", s ? s : "(no table)");
	WANT(strstr(s, "<tr><th>layout</th><td>256.00 MiB written in 400 ms (640.0 MiB/s), "
		     "1 error</td></tr>"), "run: layout\n%s\n", s ? s : "(no table)");
	WANT(strstr(s, "<tr><th>connections with I/O</th><td>19 of 20</td></tr>"),
	     "run: connections that did I/O\n");
	free(s);

	s = section(html, "summary");
	WANT(strstr(s, "<table class=\"kv\" id=\"settings\">") < strstr(s, "id=\"run\"") &&
	     strstr(s, "id=\"run\"") < strstr(s, "<h3>Client CPU</h3>"), "summary: order\n");
	WANT(strstr(s, "<th class=\"l\">read</th><td>10000</td><td>1000</td>"), "totals: read\n");
	WANT(strstr(s, "<th class=\"l\">write</th><td>3334</td>"), "totals: write\n");
	WANT(strstr(s, "<th>p99.99</th>"), "totals: p99.99 column\n");
	WANT(strstr(s, "Steady state over 10 intervals: steady"), "steady verdict\n");
	WANT(strstr(s, "1 of 20 connections failed"), "failed-connection warning\n");
	WANT(strstr(s, "1 request in flight at the stop got no reply"), "unanswered warning\n");
	WANT(!strstr(s, "Client-bound"), "client-bound warning in a healthy run\n");
	free(s);

	/* 2 charts x 2 op types x 10 intervals, dotted; 0 MiB/s is a real point. */
	s = section(html, "throughput");
	WANT(count(s, "<svg") == 2, "throughput: %u charts\n", count(s, "<svg"));
	WANT(count(s, "class=\"pt\"") == 40, "throughput: %u dots\n", count(s, "class=\"pt\""));
	WANT(polyline_points(s) == 40, "throughput: %u line points\n", polyline_points(s));
	WANT(strstr(s, ">read</text>") && strstr(s, ">write</text>"), "throughput legend\n");
	free(s);

	/* 3 percentiles x (10 reads + 9 writes): the idle interval breaks the lines. */
	s = section(html, "latency");
	WANT(count(s, "<svg") == 1, "latency: %u charts\n", count(s, "<svg"));
	WANT(count(s, "class=\"pt\"") == 57, "latency: %u dots\n", count(s, "class=\"pt\""));
	WANT(count(s, "<polyline") == 9, "latency: %u polylines\n", count(s, "<polyline"));
	WANT(strstr(s, ">write p99.9</text>"), "latency legend\n");
	free(s);

	s = section(html, "spectrum");
	WANT(polyline_points(s) == 200, "spectrum: %u points\n", polyline_points(s));
	WANT(strstr(s, ">0%</text>") && strstr(s, ">90%</text>") && strstr(s, ">99.9%</text>") &&
	     strstr(s, ">99.999%</text>"), "spectrum: percentile ticks\n");
	WANT(strstr(s, " ms</text>") && strstr(s, " us</text>"), "spectrum: latency ticks\n");
	free(s);

	s = section(html, "connections");
	WANT(count(s, "class=\"bar ") == 20, "connections: %u bars\n", count(s, "class=\"bar "));
	WANT(count(s, "class=\"bar out\"") == 2, "connections: %u outliers\n",
	     count(s, "class=\"bar out\""));
	WANT(count(s, "class=\"bar bad\"") == 1, "connections: %u failed\n",
	     count(s, "class=\"bar bad\""));
	/* Sorted descending: the slowest two first, labelled. */
	WANT(strstr(s, ">#3</text>") && strstr(s, ">#11</text>"), "connections: labels\n");
	WANT(strstr(s, "class=\"bar out\"") < strstr(s, "class=\"bar ok\""), "not sorted\n");
	free(s);
#undef WANT
	if (bad)
		print_error("%d problems\n", bad);
	free(html);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/* Outages and --verify get their own sections, only when there is something to show. */
static void test_outages_verify(void **state)
{
	struct fixture f;
	char *html, *s;
	int bad;

	(void)state;
	fixture_init(&f, NCONNS, NIVALS, false);
	html = render(&f.r, "plain.html");
	bad = !!strstr(html, "id=\"outages\"") + !!strstr(html, "id=\"verify\"");
	free(html);

	f.conns[4].noutages = 1;
	f.conns[4].reconnects = 1;
	f.conns[4].outages[0] = (struct conn_outage){ .start_ns = 2000000000,
		.detected_ns = 2100000000, .stall_ns = 3000000000u, .reconnect_ns = 2500000000u,
		.failed_ops = 4, .attempts = 6, .recovered = true };
	f.cfg.verify = true;
	f.r.verify.blocks = 2048;
	f.r.verify.bad = 1;
	f.r.verify.nkept = 1;
	f.r.verify.kept[0] = (struct verify_mismatch){ .kind = VERIFY_MAGIC, .file = 2,
		.offset = 8192, .block = 4096, .first_diff = 0 };
	html = render(&f.r, "faults.html");
	bad += check_structure(html);
#define WANT(cond, ...) do { if (!(cond)) { print_error(__VA_ARGS__); bad++; } } while (0)
	s = section(html, "outages");
	WANT(strstr(s, "1 on 1 connection, 1 recovered; 4 operations failed"), "outage summary\n");
	WANT(strstr(s, "<tr><td>4</td><td>2.00 s</td><td>2.10 s</td>"), "outage row\n");
	WANT(strstr(s, "<td>6</td><td>4</td></tr>"), "outage attempts and failed ops\n");
	free(s);
	s = section(html, "verify");
	WANT(strstr(s, "2048 blocks checked, <b>1 bad</b>"), "verify counts\n");
	WANT(strstr(s, "<li>file 2 offset 8192 (block 2)"), "verify mismatch line\n");
	free(s);
	s = section(html, "connections");
	WANT(strstr(s, "<h3>Connections that need a look</h3>"), "the reconnected connection listed\n");
	free(s);
#undef WANT
	if (bad)
		print_error("%d problems\n", bad);
	free(html);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/*
 * The run block as the null engine leaves it (no server, no set-up steps, no
 * layout), then with markup in every string it shows: escaped.
 */
static void test_run_block(void **state)
{
	static const char *const no_steps[] = { NULL }, *const odd_steps[] = { "MO<UNT>", NULL };
	struct fixture f;
	char *html, *s;
	int bad = 0;

	(void)state;
	fixture_init(&f, 4, 2, false);
	f.cfg.url[0] = '\0';
	f.r.engine = "null";
	f.r.ports = "";
	f.r.setup.names = no_steps;
	f.r.layout_ran = false;
	f.conns[2].ops = 0;
	html = render(&f.r, "null.html");
	bad += check_structure(html) + check_settings(html, &f.r);
#define WANT(cond, ...) do { if (!(cond)) { print_error(__VA_ARGS__); bad++; } } while (0)
	WANT(strstr(html, "<div class=\"url\">engine null (no server)</div>"), "header: engine\n");
	s = table_of(html, "settings");
	WANT(strstr(s, "<tr><th>engine</th><td>null</td></tr>"), "settings: engine\n");
	WANT(!strstr(s, "<th>URL</th>") && !strstr(s, "<th>NFS version</th>"), "settings: URL\n");
	free(s);
	s = table_of(html, "run");
	WANT(strstr(s, "<tr><th>server</th><td>none (engine null)</td></tr>"), "run: server\n");
	WANT(strstr(s, "<tr><th>set-up</th><td>4 connections up in 6.68 ms</td></tr>\n<tr><th>"
		     "layout</th><td>not needed (files already at size) or skipped</td></tr>"),
	     "run: no steps, no layout\n%s\n", s ? s : "(no table)");
	WANT(strstr(s, "<tr><th>connections with I/O</th><td>3 of 4</td></tr>"), "run: I/O\n");
	free(s);
	free(html);

	snprintf(f.cfg.url, sizeof(f.cfg.url), "%s", URL);
	f.r.engine = "lib<nfs>";
	f.r.ports = "NFS port <2049> & \"MOUNT\" 'x'";
	f.r.setup.names = odd_steps;
	html = render(&f.r, "odd.html");
	bad += check_structure(html) + check_settings(html, &f.r);
	s = table_of(html, "run");
	WANT(strstr(s, "<tr><th>server</th><td>lib&lt;nfs&gt;: NFS port &lt;2049&gt; &amp; "
		     "&quot;MOUNT&quot; &#39;x&#39;</td></tr>"), "run: ports escaped\n%s\n",
	     s ? s : "(no table)");
	WANT(strstr(s, "<th class=\"sub\">MO&lt;UNT&gt;</th><td>p50 4.60 ms, p99 9.00 ms</td>"),
	     "run: step name escaped\n");
	free(s);
	WANT(strstr(html, "<tr><th>engine</th><td>lib&lt;nfs&gt;</td></tr>"), "settings: engine\n");
	WANT(!strstr(html, "lib<nfs>") && !strstr(html, "<2049>") && !strstr(html, "MO<UNT"),
	     "raw markup in the page\n");
#undef WANT
	free(html);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/* Nothing at all: no intervals, operations, connections or threads. */
static void test_empty(void **state)
{
	struct fixture f;
	char *html;
	int bad;

	(void)state;
	fixture_init(&f, 0, 0, false);
	op_stats_reset_all(f.r.ops);
	f.r.nthreads = 0;
	f.r.duration_ns = 0;
	f.r.interrupted = true;
	f.r.steady.valid = false;
	html = render(&f.r, "empty.html");
	bad = check_structure(html);
	if (count(html, "<svg") != 0 || count(html, "<polyline") != 0 ||
	    count(html, "No interval data") != 3 || !strstr(html, "No operation completed") ||
	    !strstr(html, "No connection data") || !strstr(html, "interrupted") ||
	    strstr(html, "at the stop got no reply")) {
		print_error("empty page:\n%s\n", html);
		bad++;
	}
	free(html);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/*
 * Reads only, an open-loop run that fell behind (the spectrum adds the
 * latency from the issue, dashed), a client-bound thread.
 */
static void test_reads_only(void **state)
{
	struct fixture f;
	char *html, *s;
	int bad;

	(void)state;
	fixture_init(&f, NCONNS, 0, true);
	op_stats_reset(&f.r.ops[OP_WRITE]);
	series_fill(&f.r, 1, false);
	f.cfg.rate = f.r.rate = 5000, f.r.achieved_rate = 4200, f.r.backlog_ops = 800;
	f.threads[1].busy_pct = 97;
	html = render(&f.r, "reads.html");
	bad = check_structure(html);
	/* the op, not the "writes" setting */
	if (strstr(html, ">write<") || strstr(html, ">write ") || !strstr(html, "Client-bound") ||
	    !strstr(html, "<th>rate (ops/s)</th><td>5000</td>") || check_settings(html, &f.r) ||
	    !strstr(html, "5000 ops/s requested, 4200 achieved; backlog at the end 800 operations")) {
		print_error("reads-only page lacks or has something\n");
		bad++;
	}
	/* One interval: a single dot per line, still visible. */
	s = section(html, "throughput");
	if (count(s, "class=\"pt\"") != 2) {
		print_error("one interval: %u dots\n", count(s, "class=\"pt\""));
		bad++;
	}
	free(s);
	s = section(html, "spectrum");
	if (polyline_points(s) != 200 || !strstr(s, ">read, from issue</text>")) {
		print_error("open-loop spectrum: %u points\n", polyline_points(s));
		bad++;
	}
	free(s);
	free(html);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/*
 * Wire time (--wire-time) on the reads: the spectrum adds their wire and
 * client curves, labelled and dashed apart, the totals a row for each; the
 * replies left out are said. The writes, without, get neither.
 */
static void test_wire(void **state)
{
	struct fixture f;
	char *html, *s;
	int bad;

	(void)state;
	fixture_init(&f, NCONNS, NIVALS, false);
	for (uint64_t i = 0; i < 9000; i++)	/* 9000 of the 10000 reads: 60..159 us of 100..199 */
		op_stats_wire(&f.r.ops[OP_READ], 60000 + (i % 100) * 1000, 100000 + (i % 100) * 1000);
	for (int i = 0; i < 1000; i++)
		op_stats_wire(&f.r.ops[OP_READ], 0, 150000);
	html = render(&f.r, "wire.html");
	bad = check_structure(html);
#define WANT(cond, ...) do { if (!(cond)) { print_error(__VA_ARGS__); bad++; } } while (0)
	s = section(html, "spectrum");
	WANT(polyline_points(s) == 400, "spectrum: %u points, want 4 lines\n", polyline_points(s));
	WANT(strstr(s, ">read wire</text>") && strstr(s, ">read client</text>"),
	     "spectrum: wire and client labels\n");
	WANT(!strstr(s, ">write wire</text>"), "spectrum: a wire curve for the writes\n");
	WANT(count(s, "stroke-dasharray=\"2 3\"") == 2 && count(s, "stroke-dasharray=\"9 3 2 3\"") == 2,
	     "spectrum: wire dotted, client dash-dot (line and legend each)\n");
	WANT(strstr(s, "<p class=\"meta\">wire: from the request"), "spectrum: what wire means\n");
	free(s);
	s = table_of(html, "totals");
	WANT(strstr(s, "<tr><th class=\"l\">read</th><td>10000</td>"), "totals: read\n");
	WANT(strstr(s, "<tr><th class=\"l\">read wire</th><td>9000</td><td></td><td></td><td></td>"
		     "<td>60.0 us</td>"), "totals: read wire\n%s\n", s);
	WANT(strstr(s, "<tr><th class=\"l\">read client</th><td>9000</td><td></td><td></td>"
		     "<td></td><td>40.0 us</td>"), "totals: read client\n%s\n", s);
	WANT(strstr(s, "read wire") < strstr(s, "read client") &&
	     strstr(s, "read client") < strstr(s, ">write</th>"), "totals: order\n");
	WANT(!strstr(s, "write wire"), "totals: a wire row for the writes\n");
	free(s);
	WANT(strstr(html, "Wire time: 1000 of 13334 operations left out"), "summary: left out\n");
#undef WANT
	if (bad)
		print_error("%d problems\n", bad);
	free(html);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/* 1000 connections and a long series: bounded bars, points and size. */
/* Several servers: a bar per server, the outlier amber, a row each with its URL escaped. */
static void test_servers(void **state)
{
	struct server_report srv[2] = { { .url = "nfs://a/x?version=3&nfsport=1", .conns = 10 },
					{ .url = "nfs://b/x?version=3&nfsport=2", .conns = 10,
					  .outlier = true, .outages = 3 } };
	struct fixture f;
	char *html, *s;
	int bad;

	(void)state;
	fixture_init(&f, NCONNS, NIVALS, false);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(op_stats_init(&srv[k].st, HIST_PRECISE_BITS, false), 0);
		for (int i = 0; i < 1000; i++)
			op_stats_record(&srv[k].st, 4096, (k ? 5000000 : 100000) + (uint64_t)i * 10,
					0);
	}
	f.r.servers = srv;
	f.r.nservers = 2;
	html = render(&f.r, "servers.html");
	bad = check_structure(html);
	s = section(html, "servers");
	if (!s || count(s, "class=\"bar ok\"") != 1 || count(s, "class=\"bar out\"") != 1 ||
	    count(s, "class=\"bar mid\"") != 2 ||
	    !strstr(s, "<tr><td>1</td><td>10</td><td>1000</td><td>0</td>") ||
	    !strstr(s, "nfs://b/x?version=3&amp;nfsport=2") || !strstr(s, ">outlier</td>")) {
		print_error("servers section:\n%s\n", s ? s : "(none)");
		bad++;
	}
	free(s);
	f.r.servers = NULL;
	f.r.nservers = 0;
	free(html);
	html = render(&f.r, "no-servers.html");
	if (strstr(html, "id=\"servers\"")) {
		print_error("a servers section with one server\n");
		bad++;
	}
	free(html);
	for (int k = 0; k < 2; k++)
		op_stats_destroy(&srv[k].st);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/* A load curve: its section, the chart's lines (the refined point in rate order), the
 * table; none without a curve. */
static void test_curve(void **state)
{
	struct curve_spec rates = { 1000, 1000, 0, false };
	struct curve_target t = { 99.9, 2000000 };
	struct curve_point p[] = {
		{ .offered = 1000, .achieved = 1000, .p50_ns = 500000, .p99_ns = 900000,
		  .target_ns = 1000000 },
		{ .offered = 2000, .achieved = 1500, .p50_ns = 9000000, .p99_ns = 20000000,
		  .target_ns = 30000000 },
		{ .offered = 1500, .achieved = 1490, .p50_ns = 700000, .p99_ns = 1500000,
		  .target_ns = 1900000 },
	};
	struct curve *c = calloc(1, sizeof(*c));
	struct fixture f;
	char *html, *s;
	int bad;

	(void)state;
	assert_non_null(c);
	curve_init(c, &rates, &t);
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		assert_int_equal(curve_add(c, &p[i]), (int)i);
	fixture_init(&f, NCONNS, NIVALS, true);
	f.r.curve = c;
	html = render(&f.r, "curve.html");
	bad = check_structure(html) + check_escaped(html);
	s = section(html, "load-curve");
	/* p50, p99, p99.9 over 3 points each; the target's level over 2. */
	if (!s || count(s, "<svg") != 1 || polyline_points(s) != 3 * 3 + 2 ||
	    !strstr(s, "achieved IOPS") || !strstr(s, "target p99.9 2.00 ms") ||
	    !strstr(s, "Best: 1500 ops/s offered, 1490 achieved") ||
	    count(s, "<tr><td>") != 3 || !strstr(s, "met (refined), best") || !strstr(s, "achieved &lt; 90% of offered") ||
	    !strstr(s, "<td>1500</td><td>1490</td>")) {
		print_error("load-curve section (%u points):\n%s\n", s ? polyline_points(s) : 0,
			    s ? s : "(none)");
		bad++;
	}
	free(s);
	free(html);
	f.r.curve = NULL;
	html = render(&f.r, "no-curve.html");
	if (strstr(html, "id=\"load-curve\"")) {
		print_error("a load-curve section without a curve\n");
		bad++;
	}
	free(html);
	fixture_destroy(&f);
	free(c);
	assert_int_equal(bad, 0);
}

static void test_many(void **state)
{
	struct fixture f;
	char *html, *s;
	int bad;

	(void)state;
	fixture_init(&f, 1000, 5000, false);
	f.conns[500].stuck = true;
	f.conns[42].p99_ns = 9000000, f.conns[42].outlier = true;
	html = render(&f.r, "many.html");
	bad = check_structure(html);
	s = section(html, "connections");
	if (count(s, "class=\"bar ") != 200 || count(s, "class=\"bar bad\"") < 1 ||
	    count(s, "class=\"bar out\"") < 1 || !strstr(s, "5.0 per bar") ||
	    !strstr(s, ">#42</text>")) {
		print_error("1000 connections: %u bars, %u bad, %u outliers\n",
			    count(s, "class=\"bar "), count(s, "class=\"bar bad\""),
			    count(s, "class=\"bar out\""));
		bad++;
	}
	free(s);
	s = section(html, "throughput");
	if (polyline_points(s) > 4 * 600 || polyline_points(s) < 4 * 500 ||
	    count(s, "class=\"pt\"")) {
		print_error("5000 intervals: %u points, %u dots\n", polyline_points(s),
			    count(s, "class=\"pt\""));
		bad++;
	}
	/* 5000 s: the time axis in hours or minutes, not 1e+03 s */
	if (!strstr(s, " min</text>") || strstr(s, "e+")) {
		print_error("5000 intervals: time axis not in minutes\n");
		bad++;
	}
	free(s);
	if (strlen(html) > 400000) {
		print_error("page of %zu bytes\n", strlen(html));
		bad++;
	}
	free(html);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_reads_only),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_outages_verify),
		cmocka_unit_test(test_run_block),
		cmocka_unit_test(test_wire),
		cmocka_unit_test(test_servers),
		cmocka_unit_test(test_curve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
