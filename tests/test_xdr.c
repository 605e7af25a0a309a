/*
 * xdrx unit tests: the XDR helpers rpc.c and the codecs share. Values are
 * written and read back, and their bytes compared with RFC 4506's layout
 * (big-endian words, opaques padded with zeros to 4 bytes); every write
 * into a buffer one word too short fails; every read of a cut copy (heap,
 * exactly its size, so ASan sees a read past it) fails; bytes are found in
 * place at every alignment.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine/native/rpc/xdrx.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define FILL 0xa5	/* what a buffer holds before a write: padding must overwrite it */

static void check_u64(uint64_t got, uint64_t want, const char *what, unsigned k)
{
	if (got != want)
		fail_msg("%s [%u]: got %" PRIu64 " (0x%" PRIx64 "), want %" PRIu64 " (0x%" PRIx64 ")",
			 what, k, got, got, want, want);
}

static void check_mem(const uint8_t *got, const uint8_t *want, size_t n, const char *what,
		      unsigned k)
{
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("%s [%u]: byte %zu is 0x%02x, want 0x%02x", what, k, i, got[i],
				 want[i]);
}

/* A heap copy of p[0..n) at offset off of its allocation (which the caller frees). */
static uint8_t *copy_at(const void *p, size_t n, size_t off, uint8_t **mem)
{
	*mem = malloc(n + off + 1);
	assert_non_null(*mem);
	if (n)
		memcpy(*mem + off, p, n);
	return *mem + off;
}

static const uint32_t words[] = { 0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7fffffffu, 0x80000000u,
				  0xdeadbeefu, UINT32_MAX };
static const uint64_t longs[] = { 0, 1, UINT64_C(0xffffffff), UINT64_C(0x100000000),
				  UINT64_C(0x0123456789abcdef), UINT64_C(0x7fffffffffffffff),
				  UINT64_C(0x8000000000000000), UINT64_MAX };

static void test_pad(void **state)
{
	static const uint32_t want[] = { 0, 3, 2, 1, 0, 3, 2, 1, 0 };

	(void)state;
	for (unsigned n = 0; n < N(want); n++)
		check_u64(xdrx_pad(n), want[n], "pad", n);
	check_u64(xdrx_pad(UINT32_MAX), 1, "pad", UINT32_MAX);
	check_u64(xdrx_pad(UINT32_MAX - 3), 0, "pad", UINT32_MAX - 3);
}

static void test_be(void **state)
{
	static const uint8_t b[8] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	uint8_t out[4];

	(void)state;
	check_u64(xdrx_be32(b), 0x01234567u, "be32", 0);
	check_u64(xdrx_be32(b + 4), 0x89abcdefu, "be32", 1);
	check_u64(xdrx_be64(b), UINT64_C(0x0123456789abcdef), "be64", 0);
	xdrx_put_be32(out, 0x89abcdefu);
	check_mem(out, b + 4, 4, "put_be32", 0);
}

/* 32- and 64-bit words: bytes big-endian, read back equal, at every alignment. */
static void test_words(void **state)
{
	(void)state;
	for (unsigned k = 0; k < N(words); k++) {
		uint8_t want[4], buf[4 + 4], *mem, *p;
		uint32_t v = 0;
		XDR x;

		xdrx_put_be32(want, words[k]);
		for (size_t off = 0; off < 4; off++) {
			memset(buf, FILL, sizeof(buf));
			xdrx_create(&x, buf + off, 4, XDR_ENCODE);
			assert_true(xdrx_put32(&x, words[k]));
			check_u64(xdr_getpos(&x), 4, "put32 pos", k);
			check_mem(buf + off, want, 4, "put32 bytes", k);
			assert_false(xdrx_put32(&x, words[k]));	/* full */

			p = copy_at(want, 4, off, &mem);
			xdrx_create(&x, p, 4, XDR_DECODE);
			assert_true(xdrx_get32(&x, &v));
			check_u64(v, words[k], "get32", k);
			assert_false(xdrx_get32(&x, &v));	/* nothing left */
			free(mem);
		}
	}
	for (unsigned k = 0; k < N(longs); k++) {
		uint8_t want[8], buf[8 + 4], *mem, *p;
		uint64_t v = 0;
		XDR x;

		xdrx_put_be32(want, (uint32_t)(longs[k] >> 32));
		xdrx_put_be32(want + 4, (uint32_t)longs[k]);
		for (size_t off = 0; off < 4; off++) {
			memset(buf, FILL, sizeof(buf));
			xdrx_create(&x, buf + off, 8, XDR_ENCODE);
			assert_true(xdrx_put64(&x, longs[k]));
			check_u64(xdr_getpos(&x), 8, "put64 pos", k);
			check_mem(buf + off, want, 8, "put64 bytes", k);

			p = copy_at(want, 8, off, &mem);
			xdrx_create(&x, p, 8, XDR_DECODE);
			assert_true(xdrx_get64(&x, &v));
			check_u64(v, longs[k], "get64", k);
			free(mem);
			/* A 64-bit value cut anywhere is refused. */
			for (size_t cut = 0; cut < 8; cut++) {
				p = copy_at(want, cut, off, &mem);
				xdrx_create(&x, p, cut, XDR_DECODE);
				assert_false(xdrx_get64(&x, &v));
				free(mem);
			}
		}
	}
}

