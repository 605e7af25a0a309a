/*
 * libFuzzer target: the NFSv4.1 COMPOUND reply decoders (codec/nfs4x_dec.c),
 * below the RPC header: every operation the engine decodes, the session
 * set-up's (EXCHANGE_ID, CREATE_SESSION, BIND_CONN_TO_SESSION, SEQUENCE)
 * among them. (The engine speaks no NFSv4.0: its SETCLIENTID has no
 * decoder; a 4.0 capture's replies are read as 4.1 results are, by opcode.)
 * The input:
 *
 *   byte 0: bits 0-3 the READDIR callback's stop (the entry it stops at,
 *           0: never); bit 4: each result is also read once as an opcode it
 *           is not (GETFH, or READ for a GETFH), which must be -EBADMSG;
 *   byte 1: the odd offset (1..3) of fuzz_dec.h's second copy;
 *   the rest: COMPOUND4res: status, tag, the results.
 *
 * The results are walked as the engine reads them: nfs4_dec_begin, then per
 * result nfs4_dec_op with the opcode the result claims and, on NFS4_OK (any
 * status for SETATTR), that operation's decoder; the walk stops at the first
 * failing operation, as a server does. Each walk goes through fuzz_dec_run
 * (in place, at an odd address, with bytes after it, truncated).
 * Checks, from nfs4x.h: 0 or -EBADMSG from every decoder; an opcode other
 * than the one expected is -EBADMSG, OP_ILLEGAL with NFS4ERR_OP_ILLEGAL is
 * accepted as any; a handle is at most 128 bytes; READ's data lies inside
 * the record, as long as its count, and ends where the stream is (before its
 * padding); READDIR calls its callback for no entry of a reply that is
 * garbage, returns what the callback returned when it stopped (and eof is
 * then false), gives names inside the record, at most one entry per 20
 * bytes; CREATE_SESSION's channel attributes and SEQUENCE's slots are
 * copied as sent (the hash compares them across copies).
 */
#include "fuzz_dec.h"
#include "engine/native/codec/nfs4x.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NFS4_OPS_MAX 64
#define OP4_ILLEGAL_NUM 10044
#define NFS4ERR_OP_ILLEGAL_NUM 10044
#define ENTRY4_MIN 20		/* follows, cookie, name len, bitmap len, attrs len: 5 words */
#define STOP_RC (-1000)	/* the callback's stop: no status or -errno a decoder returns */

static void check_rc(int rc)
{
	FUZZ_CHECK(rc == 0 || rc == -EBADMSG);
}

static int entry(void *arg, const char *name, uint32_t namelen, uint64_t cookie, bool is_dir)
{
	struct fuzz_dec *d = arg;
	unsigned stop = d->sel & 15;

	fuzz_dec_inside(d, name, namelen);
	fuzz_dec_hash32(d, cookie);
	fuzz_dec_hash32(d, is_dir);
	d->entries++;
	FUZZ_CHECK((uint64_t)d->entries * ENTRY4_MIN <= d->len);
	return stop && d->entries == stop ? STOP_RC : 0;
}

static int dec_readdir(XDR *x, struct fuzz_dec *d)
{
	uint8_t verf[8], verf2[8];
	bool eof = false, eof2 = true;
	u_int start = xdr_getpos(x);
	int rc, rc2;

	rc = nfs4_dec_readdir(x, verf, &eof, NULL, NULL);
	check_rc(rc);
	if (!xdr_setpos(x, start))
		abort();
	d->entries = 0;
	rc2 = nfs4_dec_readdir(x, verf2, &eof2, entry, d);
	if (rc) {
		FUZZ_CHECK(rc2 == rc && d->entries == 0);
		return rc;
	}
	if (rc2 == STOP_RC) {
		FUZZ_CHECK(d->entries == (d->sel & 15) && !eof2);
		return -EBADMSG;	/* the walk ends here, as an engine's would */
	}
	FUZZ_CHECK(rc2 == 0 && eof2 == eof && memcmp(verf, verf2, 8) == 0);
	fuzz_dec_hash(d, verf, 8);
	fuzz_dec_hash32(d, eof);
	return 0;
}

