/*
 * native_life: a connection's life (made, set up, attached, ticked, dropped,
 * closed, freed), the entry of its requests, their backoff's timer, and the
 * nat_up table through which the layers below reach this one: the socket
 * connected, a connection failing, a set-up ending, a session slot free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "native_call.h"
#include "native_known.h"
#include "native_life.h"
#include "native_meta.h"
#include "native_ops.h"
#include "v4/native_lock4.h"
#include "v4/native_sess.h"
#include "native_gss.h"
#include "native_tap.h"
#include "v4/native_held4.h"
#include "v4/native_v4.h"

/* The NFS port is connected (and, with Kerberos, the context made): the protocol's set-up. */
static void up_secured(struct engine_conn *c)
{
	if (!c->proto->start(c)) {
		if (!c->error[0])
			nat_set_error(c, "cannot send the first call");
		nat_setup_done(c, false);
	}
}

static void up_connected(struct engine_conn *c, int err)
{
	bool mount = c->state == NS_MOUNT_CONNECT;

	if (err) {
		socklen_t len;
		const struct sockaddr *sa = nat_addr(c->eng, c->srv, mount, &len);

		nat_set_error(c, "%s at %s port %u (is the server running? is %s right?)",
			      strerror(-err), c->cfg->server[c->srv].host, nat_addr_port(sa),
			      mount ? "mountport" : "nfsport");
		nat_setup_done(c, false);
		return;
	}
	/* Not available (an old kernel): every reply counts as left out of wire time. */
	if (c->cfg->wire_time && !mount && !c->eng->tap_used)
		xport_stamp_on(c->sock, c->cfg->iodepth);
	if (mount) {
		if (!c->proto->mount(c)) {
			if (!c->error[0])
				nat_set_error(c, "cannot send the first call");
			nat_setup_done(c, false);
		}
	} else if (c->eng->sec != ENGINE_SEC_SYS) {
		if (nat_gss_start(c) < 0)
			nat_setup_done(c, false);
	} else {
		up_secured(c);
	}
}

static void up_down(struct engine_conn *c)
{
	if (c->sess)
		nat_sess_conn_down(c);
}

static int up_send_waiting(struct engine_conn *c, struct engine_req *req)
{
	/* A request on a name, or a READ, WRITE or COMMIT, after its wait (for a slot; then
	 * for RPCSEC_GSS's window, as the session's waiting list: -EBUSY keeps it first). */
	if (nat_gss_full(c))
		return -EBUSY;
	return req->path && !req->held ? nat_meta_send_waiting(c, req) : nat_io_send_v4(c, req);
}

static int start(struct engine_conn *c, struct engine_req *req)
{
	if (req->path && !req->held)	/* a held OPEN's path is its name (native_held4.c) */
		return nat_meta_queue(c, req);
	req->stage = 0;		/* tries so far (nat_retry_later) */
	return nat_io_queue(c, req);
}

/* Held while RPCSEC_GSS's window is full (nat_gss_full), in order, behind any held before. */
static bool held(struct engine_conn *c, struct engine_req *req)
{
	if (!c->held_head && !nat_gss_full(c))
		return false;
	nat_req_append(&c->held_head, &c->held_tail, req);
	return true;
}

static void up_send_held(struct engine_conn *c)
{
	while (c->held_head && c->state == NS_READY && !nat_gss_full(c)) {
		struct engine_req *req = c->held_head;
		int rc;

		c->held_head = req->priv[1];
		if (!c->held_head)
			c->held_tail = NULL;
		rc = start(c, req);
		if (rc < 0)
			nat_req_done(c, req, rc);
	}
}

/* Set-up ended: NFSv3's learning; NFSv4's locks held, LOCKed again under a new client. */
static void up_setup_end(struct engine_conn *c, bool ok)
{
	nat_known_done(c, ok);
	if (ok && c->sess)
		nat_lock4_setup(c);
}

static const struct nat_up life_up = {
	.connected = up_connected,
	.secured = up_secured,
	.down = up_down,
	.setup_end = up_setup_end,
	.bind = nat_v4_bind,
	.send_waiting = up_send_waiting,
	.send_held = up_send_held,
};

