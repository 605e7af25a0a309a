/*
 * Byte-range locks over NFSv4.1 and 4.2: a worker's LOCK, LOCKU, LOCKT, the
 * locks a connection holds made again under a new client, and their release
 * at teardown. See native_lock4.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "meta.h"
#include "ops.h"
#include "../codec/nfs4lk.h"
#include "../native_call.h"
#include "../native_ops.h"
#include "native_lock4.h"
#include "native_sess.h"
#include "native_comp4.h"

/* A lock the connection holds (granted), to LOCK again under a new client. */
struct nat_held_lock {
	uint32_t file;
	uint32_t type;		/* NFS4_READ_LT, NFS4_WRITE_LT */
	uint64_t offset, length;
	bool remake;		/* to LOCK again (a new client since it was granted) */
};

struct nat_locks {
	char owner[48];		/* the lock-owner's name: "nfsload-lk-<pid>-<conn id>" */
	uint32_t owner_len;
	struct nat_held_lock held[META_LOCKS_MAX];
	unsigned nheld;
	/* LOCK and LOCKU requests held behind a first LOCK on their file, or behind the
	 * re-make (linked through priv[1]) */
	struct engine_req *wait_head, *wait_tail;
	bool remaking;		/* locks being LOCKed again: the worker's wait */
	bool remake_inflight;
	uint64_t remake_after;	/* NFS4ERR_GRACE: not before this (now_ns) */
};

/* call->arg: a first LOCK (open_to_lock_owner4) */
#define ARG_FIRST 0x80000000u
/* A file's index here (call->arg, the table of granted locks): with LK_HELD, held slot
 * (engine_req.held: a replay's locks, on the open of held slot `file`) */
#define LK_HELD 0x40000000u

static struct nat_file *lk_file(struct engine_conn *c, uint32_t k)
{
	return k & LK_HELD ? &c->held[k & ~LK_HELD] : &c->files[k];
}

static uint32_t lk_index(const struct engine_req *req)
{
	return req->file | (req->held ? LK_HELD : 0);
}

#define GRACE_WAIT_NS 1000000000ull

static void lock_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);
static void lock_timeout(struct engine_conn *c, struct nat_call *call);
static void remake_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);
static void remake_timeout(struct engine_conn *c, struct nat_call *call);
static void remake_next(struct engine_conn *c);

static const struct nat_handler lock_handler = { .reply = lock_reply, .timeout = lock_timeout };
static const struct nat_handler remake_handler = { .reply = remake_reply,
						   .timeout = remake_timeout };

bool nat_lock4_is(const struct engine_req *req)
{
	return req->op < OP_NTYPES && op_info(req->op)->cls == OPC_LOCK;
}

static struct nat_locks *locks_of(struct engine_conn *c)
{
	struct nat_locks *l = c->locks;
	int n;

	if (l)
		return l;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	n = snprintf(l->owner, sizeof(l->owner), "nfsload-lk-%ld-%u", (long)getpid(), c->id);
	l->owner_len = n < 0 ? 0 : (uint32_t)n >= sizeof(l->owner) ? sizeof(l->owner) - 1 :
		       (uint32_t)n;
	c->locks = l;
	return l;
}

void nat_lock4_free(struct engine_conn *c)
{
	free(c->locks);
	c->locks = NULL;
}

static uint32_t lock_type(uint32_t what)
{
	return what == ENGINE_LOCK_READ ? NFS4_READ_LT : NFS4_WRITE_LT;
}

/* The engine's table of granted locks: added when granted, removed when unlocked. */
static void held_add(struct nat_locks *l, uint32_t file, uint32_t type, uint64_t offset,
		     uint64_t length)
{
	if (!l)
		return;
	for (unsigned i = 0; i < l->nheld; i++) {
		struct nat_held_lock *h = &l->held[i];

		if (h->file == file && h->offset == offset && h->length == length) {
			h->type = type;	/* an upgrade or downgrade of the same range */
			h->remake = false;
			return;
		}
	}
	/* Full: the worker holds at most META_LOCKS_MAX; more is not LOCKed again. */
	if (l->nheld < META_LOCKS_MAX)
		l->held[l->nheld++] = (struct nat_held_lock){ file, type, offset, length, false };
}

