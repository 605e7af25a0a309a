/*
 * oplog unit tests: an --op-log row formatted and parsed back, the header,
 * lines that are not rows, and a log written through per-thread buffers
 * (plain and .zst) read back row for row.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oplog.h"
#include "oplog_file.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_format(void **state)
{
	struct oplog_row r = { .start_ns = 1234567890123, .thread = 1, .conn = 17, .file = 3,
			       .op = OP_WRITE, .offset = UINT64_C(68719476736), .len = 4096,
			       .lat_ns = 812345, .wire_ns = 500001, .has_wire = true, .ok = true };
	char buf[OPLOG_ROW_MAX + 1];
	size_t n;

	(void)state;
	n = oplog_row_format(buf, &r);
	buf[n] = '\0';
	assert_string_equal(buf, "1234567890123,1,17,3,write,68719476736,4096,812345,500001,ok\n");
	r = (struct oplog_row){ .op = OP_READ, .lat_ns = 5000000000, .status = "ETIMEDOUT" };
	n = oplog_row_format(buf, &r);
	buf[n] = '\0';
	assert_string_equal(buf, "0,0,0,0,read,0,0,5000000000,,ETIMEDOUT\n");
	/* Nothing a caller names breaks the columns. */
	r.status = "short, transfer";
	n = oplog_row_format(buf, &r);
	buf[n] = '\0';
	assert_string_equal(buf, "0,0,0,0,read,0,0,5000000000,,short  transfer\n");
	/* The widest row fits. */
	r = (struct oplog_row){ .start_ns = UINT64_MAX, .thread = UINT32_MAX, .conn = UINT32_MAX,
				.file = UINT32_MAX, .op = OP_READDIR, .offset = UINT64_MAX,
				.len = UINT32_MAX, .lat_ns = UINT64_MAX, .wire_ns = UINT64_MAX,
				.has_wire = true, .status = "0123456789012345678901234567890123456789xx" };
	assert_true(oplog_row_format(buf, &r) <= OPLOG_ROW_MAX);
}

static void test_round_trip(void **state)
{
	const struct oplog_row rows[] = {
		{ .start_ns = 1, .thread = 0, .conn = 0, .op = OP_READ, .offset = 4096,
		  .len = 4096, .lat_ns = 31900, .ok = true },
		{ .start_ns = UINT64_MAX, .thread = 7, .conn = 65535, .file = 999999,
		  .op = OP_COMMIT, .offset = UINT64_MAX, .len = UINT32_MAX, .lat_ns = UINT64_MAX,
		  .wire_ns = 0, .has_wire = true, .ok = true },
		{ .start_ns = 9, .op = OP_RENAME, .lat_ns = 7, .status = "short transfer" },
		{ .start_ns = 9, .op = OP_OPEN, .lat_ns = 7, .status = "ECONNABORTED" },
	};
	char buf[OPLOG_ROW_MAX];
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < N(rows); i++) {
		const struct oplog_row *w = &rows[i];
		struct oplog_row g;
		size_t n = oplog_row_format(buf, w);
		int rc = oplog_row_parse(buf, n - 1, &g);

		if (rc || g.start_ns != w->start_ns || g.thread != w->thread || g.conn != w->conn ||
		    g.file != w->file || g.op != w->op || g.offset != w->offset || g.len != w->len ||
		    g.lat_ns != w->lat_ns || g.has_wire != w->has_wire ||
		    (w->has_wire && g.wire_ns != w->wire_ns) || g.ok != w->ok ||
		    strcmp(g.status, w->ok ? "ok" : w->status)) {
			print_error("row %zu: '%.*s' parsed rc %d as start %" PRIu64 " op %d lat %"
				    PRIu64 " status '%s' ok %d\n", i, (int)n - 1, buf, rc, g.start_ns,
				    (int)g.op, g.lat_ns, rc ? "" : g.status, g.ok);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"",
		"1,2,3,4,read,5,6,7,,",		/* no status */
		"1,2,3,4,read,5,6,7,ok",	/* a column short */
		"1,2,3,4,read,5,6,7,,ok,x",	/* one too many */
		"1,2,3,4,frobnicate,5,6,7,,ok",
		"-1,2,3,4,read,5,6,7,,ok",
		"1,2,3,4,read,5,6,,,ok",	/* no latency */
		"1,4294967296,3,4,read,5,6,7,,ok",	/* thread past 32 bits */
		"1,2,3,4,read,5,4294967296,7,,ok",
		"18446744073709551616,2,3,4,read,5,6,7,,ok",
		"1,2,3,4,read,5,6,7,1x,ok",
		"1 ,2,3,4,read,5,6,7,,ok",
		"1,2,3,4,read,5,6,7,,o\rk",	/* a status is printable ASCII */
		"1,2,3,4,read,5,6,7,,\x9d",
		OPLOG_HEADER,
	};
	struct oplog_row r;
	int wrong = 0;

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		int rc = oplog_row_parse(bad[i], strlen(bad[i]), &r);

		if (rc != -EINVAL) {
			print_error("'%s': rc %d, want -EINVAL\n", bad[i], rc);
			wrong++;
		}
	}
	assert_int_equal(wrong, 0);
	assert_int_equal(oplog_row_parse("1,2,3,4,read,5,6,7,,ok\r", 23, &r), 0);
	assert_true(r.ok);
	assert_true(oplog_is_header(OPLOG_HEADER, sizeof(OPLOG_HEADER) - 2));
	assert_false(oplog_is_header(OPLOG_HEADER, sizeof(OPLOG_HEADER) - 3));
}

