/*
 * The native engine's requests: READ, WRITE and COMMIT on a connection's
 * files, over NFSv3 (one procedure each) or NFSv4.1 (SEQUENCE, PUTFH and
 * the operation in one COMPOUND), and what their replies say.
 *
 * A WRITE's data goes from the worker's buffer to the socket without a
 * copy; a READ's data is handed to done() where it lies in the reply.
 * NFSv4.1 requests wait for a session slot when all are taken (the wait is
 * part of their latency).
 */
#include <errno.h>
#include <string.h>

#include "native_call.h"
#include "native_ops.h"
#include "v4/native_sess.h"
#include "v4/native_v4.h"

static void io_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);

/* A READ's, WRITE's or COMMIT's reply comes back here. */
static const struct nat_handler io_handler = { .reply = io_reply, .timeout = nat_req_timeout };

void nat_req_timeout(struct engine_conn *c, struct nat_call *call)
{
	struct engine_req *req = call->req;

	if (nat_v4(c))
		nat_v4_slot_lost(c, call);
	nat_call_free(c, call);
	nat_req_done(c, req, -ETIMEDOUT);
}

/* A write verifier seen in a WRITE or COMMIT reply: false if it changed. */
static bool same_verf(struct engine_conn *c, const uint8_t verf[8])
{
	bool same = !c->have_verf || memcmp(c->verf, verf, 8) == 0;

	memcpy(c->verf, verf, 8);
	c->have_verf = true;
	return same;
}

static int send_v3(struct engine_conn *c, struct engine_req *req)
{
	const struct nfs_fh *fh = &c->files[req->file].fh;
	uint32_t proc = req->op == OP_READ ? NFS3_READ : req->op == OP_WRITE ? NFS3_WRITE :
			NFS3_COMMIT;
	struct nat_call *call;
	bool ok;
	XDR x;

	call = nat_call_start(c, &x, NFS_PROGRAM, NFS_V3, proc, NK_REQ, &io_handler);
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

int nat_io_send_v4(struct engine_conn *c, struct engine_req *req)
{
	struct nat_file *f = &c->files[req->file];
	struct nfs4_stateid sid;
	struct nat_call *call;
	struct nfs4_enc e;
	bool ok;
	XDR x;

	call = nat_v4_begin(c, &x, &e, NK_REQ, &io_handler);
	if (!call)
		return -EBUSY;
	/*
	 * seqid 0: "the current stateid of this open" (RFC 8881 8.2.2). A session's
	 * connections may OPEN the same file under the one open-owner, each OPEN
	 * bumping the seqid: an older seqid would be refused as OLD_STATEID.
	 */
	sid = f->sid;
	sid.seqid = 0;
	ok = nfs4_enc_putfh(&e, &f->fh);
	if (req->op == OP_READ)
		ok = ok && nfs4_enc_read(&e, &sid, req->offset, req->len);
	else if (req->op == OP_WRITE)
		ok = ok && nfs4_enc_write(&e, &sid, req->offset, c->cfg->sync ? 2 : 0, req->len);
	else
		ok = ok && nfs4_enc_commit(&e, 0, 0);
	if (!ok || !nfs4_enc_end(&e)) {
		xdr_destroy(&x);
		nat_v4_slot_unsent(c, call);
		nat_call_free(c, call);
		return -EMSGSIZE;
	}
	call->req = req;
	return nat_call_send(c, call, &x, req->op == OP_WRITE ? req->buf : NULL,
			     req->op == OP_WRITE ? req->len : 0);
}

int nat_io_queue(struct engine_conn *c, struct engine_req *req)
{
	int rc;

	if (req->file >= c->nfiles) {
		nat_set_error(c, "request refused: not a file of this connection");
		return -EINVAL;
	}
	if (!nat_v4(c))
		rc = send_v3(c, req);
	else if (nat_sess_waiting(c))
		rc = -EBUSY;	/* keep the order: behind those already waiting */
	else
		rc = nat_io_send_v4(c, req);
	if (rc == -EBUSY && nat_v4(c) && nat_sess_wait(c, req) == 0)
		return 0;
	if (rc < 0)
		nat_set_error(c, "request refused: %s", rc == -EBUSY ? "too many in flight" :
			      strerror(-rc));
	return rc < 0 ? -EIO : 0;
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
		if (st == 0 && !same_verf(c, verf) && committed == NFS3_UNSTABLE)
			return -ESTALE;	/* the server restarted: earlier unstable writes may be lost */
		break;
	default:
		st = nfs3_dec_commit(x, verf);
		if (st == 0 && !same_verf(c, verf))
			return -ESTALE;
		return st ? (st < 0 ? st : nfs3_errno((uint32_t)st)) : 0;
	}
	if (st)
		return st < 0 ? st : nfs3_errno((uint32_t)st);
	return (int)count;
}

static int reply_v4(struct engine_conn *c, struct engine_req *req, XDR *x, uint32_t cstatus)
{
	enum nfs4_opnum op = req->op == OP_READ ? OP4_READ : req->op == OP_WRITE ? OP4_WRITE :
			     OP4_COMMIT;
	uint32_t st, count, committed;
	uint8_t verf[8];
	bool eof;
	int rc;

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
		if (rc == 0 && !same_verf(c, verf) && committed == 0)
			return -ESTALE;
		return rc < 0 ? rc : (int)count;
	default:
		rc = nfs4_dec_commit(x, verf);
		if (rc == 0 && !same_verf(c, verf))
			return -ESTALE;
		return rc;
	}
}

static void io_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	struct engine_req *req = call->req;
	uint32_t cstatus = 0;
	int status = rpc_status;

	req->data = NULL;
	if (nat_v4(c)) {
		/* Frees the slot, or fails the connection (session lost). */
		if (status == 0)
			status = nat_v4_sequence(c, call, x, &cstatus);
		else
			nat_v4_slot_unsent(c, call);	/* refused before SEQUENCE ran */
		if (c->state == NS_DOWN)
			return;
		if (status == 0)
			status = reply_v4(c, req, x, cstatus);
	} else if (status == 0) {
		status = reply_v3(c, req, x);
	}
	nat_call_free(c, call);
	if (status == -EBADMSG)
		nat_set_error(c, "a reply that does not parse (%s)",
			      req->op == OP_READ ? "READ" : req->op == OP_WRITE ? "WRITE" : "COMMIT");
	if (status == -EAGAIN && nat_retry_later(c, req))
		return;
	nat_req_done(c, req, status);
	if (nat_v4(c) && c->sess)
		nat_sess_kick(c->sess);
}
