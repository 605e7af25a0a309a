/*
 * NFSv4.1 and 4.2 sessions for the native engine (RFC 8881, RFC 7862): a
 * connection's client and session set-up (EXCHANGE_ID, CREATE_SESSION,
 * RECLAIM_COMPLETE, the work directory's handle, an OPEN per file), SEQUENCE
 * and the slot table on every COMPOUND, the lease kept while idle, teardown
 * (CLOSE, DESTROY_SESSION, DESTROY_CLIENTID), and the version's table
 * (nat_proto_v4).
 *
 * The minor version is the session's: EXCHANGE_ID asks for the URL's, or
 * (version=4) for 2, then 1 after NFS4ERR_MINOR_VERS_MISMATCH, as Linux
 * does; every COMPOUND of the session carries the one it was made with.
 *
 * A session's connections (--connections-per-session) share one client
 * and session, made by the first of them (native_sess.c); on several
 * threads, each thread hands out its own slots. A connection that is lost
 * binds to its session again, or, if its thread's share of the session is
 * gone, re-makes one from EXCHANGE_ID on: a new client, whose state
 * replaces the old one's when its lease runs out.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "../native_call.h"
#include "native_held4.h"
#include "native_meta4.h"
#include "native_lock4.h"
#include "native_sess.h"
#include "native_v4.h"

#define EXCHGID4_FLAG_USE_NON_PNFS 0x00010000u
#define NFS4ERR_MINOR_VERS_MISMATCH 10021u
/* SEQUENCE alone after this long without a request keeps the lease, until the server's
 * lease_time is known (then a third of it; ganesha's default: 60 s). */
#define LEASE_PING_NS (UINT64_C(15) * 1000000000)
/* A set-up OPEN answered NFS4ERR_GRACE (a restarted server) goes again after this. */
#define GRACE_WAIT_S 0.5

static const char *kind_name(enum nat_kind k)
{
	switch (k) {
	case NK_EXCHANGE_ID: return "EXCHANGE_ID";
	case NK_CREATE_SESSION: return "CREATE_SESSION";
	case NK_RECLAIM: return "RECLAIM_COMPLETE";
	case NK_ROOT: return "LOOKUP of the work directory";
	case NK_OPEN: return "OPEN";
	case NK_HOPEN: return "OPEN of a held file";
	case NK_CLOSE: return "CLOSE";
	case NK_SEQUENCE: return "SEQUENCE";
	case NK_DESTROY_SESSION: return "DESTROY_SESSION";
	case NK_DESTROY_CLIENTID: return "DESTROY_CLIENTID";
	default: return "COMPOUND";
	}
}

static void v4_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);

/* Set-up and teardown replies come back here. */
static const struct nat_handler v4_handler = { .reply = v4_reply, .timeout = nat_setup_timeout };

static bool send_exchange_id(struct engine_conn *c);

/* The minor version a new client asks for: the URL's, or (version=4) 2 until a server
 * refused it, then 1. One for the engine: every session after that asks the same. */
static uint32_t minor_ask(const struct engine_conn *c)
{
	unsigned m = __atomic_load_n(&c->eng->minor_ask, __ATOMIC_RELAXED);

	if (m)
		return m;
	return c->cfg->nfs_minor > 0 ? (uint32_t)c->cfg->nfs_minor : 2;
}

/*
 * EXCHANGE_ID said NFS4ERR_MINOR_VERS_MISMATCH. version=4 asks again with minor
 * version 1, as Linux does (and so does every session made after); a minor
 * version the URL named fails the set-up, saying so.
 */
static bool minor_refused(struct engine_conn *c)
{
	uint32_t was = c->sess->minor;

	if (c->cfg->nfs_minor == ENGINE_MINOR_ANY && was > 1) {
		__atomic_store_n(&c->eng->minor_ask, was - 1, __ATOMIC_RELAXED);
		return send_exchange_id(c);
	}
	nat_set_error(c, "the server does not speak NFSv4.%u (EXCHANGE_ID: "
		      "NFS4ERR_MINOR_VERS_MISMATCH)%s", was,
		      was == 2 ? "; version=4 takes the highest it grants" : "");
	return false;
}

