/*
 * Unit tests: the interval series' steady-state verdict, CSV rows, wire time
 * in the rows, their buckets, the CSV and the HdrHistogram log, and
 * coordinated-omission correction on a synthetic schedule. No server.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "series.h"

#define MS UINT64_C(1000000)
#define SEC UINT64_C(1000000000)

/* A series of read-only intervals of 1 s with the given operation counts. */
static void series_of(struct series *s, const uint64_t *ops, unsigned n)
{
	bool used[OP_NTYPES] = { [OP_READ] = true };
	struct op_stats ival[OP_NTYPES];
	char err[200];

	assert_int_equal(op_stats_init_all(ival, HIST_PRECISE_BITS, false), 0);
	assert_int_equal(series_init(s, SEC, used, NULL, false, "", err, sizeof(err)), 0);
	series_begin(s, 1000 * SEC);
	for (unsigned i = 0; i < n; i++) {
		op_stats_reset_all(ival);
		ival[OP_READ].ops = ops[i];
		assert_int_equal(series_add(s, (1000 + i) * SEC, (1001 + i) * SEC, ival), 0);
	}
	op_stats_destroy_all(ival);
}

static void test_steady_flat(void **state)
{
	uint64_t ops[9] = { 1000, 1010, 990, 1000, 1005, 995, 1000, 1002, 998 };
	struct series s;
	struct steady_state st;

	(void)state;
	series_of(&s, ops, 9);
	assert_int_equal(s.nrows, 9);
	series_steady(&s, &st);
	assert_true(st.valid);
	assert_int_equal(st.intervals, 9);
	assert_true(st.steady);
	if (st.cov_pct > 1 || st.drift_pct < -1 || st.drift_pct > 1 || st.mean_iops < 999 ||
	    st.mean_iops > 1001) {
		print_error("cov %.2f drift %.2f mean %.1f\n", st.cov_pct, st.drift_pct, st.mean_iops);
		fail();
	}
	assert_non_null(strstr(st.verdict, "steady"));
	series_destroy(&s);
}

/* Bursts, then drops: the "sustained, no bursting" check must say so. */
static void test_steady_bursting(void **state)
{
	uint64_t ops[9] = { 3000, 3000, 3000, 2000, 2000, 2000, 1000, 1000, 1000 };
	struct series s;
	struct steady_state st;

	(void)state;
	series_of(&s, ops, 9);
	series_steady(&s, &st);
	assert_true(st.valid);
	assert_false(st.steady);
	/* last third 1000 vs first 3000: -66.7% */
	if (st.drift_pct > -66.6 || st.drift_pct < -66.7) {
		print_error("drift %.3f, want -66.67\n", st.drift_pct);
		fail();
	}
	assert_non_null(strstr(st.verdict, "bursting"));
	series_destroy(&s);
}

static void test_steady_noisy_and_short(void **state)
{
	uint64_t noisy[6] = { 1000, 1400, 700, 1300, 600, 1000 };
	uint64_t two[2] = { 10, 10 };
	struct series s;
	struct steady_state st;

	(void)state;
	series_of(&s, noisy, 6);
	series_steady(&s, &st);
	assert_true(st.valid);
	assert_false(st.steady);
	if (st.cov_pct < 25 || st.cov_pct > 30) {	/* stdev 290.4 / mean 1000 */
		print_error("cov %.2f, want ~29.0\n", st.cov_pct);
		fail();
	}
	series_destroy(&s);

	series_of(&s, two, 2);
	series_steady(&s, &st);
	assert_false(st.valid);
	assert_non_null(st.verdict);
	series_destroy(&s);
}

/* A short last interval (the stop) is left out of the verdict, not read as a drop. */
static void test_steady_ignores_partial_last(void **state)
{
	bool used[OP_NTYPES] = { [OP_READ] = true };
	struct op_stats ival[OP_NTYPES];
	struct series s;
	struct steady_state st;
	char err[200];

	(void)state;
	assert_int_equal(op_stats_init_all(ival, HIST_PRECISE_BITS, false), 0);
	assert_int_equal(series_init(&s, SEC, used, NULL, false, "", err, sizeof(err)), 0);
	series_begin(&s, 0);
	for (unsigned i = 0; i < 4; i++) {
		ival[OP_READ].ops = 1000;
		assert_int_equal(series_add(&s, i * SEC, (i + 1) * SEC, ival), 0);
	}
	ival[OP_READ].ops = 1;
	assert_int_equal(series_add(&s, 4 * SEC, 4 * SEC + 5 * MS, ival), 0);
	series_steady(&s, &st);
	assert_int_equal(st.intervals, 4);
	assert_true(st.steady);
	series_destroy(&s);
	op_stats_destroy_all(ival);
}

