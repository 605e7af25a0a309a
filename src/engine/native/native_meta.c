/*
 * The native engine's operations on names (--mix, the small-file test and
 * the control connection): each request's state from queue() to done(),
 * the names it works on, the NFSv3 directory handle cache, and the
 * dispatch of queue and replies to native_meta3.c and native_meta4.c.
 * Not here: the calls themselves (the version files), the control
 * connection's loop (native_ctl.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_meta.h"

static bool norm_path(char *dst, size_t cap, const char *src);

struct nat_meta *nat_meta_of(struct engine_conn *c)
{
	char dir[META_PATH_MAX];

	if (c->meta)
		return c->meta;
	c->meta = calloc(1, sizeof(*c->meta));
	/* The work directory's handle came with the set-up: no LOOKUPs for it. */
	if (c->meta && !nat_v4(c) && c->dir.len && norm_path(dir, sizeof(dir), c->cfg->dir) &&
	    dir[0])
		nat_dcache_put(c, dir, strlen(dir), &c->dir);
	return c->meta;
}

void nat_meta_free(struct engine_conn *c)
{
	struct nat_meta *m = c->meta;

	if (!m)
		return;
	for (uint32_t i = 0; i < m->nst; i++)
		free(m->st[i]);
	free(m->st);
	for (unsigned i = 0; i < META_DCACHE; i++)
		free(m->dc[i].path);
	free(m);
	c->meta = NULL;
}

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

void nat_meta_finish(struct engine_conn *c, struct nat_mstate *st, int status)
{
	struct engine_req *req = st->req;

	st->req = NULL;
	st->xid = 0;
	st->waiting = st->later = false;
	c->meta->last_free = st->idx;
	if (!req)
		return;
	req->data = NULL;
	nat_req_done(c, req, status);
}

/* path as "/a/b": no repeated or trailing '/', one in front ("" is the export). */
static bool norm_path(char *dst, size_t cap, const char *src)
{
	size_t n = 0;

	for (const char *p = src; *p;) {
		size_t k;

		while (*p == '/')
			p++;
		k = strcspn(p, "/");
		if (!k)
			break;
		if (n + k + 2 > cap)
			return false;
		dst[n++] = '/';
		memmove(dst + n, p, k);	/* dst may be src (a request queued again) */
		n += k;
		p += k;
	}
	dst[n] = '\0';
	return true;
}

size_t nat_meta_parent_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

const char *nat_meta_leaf(const char *path)
{
	return path[0] ? path + nat_meta_parent_len(path) + 1 : path;
}

bool nat_meta_in_parent(enum op_type op)
{
	switch (op) {
	case OP_LOOKUP:
	case OP_CREATE:
	case OP_REMOVE:
	case OP_MKDIR:
	case OP_RMDIR:
	case OP_RENAME:
	case OP_OPEN:
	case OP_READ:
	case OP_WRITE:
		return true;
	default:	/* GETATTR, ACCESS, SETATTR, READDIR: the name itself */
		return false;
	}
}

bool nat_meta_later(struct engine_conn *c, struct nat_mstate *st, int err, bool listing)
{
	/* nfs-ganesha 4.3 answers a listing that lost an entry with STALE, NOENT or even
	 * SERVERFAULT (-EREMOTEIO), a few runs in ten of tests/native.sh's mix. */
	bool raced = listing && (err == -ESTALE || err == -ENOENT || err == -EREMOTEIO);

	if ((err != -EAGAIN && !raced) || !nat_retry_later(c, st->req))
		return false;
	st->later = true;
	return true;
}

