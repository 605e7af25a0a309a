/*
 * reduce unit tests: --buffer-compress-percentage and --dedupe-percentage
 * (pattern.h). zlib on 64 KiB chunks gives about 100-P% for the reduced
 * pattern at any block size and with --verify; --dedupe-percentage leaves
 * about 100-P% of 4 KiB blocks distinct; the bytes stay a function of file
 * and offset however a region is cut into writes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zlib.h>

#include "pattern.h"
#include "verify.h"

#define MiB (UINT64_C(1) << 20)
#define CHUNK 65536u

static uint8_t *xmalloc(size_t n)
{
	uint8_t *p = malloc(n);

	assert_non_null(p);
	return p;
}

/* Compressed size over size, zlib per 64 KiB chunk (as the integration test does on the server). */
static double zratio(const uint8_t *d, size_t n)
{
	uLong bound = compressBound(CHUNK), total = 0;
	uint8_t *out = xmalloc(bound);

	for (size_t at = 0; at < n; at += CHUNK) {
		uLongf len = bound;

		assert_int_equal(compress2(out, &len, d + at, n - at < CHUNK ? n - at : CHUNK,
					   Z_DEFAULT_COMPRESSION), Z_OK);
		total += len;
	}
	free(out);
	return (double)total / (double)n;
}

/* A file of n bytes as writes of bs through pattern_at (dedupe 0) or pattern_fill. */
static uint8_t *file_of(const uint8_t *pat, unsigned dedupe, uint32_t file, size_t n, size_t bs)
{
	uint8_t *d = xmalloc(n);

	for (size_t at = 0; at < n; at += bs) {
		size_t len = n - at < bs ? n - at : bs;

		if (dedupe)
			pattern_fill(pat, dedupe, file, at, d + at, len);
		else
			memcpy(d + at, pattern_at(pat, file, at), len);
	}
	return d;
}

static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Distinct 4 KiB blocks over all blocks. */
static double unique_share(const uint8_t *d, size_t n)
{
	size_t nb = n / PATTERN_UNIT, distinct = 0;
	uint64_t *h = calloc(nb, sizeof(*h));

	assert_non_null(h);
	for (size_t b = 0; b < nb; b++)
		h[b] = XXH3_64bits(d + b * PATTERN_UNIT, PATTERN_UNIT);
	qsort(h, nb, sizeof(*h), cmp64);
	for (size_t b = 0; b < nb; b++)
		distinct += b == 0 || h[b] != h[b - 1];
	free(h);
	return (double)distinct / (double)nb;
}

static void test_compress_60(void **state)
{
	static const size_t bss[] = { 512, 4096, 65536, 1 << 20 };
	uint8_t *pat = pattern_new(1 << 20, 60);

	(void)state;
	assert_non_null(pat);
	for (size_t k = 0; k < sizeof(bss) / sizeof(bss[0]); k++)
		for (uint32_t file = 0; file < 3; file++) {
			uint8_t *d = file_of(pat, 0, file, 8 * MiB, bss[k]);
			double r = zratio(d, 8 * MiB);

			print_message("compress 60, bs %zu, file %u: %.3f\n", bss[k], file, r);
			assert_true(r >= 0.30 && r <= 0.50);
			free(d);
		}
	free(pat);
}

static void test_compress_0_and_100(void **state)
{
	uint8_t *pat = pattern_new(65536, 0), *all = pattern_new(65536, 100);
	uint8_t *d = file_of(pat, 0, 1, 4 * MiB, 65536);
	double r = zratio(d, 4 * MiB);

	(void)state;
	print_message("compress 0: %.4f\n", r);
	assert_true(r > 0.99);
	free(d);
	d = file_of(all, 0, 1, 4 * MiB, 65536);
	for (size_t i = 0; i < 4 * MiB; i++)
		assert_int_equal(d[i], 0);
	free(d);
	free(pat);
	free(all);
}

static void test_dedupe_50(void **state)
{
	uint8_t *pat = pattern_new(65536, 0);
	uint8_t *d = file_of(pat, 50, 2, 64 * MiB, 65536);
	double u = unique_share(d, 64 * MiB);

	(void)state;
	print_message("dedupe 50 over 64 MiB: %.4f unique\n", u);
	assert_true(u >= 0.45 && u <= 0.55);
	free(d);
	/* 100: only the shared blocks; 1 (the fill, stamped): all unique. */
	d = file_of(pat, 100, 2, 8 * MiB, 4096);
	assert_true(unique_share(d, 8 * MiB) * (8 * MiB / PATTERN_UNIT) <= PATTERN_SHARED);
	free(d);
	d = file_of(pat, 1, 2, 8 * MiB, 4096);
	u = unique_share(d, 8 * MiB);
	assert_true(u >= 0.98);
	free(d);
	/* Today's data (no dedupe option): blocks repeat every 64 KiB. */
	d = file_of(pat, 0, 2, 8 * MiB, 4096);
	assert_true(unique_share(d, 8 * MiB) * (8 * MiB / PATTERN_UNIT) <= 16);
	free(d);
	free(pat);
}

static void test_dedupe_and_compress(void **state)
{
	uint8_t *pat = pattern_new(65536, 60);
	uint8_t *d = file_of(pat, 50, 0, 16 * MiB, 65536);
	double r = zratio(d, 16 * MiB), u = unique_share(d, 16 * MiB);

	(void)state;
	print_message("compress 60 + dedupe 50: ratio %.3f, unique %.3f\n", r, u);
	assert_true(r >= 0.25 && r <= 0.50);
	assert_true(u >= 0.45 && u <= 0.56);
	free(d);
	free(pat);
}

