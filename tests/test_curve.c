/*
 * curve unit tests: --load-curve and --latency-target spelled right and
 * wrong (curve.c, and through config_parse with their messages and the
 * combinations refused), the plan of rates, the knee, the bisection and the
 * best point, on made-up measurements: no server, no clock.
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
#include <string.h>

#include "curve.h"
#include "options.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MS UINT64_C(1000000)

struct spec_case {
	const char *in;
	int rc;
	double start, step, end;
	bool bytes;
};

static void test_parse_spec(void **state)
{
	static const struct spec_case c[] = {
		{ "1000:500:4000", 0, 1000, 500, 4000, false },
		{ "1000:500", 0, 1000, 500, 0, false },
		{ "1:1:1", 0, 1, 1, 1, false },
		{ "10m/s:10m/s:80m/s", 0, 10 << 20, 10 << 20, 80 << 20, true },
		{ "512k/s:1m/s", 0, 512 << 10, 1 << 20, 0, true },
		{ "1000", -EINVAL, 0, 0, 0, false },
		{ "1000:", -EINVAL, 0, 0, 0, false },
		{ ":500", -EINVAL, 0, 0, 0, false },
		{ "1000::4000", -EINVAL, 0, 0, 0, false },
		{ "1000:500:4000:5000", -EINVAL, 0, 0, 0, false },
		{ "0:500", -EINVAL, 0, 0, 0, false },
		{ "1000:0", -EINVAL, 0, 0, 0, false },
		{ "4000:500:1000", -EINVAL, 0, 0, 0, false },
		{ "1k:500", -EINVAL, 0, 0, 0, false },
		{ "10m/s:500", -EINVAL, 0, 0, 0, false },
		{ "-5:500", -EINVAL, 0, 0, 0, false },
		{ "100000001:1", -EINVAL, 0, 0, 0, false },
		{ "10q/s:1m/s", -EINVAL, 0, 0, 0, false },
		{ "", -EINVAL, 0, 0, 0, false },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(c); i++) {
		struct curve_spec s = { 0 };
		char why[160] = "";
		int rc = curve_parse(c[i].in, &s, why, sizeof(why));

		if (rc != c[i].rc || (rc == 0 && (s.start != c[i].start || s.step != c[i].step ||
						  s.end != c[i].end || s.bytes != c[i].bytes)) ||
		    (rc && !why[0])) {
			print_error("curve_parse(\"%s\"): got rc %d %g:%g:%g bytes %d (%s), want rc %d "
				    "%g:%g:%g bytes %d\n", c[i].in, rc, s.start, s.step, s.end, s.bytes,
				    why, c[i].rc, c[i].start, c[i].step, c[i].end, c[i].bytes);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

struct target_case {
	const char *in;
	int rc;
	double pct;
	uint64_t ns;
	const char *name;
};

static void test_parse_target(void **state)
{
	static const struct target_case c[] = {
		{ "p99=2ms", 0, 99, 2 * MS, "p99" },
		{ "p99.9=500us", 0, 99.9, 500000, "p99.9" },
		{ "p50=1.5ms", 0, 50, 1500000, "p50" },
		{ "p99.99=1s", 0, 99.99, 1000000000, "p99.99" },
		{ "p1=250ns", 0, 1, 250, "p1" },
		{ "p100=2ms", -EINVAL, 0, 0, NULL },
		{ "p0=2ms", -EINVAL, 0, 0, NULL },
		{ "99=2ms", -EINVAL, 0, 0, NULL },
		{ "p=2ms", -EINVAL, 0, 0, NULL },
		{ "p99", -EINVAL, 0, 0, NULL },
		{ "p99=", -EINVAL, 0, 0, NULL },
		{ "p99=2", 0, 99, 2000000000, "p99" },
		{ "p99=2xs", -EINVAL, 0, 0, NULL },
		{ "p99=0ms", -EINVAL, 0, 0, NULL },
		{ "p9.9.9=2ms", -EINVAL, 0, 0, NULL },
		{ "p99.=2ms", -EINVAL, 0, 0, NULL },
		{ "p.9=2ms", -EINVAL, 0, 0, NULL },
		{ "p-1=2ms", -EINVAL, 0, 0, NULL },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(c); i++) {
		struct curve_target t = { 0 };
		char why[160] = "", name[16] = "";
		int rc = curve_target_parse(c[i].in, &t, why, sizeof(why));

		if (rc == 0)
			curve_pct_name(t.pct, name, sizeof(name));
		if (rc != c[i].rc || (rc == 0 && (fabs(t.pct - c[i].pct) > 1e-9 || t.ns != c[i].ns ||
						  strcmp(name, c[i].name))) || (rc && !why[0])) {
			print_error("curve_target_parse(\"%s\"): got rc %d %s (%g) %" PRIu64 " ns (%s), "
				    "want rc %d %s %" PRIu64 " ns\n", c[i].in, rc, name, t.pct, t.ns, why,
				    c[i].rc, c[i].name ? c[i].name : "-", c[i].ns);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_rates(void **state)
{
	struct curve_spec in = { 10 << 20, 10 << 20, 80 << 20, true }, out;

	(void)state;
	assert_int_equal(curve_rates(&in, 4096, &out), 0);
	assert_true(out.start == 2560 && out.step == 2560 && out.end == 20480 && !out.bytes);
	/* Operations per second stay as they are. */
	in = (struct curve_spec){ 1000, 500, 0, false };
	assert_int_equal(curve_rates(&in, 1 << 20, &out), 0);
	assert_true(out.start == 1000 && out.step == 500 && out.end == 0);
	/* Under one operation per second of --bs. */
	in = (struct curve_spec){ 100, 100, 0, true };
	assert_int_equal(curve_rates(&in, 4096, &out), -ERANGE);
}

