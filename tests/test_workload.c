/*
 * workload unit tests: the file-to-connection mapping, sequential coverage
 * and wrap-around, random offsets (alignment, bounds, uniformity,
 * determinism), the read/write mix, byte budgets, empty ranges and mode
 * names. Tables run to the end and print every mismatch before failing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define KI UINT64_C(1024)
#define MI (KI * KI)
#define N(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t nblocks(uint64_t bytes, uint64_t bs)
{
	return (bytes + bs - 1) / bs;
}

/* Bytes wl_next is expected to hand out for a block at off of a file. */
static uint64_t block_len(uint64_t size, uint64_t bs, uint64_t off)
{
	return min_u64(bs, size - off);
}

/* ---- sequential, one connection, one file ---- */

struct seq_case {
	uint64_t size, bs;
};

static const struct seq_case seq_cases[] = {
	{ 1 * MI, 4 * KI },
	{ 1 * MI + 1, 4 * KI },		/* one-byte tail */
	{ 1 * MI - 1, 4 * KI },		/* tail one byte short of a block */
	{ 10000, 4096 },
	{ 4096, 4096 },			/* exactly one block */
	{ 4097, 4096 },
	{ 12345, 1000 },
	{ 3 * 65536 + 7, 65536 },
	{ 1, 1 },
	{ 7, 1 },
	{ 16 * MI, 16 * MI },
	{ 64 * MI + 512, 1 * MI },
};

/*
 * Walks one pass (wl_stream_pass_bytes bytes) of a one-connection,
 * one-file stream and then one op more; returns the number of mismatches.
 */
static int check_seq_pass(const struct seq_case *c)
{
	struct wl_stream s;
	struct wl_op op;
	uint64_t pass, sum = 0, i, nb = nblocks(c->size, c->bs);
	int bad = 0;

	assert_int_equal(wl_stream_init(&s, 0, 1, 1, c->size, c->bs, false, 100, 1), 0);
	pass = wl_stream_pass_bytes(&s);
	if (pass != c->size || s.nranges != 1) {
		print_error("size %" PRIu64 " bs %" PRIu64 ": pass bytes %" PRIu64
			    " nranges %u, want %" PRIu64 " and 1\n", c->size, c->bs, pass,
			    s.nranges, c->size);
		wl_stream_destroy(&s);
		return 1;
	}
	/* Two passes: the second must repeat the first exactly. */
	for (int p = 0; p < 2; p++) {
		sum = 0;
		for (i = 0; sum < pass; i++) {
			uint64_t want_off = i * c->bs;

			if (!wl_next(&s, &op)) {
				print_error("size %" PRIu64 " bs %" PRIu64 " pass %d: wl_next false "
					    "after %" PRIu64 " ops\n", c->size, c->bs, p, i);
				wl_stream_destroy(&s);
				return bad + 1;
			}
			if (op.offset != want_off ||
			    op.len != block_len(c->size, c->bs, want_off) ||
			    op.file != 0 || op.range != 0 || op.type != OP_READ) {
				print_error("size %" PRIu64 " bs %" PRIu64 " pass %d op %" PRIu64
					    ": offset %" PRIu64 " len %u file %u range %u type %d,"
					    " want offset %" PRIu64 " len %" PRIu64 " file 0 range 0"
					    " type read\n", c->size, c->bs, p, i, op.offset, op.len,
					    op.file, op.range, (int)op.type, want_off,
					    block_len(c->size, c->bs, want_off));
				bad++;
			}
			sum += op.len;
		}
		if (i != nb || sum != c->size) {
			print_error("size %" PRIu64 " bs %" PRIu64 " pass %d: %" PRIu64
				    " ops summing to %" PRIu64 ", want %" PRIu64 " ops and %" PRIu64
				    " bytes\n", c->size, c->bs, p, i, sum, nb, c->size);
			bad++;
		}
		if (op.len != c->size - (nb - 1) * c->bs) {
			print_error("size %" PRIu64 " bs %" PRIu64 ": last len %u, want tail %"
				    PRIu64 "\n", c->size, c->bs, op.len, c->size - (nb - 1) * c->bs);
			bad++;
		}
	}
	/* After the passes: wraps to offset 0 again. */
	assert_true(wl_next(&s, &op));
	if (op.offset != 0 || op.len != block_len(c->size, c->bs, 0)) {
		print_error("size %" PRIu64 " bs %" PRIu64 ": op after the pass at offset %"
			    PRIu64 " len %u, want 0 and %" PRIu64 "\n", c->size, c->bs, op.offset,
			    op.len, block_len(c->size, c->bs, 0));
		bad++;
	}
	wl_stream_destroy(&s);
	return bad;
}

