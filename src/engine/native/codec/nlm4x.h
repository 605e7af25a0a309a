/*
 * nlm4x: the XDR of the NLM v4 (Network Lock Manager, program 100021
 * version 4: the Open Group's XNFS, rpcsvc/nlm_prot.x) calls the native
 * engine sends for NFSv3 byte-range locks, and of their replies. Pure logic.
 *
 * Only the synchronous, non-blocking calls: NLM4_TEST, NLM4_LOCK (block
 * false, reclaim false, state 0) and NLM4_UNLOCK. Encoders append one
 * procedure's arguments to an XDR stream that rpc_start_call began and
 * return false when the buffer is too small (or a field is over its XDR
 * limit). Decoders read the results from an xdrmem stream positioned by
 * rpc_decode_reply: the nlm4_stats (>= 0) or -EBADMSG (truncated, garbage);
 * they never allocate (a holder's owner handle points into the record).
 */
#ifndef NFSLOAD_NLM4X_H
#define NFSLOAD_NLM4X_H

#include <rpc/types.h>
#include <rpc/xdr.h>
#include <stdbool.h>
#include <stdint.h>

#include "nfs3x.h"

#define NLM_PROGRAM 100021
#define NLM_V4 4
#define NLM4_MAXSTRLEN 1024	/* LM_MAXSTRLEN: caller_name */
#define NLM4_MAXNETOBJ 1024	/* MAXNETOBJ_SZ: cookie, fh, oh */

enum nlm4_proc { NLM4_NULL = 0, NLM4_TEST = 1, NLM4_LOCK = 2, NLM4_CANCEL = 3, NLM4_UNLOCK = 4 };

enum nlm4_stats {
	NLM4_GRANTED = 0,
	NLM4_DENIED = 1,		/* a conflicting lock is held */
	NLM4_DENIED_NOLOCKS = 2,	/* the server is out of resources (or its NSM failed) */
	NLM4_BLOCKED = 3,
	NLM4_DENIED_GRACE_PERIOD = 4,	/* the server is in its grace period: send again later */
	NLM4_DEADLCK = 5,
	NLM4_ROFS = 6,
	NLM4_STALE_FH = 7,
	NLM4_FBIG = 8,
	NLM4_FAILED = 9,
};

/*
 * nlm4_lock: who locks (caller_name, oh, svid: the server tells owners apart
 * by all three) which range (len 0: to the end of the file) of which file.
 */
struct nlm4_lock {
	const char *caller_name;
	const struct nfs_fh *fh;
	const uint8_t *oh;
	uint32_t oh_len;
	int32_t svid;
	uint64_t offset, len;
};

/* NLM4_TEST's answer when denied: who holds the conflicting lock. */
struct nlm4_holder {
	bool exclusive;
	int32_t svid;
	const uint8_t *oh;		/* into the record */
	uint32_t oh_len;
	uint64_t offset, len;
};

/* cookie: opaque, echoed in the reply (cookie_len <= NLM4_MAXNETOBJ). */
bool nlm4_enc_test(XDR *x, const uint8_t *cookie, uint32_t cookie_len, bool exclusive,
		   const struct nlm4_lock *lk);
/* block false, reclaim false, state 0. */
bool nlm4_enc_lock(XDR *x, const uint8_t *cookie, uint32_t cookie_len, bool exclusive,
		   const struct nlm4_lock *lk);
bool nlm4_enc_unlock(XDR *x, const uint8_t *cookie, uint32_t cookie_len,
		     const struct nlm4_lock *lk);

/* nlm4_res (LOCK, UNLOCK, CANCEL): the stat; cookie (may be NULL) into the record. */
int nlm4_dec_res(XDR *x, const uint8_t **cookie, uint32_t *cookie_len);
/* nlm4_testres: the stat; holder (may be NULL) filled when it is NLM4_DENIED. */
int nlm4_dec_testres(XDR *x, const uint8_t **cookie, uint32_t *cookie_len,
		     struct nlm4_holder *holder);

/* A status as text ("NLM4_DENIED", ...; unknown: "NLM4_?"). */
const char *nlm4_stat_name(uint32_t stat);
/* A status other than GRANTED, DENIED and DENIED_GRACE_PERIOD as -errno:
 * NOLOCKS -ENOLCK, ROFS -EROFS, STALE_FH -ESTALE, FBIG -EFBIG, any other -EIO
 * (DEADLCK too: -EDEADLK is engine.h's ENGINE_DENIED, a denial and no failure). */
int nlm4_errno(uint32_t stat);

#endif
