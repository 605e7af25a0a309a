/*
 * xport: the native engine's TCP sockets on one libev loop, through an
 * io_uring or through non-blocking sockets on libev (see xport.h). This
 * module owns the sockets, their send queues, the ring and its buffers; it
 * knows nothing of RPC records (the caller reassembles them from data()).
 *
 * The shape of a loop turn: calls into the module only queue (puts, arms,
 * connects, callbacks to deliver); the ev_prepare watcher, which runs before
 * the loop blocks, sends everything queued (one io_uring_submit for all
 * sockets, or one sendmsg per socket), reaps completions and runs callbacks.
 * Completions that arrive while the loop sleeps wake it through an eventfd.
 *
 * Sockets stay in blocking mode once connected; every non-blocking call
 * passes MSG_DONTWAIT, so a socket can move between rings, watchers and the
 * blocking control path freely.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#include "xport.h"

#define XP_NBUFS 256u			/* provided buffers per ring (a power of 2) */
#define XP_BUFSZ (64u * 1024)		/* bytes per provided buffer */
#define XP_BGID 0
#define XP_RBUF (256u * 1024)		/* the epoll path's read buffer, one per xport */
#define XP_READS 4			/* recv calls per socket per wakeup (epoll) */
#define XP_CHUNK (64u * 1024)		/* copied bytes are kept in chunks this large */
#define XP_ROUNDS 8			/* deliver/submit/reap rounds per loop turn */
#define XP_QUIESCE_TRIES 100		/* 10 ms waits for a cancelled socket's completions */
#define XP_RING_FLAGS (IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | \
		       IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SUBMIT_ALL | \
		       IORING_SETUP_TASKRUN_FLAG)

#define XP_OF(p, type, member) ((type *)(void *)((char *)(p) - offsetof(type, member)))

/* The first needs Linux 6.1; the fallback 6.0 (as multishot recv does). Without
 * DEFER_TASKRUN, COOP_TASKRUN could leave completions waiting while the loop
 * sleeps in epoll_wait, so the fallback drops it. */
static const unsigned ring_flag_sets[] = {
	XP_RING_FLAGS,
	IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_SUBMIT_ALL,
};

struct xp_link {
	struct xp_link *prev, *next;
};

/* Copied bytes; never moved while the kernel may read them. */
struct xp_chunk {
	struct xp_chunk *next;
	size_t cap, used, done;
	uint8_t data[];
};

struct xp_seg {
	const uint8_t *p;
	size_t n;
	struct xp_chunk *c;	/* NULL: the caller's memory (xport_put_ref) */
};

enum xp_state { XP_CLOSED, XP_CONNECTING, XP_OPEN };

/* Callbacks owed to the caller (run from the loop) ... */
enum { XP_D_CONNECTED = 1, XP_D_STASH = 2, XP_D_LOST = 4 };
/* ... and work for the kernel (done when the loop turn ends). */
enum { XP_W_ARM = 1, XP_W_RECV = 2, XP_W_SEND = 4, XP_W_CONNECT = 8 };

/* user_data: generation << 32 | table index << 2 | op */
enum xp_op { XP_OP_NONE, XP_OP_RECV, XP_OP_SEND, XP_OP_CONNECT };

struct xport_sock {
	int fd;
	enum xp_state state;
	struct xport *x;		/* attached to or connecting on; NULL: detached */
	struct xport_cbs cbs;
	void *arg;
	struct xp_link all, dl, wl;	/* on x->socks, x->dl, x->wl */
	unsigned dflags, wflags;
	int err;			/* for XP_D_LOST */

	/* the send queue: seg[] is a ring of seg_cap (a power of 2) */
	struct xp_seg *seg;
	unsigned seg_head, seg_n, seg_cap;
	unsigned seg_busy;		/* the first seg_busy segments are in a sendmsg */
	struct xp_chunk *c_head, *c_tail, *c_spare;
	struct iovec *iov;
	unsigned iov_cap;
	struct msghdr msg;

	/* bytes a ring received before a detach, for data() after the next attach */
	uint8_t *stash;
	size_t stash_off, stash_len;

	/* io_uring */
	int id;				/* index in x->tab (and fixed file if fixed), or -1 */
	uint32_t gen;
	bool fixed, recv_on, send_on, conn_on;

	/* epoll */
	ev_io rd, wr;

	unsigned busy;			/* callbacks running: xport_sock_free defers */
	bool doomed;
	struct sockaddr_storage sa;
	socklen_t salen;
	char peer[96];
};