static void test_seq_single_pass(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(seq_cases); i++)
		bad += check_seq_pass(&seq_cases[i]);
	assert_int_equal(bad, 0);
}

/* ---- several connections ---- */

struct map_case {
	uint32_t nconns, nfiles;
	uint64_t size, bs;
};

/*
 * Runs one sequential pass of every connection and counts how often each
 * block of each file is touched; every block must be touched exactly once.
 * Also checks the op fields against the stream's ranges and that each
 * connection wraps back to its first range's start afterwards.
 */
static int check_coverage(const struct map_case *c)
{
	uint64_t nb = nblocks(c->size, c->bs);
	uint32_t *hits = calloc((size_t)c->nfiles * nb, sizeof(*hits));
	uint64_t total = 0;
	int bad = 0;

	assert_non_null(hits);
	for (uint32_t conn = 0; conn < c->nconns; conn++) {
		struct wl_stream s;
		struct wl_op op;
		uint64_t pass, sum = 0, n = 0;

		assert_int_equal(wl_stream_init(&s, conn, c->nconns, c->nfiles, c->size, c->bs,
						false, 0, 99), 0);
		pass = wl_stream_pass_bytes(&s);
		if (s.nranges == 0 || pass == 0) {
			print_error("%u conns %u files: conn %u has %u ranges, %" PRIu64
				    " bytes a pass\n", c->nconns, c->nfiles, conn, s.nranges, pass);
			bad++;
		}
		/* Mapping: conn i works on file i mod N (N < C) or i, i+C, ... */
		for (uint32_t r = 0; r < s.nranges; r++) {
			uint32_t want_file = c->nfiles >= c->nconns ? conn + r * c->nconns
								    : conn % c->nfiles;
			if (s.ranges[r].file != want_file) {
				print_error("%u conns %u files: conn %u range %u is file %u, want %u\n",
					    c->nconns, c->nfiles, conn, r, s.ranges[r].file, want_file);
				bad++;
			}
		}
		while (sum < pass) {
			if (!wl_next(&s, &op)) {
				print_error("%u conns %u files: conn %u stopped after %" PRIu64
					    " of %" PRIu64 " bytes\n", c->nconns, c->nfiles, conn,
					    sum, pass);
				bad++;
				break;
			}
			if (op.range >= s.nranges || op.file != s.ranges[op.range].file ||
			    op.file >= c->nfiles || op.offset % c->bs ||
			    op.offset < s.ranges[op.range].start ||
			    op.offset + op.len > s.ranges[op.range].end ||
			    op.len != block_len(c->size, c->bs, op.offset) || op.type != OP_WRITE) {
				print_error("%u conns %u files size %" PRIu64 " bs %" PRIu64
					    ": conn %u op %" PRIu64 " range %u file %u offset %"
					    PRIu64 " len %u type %d out of place\n", c->nconns,
					    c->nfiles, c->size, c->bs, conn, n, op.range, op.file,
					    op.offset, op.len, (int)op.type);
				bad++;
				break;
			}
			hits[(size_t)op.file * nb + op.offset / c->bs]++;
			sum += op.len;
			n++;
		}
		if (sum != pass) {
			print_error("%u conns %u files: conn %u issued %" PRIu64 " bytes in a pass "
				    "of %" PRIu64 "\n", c->nconns, c->nfiles, conn, sum, pass);
			bad++;
		}
		total += pass;
		if (s.nranges && wl_next(&s, &op) &&
		    (op.range != 0 || op.offset != s.ranges[0].start)) {
			print_error("%u conns %u files: conn %u after its pass at range %u offset %"
				    PRIu64 ", want range 0 offset %" PRIu64 "\n", c->nconns,
				    c->nfiles, conn, op.range, op.offset, s.ranges[0].start);
			bad++;
		}
		wl_stream_destroy(&s);
	}
	for (uint32_t f = 0; f < c->nfiles; f++) {
		for (uint64_t b = 0; b < nb; b++) {
			if (hits[(size_t)f * nb + b] != 1) {
				print_error("%u conns %u files size %" PRIu64 " bs %" PRIu64
					    ": file %u block %" PRIu64 " touched %u times in a pass, "
					    "want 1\n", c->nconns, c->nfiles, c->size, c->bs, f, b,
					    hits[(size_t)f * nb + b]);
				bad++;
			}
		}
	}
	if (total != (uint64_t)c->nfiles * c->size) {
		print_error("%u conns %u files: pass bytes sum to %" PRIu64 ", want %" PRIu64 "\n",
			    c->nconns, c->nfiles, total, (uint64_t)c->nfiles * c->size);
		bad++;
	}
	free(hits);
	return bad;
}

