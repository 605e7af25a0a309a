/*
 * nfs4x: the wire format of the NFSv4.1 COMPOUNDs the native engine sends
 * and reads (RFC 8881 section 18; the XDR is RFC 5662's). It owns only the
 * bytes: sessions, slots and what a status means for a request belong to
 * the engine (native_v4.c, slot4.c), RPC headers to rpc.c.
 *
 * Encoders (here) write into the caller's xdrmem buffer and return false
 * when it is too small. Decoders (nfs4x_dec.c) copy fixed-size fields out, point into the record
 * for data and names, never allocate, and check every length against the
 * bytes left before using it: garbage or a short record is -EBADMSG.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "nfs4x_int.h"

static bool put32(XDR *x, uint32_t v)
{
	return xdr_u_int(x, &v);
}

static bool put64(XDR *x, uint64_t v)
{
	return xdr_uint64_t(x, &v);
}

/* Fixed-length opaque (its padding included). */
static bool put_fixed(XDR *x, const void *p, uint32_t n)
{
	return xdr_opaque(x, (char *)p, n);
}

/* Variable-length opaque: length, bytes, padding. */
static bool put_opaque(XDR *x, const void *p, uint32_t n)
{
	return put32(x, n) && put_fixed(x, p, n);
}

static bool put_str(XDR *x, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n <= UINT32_MAX && put_opaque(x, s ? s : "", (uint32_t)n);
}

/* A bitmap4 of its two low words, as short as the bits set allow. */
static bool put_bitmap(XDR *x, uint32_t w0, uint32_t w1)
{
	uint32_t n = w1 ? 2 : w0 ? 1 : 0;

	return put32(x, n) && (n < 1 || put32(x, w0)) && (n < 2 || put32(x, w1));
}

/* fattr4 with the mode attribute alone. */
static bool put_fattr_mode(XDR *x, uint32_t mode)
{
	return put_bitmap(x, 0, BIT1(FATTR4_MODE)) && put32(x, 4) && put32(x, mode);
}

static bool put_stateid(XDR *x, const struct nfs4_stateid *sid)
{
	return put32(x, sid->seqid) && put_fixed(x, sid->other, sizeof(sid->other));
}

static bool put_op(struct nfs4_enc *e, enum nfs4_opnum op)
{
	e->count++;
	return put32(e->x, op);
}

bool nfs4_enc_begin(struct nfs4_enc *e, XDR *x, const char *tag)
{
	e->x = x;
	e->count = 0;
	if (!put_str(x, tag) || !put32(x, NFS4_MINOR_VERSION))
		return false;
	e->count_pos = xdr_getpos(x);
	return put32(x, 0);
}

bool nfs4_enc_end(struct nfs4_enc *e)
{
	u_int end = xdr_getpos(e->x);

	return xdr_setpos(e->x, e->count_pos) && put32(e->x, e->count) &&
	       xdr_setpos(e->x, end);
}

bool nfs4_enc_exchange_id(struct nfs4_enc *e, const uint8_t verifier[8], const void *owner,
			  uint32_t owner_len, uint32_t flags)
{
	XDR *x = e->x;

	return owner_len <= NFS4_OPAQUE_LIMIT && put_op(e, OP4_EXCHANGE_ID) &&
	       put_fixed(x, verifier, NFS4_VERIFIER_SIZE) && put_opaque(x, owner, owner_len) &&
	       put32(x, flags) && put32(x, SP4_NONE) && put32(x, 0);	/* no impl id */
}

static bool put_chan(XDR *x, const struct nfs4_chan_attrs *a)
{
	return put32(x, a->headerpadsize) && put32(x, a->maxrequestsize) &&
	       put32(x, a->maxresponsesize) && put32(x, a->maxresponsesize_cached) &&
	       put32(x, a->maxoperations) && put32(x, a->maxrequests) &&
	       put32(x, 0);	/* ca_rdma_ird<1>: none */
}