/* rows rows through two buffers, flushed in turn; read back and counted. */
static void write_read(const char *path, unsigned nrows)
{
	struct oplog *l;
	struct oplog_buf *b[2];
	struct oplog_reader *rd;
	struct oplog_row r;
	uint64_t line = 0, got = 0, lat_sum = 0, want_sum = 0;
	int rc;

	assert_int_equal(oplog_open(path, &l), 0);
	b[0] = oplog_buf_new(l);
	b[1] = oplog_buf_new(l);
	assert_non_null(b[0]);
	assert_non_null(b[1]);
	for (unsigned i = 0; i < nrows; i++) {
		r = (struct oplog_row){ .start_ns = i, .thread = i % 2, .conn = i % 5,
					.op = i % 3 ? OP_READ : OP_WRITE, .len = 4096,
					.lat_ns = 1000 + i, .ok = i % 100 != 0, .status = "EIO" };
		want_sum += r.lat_ns;
		oplog_add(b[i % 2], &r);
	}
	assert_int_equal(oplog_buf_flush(b[0]), 0);
	assert_int_equal(oplog_buf_flush(b[1]), 0);
	oplog_buf_free(b[0]);
	oplog_buf_free(b[1]);
	assert_int_equal(oplog_close(l), 0);
	assert_int_equal(oplog_reader_open(path, &rd), 0);
	while ((rc = oplog_reader_next(rd, &r, &line)) == 1) {
		got++;
		lat_sum += r.lat_ns;
	}
	assert_int_equal(rc, 0);
	oplog_reader_free(rd);
	if (got != nrows || lat_sum != want_sum)
		print_error("%s: %" PRIu64 " rows (want %u), latency sum %" PRIu64 " (want %" PRIu64
			    ")\n", path, got, nrows, lat_sum, want_sum);
	assert_int_equal(got, nrows);
	assert_int_equal(lat_sum, want_sum);
	unlink(path);
}

static void test_file(void **state)
{
	char plain[] = "/tmp/test_oplog_XXXXXX", zst[64];
	int fd = mkstemp(plain);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(zst, sizeof(zst), "%s.zst", plain);
	assert_true(oplog_path_zst(zst));
	assert_false(oplog_path_zst(plain));
	write_read(plain, 100000);	/* several buffers' worth */
	write_read(zst, 100000);
	write_read(plain, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
