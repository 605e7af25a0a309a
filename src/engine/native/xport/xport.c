/*
 * xport: the native engine's TCP sockets on one libev loop, through an
 * io_uring or through non-blocking sockets on libev (see xport.h). This file
 * owns what both kinds share: the contract's entry points, the sockets and
 * their lists, and the loop turn; the send queues are xport_queue.c's, the
 * blocking calls xport_sync.c's, the ring xport_uring.c's, the watchers
 * xport_epoll.c's (xport_int.h joins them). It knows nothing of RPC records (the caller reassembles them from
 * data()).
 *
 * The shape of a loop turn: calls into the module only queue (puts, arms,
 * connects, callbacks to deliver); the ev_prepare watcher, which runs before
 * the loop blocks, sends everything queued (one io_uring_submit for all
 * sockets, or one sendmsg per socket), reaps completions and runs callbacks.
 * Completions that arrive while the loop sleeps wake it (xport_uring.c says how).
 *
 * Sockets stay in blocking mode once connected; every non-blocking call
 * passes MSG_DONTWAIT, so a socket can move between rings, watchers and the
 * blocking control path freely.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xport_int.h"

#define XP_ROUNDS 8			/* deliver/submit/reap rounds per loop turn */

static void link_init(struct xp_link *l)
{
	l->prev = l->next = l;
}

static bool link_empty(const struct xp_link *l)
{
	return l->next == l;
}

static void link_del(struct xp_link *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	link_init(l);
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
	link_init(to);
	if (link_empty(from))
		return;
	to->next = from->next;
	to->prev = from->prev;
	to->next->prev = to;
	to->prev->next = to;
	link_init(from);
}

/* ---- sockets on the transport's lists */

static void sock_link(struct xport_sock *s, struct xport *x, const struct xport_cbs *cbs,
		      void *arg)
{
	s->x = x;
	s->cbs = *cbs;
	s->arg = arg;
	link_add(&x->socks, &s->all);
	x->nsocks++;
	xp_ring_watch(x);
}

static void sock_unlink(struct xport_sock *s)
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
	xp_ring_watch(x);
}

void xp_owe(struct xport_sock *s, unsigned flags)
{
	s->dflags |= flags;
	if (link_empty(&s->dl))
		link_add(&s->x->dl, &s->dl);
}

void xp_work(struct xport_sock *s, unsigned flags)
{
	s->wflags |= flags;
	if (link_empty(&s->wl))
		link_add(&s->x->wl, &s->wl);
}

static void sock_destroy(struct xport_sock *s)
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
			sock_destroy(s);
		return true;
	}
	if (rc && s->state != XP_CLOSED)
		xport_close(s);
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

/* Takes s off its transport's kernel machinery (the ring or the watchers). Bytes
 * the ring had already received go to the stash if keep. */
static void sock_unwatch(struct xport_sock *s, bool keep)
{
	struct xport *x = s->x;

	if (!x)
		return;
	if (ev_is_active(&s->rd))
		ev_io_stop(x->loop, &s->rd);
	if (ev_is_active(&s->wr))
		ev_io_stop(x->loop, &s->wr);
	if (s->id >= 0)
		xp_ring_unwatch(x, s, keep);
}

static void sock_close_fd(struct xport_sock *s)
{
	if (s->state == XP_CLOSED)
		return;
	sock_unwatch(s, false);
	close(s->fd);
	s->fd = -1;
	s->state = XP_CLOSED;
	xp_queue_drop(s);
	xp_stamp_off(s);
	free(s->stash);
	s->stash = NULL;
	s->stash_off = s->stash_len = 0;
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

/* ---- the loop turn */

static bool deliver(struct xport *x)
{
	struct xp_link batch;

	if (link_empty(&x->dl))
		return false;
	link_move(&x->dl, &batch);
	while (!link_empty(&batch)) {
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
			sock_unlink(s);
			xp_sock_call(s, XP_CB_LOST, s->err, NULL, 0);
		}
	}
	return true;
}

/* Does the kernel work queued on sockets. The ring is made here, on first use,
 * when may_start: on the loop's thread. */
static void build(struct xport *x, bool may_start)
{
	struct xp_link batch;

	if (link_empty(&x->wl))
		return;
	if (x->kind == XPORT_URING && !x->ring) {
		if (!may_start)
			return;
		xp_ring_start(x);
	}
	link_move(&x->wl, &batch);
	while (!link_empty(&batch)) {
		struct xport_sock *s = XP_OF(batch.next, struct xport_sock, wl);
		unsigned f = s->wflags;

		link_del(&s->wl);
		s->wflags = 0;
		if (x->kind == XPORT_URING)
			xp_ring_build(x, s, f);
		else
			xp_ep_build(x, s, f);
	}
}

/* One loop turn's work: callbacks owed (if calls), completions handled, all
 * sends and arms in one submit, completions reaped; repeated while that made
 * more work, then the loop is kept from blocking if work is left. */
