/*
 * hdrlog unit tests. Our precise bucket layout is HdrHistogram's (its index
 * math, transcribed from HdrHistogram_c, against hist_index and
 * hist_bucket_range); what hdrlog_encode writes decodes, by a decoder written
 * here from the format (base64, cookie, zlib, V2 header, ZigZag LEB128), to
 * the histogram's counts, byte for byte where the bytes are known; the log
 * file has HdrHistogram's header and one line per interval and tag.
 *
 * HDRLOG_TEST_OUT=FILE keeps the log that test_log_file writes there (to feed
 * tests/hdrlog_decode.py or HdrHistogram's own readers).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "hdrlog.h"
#include "hist.h"

#define NCOUNTS 4608            /* (42 - 8 + 2) * 128 */
#define V2_HEADER_LEN 40
#define PAYLOAD_MAX (9 * NCOUNTS)

/* splitmix64: fixed seed, so every run sees the same data. */
static uint64_t rng_state = 42;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* 0 .. HIST_MAX_VALUE, spread evenly over the powers of two. */
static uint64_t rng_value(void)
{
	int bits = (int)(rng_next() % (HIST_MAX_BITS + 1));

	return bits ? rng_next() >> (64 - bits) : 0;
}

/* ---- HdrHistogram's bucket math, transcribed from HdrHistogram_c
 * (hdr_calculate_bucket_config, get_bucket_index, counts_index,
 * hdr_value_at_index, hdr_size_of_equivalent_value_range). */
struct hdr_cfg {
	int unit_magnitude, sub_bucket_half_count_magnitude;
	int sub_bucket_count, sub_bucket_half_count, bucket_count, counts_len;
	int64_t sub_bucket_mask;
};

static void hdr_config(int64_t lowest, int64_t highest, int sig, struct hdr_cfg *c)
{
	int64_t largest_single_unit = 2 * (int64_t)pow(10, sig), untrackable;
	int mag = (int)ceil(log((double)largest_single_unit) / log(2));

	c->sub_bucket_half_count_magnitude = (mag > 1 ? mag : 1) - 1;
	c->unit_magnitude = (int)(log((double)lowest) / log(2));
	c->sub_bucket_count = 1 << (c->sub_bucket_half_count_magnitude + 1);
	c->sub_bucket_half_count = c->sub_bucket_count / 2;
	c->sub_bucket_mask = ((int64_t)c->sub_bucket_count - 1) << c->unit_magnitude;
	untrackable = (int64_t)c->sub_bucket_count << c->unit_magnitude;
	c->bucket_count = 1;
	while (untrackable <= highest) {
		untrackable <<= 1;
		c->bucket_count++;
	}
	c->counts_len = (c->bucket_count + 1) * (c->sub_bucket_count / 2);
}

static int hdr_bucket_index(const struct hdr_cfg *c, int64_t v)
{
	int pow2ceiling = 64 - __builtin_clzll((uint64_t)(v | c->sub_bucket_mask));

	return pow2ceiling - c->unit_magnitude - (c->sub_bucket_half_count_magnitude + 1);
}

static int hdr_counts_index_for(const struct hdr_cfg *c, int64_t v)
{
	int bucket = hdr_bucket_index(c, v);
	int sub_bucket = (int)(v >> (bucket + c->unit_magnitude));
	int bucket_base = (bucket + 1) << c->sub_bucket_half_count_magnitude;

	return bucket_base + sub_bucket - c->sub_bucket_half_count;
}

static int64_t hdr_value_at_index(const struct hdr_cfg *c, int index)
{
	int bucket = (index >> c->sub_bucket_half_count_magnitude) - 1;
	int sub_bucket = (index & (c->sub_bucket_half_count - 1)) + c->sub_bucket_half_count;

	if (bucket < 0) {
		sub_bucket -= c->sub_bucket_half_count;
		bucket = 0;
	}
	return (int64_t)sub_bucket << (bucket + c->unit_magnitude);
}

