/*
 * xport unit tests: the native engine's sockets against a loopback TCP server
 * run by a thread of this test (echo, close at once, or accept and never read).
 * Every case runs once for each kind of transport; the io_uring cases are
 * skipped (cmocka's skip(), counted as skipped by make test), with the reason
 * printed, only if xport_probe says no.
 *
 * XPORT_BENCH_N=100000 sets the number of round trips of the ping-pong case
 * (default 2000), which prints the client thread's CPU time per round trip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>

#include "engine/native/xport/xport.h"

#define MIB (1024u * 1024)

static const enum xport_kind kind_epoll = XPORT_EPOLL, kind_uring = XPORT_URING;
static bool uring_ok;
static char uring_why[160];

static const char *kind_name(enum xport_kind k)
{
	return k == XPORT_URING ? "io_uring" : "epoll";
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the server */

/* SRV_SLOW: echoes after reading nothing for its first 300 ms */
enum srv_mode { SRV_ECHO, SRV_CLOSE, SRV_HOLD, SRV_SLOW };

#define SRV_CONNS 256

struct srv {
	enum srv_mode mode;
	int lfd, stop[2];
	uint16_t port;
	pthread_t acceptor;
	int fds[SRV_CONNS];
	pthread_t th[SRV_CONNS];
	bool has_th[SRV_CONNS];
	int n;
};

static void *srv_echo(void *arg)
{
	int fd = (int)((intptr_t)arg & 0xffffff);
	uint8_t *buf = malloc(256 * 1024);

	if ((intptr_t)arg >> 24)
		usleep(300000);
	for (; buf;) {
		ssize_t n = recv(fd, buf, 256 * 1024, 0), off = 0;

		if (n <= 0)
			break;
		while (off < n) {
			ssize_t w = send(fd, buf + off, (size_t)(n - off), MSG_NOSIGNAL);

			if (w <= 0)
				goto out;
			off += w;
		}
	}
out:
	free(buf);
	return NULL;
}

static void *srv_accept(void *arg)
{
	struct srv *v = arg;

	for (;;) {
		struct pollfd p[2] = { { v->lfd, POLLIN, 0 }, { v->stop[0], POLLIN, 0 } };
		int fd;

		if (poll(p, 2, -1) < 0 || p[1].revents)
			break;
		fd = accept(v->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		if (v->mode == SRV_CLOSE || v->n == SRV_CONNS) {
			close(fd);
			continue;
		}
		v->fds[v->n] = fd;
		v->has_th[v->n] = (v->mode == SRV_ECHO || v->mode == SRV_SLOW) &&
			pthread_create(&v->th[v->n], NULL, srv_echo,
				       (void *)((intptr_t)fd | (intptr_t)(v->mode == SRV_SLOW) << 24)) == 0;
		v->n++;
	}
	return NULL;
}

/* On the heap: a case that fails leaves its server running, never on a dead frame. */
static struct srv *srv_start(enum srv_mode mode)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	struct srv *v = calloc(1, sizeof(*v));
	int one = 1;

	assert_non_null(v);
	v->mode = mode;
	v->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(v->lfd >= 0);
	setsockopt(v->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	assert_int_equal(bind(v->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(v->lfd, 256), 0);
	assert_int_equal(getsockname(v->lfd, (struct sockaddr *)&a, &len), 0);
	v->port = ntohs(a.sin_port);
	assert_int_equal(pipe(v->stop), 0);
	assert_int_equal(pthread_create(&v->acceptor, NULL, srv_accept, v), 0);
	return v;
}

static void srv_stop(struct srv *v)
{
	int i;

	assert_int_equal(write(v->stop[1], "x", 1), 1);
	pthread_join(v->acceptor, NULL);
	for (i = 0; i < v->n; i++)
		shutdown(v->fds[i], SHUT_RDWR);
	for (i = 0; i < v->n; i++) {
		if (v->has_th[i])
			pthread_join(v->th[i], NULL);
		close(v->fds[i]);
	}
	close(v->lfd);
	close(v->stop[0]);
	close(v->stop[1]);
	free(v);
}

static struct sockaddr_in srv_addr(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	return a;
}

/* ---- the client: a byte stream whose every byte says where it belongs */

static uint8_t pat(uint64_t i)
{
	return (uint8_t)((i ^ (i >> 7) ^ (i >> 17)) * 31 + 7);
}

static void fill(uint8_t *p, size_t n, uint64_t off)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = pat(off + i);
}

struct cli {
	struct xport_sock *s;
	uint64_t tx, rx;
	uint64_t bad_at;		/* first wrong byte + 1, or 0 */
	void **refs;			/* put_ref buffers, freed at the end */
	int nrefs, cap_refs;
	int connected, conn_err, lost, lost_err, data_calls;
	int data_rc;			/* what data() returns */
	bool free_in_data;		/* data() frees the socket */
	bool count_only;		/* data() counts bytes, checks nothing (benchmark) */
	uint64_t detach_at;		/* data() detaches once this many bytes are back */
	bool detached;
};

static void cb_connected(void *arg, int err)
{
	struct cli *c = arg;

	c->connected++;
	c->conn_err = err;
}

static int cb_data(void *arg, const uint8_t *p, size_t n)
{
	struct cli *c = arg;
	size_t i;

	for (i = 0; i < n && !c->bad_at && !c->count_only; i++)
		if (p[i] != pat(c->rx + i))
			c->bad_at = c->rx + i + 1;
	c->rx += n;
	c->data_calls++;
	if (c->detach_at && c->rx >= c->detach_at) {
		xport_detach(c->s);
		c->detach_at = 0;
		c->detached = true;
	}
	if (c->free_in_data) {
		xport_sock_free(c->s);
		c->s = NULL;
	}
	return c->data_rc;
}

static void cb_lost(void *arg, int err)
{
	struct cli *c = arg;

	c->lost++;
	c->lost_err = err;
}

static const struct xport_cbs cbs = { cb_connected, cb_data, cb_lost };

static int put_copy(struct cli *c, size_t n)
{
	static uint8_t tmp[256 * 1024];
	int rc;

	fill(tmp, n, c->tx);
	rc = xport_put(c->s, tmp, n);
	if (rc == 0)
		c->tx += n;
	return rc;
}

static int put_ref(struct cli *c, size_t n)
{
	uint8_t *p = malloc(n);
	int rc;

	if (c->nrefs == c->cap_refs) {
		int cap = c->cap_refs ? c->cap_refs * 2 : 16;
		void **refs = realloc(c->refs, (size_t)cap * sizeof(*refs));

		if (!refs) {
			free(p);
			return -ENOMEM;
		}
		c->refs = refs;
		c->cap_refs = cap;
	}
	if (!p)
		return -ENOMEM;
	fill(p, n, c->tx);
	rc = xport_put_ref(c->s, p, n);
	if (rc == 0)
		c->tx += n;
	c->refs[c->nrefs++] = p;
	return rc;
}

static void cli_free_refs(struct cli *c)
{
	while (c->nrefs)
		free(c->refs[--c->nrefs]);
	free(c->refs);
	c->refs = NULL;
	c->cap_refs = 0;
}

/* ---- loops */

struct lp {
	struct ev_loop *loop;
	ev_timer tick;
};

/* The tick bounds every EVRUN_ONCE, so conditions are checked often. */
static void tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
}

