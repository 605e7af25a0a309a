/*
 * native_meta: the native engine's operations on names (engine_req.path),
 * each one or more calls (engine_req.stage): queueing, the backoff's and the
 * session slot's second chance. The calls are the version's (native_meta3.h,
 * native_meta4.h), and their replies go to the version's handlers.
 */
#ifndef NFSLOAD_NATIVE_META_H
#define NFSLOAD_NATIVE_META_H

#include "native_names.h"

/* Queues a request on a name: 0, or -errno (error() says why). */
int nat_meta_queue(struct engine_conn *c, struct engine_req *req);
/* NFSv4.1: sends a request that waited for a slot (nat_sess_kick): 0, or -EBUSY (still none). */
int nat_meta_send_waiting(struct engine_conn *c, struct engine_req *req);
/* The backoff ended: the request's call again. */
void nat_meta_again(struct engine_conn *c, struct engine_req *req);
/* The connection was dropped while the request waited in the backoff. */
void nat_meta_forget(struct engine_req *req);

#endif
