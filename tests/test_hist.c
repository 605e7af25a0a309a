/*
 * hist unit tests: percentile accuracy against a sorted-array oracle,
 * exact merge, bucket mapping, edge values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "hist.h"

#define NVALUES 250000

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };

/* splitmix64: fixed seed, so every run sees the same data. */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double rng_unit(void)
{
	return (double)(rng_next() >> 11) / 9007199254740992.0;
}

static uint64_t rng_range(uint64_t lo, uint64_t hi)
{
	return lo + rng_next() % (hi - lo + 1);
}

static uint64_t gen_uniform(void)
{
	return rng_range(1, 1000000);
}

/* 1 ns .. 1 hour, uniform in log space. */
static uint64_t gen_loguniform(void)
{
	return (uint64_t)llround(exp(rng_unit() * log(3600e9)));
}

/* Fast cache hits around 100 us, slow misses around 50 ms. */
static uint64_t gen_bimodal(void)
{
	if (rng_next() % 10 < 8)
		return rng_range(50000, 150000);
	return rng_range(20000000, 80000000);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Written independently of hist.c: the rank-th smallest, 1-based. */
static uint64_t oracle(const uint64_t *sorted, size_t n, double pct)
{
	size_t rank = (size_t)ceil(pct * (double)n / 100.0);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static uint64_t *fill(uint64_t (*gen)(void), size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v));
	size_t i;

	assert_non_null(v);
	rng_state = 42;
	for (i = 0; i < n; i++)
		v[i] = gen();
	return v;
}

static void check_accuracy(const char *name, uint64_t (*gen)(void), int sub_bits,
			   double max_rel)
{
	uint64_t *v = fill(gen, NVALUES);
	struct hist h;
	size_t i;
	int bad = 0;

	assert_int_equal(hist_init(&h, sub_bits), 0);
	for (i = 0; i < NVALUES; i++)
		hist_record(&h, v[i]);
	qsort(v, NVALUES, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		uint64_t got = hist_percentile(&h, pcts[i]);
		uint64_t want = oracle(v, NVALUES, pcts[i]);
		double rel = fabs((double)got - (double)want) / (double)want;

		if (rel > max_rel) {
			print_error("%s sub_bits=%d p%g: hist %" PRIu64 " oracle %" PRIu64
				    " rel err %.5f > %.5f\n", name, sub_bits, pcts[i],
				    got, want, rel, max_rel);
			bad++;
		}
	}
	assert_int_equal(h.count, NVALUES);
	assert_int_equal(h.min, v[0]);
	assert_int_equal(h.max, v[NVALUES - 1]);
	hist_destroy(&h);
	free(v);
	assert_int_equal(bad, 0);
}

/* Precise: within 1% of the oracle. Coarse: within one bucket width. */
static void test_accuracy(void **state)
{
	static const struct {
		const char *name;
		uint64_t (*gen)(void);
	} dists[] = {
		{ "uniform", gen_uniform },
		{ "loguniform", gen_loguniform },
		{ "bimodal", gen_bimodal },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(dists) / sizeof(dists[0]); i++) {
		check_accuracy(dists[i].name, dists[i].gen, HIST_PRECISE_BITS, 0.01);
		check_accuracy(dists[i].name, dists[i].gen, HIST_COARSE_BITS,
			       1.0 / (1 << (HIST_COARSE_BITS - 1)));
	}
}

static void test_merge_exact(void **state)
{
	uint64_t *v = fill(gen_loguniform, NVALUES);
	struct hist all, part[4], merged;
	size_t i;
	int b;

	(void)state;
	assert_int_equal(hist_init(&all, HIST_PRECISE_BITS), 0);
	assert_int_equal(hist_init(&merged, HIST_PRECISE_BITS), 0);
	for (b = 0; b < 4; b++)
		assert_int_equal(hist_init(&part[b], HIST_PRECISE_BITS), 0);
	for (i = 0; i < NVALUES; i++) {
		hist_record(&all, v[i]);
		hist_record(&part[rng_next() % 4], v[i]);
	}
	for (b = 0; b < 4; b++) {
		assert_int_equal(hist_add(&merged, &part[b]), 0);
		hist_destroy(&part[b]);
	}
	for (b = 0; b < all.nbuckets; b++) {
		if (merged.counts[b] != all.counts[b]) {
			print_error("bucket %d: merged %" PRIu64 " single %" PRIu64 "\n",
				    b, merged.counts[b], all.counts[b]);
			fail();
		}
	}
	assert_int_equal(merged.count, NVALUES);
	assert_int_equal(merged.count, all.count);
	assert_int_equal(merged.sum, all.sum);
	assert_int_equal(merged.min, all.min);
	assert_int_equal(merged.max, all.max);
	assert_int_equal(merged.clamped, all.clamped);
	/* Doubles summed in another order: equal up to rounding. */
	assert_true(fabs(merged.sumsq - all.sumsq) <= 1e-9 * all.sumsq);
	hist_destroy(&all);
	hist_destroy(&merged);
	free(v);
}

static void test_empty(void **state)
{
	struct hist h;

	(void)state;
	assert_int_equal(hist_init(&h, HIST_PRECISE_BITS), 0);
	assert_int_equal(hist_percentile(&h, 50), 0);
	assert_int_equal(hist_percentile(&h, 100), 0);
	assert_true(hist_mean(&h) == 0);
	assert_true(hist_stdev(&h) == 0);
	assert_int_equal(h.min, UINT64_MAX);
	hist_destroy(&h);
	hist_destroy(&h);       /* safe twice */
}

