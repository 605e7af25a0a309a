/*
 * NFSv4.1 operations on names for the native engine: one COMPOUND from the
 * root where it can, as libnfs does it (SEQUENCE, PUTROOTFH, a LOOKUP per
 * name of the export path and of the name, then the operation). OPEN, its
 * READ and its CLOSE share one COMPOUND through the current stateid (seqid
 * 1, other zero: RFC 8881 16.2.3.1.2). A WRITE must end its COMPOUND (the
 * data follows the arguments unencoded), so a file opened for one is
 * closed by another (PUTFH, CLOSE); data past one WRITE, and a listing past
 * one READDIR, take more. A request that opened a file closes it even when
 * an operation after the OPEN failed, then reports that failure.
 *
 * nfs-ganesha 4.3 fails a whole READDIR with STALE (or NOENT, SERVERFAULT, DELAY)
 * when an entry it lists is removed meanwhile (another request in the same
 * directory; asking for no attributes does not help): the READDIR is sent
 * again from the same cookie after a backoff, as a COMPOUND the server
 * answered with DELAY or GRACE is (nat_meta_later), before that counts as
 * the request's failure. Its latency includes the waits.
 */
#include <errno.h>
#include <string.h>

#include "../native_call.h"
#include "native_meta4.h"
#include "../native_ops.h"
#include "native_sess.h"
#include "native_comp4.h"

enum s4_stage { S4_FIRST, S4_WRITE, S4_CLOSE, S4_READDIR };

#define ACCESS4_READ 0x01
#define ACCESS4_RW 0x0d		/* READ | MODIFY | EXTEND */
#define READDIR_DIRCOUNT 8192
#define READDIR_MAXCOUNT 32768
#define HEADROOM 2048		/* a COMPOUND's bytes besides the data, at most */

static const struct nfs4_stateid current_sid = { .seqid = 1 };

/* A COMPOUND being encoded, the operations after SEQUENCE noted for the reply. */
struct enc {
	struct nfs4_enc e;
	struct nat_mstate *st;
	bool ok;
};

static void note(struct enc *w, enum nfs4_opnum op, bool ok)
{
	if (!w->ok || !ok || w->st->nops + 1 >= META_OPS_MAX) {
		w->ok = false;
		return;
	}
	w->st->ops[w->st->nops++] = (uint8_t)op;
}

/* A LOOKUP for each name of p[0..n). */
static void lookups(struct enc *w, const char *p, size_t n)
{
	uint32_t k = 0;

	w->ok = w->ok && nfs4_enc_lookup_path(&w->e, p, n, &k);
	while (k--)
		note(w, OP4_LOOKUP, true);
}

/* The current filehandle to p[0..n) below the export. */
static void from_root(struct enc *w, const struct engine_conn *c, const char *p, size_t n)
{
	note(w, OP4_PUTROOTFH, w->ok && nfs4_enc_putrootfh(&w->e));
	lookups(w, c->cfg->path, strlen(c->cfg->path));
	lookups(w, p, n);
}

/* The most one WRITE or READ may carry in this session. */
static uint32_t io_max(const struct engine_conn *c, bool write)
{
	uint32_t lim = write ? c->sess->fore.maxrequestsize : c->sess->fore.maxresponsesize;

	lim = lim > HEADROOM ? lim - HEADROOM : 1;
	return lim < META_IO_MAX ? lim : META_IO_MAX;
}

/* The next WRITE's length (0 when the request writes nothing). */
static uint32_t chunk(const struct engine_conn *c, const struct nat_mstate *st)
{
	uint32_t n = st->len - st->done, max = io_max(c, true);

	return n < max ? n : max;
}

/*
 * A metadata OPEN's open-owner is the session's with an 'm' after it: its CLOSE must
 * not close the data files' opens (one owner's opens of a file are one open state,
 * and a --replay may create or open a name the connection has open for its I/O).
 */
static void open_name(struct enc *w, const struct engine_conn *c, const char *leaf, bool create)
{
	const struct nat_session *s = c->sess;
	uint8_t owner[sizeof(s->owner_name) + 1];

	memcpy(owner, s->owner_name, s->owner_len);
	owner[s->owner_len] = 'm';
	note(w, OP4_OPEN, w->ok && nfs4_enc_open(&w->e, 0, s->clientid, owner, s->owner_len + 1,
						 leaf, create, 0644));
}