static void lp_init(struct lp *l)
{
	l->loop = ev_loop_new(EVBACKEND_EPOLL);
	assert_non_null(l->loop);
	ev_timer_init(&l->tick, tick_cb, 0.01, 0.01);
	ev_timer_start(l->loop, &l->tick);
}

static void lp_destroy(struct lp *l)
{
	ev_timer_stop(l->loop, &l->tick);
	ev_loop_destroy(l->loop);
}

typedef bool (*cond_fn)(const void *arg);

static bool run_until(struct ev_loop *loop, cond_fn cond, const void *arg, int ms)
{
	int64_t end = now_ms() + ms;

	while (!cond(arg)) {
		if (now_ms() > end)
			return false;
		ev_run(loop, EVRUN_ONCE);
	}
	return true;
}

static bool is_connected(const void *arg)
{
	const struct cli *c = arg;

	return c->connected > 0;
}

static bool is_lost(const void *arg)
{
	const struct cli *c = arg;

	return c->lost > 0;
}

static bool is_detached(const void *arg)
{
	const struct cli *c = arg;

	return c->detached;
}

static bool all_back(const void *arg)
{
	const struct cli *c = arg;

	return c->rx >= c->tx || c->bad_at || c->lost;
}

static bool skip_kind(void **state)
{
	enum xport_kind k = *(const enum xport_kind *)*state;

	if (k == XPORT_URING && !uring_ok) {
		print_message("io_uring case skipped: %s\n", uring_why);
		return true;
	}
	return false;
}

static struct xport *new_xport(struct ev_loop *loop, void **state, unsigned max)
{
	enum xport_kind k = *(const enum xport_kind *)*state;
	struct xport *x = xport_new(loop, k == XPORT_URING, max);

	assert_non_null(x);
	if (xport_kind(x) != k)
		fail_msg("xport_new: got kind %s, want %s", kind_name(xport_kind(x)), kind_name(k));
	return x;
}

static void connect_cli(struct lp *l, struct xport *x, struct cli *c, uint16_t port)
{
	struct sockaddr_in a = srv_addr(port);
	int rc;

	c->s = xport_sock_new();
	assert_non_null(c->s);
	rc = xport_connect(c->s, x, (struct sockaddr *)&a, sizeof(a), &cbs, c);
	assert_int_equal(rc, 0);
	assert_int_equal(c->connected, 0);	/* never from inside a call */
	assert_true(run_until(l->loop, is_connected, c, 5000));
	if (c->conn_err != 0)
		fail_msg("connected(%d), want 0", c->conn_err);
	/* (a server that closes at once may have been seen in the same turn) */
	assert_true(xport_is_open(c->s) || c->lost);
}

