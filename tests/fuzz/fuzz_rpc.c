/*
 * libFuzzer target: the native engine's reading side. The input is a
 * server's byte stream, preceded by two control bytes:
 *
 *   byte 0: how the stream is cut into chunks (each in a buffer of exactly
 *           its size): bits 0-5 a chunk size (0: one chunk), bit 6 sizes
 *           that vary, bit 7 chunks at an odd address;
 *   byte 1: bits 0-4 which results decoder reads each record after its
 *           reply header (nfs3x's, mnt3_dec_mnt, an NFSv4 COMPOUND walked
 *           op by op, or xdrx's helpers themselves, each picked by a word
 *           of the record), bits 5-6 the odd offset (1..3) of the record's
 *           second copy, bit 7 a record limit of 256 bytes.
 *
 * Each record rpc_rec_feed completes goes through rpc_decode_reply and, when
 * that is SUCCESS, the chosen decoder: in place (a plain xdrmem stream, as
 * the engine reads it), then from a copy at an odd address (an xdrx_create
 * stream). Checks: return values are the ones the headers allow; records
 * are 4-byte aligned and within the limit; data and names the decoders
 * return lie inside the record; both copies give the same results at the
 * same offsets; and the records (and the final return) are the same as when
 * the stream is fed in one chunk.
 */
#include <stdbool.h>
#include <stddef.h>

#include "fuzz_common.h"
#include "engine/native/codec/nfs3x.h"
#include "engine/native/codec/nfs4x.h"
#include "engine/native/rpc/rpc.h"
#include "engine/native/rpc/xdrx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SMALL_MAX 256
#define NFS4_OPS_MAX 64		/* results walked in one COMPOUND */
#define OP4_ILLEGAL_NUM 10044	/* a server's answer to an opcode it does not know */
#define XDR_STEPS_MAX 64		/* helper calls in one DEC_XDR walk */

enum { DEC_MNT, DEC_GETATTR, DEC_LOOKUP, DEC_ACCESS, DEC_READ, DEC_WRITE, DEC_COMMIT,
       DEC_CREATE, DEC_WCC, DEC_FSINFO, DEC_READDIRPLUS, DEC_COMPOUND, DEC_XDR, DEC_COUNT };

struct run {
	bool decode;		/* false: the reference feed, records only */
	unsigned decoder;
	size_t odd;		/* the second copy's offset, 1..3 */
	size_t max;
	uint64_t hash;		/* of the records' lengths and bytes, in order */
	unsigned records;
	const uint8_t *rec;	/* the record being decoded (or its copy) */
	size_t len;
	unsigned entries;
	uint64_t trace;		/* of one decoding's results and where they lie */
};

/* p[0..n) lies in the record; its offset and length go to the trace. */
static void check_inside(struct run *r, const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t where[2] = { n, 0 };

	if (n) {
		FUZZ_CHECK(b >= r->rec && n <= r->len && b - r->rec <= (ptrdiff_t)(r->len - n));
		where[1] = (uint64_t)(b - r->rec);
	}
	fuzz_hash(&r->trace, where, sizeof(where));
}

/* A result and the stream's position after it, to the trace. */
static void trace(struct run *r, int rc, XDR *x)
{
	uint64_t v[2] = { (uint64_t)(int64_t)rc, xdr_getpos(x) };

	FUZZ_CHECK(v[1] <= r->len);
	fuzz_hash(&r->trace, v, sizeof(v));
}

static int entry(void *arg, const char *name, uint32_t namelen, uint64_t cookie, bool is_dir)
{
	struct run *r = arg;

	check_inside(r, name, namelen);
	fuzz_hash(&r->trace, &cookie, sizeof(cookie));
	fuzz_hash(&r->trace, &is_dir, sizeof(is_dir));
	/* a non-zero return stops the walk and comes back from the decoder */
	return ++r->entries == 100 ? 7 : 0;
}

static void check_nfs3(int rc)
{
	FUZZ_CHECK(rc >= 0 || rc == -EBADMSG);
}

static void check_nfs4(int rc)
{
	FUZZ_CHECK(rc == 0 || rc == -EBADMSG);
}

