/*
 * native_held4: a connection's held files over NFSv4.1 and 4.2 (--open-files,
 * then a replay's held slots): the OPENs set-up makes (first set-up: the first
 * open_files of them; a set-up after a lost connection: those that were open),
 * the worker's timed OPEN, CLOSE and OPEN_DOWNGRADE of one (each one COMPOUND),
 * a delegation granted though none was asked for returned at once, and what
 * lost state does to a slot. The set-up's order and teardown's CLOSEs are
 * native_v4.c's; this file encodes and reads the held calls.
 *
 * Open-owners: one per held file (engine_params.owner_per_file) or one per
 * connection, "nfsload-held-<conn>[-<i>]", never the data files' (the client's
 * own name) nor native_meta4.c's.
 */
#ifndef NFSLOAD_NATIVE_HELD4_H
#define NFSLOAD_NATIVE_HELD4_H

#include "ops.h"
#include "../native_conn.h"

/* A request native_held4 sends: OPEN, CLOSE or OPEN_DOWNGRADE of a held slot. */
static inline bool nat_held_req(const struct engine_req *req)
{
	return req->held && (req->op == OP_OPEN || req->op == OP_CLOSE ||
			     req->op == OP_OPEN_DOWNGRADE);
}

/* Makes c's held slots (engine_params.open_files + open_slots): 0 or -ENOMEM. */
int nat_held_new(struct engine_conn *c);
void nat_held_free(struct engine_conn *c);
/* The connection is dropped: every open is gone with it (those that were open are
 * re-made by the next set-up), the grace wait forgotten. */
void nat_held_drop(struct engine_conn *c);

/* Set-up: the next held slot to OPEN from c->next_held on (c->nheld: none left). */
uint32_t nat_held_next(struct engine_conn *c);
/* Set-up: the PUTFH (or PUTROOTFH, LOOKUPs), OPEN and GETFH of held slot i. */
bool nat_held_enc_setup(struct engine_conn *c, struct nfs4_enc *e, uint32_t i);
/* Set-up: held slot i's OPEN reply, after SEQUENCE: 0 (opened, or denied by another
 * client's share reservation: the slot stays closed), NFS4ERR_GRACE (> 0: to send
 * again), or < 0 (the connection fails). */
int nat_held_dec_setup(struct engine_conn *c, XDR *x, uint32_t i);
/* Set-up's held OPENs all answered: counts (held_opens, opens_remade). */
void nat_held_setup_end(struct engine_conn *c);

/* The worker's OPEN, CLOSE or OPEN_DOWNGRADE of a held slot, now: 0, -EBUSY (no slot
 * free), or -errno. done(): 0; -ENGINE_DENIED (OPEN: NFS4ERR_SHARE_DENIED); a CLOSE
 * whose open the server no longer has (BAD_STATEID, STALE_STATEID, EXPIRED,
 * ADMIN_REVOKED) 0, the slot closed all the same and state_lost counted once;
 * an OPEN_DOWNGRADE's the same: -EBADF, the slot closed. */
int nat_held_send(struct engine_conn *c, struct engine_req *req);
/* Delegations still to return (no slot was free): sent now, as slots allow. */
void nat_held_tick(struct engine_conn *c);

#endif
