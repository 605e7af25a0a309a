/*
 * libFuzzer target: oplog_row_parse on the input as one line (--analyze
 * reads whatever file it is given), then, for a line that parsed, the row
 * formatted and parsed again.
 *
 * Checks against oplog.h:
 *  - the parser returns 0 or -EINVAL, and on success its status is
 *    NUL-terminated within status_buf, "ok" exactly when r.ok;
 *  - a formatted row fits OPLOG_ROW_MAX, ends in its only newline, and
 *    parses back to the same fields (the round trip is exact).
 */
#include "fuzz_common.h"
#include "oplog.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet_stdout();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oplog_row r, again;
	char buf[OPLOG_ROW_MAX];
	size_t n;
	int rc = oplog_row_parse((const char *)data, size, &r);

	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	if (rc)
		return 0;
	FUZZ_CHECK(memchr(r.status_buf, '\0', sizeof(r.status_buf)) != NULL);
	FUZZ_CHECK(r.status == r.status_buf);
	FUZZ_CHECK(r.ok == (strcmp(r.status, "ok") == 0));
	n = oplog_row_format(buf, &r);
	FUZZ_CHECK(n > 0 && n <= OPLOG_ROW_MAX && buf[n - 1] == '\n');
	FUZZ_CHECK(memchr(buf, '\n', n - 1) == NULL);
	FUZZ_CHECK(oplog_row_parse(buf, n - 1, &again) == 0);
	FUZZ_CHECK(again.start_ns == r.start_ns && again.thread == r.thread &&
		   again.conn == r.conn && again.file == r.file && again.op == r.op &&
		   again.offset == r.offset && again.len == r.len && again.lat_ns == r.lat_ns &&
		   again.has_wire == r.has_wire && (!r.has_wire || again.wire_ns == r.wire_ns) &&
		   again.ok == r.ok && strcmp(again.status, r.status) == 0);
	return 0;
}
