/*
 * native_ops: a request on a connection's data files (READ, WRITE, COMMIT,
 * NFSv4.2's operations on files), whatever the version: its entry, and the
 * end every version's reply shares. The calls and their replies are the
 * version's (v3/native_io3.c, v4/native_io4.c), through c->proto.
 */
#ifndef NFSLOAD_NATIVE_OPS_H
#define NFSLOAD_NATIVE_OPS_H

#include <errno.h>
#include <string.h>

#include "native_call.h"
#include "native_conn.h"
#include "native_proto.h"

/* Sends req (or queues it for a session slot): 0, or -errno (error() says why). */
int nat_io_queue(struct engine_conn *c, struct engine_req *req);
/* A request's call got no reply within --timeout: done() with -ETIMEDOUT (what
 * the call held, a session slot, is given up: c->proto->call_lost). */
void nat_req_timeout(struct engine_conn *c, struct nat_call *call);
/* "READ": the wire name of req's operation, for error lines. */
const char *nat_io_name(const struct engine_req *req);

/* A write verifier seen in a WRITE or COMMIT reply: false if it changed. */
static inline bool nat_same_verf(struct engine_conn *c, const uint8_t verf[8])
{
	bool same = !c->have_verf || memcmp(c->verf, verf, 8) == 0;

	memcpy(c->verf, verf, 8);
	c->have_verf = true;
	return same;
}

/*
 * A reply read (status: what done() gets): the call freed, then done(), or
 * the request goes again after a backoff (false: it was not ended). Inline:
 * every version's reply handler ends here, one call per request as before.
 */
static inline bool nat_io_end(struct engine_conn *c, struct nat_call *call,
			      struct engine_req *req, int status)
{
	nat_call_free(c, call);
	if (status == -EBADMSG)
		nat_set_error(c, "a reply that does not parse (%s)", nat_io_name(req));
	if (status == -EAGAIN && nat_retry_later(c, req))
		return false;
	nat_req_done(c, req, status);
	return true;
}

#endif
