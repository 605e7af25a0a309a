/*
 * analyze: nfsload --analyze LOG... reads --op-log files (plain or .zst) and
 * prints the report they make, as --merge does for JSON reports: the rows
 * are recorded into the histograms the run itself uses (hist.h, the same
 * buckets), so percentiles come out as the run's, and several logs (ranks,
 * hosts) add up. --from/--to (seconds since the measured window began, by
 * each operation's start), --conn and --op keep a part of them.
 *
 * The report model is filled from the rows and handed to the report's own
 * renderings (text, JSON, HTML) with its source named, so they leave out
 * what a log does not hold: the settings, the layout, the client's CPU.
 * The window is --from to --to, or to the last operation's start (the run's
 * stop, near enough): rates are over it. Connections are keyed by log and
 * number. The interval series counts each operation where it completed (the
 * ones completed after the window's end in its last interval), in intervals of
 * 1 s, doubled as often as needed to keep at most SERIES_MAX of them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "exit_status.h"
#include "fail.h"
#include "oplog_file.h"
#include "report.h"
#include "series.h"
#include "stats.h"
#include "units.h"

#define SERIES_MAX 600
#define NS_S UINT64_C(1000000000)
#define LIST_MAX 64

struct args {
	const char **files;
	unsigned nfiles;
	uint64_t from_ns, to_ns;	/* to_ns UINT64_MAX: the end */
	unsigned conns[LIST_MAX], nconns;
	bool op[OP_NTYPES], any_op;
	enum { OUT_TEXT, OUT_JSON, OUT_HTML } fmt;
	const char *output;
};

/* One connection of one log. */
struct aconn {
	unsigned input, conn, thread;
	unsigned thread_base;		/* the threads of the logs before its own */
	struct op_stats st;
	uint64_t last_done_ns;
};

struct analysis {
	struct op_stats ops[OP_NTYPES];
	struct aconn *conns;
	unsigned nconns, cap;
	unsigned *index;		/* of the current input: conn number -> conns[] + 1 */
	unsigned nindex;
	unsigned threads;		/* over all inputs (each input's highest + 1) */
	unsigned input_threads;
	uint64_t last_start_ns;		/* the latest start of any row, wanted or not */
	uint64_t end_ns;		/* the window's length: last_start_ns or --to, less --from */
	struct op_stats (*iv)[OP_NTYPES];	/* the series: SERIES_MAX intervals */
	uint64_t iv_ns;
	uint64_t rows;
};

bool analyze_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--analyze"))
			return true;
	return false;
}

static int op_of(const char *s, size_t n)
{
	for (int t = 0; t < OP_NTYPES; t++)
		if (strlen(op_name((enum op_type)t)) == n && !strncmp(op_name((enum op_type)t), s, n))
			return t;
	return -1;
}

/* "read,write" into a->op. 0 or -EINVAL. */
static int parse_ops(struct args *a, const char *v, char *err, size_t len)
{
	for (const char *p = v;; p++) {
		size_t n = strcspn(p, ",");
		int t = op_of(p, n);

		if (t < 0) {
			char names[600];
			size_t k = 0;

			for (int u = 0; u < OP_NTYPES && k < sizeof(names); u++)	/* the op table's */
				k += (size_t)snprintf(names + k, sizeof(names) - k, "%s%s", u ? ", " : "",
						      op_name((enum op_type)u));
			return config_fail(err, len, "--op: '%s' is not an operation (%s; several "
				    "joined by ',')", v, names);
		}
		a->op[t] = a->any_op = true;
		p += n;
		if (!*p)
			return 0;
	}
}

/* "3" or "0,5,7" into a->conns. 0 or -EINVAL. */
static int parse_conns(struct args *a, const char *v, char *err, size_t len)
{
	for (const char *p = v;; p++) {
		size_t n = strcspn(p, ",");
		char one[24];
		uint64_t c;

		snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) ? n : sizeof(one) - 1), p);
		if (n >= sizeof(one) || units_parse_uint(one, 0, UINT32_MAX, &c) ||
		    a->nconns == LIST_MAX)
			return config_fail(err, len, "--conn: '%s' is not a connection number (0, 1, ...; up "
				    "to %u joined by ',')", v, LIST_MAX);
		a->conns[a->nconns++] = (unsigned)c;
		p += n;
		if (!*p)
			return 0;
	}
}

