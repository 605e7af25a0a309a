/*
 * nfs42x: the wire format of the NFSv4.2 operations (RFC 7862 section 15,
 * RFC 8276 section 8; the XDR is RFC 7863's and RFC 8276's), encoders and
 * decoders both: the operations are few and small. It owns only the bytes;
 * which file, stateid and range a request has, and what a result means for
 * it, belong to native_v42.c. Lengths are checked against the bytes left
 * before they are used: garbage or a short record is -EBADMSG.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "nfs42x.h"
#include "../rpc/xdrx.h"

/* ---- encoders ---- */

static bool put_op(struct nfs4_enc *e, enum nfs4_opnum op)
{
	e->count++;
	return xdrx_put32(e->x, op);
}

static bool put_stateid(XDR *x, const struct nfs4_stateid *sid)
{
	return xdrx_put32(x, sid->seqid) && xdrx_put_fixed(x, sid->other, sizeof(sid->other));
}

/* An xattr's name (component4): at most NFS42_XATTR_NAME_MAX bytes, never NULL. */
static bool put_xname(XDR *x, const char *name)
{
	return name && xdrx_put_string(x, name, NFS42_XATTR_NAME_MAX);
}

/* stateid, offset, length: ALLOCATE's and DEALLOCATE's arguments alike. */
static bool put_range(struct nfs4_enc *e, enum nfs4_opnum op, const struct nfs4_stateid *sid,
		      uint64_t offset, uint64_t length)
{
	return put_op(e, op) && put_stateid(e->x, sid) && xdrx_put64(e->x, offset) &&
	       xdrx_put64(e->x, length);
}

bool nfs42_enc_read_plus(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
			 uint32_t count)
{
	return put_op(e, OP4_READ_PLUS) && put_stateid(e->x, sid) && xdrx_put64(e->x, offset) &&
	       xdrx_put32(e->x, count);
}

bool nfs42_enc_seek(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
		    uint32_t what)
{
	return what <= NFS4_CONTENT_HOLE && put_op(e, OP4_SEEK) && put_stateid(e->x, sid) &&
	       xdrx_put64(e->x, offset) && xdrx_put32(e->x, what);
}

bool nfs42_enc_allocate(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
			uint64_t length)
{
	return put_range(e, OP4_ALLOCATE, sid, offset, length);
}

bool nfs42_enc_deallocate(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
			  uint64_t length)
{
	return put_range(e, OP4_DEALLOCATE, sid, offset, length);
}

bool nfs42_enc_io_advise(struct nfs4_enc *e, const struct nfs4_stateid *sid, uint64_t offset,
			 uint64_t count, uint32_t hints)
{
	/* iaa_count is a length4 (64 bits), unlike READ's count4 */
	return put_range(e, OP4_IO_ADVISE, sid, offset, count) &&
	       (hints ? xdrx_put32(e->x, 1) && xdrx_put32(e->x, hints) : xdrx_put32(e->x, 0));
}

/* src stateid, dst stateid, src offset, dst offset, count: COPY's and CLONE's first fields. */
static bool put_two(struct nfs4_enc *e, enum nfs4_opnum op, const struct nfs4_stateid *src,
		    const struct nfs4_stateid *dst, uint64_t src_offset, uint64_t dst_offset,
		    uint64_t count)
{
	return put_op(e, op) && put_stateid(e->x, src) && put_stateid(e->x, dst) &&
	       xdrx_put64(e->x, src_offset) && xdrx_put64(e->x, dst_offset) &&
	       xdrx_put64(e->x, count);
}

bool nfs42_enc_copy(struct nfs4_enc *e, const struct nfs4_stateid *src,
		    const struct nfs4_stateid *dst, uint64_t src_offset, uint64_t dst_offset,
		    uint64_t count, bool consecutive, bool synchronous)
{
	return put_two(e, OP4_COPY, src, dst, src_offset, dst_offset, count) &&
	       xdrx_put32(e->x, consecutive) && xdrx_put32(e->x, synchronous) &&
	       xdrx_put32(e->x, 0);	/* ca_source_server<>: this server */
}

bool nfs42_enc_clone(struct nfs4_enc *e, const struct nfs4_stateid *src,
		     const struct nfs4_stateid *dst, uint64_t src_offset, uint64_t dst_offset,
		     uint64_t count)
{
	return put_two(e, OP4_CLONE, src, dst, src_offset, dst_offset, count);
}

bool nfs42_enc_getxattr(struct nfs4_enc *e, const char *name)
{
	return name && put_op(e, OP4_GETXATTR) && put_xname(e->x, name);
}