static void check_stream(const struct cli *c, const char *what)
{
	if (c->bad_at)
		fail_msg("%s: byte %" PRIu64 " differs from what was sent", what, c->bad_at - 1);
	if (c->rx != c->tx)
		fail_msg("%s: %" PRIu64 " bytes back, %" PRIu64 " sent (lost %d err %d)", what,
			 c->rx, c->tx, c->lost, c->lost_err);
}

/* ---- cases */

/* Small copied records and 4 MiB referenced payloads, queued across many turns. */
static void test_echo_mix(void **state)
{
	struct srv *v;
	struct lp l;
	struct xport *x;
	struct cli c = { 0 };
	unsigned turn, seed = 12345;

	if (skip_kind(state))
		skip();
	v = srv_start(SRV_ECHO);
	lp_init(&l);
	x = new_xport(l.loop, state, 4);
	connect_cli(&l, x, &c, v->port);
	for (turn = 0; turn < 300; turn++) {
		unsigned k, n = 1 + turn % 5;

		for (k = 0; k < n; k++) {
			seed = seed * 1103515245 + 12345;
			assert_int_equal(put_copy(&c, 1 + (seed >> 16) % 300), 0);
			if (turn % 75 == 10 && k == 0)
				assert_int_equal(put_ref(&c, 4 * MIB), 0);
			else if ((seed >> 8) % 4 == 0)
				assert_int_equal(put_ref(&c, 1 + (seed >> 12) % 70000), 0);
			assert_int_equal(put_copy(&c, (seed >> 20) % 4), 0);
		}
		ev_run(l.loop, EVRUN_NOWAIT);
	}
	run_until(l.loop, all_back, &c, 30000);
	check_stream(&c, "echo");
	assert_int_equal(c.lost, 0);
	xport_sock_free(c.s);
	xport_free(x);
	lp_destroy(&l);
	cli_free_refs(&c);
	srv_stop(v);
}

#define NSOCK 64
#define NWIDE 200

/* n clients, for run_until */
struct clis {
	struct cli *c;
	int n;
};

static bool clis_connected(const void *arg)
{
	const struct clis *m = arg;

	for (int i = 0; i < m->n; i++)
		if (!m->c[i].connected && !m->c[i].conn_err)
			return false;
	return true;
}

static bool clis_back(const void *arg)
{
	const struct clis *m = arg;

	for (int i = 0; i < m->n; i++)
		if (!all_back(&m->c[i]))
			return false;
	return true;
}

/* n clients of x connected to port (each connected() with 0). */
static void connect_clis(struct lp *l, struct xport *x, struct cli *c, int n, uint16_t port)
{
	struct sockaddr_in a = srv_addr(port);
	struct clis m = { c, n };

	for (int i = 0; i < n; i++) {
		c[i].s = xport_sock_new();
		assert_int_equal(xport_connect(c[i].s, x, (struct sockaddr *)&a, sizeof(a), &cbs,
					       &c[i]), 0);
	}
	assert_true(run_until(l->loop, clis_connected, &m, 10000));
	for (int i = 0; i < n; i++)
		assert_int_equal(c[i].conn_err, 0);
}

/* 64 sockets' sends of one loop turn: one submit on io_uring. */
static void test_many_sockets(void **state)
{
	static struct cli c[NSOCK];
	struct clis m = { c, NSOCK };
	struct xport_stats s0, s1;
	struct srv *v;
	struct lp l;
	struct xport *x;
	int i;

	if (skip_kind(state))
		skip();
	memset(c, 0, sizeof(c));
	v = srv_start(SRV_ECHO);
	lp_init(&l);
	x = new_xport(l.loop, state, NSOCK);
	connect_clis(&l, x, c, NSOCK, v->port);
	/* let the arming settle, then one turn with a record on every socket */
	for (i = 0; i < 5; i++)
		ev_run(l.loop, EVRUN_NOWAIT);
	xport_stats(x, &s0);
	for (i = 0; i < NSOCK; i++) {
		assert_int_equal(put_copy(&c[i], 200), 0);
		assert_int_equal(put_ref(&c[i], 3000), 0);
	}
	ev_run(l.loop, EVRUN_NOWAIT);
	xport_stats(x, &s1);
	print_message("%s: 64 sockets' records in one turn: %" PRIu64 " submits, %" PRIu64
		      " requests, %" PRIu64 " sendmsg calls\n", kind_name(xport_kind(x)),
		      s1.submits - s0.submits, s1.sqes - s0.sqes, s1.sendcalls - s0.sendcalls);
	if (xport_kind(x) == XPORT_URING) {
		if (s1.submits - s0.submits != 1 || s1.sqes - s0.sqes < NSOCK)
			fail_msg("io_uring: %" PRIu64 " submits with %" PRIu64
				 " requests, want 1 with >= 64", s1.submits - s0.submits,
				 s1.sqes - s0.sqes);
	} else if (s1.sendcalls - s0.sendcalls != NSOCK) {
		fail_msg("epoll: %" PRIu64 " sendmsg calls, want 64", s1.sendcalls - s0.sendcalls);
	}
	assert_true(run_until(l.loop, clis_back, &m, 10000));
	for (i = 0; i < NSOCK; i++) {
		check_stream(&c[i], "64 sockets");
		xport_sock_free(c[i].s);
		cli_free_refs(&c[i]);
	}
	xport_free(x);
	lp_destroy(&l);
	srv_stop(v);
}

