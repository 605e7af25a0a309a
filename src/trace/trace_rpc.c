/*
 * trace_rpc: ONC RPC records (RFC 5531) of a capture: a call's header read
 * and its arguments handed to the decoders, kept by (connection, xid) until
 * its reply, whose header is read and results handed on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

/* The call's header (past xid and CALL): its program, version and procedure. */
/*
 * An RPCSEC_GSS credential (RFC 2203): a control message (INIT, DESTROY) has
 * no NFS arguments; with integrity the arguments follow a length and a sequence
 * number; with privacy they are sealed: *service 3 and nothing is read of them.
 */
static bool gss(const uint8_t *p, uint32_t n, uint32_t *service, bool *control)
{
	if (n < 16 || xdrx_be32(p) != 1)
		return false;
	*control = xdrx_be32(p + 4) != 0;
	*service = xdrx_be32(p + 12);
	return *service >= 1 && *service <= 3;
}

/* The arguments (or results) under a GSS service: x left at them, or at an empty stream. */
static void unwrap(XDR *x, uint32_t service)
{
	static uint8_t none[4];

	if (service == 3 || (service == 2 && (!xdrx_skip32(x, 1) || !xdrx_skip32(x, 1))))
		xdrx_create(x, none, 0, XDR_DECODE);
}

/* The call's header (past xid and CALL): its program, version and procedure. */
static int call(struct trace_ctx *c, uint32_t conn, uint32_t xid, XDR *x)
{
	uint32_t rpcvers, prog, vers, proc, flavor, n, service = 0;
	size_t first = c->t->nops;
	const uint8_t *cred;
	bool control = false;
	struct trace_call *k;
	int rc;

	if (!xdrx_get32(x, &rpcvers) || rpcvers != 2 || !xdrx_get32(x, &prog) ||
	    !xdrx_get32(x, &vers) || !xdrx_get32(x, &proc) ||
	    !xdrx_get32(x, &flavor) || !xdrx_get_opaque(x, 400, &cred, &n) ||
	    (flavor == 6 && !gss(cred, n, &service, &control)) ||
	    !xdrx_get32(x, &flavor) || !xdrx_skip_opaque(x, 400)) {	/* verifier */
		c->t->left.undecoded++;
		return 0;
	}
	if (service == 1 || control)
		service = 0;
	else
		unwrap(x, service);
	rc = trace_nfs_call(c, conn, prog, vers, proc, x);
	if (rc <= 0)
		return rc;
	if (c->ncalls == c->ccap) {
		size_t cap = c->ccap ? c->ccap * 2 : 256;

		if (!(k = realloc(c->calls, cap * sizeof(*k))))
			return -ENOMEM;
		c->calls = k;
		c->ccap = cap;
	}
	k = &c->calls[c->ncalls];
	*k = (struct trace_call){ (uint32_t)first, (uint32_t)(c->t->nops - first), prog, vers, proc,
				  service };
	/* A call sent again with the same xid replaces the first: one reply answers it. */
	return trace_map_put(&c->pending, (uint64_t)conn << 32 | xid, (uint32_t)++c->ncalls);
}

static void reply(struct trace_ctx *c, uint32_t conn, uint32_t xid, XDR *x)
{
	uint64_t key = (uint64_t)conn << 32 | xid;
	uint32_t i = trace_map_get(&c->pending, key), stat, flavor, accept;
	const struct trace_call *k;

	if (!i) {
		c->t->left.orphan_replies++;
		return;
	}
	trace_map_del(&c->pending, key);
	k = &c->calls[i - 1];
	for (uint32_t j = 0; j < k->n; j++)
		c->t->ops[k->first + j].reply_ns = c->now;
	if (!xdrx_get32(x, &stat))
		return;
	if (stat != 0 || !xdrx_get32(x, &flavor) || !xdrx_skip_opaque(x, 400) ||
	    !xdrx_get32(x, &accept) || accept != 0) {
		for (uint32_t j = 0; j < k->n; j++)
			c->t->ops[k->first + j].status = TRACE_RPC_ERROR;
		return;
	}
	unwrap(x, k->service);
	trace_nfs_reply(c, k, x);
}

int trace_rpc_record(struct trace_ctx *c, uint32_t conn, const uint8_t *rec, size_t len)
{
	uint32_t xid, type;
	XDR x;

	xdrx_create(&x, (void *)rec, len, XDR_DECODE);
	if (!xdrx_get32(&x, &xid) || !xdrx_get32(&x, &type) || type > 1) {
		c->t->left.undecoded++;
		return 0;
	}
	if (type == 0)
		return call(c, conn, xid, &x);
	reply(c, conn, xid, &x);
	return 0;
}

void trace_free(struct trace *t)
{
	free(t->ops);
	trace_table_free(&t->fhs);
	trace_table_free(&t->names);
	trace_table_free(&t->states);
	trace_table_free(&t->owners);
	memset(t, 0, sizeof(*t));
}
