/*
 * helper_proxy LISTEN_PORT TARGET_PORT DELAY_MS [STALL_CONN STALL_MS [STALL_AFTER_MS]]
 *              [--fault N:reset@MS | --fault N:stall@MS]...
 *
 * A TCP proxy on 127.0.0.1 that adds latency to replies: each accepted
 * connection is joined to 127.0.0.1:TARGET_PORT; client->server bytes are
 * forwarded at once, each chunk read from the server is held DELAY_MS (from
 * the moment it was read) before it goes to the client, in order. The
 * STALL_CONN-th accepted connection (1-based) has its replies held STALL_MS
 * instead, from STALL_AFTER_MS after its accept on (default 0: from the
 * start; later lets a client finish setting up first). LISTEN_PORT 0 picks a
 * free port and prints "port N" on stdout.
 *
 * Faults (options may come anywhere; any number of them) act on the N-th
 * accepted connection (1-based), MS ms after its accept:
 *   --fault N:reset@MS  close both sides with SO_LINGER {1, 0}: the client
 *                       and the server each get an RST;
 *   --fault N:stall@MS  from then on forward nothing more from the server
 *                       (replies already held included) and read nothing
 *                       from it: the client's requests still go out, no reply
 *                       comes back, the socket stays open (until the client
 *                       closes it: then the proxy closes both sides).
 * Each fault that fires prints "fault: conn N reset at MS ms" (or stall; MS
 * as measured from the accept) on stderr; one whose connection ended before
 * its time prints "fault: conn N closed before reset at MS ms".
 *
 * One thread, epoll, non-blocking sockets, one timerfd for the earliest due
 * reply or fault. Exits 0 on SIGTERM/SIGINT; prints nothing else unless an
 * error or a fault.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define BUF_SIZE (64 * 1024)
#define QUEUE_MAX (8u << 20)	/* stop reading the server past this many held bytes */
#define EDGE (EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET)
#define FAULTS_MAX 64

enum fault_kind { FAULT_RESET, FAULT_STALL };
static const char *const fault_names[] = { [FAULT_RESET] = "reset", [FAULT_STALL] = "stall" };

struct fault {
	unsigned conn;		/* accept number, 1-based */
	enum fault_kind kind;
	uint64_t after_ms;	/* since that connection's accept */
	int done;		/* fired, or its connection ended first */
};

struct chunk {
	struct chunk *next;
	uint64_t due_ns;
	size_t len, off;
	char data[];
};

struct conn;
struct end {			/* what an epoll event points at: one side of a connection */
	struct conn *c;
	int fd;
};

struct conn {
	struct conn *next, *prev;
	struct end cli, srv;
	uint64_t delay_ns;
	uint64_t stall_ns, stall_from_ns;	/* stall_from_ns 0: never */
	unsigned id;		/* accept number, 1-based */
	uint64_t accept_ns;
	int stalled;		/* a stall fault fired: nothing more goes server->client */
	int connecting, cli_eof, srv_eof, srv_shut, cli_shut;
	int down_blocked;	/* the client's socket buffer is full: wait for EPOLLOUT */
	char up[BUF_SIZE];	/* client->server bytes not yet written */
	size_t up_len, up_off;
	struct chunk *head, *tail;	/* server->client, held until due */
	size_t queued;
};

static int ep, tfd;
static struct conn *conns, *graveyard;
static char tag_listen, tag_timer, tag_signal;
static struct fault faults[FAULTS_MAX];
static unsigned nfaults;
static int target_port;
static uint64_t delay_ns, stall_ns, stall_after_ns;
static unsigned stall_conn;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "helper_proxy: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int again(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

static uint64_t ms_since(uint64_t t)
{
	return (now_ns() - t) / 1000000u;
}

