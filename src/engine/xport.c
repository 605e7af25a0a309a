/*
 * xport: the native engine's TCP sockets on one libev loop, through an
 * io_uring or through non-blocking sockets on libev (see xport.h). This file
 * owns what both kinds share: the contract's entry points, the sockets and
 * their lists, their send queues, the loop turn and the blocking calls; the
 * ring is xport_uring.c's, the watchers xport_epoll.c's (xport_int.h joins
 * them). It knows nothing of RPC records (the caller reassembles them from
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
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xport_int.h"

#define XP_CHUNK (64u * 1024)		/* copied bytes are kept in chunks this large */
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

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the send queue */

struct xp_seg *xp_seg_at(struct xport_sock *s, unsigned i)
{
	return &s->seg[(s->seg_head + i) & (s->seg_cap - 1)];
}

static int seg_push(struct xport_sock *s, const uint8_t *p, size_t n, struct xp_chunk *c)
{
	if (s->seg_n == s->seg_cap) {
		unsigned cap = s->seg_cap ? s->seg_cap * 2 : 16, i;
		struct xp_seg *seg = malloc(cap * sizeof(*seg));

		if (!seg)
			return -ENOMEM;
		for (i = 0; i < s->seg_n; i++)
			seg[i] = *xp_seg_at(s, i);
		free(s->seg);
		s->seg = seg;
		s->seg_cap = cap;
		s->seg_head = 0;
	}
	*xp_seg_at(s, s->seg_n++) = (struct xp_seg){ p, n, c };
	return 0;
}

/* The last segment, if it may still grow (it is not in a sendmsg). */
static struct xp_seg *seg_open_tail(struct xport_sock *s)
{
	if (s->seg_n == 0 || s->seg_n <= s->seg_busy)
		return NULL;
	return xp_seg_at(s, s->seg_n - 1);
}

/* Frees the chunks whose bytes are all sent; the last one is reused. */
static void chunks_release(struct xport_sock *s)
{
	while (s->c_head && s->c_head->done == s->c_head->used) {
		struct xp_chunk *c = s->c_head;

		if (!c->next) {
			c->used = c->done = 0;
			break;
		}
		s->c_head = c->next;
		if (!s->c_spare && c->cap == XP_CHUNK)
			s->c_spare = c;
		else
			free(c);
	}
}

void xp_queue_consume(struct xport_sock *s, size_t n)
{
	while (n > 0 && s->seg_n > 0) {
		struct xp_seg *g = xp_seg_at(s, 0);
		size_t k = n < g->n ? n : g->n;

		g->p += k;
		g->n -= k;
		n -= k;
		if (g->c)
			g->c->done += k;
		if (g->n == 0) {
			s->seg_head = (s->seg_head + 1) & (s->seg_cap - 1);
			s->seg_n--;
		}
	}
	chunks_release(s);
}

void xp_chunk_free_list(struct xp_chunk *c)
{
	while (c) {
		struct xp_chunk *next = c->next;

		free(c);
		c = next;
	}
}

static void queue_drop(struct xport_sock *s)
{
	xp_chunk_free_list(s->c_head);
	free(s->c_spare);
	s->c_head = s->c_tail = s->c_spare = NULL;
	s->seg_head = s->seg_n = s->seg_busy = 0;
}

