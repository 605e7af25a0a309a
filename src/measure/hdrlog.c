/*
 * hdrlog: HdrHistogram interval log writer (see hdrlog.h). The byte formats
 * follow HdrHistogram's reference implementation: AbstractHistogram's
 * encodeIntoByteBuffer / encodeIntoCompressedByteBuffer, ZigZagEncoding and
 * HistogramLogWriter (Java), hdr_encode_compressed (C).
 */
#include "hdrlog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

/* The V2 cookies with 0x10 in their word-size nibble, as HdrHistogram's
 * writers send them; readers mask that nibble off (cookie & ~0xf0). */
#define V2_ENCODING_COOKIE   UINT32_C(0x1c849313)
#define V2_COMPRESSED_COOKIE UINT32_C(0x1c849314)
#define V2_HEADER_LEN 40        /* cookie .. integerToDoubleValueConversionRatio */
#define COMPRESSED_HEADER_LEN 8 /* cookie, deflated length */
#define VARINT_MAX 9            /* ZigZag LEB128 of a 64-bit value */
#define SIGNIFICANT_DIGITS 2    /* gives subBucketCount 256 = 2^HIST_PRECISE_BITS */

struct hdrlog {
	FILE *f;
	int err;                /* first write error as -errno, 0 if none */
};

static uint8_t *put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static uint8_t *put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

/* ZigZag, then LEB128 cut at 9 bytes: the ninth carries the last 8 bits
 * whole, with no continuation bit (ZigZagEncoding.putLong). */
static uint8_t *put_varint(uint8_t *p, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);

	for (int i = 0; i < VARINT_MAX - 1 && z >= 0x80; i++) {
		*p++ = (uint8_t)(z | 0x80);
		z >>= 7;
	}
	*p++ = (uint8_t)z;
	return p;
}

/*
 * The uncompressed V2 encoding of h into buf (V2_HEADER_LEN + VARINT_MAX *
 * nbuckets bytes): its length, or -ERANGE. Counts run up to the last non-zero
 * one (at least one count, as Java encodes up to countsArrayIndex(max) + 1);
 * a run of n > 1 zeros is the count -n, a lone zero is 0, as Java writes them.
 */
static long encode_v2(const struct hist *h, uint8_t *buf)
{
	union { double d; uint64_t u; } ratio = { .d = 1.0 };
	uint8_t *p = buf + V2_HEADER_LEN, *q = buf;
	int limit = h->nbuckets, i = 0;

	while (limit > 1 && h->counts[limit - 1] == 0)
		limit--;
	while (i < limit) {
		uint64_t c = h->counts[i++];
		int64_t zeros = 1;

		if (c > INT64_MAX)
			return -ERANGE;
		if (c != 0) {
			p = put_varint(p, (int64_t)c);
			continue;
		}
		while (i < limit && h->counts[i] == 0) {
			zeros++;
			i++;
		}
		p = put_varint(p, zeros > 1 ? -zeros : 0);
	}
	q = put_be32(q, V2_ENCODING_COOKIE);
	q = put_be32(q, (uint32_t)(p - buf - V2_HEADER_LEN)); /* payloadLengthInBytes */
	q = put_be32(q, 0);                    /* normalizingIndexOffset */
	q = put_be32(q, SIGNIFICANT_DIGITS);   /* numberOfSignificantValueDigits */
	q = put_be64(q, 1);                    /* lowestDiscernibleValue */
	q = put_be64(q, HIST_MAX_VALUE);       /* highestTrackableValue */
	put_be64(q, ratio.u);                  /* integerToDoubleValueConversionRatio */
	return p - buf;
}

/* Standard base64 with '=' padding; out holds 4 * ((n + 2) / 3) + 1 bytes. */
static void base64(const uint8_t *in, size_t n, char *out)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		*out++ = tab[v >> 18];
		*out++ = tab[(v >> 12) & 63];
		*out++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		*out++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*out = '\0';
}