static bool put_setxattr_head(struct nfs4_enc *e, uint32_t option, const char *name)
{
	return option <= SETXATTR4_REPLACE && name && put_op(e, OP4_SETXATTR) &&
	       xdrx_put32(e->x, option) && put_xname(e->x, name);
}

bool nfs42_enc_setxattr(struct nfs4_enc *e, uint32_t option, const char *name, const void *value,
			uint32_t len)
{
	return put_setxattr_head(e, option, name) && xdrx_put_opaque(e->x, value, len, UINT32_MAX);
}

uint8_t *nfs42_enc_setxattr_in_place(struct nfs4_enc *e, uint32_t option, const char *name,
				     uint32_t len)
{
	uint32_t pad = xdrx_pad(len);
	uint8_t *p;

	if (len > UINT32_MAX - 3 || !put_setxattr_head(e, option, name) || !xdrx_put32(e->x, len))
		return NULL;
	p = (uint8_t *)XDR_INLINE(e->x, len + pad);
	if (p)
		memset(p + len, 0, pad);
	return p;
}

bool nfs42_enc_listxattrs(struct nfs4_enc *e, uint64_t cookie, uint32_t maxcount)
{
	return put_op(e, OP4_LISTXATTRS) && xdrx_put64(e->x, cookie) && xdrx_put32(e->x, maxcount);
}

bool nfs42_enc_removexattr(struct nfs4_enc *e, const char *name)
{
	return name && put_op(e, OP4_REMOVEXATTR) && put_xname(e->x, name);
}

/* ---- decoders ---- */

static int ok(bool b)
{
	return b ? 0 : -EBADMSG;
}

static bool get_stateid(XDR *x, struct nfs4_stateid *sid)
{
	return xdrx_get32(x, &sid->seqid) && xdrx_get_fixed(x, sid->other, sizeof(sid->other));
}

/*
 * One pass over READ_PLUS's segments: checked (fn NULL) or handed to fn. pos
 * is where the range is described up to; limit its end (offset + count, at
 * most UINT64_MAX).
 */
static int read_plus_walk(XDR *x, uint64_t offset, uint32_t count, struct nfs42_read_plus_res *r,
			  int (*fn)(void *arg, const struct nfs42_seg *s), void *arg)
{
	uint64_t limit = offset > UINT64_MAX - count ? UINT64_MAX : offset + count;
	uint64_t pos = offset;
	bool inside = false;	/* a segment of the range was seen: none before it may follow */
	bool past = false;	/* a hole went past the range: nothing may follow */
	uint32_t n, i;

	if (!xdrx_get_bool(x, &r->eof) || !xdrx_get32(x, &n) || n > NFS42_READ_PLUS_SEGS_MAX)
		return -EBADMSG;
	r->nsegs = n;
	r->data = r->holes = 0;
	for (i = 0; i < n; i++) {
		struct nfs42_seg s = { 0 };
		uint64_t at, len, end;
		uint32_t dlen;
		int rc;

		if (past || !xdrx_get32(x, &s.type) || !xdrx_get64(x, &at))
			return -EBADMSG;
		if (s.type == NFS4_CONTENT_DATA) {	/* data4: where, the bytes */
			if (!xdrx_get_opaque(x, UINT32_MAX, &s.data, &dlen))
				return -EBADMSG;
			len = dlen;
		} else if (s.type == NFS4_CONTENT_HOLE) {	/* data_info4: where, how long */
			if (!xdrx_get64(x, &len))
				return -EBADMSG;
		} else {
			return -EBADMSG;
		}
		if (len > UINT64_MAX - at)
			return -EBADMSG;
		end = at + len;
		/*
		 * Wholly before the range: nothing of what was asked, skipped (as
		 * Linux's client does). nfs-ganesha 4.3 answers every READ_PLUS with
		 * one empty data segment at offset 0.
		 */
		if (at < offset && end <= offset) {
			if (inside)
				return -EBADMSG;	/* out of order */
			continue;
		}
		/* The first may start before offset (cut to it); each next where the last ended. */
		if (at > pos || (inside && at != pos))
			return -EBADMSG;
		inside = true;
		if (end > limit) {
			if (s.type == NFS4_CONTENT_DATA)
				return -EBADMSG;	/* more bytes than asked for */
			end = limit;
			past = true;
		}
		if (s.data)
			s.data += pos - at;
		s.offset = pos;
		s.length = end - pos;
		if (s.type == NFS4_CONTENT_DATA)
			r->data += s.length;
		else
			r->holes += s.length;
		pos = end;
		if (fn && (rc = fn(arg, &s)))
			return rc;
	}
	return 0;
}

