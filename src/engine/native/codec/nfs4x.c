/*
 * nfs4x: the wire format of the NFSv4.1 COMPOUNDs the native engine sends
 * and reads (RFC 8881 section 18; the XDR is RFC 5662's). It owns only the
 * bytes: sessions, slots and what a status means for a request belong to
 * the engine (native_v4.c, slot4.c), RPC headers to rpc.c.
 *
 * Encoders (here) write into the caller's xdrmem buffer, through xdrx's
 * helpers, and return false when it is too small. Decoders (nfs4x_dec.c)
 * copy fixed-size fields out, point into the record for data and names,
 * never allocate, and check every length against the bytes left before
 * using it: garbage or a short record is -EBADMSG.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "nfs4x.h"
#include "nfs4x_int.h"
#include "../rpc/xdrx.h"

static bool put_str(XDR *x, const char *s)
{
	return xdrx_put_string(x, s ? s : "", UINT32_MAX);
}

/* A bitmap4 of its two low words, as short as the bits set allow. */
static bool put_bitmap(XDR *x, uint32_t w0, uint32_t w1)
{
	uint32_t n = w1 ? 2 : w0 ? 1 : 0;

	return xdrx_put32(x, n) && (n < 1 || xdrx_put32(x, w0)) && (n < 2 || xdrx_put32(x, w1));
}

/* fattr4 with the mode attribute alone. */
static bool put_fattr_mode(XDR *x, uint32_t mode)
{
	return put_bitmap(x, 0, BIT1(FATTR4_MODE)) && xdrx_put32(x, 4) && xdrx_put32(x, mode);
}

static bool put_stateid(XDR *x, const struct nfs4_stateid *sid)
{
	return xdrx_put32(x, sid->seqid) && xdrx_put_fixed(x, sid->other, sizeof(sid->other));
}

static bool put_op(struct nfs4_enc *e, enum nfs4_opnum op)
{
	e->count++;
	return xdrx_put32(e->x, op);
}

bool nfs4_enc_begin(struct nfs4_enc *e, XDR *x, const char *tag, uint32_t minor)
{
	e->x = x;
	e->count = 0;
	if (!put_str(x, tag) || !xdrx_put32(x, minor))
		return false;
	e->count_pos = xdr_getpos(x);
	return xdrx_put32(x, 0);
}

bool nfs4_enc_end(struct nfs4_enc *e)
{
	u_int end = xdr_getpos(e->x);

	return xdr_setpos(e->x, e->count_pos) && xdrx_put32(e->x, e->count) &&
	       xdr_setpos(e->x, end);
}

bool nfs4_enc_exchange_id(struct nfs4_enc *e, const uint8_t verifier[8], const void *owner,
			  uint32_t owner_len, uint32_t flags)
{
	XDR *x = e->x;

	return owner_len <= NFS4_OPAQUE_LIMIT && put_op(e, OP4_EXCHANGE_ID) &&
	       xdrx_put_fixed(x, verifier, NFS4_VERIFIER_SIZE) &&
	       xdrx_put_opaque(x, owner, owner_len, NFS4_OPAQUE_LIMIT) &&
	       xdrx_put32(x, flags) && xdrx_put32(x, SP4_NONE) && xdrx_put32(x, 0);	/* no impl id */
}

static bool put_chan(XDR *x, const struct nfs4_chan_attrs *a)
{
	return xdrx_put32(x, a->headerpadsize) && xdrx_put32(x, a->maxrequestsize) &&
	       xdrx_put32(x, a->maxresponsesize) && xdrx_put32(x, a->maxresponsesize_cached) &&
	       xdrx_put32(x, a->maxoperations) && xdrx_put32(x, a->maxrequests) &&
	       xdrx_put32(x, 0);	/* ca_rdma_ird<1>: none */
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

	return put_op(e, OP4_CREATE_SESSION) && xdrx_put64(x, clientid) && xdrx_put32(x, sequence) &&
	       xdrx_put32(x, 0) && put_chan(x, fore) && put_chan(x, &back) &&
	       xdrx_put32(x, CB_PROGRAM) && xdrx_put32(x, 1) && xdrx_put32(x, CB_AUTH_NONE);
}

bool nfs4_enc_destroy_session(struct nfs4_enc *e, const uint8_t sessionid[16])
{
	return put_op(e, OP4_DESTROY_SESSION) &&
	       xdrx_put_fixed(e->x, sessionid, NFS4_SESSIONID_SIZE);
}

bool nfs4_enc_destroy_clientid(struct nfs4_enc *e, uint64_t clientid)
{
	return put_op(e, OP4_DESTROY_CLIENTID) && xdrx_put64(e->x, clientid);
}

bool nfs4_enc_reclaim_complete(struct nfs4_enc *e)
{
	return put_op(e, OP4_RECLAIM_COMPLETE) && xdrx_put32(e->x, 0);
}

bool nfs4_enc_bind_conn(struct nfs4_enc *e, const uint8_t sessionid[16])
{
	return put_op(e, OP4_BIND_CONN_TO_SESSION) &&
	       xdrx_put_fixed(e->x, sessionid, NFS4_SESSIONID_SIZE) && xdrx_put32(e->x, CDFC4_FORE) &&
	       xdrx_put32(e->x, 0);
}

bool nfs4_enc_sequence(struct nfs4_enc *e, const uint8_t sessionid[16], uint32_t seqid,
		       uint32_t slotid, uint32_t highest_slotid, bool cachethis)
{
	XDR *x = e->x;

	return put_op(e, OP4_SEQUENCE) && xdrx_put_fixed(x, sessionid, NFS4_SESSIONID_SIZE) &&
	       xdrx_put32(x, seqid) && xdrx_put32(x, slotid) && xdrx_put32(x, highest_slotid) &&
	       xdrx_put32(x, cachethis);
}