struct xp_ent {
	struct xport_sock *s;
	uint32_t gen;
};

struct xport {
	struct ev_loop *loop;
	enum xport_kind kind;
	unsigned max_socks;
	ev_prepare prep;
	ev_idle idle;
	ev_io efd_w;
	struct xp_link socks, dl, wl;
	unsigned nsocks;
	uint8_t *rbuf;

	int efd;
	bool ring_up;
	pthread_t owner;
	struct io_uring ring;
	unsigned sq_pending;
	struct io_uring_buf_ring *br;
	size_t br_len;
	uint8_t *bufs;
	unsigned nfiles;
	struct xp_ent *tab;
	unsigned ntab, tab_cap;
	unsigned *free_ids;
	unsigned nfree;
	struct io_uring_cqe *bl;	/* reaped completions not yet handled */
	unsigned bl_pos, bl_n, bl_cap;
	struct xp_chunk *orphans;	/* queues a cancel could not settle */
	struct xport_stats st;
};

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

/* ---- probe */

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_rc;
static char probe_why[160];

static int ring_init(struct io_uring *ring, unsigned entries, unsigned cq_entries)
{
	struct io_uring_params p;
	int rc = -EINVAL;
	size_t i;

	for (i = 0; i < sizeof(ring_flag_sets) / sizeof(ring_flag_sets[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.flags = ring_flag_sets[i];
		if (cq_entries) {
			p.flags |= IORING_SETUP_CQSIZE;
			p.cq_entries = cq_entries;
		}
		rc = io_uring_queue_init_params(entries, ring, &p);
		if (rc != -EINVAL)
			break;
	}
	return rc;
}

static void probe(void)
{
	struct io_uring ring;
	struct io_uring_buf_reg reg;
	void *br;
	int rc;

	rc = ring_init(&ring, 8, 0);
	if (rc < 0) {
		snprintf(probe_why, sizeof(probe_why), "io_uring_setup: %s%s", strerror(-rc),
			 rc == -EINVAL ? " (a kernel older than 6.0)" : "");
		probe_rc = rc;
		return;
	}
	br = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (br == MAP_FAILED) {
		rc = -errno;
		snprintf(probe_why, sizeof(probe_why), "mmap: %s", strerror(-rc));
	} else {
		memset(&reg, 0, sizeof(reg));
		reg.ring_addr = (uintptr_t)br;
		reg.ring_entries = 8;
		reg.bgid = XP_BGID;
		rc = io_uring_register_buf_ring(&ring, &reg, 0);
		if (rc < 0)
			snprintf(probe_why, sizeof(probe_why), "io_uring_register_buf_ring: %s",
				 strerror(-rc));
		else if ((rc = io_uring_register_files_sparse(&ring, 1)) < 0)
			snprintf(probe_why, sizeof(probe_why), "io_uring_register_files_sparse: %s",
				 strerror(-rc));
	}
	io_uring_queue_exit(&ring);
	if (br != MAP_FAILED)
		munmap(br, 4096);
	probe_rc = rc;
}

int xport_probe(char *why, size_t len)
{
	pthread_once(&probe_once, probe);
	if (why && len)
		snprintf(why, len, "%s", probe_rc < 0 ? probe_why : "");
	return probe_rc;
}

/* ---- the send queue */

static struct xp_seg *seg_at(struct xport_sock *s, unsigned i)
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
			seg[i] = *seg_at(s, i);
		free(s->seg);
		s->seg = seg;
		s->seg_cap = cap;
		s->seg_head = 0;
	}
	*seg_at(s, s->seg_n++) = (struct xp_seg){ p, n, c };
	return 0;
}