/* Fewer files than connections: slices of a shared file, no overlap, no gap. */
static void test_shared_files_coverage(void **state)
{
	static const struct map_case cases[] = {
		{ 7, 3, 1 * MI, 4 * KI },
		{ 2, 1, 1 * MI, 4 * KI },
		{ 3, 1, 1 * MI, 4 * KI },		/* 256 blocks, not divisible by 3 */
		{ 5, 2, 1 * MI + 100, 4 * KI },		/* tail block */
		{ 10, 1, 10 * 4096, 4096 },		/* one block each */
		{ 9, 4, 12345, 1000 },
		{ 16, 3, 64 * MI + 1, 1 * MI },
		{ 64, 7, 1 * MI, 4 * KI },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		bad += check_coverage(&cases[i]);
	assert_int_equal(bad, 0);
}

/* As many files as connections or more: whole files, i, i+C, i+2C, ... */
static void test_whole_files(void **state)
{
	static const struct map_case cases[] = {
		{ 1, 1, 1 * MI, 4 * KI },
		{ 1, 5, 10000, 4096 },
		{ 3, 3, 1 * MI, 4 * KI },
		{ 3, 10, 1 * MI + 1, 4 * KI },
		{ 4, 9, 8192, 4096 },
		{ 8, 17, 65536, 65536 },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		const struct map_case *c = &cases[i];
		uint32_t *owner = calloc(c->nfiles, sizeof(*owner));

		assert_non_null(owner);
		for (uint32_t conn = 0; conn < c->nconns; conn++) {
			struct wl_stream s;
			uint32_t want_n = (c->nfiles - conn + c->nconns - 1) / c->nconns;

			assert_int_equal(wl_stream_init(&s, conn, c->nconns, c->nfiles, c->size,
							c->bs, false, 50, 3), 0);
			if (s.nranges != want_n) {
				print_error("%u conns %u files: conn %u has %u ranges, want %u\n",
					    c->nconns, c->nfiles, conn, s.nranges, want_n);
				bad++;
			}
			for (uint32_t r = 0; r < s.nranges; r++) {
				const struct wl_range *g = &s.ranges[r];

				if (g->file != conn + r * c->nconns || g->start != 0 ||
				    g->end != c->size) {
					print_error("%u conns %u files: conn %u range %u = file %u [%"
						    PRIu64 ", %" PRIu64 "), want file %u [0, %" PRIu64
						    ")\n", c->nconns, c->nfiles, conn, r, g->file,
						    g->start, g->end, conn + r * c->nconns, c->size);
					bad++;
				}
				if (g->file < c->nfiles)
					owner[g->file]++;
			}
			if (wl_stream_pass_bytes(&s) != (uint64_t)want_n * c->size) {
				print_error("%u conns %u files: conn %u pass %" PRIu64 ", want %" PRIu64
					    "\n", c->nconns, c->nfiles, conn, wl_stream_pass_bytes(&s),
					    (uint64_t)want_n * c->size);
				bad++;
			}
			wl_stream_destroy(&s);
		}
		for (uint32_t f = 0; f < c->nfiles; f++) {
			if (owner[f] != 1) {
				print_error("%u conns %u files: file %u owned by %u connections\n",
					    c->nconns, c->nfiles, f, owner[f]);
				bad++;
			}
		}
		free(owner);
		bad += check_coverage(c);
	}
	assert_int_equal(bad, 0);
}

/*
 * More sharers than blocks: the implementation gives a connection without a
 * slice of its own the whole file (workload.c), so every connection has
 * something to do. The ones with slices still tile the file.
 */
static void test_more_sharers_than_blocks(void **state)
{
	const uint64_t bs = 4096, size = 3 * 4096;
	const uint32_t nconns = 8;
	int bad = 0;

	(void)state;
	for (uint32_t conn = 0; conn < nconns; conn++) {
		struct wl_stream s;
		struct wl_op op;

		assert_int_equal(wl_stream_init(&s, conn, nconns, 1, size, bs, false, 0, 1), 0);
		if (s.nranges != 1 || s.ranges[0].start >= s.ranges[0].end ||
		    s.ranges[0].end > size || s.ranges[0].start % bs || !wl_next(&s, &op) ||
		    op.offset != s.ranges[0].start) {
			print_error("conn %u of %u on a 3-block file: %u ranges [%" PRIu64 ", %"
				    PRIu64 ")\n", conn, nconns, s.nranges,
				    s.nranges ? s.ranges[0].start : 0, s.nranges ? s.ranges[0].end : 0);
			bad++;
		}
		wl_stream_destroy(&s);
	}
	assert_int_equal(bad, 0);
}

/* No file for the connection (nfiles 0, conn >= nconns): nothing to do. */
static void test_no_ranges(void **state)
{
	static const struct {
		uint32_t conn, nconns, nfiles;
	} cases[] = { { 0, 1, 0 }, { 0, 0, 1 }, { 3, 3, 1 }, { 5, 2, 4 } };
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct wl_stream s;
		struct wl_op op;

		for (int random = 0; random < 2; random++) {
			assert_int_equal(wl_stream_init(&s, cases[i].conn, cases[i].nconns,
							cases[i].nfiles, 8192, 4096, random, 50, 1), 0);
			if (s.nranges != 0 || wl_stream_pass_bytes(&s) != 0 || wl_next(&s, &op)) {
				print_error("conn %u of %u, %u files, random %d: %u ranges, wl_next "
					    "true\n", cases[i].conn, cases[i].nconns, cases[i].nfiles,
					    random, s.nranges);
				bad++;
			}
			wl_stream_destroy(&s);
		}
	}
	assert_int_equal(bad, 0);
}