static int parse_time(const char *opt, const char *v, uint64_t *ns, char *err, size_t len)
{
	if (units_parse_duration(v, ns))
		return config_fail(err, len, "%s: '%s' is not a time since the start (seconds: 5, 2.5; or "
			    "500ms, 1m)", opt, v);
	return 0;
}

static int parse(int argc, char **argv, struct args *a, char *err, size_t len)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v;
		int rc = 0;

		if (!strcmp(o, "--analyze"))
			continue;
		if (o[0] != '-' || !o[1]) {
			a->files[a->nfiles++] = o;
			continue;
		}
		if (strcmp(o, "--from") && strcmp(o, "--to") && strcmp(o, "--conn") &&
		    strcmp(o, "--op") && strcmp(o, "--output-format") && strcmp(o, "--output"))
			return config_fail(err, len, "--analyze takes op logs and --from S, --to S, --conn N, "
				    "--op NAME, --output-format text|json|html, --output FILE; not '%s'",
				    o);
		if (!(v = i + 1 < argc ? argv[++i] : NULL))
			return config_fail(err, len, "%s: needs a value", o);
		if (!strcmp(o, "--from"))
			rc = parse_time(o, v, &a->from_ns, err, len);
		else if (!strcmp(o, "--to"))
			rc = parse_time(o, v, &a->to_ns, err, len);
		else if (!strcmp(o, "--conn"))
			rc = parse_conns(a, v, err, len);
		else if (!strcmp(o, "--op"))
			rc = parse_ops(a, v, err, len);
		else if (!strcmp(o, "--output"))
			a->output = v;
		else if (!strcmp(v, "text") || !strcmp(v, "json") || !strcmp(v, "html"))
			a->fmt = v[0] == 't' ? OUT_TEXT : v[0] == 'j' ? OUT_JSON : OUT_HTML;
		else
			rc = config_fail(err, len, "--output-format: '%s' with --analyze: text, json or html",
				  v);
		if (rc)
			return rc;
	}
	if (a->nfiles == 0)
		return config_fail(err, len, "--analyze: no op log given (nfsload --analyze run.csv.zst)");
	if (a->to_ns <= a->from_ns)
		return config_fail(err, len, "--to: must be later than --from (seconds since the start)");
	return 0;
}

static bool wanted(const struct args *a, const struct oplog_row *r)
{
	bool conn = a->nconns == 0;

	if (r->start_ns < a->from_ns || r->start_ns >= a->to_ns || (a->any_op && !a->op[r->op]))
		return false;
	for (unsigned i = 0; i < a->nconns && !conn; i++)
		conn = a->conns[i] == r->conn;
	return conn;
}

/* The row's connection (of input), made on first sight. NULL: no memory. */
static struct aconn *conn_of(struct analysis *an, unsigned input, const struct oplog_row *r)
{
	struct aconn *c;

	if (r->conn >= an->nindex) {
		unsigned n = r->conn + 1 > 2 * an->nindex ? r->conn + 1 : 2 * an->nindex;
		unsigned *x = realloc(an->index, n * sizeof(*x));

		if (!x)
			return NULL;
		memset(x + an->nindex, 0, (n - an->nindex) * sizeof(*x));
		an->index = x;
		an->nindex = n;
	}
	if (an->index[r->conn])
		return &an->conns[an->index[r->conn] - 1];
	if (an->nconns == an->cap) {
		unsigned n = an->cap ? 2 * an->cap : 64;
		struct aconn *x = realloc(an->conns, n * sizeof(*x));

		if (!x)
			return NULL;
		an->conns = x;
		an->cap = n;
	}
	c = &an->conns[an->nconns];
	memset(c, 0, sizeof(*c));
	c->input = input;
	c->conn = r->conn;
	c->thread = r->thread;
	c->thread_base = an->threads;
	if (op_stats_init(&c->st, HIST_COARSE_BITS, false))
		return NULL;
	an->index[r->conn] = ++an->nconns;
	return c;
}