/* The last segment, if it may still grow (it is not in a sendmsg). */
static struct xp_seg *seg_open_tail(struct xport_sock *s)
{
	if (s->seg_n == 0 || s->seg_n <= s->seg_busy)
		return NULL;
	return seg_at(s, s->seg_n - 1);
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

static void queue_consume(struct xport_sock *s, size_t n)
{
	while (n > 0 && s->seg_n > 0) {
		struct xp_seg *g = seg_at(s, 0);
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

static void chunk_free_list(struct xp_chunk *c)
{
	while (c) {
		struct xp_chunk *next = c->next;

		free(c);
		c = next;
	}
}

static void queue_drop(struct xport_sock *s)
{
	chunk_free_list(s->c_head);
	free(s->c_spare);
	s->c_head = s->c_tail = s->c_spare = NULL;
	s->seg_head = s->seg_n = s->seg_busy = 0;
}

/* iov[] from the first max segments; the number of entries. */
static unsigned iov_fill(struct xport_sock *s, unsigned max, size_t *bytes)
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
		struct xp_seg *g = seg_at(s, i);

		s->iov[i].iov_base = (void *)g->p;
		s->iov[i].iov_len = g->n;
		*bytes += g->n;
	}
	return n;
}

/* ---- sockets on the transport's lists */

static void efd_watch(struct xport *x)
{
	bool want = x->kind == XPORT_URING && x->nsocks > 0 && x->efd >= 0;

	if (want && !ev_is_active(&x->efd_w))
		ev_io_start(x->loop, &x->efd_w);
	else if (!want && ev_is_active(&x->efd_w))
		ev_io_stop(x->loop, &x->efd_w);
}

static void sock_link(struct xport_sock *s, struct xport *x, const struct xport_cbs *cbs,
		      void *arg)
{
	s->x = x;
	s->cbs = *cbs;
	s->arg = arg;
	link_add(&x->socks, &s->all);
	x->nsocks++;
	efd_watch(x);
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
	efd_watch(x);
}

static void owe(struct xport_sock *s, unsigned flags)
{
	s->dflags |= flags;
	if (link_empty(&s->dl))
		link_add(&s->x->dl, &s->dl);
}

static void work(struct xport_sock *s, unsigned flags)
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

enum xp_cb { XP_CB_CONNECTED, XP_CB_DATA, XP_CB_LOST };

/* Runs a callback of s; true if s was freed meanwhile (then it must not be touched). */
static bool sock_call(struct xport_sock *s, enum xp_cb cb, int err, const uint8_t *p, size_t n)
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

static void peer_fill(struct xport_sock *s)
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

/* ---- io_uring */

static bool ring_owner(const struct xport *x)
{
	return x->ring_up && pthread_equal(x->owner, pthread_self());
}

static void buf_put(struct xport *x, unsigned bid)
{
	io_uring_buf_ring_add(x->br, x->bufs + (size_t)bid * XP_BUFSZ, XP_BUFSZ, (unsigned short)bid,
			      io_uring_buf_ring_mask(XP_NBUFS), 0);
	io_uring_buf_ring_advance(x->br, 1);
}

static int ring_up(struct xport *x)
{
	unsigned entries = x->max_socks * 2 + 8, i;
	struct io_uring_buf_reg reg;
	struct rlimit rl;
	void *p;
	int rc;

	if (entries < 64)
		entries = 64;
	if (entries > 4096)
		entries = 4096;
	rc = ring_init(&x->ring, entries, entries * 4);
	if (rc < 0)
		return rc;
	x->br_len = XP_NBUFS * sizeof(struct io_uring_buf);
	p = mmap(NULL, x->br_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		rc = -errno;
		goto fail_ring;
	}
	x->br = p;
	p = mmap(NULL, (size_t)XP_NBUFS * XP_BUFSZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		rc = -errno;
		goto fail_br;
	}
	x->bufs = p;
	io_uring_buf_ring_init(x->br);
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (uintptr_t)x->br;
	reg.ring_entries = XP_NBUFS;
	reg.bgid = XP_BGID;
	rc = io_uring_register_buf_ring(&x->ring, &reg, 0);
	if (rc < 0)
		goto fail_bufs;
	for (i = 0; i < XP_NBUFS; i++)
		buf_put(x, i);
	rc = io_uring_register_eventfd(&x->ring, x->efd);
	if (rc < 0)
		goto fail_bufs;
	/* Sockets past the table (or every socket, if it cannot be made) use plain fds. */
	x->nfiles = x->max_socks;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < x->nfiles)
		x->nfiles = (unsigned)rl.rlim_cur;
	if (io_uring_register_files_sparse(&x->ring, x->nfiles) < 0)
		x->nfiles = 0;
	x->owner = pthread_self();
	x->ring_up = true;
	return 0;
fail_bufs:
	munmap(x->bufs, (size_t)XP_NBUFS * XP_BUFSZ);
	x->bufs = NULL;
fail_br:
	munmap(x->br, x->br_len);
	x->br = NULL;
fail_ring:
	io_uring_queue_exit(&x->ring);
	return rc;
}

