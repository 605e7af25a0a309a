/*
 * oplog_file: the --op-log file (see oplog_file.h): per-thread buffers
 * appended under a mutex, zstd frames for .zst, and the reader --analyze uses.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "oplog_file.h"

#define BUF_SIZE (UINT64_C(1) << 20)
/* Fast, and still about 4:1 on these rows; the workers pay for it. */
#define ZST_LEVEL 1

struct oplog {
	FILE *f;
	bool zst;
	pthread_mutex_t mu;
	int err;		/* the first write error, -errno */
};

bool oplog_path_zst(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && strcmp(path + n - 4, ".zst") == 0;
}

/* Appends n bytes under the lock; 0 or -errno. */
static int append(struct oplog *l, const void *p, size_t n)
{
	int rc;

	pthread_mutex_lock(&l->mu);
	if (!l->err && fwrite(p, 1, n, l->f) != n)
		l->err = -(errno ? errno : EIO);
	rc = l->err;
	pthread_mutex_unlock(&l->mu);
	return rc;
}

/* src as one zstd frame (frames concatenate: zstd -dc reads them in turn), appended. */
static int write_frame(struct oplog *l, void *cctx, char *zbuf, size_t zcap, const char *src,
		       size_t n)
{
	size_t z = ZSTD_compressCCtx(cctx, zbuf, zcap, src, n, ZST_LEVEL);

	if (ZSTD_isError(z))
		return -EIO;
	return append(l, zbuf, z);
}

int oplog_open(const char *path, struct oplog **out)
{
	struct oplog *l = calloc(1, sizeof(*l));
	int rc;

	*out = NULL;
	if (!l)
		return -ENOMEM;
	l->zst = oplog_path_zst(path);
	pthread_mutex_init(&l->mu, NULL);
	if (!(l->f = fopen(path, "w"))) {
		rc = -errno;
		goto fail;
	}
	if (l->zst) {
		ZSTD_CCtx *c = ZSTD_createCCtx();
		char z[256];

		rc = c ? write_frame(l, c, z, sizeof(z), OPLOG_HEADER, sizeof(OPLOG_HEADER) - 1) :
			 -ENOMEM;
		ZSTD_freeCCtx(c);
	} else {
		rc = append(l, OPLOG_HEADER, sizeof(OPLOG_HEADER) - 1);
	}
	if (rc == 0 && fflush(l->f))
		rc = -errno;
	if (rc == 0) {
		*out = l;
		return 0;
	}
	fclose(l->f);
fail:
	pthread_mutex_destroy(&l->mu);
	free(l);
	return rc;
}

int oplog_close(struct oplog *l)
{
	int rc;

	if (!l)
		return 0;
	rc = l->err;
	if (fclose(l->f) && !rc)
		rc = -(errno ? errno : EIO);
	pthread_mutex_destroy(&l->mu);
	free(l);
	return rc;
}

struct oplog_buf *oplog_buf_new(struct oplog *l)
{
	struct oplog_buf *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->log = l;
	b->cap = BUF_SIZE;
	if (!(b->buf = malloc(b->cap)))
		goto fail;
	if (l->zst) {
		b->zcap = ZSTD_compressBound(b->cap);
		if (!(b->cctx = ZSTD_createCCtx()) || !(b->zbuf = malloc(b->zcap)))
			goto fail;
	}
	return b;
fail:
	oplog_buf_free(b);
	return NULL;
}

int oplog_buf_flush(struct oplog_buf *b)
{
	size_t n = b->used;

	b->used = 0;
	if (!n)
		return 0;
	if (b->cctx)
		return write_frame(b->log, b->cctx, b->zbuf, b->zcap, b->buf, n);
	return append(b->log, b->buf, n);
}

void oplog_buf_free(struct oplog_buf *b)
{
	if (!b)
		return;
	ZSTD_freeCCtx(b->cctx);
	free(b->zbuf);
	free(b->buf);
	free(b);
}

