/*
 * oplog_file: the --op-log file, written by every worker thread and read back
 * by --analyze; zstd-compressed when its name ends in .zst.
 *
 * Owns: the file, its header line, the per-thread buffers and the lock taken
 * only to hand a full buffer to the file, and zstd (libzstd is used here and
 * nowhere else). Does not own: what goes in a row (oplog.h).
 *
 * Writing: each thread formats its rows into its own buffer (struct
 * oplog_buf) without a lock; a full buffer, about 1 MiB of rows, is
 * compressed by that thread (an independent zstd frame: frames concatenate)
 * and appended to the file under the log's mutex. A buffer belongs to one
 * thread at a time; oplog_buf_flush by another thread only once the owner
 * is joined.
 */
#ifndef NFSLOAD_OPLOG_FILE_H
#define NFSLOAD_OPLOG_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "oplog.h"

struct oplog;

/* Per-thread buffer; only its used/cap are read by oplog_add. */
struct oplog_buf {
	struct oplog *log;
	char *buf;
	size_t used, cap;
	void *cctx;		/* ZSTD_CCtx, .zst only */
	char *zbuf;
	size_t zcap;
	uint64_t rows;
};

/* Whether path names a zstd-compressed log (ends in .zst). */
bool oplog_path_zst(const char *path);
/* Creates (truncates) path and writes the header line. 0 or -errno. */
int oplog_open(const char *path, struct oplog **out);
/* Flushes nothing (the threads' buffers are flushed by their owners), closes:
 * 0, or the first write error as -errno. NULL: 0. */
int oplog_close(struct oplog *l);

/* A thread's buffer onto l. NULL: no memory. */
struct oplog_buf *oplog_buf_new(struct oplog *l);
/* Its rows to the file (the only call that locks). 0, or -errno (the log keeps the
 * first error; rows are dropped, never blocked on). */
int oplog_buf_flush(struct oplog_buf *b);
/* Frees b, whatever it holds (flush first). NULL: no-op. */
void oplog_buf_free(struct oplog_buf *b);

/* One row into the thread's buffer: no lock unless the buffer is full. */
static inline void oplog_add(struct oplog_buf *b, const struct oplog_row *r)
{
	if (b->cap - b->used < OPLOG_ROW_MAX)
		oplog_buf_flush(b);
	b->used += oplog_row_format(b->buf + b->used, r);
	b->rows++;
}

/* Reading a log back, plain or .zst (by its name), row by row. */
struct oplog_reader;
/* 0 or -errno. */
int oplog_reader_open(const char *path, struct oplog_reader **out);
/* The next row: 1, 0 at the end, -EINVAL on a line that is not a row (its number in
 * *line_no), -EIO on a read or decompression error. A header line (the first, or one
 * where logs were concatenated) is skipped. */
int oplog_reader_next(struct oplog_reader *rd, struct oplog_row *row, uint64_t *line_no);
/* NULL: no-op. */
void oplog_reader_free(struct oplog_reader *rd);

#endif
