/*
 * merge_series: the interval series of several reports (--series-buckets:
 * each row carries its histogram's buckets) as one, interval by interval:
 * rows of the same interval (its start over --interval, rounded) and op
 * type add, buckets included, and the merged percentiles come from the
 * added buckets, as for the whole run (merge.c). Under MPI the ranks start
 * their measured phases together, so interval i is the same stretch of
 * time on every rank.
 *
 * Wire time merges the same way from the rows' wire buckets, min and max:
 * the merged rows' wire p50 and p99 are exact, and the HdrHistogram log
 * gets the <op>-wire lines a run writes. Not its <op>-client lines: the rows
 * carry no client buckets.
 *
 * Also here, for merge.c too: a report's buckets and figures read back into
 * a struct hist.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "merge_read.h"
#include "merge_series.h"
#include "report.h"
#include "../report/report_int.h"

struct entry {
	uint64_t idx;
	int op;
	json_t *row;
};

struct merge_series {
	struct entry *e;
	size_t n, cap;
	json_t **held;			/* the inputs' series arrays, referenced */
	size_t nheld;
	bool unmergeable;		/* an input has rows without buckets */
	bool wire;			/* an input's rows carry wire time */
};

struct merge_series *merge_series_new(unsigned inputs)
{
	struct merge_series *ms = calloc(1, sizeof(*ms));

	if (ms && !(ms->held = calloc(inputs ? inputs : 1, sizeof(*ms->held)))) {
		free(ms);
		ms = NULL;
	}
	return ms;
}

bool merge_series_wire(const struct merge_series *ms)
{
	return ms && ms->wire;
}

void merge_series_free(struct merge_series *ms)
{
	if (!ms)
		return;
	for (size_t i = 0; i < ms->nheld; i++)
		json_decref(ms->held[i]);
	free(ms->held);
	free(ms->e);
	free(ms);
}

bool merge_series_ok(const struct merge_series *ms)
{
	return !ms->unmergeable;
}

void merge_series_drop(struct merge_series *ms)
{
	ms->unmergeable = true;
}

int merge_series_add(struct merge_series *ms, json_t *series, uint64_t interval_ns,
		     int (*op_of)(const char *name))
{
	json_t *row;
	size_t i;

	if (!json_is_array(series))
		return 0;
	json_array_foreach(series, i, row) {
		json_t *b = json_object_get(row, "buckets");
		int op = op_of(json_string_value(json_object_get(row, "op")) ?
			       json_string_value(json_object_get(row, "op")) : "");
		uint64_t start = merge_u64(row, "start_ns");

		if (op < 0)
			return -EINVAL;
		ms->wire |= json_object_get(row, "wire_p50_ns") != NULL;
		if (!json_is_array(b)) {
			ms->unmergeable = true;
			continue;
		}
		if (ms->n == ms->cap) {
			size_t cap = ms->cap ? 2 * ms->cap : 64;
			struct entry *e = realloc(ms->e, cap * sizeof(*e));

			if (!e)
				return -ENOMEM;
			ms->e = e;
			ms->cap = cap;
		}
		ms->e[ms->n++] = (struct entry){
			.idx = interval_ns ? (uint64_t)llround((double)start / (double)interval_ns) : i,
			.op = op, .row = row,
		};
	}
	ms->held[ms->nheld++] = json_incref(series);
	return 0;
}

static int by_interval(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return x->op - y->op;
}

/*
 * key's buckets of a row added into h, and the row's min and max (its
 * buckets' bounds where it has none) into h's. 0 or -EINVAL.
 */
static int add_row_hist(json_t *row, const char *key, uint64_t min, uint64_t max,
			struct hist *h)
{
	uint64_t lo = UINT64_MAX, hi = 0, before = h->count;

	if (merge_buckets_add(json_object_get(row, key), h, &lo, &hi) < 0)
		return -EINVAL;
	if (h->count == before)
		return 0;
	min = min ? min : lo;
	max = max ? max : hi;
	if (min < h->min)
		h->min = min;
	if (max > h->max)
		h->max = max;
	return 0;
}

/*
 * One group's rows added into h (w: their wire buckets) and the figures;
 * -EINVAL for a bucket that cannot be.
 */
static int add_group(const struct entry *e, size_t n, struct hist *h, struct hist *w,
		     struct interval_row *r)
{
	memset(r, 0, sizeof(*r));
	hist_reset(h);
	hist_reset(w);
	for (size_t k = 0; k < n; k++) {
		json_t *row = e[k].row, *lat = json_object_get(row, "lat_ns");
		uint64_t len = merge_u64(row, "len_ns");

		r->ops += merge_u64(row, "ops");
		r->bytes += merge_u64(row, "bytes");
		r->errors += merge_u64(row, "errors");
		if (len > r->len_ns)
			r->len_ns = len;
		if (add_row_hist(row, "buckets", merge_u64(lat, "min"), merge_u64(lat, "max"), h) < 0 ||
		    (json_object_get(row, "wire_buckets") &&
		     add_row_hist(row, "wire_buckets", merge_u64(row, "wire_min_ns"),
				  merge_u64(row, "wire_max_ns"), w) < 0))
			return -EINVAL;
	}
	r->p50_ns = hist_percentile(h, 50);
	r->p99_ns = hist_percentile(h, 99);
	r->p999_ns = hist_percentile(h, 99.9);
	r->min_ns = h->count ? h->min : 0;
	r->max_ns = h->count ? h->max : 0;
	if (w->count) {
		r->wire_p50_ns = hist_percentile(w, 50);
		r->wire_p99_ns = hist_percentile(w, 99);
		r->wire_min_ns = w->min;
		r->wire_max_ns = w->max;
	}
	return 0;
}

