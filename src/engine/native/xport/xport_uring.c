/*
 * xport_uring: the io_uring kind of transport (see xport.h) at work. It turns
 * the work the core queues on sockets (arm, connect, recv, send) into requests
 * and their completions into callbacks, takes sockets off the ring, and owns
 * the watchers that wake the loop. The ring itself, its provided buffers and
 * the table of sockets are xport_ring.c's (xport_ring.h, the one include of
 * liburing, joins the two); the send queues are xport_queue.c's, the stash
 * and the loop turn itself the core's (xport_sock.c), which calls this file
 * only through its backend table, xp_uring_backend.
 *
 * How completions reach the loop: the ring runs its task work (which posts
 * them) cooperatively, when the loop's thread next leaves the kernel. A
 * sleeping epoll_wait is woken and returns EINTR, the work runs on the way
 * out, and an ev_check watcher handles the completions from memory in that
 * loop iteration. A wake costs no syscall beyond that epoll_wait and the one
 * submit of the sends it caused. Only io-wq workers post completions from
 * elsewhere (never seen here): an eventfd registered for those alone wakes
 * the loop then. (The ring fd in the loop would do too, but the kernel then
 * wakes its poll queue at every completion flush: 0.4 us per wake.)
 * DEFER_TASKRUN would cost an io_uring_enter per wake just to post them, and
 * its pending work does not wake a poll on the ring fd (Linux 6.18): it needs
 * an eventfd, signalled by the ring's own completions too, and a read per wake.
 * A ring whose thread sleeps in it (xport_sleep_in_ring: each poll of the loop
 * is an io_uring_enter, xport_wait.c) is made with DEFER_TASKRUN and needs
 * neither the eventfd nor its watcher: the ev_check watcher handles what the
 * poll reaped.
 *
 * Every socket's requests carry its table index and generation: completions
 * that come after the socket left the ring find an old generation and are
 * dropped (their buffers given back).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xport_ring.h"

#define XP_QUIESCE_TRIES 100		/* 10 ms waits for a cancelled socket's completions */
/*
 * Completions handled between two submits, at most. The ring's task work runs
 * (and takes a provided buffer for each socket with bytes in) when the thread
 * next leaves the kernel, so the longer between submits, the more sockets want
 * a buffer at once. 18,000 connections at iodepth 1 (9,000 sockets per ring,
 * 4,096 buffers): handling all the completions of a wake before the submit
 * meant 13,000 at a time and a receive ending for want of a buffer (ENOBUFS,
 * made again) for nearly every reply.
 */
#define XP_CHUNK 256u

static struct io_uring_sqe *ring_sqe(struct xport *x, const struct xport_sock *s, enum xp_op op)
{
	return xp_ring_sqe(x, ud_make(s, op));
}

static void sqe_target(struct io_uring_sqe *sqe, const struct xport_sock *s)
{
	if (s->fixed) {
		sqe->fd = s->id;
		sqe->flags |= IOSQE_FIXED_FILE;
	}
}

/* A receive's bytes in buffer bid: all res of them (recv), or a recvmsg's
 * payload, with the receive's time in *ns (0: none). *n 0: a recvmsg's end
 * of stream, or (NULL) a malformed buffer. */
static const uint8_t *rx_bytes(const struct xp_ring *r, const struct xport_sock *s,
			       const struct xp_cqe *c, size_t *n, uint64_t *ns)
{
	unsigned bid = c->flags >> IORING_CQE_BUFFER_SHIFT;
	uint8_t *b = r->bufs + (size_t)bid * r->bufsz + c->off;
	int res = c->res;
	struct io_uring_recvmsg_out *o;
	struct msghdr m;

	*ns = 0;
	if (!s->recv_msg) {
		*n = (size_t)res;
		return b;
	}
	*n = 0;
	o = io_uring_recvmsg_validate(b, res, (struct msghdr *)&s->rmsg);
	if (!o)
		return NULL;
	memset(&m, 0, sizeof(m));
	m.msg_control = (uint8_t *)(o + 1) + s->rmsg.msg_namelen;
	m.msg_controllen = o->controllen;
	*ns = stamp_rx_cmsg(&m);
	*n = o->payloadlen;
	return io_uring_recvmsg_payload(o, (struct msghdr *)&s->rmsg);
}

