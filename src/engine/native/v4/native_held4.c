/*
 * Held files over NFSv4.1 and 4.2: their OPENs at set-up, the worker's timed
 * OPEN, CLOSE and OPEN_DOWNGRADE, delegations returned, lost state. See
 * native_held4.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"
#include "../native_call.h"
#include "../native_names.h"
#include "../native_ops.h"
#include "native_held4.h"
#include "native_sess.h"
#include "native_comp4.h"

#define OPEN_MODE 0644
#define ACCESS_BOTH 3u
/* NFS4ERR_GRACE on a worker's held OPEN: sent again after this, as long as it lasts. */
#define GRACE_WAIT_S 0.5

static void held_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);
static void deleg_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);
static void deleg_timeout(struct engine_conn *c, struct nat_call *call);

static const struct nat_handler held_handler = { .reply = held_reply, .timeout = nat_req_timeout };
static const struct nat_handler deleg_handler = { .reply = deleg_reply, .timeout = deleg_timeout };

int nat_held_new(struct engine_conn *c)
{
	uint32_t n = c->cfg->open_files + c->cfg->open_slots;

	if (!c->proto->sessions)
		return 0;
	/* Set-up's OPENs waiting out a grace period: the data files' too. */
	c->grace_q = calloc((size_t)n + c->nfiles + 1, sizeof(*c->grace_q));
	if (!c->grace_q)
		return -ENOMEM;
	if (n == 0)
		return 0;
	c->held = calloc(n, sizeof(*c->held));
	c->hx = calloc(n, sizeof(*c->hx));
	if (!c->held || !c->hx)
		return -ENOMEM;
	c->nheld = n;
	return 0;
}

void nat_held_free(struct engine_conn *c)
{
	for (uint32_t i = 0; c->hx && i < c->nheld; i++)
		free(c->hx[i].path);
	free(c->held);
	free(c->hx);
	free(c->grace_q);
	c->held = NULL;
	c->hx = NULL;
	c->grace_q = NULL;
	c->nheld = 0;
}

void nat_held_drop(struct engine_conn *c)
{
	for (uint32_t i = 0; i < c->nheld; i++) {
		c->held[i].open = false;
		c->hx[i].deleg = false;	/* gone with the client's state, or returned by the next */
	}
	if (c->t)
		ev_timer_stop(c->t->loop, &c->grace_timer);
	c->ngrace = 0;
	c->next_held = 0;
}

/* The share an OPEN asks for: engine_req.what, 0: BOTH and --share-deny. */
static uint32_t share_of(const struct engine_conn *c, uint32_t what)
{
	return what ? what : ENGINE_SHARE(ACCESS_BOTH, c->cfg->share_deny);
}

/* Held slot i's open-owner: one per file or one per connection. */
static uint32_t owner_of(const struct engine_conn *c, uint32_t i, char *buf, size_t len)
{
	int n = c->cfg->owner_per_file ? snprintf(buf, len, "nfsload-held-%u-%u", c->id, i) :
					 snprintf(buf, len, "nfsload-held-%u", c->id);

	return n < 0 || (size_t)n >= len ? (uint32_t)len - 1 : (uint32_t)n;
}

/* Names in p[0..n) ('/' between them, empty ones skipped): LOOKUPs nfs4_enc_lookup_path makes. */
static uint32_t count_names(const char *p, size_t n)
{
	uint32_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (p[i] != '/' && (i == 0 || p[i - 1] == '/'))
			k++;
	return k;
}

/* PUTFH of the work directory (or PUTROOTFH and LOOKUPs to path's parent), OPEN, GETFH. */
static bool enc_open(struct engine_conn *c, struct nfs4_enc *e, uint32_t i, const char *path,
		     uint32_t share)
{
	char name[64], owner[48];
	uint32_t olen = owner_of(c, i, owner, sizeof(owner)), k = 0;
	const char *leaf = name;

	if (path) {
		if (!nfs4_enc_putrootfh(e) ||
		    !nfs4_enc_lookup_path(e, c->cfg->path, strlen(c->cfg->path), &k) ||
		    !nfs4_enc_lookup_path(e, path, nat_meta_parent_len(path), &k))
			return false;
		leaf = nat_meta_leaf(path);
	} else {
		wl_held_name(NULL, c->id, i, name, sizeof(name));
		if (!nfs4_enc_putfh(e, &c->dir))
			return false;
	}
	return nfs4_enc_open_share(e, 0, c->sess->clientid, owner, olen, leaf, true, OPEN_MODE,
				   share & 0xff, share >> 8 & 0xff) &&
	       nfs4_enc_getfh(e);
}

