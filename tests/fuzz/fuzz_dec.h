/*
 * Helpers for the reply decoder targets (fuzz_nfs3.c, fuzz_nfs4.c, fuzz_gss.c):
 * one decoding run over the same bytes in several placements, each compared
 * with the first.
 *
 * A decoding is a function dec(x, d) over an XDR stream; it records what it
 * decoded in d->trace (fuzz_dec_hash, fuzz_dec_inside for pointers: their
 * offset in the record, never their address). fuzz_dec_run calls it on
 *   1. an aligned copy of exactly n bytes, in a plain xdrmem stream (as the
 *      engine reads a record);
 *   2. a copy at an odd address, in an xdrx_create stream (nfs3x.h: any
 *      alignment): the same result, trace and position;
 *   3. the same bytes followed by 8 more: a decoder reads no byte past what
 *      it consumes, so again the same result, trace and position;
 *   4. when the first run consumed pos > 0 bytes (whatever it returned),
 *      the first pos - 1 bytes only: then -EBADMSG (truncated), whatever
 *      the decoder: it needs the byte it read last.
 * and checks what every decoder promises: the position is within the bytes
 * and, on success, at a whole word.
 */
#ifndef NFSLOAD_FUZZ_DEC_H
#define NFSLOAD_FUZZ_DEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"
#include "engine/native/rpc/xdrx.h"

struct fuzz_dec {
	const uint8_t *rec;	/* the copy being decoded */
	size_t len;
	uint64_t trace;
	unsigned sel;		/* the target's choice of decoder (and its options) */
	unsigned entries;	/* readdir callbacks so far */
	bool truncated;		/* run 4: the callbacks may see less */
};

static inline void fuzz_dec_hash(struct fuzz_dec *d, const void *p, size_t n)
{
	fuzz_hash(&d->trace, p, n);
}

static inline void fuzz_dec_hash32(struct fuzz_dec *d, uint64_t v)
{
	fuzz_dec_hash(d, &v, sizeof(v));
}

/* The opcode of a COMPOUND's next result, without consuming it: false at the end. */
static inline bool fuzz_dec_peek_op(XDR *x, uint32_t *op)
{
	u_int pos = xdr_getpos(x);

	return xdrx_get32(x, op) && xdr_setpos(x, pos);
}

/* p[0..n) lies in the record: its offset and length go to the trace. */
static inline void fuzz_dec_inside(struct fuzz_dec *d, const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t where[2] = { n, 0 };

	if (n) {
		FUZZ_CHECK(b >= d->rec && n <= d->len && (size_t)(b - d->rec) <= d->len - n);
		where[1] = (uint64_t)(b - d->rec);
	}
	fuzz_dec_hash(d, where, sizeof(where));
}

typedef int (*fuzz_dec_fn)(XDR *x, struct fuzz_dec *d);

struct fuzz_dec_result {
	int rc;
	u_int pos;
	uint64_t trace;
};

/* One decoding of mem[0..n) (mem as placed by the caller). */
static inline struct fuzz_dec_result fuzz_dec_one(fuzz_dec_fn fn, unsigned sel, uint8_t *mem,
						  size_t n, bool aligned, bool truncated)
{
	struct fuzz_dec d = { .rec = mem, .len = n, .trace = FUZZ_FNV_BASIS, .sel = sel,
			      .truncated = truncated };
	struct fuzz_dec_result r;
	XDR x;

	if (aligned)
		xdrmem_create(&x, (char *)mem, (u_int)n, XDR_DECODE);
	else
		xdrx_create(&x, mem, n, XDR_DECODE);
	r.rc = fn(&x, &d);
	r.pos = xdr_getpos(&x);
	r.trace = d.trace;
	xdr_destroy(&x);
	FUZZ_CHECK(r.pos <= n);
	return r;
}

/* The four runs above over data[0..n); returns the first's result. */
static inline struct fuzz_dec_result fuzz_dec_run(fuzz_dec_fn fn, unsigned sel,
						  const uint8_t *data, size_t n, size_t odd)
{
	/* malloc'd: ASan sees a read past the copy's end */
	uint8_t *aligned = malloc(n ? n : 1), *oddmem = malloc(n + 8 + odd);
	struct fuzz_dec_result a, b;

	if (!aligned || !oddmem)
		abort();
	memcpy(aligned, data, n);
	a = fuzz_dec_one(fn, sel, aligned, n, true, false);
	if (a.rc == 0)
		FUZZ_CHECK(a.pos % 4 == 0);

	memcpy(oddmem + odd, data, n);
	b = fuzz_dec_one(fn, sel, oddmem + odd, n, false, false);
	FUZZ_CHECK(b.rc == a.rc && b.pos == a.pos && b.trace == a.trace);

	memset(oddmem + odd + n, 0xa5, 8);
	b = fuzz_dec_one(fn, sel, oddmem + odd, n + 8, false, false);
	if (a.rc != -EBADMSG)
		FUZZ_CHECK(b.rc == a.rc && b.pos == a.pos && b.trace == a.trace);

	if (a.pos > 0) {
		b = fuzz_dec_one(fn, sel, aligned, a.pos - 1, true, true);
		FUZZ_CHECK(b.rc == -EBADMSG);
	}
	free(aligned);
	free(oddmem);
	return a;
}

#endif