static int64_t hdr_highest_equivalent(const struct hdr_cfg *c, int64_t v)
{
	int bucket = hdr_bucket_index(c, v);
	int sub_bucket = (int)(v >> (bucket + c->unit_magnitude));
	int adjusted = sub_bucket >= c->sub_bucket_count ? bucket + 1 : bucket;
	int64_t lowest = (int64_t)sub_bucket << (bucket + c->unit_magnitude);

	return lowest + (INT64_C(1) << (c->unit_magnitude + adjusted)) - 1;
}

static void check_index(const struct hdr_cfg *c, uint64_t v)
{
	int ours = hist_index(HIST_PRECISE_BITS, v), theirs = hdr_counts_index_for(c, (int64_t)v);

	if (ours != theirs) {
		print_error("value %" PRIu64 ": hist_index %d, HdrHistogram %d\n", v, ours, theirs);
		fail();
	}
}

static void test_layout(void **state)
{
	struct hdr_cfg c;
	struct hist h;
	uint64_t v, lo, hi;
	int i, k;

	(void)state;
	hdr_config(1, (int64_t)HIST_MAX_VALUE, 2, &c);
	assert_int_equal(c.unit_magnitude, 0);
	assert_int_equal(c.sub_bucket_count, 1 << HIST_PRECISE_BITS);
	assert_int_equal(c.sub_bucket_half_count, 128);
	assert_int_equal(c.counts_len, NCOUNTS);
	assert_int_equal(hist_init(&h, HIST_PRECISE_BITS), 0);
	assert_int_equal(h.nbuckets, c.counts_len);

	for (v = 0; v < 65536; v++)
		check_index(&c, v);
	for (k = 1; k <= HIST_MAX_BITS; k++) {
		v = UINT64_C(1) << k;
		check_index(&c, v - 1);
		if (v <= HIST_MAX_VALUE) {
			check_index(&c, v);
			check_index(&c, v + 1);
			check_index(&c, v + v / 2);
		}
	}
	for (i = 0; i < 1000000; i++)
		check_index(&c, rng_value());
	assert_int_equal(hdr_counts_index_for(&c, (int64_t)HIST_MAX_VALUE), NCOUNTS - 1);

	/* Inverse: each bucket covers the same values in both. */
	for (i = 0; i < h.nbuckets; i++) {
		hist_bucket_range(&h, i, &lo, &hi);
		if ((int64_t)lo != hdr_value_at_index(&c, i) ||
		    (int64_t)hi != hdr_highest_equivalent(&c, (int64_t)lo) ||
		    hdr_counts_index_for(&c, (int64_t)hi) != i) {
			print_error("bucket %d: [%" PRIu64 ", %" PRIu64 "], HdrHistogram from %"
				    PRId64 " to %" PRId64 "\n", i, lo, hi,
				    hdr_value_at_index(&c, i), hdr_highest_equivalent(&c, (int64_t)lo));
			fail();
		}
	}
	hist_destroy(&h);
}

/* ---- An independent decoder of the compressed V2 encoding. */
struct decoded {
	int32_t payload_len, normalizing_index_offset, significant_digits;
	int64_t lowest, highest;
	double ratio;
	uint8_t raw[V2_HEADER_LEN + PAYLOAD_MAX];  /* the inflated V2 encoding */
	uint64_t counts[NCOUNTS];
	int ncounts;            /* counts the payload spelled out, zeros included */
};

static struct decoded dec;

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/* Strict: length a multiple of 4, '=' only as padding, unused bits zero. */
static size_t b64_decode(const char *s, uint8_t *out)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s), i, o = 0;

	assert_true(n > 0 && n % 4 == 0);
	for (i = 0; i < n; i += 4) {
		uint32_t v = 0;
		int j, pad = 0;

		for (j = 0; j < 4; j++) {
			const char *p = s[i + j] ? strchr(tab, s[i + j]) : NULL;

			if (s[i + j] == '=' && i + 4 == n && j >= 2) {
				pad++;
				v <<= 6;
				continue;
			}
			assert_non_null(p);
			assert_int_equal(pad, 0);
			v = v << 6 | (uint32_t)(p - tab);
		}
		assert_int_equal(v & ((1u << (8 * pad)) - 1), 0);
		out[o++] = (uint8_t)(v >> 16);
		if (pad < 2)
			out[o++] = (uint8_t)(v >> 8);
		if (pad < 1)
			out[o++] = (uint8_t)v;
	}
	return o;
}