/* The opcode of the next result, without consuming it: false at the end. */
static bool peek_op(XDR *x, uint32_t *op)
{
	u_int pos = xdr_getpos(x), u;

	if (!xdr_u_int(x, &u))
		return false;
	*op = u;
	return xdr_setpos(x, pos);
}

/* One operation's results after its status (NFS4_OK, or any for SETATTR). */
static int nfs4_results(XDR *x, struct run *r, uint32_t op)
{
	union {
		struct nfs4_exchange_id_res eid;
		struct nfs4_create_session_res cs;
		struct nfs4_sequence_res seq;
		struct nfs_fh fh;
		struct nfs_attr attr;
		struct nfs4_stateid sid;
	} u;
	uint8_t verf[8];
	uint32_t a, b;
	bool eof;
	const uint8_t *p;
	int rc;

	switch (op) {
	case OP4_EXCHANGE_ID:
		return nfs4_dec_exchange_id(x, &u.eid);
	case OP4_CREATE_SESSION:
		return nfs4_dec_create_session(x, &u.cs);
	case OP4_BIND_CONN_TO_SESSION:
		return nfs4_dec_bind_conn(x);
	case OP4_SEQUENCE:
		return nfs4_dec_sequence(x, &u.seq);
	case OP4_GETFH:
		rc = nfs4_dec_getfh(x, &u.fh);
		FUZZ_CHECK(rc || u.fh.len <= NFS_FH_MAX);
		return rc;
	case OP4_GETATTR:
		return nfs4_dec_getattr(x, &u.attr);
	case OP4_ACCESS:
		return nfs4_dec_access(x, &a, &b);
	case OP4_OPEN:
		return nfs4_dec_open(x, &u.sid);
	case OP4_CLOSE:
		return nfs4_dec_close(x, &u.sid);
	case OP4_READ:
		rc = nfs4_dec_read(x, &eof, &a, &p);
		if (!rc)
			check_inside(r, p, a);
		return rc;
	case OP4_WRITE:
		return nfs4_dec_write(x, &a, &b, verf);
	case OP4_COMMIT:
		return nfs4_dec_commit(x, verf);
	case OP4_REMOVE:
		return nfs4_dec_remove(x);
	case OP4_CREATE:
		return nfs4_dec_mkdir(x);
	case OP4_RENAME:
		return nfs4_dec_rename(x);
	case OP4_SETATTR:
		return nfs4_dec_setattr(x);
	case OP4_READDIR:
		r->entries = 0;
		rc = nfs4_dec_readdir(x, verf, &eof, entry, r);
		FUZZ_CHECK(rc == 0 || rc == -EBADMSG || rc == 7);
		return rc ? -EBADMSG : 0;
	default:
		return 0;	/* PUTFH, LOOKUP, SAVEFH ...: nothing past the status */
	}
}

/* A COMPOUND reply, each result read as the opcode it claims to be. */
static void decode_compound(XDR *x, struct run *r)
{
	uint32_t status, n, op, opstat;
	int rc = nfs4_dec_begin(x, &status, &n);

	check_nfs4(rc);
	for (uint32_t i = 0; !rc && i < n && i < NFS4_OPS_MAX && peek_op(x, &op); i++) {
		rc = nfs4_dec_op(x, (enum nfs4_opnum)op, &opstat);
		check_nfs4(rc);
		trace(r, rc, x);
		if (rc)
			break;
		if (opstat != NFS4_OK && op != OP4_SETATTR)
			break;
		rc = nfs4_results(x, r, op);
		check_nfs4(rc);
		trace(r, rc, x);
		if (opstat != NFS4_OK)
			break;
	}
	/* an opcode other than the one expected is garbage */
	if (xdr_setpos(x, 0)) {
		struct rpc_reply rep;

		if (rpc_decode_reply(x, &rep) == 0 && nfs4_dec_begin(x, &status, &n) == 0 &&
		    n && peek_op(x, &op) && op != OP4_GETFH && op != OP4_ILLEGAL_NUM)
			FUZZ_CHECK(nfs4_dec_op(x, OP4_GETFH, &opstat) == -EBADMSG);
	}
}