/* A measured point at offered: achieved, p99 (and the target's), errors. */
static struct curve_point point(double offered, double achieved, uint64_t p99_ns, uint64_t errors)
{
	return (struct curve_point){ .offered = offered, .achieved = achieved, .ops = 1000,
				     .errors = errors, .p50_ns = p99_ns / 4, .p99_ns = p99_ns,
				     .target_ns = p99_ns, .duration_ns = 1000000000 };
}

static void test_judge(void **state)
{
	struct curve_target t = { 99, 2 * MS };
	struct curve_point p;

	(void)state;
	p = point(1000, 900, MS, 0);
	curve_judge(&t, &p);
	assert_int_equal(p.miss, CURVE_MET);	/* exactly 90%: still met */
	p = point(1000, 899, MS, 0);
	curve_judge(&t, &p);
	assert_int_equal(p.miss, CURVE_SHORT);
	p = point(1000, 1000, MS, 1);
	curve_judge(&t, &p);
	assert_int_equal(p.miss, CURVE_ERRORS);
	p = point(1000, 1000, 2 * MS, 0);
	curve_judge(&t, &p);
	assert_int_equal(p.miss, CURVE_MET);	/* at the target: met */
	p = point(1000, 1000, 2 * MS + 1, 0);
	curve_judge(&t, &p);
	assert_int_equal(p.miss, CURVE_SLOW);
	curve_judge(NULL, &p);
	assert_int_equal(p.miss, CURVE_MET);	/* no target: latency does not count */
	assert_string_equal(curve_miss_name(CURVE_SLOW), "slow");
}

/*
 * A server that keeps up to ceiling ops/s, with p99 rising with the load and past
 * the ceiling: what the run would measure at rate r.
 */
static struct curve_point model(double r, double ceiling)
{
	double achieved = r <= ceiling ? r : ceiling;

	return point(r, achieved, (uint64_t)(MS * (r / ceiling) * 2), 0);
}

/* Runs the curve against the model: the rates it offered, in order, into got. */
static unsigned drive(struct curve *c, double ceiling, double *got, unsigned max)
{
	unsigned n = 0;
	double r;

	while ((r = curve_next(c)) > 0 && n < max) {
		struct curve_point p = model(r, ceiling);

		got[n++] = r;
		assert_true(curve_add(c, &p) >= 0);
	}
	return n;
}

static void expect_rates(const char *what, const double *got, unsigned n, const double *want,
			 unsigned nwant)
{
	int bad = n != nwant;

	for (unsigned i = 0; i < n && i < nwant; i++)
		bad |= got[i] != want[i];
	if (bad) {
		print_error("%s: offered", what);
		for (unsigned i = 0; i < n; i++)
			print_error(" %g", got[i]);
		print_error(", want");
		for (unsigned i = 0; i < nwant; i++)
			print_error(" %g", want[i]);
		print_error("\n");
	}
	assert_false(bad);
}

