/*
 * xport_epoll: the libev kind of transport (see xport.h), for where io_uring
 * cannot be used: a read and a write watcher per socket, one read buffer per
 * transport, each socket's queue sent with sendmsg (MSG_DONTWAIT) when the
 * loop turn ends and again when the socket is writable. The send queue and
 * the loop turn are the core's (xport_sock.c), which calls this file only
 * through its backend table.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "xport_int.h"

#define XP_RBUF (256u * 1024)		/* the read buffer, one per xport */
#define XP_READS 4			/* recv calls per socket per wakeup */

/* Sends the queue: 0 when all went, 1 when the socket is full, or -errno. */
static int ep_send(struct xport *x, struct xport_sock *s)
{
	while (s->seg_n) {
		size_t bytes;
		unsigned n = xp_iov_fill(s, IOV_MAX, &bytes);
		ssize_t r;

		if (n == 0)
			return -ENOMEM;
		memset(&s->msg, 0, sizeof(s->msg));
		s->msg.msg_iov = s->iov;
		s->msg.msg_iovlen = n;
		r = sendmsg(s->fd, &s->msg, MSG_DONTWAIT | MSG_NOSIGNAL);
		x->st.sendcalls++;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 1;
			return -errno;
		}
		xp_queue_consume(s, (size_t)r);
		if ((size_t)r < bytes)
			return 1;
	}
	return 0;
}

static void ep_open(struct xport_sock *s)
{
	int fl = fcntl(s->fd, F_GETFL);

	if (fl >= 0 && (fl & O_NONBLOCK))
		fcntl(s->fd, F_SETFL, fl & ~O_NONBLOCK);
	s->state = XP_OPEN;
	xp_peer_fill(s);
	xp_work(s, XP_W_ARM);
}

static void ep_rd_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct xport_sock *s = XP_OF(w, struct xport_sock, rd);
	struct xport *x = s->x;
	int i;

	(void)loop;
	(void)revents;
	x->st.wakeups++;
	if (!x->rbuf && !(x->rbuf = malloc(XP_RBUF))) {
		xp_sock_fail(s, -ENOMEM);
		return;
	}
	for (i = 0; i < XP_READS; i++) {
		ssize_t n = xp_stamp_recv(s, x->rbuf, XP_RBUF);

		if (n > 0) {
			if (xp_sock_call(s, XP_CB_DATA, 0, x->rbuf, (size_t)n) || s->x != x ||
			    !ev_is_active(&s->rd) || (size_t)n < XP_RBUF)
				return;
			continue;
		}
		if (n == 0) {
			xp_sock_fail(s, 0);
			return;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			xp_sock_fail(s, -errno);
		else if (s->stamp)
			xp_stamp_drain(s);	/* a send timestamp woke it: epoll is level-triggered */
		return;
	}
}

static void ep_wr_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct xport_sock *s = XP_OF(w, struct xport_sock, wr);
	struct xport *x = s->x;
	int rc;

	(void)revents;
	if (s->state == XP_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		ev_io_stop(loop, w);
		if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		if (err) {
			xp_sock_close(s);
			xp_sock_call(s, XP_CB_CONNECTED, -err, NULL, 0);
			return;
		}
		ep_open(s);
		xp_sock_call(s, XP_CB_CONNECTED, 0, NULL, 0);
		return;
	}
	rc = ep_send(x, s);
	if (rc <= 0)
		ev_io_stop(loop, w);
	if (rc < 0)
		xp_sock_fail(s, rc);
}

static void ep_build(struct xport *x, struct xport_sock *s, unsigned f)
{
	int rc;

	if (f & XP_W_ARM) {
		ev_io_init(&s->rd, ep_rd_cb, s->fd, EV_READ);
		ev_io_start(x->loop, &s->rd);
		f |= XP_W_SEND;
	}
	if ((f & XP_W_SEND) && s->state == XP_OPEN && s->seg_n && !ev_is_active(&s->wr)) {
		rc = ep_send(x, s);
		if (rc > 0) {
			ev_io_init(&s->wr, ep_wr_cb, s->fd, EV_WRITE);
			ev_io_start(x->loop, &s->wr);
		} else if (rc < 0) {
			xp_sock_fail(s, rc);
		}
	}
}

static int ep_connect(struct xport_sock *s)
{
	if (connect(s->fd, (const struct sockaddr *)&s->sa, s->salen) == 0) {
		ep_open(s);
		xp_owe(s, XP_D_CONNECTED);
		return 0;
	}
	if (errno != EINPROGRESS)
		return -errno;
	ev_io_init(&s->wr, ep_wr_cb, s->fd, EV_WRITE);
	ev_io_start(s->x->loop, &s->wr);
	return 0;
}

static void ep_unwatch(struct xport *x, struct xport_sock *s, bool keep)
{
	(void)keep;	/* a socket here has received nothing it has not handed on */
	if (ev_is_active(&s->rd))
		ev_io_stop(x->loop, &s->rd);
	if (ev_is_active(&s->wr))
		ev_io_stop(x->loop, &s->wr);
}

const struct xp_backend xp_epoll_backend = {
	.kind = XPORT_EPOLL,
	.sock_flags = SOCK_NONBLOCK,
	.connect = ep_connect,
	.build = ep_build,
	.unwatch = ep_unwatch,
};
