/*
 * rpc: ONC RPC call and reply headers and record marking (RFC 5531).
 *
 * Headers are written and read with xdr_u_int and friends rather than
 * xdr_callmsg/xdr_replymsg: those allocate for opaque bodies on decode and
 * need a struct rpc_msg filled in on encode, and the engine sends and reads
 * one fixed shape. The words themselves go through xdrx (the helpers rpc.c
 * and the codecs share); skipping is done by position, which works over a
 * buffer at any alignment.
 *
 * Not here: sockets (xport), the procedures' arguments and results (nfs3x,
 * nfs4x), matching replies to calls (the engine's xid table).
 */
#include "rpc.h"
#include "xdrx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpc/auth.h>
#include <rpc/clnt.h>	/* struct rpc_err, which rpc_msg.h uses */
#include <rpc/rpc_msg.h>

#define RPC_LAST_FRAG 0x80000000u
#define RPC_FRAG_MAX 0x7fffffffu
#define RPC_MACHINE_MAX 64	/* what we send of the machine name (the protocol allows 255) */
#define RPC_GATHER_MIN 4096	/* the first gather buffer */

static bool put_auth_sys(XDR *x, const struct rpc_cred *cred)
{
	size_t n = strnlen(cred->machine, RPC_MACHINE_MAX);
	uint32_t body = 4 + 4 + (uint32_t)n + rpc_pad((uint32_t)n) + 4 + 4 + 4;

	return xdrx_put32(x, AUTH_SYS) && xdrx_put32(x, body) && xdrx_put32(x, cred->stamp) &&
	       xdrx_put_opaque(x, cred->machine, (uint32_t)n, RPC_MACHINE_MAX) &&
	       xdrx_put32(x, cred->uid) && xdrx_put32(x, cred->gid) && xdrx_put32(x, 0);
}

bool rpc_start_call(XDR *x, void *buf, size_t len, uint32_t xid, uint32_t prog,
		    uint32_t vers, uint32_t proc, const struct rpc_cred *cred)
{
	xdrx_create(x, buf, len, XDR_ENCODE);
	if (len < RPC_MARK_LEN || !xdr_setpos(x, RPC_MARK_LEN))
		return false;
	if (!xdrx_put32(x, xid) || !xdrx_put32(x, CALL) || !xdrx_put32(x, RPC_MSG_VERSION) ||
	    !xdrx_put32(x, prog) || !xdrx_put32(x, vers) || !xdrx_put32(x, proc))
		return false;
	if (cred ? !put_auth_sys(x, cred) : !(xdrx_put32(x, AUTH_NONE) && xdrx_put32(x, 0)))
		return false;
	return xdrx_put32(x, AUTH_NONE) && xdrx_put32(x, 0);
}

size_t rpc_finish_call(XDR *x, void *buf, uint32_t extra)
{
	u_int pos = xdr_getpos(x);

	xdrx_put_be32(buf, RPC_LAST_FRAG | ((pos - RPC_MARK_LEN + extra) & RPC_FRAG_MAX));
	return pos;
}

bool rpc_peek_xid(const uint8_t *rec, size_t len, uint32_t *xid)
{
	if (len < 4)
		return false;
	*xid = xdrx_be32(rec);
	return true;
}

/* Reads past an opaque_auth (flavor, body<400>): the server's verifier, noted where it is. */
static bool skip_auth(XDR *x, struct rpc_reply *r)
{
	return xdrx_get32(x, &r->verf_flavor) && xdrx_get32(x, &r->verf_len) &&
	       r->verf_len <= MAX_AUTH_BYTES && (r->verf_pos = xdr_getpos(x), true) &&
	       xdrx_skip(x, r->verf_len);
}

static int decode_accepted(XDR *x, struct rpc_reply *r)
{
	uint32_t stat;

	if (!skip_auth(x, r) || !xdrx_get32(x, &stat))
		return -EBADMSG;
	r->detail = stat;
	switch (stat) {
	case SUCCESS:
		r->stat = RPC_REPLY_OK;
		return 0;
	case PROG_MISMATCH:
		if (!xdrx_get32(x, &r->low) || !xdrx_get32(x, &r->high))
			return -EBADMSG;
		/* fall through */
	case PROG_UNAVAIL:
	case PROC_UNAVAIL:
	case GARBAGE_ARGS:
	case SYSTEM_ERR:
		r->stat = RPC_REPLY_ERROR;
		return 0;
	default:
		return -EBADMSG;
	}
}

static int decode_denied(XDR *x, struct rpc_reply *r)
{
	uint32_t stat, why;

	if (!xdrx_get32(x, &stat))
		return -EBADMSG;
	r->stat = RPC_REPLY_DENIED;
	switch (stat) {
	case RPC_MISMATCH:
		if (!xdrx_get32(x, &r->low) || !xdrx_get32(x, &r->high))
			return -EBADMSG;
		r->detail = RPC_MISMATCH;
		return 0;
	case AUTH_ERROR:
		/* AUTH_OK would read as RPC_MISMATCH in detail, and means nothing here. */
		if (!xdrx_get32(x, &why) || why == AUTH_OK)
			return -EBADMSG;
		r->detail = why;
		return 0;
	default:
		return -EBADMSG;
	}
}