/* DELEGRETURN of held slot i's delegation, its own COMPOUND: false when no slot is free
 * (nat_held_tick sends it later). */
static bool send_delegreturn(struct engine_conn *c, uint32_t i)
{
	struct nat_call *call;
	struct nfs4_enc e;
	XDR x;

	call = nat_v4_begin(c, &x, &e, NK_DELEGRETURN, &deleg_handler);
	if (!call)
		return false;
	call->arg = i;
	if (!nfs4_enc_putfh(&e, &c->held[i].fh) || !nfs4_enc_delegreturn(&e, &c->hx[i].deleg_sid) ||
	    !nfs4_enc_end(&e)) {
		nat_v4_unsent(c, call, &x);
		return false;
	}
	c->hx[i].deleg = false;
	return nat_call_send(c, call, &x, NULL, 0) == 0;
}

static void deleg_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	uint32_t cstatus = 0, st = 0;
	int rc = rpc_status;

	if (rc == 0)
		rc = nat_v4_sequence(c, call, x, &cstatus);
	else
		nat_v4_slot_unsent(c, call);
	nat_call_free(c, call);
	if (c->state == NS_DOWN)
		return;
	if (rc == 0 && (rc = nfs4_dec_op(x, OP4_PUTFH, &st)) == 0 && st == NFS4_OK)
		rc = nfs4_dec_op(x, OP4_DELEGRETURN, &st);
	/* Counted when the server took it back; one it refused is gone with the open. */
	if (rc == 0 && st == NFS4_OK && cstatus == NFS4_OK)
		__atomic_add_fetch(&c->eng->delegations_returned, 1, __ATOMIC_RELAXED);
	if (c->sess && c->state == NS_READY)
		nat_sess_kick(c->sess);
}

static void deleg_timeout(struct engine_conn *c, struct nat_call *call)
{
	c->proto->call_lost(c, call);
	nat_call_free(c, call);
}

void nat_held_tick(struct engine_conn *c)
{
	for (uint32_t i = 0; i < c->nheld; i++)
		if (c->hx[i].deleg && c->held[i].open && !send_delegreturn(c, i))
			return;
}

/*
 * An OPEN's reply after SEQUENCE (path: a replay's name; its LOOKUPs): 0 and the
 * slot open, or the status of the first failing operation (> 0), or < 0.
 */
static int dec_open(struct engine_conn *c, XDR *x, uint32_t i, const char *path, uint32_t share)
{
	struct nfs4_stateid sid;
	struct nfs4_deleg d;
	struct nfs_fh fh;
	uint32_t st, n;
	int rc;

	if (path) {
		n = count_names(c->cfg->path, strlen(c->cfg->path)) +
		    count_names(path, nat_meta_parent_len(path));
		if ((rc = nfs4_dec_op(x, OP4_PUTROOTFH, &st)) < 0 || st)
			return rc < 0 ? rc : (int)st;
		while (n--)
			if ((rc = nfs4_dec_op(x, OP4_LOOKUP, &st)) < 0 || st)
				return rc < 0 ? rc : (int)st;
	} else if ((rc = nfs4_dec_op(x, OP4_PUTFH, &st)) < 0 || st) {
		return rc < 0 ? rc : (int)st;
	}
	if ((rc = nfs4_dec_op(x, OP4_OPEN, &st)) < 0 || st)
		return rc < 0 ? rc : (int)st;
	if ((rc = nfs4_dec_open_deleg(x, &sid, &d)) < 0)
		return rc;
	if ((rc = nfs4_dec_op(x, OP4_GETFH, &st)) < 0 || st)
		return rc < 0 ? rc : (int)st;
	if ((rc = nfs4_dec_getfh(x, &fh)) < 0)
		return rc;
	/* A new open (not an upgrade of the one held): no lock state of its own yet
	 * (native_lock4.c: a replay's locks on held slots) */
	if (!c->held[i].open || memcmp(c->held[i].sid.other, sid.other, sizeof(sid.other)))
		c->held[i].lock_ok = false;
	c->held[i].fh = fh;
	c->held[i].sid = sid;
	c->held[i].open = true;
	c->hx[i].want = true;
	c->hx[i].share = share;
	if (path && (!c->hx[i].path || strcmp(c->hx[i].path, path) != 0)) {
		free(c->hx[i].path);
		c->hx[i].path = strdup(path);
		if (!c->hx[i].path)
			return -ENOMEM;
	}
	/* None was asked for (WANT_NO_DELEG); one granted anyway goes back at once. */
	if (d.type == NFS4_DELEG_READ || d.type == NFS4_DELEG_WRITE) {
		c->hx[i].deleg = true;
		c->hx[i].deleg_sid = d.sid;
		send_delegreturn(c, i);
	}
	return 0;
}