/*
 * 200 sockets on one transport (an io_uring ring for more than 128 sockets
 * shares its buffers between receives where the kernel can, Linux 6.12),
 * echoing records of every size at once, more than the buffers in use hold:
 * every stream must come back whole and in order.
 */
static void test_many_echo(void **state)
{
	static struct cli c[NWIDE];
	struct clis m = { c, NWIDE };
	struct srv *v;
	struct lp l;
	struct xport *x;
	unsigned turn, seed = 777;
	int i;

	if (skip_kind(state))
		skip();
	memset(c, 0, sizeof(c));
	v = srv_start(SRV_ECHO);
	lp_init(&l);
	x = new_xport(l.loop, state, NWIDE + 16);
	connect_clis(&l, x, c, NWIDE, v->port);
	for (turn = 0; turn < 10; turn++) {
		for (i = 0; i < NWIDE; i++) {
			seed = seed * 1103515245 + 12345;
			assert_int_equal(put_copy(&c[i], 1 + (seed >> 16) % 5000), 0);
			if ((seed >> 8) % 3 == 0)
				assert_int_equal(put_ref(&c[i], 1 + (seed >> 12) % 150000), 0);
		}
		ev_run(l.loop, EVRUN_NOWAIT);
	}
	assert_true(run_until(l.loop, clis_back, &m, 30000));
	for (i = 0; i < NWIDE; i++) {
		check_stream(&c[i], "200 sockets");
		assert_int_equal(c[i].lost, 0);
		xport_sock_free(c[i].s);
		cli_free_refs(&c[i]);
	}
	xport_free(x);
	lp_destroy(&l);
	srv_stop(v);
}

static void test_peer_close(void **state)
{
	struct srv *v;
	struct lp l;
	struct xport *x;
	struct cli c = { 0 };

	if (skip_kind(state))
		skip();
	v = srv_start(SRV_CLOSE);
	lp_init(&l);
	x = new_xport(l.loop, state, 4);
	connect_cli(&l, x, &c, v->port);
	assert_true(run_until(l.loop, is_lost, &c, 5000));
	if (c.lost != 1 || c.lost_err != 0)
		fail_msg("lost() %d times, err %d; want once, 0", c.lost, c.lost_err);
	assert_false(xport_is_open(c.s));
	assert_int_equal(xport_put(c.s, "x", 1), -ENOTCONN);
	xport_sock_free(c.s);
	xport_free(x);
	lp_destroy(&l);
	srv_stop(v);
}

static void test_refused(void **state)
{
	struct sockaddr_in a = srv_addr(0);
	socklen_t len = sizeof(a);
	struct lp l;
	struct xport *x;
	struct cli c = { 0 };
	int fd, rc;

	if (skip_kind(state))
		skip();
	/* a port nobody listens on: bound, then closed */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	lp_init(&l);
	x = new_xport(l.loop, state, 4);
	c.s = xport_sock_new();
	rc = xport_connect(c.s, x, (struct sockaddr *)&a, sizeof(a), &cbs, &c);
	if (rc == 0) {
		assert_true(run_until(l.loop, is_connected, &c, 5000));
		if (c.conn_err != -ECONNREFUSED)
			fail_msg("connected(%d), want %d (ECONNREFUSED)", c.conn_err, -ECONNREFUSED);
	} else if (rc != -ECONNREFUSED) {
		fail_msg("xport_connect: %d, want 0 or %d", rc, -ECONNREFUSED);
	}
	assert_false(xport_is_open(c.s));
	assert_int_equal(c.lost, 0);
	xport_sock_free(c.s);
	xport_free(x);
	lp_destroy(&l);
}

struct mover {
	struct lp lp;
	struct xport *x;
	struct cli *c;
	bool done;
};

static void *mover_main(void *arg)
{
	struct mover *m = arg;
	int64_t end = now_ms() + 20000;
	int i;

	for (i = 0; i < 3; i++)
		ev_run(m->lp.loop, EVRUN_NOWAIT);
	/* sends from the new loop's thread too */
	for (i = 0; i < 50; i++) {
		if (put_copy(m->c, 1000 + (size_t)i * 37) < 0)
			return NULL;
		ev_run(m->lp.loop, EVRUN_NOWAIT);
	}
	while (!all_back(m->c) && now_ms() < end)
		ev_run(m->lp.loop, EVRUN_ONCE);
	m->done = true;
	return NULL;
}

