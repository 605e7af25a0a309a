/*
 * nfs4lk: the XDR of NFSv4.1's byte-range lock operations (RFC 8881 18.10
 * LOCK, 18.11 LOCKT, 18.12 LOCKU, 18.38 FREE_STATEID; the XDR is RFC 5662's),
 * over xdrx's helpers like nfs4x.h, whose COMPOUND framing they use: an
 * encoder adds one operation to a struct nfs4_enc, a decoder reads one result
 * after nfs4_dec_op gave its status. Pure logic, no allocation.
 *
 * Seqids: NFSv4.1 servers ignore open_seqid and lock_seqid (sessions give
 * exactly-once semantics, RFC 8881 8.13 and 18.10.3); the engine sends 0, as
 * it does for OPEN and CLOSE. A stateid whose seqid is 0 means "the current
 * one" (RFC 8881 8.2.2), which lets several requests on one lock stateid be
 * in flight at once without NFS4ERR_OLD_STATEID.
 */
#ifndef NFSLOAD_NFS4LK_H
#define NFSLOAD_NFS4LK_H

#include <rpc/types.h>
#include <rpc/xdr.h>
#include <stdbool.h>
#include <stdint.h>

#include "nfs4x.h"

/* Opcodes (RFC 8881 16.2), typed for nfs4_dec_op. */
#define OP4_LOCK ((enum nfs4_opnum)12)
#define OP4_LOCKT ((enum nfs4_opnum)13)
#define OP4_LOCKU ((enum nfs4_opnum)14)
#define OP4_FREE_STATEID ((enum nfs4_opnum)45)

/* nfs_lock_type4: the blocking ones (READW_LT, WRITEW_LT) are never sent. */
enum { NFS4_READ_LT = 1, NFS4_WRITE_LT = 2, NFS4_READW_LT = 3, NFS4_WRITEW_LT = 4 };

/* The statuses locks add to what the engine acts on (nfs4x.h has EXPIRED, GRACE,
 * BAD_STATEID, STALE_STATEID, ADMIN_REVOKED). */
enum nfs4lk_stat {
	NFS4ERR_DENIED = 10010,
	NFS4ERR_OLD_STATEID = 10024,
	NFS4ERR_BAD_SEQID = 10026,
	NFS4ERR_LOCK_RANGE = 10028,
	NFS4ERR_LOCKS_HELD = 10037,
	NFS4ERR_DEADLOCK = 10045,
};

/* Length "to the end of the file" (RFC 8881 18.10.3: all ones). */
#define NFS4_LOCK_TO_EOF UINT64_MAX
/* The longest lock-owner name encoded (NFS4_OPAQUE_LIMIT). */
#define NFS4LK_OWNER_MAX 1024

/* lock_owner4: clientid and an opaque name (bytes, not a string). */
struct nfs4_lock_owner {
	uint64_t clientid;
	const void *owner;
	uint32_t owner_len;
};

/* ---- encoders (false: the buffer is too small, a type not 1..4, an owner too long) ---- */

/* LOCK with open_to_lock_owner4: the lock-owner's first lock on the file, under
 * open stateid open_sid; open_seqid and lock_seqid 0. */
bool nfs4_enc_lock_new(struct nfs4_enc *e, uint32_t locktype, bool reclaim, uint64_t offset,
		       uint64_t length, const struct nfs4_stateid *open_sid,
		       const struct nfs4_lock_owner *owner);
/* LOCK with exist_lock_owner4: the lock stateid the first LOCK returned; lock_seqid 0. */
bool nfs4_enc_lock_exist(struct nfs4_enc *e, uint32_t locktype, bool reclaim, uint64_t offset,
			 uint64_t length, const struct nfs4_stateid *lock_sid);
/* LOCKU of a range under a lock stateid; seqid 0. */
bool nfs4_enc_locku(struct nfs4_enc *e, uint32_t locktype, const struct nfs4_stateid *lock_sid,
		    uint64_t offset, uint64_t length);
/* LOCKT: whether owner could lock the range. */
bool nfs4_enc_lockt(struct nfs4_enc *e, uint32_t locktype, uint64_t offset, uint64_t length,
		    const struct nfs4_lock_owner *owner);
bool nfs4_enc_free_stateid(struct nfs4_enc *e, const struct nfs4_stateid *sid);

/* ---- decoders: 0 or -EBADMSG ---- */

/* LOCK4denied: the conflicting lock. owner points into the record (owner_len bytes). */
struct nfs4_lock_denied {
	uint64_t offset, length;
	uint32_t locktype;
	uint64_t clientid;
	const uint8_t *owner;
	uint32_t owner_len;
};

/* LOCK's result after nfs4_dec_op's status: NFS4_OK the lock stateid (*sid),
 * NFS4ERR_DENIED the conflict (*denied, may be NULL), any other nothing. */
int nfs4_dec_lock(XDR *x, uint32_t status, struct nfs4_stateid *sid,
		  struct nfs4_lock_denied *denied);
/* LOCKT's: NFS4ERR_DENIED the conflict, NFS4_OK and others nothing. */
int nfs4_dec_lockt(XDR *x, uint32_t status, struct nfs4_lock_denied *denied);
/* LOCKU's: NFS4_OK the lock stateid, others nothing. */
int nfs4_dec_locku(XDR *x, uint32_t status, struct nfs4_stateid *sid);

#endif