bool nfs4_enc_create_session(struct nfs4_enc *e, uint64_t clientid, uint32_t sequence,
			     const struct nfs4_chan_attrs *fore)
{
	/* The back channel is never bound (flags 0); these only have to be valid. */
	static const struct nfs4_chan_attrs back = {
		.headerpadsize = 0, .maxrequestsize = 4096, .maxresponsesize = 4096,
		.maxresponsesize_cached = 0, .maxoperations = 2, .maxrequests = 1,
	};
	XDR *x = e->x;

	return put_op(e, OP4_CREATE_SESSION) && put64(x, clientid) && put32(x, sequence) &&
	       put32(x, 0) && put_chan(x, fore) && put_chan(x, &back) &&
	       put32(x, CB_PROGRAM) && put32(x, 1) && put32(x, CB_AUTH_NONE);
}

bool nfs4_enc_destroy_session(struct nfs4_enc *e, const uint8_t sessionid[16])
{
	return put_op(e, OP4_DESTROY_SESSION) &&
	       put_fixed(e->x, sessionid, NFS4_SESSIONID_SIZE);
}

bool nfs4_enc_destroy_clientid(struct nfs4_enc *e, uint64_t clientid)
{
	return put_op(e, OP4_DESTROY_CLIENTID) && put64(e->x, clientid);
}

bool nfs4_enc_reclaim_complete(struct nfs4_enc *e)
{
	return put_op(e, OP4_RECLAIM_COMPLETE) && put32(e->x, 0);
}

bool nfs4_enc_bind_conn(struct nfs4_enc *e, const uint8_t sessionid[16])
{
	return put_op(e, OP4_BIND_CONN_TO_SESSION) &&
	       put_fixed(e->x, sessionid, NFS4_SESSIONID_SIZE) && put32(e->x, CDFC4_FORE) &&
	       put32(e->x, 0);
}

bool nfs4_enc_sequence(struct nfs4_enc *e, const uint8_t sessionid[16], uint32_t seqid,
		       uint32_t slotid, uint32_t highest_slotid, bool cachethis)
{
	XDR *x = e->x;

	return put_op(e, OP4_SEQUENCE) && put_fixed(x, sessionid, NFS4_SESSIONID_SIZE) &&
	       put32(x, seqid) && put32(x, slotid) && put32(x, highest_slotid) &&
	       put32(x, cachethis);
}

bool nfs4_enc_putrootfh(struct nfs4_enc *e)
{
	return put_op(e, OP4_PUTROOTFH);
}

bool nfs4_enc_putfh(struct nfs4_enc *e, const struct nfs_fh *fh)
{
	return fh->len <= NFS4_FHSIZE && put_op(e, OP4_PUTFH) &&
	       put_opaque(e->x, fh->data, fh->len);
}

bool nfs4_enc_getfh(struct nfs4_enc *e)
{
	return put_op(e, OP4_GETFH);
}

bool nfs4_enc_savefh(struct nfs4_enc *e)
{
	return put_op(e, OP4_SAVEFH);
}

bool nfs4_enc_restorefh(struct nfs4_enc *e)
{
	return put_op(e, OP4_RESTOREFH);
}

bool nfs4_enc_lookup(struct nfs4_enc *e, const char *name)
{
	return put_op(e, OP4_LOOKUP) && put_str(e->x, name);
}

bool nfs4_enc_lookup_path(struct nfs4_enc *e, const char *p, size_t n, uint32_t *nops)
{
	size_t i = 0, k;

	for (;;) {
		while (i < n && p[i] == '/')
			i++;
		for (k = i; k < n && p[k] != '/'; k++)
			;
		if (k == i)
			return true;
		if (k - i > NFS4_NAME_MAX || !put_op(e, OP4_LOOKUP) ||
		    !put_opaque(e->x, p + i, (uint32_t)(k - i)))
			return false;
		++*nops;
		i = k;
	}
}

bool nfs4_enc_getattr(struct nfs4_enc *e)
{
	return put_op(e, OP4_GETATTR) &&
	       put_bitmap(e->x, BIT0(FATTR4_TYPE) | BIT0(FATTR4_SIZE) | BIT0(FATTR4_FILEID),
			  BIT1(FATTR4_MODE));
}

bool nfs4_enc_access(struct nfs4_enc *e, uint32_t access)
{
	return put_op(e, OP4_ACCESS) && put32(e->x, access);
}