/* The ring could not be made on the loop's thread: this transport uses epoll. */
static void ring_give_up(struct xport *x)
{
	x->kind = XPORT_EPOLL;
	efd_watch(x);
}

static int sock_register(struct xport *x, struct xport_sock *s)
{
	unsigned id;

	if (x->nfree) {
		id = x->free_ids[--x->nfree];
	} else {
		if (x->ntab == x->tab_cap) {
			unsigned cap = x->tab_cap ? x->tab_cap * 2 : 64;
			struct xp_ent *tab = realloc(x->tab, cap * sizeof(*tab));
			unsigned *ids;

			if (!tab)
				return -ENOMEM;
			x->tab = tab;
			ids = realloc(x->free_ids, cap * sizeof(*ids));
			if (!ids)
				return -ENOMEM;
			x->free_ids = ids;
			x->tab_cap = cap;
		}
		id = x->ntab++;
		x->tab[id].gen = 0;
	}
	x->tab[id].s = s;
	s->id = (int)id;
	s->gen = x->tab[id].gen;
	s->fixed = id < x->nfiles &&
		   io_uring_register_files_update(&x->ring, id, &s->fd, 1) == 1;
	return 0;
}

/* Forgets s's table entry: completions that still come for it are dropped. */
static void sock_unregister(struct xport *x, struct xport_sock *s, bool owner)
{
	int none = -1;

	if (s->id < 0)
		return;
	if (s->fixed && owner)
		io_uring_register_files_update(&x->ring, (unsigned)s->id, &none, 1);
	x->tab[s->id].s = NULL;
	x->tab[s->id].gen++;
	if (owner)
		x->free_ids[x->nfree++] = (unsigned)s->id;
	s->id = -1;
	s->fixed = false;
}

static uint64_t ud_make(const struct xport_sock *s, enum xp_op op)
{
	return (uint64_t)s->gen << 32 | (uint64_t)(unsigned)s->id << 2 | op;
}

static struct xport_sock *ud_sock(const struct xport *x, uint64_t ud)
{
	uint32_t id = (uint32_t)(ud >> 2) & 0x3fffffff;

	if ((ud & 3) == XP_OP_NONE || id >= x->ntab || x->tab[id].gen != (uint32_t)(ud >> 32))
		return NULL;
	return x->tab[id].s;
}

static void ring_submit(struct xport *x, bool events)
{
	int n;

	if (events)
		n = io_uring_submit_and_get_events(&x->ring);
	else
		n = io_uring_submit(&x->ring);
	if (x->sq_pending) {
		x->st.submits++;
		x->st.sqes += n > 0 ? (unsigned)n : 0;
	}
	x->sq_pending = 0;
}

static struct io_uring_sqe *ring_sqe(struct xport *x, const struct xport_sock *s, enum xp_op op)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&x->ring);

	if (!sqe) {
		ring_submit(x, false);
		sqe = io_uring_get_sqe(&x->ring);
		if (!sqe)
			return NULL;
	}
	x->sq_pending++;
	io_uring_sqe_set_data64(sqe, ud_make(s, op));
	return sqe;
}

static void sqe_target(struct io_uring_sqe *sqe, const struct xport_sock *s)
{
	if (s->fixed) {
		sqe->fd = s->id;
		sqe->flags |= IOSQE_FIXED_FILE;
	}
}