static bool send_exchange_id(struct engine_conn *c)
{
	uint8_t verifier[8];
	uint64_t boot = now_ns();
	struct nat_call *call;
	struct nfs4_enc e;
	XDR x;

	memcpy(verifier, &boot, sizeof(verifier));
	c->sess->minor = minor_ask(c);
	/*
	 * The client owner is made once and kept when the session is made again: with a new
	 * verifier the server takes it for the same client restarted and drops the earlier
	 * incarnation's state (RFC 8881 18.35.5) once the new one is confirmed. A new owner
	 * would leave that state, its locks, held until its lease ends, and the locks made
	 * again (native_lock4.c) denied by our own earlier client. A session spanning threads
	 * is made again by each thread's share on its own: one owner for them all would have
	 * each share's new verifier drop the others' client, so there each is a new owner.
	 */
	if (!c->sess->owner_len || nat_sess_nshares(c->sess) > 1) {
		c->sess->owner_len = (uint32_t)snprintf((char *)c->sess->owner_name,
							sizeof(c->sess->owner_name),
							"nfsload-%ld-%u-%llx", (long)getpid(), c->id,
							(unsigned long long)boot);
		if (c->sess->owner_len >= sizeof(c->sess->owner_name))
			c->sess->owner_len = sizeof(c->sess->owner_name) - 1;
	}
	call = nat_v4_begin_plain(c, &x, &e, NK_EXCHANGE_ID, &v4_handler);
	if (!call)
		return false;
	if (!nfs4_enc_exchange_id(&e, verifier, c->sess->owner_name, c->sess->owner_len,
				  EXCHGID4_FLAG_USE_NON_PNFS) || !nfs4_enc_end(&e)) {
		xdr_destroy(&x);
		nat_call_free(c, call);
		return false;
	}
	return nat_call_send(c, call, &x, NULL, 0) == 0;
}

static bool send_seq_op(struct engine_conn *c, enum nat_kind kind, uint32_t arg);

int nat_v4_start(struct engine_conn *c)
{
	struct nat_session *s = c->sess;

	c->state = NS_SETUP;
	if (s->state == SESS_UP && s->slots_lost && s->slots_lost >= s->slots.nown) {
		/* Requests lost with connections hold every slot: a new session for all. */
		nat_sess_fail_others(s, c, "session re-made: its slots were lost with connections");
		s->state = SESS_NONE;
	}
	switch (s->state) {
	case SESS_UP:
		if (!slot4_free(&s->slots)) {
			c->sess_wait = true;	/* the next reply on the session frees one */
			return 0;
		}
		return nat_v4_bind(c) ? 0 : -EIO;
	case SESS_CREATING:
		c->sess_wait = true;	/* nat_sess_up goes on */
		return 0;
	default:
		s->state = SESS_CREATING;
		s->creator = c;
		return send_exchange_id(c) ? 0 : -EIO;
	}
}

bool nat_v4_bind(struct engine_conn *c)
{
	/* Its first SEQUENCE binds the connection to the session (SP4_NONE). */
	return send_seq_op(c, NK_ROOT, 0);
}

static bool send_create_session(struct engine_conn *c)
{
	/* Room for a 1 MiB WRITE (the layout's) or READ reply, with headers; a slot per
	 * request its connections may have in flight. */
	unsigned per = c->cfg->opt.conns_per_session ? c->cfg->opt.conns_per_session : 1;
	unsigned want = per * c->cfg->iodepth + 2;
	struct nfs4_chan_attrs fore = {
		.maxrequestsize = (1u << 20) + 8192, .maxresponsesize = (1u << 20) + 8192,
		.maxresponsesize_cached = 8192, .maxoperations = 16,
		.maxrequests = want < SLOT4_MAX ? want : SLOT4_MAX,
	};
	struct nat_call *call;
	struct nfs4_enc e;
	XDR x;

	call = nat_v4_begin_plain(c, &x, &e, NK_CREATE_SESSION, &v4_handler);
	if (!call)
		return false;
	if (!nfs4_enc_create_session(&e, c->sess->clientid, c->sess->exchange_seq, &fore) ||
	    !nfs4_enc_end(&e)) {
		xdr_destroy(&x);
		nat_call_free(c, call);
		return false;
	}
	return nat_call_send(c, call, &x, NULL, 0) == 0;
}