/* ---- random ---- */

/*
 * Alignment, bounds, tail trimming and uniformity over blocks (chi-square
 * with a generous bound) and over a connection's files.
 */
static void test_random_offsets(void **state)
{
	static const struct {
		uint32_t conn, nconns, nfiles;
		uint64_t size, bs;
	} cases[] = {
		{ 0, 1, 1, 1 * MI + 1000, 4096 },	/* 257 blocks, short tail */
		{ 0, 1, 1, 1 * MI, 4096 },
		{ 0, 1, 1, 100000, 65536 },		/* 2 blocks, tail 34464 */
		{ 2, 7, 3, 1 * MI, 4096 },		/* shared file: whole file */
		{ 1, 2, 6, 512 * KI + 3, 8192 },	/* 3 files for this conn */
	};
	const uint64_t per_block = 400;
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		uint64_t size = cases[i].size, bs = cases[i].bs, nb = nblocks(size, bs);
		struct wl_stream s;
		struct wl_op op;
		uint64_t *hits, *fhits, nops, nr;
		double chi2 = 0, df, expect;

		assert_int_equal(wl_stream_init(&s, cases[i].conn, cases[i].nconns,
						cases[i].nfiles, size, bs, true, 50, 12345), 0);
		nr = s.nranges;
		assert_true(nr > 0);
		nops = per_block * nb * nr;
		if (nops < 100000)
			nops = 100000;
		hits = calloc(nb, sizeof(*hits));
		fhits = calloc(nr, sizeof(*fhits));
		assert_non_null(hits);
		assert_non_null(fhits);
		for (uint64_t k = 0; k < nops; k++) {
			assert_true(wl_next(&s, &op));
			if (op.offset % bs || op.offset >= size || op.len != block_len(size, bs, op.offset) ||
			    op.range >= nr || op.file != s.ranges[op.range].file) {
				print_error("random size %" PRIu64 " bs %" PRIu64 " op %" PRIu64
					    ": offset %" PRIu64 " len %u range %u file %u\n", size, bs,
					    k, op.offset, op.len, op.range, op.file);
				bad++;
				break;
			}
			hits[op.offset / bs]++;
			fhits[op.range]++;
		}
		expect = (double)nops / (double)nb;
		for (uint64_t b = 0; b < nb; b++)
			chi2 += ((double)hits[b] - expect) * ((double)hits[b] - expect) / expect;
		/* df + 6 standard deviations of the chi-square (sd = sqrt(2 df)),
		 * plus a floor for very few blocks. */
		df = (double)nb - 1;
		if (chi2 > df + 6 * sqrt(2 * df) + 20) {
			print_error("random size %" PRIu64 " bs %" PRIu64 ": chi-square %.1f over %"
				    PRIu64 " blocks (df %.0f)\n", size, bs, chi2, nb, df);
			bad++;
		}
		for (uint64_t r = 0; r < nr; r++) {
			double f = (double)fhits[r] / (double)nops;

			if (fabs(f - 1.0 / (double)nr) > 0.02) {
				print_error("random: range %" PRIu64 " of %" PRIu64 " got %.4f of ops\n",
					    r, nr, f);
				bad++;
			}
		}
		free(hits);
		free(fhits);
		wl_stream_destroy(&s);
	}
	assert_int_equal(bad, 0);
}

#define DET_OPS 2000

static void record_ops(uint32_t conn, uint32_t nconns, uint32_t nfiles, uint64_t seed,
		       struct wl_op *ops, size_t n)
{
	struct wl_stream s;