unsigned xp_iov_fill(struct xport_sock *s, unsigned max, size_t *bytes)
{
	unsigned n = s->seg_n < max ? s->seg_n : max, i;

	if (n > s->iov_cap) {
		unsigned cap = s->iov_cap ? s->iov_cap : 8;
		struct iovec *iov;

		while (cap < n)
			cap *= 2;
		iov = realloc(s->iov, cap * sizeof(*iov));
		if (!iov)
			n = s->iov_cap;
		else {
			s->iov = iov;
			s->iov_cap = cap;
		}
	}
	*bytes = 0;
	for (i = 0; i < n; i++) {
		struct xp_seg *g = xp_seg_at(s, i);

		s->iov[i].iov_base = (void *)g->p;
		s->iov[i].iov_len = g->n;
		*bytes += g->n;
	}
	return n;
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
	queue_drop(s);
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

static void queued(struct xport_sock *s)
{
	if (s->x && s->state == XP_OPEN)
		xp_work(s, XP_W_SEND);
}

int xport_put(struct xport_sock *s, const void *p, size_t n)
{
	struct xp_chunk *c;
	struct xp_seg *g;
	uint8_t *dst;

	if (!s || s->state == XP_CLOSED)
		return -ENOTCONN;
	if (n == 0)
		return 0;
	c = s->c_tail;
	if (!c || c->cap - c->used < n) {
		if (s->c_spare && n <= s->c_spare->cap) {
			c = s->c_spare;
			s->c_spare = NULL;
		} else {
			size_t cap = n > XP_CHUNK ? n : XP_CHUNK;

			c = malloc(sizeof(*c) + cap);
			if (!c)
				return -ENOMEM;
			c->cap = cap;
		}
		c->next = NULL;
		c->used = c->done = 0;
		if (s->c_tail)
			s->c_tail->next = c;
		else
			s->c_head = c;
		s->c_tail = c;
	}
	dst = c->data + c->used;
	memcpy(dst, p, n);
	g = seg_open_tail(s);
	if (g && g->c == c && g->p + g->n == dst)
		g->n += n;
	else if (seg_push(s, dst, n, c) < 0)
		return -ENOMEM;
	c->used += n;
	queued(s);
	return 0;
}

int xport_put_ref(struct xport_sock *s, const void *p, size_t n)
{
	struct xp_seg *g;

	if (!s || s->state == XP_CLOSED)
		return -ENOTCONN;
	if (n == 0)
		return 0;
	g = seg_open_tail(s);
	if (g && !g->c && g->p + g->n == (const uint8_t *)p)
		g->n += n;
	else if (seg_push(s, p, n, NULL) < 0)
		return -ENOMEM;
	queued(s);
	return 0;
}

void xport_flush(struct xport *x)
{
	if (x)
		xp_pump(x, false, false);
}

/* Waits until fd is ready for ev or the deadline (ms, CLOCK_MONOTONIC; < 0: none). */
static int wait_fd(int fd, short ev, int64_t deadline)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = ev };
		int64_t left = deadline < 0 ? -1 : deadline - now_ms();
		int r;

		if (deadline >= 0 && left < 0)
			left = 0;
		r = poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

static int64_t deadline_of(int timeout_ms)
{
	return timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
}

/* Sends iov[0..cnt) (advanced in place) before the deadline; *sent counts. */
static int sync_sendv(int fd, struct iovec *iov, int cnt, int64_t deadline, size_t *sent)
{
	*sent = 0;
	while (cnt > 0) {
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)(cnt < IOV_MAX ? cnt : IOV_MAX) };
		ssize_t r;
		int rc;

		if (iov->iov_len == 0) {
			iov++;
			cnt--;
			continue;
		}
		r = sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return -errno;
			if ((rc = wait_fd(fd, POLLOUT, deadline)) < 0)
				return rc;
			continue;
		}
		*sent += (size_t)r;
		while (r > 0) {
			size_t k = (size_t)r < iov->iov_len ? (size_t)r : iov->iov_len;

			iov->iov_base = (uint8_t *)iov->iov_base + k;
			iov->iov_len -= k;
			r -= (ssize_t)k;
			if (iov->iov_len == 0) {
				iov++;
				cnt--;
			}
		}
	}
	return 0;
}

int xport_sync_send(struct xport_sock *s, const struct iovec *iov, int iovcnt, int timeout_ms)
{
	int64_t deadline = deadline_of(timeout_ms);
	struct iovec *copy;
	size_t total = 0, sent;
	int i, rc;

	if (!s || s->state != XP_OPEN)
		return -ENOTCONN;
	if (s->x)
		return -EBUSY;
	if (iovcnt < 0)
		return -EINVAL;
	while (s->seg_n) {
		size_t bytes, done;
		unsigned n = xp_iov_fill(s, IOV_MAX, &bytes);

		if (n == 0)
			return -ENOMEM;
		rc = sync_sendv(s->fd, s->iov, (int)n, deadline, &done);
		xp_queue_consume(s, done);
		if (rc < 0)
			return rc;
	}
	copy = malloc(((size_t)iovcnt + 1) * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	for (i = 0; i < iovcnt; i++) {
		copy[i] = iov[i];
		total += iov[i].iov_len;
	}
	rc = sync_sendv(s->fd, copy, iovcnt, deadline, &sent);
	free(copy);
	if (rc < 0)
		return rc;
	return total > INT_MAX ? INT_MAX : (int)total;
}

ssize_t xport_sync_recv(struct xport_sock *s, void *p, size_t n, int timeout_ms)
{
	int64_t deadline = deadline_of(timeout_ms);

	if (!s || s->state != XP_OPEN)
		return -ENOTCONN;
	if (s->x)
		return -EBUSY;
	if (s->stash_len > s->stash_off) {
		size_t k = s->stash_len - s->stash_off;

		if (k > n)
			k = n;
		memcpy(p, s->stash + s->stash_off, k);
		s->stash_off += k;
		if (s->stash_off == s->stash_len) {
			free(s->stash);
			s->stash = NULL;
			s->stash_off = s->stash_len = 0;
		}
		return (ssize_t)k;
	}
	for (;;) {
		ssize_t r = recv(s->fd, p, n, MSG_DONTWAIT);
		int rc;

		if (r >= 0)
			return r;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		if ((rc = wait_fd(s->fd, POLLIN, deadline)) < 0)
			return rc;
	}
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
