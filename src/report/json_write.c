/*
 * json_write: the pieces every JSON rendering writes (the run's report, a
 * job's, --merge's): strings, numbers, a histogram's buckets, and one
 * operation's figures.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report.h"
#include "report_int.h"

void report_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

void report_json_num(FILE *out, double v)
{
	fprintf(out, isfinite(v) ? "%.3f" : "0", v);
}

void report_json_lat(FILE *out, const struct hist *h)
{
	fprintf(out, "{\"min\": %" PRIu64 ", \"mean\": ", h->count ? h->min : 0);
	report_json_num(out, hist_mean(h));
	fputs(", \"stdev\": ", out);
	report_json_num(out, hist_stdev(h));
	for (size_t i = 0; i < REPORT_NPCTS; i++)
		fprintf(out, ", \"%s\": %" PRIu64, report_pcts[i].key, hist_percentile(h, report_pcts[i].pct));
	fprintf(out, ", \"max\": %" PRIu64 "}", h->max);
}

void report_json_buckets(FILE *out, const char *key, const struct hist *h)
{
	bool first = true;

	fprintf(out, ", \"%s\": [", key);
	for (int i = 0; i < h->nbuckets; i++) {
		uint64_t lo, hi;

		if (!h->counts[i])
			continue;
		hist_bucket_range(h, i, &lo, &hi);
		fprintf(out, "%s[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", first ? "" : ", ", lo, hi,
			h->counts[i]);
		first = false;
	}
	fputc(']', out);
}

void report_json_op(FILE *out, const struct op_stats *s, uint64_t ns, const char *proc)
{
	bool buckets = proc != NULL;

	/* "count": the old name of "ops", kept as an alias for a release (see nfsload(1)). */
	if (proc)
		fprintf(out, "{\"procedure\": \"%s\", \"ops\": %" PRIu64 ", \"count\": %" PRIu64,
			proc, s->ops, s->ops);
	else
		fprintf(out, "{\"ops\": %" PRIu64 ", \"count\": %" PRIu64, s->ops, s->ops);
	fprintf(out, ", \"bytes\": %" PRIu64 ", \"errors\": %" PRIu64, s->bytes, s->errors);
	/* READ_PLUS: its bytes as data and holes. */
	if (proc && !strcmp(proc, "READ_PLUS"))
		fprintf(out, ", \"data_bytes\": %" PRIu64 ", \"hole_bytes\": %" PRIu64,
			s->bytes - s->holes, s->holes);
	/* State: answers that deny for a conflict, apart from ops and errors. */
	if (s->denied || (proc && (!strcmp(proc, "LOCK") || !strcmp(proc, "LOCKT") ||
				   !strcmp(proc, "OPEN")))) {
		fprintf(out, ", \"denied\": %" PRIu64 ", \"denied_lat_ns\": ", s->denied);
		report_json_lat(out, s->lat_denied.counts ? &s->lat_denied : &(struct hist){ 0 });
	}
	fputs(", \"iops\": ", out);
	report_json_num(out, report_per_sec(s->ops, ns));
	fputs(", \"mib_s\": ", out);
	report_json_num(out, report_mib_s(s->bytes, ns));
	fputs(", \"lat_ns\": ", out);
	report_json_lat(out, &s->lat);
	if (s->lat_unc.counts) {
		fputs(", \"lat_ns_uncorrected\": ", out);
		report_json_lat(out, &s->lat_unc);
	}
	if (buckets)
		report_json_buckets(out, "buckets", &s->lat);
	if (buckets && s->lat_unc.counts)
		report_json_buckets(out, "buckets_uncorrected", &s->lat_unc);
	if (op_stats_has_wire(s)) {
		const struct hist *w = &s->wire, *c = &s->client;

		fprintf(out, ", \"wire_count\": %" PRIu64 ", \"wire_missed\": %" PRIu64,
			w->count, s->wire_missed);
		if (w->count) {
			fputs(", \"wire_lat_ns\": ", out);
			report_json_lat(out, w);
			fputs(", \"client_lat_ns\": ", out);
			report_json_lat(out, c);
			if (buckets) {
				report_json_buckets(out, "wire_buckets", w);
				report_json_buckets(out, "client_buckets", c);
			}
		}
	}
	fputc('}', out);
}
