/*
 * nlm4x: the wire layout of NLM v4's TEST, LOCK and UNLOCK (XNFS 4.x,
 * rpcsvc/nlm_prot.x): arguments out, nlm4_res and nlm4_testres in. Not the
 * RPC header (rpc.c), not what the engine makes of the answers.
 *
 * Decoders trust nothing in the record: every length is checked against
 * its XDR limit and what is left, booleans out of range are garbage.
 */
#include <errno.h>

#include "nlm4x.h"
#include "../rpc/xdrx.h"

static bool put_lock(XDR *x, const struct nlm4_lock *lk)
{
	return xdrx_put_string(x, lk->caller_name, NLM4_MAXSTRLEN) &&
	       xdrx_put_opaque(x, lk->fh->data, lk->fh->len, NLM4_MAXNETOBJ) &&
	       xdrx_put_opaque(x, lk->oh, lk->oh_len, NLM4_MAXNETOBJ) &&
	       xdrx_put32(x, (uint32_t)lk->svid) && xdrx_put64(x, lk->offset) &&
	       xdrx_put64(x, lk->len);
}

bool nlm4_enc_test(XDR *x, const uint8_t *cookie, uint32_t cookie_len, bool exclusive,
		   const struct nlm4_lock *lk)
{
	return xdrx_put_opaque(x, cookie, cookie_len, NLM4_MAXNETOBJ) &&
	       xdrx_put32(x, exclusive) && put_lock(x, lk);
}

bool nlm4_enc_lock(XDR *x, const uint8_t *cookie, uint32_t cookie_len, bool exclusive,
		   const struct nlm4_lock *lk)
{
	/* block false: a conflict is answered NLM4_DENIED at once, never NLM4_BLOCKED
	 * and a GRANTED callback later; reclaim false, state 0: no NSM state of ours. */
	return xdrx_put_opaque(x, cookie, cookie_len, NLM4_MAXNETOBJ) && xdrx_put32(x, 0) &&
	       xdrx_put32(x, exclusive) && put_lock(x, lk) && xdrx_put32(x, 0) &&
	       xdrx_put32(x, 0);
}

bool nlm4_enc_unlock(XDR *x, const uint8_t *cookie, uint32_t cookie_len,
		     const struct nlm4_lock *lk)
{
	return xdrx_put_opaque(x, cookie, cookie_len, NLM4_MAXNETOBJ) && put_lock(x, lk);
}

static int get_cookie_stat(XDR *x, const uint8_t **cookie, uint32_t *cookie_len)
{
	const uint8_t *p;
	uint32_t n, st;

	if (!xdrx_get_opaque(x, NLM4_MAXNETOBJ, &p, &n) || !xdrx_get32(x, &st) ||
	    st > NLM4_FAILED)
		return -EBADMSG;
	if (cookie)
		*cookie = p;
	if (cookie_len)
		*cookie_len = n;
	return (int)st;
}

int nlm4_dec_res(XDR *x, const uint8_t **cookie, uint32_t *cookie_len)
{
	return get_cookie_stat(x, cookie, cookie_len);
}

int nlm4_dec_testres(XDR *x, const uint8_t **cookie, uint32_t *cookie_len,
		     struct nlm4_holder *holder)
{
	struct nlm4_holder h;
	uint32_t svid;
	int st = get_cookie_stat(x, cookie, cookie_len);

	if (st != NLM4_DENIED)
		return st;
	if (!xdrx_get_bool(x, &h.exclusive) || !xdrx_get32(x, &svid) ||
	    !xdrx_get_opaque(x, NLM4_MAXNETOBJ, &h.oh, &h.oh_len) || !xdrx_get64(x, &h.offset) ||
	    !xdrx_get64(x, &h.len))
		return -EBADMSG;
	h.svid = (int32_t)svid;
	if (holder)
		*holder = h;
	return st;
}

const char *nlm4_stat_name(uint32_t stat)
{
	static const char *const names[] = {
		"NLM4_GRANTED", "NLM4_DENIED", "NLM4_DENIED_NOLOCKS", "NLM4_BLOCKED",
		"NLM4_DENIED_GRACE_PERIOD", "NLM4_DEADLCK", "NLM4_ROFS", "NLM4_STALE_FH",
		"NLM4_FBIG", "NLM4_FAILED",
	};

	return stat < sizeof(names) / sizeof(names[0]) ? names[stat] : "NLM4_?";
}

int nlm4_errno(uint32_t stat)
{
	switch (stat) {
	case NLM4_DENIED_NOLOCKS: return -ENOLCK;
	case NLM4_ROFS: return -EROFS;
	case NLM4_STALE_FH: return -ESTALE;
	case NLM4_FBIG: return -EFBIG;
	default: return -EIO;
	}
}