/* One row into s (its histograms made on first use). 0 or -ENOMEM. */
static int record(struct op_stats *s, const struct oplog_row *r)
{
	if (!s->lat.counts && op_stats_init(s, HIST_PRECISE_BITS, false))
		return -ENOMEM;
	op_stats_record(s, r->ok ? (int)r->len : -1, r->lat_ns, r->lat_ns);
	if (r->ok && r->has_wire)
		op_stats_wire(s, r->wire_ns, r->lat_ns);
	return 0;
}

/* The series' interval i, its length doubled (pairs added) until i fits. 0 or -ENOMEM. */
static int interval_of(struct analysis *an, uint64_t done_ns, struct op_stats **out)
{
	uint64_t i;

	while ((i = done_ns / an->iv_ns) >= SERIES_MAX) {
		for (unsigned k = 0; k < SERIES_MAX; k++)
			for (int t = 0; t < OP_NTYPES; t++) {
				struct op_stats *dst = &an->iv[k / 2][t], *src = &an->iv[k][t];

				if (!src->lat.counts || dst == src)
					continue;
				if (!dst->lat.counts && op_stats_init(dst, HIST_PRECISE_BITS, false))
					return -ENOMEM;
				op_stats_add(dst, src);
				op_stats_destroy(src);
				memset(src, 0, sizeof(*src));
			}
		an->iv_ns *= 2;
	}
	*out = an->iv[i];
	return 0;
}

static int read_log(struct analysis *an, const struct args *a, unsigned input, char *err,
		    size_t len)
{
	const char *file = a->files[input];
	struct oplog_reader *rd;
	struct oplog_row r;
	uint64_t line = 0;
	int rc;

	if ((rc = oplog_reader_open(file, &rd)) < 0)
		return config_fail(err, len, "--analyze: cannot read '%s': %s", file, strerror(-rc));
	an->input_threads = 0;
	if (an->index)
		memset(an->index, 0, an->nindex * sizeof(*an->index));
	while ((rc = oplog_reader_next(rd, &r, &line)) == 1) {
		uint64_t done = r.start_ns + r.lat_ns;
		struct op_stats *iv;
		struct aconn *c;

		if (r.thread >= an->input_threads)
			an->input_threads = r.thread + 1;
		if (r.start_ns > an->last_start_ns)
			an->last_start_ns = r.start_ns;
		if (!wanted(a, &r))
			continue;
		done -= a->from_ns;
		an->rows++;
		if (!(c = conn_of(an, input, &r)) || record(&an->ops[r.op], &r) ||
		    interval_of(an, done, &iv) || record(&iv[r.op], &r)) {
			rc = -ENOMEM;
			break;
		}
		op_stats_record(&c->st, r.ok ? (int)r.len : -1, r.lat_ns, r.lat_ns);
		if (r.ok && done > c->last_done_ns)
			c->last_done_ns = done;
	}
	oplog_reader_free(rd);
	an->threads += an->input_threads;
	if (rc == -EINVAL)
		return config_fail(err, len, "--analyze: %s: line %" PRIu64 " is not an op-log row (%s)",
			    file, line, "start_ns,thread,conn,file,op,offset,len,lat_ns,wire_ns,status");
	if (rc == -EIO)
		return config_fail(err, len, "--analyze: %s: cannot read it%s", file,
			    oplog_path_zst(file) ? " (not zstd, or cut short)" : "");
	return rc;
}

