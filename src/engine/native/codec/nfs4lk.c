/*
 * nfs4lk: LOCK, LOCKT, LOCKU and FREE_STATEID on the wire (RFC 8881 18.10-18.12,
 * 18.38; RFC 5662's XDR). See nfs4lk.h.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "nfs4lk.h"
#include "nfs4x_int.h"
#include "../rpc/xdrx.h"

static bool put_stateid(XDR *x, const struct nfs4_stateid *sid)
{
	return xdrx_put32(x, sid->seqid) && xdrx_put_fixed(x, sid->other, sizeof(sid->other));
}

static bool get_stateid(XDR *x, struct nfs4_stateid *sid)
{
	return xdrx_get32(x, &sid->seqid) && xdrx_get_fixed(x, sid->other, sizeof(sid->other));
}

static bool put_owner(XDR *x, const struct nfs4_lock_owner *o)
{
	return o->owner_len <= NFS4_OPAQUE_LIMIT && xdrx_put64(x, o->clientid) &&
	       xdrx_put_opaque(x, o->owner, o->owner_len, NFS4_OPAQUE_LIMIT);
}

static bool type_ok(uint32_t locktype)
{
	return locktype >= NFS4_READ_LT && locktype <= NFS4_WRITEW_LT;
}

/* LOCK4args up to the locker: locktype, reclaim, offset, length. */
static bool put_lock_head(struct nfs4_enc *e, uint32_t locktype, bool reclaim, uint64_t offset,
			  uint64_t length)
{
	e->count++;
	return type_ok(locktype) && xdrx_put32(e->x, (uint32_t)OP4_LOCK) &&
	       xdrx_put32(e->x, locktype) && xdrx_put32(e->x, reclaim) &&
	       xdrx_put64(e->x, offset) && xdrx_put64(e->x, length);
}

bool nfs4_enc_lock_new(struct nfs4_enc *e, uint32_t locktype, bool reclaim, uint64_t offset,
		       uint64_t length, const struct nfs4_stateid *open_sid,
		       const struct nfs4_lock_owner *owner)
{
	/* locker4: new_lock_owner TRUE, open_to_lock_owner4 */
	return put_lock_head(e, locktype, reclaim, offset, length) && xdrx_put32(e->x, 1) &&
	       xdrx_put32(e->x, 0) && put_stateid(e->x, open_sid) && xdrx_put32(e->x, 0) &&
	       put_owner(e->x, owner);
}

bool nfs4_enc_lock_exist(struct nfs4_enc *e, uint32_t locktype, bool reclaim, uint64_t offset,
			 uint64_t length, const struct nfs4_stateid *lock_sid)
{
	/* locker4: new_lock_owner FALSE, exist_lock_owner4 */
	return put_lock_head(e, locktype, reclaim, offset, length) && xdrx_put32(e->x, 0) &&
	       put_stateid(e->x, lock_sid) && xdrx_put32(e->x, 0);
}

bool nfs4_enc_locku(struct nfs4_enc *e, uint32_t locktype, const struct nfs4_stateid *lock_sid,
		    uint64_t offset, uint64_t length)
{
	e->count++;
	return type_ok(locktype) && xdrx_put32(e->x, (uint32_t)OP4_LOCKU) &&
	       xdrx_put32(e->x, locktype) && xdrx_put32(e->x, 0) && put_stateid(e->x, lock_sid) &&
	       xdrx_put64(e->x, offset) && xdrx_put64(e->x, length);
}

bool nfs4_enc_lockt(struct nfs4_enc *e, uint32_t locktype, uint64_t offset, uint64_t length,
		    const struct nfs4_lock_owner *owner)
{
	e->count++;
	return type_ok(locktype) && xdrx_put32(e->x, (uint32_t)OP4_LOCKT) &&
	       xdrx_put32(e->x, locktype) && xdrx_put64(e->x, offset) &&
	       xdrx_put64(e->x, length) && put_owner(e->x, owner);
}

bool nfs4_enc_free_stateid(struct nfs4_enc *e, const struct nfs4_stateid *sid)
{
	e->count++;
	return xdrx_put32(e->x, (uint32_t)OP4_FREE_STATEID) && put_stateid(e->x, sid);
}

static int get_denied(XDR *x, struct nfs4_lock_denied *d)
{
	struct nfs4_lock_denied tmp;

	if (!d)
		d = &tmp;
	if (!xdrx_get64(x, &d->offset) || !xdrx_get64(x, &d->length) ||
	    !xdrx_get32(x, &d->locktype) || !xdrx_get64(x, &d->clientid) ||
	    !xdrx_get_opaque(x, NFS4_OPAQUE_LIMIT, &d->owner, &d->owner_len))
		return -EBADMSG;
	return 0;
}

int nfs4_dec_lock(XDR *x, uint32_t status, struct nfs4_stateid *sid,
		  struct nfs4_lock_denied *denied)
{
	if (status == NFS4_OK)
		return get_stateid(x, sid) ? 0 : -EBADMSG;
	if (status == NFS4ERR_DENIED)
		return get_denied(x, denied);
	return 0;
}

int nfs4_dec_lockt(XDR *x, uint32_t status, struct nfs4_lock_denied *denied)
{
	return status == NFS4ERR_DENIED ? get_denied(x, denied) : 0;
}

int nfs4_dec_locku(XDR *x, uint32_t status, struct nfs4_stateid *sid)
{
	if (status == NFS4_OK)
		return get_stateid(x, sid) ? 0 : -EBADMSG;
	return 0;
}