struct oplog_reader {
	FILE *f;
	ZSTD_DCtx *dctx;
	char *in;		/* compressed bytes read, [in_pos, in_len) not yet used */
	size_t in_pos, in_len, in_cap;
	char *buf;		/* text, [pos, len) not yet parsed */
	size_t pos, len, cap;
	bool eof;
	uint64_t line;
};

int oplog_reader_open(const char *path, struct oplog_reader **out)
{
	struct oplog_reader *rd = calloc(1, sizeof(*rd));
	int rc = -ENOMEM;

	*out = NULL;
	if (!rd)
		return -ENOMEM;
	rd->cap = BUF_SIZE;
	if (!(rd->buf = malloc(rd->cap)))
		goto fail;
	if (oplog_path_zst(path)) {
		rd->in_cap = ZSTD_DStreamInSize();
		if (!(rd->dctx = ZSTD_createDCtx()) || !(rd->in = malloc(rd->in_cap)))
			goto fail;
	}
	if (!(rd->f = fopen(path, "r"))) {
		rc = -errno;
		goto fail;
	}
	*out = rd;
	return 0;
fail:
	oplog_reader_free(rd);
	return rc;
}

/* More text after buf[len]: 0 (none at the end of the file, eof set) or -EIO. */
static int fill(struct oplog_reader *rd)
{
	if (rd->pos) {
		memmove(rd->buf, rd->buf + rd->pos, rd->len - rd->pos);
		rd->len -= rd->pos;
		rd->pos = 0;
	}
	if (!rd->dctx) {
		size_t n = fread(rd->buf + rd->len, 1, rd->cap - rd->len, rd->f);

		rd->len += n;
		if (n == 0)
			rd->eof = true;
		return ferror(rd->f) ? -EIO : 0;
	}
	for (;;) {
		ZSTD_inBuffer in = { rd->in, rd->in_len, rd->in_pos };
		ZSTD_outBuffer o = { rd->buf, rd->cap, rd->len };
		size_t z;

		if (rd->in_pos == rd->in_len) {
			rd->in_len = fread(rd->in, 1, rd->in_cap, rd->f);
			rd->in_pos = 0;
			if (ferror(rd->f))
				return -EIO;
			if (rd->in_len == 0) {
				rd->eof = true;
				return 0;
			}
			in.size = rd->in_len;
			in.pos = 0;
		}
		z = ZSTD_decompressStream(rd->dctx, &o, &in);
		if (ZSTD_isError(z))
			return -EIO;
		rd->in_pos = in.pos;
		if (o.pos > rd->len) {
			rd->len = o.pos;
			return 0;
		}
	}
}

int oplog_reader_next(struct oplog_reader *rd, struct oplog_row *row, uint64_t *line_no)
{
	for (;;) {
		char *nl = memchr(rd->buf + rd->pos, '\n', rd->len - rd->pos);
		size_t n;
		int rc;

		if (!nl) {
			if (rd->eof) {
				if (rd->pos == rd->len)
					return 0;
				nl = rd->buf + rd->len;	/* a last line without its newline */
			} else {
				if (rd->len - rd->pos == rd->cap)
					return -EINVAL;	/* a line of 1 MiB is no row */
				if ((rc = fill(rd)) < 0)
					return rc;
				continue;
			}
		}
		n = (size_t)(nl - (rd->buf + rd->pos));
		*line_no = ++rd->line;
		rc = oplog_is_header(rd->buf + rd->pos, n) ? 1 :
		     oplog_row_parse(rd->buf + rd->pos, n, row);
		rd->pos = nl < rd->buf + rd->len ? rd->pos + n + 1 : rd->len;
		if (rc < 0)
			return rc;
		if (rc == 0)
			return 1;
	}
}

void oplog_reader_free(struct oplog_reader *rd)
{
	if (!rd)
		return;
	if (rd->f)
		fclose(rd->f);
	ZSTD_freeDCtx(rd->dctx);
	free(rd->in);
	free(rd->buf);
	free(rd);
}
