/*
 * oplog: one row of --op-log, the record of one operation, as CSV text.
 *
 * Owns: the column list, formatting a row (the worker threads, once per
 * operation: no allocation, no locale, no printf) and parsing one back
 * (--analyze). Does not own: files, buffers, threads (oplog_file.h), or what
 * an operation's status means (the caller names it).
 *
 * Columns, in order (OPLOG_HEADER):
 *   start_ns  the operation's (intended) start, ns since the measured window began
 *   thread    worker thread
 *   conn      connection, numbered across the run
 *   file      the file's index in the work directory (--mix: its directory's)
 *   op        read, write, commit, getattr, ... (op_name)
 *   offset    byte offset (0 where an op has none)
 *   len       bytes asked for
 *   lat_ns    latency, the figure the report's histograms record
 *   wire_ns   time on the wire (--wire-time, where measured), else empty
 *   status    "ok", or the error's name as the report counts it (ETIMEDOUT, EIO,
 *             short transfer, ...)
 */
#ifndef NFSLOAD_OPLOG_H
#define NFSLOAD_OPLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "workload.h"

#define OPLOG_HEADER "start_ns,thread,conn,file,op,offset,len,lat_ns,wire_ns,status\n"
/* The longest row oplog_row_format writes, its newline included. */
#define OPLOG_ROW_MAX 256
#define OPLOG_STATUS_MAX 40

struct oplog_row {
	uint64_t start_ns;
	uint32_t thread, conn, file;
	enum op_type op;
	uint64_t offset;
	uint32_t len;
	uint64_t lat_ns;
	uint64_t wire_ns;		/* valid when has_wire */
	bool has_wire;
	bool ok;			/* succeeded: status "ok" */
	/* Formatting: the error's name when !ok (NULL: "error"). Parsing: points into
	 * status_buf. At most OPLOG_STATUS_MAX - 1 characters, no comma or newline. */
	const char *status;
	char status_buf[OPLOG_STATUS_MAX];
};

/* r as one CSV line ending in '\n' into buf (at least OPLOG_ROW_MAX bytes, not
 * NUL-terminated); returns its length. */
size_t oplog_row_format(char *buf, const struct oplog_row *r);
/*
 * One line (n bytes, without its newline; a '\r' before it is ignored) into r:
 * 0, or -EINVAL when it is not such a row (a field missing, extra or out of
 * range, an unknown op, a status that is not printable ASCII). r->status then points into r->status_buf.
 */
int oplog_row_parse(const char *line, size_t n, struct oplog_row *r);
/* Whether line (n bytes) is OPLOG_HEADER without its newline. */
bool oplog_is_header(const char *line, size_t n);

#endif