/* The series rows of the intervals up to the end, into s. 0 or -errno. */
static int series_of(struct analysis *an, struct series *s, bool wire, char *err, size_t len)
{
	bool used[OP_NTYPES];
	uint64_t n = an->end_ns ? (an->end_ns - 1) / an->iv_ns + 1 : 0;

	/* A last interval under half the length goes into the one before, as the run's
	 * own last row takes in the rest of its window; what completed after the end too. */
	if (n >= 2 && an->end_ns - (n - 1) * an->iv_ns < an->iv_ns / 2)
		n--;
	for (uint64_t i = n; n && i < SERIES_MAX; i++)
		for (int t = 0; t < OP_NTYPES; t++) {
			struct op_stats *dst = &an->iv[n - 1][t];

			if (!an->iv[i][t].lat.counts)
				continue;
			if (!dst->lat.counts && op_stats_init(dst, HIST_PRECISE_BITS, false))
				return -ENOMEM;
			op_stats_add(dst, &an->iv[i][t]);
		}

	for (int t = 0; t < OP_NTYPES; t++)
		used[t] = an->ops[t].ops || an->ops[t].errors;
	if (series_init(s, an->iv_ns, used, NULL, wire, "", err, len))
		return -EIO;
	series_begin(s, 0);
	for (uint64_t i = 0; i < n && i < SERIES_MAX; i++) {
		uint64_t end = i + 1 == n ? an->end_ns : (i + 1) * an->iv_ns;

		if (series_add(s, i * an->iv_ns, end, an->iv[i]))
			return config_fail(err, len, "--analyze: the interval series: %s", strerror(EIO));
	}
	return 0;
}

