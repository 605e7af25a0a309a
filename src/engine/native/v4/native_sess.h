/*
 * native_sess: NFSv4.1 sessions shared by several connections (trunking):
 * who creates the session, who waits for it, the requests waiting for a
 * slot, and what one member's failure does to the others. What a waiting
 * member or request does when its turn comes is the connection's nat_up
 * (bind, send_waiting).
 */
#ifndef NFSLOAD_NATIVE_SESS_H
#define NFSLOAD_NATIVE_SESS_H

#include "../native_conn.h"

/* Joins the session of connection id (one per --connections-per-session, made here). */
int nat_sess_join(struct engine_conn *c);
/* c runs on thread t from now on (attach, on the main thread, before t's loop runs):
 * it moves to its session's share for t, made here, with its slice of the slots. */
int nat_sess_thread(struct engine_conn *c, const struct engine_thread *t);
/* CREATE_SESSION granted that many slots: false (c's error set) when a session
 * that may span threads cannot give each member one. */
bool nat_sess_slots_fit(struct engine_conn *c, uint32_t granted);
/* Teardown: how many members s's group has; member k if it is on s's session, else NULL. */
unsigned nat_sess_nmembers(const struct nat_session *s);
struct engine_conn *nat_sess_member(const struct nat_session *s, unsigned k);
/* How many threads' shares s's group has in use (a session spanning threads: more than 1). */
unsigned nat_sess_nshares(const struct nat_session *s);
/* Teardown: s's client is destroyed, for every share of it. */
void nat_sess_destroyed(struct nat_session *s);
void nat_sess_leave(struct engine_conn *c);
/* Queues req on c until a slot of c's session is free: 0, or -ENOBUFS. */
int nat_sess_wait(struct engine_conn *c, struct engine_req *req);
/* Whether c's new requests must queue: others wait for a slot, or a member to bind. */
bool nat_sess_waiting(const struct engine_conn *c);
/* Sends what waits for slots, as far as slots go. */
void nat_sess_kick(struct nat_session *s);
/* c is down: its waiting requests are forgotten; a session it was creating fails. */
void nat_sess_conn_down(struct engine_conn *c);
/* The session is gone at the server: every connection on it fails (and is re-made). */
void nat_sess_fail_all(struct nat_session *s, const char *why);
/* The same for every member but keep. */
void nat_sess_fail_others(struct nat_session *s, struct engine_conn *keep, const char *why);
/* The session is up: connections waiting for it go on with their set-up. */
void nat_sess_up(struct nat_session *s);
/* For the report: sessions, connections each, slots granted (e's counts). */
void nat_sess_note(const struct nat_engine *e, const struct engine_params *cfg, char *buf, size_t len);

#endif