/* Both fds leave epoll when closed; the memory goes after the current batch of events. */
static void conn_close(struct conn *c)
{
	struct chunk *k;

	for (unsigned i = 0; i < nfaults; i++) {
		struct fault *f = &faults[i];

		if (f->conn == c->id && !f->done) {
			f->done = 1;
			fprintf(stderr, "fault: conn %u closed before %s at %llu ms\n", c->id,
				fault_names[f->kind], (unsigned long long)f->after_ms);
		}
	}
	close(c->cli.fd);
	close(c->srv.fd);
	c->cli.fd = c->srv.fd = -1;
	while ((k = c->head)) {
		c->head = k->next;
		free(k);
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->next = graveyard;
	graveyard = c;
}

/* Client->server: write what is buffered. 1 when it is all written, 0 if not yet, -1 on error. */
static int flush_up(struct conn *c)
{
	while (c->up_off < c->up_len) {
		ssize_t n = write(c->srv.fd, c->up + c->up_off, c->up_len - c->up_off);

		if (n < 0)
			return again() ? 0 : -1;
		c->up_off += (size_t)n;	/* a partial write loops; EAGAIN waits for EPOLLOUT */
	}
	c->up_off = c->up_len = 0;
	if (c->cli_eof && !c->srv_shut) {
		shutdown(c->srv.fd, SHUT_WR);
		c->srv_shut = 1;
	}
	return 1;
}

/* Server->client: write the chunks that are due, in order. 0, or -1 on error. */
static int flush_down(struct conn *c)
{
	uint64_t now = now_ns();
	struct chunk *k;

	c->down_blocked = 0;
	if (c->stalled)
		return 0;
	while ((k = c->head) && k->due_ns <= now) {
		ssize_t n = write(c->cli.fd, k->data + k->off, k->len - k->off);

		if (n < 0) {
			c->down_blocked = again();
			return c->down_blocked ? 0 : -1;
		}
		k->off += (size_t)n;
		if (k->off < k->len)
			continue;
		c->head = k->next;
		if (!c->head)
			c->tail = NULL;
		c->queued -= k->len;
		free(k);
	}
	if (!c->head && c->srv_eof && !c->cli_shut) {
		shutdown(c->cli.fd, SHUT_WR);
		c->cli_shut = 1;
	}
	return 0;
}

/* Read the server until EAGAIN (or too much is held): each read is one timestamped chunk. */
static int read_down(struct conn *c)
{
	static char buf[BUF_SIZE];

	while (!c->stalled && !c->srv_eof && c->queued < QUEUE_MAX) {
		ssize_t n = read(c->srv.fd, buf, sizeof(buf));
		struct chunk *k;

		if (n < 0)
			return again() ? 0 : -1;
		if (n == 0) {
			c->srv_eof = 1;
			break;
		}
		if (!(k = malloc(sizeof(*k) + (size_t)n)))
			die("malloc");
		uint64_t t = now_ns();
		uint64_t d = c->stall_from_ns && t >= c->stall_from_ns ? c->stall_ns : c->delay_ns;

		*k = (struct chunk){ .due_ns = t + d, .len = (size_t)n };
		memcpy(k->data, buf, (size_t)n);
		if (c->tail)
			c->tail->next = k;
		else
			c->head = k;
		c->tail = k;
		c->queued += k->len;
	}
	return 0;
}

/*
 * Do everything a connection can do now. The fds are edge-triggered, so each
 * read loops until EAGAIN, or stops with the kernel still holding bytes that
 * a later pump (after a write drained our buffer) picks up without an event.
 */
static void pump(struct conn *c)
{
	int rc;

	if (c->connecting)
		return;
	while ((rc = flush_up(c)) == 1 && !c->cli_eof) {
		ssize_t n = read(c->cli.fd, c->up, sizeof(c->up));

		if (n < 0) {
			rc = again() ? 0 : -1;
			break;
		}
		if (n == 0)
			c->cli_eof = 1;
		c->up_len = (size_t)n;
	}
	if (rc < 0 || flush_down(c) < 0 || read_down(c) < 0 || flush_down(c) < 0) {
		conn_close(c);	/* a reset or error on either side ends both */
		return;
	}
	if ((c->cli_shut && c->srv_shut) || (c->stalled && c->cli_eof))
		conn_close(c);	/* both directions ended and passed on, or nobody listens */
}

/* When the next pending fault of a connection is due (UINT64_MAX: none), and which. */
static uint64_t fault_next(const struct conn *c, struct fault **which)
{
	uint64_t next = UINT64_MAX;

	*which = NULL;
	for (unsigned i = 0; i < nfaults; i++) {
		struct fault *f = &faults[i];
		uint64_t due = c->accept_ns + f->after_ms * 1000000u;

		if (f->conn == c->id && !f->done && due < next) {
			next = due;
			*which = f;
		}
	}
	return next;
}

/* Fire the faults of a connection that are due; 1 if it was reset (and is gone). */
static int fault_fire(struct conn *c)
{
	static const struct linger abort_close = { .l_onoff = 1, .l_linger = 0 };
	struct fault *f;

	while (fault_next(c, &f) <= now_ns()) {
		f->done = 1;
		fprintf(stderr, "fault: conn %u %s at %llu ms\n", c->id, fault_names[f->kind],
			(unsigned long long)ms_since(c->accept_ns));
		if (f->kind == FAULT_STALL) {
			c->stalled = 1;
			continue;
		}
		setsockopt(c->cli.fd, SOL_SOCKET, SO_LINGER, &abort_close, sizeof(abort_close));
		setsockopt(c->srv.fd, SOL_SOCKET, SO_LINGER, &abort_close, sizeof(abort_close));
		conn_close(c);
		return 1;
	}
	return 0;
}

/* The server side: finish a pending connect, then pump. */
static void on_server(struct conn *c, uint32_t events)
{
	if (c->connecting) {
		int err = 0;
		socklen_t len = sizeof(err);

		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		getsockopt(c->srv.fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			fprintf(stderr, "helper_proxy: connect to target: %s\n", strerror(err));
			conn_close(c);
			return;
		}
		c->connecting = 0;
	}
	pump(c);
}

static int add_fd(int fd, void *ptr, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = ptr };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static void on_accept(int lfd)
{
	static unsigned accepted;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)target_port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct conn *c;
	int cfd, sfd;

	while ((cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		accepted++;
		sfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (sfd < 0 || !(c = calloc(1, sizeof(*c))))
			die("socket");
		set_nodelay(cfd);
		set_nodelay(sfd);
		if (connect(sfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
			fprintf(stderr, "helper_proxy: connect to port %d: %s\n", target_port,
				strerror(errno));
			close(cfd);
			close(sfd);
			free(c);
			continue;
		}
		c->connecting = 1;
		c->id = accepted;
		c->accept_ns = now_ns();
		c->delay_ns = delay_ns;
		if (accepted == stall_conn) {
			c->stall_ns = stall_ns;
			c->stall_from_ns = now_ns() + stall_after_ns;
		}
		c->cli = (struct end){ c, cfd };
		c->srv = (struct end){ c, sfd };
		if (add_fd(cfd, &c->cli, EDGE) < 0 || add_fd(sfd, &c->srv, EDGE) < 0)
			die("epoll_ctl");
		c->next = conns;
		if (conns)
			conns->prev = c;
		conns = c;
	}
	if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
		fprintf(stderr, "helper_proxy: accept: %s\n", strerror(errno));
}

/*
 * Arm the timer for the earliest held reply or fault (one that fell due since
 * fires at once), or disarm it. Replies waiting for the client to read wait
 * for EPOLLOUT instead; a stalled connection's replies wait forever.
 */
static void arm_timer(void)
{
	uint64_t next = UINT64_MAX;
	struct itimerspec its = { 0 };
	struct fault *f;

	for (struct conn *c = conns; c; c = c->next) {
		uint64_t due = fault_next(c, &f);

		if (due < next)
			next = due;
		if (c->head && !c->down_blocked && !c->stalled && c->head->due_ns < next)
			next = c->head->due_ns;
	}
	if (next != UINT64_MAX) {
		its.it_value.tv_sec = (time_t)(next / 1000000000u);
		its.it_value.tv_nsec = (long)(next % 1000000000u);
	}
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		die("timerfd_settime");
}

static long arg_num(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > max) {
		fprintf(stderr, "helper_proxy: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

/* N:reset@MS or N:stall@MS (see the top of the file); exits 2 if it is neither. */
static void parse_fault(const char *spec)
{
	static const char *const hint = "(N:reset@MS or N:stall@MS)";
	char buf[64], *colon, *at;
	struct fault *f = &faults[nfaults];

	if (nfaults == FAULTS_MAX) {
		fprintf(stderr, "helper_proxy: more than %d faults\n", FAULTS_MAX);
		exit(2);
	}
	if (strlen(spec) >= sizeof(buf) || !(colon = strchr(strcpy(buf, spec), ':')) ||
	    !(at = strchr(colon, '@'))) {
		fprintf(stderr, "helper_proxy: --fault: '%s' is not %s\n", spec, hint);
		exit(2);
	}
	*colon++ = '\0';
	*at++ = '\0';
	if (!strcmp(colon, "reset")) {
		f->kind = FAULT_RESET;
	} else if (!strcmp(colon, "stall")) {
		f->kind = FAULT_STALL;
	} else {
		fprintf(stderr, "helper_proxy: --fault: '%s' is not a fault %s\n", colon, hint);
		exit(2);
	}
	f->conn = (unsigned)arg_num(buf, 1000000);
	f->after_ms = (uint64_t)arg_num(at, 3600000);
	if (f->conn == 0) {
		fprintf(stderr, "helper_proxy: --fault: connections count from 1\n");
		exit(2);
	}
	nfaults++;
}

static void usage(void)
{
	fprintf(stderr, "usage: helper_proxy LISTEN_PORT TARGET_PORT DELAY_MS "
			"[STALL_CONN STALL_MS [STALL_AFTER_MS]] [--fault N:reset@MS|N:stall@MS]...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);
	struct epoll_event evs[64];
	const char *pos[6];
	int npos = 0, lfd, sfd, one = 1;
	sigset_t sigs;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--fault") && i + 1 < argc)
			parse_fault(argv[++i]);
		else if (!strncmp(argv[i], "--", 2) || npos == 6)
			usage();
		else
			pos[npos++] = argv[i];
	}
	if (npos != 3 && npos != 5 && npos != 6)
		usage();
	sa.sin_port = htons((uint16_t)arg_num(pos[0], 65535));
	target_port = (int)arg_num(pos[1], 65535);
	delay_ns = (uint64_t)arg_num(pos[2], 3600000) * 1000000u;
	if (npos >= 5) {
		stall_conn = (unsigned)arg_num(pos[3], 1000000);
		stall_ns = (uint64_t)arg_num(pos[4], 3600000) * 1000000u;
	}
	if (npos == 6)
		stall_after_ns = (uint64_t)arg_num(pos[5], 3600000) * 1000000u;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		die("socket");
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 128) < 0)
		die("bind/listen on 127.0.0.1");
	if (getsockname(lfd, (struct sockaddr *)&sa, &salen) < 0)
		die("getsockname");
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) < 0 ||
	    (sfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
		die("epoll/timerfd/signalfd");
	if (add_fd(lfd, &tag_listen, EPOLLIN) < 0 || add_fd(tfd, &tag_timer, EPOLLIN) < 0 ||
	    add_fd(sfd, &tag_signal, EPOLLIN) < 0)
		die("epoll_ctl");
	if (!strcmp(pos[0], "0")) {
		printf("port %u\n", ntohs(sa.sin_port));
		fflush(stdout);
	}

	for (;;) {
		int n = epoll_wait(ep, evs, 64, -1);

		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;

			if (p == &tag_signal)
				return 0;	/* the kernel closes every socket */
			if (p == &tag_listen) {
				on_accept(lfd);
			} else if (p == &tag_timer) {
				uint64_t expirations;

				if (read(tfd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
					die("read timerfd");
				for (struct conn *c = conns, *next; c; c = next) {
					next = c->next;
					if (!fault_fire(c) && c->head && c->head->due_ns <= now_ns())
						pump(c);
				}
			} else {
				struct end *e = p;

				if (e->fd < 0)
					continue;	/* closed earlier in this batch */
				if (e == &e->c->cli)
					pump(e->c);
				else
					on_server(e->c, evs[i].events);
			}
		}
		while (graveyard) {
			struct conn *c = graveyard;

			graveyard = c->next;
			free(c);
		}
		arm_timer();
	}
}
