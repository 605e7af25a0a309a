/*
 * The native engine's requests on data over NFSv4.x: SEQUENCE, PUTFH and
 * READ, WRITE or COMMIT in one COMPOUND, or (NFSv4.2 sessions) one of the
 * operations on files of native_v42.c; and what their replies say. Any
 * other operation is refused here, never sent as another. Requests wait
 * for a session slot when all are taken (the wait is part of their latency).
 */
#include <errno.h>
#include <string.h>

#include "ops.h"
#include "../native_call.h"
#include "../native_ops.h"
#include "../native_v42.h"
#include "native_held4.h"
#include "native_lock4.h"
#include "native_sess.h"
#include "native_v4.h"

static void io4_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);

/* Every reply of a request on data comes back here. */
static const struct nat_handler io4_handler = { .reply = io4_reply, .timeout = nat_req_timeout };

/* Not READ, WRITE or COMMIT: 0 if it is an NFSv4.2 operation on files and the session
 * is 4.2, else -EINVAL with c's error naming it. */
static int file_op_refused(struct engine_conn *c, const struct engine_req *req)
{
	if (req->op >= OP_NTYPES || op_info(req->op)->cls != OPC_FILE) {
		nat_set_error(c, "request refused: %s is not an NFSv4 operation on a file",
			      nat_io_name(req));
		return -EINVAL;
	}
	if (c->sess->minor < 2) {
		nat_set_error(c, "request refused: %s is NFSv4.2's, and the session is NFSv4.%u",
			      nat_io_name(req), c->sess->minor);
		return -EINVAL;
	}
	return 0;
}

int nat_io_send_v4(struct engine_conn *c, struct engine_req *req)
{
	struct nat_file *f = &c->files[req->file];
	struct nfs4_stateid sid;
	struct nat_call *call;
	struct nfs4_enc e;
	bool ok;
	XDR x;
	int rc;

	if (nat_held_req(req))
		return nat_held_send(c, req);
	if (nat_lock4_is(req))
		return nat_lock4_send(c, req);	/* LOCK, LOCKU, LOCKT: native_lock4.c */
	/* Checked by nat_io4_queue already; again for a waiting request, whose session
	 * may have been made again since (with another minor version). */
	if (req->op != OP_READ && req->op != OP_WRITE && req->op != OP_COMMIT &&
	    (rc = file_op_refused(c, req)) < 0)
		return rc;
	call = nat_v4_begin(c, &x, &e, NK_REQ, &io4_handler);
	if (!call)
		return -EBUSY;
	/*
	 * seqid 0: "the current stateid of this open" (RFC 8881 8.2.2). A session's
	 * connections may OPEN the same file under the one open-owner, each OPEN
	 * bumping the seqid: an older seqid would be refused as OLD_STATEID.
	 */
	sid = f->sid;
	sid.seqid = 0;
	switch (req->op) {
	case OP_READ:
		ok = nfs4_enc_putfh(&e, &f->fh) && nfs4_enc_read(&e, &sid, req->offset, req->len);
		break;
	case OP_WRITE:
		ok = nfs4_enc_putfh(&e, &f->fh) &&
		     nfs4_enc_write(&e, &sid, req->offset, c->cfg->sync ? 2 : 0, req->len);
		break;
	case OP_COMMIT:
		ok = nfs4_enc_putfh(&e, &f->fh) && nfs4_enc_commit(&e, 0, 0);
		break;
	default:	/* OPC_FILE (file_op_refused): its PUTFHs and operation */
		ok = nat_v42_enc(c, &e, req);
		break;
	}
	if (!ok || !nfs4_enc_end(&e)) {
		nat_v4_unsent(c, call, &x);
		return -EMSGSIZE;
	}
	call->req = req;
	return nat_call_send(c, call, &x, req->op == OP_WRITE ? req->buf : NULL,
			     req->op == OP_WRITE ? req->len : 0);
}

int nat_io4_queue(struct engine_conn *c, struct engine_req *req)
{
	int rc;

	/* Refused here, not after a wait for a slot: then it would fail the connection. */
	if (!nat_held_req(req) && !nat_lock4_is(req) && req->op != OP_READ &&
	    req->op != OP_WRITE && req->op != OP_COMMIT &&
	    (rc = file_op_refused(c, req)) < 0)
		return rc;
	/* Behind those already waiting for a slot, to keep the order. */
	rc = nat_sess_waiting(c) ? -EBUSY : nat_io_send_v4(c, req);

	if (rc == -EBUSY && nat_sess_wait(c, req) == 0)
		return 0;
	return rc;
}

static int reply_v4(struct engine_conn *c, struct engine_req *req, XDR *x, uint32_t cstatus)
{
	enum nfs4_opnum op = req->op == OP_READ ? OP4_READ : req->op == OP_WRITE ? OP4_WRITE :
			     OP4_COMMIT;
	uint32_t st, count, committed;
	uint8_t verf[8];
	bool eof;
	int rc;

	if (req->op != OP_READ && req->op != OP_WRITE && req->op != OP_COMMIT)
		return nat_v42_dec(c, req, x, cstatus);	/* only OPC_FILE ones were sent */
	if ((rc = nfs4_dec_op(x, OP4_PUTFH, &st)) < 0)
		return rc;
	if (st == NFS4_OK && (rc = nfs4_dec_op(x, op, &st)) < 0)
		return rc;
	if (st != NFS4_OK || cstatus != NFS4_OK)
		return nfs4_errno(st != NFS4_OK ? st : cstatus);
	switch (req->op) {
	case OP_READ:
		rc = nfs4_dec_read(x, &eof, &count, (const uint8_t **)&req->data);
		return rc < 0 ? rc : (int)count;
	case OP_WRITE:
		rc = nfs4_dec_write(x, &count, &committed, verf);
		if (rc == 0 && !nat_same_verf(c, verf) && committed == 0)
			return -ESTALE;
		return rc < 0 ? rc : (int)count;
	default:
		rc = nfs4_dec_commit(x, verf);
		if (rc == 0 && !nat_same_verf(c, verf))
			return -ESTALE;
		return rc;
	}
}

static void io4_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	struct engine_req *req = call->req;
	uint32_t cstatus = 0;
	int status = rpc_status;

	req->data = NULL;
	/* Frees the slot, or fails the connection (session lost). */
	if (status == 0)
		status = nat_v4_sequence(c, call, x, &cstatus);
	else
		nat_v4_slot_unsent(c, call);	/* refused before SEQUENCE ran */
	if (c->state == NS_DOWN)
		return;
	if (status == 0)
		status = reply_v4(c, req, x, cstatus);
	if (nat_io_end(c, call, req, status) && c->sess)
		nat_sess_kick(c->sess);
}