static void test_edge_values(void **state)
{
	struct hist h;
	uint64_t lo, hi;

	(void)state;
	assert_int_equal(hist_init(&h, HIST_PRECISE_BITS), 0);
	hist_record(&h, 0);
	hist_record(&h, HIST_MAX_VALUE);
	hist_record(&h, HIST_MAX_VALUE + 1);
	hist_record(&h, UINT64_MAX);
	assert_int_equal(h.count, 4);
	assert_int_equal(h.clamped, 2);
	assert_int_equal(h.min, 0);
	assert_int_equal(h.max, HIST_MAX_VALUE);
	assert_int_equal(h.counts[0], 1);
	assert_int_equal(h.counts[h.nbuckets - 1], 3);
	assert_int_equal(hist_percentile(&h, 25), 0);
	/* p100 is the top bucket's midpoint (within the bucket's error of the
	 * true max), not max itself: hist.h reports midpoints. */
	hist_bucket_range(&h, h.nbuckets - 1, &lo, &hi);
	assert_int_equal(hist_percentile(&h, 100), lo + (hi - lo) / 2);
	assert_true(HIST_MAX_VALUE - hist_percentile(&h, 100) <=
		    HIST_MAX_VALUE >> HIST_PRECISE_BITS);

	/* A single sample reads back exactly thanks to the min/max clamp. */
	hist_reset(&h);
	assert_int_equal(h.count, 0);
	assert_int_equal(hist_percentile(&h, 50), 0);
	hist_record(&h, 123456789);
	assert_int_equal(hist_percentile(&h, 50), 123456789);
	hist_destroy(&h);
}

static void test_bucket_range(void **state)
{
	int sub_bits, i;

	(void)state;
	for (sub_bits = 2; sub_bits <= 12; sub_bits++) {
		struct hist h;
		uint64_t lo, hi, prev_hi = 0;

		assert_int_equal(hist_init(&h, sub_bits), 0);
		for (i = 0; i < h.nbuckets; i++) {
			hist_bucket_range(&h, i, &lo, &hi);
			/* Inverse of hist_index, contiguous, and within the
			 * width bound promised in hist.h. */
			if (hist_index(sub_bits, lo) != i || hist_index(sub_bits, hi) != i ||
			    hist_index(sub_bits, hi + 1) != i + 1 ||
			    (i > 0 && lo != prev_hi + 1) ||
			    (lo >= (UINT64_C(1) << sub_bits) &&
			     (hi - lo + 1) << (sub_bits - 1) > lo)) {
				print_error("sub_bits %d bucket %d: [%" PRIu64 ", %" PRIu64
					    "] maps to %d..%d, next %d, prev hi %" PRIu64 "\n",
					    sub_bits, i, lo, hi, hist_index(sub_bits, lo),
					    hist_index(sub_bits, hi), hist_index(sub_bits, hi + 1),
					    prev_hi);
				fail();
			}
			prev_hi = hi;
		}
		assert_int_equal(prev_hi, HIST_MAX_VALUE);
		hist_destroy(&h);
	}
}

static void test_monotone(void **state)
{
	struct hist h;
	uint64_t prev = 0, p;
	size_t i;
	int k;

	(void)state;
	assert_int_equal(hist_init(&h, HIST_PRECISE_BITS), 0);
	rng_state = 7;
	for (i = 0; i < 100000; i++)
		hist_record(&h, gen_bimodal());
	for (k = 1; k <= 10000; k++) {
		p = hist_percentile(&h, k / 100.0);
		if (p < prev || p < h.min || p > h.max) {
			print_error("p%g = %" PRIu64 ": previous %" PRIu64 ", min %" PRIu64
				    ", max %" PRIu64 "\n", k / 100.0, p, prev, h.min, h.max);
			fail();
		}
		prev = p;
	}
	hist_destroy(&h);
}

static void test_invalid(void **state)
{
	struct hist a, b;

	(void)state;
	assert_int_equal(hist_init(&a, 1), -EINVAL);
	assert_int_equal(hist_init(&a, 13), -EINVAL);
	assert_int_equal(hist_init(&a, HIST_PRECISE_BITS), 0);
	assert_int_equal(hist_init(&b, HIST_COARSE_BITS), 0);
	hist_record(&b, 5);
	assert_int_equal(hist_add(&a, &b), -EINVAL);
	assert_int_equal(a.count, 0);
	hist_destroy(&a);
	hist_destroy(&b);
}

static void test_stdev(void **state)
{
	static const uint64_t data[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct hist h;
	size_t i;

	(void)state;
	assert_int_equal(hist_init(&h, HIST_PRECISE_BITS), 0);
	for (i = 0; i < sizeof(data) / sizeof(data[0]); i++)
		hist_record(&h, data[i]);
	if (fabs(hist_mean(&h) - 5) > 1e-12 || fabs(hist_stdev(&h) - 2) > 1e-12) {
		print_error("mean %g (want 5), stdev %g (want 2)\n", hist_mean(&h),
			    hist_stdev(&h));
		fail();
	}

	/* Identical large values: cancellation must not give NaN or < 0. */
	hist_reset(&h);
	for (i = 0; i < 1000; i++)
		hist_record(&h, UINT64_C(3000000000) + 1);
	assert_true(hist_stdev(&h) >= 0 && hist_stdev(&h) < 1);
	hist_destroy(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accuracy),
		cmocka_unit_test(test_merge_exact),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_edge_values),
		cmocka_unit_test(test_bucket_range),
		cmocka_unit_test(test_monotone),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_stdev),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
