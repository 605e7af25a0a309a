/*
 * distrib unit tests: zipf's skew and its hot blocks scattered, pareto and
 * normal plausible, uniform uniform, draws deterministic per seed, the
 * scatter a permutation; --bssplit's syntax (fio's: per direction, missing
 * percentages), its refusals and its draws; a stream's shaped offsets
 * (aligned to the size drawn, inside the file).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distrib.h"
#include "workload.h"

#define DRAWS 100000
#define N(a) (sizeof(a) / sizeof((a)[0]))

static int cmp_u32_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Counts per block of DRAWS draws over n blocks (caller frees). */
static uint32_t *histogram(const char *spec_s, uint64_t n, uint64_t seed)
{
	struct distrib_spec spec;
	struct distrib d;
	uint32_t *c = calloc(n, sizeof(*c));
	uint64_t rng = seed;

	assert_non_null(c);
	assert_int_equal(distrib_parse(spec_s, &spec), 0);
	distrib_init(&d, &spec, n, seed);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t b = distrib_next(&d, &rng);

		if (b >= n)
			fail_msg("%s: block %" PRIu64 " of %" PRIu64, spec_s, b, n);
		c[b]++;
	}
	return c;
}

/* Draws on the hottest tenth of the blocks, in percent. */
static double hot_tenth_pct(const uint32_t *c, uint64_t n)
{
	uint32_t *s = malloc(n * sizeof(*s));
	uint64_t sum = 0;

	assert_non_null(s);
	memcpy(s, c, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u32_desc);
	for (uint64_t i = 0; i < n / 10; i++)
		sum += s[i];
	free(s);
	return 100.0 * (double)sum / DRAWS;
}

static void test_zipf_skew_scattered(void **state)
{
	const uint64_t n = 16384;
	uint32_t *c = histogram("zipf:1.2", n, 1);
	struct distrib_spec spec;
	struct distrib d;
	double hot = hot_tenth_pct(c, n);
	uint64_t low = 0, first_tenth = 0;

	(void)state;
	print_message("zipf:1.2 over %" PRIu64 " blocks: %.1f%% of draws on the hottest 10%%\n",
		      n, hot);
	if (hot < 75)
		fail_msg("zipf:1.2: %.1f%% on the hottest 10%%, want >= 75%%", hot);
	/* The hottest ranks' blocks: not gathered at the start of the file. */
	distrib_parse("zipf:1.2", &spec);
	distrib_init(&d, &spec, n, 1);
	for (uint64_t r = 0; r < n / 10; r++) {
		uint64_t b = distrib_scatter(&d, r);

		first_tenth += b < n / 10;
		low += b < n / 2;
	}
	print_message("hottest 10%% of ranks: %" PRIu64 " of %" PRIu64 " in the first 10%% of the "
		      "file, %" PRIu64 " in the first half\n", first_tenth, n / 10, low);
	if (first_tenth > n / 10 / 4)
		fail_msg("hot blocks not scattered: %" PRIu64 " of %" PRIu64 " in the first tenth",
			 first_tenth, n / 10);
	if (low < n / 10 / 3 || low > n / 10 * 2 / 3)
		fail_msg("hot blocks lopsided: %" PRIu64 " of %" PRIu64 " in the first half", low,
			 n / 10);
	free(c);
}

static void test_zipf_large(void **state)
{
	struct distrib_spec spec = { DISTRIB_ZIPF, 0.9 };
	struct distrib d;
	uint64_t rng = 7, n = UINT64_C(1) << 40, zero = 0;

	(void)state;
	/* Set up in O(1) over 2^40 blocks; rank 0 drawn most. */
	distrib_init(&d, &spec, n, 3);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t r = distrib_rank(&d, &rng);

		if (r >= n)
			fail_msg("rank %" PRIu64 " >= n", r);
		zero += r == 0;
	}
	if (zero < 100)
		fail_msg("zipf:0.9 over 2^40: rank 0 drawn %" PRIu64 " times", zero);
}

