/*
 * verify unit tests: the block format against a byte-by-byte reference
 * written from the man page, round trips, every kind of mismatch with its
 * place and first differing byte, describe(), and the written-block map
 * (word boundaries, two threads at once).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "verify.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define SEED UINT64_C(0xabcdef0012345678)

static const uint32_t block_sizes[] = { 64, 100, 512, 4096, 65536, 200000 };

static uint8_t *xmalloc(size_t n)
{
	uint8_t *p = malloc(n);

	assert_non_null(p);
	return p;
}

static uint64_t ref_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* P of DATA WRITTEN, as the man page says it. */
static uint8_t ref_p(uint32_t i)
{
	static uint8_t p[65536];
	static bool built;

	if (!built) {
		uint64_t state = UINT64_C(0x6e66736c6f6164);

		for (unsigned k = 0; k < 65536; k++) {
			if (k % 8 == 0)
				state += UINT64_C(0x9e3779b97f4a7c15);
			p[k] = (uint8_t)(ref_mix(state) >> (8 * (k % 8)));
		}
		built = true;
	}
	return p[i % 65536];
}

/* One block from include/verify.h's description, one byte at a time. */
static void ref_block(uint32_t block, uint32_t seed32, uint32_t file, uint64_t offset,
		      uint32_t gen, uint8_t *b)
{
	uint64_t k = ref_mix(ref_mix(ref_mix((uint64_t)file << 32 | seed32) ^ offset) ^ gen);
	uint64_t sum;

	for (int i = 0; i < 4; i++) {
		b[i] = "NFLV"[i];
		b[4 + i] = (uint8_t)(file >> 8 * i);
		b[16 + i] = (uint8_t)(gen >> 8 * i);
		b[20 + i] = (uint8_t)(seed32 >> 8 * i);
	}
	for (int i = 0; i < 8; i++) {
		b[8 + i] = (uint8_t)(offset >> 8 * i);
		b[24 + i] = 0;
	}
	for (uint32_t i = 32; i < block; i++)
		b[i] = ref_p((uint32_t)(k >> 48) + i - 32) ^ (uint8_t)(k >> 8 * (i % 8));
	sum = XXH3_64bits(b, block);
	for (int i = 0; i < 8; i++)
		b[24 + i] = (uint8_t)(sum >> 8 * i);
}

static void test_reference_format(void **state)
{
	(void)state;
	for (size_t s = 0; s < N(block_sizes); s++) {
		uint32_t bs = block_sizes[s];
		struct verify_params p = { .block = bs, .generation = 7, .seed = SEED };
		uint8_t *got = xmalloc(bs), *want = xmalloc(bs);
		uint64_t offs[] = { 0, bs, (uint64_t)bs * 12345, (uint64_t)bs * 0xffffffffu };

		for (size_t o = 0; o < N(offs); o++) {
			verify_fill(&p, 3, offs[o], got, bs);
			ref_block(bs, (uint32_t)SEED, 3, offs[o], 7, want);
			for (uint32_t i = 0; i < bs; i++) {
				if (got[i] != want[i]) {
					print_error("block %" PRIu32 " offset %" PRIu64 " byte %" PRIu32
						    ": got 0x%02x, want 0x%02x\n", bs, offs[o], i,
						    got[i], want[i]);
					fail();
				}
			}
		}
		free(got);
		free(want);
	}
}

static void test_round_trip(void **state)
{
	(void)state;
	for (size_t s = 0; s < N(block_sizes); s++) {
		uint32_t bs = block_sizes[s];
		size_t nblocks = bs >= 65536 ? 20 : 300;
		size_t len = (size_t)bs * nblocks;
		uint64_t off = (uint64_t)bs * 1000003;
		struct verify_params p = { .block = bs, .generation = 42, .seed = SEED };
		struct verify_mismatch m;
		uint8_t *buf = xmalloc(len + 1);
		uint64_t bad;

		buf[len] = 0x5a;
		verify_fill(&p, 9, off, buf, len);
		assert_int_equal(buf[len], 0x5a);
		bad = verify_check(&p, 9, off, buf, len, 42, &m);
		if (bad != 0 || m.kind != VERIFY_OK || m.first_diff != UINT64_MAX) {
			char line[512];

			verify_describe(&m, line, sizeof(line));
			print_error("block %" PRIu32 ": %" PRIu64 " bad, %s\n", bs, bad, line);
			fail();
		}
		assert_int_equal(verify_check(&p, 9, off, buf, len, 0, NULL), 0);
		/* Filled in pieces, the same bytes. */
		{
			uint8_t *two = xmalloc(len);

			verify_fill(&p, 9, off, two, bs);
			verify_fill(&p, 9, off + bs, two + bs, len - bs);
			assert_memory_equal(buf, two, len);
			free(two);
		}
		free(buf);
	}
}

