/*
 * TEMP stub: native_v42.c (helper codec42) replaces it at merge. The NFSv4.2
 * operations on files are not encoded: nat_io_send_v4 refuses them.
 */
#include <errno.h>

#include "native_v42.h"

bool nat_v42_enc(struct engine_conn *c, struct nfs4_enc *e, const struct engine_req *req)
{
	(void)c;
	(void)e;
	(void)req;
	return false;
}

int nat_v42_dec(struct engine_conn *c, struct engine_req *req, XDR *x, uint32_t cstatus)
{
	(void)c;
	(void)req;
	(void)x;
	(void)cstatus;
	return -EOPNOTSUPP;
}