static int stash_add(struct xport_sock *s, const uint8_t *p, size_t n)
{
	uint8_t *b = realloc(s->stash, s->stash_len + n);

	if (!b)
		return -ENOMEM;
	memcpy(b + s->stash_len, p, n);
	s->stash = b;
	s->stash_len += n;
	return 0;
}

/* Applies the reaped, unhandled completions of s without callbacks (received bytes
 * to the stash if keep) and drops them from the backlog. */
static void ring_settle(struct xport *x, struct xport_sock *s, bool keep)
{
	struct xp_ring *r = x->ring;
	unsigned i;

	for (i = r->bl_pos; i < r->bl_n; i++) {
		struct xp_cqe *c = &r->bl[i];
		unsigned op = (unsigned)(c->user_data & 3);

		if (ud_sock(x, c->user_data) != s)
			continue;
		if (c->flags & IORING_CQE_F_BUFFER) {
			const uint8_t *p = NULL;
			uint64_t ns;
			size_t n = 0;

			if (op == XP_OP_RECV && c->res > 0 && keep)
				p = rx_bytes(r, s, c, &n, &ns);
			if (n && stash_add(s, p, n) == 0)
				x->st.stashed += n;
		}
		if (op == XP_OP_RECV && !(c->flags & IORING_CQE_F_MORE))
			s->recv_on = false;
		if (op == XP_OP_SEND) {
			s->send_on = false;
			s->seg_busy = 0;
			if (c->res > 0)
				xp_queue_consume(s, (size_t)c->res);
		}
		if (op == XP_OP_CONNECT)
			s->conn_on = false;
		/* Its buffer goes back when the completion is handled, in order. */
		c->user_data = 0;
	}
}

static bool ring_busy(const struct xport_sock *s)
{
	return s->recv_on || s->send_on || s->conn_on;
}

static void ring_cancel(struct xp_ring *r, const struct xport_sock *s, enum xp_op op)
{
	struct io_uring_sync_cancel_reg reg;

	memset(&reg, 0, sizeof(reg));
	reg.addr = ud_make(s, op);
	reg.flags = IORING_ASYNC_CANCEL_ALL;
	reg.timeout.tv_sec = -1;
	reg.timeout.tv_nsec = -1;
	io_uring_register_sync_cancel(&r->uring, &reg);
}

/* Takes s off the ring on its own thread: cancels its requests, waits for their
 * completions and unregisters its file, so the ring cannot consume its bytes. */
static void ring_quiesce(struct xport *x, struct xport_sock *s, bool keep)
{
	struct xp_ring *r = x->ring;
	int tries;

	/* Requests that wait for the loop's next poll (a ring the thread sleeps
	 * in) go now: a cancel finds only what was submitted, and s is busy until
	 * they end. */
	if (r->sq_pending)
		xp_ring_submit(x, false);
	/* By user_data, not by fd: a cancel by fd misses a multishot recv that an
	 * io-wq worker armed (seen with IOSQE_ASYNC, without DEFER_TASKRUN). */
	if (s->recv_on)
		ring_cancel(r, s, XP_OP_RECV);
	if (s->send_on)
		ring_cancel(r, s, XP_OP_SEND);
	if (s->conn_on)
		ring_cancel(r, s, XP_OP_CONNECT);
	for (tries = 0; ring_busy(s); tries++) {
		struct __kernel_timespec ts = { 0, 10 * 1000 * 1000 };
		struct io_uring_cqe *cqe;

		io_uring_get_events(&r->uring);
		xp_ring_reap(x);
		ring_settle(x, s, keep);
		if (!ring_busy(s))
			break;
		if (tries == XP_QUIESCE_TRIES) {
			/* Never seen: keep what a send may still read until the ring goes. */
			if (s->send_on && s->c_head) {
				s->c_tail->next = r->orphans;
				r->orphans = s->c_head;
				s->c_head = s->c_tail = NULL;
			}
			s->recv_on = s->send_on = s->conn_on = false;
			break;
		}
		io_uring_wait_cqe_timeout(&r->uring, &cqe, &ts);
	}
	ring_settle(x, s, keep);
	xp_sock_unregister(x, s, true);
}