/*
 * Rows between cuts at the given times (ms since the window's start; the
 * first is 0), 1 s intervals, reads at a constant 1000 IOPS.
 */
static void series_cut_at(struct series *s, const uint64_t *cut_ms, unsigned ncuts)
{
	bool used[OP_NTYPES] = { [OP_READ] = true };
	struct op_stats ival[OP_NTYPES];
	char err[200];

	assert_int_equal(op_stats_init_all(ival, HIST_PRECISE_BITS, false), 0);
	assert_int_equal(series_init(s, SEC, used, NULL, false, "", err, sizeof(err)), 0);
	series_begin(s, 1000 * SEC);
	for (unsigned i = 1; i < ncuts; i++) {
		op_stats_reset_all(ival);
		ival[OP_READ].ops = cut_ms[i] - cut_ms[i - 1];
		assert_int_equal(series_add(s, 1000 * SEC + cut_ms[i - 1] * MS,
					    1000 * SEC + cut_ms[i] * MS, ival), 0);
	}
	op_stats_destroy_all(ival);
}

/*
 * Cuts are due every interval from the window's start; a late one makes its
 * interval longer and the next shorter, on the schedule again. Here the cut
 * due at 10 s comes at 10.15 s, and those due at 20 s and 21 s at 20.3 s and
 * 21.2 s: 30 intervals up to 30 s, among them 0.85 s [10.15, 11) and 0.8 s
 * [21.2, 22), which count, as they end on the schedule. The stop at 30.4 s
 * makes a 31st row, cut short by the stop, which does not: 30 in the verdict.
 */
static void test_steady_late_cut(void **state)
{
	uint64_t cuts[32];
	unsigned n = 0;
	struct series s;
	struct steady_state st;

	(void)state;
	for (uint64_t t = 0; t <= 30; t++)
		cuts[n++] = t == 10 ? 10150 : t == 20 ? 20300 : t == 21 ? 21200 : t * 1000;
	cuts[n++] = 30400;
	series_cut_at(&s, cuts, n);
	assert_int_equal(s.nrows, 31);
	series_steady(&s, &st);
	assert_true(st.valid);
	if (st.intervals != 30 || !st.steady || st.mean_iops < 999.9 || st.mean_iops > 1000.1 ||
	    st.cov_pct > 0.1) {
		print_error("intervals %u (want 30), steady %d, mean %.3f, cov %.3f\n", st.intervals,
			    st.steady, st.mean_iops, st.cov_pct);
		fail();
	}
	series_destroy(&s);
}

/*
 * What stays out: the last row after a late cut, cut short by the stop
 * ([3.3, 3.6) ends off the schedule), and a sliver after a cut that came a
 * little early ([1.97, 2) ends on the schedule but no cut before it was late).
 */
static void test_steady_short_rows_left_out(void **state)
{
	static const uint64_t stop_after_late[] = { 0, 1000, 2000, 3300, 3600 };
	static const uint64_t early_sliver[] = { 0, 1000, 1970, 2000, 3000, 4000 };
	struct series s;
	struct steady_state st;

	(void)state;
	series_cut_at(&s, stop_after_late, 5);
	series_steady(&s, &st);
	assert_int_equal(st.intervals, 3);
	series_destroy(&s);

	series_cut_at(&s, early_sliver, 6);
	series_steady(&s, &st);
	assert_int_equal(st.intervals, 4);
	series_destroy(&s);
}

static void test_csv_row(void **state)
{
	struct interval_row row = {
		.start_ns = 1500 * MS, .len_ns = 500 * MS, .op = OP_WRITE, .ops = 1000,
		.bytes = 1000 * 4096, .errors = 2, .p50_ns = 700000, .p99_ns = 2000000,
		.p999_ns = 5000000, .max_ns = 9000000,
	};
	char buf[256] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	report_csv_row(f, &row, true);
	row.wire_p50_ns = 400000;
	row.wire_p99_ns = 1500000;
	report_csv_row(f, &row, true);
	report_csv_row(f, &row, false);
	fclose(f);
	/* The wire columns last, 0 without wire time: the others keep their places. */
	assert_string_equal(buf, "1.500,0.500,write,1000,2000.0,7.812,2,700000,2000000,5000000,9000000,"
			    "0,0\n1.500,0.500,write,1000,2000.0,7.812,2,700000,2000000,5000000,"
			    "9000000,400000,1500000\n1.500,0.500,write,1000,2000.0,7.812,2,700000,"
			    "2000000,5000000,9000000\n");
	f = fmemopen(buf, sizeof(buf), "w");
	report_csv_header(f, true);
	report_csv_header(f, false);
	fclose(f);
	assert_string_equal(buf, "start_s,length_s,op,ops,iops,mib_s,errors,p50_ns,p99_ns,p99.9_ns,"
			    "max_ns,wire_p50_ns,wire_p99_ns\nstart_s,length_s,op,ops,iops,mib_s,errors,"
			    "p50_ns,p99_ns,p99.9_ns,max_ns\n");
}