static void test_bool(void **state)
{
	static const struct { uint32_t w; bool ok, b; } cases[] = {
		{ 0, true, false }, { 1, true, true }, { 2, false, false },
		{ 0x100, false, false }, { 0x80000000u, false, false }, { UINT32_MAX, false, false },
	};

	(void)state;
	for (unsigned k = 0; k < N(cases); k++) {
		uint8_t w[4];
		bool b = !cases[k].b;
		XDR x;

		xdrx_put_be32(w, cases[k].w);
		xdrx_create(&x, w, sizeof(w), XDR_DECODE);
		check_u64(xdrx_get_bool(&x, &b), cases[k].ok, "get_bool ok", k);
		if (cases[k].ok)
			check_u64(b, cases[k].b, "get_bool value", k);
	}
}

/* The bytes put_opaque must write for data[0..n): length, bytes, zeros to 4. */
static size_t opaque_wire(uint8_t *w, const uint8_t *data, uint32_t n, bool counted)
{
	size_t len = 0;

	if (counted) {
		xdrx_put_be32(w, n);
		len = 4;
	}
	memcpy(w + len, data, n);
	len += n;
	for (uint32_t i = 0; i < xdrx_pad(n); i++)
		w[len++] = 0;
	return len;
}

/* Opaques of 0..12 bytes, counted and fixed: padding zeroed, read in place, every alignment. */
static void test_opaque(void **state)
{
	uint8_t data[12];

	(void)state;
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(0x11 * (i + 1));
	for (uint32_t n = 0; n <= sizeof(data); n++) {
		for (int counted = 0; counted < 2; counted++) {
			uint8_t want[4 + 16], buf[4 + 16 + 4], *mem, *p;
			size_t len = opaque_wire(want, data, n, counted);
			const uint8_t *in;
			uint32_t got_n = 0;
			XDR x;

			check_u64(len % 4, 0, "opaque length", n);
			for (size_t off = 0; off < 4; off++) {
				memset(buf, FILL, sizeof(buf));
				xdrx_create(&x, buf + off, len, XDR_ENCODE);
				assert_true(counted ? xdrx_put_opaque(&x, data, n, n) :
					  xdrx_put_fixed(&x, data, n));
				check_u64(xdr_getpos(&x), len, "opaque pos", n);
				check_mem(buf + off, want, len, "opaque bytes", n);
				check_u64(buf[off + len], FILL, "byte after the opaque", n);
				/* Any shorter buffer is refused. */
				for (size_t cut = 0; cut < len; cut++) {
					xdrx_create(&x, buf + off, cut, XDR_ENCODE);
					assert_false(counted ? xdrx_put_opaque(&x, data, n, n) :
						     xdrx_put_fixed(&x, data, n));
				}
				p = copy_at(want, len, off, &mem);
				xdrx_create(&x, p, len, XDR_DECODE);
				if (counted) {
					assert_true(xdrx_get_opaque(&x, n, &in, &got_n));
					check_u64(got_n, n, "get_opaque length", n);
					check_u64((uint64_t)(in - p), 4, "get_opaque in place", n);
				} else {
					in = xdrx_take(&x, n);
					assert_non_null(in);
					check_u64((uint64_t)(in - p), 0, "take in place", n);
				}
				check_mem(in, data, n, "opaque read back", n);
				check_u64(xdr_getpos(&x), len, "opaque read pos", n);
				free(mem);
				/* Cut anywhere: refused, and nothing read past the cut (ASan). */
				for (size_t cut = 0; cut < len; cut++) {
					p = copy_at(want, cut, off, &mem);
					xdrx_create(&x, p, cut, XDR_DECODE);
					if (counted)
						assert_false(xdrx_get_opaque(&x, n, &in, &got_n));
					else
						assert_null(xdrx_take(&x, n));
					free(mem);
				}
			}
		}
	}
}

