/*
 * native_call: a connection's calls in flight (its call table) and its
 * socket. An xid's low bits index the table, its high bits count uses of
 * the entry: a reply that comes after its call timed out (and the entry was
 * reused) matches nothing and is dropped. A reply, or a timeout, goes to the
 * handler (struct nat_handler) the call was started with.
 */
#ifndef NFSLOAD_NATIVE_CALL_H
#define NFSLOAD_NATIVE_CALL_H

#include "native_conn.h"

/* A table of at least n calls (a power of two): 0 or -ENOMEM. */
int nat_calls_init(struct engine_conn *c, uint32_t n);
void nat_calls_destroy(struct engine_conn *c);
/* Forgets every call in flight, without callbacks. */
void nat_calls_reset(struct engine_conn *c);
/*
 * Starts a call whose reply goes to h: encodes the RPC header into the
 * thread's scratch buffer and returns the XDR stream to append arguments to,
 * or NULL when no call slot is free. nat_call_send finishes the record and
 * queues it, with extra bytes (a WRITE's data) sent from data without a copy.
 */
/* A call slot and its xid, nothing encoded (the caller writes its own header). */
struct nat_call *nat_call_take(struct engine_conn *c, enum nat_kind kind,
			       const struct nat_handler *h);
struct nat_call *nat_call_start(struct engine_conn *c, XDR *x, uint32_t prog, uint32_t vers,
				uint32_t proc, enum nat_kind kind, const struct nat_handler *h);
int nat_call_send(struct engine_conn *c, struct nat_call *call, XDR *x, const void *data,
		  uint32_t len);
void nat_call_free(struct engine_conn *c, struct nat_call *call);
/* Feeds received bytes (the socket's data callback): 0, or -errno (c failed). */
int nat_data(void *arg, const uint8_t *p, size_t n);
/* Calls past their deadline go to their handler's timeout. */
void nat_calls_tick(struct engine_conn *c, uint64_t now);
/* A set-up or teardown call's timeout: the connection fails. */
void nat_setup_timeout(struct engine_conn *c, struct nat_call *call);

/* Connects c's socket to the MOUNT or NFS port; up->connected() goes on. 0 or -errno. */
int nat_dial(struct engine_conn *c, bool mount);
/* The same to any address (NFSv3's NLM connection, native_nlm.c). */
int nat_dial_to(struct engine_conn *c, const struct sockaddr *sa, socklen_t len);
/* Watches the connection's open socket on xp. */
void nat_sock_attach(struct engine_conn *c, struct xport *xp);

#endif