int rpc_decode_reply(XDR *x, struct rpc_reply *r)
{
	uint32_t type, stat;

	memset(r, 0, sizeof(*r));
	if (!xdrx_get32(x, &r->xid) || !xdrx_get32(x, &type) || type != REPLY ||
	    !xdrx_get32(x, &stat))
		return -EBADMSG;
	switch (stat) {
	case MSG_ACCEPTED:
		return decode_accepted(x, r);
	case MSG_DENIED:
		return decode_denied(x, r);
	default:
		return -EBADMSG;
	}
}

int rpc_reply_errno(const struct rpc_reply *r)
{
	switch (r->stat) {
	case RPC_REPLY_OK:
		return 0;
	case RPC_REPLY_DENIED:
		return r->detail == RPC_MISMATCH ? -EPROTONOSUPPORT : -EACCES;
	case RPC_REPLY_ERROR:
		switch (r->detail) {
		case PROG_UNAVAIL:
		case PROG_MISMATCH:
			return -EPROTONOSUPPORT;
		case PROC_UNAVAIL:
			return -EOPNOTSUPP;
		case GARBAGE_ARGS:
			return -EBADMSG;
		default:
			return -EIO;
		}
	}
	return -EIO;
}

void rpc_rec_init(struct rpc_rec *r, size_t max)
{
	memset(r, 0, sizeof(*r));
	r->max = max;
}

void rpc_rec_destroy(struct rpc_rec *r)
{
	free(r->buf);
	rpc_rec_init(r, r->max);
}

void rpc_rec_reset(struct rpc_rec *r)
{
	r->len = 0;
	r->frag_left = 0;
	r->mark_have = 0;
	r->last = false;
}

/*
 * A gather buffer per connection adds up: 18,000 connections whose 4 KiB
 * replies are sometimes split between two receives (incremental buffers) kept
 * 8 KiB each, 72 MB per thread. A small one is cheap to make again; a large
 * one (1 MiB reads, gathered every time) is kept.
 */
#define RPC_GATHER_KEEP 65536

void rpc_rec_trim(struct rpc_rec *r)
{
	if (r->buf && r->cap <= RPC_GATHER_KEEP && !r->len && !r->mark_have) {
		free(r->buf);
		r->buf = NULL;
		r->cap = 0;
	}
}

/* Room in buf for need bytes: doubling, never past max (need <= max). */
static int reserve(struct rpc_rec *r, size_t need)
{
	size_t cap = r->cap ? r->cap : RPC_GATHER_MIN;
	uint8_t *p;

	if (need <= r->cap)
		return 0;
	while (cap < need && cap <= r->max / 2)
		cap *= 2;
	if (cap < need || cap > r->max)
		cap = need > r->max ? need : r->max;
	p = realloc(r->buf, cap);
	if (!p)
		return -ENOMEM;
	r->buf = p;
	r->cap = cap;
	return 0;
}

/*
 * A whole one-fragment record at p, at a record's start, 4-byte aligned
 * (so that XDR_INLINE works on it): its length in *len, else false.
 */
static bool whole_record(const struct rpc_rec *r, const uint8_t *p, size_t n, uint32_t *len)
{
	uint32_t mark;

	if (r->mark_have || r->len || n < RPC_MARK_LEN || ((uintptr_t)p & 3))
		return false;
	mark = xdrx_be32(p);
	*len = mark & RPC_FRAG_MAX;
	return (mark & RPC_LAST_FRAG) && *len <= n - RPC_MARK_LEN;
}

int rpc_rec_feed(struct rpc_rec *r, const uint8_t *p, size_t n,
		 int (*fn)(void *arg, const uint8_t *rec, size_t len), void *arg)
{
	static const uint32_t empty;	/* an empty gathered record, aligned */

	while (n) {
		const uint8_t *rec;
		uint32_t whole;
		size_t len, take;
		int rc;

		if (whole_record(r, p, n, &whole)) {
			if (whole > r->max)
				return -EBADMSG;
			rec = p + RPC_MARK_LEN;
			p = rec + whole;
			n -= RPC_MARK_LEN + (size_t)whole;
			r->rest = n;
			rc = fn(arg, rec, whole);
			if (rc)
				return rc;
			continue;
		}
		if (r->mark_have < RPC_MARK_LEN) {
			take = n < RPC_MARK_LEN - r->mark_have ? n : RPC_MARK_LEN - r->mark_have;
			memcpy(r->mark + r->mark_have, p, take);
			r->mark_have += (unsigned)take;
			p += take;
			n -= take;
			if (r->mark_have < RPC_MARK_LEN)
				return 0;
			r->last = r->mark[0] & 0x80;
			r->frag_left = xdrx_be32(r->mark) & RPC_FRAG_MAX;
			if (r->frag_left > r->max - r->len)
				return -EBADMSG;
			rc = reserve(r, r->len + r->frag_left);
			if (rc)
				return rc;
		}
		/* Here even when n is 0: an empty last fragment ends its record. */
		take = n < r->frag_left ? n : r->frag_left;
		if (take) {
			memcpy(r->buf + r->len, p, take);
			r->len += take;
			r->frag_left -= (uint32_t)take;
			p += take;
			n -= take;
		}
		if (r->frag_left)
			return 0;
		r->mark_have = 0;
		if (r->last) {
			/* Ready for the next record before fn, which may reset r. */
			rec = r->buf ? r->buf : (const uint8_t *)&empty;
			len = r->len;
			r->len = 0;
			r->last = false;
			r->rest = n;
			rc = fn(arg, rec, len);
			if (rc)
				return rc;
		}
	}
	return 0;
}