int nfs42_dec_read_plus(XDR *x, uint64_t offset, uint32_t count, struct nfs42_read_plus_res *r,
			int (*fn)(void *arg, const struct nfs42_seg *s), void *arg)
{
	u_int start = xdr_getpos(x);
	int rc;

	memset(r, 0, sizeof(*r));
	/* The whole reply is checked before fn sees a segment of it. */
	rc = read_plus_walk(x, offset, count, r, NULL, NULL);
	if (rc || !fn)
		return rc;
	if (!xdr_setpos(x, start))
		return -EBADMSG;
	return read_plus_walk(x, offset, count, r, fn, arg);
}

int nfs42_dec_seek(XDR *x, struct nfs42_seek_res *r)
{
	return ok(xdrx_get_bool(x, &r->eof) && xdrx_get64(x, &r->offset));
}

int nfs42_dec_io_advise(XDR *x, uint32_t *hints)
{
	uint32_t n;

	*hints = 0;
	if (!xdrx_get32(x, &n) || (n > 0 && !xdrx_get32(x, hints)))
		return -EBADMSG;
	return ok(n == 0 || xdrx_skip32(x, n - 1));
}

static bool get_requirements(XDR *x, struct nfs42_copy_res *r)
{
	return xdrx_get_bool(x, &r->consecutive) && xdrx_get_bool(x, &r->synchronous);
}

int nfs42_dec_copy(XDR *x, uint32_t status, struct nfs42_copy_res *r)
{
	uint32_t n;

	memset(r, 0, sizeof(*r));
	if (status == NFS4ERR_OFFLOAD_NO_REQS)
		return ok(get_requirements(x, r));
	if (status != NFS4_OK)
		return 0;
	/* write_response4: wr_callback_id<1>, count, committed, verifier */
	if (!xdrx_get32(x, &n) || n > 1 || (n == 1 && !get_stateid(x, &r->callback_id)))
		return -EBADMSG;
	r->async = n == 1;
	return ok(xdrx_get64(x, &r->count) && xdrx_get32(x, &r->committed) && r->committed <= 2 &&
		  xdrx_get_fixed(x, r->verf, sizeof(r->verf)) && get_requirements(x, r));
}

int nfs42_dec_getxattr(XDR *x, const uint8_t **value, uint32_t *len)
{
	return ok(xdrx_get_opaque(x, UINT32_MAX, value, len));
}

static int get_cinfo(XDR *x, struct nfs42_cinfo *ci)
{
	return ok(xdrx_get_bool(x, &ci->atomic) && xdrx_get64(x, &ci->before) &&
		  xdrx_get64(x, &ci->after));
}

int nfs42_dec_setxattr(XDR *x, struct nfs42_cinfo *ci)
{
	return get_cinfo(x, ci);
}

int nfs42_dec_removexattr(XDR *x, struct nfs42_cinfo *ci)
{
	return get_cinfo(x, ci);
}

/* The names of a LISTXATTRS reply, each to fn unless fn is NULL. */
static int listxattrs_names(XDR *x, uint32_t n,
			    int (*fn)(void *arg, const char *name, uint32_t namelen), void *arg)
{
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *name;
		uint32_t len;
		int rc;

		if (!xdrx_get_opaque(x, NFS42_XATTR_NAME_MAX, &name, &len))
			return -EBADMSG;
		if (fn && (rc = fn(arg, (const char *)name, len)))
			return rc;
	}
	return 0;
}

int nfs42_dec_listxattrs(XDR *x, uint64_t *cookie, bool *eof, uint32_t *nnames,
			 int (*fn)(void *arg, const char *name, uint32_t namelen), void *arg)
{
	u_int start;
	int rc;

	*eof = false;
	*nnames = 0;
	if (!xdrx_get64(x, cookie) || !xdrx_get32(x, nnames) || *nnames > NFS42_LISTXATTRS_NAMES_MAX)
		return -EBADMSG;
	start = xdr_getpos(x);
	rc = listxattrs_names(x, *nnames, NULL, NULL);
	if (rc || !xdrx_get_bool(x, eof))
		return rc ? rc : -EBADMSG;
	if (!fn)
		return 0;
	if (!xdr_setpos(x, start))
		return -EBADMSG;
	rc = listxattrs_names(x, *nnames, fn, arg);
	if (rc) {
		*eof = false;	/* names were left unread */
		return rc;
	}
	return ok(xdrx_get_bool(x, eof));
}

int nfs42_errno(uint32_t stat)
{
	switch (stat) {
	case NFS4ERR_NOTSUPP:		return -EOPNOTSUPP;
	case NFS4ERR_OP_ILLEGAL:	return -ENOSYS;
	case NFS4ERR_NOXATTR:		return -ENODATA;
	case NFS4ERR_XATTR2BIG:		return -E2BIG;
	default:			return nfs4_errno(stat);
	}
}