int hdrlog_encode(const struct hist *h, char **b64)
{
	size_t cap = V2_HEADER_LEN + (size_t)VARINT_MAX * (size_t)h->nbuckets;
	uLongf zlen = compressBound((uLong)cap);
	uint8_t *raw, *z;
	long len;
	int rc = -ENOMEM;

	*b64 = NULL;
	if (h->sub_bits != HIST_PRECISE_BITS || !h->counts)
		return -EINVAL;
	raw = malloc(cap);
	z = malloc(COMPRESSED_HEADER_LEN + zlen);
	if (!raw || !z)
		goto out;
	len = encode_v2(h, raw);
	if (len < 0) {
		rc = (int)len;
		goto out;
	}
	/* A zlib stream, as Java's Deflater writes it; the log writer's level.
	 * With compressBound room, only running out of memory can fail. */
	if (compress2(z + COMPRESSED_HEADER_LEN, &zlen, raw, (uLong)len,
		      Z_BEST_COMPRESSION) != Z_OK)
		goto out;
	put_be32(put_be32(z, V2_COMPRESSED_COOKIE), (uint32_t)zlen);
	len = COMPRESSED_HEADER_LEN + (long)zlen;
	*b64 = malloc(4 * (((size_t)len + 2) / 3) + 1);
	if (!*b64)
		goto out;
	base64(z, (size_t)len, *b64);
	rc = 0;
out:
	free(raw);
	free(z);
	return rc;
}

/* n / unit as "%.3f" would print it (half up), in integers: no locale, no
 * double rounding. unit is a multiple of 1000. */
static void fmt3(char out[32], uint64_t n, uint64_t unit)
{
	uint64_t d = unit / 1000, t = n / d + (n % d >= (d + 1) / 2);

	snprintf(out, 32, "%" PRIu64 ".%03u", t / 1000, (unsigned)(t % 1000));
}

/* Keeps the first error; errno is meaningful only if the failed call set it. */
static void note_error(struct hdrlog *log)
{
	if (!log->err)
		log->err = errno ? -errno : -EIO;
}

int hdrlog_open(const char *path, int64_t start_unix_ns, struct hdrlog **out)
{
	struct hdrlog *log;
	char start[32], date[64];
	time_t secs;
	struct tm tm;
	int rc;

	if (start_unix_ns < 0)
		return -EINVAL;
	log = calloc(1, sizeof(*log));
	if (!log)
		return -ENOMEM;
	log->f = fopen(path, "we");
	if (!log->f) {
		rc = -errno;
		free(log);
		return rc;
	}
	fmt3(start, (uint64_t)start_unix_ns, 1000000000);
	/* Java writes Date.toString() here; readers skip it. UTC, C locale. */
	secs = (time_t)(start_unix_ns / 1000000000);
	if (!gmtime_r(&secs, &tm) ||
	    !strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm))
		strcpy(date, "?");
	errno = 0;
	if (fprintf(log->f, "#[Histogram log format version 1.3]\n"
		    "#[StartTime: %s (seconds since epoch), %s]\n"
		    "#[BaseTime: %s (seconds since epoch)]\n"
		    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
		    "\"Interval_Compressed_Histogram\"\n", start, date, start) < 0 ||
	    fflush(log->f) != 0)
		note_error(log);
	if (log->err) {
		rc = log->err;
		hdrlog_close(log);
		return rc;
	}
	*out = log;
	return 0;
}

int hdrlog_write(struct hdrlog *log, const char *tag, uint64_t start_ns, uint64_t len_ns,
		 const struct hist *h)
{
	char start[32], len[32], max[32], *b64;
	int tagged = tag && *tag, rc;

	/* Readers split fields on ',', ' ', '\r' and '\n'. */
	if (tagged && tag[strcspn(tag, ", \r\n")])
		return -EINVAL;
	rc = hdrlog_encode(h, &b64);
	if (rc)
		return rc;
	fmt3(start, start_ns, 1000000000);
	fmt3(len, len_ns, 1000000000);
	fmt3(max, h->max, 1000000);     /* ns to ms: maxValueUnitRatio 1e6 */
	errno = 0;
	if (fprintf(log->f, "%s%s%s%s,%s,%s,%s\n", tagged ? "Tag=" : "", tagged ? tag : "",
		    tagged ? "," : "", start, len, max, b64) < 0 || fflush(log->f) != 0)
		note_error(log);
	free(b64);
	return log->err;
}

int hdrlog_close(struct hdrlog *log)
{
	int rc;

	if (!log)
		return 0;
	errno = 0;
	if (fclose(log->f) != 0)
		note_error(log);
	rc = log->err;
	free(log);
	return rc;
}