/* Copies completions out of the CQ, to be handled in order (memory only, no syscall). */
static bool ring_reap(struct xport *x)
{
	unsigned ready = io_uring_cq_ready(&x->ring), head, i = 0;
	struct io_uring_cqe *cqe;

	if (!ready)
		return false;
	if (x->bl_n + ready > x->bl_cap) {
		unsigned cap = x->bl_cap ? x->bl_cap : 256;
		struct io_uring_cqe *bl;

		while (cap < x->bl_n + ready)
			cap *= 2;
		bl = realloc(x->bl, cap * sizeof(*bl));
		if (bl) {
			x->bl = bl;
			x->bl_cap = cap;
		}
		if (x->bl_n + ready > x->bl_cap)
			ready = x->bl_cap - x->bl_n;
	}
	io_uring_for_each_cqe(&x->ring, head, cqe) {
		if (i == ready)
			break;
		x->bl[x->bl_n].user_data = cqe->user_data;
		x->bl[x->bl_n].res = cqe->res;
		x->bl[x->bl_n].flags = cqe->flags;
		x->bl_n++;
		i++;
	}
	io_uring_cq_advance(&x->ring, i);
	x->st.cqes += i;
	return i > 0;
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
	unsigned i;

	for (i = x->bl_pos; i < x->bl_n; i++) {
		struct io_uring_cqe *c = &x->bl[i];
		unsigned op = (unsigned)(c->user_data & 3);

		if (ud_sock(x, c->user_data) != s)
			continue;
		if (c->flags & IORING_CQE_F_BUFFER) {
			unsigned bid = c->flags >> IORING_CQE_BUFFER_SHIFT;

			if (op == XP_OP_RECV && c->res > 0 && keep &&
			    stash_add(s, x->bufs + (size_t)bid * XP_BUFSZ, (size_t)c->res) == 0)
				x->st.stashed += (size_t)c->res;
			buf_put(x, bid);
		}
		if (op == XP_OP_RECV && !(c->flags & IORING_CQE_F_MORE))
			s->recv_on = false;
		if (op == XP_OP_SEND) {
			s->send_on = false;
			s->seg_busy = 0;
			if (c->res > 0)
				queue_consume(s, (size_t)c->res);
		}
		if (op == XP_OP_CONNECT)
			s->conn_on = false;
		c->user_data = 0;
		c->flags = 0;
	}
}

static bool ring_busy(const struct xport_sock *s)
{
	return s->recv_on || s->send_on || s->conn_on;
}

/* Takes s off the ring on its own thread: cancels its requests, waits for their
 * completions and unregisters its file, so the ring cannot consume its bytes. */
static void ring_quiesce(struct xport *x, struct xport_sock *s, bool keep)
{
	struct io_uring_sync_cancel_reg reg;
	int tries;

	if (ring_busy(s)) {
		memset(&reg, 0, sizeof(reg));
		reg.fd = s->fixed ? s->id : s->fd;
		reg.flags = IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_FD |
			    (s->fixed ? IORING_ASYNC_CANCEL_FD_FIXED : 0);
		reg.timeout.tv_sec = -1;
		reg.timeout.tv_nsec = -1;
		io_uring_register_sync_cancel(&x->ring, &reg);
	}
	for (tries = 0; ring_busy(s); tries++) {
		struct __kernel_timespec ts = { 0, 10 * 1000 * 1000 };
		struct io_uring_cqe *cqe;

		io_uring_get_events(&x->ring);
		ring_reap(x);
		ring_settle(x, s, keep);
		if (!ring_busy(s))
			break;
		if (tries == XP_QUIESCE_TRIES) {
			/* Never seen: keep what a send may still read until the ring goes. */
			if (s->send_on && s->c_head) {
				s->c_tail->next = x->orphans;
				x->orphans = s->c_head;
				s->c_head = s->c_tail = NULL;
			}
			s->recv_on = s->send_on = s->conn_on = false;
			break;
		}
		io_uring_wait_cqe_timeout(&x->ring, &cqe, &ts);
	}
	ring_settle(x, s, keep);
	sock_unregister(x, s, true);
}

/* Takes s off a ring whose thread has ended (the kernel cancelled its requests
 * then): no syscalls on the ring, its completions are read from memory. A send
 * whose completion is not there is taken as sent. */
static void ring_forget(struct xport *x, struct xport_sock *s)
{
	ring_reap(x);
	ring_settle(x, s, true);
	if (s->send_on) {
		size_t n = 0;
		unsigned i;

		for (i = 0; i < s->seg_busy; i++)
			n += seg_at(s, i)->n;
		s->seg_busy = 0;
		queue_consume(s, n);
	}
	s->recv_on = s->send_on = s->conn_on = false;
	sock_unregister(x, s, false);
}

static void sock_fail(struct xport_sock *s, int err);