/* The request's first COMPOUND; *dlen: the data its WRITE carries. */
static void enc_first(struct enc *w, const struct engine_conn *c, uint32_t *dlen)
{
	struct nat_mstate *st = w->st;
	const char *leaf = nat_meta_leaf(st->path);
	size_t n = nat_meta_in_parent(st->op) ? nat_meta_parent_len(st->path) : strlen(st->path);
	size_t n2 = nat_meta_parent_len(st->path2);
	struct nfs_sattr sa;

	from_root(w, c, st->path, n);
	switch (st->op) {
	case OP_GETATTR:
		note(w, OP4_GETATTR, w->ok && nfs4_enc_getattr(&w->e));
		break;
	case OP_LOOKUP:
		note(w, OP4_LOOKUP, w->ok && nfs4_enc_lookup(&w->e, leaf));
		break;
	case OP_ACCESS:
		note(w, OP4_ACCESS, w->ok && nfs4_enc_access(&w->e, ACCESS4_RW));
		break;
	case OP_SETATTR:
		nat_meta_sattr(st, &sa);
		note(w, OP4_SETATTR, w->ok && nfs4_enc_setattr(&w->e, NULL, &sa));
		break;
	case OP_READDIR:
		note(w, OP4_GETFH, w->ok && nfs4_enc_getfh(&w->e));
		note(w, OP4_READDIR, w->ok && nfs4_enc_readdir(&w->e, 0, st->verf, READDIR_DIRCOUNT,
							      READDIR_MAXCOUNT));
		break;
	case OP_REMOVE:
	case OP_RMDIR:
		note(w, OP4_REMOVE, w->ok && nfs4_enc_remove(&w->e, leaf));
		break;
	case OP_MKDIR:
		note(w, OP4_CREATE, w->ok && nfs4_enc_mkdir(&w->e, leaf, 0755));
		break;
	case OP_RENAME:
		note(w, OP4_SAVEFH, w->ok && nfs4_enc_savefh(&w->e));
		if (n2 != n || memcmp(st->path, st->path2, n) != 0)
			from_root(w, c, st->path2, n2);
		note(w, OP4_RENAME, w->ok && nfs4_enc_rename(&w->e, leaf,
							     nat_meta_leaf(st->path2)));
		break;
	case OP_OPEN:
	case OP_READ:
		open_name(w, c, leaf, false);
		if (st->op == OP_READ) {
			uint32_t max = io_max(c, false);

			note(w, OP4_READ, w->ok && nfs4_enc_read(&w->e, &current_sid, 0,
								 st->len < max ? st->len : max));
		}
		note(w, OP4_CLOSE, w->ok && nfs4_enc_close(&w->e, 0, &current_sid));
		break;
	default:	/* CREATE (and write what it carries), WRITE */
		open_name(w, c, leaf, st->op == OP_CREATE);
		if (st->op == OP_CREATE && !st->len) {
			note(w, OP4_CLOSE, w->ok && nfs4_enc_close(&w->e, 0, &current_sid));
			break;
		}
		*dlen = chunk(c, st);
		note(w, OP4_GETFH, w->ok && nfs4_enc_getfh(&w->e));
		note(w, OP4_WRITE, w->ok && nfs4_enc_write(&w->e, &current_sid, 0, 2, *dlen));
		break;
	}
}

static void reply4(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);

/* Every COMPOUND of a request on a name comes back here. */
static const struct nat_handler meta4_handler = { .reply = reply4, .timeout = nat_req_timeout };

int nat_meta4_send(struct engine_conn *c, struct nat_mstate *st)
{
	struct enc w = { .st = st, .ok = true };
	uint32_t dlen = 0, maxops = c->sess->fore.maxoperations;
	struct nat_call *call;
	XDR x;
	int rc;

	call = nat_v4_begin(c, &x, &w.e, NK_META, &meta4_handler);
	if (!call)
		return -EBUSY;
	st->nops = 0;
	if (st->stage == S4_FIRST) {
		enc_first(&w, c, &dlen);
	} else {
		note(&w, OP4_PUTFH, nfs4_enc_putfh(&w.e, &st->fh));
		if (st->stage == S4_WRITE) {
			dlen = chunk(c, st);
			note(&w, OP4_WRITE, w.ok && nfs4_enc_write(&w.e, &st->sid, st->done, 2,
								   dlen));
		} else if (st->stage == S4_CLOSE) {
			note(&w, OP4_CLOSE, w.ok && nfs4_enc_close(&w.e, 0, &st->sid));
		} else {
			note(&w, OP4_READDIR, w.ok && nfs4_enc_readdir(&w.e, st->cookie, st->verf,
								       READDIR_DIRCOUNT,
								       READDIR_MAXCOUNT));
		}
	}
	/* A name too long, or too deep for the operations the session allows. */
	if (!w.ok || (maxops && st->nops + 1 > maxops) || !nfs4_enc_end(&w.e)) {
		nat_v4_unsent(c, call, &x);
		return -ENAMETOOLONG;
	}
	call->req = st->req;
	st->xid = call->xid;
	rc = nat_call_send(c, call, &x, dlen ? st->buf + st->done : NULL, dlen);
	if (rc < 0) {
		nat_v4_slot_unsent(c, call);
		st->xid = 0;
	}
	return rc;
}