static void test_pareto_normal_plausible(void **state)
{
	const uint64_t n = 10000;
	uint32_t *p = histogram("pareto:0.2", n, 5), *g = histogram("normal:10", n, 5);
	struct distrib_spec spec;
	struct distrib d;
	uint64_t rng = 9, within = 0;
	double hp = hot_tenth_pct(p, n), hg = hot_tenth_pct(g, n);

	(void)state;
	print_message("pareto:0.2: %.1f%% on the hottest 10%%; normal:10: %.1f%%\n", hp, hg);
	/* fio's pareto:0.2: about 80% of the draws on 20% of the blocks. */
	if (hp < 50 || hp > 90)
		fail_msg("pareto:0.2: %.1f%% on the hottest 10%%", hp);
	/* normal:10 has a standard deviation of 10% of the range: +-1 sd is 20% of it. */
	if (hg < 30 || hg > 50)
		fail_msg("normal:10: %.1f%% on the hottest 10%%", hg);
	distrib_parse("normal:10", &spec);
	distrib_init(&d, &spec, n, 5);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t r = distrib_rank(&d, &rng);

		within += r >= n / 2 - n / 10 && r < n / 2 + n / 10;
	}
	print_message("normal:10: %.1f%% of ranks within one deviation of the middle\n",
		      100.0 * (double)within / DRAWS);
	if (within < DRAWS * 63 / 100 || within > DRAWS * 73 / 100)
		fail_msg("normal:10: %" PRIu64 " of %d within one deviation", within, DRAWS);
	free(p);
	free(g);
}

static void test_uniform(void **state)
{
	const uint64_t n = 100;
	uint32_t *c = histogram("random", n, 3);
	uint32_t lo = UINT32_MAX, hi = 0;

	(void)state;
	for (uint64_t i = 0; i < n; i++) {
		lo = c[i] < lo ? c[i] : lo;
		hi = c[i] > hi ? c[i] : hi;
	}
	print_message("random over 100 blocks: %u..%u draws each (1000 expected)\n", lo, hi);
	if (lo < 800 || hi > 1200)
		fail_msg("random: %u..%u per block, want 800..1200", lo, hi);
	free(c);
}

static void test_deterministic(void **state)
{
	const char *specs[] = { "random", "zipf:1.2", "pareto:0.3", "normal:20" };

	(void)state;
	for (size_t i = 0; i < N(specs); i++) {
		uint32_t *a = histogram(specs[i], 5000, 11), *b = histogram(specs[i], 5000, 11);
		uint32_t *c = histogram(specs[i], 5000, 12);

		if (memcmp(a, b, 5000 * sizeof(*a)))
			fail_msg("%s: two runs with seed 11 differ", specs[i]);
		if (!memcmp(a, c, 5000 * sizeof(*a)))
			fail_msg("%s: seeds 11 and 12 draw alike", specs[i]);
		free(a);
		free(b);
		free(c);
	}
}

static void test_scatter_permutation(void **state)
{
	const uint64_t sizes[] = { 1, 2, 3, 7, 1000, 4096, 65537 };
	struct distrib_spec spec = { DISTRIB_ZIPF, 1.2 };

	(void)state;
	for (size_t i = 0; i < N(sizes); i++) {
		uint64_t n = sizes[i];
		unsigned char *seen = calloc(n, 1);
		struct distrib d;

		assert_non_null(seen);
		distrib_init(&d, &spec, n, 42);
		for (uint64_t r = 0; r < n; r++) {
			uint64_t b = distrib_scatter(&d, r);

			if (b >= n || seen[b])
				fail_msg("n %" PRIu64 ": rank %" PRIu64 " -> %" PRIu64 " (out or twice)",
					 n, r, b);
			seen[b] = 1;
		}
		free(seen);
	}
}

