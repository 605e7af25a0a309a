/*
 * libFuzzer target: units_parse_size, units_parse_duration and
 * units_parse_uint on the input as a string, then units_format_size and
 * units_format_duration on whatever parsed (into full and tiny buffers).
 *
 * Checks against units.h:
 *  - each parser returns 0, -EINVAL or -ERANGE and writes its output only
 *    on success;
 *  - a small reference parser (unsigned __int128, for fractions of up to 18
 *    significant digits) agrees on the result and the value;
 *  - the formatters always terminate within len, and with room print a
 *    number in range: sizes [1.00, 1024.00) KiB..EiB (exact below 1 KiB),
 *    durations [1.00, 1000) us/ms, >= 1.00 s (exact below 1 us), within
 *    rounding of the value, three significant digits for durations.
 */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>

#include "fuzz_common.h"
#include "units.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef unsigned __int128 u128;

#define UNTOUCHED UINT64_C(0x5eed5eed5eed5eed)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet_stdout();
	return 0;
}

/* ---- reference parsers ---- */

enum { REF_UNKNOWN = 1 };	/* the reference cannot judge this input */

/*
 * "DIGITS[.DIGITS]" at s; *rest after it. value = int + frac / 10^flen with
 * trailing fraction zeros dropped. Returns 0, -EINVAL or REF_UNKNOWN
 * (fraction beyond 18 significant digits).
 */
static int ref_number(const char *s, const char **rest, u128 *ip, bool *ibig, u128 *fp,
		      unsigned *flen)
{
	const char *p = s, *f, *fe;

	*ip = 0;
	*ibig = false;
	*fp = 0;
	*flen = 0;
	while (isdigit((unsigned char)*p)) {
		if (*ip > UINT64_MAX)
			*ibig = true;
		else
			*ip = *ip * 10 + (u128)(*p - '0');
		p++;
	}
	if (p == s)
		return -EINVAL;
	if (*ip > UINT64_MAX)
		*ibig = true;
	if (*p == '.') {
		f = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		if (p == f)
			return -EINVAL;
		fe = p;
		while (fe > f && fe[-1] == '0')
			fe--;
		if (fe - f > 18)
			return REF_UNKNOWN;
		for (; f < fe; f++) {
			*fp = *fp * 10 + (u128)(*f - '0');
			(*flen)++;
		}
	}
	*rest = p;
	return 0;
}

/* (int + frac) * mult: -EINVAL when not whole, -ERANGE when over 2^64 - 1. */
static int ref_scale(u128 ip, bool ibig, u128 fp, unsigned flen, uint64_t mult, uint64_t *out)
{
	u128 p10 = 1, frac, total;

	for (unsigned i = 0; i < flen; i++)
		p10 *= 10;
	if ((fp * mult) % p10)
		return -EINVAL;
	frac = fp * mult / p10;
	if (ibig)
		return -ERANGE;
	total = ip * mult + frac;
	if (total > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)total;
	return 0;
}

static int ref_size(const char *s, uint64_t *out)
{
	static const char prefixes[] = "kmgtp";
	const char *rest, *p;
	u128 ip, fp;
	bool ibig;
	unsigned flen;
	uint64_t mult = 1;
	int rc = ref_number(s, &rest, &ip, &ibig, &fp, &flen);

	if (rc)
		return rc;
	if (*rest && (p = strchr(prefixes, tolower((unsigned char)*rest)))) {
		mult <<= 10 * (p - prefixes + 1);
		rest++;
		if (*rest == 'i' || *rest == 'I')
			rest++;
	}
	if (*rest == 'b' || *rest == 'B')
		rest++;
	if (*rest)
		return -EINVAL;
	return ref_scale(ip, ibig, fp, flen, mult, out);
}

static int ref_duration(const char *s, uint64_t *out)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "", 1000000000 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 }, { "m", 60000000000 }, { "h", 3600000000000 },
	};
	const char *rest;
	u128 ip, fp;
	bool ibig;
	unsigned flen;
	int rc = ref_number(s, &rest, &ip, &ibig, &fp, &flen);

	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(rest, units[i].suffix) == 0)
			return ref_scale(ip, ibig, fp, flen, units[i].ns, out);
	return -EINVAL;
}

/* A parser against its reference: same rc, same value, no write on failure. */
static void same(int rc, uint64_t got, int ref_rc, uint64_t ref)
{
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (rc)
		FUZZ_CHECK(got == UNTOUCHED);
	if (ref_rc == REF_UNKNOWN)
		return;
	FUZZ_CHECK(rc == ref_rc);
	FUZZ_CHECK(rc || got == ref);
}