/* What a flip of byte pos of a header field must be reported as. */
static enum verify_kind kind_at(uint32_t pos, bool want_gen)
{
	if (pos < 4)
		return VERIFY_MAGIC;
	if (pos < 8)
		return VERIFY_FILE;
	if (pos < 16)
		return VERIFY_OFFSET;
	if (pos < 20 && want_gen)
		return VERIFY_GENERATION;
	return VERIFY_CHECKSUM;
}

static int check_flip(uint32_t bs, uint32_t pos, uint8_t flip, uint32_t want_gen)
{
	const size_t nblocks = 4, victim = 2;
	uint64_t off = (uint64_t)bs * 77;
	struct verify_params p = { .block = bs, .generation = 5, .seed = SEED };
	struct verify_mismatch m;
	uint8_t *buf = xmalloc(bs * nblocks);
	uint8_t orig;
	uint64_t bad;
	enum verify_kind want = kind_at(pos, want_gen != 0);
	int fails = 0;

	verify_fill(&p, 11, off, buf, bs * nblocks);
	orig = buf[victim * bs + pos];
	buf[victim * bs + pos] ^= flip;
	bad = verify_check(&p, 11, off, buf, bs * nblocks, want_gen, &m);
	if (bad != 1 || m.kind != want || m.file != 11 || m.offset != off + victim * bs ||
	    m.block != bs || m.first_diff != pos || m.expected_byte != orig ||
	    m.found_byte != (uint8_t)(orig ^ flip)) {
		print_error("block %" PRIu32 " flip 0x%02x at %" PRIu32 " want_gen %" PRIu32
			    ": got %" PRIu64 " bad, kind %s offset %" PRIu64 " first_diff %" PRIu64
			    " 0x%02x/0x%02x; want 1, %s, %" PRIu64 ", %" PRIu32 ", 0x%02x/0x%02x\n",
			    bs, flip, pos, want_gen, bad, verify_kind_name(m.kind), m.offset,
			    m.first_diff, m.expected_byte, m.found_byte, verify_kind_name(want),
			    off + victim * bs, pos, orig, (uint8_t)(orig ^ flip));
		fails++;
	}
	free(buf);
	return fails;
}

static void test_every_flip(void **state)
{
	static const uint8_t flips[] = { 0x01, 0x80, 0xff };
	int fails = 0;

	(void)state;
	/* Every byte of small blocks. */
	for (uint32_t bs = 64; bs <= 512; bs += 448)
		for (uint32_t pos = 0; pos < bs; pos++)
			for (size_t f = 0; f < N(flips); f++) {
				fails += check_flip(bs, pos, flips[f], 5);
				fails += check_flip(bs, pos, flips[f], 0);
			}
	/* Header, the payload's ends and samples in between for the larger ones. */
	for (size_t s = 0; s < N(block_sizes); s++) {
		uint32_t bs = block_sizes[s];
		uint32_t pos[] = { 0, 3, 4, 7, 8, 15, 16, 19, 20, 23, 24, 31, 32, 33, 39, 40,
				   1023, 1024, 1025, bs / 2, bs - 9, bs - 8, bs - 2, bs - 1 };

		for (size_t i = 0; i < N(pos); i++)
			if (pos[i] < bs)
				fails += check_flip(bs, pos[i], 0x10, 5);
	}
	assert_int_equal(fails, 0);
}

static void expect_kind(const uint8_t *buf, uint32_t bs, uint32_t file, uint64_t off,
			uint32_t want_gen, enum verify_kind want, uint64_t want_diff)
{
	struct verify_params p = { .block = bs, .generation = 1, .seed = SEED };
	struct verify_mismatch m;
	uint64_t bad = verify_check(&p, file, off, buf, bs, want_gen, &m);

	if (bad != (want != VERIFY_OK) || m.kind != want || m.first_diff != want_diff) {
		print_error("file %" PRIu32 " offset %" PRIu64 " want_gen %" PRIu32 ": got %" PRIu64
			    " bad, %s, first_diff %" PRIu64 "; want %s, %" PRIu64 "\n", file, off,
			    want_gen, bad, verify_kind_name(m.kind), m.first_diff,
			    verify_kind_name(want), want_diff);
		fail();
	}
}

