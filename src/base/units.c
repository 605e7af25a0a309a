/*
 * units: parsing and printing of sizes, durations and counts.
 *
 * The parsers read digits themselves instead of using strtoull/strtod: those
 * accept leading spaces, signs, hex and (strtod) a locale's decimal comma,
 * none of which belong on an nfsload command line.
 */
#include "units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A decimal number as written: integer digits, optional '.' and fraction. */
struct number {
	const char *int_digits;
	size_t int_len;
	const char *frac_digits;
	size_t frac_len;
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* ASCII only: tolower() would depend on the locale. */
static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/*
 * Scans "123" or "1.25" at s; returns what follows it, or NULL when s does
 * not start with one. Digits are required on both sides of the point.
 */
static const char *scan_number(const char *s, struct number *n)
{
	memset(n, 0, sizeof(*n));
	n->int_digits = s;
	while (is_digit(*s))
		s++;
	n->int_len = (size_t)(s - n->int_digits);
	if (n->int_len == 0)
		return NULL;
	if (*s != '.')
		return s;
	n->frac_digits = ++s;
	while (is_digit(*s))
		s++;
	n->frac_len = (size_t)(s - n->frac_digits);
	return n->frac_len ? s : NULL;
}

/*
 * n * mult, exactly. -EINVAL when the fraction does not come out whole,
 * -ERANGE when the result does not fit.
 */
static int scale(const struct number *n, uint64_t mult, uint64_t *out)
{
	uint64_t v = 0, frac = 0;
	size_t i;

	/*
	 * Fraction by Horner's rule from the last digit: frac stays
	 * mult * 0.d[i..] < mult, and if the whole product is an integer so is
	 * every partial one, so a remainder at any step means "not whole".
	 * mult <= 2^50 keeps digit * mult + frac far from overflow.
	 */
	for (i = n->frac_len; i-- > 0;) {
		frac += (uint64_t)(n->frac_digits[i] - '0') * mult;
		if (frac % 10)
			return -EINVAL;
		frac /= 10;
	}
	for (i = 0; i < n->int_len; i++) {
		uint64_t d = (uint64_t)(n->int_digits[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	v *= mult;
	if (v > UINT64_MAX - frac)
		return -ERANGE;
	*out = v + frac;
	return 0;
}

int units_parse_size(const char *s, uint64_t *bytes)
{
	static const char prefixes[] = "kmgtp";
	struct number n;
	const char *p, *rest = scan_number(s, &n);
	uint64_t mult = 1;

	if (!rest)
		return -EINVAL;
	if (*rest && (p = strchr(prefixes, lower(*rest))) != NULL) {
		mult <<= 10 * (p - prefixes + 1);
		rest++;
		if (lower(*rest) == 'i')
			rest++;
	}
	/* "b" alone ("512b") is bytes too; after a prefix it is decoration. */
	if (lower(*rest) == 'b')
		rest++;
	if (*rest)
		return -EINVAL;
	return scale(&n, mult, bytes);
}

int units_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "", UINT64_C(1000000000) },   /* bare number: seconds */
		{ "ns", 1 },
		{ "us", UINT64_C(1000) },
		{ "ms", UINT64_C(1000000) },
		{ "s", UINT64_C(1000000000) },
		{ "m", UINT64_C(60000000000) },
		{ "h", UINT64_C(3600000000000) },
	};
	struct number n;
	const char *rest = scan_number(s, &n);
	size_t i;

	if (!rest)
		return -EINVAL;
	/* Case-sensitive on purpose: "M" could be read as mega or minutes. */
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(rest, units[i].suffix) == 0)
			return scale(&n, units[i].ns, ns);
	return -EINVAL;
}

int units_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	struct number n;
	const char *rest = scan_number(s, &n);
	uint64_t v;
	int rc;

	if (!rest || *rest || n.frac_len)
		return -EINVAL;
	rc = scale(&n, 1, &v);
	if (rc)
		return rc;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

char *units_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	/* Move up while the value would print as 1024.00 or more. */
	while (u < 5 && v >= 1023.995) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.2f %s", v, names[u]);
	return buf;
}

char *units_format_duration(uint64_t ns, char *buf, size_t len)
{
	static const char *const names[] = { "us", "ms", "s" };
	double v = (double)ns;
	int u = -1, decimals;

	if (ns < 1000) {
		snprintf(buf, len, "%" PRIu64 " ns", ns);
		return buf;
	}
	/* Move up while the value would round to 1000 in this unit;
	 * seconds are the largest unit ("3600 s"). */
	while (u < 2 && v >= 999.5) {
		v /= 1000;
		u++;
	}
	/* Three significant digits: 4.56, 12.3, 850. The thresholds are where
	 * rounding would add a digit (9.996 -> "10.0", not "10.00"). */
	decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
	snprintf(buf, len, "%.*f %s", decimals, v, names[u]);
	return buf;
}