	assert_int_equal(wl_stream_init(&s, conn, nconns, nfiles, 4 * MI, 4096, true, 50,
					seed), 0);
	for (size_t i = 0; i < n; i++)
		assert_true(wl_next(&s, &ops[i]));
	wl_stream_destroy(&s);
}

static size_t count_same(const struct wl_op *a, const struct wl_op *b, size_t n)
{
	size_t same = 0;

	for (size_t i = 0; i < n; i++)
		same += a[i].offset == b[i].offset && a[i].file == b[i].file;
	return same;
}

static void test_random_deterministic(void **state)
{
	static struct wl_op a[DET_OPS], b[DET_OPS];
	size_t same;

	(void)state;
	/* Same seed, same connection: identical sequences, types included. */
	record_ops(0, 2, 4, 42, a, DET_OPS);
	record_ops(0, 2, 4, 42, b, DET_OPS);
	for (size_t i = 0; i < DET_OPS; i++) {
		if (a[i].offset != b[i].offset || a[i].file != b[i].file ||
		    a[i].type != b[i].type || a[i].len != b[i].len || a[i].range != b[i].range) {
			print_error("seed 42 op %zu: offset %" PRIu64 "/%" PRIu64 " file %u/%u type "
				    "%d/%d\n", i, a[i].offset, b[i].offset, a[i].file, b[i].file,
				    (int)a[i].type, (int)b[i].type);
			fail();
		}
	}
	/* Another seed: a different sequence (1024 blocks x 2 files, so chance
	 * agreement is about 1 in 2048 per op). */
	record_ops(0, 2, 4, 43, b, DET_OPS);
	same = count_same(a, b, DET_OPS);
	if (same > DET_OPS / 20) {
		print_error("seeds 42 and 43 agree on %zu of %d ops\n", same, DET_OPS);
		fail();
	}
	/* Another connection with the same seed and the same file: its own stream. */
	record_ops(0, 2, 1, 42, a, DET_OPS);
	record_ops(1, 2, 1, 42, b, DET_OPS);
	same = count_same(a, b, DET_OPS);
	if (same > DET_OPS / 20) {
		print_error("connections 0 and 1 (seed 42) agree on %zu of %d ops\n", same, DET_OPS);
		fail();
	}
}

/* splitmix64 reference outputs for state 0 (Vigna's splitmix64.c). */
static void test_wl_rand(void **state)
{
	static const uint64_t want[] = {
		UINT64_C(0xe220a8397b1dcdaf), UINT64_C(0x6e789e6aa1b965f4),
		UINT64_C(0x06c45d188009454f),
	};
	uint64_t st = 0;

	(void)state;
	for (size_t i = 0; i < N(want); i++) {
		uint64_t got = wl_rand(&st);

		if (got != want[i]) {
			print_error("wl_rand output %zu: %016" PRIx64 ", want %016" PRIx64 "\n", i,
				    got, want[i]);
			fail();
		}
	}
}

/* ---- mix ---- */

static void test_mix_ratio(void **state)
{
	static const struct {
		bool random;
		unsigned read_pct;
		uint64_t lo, hi;	/* reads out of 100000 */
	} cases[] = {
		{ true, 70, 69000, 71000 },
		{ false, 70, 69000, 71000 },
		{ true, 50, 49000, 51000 },
		{ true, 1, 500, 1500 },
		{ true, 99, 98500, 99500 },
		{ true, 0, 0, 0 },
		{ false, 0, 0, 0 },
		{ true, 100, 100000, 100000 },
		{ false, 100, 100000, 100000 },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct wl_stream s;
		struct wl_op op;
		uint64_t reads = 0, writes = 0;

		assert_int_equal(wl_stream_init(&s, 0, 1, 1, 1 * MI, 4096, cases[i].random,
						cases[i].read_pct, 7), 0);
		for (int k = 0; k < 100000; k++) {
			assert_true(wl_next(&s, &op));
			reads += op.type == OP_READ;
			writes += op.type == OP_WRITE;
		}
		if (reads < cases[i].lo || reads > cases[i].hi || reads + writes != 100000) {
			print_error("random %d read_pct %u: %" PRIu64 " reads %" PRIu64
				    " writes of 100000, want reads in [%" PRIu64 ", %" PRIu64 "]\n",
				    cases[i].random, cases[i].read_pct, reads, writes, cases[i].lo,
				    cases[i].hi);
			bad++;
		}
		wl_stream_destroy(&s);
	}
	assert_int_equal(bad, 0);
}

