/*
 * native_known: what NFSv3 set-ups on one engine thread learned from a server
 * (handles, rtmax and wtmax), so that the thread's next connections to it
 * start from there; and how a connection's set-up starts (native_known.c
 * says why).
 */
#ifndef NFSLOAD_NATIVE_KNOWN_H
#define NFSLOAD_NATIVE_KNOWN_H

#include "native_conn.h"

enum nat_known_start { KNOWN_ASK, KNOWN_WAIT, KNOWN_USE };
/* How c's set-up starts: asking the server (and maybe teaching the others),
 * waiting for the connection that asks, or from what is known (no MOUNT). */
enum nat_known_start nat_known_start(struct engine_conn *c);
/* c's set-up goes on as nat_known_start said: dials (or waits); 0 or -errno. */
int nat_known_go(struct engine_conn *c, enum nat_known_start how);
/* In an NFSv3 start with kn_use: c's handles and files from what is known. */
bool nat_known_apply(struct engine_conn *c);
/* c's set-up ended: what it learned is kept; those waiting go on. */
void nat_known_done(struct engine_conn *c, bool ok);
/* c dropped: off the waiting list; if it was learning, the next one learns. */
void nat_known_forget(struct engine_conn *c);
void nat_known_free(struct engine_thread *t);

#endif
