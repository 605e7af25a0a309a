/*
 * The native engine's operations on names: not written yet.
 */
#include <errno.h>

#include "native.h"

int nat_meta_queue(struct engine_conn *c, struct engine_req *req)
{
	(void)req;
	nat_set_error(c, "request refused: operations on names are not written yet");
	return -EOPNOTSUPP;
}

void nat_meta_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	(void)x;
	(void)rpc_status;
	nat_call_free(c, call);
}
