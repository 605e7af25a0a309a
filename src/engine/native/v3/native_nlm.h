/*
 * native_nlm: NFSv3's byte-range locks through NLM v4 (program 100021): a
 * second TCP connection per connection, to the server's NLM port, made at
 * the end of the NFSv3 set-up when --mix has lock, unlock or lockt, on the
 * same loop; --mix's LOCK, UNLOCK and LOCKT sent on it as non-blocking
 * NLM4_LOCK, NLM4_UNLOCK and NLM4_TEST, timed like any request.
 *
 * Who locks: caller_name "nfsload-<pid>" (one per run, so runs contend),
 * svid the connection's id and oh "nfsload-<pid>.<id>" (one owner per
 * connection, so connections contend). NLM4_DENIED is done(-ENGINE_DENIED);
 * NLM4_DENIED_GRACE_PERIOD is sent again after a backoff, up to 256 ms, for as
 * long as the grace lasts (at most 5 minutes; each answer counted in
 * nat_engine.grace_waits); any other refusal is -errno with the
 * connection's error saying which. A lost NLM connection fails its
 * connection (its owner counts the requests of both), and a lost connection
 * drops its NLM connection with it.
 */
#ifndef NFSLOAD_NATIVE_NLM_H
#define NFSLOAD_NATIVE_NLM_H

#include "../native_conn.h"

/* The run's connections need NLM: NFSv3 and a lock op in --mix. */
bool nat_nlm_wanted(const struct engine_params *cfg);
/*
 * The NFSv3 set-up of c ended well: with NLM wanted (and files), the NLM
 * connection is dialled and c is ready when it connects (nat_setup_done then,
 * true or false); without, c is ready at once. false: it could not be begun
 * (c's error says why).
 */
bool nat_nlm_setup_end(struct engine_conn *c);
/* LOCK, UNLOCK or LOCKT on req->file: 0 or -errno (c's error says why). */
int nat_nlm_queue(struct engine_conn *c, struct engine_req *req);
/* c's life, for its NLM connection (native_life.c): no-ops without one. */
void nat_nlm_down(struct engine_conn *c);		/* c failed: its calls forgotten */
void nat_nlm_attach(struct engine_conn *c, struct engine_thread *t);
void nat_nlm_detach(struct engine_conn *c);
void nat_nlm_tick(struct engine_conn *c, uint64_t now);
/* The end of the run: every file c sent an NLM4_LOCK on is unlocked whole (offset 0,
 * length 0: to the end), the owner's locks there with it, on a connection of its own,
 * synchronously: 0 or -errno. */
int nat_nlm_close(struct engine_conn *c);
void nat_nlm_free(struct engine_conn *c);

#endif
