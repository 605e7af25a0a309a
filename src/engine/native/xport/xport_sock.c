/*
 * xport_sock: the transport's core (see xport_int.h). It owns the sockets on
 * their transport's lists, the callbacks owed to the caller and how they run,
 * closing, and the loop turn. It reaches the kind of transport (io_uring or
 * epoll) only through the backend table chosen at xport_new, so it calls no
 * backend by name: the backends call down into it.
 *
 * The shape of a loop turn: calls into the module only queue (puts, arms,
 * connects, callbacks to deliver); the ev_prepare watcher, which runs before
 * the loop blocks, sends everything queued (one io_uring_submit for all
 * sockets, or one sendmsg per socket), reaps completions and runs callbacks.
 * Completions that arrive while the loop sleeps wake it (xport_uring.c says how).
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "xport_int.h"

#define XP_ROUNDS 8			/* deliver/submit/reap rounds per loop turn */

void xp_link_init(struct xp_link *l)
{
	l->prev = l->next = l;
}

bool xp_link_empty(const struct xp_link *l)
{
	return l->next == l;
}

static void link_del(struct xp_link *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	xp_link_init(l);
}

static void link_add(struct xp_link *head, struct xp_link *l)
{
	l->prev = head->prev;
	l->next = head;
	head->prev->next = l;
	head->prev = l;
}

static void link_move(struct xp_link *from, struct xp_link *to)
{
	xp_link_init(to);
	if (xp_link_empty(from))
		return;
	to->next = from->next;
	to->prev = from->prev;
	to->next->prev = to;
	to->prev->next = to;
	xp_link_init(from);
}

/* ---- sockets on the transport's lists */

static void watch(struct xport *x)
{
	if (x->be->watch)
		x->be->watch(x);
}

void xp_sock_link(struct xport_sock *s, struct xport *x, const struct xport_cbs *cbs,
		  void *arg)
{
	s->x = x;
	s->cbs = *cbs;
	s->arg = arg;
	link_add(&x->socks, &s->all);
	x->nsocks++;
	watch(x);
}

void xp_sock_unlink(struct xport_sock *s)
{
	struct xport *x = s->x;

	if (!x)
		return;
	link_del(&s->all);
	link_del(&s->dl);
	link_del(&s->wl);
	s->dflags = s->wflags = 0;
	s->x = NULL;
	x->nsocks--;
	watch(x);
}

void xp_owe(struct xport_sock *s, unsigned flags)
{
	s->dflags |= flags;
	if (xp_link_empty(&s->dl))
		link_add(&s->x->dl, &s->dl);
}

void xp_work(struct xport_sock *s, unsigned flags)
{
	s->wflags |= flags;
	if (xp_link_empty(&s->wl))
		link_add(&s->x->wl, &s->wl);
}

void xp_sock_destroy(struct xport_sock *s)
{
	free(s->seg);
	free(s->iov);
	free(s);
}

bool xp_sock_call(struct xport_sock *s, enum xp_cb cb, int err, const uint8_t *p, size_t n)
{
	int rc = 0;

	s->busy++;
	if (cb == XP_CB_CONNECTED)
		s->cbs.connected(s->arg, err);
	else if (cb == XP_CB_LOST)
		s->cbs.lost(s->arg, err);
	else
		rc = s->cbs.data(s->arg, p, n);
	s->busy--;
	if (s->doomed) {
		if (!s->busy)
			xp_sock_destroy(s);
		return true;
	}
	if (rc && s->state != XP_CLOSED)
		xp_sock_close(s);
	return false;
}

void xp_peer_fill(struct xport_sock *s)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV];
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);
	const struct sockaddr *sa = (const struct sockaddr *)&s->sa;
	bool v6 = sa->sa_family == AF_INET6;
	int n;

	if (getnameinfo(sa, s->salen, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
		snprintf(s->peer, sizeof(s->peer), "?");
		return;
	}
	n = snprintf(s->peer, sizeof(s->peer), "%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "",
		     serv);
	if (s->state == XP_OPEN && getsockname(s->fd, (struct sockaddr *)&local, &len) == 0 &&
	    getnameinfo((struct sockaddr *)&local, len, NULL, 0, serv, sizeof(serv),
			NI_NUMERICSERV) == 0 && n > 0 && (size_t)n < sizeof(s->peer))
		snprintf(s->peer + n, sizeof(s->peer) - (size_t)n, " (local port %s)", serv);
}

/* ---- closing */

void xp_sock_unwatch(struct xport_sock *s, bool keep)
{
	if (s->x)
		s->x->be->unwatch(s->x, s, keep);
}

static void sock_close_fd(struct xport_sock *s)
{
	if (s->state == XP_CLOSED)
		return;
	xp_sock_unwatch(s, false);
	close(s->fd);
	s->fd = -1;
	s->state = XP_CLOSED;
	xp_queue_drop(s);
	xp_stamp_off(s);
	free(s->stash);
	s->stash = NULL;
	s->stash_off = s->stash_len = 0;
}