void nat_meta_again(struct engine_conn *c, struct engine_req *req)
{
	struct nat_mstate *st = nat_mstate_of(req);
	int rc;

	st->later = false;
	if (c->state != NS_READY)
		rc = -EAGAIN;
	else
		rc = nat_v4(c) ? nat_meta4_again(c, st) : nat_meta3_again(c, st);
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

void nat_meta_sattr(const struct engine_conn *c, const struct nat_mstate *st,
		    struct nfs_sattr *sa)
{
	memset(sa, 0, sizeof(*sa));
	if (st->setattr == ENGINE_SETATTR_MODE) {
		sa->has_mode = true;
		sa->mode = 0644;
	} else if (st->setattr == ENGINE_SETATTR_SIZE) {
		sa->has_size = true;
		sa->size = c->cfg->file_size;
	} else {
		sa->has_times = true;
	}
}

int nat_meta_entry(void *arg, const char *name, uint32_t namelen, uint64_t cookie, bool is_dir)
{
	struct nat_listing *l = arg;

	l->st->cookie = cookie;
	l->n++;
	if (l->c->meta_hook)
		l->c->meta_hook(l->c->meta_hook_arg, name, namelen, is_dir);
	return 0;
}

static bool same_key(const char *key, const char *path, size_t len)
{
	return key && strlen(key) == len && memcmp(key, path, len) == 0;
}

const struct nfs_fh *nat_dcache_get(struct engine_conn *c, const char *path, size_t len)
{
	struct nat_meta *m = c->meta;

	if (len == 0)
		return c->root.len ? &c->root : NULL;
	for (unsigned i = 0; m && i < META_DCACHE; i++)
		if (same_key(m->dc[i].path, path, len))
			return &m->dc[i].fh;
	return NULL;
}

void nat_dcache_put(struct engine_conn *c, const char *path, size_t len, const struct nfs_fh *fh)
{
	struct nat_meta *m = c->meta;
	unsigned i, slot = META_DCACHE;
	char *key;

	if (!m || len == 0)
		return;
	for (i = 0; i < META_DCACHE; i++) {
		if (same_key(m->dc[i].path, path, len)) {
			m->dc[i].fh = *fh;
			return;
		}
		if (!m->dc[i].path && slot == META_DCACHE)
			slot = i;
	}
	if (slot == META_DCACHE)
		slot = m->dc_next++ % META_DCACHE;
	key = strndup(path, len);
	if (!key)
		return;		/* not kept: looked up again next time */
	free(m->dc[slot].path);
	m->dc[slot].path = key;
	m->dc[slot].fh = *fh;
}

void nat_dcache_forget(struct engine_conn *c, const char *path)
{
	struct nat_meta *m = c->meta;
	size_t n = strlen(path);

	for (unsigned i = 0; m && i < META_DCACHE; i++) {
		const char *k = m->dc[i].path;

		if (k && strncmp(k, path, n) == 0 && (k[n] == '\0' || k[n] == '/')) {
			free(m->dc[i].path);
			m->dc[i].path = NULL;
		}
	}
}

void nat_dcache_clear(struct engine_conn *c)
{
	nat_dcache_forget(c, "");
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
	if (!norm_path(st->path, sizeof(st->path), req->path) ||
	    !norm_path(st->path2, sizeof(st->path2), req->op == OP_RENAME && req->path2 ?
		       req->path2 : "")) {
		nat_set_error(c, "request refused: a name longer than %d bytes", META_PATH_MAX - 1);
		return -ENAMETOOLONG;
	}
	st->op = req->op;
	st->setattr = req->setattr;
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
	if (!nat_v4(c))
		rc = nat_meta3_start(c, st);
	else if (nat_sess_waiting(c))
		rc = -EBUSY;	/* keep the order: behind those already waiting */
	else
		rc = nat_meta4_send(c, st);
	if (rc == -EBUSY && nat_v4(c) && nat_sess_wait(c, req) == 0) {
		st->waiting = true;
		return 0;
	}
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

void nat_meta_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	struct nat_mstate *st = call->req ? nat_mstate_of(call->req) : NULL;

	if (!st || st->req != call->req || st->xid != call->xid) {
		/* Not a request of ours any more: only the slot and the call to give back. */
		if (nat_v4(c))
			nat_v4_slot_lost(c, call);
		nat_call_free(c, call);
		return;
	}
	if (nat_v4(c))
		nat_meta4_reply(c, call, st, x, rpc_status);
	else
		nat_meta3_reply(c, call, st, x, rpc_status);
}