static void ring_build(struct xport *x, struct xport_sock *s, unsigned f)
{
	struct io_uring_sqe *sqe;
	int rc;

	if (f & XP_W_ARM) {
		if (s->id < 0 && (rc = sock_register(x, s)) < 0) {
			sock_fail(s, rc);
			return;
		}
		f |= XP_W_RECV | XP_W_SEND;
	}
	if ((f & XP_W_CONNECT) && s->state == XP_CONNECTING && !s->conn_on) {
		if (!(sqe = ring_sqe(x, s, XP_OP_CONNECT))) {
			work(s, f);
			return;
		}
		io_uring_prep_connect(sqe, s->fd, (struct sockaddr *)&s->sa, s->salen);
		sqe_target(sqe, s);
		s->conn_on = true;
	}
	if ((f & XP_W_RECV) && s->state == XP_OPEN && !s->recv_on) {
		if (!(sqe = ring_sqe(x, s, XP_OP_RECV))) {
			work(s, f);
			return;
		}
		io_uring_prep_recv_multishot(sqe, s->fd, NULL, 0, 0);
		sqe_target(sqe, s);
		/* Poll first: a recv tried at once would take bytes below SO_RCVLOWAT. */
		sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = XP_BGID;
		s->recv_on = true;
	}
	if ((f & XP_W_SEND) && s->state == XP_OPEN && !s->send_on && s->seg_n) {
		size_t bytes;
		unsigned n = iov_fill(s, IOV_MAX, &bytes);

		if (n == 0 || !(sqe = ring_sqe(x, s, XP_OP_SEND))) {
			work(s, f);
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
	return s->x == x && s->id >= 0 && x->tab[s->id].s == s;
}

static void ring_cqe(struct xport *x, const struct io_uring_cqe *c)
{
	struct xport_sock *s = ud_sock(x, c->user_data);
	unsigned op = (unsigned)(c->user_data & 3);
	unsigned bid = c->flags >> IORING_CQE_BUFFER_SHIFT;
	bool buf = c->flags & IORING_CQE_F_BUFFER;
	int res = c->res;

	if (!s) {
		if (buf)
			buf_put(x, bid);
		return;
	}
	switch (op) {
	case XP_OP_RECV:
		if (!(c->flags & IORING_CQE_F_MORE))
			s->recv_on = false;
		if (res > 0 && buf) {
			bool gone = sock_call(s, XP_CB_DATA, 0, x->bufs + (size_t)bid * XP_BUFSZ,
					      (size_t)res);

			buf_put(x, bid);
			if (gone)
				return;
		} else {
			if (buf)
				buf_put(x, bid);
			if (res == 0 || (res < 0 && res != -ENOBUFS && res != -ECANCELED &&
					 res != -EAGAIN && res != -EINTR)) {
				sock_fail(s, res);
				return;
			}
		}
		if (!s->recv_on && sock_on_ring(x, s) && s->state == XP_OPEN)
			work(s, XP_W_RECV);
		break;
	case XP_OP_SEND:
		s->send_on = false;
		s->seg_busy = 0;
		if (res > 0)
			queue_consume(s, (size_t)res);
		else if (res < 0 && res != -ECANCELED && res != -EAGAIN && res != -EINTR) {
			sock_fail(s, res);
			return;
		}
		if (s->seg_n && sock_on_ring(x, s))
			work(s, XP_W_SEND);
		break;
	case XP_OP_CONNECT:
		s->conn_on = false;
		if (res < 0) {
			xport_close(s);
			sock_call(s, XP_CB_CONNECTED, res, NULL, 0);
			return;
		}
		s->state = XP_OPEN;
		peer_fill(s);
		work(s, XP_W_RECV | XP_W_SEND);
		sock_call(s, XP_CB_CONNECTED, 0, NULL, 0);
		break;
	default:
		break;
	}
}

/* ---- epoll */

/* Sends the queue: 0 when all went, 1 when the socket is full, or -errno. */
static int ep_send(struct xport *x, struct xport_sock *s)
{
	while (s->seg_n) {
		size_t bytes;
		unsigned n = iov_fill(s, IOV_MAX, &bytes);
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
		queue_consume(s, (size_t)r);
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
	peer_fill(s);
	work(s, XP_W_ARM);
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
		sock_fail(s, -ENOMEM);
		return;
	}
	for (i = 0; i < XP_READS; i++) {
		ssize_t n = recv(s->fd, x->rbuf, XP_RBUF, MSG_DONTWAIT);

		if (n > 0) {
			if (sock_call(s, XP_CB_DATA, 0, x->rbuf, (size_t)n) || s->x != x ||
			    !ev_is_active(&s->rd) || (size_t)n < XP_RBUF)
				return;
			continue;
		}
		if (n == 0) {
			sock_fail(s, 0);
			return;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			sock_fail(s, -errno);
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
			xport_close(s);
			sock_call(s, XP_CB_CONNECTED, -err, NULL, 0);
			return;
		}
		ep_open(s);
		sock_call(s, XP_CB_CONNECTED, 0, NULL, 0);
		return;
	}
	rc = ep_send(x, s);
	if (rc <= 0)
		ev_io_stop(loop, w);
	if (rc < 0)
		sock_fail(s, rc);
}

static void ep_build(struct xport *x, struct xport_sock *s, unsigned f)
{
	int rc;

	if (f & XP_W_ARM) {
		ev_io_set(&s->rd, s->fd, EV_READ);
		ev_io_start(x->loop, &s->rd);
		f |= XP_W_SEND;
	}
	if ((f & XP_W_SEND) && s->state == XP_OPEN && s->seg_n && !ev_is_active(&s->wr)) {
		rc = ep_send(x, s);
		if (rc > 0) {
			ev_io_set(&s->wr, s->fd, EV_WRITE);
			ev_io_start(x->loop, &s->wr);
		} else if (rc < 0) {
			sock_fail(s, rc);
		}
	}
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
	if (s->id >= 0) {
		if (ring_owner(x))
			ring_quiesce(x, s, keep);
		else
			ring_forget(x, s);
	}
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

/* Closes s now and owes lost(err) from the loop. */
static void sock_fail(struct xport_sock *s, int err)
{
	struct xport *x = s->x;

	sock_close_fd(s);
	if (!x)
		return;
	link_del(&s->wl);
	s->wflags = 0;
	s->err = err;
	owe(s, XP_D_LOST);
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
			gone = sock_call(s, XP_CB_DATA, 0, b + off, len - off);
			free(b);
			if (gone || s->x != x)
				continue;
		}
		if ((f & XP_D_CONNECTED) && s->state == XP_OPEN &&
		    sock_call(s, XP_CB_CONNECTED, 0, NULL, 0))
			continue;
		if (f & XP_D_LOST) {
			sock_unlink(s);
			sock_call(s, XP_CB_LOST, s->err, NULL, 0);
		}
	}
	return true;
}

static bool ring_process(struct xport *x)
{
	bool any = x->bl_pos < x->bl_n;

	while (x->bl_pos < x->bl_n) {
		struct io_uring_cqe c = x->bl[x->bl_pos++];

		ring_cqe(x, &c);
	}
	x->bl_pos = x->bl_n = 0;
	return any;
}

/* Does the kernel work queued on sockets. The ring is made here, on first use,
 * when may_start: on the loop's thread. */
static void build(struct xport *x, bool may_start)
{
	struct xp_link batch;

	if (link_empty(&x->wl))
		return;
	if (x->kind == XPORT_URING && !x->ring_up) {
		if (!may_start)
			return;
		if (ring_up(x) < 0)
			ring_give_up(x);
	}
	link_move(&x->wl, &batch);
	while (!link_empty(&batch)) {
		struct xport_sock *s = XP_OF(batch.next, struct xport_sock, wl);
		unsigned f = s->wflags;

		link_del(&s->wl);
		s->wflags = 0;
		if (x->kind == XPORT_URING)
			ring_build(x, s, f);
		else
			ep_build(x, s, f);
	}
}

/* One loop turn's work: callbacks owed (if calls), completions handled, all
 * sends and arms in one submit, completions reaped; repeated while that made
 * more work, then the loop is kept from blocking if work is left. */
static void pump(struct xport *x, bool calls, bool events)
{
	int round;
	bool more;

	for (round = 0; round < XP_ROUNDS; round++) {
		bool busy = false;

		if (calls) {
			busy |= deliver(x);
			if (x->ring_up)
				busy |= ring_process(x);
		}
		build(x, calls);
		if (x->ring_up && (x->sq_pending || events || io_uring_cq_has_overflow(&x->ring))) {
			ring_submit(x, calls);
			events = false;
		}
		if (!calls)
			return;
		if (x->ring_up && ring_reap(x))
			busy = true;
		if (!busy)
			break;
	}
	more = !link_empty(&x->dl) || !link_empty(&x->wl) || x->bl_pos < x->bl_n ||
	       (x->ring_up && (io_uring_cq_ready(&x->ring) || io_uring_cq_has_overflow(&x->ring)));
	if (more && !ev_is_active(&x->idle))
		ev_idle_start(x->loop, &x->idle);
	else if (!more && ev_is_active(&x->idle))
		ev_idle_stop(x->loop, &x->idle);
}

static void prep_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	(void)loop;
	(void)revents;
	pump(XP_OF(w, struct xport, prep), true, false);
}

