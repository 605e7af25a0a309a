/*
 * rpc: ONC RPC (RFC 5531) for the native engine, over libtirpc's XDR:
 * record marking (reassembly of records from stream chunks), call headers
 * with AUTH_SYS, and reply headers. Pure logic, no I/O.
 *
 * A call is encoded into the caller's buffer: 4 bytes are left for the
 * record mark, then the call header, then the procedure's arguments (the
 * caller's nfs3x/nfs4x encoders, same XDR stream); rpc_finish_call writes
 * the mark. A WRITE's data is not copied into the buffer: the arguments
 * end with the data's length and the caller sends buffer, data and
 * rpc_pad(len) zero bytes as one record (rpc_finish_call is given the
 * extra length). The words are written and read with xdrx.h's helpers.
 */
#ifndef NFSLOAD_RPC_H
#define NFSLOAD_RPC_H

#include <rpc/types.h>
#include <rpc/xdr.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdrx.h"

#define RPC_MARK_LEN 4
/* The largest record the engine takes (a 1 MiB READ reply, headers, slack): larger is an error. */
#define RPC_RECORD_MAX ((4u << 20) + 65536)

/* AUTH_SYS credential (RFC 5531 section 14). */
struct rpc_cred {
	uint32_t stamp;
	char machine[65];	/* NUL-terminated, at most 64 bytes sent */
	uint32_t uid, gid;
};

/* Starts a call in buf: xdrmem over buf[0..len), the mark's 4 bytes skipped, then
 * xid, CALL, RPC version 2, prog, vers, proc, AUTH_SYS cred (or AUTH_NONE if cred
 * is NULL), AUTH_NONE verifier. false if buf is too small. */
bool rpc_start_call(XDR *x, void *buf, size_t len, uint32_t xid, uint32_t prog,
		    uint32_t vers, uint32_t proc, const struct rpc_cred *cred);
/* Writes the record mark (last fragment) for the bytes encoded in x plus extra
 * bytes the caller sends after them (a WRITE's data and its padding). Returns the
 * length of buf to send (mark included, extra not included). */
size_t rpc_finish_call(XDR *x, void *buf, uint32_t extra);
/* Zero bytes that follow n bytes of opaque data (0..3). */
static inline uint32_t rpc_pad(uint32_t n)
{
	return xdrx_pad(n);
}

/* A reply's header. */
enum rpc_reply_stat {
	RPC_REPLY_OK,		/* accepted, SUCCESS: x is at the procedure's results */
	RPC_REPLY_DENIED,	/* MSG_DENIED (RPC_MISMATCH or AUTH_ERROR, in detail) */
	RPC_REPLY_ERROR,	/* accepted but not SUCCESS (PROG_UNAVAIL ... SYSTEM_ERR, in detail) */
};
struct rpc_reply {
	uint32_t xid;
	enum rpc_reply_stat stat;
	uint32_t detail;	/* accept_stat, or reject_stat/auth_stat: DENIED with 0 is
				 * RPC_MISMATCH, else AUTH_ERROR's auth_stat (never 0) */
	uint32_t low, high;	/* PROG_MISMATCH, RPC_MISMATCH: the versions supported */
	uint32_t verf_flavor;	/* accepted: the verifier's flavor, its body's place and size */
	uint32_t verf_pos, verf_len;
};

/* Reads the xid of a record (its first 4 bytes): false if shorter. */
bool rpc_peek_xid(const uint8_t *rec, size_t len, uint32_t *xid);
/* Decodes a reply header from x (xdrmem over one whole record, mark removed):
 * 0, or -EBADMSG (not a reply, truncated, garbage). */
int rpc_decode_reply(XDR *x, struct rpc_reply *r);
/* The reply status as -errno: 0, -EACCES (auth), -EPROTONOSUPPORT (program or
 * version unavailable, mismatch), -EOPNOTSUPP (procedure), -EBADMSG (garbage
 * args), -EIO (system error). */
int rpc_reply_errno(const struct rpc_reply *r);

/*
 * Record reassembly for one connection. Bytes arrive in chunks of any size;
 * each complete record (all fragments joined, marks removed) goes to fn.
 * A record that arrives whole in one chunk is passed in place (no copy);
 * otherwise it is gathered in buf (one copy). Either way the record is
 * 4-byte aligned, as xdrmem needs for XDR_INLINE: a record that would be
 * unaligned in place is gathered.
 */
struct rpc_rec {
	uint8_t *buf;		/* the record being gathered */
	size_t cap, len;	/* buf's size, bytes in it */
	uint32_t frag_left;	/* bytes of the current fragment still to come */
	uint8_t mark[4];	/* a mark split across chunks */
	unsigned mark_have;	/* 0..3 bytes of it so far; 4: in a fragment */
	bool last;		/* the current fragment is the record's last */
	size_t rest;		/* in fn: bytes of the chunk fed after the record's end */
	size_t max;		/* records larger than this are an error */
};

void rpc_rec_init(struct rpc_rec *r, size_t max);
void rpc_rec_destroy(struct rpc_rec *r);
/* Forgets a partial record (after a reconnect). */
void rpc_rec_reset(struct rpc_rec *r);
/* Frees a small gather buffer while no record is partial (after a feed). */
void rpc_rec_trim(struct rpc_rec *r);
/*
 * Feeds n bytes. Calls fn(arg, record, len) for each record completed; a
 * non-zero return from fn stops and is returned. -EBADMSG for a record over
 * max (or a fragment making it so), -ENOMEM; after an error the stream is
 * unusable (reset before reuse). 0 otherwise.
 */
int rpc_rec_feed(struct rpc_rec *r, const uint8_t *p, size_t n,
		 int (*fn)(void *arg, const uint8_t *rec, size_t len), void *arg);

#endif