/* A fixed opaque read by copy, at every alignment; cut, it is refused. */
static void test_get_fixed(void **state)
{
	static const uint8_t wire[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0 };

	(void)state;
	for (size_t off = 0; off < 4; off++) {
		uint8_t out[10], *mem, *p;
		XDR x;

		memset(out, FILL, sizeof(out));
		p = copy_at(wire, sizeof(wire), off, &mem);
		xdrx_create(&x, p, sizeof(wire), XDR_DECODE);
		assert_true(xdrx_get_fixed(&x, out, 9));
		check_mem(out, wire, 9, "get_fixed", (unsigned)off);
		check_u64(out[9], FILL, "byte after get_fixed", (unsigned)off);
		check_u64(xdr_getpos(&x), 12, "get_fixed pos", (unsigned)off);
		free(mem);
		for (size_t cut = 0; cut < sizeof(wire); cut++) {
			p = copy_at(wire, cut, off, &mem);
			xdrx_create(&x, p, cut, XDR_DECODE);
			assert_false(xdrx_get_fixed(&x, out, 9));
			free(mem);
		}
	}
}

/* Lengths over the limit, or that would wrap the position, are refused before any byte. */
static void test_limits(void **state)
{
	static const uint32_t huge[] = { UINT32_MAX, UINT32_MAX - 1, UINT32_MAX - 2, UINT32_MAX - 3,
					 0x80000000u, 0x40000000u, 17 };
	_Alignas(4) uint8_t wire[16] = { 0 };
	const uint8_t *in;
	uint32_t n;
	XDR x;

	(void)state;
	for (unsigned k = 0; k < N(huge); k++) {
		/* The length word says huge[k]; only 12 bytes follow. */
		xdrx_put_be32(wire, huge[k]);
		for (size_t off = 0; off < 2; off++) {
			uint8_t *mem, *p = copy_at(wire, sizeof(wire), off, &mem);

			xdrx_create(&x, p, sizeof(wire), XDR_DECODE);
			assert_false(xdrx_get_opaque(&x, UINT32_MAX, &in, &n));
			xdrx_create(&x, p, sizeof(wire), XDR_DECODE);
			assert_false(xdrx_skip_opaque(&x, UINT32_MAX));
			xdrx_create(&x, p + 4, sizeof(wire) - 4, XDR_DECODE);
			assert_null(xdrx_take(&x, huge[k]));
			check_u64(xdr_getpos(&x), 0, "position after a refused take", k);
			assert_false(xdrx_skip(&x, huge[k]));
			assert_false(xdrx_skip32(&x, huge[k]));
			free(mem);
		}
	}
	/* A length within what is left but over max. */
	xdrx_put_be32(wire, 8);
	xdrx_create(&x, wire, sizeof(wire), XDR_DECODE);
	assert_false(xdrx_get_opaque(&x, 7, &in, &n));
	xdrx_create(&x, wire, sizeof(wire), XDR_DECODE);
	assert_false(xdrx_skip_opaque(&x, 7));
	xdrx_create(&x, wire, sizeof(wire), XDR_DECODE);
	assert_true(xdrx_get_opaque(&x, 8, &in, &n));
	check_u64(n, 8, "opaque at max", 0);
	check_u64((uint64_t)(in - wire), 4, "opaque at max in place", 0);
	/* Writing: over max is refused and writes nothing. */
	memset(wire, FILL, sizeof(wire));
	xdrx_create(&x, wire, sizeof(wire), XDR_ENCODE);
	assert_false(xdrx_put_opaque(&x, "abcdefgh", 8, 7));
	check_u64(xdr_getpos(&x), 0, "position after a refused put_opaque", 0);
	check_u64(wire[0], FILL, "byte after a refused put_opaque", 0);
}

