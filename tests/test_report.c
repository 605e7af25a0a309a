/*
 * report unit tests: a struct report built by hand, rendered as JSON (checked
 * with jq: valid, and the key values right) and as text (rows, CPU line, the
 * client-bound warning), plus JSON string escaping.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "options.h"
#include "engine.h"
#include "report.h"
#include "stats.h"
#include "units.h"
#include "version.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NS_S UINT64_C(1000000000)

#define NREADS 1000
#define NWRITES 500
#define NWERRORS 3
#define READ_BYTES 4096
#define WRITE_BYTES 8192
/* Nearest-rank medians of the latencies recorded by fixture_init. */
#define READ_P50 (100000 + 499 * 100)
#define WRITE_P50 (1000000 + 249 * 1000)

struct fixture {
	struct config cfg;
	struct report r;
	struct thread_report threads[2];
	struct conn_report conns[3];
};

static bool have_jq;

/*
 * Without jq the JSON checks cannot run: the test is reported skipped, saying so
 * (make test counts skips), never passed. At the start of a test that reads only
 * the JSON; at the end of one whose text checks ran (after its asserts and frees:
 * skip() leaves the function).
 */
static void skip_without_jq(const char *test, const char *what)
{
	if (have_jq)
		return;
	print_message("%s: %s: skipped, jq not found (scripts/deps.sh test installs it)\n", test,
		      what);
	skip();
}

static void fixture_init(struct fixture *f)
{
	static char *argv[] = { "nfsload", "-c", "3", "-t", "2", "--rw", "randrw",
				"--rwmixread", "70", "nfs://srv/export", NULL };
	char err[256] = "";
	int rc;

	memset(f, 0, sizeof(*f));
	rc = config_parse(&f->cfg, (int)N(argv) - 1, argv, err, sizeof(err));
	if (rc != CFG_RUN)
		fail_msg("config_parse: %d %s", rc, err);
	assert_int_equal(op_stats_init_all(f->r.ops, HIST_PRECISE_BITS, false), 0);
	assert_int_equal(op_stats_init(&f->r.layout, HIST_PRECISE_BITS, false), 0);
	for (int i = 0; i < NREADS; i++)
		op_stats_record(&f->r.ops[OP_READ], READ_BYTES, 100000 + (uint64_t)i * 100, 0);
	for (int i = 0; i < NWRITES; i++)
		op_stats_record(&f->r.ops[OP_WRITE], WRITE_BYTES, 1000000 + (uint64_t)i * 1000, 0);
	for (int i = 0; i < NWERRORS; i++)
		op_stats_record(&f->r.ops[OP_WRITE], -EIO, 0, 0);
	for (int i = 0; i < 16; i++)
		op_stats_record(&f->r.layout, 1 << 20, 5000000, 0);

	f->r.cfg = &f->cfg;
	f->r.nfs_version = "3";
	f->r.limits_note = "";
	f->r.start_unix_ns = INT64_C(1700000000) * (int64_t)NS_S;	/* 2023-11-14T22:13:20Z */
	f->r.connect_ns = 12345678;
	f->r.layout_ran = true;
	f->r.layout_ns = NS_S;
	f->r.duration_ns = 2 * NS_S;
	f->r.user_s = 0.5;
	f->r.sys_s = 0.25;
	f->threads[0] = (struct thread_report){ 2, 40.0, 300 };
	f->threads[1] = (struct thread_report){ 1, 50.0, 150 };
	f->r.nthreads = 2;
	f->r.threads = f->threads;
	f->conns[0] = (struct conn_report){ .id = 0, .worker = 0, .ops = 600, .bytes = 600 * 4096, .errors = 0,
					    .p50_ns = 150000, .p99_ns = 190000, .error = "" };
	f->conns[1] = (struct conn_report){ .id = 1, .worker = 1, .ops = 500, .bytes = 500 * 8192, .errors = 3,
					    .p50_ns = 1200000, .p99_ns = 1400000, .error = "" };
	f->conns[2] = (struct conn_report){ .id = 2, .worker = 0, .ops = 400, .bytes = 400 * 4096, .errors = 0,
					    .p50_ns = 140000, .p99_ns = 180000, .error = "connection reset" };
	f->r.nconns = 3;
	f->r.conns = f->conns;
}

static void fixture_destroy(struct fixture *f)
{
	op_stats_destroy_all(f->r.ops);
	op_stats_destroy(&f->r.layout);
}

/* Renders into a malloc'd string (free it). */
static char *render(void (*fn)(FILE *, const struct report *), const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	fn(out, r);
	assert_int_equal(fclose(out), 0);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), len);	/* no NUL inside */
	return buf;
}

/* ---- jq ---- */

struct json_doc {
	char path[64];
};

static void json_open(struct json_doc *d, const char *json)
{
	int fd;
	size_t len = strlen(json);

	snprintf(d->path, sizeof(d->path), "/tmp/nfsload-test-report-XXXXXX");
	fd = mkstemp(d->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, len), (ssize_t)len);
	close(fd);
}

static void json_close(struct json_doc *d)
{
	unlink(d->path);
}

/*
 * jq -j 'filter' on the document; the output (no trailing newline) into
 * out. Returns jq's exit status (0 when it parsed and ran).
 */