/* The results of the operations after SEQUENCE: 0, or the first failure as -errno. */
static int dec_ops(struct engine_conn *c, struct nat_mstate *st, XDR *x, struct nat_listing *l,
		   bool *eof)
{
	struct nfs4_stateid sid;
	struct nfs_attr attr = { 0 };
	uint32_t status, n, other;
	const uint8_t *data;
	uint8_t verf[8];
	bool end;
	int rc;

	for (uint32_t i = 0; i < st->nops; i++) {
		enum nfs4_opnum op = st->ops[i];

		if ((rc = nfs4_dec_op(x, op, &status)) < 0)
			return rc;
		if (status != NFS4_OK) {
			st->failed_op = (uint8_t)op;
			return nfs4_errno(status);
		}
		switch (op) {
		case OP4_GETFH:
			rc = nfs4_dec_getfh(x, &st->fh);
			break;
		case OP4_GETATTR:
			if ((rc = nfs4_dec_getattr(x, &attr)) == 0)
				c->meta->attr = attr;
			break;
		case OP4_ACCESS:
			rc = nfs4_dec_access(x, &n, &other);
			break;
		case OP4_OPEN:
			if ((rc = nfs4_dec_open(x, &st->sid)) == 0)
				st->opened = true;
			break;
		case OP4_CLOSE:
			if ((rc = nfs4_dec_close(x, &sid)) == 0)
				st->closed = true;
			break;
		case OP4_READ:
			if ((rc = nfs4_dec_read(x, &end, &n, &data)) == 0)
				st->done += n;
			break;
		case OP4_WRITE:
			if ((rc = nfs4_dec_write(x, &n, &other, verf)) == 0) {
				if (n == 0)
					return -EIO;	/* no progress */
				st->done += n;
			}
			break;
		case OP4_REMOVE:
			rc = nfs4_dec_remove(x);
			break;
		case OP4_CREATE:
			rc = nfs4_dec_mkdir(x);
			break;
		case OP4_RENAME:
			rc = nfs4_dec_rename(x);
			break;
		case OP4_SETATTR:
			rc = nfs4_dec_setattr(x);
			break;
		case OP4_READDIR:
			rc = nfs4_dec_readdir(x, st->verf, eof, nat_meta_entry, l);
			break;
		default:	/* PUTFH, PUTROOTFH, LOOKUP, SAVEFH: nothing past the status */
			rc = 0;
			break;
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The next COMPOUND: 1 (sent, or waiting for a slot) or -errno. */
static int go(struct engine_conn *c, struct nat_mstate *st, enum s4_stage stage)
{
	int rc;

	st->stage = (uint8_t)stage;
	rc = nat_meta4_send(c, st);
	if (rc == -EBUSY && nat_sess_wait(c, st->req) == 0) {
		st->waiting = true;
		return 1;
	}
	return rc < 0 ? rc : 1;
}

int nat_meta4_again(struct engine_conn *c, struct nat_mstate *st)
{
	return go(c, st, st->stage);
}

/* After a COMPOUND ended with rc: 1 (another went out), 0 (the request is done) or -errno. */
static int next(struct engine_conn *c, struct nat_mstate *st, int rc, bool eof, unsigned n)
{
	if (rc < 0) {
		/* The same COMPOUND again later, unless an OPEN in it went through. */
		if ((st->stage != S4_FIRST || !st->opened) && nat_meta_later(c, st, rc, st->failed_op == OP4_READDIR))
			return 1;
		if (st->opened && !st->closed && st->stage != S4_CLOSE) {
			st->err = rc;
			rc = go(c, st, S4_CLOSE);
		}
		return rc < 0 && st->err ? st->err : rc;	/* the first failure */
	}
	switch (st->stage) {
	case S4_CLOSE:
		return st->err;
	case S4_READDIR:
		break;
	default:
		if (st->op == OP_WRITE || (st->op == OP_CREATE && st->len))
			return go(c, st, st->done < st->len ? S4_WRITE : S4_CLOSE);
		if (st->op != OP_READDIR)
			return 0;
		break;
	}
	if (eof)
		return 0;
	return n ? go(c, st, S4_READDIR) : -EIO;	/* no entry and no end: stuck */
}

static void reply4(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	struct nat_mstate *st = nat_meta_owner(c, call);
	struct nat_listing l = { c, st, 0 };
	uint32_t cstatus = 0;
	bool eof = false;
	int rc = rpc_status;

	if (!st)
		return;
	st->failed_op = 0;
	if (rc == 0)
		rc = nat_v4_sequence(c, call, x, &cstatus);
	else
		nat_v4_slot_unsent(c, call);	/* refused before SEQUENCE ran */
	if (c->state == NS_DOWN)
		return;		/* the session was lost: its connections with it */
	nat_call_free(c, call);
	st->xid = 0;
	if (rc == 0)
		rc = dec_ops(c, st, x, &l, &eof);
	if (rc == -EBADMSG)
		nat_set_error(c, "a reply that does not parse (%s on a name)",
			      op_procedure(st->op));
	rc = next(c, st, rc, eof, l.n);
	if (rc != 1)
		nat_meta_finish(c, st, rc < 0 ? rc : (int)st->done);	/* bytes moved, or 0 */
	if (c->state != NS_DOWN && c->sess)
		nat_sess_kick(c->sess);
}

int nat_meta4_queue(struct engine_conn *c, struct nat_mstate *st)
{
	/* Behind those already waiting for a slot, to keep the order. */
	int rc = nat_sess_waiting(c) ? -EBUSY : nat_meta4_send(c, st);

	if (rc == -EBUSY && nat_sess_wait(c, st->req) == 0) {
		st->waiting = true;
		return 0;
	}
	return rc;
}