/* Steps: skip and skip32 move by padded bytes and words; past the end they fail. */
static void test_skip(void **state)
{
	_Alignas(4) uint8_t wire[16] = { 0 };
	XDR x;

	(void)state;
	xdrx_create(&x, wire, sizeof(wire), XDR_DECODE);
	assert_true(xdrx_skip(&x, 0));
	check_u64(xdr_getpos(&x), 0, "skip 0", 0);
	assert_true(xdrx_skip(&x, 1));
	check_u64(xdr_getpos(&x), 4, "skip 1", 0);
	assert_true(xdrx_skip32(&x, 2));
	check_u64(xdr_getpos(&x), 12, "skip32 2", 0);
	assert_false(xdrx_skip(&x, 5));
	assert_true(xdrx_skip(&x, 4));
	check_u64(xdr_getpos(&x), 16, "skip to the end", 0);
	assert_false(xdrx_skip32(&x, 1));
	assert_false(xdrx_skip(&x, 1));
	assert_true(xdrx_skip(&x, 0));
	/* skip_opaque: a 5-byte opaque is 4 + 8 bytes. */
	xdrx_put_be32(wire, 5);
	xdrx_create(&x, wire, 12, XDR_DECODE);
	assert_true(xdrx_skip_opaque(&x, 5));
	check_u64(xdr_getpos(&x), 12, "skip_opaque", 0);
	xdrx_create(&x, wire, 11, XDR_DECODE);
	assert_false(xdrx_skip_opaque(&x, 5));
}

/* Strings: up to max bytes, no NUL sent, padded; max + 1 and NULL refused. */
static void test_string(void **state)
{
	char s[300];
	uint8_t buf[320], *mem, *p;
	const uint8_t *in;
	uint32_t n;
	XDR x;

	(void)state;
	for (size_t i = 0; i < sizeof(s) - 1; i++)
		s[i] = (char)('a' + i % 26);
	s[sizeof(s) - 1] = 0;
	for (uint32_t max = 0; max <= 9; max++) {
		for (uint32_t len = 0; len <= max + 1; len++) {
			char str[16];
			uint8_t want[20];
			size_t wlen = opaque_wire(want, (const uint8_t *)s, len, true);

			memcpy(str, s, len);
			str[len] = 0;
			memset(buf, FILL, sizeof(buf));
			xdrx_create(&x, buf, sizeof(buf), XDR_ENCODE);
			if (len > max) {
				assert_false(xdrx_put_string(&x, str, max));
				continue;
			}
			assert_true(xdrx_put_string(&x, str, max));
			check_u64(xdr_getpos(&x), wlen, "string pos", len);
			check_mem(buf, want, wlen, "string bytes", len);
			check_u64(buf[wlen], FILL, "byte after the string", len);
			/* Exactly its size, and a word short. */
			xdrx_create(&x, buf, wlen, XDR_ENCODE);
			assert_true(xdrx_put_string(&x, str, max));
			xdrx_create(&x, buf, wlen - 4, XDR_ENCODE);
			assert_false(xdrx_put_string(&x, str, max));
		}
	}
	/* A 255-byte name (NFSv4's NFS4_NAME_MAX) at the limit, read back at offset 1. */
	s[255] = 0;
	xdrx_create(&x, buf, sizeof(buf), XDR_ENCODE);
	assert_true(xdrx_put_string(&x, s, 255));
	check_u64(xdr_getpos(&x), 4 + 256, "255-byte string", 0);
	check_u64(buf[4 + 255], 0, "its padding", 0);
	p = copy_at(buf, 4 + 256, 1, &mem);
	xdrx_create(&x, p, 4 + 256, XDR_DECODE);
	assert_true(xdrx_get_opaque(&x, 255, &in, &n));
	check_u64(n, 255, "255-byte string read back", 0);
	check_mem(in, (const uint8_t *)s, 255, "255-byte string bytes", 0);
	free(mem);
	xdrx_create(&x, buf, sizeof(buf), XDR_ENCODE);
	assert_false(xdrx_put_string(&x, s, 254));
	assert_false(xdrx_put_string(&x, NULL, 255));
	/* The empty string: a zero length word. */
	xdrx_create(&x, buf, 4, XDR_ENCODE);
	assert_true(xdrx_put_string(&x, "", 0));
	check_u64(xdrx_be32(buf), 0, "empty string", 0);
}