/* One operation's results after its status. */
static int results(XDR *x, struct fuzz_dec *d, uint32_t op)
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

	memset(&u, 0, sizeof(u));
	switch (op) {
	case OP4_EXCHANGE_ID:
		rc = nfs4_dec_exchange_id(x, &u.eid);
		break;
	case OP4_CREATE_SESSION:
		rc = nfs4_dec_create_session(x, &u.cs);
		break;
	case OP4_BIND_CONN_TO_SESSION:
		return nfs4_dec_bind_conn(x);
	case OP4_SEQUENCE:
		rc = nfs4_dec_sequence(x, &u.seq);
		break;
	case OP4_GETFH:
		rc = nfs4_dec_getfh(x, &u.fh);
		if (rc == 0) {
			FUZZ_CHECK(u.fh.len <= NFS_FH_MAX);
			fuzz_dec_hash(d, u.fh.data, u.fh.len);
		}
		break;
	case OP4_GETATTR:
		rc = nfs4_dec_getattr(x, &u.attr);
		break;
	case OP4_ACCESS:
		rc = nfs4_dec_access(x, &a, &b);
		if (rc == 0) {
			fuzz_dec_hash32(d, a);
			fuzz_dec_hash32(d, b);
		}
		return rc;
	case OP4_OPEN:
		rc = nfs4_dec_open(x, &u.sid);
		break;
	case OP4_CLOSE:
		rc = nfs4_dec_close(x, &u.sid);
		break;
	case OP4_READ:
		rc = nfs4_dec_read(x, &eof, &a, &p);
		if (rc == 0) {
			fuzz_dec_inside(d, p, a);
			FUZZ_CHECK((size_t)(p - d->rec) + a + xdrx_pad(a) == xdr_getpos(x));
			fuzz_dec_hash32(d, eof);
		}
		return rc;
	case OP4_WRITE:
		rc = nfs4_dec_write(x, &a, &b, verf);
		if (rc == 0) {
			fuzz_dec_hash32(d, a);
			fuzz_dec_hash32(d, b);
			fuzz_dec_hash(d, verf, 8);
		}
		return rc;
	case OP4_COMMIT:
		rc = nfs4_dec_commit(x, verf);
		if (rc == 0)
			fuzz_dec_hash(d, verf, 8);
		return rc;
	case OP4_REMOVE:
		return nfs4_dec_remove(x);
	case OP4_CREATE:
		return nfs4_dec_mkdir(x);
	case OP4_RENAME:
		return nfs4_dec_rename(x);
	case OP4_SETATTR:
		return nfs4_dec_setattr(x);
	case OP4_READDIR:
		return dec_readdir(x, d);
	default:
		return 0;	/* PUTFH, LOOKUP, SAVEFH ...: nothing past the status */
	}
	if (rc == 0)
		fuzz_dec_hash(d, &u, sizeof(u));	/* zeroed first: padding hashes the same */
	return rc;
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

		if (!fuzz_dec_peek_op(x, &op))
			return -EBADMSG;	/* fewer results than it said */
		if (d->sel & 16) {
			uint32_t other = op == OP4_GETFH ? OP4_READ : OP4_GETFH, st;
			int r = nfs4_dec_op(x, (enum nfs4_opnum)other, &st);

			FUZZ_CHECK(r == -EBADMSG || (r == 0 && op == OP4_ILLEGAL_NUM &&
						     st == NFS4ERR_OP_ILLEGAL_NUM));
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
		if (op == OP4_ILLEGAL_NUM || (opstat != NFS4_OK && op != OP4_SETATTR))
			return 0;	/* the server stopped here */
		rc = results(x, d, op);
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
	if (size < 2)
		return 0;
	fuzz_dec_run(walk, data[0], data + 2, size - 2, 1 + data[1] % 3);
	return 0;
}