/* Detach on loop A mid-stream, attach to loop B whose thread starts after. */
static void test_move(void **state)
{
	struct srv *v;
	struct lp a;
	struct mover m;
	struct xport *xa;
	struct xport_stats st;
	struct cli c = { 0 };
	pthread_t th;
	uint64_t rx;
	int i;

	if (skip_kind(state))
		skip();
	v = srv_start(SRV_ECHO);
	lp_init(&a);
	xa = new_xport(a.loop, state, 4);
	connect_cli(&a, xa, &c, v->port);
	/* data() detaches mid-stream, with more of the echo arriving */
	c.detach_at = 2 * MIB + 12345;
	for (i = 0; i < 20; i++) {
		assert_int_equal(put_copy(&c, 5000), 0);
		assert_int_equal(put_ref(&c, 200000), 0);
		if (!c.detached)
			ev_run(a.loop, EVRUN_NOWAIT);
	}
	assert_true(run_until(a.loop, is_detached, &c, 10000));
	rx = c.rx;
	xport_stats(xa, &st);
	print_message("%s: detached in data() with %" PRIu64 " of %" PRIu64 " bytes back, %"
		      PRIu64 " more already received by the ring, kept for the next attach\n",
		      kind_name(xport_kind(xa)), c.rx, c.tx, st.stashed);
	assert_true(xport_is_open(c.s));
	for (i = 0; i < 5; i++)
		ev_run(a.loop, EVRUN_NOWAIT);
	assert_int_equal(c.rx, rx);		/* no callbacks after the detach */
	assert_int_equal(put_copy(&c, 3000), 0);	/* queued while detached */

	memset(&m, 0, sizeof(m));
	lp_init(&m.lp);
	m.x = new_xport(m.lp.loop, state, 4);
	m.c = &c;
	xport_attach(c.s, m.x, &cbs, &c);
	assert_int_equal(pthread_create(&th, NULL, mover_main, &m), 0);
	pthread_join(th, NULL);
	assert_true(m.done);
	check_stream(&c, "moved socket");
	assert_int_equal(c.lost, 0);

	xport_sock_free(c.s);
	xport_free(m.x);
	lp_destroy(&m.lp);
	xport_free(xa);
	lp_destroy(&a);
	cli_free_refs(&c);
	srv_stop(v);
}

/* Detach while a 16 MiB send is partly done (the server reads nothing yet):
 * what the kernel had sent is not sent again, the rest follows from loop B. */
static void test_move_sending(void **state)
{
	struct srv *v;
	struct lp a;
	struct mover m;
	struct xport *xa;
	struct cli c = { 0 };
	pthread_t th;
	int i;

	if (skip_kind(state))
		skip();
	v = srv_start(SRV_SLOW);
	lp_init(&a);
	xa = new_xport(a.loop, state, 4);
	connect_cli(&a, xa, &c, v->port);
	assert_int_equal(put_copy(&c, 1000), 0);
	assert_int_equal(put_ref(&c, 16 * MIB), 0);
	assert_int_equal(put_copy(&c, 1000), 0);
	for (i = 0; i < 10; i++) {
		ev_run(a.loop, EVRUN_NOWAIT);
		usleep(5000);
	}
	xport_detach(c.s);

	memset(&m, 0, sizeof(m));
	lp_init(&m.lp);
	m.x = new_xport(m.lp.loop, state, 4);
	m.c = &c;
	xport_attach(c.s, m.x, &cbs, &c);
	assert_int_equal(pthread_create(&th, NULL, mover_main, &m), 0);
	pthread_join(th, NULL);
	assert_true(m.done);
	check_stream(&c, "moved with a send in flight");
	assert_int_equal(c.lost, 0);

	xport_sock_free(c.s);
	xport_free(m.x);
	lp_destroy(&m.lp);
	xport_free(xa);
	lp_destroy(&a);
	cli_free_refs(&c);
	srv_stop(v);
}

static void *exiter_main(void *arg)
{
	struct mover *m = arg;
	int64_t end = now_ms() + 20000;
	int i;

	for (i = 0; i < 20; i++)
		if (put_copy(m->c, 7000) < 0)
			return NULL;
	while (!all_back(m->c) && now_ms() < end)
		ev_run(m->lp.loop, EVRUN_ONCE);
	m->done = all_back(m->c);
	/* the last bytes go out, their echo is not awaited */
	put_copy(m->c, 5000);
	ev_run(m->lp.loop, EVRUN_NOWAIT);
	return NULL;
}