uint32_t nat_held_next(struct engine_conn *c)
{
	/* First set-up: the held files; later ones: those that were open. */
	while (c->next_held < c->nheld &&
	       (c->held_made ? !c->hx[c->next_held].want : c->next_held >= c->cfg->open_files))
		c->next_held++;
	return c->next_held;
}

bool nat_held_enc_setup(struct engine_conn *c, struct nfs4_enc *e, uint32_t i)
{
	struct nat_held *h = &c->hx[i];

	return enc_open(c, e, i, h->path, c->held_made ? share_of(c, h->share) : share_of(c, 0));
}

int nat_held_dec_setup(struct engine_conn *c, XDR *x, uint32_t i)
{
	struct nat_held *h = &c->hx[i];
	int rc = dec_open(c, x, i, h->path, c->held_made ? share_of(c, h->share) : share_of(c, 0));

	if (rc == 0 && c->held_made)
		__atomic_add_fetch(&c->eng->opens_remade, 1, __ATOMIC_RELAXED);
	/* Another client's share reservation: the slot stays closed (the worker's
	 * CLOSE of it finds no open, its OPEN may be denied again). */
	if (rc == NFS4ERR_SHARE_DENIED)
		return 0;
	if (rc > 0 && rc != NFS4ERR_GRACE) {
		nat_set_error(c, "OPEN of a held file failed: %s", strerror(-nfs4_errno((uint32_t)rc)));
		return -EIO;
	}
	return rc;
}

void nat_held_setup_end(struct engine_conn *c)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < c->nheld; i++)
		n += c->held[i].open;
	/* The engine's sum: each connection's count at the end of its last set-up. */
	__atomic_add_fetch(&c->eng->held_opens, (uint64_t)n - c->held_up, __ATOMIC_RELAXED);
	c->held_up = n;
	c->held_made = true;
}

/* The server no longer has the open (a restart, an expired lease, revoked). */
static bool state_gone(uint32_t st)
{
	return st == NFS4ERR_BAD_STATEID || st == NFS4ERR_STALE_STATEID ||
	       st == NFS4ERR_EXPIRED || st == NFS4ERR_ADMIN_REVOKED;
}

/* The slot's open is gone: counted once (not again for a slot already closed). */
static void lose(struct engine_conn *c, uint32_t i)
{
	if (c->held[i].open)
		__atomic_add_fetch(&c->eng->state_lost, 1, __ATOMIC_RELAXED);
	c->held[i].open = false;
	c->hx[i].want = false;
	c->hx[i].deleg = false;
}

int nat_held_send(struct engine_conn *c, struct engine_req *req)
{
	uint32_t i = req->file;
	struct nat_file *f = &c->held[i];
	struct nat_call *call;
	struct nfs4_enc e;
	bool ok;
	XDR x;

	/* A replay's name is valid during queue() only (engine.h): kept, for the reply's
	 * LOOKUPs and a send again (a slot waited for, GRACE). */
	if (req->op == OP_OPEN && req->path && req->path != c->hx[i].path) {
		char *p = strdup(req->path);

		if (!p)
			return -ENOMEM;
		free(c->hx[i].path);
		c->hx[i].path = p;
		req->path = p;
	}
	call = nat_v4_begin(c, &x, &e, NK_REQ, &held_handler);
	if (!call)
		return -EBUSY;
	switch (req->op) {
	case OP_OPEN:
		ok = enc_open(c, &e, i, req->path, share_of(c, req->what));
		break;
	case OP_CLOSE:
		/* A slot with no open (set-up's OPEN denied, the state lost) too: the
		 * server says so, and the worker's view and the server's agree again. */
		ok = nfs4_enc_putfh(&e, &f->fh) && nfs4_enc_close(&e, 0, &f->sid);
		break;
	default:	/* OP_OPEN_DOWNGRADE */
		ok = nfs4_enc_putfh(&e, &f->fh) &&
		     nfs4_enc_open_downgrade(&e, &f->sid, req->what & 0xff, req->what >> 8 & 0xff);
		break;
	}
	if (!ok || !nfs4_enc_end(&e)) {
		nat_v4_unsent(c, call, &x);
		return -EMSGSIZE;
	}
	call->req = req;
	call->arg = i;
	return nat_call_send(c, call, &x, NULL, 0);
}