static void held_remove(struct nat_locks *l, unsigned i)
{
	l->held[i] = l->held[--l->nheld];
}

static void held_unlock(struct nat_locks *l, uint32_t file, uint64_t offset, uint64_t length)
{
	if (!l)
		return;
	for (unsigned i = 0; i < l->nheld; i++) {
		const struct nat_held_lock *h = &l->held[i];

		if (h->file == file && h->offset == offset && h->length == length) {
			held_remove(l, i);
			return;
		}
	}
}

/* The server lost the file's lock state: nothing of it is held any more. */
static void file_lost(struct engine_conn *c, uint32_t file)
{
	struct nat_locks *l = c->locks;

	if (lk_file(c, file)->lock_ok)
		__atomic_add_fetch(&c->eng->lock_state_lost, 1, __ATOMIC_RELAXED);
	lk_file(c, file)->lock_ok = false;
	for (unsigned i = 0; l && i < l->nheld;) {
		if (l->held[i].file == file)
			held_remove(l, i);
		else
			i++;
	}
}

/* Answers that say the server has no such lock state (RFC 8881 15.1.5, 15.1.9). */
static bool state_gone(uint32_t st)
{
	return st == NFS4ERR_BAD_STATEID || st == NFS4ERR_EXPIRED ||
	       st == NFS4ERR_ADMIN_REVOKED || st == NFS4ERR_STALE_STATEID;
}

/* Requests held behind a first LOCK or the re-make go again, in their order (those whose
 * file still waits are held again). */
static void release_waiting(struct engine_conn *c)
{
	struct nat_locks *l = c->locks;
	struct engine_req *req;

	if (!l)
		return;
	req = l->wait_head;
	l->wait_head = l->wait_tail = NULL;
	while (req) {
		struct engine_req *next = req->priv[1];
		int rc = c->state == NS_READY ? nat_lock4_send(c, req) : -ENOTCONN;

		if (rc == -EBUSY)
			rc = nat_sess_wait(c, req);
		if (rc < 0)
			nat_req_done(c, req, rc);
		if (c->state == NS_DOWN)
			return;	/* lost: the owner counts the rest */
		req = next;
	}
}

/* A stateid as sent: seqid 0, "the current one" (RFC 8881 8.2.2). */
static struct nfs4_stateid current(const struct nfs4_stateid *sid)
{
	struct nfs4_stateid s = *sid;

	s.seqid = 0;
	return s;
}

/* PUTFH and a LOCK on f: with the lock stateid, or (first) with the open stateid. */
static bool enc_lock(struct engine_conn *c, struct nfs4_enc *e, struct nat_file *f,
		     uint32_t type, uint64_t offset, uint64_t length, bool first)
{
	struct nat_locks *l = c->locks;
	struct nfs4_lock_owner owner = { c->sess->clientid, l->owner, l->owner_len };
	struct nfs4_stateid sid = current(first ? &f->sid : &f->lock_sid);

	if (!nfs4_enc_putfh(e, &f->fh))
		return false;
	if (first)
		return nfs4_enc_lock_new(e, type, false, offset, length, &sid, &owner);
	return nfs4_enc_lock_exist(e, type, false, offset, length, &sid);
}