static void retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct engine_conn *c = w->data;
	struct engine_req *req = c->retry_head;

	(void)loop;
	(void)revents;
	c->retry_head = c->retry_tail = NULL;
	while (req) {
		struct engine_req *next = req->priv[1];

		if (req->path && !req->held)
			nat_meta_again(c, req);
		else if (c->state != NS_READY || nat_io_queue(c, req) < 0)
			nat_req_done(c, req, -EAGAIN);
		if (c->state == NS_DOWN)
			return;	/* lost: the owner counts the rest */
		req = next;
	}
}

/* Forgets the requests waiting to go again (drop, detach). */
static void retry_forget(struct engine_conn *c)
{
	if (c->t)
		ev_timer_stop(c->t->loop, &c->retry_timer);
	for (struct engine_req *req = c->retry_head; req; req = req->priv[1])
		if (req->path && !req->held)
			nat_meta_forget(req);
	c->retry_head = c->retry_tail = NULL;
}

int nat_conn_new(struct nat_engine *e, const struct engine_params *cfg, unsigned id,
		 const uint32_t *file_ids, uint32_t nfiles, struct engine_conn **out)
{
	struct engine_conn *c = calloc(1, sizeof(*c));
	char host[64];

	if (!c)
		return -ENOMEM;
	c->eng = e;
	c->proto = nat_proto_of(cfg);
	c->up = &life_up;
	c->cfg = cfg;
	c->id = id;
	c->srv = engine_server_of(cfg, id);
	c->nfiles = nfiles;
	c->file_ids = malloc(nfiles * sizeof(*c->file_ids) + 1);
	c->files = calloc(nfiles + 1, sizeof(*c->files));
	c->sock = xport_sock_new();
	if (!c->file_ids || !c->files || !c->sock || nat_calls_init(c, cfg->iodepth + 8) < 0 ||
	    (c->proto->sessions && nat_sess_join(c) < 0) || nat_held_new(c) < 0)
		goto fail;
	memcpy(c->file_ids, file_ids, nfiles * sizeof(*file_ids));
	rpc_rec_init(&c->rec, RPC_RECORD_MAX);
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "nfsload");
	host[sizeof(host) - 1] = '\0';
	snprintf(c->cred.machine, sizeof(c->cred.machine), "%s", host);
	c->cred.uid = cfg->opt.uid;
	c->cred.gid = cfg->opt.gid;
	c->cred.stamp = (uint32_t)now_ns();
	rpc_gss_init(&c->gss, nat_gss_svc(e));
	ev_init(&c->retry_timer, retry_cb);
	c->retry_timer.data = c;
	lowat_init(&c->lw, cfg);
	*out = c;
	return 0;
fail:
	nat_held_free(c);
	nat_calls_destroy(c);
	xport_sock_free(c->sock);
	free(c->files);
	free(c->file_ids);
	free(c);
	return -ENOMEM;
}

void nat_drop(struct engine_conn *c)
{
	nat_known_forget(c);
	retry_forget(c);
	c->held_head = c->held_tail = NULL;	/* not begun: nothing to forget */
	if (c->sess)
		nat_v4_calls_lost(c);	/* their slots may have been taken: not used again */
	xport_close(c->sock);
	nat_tap_leave(c);
	nat_calls_reset(c);
	rpc_rec_reset(&c->rec);
	for (uint32_t i = 0; i < c->nfiles; i++)
		c->files[i].open = false;
	nat_held_drop(c);
	nat_lock4_drop(c);
	if (c->sess)
		nat_sess_conn_down(c);
	c->root.len = 0;
	c->pending = c->next_file = 0;
	c->have_verf = false;
	c->state = NS_DOWN;
}

int nat_connect(struct engine_conn *c, struct engine_thread *t, const struct engine_cbs *cbs,
		void *owner)
{
	nat_drop(c);
	nat_set_thread(c, t);
	c->cbs = cbs;
	c->owner = owner;
	c->error[0] = '\0';
	c->step_start_ns = now_ns();
	return nat_known_go(c, nat_known_start(c));
}

int nat_queue(struct engine_conn *c, struct engine_req *req)
{
	if (c->state != NS_READY)
		return -ENOTCONN;
	return held(c, req) ? 0 : start(c, req);
}

struct teardown {
	struct ev_loop *loop;
	bool done;
};

static void td_ready(void *owner, struct engine_conn *c, bool ok)
{
	struct teardown *td = owner;

	(void)c;
	(void)ok;
	td->done = true;
	ev_break(td->loop, EVBREAK_ALL);
}

static void td_lost(void *owner, struct engine_conn *c)
{
	td_ready(owner, c, false);
}

