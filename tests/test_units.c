/*
 * units unit tests: table-driven parse and format cases. Each table is run
 * to the end and every mismatch printed before the test fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "units.h"

#define KI UINT64_C(1024)
#define NS_S UINT64_C(1000000000)
#define N(a) (sizeof(a) / sizeof((a)[0]))

struct parse_case {
	const char *in;
	int rc;
	uint64_t want;  /* checked only when rc == 0 */
};

static int check_parse(const char *what, int (*parse)(const char *, uint64_t *),
		       const struct parse_case *c, size_t n)
{
	int bad = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t got = UINT64_C(0xdeadbeef);
		int rc = parse(c[i].in, &got);

		if (rc != c[i].rc || (rc == 0 && got != c[i].want)) {
			print_error("%s(\"%s\"): got rc %d value %" PRIu64
				    ", want rc %d value %" PRIu64 "\n", what, c[i].in, rc,
				    rc == 0 ? got : 0, c[i].rc, c[i].want);
			bad++;
		}
	}
	return bad;
}

static void test_parse_size(void **state)
{
	static const struct parse_case cases[] = {
		{ "0", 0, 0 },
		{ "4096", 0, 4096 },
		{ "007", 0, 7 },
		{ "512b", 0, 512 },
		{ "512B", 0, 512 },
		{ "4k", 0, 4 * KI },
		{ "4K", 0, 4 * KI },
		{ "4KiB", 0, 4 * KI },
		{ "4kib", 0, 4 * KI },
		{ "4ki", 0, 4 * KI },
		{ "4kb", 0, 4 * KI },
		{ "4KB", 0, 4 * KI },
		{ "1m", 0, KI * KI },
		{ "1.5g", 0, 3 * KI * KI * KI / 2 },
		{ "1.5k", 0, 1536 },
		{ "0.5k", 0, 512 },
		{ "1.0", 0, 1 },
		{ "2.50", -EINVAL, 0 },        /* 2.5 bytes: not whole */
		{ "1.125k", 0, 1152 },
		{ "2t", 0, 2 * KI * KI * KI * KI },
		{ "3P", 0, 3 * KI * KI * KI * KI * KI },
		{ "16383p", 0, UINT64_C(16383) << 50 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "", -EINVAL, 0 },
		{ " 4k", -EINVAL, 0 },
		{ "4k ", -EINVAL, 0 },
		{ "4 k", -EINVAL, 0 },
		{ "+4", -EINVAL, 0 },
		{ "-4", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
		{ "4q", -EINVAL, 0 },
		{ "k", -EINVAL, 0 },
		{ "1..5", -EINVAL, 0 },
		{ "1.", -EINVAL, 0 },
		{ ".5k", -EINVAL, 0 },
		{ "1,5k", -EINVAL, 0 },
		{ "1e3", -EINVAL, 0 },
		{ "4kk", -EINVAL, 0 },
		{ "4kbi", -EINVAL, 0 },
		{ "4ib", -EINVAL, 0 },
		{ "4bb", -EINVAL, 0 },
		{ "16e", -EINVAL, 0 },  /* no exa suffix in the contract */
		{ "1.3", -EINVAL, 0 },
		{ "0.1k", -EINVAL, 0 },
		{ "16384p", -ERANGE, 0 },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
		{ "99999999999999999999k", -ERANGE, 0 },
		{ "17179869184g", -ERANGE, 0 },
	};

	(void)state;
	assert_int_equal(check_parse("units_parse_size", units_parse_size,
				     cases, N(cases)), 0);
}

static void test_parse_duration(void **state)
{
	static const struct parse_case cases[] = {
		{ "0", 0, 0 },
		{ "90", 0, 90 * NS_S },
		{ "1.5", 0, 3 * NS_S / 2 },
		{ "250ns", 0, 250 },
		{ "100us", 0, 100000 },
		{ "500ms", 0, 500000000 },
		{ "30s", 0, 30 * NS_S },
		{ "1.5s", 0, 3 * NS_S / 2 },
		{ "0.001s", 0, 1000000 },
		{ "1.000000001s", 0, NS_S + 1 },
		{ "5m", 0, 300 * NS_S },
		{ "1h", 0, 3600 * NS_S },
		{ "1.25h", 0, 4500 * NS_S },
		{ "2.5us", 0, 2500 },
		{ "18446744073s", 0, UINT64_C(18446744073) * NS_S },
		{ "", -EINVAL, 0 },
		{ "s", -EINVAL, 0 },
		{ " 1s", -EINVAL, 0 },
		{ "1s ", -EINVAL, 0 },
		{ "-1s", -EINVAL, 0 },
		{ "+1s", -EINVAL, 0 },
		{ "1x", -EINVAL, 0 },
		{ "1S", -EINVAL, 0 },
		{ "1M", -EINVAL, 0 },
		{ "1sec", -EINVAL, 0 },
		{ "1..5s", -EINVAL, 0 },
		{ "1,5s", -EINVAL, 0 },
		{ "0x1s", -EINVAL, 0 },
		{ "1.5ns", -EINVAL, 0 },
		{ "0.0000000001", -EINVAL, 0 },
		{ "18446744074s", -ERANGE, 0 },
		{ "5124096h", -ERANGE, 0 },
		{ "99999999999999999999ns", -ERANGE, 0 },
	};

	(void)state;
	assert_int_equal(check_parse("units_parse_duration", units_parse_duration,
				     cases, N(cases)), 0);
}

static void test_parse_uint(void **state)
{
	static const struct {
		const char *in;
		uint64_t min, max;
		int rc;
		uint64_t want;
	} cases[] = {
		{ "0", 0, 10, 0, 0 },
		{ "10", 0, 10, 0, 10 },
		{ "1", 1, 1, 0, 1 },
		{ "0064", 1, 128, 0, 64 },
		{ "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX },
		{ "0", 1, 10, -ERANGE, 0 },
		{ "11", 0, 10, -ERANGE, 0 },
		{ "18446744073709551616", 0, UINT64_MAX, -ERANGE, 0 },
		{ "99999999999999999999", 0, UINT64_MAX, -ERANGE, 0 },
		{ "", 0, 10, -EINVAL, 0 },
		{ " 1", 0, 10, -EINVAL, 0 },
		{ "1 ", 0, 10, -EINVAL, 0 },
		{ "-1", 0, 10, -EINVAL, 0 },
		{ "+1", 0, 10, -EINVAL, 0 },
		{ "0x5", 0, 10, -EINVAL, 0 },
		{ "1.0", 0, 10, -EINVAL, 0 },
		{ "1k", 0, 10000, -EINVAL, 0 },
		{ "1e3", 0, 10000, -EINVAL, 0 },
	};
	size_t i;
	int bad = 0;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		uint64_t got = 0;
		int rc = units_parse_uint(cases[i].in, cases[i].min, cases[i].max, &got);

		if (rc != cases[i].rc || (rc == 0 && got != cases[i].want)) {
			print_error("units_parse_uint(\"%s\", %" PRIu64 ", %" PRIu64
				    "): got rc %d value %" PRIu64 ", want rc %d value %" PRIu64
				    "\n", cases[i].in, cases[i].min, cases[i].max, rc, got,
				    cases[i].rc, cases[i].want);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

struct format_case {
	uint64_t in;
	const char *want;
};

static int check_format(const char *what, char *(*format)(uint64_t, char *, size_t),
			const struct format_case *c, size_t n)
{
	char buf[32];
	int bad = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		char *got = format(c[i].in, buf, sizeof(buf));

		if (got != buf || strcmp(buf, c[i].want) != 0) {
			print_error("%s(%" PRIu64 "): got \"%s\", want \"%s\"\n", what,
				    c[i].in, buf, c[i].want);
			bad++;
		}
	}
	return bad;
}

static void test_format_size(void **state)
{
	static const struct format_case cases[] = {
		{ 0, "0 B" },
		{ 512, "512 B" },
		{ 1023, "1023 B" },
		{ 1024, "1.00 KiB" },
		{ 4096, "4.00 KiB" },
		{ 1536, "1.50 KiB" },
		{ 1048575, "1.00 MiB" },        /* not "1024.00 KiB" */
		{ 3 * KI * KI * KI / 2, "1.50 GiB" },
		{ 5 * KI * KI * KI * KI, "5.00 TiB" },
		{ UINT64_C(1) << 50, "1.00 PiB" },
		{ UINT64_MAX, "16.00 EiB" },
	};
	char small[5];

	(void)state;
	assert_int_equal(check_format("units_format_size", units_format_size,
				      cases, N(cases)), 0);
	/* Truncates, never overruns. */
	assert_string_equal(units_format_size(4096, small, sizeof(small)), "4.00");
}

static void test_format_duration(void **state)
{
	static const struct format_case cases[] = {
		{ 0, "0 ns" },
		{ 850, "850 ns" },
		{ 999, "999 ns" },
		{ 1000, "1.00 us" },
		{ 12345, "12.3 us" },
		{ 123456, "123 us" },
		{ 999499, "999 us" },
		{ 999500, "1.00 ms" },
		{ 4560000, "4.56 ms" },
		{ 9996000, "10.0 ms" },
		{ 99960000, "100 ms" },
		{ 2 * NS_S, "2.00 s" },
		{ 3600 * NS_S, "3600 s" },
	};

	(void)state;
	assert_int_equal(check_format("units_format_duration", units_format_duration,
				      cases, N(cases)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_uint),
		cmocka_unit_test(test_format_size),
		cmocka_unit_test(test_format_duration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