/* Same (file, offset), same bytes: whole writes, odd pieces, rewrites. */
static void test_same_place_same_bytes(void **state)
{
	uint8_t *pat = pattern_new(1 << 20, 37);
	uint8_t *a = file_of(pat, 40, 5, 2 * MiB, 1 << 20), *b = xmalloc(2 * MiB);
	uint64_t x = 12345;

	(void)state;
	for (size_t at = 0; at < 2 * MiB;) {
		size_t len;

		x = x * 6364136223846793005u + 1442695040888963407u;
		len = 1 + (size_t)(x >> 33) % 9000;
		if (len > 2 * MiB - at)
			len = 2 * MiB - at;
		pattern_fill(pat, 40, 5, at, b + at, len);
		at += len;
	}
	assert_memory_equal(a, b, 2 * MiB);
	/* A rewrite of a region in the middle changes nothing. */
	pattern_fill(pat, 40, 5, 4096 * 7 + 100, b + 4096 * 7 + 100, 10000);
	assert_memory_equal(a, b, 2 * MiB);
	/* Another file differs. */
	pattern_fill(pat, 40, 6, 0, b, 2 * MiB);
	assert_true(memcmp(a, b, 2 * MiB) != 0);
	/* pattern_at: a function of file and offset, the reduced P repeated. */
	assert_memory_equal(pattern_at(pat, 3, 4096 * 9 + 5), pattern_at(pat, 3, 4096 * 9 + 5 + 65536),
			    4096);
	free(a);
	free(b);
	free(pat);
}

/*
 * pattern_restamp over a buffer pattern_fill made for a write of the same
 * pattern_key: the bytes pattern_fill gives, at aligned and unaligned offsets,
 * in other files of the same key, and shorter than the first write. A key
 * that differs means different bytes (else the slot's cache would be wrong).
 */
static void test_restamp(void **state)
{
	static const struct { uint32_t file; uint64_t offset; size_t len; } w[][2] = {
		{ { 0, 0, MiB }, { 0, 5 * MiB, MiB } },
		{ { 3, 65536, 65536 }, { 3, 65536 * 40, 65536 } },
		{ { 2, 4096 * 3 + 7, 20000 }, { 2, 4096 * 3 + 7 + 65536 * 9, 19000 } },
		{ { 1, 10, 4096 }, { 1, 10 + 65536, 100 } },
		/* another file whose 4099-byte shift lands on the same phase: 4099 * 4096 = 3 * 4096 mod 64 KiB */
		{ { 0, 3 * 4096, 8192 }, { 4096, 0, 8192 } },
	};
	uint8_t *pat = pattern_new(MiB, 0), *a = xmalloc(MiB), *b = xmalloc(MiB);

	(void)state;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		assert_int_equal(pattern_key(w[i][0].file, w[i][0].offset),
				 pattern_key(w[i][1].file, w[i][1].offset));
		pattern_fill(pat, 0, w[i][0].file, w[i][0].offset, a, w[i][0].len);
		pattern_restamp(w[i][1].file, w[i][1].offset, a, w[i][1].len);
		pattern_fill(pat, 0, w[i][1].file, w[i][1].offset, b, w[i][1].len);
		assert_memory_equal(a, b, w[i][1].len);
		/* the first write's stamps were all replaced: the blocks differ */
		pattern_fill(pat, 0, w[i][0].file, w[i][0].offset, b, w[i][1].len);
		assert_true(memcmp(a, b, w[i][1].len) != 0);
	}
	assert_true(pattern_key(0, 0) != pattern_key(0, 4096));
	assert_true(pattern_key(0, 0) != pattern_key(0, 1));
	assert_true(pattern_key(0, 0) != pattern_key(1, 0));
	assert_true(pattern_key(0, 0) != 0);
	free(a);
	free(b);
	free(pat);
}

/* --verify blocks over the reduced P: they check, and compress alike. */
static void test_verify_reduced(void **state)
{
	uint8_t *pat = pattern_new(65536, 60);
	struct verify_params p = { .block = 65536, .generation = 7, .seed = 1, .pattern = pat };
	struct verify_params plain = p;
	uint8_t *d = xmalloc(8 * MiB);
	struct verify_mismatch m;
	double r;

	(void)state;
	verify_fill(&p, 2, 0, d, 8 * MiB);
	assert_int_equal(verify_check(&p, 2, 0, d, 8 * MiB, 7, &m), 0);
	/* The check needs no P (the checksum is over what was read). */
	plain.pattern = NULL;
	assert_int_equal(verify_check(&plain, 2, 0, d, 8 * MiB, 7, NULL), 0);
	r = zratio(d, 8 * MiB);
	print_message("verify, compress 60: %.3f, unique 4 KiB %.3f\n", r, unique_share(d, 8 * MiB));
	assert_true(r >= 0.30 && r <= 0.50);
	/* A damaged byte is found and placed against the reduced P. */
	d[65536 * 3 + 1000] ^= 1;
	assert_int_equal(verify_check(&p, 2, 0, d, 8 * MiB, 7, &m), 1);
	assert_int_equal(m.kind, VERIFY_CHECKSUM);
	assert_int_equal(m.first_diff, 1000);
	free(d);
	free(pat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compress_60),
		cmocka_unit_test(test_compress_0_and_100),
		cmocka_unit_test(test_dedupe_50),
		cmocka_unit_test(test_dedupe_and_compress),
		cmocka_unit_test(test_same_place_same_bytes),
		cmocka_unit_test(test_verify_reduced),
		cmocka_unit_test(test_restamp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