static void test_steps_to_end(void **state)
{
	struct curve_spec s = { 1000, 1000, 3000, false };
	struct curve c;
	double got[64];
	static const double want[] = { 1000, 2000, 3000 };
	unsigned n;

	(void)state;
	curve_init(&c, &s, NULL);
	n = drive(&c, 1e9, got, 64);
	expect_rates("to END, no knee", got, n, want, N(want));
	assert_int_equal(c.best, 2);
	assert_int_equal(c.knee, -1);
	assert_int_equal(c.refines, 0);
}

static void test_stops_past_knee(void **state)
{
	/* Ceiling 2500: 3000 achieves 2500 (83%), past the knee; no target: no bisection. */
	struct curve_spec s = { 1000, 1000, 0, false };
	struct curve c;
	double got[64];
	static const double want[] = { 1000, 2000, 3000 };
	unsigned n;

	(void)state;
	curve_init(&c, &s, NULL);
	n = drive(&c, 2500, got, 64);
	expect_rates("no END, knee at 3000", got, n, want, N(want));
	assert_int_equal(c.best, 1);
	assert_int_equal(c.knee, 2);
	assert_int_equal(c.pt[2].miss, CURVE_SHORT);
	assert_true(c.past_knee);
}

static void test_bisects_to_target(void **state)
{
	/* p99 = 2 ms x r / 4000: p99 <= 1 ms up to 2000 ops/s. Steps 500, 1500, 2500 (slow);
	 * then 2000 (met), 2250 (slow), 2125 (slow), 2062 (slow): four, the bound. */
	struct curve_spec s = { 500, 1000, 0, false };
	struct curve_target t = { 99, MS };
	struct curve c;
	double got[64];
	static const double want[] = { 500, 1500, 2500, 2000, 2250, 2125, 2062 };
	unsigned n;

	(void)state;
	curve_init(&c, &s, &t);
	n = drive(&c, 4000, got, 64);
	expect_rates("bisection", got, n, want, N(want));
	assert_int_equal(c.refines, CURVE_REFINE_MAX);
	assert_true(c.best >= 0);
	assert_true(c.pt[c.best].offered == 2000);
	assert_true(c.pt[c.best].p99_ns <= t.ns);
	assert_true(c.pt[c.knee].offered == 2062);
	for (unsigned i = 3; i < c.n; i++)
		assert_true(c.pt[i].refined);
}

static void test_bisection_stops_when_close(void **state)
{
	/* Good at 100, bad at 101: nothing between them worth a point. */
	struct curve_spec s = { 100, 1, 0, false };
	struct curve_target t = { 99, MS };
	struct curve c;
	struct curve_point p = point(100, 100, MS / 2, 0);

	(void)state;
	curve_init(&c, &s, &t);
	assert_true(curve_next(&c) == 100);
	curve_add(&c, &p);
	assert_true(curve_next(&c) == 101);
	p = point(101, 101, 2 * MS, 0);
	curve_add(&c, &p);
	assert_true(curve_next(&c) == 0);
}

static void test_first_point_bad(void **state)
{
	struct curve_spec s = { 5000, 1000, 9000, false };
	struct curve_target t = { 99, MS };
	struct curve c;
	struct curve_point p = point(5000, 4000, 10 * MS, 0);

	(void)state;
	curve_init(&c, &s, &t);
	assert_true(curve_next(&c) == 5000);
	curve_add(&c, &p);
	assert_int_equal(c.best, -1);
	assert_int_equal(c.knee, 0);
	assert_true(curve_next(&c) == 0);	/* nothing met: no interval to bisect */
}

static void test_steps_bounded(void **state)
{
	struct curve_spec s = { 1, 1, 0, false };
	struct curve c;
	double got[64];
	unsigned n;

	(void)state;
	curve_init(&c, &s, NULL);
	n = drive(&c, 1e9, got, 64);
	assert_int_equal(n, CURVE_STEPS_MAX);
	assert_true(got[n - 1] == CURVE_STEPS_MAX);
}

/* config_parse on "nfsload URL args...": 0 or -EINVAL, err filled. */
static char err[512];