/* ZigZag LEB128 as ZigZagEncoding.getLong reads it: the ninth byte is whole. */
static int64_t get_varint(const uint8_t *p, size_t n, size_t *pos)
{
	uint64_t z = 0;
	int shift;

	for (shift = 0; shift < 56; shift += 7) {
		assert_true(*pos < n);
		z |= (uint64_t)(p[*pos] & 0x7f) << shift;
		if (!(p[(*pos)++] & 0x80))
			return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	}
	assert_true(*pos < n);
	z |= (uint64_t)p[(*pos)++] << 56;
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

static void decode(const char *b64)
{
	static uint8_t buf[2 * (V2_HEADER_LEN + PAYLOAD_MAX)];
	uLongf rawlen = sizeof(dec.raw);
	size_t n = b64_decode(b64, buf), pos = 0;
	union { uint64_t u; double d; } ratio;

	memset(&dec, 0, sizeof(dec));
	assert_true(n > 10);
	assert_int_equal(get_be(buf, 4), 0x1c849314);           /* V2 compressed, | 0x10 */
	assert_int_equal(get_be(buf + 4, 4), n - 8);            /* deflated length */
	/* A zlib stream (deflate, 32K window): what Java's Inflater expects. */
	assert_int_equal(buf[8], 0x78);
	assert_int_equal((buf[8] << 8 | buf[9]) % 31, 0);
	assert_int_equal(uncompress(dec.raw, &rawlen, buf + 8, (uLong)(n - 8)), Z_OK);
	assert_true(rawlen >= V2_HEADER_LEN);

	assert_int_equal(get_be(dec.raw, 4), 0x1c849313);       /* V2 encoding, | 0x10 */
	dec.payload_len = (int32_t)get_be(dec.raw + 4, 4);
	dec.normalizing_index_offset = (int32_t)get_be(dec.raw + 8, 4);
	dec.significant_digits = (int32_t)get_be(dec.raw + 12, 4);
	dec.lowest = (int64_t)get_be(dec.raw + 16, 8);
	dec.highest = (int64_t)get_be(dec.raw + 24, 8);
	ratio.u = get_be(dec.raw + 32, 8);
	dec.ratio = ratio.d;
	assert_int_equal(dec.payload_len, rawlen - V2_HEADER_LEN);
	assert_int_equal(dec.normalizing_index_offset, 0);
	assert_int_equal(dec.significant_digits, 2);
	assert_int_equal(dec.lowest, 1);
	assert_int_equal(dec.highest, HIST_MAX_VALUE);
	assert_true(dec.ratio == 1.0);

	while (pos < (size_t)dec.payload_len) {
		int64_t v = get_varint(dec.raw + V2_HEADER_LEN, (size_t)dec.payload_len, &pos);

		if (v < 0) {
			assert_true(-v <= NCOUNTS - dec.ncounts);
			dec.ncounts += (int)-v;
		} else {
			assert_true(dec.ncounts < NCOUNTS);
			dec.counts[dec.ncounts++] = (uint64_t)v;
		}
	}
}

static const uint8_t *payload(void)
{
	return dec.raw + V2_HEADER_LEN;
}

/* The decoded counts are h's; the payload stops at the last non-zero count
 * (an empty histogram spells out one zero). */
static void check_decoded(const struct hist *h)
{
	int i, last = 0;

	for (i = 0; i < NCOUNTS; i++) {
		if (dec.counts[i] != h->counts[i]) {
			print_error("index %d: decoded %" PRIu64 ", histogram %" PRIu64 "\n", i,
				    dec.counts[i], h->counts[i]);
			fail();
		}
		if (h->counts[i])
			last = i;
	}
	assert_int_equal(dec.ncounts, last + 1);
}

static void check_roundtrip(const struct hist *h)
{
	char *b64;

	assert_int_equal(hdrlog_encode(h, &b64), 0);
	decode(b64);
	free(b64);
	check_decoded(h);
}

static void test_roundtrip(void **state)
{
	struct hist h;
	int i;

	(void)state;
	assert_int_equal(hist_init(&h, HIST_PRECISE_BITS), 0);

	check_roundtrip(&h);                    /* empty: one zero count */
	assert_int_equal(dec.payload_len, 1);
	assert_int_equal(payload()[0], 0);

	hist_record(&h, 12345);
	check_roundtrip(&h);

	hist_reset(&h);
	hist_record(&h, HIST_MAX_VALUE);
	hist_record(&h, HIST_MAX_VALUE + 1000); /* clamped into the last bucket */
	check_roundtrip(&h);
	assert_int_equal(dec.ncounts, NCOUNTS);
	assert_int_equal(dec.counts[NCOUNTS - 1], 2);

	hist_reset(&h);
	for (i = 0; i < 100000; i++)
		hist_record(&h, rng_value());
	check_roundtrip(&h);
	hist_destroy(&h);
}

/* Known payload bytes: ZigZag LEB128 lengths 1, 2, 3, 8 and 9, zero runs. */
static void test_varint_edges(void **state)
{
	static const struct {
		int index;
		uint64_t count;
		int len;
		uint8_t bytes[12];
	} cases[] = {
		{ 0, 1, 1, { 0x02 } },
		{ 0, 63, 1, { 0x7e } },
		{ 0, 64, 2, { 0x80, 0x01 } },
		{ 0, 8191, 2, { 0xfe, 0x7f } },
		{ 0, 8192, 3, { 0x80, 0x80, 0x01 } },
		{ 0, (UINT64_C(1) << 55) - 1, 8, { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f } },
		{ 0, UINT64_C(1) << 55, 9, { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 } },
		{ 0, INT64_MAX, 9, { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
		/* One zero is the count 0; two are -2 (ZigZag 3); 4607 are -4607. */
		{ 1, 5, 2, { 0x00, 0x0a } },
		{ 2, 5, 2, { 0x03, 0x0a } },
		{ NCOUNTS - 1, 1, 3, { 0xfd, 0x47, 0x02 } },
	};
	struct hist h;
	size_t i;
	char *b64;

	(void)state;
	assert_int_equal(hist_init(&h, HIST_PRECISE_BITS), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hist_reset(&h);
		h.counts[cases[i].index] = cases[i].count;
		check_roundtrip(&h);
		if (dec.payload_len != cases[i].len ||
		    memcmp(payload(), cases[i].bytes, (size_t)cases[i].len) != 0) {
			print_error("count %" PRIu64 " at %d: payload of %d bytes, want %d\n",
				    cases[i].count, cases[i].index, dec.payload_len, cases[i].len);
			fail();
		}
	}

	/* Two counts around a run of two zeros. */
	hist_reset(&h);
	h.counts[0] = 1;
	h.counts[3] = 2;
	check_roundtrip(&h);
	assert_int_equal(dec.payload_len, 3);
	assert_memory_equal(payload(), ((const uint8_t[]){ 0x02, 0x03, 0x04 }), 3);

	/* HdrHistogram's counts are signed. */
	h.counts[7] = (uint64_t)INT64_MAX + 1;
	b64 = (char *)"unset";         /* must come back NULL */
	assert_int_equal(hdrlog_encode(&h, &b64), -ERANGE);
	assert_null(b64);
	hist_destroy(&h);

	assert_int_equal(hist_init(&h, HIST_COARSE_BITS), 0);
	assert_int_equal(hdrlog_encode(&h, &b64), -EINVAL);
	hist_destroy(&h);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = malloc(1 << 20);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_log_file(void **state)
{
	static const char *const tags[] = { "read", "write" };
	const char *keep = getenv("HDRLOG_TEST_OUT");
	char dir[] = "/tmp/test_hdrlog.XXXXXX", path[64], *text, *line, *save, *b64;
	struct hdrlog *log;
	struct hist h[3][2];
	int i, t, n = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run.hlog", dir);
	if (keep && *keep)
		snprintf(path, sizeof(path), "%s", keep);

	/* 2023-11-14 22:13:20.123456789 UTC */
	assert_int_equal(hdrlog_open(path, INT64_C(1700000000123456789), &log), 0);
	for (i = 0; i < 3; i++) {
		for (t = 0; t < 2; t++) {
			int k, nvals = (t == 1 && i == 2) ? 0 : 1000 * (i + 1);

			assert_int_equal(hist_init(&h[i][t], HIST_PRECISE_BITS), 0);
			for (k = 0; k < nvals; k++)
				hist_record(&h[i][t], 50000 + rng_next() % (1000000 * (uint64_t)(t + 1)));
			if (nvals)
				hist_record(&h[i][t], 1234567 * (uint64_t)(t + 1));
			/* 1.5 ms after the second: ".002" (half up); 1 s long */
			assert_int_equal(hdrlog_write(log, tags[t], i * UINT64_C(1000000000) + 1500000,
						      1000000000, &h[i][t]), 0);
		}
	}
	assert_int_equal(hdrlog_close(log), 0);

	text = slurp(path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		static const char *const header[] = {
			"#[Histogram log format version 1.3]",
			"#[StartTime: 1700000000.123 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]",
			"#[BaseTime: 1700000000.123 (seconds since epoch)]",
			"\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
			"\"Interval_Compressed_Histogram\"",
		};
		static const char *const maxes[] = { "1.235", "2.469" };
		char want[64];

		if (n < 4) {
			assert_string_equal(line, header[n]);
			continue;
		}
		i = (n - 4) / 2;
		t = (n - 4) % 2;
		snprintf(want, sizeof(want), "Tag=%s,%d.002,1.000,%s,", tags[t], i,
			 h[i][t].count ? maxes[t] : "0.000");
		assert_true(strncmp(line, want, strlen(want)) == 0);
		b64 = line + strlen(want);
		decode(b64);
		check_decoded(&h[i][t]);
	}
	assert_int_equal(n, 4 + 3 * 2);
	free(text);
	for (i = 0; i < 3; i++)
		for (t = 0; t < 2; t++)
			hist_destroy(&h[i][t]);
	if (!(keep && *keep))
		unlink(path);
	rmdir(dir);
}

static void test_log_errors(void **state)
{
	char dir[] = "/tmp/test_hdrlog.XXXXXX", path[64], *text;
	struct hdrlog *log = NULL;
	struct hist h, coarse;

	(void)state;
	assert_int_equal(hdrlog_close(NULL), 0);
	assert_int_equal(hdrlog_open("/nonexistent/dir/run.hlog", 0, &log), -ENOENT);
	assert_null(log);
	assert_int_equal(hist_init(&h, HIST_PRECISE_BITS), 0);
	assert_int_equal(hist_init(&coarse, HIST_COARSE_BITS), 0);

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run.hlog", dir);
	assert_int_equal(hdrlog_open(path, 0, &log), 0);
	assert_int_equal(hdrlog_write(log, "a,b", 0, 1, &h), -EINVAL);
	assert_int_equal(hdrlog_write(log, "a b", 0, 1, &h), -EINVAL);
	assert_int_equal(hdrlog_write(log, "a\n", 0, 1, &h), -EINVAL);
	assert_int_equal(hdrlog_write(log, "a", 0, 1, &coarse), -EINVAL);
	hist_record(&h, 999);                   /* 0.000999 ms: rounds to 0.001 */
	assert_int_equal(hdrlog_write(log, NULL, 999999, 499999, &h), 0);
	assert_int_equal(hdrlog_write(log, "", 0, 0, &h), 0);
	assert_int_equal(hdrlog_close(log), 0);
	text = slurp(path);
	assert_non_null(strstr(text, "Thu Jan 01 00:00:00 UTC 1970]\n"));
	assert_non_null(strstr(text, "\"\n0.001,0.000,0.001,HIST"));
	assert_non_null(strstr(text, "\n0.000,0.000,0.001,HIST"));
	assert_null(strstr(text, "Tag="));
	free(text);
	unlink(path);
	rmdir(dir);

	/* A full disk: the header's flush fails, and open says so. */
	if (access("/dev/full", W_OK) == 0)
		assert_int_equal(hdrlog_open("/dev/full", 0, &log), -ENOSPC);
	hist_destroy(&h);
	hist_destroy(&coarse);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_varint_edges),
		cmocka_unit_test(test_log_file),
		cmocka_unit_test(test_log_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
