/*
 * xport: the native engine's TCP sockets on one libev loop, through an
 * io_uring or through non-blocking sockets on libev (see xport.h). This file
 * is the contract's entry points: it picks the kind's backend table when a
 * transport is made (xport_uring.c, or xport_epoll.c as the fallback, the
 * way redis's ae.c picks ae_epoll.c or ae_kqueue.c) and hands the rest down
 * to the core (xport_sock.c), the send queues (xport_queue.c) and the table.
 * It knows nothing of RPC records (the caller reassembles them from data()).
 *
 * Sockets stay in blocking mode once connected; every non-blocking call
 * passes MSG_DONTWAIT, so a socket can move between rings and watchers freely.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>

#include "xport_int.h"

struct xport *xport_new(struct ev_loop *loop, bool want_uring, unsigned max_socks)
{
	struct xport *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->loop = loop;
	x->max_socks = max_socks ? max_socks : 1;
	x->efd = -1;
	x->be = &xp_epoll_backend;
	if (want_uring && xport_probe(NULL, 0) == 0) {
		x->be = &xp_uring_backend;
		x->fallback = &xp_epoll_backend;
	}
	xp_turn_init(x);
	if (x->be->init && x->be->init(x) < 0)
		xp_fall_back(x);
	return x;
}

void xport_free(struct xport *x)
{
	if (!x)
		return;
	while (!xp_link_empty(&x->socks)) {
		struct xport_sock *s = XP_OF(x->socks.next, struct xport_sock, all);

		if (s->state == XP_OPEN)
			xport_detach(s);
		else
			xport_close(s);
	}
	if (x->be->destroy)
		x->be->destroy(x);
	xp_turn_stop(x);
	free(x->rbuf);
	free(x);
}

enum xport_kind xport_kind(const struct xport *x)
{
	return x->be->kind;
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
	xp_link_init(&s->all);
	xp_link_init(&s->dl);
	xp_link_init(&s->wl);
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
	xp_sock_destroy(s);
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
	xp_start(x);
	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | x->be->sock_flags, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	memcpy(&s->sa, sa, salen);
	s->salen = salen;
	s->fd = fd;
	s->state = XP_CONNECTING;
	xp_peer_fill(s);
	xp_sock_link(s, x, cbs, arg);
	rc = x->be->connect(s);
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
	xp_sock_link(s, x, cbs, arg);
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
		xp_sock_unwatch(s, true);
	xp_sock_unlink(s);
}

void xport_close(struct xport_sock *s)
{
	if (s)
		xp_sock_close(s);
}

bool xport_is_open(const struct xport_sock *s)
{
	return s && s->state != XP_CLOSED;
}

/* Queued bytes leave when the loop turn ends (or, detached, after the next attach). */
static int queued(struct xport_sock *s, int rc)
{
	if (rc == 0 && s->x && s->state == XP_OPEN)
		xp_work(s, XP_W_SEND);
	return rc;
}

int xport_put(struct xport_sock *s, const void *p, size_t n)
{
	if (!s || s->state == XP_CLOSED)
		return -ENOTCONN;
	return queued(s, xp_queue_put(s, p, n));
}

int xport_put_ref(struct xport_sock *s, const void *p, size_t n)
{
	if (!s || s->state == XP_CLOSED)
		return -ENOTCONN;
	return queued(s, xp_queue_put_ref(s, p, n));
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