/* No byte arrives on c for ms: what a blocking recv's timeout checked. */
static void no_more_bytes(struct ev_loop *loop, const struct cli *c, int ms)
{
	uint64_t rx = c->rx;
	int64_t t0 = now_ms();

	while (now_ms() - t0 < ms)
		ev_run(loop, EVRUN_ONCE);
	if (c->rx != rx)
		fail_msg("%" PRIu64 " bytes arrived with nothing sent", c->rx - rx);
	assert_true(now_ms() - t0 >= ms);
}

/* The loop's thread ends; the main thread detaches the socket from the ended
 * loop's transport and goes on with it on a transport of its own. */
static void test_thread_exit(void **state)
{
	struct srv *v;
	struct lp a, b;
	struct mover m;
	struct xport *xa, *xb;
	struct cli c = { 0 };
	pthread_t th;

	if (skip_kind(state))
		skip();
	v = srv_start(SRV_ECHO);
	lp_init(&a);
	xa = new_xport(a.loop, state, 4);
	connect_cli(&a, xa, &c, v->port);
	xport_detach(c.s);

	memset(&m, 0, sizeof(m));
	lp_init(&m.lp);
	m.x = new_xport(m.lp.loop, state, 4);
	m.c = &c;
	xport_attach(c.s, m.x, &cbs, &c);
	assert_int_equal(pthread_create(&th, NULL, exiter_main, &m), 0);
	pthread_join(th, NULL);
	assert_true(m.done);

	xport_detach(c.s);
	assert_true(xport_is_open(c.s));
	/* bytes queued but never sent by the ended loop go first, then these */
	lp_init(&b);
	xb = new_xport(b.loop, state, 4);
	xport_attach(c.s, xb, &cbs, &c);
	assert_int_equal(put_copy(&c, 3000), 0);
	if (!run_until(b.loop, all_back, &c, 5000))
		fail_msg("after the loop's thread ended: %" PRIu64 " of %" PRIu64 " bytes back",
			 c.rx, c.tx);
	check_stream(&c, "after the loop's thread ended");
	assert_int_equal(c.lost, 0);
	no_more_bytes(b.loop, &c, 50);

	xport_free(m.x);
	lp_destroy(&m.lp);
	xport_sock_free(c.s);
	xport_free(xb);
	lp_destroy(&b);
	xport_free(xa);
	lp_destroy(&a);
	srv_stop(v);
}

/* Sends stuck in flight (the server never reads), then close, free: no use after free. */
static void test_close_inflight(void **state)
{
	struct srv *v;
	struct lp l;
	struct xport *x;
	struct cli c[3];
	int i, k;

	if (skip_kind(state))
		skip();
	memset(c, 0, sizeof(c));
	v = srv_start(SRV_HOLD);
	lp_init(&l);
	x = new_xport(l.loop, state, 4);
	for (i = 0; i < 3; i++) {
		connect_cli(&l, x, &c[i], v->port);
		for (k = 0; k < 4; k++) {
			assert_int_equal(put_copy(&c[i], 100000), 0);
			assert_int_equal(put_ref(&c[i], 4 * MIB), 0);
		}
	}
	for (k = 0; k < 20; k++)
		ev_run(l.loop, EVRUN_NOWAIT);
	/* 0: closed then freed; 1: freed open; 2: left to xport_free */
	xport_close(c[0].s);
	cli_free_refs(&c[0]);
	xport_sock_free(c[0].s);
	xport_sock_free(c[1].s);
	cli_free_refs(&c[1]);
	for (k = 0; k < 5; k++)
		ev_run(l.loop, EVRUN_NOWAIT);
	xport_free(x);
	assert_true(xport_is_open(c[2].s));
	xport_sock_free(c[2].s);
	cli_free_refs(&c[2]);
	for (i = 0; i < 3; i++)
		assert_int_equal(c[i].lost, 0);
	lp_destroy(&l);
	srv_stop(v);
}

/* data() closes its socket (non-zero return) or frees it: no lost(), no use after free. */
static void test_callback_closes(void **state)
{
	struct srv *v;
	struct lp l;
	struct xport *x;
	struct cli c[2];
	int i, k;

	if (skip_kind(state))
		skip();
	memset(c, 0, sizeof(c));
	v = srv_start(SRV_ECHO);
	lp_init(&l);
	x = new_xport(l.loop, state, 4);
	for (i = 0; i < 2; i++)
		connect_cli(&l, x, &c[i], v->port);
	c[0].data_rc = 1;
	c[1].free_in_data = true;
	for (i = 0; i < 2; i++)
		for (k = 0; k < 4; k++)
			assert_int_equal(put_copy(&c[i], 100000), 0);
	for (k = 0; k < 50 && (c[0].data_calls == 0 || c[1].data_calls == 0); k++)
		ev_run(l.loop, EVRUN_ONCE);
	for (k = 0; k < 10; k++)
		ev_run(l.loop, EVRUN_NOWAIT);
	assert_int_equal(c[0].data_calls, 1);
	assert_int_equal(c[1].data_calls, 1);
	assert_false(xport_is_open(c[0].s));
	assert_null(c[1].s);
	assert_int_equal(c[0].lost + c[1].lost, 0);
	xport_sock_free(c[0].s);
	xport_free(x);
	lp_destroy(&l);
	srv_stop(v);
}