/* Teardown's file i of member m: its data files, then its held files. */
static struct nat_file *close_file(struct engine_conn *m, uint32_t i)
{
	return i < m->nfiles ? &m->files[i] : &m->held[i - m->nfiles];
}

static bool send_seq_op(struct engine_conn *c, enum nat_kind kind, uint32_t arg)
{
	struct nat_call *call;
	struct nfs4_enc e;
	char name[32];
	bool ok = true;
	XDR x;

	call = nat_v4_begin(c, &x, &e, kind, &v4_handler);
	if (!call)
		return false;
	call->arg = arg;
	switch (kind) {
	case NK_RECLAIM:
		ok = nfs4_enc_reclaim_complete(&e);
		break;
	case NK_ROOT: {
		uint32_t n = 0;

		ok = nfs4_enc_putrootfh(&e) &&
		     nfs4_enc_lookup_path(&e, c->cfg->path, strlen(c->cfg->path), &n) &&
		     nfs4_enc_lookup_path(&e, c->cfg->dir, strlen(c->cfg->dir), &n) &&
		     nfs4_enc_getfh(&e) && nfs4_enc_getattr_lease(&e);
		break;
	}
	case NK_HOPEN:
		ok = nat_held_enc_setup(c, &e, arg);
		break;
	case NK_OPEN:
		wl_file_name(NULL, c->file_ids[arg], name, sizeof(name));
		ok = nfs4_enc_putfh(&e, &c->dir) &&
		     nfs4_enc_open(&e, 0, c->sess->clientid, c->sess->owner_name, c->sess->owner_len, name,
				   false, 0) &&
		     nfs4_enc_getfh(&e);
		break;
	case NK_CLOSE: {
		struct nat_file *f = close_file(nat_sess_member(c->sess, arg >> 24), arg & 0xffffff);

		/* Its locks released first: a CLOSE with locks held fails (LOCKS_HELD). */
		ok = nfs4_enc_putfh(&e, &f->fh) && nat_lock4_enc_release(c, &e, f) &&
		     nfs4_enc_close(&e, 0, &f->sid);
		break;
	}
	case NK_DESTROY_SESSION:
		/* DESTROY_SESSION may be alone in its COMPOUND; here it follows SEQUENCE. */
		ok = nfs4_enc_destroy_session(&e, c->sess->id);
		break;
	default:	/* NK_SEQUENCE: the lease */
		break;
	}
	if (!ok || !nfs4_enc_end(&e)) {
		nat_v4_unsent(c, call, &x);
		return false;
	}
	return nat_call_send(c, call, &x, NULL, 0) == 0;
}

static bool send_destroy_clientid(struct engine_conn *c)
{
	struct nat_call *call;
	struct nfs4_enc e;
	XDR x;

	call = nat_v4_begin_plain(c, &x, &e, NK_DESTROY_CLIENTID, &v4_handler);
	if (!call)
		return false;
	if (!nfs4_enc_destroy_clientid(&e, c->sess->clientid) || !nfs4_enc_end(&e)) {
		xdr_destroy(&x);
		nat_call_free(c, call);
		return false;
	}
	return nat_call_send(c, call, &x, NULL, 0) == 0;
}

/* OPENs for the files not asked for yet, as far as slots go. */
static bool open_files(struct engine_conn *c)
{
	while (c->next_file < c->nfiles && slot4_free(&c->sess->slots) && c->nfree) {
		if (!send_seq_op(c, NK_OPEN, c->next_file))
			return false;
		c->next_file++;
		c->pending++;
	}
	return true;
}

/* Set-up's held OPENs (native_held4.c), as far as slots go; set-up ends when the data
 * files' and these are all answered. */
static bool open_held(struct engine_conn *c)
{
	uint32_t i;

	while ((i = nat_held_next(c)) < c->nheld && slot4_free(&c->sess->slots) && c->nfree) {
		if (!send_seq_op(c, NK_HOPEN, i))
			return false;
		c->next_held++;
		c->pending++;
	}
	if (c->pending == 0 && c->ngrace == 0 && nat_held_next(c) >= c->nheld) {
		nat_held_setup_end(c);
		nat_setup_done(c, true);
	}
	return true;
}

