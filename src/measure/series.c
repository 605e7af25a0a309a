/*
 * series: interval rows to a temporary file, CSV and the HdrHistogram log,
 * and the steady-state verdict. See include/series.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "series.h"

/* The wire columns (--wire-time) come last: a reader's column numbers stay. */
void report_csv_header(FILE *out, bool wire)
{
	fputs("start_s,length_s,op,ops,iops,mib_s,errors,p50_ns,p99_ns,p99.9_ns,max_ns", out);
	fputs(wire ? ",wire_p50_ns,wire_p99_ns\n" : "\n", out);
}

const char *report_row_name(const struct interval_row *row, char *buf, size_t len)
{
	if (row->op < OP_NTYPES)
		return op_name((int)row->op);
	snprintf(buf, len, "server%u", (unsigned)(row->op - OP_NTYPES));
	return buf;
}

void report_csv_row(FILE *out, const struct interval_row *row, bool wire)
{
	double secs = (double)row->len_ns / 1e9;
	char name[32];

	fprintf(out, "%.3f,%.3f,%s,%" PRIu64 ",%.1f,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
		PRIu64 ",%" PRIu64, (double)row->start_ns / 1e9, secs,
		report_row_name(row, name, sizeof(name)), row->ops,
		secs > 0 ? (double)row->ops / secs : 0.,
		secs > 0 ? (double)row->bytes / secs / 1048576.0 : 0., row->errors, row->p50_ns,
		row->p99_ns, row->p999_ns, row->max_ns);
	if (wire)
		fprintf(out, ",%" PRIu64 ",%" PRIu64, row->wire_p50_ns, row->wire_p99_ns);
	fputc('\n', out);
}


int series_init(struct series *s, uint64_t interval_ns, const bool used[OP_NTYPES], FILE *csv,
		bool wire, const char *hdr_path, char *err, size_t len)
{
	struct timespec ts;
	int rc;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_REALTIME, &ts);
	s->log_start_ns = now_ns();
	s->interval_ns = interval_ns;
	memcpy(s->used, used, sizeof(s->used));
	s->csv = csv;
	s->rows = tmpfile();
	if (!s->rows) {
		snprintf(err, len, "cannot create a temporary file for the interval series: %s",
			 strerror(errno));
		return -errno;
	}
	if (hdr_path[0]) {
		rc = hdrlog_open(hdr_path, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, &s->hdr);
		if (rc) {
			snprintf(err, len, "--hdr-log: cannot write '%s': %s", hdr_path, strerror(-rc));
			return rc;
		}
	}
	s->wire = wire;
	if (csv)
		report_csv_header(csv, wire);
	return 0;
}

int series_keep_buckets(struct series *s)
{
	if (!s->buckets && !(s->buckets = tmpfile()))
		return -errno;
	return 0;
}

/* A histogram's non-empty buckets to the buckets file: where they start, how many. 0 or -EIO. */
static int add_buckets(struct series *s, const struct hist *h, uint64_t *at, uint64_t *n)
{
	*at = s->nbuckets;
	for (int i = 0; i < h->nbuckets && h->count; i++) {
		struct series_bucket b = { .count = h->counts[i] };

		if (!b.count)
			continue;
		hist_bucket_range(h, i, &b.lo, &b.hi);
		if (fwrite(&b, sizeof(b), 1, s->buckets) != 1)
			return -EIO;
		(*n)++;
		s->nbuckets++;
	}
	return 0;
}

/* The wire time of an interval's op, when it has some: its figures and buckets. 0 or -EIO. */
static int add_wire(struct series *s, struct interval_row *row, const struct op_stats *st)
{
	const struct hist *w = &st->wire;

	if (!w->counts || !w->count)
		return 0;
	row->wire_p50_ns = hist_percentile(w, 50);
	row->wire_p99_ns = hist_percentile(w, 99);
	row->wire_min_ns = w->min;
	row->wire_max_ns = w->max;
	return s->buckets ? add_buckets(s, w, &row->wire_buckets_at, &row->wire_nbuckets) : 0;
}

/*
 * The op's histograms as log lines: its latency, and when it has wire time
 * the wire and client histograms tagged <op>-wire and <op>-client. 0 or -errno.
 */