bool nfs4_enc_putrootfh(struct nfs4_enc *e)
{
	return put_op(e, OP4_PUTROOTFH);
}

bool nfs4_enc_putfh(struct nfs4_enc *e, const struct nfs_fh *fh)
{
	return fh->len <= NFS4_FHSIZE && put_op(e, OP4_PUTFH) &&
	       xdrx_put_opaque(e->x, fh->data, fh->len, NFS4_FHSIZE);
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
		    !xdrx_put_opaque(e->x, p + i, (uint32_t)(k - i), NFS4_NAME_MAX))
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
	return put_op(e, OP4_ACCESS) && xdrx_put32(e->x, access);
}

bool nfs4_enc_open(struct nfs4_enc *e, uint32_t seqid, uint64_t clientid, const void *owner,
		   uint32_t owner_len, const char *name, bool create, uint32_t mode)
{
	return nfs4_enc_open_share(e, seqid, clientid, owner, owner_len, name, create, mode,
				   OPEN4_SHARE_ACCESS_BOTH, 0);
}

bool nfs4_enc_open_share(struct nfs4_enc *e, uint32_t seqid, uint64_t clientid,
			 const void *owner, uint32_t owner_len, const char *name, bool create,
			 uint32_t mode, uint32_t access, uint32_t deny)
{
	XDR *x = e->x;

	if (owner_len > NFS4_OPAQUE_LIMIT || !put_op(e, OP4_OPEN) || !xdrx_put32(x, seqid) ||
	    !xdrx_put32(x, (access & 3) | OPEN4_SHARE_ACCESS_WANT_NO_DELEG) ||
	    !xdrx_put32(x, deny & 3) || !xdrx_put64(x, clientid) ||
	    !xdrx_put_opaque(x, owner, owner_len, NFS4_OPAQUE_LIMIT))
		return false;
	if (create) {
		if (!xdrx_put32(x, OPEN4_CREATE) || !xdrx_put32(x, UNCHECKED4) || !put_fattr_mode(x, mode))
			return false;
	} else if (!xdrx_put32(x, OPEN4_NOCREATE)) {
		return false;
	}
	return xdrx_put32(x, CLAIM_NULL) && put_str(x, name);
}

bool nfs4_enc_close(struct nfs4_enc *e, uint32_t seqid, const struct nfs4_stateid *sid)
{
	return put_op(e, OP4_CLOSE) && xdrx_put32(e->x, seqid) && put_stateid(e->x, sid);
}

bool nfs4_enc_open_downgrade(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint32_t access,
			     uint32_t deny)
{
	return put_op(e, OP4_OPEN_DOWNGRADE) && put_stateid(e->x, sid) && xdrx_put32(e->x, 0) &&
	       xdrx_put32(e->x, access & 3) && xdrx_put32(e->x, deny & 3);
}

bool nfs4_enc_delegreturn(struct nfs4_enc *e, const struct nfs4_stateid *sid)
{
	return put_op(e, OP4_DELEGRETURN) && put_stateid(e->x, sid);
}

bool nfs4_enc_getattr_lease(struct nfs4_enc *e)
{
	return put_op(e, OP4_GETATTR) && put_bitmap(e->x, BIT0(FATTR4_LEASE_TIME), 0);
}

bool nfs4_enc_read(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
		   uint32_t count)
{
	return put_op(e, OP4_READ) && put_stateid(e->x, sid) && xdrx_put64(e->x, offset) &&
	       xdrx_put32(e->x, count);
}

bool nfs4_enc_write(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
		    uint32_t stable, uint32_t count)
{
	return put_op(e, OP4_WRITE) && put_stateid(e->x, sid) && xdrx_put64(e->x, offset) &&
	       xdrx_put32(e->x, stable) && xdrx_put32(e->x, count);
}

bool nfs4_enc_commit(struct nfs4_enc *e, uint64_t offset, uint32_t count)
{
	return put_op(e, OP4_COMMIT) && xdrx_put64(e->x, offset) && xdrx_put32(e->x, count);
}

bool nfs4_enc_remove(struct nfs4_enc *e, const char *name)
{
	return put_op(e, OP4_REMOVE) && put_str(e->x, name);
}

bool nfs4_enc_mkdir(struct nfs4_enc *e, const char *name, uint32_t mode)
{
	return put_op(e, OP4_CREATE) && xdrx_put32(e->x, NF4DIR) && put_str(e->x, name) &&
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
	       put_bitmap(x, w0, w1) && xdrx_put32(x, len) &&
	       (!sa->has_size || xdrx_put64(x, sa->size)) &&
	       (!sa->has_mode || xdrx_put32(x, sa->mode)) &&
	       (!sa->has_times || (xdrx_put32(x, SET_TO_SERVER_TIME4) &&
				   xdrx_put32(x, SET_TO_SERVER_TIME4)));
}

bool nfs4_enc_readdir(struct nfs4_enc *e, uint64_t cookie, const uint8_t verf[8],
		      uint32_t dircount, uint32_t maxcount)
{
	XDR *x = e->x;

	return put_op(e, OP4_READDIR) && xdrx_put64(x, cookie) &&
	       xdrx_put_fixed(x, verf, NFS4_VERIFIER_SIZE) && xdrx_put32(x, dircount) &&
	       xdrx_put32(x, maxcount) &&
	       put_bitmap(x, BIT0(FATTR4_TYPE) | BIT0(FATTR4_RDATTR_ERROR), 0);
}
