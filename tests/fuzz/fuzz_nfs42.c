/*
 * libFuzzer target: the NFSv4.2 result decoders (codec/nfs42x.c): READ_PLUS,
 * SEEK, IO_ADVISE, COPY, GETXATTR, SETXATTR, LISTXATTRS, REMOVEXATTR, and
 * ALLOCATE, DEALLOCATE and CLONE (nothing past their status), in COMPOUND
 * replies as the engine reads them (SEQUENCE, PUTFH, SAVEFH before them).
 * The input:
 *
 *   byte 0: bits 0-3 the callbacks' stop (READ_PLUS's segment or LISTXATTRS's
 *           name it stops at, 0: never); bit 4: each result is also read once
 *           as an opcode it is not (SEEK, or GETXATTR for a SEEK), which must
 *           be -EBADMSG;
 *   byte 1: the odd offset (1..3) of fuzz_dec.h's second copy;
 *   bytes 2..5: READ_PLUS's count asked for (big-endian, taken mod 65537);
 *   bytes 6..13: READ_PLUS's offset asked for (big-endian);
 *   the rest: COMPOUND4res: status, tag, the results.
 *
 * The results are walked by the opcode each claims: nfs4_dec_op, then on
 * NFS4_OK (COPY: also on NFS4ERR_OFFLOAD_NO_REQS) that operation's decoder;
 * the walk stops at the first failing operation or one it has no decoder
 * for. Each walk goes through fuzz_dec_run (in place, at an odd address,
 * with bytes after it, cut short).
 * Checks, from nfs42x.h: 0 or -EBADMSG from every decoder (or what a
 * callback returned to stop it); READ_PLUS hands on no segment of a reply
 * that is garbage (nor one wholly before the range); the segments it hands on
 * follow each other from the offset asked for
 * without a gap, inside the range, their lengths adding up to its data and
 * hole totals (data + holes <= count), data inside the record; the range is
 * rebuilt from them into a buffer of count bytes (ASan: nothing outside it);
 * at most NFS42_READ_PLUS_SEGS_MAX segments; LISTXATTRS's names inside the
 * record, at most 255 bytes and one per 4 bytes; GETXATTR's value inside the
 * record, ending where the stream is (before its padding); COPY's committed
 * a stable_how4.
 */
#include "fuzz_dec.h"
#include "engine/native/codec/nfs42x.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NFS4_OPS_MAX 64
#define STOP_RC (-1000)	/* the callbacks' stop: no status or -errno a decoder returns */
#define HEAD 14		/* the control bytes before the reply */

/* READ_PLUS's request, from the input's control bytes. */
static uint64_t rp_offset;
static uint32_t rp_count;

static void check_rc(int rc)
{
	FUZZ_CHECK(rc == 0 || rc == -EBADMSG);
}

struct rp_walk {
	struct fuzz_dec *d;
	uint8_t *buf;		/* count bytes: the range rebuilt */
	uint64_t pos, data, holes;
	uint32_t segs;
};

static int rp_seg(void *arg, const struct nfs42_seg *s)
{
	struct rp_walk *w = arg;
	struct fuzz_dec *d = w->d;
	unsigned stop = d->sel & 15;

	FUZZ_CHECK(s->offset == w->pos && s->offset >= rp_offset);
	FUZZ_CHECK(s->offset - rp_offset <= rp_count && s->length <= rp_count - (s->offset - rp_offset));
	if (s->type == NFS4_CONTENT_DATA) {
		FUZZ_CHECK(s->data != NULL);
		fuzz_dec_inside(d, s->data, s->length);
		memcpy(w->buf + (s->offset - rp_offset), s->data, s->length);
		w->data += s->length;
	} else {
		FUZZ_CHECK(s->type == NFS4_CONTENT_HOLE && s->data == NULL);
		memset(w->buf + (s->offset - rp_offset), 0, s->length);
		w->holes += s->length;
	}
	fuzz_dec_hash32(d, s->type);
	fuzz_dec_hash32(d, s->offset);
	fuzz_dec_hash32(d, s->length);
	w->pos += s->length;
	w->segs++;
	return stop && w->segs == stop ? STOP_RC : 0;
}