bool nfs4_enc_open(struct nfs4_enc *e, uint32_t seqid, uint64_t clientid, const void *owner,
		   uint32_t owner_len, const char *name, bool create, uint32_t mode)
{
	XDR *x = e->x;

	if (owner_len > NFS4_OPAQUE_LIMIT || !put_op(e, OP4_OPEN) || !put32(x, seqid) ||
	    !put32(x, OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_NO_DELEG) ||
	    !put32(x, 0) || !put64(x, clientid) || !put_opaque(x, owner, owner_len))
		return false;
	if (create) {
		if (!put32(x, OPEN4_CREATE) || !put32(x, UNCHECKED4) || !put_fattr_mode(x, mode))
			return false;
	} else if (!put32(x, OPEN4_NOCREATE)) {
		return false;
	}
	return put32(x, CLAIM_NULL) && put_str(x, name);
}

bool nfs4_enc_close(struct nfs4_enc *e, uint32_t seqid, const struct nfs4_stateid *sid)
{
	return put_op(e, OP4_CLOSE) && put32(e->x, seqid) && put_stateid(e->x, sid);
}

bool nfs4_enc_read(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
		   uint32_t count)
{
	return put_op(e, OP4_READ) && put_stateid(e->x, sid) && put64(e->x, offset) &&
	       put32(e->x, count);
}

bool nfs4_enc_write(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
		    uint32_t stable, uint32_t count)
{
	return put_op(e, OP4_WRITE) && put_stateid(e->x, sid) && put64(e->x, offset) &&
	       put32(e->x, stable) && put32(e->x, count);
}

bool nfs4_enc_commit(struct nfs4_enc *e, uint64_t offset, uint32_t count)
{
	return put_op(e, OP4_COMMIT) && put64(e->x, offset) && put32(e->x, count);
}

bool nfs4_enc_remove(struct nfs4_enc *e, const char *name)
{
	return put_op(e, OP4_REMOVE) && put_str(e->x, name);
}

bool nfs4_enc_mkdir(struct nfs4_enc *e, const char *name, uint32_t mode)
{
	return put_op(e, OP4_CREATE) && put32(e->x, NF4DIR) && put_str(e->x, name) &&
	       put_fattr_mode(e->x, mode);
}

bool nfs4_enc_rename(struct nfs4_enc *e, const char *from, const char *to)
{
	return put_op(e, OP4_RENAME) && put_str(e->x, from) && put_str(e->x, to);
}

bool nfs4_enc_setattr(struct nfs4_enc *e, const struct nfs4_stateid *sid,
		      const struct nfs_sattr *sa)
{
	static const struct nfs4_stateid anonymous;
	XDR *x = e->x;
	uint32_t w0 = 0, w1 = 0, len = 0;

	if (sa->has_size) {
		w0 |= BIT0(FATTR4_SIZE);
		len += 8;
	}
	if (sa->has_mode) {
		w1 |= BIT1(FATTR4_MODE);
		len += 4;
	}
	if (sa->has_times) {
		w1 |= BIT1(FATTR4_TIME_ACCESS_SET) | BIT1(FATTR4_TIME_MODIFY_SET);
		len += 8;
	}
	/* The values go in attribute-number order: size, mode, atime, mtime. */
	return put_op(e, OP4_SETATTR) && put_stateid(x, sid ? sid : &anonymous) &&
	       put_bitmap(x, w0, w1) && put32(x, len) &&
	       (!sa->has_size || put64(x, sa->size)) &&
	       (!sa->has_mode || put32(x, sa->mode)) &&
	       (!sa->has_times || (put32(x, SET_TO_SERVER_TIME4) &&
				   put32(x, SET_TO_SERVER_TIME4)));
}

bool nfs4_enc_readdir(struct nfs4_enc *e, uint64_t cookie, const uint8_t verf[8],
		      uint32_t dircount, uint32_t maxcount)
{
	XDR *x = e->x;

	return put_op(e, OP4_READDIR) && put64(x, cookie) &&
	       put_fixed(x, verf, NFS4_VERIFIER_SIZE) && put32(x, dircount) &&
	       put32(x, maxcount) &&
	       put_bitmap(x, BIT0(FATTR4_TYPE) | BIT0(FATTR4_RDATTR_ERROR), 0);
}