static void run_ms(struct ev_loop *loop, int ms)
{
	int64_t end = now_ms() + ms;

	while (now_ms() < end)
		ev_run(loop, EVRUN_ONCE);
}

/* SO_RCVLOWAT: is data() held back until that many bytes are waiting, both when
 * they arrive and when they were already waiting at the attach? */
static void test_lowat(void **state)
{
	struct srv *v;
	struct lp l;
	struct xport *x;
	struct cli c = { 0 };
	bool held, held_attach;
	int calls;

	if (skip_kind(state))
		skip();
	v = srv_start(SRV_ECHO);
	lp_init(&l);
	x = new_xport(l.loop, state, 4);
	connect_cli(&l, x, &c, v->port);
	assert_int_equal(xport_set_lowat(c.s, 1000), 0);
	ev_run(l.loop, EVRUN_NOWAIT);
	assert_int_equal(put_copy(&c, 400), 0);
	run_ms(l.loop, 200);
	held = c.rx == 0;
	assert_int_equal(put_copy(&c, 600), 0);
	if (!run_until(l.loop, all_back, &c, 5000))
		fail_msg("lowat: %" PRIu64 " of %" PRIu64 " bytes back", c.rx, c.tx);
	calls = c.data_calls;

	/* 400 bytes already waiting when the socket is attached again: sent (and
	 * held back by the low mark), the socket detached once their echo is in */
	assert_int_equal(put_copy(&c, 400), 0);
	run_ms(l.loop, 50);
	assert_int_equal(c.rx, 1000);
	xport_detach(c.s);
	usleep(50000);
	xport_attach(c.s, x, &cbs, &c);
	run_ms(l.loop, 200);
	held_attach = c.rx == 1000;
	assert_int_equal(put_copy(&c, 600), 0);
	/* (were the 400 bytes taken at once, the 600 alone would never wake the loop) */
	if (!run_until(l.loop, all_back, &c, 5000))
		fail_msg("lowat after attach: %" PRIu64 " of %" PRIu64 " bytes back", c.rx, c.tx);
	print_message("%s: SO_RCVLOWAT 1000: 400 bytes arriving %s for 200 ms, after 600 more "
		      "%d data() call(s) for 1000 bytes; 400 bytes waiting at attach %s for 200 "
		      "ms, after 600 more %d call(s) for %" PRIu64 " bytes\n",
		      kind_name(xport_kind(x)), held ? "held back" : "delivered", calls,
		      held_attach ? "held back" : "delivered", c.data_calls - calls, c.rx - 1000);
	check_stream(&c, "lowat");
	assert_true(held);
	assert_int_equal(calls, 1);
	assert_true(held_attach);
	assert_int_equal(c.data_calls - calls, 1);
	xport_sock_free(c.s);
	xport_free(x);
	lp_destroy(&l);
	srv_stop(v);
}

/* 4 KiB records, one at a time per socket: the client thread's CPU per round trip. */
static void pingpong(void **state, int nsock)
{
	static uint8_t rec[4096];
	static struct cli c[16];
	struct rusage r0, r1, p0, p1;
	struct xport_stats s0, s1;
	struct sockaddr_in a;
	struct srv *v;
	struct lp l;
	struct xport *x;
	const char *env = getenv("XPORT_BENCH_N");
	long i, n = env ? atol(env) : 2000, rounds = n / nsock;
	int64_t t0;
	double cpu, pcpu;
	int k;

	if (skip_kind(state))
		skip();
	memset(c, 0, sizeof(c));
	v = srv_start(SRV_ECHO);
	lp_init(&l);
	x = new_xport(l.loop, state, 16);
	a = srv_addr(v->port);
	for (k = 0; k < nsock; k++) {
		c[k].s = xport_sock_new();
		c[k].count_only = true;
		assert_int_equal(xport_connect(c[k].s, x, (struct sockaddr *)&a, sizeof(a), &cbs,
					       &c[k]), 0);
		assert_true(run_until(l.loop, is_connected, &c[k], 5000));
	}
	xport_stats(x, &s0);
	t0 = now_ms();
	getrusage(RUSAGE_THREAD, &r0);
	getrusage(RUSAGE_SELF, &p0);
	for (i = 0; i < rounds; i++) {
		for (k = 0; k < nsock; k++) {
			assert_int_equal(xport_put(c[k].s, rec, sizeof(rec)), 0);
			c[k].tx += sizeof(rec);
		}
		for (k = 0; k < nsock; k++)
			while (c[k].rx < c[k].tx && !c[k].lost)
				ev_run(l.loop, EVRUN_ONCE);
	}
	getrusage(RUSAGE_THREAD, &r1);
	getrusage(RUSAGE_SELF, &p1);
	xport_stats(x, &s1);
	n = rounds * nsock;
#define TV(a) ((double)(a).tv_sec * 1e6 + (double)(a).tv_usec)
	cpu = TV(r1.ru_utime) - TV(r0.ru_utime) + TV(r1.ru_stime) - TV(r0.ru_stime);
	pcpu = TV(p1.ru_utime) - TV(p0.ru_utime) + TV(p1.ru_stime) - TV(p0.ru_stime);
	print_message("%s ping-pong, %d socket(s): %ld round trips of 4 KiB in %" PRId64 " ms; "
		      "client thread %.2f us CPU (user %.2f, sys %.2f) per round trip; process "
		      "(with the echo server) %.2f us; per round trip %.2f wakeups (%.2f empty), %.2f submits, "
		      "%.2f completions, %.2f sendmsg\n", kind_name(xport_kind(x)), nsock, n,
		      now_ms() - t0, cpu / (double)n, (TV(r1.ru_utime) - TV(r0.ru_utime)) / (double)n,
		      (TV(r1.ru_stime) - TV(r0.ru_stime)) / (double)n, pcpu / (double)n,
		      (double)(s1.wakeups - s0.wakeups) / (double)n,
		      (double)(s1.empty_wakeups - s0.empty_wakeups) / (double)n,
		      (double)(s1.submits - s0.submits) / (double)n,
		      (double)(s1.cqes - s0.cqes) / (double)n,
		      (double)(s1.sendcalls - s0.sendcalls) / (double)n);
	for (k = 0; k < nsock; k++) {
		assert_int_equal(c[k].lost, 0);
		assert_int_equal(c[k].rx, c[k].tx);
		xport_sock_free(c[k].s);
	}
	xport_free(x);
	lp_destroy(&l);
	srv_stop(v);
}

