/*
 * native_comp4: the COMPOUND on an NFSv4.1 session that every v4 request
 * builds on (native_comp4.h): its beginning, with or without SEQUENCE on a
 * slot, its SEQUENCE's reply, and what becomes of the slot when no reply
 * comes. Below the set-up (native_v4.c) and the requests (native_io4.c,
 * native_meta4.c, native_held4.c, native_lock4.c), calling none of them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../native_call.h"
#include "native_comp4.h"
#include "native_sess.h"

/* A COMPOUND without SEQUENCE (EXCHANGE_ID, CREATE_SESSION, DESTROY_CLIENTID). */
struct nat_call *nat_v4_begin_plain(struct engine_conn *c, XDR *x, struct nfs4_enc *e,
				    enum nat_kind kind, const struct nat_handler *h)
{
	struct nat_call *call = nat_call_start(c, x, NFS_PROGRAM, NFS_V4, NFS4_PROC_COMPOUND, kind,
					       h);

	if (call && !nfs4_enc_begin(e, x, "", c->sess->minor)) {
		xdr_destroy(x);
		nat_call_free(c, call);
		return NULL;
	}
	return call;
}

struct nat_call *nat_v4_begin(struct engine_conn *c, XDR *x, struct nfs4_enc *e,
			      enum nat_kind kind, const struct nat_handler *h)
{
	uint32_t seqid, highest;
	struct nat_call *call;
	int slot = slot4_get(&c->sess->slots, &seqid, &highest);

	if (slot < 0)
		return NULL;
	call = nat_v4_begin_plain(c, x, e, kind, h);
	if (!call) {
		slot4_put(&c->sess->slots, (uint32_t)slot, false);
		return NULL;
	}
	call->slot = (uint16_t)slot;
	if (!nfs4_enc_sequence(e, c->sess->id, seqid, (uint32_t)slot, highest, false)) {
		xdr_destroy(x);
		nat_v4_slot_unsent(c, call);
		nat_call_free(c, call);
		return NULL;
	}
	return call;
}

void nat_v4_slot_lost(struct engine_conn *c, struct nat_call *call)
{
	/* It stays taken; a session with no slot left is re-made (nat_v4_tick). */
	if (call->slot != UINT16_MAX)
		c->sess->slots_lost++;
	call->slot = UINT16_MAX;
}

void nat_v4_calls_lost(struct engine_conn *c)
{
	for (uint32_t i = 0; i < c->ncalls; i++)
		if (c->calls[i].xid)
			nat_v4_slot_lost(c, &c->calls[i]);
}

void nat_v4_slot_unsent(struct engine_conn *c, struct nat_call *call)
{
	if (call->slot != UINT16_MAX)
		slot4_put(&c->sess->slots, call->slot, false);
	call->slot = UINT16_MAX;
}

int nat_v4_sequence(struct engine_conn *c, struct nat_call *call, XDR *x, uint32_t *status)
{
	struct nfs4_sequence_res res;
	uint32_t nres, st;
	int rc;

	if ((rc = nfs4_dec_begin(x, status, &nres)) < 0 ||
	    (rc = nfs4_dec_op(x, OP4_SEQUENCE, &st)) < 0 ||
	    (st == NFS4_OK && (rc = nfs4_dec_sequence(x, &res)) < 0)) {
		nat_v4_slot_lost(c, call);
		return rc;
	}
	if (call->slot != UINT16_MAX) {
		slot4_put(&c->sess->slots, call->slot, st == NFS4_OK);
		call->slot = UINT16_MAX;
	}
	if (st == NFS4ERR_BADSESSION || st == NFS4ERR_DEADSESSION || st == NFS4ERR_BADSLOT ||
	    st == NFS4ERR_SEQ_MISORDERED || st == NFS4ERR_STALE_CLIENTID ||
	    st == NFS4ERR_EXPIRED) {
		/* The session is gone or out of step: re-made with its connections. */
		char why[80];

		snprintf(why, sizeof(why), "session lost (SEQUENCE: NFSv4 status %u)", st);
		nat_sess_fail_all(c->sess, why);
		return -ECONNRESET;
	}
	if (st != NFS4_OK)
		return nfs4_errno(st);
	slot4_update(&c->sess->slots, res.highest_slotid, res.target_highest_slotid);
	return 0;
}

void nat_v4_unsent(struct engine_conn *c, struct nat_call *call, XDR *x)
{
	xdr_destroy(x);
	nat_v4_slot_unsent(c, call);
	nat_call_free(c, call);
}