static int parse(struct config *cfg, const char *const *args)
{
	char *argv[32];
	int argc = 0;

	argv[argc++] = (char *)"nfsload";
	argv[argc++] = (char *)"nfs://127.0.0.1/export?version=3&nfsport=2049&mountport=20048";
	for (; *args && argc < 31; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	memset(err, 0, sizeof(err));
	return config_parse(cfg, argc, argv, err, sizeof(err));
}

struct opt_case {
	const char *args[10];
	const char *msg;	/* NULL: accepted; else the start of the message */
};

static void test_options(void **state)
{
	static const struct opt_case c[] = {
		{ { "--load-curve", "1000:1000:4000", "--runtime", "1s", NULL }, NULL },
		{ { "--load-curve", "1000:1000", "--latency-target", "p99=2ms", "--runtime", "1s",
		    NULL }, NULL },
		{ { "--load-curve", "4m/s:4m/s:16m/s", "--runtime", "1s", NULL }, NULL },
		{ { "--load-curve", "1000:x", "--runtime", "1s", NULL },
		  "--load-curve: '1000:x' has a field that is not a rate" },
		{ { "--load-curve", "4000:1:1000", "--runtime", "1s", NULL },
		  "--load-curve: '4000:1:1000' has END below START" },
		{ { "--load-curve", "1000:1000", NULL },
		  "--load-curve: needs --runtime (each point runs for it)" },
		{ { "--load-curve", "1000:1000", "--runtime", "1s", "--rate", "500", NULL },
		  "--load-curve: sets the rate of each point itself (not with --rate)" },
		{ { "--load-curve", "1000:1000", "--runtime", "1s", "--mix", "getattr=1", NULL },
		  "--load-curve: an open-loop read/write workload (not with --mix" },
		{ { "--load-curve", "1000:1000", "--runtime", "1s", "--io-size", "1m", NULL },
		  "--load-curve: each point runs for --runtime (not with --io-size)" },
		{ { "--load-curve", "1m/s:1m/s", "--runtime", "1s", "--bssplit", "4k/50:8k/50",
		    NULL }, "--load-curve: a rate in bytes per second needs one block size" },
		{ { "--load-curve", "1k/s:1k/s", "--runtime", "1s", NULL },
		  "--load-curve: every rate must come to 1 to 100000000 operations per second" },
		{ { "--latency-target", "p99=2ms", "--runtime", "1s", NULL },
		  "--latency-target: only with --load-curve" },
		{ { "--load-curve", "1000:1000", "--runtime", "1s", "--latency-target", "p100=1ms",
		    NULL }, "--latency-target: 'p100=1ms' has a percentile outside 0 to 100" },
		{ { "--load-curve", "1000:1000", "--runtime", "1s", "--latency-target", "99=1ms",
		    NULL }, "--latency-target: '99=1ms' is not pNN=TIME (pNN=TIME, e.g. p99=2ms" },
		{ { "--load-curve", "1000:1000", "--runtime", "1s", "--arrival", "poisson", NULL },
		  NULL },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(c); i++) {
		struct config cfg;
		int rc = parse(&cfg, c[i].args);
		bool ok = c[i].msg ? rc < 0 && !strncmp(err, c[i].msg, strlen(c[i].msg)) :
				     rc == CFG_RUN;

		if (!ok) {
			print_error("case %zu (%s %s): rc %d, err '%s'; want %s\n", i, c[i].args[0],
				    c[i].args[1], rc, err, c[i].msg ? c[i].msg : "accepted");
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* A rate in MiB/s becomes operations of --bs once every option is known. */
static void test_options_bytes(void **state)
{
	static const char *const args[] = { "--load-curve", "4m/s:4m/s:16m/s", "--bs", "64k",
					     "--runtime", "1s", NULL };
	struct config cfg;

	(void)state;
	assert_int_equal(parse(&cfg, args), CFG_RUN);
	assert_true(cfg.curve.start == 64 && cfg.curve.step == 64 && cfg.curve.end == 256);
	assert_false(cfg.curve.bytes);
	assert_true(config_open_loop(&cfg));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_spec),
		cmocka_unit_test(test_parse_target),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_steps_to_end),
		cmocka_unit_test(test_stops_past_knee),
		cmocka_unit_test(test_bisects_to_target),
		cmocka_unit_test(test_bisection_stops_when_close),
		cmocka_unit_test(test_first_point_bad),
		cmocka_unit_test(test_steps_bounded),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_options_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