bool xp_pump(struct xport *x, bool calls, bool events)
{
	int round;
	bool more, called = false;

	for (round = 0; round < XP_ROUNDS; round++) {
		bool busy = false;

		if (calls) {
			if (deliver(x))
				busy = called = true;
			busy |= xp_ring_process(x, &called);
		}
		build(x, calls);
		if (xp_ring_submit(x, calls, events))
			events = false;
		if (!calls)
			return false;
		if (xp_ring_reap(x))
			busy = true;
		if (!busy)
			break;
	}
	more = !link_empty(&x->dl) || !link_empty(&x->wl) || xp_ring_more(x);
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
	if (xp_pump(x, true, false) && !ev_is_active(&x->idle))
		ev_idle_start(loop, &x->idle);
}

/* Only keeps the loop from blocking; the prepare watcher does the work. */
static void idle_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
}


/* ---- the contract */

struct xport *xport_new(struct ev_loop *loop, bool want_uring, unsigned max_socks)
{
	struct xport *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->loop = loop;
	x->max_socks = max_socks ? max_socks : 1;
	x->kind = XPORT_EPOLL;
	link_init(&x->socks);
	link_init(&x->dl);
	link_init(&x->wl);
	xp_ring_setup(x, want_uring);
	ev_prepare_init(&x->prep, prep_cb);
	ev_prepare_start(loop, &x->prep);
	ev_unref(loop);
	ev_idle_init(&x->idle, idle_cb);
	return x;
}

void xport_free(struct xport *x)
{
	if (!x)
		return;
	while (!link_empty(&x->socks)) {
		struct xport_sock *s = XP_OF(x->socks.next, struct xport_sock, all);

		if (s->state == XP_OPEN)
			xport_detach(s);
		else
			xport_close(s);
	}
	xp_ring_destroy(x);
	if (ev_is_active(&x->idle))
		ev_idle_stop(x->loop, &x->idle);
	ev_ref(x->loop);
	ev_prepare_stop(x->loop, &x->prep);
	free(x->rbuf);
	free(x);
}

enum xport_kind xport_kind(const struct xport *x)
{
	return x->kind;
}

void xport_stats(const struct xport *x, struct xport_stats *st)
{
	*st = x->st;
}

struct xport_sock *xport_sock_new(void)
{
	struct xport_sock *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->fd = -1;
	s->id = -1;
	link_init(&s->all);
	link_init(&s->dl);
	link_init(&s->wl);
	xp_ep_sock_init(s);
	return s;
}

void xport_sock_free(struct xport_sock *s)
{
	if (!s)
		return;
	xport_close(s);
	if (s->busy) {
		s->doomed = true;
		return;
	}
	sock_destroy(s);
}

int xport_connect(struct xport_sock *s, struct xport *x, const struct sockaddr *sa,
		  socklen_t salen, const struct xport_cbs *cbs, void *arg)
{
	int fd, one = 1, rc;

	if (!s || !x || !sa || !cbs || salen > sizeof(s->sa))
		return -EINVAL;
	if (s->state != XP_CLOSED)
		return -EISCONN;
	xport_close(s);
	xp_ring_start(x);
	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC |
		    (x->kind == XPORT_EPOLL ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	memcpy(&s->sa, sa, salen);
	s->salen = salen;
	s->fd = fd;
	s->state = XP_CONNECTING;
	xp_peer_fill(s);
	sock_link(s, x, cbs, arg);
	rc = x->kind == XPORT_URING ? xp_ring_connect(s) : xp_ep_connect(s);
	if (rc < 0)
		xport_close(s);
	return rc;
}

void xport_attach(struct xport_sock *s, struct xport *x, const struct xport_cbs *cbs,
		  void *arg)
{
	if (!s || !x || !cbs || s->state != XP_OPEN)
		return;
	if (s->x)
		xport_detach(s);
	sock_link(s, x, cbs, arg);
	xp_work(s, XP_W_ARM);
	if (s->stash_len > s->stash_off)
		xp_owe(s, XP_D_STASH);
}

void xport_detach(struct xport_sock *s)
{
	if (!s || !s->x)
		return;
	if (s->state == XP_CONNECTING) {
		xport_close(s);
		return;
	}
	if (s->state == XP_OPEN)
		sock_unwatch(s, true);
	sock_unlink(s);
}

void xport_close(struct xport_sock *s)
{
	if (!s)
		return;
	sock_close_fd(s);
	sock_unlink(s);
}

bool xport_is_open(const struct xport_sock *s)
{
	return s && s->state != XP_CLOSED;
}

void xport_flush(struct xport *x)
{
	if (x)
		xp_pump(x, false, false);
}

int xport_set_lowat(struct xport_sock *s, int bytes)
{
	if (!s || s->state == XP_CLOSED)
		return -ENOTCONN;
	if (bytes < 1)
		bytes = 1;
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVLOWAT, &bytes, sizeof(bytes)) < 0)
		return -errno;
	return 0;
}

const char *xport_peer(const struct xport_sock *s)
{
	return s && s->peer[0] ? s->peer : "-";
}

int xport_addrs(const struct xport_sock *s, struct sockaddr_storage *local,
		struct sockaddr_storage *peer)
{
	socklen_t len = sizeof(*local);

	if (!s || s->state != XP_OPEN)
		return -ENOTCONN;
	if (getsockname(s->fd, (struct sockaddr *)local, &len) < 0)
		return -errno;
	*peer = s->sa;
	return 0;
}
