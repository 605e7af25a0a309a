/*
 * native_comp4: an NFSv4.1 or 4.2 COMPOUND on the connection's session:
 * begun on a free slot (SEQUENCE encoded) or without one (EXCHANGE_ID,
 * CREATE_SESSION, DESTROY_CLIENTID), its SEQUENCE read back, and its slot
 * kept or given up. Every v4 request is built on it.
 */
#ifndef NFSLOAD_NATIVE_COMP4_H
#define NFSLOAD_NATIVE_COMP4_H

#include "../native_conn.h"

/* Begins a COMPOUND without SEQUENCE (the minor version the session's), its reply to
 * h; NULL when no call is free. */
struct nat_call *nat_v4_begin_plain(struct engine_conn *c, XDR *x, struct nfs4_enc *e,
				    enum nat_kind kind, const struct nat_handler *h);
/* Begins a COMPOUND on a free slot, its reply to h: SEQUENCE encoded; NULL when
 * no slot (or call) is free. */
struct nat_call *nat_v4_begin(struct engine_conn *c, XDR *x, struct nfs4_enc *e,
			      enum nat_kind kind, const struct nat_handler *h);
/* Reads the COMPOUND's header and SEQUENCE, and frees or keeps the slot:
 * 0 and the COMPOUND status in *status, or -errno (a session or wire failure). */
int nat_v4_sequence(struct engine_conn *c, struct nat_call *call, XDR *x, uint32_t *status);
/* A call's slot after no reply came (timeout, unreadable reply): never used again
 * in this session, since the server may or may not have taken its sequence id. */
void nat_v4_slot_lost(struct engine_conn *c, struct nat_call *call);
/* Every call in flight on c is lost (c dropped): their slots with them. */
void nat_v4_calls_lost(struct engine_conn *c);
/* A call's slot, the call never sent or refused before SEQUENCE: free again, same sequence id. */
void nat_v4_slot_unsent(struct engine_conn *c, struct nat_call *call);
/* A COMPOUND begun on a slot and not sent (it did not fit, or was refused before it
 * went): its buffer, its slot (free again, same sequence id) and its call given back. */
void nat_v4_unsent(struct engine_conn *c, struct nat_call *call, XDR *x);

#endif