void xp_sock_close(struct xport_sock *s)
{
	sock_close_fd(s);
	xp_sock_unlink(s);
}

void xp_sock_fail(struct xport_sock *s, int err)
{
	struct xport *x = s->x;

	sock_close_fd(s);
	if (!x)
		return;
	link_del(&s->wl);
	s->wflags = 0;
	s->err = err;
	xp_owe(s, XP_D_LOST);
}

/* ---- the backend's start */

void xp_fall_back(struct xport *x)
{
	if (!x->fallback || x->be == x->fallback)
		return;
	x->be = x->fallback;
	if (x->be->init)
		x->be->init(x);
	watch(x);
}

void xp_start(struct xport *x)
{
	if (x->be->start && x->be->start(x) < 0)
		xp_fall_back(x);
}

/* ---- the loop turn */

static bool deliver(struct xport *x)
{
	struct xp_link batch;

	if (xp_link_empty(&x->dl))
		return false;
	link_move(&x->dl, &batch);
	while (!xp_link_empty(&batch)) {
		struct xport_sock *s = XP_OF(batch.next, struct xport_sock, dl);
		unsigned f = s->dflags;

		link_del(&s->dl);
		s->dflags = 0;
		if ((f & XP_D_STASH) && s->stash_len > s->stash_off) {
			uint8_t *b = s->stash;
			size_t off = s->stash_off, len = s->stash_len;
			bool gone;

			s->stash = NULL;
			s->stash_off = s->stash_len = 0;
			s->rx_ns = 0;
			gone = xp_sock_call(s, XP_CB_DATA, 0, b + off, len - off);
			free(b);
			if (gone || s->x != x)
				continue;
		}
		if ((f & XP_D_CONNECTED) && s->state == XP_OPEN &&
		    xp_sock_call(s, XP_CB_CONNECTED, 0, NULL, 0))
			continue;
		if (f & XP_D_LOST) {
			xp_sock_unlink(s);
			xp_sock_call(s, XP_CB_LOST, s->err, NULL, 0);
		}
	}
	return true;
}

/* Does the kernel work queued on sockets; the backend starts here on first use
 * (on the loop's thread). */
static void build(struct xport *x)
{
	struct xp_link batch;

	if (xp_link_empty(&x->wl))
		return;
	xp_start(x);
	link_move(&x->wl, &batch);
	while (!xp_link_empty(&batch)) {
		struct xport_sock *s = XP_OF(batch.next, struct xport_sock, wl);
		unsigned f = s->wflags;

		link_del(&s->wl);
		s->wflags = 0;
		x->be->build(x, s, f);
	}
}

/* Repeated while a round made more work, then the loop is kept from blocking if
 * work is left. */
bool xp_pump(struct xport *x)
{
	const struct xp_backend *be = x->be;
	int round;
	bool more, called = false;

	for (round = 0; round < XP_ROUNDS; round++) {
		bool busy = false;

		if (deliver(x))
			busy = called = true;
		if (be->process && be->process(x, &called))
			busy = true;
		build(x);
		be = x->be;		/* (a backend that could not start fell back) */
		/* In a ring the thread sleeps in, what waits rides the loop's next
		 * poll, unless reaped completions are left for the next round (more
		 * than XP_CHUNK: xport_uring.c says why that needs a submit). */
		if (be->submit && (!x->ring_waits || (be->more && be->more(x))))
			be->submit(x);
		if (be->reap && be->reap(x))
			busy = true;
		if (!busy)
			break;
	}
	more = !xp_link_empty(&x->dl) || !xp_link_empty(&x->wl) || (be->more && be->more(x));
	if (more && !ev_is_active(&x->idle))
		ev_idle_start(x->loop, &x->idle);
	else if (!more && ev_is_active(&x->idle))
		ev_idle_stop(x->loop, &x->idle);
	return called;
}

static void prep_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct xport *x = XP_OF(w, struct xport, prep);

	(void)revents;
	/* Callbacks ran after the loop's last poll (a reply that came during the
	 * submit): the loop must not block now, or an ev_run(EVRUN_ONCE) waiting
	 * on what they changed would wait for the next event. */
	if (xp_pump(x) && !ev_is_active(&x->idle))
		ev_idle_start(loop, &x->idle);
}

/* Only keeps the loop from blocking; the prepare watcher does the work. */
static void idle_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
}

void xp_turn_init(struct xport *x)
{
	xp_link_init(&x->socks);
	xp_link_init(&x->dl);
	xp_link_init(&x->wl);
	ev_prepare_init(&x->prep, prep_cb);
	ev_prepare_start(x->loop, &x->prep);
	ev_unref(x->loop);
	ev_idle_init(&x->idle, idle_cb);
}

void xp_turn_stop(struct xport *x)
{
	if (ev_is_active(&x->idle))
		ev_idle_stop(x->loop, &x->idle);
	ev_ref(x->loop);
	ev_prepare_stop(x->loop, &x->prep);
}