static void grace_cb(struct ev_loop *loop, ev_timer *w, int revents);

/* A set-up OPEN (data file i, or held slot i with bit 31) answered NFS4ERR_GRACE: sent
 * again after GRACE_WAIT_S, as long as the grace lasts. Still pending meanwhile. */
static bool grace_later(struct engine_conn *c, uint32_t q)
{
	if (!c->grace_q || !c->t)
		return false;
	c->grace_q[c->ngrace++] = q;
	__atomic_add_fetch(&c->eng->grace_waits, 1, __ATOMIC_RELAXED);
	if (!ev_is_active(&c->grace_timer)) {
		ev_timer_init(&c->grace_timer, grace_cb, GRACE_WAIT_S, 0.);
		c->grace_timer.data = c;
		ev_timer_start(c->t->loop, &c->grace_timer);
	}
	return true;
}

static void grace_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct engine_conn *c = w->data;
	uint32_t n = 0;

	(void)loop;
	(void)revents;
	if (c->state != NS_SETUP) {
		c->ngrace = 0;
		return;
	}
	for (uint32_t k = 0; k < c->ngrace; k++) {
		uint32_t q = c->grace_q[k];

		if (n == 0 && slot4_free(&c->sess->slots) && c->nfree) {
			if (!send_seq_op(c, q >> 31 ? NK_HOPEN : NK_OPEN, q & 0x7fffffffu)) {
				nat_set_error(c, "cannot send an OPEN again after NFS4ERR_GRACE");
				nat_conn_fail(c);
				return;
			}
		} else {
			c->grace_q[n++] = q;	/* no slot: the next turn */
		}
	}
	c->ngrace = n;
	if (n) {
		ev_timer_set(&c->grace_timer, GRACE_WAIT_S, 0.);
		ev_timer_start(c->t->loop, &c->grace_timer);
	}
}

/* The files every member of the session (on every thread) has open, CLOSEd over
 * this connection, on its own share's slots. */
bool nat_v4_close_files(struct engine_conn *c)
{
	struct nat_session *s = c->sess;
	unsigned n = nat_sess_nmembers(s);

	while (c->close_m < n && slot4_free(&s->slots) && c->nfree) {
		struct engine_conn *m = nat_sess_member(s, c->close_m);
		uint32_t i = c->next_file++;

		if (!m || i >= m->nfiles + m->nheld) {
			c->close_m++;
			c->next_file = 0;
			continue;
		}
		if (!close_file(m, i)->open)
			continue;
		if (!send_seq_op(c, NK_CLOSE, c->close_m << 24 | i))
			return false;
		c->pending++;
	}
	if (c->pending == 0 && c->close_m >= n)
		return send_seq_op(c, NK_DESTROY_SESSION, 0);
	return true;
}

/* Reads the operations after SEQUENCE: each expected in order, the last one's
 * status returned (0 all well, > 0 an nfsstat4, < 0 garbage). */
static int ops_after(XDR *x, const enum nfs4_opnum *ops, unsigned n)
{
	uint32_t st = NFS4_OK;
	int rc;

	for (unsigned i = 0; i < n; i++) {
		if ((rc = nfs4_dec_op(x, ops[i], &st)) < 0)
			return rc;
		if (st != NFS4_OK)
			return (int)st;
		if (i + 1 == n)
			break;
	}
	return 0;
}

static int reply_root(struct engine_conn *c, XDR *x)
{
	char path[2 * ENGINE_URL_MAX];
	char *save, *tok;
	uint32_t st, lease = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", c->cfg->path, c->cfg->dir);
	if ((rc = nfs4_dec_op(x, OP4_PUTROOTFH, &st)) < 0 || st)
		return rc < 0 ? rc : (int)st;
	for (tok = strtok_r(path, "/", &save); tok; tok = strtok_r(NULL, "/", &save))
		if ((rc = nfs4_dec_op(x, OP4_LOOKUP, &st)) < 0 || st)
			return rc < 0 ? rc : (int)st;
	if ((rc = nfs4_dec_op(x, OP4_GETFH, &st)) < 0 || st)
		return rc < 0 ? rc : (int)st;
	if ((rc = nfs4_dec_getfh(x, &c->dir)) < 0)
		return rc;
	/* The lease: a SEQUENCE of its own when idle for a third of it (RFC 8881 8.3). */
	if ((rc = nfs4_dec_op(x, OP4_GETATTR, &st)) < 0)
		return rc;
	if (st == NFS4_OK && (rc = nfs4_dec_lease_time(x, &lease)) < 0)
		return rc;
	if (st == NFS4_OK && lease)
		c->lease_ping_ns = (uint64_t)lease * 1000000000 / 3;
	return 0;
}

