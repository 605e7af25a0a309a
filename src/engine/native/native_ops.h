/*
 * native_ops: READ, WRITE and COMMIT on a connection's files, over NFSv3 or
 * NFSv4.1, and their replies, which end in the worker's done().
 */
#ifndef NFSLOAD_NATIVE_OPS_H
#define NFSLOAD_NATIVE_OPS_H

#include "native_conn.h"

/* Sends req (or queues it for a session slot): 0, or -errno (error() says why). */
int nat_io_queue(struct engine_conn *c, struct engine_req *req);
/* NFSv4.1: sends req now: 0, -EBUSY (no slot free), or -errno. */
int nat_io_send_v4(struct engine_conn *c, struct engine_req *req);
/* A request's call got no reply within --timeout: done() with -ETIMEDOUT
 * (its slot, NFSv4.1, is never used again in the session). */
void nat_req_timeout(struct engine_conn *c, struct nat_call *call);

#endif