static int dec_read_plus(XDR *x, struct fuzz_dec *d)
{
	struct nfs42_read_plus_res r, r2;
	struct rp_walk w = { .d = d, .pos = rp_offset };
	u_int start = xdr_getpos(x);
	int rc, rc2;

	rc = nfs42_dec_read_plus(x, rp_offset, rp_count, &r, NULL, NULL);
	check_rc(rc);
	if (!xdr_setpos(x, start))
		abort();
	w.buf = malloc(rp_count ? rp_count : 1);
	if (!w.buf)
		abort();
	rc2 = nfs42_dec_read_plus(x, rp_offset, rp_count, &r2, rp_seg, &w);
	free(w.buf);
	if (rc) {
		FUZZ_CHECK(rc2 == rc && w.segs == 0);
		return rc;
	}
	FUZZ_CHECK(r.nsegs <= NFS42_READ_PLUS_SEGS_MAX);
	FUZZ_CHECK(r.data <= rp_count && r.holes <= rp_count - r.data);
	if (rc2 == STOP_RC) {
		FUZZ_CHECK(w.segs == (d->sel & 15));
		return -EBADMSG;	/* the walk ends here, as an engine's would */
	}
	FUZZ_CHECK(rc2 == 0 && w.segs <= r.nsegs && w.data == r.data && w.holes == r.holes);
	FUZZ_CHECK(r2.eof == r.eof && r2.nsegs == r.nsegs && r2.data == r.data &&
		   r2.holes == r.holes);
	fuzz_dec_hash32(d, r.eof);
	fuzz_dec_hash32(d, r.data);
	fuzz_dec_hash32(d, r.holes);
	return 0;
}

static int lx_name(void *arg, const char *name, uint32_t len)
{
	struct fuzz_dec *d = arg;
	unsigned stop = d->sel & 15;

	FUZZ_CHECK(len <= NFS42_XATTR_NAME_MAX);
	fuzz_dec_inside(d, name, len);
	d->entries++;
	FUZZ_CHECK((uint64_t)d->entries * 4 <= d->len);
	return stop && d->entries == stop ? STOP_RC : 0;
}

static int dec_listxattrs(XDR *x, struct fuzz_dec *d)
{
	uint64_t cookie, cookie2;
	uint32_t n, n2;
	bool eof, eof2;
	u_int start = xdr_getpos(x);
	int rc, rc2;

	rc = nfs42_dec_listxattrs(x, &cookie, &eof, &n, NULL, NULL);
	check_rc(rc);
	if (!xdr_setpos(x, start))
		abort();
	d->entries = 0;
	rc2 = nfs42_dec_listxattrs(x, &cookie2, &eof2, &n2, lx_name, d);
	if (rc) {
		FUZZ_CHECK(rc2 == rc && d->entries == 0);
		return rc;
	}
	FUZZ_CHECK(n <= NFS42_LISTXATTRS_NAMES_MAX && n2 == n && cookie2 == cookie);
	if (rc2 == STOP_RC) {
		FUZZ_CHECK(d->entries == (d->sel & 15) && !eof2);
		return -EBADMSG;
	}
	FUZZ_CHECK(rc2 == 0 && d->entries == n && eof2 == eof);
	fuzz_dec_hash32(d, cookie);
	fuzz_dec_hash32(d, eof);
	return 0;
}

