/*
 * The native engine's requests on data over NFSv3: READ, WRITE and COMMIT,
 * one procedure each, and what their replies say (--mix's locks go to NLM:
 * native_nlm.c). Any other operation is
 * refused here, never sent as one of these. A WRITE's data goes from the
 * worker's buffer to the socket without a copy; a READ's data is handed to
 * done() where it lies in the reply.
 */
#include <errno.h>
#include <string.h>

#include "../native_call.h"
#include "../native_ops.h"
#include "native_nlm.h"
#include "native_v3.h"

static void io3_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);

/* A READ's, WRITE's or COMMIT's reply comes back here. */
static const struct nat_handler io3_handler = { .reply = io3_reply, .timeout = nat_req_timeout };

int nat_io3_queue(struct engine_conn *c, struct engine_req *req)
{
	const struct nfs_fh *fh = &c->files[req->file].fh;
	struct nat_call *call;
	uint32_t proc;
	bool ok;
	XDR x;

	switch (req->op) {
	case OP_READ: proc = NFS3_READ; break;
	case OP_WRITE: proc = NFS3_WRITE; break;
	case OP_COMMIT: proc = NFS3_COMMIT; break;
	case OP_LOCK:
	case OP_UNLOCK:
	case OP_LOCKT:
		return nat_nlm_queue(c, req);	/* NLM v4, on the NLM connection */
	default:
		nat_set_error(c, "request refused: %s is not an NFSv3 operation on a file",
			      nat_io_name(req));
		return -EINVAL;
	}
	call = nat_call_start(c, &x, NFS_PROGRAM, NFS_V3, proc, NK_REQ, &io3_handler);
	if (!call)
		return -EBUSY;
	if (req->op == OP_READ)
		ok = nfs3_enc_read(&x, fh, req->offset, req->len);
	else if (req->op == OP_WRITE)
		ok = nfs3_enc_write(&x, fh, req->offset, req->len,
				    c->cfg->sync ? NFS3_FILE_SYNC : NFS3_UNSTABLE);
	else
		ok = nfs3_enc_commit(&x, fh, 0, 0);
	if (!ok) {
		xdr_destroy(&x);
		nat_call_free(c, call);
		return -EMSGSIZE;
	}
	call->req = req;
	return nat_call_send(c, call, &x, req->op == OP_WRITE ? req->buf : NULL,
			     req->op == OP_WRITE ? req->len : 0);
}

static int reply_v3(struct engine_conn *c, struct engine_req *req, XDR *x)
{
	uint8_t verf[8];
	enum nfs3_stable committed;
	uint32_t count;
	bool eof;
	int st;

	switch (req->op) {
	case OP_READ:
		st = nfs3_dec_read(x, &count, &eof, (const uint8_t **)&req->data);
		break;
	case OP_WRITE:
		st = nfs3_dec_write(x, &count, &committed, verf);
		if (st == 0 && !nat_same_verf(c, verf) && committed == NFS3_UNSTABLE)
			return -ESTALE;	/* the server restarted: earlier unstable writes may be lost */
		break;
	default:	/* OP_COMMIT: nothing else was sent */
		st = nfs3_dec_commit(x, verf);
		if (st == 0 && !nat_same_verf(c, verf))
			return -ESTALE;
		return st ? (st < 0 ? st : nfs3_errno((uint32_t)st)) : 0;
	}
	if (st)
		return st < 0 ? st : nfs3_errno((uint32_t)st);
	return (int)count;
}

static void io3_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	struct engine_req *req = call->req;
	int status = rpc_status;

	req->data = NULL;
	if (status == 0)
		status = reply_v3(c, req, x);
	nat_io_end(c, call, req, status);
}