static int log_op(struct series *s, int t, uint64_t start_ns, uint64_t len_ns,
		  const struct op_stats *st)
{
	char tag[32];
	int rc;

	if ((rc = hdrlog_write(s->hdr, op_name(t), start_ns, len_ns, &st->lat)) ||
	    !st->wire.counts || !st->wire.count)
		return rc;
	snprintf(tag, sizeof(tag), "%s-wire", op_name(t));
	if ((rc = hdrlog_write(s->hdr, tag, start_ns, len_ns, &st->wire)))
		return rc;
	snprintf(tag, sizeof(tag), "%s-client", op_name(t));
	return hdrlog_write(s->hdr, tag, start_ns, len_ns, &st->client);
}

void series_begin(struct series *s, uint64_t measure_start_ns)
{
	s->measure_start_ns = measure_start_ns;
}

/* A row's percentiles from h; the rest as the caller sets it. */
static void row_lat(struct interval_row *row, const struct hist *h)
{
	row->p50_ns = hist_percentile(h, 50);
	row->p99_ns = hist_percentile(h, 99);
	row->p999_ns = hist_percentile(h, 99.9);
	row->max_ns = h->count ? h->max : 0;
	row->min_ns = h->count ? h->min : 0;
}

int series_add(struct series *s, uint64_t start_ns, uint64_t end_ns,
	       const struct op_stats ival[OP_NTYPES])
{
	for (int t = 0; t < OP_NTYPES; t++) {
		const struct hist *h = &ival[t].lat;
		struct interval_row row;

		if (!s->used[t])
			continue;
		/* Field by field on zeroes: the padding after .op goes to the file too. */
		memset(&row, 0, sizeof(row));
		row.start_ns = start_ns - s->measure_start_ns;
		row.len_ns = end_ns - start_ns;
		row.op = (uint32_t)t;
		row.ops = ival[t].ops;
		row.bytes = ival[t].bytes;
		row.errors = ival[t].errors;
		row_lat(&row, h);
		if ((s->buckets && add_buckets(s, h, &row.buckets_at, &row.nbuckets)) ||
		    add_wire(s, &row, &ival[t]))
			return -EIO;
		if (fwrite(&row, sizeof(row), 1, s->rows) != 1)
			return -EIO;
		s->nrows++;
		if (s->csv)
			report_csv_row(s->csv, &row, s->wire);
		if (s->hdr && log_op(s, t, start_ns - s->log_start_ns, row.len_ns, &ival[t]))
			return -EIO;
	}
	return 0;
}

int series_add_servers(struct series *s, uint64_t start_ns, uint64_t end_ns,
		       const struct op_stats *srv, unsigned n)
{
	if (!n)
		return 0;
	if (!s->srv_rows && !(s->srv_rows = tmpfile()))
		return -EIO;
	for (unsigned k = 0; k < n; k++) {
		struct interval_row row;
		char tag[32];

		memset(&row, 0, sizeof(row));
		row.start_ns = start_ns - s->measure_start_ns;
		row.len_ns = end_ns - start_ns;
		row.op = OP_NTYPES + k;	/* a server's row: every op type */
		row.ops = srv[k].ops;
		row.bytes = srv[k].bytes;
		row.errors = srv[k].errors;
		row_lat(&row, &srv[k].lat);
		if (fwrite(&row, sizeof(row), 1, s->srv_rows) != 1)
			return -EIO;
		s->nsrv_rows++;
		if (s->csv)
			report_csv_row(s->csv, &row, s->wire);
		snprintf(tag, sizeof(tag), "server%u", k);
		if (s->hdr && hdrlog_write(s->hdr, tag, start_ns - s->log_start_ns, row.len_ns,
					   &srv[k].lat))
			return -EIO;
	}
	return 0;
}

/* The verdict's place in the rows: the next row, and the start of the interval before it. */
struct steady_cursor {
	uint64_t i;
	bool have_prev;
	uint64_t prev_start;
};

/*
 * Whether the interval [start, start + len) goes into the verdict. A full one
 * (90% of --interval or more) does. So does a short one that the schedule
 * made short: main cuts every interval from the window's start, so a cut
 * that comes late (main woke up late) lengthens its interval and shortens
 * the next, which still ends on the schedule. Such an interval begins a
 * tenth of an interval or more after a cut due inside the interval before
 * it, and ends within a tenth of an interval of the next cut due. The last
 * interval, cut short by the stop, ends off the schedule, and a sliver after
 * a cut on time begins at it: those would read as a drop and are left out.
 */