static void test_pingpong(void **state)
{
	pingpong(state, 1);
}

static void test_pingpong16(void **state)
{
	pingpong(state, 16);
}

/* A detached socket: its peer named, bytes queued while detached (empty puts
 * too) sent first after the next attach, and nothing more arriving after the
 * echo. */
static void test_detached_queue(void **state)
{
	struct srv *v;
	struct lp l;
	struct xport *x;
	struct cli c = { 0 };
	uint8_t buf[300];

	if (skip_kind(state))
		skip();
	v = srv_start(SRV_ECHO);
	lp_init(&l);
	x = new_xport(l.loop, state, 4);
	connect_cli(&l, x, &c, v->port);
	if (strncmp(xport_peer(c.s), "127.0.0.1:", 10) != 0 || !strstr(xport_peer(c.s), "local port"))
		fail_msg("xport_peer: '%s'", xport_peer(c.s));
	xport_detach(c.s);
	/* queued while detached: goes first after the next attach */
	assert_int_equal(put_copy(&c, 100), 0);
	fill(buf, sizeof(buf), c.tx);
	assert_int_equal(xport_put(c.s, buf, 100), 0);
	assert_int_equal(xport_put(c.s, buf + 100, 0), 0);
	assert_int_equal(xport_put_ref(c.s, buf + 100, 200), 0);
	c.tx += 300;
	run_ms(l.loop, 20);
	assert_int_equal(c.rx, 0);		/* nothing leaves while detached */
	xport_attach(c.s, x, &cbs, &c);
	if (!run_until(l.loop, all_back, &c, 5000))
		fail_msg("detached queue: %" PRIu64 " of %" PRIu64 " bytes back", c.rx, c.tx);
	check_stream(&c, "detached queue");
	no_more_bytes(l.loop, &c, 100);
	xport_sock_free(c.s);
	xport_free(x);
	lp_destroy(&l);
	srv_stop(v);
}

/* Each case named with its transport, so that a "[  SKIPPED ]" line (make test counts
 * them) says which one did not run; the reason is printed just above it. */
#define BOTH(f)                                                                         \
	{ .name = #f " (epoll)", .test_func = f, .initial_state = (void *)&kind_epoll }, \
	{ .name = #f " (io_uring)", .test_func = f, .initial_state = (void *)&kind_uring }

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_echo_mix),
		BOTH(test_many_sockets),
		BOTH(test_many_echo),
		BOTH(test_peer_close),
		BOTH(test_refused),
		BOTH(test_move),
		BOTH(test_move_sending),
		BOTH(test_thread_exit),
		BOTH(test_close_inflight),
		BOTH(test_callback_closes),
		BOTH(test_lowat),
		BOTH(test_detached_queue),
		BOTH(test_pingpong),
		BOTH(test_pingpong16),
	};
	struct rlimit rl;

	/* 200 sockets and their server ends, plus the rest */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1024 && rl.rlim_max >= 1024) {
		rl.rlim_cur = 1024;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	uring_ok = xport_probe(uring_why, sizeof(uring_why)) == 0;
	if (!uring_ok)
		printf("io_uring cases will be skipped: %s\n", uring_why);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