/* Takes s off a ring whose thread has ended (the kernel cancelled its requests
 * then): no syscalls on the ring, its completions are read from memory. A send
 * whose completion is not there is taken as sent. */
static void ring_forget(struct xport *x, struct xport_sock *s)
{
	xp_ring_reap(x);
	ring_settle(x, s, true);
	if (s->send_on) {
		size_t n = 0;
		unsigned i;

		for (i = 0; i < s->seg_busy; i++)
			n += xp_seg_at(s, i)->n;
		s->seg_busy = 0;
		xp_queue_consume(s, n);
	}
	s->recv_on = s->send_on = s->conn_on = false;
	xp_sock_unregister(x, s, false);
}

static void ur_build(struct xport *x, struct xport_sock *s, unsigned f)
{
	struct io_uring_sqe *sqe;
	int rc;

	if (f & XP_W_ARM) {
		if (s->id < 0 && (rc = xp_sock_register(x, s)) < 0) {
			xp_sock_fail(s, rc);
			return;
		}
		f |= XP_W_RECV | XP_W_SEND;
	}
	if ((f & XP_W_CONNECT) && s->state == XP_CONNECTING && !s->conn_on) {
		if (!(sqe = ring_sqe(x, s, XP_OP_CONNECT))) {
			xp_work(s, f);
			return;
		}
		io_uring_prep_connect(sqe, s->fd, (struct sockaddr *)&s->sa, s->salen);
		sqe_target(sqe, s);
		s->conn_on = true;
	}
	if ((f & XP_W_RECV) && s->state == XP_OPEN && !s->recv_on) {
		if (!(sqe = ring_sqe(x, s, XP_OP_RECV))) {
			xp_work(s, f);
			return;
		}
		/* With timestamps on, a recvmsg: each buffer then starts with a header
		 * and the control message that carries the receive's time. */
		s->recv_msg = s->stamp;
		if (s->recv_msg) {
			memset(&s->rmsg, 0, sizeof(s->rmsg));
			s->rmsg.msg_controllen = STAMP_CMSG_SPACE;
			io_uring_prep_recvmsg_multishot(sqe, s->fd, &s->rmsg, 0);
		} else {
			io_uring_prep_recv_multishot(sqe, s->fd, NULL, 0, 0);
		}
		sqe_target(sqe, s);
		/* Poll first: a recv tried at once would take bytes below SO_RCVLOWAT. */
		sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = XP_BGID;
		s->recv_on = true;
	}
	if ((f & XP_W_SEND) && s->state == XP_OPEN && !s->send_on && s->seg_n) {
		size_t bytes;
		unsigned n = xp_iov_fill(s, IOV_MAX, &bytes);

		if (n == 0 || !(sqe = ring_sqe(x, s, XP_OP_SEND))) {
			xp_work(s, f);
			return;
		}
		memset(&s->msg, 0, sizeof(s->msg));
		s->msg.msg_iov = s->iov;
		s->msg.msg_iovlen = n;
		/* WAITALL: the kernel finishes the send itself instead of completing short. */
		io_uring_prep_sendmsg(sqe, s->fd, &s->msg, MSG_NOSIGNAL | MSG_WAITALL);
		sqe_target(sqe, s);
		s->send_on = true;
		s->seg_busy = n;
	}
}

static bool sock_on_ring(const struct xport *x, const struct xport_sock *s)
{
	return s->x == x && s->id >= 0 && x->ring->tab[s->id].s == s;
}