/* A merged row as a run with --series-buckets writes it (wire: as one with --wire-time). */
static void json_row(FILE *out, const struct interval_row *r, const char *op,
		     const struct hist *h, const struct hist *w, bool wire, bool first)
{
	fprintf(out, "%s\n  {\"start_ns\": %" PRIu64 ", \"len_ns\": %" PRIu64 ", \"op\": \"%s\", "
		"\"ops\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"iops\": ",
		first ? "" : ",", r->start_ns, r->len_ns, op, r->ops, r->bytes, r->errors);
	report_json_num(out, report_per_sec(r->ops, r->len_ns));
	fputs(", \"mib_s\": ", out);
	report_json_num(out, report_mib_s(r->bytes, r->len_ns));
	fprintf(out, ", \"lat_ns\": {\"min\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p99\": %" PRIu64
		", \"p99.9\": %" PRIu64 ", \"max\": %" PRIu64 "}", r->min_ns, r->p50_ns, r->p99_ns,
		r->p999_ns, r->max_ns);
	report_json_buckets(out, "buckets", h);
	if (wire) {
		fprintf(out, ", \"wire_p50_ns\": %" PRIu64 ", \"wire_p99_ns\": %" PRIu64
			", \"wire_min_ns\": %" PRIu64 ", \"wire_max_ns\": %" PRIu64, r->wire_p50_ns,
			r->wire_p99_ns, r->wire_min_ns, r->wire_max_ns);
		report_json_buckets(out, "wire_buckets", w);
	}
	fputc('}', out);
}

/* The group's lines in the HdrHistogram log: the op's, and <op>-wire when it has some. */
static int hdr_rows(struct hdrlog *hdr, const char *op, const struct interval_row *r,
		    const struct hist *h, const struct hist *w)
{
	char tag[32];
	int rc;

	if ((rc = hdrlog_write(hdr, op, r->start_ns, r->len_ns, h)) < 0 || !w->count)
		return rc;
	snprintf(tag, sizeof(tag), "%s-wire", op);
	return hdrlog_write(hdr, tag, r->start_ns, r->len_ns, w);
}

int merge_series_emit(struct merge_series *ms, uint64_t interval_ns,
		      struct merge_series_out *to, const char *(*op_name_of)(int op),
		      struct merge_series_summary *sum)
{
	struct hist h, w;
	double iops_sum = 0;
	uint64_t cur = UINT64_MAX, cur_ops = 0, cur_len = 0;
	int rc = 0;

	memset(sum, 0, sizeof(*sum));
	if (!ms->n || ms->unmergeable)
		return 0;
	if (hist_init(&h, HIST_PRECISE_BITS) < 0)
		return -ENOMEM;
	if (hist_init(&w, HIST_PRECISE_BITS) < 0) {
		hist_destroy(&h);
		return -ENOMEM;
	}
	qsort(ms->e, ms->n, sizeof(*ms->e), by_interval);
	for (size_t i = 0, j; i < ms->n && rc == 0; i = j) {
		struct interval_row r;

		for (j = i + 1; j < ms->n && ms->e[j].idx == ms->e[i].idx && ms->e[j].op == ms->e[i].op;
		     j++)
			;
		if ((rc = add_group(&ms->e[i], j - i, &h, &w, &r)) < 0)
			break;
		r.start_ns = ms->e[i].idx * interval_ns;
		r.op = (uint32_t)ms->e[i].op;
		if (to->json)
			json_row(to->json, &r, op_name_of(ms->e[i].op), &h, &w, ms->wire, i == 0);
		if (to->csv)
			report_csv_row(to->csv, &r, ms->wire);
		if (to->rows) {
			if (fwrite(&r, sizeof(r), 1, to->rows) != 1) {
				rc = -EIO;
				break;
			}
			to->nrows++;
		}
		if (to->hdr && (rc = hdr_rows(to->hdr, op_name_of(ms->e[i].op), &r, &h, &w)) < 0)
			break;
		if (ms->e[i].idx != cur) {
			if (cur != UINT64_MAX)
				iops_sum += report_per_sec(cur_ops, cur_len);
			cur = ms->e[i].idx;
			cur_ops = cur_len = 0;
			sum->intervals++;
		}
		cur_ops += r.ops;
		if (r.len_ns > cur_len)
			cur_len = r.len_ns;
		if (r.p99_ns > sum->p99_max_ns)
			sum->p99_max_ns = r.p99_ns;
		if (r.ops && (!sum->p99_min_ns || r.p99_ns < sum->p99_min_ns))
			sum->p99_min_ns = r.p99_ns;
		/* The interval ends with the group after the last of its ops. */
		if (j == ms->n || ms->e[j].idx != cur) {
			double v = report_per_sec(cur_ops, cur_len);

			if (sum->intervals == 1 || v < sum->iops_min)
				sum->iops_min = v;
			if (v > sum->iops_max)
				sum->iops_max = v;
		}
	}
	if (cur != UINT64_MAX)
		iops_sum += report_per_sec(cur_ops, cur_len);
	sum->iops_mean = sum->intervals ? iops_sum / sum->intervals : 0;
	hist_destroy(&h);
	hist_destroy(&w);
	return rc;
}