static void test_wrong_place(void **state)
{
	struct verify_params p = { .block = 4096, .generation = 6, .seed = SEED };
	uint8_t buf[4096];

	(void)state;
	verify_fill(&p, 3, 8192, buf, sizeof(buf));
	expect_kind(buf, 4096, 3, 8192, 6, VERIFY_OK, UINT64_MAX);
	expect_kind(buf, 4096, 3, 8192, 0, VERIFY_OK, UINT64_MAX);
	expect_kind(buf, 4096, 4, 8192, 6, VERIFY_FILE, 4);
	expect_kind(buf, 4096, 3 + 256, 8192, 0, VERIFY_FILE, 5);
	expect_kind(buf, 4096, 3, 4096, 6, VERIFY_OFFSET, 9);
	expect_kind(buf, 4096, 3, 8192 + (UINT64_C(1) << 40), 6, VERIFY_OFFSET, 13);
	expect_kind(buf, 4096, 3, 8192, 7, VERIFY_GENERATION, 16);
	expect_kind(buf, 4096, 3, 8192, 6 + 65536, VERIFY_GENERATION, 18);
	/* Another seed: the seed32 field is the first difference. */
	p.seed = SEED ^ 0x100;
	verify_fill(&p, 3, 8192, buf, sizeof(buf));
	expect_kind(buf, 4096, 3, 8192, 6, VERIFY_CHECKSUM, 21);
	expect_kind(buf, 4096, 3, 8192, 0, VERIFY_CHECKSUM, 21);
}

static void test_any_generation(void **state)
{
	struct verify_mismatch m;
	uint8_t buf[512 * 8];

	(void)state;
	for (uint32_t gen = 1; gen < 8; gen++) {
		struct verify_params p = { .block = 512, .generation = gen * 1000, .seed = SEED };

		verify_fill(&p, 1, 0, buf + 512 * gen, 512);
	}
	{
		struct verify_params p = { .block = 512, .generation = 999, .seed = SEED };

		verify_fill(&p, 1, 0, buf, 512);
		assert_int_equal(verify_check(&p, 1, 0, buf, 512, 0, &m), 0);
		/* Any generation, but each block's place still counts. */
		assert_int_equal(verify_check(&p, 1, 0, buf, sizeof(buf), 0, &m), 7);
		assert_int_equal(m.kind, VERIFY_OFFSET);
		assert_int_equal(m.offset, 512);
	}
}