static void decode_nfs3(XDR *x, struct run *r)
{
	struct nfs_fh fh;
	struct nfs_attr attr;
	struct nfs3_fsinfo fi;
	enum nfs3_stable stable;
	uint8_t verf[8];
	uint32_t a;
	bool b;
	const uint8_t *p;
	int rc;

	switch (r->decoder) {
	case DEC_MNT:
		rc = mnt3_dec_mnt(x, &fh, NULL);
		FUZZ_CHECK(rc || fh.len <= NFS_FH_MAX);
		break;
	case DEC_GETATTR:
		rc = nfs3_dec_getattr(x, &attr);
		break;
	case DEC_LOOKUP:
		rc = nfs3_dec_lookup(x, &fh, &attr);
		FUZZ_CHECK(rc || fh.len <= NFS_FH_MAX);
		break;
	case DEC_ACCESS:
		rc = nfs3_dec_access(x, &a);
		break;
	case DEC_READ:
		rc = nfs3_dec_read(x, &a, &b, &p);
		if (!rc)
			check_inside(r, p, a);
		break;
	case DEC_WRITE:
		rc = nfs3_dec_write(x, &a, &stable, verf);
		break;
	case DEC_COMMIT:
		rc = nfs3_dec_commit(x, verf);
		break;
	case DEC_CREATE:
		rc = nfs3_dec_create(x, &b, &fh);
		FUZZ_CHECK(rc || !b || fh.len <= NFS_FH_MAX);
		break;
	case DEC_WCC:
		rc = nfs3_dec_wcc(x);
		break;
	case DEC_FSINFO:
		rc = nfs3_dec_fsinfo(x, &fi);
		break;
	default:
		r->entries = 0;
		rc = nfs3_dec_readdirplus(x, verf, &b, (r->records & 1) ? entry : NULL, r);
		break;
	}
	check_nfs3(rc);
	trace(r, rc, x);
}

/*
 * xdrx's readers themselves, in an order the record chooses: each word's
 * low 3 bits pick one, its other bits give the length or limit it takes.
 * A reader that succeeds moved by whole words; one that fails ends the walk.
 */
static void decode_xdr(XDR *x, struct run *r)
{
	for (unsigned i = 0; i < XDR_STEPS_MAX; i++) {
		uint32_t w, n, v32;
		uint64_t v64;
		uint8_t buf[64];
		const uint8_t *p;
		u_int before;
		bool ok, b;

		if (!xdrx_get32(x, &w))
			break;
		n = w >> 3;
		before = xdr_getpos(x);
		switch (w & 7) {
		case 0:
			ok = xdrx_get32(x, &v32);
			break;
		case 1:
			ok = xdrx_get64(x, &v64);
			break;
		case 2:
			ok = xdrx_get_bool(x, &b);
			FUZZ_CHECK(!ok || b == (xdrx_be32(r->rec + before) == 1));
			break;
		case 3:
			ok = (p = xdrx_take(x, n)) != NULL;
			if (ok)
				check_inside(r, p, n);
			break;
		case 4:
			ok = xdrx_get_opaque(x, n, &p, &v32);
			if (ok) {
				FUZZ_CHECK(v32 <= n);
				check_inside(r, p, v32);
			}
			break;
		case 5:
			ok = xdrx_skip_opaque(x, n);
			break;
		case 6:
			ok = xdrx_get_fixed(x, buf, n % sizeof(buf));
			if (ok)
				fuzz_hash(&r->trace, buf, n % sizeof(buf));
			break;
		default:
			ok = xdrx_skip32(x, n);
			break;
		}
		trace(r, ok, x);
		if (!ok)
			break;
		FUZZ_CHECK(xdr_getpos(x) >= before && (xdr_getpos(x) - before) % 4 == 0);
	}
}

static void decode_results(XDR *x, struct run *r)
{
	if (r->decoder == DEC_COMPOUND)
		decode_compound(x, r);
	else if (r->decoder == DEC_XDR)
		decode_xdr(x, r);
	else
		decode_nfs3(x, r);
	FUZZ_CHECK(xdr_getpos(x) <= r->len);
}