static void td_done(void *owner, struct engine_req *req, int status)
{
	(void)owner;
	(void)req;
	(void)status;
}

static void td_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

/* Teardown on a private loop: the worker's may be gone, and the close is synchronous. */
static int close_own_loop(struct engine_conn *c)
{
	static const struct engine_cbs cbs = { .done = td_done, .lost = td_lost, .ready = td_ready };
	struct teardown td = { 0 };
	struct engine_thread t = { .eng = c->eng, .cfg = c->cfg };
	uint8_t scratch[4096];
	ev_timer timer;

	td.loop = ev_loop_new(EVBACKEND_EPOLL);
	if (!td.loop)
		return -ENOMEM;
	t.loop = td.loop;
	t.scratch = scratch;
	t.scratch_len = sizeof(scratch);
	t.xp = xport_new(td.loop, false, 1);
	if (!t.xp) {
		ev_loop_destroy(td.loop);
		return -ENOMEM;
	}
	nat_set_thread(c, &t);
	c->cbs = &cbs;
	c->owner = &td;
	nat_sock_attach(c, t.xp);
	c->state = NS_CLOSING;
	c->pending = c->next_file = c->close_m = 0;
	ev_timer_init(&timer, td_timeout, (double)c->cfg->timeout_ns / 1e9 + 1., 0.);
	ev_timer_start(td.loop, &timer);
	if (c->proto->close(c))
		ev_run(td.loop, 0);
	ev_timer_stop(td.loop, &timer);
	xport_close(c->sock);
	c->state = NS_DOWN;
	c->cbs = NULL;
	nat_set_thread(c, NULL);
	xport_free(t.xp);
	ev_loop_destroy(td.loop);
	return td.done ? 0 : -ETIMEDOUT;
}

void nat_attach(struct engine_conn *c, struct engine_thread *t, const struct engine_cbs *cbs,
		void *owner)
{
	/* Its thread's share of its session: unreachable failure (a share is made per thread). */
	if (c->sess && nat_sess_thread(c, t) < 0) {
		nat_set_error(c, "no share of its session for its thread");
		xport_close(c->sock);
		c->state = NS_DOWN;
	}
	nat_set_thread(c, t);
	c->cbs = cbs;
	c->owner = owner;
	if (xport_is_open(c->sock))
		nat_sock_attach(c, t->xp);
	/* Failing, every reply is left out of wire time. */
	if (nat_tap_thread(t) == 0 && t->tap && c->state == NS_READY)
		nat_tap_join(c);
	if (c->cfg->opt.max_load)
		lowat_watch(&t->lowat, &c->lw);
	if (c->retry_head)
		ev_timer_start(t->loop, &c->retry_timer);
}

void nat_detach(struct engine_conn *c)
{
	nat_known_forget(c);
	nat_tap_leave(c);
	lowat_unwatch(&c->lw);
	if (c->t) {
		ev_timer_stop(c->t->loop, &c->retry_timer);
		ev_timer_stop(c->t->loop, &c->grace_timer);
	}
	if (xport_is_open(c->sock))
		xport_detach(c->sock);
	c->cbs = NULL;
	c->owner = NULL;
	nat_set_thread(c, NULL);	/* the loop's thread may be freed next (set-up's is) */
}

void nat_commit(struct engine_conn *c)
{
	/* xport sends every socket's queued records when the loop turn ends. */
	if (c->state == NS_READY)
		lowat_update(&c->lw, c->inflight, c->cfg->opt.max_load);
}

void nat_tick(struct engine_conn *c)
{
	uint64_t now = now_ns();

	if (c->state == NS_DOWN)
		return;
	nat_calls_tick(c, now);
	if (c->state == NS_READY && c->proto->tick)
		c->proto->tick(c, now);
}

void nat_close(struct engine_conn *c)
{
	if (c->state == NS_READY && c->proto->close)
		close_own_loop(c);
}

void nat_conn_free(struct engine_conn *c)
{
	if (!c)
		return;
	nat_known_forget(c);
	nat_tap_destroy(c);
	xport_sock_free(c->sock);
	rpc_rec_destroy(&c->rec);
	nat_calls_destroy(c);
	nat_sess_leave(c);
	nat_meta_free(c);
	nat_held_free(c);
	nat_lock4_free(c);
	rpc_gss_reset(&c->gss);
	free(c->files);
	free(c->file_ids);
	free(c);
}

const char *nat_conn_error(const struct engine_conn *c)
{
	return c->error;
}