/* Handles one completion; whether that ran a callback. */
static bool ring_cqe(struct xport *x, const struct xp_cqe *c)
{
	struct xp_ring *r = x->ring;
	struct xport_sock *s = ud_sock(x, c->user_data);
	unsigned op = (unsigned)(c->user_data & 3);
	bool buf = c->flags & IORING_CQE_F_BUFFER, called = false;
	int res = c->res;

	if (c->user_data == XP_UD_LOOP) {
		x->loop_fired = true;
		if (!(c->flags & IORING_CQE_F_MORE))
			x->loop_poll = false;
		return false;
	}
	if (!s) {
		xp_buf_back(r, c);
		return false;
	}
	switch (op) {
	case XP_OP_RECV:
		if (!(c->flags & IORING_CQE_F_MORE))
			s->recv_on = false;
		if (res > 0 && buf) {
			size_t n;
			const uint8_t *p = rx_bytes(r, s, c, &n, &s->rx_ns);
			bool gone;

			if (n == 0) {
				xp_buf_back(r, c);
				xp_sock_fail(s, p ? 0 : -EBADMSG);	/* a recvmsg's end of stream */
				return false;
			}
			gone = xp_sock_call(s, XP_CB_DATA, 0, p, n);
			xp_buf_back(r, c);
			if (gone)
				return true;
			called = true;
		} else {
			xp_buf_back(r, c);
			if (res == -ENOBUFS) {
				xp_bufs_grow(r, r->nbufs * 2);
				if (!s->recv_on && sock_on_ring(x, s) && s->state == XP_OPEN)
					xp_starve(r, s);
				break;
			}
			if (res == 0 || (res < 0 && res != -ECANCELED &&
					 res != -EAGAIN && res != -EINTR)) {
				xp_sock_fail(s, res);
				return false;
			}
		}
		if (!s->recv_on && sock_on_ring(x, s) && s->state == XP_OPEN)
			xp_work(s, XP_W_RECV);
		break;
	case XP_OP_SEND:
		s->send_on = false;
		s->seg_busy = 0;
		if (res > 0)
			xp_queue_consume(s, (size_t)res);
		else if (res < 0 && res != -ECANCELED && res != -EAGAIN && res != -EINTR) {
			xp_sock_fail(s, res);
			return false;
		}
		if (s->seg_n && sock_on_ring(x, s))
			xp_work(s, XP_W_SEND);
		break;
	case XP_OP_CONNECT:
		s->conn_on = false;
		if (res < 0) {
			xp_sock_close(s);
			xp_sock_call(s, XP_CB_CONNECTED, res, NULL, 0);
			return true;
		}
		s->state = XP_OPEN;
		xp_peer_fill(s);
		xp_work(s, XP_W_RECV | XP_W_SEND);
		xp_sock_call(s, XP_CB_CONNECTED, 0, NULL, 0);
		return true;
	default:
		break;
	}
	return called;
}

static bool ur_process(struct xport *x, bool *called)
{
	struct xp_ring *r = x->ring;
	unsigned n;
	bool any;

	if (!r)
		return false;
	any = r->bl_pos < r->bl_n;
	for (n = 0; n < XP_CHUNK && r->bl_pos < r->bl_n; n++) {
		struct xp_cqe c = r->bl[r->bl_pos++];

		if (ring_cqe(x, &c))
			*called = true;
	}
	if (r->bl_pos == r->bl_n)
		r->bl_pos = r->bl_n = 0;
	if (r->st_n)
		xp_feed(x);
	return any;
}

/* Task work that has not run yet: the next syscall runs it. */
static bool ring_work_waits(const struct io_uring *ring)
{
	return IO_URING_READ_ONCE(*ring->sq.kflags) & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW);
}

static bool ur_more(const struct xport *x)
{
	struct xp_ring *r = x->ring;

	return r && (r->bl_pos < r->bl_n || io_uring_cq_ready(&r->uring) ||
		     io_uring_cq_has_overflow(&r->uring) || (r->st_n && r->held < r->nbufs));
}

/* After every poll of the loop, before its callbacks. The usual wake is an
 * epoll_wait that the ring's task work interrupted (EINTR, no fd ready): the
 * work ran on the way out and its completions are handled here, in the same
 * iteration, so an ev_run(EVRUN_ONCE) returns after their callbacks. */
static void chk_cb(struct ev_loop *loop, ev_check *w, int revents)
{
	struct xport *x = XP_OF(w, struct xport, ring_chk);

	(void)loop;
	(void)revents;
	if (!x->ring || (!ur_more(x) && !ring_work_waits(&x->ring->uring)))
		return;
	x->st.wakeups++;
	xp_pump(x);
}