/* "a.csv, b.csv.zst" and the cuts, for the report's header. */
static void describe(const struct args *a, char *buf, size_t cap)
{
	size_t k = 0;
	char t[32];

	k += (size_t)snprintf(buf, cap, "op log%s ", a->nfiles > 1 ? "s" : "");
	for (unsigned i = 0; i < a->nfiles && k < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%s", i ? ", " : "", a->files[i]);
	if (a->from_ns && k < cap)
		k += (size_t)snprintf(buf + k, cap - k, "; from %s", units_format_duration(a->from_ns,
				      t, sizeof(t)));
	if (a->to_ns != UINT64_MAX && k < cap)
		k += (size_t)snprintf(buf + k, cap - k, "; to %s", units_format_duration(a->to_ns, t,
				      sizeof(t)));
	for (unsigned i = 0; i < a->nconns && k < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%u", i ? "," : "; connection ",
				      a->conns[i]);
	for (int op = 0, n = 0; op < OP_NTYPES && k < cap; op++)
		if (a->op[op])
			k += (size_t)snprintf(buf + k, cap - k, "%s%s", n++ ? "," : "; op ",
					      op_name((enum op_type)op));
}

/* The report model of the analysis, rendered. 0 or -errno. */
static int render(struct analysis *an, const struct args *a, FILE *out, char *err, size_t len)
{
	struct report *r = calloc(1, sizeof(*r));	/* large: on the heap */
	struct config *cfg = calloc(1, sizeof(*cfg));
	struct series s;
	char source[1024];
	bool wire = false;
	int rc = -ENOMEM;

	memset(&s, 0, sizeof(s));
	if (!r || !cfg)
		goto done;
	for (int t = 0; t < OP_NTYPES; t++)
		wire |= op_stats_has_wire(&an->ops[t]);
	cfg->interval_ns = an->iv_ns;
	cfg->connections = an->nconns;
	cfg->threads = an->threads;
	describe(a, source, sizeof(source));
	r->source = source;
	r->cfg = cfg;
	r->engine = "";
	r->ports = "";
	r->limits_note = "";
	r->duration_ns = an->end_ns;
	r->interval_ns = an->iv_ns;
	memcpy(r->ops, an->ops, sizeof(r->ops));	/* shared buckets: read only here */
	r->nconns = an->nconns;
	r->conns = calloc(an->nconns ? an->nconns : 1, sizeof(*r->conns));
	r->nthreads = an->threads;
	r->threads = calloc(an->threads ? an->threads : 1, sizeof(*r->threads));
	if (!r->conns || !r->threads)
		goto done;
	for (unsigned i = 0; i < an->nconns; i++) {
		const struct aconn *c = &an->conns[i];

		r->conns[i] = (struct conn_report){
			.id = c->conn, .ops = c->st.ops, .bytes = c->st.bytes,
			.errors = c->st.errors, .p50_ns = hist_percentile(&c->st.lat, 50),
			.p99_ns = hist_percentile(&c->st.lat, 99), .last_done_ns = c->last_done_ns,
			.done_issuing = true, .error = "",
			/* Threads numbered per log: several logs' threads one after the other. */
			.worker = c->thread_base + c->thread,
		};
		if (c->thread_base + c->thread < an->threads)
			r->threads[c->thread_base + c->thread].connections++;
	}
	if ((rc = series_of(an, &s, wire, err, len)) == 0) {
		r->series = s.rows;
		r->nseries = s.nrows;
		series_steady(&s, &r->steady);
		if (a->fmt == OUT_JSON)
			report_json(out, r);
		else if (a->fmt == OUT_HTML)
			report_html(out, r);
		else
			report_text(out, r);
	}
done:
	series_destroy(&s);
	if (r) {
		free(r->conns);
		free(r->threads);
	}
	free(r);
	free(cfg);
	return rc;
}

static int by_input_conn(const void *x, const void *y)
{
	const struct aconn *a = x, *b = y;

	if (a->input != b->input)
		return a->input < b->input ? -1 : 1;
	return a->conn < b->conn ? -1 : a->conn > b->conn;
}

static void analysis_destroy(struct analysis *an)
{
	op_stats_destroy_all(an->ops);
	for (unsigned i = 0; i < an->nconns; i++)
		op_stats_destroy(&an->conns[i].st);
	for (unsigned k = 0; an->iv && k < SERIES_MAX; k++)
		op_stats_destroy_all(an->iv[k]);
	free(an->iv);
	free(an->conns);
	free(an->index);
}

int analyze_main(int argc, char **argv)
{
	struct args a = { .files = calloc((size_t)argc, sizeof(*a.files)), .to_ns = UINT64_MAX };
	struct analysis an = { .iv = calloc(SERIES_MAX, sizeof(*an.iv)), .iv_ns = NS_S };
	char err[1200] = "--analyze: out of memory", *buf = NULL;
	size_t blen = 0;
	FILE *mem = NULL, *out = stdout;
	int rc = -ENOMEM;

	if (!a.files || !an.iv || (rc = parse(argc, argv, &a, err, sizeof(err))) < 0)
		goto done;
	for (unsigned i = 0; i < a.nfiles && rc == 0; i++)
		rc = read_log(&an, &a, i, err, sizeof(err));
	if (rc == 0) {
		uint64_t end = an.last_start_ns + 1 < a.to_ns ? an.last_start_ns + 1 : a.to_ns;

		an.end_ns = end > a.from_ns ? end - a.from_ns : 0;
		qsort(an.conns, an.nconns, sizeof(*an.conns), by_input_conn);
	}
	/* Into memory first: --output is written only once every log has been read. */
	if (rc == 0 && !(mem = open_memstream(&buf, &blen)))
		rc = -ENOMEM;
	if (rc == 0)
		rc = render(&an, &a, mem, err, sizeof(err));
	if (mem)
		fclose(mem);
	if (rc == 0 && a.output && !(out = fopen(a.output, "w")))
		rc = config_fail(err, sizeof(err), "--output: cannot write '%s': %s", a.output,
			  strerror(errno));
	if (rc == 0 && (fwrite(buf, 1, blen, out) != blen || fflush(out)))
		rc = config_fail(err, sizeof(err), "writing the report failed: %s", strerror(errno));
	if (out != stdout)
		fclose(out);
done:
	if (rc == -ENOMEM)
		snprintf(err, sizeof(err), "--analyze: out of memory");
	if (rc < 0)
		fprintf(stderr, "nfsload: %s\n", err);
	free(buf);
	free(a.files);
	analysis_destroy(&an);
	return rc < 0 ? EXIT_USAGE : 0;
}