/* Only keeps the loop from blocking; the prepare watcher does the work. */
static void idle_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
}

static void efd_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct xport *x = XP_OF(w, struct xport, efd_w);
	uint64_t v, cqes;
	ssize_t r;

	(void)loop;
	(void)revents;
	x->st.wakeups++;
	r = read(x->efd, &v, sizeof(v));
	(void)r;
	if (!x->ring_up)
		return;
	/* The eventfd also fires for completions this thread posted and reaped
	 * itself; with TASKRUN_FLAG the kernel shows whether work is waiting. */
	if ((x->ring.flags & IORING_SETUP_TASKRUN_FLAG) && !io_uring_cq_ready(&x->ring) &&
	    !(IO_URING_READ_ONCE(*x->ring.sq.kflags) & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW))) {
		x->st.empty_wakeups++;
		return;
	}
	cqes = x->st.cqes;
	pump(x, true, true);
	if (x->st.cqes == cqes)
		x->st.empty_wakeups++;
}

/* ---- the contract */

struct xport *xport_new(struct ev_loop *loop, bool want_uring, unsigned max_socks)
{
	struct xport *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->loop = loop;
	x->max_socks = max_socks ? max_socks : 1;
	x->efd = -1;
	x->kind = XPORT_EPOLL;
	link_init(&x->socks);
	link_init(&x->dl);
	link_init(&x->wl);
	if (want_uring && xport_probe(NULL, 0) == 0) {
		x->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (x->efd >= 0)
			x->kind = XPORT_URING;
	}
	ev_prepare_init(&x->prep, prep_cb);
	ev_prepare_start(loop, &x->prep);
	ev_unref(loop);
	ev_idle_init(&x->idle, idle_cb);
	ev_io_init(&x->efd_w, efd_cb, x->efd, EV_READ);
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
	if (x->ring_up) {
		if (ring_owner(x)) {
			struct io_uring_sync_cancel_reg reg;

			memset(&reg, 0, sizeof(reg));
			reg.flags = IORING_ASYNC_CANCEL_ANY;
			reg.timeout.tv_sec = -1;
			reg.timeout.tv_nsec = -1;
			io_uring_register_sync_cancel(&x->ring, &reg);
			io_uring_get_events(&x->ring);
		}
		io_uring_queue_exit(&x->ring);
		munmap(x->bufs, (size_t)XP_NBUFS * XP_BUFSZ);
		munmap(x->br, x->br_len);
	}
	if (ev_is_active(&x->idle))
		ev_idle_stop(x->loop, &x->idle);
	if (ev_is_active(&x->efd_w))
		ev_io_stop(x->loop, &x->efd_w);
	ev_ref(x->loop);
	ev_prepare_stop(x->loop, &x->prep);
	if (x->efd >= 0)
		close(x->efd);
	chunk_free_list(x->orphans);
	free(x->tab);
	free(x->free_ids);
	free(x->bl);
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
	ev_io_init(&s->rd, ep_rd_cb, -1, EV_READ);
	ev_io_init(&s->wr, ep_wr_cb, -1, EV_WRITE);
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
	if (x->kind == XPORT_URING && !x->ring_up && ring_up(x) < 0)
		ring_give_up(x);
	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC |
		    (x->kind == XPORT_EPOLL ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	memcpy(&s->sa, sa, salen);
	s->salen = salen;
	s->fd = fd;
	s->state = XP_CONNECTING;
	peer_fill(s);
	sock_link(s, x, cbs, arg);
	if (x->kind == XPORT_URING) {
		if ((rc = sock_register(x, s)) < 0)
			goto fail;
		work(s, XP_W_CONNECT);
		return 0;
	}
	if (connect(fd, sa, salen) == 0) {
		ep_open(s);
		owe(s, XP_D_CONNECTED);
		return 0;
	}
	if (errno != EINPROGRESS) {
		rc = -errno;
		goto fail;
	}
	ev_io_set(&s->wr, fd, EV_WRITE);
	ev_io_start(x->loop, &s->wr);
	return 0;
fail:
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
	work(s, XP_W_ARM);
	if (s->stash_len > s->stash_off)
		owe(s, XP_D_STASH);
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
		work(s, XP_W_SEND);
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
		pump(x, false, false);
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
		unsigned n = iov_fill(s, IOV_MAX, &bytes);

		if (n == 0)
			return -ENOMEM;
		rc = sync_sendv(s->fd, s->iov, (int)n, deadline, &done);
		queue_consume(s, done);
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