bool nat_lock4_enc(struct engine_conn *c, struct nfs4_enc *e, const struct engine_req *req,
		   bool *first)
{
	struct nat_locks *l = locks_of(c);
	struct nat_file *f = lk_file(c, lk_index(req));
	uint32_t type = lock_type(req->what);
	struct nfs4_stateid sid;

	*first = false;
	if (!l || req->file >= (req->held ? c->nheld : c->nfiles))
		return false;
	switch (req->op) {
	case OP_LOCK:
		*first = !f->lock_ok;
		return enc_lock(c, e, f, type, req->offset, req->range, *first);
	case OP_UNLOCK:
		/*
		 * Without lock state (the server lost it: counted then) it goes with the
		 * stateid the file had, and the server says what it knows of it.
		 */
		sid = current(&f->lock_sid);
		return nfs4_enc_putfh(e, &f->fh) &&
		       nfs4_enc_locku(e, type, &sid, req->offset, req->range);
	case OP_LOCKT: {
		struct nfs4_lock_owner owner = { c->sess->clientid, l->owner, l->owner_len };

		return nfs4_enc_putfh(e, &f->fh) &&
		       nfs4_enc_lockt(e, type, req->offset, req->range, &owner);
	}
	default:
		return false;
	}
}

int nat_lock4_send(struct engine_conn *c, struct engine_req *req)
{
	struct nat_locks *l = locks_of(c);
	struct nat_file *f = lk_file(c, lk_index(req));
	struct nat_call *call;
	struct nfs4_enc e;
	bool ok, first;
	XDR x;

	if (!l)
		return -ENOMEM;
	/* Behind a first LOCK on the file (its answer gives the lock stateid), or the
	 * re-make of the locks held. LOCKT needs no stateid. */
	if (req->op != OP_LOCKT && (f->lock_first || l->remaking)) {
		nat_req_append(&l->wait_head, &l->wait_tail, req);
		return 0;
	}
	call = nat_v4_begin(c, &x, &e, NK_REQ, &lock_handler);
	if (!call)
		return -EBUSY;
	if (!nat_lock4_enc(c, &e, req, &first) || !nfs4_enc_end(&e)) {
		nat_v4_unsent(c, call, &x);
		return -EMSGSIZE;
	}
	call->req = req;
	call->arg = lk_index(req) | (first ? ARG_FIRST : 0);
	if (first)
		f->lock_first = true;
	ok = nat_call_send(c, call, &x, NULL, 0) == 0;
	if (!ok && first)
		f->lock_first = false;
	return ok ? 0 : -EIO;
}

int nat_lock4_dec(struct engine_conn *c, const struct engine_req *req, XDR *x, uint32_t cstatus)
{
	enum nfs4_opnum op = req->op == OP_LOCK ? OP4_LOCK : req->op == OP_UNLOCK ? OP4_LOCKU :
			     OP4_LOCKT;
	struct nat_file *f = lk_file(c, lk_index(req));
	struct nfs4_stateid sid;
	uint32_t st;
	int rc;

	if ((rc = nfs4_dec_op(x, OP4_PUTFH, &st)) < 0)
		return rc;
	if (st == NFS4_OK) {
		if ((rc = nfs4_dec_op(x, op, &st)) < 0)
			return rc;
		rc = req->op == OP_LOCK ? nfs4_dec_lock(x, st, &sid, NULL) :
		     req->op == OP_UNLOCK ? nfs4_dec_locku(x, st, &sid) :
		     nfs4_dec_lockt(x, st, NULL);
		if (rc < 0)
			return rc;
	}
	if (st == NFS4_OK && cstatus == NFS4_OK) {
		if (req->op == OP_LOCK) {
			f->lock_sid = sid;
			f->lock_ok = true;
			f->lock_client = c->sess->clientid;
			held_add(c->locks, lk_index(req), lock_type(req->what), req->offset,
				 req->range);
		} else if (req->op == OP_UNLOCK) {
			held_unlock(c->locks, lk_index(req), req->offset, req->range);
		}
		return 0;
	}
	if (st == NFS4_OK)
		st = cstatus;
	/* A conflict is an answer: never "try again later" (nfs4_errno's -EAGAIN). */
	if (st == NFS4ERR_DENIED)
		return -ENGINE_DENIED;
	if (req->op != OP_LOCKT && state_gone(st))
		file_lost(c, lk_index(req));
	if (st == NFS4ERR_GRACE)
		__atomic_add_fetch(&c->eng->lock_grace_waits, 1, __ATOMIC_RELAXED);
	return nfs4_errno(st);
}