/* What a CLOSE's or OPEN_DOWNGRADE's reply says (after SEQUENCE): done()'s status. */
static int dec_held(struct engine_conn *c, struct engine_req *req, XDR *x, uint32_t cstatus)
{
	uint32_t i = req->file, st;
	struct nfs4_stateid sid;
	int rc;

	if ((rc = nfs4_dec_op(x, OP4_PUTFH, &st)) < 0)
		return rc;
	if (st == NFS4_OK &&
	    (rc = nfs4_dec_op(x, req->op == OP_CLOSE ? OP4_CLOSE : OP4_OPEN_DOWNGRADE, &st)) < 0)
		return rc;
	if (state_gone(st)) {
		lose(c, i);
		return req->op == OP_CLOSE ? 0 : -EBADF;
	}
	if (st != NFS4_OK || cstatus != NFS4_OK)
		return nfs4_errno(st != NFS4_OK ? st : cstatus);
	if (req->op == OP_CLOSE) {
		if ((rc = nfs4_dec_close(x, &sid)) < 0)
			return rc;
		c->held[i].open = false;
		c->hx[i].want = false;
		return 0;
	}
	if ((rc = nfs4_dec_open_downgrade(x, &sid)) < 0)
		return rc;
	c->held[i].sid = sid;
	c->hx[i].share = req->what;
	return 0;
}

/* NFS4ERR_GRACE on a held OPEN: sent again after GRACE_WAIT_S, as long as the grace
 * lasts (the wait in its latency), through the connection's retry list. */
static bool grace_later(struct engine_conn *c, struct engine_req *req)
{
	if (c->state != NS_READY || !c->t)
		return false;
	nat_req_append(&c->retry_head, &c->retry_tail, req);
	__atomic_add_fetch(&c->eng->grace_waits, 1, __ATOMIC_RELAXED);
	if (!ev_is_active(&c->retry_timer) ||
	    ev_timer_remaining(c->t->loop, &c->retry_timer) < GRACE_WAIT_S) {
		ev_timer_stop(c->t->loop, &c->retry_timer);
		ev_timer_set(&c->retry_timer, GRACE_WAIT_S, 0.);
		ev_timer_start(c->t->loop, &c->retry_timer);
	}
	return true;
}

static void held_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	struct engine_req *req = call->req;
	uint32_t cstatus = 0;
	int status = rpc_status;
	bool grace = false;

	if (status == 0)
		status = nat_v4_sequence(c, call, x, &cstatus);
	else
		nat_v4_slot_unsent(c, call);	/* refused before SEQUENCE ran */
	if (c->state == NS_DOWN)
		return;
	if (status == 0) {
		if (req->op == OP_OPEN) {
			uint32_t i = req->file;
			int rc = dec_open(c, x, i, req->path, share_of(c, req->what));

			grace = rc == NFS4ERR_GRACE;
			status = rc == NFS4ERR_SHARE_DENIED ? -ENGINE_DENIED :
				 rc > 0 ? nfs4_errno((uint32_t)rc) : rc;
		} else {
			status = dec_held(c, req, x, cstatus);
		}
	}
	if (grace) {
		nat_call_free(c, call);
		if (!grace_later(c, req))
			nat_req_done(c, req, status);
		if (c->sess && c->state == NS_READY)
			nat_sess_kick(c->sess);
		return;
	}
	if (nat_io_end(c, call, req, status) && c->sess)
		nat_sess_kick(c->sess);
}