/* The record again from a copy at an odd address: the same results, at the same offsets. */
static void decode_copy(const uint8_t *rec, size_t len, struct run *r)
{
	uint64_t in_place = r->trace;
	struct rpc_reply rep;
	uint8_t *mem = malloc(len + r->odd);
	XDR x;

	if (!mem)
		abort();
	memcpy(mem + r->odd, rec, len);
	r->rec = mem + r->odd;
	r->trace = FUZZ_FNV_BASIS;
	xdrx_create(&x, mem + r->odd, len, XDR_DECODE);
	FUZZ_CHECK(rpc_decode_reply(&x, &rep) == 0);
	decode_results(&x, r);
	FUZZ_CHECK(r->trace == in_place);
	free(mem);
	r->rec = rec;
}

static int on_record(void *arg, const uint8_t *rec, size_t len)
{
	struct run *r = arg;
	struct rpc_reply rep;
	uint64_t n = len;
	uint32_t xid;
	XDR x;
	int rc;

	FUZZ_CHECK(len <= r->max);
	FUZZ_CHECK(((uintptr_t)rec & 3) == 0);
	fuzz_hash(&r->hash, &n, sizeof(n));
	fuzz_hash(&r->hash, rec, len);
	r->records++;
	if (!r->decode)
		return 0;

	r->rec = rec;
	r->len = len;
	xdrmem_create(&x, (char *)rec, (u_int)len, XDR_DECODE);
	rc = rpc_decode_reply(&x, &rep);
	FUZZ_CHECK(rc == 0 || rc == -EBADMSG);
	if (rc)
		return 0;
	FUZZ_CHECK(rpc_peek_xid(rec, len, &xid) && xid == rep.xid);
	FUZZ_CHECK(rep.stat == RPC_REPLY_OK || rep.stat == RPC_REPLY_DENIED ||
		   rep.stat == RPC_REPLY_ERROR);
	rc = rpc_reply_errno(&rep);
	FUZZ_CHECK((rep.stat == RPC_REPLY_OK) == (rc == 0));
	FUZZ_CHECK(rc == 0 || rc == -EACCES || rc == -EPROTONOSUPPORT || rc == -EOPNOTSUPP ||
		   rc == -EBADMSG || rc == -EIO);
	if (rep.stat != RPC_REPLY_OK)
		return 0;
	r->trace = FUZZ_FNV_BASIS;
	decode_results(&x, r);
	decode_copy(rec, len, r);
	return 0;
}

/* Feeds the stream in chunks as byte 0 says; returns rpc_rec_feed's first non-zero. */
static int feed(struct run *r, uint8_t how, const uint8_t *p, size_t n)
{
	struct rpc_rec rec;
	size_t base = how & 63, odd = how >> 7, i = 0;
	int rc = 0;

	rpc_rec_init(&rec, r->max);
	while (n && !rc) {
		size_t take = base ? base : n;
		uint8_t *b;

		if ((how & 64) && base)
			take = (i % 3 == 0) ? base : (i % 3 == 1) ? 1 : 2 * base + 3;
		if (take > n)
			take = n;
		b = malloc(take + odd);
		if (!b)
			abort();
		memcpy(b + odd, p, take);
		rc = rpc_rec_feed(&rec, b + odd, take, on_record, r);
		free(b);
		p += take;
		n -= take;
		i++;
	}
	FUZZ_CHECK(rc == 0 || rc == -EBADMSG);
	rpc_rec_destroy(&rec);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run chunked = { .hash = FUZZ_FNV_BASIS }, whole = { .hash = FUZZ_FNV_BASIS };
	int rc_chunked, rc_whole;

	if (size < 2)
		return 0;
	chunked.decode = true;
	chunked.decoder = (data[1] & 31) % DEC_COUNT;
	chunked.odd = 1 + (size_t)((data[1] >> 5) & 3) % 3;
	chunked.max = whole.max = (data[1] & 128) ? SMALL_MAX : RPC_RECORD_MAX;
	rc_chunked = feed(&chunked, data[0], data + 2, size - 2);
	rc_whole = feed(&whole, 0, data + 2, size - 2);
	FUZZ_CHECK(rc_chunked == rc_whole);
	FUZZ_CHECK(chunked.records == whole.records);
	FUZZ_CHECK(chunked.hash == whole.hash);
	return 0;
}
