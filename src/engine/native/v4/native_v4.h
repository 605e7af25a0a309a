/*
 * native_v4: a connection's NFSv4.1 or 4.2 set-up (EXCHANGE_ID, CREATE_SESSION,
 * RECLAIM_COMPLETE, the work directory, an OPEN per file), SEQUENCE and the
 * session's slots on every COMPOUND, the lease kept while idle, and the
 * teardown's calls (CLOSE, DESTROY_SESSION, DESTROY_CLIENTID).
 */
#ifndef NFSLOAD_NATIVE_V4_H
#define NFSLOAD_NATIVE_V4_H

#include "../native_conn.h"
#include "native_comp4.h"

/* From a connected socket: the session's set-up, or joining it. 0 or -errno. */
int nat_v4_start(struct engine_conn *c);
/* A waiting connection's set-up goes on (the session is up). */
bool nat_v4_bind(struct engine_conn *c);
/* About once a second on a ready connection: the lease, a session out of slots. */
void nat_v4_tick(struct engine_conn *c, uint64_t now);
/* Teardown (state NS_CLOSING, pending, next_file, close_m zero): CLOSEs the files
 * every member of the session has open, then DESTROY_SESSION, DESTROY_CLIENTID;
 * ready() says how it ended. false: a call could not be sent. */
bool nat_v4_close_files(struct engine_conn *c);
/* A request on data (native_io4.c), now or queued for a slot: c->proto->io_queue. */
int nat_io4_queue(struct engine_conn *c, struct engine_req *req);
/* Sends req now: 0, -EBUSY (no slot free), -EINVAL (not an operation on a file this
 * session has: error() says which), or -errno. */
int nat_io_send_v4(struct engine_conn *c, struct engine_req *req);

#endif
