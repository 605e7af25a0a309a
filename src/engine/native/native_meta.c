/*
 * The native engine's operations on names (--mix, the small-file test and
 * the control connection): a request from queue() to its first call, in
 * the connection's pool of states; sent again after a backoff or a wait for
 * a session slot. The calls and their replies are the version's
 * (native_meta3.c, native_meta4.c); what they share is native_names.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_meta.h"
#include "v4/native_meta4.h"
#include "v4/native_sess.h"

/* Does the session's queue of requests waiting for a slot hold req (for c)? */
static bool waits(const struct engine_conn *c, const struct engine_req *req)
{
	const struct nat_session *s = c->sess;

	for (uint32_t i = 0; s && i < s->nwait; i++) {
		const struct nat_wait *w = &s->wait[(s->wait_head + i) % s->wait_cap];

		if (w->c == c && w->req == req)
			return true;
	}
	return false;
}

static bool in_use(const struct engine_conn *c, const struct nat_mstate *st)
{
	if (!st->req)
		return false;
	if (st->later)
		return true;	/* until the backoff ends, or nat_meta_forget() */
	if (st->waiting)
		return waits(c, st->req);
	/* Its call timed out or the connection was dropped: nobody waits for it. */
	return st->xid && c->calls[st->xid & c->mask].xid == st->xid;
}

static struct nat_mstate *state_get(struct engine_conn *c)
{
	struct nat_meta *m = nat_meta_of(c);
	struct nat_mstate **more, *st;

	if (!m)
		return NULL;
	/* The one that ended last, most often: the worker queues from done(). */
	if (m->last_free < m->nst && !in_use(c, m->st[m->last_free]))
		return m->st[m->last_free];
	for (uint32_t i = 0; i < m->nst; i++)
		if (!in_use(c, m->st[i]))
			return m->st[i];
	more = realloc(m->st, (m->nst + 1) * sizeof(*more));
	if (!more)
		return NULL;
	m->st = more;
	st = calloc(1, sizeof(*st));
	if (st) {
		st->idx = m->nst;
		m->st[m->nst++] = st;
	}
	return st;
}

void nat_meta_again(struct engine_conn *c, struct engine_req *req)
{
	struct nat_mstate *st = nat_mstate_of(req);
	int rc;

	st->later = false;
	if (c->state != NS_READY)
		rc = -EAGAIN;
	else
		rc = c->proto->meta_again(c, st);
	if (rc == 0)
		nat_meta_finish(c, st, (int)st->done);
	else if (rc < 0)
		nat_meta_finish(c, st, st->err ? st->err : rc);
}

void nat_meta_forget(struct engine_req *req)
{
	struct nat_mstate *st = nat_mstate_of(req);

	st->later = false;
	st->req = NULL;		/* free again; the owner counts the request lost */
}

/* Can the request be made at all? 0, or -errno. */
static int check_req(const struct nat_mstate *st)
{
	switch (st->op) {
	case OP_COMMIT:
		return -EINVAL;		/* COMMIT takes a file, not a name */
	case OP_READDIR:
	case OP_GETATTR:
	case OP_ACCESS:
	case OP_SETATTR:
		return 0;
	default:
		if (!st->path[0] || (st->op == OP_RENAME && !st->path2[0]))
			return -EINVAL;	/* the export itself has no name in a directory */
		if ((st->op == OP_READ || st->op == OP_WRITE || st->op == OP_CREATE) &&
		    st->len > META_IO_MAX)
			return -EMSGSIZE;
		return 0;
	}
}

int nat_meta_queue(struct engine_conn *c, struct engine_req *req)
{
	struct nat_mstate *st = state_get(c);
	int rc;

	if (!st) {
		nat_set_error(c, "request refused: out of memory");
		return -ENOMEM;
	}
	if (!nat_meta_norm(st->path, sizeof(st->path), req->path) ||
	    !nat_meta_norm(st->path2, sizeof(st->path2), req->op == OP_RENAME && req->path2 ?
		       req->path2 : "")) {
		nat_set_error(c, "request refused: a name longer than %d bytes", META_PATH_MAX - 1);
		return -ENAMETOOLONG;
	}
	st->op = req->op;
	st->setattr = req->setattr;
	st->size = req->offset;
	st->unchecked = req->unchecked;
	st->len = req->op == OP_READ || req->op == OP_WRITE || req->op == OP_CREATE ? req->len : 0;
	st->buf = req->buf;
	st->done = 0;
	st->err = 0;
	st->which = 0;
	st->rlen = SIZE_MAX;
	st->stage = 0;
	st->xid = 0;
	st->waiting = st->later = false;
	st->opened = st->closed = false;
	st->cookie = 0;
	st->failed_op = 0;
	memset(st->verf, 0, sizeof(st->verf));
	if ((rc = check_req(st)) < 0) {
		nat_set_error(c, "request refused: %s on '%s': %s", op_procedure(st->op), st->path,
			      strerror(-rc));
		return rc;
	}
	st->req = req;
	req->priv[0] = st;
	req->stage = 0;
	req->data = NULL;
	/* The caller's names are valid during queue() only: from now on, ours. */
	req->path = st->path;
	req->path2 = req->op == OP_RENAME ? st->path2 : NULL;
	rc = c->proto->meta_queue(c, st);
	if (rc < 0) {
		st->req = NULL;
		nat_set_error(c, "request refused: %s on '%s': %s", op_procedure(st->op), st->path,
			      rc == -EBUSY ? "too many in flight" : strerror(-rc));
	}
	return rc;
}

int nat_meta_send_waiting(struct engine_conn *c, struct engine_req *req)
{
	struct nat_mstate *st = nat_mstate_of(req);
	int rc;

	st->waiting = false;
	rc = nat_meta4_send(c, st);
	if (rc == -EBUSY) {
		st->waiting = true;
		return rc;
	}
	/* A request that cannot be sent ends here, not its connection. */
	if (rc < 0)
		nat_meta_finish(c, st, st->err ? st->err : rc);
	return 0;
}