/* Row i of the series' temporary file. */
static void row_at(struct series *s, uint64_t i, struct interval_row *row)
{
	assert_int_equal(fseek(s->rows, (long)(i * sizeof(*row)), SEEK_SET), 0);
	assert_int_equal(fread(row, sizeof(*row), 1, s->rows), 1);
}

/* The tags of the log's interval lines, space-separated, in order. */
static void log_tags(const char *path, char *tags, size_t len)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	assert_non_null(f);
	tags[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tag=", 4) && n < len)
			n += (size_t)snprintf(tags + n, len - n, "%s%.*s", n ? " " : "", (int)strcspn(
						      line + 4, ","), line + 4);
	fclose(f);
}

/*
 * Wire time into the rows: interval 0 with 100 reads on the wire for
 * 100..199 us of 300..399 us, interval 1 with replies that had no exact
 * timestamp only (0), interval 2 without wire time (a run without it). Their
 * CSV rows end with the wire p50 and p99; the log has the wire and client
 * histograms only where there are some; --series-buckets keeps the wire
 * buckets after the latency's.
 */
static void test_wire_rows(void **state)
{
	bool used[OP_NTYPES] = { [OP_READ] = true };
	struct op_stats ival[OP_NTYPES];
	struct interval_row row;
	struct series s;
	struct series_bucket b;
	char err[200], dir[] = "/tmp/test_series.XXXXXX", path[64], tags[200], *csv = NULL;
	uint64_t n = 0, wire_buckets = 0;
	size_t csv_len = 0;
	FILE *out = open_memstream(&csv, &csv_len);

	(void)state;
	assert_non_null(out);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/h.log", dir);
	assert_int_equal(op_stats_init_all(ival, HIST_PRECISE_BITS, false), 0);
	assert_int_equal(series_init(&s, SEC, used, out, true, path, err, sizeof(err)), 0);
	assert_int_equal(series_keep_buckets(&s), 0);
	series_begin(&s, 0);
	for (uint64_t i = 0; i < 100; i++) {
		op_stats_record(&ival[OP_READ], 4096, (300 + i) * 1000, (300 + i) * 1000);
		op_stats_wire(&ival[OP_READ], (100 + i) * 1000, (300 + i) * 1000);
	}
	assert_int_equal(series_add(&s, 0, SEC, ival), 0);
	op_stats_reset_all(ival);
	op_stats_record(&ival[OP_READ], 4096, 500000, 500000);
	op_stats_wire(&ival[OP_READ], 0, 500000);
	assert_int_equal(series_add(&s, SEC, 2 * SEC, ival), 0);
	op_stats_destroy_all(ival);
	assert_int_equal(op_stats_init_all(ival, HIST_PRECISE_BITS, false), 0);
	op_stats_record(&ival[OP_READ], 4096, 500000, 500000);
	assert_int_equal(series_add(&s, 2 * SEC, 3 * SEC, ival), 0);
	assert_int_equal(series_finish(&s), 0);
	assert_int_equal(fclose(out), 0);

	row_at(&s, 0, &row);
	/* nearest rank 50 of 100 is 149 us, 99 is 198 us: their buckets' midpoints */
	if (row.wire_p50_ns < 148000 || row.wire_p50_ns > 150000 || row.wire_p99_ns < 197000 ||
	    row.wire_p99_ns > 199000 || row.wire_min_ns != 100000 || row.wire_max_ns != 199000 ||
	    row.p50_ns < 348000 || row.p50_ns > 350000) {
		print_error("wire p50 %" PRIu64 " p99 %" PRIu64 " min %" PRIu64 " max %" PRIu64
			    ", p50 %" PRIu64 "\n", row.wire_p50_ns, row.wire_p99_ns, row.wire_min_ns,
			    row.wire_max_ns, row.p50_ns);
		fail();
	}
	/* Every wire sample in the buckets right after the latency's. */
	assert_int_equal(row.wire_buckets_at, row.buckets_at + row.nbuckets);
	for (uint64_t k = 0; k < row.wire_nbuckets; k++) {
		assert_int_equal(fseek(s.buckets, (long)((row.wire_buckets_at + k) * sizeof(b)),
				       SEEK_SET), 0);
		assert_int_equal(fread(&b, sizeof(b), 1, s.buckets), 1);
		assert_true(b.hi >= 100000 && b.lo <= 199000);
		n += b.count;
		wire_buckets++;
	}
	assert_int_equal(n, 100);
	assert_int_equal(wire_buckets, row.wire_nbuckets);
	for (uint64_t i = 1; i < 3; i++) {
		row_at(&s, i, &row);
		assert_int_equal(row.ops, 1);
		assert_int_equal(row.wire_p50_ns + row.wire_p99_ns + row.wire_nbuckets, 0);
	}

	/* CSV: the header, then each row's wire p50 and p99 in the last two columns. */
	assert_non_null(strstr(csv, ",max_ns,wire_p50_ns,wire_p99_ns\n"));
	row_at(&s, 0, &row);
	snprintf(err, sizeof(err), ",%" PRIu64 ",%" PRIu64 "\n1.000,1.000,read,1,", row.wire_p50_ns,
		 row.wire_p99_ns);
	if (!strstr(csv, err) || !strstr(csv, ",0,0\n2.000,1.000,read,1,") || csv_len < 5 ||
	    strcmp(csv + csv_len - 5, ",0,0\n") != 0) {
		print_error("csv, want ...%s...:\n%s\n", err, csv);
		fail();
	}

	/* The log: the wire and client histograms of interval 0 only. */
	log_tags(path, tags, sizeof(tags));
	assert_string_equal(tags, "read read-wire read-client read read");

	series_destroy(&s);
	op_stats_destroy_all(ival);
	free(csv);
	unlink(path);
	rmdir(dir);
}

