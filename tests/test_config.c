/*
 * config unit tests: config_parse on argv arrays (defaults, every option,
 * every rejection and its message) and config_parse_url (split, checks,
 * the canonical libnfs URL). Tables run to the end and print every mismatch
 * before the test fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/url.h"
#include "config.h"
#include "engine.h"
#include "options.h"
#include "version.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define KI UINT64_C(1024)
#define MI (KI * KI)
#define NS_S UINT64_C(1000000000)
#define URL "nfs://srv/export"
#define MAXARGS 16

static char err[512];

/*
 * config_parse on "nfsload" followed by the NULL-terminated args; the URL
 * goes first when url is set (GNU getopt permutes it behind the options).
 */
static int parse(struct config *cfg, const char *url, const char *const *args)
{
	char *argv[MAXARGS + 3];
	int argc = 0;

	argv[argc++] = (char *)"nfsload";
	if (url)
		argv[argc++] = (char *)url;
	for (; args && *args; args++) {
		assert_true(argc < MAXARGS + 2);
		argv[argc++] = (char *)*args;
	}
	argv[argc] = NULL;
	memset(err, 0, sizeof(err));
	return config_parse(cfg, argc, argv, err, sizeof(err));
}

/* "a b c" as one string, for messages. */
static const char *join(const char *url, const char *const *args)
{
	static char buf[1024];
	size_t n = 0;

	buf[0] = '\0';
	if (url)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", url);
	for (; args && *args && n < sizeof(buf); args++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s'%s'", n ? " " : "", *args);
	return buf;
}

/* ---- defaults ---- */

static void test_defaults(void **state)
{
	struct config c;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int bad = 0;

	(void)state;
	assert_int_equal(parse(&c, URL, NULL), CFG_RUN);
#define CHECK(expr, fmt, val) do { \
		if (!(expr)) { \
			print_error("defaults: %s (got " fmt ")\n", #expr, val); \
			bad++; \
		} \
	} while (0)
	CHECK(strcmp(c.url, URL) == 0, "%s", c.url);
	CHECK(strcmp(c.host, "srv") == 0, "%s", c.host);
	CHECK(strcmp(c.path, "/export") == 0, "%s", c.path);
	CHECK(strcmp(c.canon_url, "nfs://srv/export?version=3") == 0, "%s", c.canon_url);
	CHECK(c.nfs_version == 3, "%d", c.nfs_version);
	CHECK(c.nfsport == 0, "%u", c.nfsport);
	CHECK(c.mountport == 0, "%u", c.mountport);
	/* Default threads = CPUs, but never more than the connections. */
	CHECK(c.threads == 1, "%u", c.threads);
	CHECK(c.connections == 1, "%u", c.connections);
	CHECK(c.iodepth == 1, "%u", c.iodepth);
	CHECK(c.rw == WL_RANDREAD, "%d", (int)c.rw);
	CHECK(c.rwmixread == 50, "%u", c.rwmixread);
	CHECK(c.bs == 4096, "%" PRIu64, c.bs);
	CHECK(c.size == 64 * MI, "%" PRIu64, c.size);
	CHECK(c.nrfiles == 1, "%u", c.nrfiles);
	CHECK(strcmp(c.dir, "nfsload.work") == 0, "%s", c.dir);
	CHECK(c.runtime_ns == 0, "%" PRIu64, c.runtime_ns);
	/* Neither time nor size given: one pass over the files. */
	CHECK(c.io_size == 64 * MI, "%" PRIu64, c.io_size);
	CHECK(c.ramp_ns == 0, "%" PRIu64, c.ramp_ns);
	CHECK(c.timeout_ns == 5 * NS_S, "%" PRIu64, c.timeout_ns);
	CHECK(c.seed == 1, "%" PRIu64, c.seed);
	CHECK(!c.skip_layout, "%d", c.skip_layout);
	CHECK(!c.keep, "%d", c.keep);
	CHECK(c.live == CFG_LIVE_AUTO, "%d", (int)c.live);
	CHECK(c.format == CFG_FORMAT_TEXT, "%d", (int)c.format);
	CHECK(c.output[0] == '\0', "%s", c.output);

	/* Many connections: threads default to the CPU count. */
	{
		static const char *const args[] = { "-c", "1024", NULL };
		unsigned want = ncpu > 0 ? (unsigned)ncpu : 1;

		assert_int_equal(parse(&c, URL, args), CFG_RUN);
		CHECK(c.threads == (want < 1024 ? want : 1024), "%u", c.threads);
	}
#undef CHECK
	assert_int_equal(bad, 0);
}

/* ---- every option with a good value ---- */

#define FIELD(f) offsetof(struct config, f), sizeof(((struct config *)0)->f), #f

struct good_case {
	const char *args[10];
	size_t off, size;
	const char *name;
	uint64_t want;
};

static uint64_t field_value(const struct config *c, size_t off, size_t size)
{
	const unsigned char *p = (const unsigned char *)c + off;
	uint64_t v64;
	uint32_t v32;
	uint8_t v8;

	switch (size) {
	case 8:
		memcpy(&v64, p, 8);
		return v64;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	}
	fail_msg("field size %zu", size);
	return 0;
}

static void test_good_options(void **state)
{
	static const struct good_case cases[] = {
		{ { "-t", "2", "-c", "4" }, FIELD(threads), 2 },
		{ { "--threads", "3", "--connections", "3" }, FIELD(threads), 3 },
		{ { "--threads=1", "-c", "8" }, FIELD(threads), 1 },
		{ { "-c", "16" }, FIELD(connections), 16 },
		{ { "-c16" }, FIELD(connections), 16 },
		{ { "--connections", "65536" }, FIELD(connections), 65536 },
		{ { "--conn", "5" }, FIELD(connections), 5 },	/* unique prefix */
		{ { "-q", "32" }, FIELD(iodepth), 32 },
		{ { "--iodepth", "1024" }, FIELD(iodepth), 1024 },
		{ { "--iodepth=7" }, FIELD(iodepth), 7 },
		{ { "-b", "64k" }, FIELD(bs), 64 * KI },
		{ { "--bs", "1m" }, FIELD(bs), MI },
		{ { "--bs=512" }, FIELD(bs), 512 },
		{ { "--engine", "libnfs", "--bs", "16m" }, FIELD(bs), 16 * MI },	/* native: 1m */
		{ { "--bs", "1" }, FIELD(bs), 1 },
		{ { "--rw", "read" }, FIELD(rw), WL_READ },
		{ { "--rw", "write" }, FIELD(rw), WL_WRITE },
		{ { "--rw", "randread" }, FIELD(rw), WL_RANDREAD },
		{ { "--rw", "randwrite" }, FIELD(rw), WL_RANDWRITE },
		{ { "--rw", "readwrite" }, FIELD(rw), WL_READWRITE },
		{ { "--rw", "randrw" }, FIELD(rw), WL_RANDRW },
		{ { "--rwmixread", "70" }, FIELD(rwmixread), 70 },
		{ { "--rwmixread", "0" }, FIELD(rwmixread), 0 },
		{ { "--rwmixread", "100" }, FIELD(rwmixread), 100 },
		{ { "--size", "1g" }, FIELD(size), 1024 * MI },
		{ { "--size", "4k", "--bs", "4k" }, FIELD(size), 4 * KI },
		{ { "--size", "4k" }, FIELD(io_size), 4 * KI },
		{ { "--nrfiles", "10" }, FIELD(nrfiles), 10 },
		{ { "--nrfiles", "10", "--size", "1m" }, FIELD(io_size), 10 * MI },
		{ { "--runtime", "30s" }, FIELD(runtime_ns), 30 * NS_S },
		{ { "--runtime", "30s" }, FIELD(io_size), 0 },	/* time based */
		{ { "--runtime", "5m" }, FIELD(runtime_ns), 300 * NS_S },
		{ { "--runtime", "1ns" }, FIELD(runtime_ns), 1 },
		{ { "--io-size", "1g" }, FIELD(io_size), 1024 * MI },
		{ { "--io-size", "1g", "--runtime", "10s" }, FIELD(io_size), 1024 * MI },
		{ { "--ramp-time", "2s", "--runtime", "10s" }, FIELD(ramp_ns), 2 * NS_S },
		{ { "--ramp-time", "9999ms", "--runtime", "10s" }, FIELD(ramp_ns), 9999000000 },
		{ { "--ramp-time", "1s" }, FIELD(ramp_ns), NS_S },	/* size based: any */
		{ { "--timeout", "30s" }, FIELD(timeout_ns), 30 * NS_S },
		{ { "--timeout", "1s" }, FIELD(timeout_ns), NS_S },
		{ { "--timeout", "1h" }, FIELD(timeout_ns), 3600 * NS_S },
		/* fuzz: whole seconds are libnfs's limit alone (test_bad_options) */
		{ { "--timeout", "1500ms" }, FIELD(timeout_ns), 1500000000 },
		{ { "--seed", "0" }, FIELD(seed), 0 },
		{ { "--seed", "18446744073709551615" }, FIELD(seed), UINT64_MAX },
		{ { "--skip-layout" }, FIELD(skip_layout), 1 },
		{ { "--keep" }, FIELD(keep), 1 },
		{ { "--live" }, FIELD(live), CFG_LIVE_ON },
		{ { "--quiet" }, FIELD(live), CFG_LIVE_OFF },
		{ { "--live", "--quiet" }, FIELD(live), CFG_LIVE_OFF },	/* last wins */
		{ { "--runtime", "5s" }, FIELD(on_error), CFG_ON_ERROR_CONTINUE },	/* time based */
		{ { "--size", "1m" }, FIELD(on_error), CFG_ON_ERROR_STOP },	/* one pass */
		{ { "--runtime", "5s", "--on-error", "stop" }, FIELD(on_error), CFG_ON_ERROR_STOP },
		{ { "--on-error", "continue" }, FIELD(on_error), CFG_ON_ERROR_CONTINUE },
		{ { "--verify" }, FIELD(verify), 1 },
		{ { "--verify-only" }, FIELD(verify), 1 },
		{ { "--verify-only" }, FIELD(skip_layout), 1 },
		{ { "--verify-only", "--rw", "randwrite" }, FIELD(rw), WL_READ },
		{ { "--verify", "--verify-continue" }, FIELD(verify_continue), 1 },
		{ { "--verify", "--bs", "64" }, FIELD(bs), 64 },
		{ { "--output-format", "json" }, FIELD(format), CFG_FORMAT_JSON },
		{ { "--output-format", "text" }, FIELD(format), CFG_FORMAT_TEXT },
		/* The engines' own options (their tables), into cfg->opt. */
		{ { "--uid", "1000" }, FIELD(opt.uid), 1000 },
		{ { "--gid", "4294967294" }, FIELD(opt.gid), 4294967294u },
		{ { "--max-load", "32" }, FIELD(opt.max_load), 32 },
		{ { "--wire-source", "stamps" }, FIELD(opt.wire_source), ENGINE_WIRE_STAMPS },
		{ { "--wire-source=tap" }, FIELD(wire_time), 1 },	/* implies --wire-time */
		/* NFSv4 limits at their edges (default rw is randread). */
		{ { "--rw", "randwrite", "--bs", "3904" }, FIELD(bs), 3904 },
		{ { "--bs", "1m" }, FIELD(bs), MI },
	};
	static const char *const v4_cases[][6] = {
		{ "--rw", "randwrite", "--bs", "3904", NULL },
		{ "--rw", "read", "--bs", "1m", NULL },
		{ "--rw", "randread", "--bs", "16k", NULL },
	};
	struct config c;
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		int rc = parse(&c, URL, cases[i].args);
		uint64_t got = rc == CFG_RUN ? field_value(&c, cases[i].off, cases[i].size) : 0;

		if (rc != CFG_RUN || got != cases[i].want) {
			print_error("%s: rc %d (%s), %s = %" PRIu64 ", want rc 0 and %" PRIu64 "\n",
				    join(NULL, cases[i].args), rc, err, cases[i].name, got,
				    cases[i].want);
			bad++;
		}
	}
	for (size_t i = 0; i < N(v4_cases); i++) {
		int rc = parse(&c, URL "?version=4", v4_cases[i]);

		if (rc != CFG_RUN || c.nfs_version != 4) {
			print_error("v4 %s: rc %d (%s) version %d\n", join(NULL, v4_cases[i]), rc, err,
				    c.nfs_version);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_good_strings(void **state)
{
	static const struct {
		const char *args[4];
		const char *dir, *output;
	} cases[] = {
		{ { "--dir", "d-1.x_y" }, "d-1.x_y", "" },
		{ { "--dir", "..." }, "...", "" },
		{ { "--dir", ".hidden" }, ".hidden", "" },
		{ { "--output", "out.json" }, "nfsload.work", "out.json" },
		{ { "--output", "/tmp/a b/c" }, "nfsload.work", "/tmp/a b/c" },
		{ { "--output=-" }, "nfsload.work", "-" },
	};
	char longdir[256];
	const char *longargs[] = { "--dir", longdir, NULL };
	struct config c;
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		int rc = parse(&c, URL, cases[i].args);

		if (rc != CFG_RUN || strcmp(c.dir, cases[i].dir) || strcmp(c.output, cases[i].output)) {
			print_error("%s: rc %d (%s) dir '%s' output '%s', want '%s' '%s'\n",
				    join(NULL, cases[i].args), rc, err, c.dir, c.output, cases[i].dir,
				    cases[i].output);
			bad++;
		}
	}
	/* 255 characters fit cfg->dir, 256 do not. */
	memset(longdir, 'd', 255);
	longdir[255] = '\0';
	if (parse(&c, URL, longargs) != CFG_RUN || strcmp(c.dir, longdir) != 0) {
		print_error("--dir of 255 characters: %s\n", err);
		bad++;
	}
	assert_int_equal(bad, 0);
}

/* ---- rejections ---- */

struct bad_case {
	const char *args[10];
	const char *needle;	/* must appear in err */
};

static int check_bad(const char *url, const struct bad_case *c, size_t n)
{
	struct config cfg;
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		int rc = parse(&cfg, url, c[i].args);

		if (rc != -EINVAL || !strstr(err, c[i].needle) || strchr(err, '\n')) {
			print_error("%s: rc %d err \"%s\", want -EINVAL and a one-line message "
				    "containing \"%s\"\n", join(url, c[i].args), rc, err, c[i].needle);
			bad++;
		}
	}
	return bad;
}

static void test_bad_options(void **state)
{
	static const struct bad_case cases[] = {
		{ { "--bogus" }, "--bogus" },
		{ { "--on-error", "retry" }, "--on-error: 'retry' is not a choice (continue, stop)" },
		{ { "--verify", "--bs", "32" }, "--bs: at least 64 bytes with --verify" },
		{ { "--verify", "--size", "10k" }, "--size: a multiple of --bs with --verify" },
		{ { "--verify", "--mix", "getattr=1", "--runtime", "1s" }, "--verify" },
		{ { "--read-plus", "--mix", "getattr=1", "--runtime", "1s" }, "--read-plus: the reads of --rw" },
		{ { "--xattr-size", "65537" }, "--xattr-size" },
		{ { "--xattr-count", "0" }, "--xattr-count" },
		{ { "--verify-continue" }, "--verify-continue: only with --verify" },
		{ { "--verify-only", "--runtime", "1s" }, "--verify-only" },
		{ { "--verify-only", "--skip-layout" }, "--verify-only" },
		{ { "--bogus=1" }, "--bogus" },
		{ { "-Z" }, "-Z" },
		{ { "--r", "x" }, "--r" },			/* ambiguous prefix */
		{ { "--keep=yes" }, "--keep" },			/* takes no value */
		/* Missing values: the option is last (the URL comes first). */
		{ { "--bs" }, "--bs" },
		{ { "-b" }, "-b" },
		{ { "--iodepth" }, "--iodepth" },
		{ { "-q" }, "-q" },
		{ { "--rw" }, "--rw" },
		{ { "--runtime" }, "--runtime" },
		/* Sizes. */
		{ { "--bs", "4q" }, "--bs" },
		{ { "--bs", "" }, "--bs" },
		{ { "--bs", "0" }, "--bs" },
		{ { "--bs", "-4k" }, "--bs" },
		{ { "--bs", "17m" }, "--bs" },
		{ { "--bs", "1.3" }, "--bs" },
		{ { "--size", "4q" }, "--size" },
		{ { "--size", "0" }, "--size" },
		{ { "--io-size", "4q" }, "--io-size" },
		{ { "--io-size", "0" }, "--io-size" },
		/* Counts: zero, negative, too big, not a number. */
		{ { "--connections", "0" }, "--connections" },
		{ { "-c", "-1" }, "--connections" },
		{ { "--connections", "65537" }, "--connections" },
		{ { "--connections", "4x" }, "--connections" },
		{ { "--iodepth", "-1" }, "--iodepth" },
		{ { "--iodepth", "0" }, "--iodepth" },
		{ { "-q", "1025" }, "--iodepth" },
		{ { "--threads", "0" }, "--threads" },
		{ { "--threads", "1025", "-c", "2000" }, "--threads" },
		{ { "--threads", "-2" }, "--threads" },
		{ { "--nrfiles", "0" }, "--nrfiles" },
		{ { "--nrfiles", "1000001" }, "--nrfiles" },
		/* Mode and mix. */
		{ { "--rw", "randomread" }, "--rw" },
		{ { "--rw", "READ" }, "--rw" },
		{ { "--rwmixread", "101" }, "--rwmixread" },
		{ { "--rwmixread", "-5" }, "--rwmixread" },
		{ { "--rwmixread", "x" }, "--rwmixread" },
		/* Durations. */
		{ { "--runtime", "0" }, "--runtime" },
		{ { "--runtime", "5x" }, "--runtime" },
		{ { "--runtime", "-1s" }, "--runtime" },
		{ { "--ramp-time", "abc" }, "--ramp-time" },
		{ { "--engine", "libnfs", "--timeout", "1500ms" }, "--timeout" },
		{ { "--timeout", "0s" }, "--timeout" },
		{ { "--timeout", "500ms" }, "--timeout" },
		{ { "--timeout", "2h" }, "--timeout" },
		{ { "--timeout", "x" }, "--timeout" },
		{ { "--seed", "-1" }, "--seed" },
		{ { "--seed", "18446744073709551616" }, "--seed" },
		/* Output. */
		{ { "--output-format", "xml" }, "--output-format" },
		{ { "--output", "" }, "--output" },
		/* The engines' own options: their bounds, and one for another engine. */
		{ { "--uid", "-1" }, "--uid: '-1' is not an id (0 to 4294967294)" },
		{ { "--gid", "4294967295" }, "--gid: '4294967295' is not an id" },
		{ { "--max-load", "0" }, "--max-load: 0 is out of range (1 to 1024)" },
		{ { "--connections-per-session", "256" }, "--connections-per-session: 256 is out of" },
		{ { "--wire-source", "lots" }, "--wire-source: 'lots' is not a source (auto, tap, "
		  "stamps)" },
		{ { "--direct" }, "--direct: only with --engine local" },
		/* Cross checks. */
		{ { "--bs", "8k", "--size", "4k" }, "--bs" },
		{ { "--size", "1k" }, "--bs" },			/* default bs 4k */
		{ { "--runtime", "10s", "--ramp-time", "10s" }, "--ramp-time" },
		{ { "--runtime", "10s", "--ramp-time", "1m" }, "--ramp-time" },
		{ { "-t", "4", "-c", "2" }, "--threads" },
		{ { "--threads", "2" }, "--threads" },		/* 1 connection */
		/* --dir: one plain path component. */
		{ { "--dir", "a/b" }, "--dir" },
		{ { "--dir", ".." }, "--dir" },
		{ { "--dir", "." }, "--dir" },
		{ { "--dir", "" }, "--dir" },
		{ { "--dir", "/abs" }, "--dir" },
		{ { "--dir", "a b" }, "--dir" },
		{ { "--dir", "a\\b" }, "--dir" },
		{ { "--dir", "caf\xc3\xa9" }, "--dir" },
		/* Access skew and block-size mixes. */
		{ { "--random-distribution", "zipf:0" }, "--random-distribution: 'zipf:0' is not a" },
		{ { "--random-distribution", "normal" }, "--random-distribution: 'normal' is not a" },
		{ { "--random-distribution", "zipf:1.2", "--rw", "write" },
		  "--random-distribution: only with a random --rw" },
		{ { "--bssplit", "4k/50:64k/60" }, "--bssplit: '4k/50:64k/60' has percentages adding to 110" },
		{ { "--bssplit", "32m" }, "--bssplit: '32m' has 32m, larger than a block may be" },
		{ { "--bssplit", "4k/50,8k/50,16k" }, "--bssplit" },
		{ { "--bssplit", "4k/50:8k", "--verify" }, "--bssplit: not with --verify" },
		{ { "--bssplit", "4k:2m", "--rw", "randread", "--size", "4m" },
		  "--bs: the native engine moves at most 1 MiB" },
	};
	char longdir[300];
	const struct bad_case toolong = { { "--dir", longdir }, "--dir" };
	int bad;

	(void)state;
	bad = check_bad(URL, cases, N(cases));
	memset(longdir, 'd', 256);
	longdir[256] = '\0';
	bad += check_bad(URL, &toolong, 1);
	assert_int_equal(bad, 0);
}

/* --bssplit: its largest size used becomes --bs; an empty side is --bs; the distribution kept. */
static void test_skew_options(void **state)
{
	struct config c;

	(void)state;
	assert_int_equal(parse(&c, URL, (const char *[]){ "--bssplit", "4k/50:64k/50", "--rw",
			 "randwrite", "--random-distribution", "zipf:1.2", NULL }), 0);
	assert_true(c.bssplit_set);
	assert_int_equal(c.bs, 65536);
	assert_int_equal(c.bssplit.dir[1].n, 2);
	assert_int_equal(c.bssplit.dir[1].pct[1], 50);
	assert_int_equal(c.distrib.kind, DISTRIB_ZIPF);
	assert_true(c.distrib.param == 1.2);
	/* Reads only: the writes' 1m is never drawn, so it sets no limit. */
	assert_int_equal(parse(&c, URL, (const char *[]){ "--bssplit", "4k/100,1m/100", "--rw",
			 "randread", NULL }), 0);
	assert_int_equal(c.bs, 4096);
	/* The reads' empty side draws --bs. */
	assert_int_equal(parse(&c, URL, (const char *[]){ "--bssplit", ",64k", "--bs", "8k", "--rw",
			 "randrw", NULL }), 0);
	assert_int_equal(c.bssplit.dir[0].n, 1);
	assert_int_equal(c.bssplit.dir[0].bs[0], 8192);
	assert_int_equal(c.bs, 65536);
	/* Neither given: uniform, no mix. */
	assert_int_equal(parse(&c, URL, NULL), 0);
	assert_false(c.bssplit_set);
	assert_int_equal(c.distrib.kind, DISTRIB_RANDOM);
}

/* NFSv4 through libnfs 4.0: writes over 3904 bytes, reads over 1 MiB. */
static void test_v4_limits(void **state)
{
	static const struct bad_case reads[] = {
		{ { "--engine", "libnfs", "--rw", "read", "--bs", "2m" }, "--bs" },
		{ { "--engine", "libnfs", "--rw", "randread", "--bs", "1040k" }, "--bs" },
		{ { "--engine", "libnfs", "--rw", "randrw", "--bs", "2m" }, "--bs" },
	};
	static const struct bad_case writes[] = {
		{ { "--engine", "libnfs", "--rw", "write", "--bs", "4k" }, "--engine native" },
		{ { "--engine", "libnfs", "--rw", "randwrite", "--bs", "3905" }, "--bs" },
		{ { "--engine", "libnfs", "--rw", "readwrite", "--bs", "64k" }, "--bs" },
		{ { "--engine", "libnfs", "--rw", "randrw", "--rwmixread", "99", "--bs", "4k" }, "--bs" },
	};
	static const char *const v3_ok[] = { "--engine", "libnfs", "--rw", "write", "--bs", "16m",
					     NULL };
	static const char *const mix100[] = { "--engine", "libnfs", "--rw", "randrw", "--rwmixread",
					      "100", "--bs", "64k", NULL };
	/* The engine that lifts the write limit (the default). */
	static const char *const native_1m[] = { "--rw", "write", "--bs", "1m", NULL };
	struct config c;
	int bad = 0;

	(void)state;
	bad += check_bad(URL "?version=4", reads, N(reads));
	struct engine_params v4 = { .nfs_version = 4 };
	uint64_t v4_max_write = engine_libnfs.max_write(&v4);

	if (v4_max_write <= 3904) {
		bad += check_bad(URL "?version=4", writes, N(writes));
	} else {
		/* libnfs >= 5: no write limit. */
		for (size_t i = 0; i < N(writes); i++) {
			if (parse(&c, URL "?version=4", writes[i].args) != CFG_RUN) {
				print_error("v4 %s with max_write %" PRIu64 ": %s\n",
					    join(NULL, writes[i].args), v4_max_write, err);
				bad++;
			}
		}
	}
	/* NFSv3 has neither limit; an all-read mix has no write limit. */
	if (parse(&c, URL, v3_ok) != CFG_RUN) {
		print_error("v3 write bs 16m: %s\n", err);
		bad++;
	}
	if (parse(&c, URL "?version=4", mix100) != CFG_RUN) {
		print_error("v4 randrw 100%% reads bs 64k: %s\n", err);
		bad++;
	}
	if (parse(&c, URL "?version=4", native_1m) != CFG_RUN) {
		print_error("v4 write bs 1m, native engine: %s\n", err);
		bad++;
	}
	assert_int_equal(bad, 0);
}

static void test_url_count(void **state)
{
	static const char *const none[] = { "-c", "2", NULL };
	static const char *const two[] = { "nfs://b/y", NULL };
	static const char *const three[] = { "nfs://b/y", "nfs://c/z", NULL };
	static const char *const opt_only[] = { "--keep", NULL };
	struct config c;
	int bad = 0;

	(void)state;
	if (parse(&c, NULL, none) != -EINVAL || !strstr(err, "URL")) {
		print_error("no URL: \"%s\"\n", err);
		bad++;
	}
	if (parse(&c, NULL, NULL) != -EINVAL || !strstr(err, "URL")) {
		print_error("no arguments: \"%s\"\n", err);
		bad++;
	}
	if (parse(&c, NULL, opt_only) != -EINVAL || !strstr(err, "URL")) {
		print_error("only --keep: \"%s\"\n", err);
		bad++;
	}
	if (parse(&c, "nfs://a/x", two) != -EINVAL || !strstr(err, "URL") ||
	    !strstr(err, "nfs://b/y")) {
		print_error("two URLs: \"%s\"\n", err);
		bad++;
	}
	if (parse(&c, "nfs://a/x", three) != -EINVAL || !strstr(err, "URL")) {
		print_error("three URLs: \"%s\"\n", err);
		bad++;
	}
	assert_int_equal(bad, 0);
}

/* An unknown short option inside a cluster ("-Zc") is named in the message. */
static void test_unknown_in_cluster(void **state)
{
	static const char *const args[] = { "-Zc", NULL };
	struct config c;
	int rc;

	(void)state;
	rc = parse(&c, URL, args);
	assert_int_equal(rc, -EINVAL);
	if (!strstr(err, "'-Z'")) {
		print_error("'-Zc' gives \"%s\", want a message naming '-Z'\n", err);
		fail();
	}
}

/* ---- URLs ---- */

static void test_url_good(void **state)
{
	static const struct {
		const char *url;
		const char *host, *path;
		int version;
		unsigned nfsport, mountport;
		const char *canon_url;
	} cases[] = {
		{ "nfs://srv/export", "srv", "/export", 3, 0, 0, "nfs://srv/export?version=3" },
		{ "nfs://srv/export?version=4", "srv", "/export", 4, 0, 0,
		  "nfs://srv/export?version=4" },
		{ "nfs://10.0.0.5/vol1/sub/dir?version=3", "10.0.0.5", "/vol1/sub/dir", 3, 0, 0,
		  "nfs://10.0.0.5/vol1/sub/dir?version=3" },
		/* host:port sets nfsport and leaves the host bare. */
		{ "nfs://srv:2049/export", "srv", "/export", 3, 2049, 0,
		  "nfs://srv/export?version=3&nfsport=2049" },
		{ "nfs://srv:2049/export?nfsport=2049", "srv", "/export", 3, 2049, 0,
		  "nfs://srv/export?version=3&nfsport=2049" },
		{ "nfs://srv/export?nfsport=12049&mountport=20048", "srv", "/export", 3, 12049,
		  20048, "nfs://srv/export?version=3&nfsport=12049&mountport=20048" },
		{ "nfs://srv:1/e?mountport=65535&version=4", "srv", "/e", 4, 1, 65535,
		  "nfs://srv/e?version=4&nfsport=1&mountport=65535" },
		/* Trailing slashes are stripped. */
		{ "nfs://srv/export/", "srv", "/export", 3, 0, 0, "nfs://srv/export?version=3" },
		{ "nfs://srv/export/sub///", "srv", "/export/sub", 3, 0, 0,
		  "nfs://srv/export/sub?version=3" },
		/* Pass-through arguments keep their order, ahead of the ports. */
		{ "nfs://srv/export?uid=0&gid=0&version=4&nfsport=2049", "srv", "/export", 4, 2049,
		  0, "nfs://srv/export?version=4&uid=0&gid=0&nfsport=2049" },
		{ "nfs://srv/export?tcp-syncnt=3&if=eth0&debug=2", "srv", "/export", 3, 0, 0,
		  "nfs://srv/export?version=3&tcp-syncnt=3&if=eth0&debug=2" },
		{ "nfs://srv/export?", "srv", "/export", 3, 0, 0, "nfs://srv/export?version=3" },
		{ "nfs://my-host.example.com/e", "my-host.example.com", "/e", 3, 0, 0,
		  "nfs://my-host.example.com/e?version=3" },
		{ "nfs://srv/a.b/c_d-e", "srv", "/a.b/c_d-e", 3, 0, 0,
		  "nfs://srv/a.b/c_d-e?version=3" },
		/* fuzz: one letter is a server name; only libnfs refuses it (test_url_bad) */
		{ "nfs://s/export", "s", "/export", 3, 0, 0, "nfs://s/export?version=3" },
	};
	struct config c;
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		int rc = parse(&c, cases[i].url, NULL);

		if (rc != CFG_RUN || strcmp(c.url, cases[i].url) || strcmp(c.host, cases[i].host) ||
		    strcmp(c.path, cases[i].path) || c.nfs_version != cases[i].version ||
		    c.nfsport != cases[i].nfsport || c.mountport != cases[i].mountport ||
		    strcmp(c.canon_url, cases[i].canon_url)) {
			print_error("%s: rc %d (%s)\n  got  host '%s' path '%s' v%d nfsport %u "
				    "mountport %u libnfs '%s'\n  want host '%s' path '%s' v%d nfsport "
				    "%u mountport %u libnfs '%s'\n", cases[i].url, rc, err, c.host,
				    c.path, c.nfs_version, c.nfsport, c.mountport, c.canon_url,
				    cases[i].host, cases[i].path, cases[i].version, cases[i].nfsport,
				    cases[i].mountport, cases[i].canon_url);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_url_bad(void **state)
{
	static const struct {
		const char *url;
		const char *needles[3];	/* all must appear in err */
	} cases[] = {
		{ "srv/export", { "URL", "nfs://" } },
		{ "http://srv/export", { "URL", "nfs://" } },
		{ "NFS://srv/export", { "URL", "nfs://" } },
		{ "nfs:/srv/export", { "URL", "nfs://" } },
		{ "", { "URL" } },
		{ "nfs:///export", { "URL", "server" } },
		{ "nfs://:2049/export", { "URL", "server" } },
		{ "nfs://srv", { "URL", "export" } },
		{ "nfs://srv/", { "URL", "export" } },
		{ "nfs://srv?version=3", { "URL", "export" } },
		{ "nfs://srv:0/export", { "URL", "port" } },
		{ "nfs://srv:65536/export", { "URL", "port" } },
		{ "nfs://srv:abc/export", { "URL", "port" } },
		{ "nfs://srv:/export", { "URL", "port" } },
		{ "nfs://srv:-1/export", { "URL", "port" } },
		{ "nfs://sr v/export", { "URL", "server" } },
		{ "nfs://srv/export?foo=1", { "URL", "foo", "accepted: version, nfsport, mountport" } },
		{ "nfs://srv/export?version=3&bar=2", { "bar", "uid, gid, tcp-syncnt, if, debug" } },
		{ "nfs://srv/export?nfsport=0", { "URL", "nfsport=0" } },
		{ "nfs://srv/export?nfsport=65536", { "URL", "nfsport" } },
		{ "nfs://srv/export?nfsport=x", { "URL", "nfsport" } },
		{ "nfs://srv/export?mountport=0", { "URL", "mountport" } },
		{ "nfs://srv/export?version=5", { "URL", "version=5" } },
		{ "nfs://srv/export?version=2", { "URL", "version" } },
		{ "nfs://srv/export?version=", { "URL", "version" } },
		{ "nfs://srv/export?version=4.1", { "URL", "version" } },
		{ "nfs://srv/export?version", { "URL", "version" } },
		{ "nfs://srv:2049/export?nfsport=2050", { "URL", "nfsport", "2049" } },
		{ "nfs://srv/export?uid=x", { "URL", "uid" } },
		{ "nfs://srv/export?if=", { "URL", "if" } },
		{ "nfs://[::1]/e", { "URL", "IPv6" } },
		{ "nfs://a/export", { "URL", "too short" } },
		{ "nfs://[::1]:2049/e", { "URL", "IPv6" } },
		{ "nfs://srv/export//sub", { "URL", "path" } },
		{ "nfs://srv//export", { "URL", "path" } },
		{ "nfs://srv/export/./sub", { "URL", "path" } },
		{ "nfs://srv/export/../sub", { "URL", "path" } },
		{ "nfs://srv/export/..", { "URL", "path" } },
		{ "nfs://srv/export/.", { "URL", "path" } },
		{ "nfs://srv/exp%20ort", { "URL", "path" } },
		{ "nfs://srv/exp ort", { "URL", "path" } },
		{ "nfs://srv/exp\\ort", { "URL", "path" } },
		{ "nfs://srv/exp#ort", { "URL", "path" } },
		/* fuzz: only slashes after the server are no export, as "nfs://srv/" */
		{ "nfs://srv//", { "URL", "export" } },
		{ "nfs://srv///?version=4", { "URL", "export" } },
	};
	char longurl[CFG_URL_MAX + 10];
	struct config c;
	int bad = 0;

	(void)state;
	/* On libnfs, the stricter engine: version=4.1 and one-letter servers are its limits. */
	static const char *const libnfs[] = { "--engine", "libnfs", NULL };

	for (size_t i = 0; i < N(cases); i++) {
		int rc = parse(&c, cases[i].url, libnfs);
		bool ok = rc == -EINVAL && !strchr(err, '\n');

		for (size_t k = 0; k < N(cases[i].needles) && cases[i].needles[k]; k++)
			ok = ok && strstr(err, cases[i].needles[k]);
		if (!ok) {
			print_error("'%s': rc %d err \"%s\", want -EINVAL naming %s %s %s\n",
				    cases[i].url, rc, err, cases[i].needles[0],
				    cases[i].needles[1] ? cases[i].needles[1] : "",
				    cases[i].needles[2] ? cases[i].needles[2] : "");
			bad++;
		}
	}
	/* Too long for cfg->url. */
	memcpy(longurl, "nfs://srv/", 10);
	memset(longurl + 10, 'x', CFG_URL_MAX - 10);
	longurl[CFG_URL_MAX] = '\0';
	if (parse(&c, longurl, NULL) != -EINVAL || !strstr(err, "URL")) {
		print_error("URL of %d characters: \"%s\"\n", CFG_URL_MAX, err);
		bad++;
	}
	/*
	 * fuzz: short enough for cfg->url, but the canonical libnfs URL is not
	 * ("?version=3" added, ":2049" moved to "&nfsport=2049"): an error, and
	 * nothing written past canon_url (nfs_version, the ports follow it).
	 */
	memcpy(longurl, "nfs://srv:2049/", 15);
	memset(longurl + 15, 'x', CFG_URL_MAX - 1 - 15);
	longurl[CFG_URL_MAX - 1] = '\0';
	if (parse(&c, longurl, NULL) != -EINVAL || !strstr(err, "URL: too long") ||
	    c.nfs_version != 3 || c.nfsport != 2049 || c.mountport != 0) {
		print_error("URL of %d characters with a port: \"%s\", v%d nfsport %u "
			    "mountport %u\n", CFG_URL_MAX - 1, err, c.nfs_version, c.nfsport,
			    c.mountport);
		bad++;
	}
	assert_int_equal(bad, 0);
}

/* config_parse_url on its own fills the same fields. */
static void test_parse_url_direct(void **state)
{
	struct config c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.nfs_version = 3;
	assert_int_equal(config_parse_url(&c, "nfs://hx:2049/e/f/?mountport=635", err,
					  sizeof(err)), 0);
	assert_string_equal(c.host, "hx");
	assert_string_equal(c.path, "/e/f");
	assert_int_equal(c.nfsport, 2049);
	assert_int_equal(c.mountport, 635);
	assert_non_null(strstr(c.canon_url, "version=3"));
	assert_non_null(strstr(c.canon_url, "nfsport=2049"));
	assert_non_null(strstr(c.canon_url, "mountport=635"));
	assert_string_equal(c.canon_url, "nfs://hx/e/f?version=3&nfsport=2049&mountport=635");
}

/* ---- --help / --version ---- */

/* Runs config_parse with stdout captured into out. */
static int parse_captured(const char *const *args, char *out, size_t outlen)
{
	struct config c;
	FILE *tmp = tmpfile();
	int saved, rc;
	size_t n;

	assert_non_null(tmp);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
	rc = parse(&c, NULL, args);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, outlen - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return rc;
}

static void test_help_version(void **state)
{
	static const struct {
		const char *args[4];
		const char *needle;
	} cases[] = {
		{ { "--help" }, "usage: nfsload" },
		{ { "-h" }, "usage: nfsload" },
		{ { "-c", "0", "--help" }, "" },	/* the error comes first */
		{ { "--help", "-c", "0" }, "usage: nfsload" },
		{ { "--help", "nfs://a/b", "nfs://c/d" }, "usage: nfsload" },
		{ { "--version" }, "nfsload " NFSLOAD_VERSION },
		{ { "-V" }, "nfsload " NFSLOAD_VERSION },
	};
	static char out[16384];
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		int rc = parse_captured(cases[i].args, out, sizeof(out));
		int want = cases[i].needle[0] ? CFG_EXIT_OK : -EINVAL;

		if (rc != want || !strstr(out, cases[i].needle) ||
		    (want == -EINVAL && out[0] != '\0')) {
			print_error("%s: rc %d, want %d; stdout \"%.60s\"\n",
				    join(NULL, cases[i].args), rc, want, out);
			bad++;
		}
	}
	/* The help text documents every URL argument that is accepted. */
	parse_captured(cases[0].args, out, sizeof(out));
	for (const char *const *k = (const char *const[]){ "version=", "nfsport=", "mountport=",
			"uid=", "gid=", "tcp-syncnt=", "if=", "debug=", NULL }; *k; k++) {
		if (!strstr(out, *k)) {
			print_error("--help does not mention URL argument %s\n", *k);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/*
 * config_parse resets getopt itself: parses in a row do not leak into each
 * other, including after one that stopped in the middle of "-hc".
 */
static void test_reparse(void **state)
{
	static const char *const first[] = { "-c", "8", "-q", "4", "--keep", NULL };
	static const char *const cluster[] = { "-hc", NULL };
	static const char *const bad_cluster[] = { "-Zt", NULL };
	static const char *const second[] = { "-c", "2", NULL };
	static char out[16384];
	struct config c;

	(void)state;
	assert_int_equal(parse(&c, URL, first), CFG_RUN);
	assert_int_equal(c.connections, 8);
	assert_int_equal(parse(&c, URL, NULL), CFG_RUN);
	assert_int_equal(c.connections, 1);
	assert_int_equal(c.iodepth, 1);
	assert_false(c.keep);
	assert_int_equal(parse_captured(cluster, out, sizeof(out)), CFG_EXIT_OK);
	assert_int_equal(parse(&c, URL, second), CFG_RUN);
	assert_int_equal(c.connections, 2);
	assert_int_equal(parse(&c, URL, bad_cluster), -EINVAL);
	assert_int_equal(parse(&c, URL, second), CFG_RUN);
	assert_int_equal(c.connections, 2);
	assert_int_equal(c.threads, 2 <= sysconf(_SC_NPROCESSORS_ONLN) ? 2 : 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_good_options),
		cmocka_unit_test(test_good_strings),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_v4_limits),
		cmocka_unit_test(test_skew_options),
		cmocka_unit_test(test_url_count),
		cmocka_unit_test(test_unknown_in_cluster),
		cmocka_unit_test(test_url_good),
		cmocka_unit_test(test_url_bad),
		cmocka_unit_test(test_parse_url_direct),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_reparse),
	};

	/* GNU getopt must permute (the URL may come before the options). */
	unsetenv("POSIXLY_CORRECT");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