static void lock_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	struct engine_req *req = call->req;
	uint32_t cstatus = 0, arg = call->arg;
	int status = rpc_status;

	if (status == 0)
		status = nat_v4_sequence(c, call, x, &cstatus);
	else
		nat_v4_slot_unsent(c, call);	/* refused before SEQUENCE ran */
	if (c->state == NS_DOWN)
		return;
	if (status == 0)
		status = nat_lock4_dec(c, req, x, cstatus);
	/* The lock stateid is known (or not) now: requests issued from done() use it. */
	if (arg & ARG_FIRST)
		lk_file(c, arg & ~ARG_FIRST)->lock_first = false;
	if (nat_io_end(c, call, req, status) && c->sess)
		nat_sess_kick(c->sess);
	if (c->state != NS_DOWN && (arg & ARG_FIRST))
		release_waiting(c);
}

static void lock_timeout(struct engine_conn *c, struct nat_call *call)
{
	uint32_t arg = call->arg;

	if (arg & ARG_FIRST)
		lk_file(c, arg & ~ARG_FIRST)->lock_first = false;
	nat_req_timeout(c, call);
	if (c->state != NS_DOWN && (arg & ARG_FIRST))
		release_waiting(c);
}

void nat_lock4_drop(struct engine_conn *c)
{
	struct nat_locks *l = c->locks;

	for (uint32_t i = 0; i < c->nfiles; i++)
		c->files[i].lock_first = false;
	for (uint32_t i = 0; i < c->nheld; i++)
		c->held[i].lock_first = false;
	if (!l)
		return;
	l->wait_head = l->wait_tail = NULL;	/* the owner counts them lost */
	l->remaking = l->remake_inflight = false;
	l->remake_after = 0;
}

/* ---- the locks held, LOCKed again under a new client ---- */

void nat_lock4_setup(struct engine_conn *c)
{
	struct nat_locks *l = c->locks;
	bool any = false;

	if (!l)
		return;
	/* Lock stateids of another client are gone with it (or will be, with its lease). */
	for (uint32_t i = 0; i < c->nfiles; i++)
		if (c->files[i].lock_ok && c->files[i].lock_client != c->sess->clientid)
			c->files[i].lock_ok = false;
	for (uint32_t i = 0; i < c->nheld; i++)
		if (c->held[i].lock_ok && c->held[i].lock_client != c->sess->clientid)
			c->held[i].lock_ok = false;
	for (unsigned i = 0; i < l->nheld; i++) {
		l->held[i].remake = !lk_file(c, l->held[i].file)->lock_ok;
		any |= l->held[i].remake;
	}
	l->remaking = any;
	l->remake_inflight = false;
	l->remake_after = 0;
	if (any)
		remake_next(c);
}

/* The re-make is over: the worker's requests held behind it go. */
static void remake_end(struct engine_conn *c)
{
	c->locks->remaking = false;
	if (c->state == NS_READY)
		release_waiting(c);
}

/* The next lock to LOCK again, one at a time (the first of a file makes its lock
 * stateid for the others). */