static void test_zero_block(void **state)
{
	struct verify_params p = { .block = 4096, .generation = 3, .seed = SEED };
	struct verify_mismatch m;
	char line[512];
	uint8_t *buf = calloc(1, 4096 * 3);

	(void)state;
	assert_non_null(buf);
	verify_fill(&p, 2, 0, buf, 4096);
	assert_int_equal(verify_check(&p, 2, 0, buf, 4096 * 3, 3, &m), 2);
	assert_int_equal(m.kind, VERIFY_MAGIC);
	assert_int_equal(m.offset, 4096);
	assert_int_equal(m.first_diff, 0);
	assert_int_equal(m.expected_byte, 'N');
	assert_int_equal(m.found_byte, 0);
	assert_int_equal(m.expected.generation, 3);
	/* Without a wanted generation, none is made up. */
	assert_int_equal(verify_check(&p, 2, 4096, buf + 4096, 4096, 0, &m), 1);
	assert_int_equal(m.kind, VERIFY_MAGIC);
	assert_int_equal(m.first_diff, 0);
	assert_int_equal(m.expected.generation, 0);
	verify_describe(&m, line, sizeof(line));
	if (!strstr(line, "gen=any") || !strstr(line, "zeros") || !strstr(line, "+0 ")) {
		print_error("describe: \"%s\"\n", line);
		fail();
	}
	free(buf);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Payloads differ between blocks, generations and seeds, not only headers. */
static void test_blocks_differ(void **state)
{
	enum { NB = 20000 };
	struct verify_params p = { .block = 64, .generation = 1, .seed = SEED };
	uint64_t *w = calloc(NB, sizeof(*w));
	uint8_t b[64], c[64];
	int same = 0;

	(void)state;
	assert_non_null(w);
	for (uint32_t i = 0; i < NB; i++) {
		p.generation = 1 + i % 3;
		verify_fill(&p, i % 5, (uint64_t)(i / 15) * 64, b, 64);
		memcpy(&w[i], b + 32, 8);
	}
	qsort(w, NB, sizeof(*w), cmp_u64);
	for (uint32_t i = 1; i < NB; i++)
		same += w[i] == w[i - 1];
	assert_int_equal(same, 0);

	p.generation = 1;
	verify_fill(&p, 0, 0, b, 64);
	p.generation = 2;
	verify_fill(&p, 0, 0, c, 64);
	assert_memory_not_equal(b + 32, c + 32, 32);
	p.seed = SEED + 1;
	verify_fill(&p, 0, 0, c, 64);
	p.generation = 1;
	assert_memory_not_equal(b + 32, c + 32, 32);
	free(w);
}

static void test_describe(void **state)
{
	struct verify_params p = { .block = 4096, .generation = 7, .seed = 0x2a };
	struct verify_mismatch m;
	char line[512], small[40];
	uint8_t buf[4096 * 11];
	static const char *const want[] = {
		"file 3 offset 40960 (block 10): checksum mismatch;",
		"expected magic=NFLV file=3 offset=40960 gen=7 seed=0x0000002a checksum=0x",
		"found magic=NFLV file=3 offset=40960 gen=7 seed=0x0000002a checksum=0x",
		"first differing byte at +117 (file offset 41077): expected 0x",
	};

	(void)state;
	verify_fill(&p, 3, 0, buf, sizeof(buf));
	buf[40960 + 117] ^= 0x01;
	assert_int_equal(verify_check(&p, 3, 0, buf, sizeof(buf), 7, &m), 1);
	verify_describe(&m, line, sizeof(line));
	for (size_t i = 0; i < N(want); i++) {
		if (!strstr(line, want[i])) {
			print_error("describe: \"%s\" lacks \"%s\"\n", line, want[i]);
			fail();
		}
	}
	assert_null(strchr(line, '\n'));
	assert_int_equal(m.expected.checksum, m.found.checksum);	/* only the payload changed */

	buf[40960 + 2] = 'X';
	assert_int_equal(verify_check(&p, 3, 40960, buf + 40960, 4096, 7, &m), 1);
	verify_describe(&m, line, sizeof(line));
	if (!strstr(line, "bad magic") || !strstr(line, "found magic=0x") ||
	    !strstr(line, "+2 (file offset 40962): expected 0x4c, found 0x58")) {
		print_error("describe: \"%s\"\n", line);
		fail();
	}
	verify_describe(&m, small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_string_equal(verify_kind_name(VERIFY_GENERATION), "generation");
	assert_string_equal(verify_kind_name(VERIFY_OK), "ok");
}

static void test_bad_count(void **state)
{
	struct verify_params p = { .block = 512, .generation = 2, .seed = SEED };
	struct verify_mismatch m;
	uint8_t buf[512 * 10];

	(void)state;
	verify_fill(&p, 0, 0, buf, sizeof(buf));
	buf[512 * 2 + 300] ^= 4;
	buf[512 * 5 + 8] ^= 4;
	memset(buf + 512 * 9, 0, 512);
	assert_int_equal(verify_check(&p, 0, 0, buf, sizeof(buf), 2, &m), 3);
	assert_int_equal(m.kind, VERIFY_CHECKSUM);
	assert_int_equal(m.offset, 1024);
	assert_int_equal(m.first_diff, 300);
	assert_int_equal(verify_check(&p, 0, 0, buf, sizeof(buf), 2, NULL), 3);
	assert_int_equal(verify_check(&p, 0, 512 * 3, buf + 512 * 3, 512 * 7, 2, &m), 2);
	assert_int_equal(m.kind, VERIFY_OFFSET);
	assert_int_equal(m.offset, 512 * 5);
}

#define MAP_BLOCK 4096u
#define MAP_BLOCKS 300u	/* per file: 4 words and a bit, the last block short */
#define MAP_SIZE ((uint64_t)MAP_BLOCK * (MAP_BLOCKS - 1) + 100)

static int map_compare(const struct verify_map *m, const bool want[][MAP_BLOCKS], uint32_t nf)
{
	int bad = 0;

	for (uint32_t f = 0; f < nf; f++)
		for (uint32_t b = 0; b < MAP_BLOCKS; b++) {
			uint64_t at = (uint64_t)b * MAP_BLOCK + (b % 7) * 100;
			bool got = verify_map_test(m, f, at < MAP_SIZE ? at : MAP_SIZE - 1);

			if (got != want[f][b]) {
				print_error("file %" PRIu32 " block %" PRIu32 ": got %d want %d\n",
					    f, b, got, want[f][b]);
				bad++;
			}
		}
	return bad;
}

static void test_map(void **state)
{
	static bool want[3][MAP_BLOCKS];
	static const struct { uint32_t file, first, n; } sets[] = {
		{ 0, 0, 1 }, { 0, 60, 11 }, { 0, 127, 2 }, { 1, 63, 1 }, { 1, 64, 1 },
		{ 1, 5, 250 }, { 2, 299, 1 }, { 2, 190, 4 },
	};
	struct verify_map *m = verify_map_new(3, MAP_SIZE, MAP_BLOCK);

	(void)state;
	assert_non_null(m);
	assert_int_equal(map_compare(m, want, 3), 0);
	for (size_t i = 0; i < N(sets); i++) {
		verify_map_set(m, sets[i].file, (uint64_t)sets[i].first * MAP_BLOCK,
			       (uint64_t)sets[i].n * MAP_BLOCK);
		for (uint32_t b = sets[i].first; b < sets[i].first + sets[i].n; b++)
			want[sets[i].file][b] = true;
	}
	/* Unaligned: every block the range touches. */
	verify_map_set(m, 2, 10 * MAP_BLOCK - 1, 2);
	want[2][9] = want[2][10] = true;
	/* Outside the map: ignored, clamped, false. */
	verify_map_set(m, 3, 0, MAP_BLOCK);
	verify_map_set(m, 0, MAP_SIZE, MAP_BLOCK);
	verify_map_set(m, 0, 250 * MAP_BLOCK, UINT64_MAX);
	verify_map_set(m, 0, 200 * MAP_BLOCK, 0);
	for (uint32_t b = 250; b < MAP_BLOCKS; b++)
		want[0][b] = true;
	assert_int_equal(map_compare(m, want, 3), 0);
	assert_false(verify_map_test(m, 3, 0));
	assert_false(verify_map_test(m, 1, MAP_SIZE));
	verify_map_free(m);
	verify_map_free(NULL);
	assert_null(verify_map_new(0, MAP_SIZE, MAP_BLOCK));
	assert_null(verify_map_new(1, MAP_SIZE, 0));
	assert_null(verify_map_new(UINT32_MAX, UINT64_MAX, 1));
}

struct setter {
	struct verify_map *m;
	uint32_t parity;
};

/* Alternate blocks, so both threads hit the same words all the time; blocks
 * 3k are never set, the rest many times over. */
static void *set_alternate(void *arg)
{
	const struct setter *s = arg;

	for (int round = 0; round < 200; round++)
		for (uint32_t f = 0; f < 2; f++)
			for (uint32_t b = s->parity; b < MAP_BLOCKS; b += 2)
				if (b % 3 != 0)
					verify_map_set(s->m, f, (uint64_t)b * MAP_BLOCK, MAP_BLOCK);
	return NULL;
}

static void test_map_threads(void **state)
{
	static bool want[2][MAP_BLOCKS];
	struct verify_map *m = verify_map_new(2, MAP_SIZE, MAP_BLOCK);
	struct setter s[2] = { { m, 0 }, { m, 1 } };
	pthread_t t[2];

	(void)state;
	assert_non_null(m);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, set_alternate, &s[i]), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (uint32_t f = 0; f < 2; f++)
		for (uint32_t b = 0; b < MAP_BLOCKS; b++)
			want[f][b] = b % 3 != 0;
	assert_int_equal(map_compare(m, want, 2), 0);
	verify_map_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_format),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_every_flip),
		cmocka_unit_test(test_wrong_place),
		cmocka_unit_test(test_any_generation),
		cmocka_unit_test(test_zero_block),
		cmocka_unit_test(test_blocks_differ),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_bad_count),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_map_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