static int reply_open(struct engine_conn *c, XDR *x, uint32_t i)
{
	static const enum nfs4_opnum ops[] = { OP4_PUTFH, OP4_OPEN };
	uint32_t st;
	int rc = ops_after(x, ops, 2);

	if (rc || (rc = nfs4_dec_open(x, &c->files[i].sid)) < 0)
		return rc;
	if ((rc = nfs4_dec_op(x, OP4_GETFH, &st)) < 0 || st)
		return rc < 0 ? rc : (int)st;
	if ((rc = nfs4_dec_getfh(x, &c->files[i].fh)) < 0)
		return rc;
	c->files[i].open = true;
	return 0;
}

/* A set-up or teardown reply: the next step, or false when the connection must fail. */
static bool v4_step(struct engine_conn *c, struct nat_call *call, XDR *x, int rc)
{
	enum nat_kind kind = (enum nat_kind)call->kind;
	struct nfs4_exchange_id_res eid;
	struct nfs4_create_session_res cs;
	uint32_t cstatus = 0, nres, st = 0, arg = call->arg;

	if (rc == 0 && call->slot != UINT16_MAX)
		rc = nat_v4_sequence(c, call, x, &cstatus);
	else if (rc == 0 && (rc = nfs4_dec_begin(x, &cstatus, &nres)) == 0 && nres == 0 && cstatus)
		st = cstatus;	/* refused as a whole: MINOR_VERS_MISMATCH has no results */
	else if (rc == 0)
		rc = nfs4_dec_op(x, kind == NK_EXCHANGE_ID ? OP4_EXCHANGE_ID :
				 kind == NK_CREATE_SESSION ? OP4_CREATE_SESSION :
				 OP4_DESTROY_CLIENTID, &st);
	else if (call->slot != UINT16_MAX)
		nat_v4_slot_unsent(c, call);	/* refused before SEQUENCE ran */
	nat_call_free(c, call);
	if (c->state == NS_DOWN)
		return true;	/* the session was lost: already reported */
	if (kind == NK_EXCHANGE_ID && rc == 0 && st == NFS4ERR_MINOR_VERS_MISMATCH)
		return minor_refused(c);
	if (rc == 0 && st)
		rc = nfs4_errno(st);
	switch (kind) {
	case NK_EXCHANGE_ID:
		if (rc == 0 && (rc = nfs4_dec_exchange_id(x, &eid)) == 0) {
			c->sess->clientid = eid.clientid;
			c->sess->exchange_seq = eid.sequenceid;
			return send_create_session(c);
		}
		break;
	case NK_CREATE_SESSION:
		if (rc == 0 && (rc = nfs4_dec_create_session(x, &cs)) == 0) {
			memcpy(c->sess->id, cs.sessionid, sizeof(c->sess->id));
			c->sess->fore = cs.fore;
			if (cs.fore.maxrequestsize < c->cfg->bs + 512 ||
			    cs.fore.maxresponsesize < c->cfg->bs + 512) {
				nat_set_error(c, "CREATE_SESSION: the server grants requests of %u "
					      "and replies of %u bytes, too small for --bs %llu",
					      cs.fore.maxrequestsize, cs.fore.maxresponsesize,
					      (unsigned long long)c->cfg->bs);
				return false;
			}
			if (!nat_sess_slots_fit(c, cs.fore.maxrequests))
				return false;
			slot4_init(&c->sess->slots, cs.fore.maxrequests);
			c->sess->slots_lost = 0;
			c->sess->nwait = c->sess->wait_head = 0;
			return send_seq_op(c, NK_RECLAIM, 0);
		}
		break;
	case NK_RECLAIM:
		if (rc == 0 && (rc = (int)cstatus ? nfs4_errno(cstatus) : 0) == 0) {
			c->sess->creator = NULL;
			if (!send_seq_op(c, NK_ROOT, 0))
				return false;
			nat_sess_up(c->sess);	/* the others bind now */
			return true;
		}
		break;
	case NK_ROOT:
		if (rc == 0 && (rc = reply_root(c, x)) == 0) {
			nat_step(c, NAT_STEP_MOUNT);
			c->pending = c->next_file = c->next_held = 0;
			if (c->nfiles == 0)
				return open_held(c);
			return open_files(c);
		}
		if (rc > 0)
			rc = nfs4_errno((uint32_t)rc);
		break;
	case NK_OPEN:
		if (rc == 0 && (rc = reply_open(c, x, arg)) == 0) {
			nat_step(c, NAT_STEP_OPEN);
			if (--c->pending == 0 && c->next_file == c->nfiles && c->ngrace == 0)
				return open_held(c);
			return open_files(c);
		}
		if (rc == NFS4ERR_GRACE && grace_later(c, arg))
			return true;
		if (rc > 0)
			rc = nfs4_errno((uint32_t)rc);
		break;
	case NK_HOPEN:
		if (rc == 0 && (rc = nat_held_dec_setup(c, x, arg)) == 0) {
			c->pending--;
			return open_held(c);
		}
		if (rc == NFS4ERR_GRACE && grace_later(c, 1u << 31 | arg))
			return true;
		if (rc > 0)
			rc = nfs4_errno((uint32_t)rc);
		break;
	case NK_CLOSE:
		/* A CLOSE that fails still ends the file's use: go on. */
		if (nat_sess_member(c->sess, arg >> 24))
			close_file(nat_sess_member(c->sess, arg >> 24), arg & 0xffffff)->open = false;
		c->pending--;
		return nat_v4_close_files(c);
	case NK_DESTROY_SESSION:
		return send_destroy_clientid(c);
	case NK_DESTROY_CLIENTID:
		nat_sess_destroyed(c->sess);
		c->state = NS_DOWN;
		if (c->cbs)
			c->cbs->ready(c->owner, c, rc == 0);
		return true;
	case NK_SEQUENCE:
		return true;	/* the lease: nothing to read */
	default:
		break;
	}
	if (rc >= 0)
		rc = -EIO;
	nat_set_error(c, "%s failed: %s", kind_name(kind),
		      rc == -EBADMSG ? "a reply that does not parse" : strerror(-rc));
	return false;
}