/* An io-wq worker posted completions (or, without the eventfd, the ring has
 * some); found none: the check watcher had them. */
static void ring_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct xport *x = XP_OF(w, struct xport, ring_w);
	uint64_t cqes, v;
	ssize_t n;

	(void)loop;
	(void)revents;
	x->st.wakeups++;
	if (x->efd >= 0) {
		n = read(x->efd, &v, sizeof(v));
		(void)n;
	}
	if (!x->ring || (!io_uring_cq_ready(&x->ring->uring) && !ring_work_waits(&x->ring->uring))) {
		x->st.empty_wakeups++;
		return;
	}
	cqes = x->st.cqes;
	xp_pump(x);
	if (x->st.cqes == cqes)
		x->st.empty_wakeups++;
}

static int ur_init(struct xport *x)
{
	x->efd = -1;
	x->loop_fd = -1;
	ev_io_init(&x->ring_w, ring_cb, -1, EV_READ);
	ev_check_init(&x->ring_chk, chk_cb);
	return 0;
}

/* Watches the ring (its fd, and after each poll) while it has sockets. */
static void ur_watch(struct xport *x)
{
	bool want = x->nsocks > 0 && x->ring;

	if (want && !ev_is_active(&x->ring_chk)) {
		/* A ring the thread sleeps in needs no watcher to wake the loop. */
		if (!x->ring_waits) {
			ev_io_start(x->loop, &x->ring_w);
			ev_unref(x->loop);
		}
		ev_check_start(x->loop, &x->ring_chk);
	} else if (!want && ev_is_active(&x->ring_chk)) {
		if (ev_is_active(&x->ring_w)) {
			ev_io_stop(x->loop, &x->ring_w);
			ev_ref(x->loop);
		}
		ev_check_stop(x->loop, &x->ring_chk);
	}
}

/* The ring is made on the loop's thread, as IORING_SETUP_SINGLE_ISSUER wants. */
static int ur_start(struct xport *x)
{
	int rc;

	if (x->ring)
		return 0;
	if ((rc = xp_ring_up(x)) < 0)
		return rc;
	ev_io_set(&x->ring_w, x->efd >= 0 ? x->efd : x->ring->uring.ring_fd, EV_READ);
	ur_watch(x);
	return 0;
}

static int ur_connect(struct xport_sock *s)
{
	int rc = xp_sock_register(s->x, s);

	if (rc < 0)
		return rc;
	xp_work(s, XP_W_CONNECT);
	return 0;
}

static void ur_unwatch(struct xport *x, struct xport_sock *s, bool keep)
{
	if (s->id < 0)
		return;
	if (xp_ring_owner(x))
		ring_quiesce(x, s, keep);
	else
		ring_forget(x, s);
}

/* Submits what waits, and runs task work that has not run yet, collecting its
 * completions. */
static bool ur_submit(struct xport *x)
{
	if (!x->ring || !(x->ring->sq_pending || ring_work_waits(&x->ring->uring)))
		return false;
	xp_ring_submit(x, true);
	return true;
}

static bool ur_reap(struct xport *x)
{
	return x->ring && xp_ring_reap(x);
}

static void ur_destroy(struct xport *x)
{
	if (ev_is_active(&x->ring_w)) {
		ev_io_stop(x->loop, &x->ring_w);
		ev_ref(x->loop);
	}
	if (ev_is_active(&x->ring_chk))
		ev_check_stop(x->loop, &x->ring_chk);
	xp_ring_down(x);
}

const struct xp_backend xp_uring_backend = {
	.kind = XPORT_URING,
	.init = ur_init,
	.start = ur_start,
	.watch = ur_watch,
	.connect = ur_connect,
	.build = ur_build,
	.unwatch = ur_unwatch,
	.process = ur_process,
	.submit = ur_submit,
	.reap = ur_reap,
	.more = ur_more,
	.wait = xp_ring_wait,
	.destroy = ur_destroy,
};