static int jq_n(const struct json_doc *d, const char *filter, char *out, size_t outlen,
		size_t *nread)
{
	size_t len = strlen(filter) + sizeof(d->path) + 32, n;
	char *cmd = malloc(len), drain[1024];
	FILE *p;
	int st;

	assert_non_null(cmd);
	assert_null(strchr(filter, '\''));
	snprintf(cmd, len, "jq -j '%s' %s 2>&1", filter, d->path);
	p = popen(cmd, "r");
	free(cmd);
	assert_non_null(p);
	n = fread(out, 1, outlen - 1, p);
	out[n] = '\0';
	if (nread)
		*nread = n;
	/* Drain the rest so jq never dies of SIGPIPE. */
	while (fread(drain, 1, sizeof(drain), p) > 0)
		;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int jq(const struct json_doc *d, const char *filter, char *out, size_t outlen)
{
	return jq_n(d, filter, out, outlen, NULL);
}

/* Runs a table of filter -> exact output checks; returns mismatches. */
struct jq_case {
	const char *filter, *want;
};

/*
 * One jq for the whole table: the filters' outputs joined by NUL bytes (a jq
 * costs ~20-100 ms to start; the tables hold over a hundred). Returns false when
 * that jq failed or gave another number of outputs: jq_check then runs them one
 * by one, to say which.
 */
static bool jq_batch(const struct json_doc *d, const struct jq_case *c, size_t n, char *out,
		     size_t outlen, const char **res)
{
	size_t len = 64, at, got = 0, nread;
	char *filter;
	int st;

	for (size_t i = 0; i < n; i++)
		len += strlen(c[i].filter) + 16;
	filter = malloc(len);
	assert_non_null(filter);
	at = 0;
	for (size_t i = 0; i < n; i++)
		at += (size_t)snprintf(filter + at, len - at, "%s(%s), \"\\u0000\"", i ? ", " : "",
				       c[i].filter);
	st = jq_n(d, filter, out, outlen, &nread);
	free(filter);
	if (st != 0)
		return false;
	for (char *p = out; p < out + nread; p += strlen(p) + 1)
		if (got++ < n)
			res[got - 1] = p;
	return got == n;
}

static int jq_check(const struct json_doc *d, const struct jq_case *c, size_t n)
{
	static char all[65536];
	const char *res[256];
	char out[4096];
	int bad = 0;

	if (n <= 256 && jq_batch(d, c, n, all, sizeof(all), res)) {
		size_t same = 0;

		while (same < n && strcmp(res[same], c[same].want) == 0)
			same++;
		if (same == n)
			return 0;
	}
	for (size_t i = 0; i < n; i++) {
		int st = jq(d, c[i].filter, out, sizeof(out));

		if (st != 0 || strcmp(out, c[i].want) != 0) {
			print_error("jq '%s': status %d, got \"%s\", want \"%s\"\n", c[i].filter, st,
				    out, c[i].want);
			bad++;
		}
	}
	return bad;
}

static uint64_t jq_u64(const struct json_doc *d, const char *filter)
{
	char out[256];

	if (jq(d, filter, out, sizeof(out)) != 0)
		fail_msg("jq '%s': %s", filter, out);
	return strtoull(out, NULL, 10);
}

static double jq_double(const struct json_doc *d, const char *filter)
{
	char out[256];

	if (jq(d, filter, out, sizeof(out)) != 0)
		fail_msg("jq '%s': %s", filter, out);
	return strtod(out, NULL);
}

static void test_json(void **state)
{
	static const struct jq_case cases[] = {
		{ "type", "object" },
		{ ".nfsload_version", NFSLOAD_VERSION },
		{ ".start_time", "2023-11-14T22:13:20Z" },
		{ ".start_unix_ns == 1700000000000000000", "true" },
		{ ".settings.url", "nfs://srv/export" },
		{ ".settings.nfs_version", "3" },
		{ ".settings.connections", "3" },
		{ ".settings.threads", "2" },
		{ ".settings.rw", "randrw" },
		{ ".settings.rwmixread", "70" },
		{ ".settings.bs", "4096" },
		{ ".settings.dir", "nfsload.work" },
		{ ".limits_note", "" },
		{ ".setup.connect_ns", "12345678" },
		{ ".layout.ran", "true" },
		{ ".layout.stats.count", "16" },
		{ ".layout.stats.bytes", "16777216" },
		{ ".layout.stats.mib_s", "16" },
		{ ".layout.stats | has(\"buckets\")", "false" },
		{ ".duration_ns", "2000000000" },
		{ ".interrupted", "false" },
		{ ".ops | keys | join(\",\")", "commit,read,write" },
		{ ".ops.read.count", "1000" },
		{ ".ops.read.bytes", "4096000" },
		{ ".ops.read.errors", "0" },
		{ ".ops.read.iops", "500" },
		{ ".ops.write.count", "500" },
		{ ".ops.write.errors", "3" },
		{ ".ops.write.iops", "250" },
		{ ".total.count", "1500" },
		{ ".total.count == (.ops | map(.count) | add)", "true" },
		{ ".total.bytes", "8192000" },
		{ ".total.errors", "3" },
		{ ".total.iops", "750" },
		{ ".ops.read.lat_ns.min", "100000" },
		{ ".ops.read.lat_ns.max", "199900" },
		{ ".ops.read.lat_ns.mean", "149950" },
		{ ".ops.write.lat_ns.min", "1000000" },
		{ ".ops.write.lat_ns.max", "1499000" },
		{ "[.ops[].lat_ns | has(\"p50\", \"p90\", \"p99\", \"p99.9\", \"p99.99\")] | all",
		  "true" },
		{ "[.ops[].lat_ns | .p50 <= .p90 and .p90 <= .p99 and .p99 <= .[\"p99.9\"] and "
		  ".[\"p99.9\"] <= .[\"p99.99\"] and .[\"p99.99\"] <= .max and .min <= .p50] | all",
		  "true" },
		{ "[.ops.read.buckets[][2]] | add", "1000" },
		{ "[.ops.write.buckets[][2]] | add", "500" },
		{ "[.ops[].buckets[] | length == 3 and .[0] <= .[1] and .[2] > 0] | all", "true" },
		/* Buckets ascend and do not overlap. */
		{ "[.ops[].buckets | [range(1; length) as $i | .[$i - 1][1] < .[$i][0]] | all] | all",
		  "true" },
		{ ".ops.read.buckets[0][0] <= .ops.read.lat_ns.min and "
		  ".ops.read.buckets[-1][1] >= .ops.read.lat_ns.max", "true" },
		{ ".cpu.user_s", "0.5" },
		{ ".cpu.sys_s", "0.25" },
		{ ".cpu.us_per_op", "500" },
		{ ".cpu.sleeps_per_op", "0.3" },
		{ ".cpu.client_bound", "false" },
		{ ".threads | length", "2" },
		{ "[.threads[].connections] | map(tostring) | join(\",\")", "2,1" },
		{ "[.threads[].busy_pct] | map(tostring) | join(\",\")", "40,50" },
		{ "[.threads[].sleeps] | map(tostring) | join(\",\")", "300,150" },
		{ ".connections | length", "3" },
		{ "[.connections[].id] | map(tostring) | join(\",\")", "0,1,2" },
		{ "[.connections[].thread] | map(tostring) | join(\",\")", "0,1,0" },
		{ "[.connections[].ops] | add", "1500" },
		{ ".connections[1].errors", "3" },
		{ ".connections[1].lat_ns.p99", "1400000" },
		{ ".connections[2].error", "connection reset" },
		{ ".connections[0].error", "" },
	};
	struct fixture f;
	struct json_doc d;
	char out[256];
	char *json;
	double p50, sd;
	int bad = 0;

	(void)state;
	skip_without_jq(__func__, "the JSON checks");
	fixture_init(&f);
	json = render(report_json, &f.r);
	json_open(&d, json);
	if (jq(&d, ".", out, sizeof(out)) != 0) {
		print_error("not JSON (%s):\n%s\n", out, json);
		fail();
	}
	bad += jq_check(&d, cases, N(cases));

	/* Percentiles: within the histogram's precision (1/128) of the truth. */
	p50 = jq_double(&d, ".ops.read.lat_ns.p50");
	if (fabs(p50 - READ_P50) > READ_P50 / 128.0) {
		print_error("read p50 %.0f, true median %d\n", p50, READ_P50);
		bad++;
	}
	p50 = jq_double(&d, ".ops.write.lat_ns.p50");
	if (fabs(p50 - WRITE_P50) > WRITE_P50 / 128.0) {
		print_error("write p50 %.0f, true median %d\n", p50, WRITE_P50);
		bad++;
	}
	if (jq_u64(&d, ".ops.read.lat_ns.p50") != hist_percentile(&f.r.ops[OP_READ].lat, 50)) {
		print_error("read p50 in JSON differs from hist_percentile\n");
		bad++;
	}
	/* Population stdev of 100000 + 100 i, i < 1000: 100 sqrt((1000^2 - 1) / 12). */
	sd = jq_double(&d, ".ops.read.lat_ns.stdev");
	if (fabs(sd - 100 * sqrt((1e6 - 1) / 12)) > 1) {
		print_error("read stdev %.3f, want %.3f\n", sd, 100 * sqrt((1e6 - 1) / 12));
		bad++;
	}
	json_close(&d);
	free(json);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/* Nothing completed, no layout, zero duration: still valid JSON, no NaN. */
static void test_json_empty(void **state)
{
	static const struct jq_case cases[] = {
		{ ".total.count", "0" },
		{ ".total.iops", "0" },
		{ ".cpu.us_per_op", "0" },
		{ ".ops.read.lat_ns.min", "0" },
		{ ".ops.read.lat_ns.mean", "0" },
		{ ".ops.read.lat_ns.p99", "0" },
		{ ".ops.read.buckets | length", "0" },
		{ ".layout.ran", "false" },
		{ ".interrupted", "true" },
		{ ".connections | length", "0" },
		{ ".threads | length", "0" },
	};
	struct fixture f;
	struct json_doc d;
	char out[256], *json;
	int bad;

	(void)state;
	skip_without_jq(__func__, "the JSON checks");
	fixture_init(&f);
	op_stats_reset_all(f.r.ops);
	op_stats_reset(&f.r.layout);
	f.r.layout_ran = false;
	f.r.layout_ns = 0;
	f.r.duration_ns = 0;
	f.r.interrupted = true;
	f.r.nthreads = 0;
	f.r.nconns = 0;
	json = render(report_json, &f.r);
	json_open(&d, json);
	if (jq(&d, ".", out, sizeof(out)) != 0) {
		print_error("not JSON (%s):\n%s\n", out, json);
		fail();
	}
	bad = jq_check(&d, cases, N(cases));
	json_close(&d);
	free(json);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/* Strings with quotes, backslashes and control characters survive. */
static void test_json_escaping(void **state)
{
	static const char *const strings[] = {
		"nfs://srv/\"quoted\"\\back\\slash",
		"tab\there, newline\nthere, cr\r, bell\a, \x01\x1f end",
		"\\\\\"\"\\",
		"caf\xc3\xa9 \xe2\x82\xac",
		"slash / and </script>",
		"",
	};
	struct fixture f;
	struct json_doc d;
	char out[1024], *json;
	int bad = 0;

	(void)state;
	skip_without_jq(__func__, "the JSON checks");
	for (size_t i = 0; i < N(strings); i++) {
		fixture_init(&f);
		snprintf(f.cfg.url, sizeof(f.cfg.url), "%s", strings[i]);
		f.r.limits_note = strings[i];
		f.conns[2].error = strings[i];
		json = render(report_json, &f.r);
		json_open(&d, json);
		if (jq(&d, ".", out, sizeof(out)) != 0) {
			print_error("string %zu: not JSON (%s):\n%s\n", i, out, json);
			bad++;
		} else {
			static const char *const filters[] = {
				".settings.url", ".limits_note", ".connections[2].error",
			};

			for (size_t k = 0; k < N(filters); k++) {
				if (jq(&d, filters[k], out, sizeof(out)) != 0 ||
				    strcmp(out, strings[i]) != 0) {
					print_error("string %zu at %s: got \"%s\", want \"%s\"\n", i,
						    filters[k], out, strings[i]);
					bad++;
				}
			}
		}
		/* Raw control characters never reach the output. */
		for (const char *p = json; *p; p++) {
			if ((unsigned char)*p < 0x20 && *p != '\n') {
				print_error("string %zu: raw control character 0x%02x in JSON\n", i,
					    (unsigned char)*p);
				bad++;
				break;
			}
		}
		json_close(&d);
		free(json);
		fixture_destroy(&f);
	}
	assert_int_equal(bad, 0);
}

/* ---- text ---- */

/* The line starting with prefix, copied into buf; NULL when there is none. */
static const char *find_line(const char *text, const char *prefix, char *buf, size_t len)
{
	size_t plen = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, prefix, plen) == 0) {
			size_t n = strcspn(p, "\n");

			if (n >= len)
				n = len - 1;
			memcpy(buf, p, n);
			buf[n] = '\0';
			return buf;
		}
	}
	return NULL;
}