static bool interval_counts(const struct series *s, const struct steady_cursor *c,
			    uint64_t start, uint64_t len)
{
	uint64_t d = s->interval_ns, tol = d / 10, off, due;

	if (len * 10 >= d * 9)
		return true;
	if (!d || !c->have_prev)
		return false;
	off = (start + len) % d;
	/* The first cut due after the previous interval began (and not at its start). */
	due = ((c->prev_start + tol) / d + 1) * d;
	return (off <= tol || d - off <= tol) && due + tol <= start;
}

/* Total IOPS of the next interval that counts, advancing the cursor past it. */
static bool next_interval(struct series *s, struct steady_cursor *c, double *iops)
{
	struct interval_row row;
	uint64_t start, len, ops = 0;
	bool counts;

	while (c->i < s->nrows) {
		if (fseek(s->rows, (long)(c->i * sizeof(row)), SEEK_SET) ||
		    fread(&row, sizeof(row), 1, s->rows) != 1)
			return false;
		start = row.start_ns;
		len = row.len_ns;
		for (; c->i < s->nrows; c->i++) {
			if (fseek(s->rows, (long)(c->i * sizeof(row)), SEEK_SET) ||
			    fread(&row, sizeof(row), 1, s->rows) != 1 || row.start_ns != start)
				break;
			ops += row.ops;
		}
		counts = interval_counts(s, c, start, len);
		c->have_prev = true;
		c->prev_start = start;
		if (counts) {
			*iops = (double)ops * 1e9 / (double)len;
			return true;
		}
		ops = 0;
	}
	return false;
}

void series_steady(struct series *s, struct steady_state *st)
{
	double sum = 0, sumsq = 0, v, third[3] = { 0 }, mean, sd;
	unsigned n = 0, k, c0 = 0, c2 = 0;
	struct steady_cursor c = { 0 };

	memset(st, 0, sizeof(*st));
	while (next_interval(s, &c, &v)) {
		sum += v;
		sumsq += v * v;
		n++;
	}
	st->intervals = n;
	if (n < 3) {
		st->verdict = "too few intervals for a verdict (3 needed)";
		return;
	}
	/* Second pass for the thirds: the count is known now. */
	memset(&c, 0, sizeof(c));
	for (k = 0; next_interval(s, &c, &v); k++)
		third[k * 3 / n] += v;
	mean = sum / n;
	sd = sqrt(fmax(sumsq / n - mean * mean, 0));
	st->valid = true;
	st->mean_iops = mean;
	st->cov_pct = mean > 0 ? 100 * sd / mean : 0;
	/* Thirds hold n/3 intervals each up to rounding: compare their means. */
	for (k = 0; k < n; k++) {
		c0 += k * 3 / n == 0;
		c2 += k * 3 / n == 2;
	}
	st->drift_pct = third[0] > 0 ? 100 * ((third[2] / c2) / (third[0] / c0) - 1) : 0;
	st->steady = st->cov_pct <= 10 && fabs(st->drift_pct) <= 10;
	if (st->steady)
		snprintf(s->verdict, sizeof(s->verdict), "steady: intervals vary by %.1f%% (CoV), "
			 "last third vs first %+.1f%%", st->cov_pct, st->drift_pct);
	else if (st->drift_pct <= -10)
		snprintf(s->verdict, sizeof(s->verdict), "bursting: throughput fell %.1f%% from the "
			 "first third of the run to the last (CoV %.1f%%)", -st->drift_pct, st->cov_pct);
	else if (st->drift_pct >= 10)
		snprintf(s->verdict, sizeof(s->verdict), "not steady: throughput rose %.1f%% from the "
			 "first third of the run to the last (CoV %.1f%%)", st->drift_pct, st->cov_pct);
	else
		snprintf(s->verdict, sizeof(s->verdict), "not steady: intervals vary by %.1f%% (CoV), "
			 "last third vs first %+.1f%%", st->cov_pct, st->drift_pct);
	st->verdict = s->verdict;
}

int series_finish(struct series *s)
{
	int rc = hdrlog_close(s->hdr);

	s->hdr = NULL;
	return rc;
}

void series_destroy(struct series *s)
{
	hdrlog_close(s->hdr);
	if (s->rows)
		fclose(s->rows);
	if (s->buckets)
		fclose(s->buckets);
	if (s->srv_rows)
		fclose(s->srv_rows);
	memset(s, 0, sizeof(*s));
}