static void v4_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	if (!v4_step(c, call, x, rpc_status) && c->state != NS_DOWN)
		nat_conn_fail(c);
}

void nat_v4_tick(struct engine_conn *c, uint64_t now)
{
	if (now - c->last_send_ns > (c->lease_ping_ns ? c->lease_ping_ns : LEASE_PING_NS) &&
	    slot4_free(&c->sess->slots))
		send_seq_op(c, NK_SEQUENCE, 0);
	nat_held_tick(c);
	nat_lock4_tick(c, now);
	if (c->sess->slots_lost && c->sess->slots_lost >= c->sess->slots.nown)
		nat_sess_fail_all(c->sess, "every session slot lost to requests without a reply");
}

static bool v4_start(struct engine_conn *c)
{
	return nat_v4_start(c) == 0;
}

/* Teardown's first calls: false when another member tore the session down already. */
static bool v4_close(struct engine_conn *c)
{
	if (c->sess->destroyed || c->sess->state != SESS_UP)
		return false;
	return nat_v4_close_files(c);
}

/* NFSv4.1 and 4.2 (the minor version is the session's): sessions and their slots,
 * the lease, CLOSEs and the session's and client's end. */
const struct nat_proto nat_proto_v4 = {
	.name = "NFSv4",
	.rpc_vers = NFS_V4,
	.mount = NULL,
	.learns = false,
	.sessions = true,
	.start = v4_start,
	.io_queue = nat_io4_queue,
	.meta_queue = nat_meta4_queue,
	.meta_again = nat_meta4_again,
	.call_lost = nat_v4_slot_lost,
	.tick = nat_v4_tick,
	.close = v4_close,
};