/* One operation's results after its status. */
static int results(XDR *x, struct fuzz_dec *d, uint32_t op, uint32_t status)
{
	union {
		struct nfs4_sequence_res seq;
		struct nfs42_seek_res seek;
		struct nfs42_copy_res copy;
		struct nfs42_cinfo ci;
	} u;
	const uint8_t *p;
	uint32_t a;
	int rc;

	memset(&u, 0, sizeof(u));
	switch (op) {
	case OP4_SEQUENCE:
		rc = nfs4_dec_sequence(x, &u.seq);
		break;
	case OP4_READ_PLUS:
		return dec_read_plus(x, d);
	case OP4_SEEK:
		rc = nfs42_dec_seek(x, &u.seek);
		break;
	case OP4_IO_ADVISE:
		rc = nfs42_dec_io_advise(x, &a);
		if (rc == 0)
			fuzz_dec_hash32(d, a);
		return rc;
	case OP4_COPY:
		rc = nfs42_dec_copy(x, status, &u.copy);
		if (rc == 0)
			FUZZ_CHECK(u.copy.committed <= 2);
		break;
	case OP4_GETXATTR:
		rc = nfs42_dec_getxattr(x, &p, &a);
		if (rc == 0) {
			fuzz_dec_inside(d, p, a);
			FUZZ_CHECK((size_t)(p - d->rec) + a + xdrx_pad(a) == xdr_getpos(x));
		}
		return rc;
	case OP4_SETXATTR:
		rc = nfs42_dec_setxattr(x, &u.ci);
		break;
	case OP4_REMOVEXATTR:
		rc = nfs42_dec_removexattr(x, &u.ci);
		break;
	case OP4_LISTXATTRS:
		return dec_listxattrs(x, d);
	default:
		return 0;	/* PUTFH, SAVEFH, ALLOCATE, DEALLOCATE, CLONE: status only */
	}
	if (rc == 0)
		fuzz_dec_hash(d, &u, sizeof(u));	/* zeroed first: padding hashes the same */
	return rc;
}

static bool known(uint32_t op)
{
	switch (op) {
	case OP4_SEQUENCE: case OP4_PUTFH: case OP4_PUTROOTFH: case OP4_SAVEFH: case OP4_RESTOREFH:
	case OP4_READ_PLUS: case OP4_SEEK: case OP4_ALLOCATE: case OP4_DEALLOCATE:
	case OP4_IO_ADVISE: case OP4_COPY: case OP4_CLONE: case OP4_GETXATTR: case OP4_SETXATTR:
	case OP4_LISTXATTRS: case OP4_REMOVEXATTR:
		return true;
	default:
		return false;
	}
}

static int walk(XDR *x, struct fuzz_dec *d)
{
	uint32_t status, n, op, opstat;
	int rc = nfs4_dec_begin(x, &status, &n);

	check_rc(rc);
	fuzz_dec_hash32(d, (uint64_t)(int64_t)rc);
	if (rc)
		return rc;
	fuzz_dec_hash32(d, status);
	for (uint32_t i = 0; i < n && i < NFS4_OPS_MAX; i++) {
		u_int at = xdr_getpos(x);
		bool more;

		if (!fuzz_dec_peek_op(x, &op))
			return -EBADMSG;	/* fewer results than it said */
		if (d->sel & 16) {
			uint32_t other = op == OP4_SEEK ? OP4_GETXATTR : OP4_SEEK, st;
			int r = nfs4_dec_op(x, (enum nfs4_opnum)other, &st);

			FUZZ_CHECK(r == -EBADMSG || (r == 0 && op == OP4_ILLEGAL &&
						     st == NFS4ERR_OP_ILLEGAL));
			if (!xdr_setpos(x, at))
				abort();
		}
		rc = nfs4_dec_op(x, (enum nfs4_opnum)op, &opstat);
		check_rc(rc);
		fuzz_dec_hash32(d, (uint64_t)(int64_t)rc);
		if (rc)
			return rc;
		fuzz_dec_hash32(d, op);
		fuzz_dec_hash32(d, opstat);
		fuzz_dec_hash32(d, nfs42_errno(opstat));
		more = opstat == NFS4_OK || (op == OP4_COPY && opstat == NFS4ERR_OFFLOAD_NO_REQS);
		if (op == OP4_ILLEGAL || !more || !known(op))
			return 0;	/* the server stopped here, or nothing here reads it */
		rc = results(x, d, op, opstat);
		check_rc(rc);
		fuzz_dec_hash32(d, (uint64_t)(int64_t)rc);
		fuzz_dec_hash32(d, xdr_getpos(x));
		if (rc || opstat != NFS4_OK)
			return rc;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < HEAD)
		return 0;
	rp_count = xdrx_be32(data + 2) % 65537;
	rp_offset = xdrx_be64(data + 6);
	fuzz_dec_run(walk, data[0], data + HEAD, size - HEAD, 1 + data[1] % 3);
	return 0;
}