static void test_mode_read_pct(void **state)
{
	static const struct {
		enum wl_mode m;
		bool random;
		unsigned pct;	/* with rwmixread 70 */
	} cases[] = {
		{ WL_READ, false, 100 }, { WL_WRITE, false, 0 },
		{ WL_RANDREAD, true, 100 }, { WL_RANDWRITE, true, 0 },
		{ WL_READWRITE, false, 70 }, { WL_RANDRW, true, 70 },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		if (wl_mode_random(cases[i].m) != cases[i].random ||
		    wl_mode_read_pct(cases[i].m, 70) != cases[i].pct) {
			print_error("%s: random %d read_pct %u, want %d and %u\n",
				    wl_mode_name(cases[i].m), wl_mode_random(cases[i].m),
				    wl_mode_read_pct(cases[i].m, 70), cases[i].random, cases[i].pct);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* ---- budget ---- */

static void test_budget(void **state)
{
	static const struct {
		bool random;
		uint64_t size, bs, budget;
	} cases[] = {
		{ false, 1 * MI, 4096, 10 * 4096 + 123 },	/* last op trimmed */
		{ false, 1 * MI, 4096, 10 * 4096 },		/* exact */
		{ false, 1 * MI, 4096, 1 },
		{ false, 1 * MI, 4096, 4095 },
		{ false, 10000, 4096, 25000 },			/* wraps twice, tails */
		{ false, 1 * MI, 4096, 1 * MI },		/* exactly one pass */
		{ true, 1 * MI, 4096, 100 * 4096 + 7 },
		{ true, 10000, 4096, 50000 },
		{ true, 1 * MI, 65536, 1 },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct wl_stream s;
		struct wl_op op;
		uint64_t sum = 0, n = 0, pos = 0, size = cases[i].size, bs = cases[i].bs;
		uint64_t last_len = 0, last_full = 0;
		bool trimmed_early = false;

		assert_int_equal(wl_stream_init(&s, 0, 1, 1, size, bs, cases[i].random, 50, 5), 0);
		s.budget = cases[i].budget;
		while (wl_next(&s, &op)) {
			uint64_t full = block_len(size, bs, op.offset);

			if (!cases[i].random && op.offset != pos) {
				print_error("budget case %zu op %" PRIu64 ": offset %" PRIu64
					    " want %" PRIu64 "\n", i, n, op.offset, pos);
				bad++;
			}
			pos = op.offset + full == size ? 0 : op.offset + full;
			/* Only the last op may be shorter than its block. */
			if (op.len == 0 || op.len > full || trimmed_early) {
				print_error("budget case %zu op %" PRIu64 ": len %u at %" PRIu64
					    ", block %" PRIu64 "%s\n", i, n, op.len, op.offset, full,
					    trimmed_early ? " after a trimmed op" : "");
				bad++;
			}
			trimmed_early = op.len < full;
			last_len = op.len;
			last_full = full;
			sum += op.len;
			if (++n > cases[i].budget) {
				print_error("budget case %zu: no end after %" PRIu64 " ops\n", i, n);
				bad++;
				break;
			}
		}
		if (sum != cases[i].budget || s.budget != 0) {
			print_error("budget case %zu: issued %" PRIu64 " bytes in %" PRIu64
				    " ops, want %" PRIu64 "; budget left %" PRIu64 "\n", i, sum, n,
				    cases[i].budget, s.budget);
			bad++;
		}
		/* The last op is what was left of the budget, or its whole block. */
		if (n && last_len != min_u64(cases[i].budget - (sum - last_len), last_full)) {
			print_error("budget case %zu: last len %" PRIu64 ", block %" PRIu64 "\n", i,
				    last_len, last_full);
			bad++;
		}
		if (wl_next(&s, &op) || wl_next(&s, &op)) {
			print_error("budget case %zu: wl_next true after the budget\n", i);
			bad++;
		}
		wl_stream_destroy(&s);
	}
	assert_int_equal(bad, 0);
}

static void test_budget_zero(void **state)
{
	struct wl_stream s;
	struct wl_op op;

	(void)state;
	assert_int_equal(wl_stream_init(&s, 0, 1, 1, 1 * MI, 4096, false, 0, 1), 0);
	assert_int_equal(s.budget, UINT64_MAX);
	s.budget = 0;
	assert_false(wl_next(&s, &op));
	wl_stream_destroy(&s);
	wl_stream_destroy(&s);	/* safe twice */
}

/* ---- empty ranges (the layout phase's files already at size) ---- */

static void test_empty_ranges(void **state)
{
	static const struct {
		uint32_t nfiles;
		const char *empty;	/* per range: '1' = empty */
	} cases[] = {
		{ 4, "1010" },
		{ 4, "0101" },
		{ 4, "1110" },
		{ 4, "0111" },
		{ 3, "000" },
		{ 1, "0" },
	};
	const uint64_t size = 10000, bs = 4096;
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		for (int limited = 0; limited < 2; limited++) {
			struct wl_stream s;
			struct wl_op op;
			uint64_t sum = 0, want_pass = 0, n = 0;
			uint64_t *per_file = calloc(cases[i].nfiles, sizeof(*per_file));

			assert_non_null(per_file);
			assert_int_equal(wl_stream_init(&s, 0, 1, cases[i].nfiles, size, bs, false,
							0, 1), 0);
			for (uint32_t r = 0; r < s.nranges; r++) {
				if (cases[i].empty[r] == '1')
					s.ranges[r].end = s.ranges[r].start;
				else
					want_pass += size;
			}
			/* As worker.c does. */
			s.pos = s.ranges[0].start;
			if (limited)
				s.budget = wl_stream_pass_bytes(&s);
			if (wl_stream_pass_bytes(&s) != want_pass) {
				print_error("empty %s: pass %" PRIu64 " want %" PRIu64 "\n",
					    cases[i].empty, wl_stream_pass_bytes(&s), want_pass);
				bad++;
			}
			/* Limited: runs out after one pass. Unlimited: three passes. */
			while ((limited || sum < 3 * want_pass) && wl_next(&s, &op)) {
				if (op.file >= cases[i].nfiles || cases[i].empty[op.range] == '1') {
					print_error("empty %s: op on range %u file %u\n", cases[i].empty,
						    op.range, op.file);
					bad++;
					break;
				}
				per_file[op.file] += op.len;
				sum += op.len;
				if (++n > 100)
					break;
			}
			for (uint32_t f = 0; f < cases[i].nfiles; f++) {
				uint64_t want = cases[i].empty[f] == '1' ? 0 : (limited ? 1 : 3) * size;

				if (per_file[f] != want) {
					print_error("empty %s budget %d: file %u got %" PRIu64 " bytes, "
						    "want %" PRIu64 "\n", cases[i].empty, limited, f,
						    per_file[f], want);
					bad++;
				}
			}
			free(per_file);
			wl_stream_destroy(&s);
		}
	}
	assert_int_equal(bad, 0);
}

static void test_all_empty(void **state)
{
	static const uint32_t nfiles[] = { 1, 2, 5 };
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(nfiles); i++) {
		for (int limited = 0; limited < 2; limited++) {
			struct wl_stream s;
			struct wl_op op;

			assert_int_equal(wl_stream_init(&s, 0, 1, nfiles[i], 8192, 4096, false, 0,
							1), 0);
			for (uint32_t r = 0; r < s.nranges; r++)
				s.ranges[r].end = s.ranges[r].start;
			s.pos = s.ranges[0].start;
			if (limited)
				s.budget = wl_stream_pass_bytes(&s);
			if (wl_next(&s, &op) || wl_next(&s, &op)) {
				print_error("%u empty ranges, budget %d: wl_next true (file %u offset %"
					    PRIu64 ")\n", nfiles[i], limited, op.file, op.offset);
				bad++;
			}
			wl_stream_destroy(&s);
		}
	}
	/* A shared-file slice emptied the same way. */
	for (uint32_t conn = 0; conn < 7; conn++) {
		struct wl_stream s;
		struct wl_op op;

		assert_int_equal(wl_stream_init(&s, conn, 7, 3, 1 * MI, 4096, false, 0, 1), 0);
		s.ranges[0].end = s.ranges[0].start;
		s.pos = s.ranges[0].start;
		s.budget = wl_stream_pass_bytes(&s);
		if (wl_next(&s, &op)) {
			print_error("conn %u of 7: emptied slice still issues offset %" PRIu64 "\n",
				    conn, op.offset);
			bad++;
		}
		wl_stream_destroy(&s);
	}
	assert_int_equal(bad, 0);
}

/* ---- mode names ---- */

static void test_mode_names(void **state)
{
	static const struct {
		enum wl_mode m;
		const char *name;
	} modes[] = {
		{ WL_READ, "read" }, { WL_WRITE, "write" }, { WL_RANDREAD, "randread" },
		{ WL_RANDWRITE, "randwrite" }, { WL_READWRITE, "readwrite" },
		{ WL_RANDRW, "randrw" },
	};
	static const char *const unknown[] = {
		"", "READ", "Read", "randomread", "read ", " read", "rw", "randrw2", "rand",
		"readwrite\n", "trim",
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(modes); i++) {
		enum wl_mode m = (enum wl_mode)-1;
		int rc = wl_mode_parse(modes[i].name, &m);

		if (strcmp(wl_mode_name(modes[i].m), modes[i].name) != 0 || rc != 0 ||
		    m != modes[i].m) {
			print_error("mode %d: name '%s', parse('%s') rc %d -> %d\n", (int)modes[i].m,
				    wl_mode_name(modes[i].m), modes[i].name, rc, (int)m);
			bad++;
		}
	}
	for (size_t i = 0; i < N(unknown); i++) {
		enum wl_mode m = WL_RANDRW;
		int rc = wl_mode_parse(unknown[i], &m);

		if (rc != -EINVAL || m != WL_RANDRW) {
			print_error("parse('%s'): rc %d mode %d, want -EINVAL and untouched\n",
				    unknown[i], rc, (int)m);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* Every layer that names a data file gets the same name from one function. */
/*
 * The op table: every row whole, names, wire names and colours each once, --mix's
 * names found again, the classes as the program reads them (data ops, the
 * NFSv4.2 file ops on the native and null engines only).
 */
static void test_op_table(void **state)
{
	int bad = 0;

	(void)state;
	for (int t = 0; t < OP_NTYPES; t++) {
		const struct op_info *a = op_info((enum op_type)t);

		if (!a->name || !a->wire || !a->colour || strlen(a->colour) != 7 || !a->versions ||
		    !a->engines) {
			print_error("op %d: a row not whole\n", t);
			bad++;
			continue;
		}
		if (a->mix && op_by_name(a->name) != (enum op_type)t) {
			print_error("op %s: --mix finds %d, not %d\n", a->name, op_by_name(a->name), t);
			bad++;
		}
		if (a->cls == OPC_FILE && (a->versions != OPV_42 || (a->engines & OPE_LIBNFS))) {
			print_error("op %s: an NFSv4.2 file op had by more than 4.2 and native\n", a->name);
			bad++;
		}
		for (int u = 0; u < t; u++) {
			const struct op_info *b = op_info((enum op_type)u);

			if (!strcmp(a->name, b->name) || !strcmp(a->wire, b->wire) ||
			    !strcmp(a->colour, b->colour)) {
				print_error("ops %s and %s share a name, wire name or colour\n",
					    a->name, b->name);
				bad++;
			}
		}
	}
	if (op_by_name("commit") != OP_NTYPES || op_by_name("frobnicate") != OP_NTYPES) {
		print_error("--mix finds commit or a made-up name\n");
		bad++;
	}
	if (op_info(OP_READ)->cls != OPC_IO || op_info(OP_GETATTR)->cls != OPC_NAME ||
	    op_info(OP_READ_PLUS)->cls != OPC_FILE || strcmp(op_name(OP_READ_PLUS), "read_plus") ||
	    strcmp(op_procedure(OP_READDIR), "READDIRPLUS")) {
		print_error("a row read back wrong\n");
		bad++;
	}
	if (op_version_bit(3, 0) != OPV_3 || op_version_bit(4, 1) != OPV_41 ||
	    op_version_bit(4, 2) != OPV_42 || op_version_bit(4, 0) != OPV_40) {
		print_error("op_version_bit\n");
		bad++;
	}
	assert_int_equal(bad, 0);
}

static void test_file_name(void **state)
{
	char buf[64];

	(void)state;
	wl_file_name(NULL, 42, buf, sizeof(buf));
	assert_string_equal(buf, "file.000042");
	wl_file_name("nfsload", 7, buf, sizeof(buf));
	assert_string_equal(buf, "/nfsload/file.000007");
	wl_file_name(NULL, 1234567, buf, sizeof(buf));
	assert_string_equal(buf, "file.1234567");
	wl_file_name("d", 1, buf, 8);
	assert_string_equal(buf, "/d/file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_single_pass),
		cmocka_unit_test(test_shared_files_coverage),
		cmocka_unit_test(test_whole_files),
		cmocka_unit_test(test_more_sharers_than_blocks),
		cmocka_unit_test(test_no_ranges),
		cmocka_unit_test(test_random_offsets),
		cmocka_unit_test(test_random_deterministic),
		cmocka_unit_test(test_wl_rand),
		cmocka_unit_test(test_mix_ratio),
		cmocka_unit_test(test_mode_read_pct),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_budget_zero),
		cmocka_unit_test(test_empty_ranges),
		cmocka_unit_test(test_all_empty),
		cmocka_unit_test(test_mode_names),
		cmocka_unit_test(test_file_name),
		cmocka_unit_test(test_op_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
