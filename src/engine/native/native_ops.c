/*
 * The native engine's requests on data files, whatever the version: the
 * entry (the file checked, the version's send, the error line), a timeout,
 * and the names of their operations for error lines. What goes on the wire
 * and what a reply says is the version's (v3/native_io3.c, v4/native_io4.c).
 */
#include <errno.h>
#include <string.h>

#include "native_call.h"
#include "native_ops.h"
#include "ops.h"

void nat_req_timeout(struct engine_conn *c, struct nat_call *call)
{
	struct engine_req *req = call->req;

	c->proto->call_lost(c, call);
	nat_call_free(c, call);
	nat_req_done(c, req, -ETIMEDOUT);
}

const char *nat_io_name(const struct engine_req *req)
{
	return req->op < OP_NTYPES ? op_info(req->op)->wire : "an unknown operation";
}

int nat_io_queue(struct engine_conn *c, struct engine_req *req)
{
	int rc;

	if (req->file >= (req->held ? c->nheld : c->nfiles)) {
		nat_set_error(c, "request refused: not a file of this connection");
		return -EINVAL;
	}
	rc = c->proto->io_queue(c, req);
	if (rc == -EINVAL)
		return rc;	/* the version's send said which operation */
	if (rc < 0)
		nat_set_error(c, "request refused: %s", rc == -EBUSY ? "too many in flight" :
			      strerror(-rc));
	return rc < 0 ? -EIO : 0;
}