static void remake_next(struct engine_conn *c)
{
	struct nat_locks *l = c->locks;
	struct nat_held_lock *h = NULL;
	struct nat_call *call;
	struct nfs4_enc e;
	unsigned i;
	XDR x;

	if (!l->remaking || l->remake_inflight || (l->remake_after && now_ns() < l->remake_after))
		return;
	for (i = 0; i < l->nheld && !h; i++)
		if (l->held[i].remake)
			h = &l->held[i];
	if (!h) {
		remake_end(c);
		return;
	}
	call = nat_v4_begin(c, &x, &e, NK_REQ, &remake_handler);
	if (!call)
		return;	/* no slot: the next tick goes on */
	if (!enc_lock(c, &e, lk_file(c, h->file), h->type, h->offset, h->length,
		      !lk_file(c, h->file)->lock_ok) || !nfs4_enc_end(&e)) {
		nat_v4_unsent(c, call, &x);
		h->remake = false;	/* cannot be sent: not held any more */
		held_remove(l, i - 1);
		__atomic_add_fetch(&c->eng->lock_state_lost, 1, __ATOMIC_RELAXED);
		remake_next(c);
		return;
	}
	call->req = NULL;
	call->arg = i - 1;
	if (nat_call_send(c, call, &x, NULL, 0) == 0)
		l->remake_inflight = true;
}

static void remake_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	struct nat_locks *l = c->locks;
	uint32_t cstatus = 0, st = 0, arg = call->arg;
	struct nfs4_stateid sid;
	struct nat_held_lock *h;
	struct nat_file *f;
	int rc = rpc_status;

	if (rc == 0)
		rc = nat_v4_sequence(c, call, x, &cstatus);
	else
		nat_v4_slot_unsent(c, call);
	if (c->state == NS_DOWN)
		return;	/* it stays to LOCK again: the next set-up goes on */
	if (rc == 0 && (rc = nfs4_dec_op(x, OP4_PUTFH, &st)) == 0 && st == NFS4_OK &&
	    (rc = nfs4_dec_op(x, OP4_LOCK, &st)) == 0)
		rc = nfs4_dec_lock(x, st, &sid, NULL);
	nat_call_free(c, call);
	l->remake_inflight = false;
	if (arg >= l->nheld)
		return;	/* unreachable: the table changes only here while it re-makes */
	h = &l->held[arg];
	f = lk_file(c, h->file);
	if (rc == 0 && st == NFS4_OK && cstatus == NFS4_OK) {
		f->lock_sid = sid;
		f->lock_ok = true;
		f->lock_client = c->sess->clientid;
		h->remake = false;
		__atomic_add_fetch(&c->eng->locks_remade, 1, __ATOMIC_RELAXED);
	} else if (rc == 0 && (st == NFS4ERR_GRACE || st == NFS4ERR_DELAY)) {
		/* A restarted server's grace: wait it out, then send it again. */
		if (st == NFS4ERR_GRACE)
			__atomic_add_fetch(&c->eng->lock_grace_waits, 1, __ATOMIC_RELAXED);
		l->remake_after = now_ns() + GRACE_WAIT_NS;
		return;	/* the tick sends it again */
	} else {
		/* Denied (held by another, or by our own earlier client until its lease
		 * ends), or gone: the lock is lost. */
		held_remove(l, arg);
		__atomic_add_fetch(&c->eng->lock_state_lost, 1, __ATOMIC_RELAXED);
	}
	l->remake_after = 0;
	remake_next(c);
}

static void remake_timeout(struct engine_conn *c, struct nat_call *call)
{
	c->proto->call_lost(c, call);
	nat_call_free(c, call);
	if (c->locks)
		c->locks->remake_inflight = false;	/* the next tick sends it again */
}

void nat_lock4_tick(struct engine_conn *c, uint64_t now)
{
	(void)now;
	if (c->locks && c->locks->remaking)
		remake_next(c);
}

/* ---- teardown ---- */

bool nat_lock4_enc_release(struct engine_conn *c, struct nfs4_enc *e, struct nat_file *f)
{
	struct nfs4_stateid sid;

	if (!f->lock_ok || f->lock_client != c->sess->clientid)
		return true;
	f->lock_ok = false;
	sid = current(&f->lock_sid);
	return nfs4_enc_locku(e, NFS4_WRITE_LT, &sid, 0, NFS4_LOCK_TO_EOF) &&
	       nfs4_enc_free_stateid(e, &sid);
}