/* ---- formatters ---- */

/* Into len bytes of a guarded buffer: terminated, nothing written past len. */
static void format_small(char *(*fmt)(uint64_t, char *, size_t), uint64_t v, size_t len)
{
	char buf[40];

	memset(buf, 'Z', sizeof(buf));
	FUZZ_CHECK(fmt(v, buf, len) == buf);
	if (len)
		FUZZ_CHECK(memchr(buf, '\0', len) != NULL);
	for (size_t i = len; i < sizeof(buf); i++)
		FUZZ_CHECK(buf[i] == 'Z');
}

static void check_format_size(uint64_t v, size_t small)
{
	static const char *const names[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	char buf[64], exact[32], unit[8];
	double num, scale = 1024;
	int u;

	format_small(units_format_size, v, small);
	units_format_size(v, buf, sizeof(buf));
	if (v < 1024) {
		snprintf(exact, sizeof(exact), "%u B", (unsigned)v);
		FUZZ_CHECK(strcmp(buf, exact) == 0);
		return;
	}
	FUZZ_CHECK(sscanf(buf, "%lf %7s", &num, unit) == 2);
	for (u = 0; u < 6 && strcmp(unit, names[u]); u++)
		scale *= 1024;
	FUZZ_CHECK(u < 6);
	FUZZ_CHECK(strchr(buf, '.') && strlen(strchr(buf, '.')) == strlen(".00 ") + strlen(unit));
	FUZZ_CHECK(num >= 1.0 && num < 1024.0);
	FUZZ_CHECK(fabs(num - (double)v / scale) <= 0.005 + 1e-9 * num);
}

static void check_format_duration(uint64_t v, size_t small)
{
	static const char *const names[] = { "us", "ms", "s" };
	char buf[64], exact[32], unit[8], *dot;
	double num, scale = 1000;
	int u, digits;

	format_small(units_format_duration, v, small);
	units_format_duration(v, buf, sizeof(buf));
	if (v < 1000) {
		snprintf(exact, sizeof(exact), "%u ns", (unsigned)v);
		FUZZ_CHECK(strcmp(buf, exact) == 0);
		return;
	}
	FUZZ_CHECK(sscanf(buf, "%lf %7s", &num, unit) == 2);
	for (u = 0; u < 3 && strcmp(unit, names[u]); u++)
		scale *= 1000;
	FUZZ_CHECK(u < 3);
	FUZZ_CHECK(num >= 1.0 && (u == 2 || num < 1000.0));
	/* within half a unit in the last printed place */
	dot = strchr(buf, '.');
	FUZZ_CHECK(fabs(num - (double)v / scale) <=
		   (dot ? 0.5 * pow(10, -(double)(strcspn(dot + 1, " "))) : 0.5) + 1e-9 * num);
	/* three significant digits below 1000 (and whole seconds above) */
	digits = (int)strcspn(buf, ". ") - (buf[0] == '0') + (dot ? (int)strcspn(dot + 1, " ") : 0);
	FUZZ_CHECK(num >= 1000.0 ? !dot : digits == 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	size_t small = size % 12;	/* a tiny buffer, 0 to 11 bytes */
	uint64_t v, ref = 0;
	int rc, ref_rc;

	v = UNTOUCHED;
	rc = units_parse_size(s, &v);
	ref_rc = ref_size(s, &ref);
	same(rc, v, ref_rc, ref);
	if (rc == 0) {
		check_format_size(v, small);
		check_format_duration(v, small);
	}

	v = UNTOUCHED;
	rc = units_parse_duration(s, &v);
	ref_rc = ref_duration(s, &ref);
	same(rc, v, ref_rc, ref);
	if (rc == 0) {
		check_format_duration(v, small);
		check_format_size(v, small);
	}

	/* uint: digits only, in range; compare with the size parser (mult 1). */
	{
		static const uint64_t range[][2] = { { 0, UINT64_MAX }, { 1, 65535 }, { 0, 100 } };
		bool digits = s[0] && strspn(s, "0123456789") == strlen(s);

		for (size_t i = 0; i < sizeof(range) / sizeof(range[0]); i++) {
			v = UNTOUCHED;
			rc = units_parse_uint(s, range[i][0], range[i][1], &v);
			ref_rc = digits ? ref_size(s, &ref) : -EINVAL;
			if (ref_rc == 0 && (ref < range[i][0] || ref > range[i][1]))
				ref_rc = -ERANGE;
			same(rc, v, ref_rc, ref);
		}
	}
	free(s);
	return 0;
}