/* A stream of mixed items written and read back in order, at every alignment. */
static void test_round_trip(void **state)
{
	static const uint8_t fh[13] = { 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
					0xf8, 0xf9, 0xfa, 0xfb, 0xfc };
	static const uint8_t verf[8] = { 8, 7, 6, 5, 4, 3, 2, 1 };
	uint8_t enc[128];
	u_int len;
	XDR x;

	(void)state;
	memset(enc, FILL, sizeof(enc));
	xdrx_create(&x, enc, sizeof(enc), XDR_ENCODE);
	assert_true(xdrx_put32(&x, 7) && xdrx_put64(&x, UINT64_C(0xfedcba9876543210)) &&
		    xdrx_put_opaque(&x, fh, sizeof(fh), 64) && xdrx_put32(&x, 1) &&
		    xdrx_put_fixed(&x, verf, sizeof(verf)) && xdrx_put_string(&x, "name", 255) &&
		    xdrx_put32(&x, UINT32_MAX));
	len = xdr_getpos(&x);
	check_u64(len, 4 + 8 + 4 + 16 + 4 + 8 + 4 + 4 + 4, "round trip length", 0);
	for (size_t off = 0; off < 4; off++) {
		uint8_t *mem, *p = copy_at(enc, len, off, &mem);
		const uint8_t *in;
		uint8_t v[8];
		uint64_t u64 = 0;
		uint32_t u32 = 0, n = 0;
		bool b = false;

		xdrx_create(&x, p, len, XDR_DECODE);
		assert_true(xdrx_get32(&x, &u32));
		check_u64(u32, 7, "rt u32", (unsigned)off);
		assert_true(xdrx_get64(&x, &u64));
		check_u64(u64, UINT64_C(0xfedcba9876543210), "rt u64", (unsigned)off);
		assert_true(xdrx_get_opaque(&x, 64, &in, &n));
		check_u64(n, sizeof(fh), "rt opaque length", (unsigned)off);
		check_mem(in, fh, sizeof(fh), "rt opaque", (unsigned)off);
		check_u64((uint64_t)(in - p), 16, "rt opaque in place", (unsigned)off);
		assert_true(xdrx_get_bool(&x, &b));
		assert_true(b);
		assert_true(xdrx_get_fixed(&x, v, sizeof(v)));
		check_mem(v, verf, sizeof(v), "rt verifier", (unsigned)off);
		assert_true(xdrx_get_opaque(&x, 4, &in, &n));
		check_u64(n, 4, "rt name length", (unsigned)off);
		check_mem(in, (const uint8_t *)"name", 4, "rt name", (unsigned)off);
		assert_true(xdrx_get32(&x, &u32));
		check_u64(u32, UINT32_MAX, "rt last", (unsigned)off);
		check_u64(xdr_getpos(&x), len, "rt pos", (unsigned)off);
		assert_false(xdrx_get32(&x, &u32));
		free(mem);
	}
}

/* A stream made by plain xdrmem_create over an aligned record takes in place too. */
static void test_plain_xdrmem(void **state)
{
	_Alignas(4) uint8_t wire[12] = { 0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0 };
	const uint8_t *in;
	uint32_t n;
	XDR x;

	(void)state;
	xdrmem_create(&x, (char *)wire, sizeof(wire), XDR_DECODE);
	assert_true(xdrx_get_opaque(&x, 255, &in, &n));
	check_u64(n, 5, "plain opaque length", 0);
	check_u64((uint64_t)(in - wire), 4, "plain opaque in place", 0);
	assert_null(xdrx_take(&x, 1));
	xdrmem_create(&x, (char *)wire, 11, XDR_DECODE);
	assert_false(xdrx_get_opaque(&x, 255, &in, &n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pad),
		cmocka_unit_test(test_be),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_opaque),
		cmocka_unit_test(test_get_fixed),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_string),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_plain_xdrmem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