static void test_text(void **state)
{
	static const struct {
		const char *name;
		uint64_t ops, errors;
	} rows[] = {
		{ "read", NREADS, 0 },
		{ "write", NWRITES, NWERRORS },
		{ "total", NREADS + NWRITES, NWERRORS },
	};
	static const char *const present[] = {
		"nfsload " NFSLOAD_VERSION ", nfs://srv/export, NFSv3, randrw\n",
		"workload: randrw, bs 4.00 KiB, iodepth 1, 70% reads, 1 file of 64.00 MiB in "
		"/nfsload.work\n",
		"connections: 3 on 2 threads (2+1), all up in 12.3 ms\n",
		"layout: 16.00 MiB written in 1.00 s (16.0 MiB/s), 0 errors\n",
		"measured: 2.00 s\n",
		"connections: 3, ops per connection 400..600, 0 without completions, 1 failed\n",
		"connection reset",
		"client CPU: user 0.50 s, system 0.25 s, 500.00 us per operation; threads busy "
		"40% 50%, 0.30 sleeps per operation\n",
	};
	struct fixture f;
	char line[512], *text;
	int bad = 0;

	(void)state;
	fixture_init(&f);
	assert_int_equal(report_total_ops(&f.r), NREADS + NWRITES);
	text = render(report_text, &f.r);
	for (size_t i = 0; i < N(rows); i++) {
		char prefix[16], name[16];
		uint64_t ops = 0, errors = 0;
		double iops = 0, mib = 0;

		snprintf(prefix, sizeof(prefix), "%s ", rows[i].name);
		if (!find_line(text, prefix, line, sizeof(line)) ||
		    sscanf(line, "%15s %" SCNu64 " %lf %lf %" SCNu64, name, &ops, &iops, &mib,
			   &errors) != 5 ||
		    ops != rows[i].ops || errors != rows[i].errors ||
		    fabs(iops - (double)rows[i].ops / 2) > 0.5) {
			print_error("row %s: \"%s\", want %" PRIu64 " ops, %" PRIu64 " errors\n",
				    rows[i].name, find_line(text, prefix, line, sizeof(line)) ?
				    line : "(missing)", rows[i].ops, rows[i].errors);
			bad++;
		}
	}
	for (size_t i = 0; i < N(present); i++) {
		if (!strstr(text, present[i])) {
			print_error("text lacks \"%s\"\n", present[i]);
			bad++;
		}
	}
	if (!find_line(text, "op ", line, sizeof(line)) || !strstr(line, "p99.9") ||
	    !strstr(line, "p99.99")) {
		print_error("no header row with p99.9 and p99.99\n");
		bad++;
	}
	if (strstr(text, "warning:") || strstr(text, "note:")) {
		print_error("unexpected warning or note:\n%s\n", text);
		bad++;
	}
	if (bad)
		print_error("the text report:\n%s", text);
	free(text);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/*
 * State: answers that deny (a lock held by another owner, a share reservation)
 * apart from ops and errors, with their own latency (JSON ops.X.denied and
 * denied_lat_ns, a text line per op); the "state" object and its text line.
 */
static void state_fixture(struct fixture *f)
{
	fixture_init(f);
	for (int i = 0; i < 10; i++)
		op_stats_record(&f->r.ops[OP_LOCK], 0, 100000, 0);
	for (int i = 0; i < 4; i++)
		op_stats_record(&f->r.ops[OP_LOCK], -ENGINE_DENIED, 2000000 + (uint64_t)i * 1000000, 0);
	for (int i = 0; i < 5; i++)
		op_stats_record(&f->r.ops[OP_UNLOCK], 0, 50000, 0);
	/* An op with nothing but denials: still its row and object. */
	for (int i = 0; i < 2; i++)
		op_stats_record(&f->r.ops[OP_OPEN], -ENGINE_DENIED, 7000000, 0);
	f->r.has_state = true;
	f->r.state = (struct engine_state_counts){ .clients = 3, .held_opens = 40,
		.delegations_returned = 1, .grace_waits = 2, .state_lost = 5, .opens_remade = 6,
		.locks_remade = 7 };
}

static void test_json_state(void **state)
{
	static const struct jq_case cases[] = {
		{ ".ops | keys | join(\",\")", "commit,lock,open,read,unlock,write" },
		{ ".ops.lock.ops", "10" },
		{ ".ops.lock.errors", "0" },
		{ ".ops.lock.denied", "4" },
		{ ".ops.lock.denied_lat_ns.min", "2000000" },
		{ ".ops.lock.denied_lat_ns.max", "5000000" },
		{ ".ops.lock.denied_lat_ns.mean", "3500000" },
		{ ".ops.lock.lat_ns.max", "100000" },
		{ ".ops.lock.procedure", "LOCK" },
		{ ".ops.open.ops", "0" },
		{ ".ops.open.denied", "2" },
		{ ".ops.open.denied_lat_ns.p50 >= 7000000 and .ops.open.denied_lat_ns.max == 7000000",
		  "true" },
		/* LOCKU never denies: no key. READ neither. */
		{ ".ops.unlock | has(\"denied\")", "false" },
		{ ".ops.read | has(\"denied\") or has(\"denied_lat_ns\")", "false" },
		{ ".total.ops", "1515" },
		{ ".total.errors", "3" },
		{ ".state | to_entries | map(\"\\(.key)=\\(.value)\") | join(\",\")",
		  "clients=3,held_opens=40,delegations_returned=1,grace_waits=2,state_lost=5,"
		  "opens_remade=6,locks_remade=7" },
	};
	struct fixture f;
	struct json_doc d;
	char out[256], *json;
	int bad = 0;

	(void)state;
	skip_without_jq(__func__, "the JSON checks");
	state_fixture(&f);
	json = render(report_json, &f.r);
	json_open(&d, json);
	if (jq(&d, ".", out, sizeof(out)) != 0) {
		print_error("not JSON (%s):\n%s\n", out, json);
		fail();
	}
	bad += jq_check(&d, cases, N(cases));
	json_close(&d);
	free(json);

	/* A LOCK with no denial still says so (0, an empty summary); no engine state: no key. */
	fixture_destroy(&f);
	fixture_init(&f);
	op_stats_record(&f.r.ops[OP_LOCK], 0, 100000, 0);
	json = render(report_json, &f.r);
	json_open(&d, json);
	{
		static const struct jq_case none[] = {
			{ ".ops.lock.denied", "0" },
			{ ".ops.lock.denied_lat_ns.max", "0" },
			{ "has(\"state\")", "false" },
		};

		bad += jq_check(&d, none, N(none));
	}
	json_close(&d);
	free(json);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

static void test_text_state(void **state)
{
	static const char *const present[] = {
		"state: 3 NFSv4 clients, 40 held opens, 1 delegations returned, 2 grace-period "
		"waits, 5 stateids lost, 6 opens and 7 locks made again\n",
		"; not among its ops or errors\n",
	};
	struct fixture f;
	char line[512], want[160], a[32], b[32], name[16], *text;
	uint64_t ops = 1, errors = 1;
	double iops, mib;
	int bad = 0;

	(void)state;
	state_fixture(&f);
	text = render(report_text, &f.r);
	for (size_t i = 0; i < N(present); i++)
		if (!strstr(text, present[i])) {
			print_error("text lacks \"%s\"\n", present[i]);
			bad++;
		}
	/* The denied line: its count and the denied answers' own percentiles. */
	snprintf(want, sizeof(want), "lock: 4 denied (a conflict), p50 %s, p99 %s;",
		 units_format_duration(hist_percentile(&f.r.ops[OP_LOCK].lat_denied, 50), a, sizeof(a)),
		 units_format_duration(hist_percentile(&f.r.ops[OP_LOCK].lat_denied, 99), b, sizeof(b)));
	if (!find_line(text, "lock: ", line, sizeof(line)) || strncmp(line, want, strlen(want))) {
		print_error("denied line \"%s\", want \"%s...\"\n",
			    find_line(text, "lock: ", line, sizeof(line)) ? line : "(missing)", want);
		bad++;
	}
	if (!find_line(text, "open: 2 denied (a conflict), p50 ", line, sizeof(line))) {
		print_error("no denied line for open\n");
		bad++;
	}
	if (find_line(text, "unlock: ", line, sizeof(line))) {
		print_error("a denied line for unlock, which had none: \"%s\"\n", line);
		bad++;
	}
	/* open's row in the table: 0 ops, 0 errors (its denials are neither). */
	if (!find_line(text, "open ", line, sizeof(line)) ||
	    sscanf(line, "%15s %" SCNu64 " %lf %lf %" SCNu64, name, &ops, &iops, &mib, &errors) != 5 ||
	    ops != 0 || errors != 0) {
		print_error("open's row: \"%s\", want 0 ops and 0 errors\n",
			    find_line(text, "open ", line, sizeof(line)) ? line : "(missing)");
		bad++;
	}
	if (!find_line(text, "lock ", line, sizeof(line)) ||
	    sscanf(line, "%15s %" SCNu64 " %lf %lf %" SCNu64, name, &ops, &iops, &mib, &errors) != 5 ||
	    ops != 10 || errors != 0) {
		print_error("lock's row: \"%s\", want 10 ops and 0 errors\n",
			    find_line(text, "lock ", line, sizeof(line)) ? line : "(missing)");
		bad++;
	}
	if (bad)
		print_error("the text report:\n%s", text);
	free(text);

	/* Engine state with nothing held or lost (clients alone): no state line. */
	f.r.state = (struct engine_state_counts){ .clients = 3 };
	text = render(report_text, &f.r);
	if (strstr(text, "\nstate: ")) {
		print_error("a state line with nothing held:\n%s", text);
		bad++;
	}
	free(text);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/* A load curve of three points (one refined) with a p99.9 target: JSON and text. */
static void curve_fixture(struct curve *c)
{
	struct curve_spec rates = { 1000, 1000, 3000, false };
	struct curve_target t = { 99.9, 2000000 };
	struct curve_point p[] = {
		{ .offered = 1000, .achieved = 999.5, .ops = 1000, .p50_ns = 500000, .p99_ns = 900000,
		  .target_ns = 1000000, .duration_ns = NS_S },
		{ .offered = 2000, .achieved = 1500, .ops = 1500, .p50_ns = 9000000, .p99_ns = 20000000,
		  .target_ns = 30000000, .duration_ns = NS_S },
		{ .offered = 1500, .achieved = 1498, .ops = 1498, .errors = 0, .p50_ns = 700000,
		  .p99_ns = 1500000, .target_ns = 1900000, .duration_ns = NS_S },
	};

	curve_init(c, &rates, &t);
	for (size_t i = 0; i < N(p); i++) {
		assert_true(curve_next(c) == p[i].offered);
		assert_int_equal(curve_add(c, &p[i]), (int)i);
	}
}

static void test_json_curve(void **state)
{
	static const struct jq_case cases[] = {
		{ ".load_curve.start", "1000" },
		{ ".load_curve.end", "3000" },
		{ ".load_curve.knee_pct", "90" },
		{ ".load_curve.target | \"\\(.name) \\(.ns)\"", "p99.9 2000000" },
		{ ".load_curve.points | length", "3" },
		{ "[.load_curve.points[] | .offered] | map(tostring) | join(\" \")", "1000 2000 1500" },
		{ "[.load_curve.points[] | .verdict] | join(\" \")", "met short met" },
		{ "[.load_curve.points[] | .refined] | map(tostring) | join(\" \")", "false false true" },
		{ ".load_curve.points[1].achieved", "1500" },
		{ ".load_curve.points[2].target_ns", "1900000" },
		{ ".load_curve.best.offered", "1500" },
		{ ".load_curve.best.met", "true" },
		{ ".load_curve.best.p99_ns", "1500000" },
	};
	struct fixture f;
	struct curve *c = calloc(1, sizeof(*c));
	struct json_doc d;
	char out[256], *json, *text, line[256];
	int bad;

	(void)state;
	assert_non_null(c);
	fixture_init(&f);
	curve_fixture(c);
	f.r.curve = c;
	text = render(report_text, &f.r);
	assert_non_null(find_line(text, "load curve: ", line, sizeof(line)));
	assert_non_null(strstr(line, "3 points (1 refined)"));
	assert_non_null(strstr(line, "p99.9 <= 2.00 ms"));
	assert_non_null(find_line(text, "   offered   achieved       p50       p99     p99.9", line,
				  sizeof(line)));
	assert_non_null(find_line(text, "      2000       1500", line, sizeof(line)));
	assert_non_null(strstr(line, "achieved < 90% of offered"));
	assert_non_null(find_line(text, "      1500       1498", line, sizeof(line)));
	assert_non_null(strstr(line, "met (refined)  <- best"));
	assert_non_null(find_line(text, "best: 1500 ops/s offered", line, sizeof(line)));
	free(text);
	if (have_jq) {
		json = render(report_json, &f.r);
		json_open(&d, json);
		if (jq(&d, ".", out, sizeof(out)) != 0) {
			print_error("not JSON (%s):\n%s\n", out, json);
			fail();
		}
		bad = jq_check(&d, cases, N(cases));
		json_close(&d);
		free(json);
		assert_int_equal(bad, 0);
	}
	fixture_destroy(&f);
	free(c);
	skip_without_jq(__func__, "the JSON half (the text half passed)");
}

/*
 * The version line says what the engine spoke, as the engine said it (4.1
 * for a native NFSv4 run, 4.0 for libnfs's), in text and JSON alike.
 */
static void test_version(void **state)
{
	static const char *const spoken[] = { "4.1", "4.0" };
	struct fixture f;
	struct json_doc d;
	char want[128], *text, *json;
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(spoken); i++) {
		fixture_init(&f);
		f.r.nfs_version = spoken[i];
		text = render(report_text, &f.r);
		snprintf(want, sizeof(want), "nfsload %s, nfs://srv/export, NFSv%s, randrw\n",
			 NFSLOAD_VERSION, spoken[i]);
		if (!strstr(text, want)) {
			print_error("text lacks \"%s\":\n%s\n", want, text);
			bad++;
		}
		json = render(report_json, &f.r);
		if (have_jq) {
			json_open(&d, json);
			bad += jq_check(&d, &(struct jq_case){ ".settings.nfs_version", spoken[i] }, 1);
			json_close(&d);
		}
		free(json);
		free(text);
		fixture_destroy(&f);
	}
	assert_int_equal(bad, 0);
	skip_without_jq(__func__, "the JSON half (the text half passed)");
}

/* What each engine says it speaks: the data the version line and the set-up steps print. */
static void test_engine_proto(void **state)
{
	static const struct {
		const struct engine_ops *e;
		int version, minor;
		const char *spoken, *first_step;
	} cases[] = {
		{ &engine_native, 3, 0, "3", "MOUNT" },
		/* version=4: negotiated, the report says what was spoken (engine_ops.spoken) */
		{ &engine_native, 4, ENGINE_MINOR_ANY, "4", "SESSION" },
		{ &engine_native, 4, 1, "4.1", "SESSION" },
		{ &engine_native, 4, 2, "4.2", "SESSION" },
		{ &engine_libnfs, 3, 0, "3", "MOUNT" },
		{ &engine_libnfs, 4, 0, "4.0", "MOUNT" },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		const struct engine_proto *p = cases[i].e->proto(cases[i].version, cases[i].minor);

		if (strcmp(p->version, cases[i].spoken) || !p->steps[0] ||
		    strcmp(p->steps[0], cases[i].first_step) || !p->steps[1] ||
		    strcmp(p->steps[1], "OPEN")) {
			print_error("%s version=%d.%d: speaks %s, steps %s %s; want %s, %s OPEN\n",
				    cases[i].e->name, cases[i].version, cases[i].minor, p->version,
				    p->steps[0] ? p->steps[0] : "-",
				    p->steps[0] && p->steps[1] ? p->steps[1] : "-",
				    cases[i].spoken, cases[i].first_step);
			bad++;
		}
	}
	/* No server, no version. */
	if (engine_null.proto || engine_local.proto) {
		print_error("null and local engines speak no NFS version\n");
		bad++;
	}
	assert_int_equal(bad, 0);
}

static void test_client_bound(void **state)
{
	static const struct {
		double busy0, busy1;
		bool bound;
	} cases[] = {
		{ 40, 50, false },
		{ 89.9, 10, false },
		{ 0, 89.99, false },
		{ 90, 10, true },
		{ 10, 95, true },
		{ 100, 100, true },
	};
	struct fixture f;
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		char *text, *json;
		bool warned, flagged;

		fixture_init(&f);
		f.threads[0].busy_pct = cases[i].busy0;
		f.threads[1].busy_pct = cases[i].busy1;
		text = render(report_text, &f.r);
		json = render(report_json, &f.r);
		warned = strstr(text, "warning: a worker thread was busy") != NULL;
		flagged = strstr(json, "\"client_bound\": true") != NULL;
		if (report_client_bound(&f.r) != cases[i].bound || warned != cases[i].bound ||
		    flagged != cases[i].bound) {
			print_error("busy %.2f%% %.2f%%: report_client_bound %d, text warning %d, "
				    "JSON client_bound %d, want %d\n", cases[i].busy0, cases[i].busy1,
				    report_client_bound(&f.r), warned, flagged, cases[i].bound);
			bad++;
		}
		free(text);
		free(json);
		fixture_destroy(&f);
	}
	assert_int_equal(bad, 0);
}

static void test_text_notes(void **state)
{
	struct fixture f;
	char *text;
	int bad = 0;

	(void)state;
	fixture_init(&f);
	f.r.limits_note = "libnfs 4.0 limits NFSv4 writes";
	f.r.layout_ran = false;
	f.r.interrupted = true;
	op_stats_reset_all(f.r.ops);
	text = render(report_text, &f.r);
#define WANT(s) do { \
		if (!strstr(text, s)) { \
			print_error("text lacks \"%s\"\n", s); \
			bad++; \
		} \
	} while (0)
	WANT("note: libnfs 4.0 limits NFSv4 writes\n");
	WANT("layout: not needed");
	WANT("(interrupted)");
	WANT("warning: no operation completed\n");
	WANT("total ");
#undef WANT
	/* No per-type rows for types that saw nothing. */
	if (strstr(text, "\nread ") || strstr(text, "\nwrite ")) {
		print_error("rows for empty op types\n");
		bad++;
	}
	if (bad)
		print_error("the text report:\n%s", text);
	free(text);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/* Outages of two connections and a --verify mismatch: summed up, in JSON and text. */
static void test_outages_verify(void **state)
{
	static const struct jq_case cases[] = {
		{ ".outages.count", "3" },
		{ ".outages.connections", "2" },
		{ ".outages.failed_ops", "9" },
		{ ".outages.unrecovered", "1" },
		{ ".outages.reconnects", "2" },
		{ ".outages.max_stall_ns", "4000000000" },
		{ ".outages.max_reconnect_ns", "3000000000" },
		{ ".connections[0].outages | length", "0" },
		{ ".connections[1].outages[0].start_ns", "-500000000" },
		{ ".connections[1].outages[1].recovered", "false" },
		{ ".connections[1].down", "true" },
		{ ".connections[2].outages[0].attempts", "4" },
		{ ".settings.on_error", "stop" },	/* size based */
		{ ".verify.enabled", "true" },
		{ ".verify.mismatches", "1" },
		{ ".verify.by_kind.checksum", "1" },
		{ ".verify.first[0].offset", "40960" },
		{ ".verify.first[0].first_diff", "17" },
		{ ".verify.first[0].found_byte", "75" },
		{ ".verify.first[0].text | test(\"first differing byte at \\\\+17\")", "true" },
	};
	struct fixture f;
	struct outage_summary sum;
	struct verify_mismatch *m;
	struct json_doc d;
	char *json, *text;
	int bad = 0;

	(void)state;
	fixture_init(&f);
	f.cfg.verify = true;
	f.conns[1].noutages = 2;
	f.conns[1].reconnects = 1;
	f.conns[1].down = true;
	f.conns[1].outages[0] = (struct conn_outage){ -500000000, -400000000, 4000000000u,
						      3000000000u, 5, 7, true };
	f.conns[1].outages[1] = (struct conn_outage){ 1500000000, 1600000000, 0, 0, 2, 2, false };
	f.conns[2].noutages = 1;
	f.conns[2].reconnects = 1;
	f.conns[2].outages[0] = (struct conn_outage){ 1000000000, 1100000000, 2000000000u,
						      1000000000u, 2, 4, true };
	report_outages(&f.r, &sum);
	assert_int_equal(sum.count, 3);
	assert_int_equal(sum.first_ns, -500000000);
	f.r.verify.blocks = 100;
	f.r.verify.bad = 1;
	f.r.verify.by_kind[VERIFY_CHECKSUM] = 1;
	f.r.verify.nkept = 1;
	m = &f.r.verify.kept[0];
	*m = (struct verify_mismatch){ .kind = VERIFY_CHECKSUM, .file = 3, .offset = 40960,
				       .block = 4096, .first_diff = 17, .expected_byte = 74,
				       .found_byte = 75 };
	m->expected = m->found = (struct verify_hdr){ 0x564c464e, 3, 40960, 7, 1, 42 };

	json = render(report_json, &f.r);
	if (have_jq) {
		json_open(&d, json);
		bad += jq_check(&d, cases, N(cases));
		json_close(&d);
	}
	text = render(report_text, &f.r);
	if (!strstr(text, "outages: 3 on 2 connections, 2 recovered, first at -0.50 s; "
		    "9 operations failed (--on-error stop)")) {
		print_error("text lacks the outage summary:\n%s", text ? text : "");
		bad++;
	}
	if (!strstr(text, "verify: 100 blocks of 4.00 KiB checked") ||
	    !strstr(text, "file 3 offset 40960 (block 10)")) {
		print_error("text lacks the verify lines:\n%s", text ? text : "");
		bad++;
	}
	free(json);
	free(text);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
	skip_without_jq(__func__, "the JSON half (the text half passed)");
}

/* Requests in flight at the stop with no reply: JSON always, the text line only when some. */
static void test_unanswered_at_stop(void **state)
{
	static const struct jq_case none[] = {
		{ ".total.unanswered_at_stop", "0" },
		{ "[.connections[].unanswered_at_stop] | add", "0" },
	};
	static const struct jq_case some[] = {
		{ ".total.unanswered_at_stop", "3" },
		{ ".connections[0].unanswered_at_stop", "0" },
		{ ".connections[1].unanswered_at_stop", "2" },
		{ ".connections[2].unanswered_at_stop", "1" },
	};
	static const char line[] = "unanswered at the stop: 3 requests in flight when the "
				   "measured window ended got no reply within --timeout (the run "
				   "waited for them)\n";
	struct fixture f;
	struct json_doc d;
	char *json, *text;
	int bad = 0;

	(void)state;
	fixture_init(&f);
	json = render(report_json, &f.r);
	text = render(report_text, &f.r);
	if (have_jq) {
		json_open(&d, json);
		bad += jq_check(&d, none, N(none));
		json_close(&d);
	}
	if (strstr(text, "unanswered")) {
		print_error("an unanswered line with none:\n%s", text);
		bad++;
	}
	free(json);
	free(text);

	f.conns[1].unanswered_at_stop = 2;
	f.conns[2].unanswered_at_stop = 1;
	f.r.unanswered_at_stop = 3;	/* aggregate_conns adds them up */
	json = render(report_json, &f.r);
	text = render(report_text, &f.r);
	if (have_jq) {
		json_open(&d, json);
		bad += jq_check(&d, some, N(some));
		json_close(&d);
	}
	if (!strstr(text, line)) {
		print_error("text lacks \"%s\":\n%s", line, text);
		bad++;
	}
	free(json);
	free(text);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
	skip_without_jq(__func__, "the JSON half (the text half passed)");
}

/* More than 16 connections: the slowest five plus every troubled one. */
static void test_text_many_conns(void **state)
{
	struct conn_report many[20];
	struct fixture f;
	char *text, *p;
	unsigned listed[20] = { 0 }, nlisted = 0;
	int bad = 0;

	(void)state;
	fixture_init(&f);
	for (unsigned i = 0; i < 20; i++)
		many[i] = (struct conn_report){ .id = i, .worker = i % 2, .ops = 100, .bytes = 409600, .errors = 0,
					    .p50_ns = 1000 * (i + 1), .p99_ns = 10000 * (i + 1), .error = "" };
	many[7].ops = 0;		/* no completions */
	many[12].error = "mount failed";
	many[3].errors = 2;
	f.r.conns = many;
	f.r.nconns = 20;
	text = render(report_text, &f.r);
	p = strstr(text, "  conn   thread");
	assert_non_null(p);
	for (p = strchr(p, '\n') + 1; strncmp(p, "  ", 2) == 0 && p[2] != '('; p = strchr(p, '\n') + 1) {
		unsigned id;

		assert_int_equal(sscanf(p, " %u", &id), 1);
		assert_true(id < 20);
		listed[id]++;
		nlisted++;
	}
	/* 19..15 by p99, and 3 (errors), 7 (idle), 12 (failed). */
	for (unsigned i = 0; i < 20; i++) {
		unsigned want = i >= 15 || i == 3 || i == 7 || i == 12;

		if (listed[i] != want) {
			print_error("connection %u listed %u times, want %u\n", i, listed[i], want);
			bad++;
		}
	}
	if (nlisted != 8 || !strstr(text, "(the slowest 5 by p99") ||
	    !strstr(text, "connections: 20, ops per connection 0..100, 1 without completions, "
		    "1 failed")) {
		print_error("%u rows listed\n%s", nlisted, text);
		bad++;
	}
	free(text);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
}

/* "count" is kept beside "ops", equal, in every operation object and the totals. */
static void test_json_ops_alias(void **state)
{
	static const struct jq_case cases[] = {
		{ ".ops.read.ops", "1000" },
		{ ".ops.write.ops", "500" },
		{ ".total.ops", "1500" },
		{ ".total.ops == ([.ops[].ops] | add)", "true" },
		{ ".layout.stats.ops", "16" },
		{ ".verify.pass.stats.ops", "0" },
		{ "[.ops[], .total, .layout.stats, .verify.pass.stats | has(\"ops\") and "
		  "has(\"count\") and .ops == .count] | length == 6 and all", "true" },
	};
	struct fixture f;
	struct json_doc d;
	char *json;
	int bad = 0;

	(void)state;
	fixture_init(&f);
	json = render(report_json, &f.r);
	/* Checked without jq too: the alias right after the key. */
	if (!strstr(json, "\"total\": {\"ops\": 1500, \"count\": 1500,") ||
	    !strstr(json, "\"procedure\": \"READ\", \"ops\": 1000, \"count\": 1000,")) {
		print_error("no \"ops\" beside \"count\":\n%s", json);
		bad++;
	}
	if (have_jq) {
		json_open(&d, json);
		bad += jq_check(&d, cases, N(cases));
		json_close(&d);
	}
	free(json);
	fixture_destroy(&f);
	assert_int_equal(bad, 0);
	skip_without_jq(__func__, "the JSON half (the text half passed)");
}

/*
 * A table line's cells: separated by two spaces or more (a cell holds at
 * most single spaces: "1.00 ms", "exit 3 verify"). Their start and end
 * offsets; returns how many.
 */
static unsigned table_cells(const char *line, size_t len, size_t start[], size_t end[],
			    unsigned max)
{
	unsigned n = 0;
	size_t i = 0;

	while (i < len && n < max) {
		while (i < len && line[i] == ' ')
			i++;
		if (i == len)
			break;
		start[n] = i;
		while (i < len && !(line[i] == ' ' && (i + 1 == len || line[i + 1] == ' ')))
			i++;
		end[n++] = i;
	}
	return n;
}

/*
 * The job summary table: each header's right edge is its column's (left
 * edge for the run names), '-' for an op type a run did not do, the status
 * in words. Cells both wider and narrower than their headers.
 */
static void test_job_summary(void **state)
{
	enum { NCOLS = 10, NROWS = 8 };
	static const char *const heads[NCOLS] = {
		"run", "read IOPS", "read MiB/s", "read p99", "write IOPS", "write MiB/s",
		"write p99", "CPU us/op", "errors", "status",
	};
	static const unsigned checked[] = { 3, 6, 7, 9 };
	static const struct {
		int status;
		const char *words;
	} statuses[NROWS] = {
		{ 0, "ok" }, { 1, "exit 1 failed" }, { 2, "exit 2 usage" }, { 3, "exit 3 verify" },
		{ 130, "interrupted" }, { 143, "interrupted" }, { 137, "signal 9" }, { 7, "exit 7" },
	};
	struct job_row rows[NROWS];
	char buf[4096] = "", want[NCOLS][32];
	size_t hstart[NCOLS], hend[NCOLS], start[NCOLS], end[NCOLS];
	const char *line, *nl;
	unsigned n;
	int bad = 0;
	FILE *out = fmemopen(buf, sizeof(buf) - 1, "w");

	(void)state;
	assert_non_null(out);
	memset(rows, 0, sizeof(rows));
	for (unsigned i = 0; i < NROWS; i++) {
		rows[i].name = i ? "rand-4k rwmixread=0" : "seq-64k rwmixread=100";
		rows[i].sweep_key = rows[i].sweep_value = "";
		rows[i].status = statuses[i].status;
		rows[i].ops[OP_WRITE] = 2500;
		rows[i].iops[OP_WRITE] = 250;
		rows[i].mib_s[OP_WRITE] = 0.98;
		rows[i].p99_ns[OP_WRITE] = 2500000;
		rows[i].cpu_us_per_op = i == 3 ? 0 : 1.5 + i;	/* 0: not known, '-' */
	}
	/* Reads only in the first row, writes only in the second, both in the rest. */
	rows[0].ops[OP_READ] = 12345678900;
	rows[0].iops[OP_READ] = 1234567890;
	rows[0].mib_s[OP_READ] = 4822530.8;
	rows[0].p99_ns[OP_READ] = 999000;
	rows[0].iops[OP_WRITE] = rows[0].mib_s[OP_WRITE] = 0;
	rows[0].ops[OP_WRITE] = 0;
	rows[0].p99_ns[OP_WRITE] = 0;
	rows[1].errors = UINT64_C(123456789012);
	for (unsigned i = 2; i < NROWS; i++) {
		rows[i].ops[OP_READ] = 124;
		rows[i].iops[OP_READ] = 12.4;
		rows[i].mib_s[OP_READ] = 0.05;
		rows[i].p99_ns[OP_READ] = 1000;
	}
	report_job_summary(out, CFG_FORMAT_TEXT, rows, NROWS);
	assert_int_equal(fclose(out), 0);

	line = strstr(buf, "job summary, 8 runs:\n");
	assert_non_null(line);
	line = strchr(line, '\n') + 1;
	nl = strchr(line, '\n');
	assert_non_null(nl);
	n = table_cells(line, (size_t)(nl - line), hstart, hend, NCOLS);
	assert_int_equal(n, NCOLS);
	for (unsigned c = 0; c < NCOLS; c++)
		if (hend[c] - hstart[c] != strlen(heads[c]) ||
		    strncmp(line + hstart[c], heads[c], strlen(heads[c]))) {
			print_error("header %u: \"%.*s\", want \"%s\"\n", c, (int)(hend[c] - hstart[c]),
				    line + hstart[c], heads[c]);
			bad++;
		}
	for (unsigned i = 0; i < NROWS; i++) {
		line = nl + 1;
		nl = strchr(line, '\n');
		assert_non_null(nl);
		n = table_cells(line, (size_t)(nl - line), start, end, NCOLS);
		/* The run name has a single space in it: one cell. */
		if (n != NCOLS) {
			print_error("row %u: %u cells, want %d: %.*s\n", i, n, NCOLS, (int)(nl - line),
				    line);
			bad++;
			continue;
		}
		if (start[0] != hstart[0])
			bad++, print_error("row %u: run name at %zu, header at %zu\n", i, start[0],
					   hstart[0]);
		for (unsigned c = 1; c < NCOLS; c++)
			if (end[c] != hend[c]) {
				print_error("row %u, %s: ends at %zu, its header at %zu\n%s", i, heads[c],
					    end[c], hend[c], buf);
				bad++;
			}
		snprintf(want[3], sizeof(want[3]), "%s", i == 0 ? "999 us" : i == 1 ? "-" : "1.00 us");
		snprintf(want[6], sizeof(want[6]), "%s", i == 0 ? "-" : "2.50 ms");
		snprintf(want[7], sizeof(want[7]), i == 3 ? "-" : "%.2f", 1.5 + i);
		snprintf(want[9], sizeof(want[9]), "%s", statuses[i].words);
		for (unsigned k = 0; k < sizeof(checked) / sizeof(checked[0]); k++) {
			unsigned c = checked[k];

			if (end[c] - start[c] != strlen(want[c]) ||
			    strncmp(line + start[c], want[c], strlen(want[c]))) {
				print_error("row %u, %s: \"%.*s\", want \"%s\"\n", i, heads[c],
					    (int)(end[c] - start[c]), line + start[c], want[c]);
				bad++;
			}
		}
		/* The other cells of an op type not done: '-' too. */
		for (unsigned c = i == 0 ? 4 : 1; i < 2 && c < (i == 0 ? 6u : 3u); c++)
			if (end[c] - start[c] != 1 || line[start[c]] != '-') {
				print_error("row %u, %s: \"%.*s\", want \"-\"\n", i, heads[c],
					    (int)(end[c] - start[c]), line + start[c]);
				bad++;
			}
	}
	if (!strstr(buf, "  1234567890  ") || !strstr(buf, "  4822530.8  ") ||
	    !strstr(buf, "  123456789012  ")) {
		print_error("numbers:\n%s", buf);
		bad++;
	}
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_empty),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_engine_proto),
		cmocka_unit_test(test_client_bound),
		cmocka_unit_test(test_text_notes),
		cmocka_unit_test(test_text_many_conns),
		cmocka_unit_test(test_outages_verify),
		cmocka_unit_test(test_unanswered_at_stop),
		cmocka_unit_test(test_json_ops_alias),
		cmocka_unit_test(test_job_summary),
		cmocka_unit_test(test_json_curve),
		cmocka_unit_test(test_json_state),
		cmocka_unit_test(test_text_state),
	};

	have_jq = system("jq --version >/dev/null 2>&1") == 0;
	if (!have_jq)
		fprintf(stderr, "jq not found: the JSON tests are skipped\n");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