/*
 * Coordinated omission: one request every 1 ms, served in 100 us, except one
 * that takes 100 ms; one slot, so the requests due meanwhile wait. Measured
 * from their issue only one request is slow; measured from their intended
 * start the ~110 that waited are too, as they were for a user.
 */
static void test_coordinated_omission(void **state)
{
	struct op_stats st;
	uint64_t free_at = 0, slow_corrected = 0;
	const unsigned n = 10000;

	(void)state;
	assert_int_equal(op_stats_init(&st, HIST_PRECISE_BITS, true), 0);
	for (unsigned i = 0; i < n; i++) {
		uint64_t intended = i * MS;
		uint64_t issue = intended > free_at ? intended : free_at;
		uint64_t done = issue + (i == 5000 ? 100 * MS : 100000);

		free_at = done;
		op_stats_record(&st, 4096, done - intended, done - issue);
		slow_corrected += done - intended >= MS;
	}
	assert_int_equal(st.lat.count, n);
	assert_int_equal(st.lat_unc.count, n);
	/* From the issue: one slow request, p99 is the usual 100 us. */
	assert_true(hist_percentile(&st.lat_unc, 99) < 102000);
	assert_true(st.lat_unc.max >= 100 * MS);
	/*
	 * From the intended start: the backlog of the 100 ms stall drains at
	 * 0.9 ms per request (1 ms apart, 0.1 ms each), so ~111 requests are 1 ms
	 * late or more, and p99 shows it.
	 */
	if (slow_corrected < 105 || slow_corrected > 115 || hist_percentile(&st.lat, 99) < MS) {
		print_error("corrected: %llu slow, p99 %llu ns\n", (unsigned long long)slow_corrected,
			    (unsigned long long)hist_percentile(&st.lat, 99));
		fail();
	}
	assert_true(hist_percentile(&st.lat, 50) < 102000);
	op_stats_destroy(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_flat),
		cmocka_unit_test(test_steady_bursting),
		cmocka_unit_test(test_steady_noisy_and_short),
		cmocka_unit_test(test_steady_ignores_partial_last),
		cmocka_unit_test(test_steady_late_cut),
		cmocka_unit_test(test_steady_short_rows_left_out),
		cmocka_unit_test(test_csv_row),
		cmocka_unit_test(test_wire_rows),
		cmocka_unit_test(test_coordinated_omission),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