static void test_distrib_parse(void **state)
{
	const struct { const char *s; int rc; enum distrib_kind k; double v; const char *back; } t[] = {
		{ "random", 0, DISTRIB_RANDOM, 0, "random" },
		{ "zipf:1.2", 0, DISTRIB_ZIPF, 1.2, "zipf:1.2" },
		{ "zipf:0.8", 0, DISTRIB_ZIPF, 0.8, "zipf:0.8" },
		{ "pareto:0.2", 0, DISTRIB_PARETO, 0.2, "pareto:0.2" },
		{ "normal:10", 0, DISTRIB_NORMAL, 10, "normal:10" },
		{ "zipf", -EINVAL, 0, 0, NULL }, { "zipf:", -EINVAL, 0, 0, NULL },
		{ "zipf:0", -EINVAL, 0, 0, NULL }, { "zipf:-1", -EINVAL, 0, 0, NULL },
		{ "zipf:1.2x", -EINVAL, 0, 0, NULL }, { "zipf:nan", -EINVAL, 0, 0, NULL },
		{ "pareto:1", -EINVAL, 0, 0, NULL }, { "pareto:0", -EINVAL, 0, 0, NULL },
		{ "normal:0", -EINVAL, 0, 0, NULL }, { "normal:101", -EINVAL, 0, 0, NULL },
		{ "gauss:1", -EINVAL, 0, 0, NULL }, { "", -EINVAL, 0, 0, NULL },
		{ "random:1", -EINVAL, 0, 0, NULL }, { "zip:1", -EINVAL, 0, 0, NULL },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(t); i++) {
		struct distrib_spec d = { 0 };
		char buf[64];
		int rc = distrib_parse(t[i].s, &d);

		if (rc != t[i].rc) {
			print_error("'%s': rc %d, want %d\n", t[i].s, rc, t[i].rc);
			bad++;
			continue;
		}
		if (rc)
			continue;
		distrib_format(&d, buf, sizeof(buf));
		if (d.kind != t[i].k || d.param != t[i].v || strcmp(buf, t[i].back)) {
			print_error("'%s': kind %d param %g '%s'\n", t[i].s, d.kind, d.param, buf);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

#define K UINT64_C(1024)
#define MAXBS (UINT64_C(16) << 20)

static void expect_dir(const struct bssplit_dir *d, unsigned n, const uint64_t *bs,
		       const unsigned *pct, const char *what)
{
	if (d->n != n)
		fail_msg("%s: %u sizes, want %u", what, d->n, n);
	for (unsigned i = 0; i < n; i++)
		if (d->bs[i] != bs[i] || d->pct[i] != pct[i])
			fail_msg("%s: entry %u is %" PRIu64 "/%u, want %" PRIu64 "/%u", what, i,
				 d->bs[i], d->pct[i], bs[i], pct[i]);
}

static void test_bssplit_parse(void **state)
{
	struct bssplit b;
	char err[128];

	(void)state;
	assert_int_equal(bssplit_parse("4k/50:64k/30:1m/20", MAXBS, &b, err, sizeof(err)), 0);
	expect_dir(&b.dir[0], 3, (uint64_t[]){ 4 * K, 64 * K, K * K }, (unsigned[]){ 50, 30, 20 },
		   "reads");
	expect_dir(&b.dir[1], 3, (uint64_t[]){ 4 * K, 64 * K, K * K }, (unsigned[]){ 50, 30, 20 },
		   "writes");
	/* A missing percentage takes the rest; several share it. */
	assert_int_equal(bssplit_parse("4k/50:64k", MAXBS, &b, err, sizeof(err)), 0);
	expect_dir(&b.dir[0], 2, (uint64_t[]){ 4 * K, 64 * K }, (unsigned[]){ 50, 50 }, "rest");
	assert_int_equal(bssplit_parse("4k:8k:16k/1", MAXBS, &b, err, sizeof(err)), 0);
	expect_dir(&b.dir[0], 3, (uint64_t[]){ 4 * K, 8 * K, 16 * K }, (unsigned[]){ 50, 49, 1 },
		   "shared rest");
	assert_int_equal(bssplit_parse("4k", MAXBS, &b, err, sizeof(err)), 0);
	expect_dir(&b.dir[0], 1, (uint64_t[]){ 4 * K }, (unsigned[]){ 100 }, "one size");
	/* Per direction: READS,WRITES; an empty side leaves that direction to --bs. */
	assert_int_equal(bssplit_parse("4k/10:64k/90,1m", MAXBS, &b, err, sizeof(err)), 0);
	expect_dir(&b.dir[0], 2, (uint64_t[]){ 4 * K, 64 * K }, (unsigned[]){ 10, 90 }, "reads");
	expect_dir(&b.dir[1], 1, (uint64_t[]){ K * K }, (unsigned[]){ 100 }, "writes");
	assert_int_equal(bssplit_parse(",8k/100", MAXBS, &b, err, sizeof(err)), 0);
	assert_int_equal(b.dir[0].n, 0);
	expect_dir(&b.dir[1], 1, (uint64_t[]){ 8 * K }, (unsigned[]){ 100 }, "writes only");
	assert_int_equal(bssplit_parse("512/100,", MAXBS, &b, err, sizeof(err)), 0);
	expect_dir(&b.dir[0], 1, (uint64_t[]){ 512 }, (unsigned[]){ 100 }, "reads only");
	assert_int_equal(b.dir[1].n, 0);
	assert_int_equal(bssplit_min(&b), 512);
}

static void test_bssplit_bad(void **state)
{
	const char *bad[] = {
		"", ",", "4k/50:64k/60", "4k/50:64k/40", "4q/50", "4k/x", "4k/101", "4k/-1",
		"0/100", "32m/100", "4k/50::64k/50", ":4k", "4k/100,8k/100,16k/100", "4k/",
		"/50", "4k/60:8k/50:16k",
	};
	int wrong = 0;

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		struct bssplit b;
		char err[128] = "";

		if (bssplit_parse(bad[i], MAXBS, &b, err, sizeof(err)) != -EINVAL || !err[0]) {
			print_error("'%s' accepted (or no reason)\n", bad[i]);
			wrong++;
		}
	}
	assert_int_equal(wrong, 0);
}

static void test_bssplit_draws(void **state)
{
	struct bssplit b;
	char err[128];
	uint64_t rng = 1, small = 0;

	(void)state;
	assert_int_equal(bssplit_parse("4k/50:64k/50", MAXBS, &b, err, sizeof(err)), 0);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t s = bssplit_draw(&b.dir[0], &rng);

		if (s != 4 * K && s != 64 * K)
			fail_msg("drew %" PRIu64, s);
		small += s == 4 * K;
	}
	print_message("4k/50:64k/50: 4k %.2f%%, 64k %.2f%% of %d draws\n",
		      100.0 * (double)small / DRAWS, 100.0 * (double)(DRAWS - small) / DRAWS, DRAWS);
	if (small < DRAWS * 46 / 100 || small > DRAWS * 54 / 100)
		fail_msg("4k drawn %" PRIu64 " of %d times, want 46-54%%", small, DRAWS);
}

/* A stream with a skew and a size mix: each op inside its file, aligned to its size. */
static void test_stream_shaped(void **state)
{
	struct distrib_spec spec = { DISTRIB_ZIPF, 1.2 };
	struct bssplit b;
	struct wl_stream s;
	struct wl_op op;
	char err[128];
	uint64_t size = 8 << 20, per_file[3] = { 0 }, big = 0;

	(void)state;
	assert_int_equal(bssplit_parse("4k/50:64k/50", MAXBS, &b, err, sizeof(err)), 0);
	assert_int_equal(wl_stream_init(&s, 0, 1, 3, size, 64 * K, true, 50, 5), 0);
	wl_stream_shape(&s, &spec, &b, 1);
	for (int i = 0; i < DRAWS; i++) {
		assert_true(wl_next(&s, &op));
		if (op.offset % op.len || op.offset + op.len > size || op.file >= 3)
			fail_msg("op at %" PRIu64 " len %u file %u", op.offset, op.len, op.file);
		per_file[op.file]++;
		big += op.len == 64 * K;
	}
	print_message("zipf over 3 files: %" PRIu64 " %" PRIu64 " %" PRIu64 " ops; %" PRIu64
		      " of 64k\n", per_file[0], per_file[1], per_file[2], big);
	for (int f = 0; f < 3; f++)
		if (per_file[f] == 0)
			fail_msg("file %d never drawn", f);
	if (big < DRAWS * 46 / 100 || big > DRAWS * 54 / 100)
		fail_msg("64k ops: %" PRIu64, big);
	wl_stream_destroy(&s);

	/* Sequential with a mix: contiguous, each op its drawn size. */
	assert_int_equal(wl_stream_init(&s, 0, 1, 1, size, 64 * K, false, 0, 5), 0);
	wl_stream_shape(&s, NULL, &b, 1);
	s.budget = size;
	for (uint64_t next = 0; wl_next(&s, &op); next += op.len)
		if (op.offset != next || (op.len != 4 * K && op.len != 64 * K && next + op.len != size))
			fail_msg("sequential op at %" PRIu64 " len %u, want at %" PRIu64, op.offset,
				 op.len, next);
	wl_stream_destroy(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zipf_skew_scattered),
		cmocka_unit_test(test_zipf_large),
		cmocka_unit_test(test_pareto_normal_plausible),
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_scatter_permutation),
		cmocka_unit_test(test_distrib_parse),
		cmocka_unit_test(test_bssplit_parse),
		cmocka_unit_test(test_bssplit_bad),
		cmocka_unit_test(test_bssplit_draws),
		cmocka_unit_test(test_stream_shaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
