/*
 * xport_ring: the ring of the io_uring kind of transport and what is
 * registered with it (see xport_ring.h). It probes whether io_uring can be
 * used at all, makes the ring on the loop's thread, keeps the provided receive buffers (a buffer ring the
 * kernel picks from: where each completion's bytes are in them, when each goes
 * back, the sockets waiting for one) and the table of sockets with their fixed
 * files, copies completions out of the completion queue (memory only), and
 * tears it all down. What goes through the ring (requests, what completions
 * mean, the loop's wakes) is xport_uring.c's.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "xport_ring.h"

/*
 * Provided buffers: a ring for up to 128 sockets has 256 of 64 KiB; one for more
 * sockets 2 per socket (a power of 2, at most 4096) in at most 64 MiB of address
 * space (so 16 KiB each at 4096). In use: 16 at first, 2 per socket up to 256,
 * then twice as many each time a receive finds none. With 9,000 sockets a ring
 * of 256 ran dry at every burst of replies: each receive that found no buffer
 * ended and had to be made again (18,000 connections at iodepth 1 over two
 * servers: 61 us of client CPU per read, 17,000 reads/s and 1,025 connections
 * never served in 15 s; with 4096: 13 us, 41,000 reads/s, all served).
 *
 * Even 4096 ran dry there: the servers answer in waves of thousands, and a
 * 4 KiB read's reply took a 16 KiB buffer (0.9 receives ended for want of one
 * per reply). So a ring for more than XP_INC_SOCKS sockets uses incremental
 * buffers where the kernel has them (Linux 6.12): 1024 of 64 KiB, each filled
 * by one receive after another, so 64 MiB holds 15,000 such replies (none
 * ended then). Not with timestamps: a recvmsg needs its header's room in one
 * piece, and a buffer's last bytes may not have it.
 */
#define XP_NBUFS_MIN 16u
#define XP_NBUFS_REG 256u		/* in use after sockets register, at most */
#define XP_NBUFS_CAP 4096u
#define XP_BUFS_SPACE ((size_t)64 << 20)
#define XP_BUFSZ_MAX ((size_t)64 << 10)
#define XP_INC_SOCKS 128u		/* more sockets: incremental buffers */
/* Linux 6.0 (as multishot recv). COOP_TASKRUN still wakes a thread sleeping in
 * epoll_wait (TWA_SIGNAL_NO_IPI); it only spares the IPI while it runs. */
#define XP_RING_FLAGS (IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN | \
		       IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_SUBMIT_ALL)

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_rc;
static unsigned probe_features;		/* the kernel's IORING_FEAT_* */
static char probe_why[160];

static int ring_init(struct io_uring *ring, unsigned entries, unsigned cq_entries, unsigned flags)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = XP_RING_FLAGS | flags;
	if (cq_entries) {
		p.flags |= IORING_SETUP_CQSIZE;
		p.cq_entries = cq_entries;
	}
	return io_uring_queue_init_params(entries, ring, &p);
}

static void probe(void)
{
	struct io_uring ring;
	struct io_uring_buf_reg reg;
	void *br;
	int rc;

	rc = ring_init(&ring, 8, 0, 0);
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
	probe_features = ring.features;
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

bool xport_min_wait(void)
{
	pthread_once(&probe_once, probe);
	return probe_rc == 0 && (probe_features & IORING_FEAT_MIN_TIMEOUT);
}

bool xp_ring_owner(const struct xport *x)
{
	return x->ring && pthread_equal(x->ring->owner, pthread_self());
}

void xp_buf_put(struct xp_ring *r, unsigned bid)
{
	io_uring_buf_ring_add(r->br, r->bufs + (size_t)bid * r->bufsz, (unsigned)r->bufsz,
			      (unsigned short)bid, io_uring_buf_ring_mask(r->nbufs_max), 0);
	io_uring_buf_ring_advance(r->br, 1);
}

/* The ring hands buffers out in the order they were given back, so every buffer
 * in use is written in turn: as few as the load needs stay in cache. (4 KiB
 * random reads at QD16 on one connection: copies into the buffers took 6% of
 * the client's CPU with all 256 in use, 2.5% with 16.) Two per socket on the
 * ring, and twice as many after a receive found none (ENOBUFS: it stops and
 * is made again, in another submit). */
void xp_bufs_grow(struct xp_ring *r, unsigned want)
{
	if (want > r->nbufs_max)
		want = r->nbufs_max;
	while (r->nbufs < want)
		xp_buf_put(r, r->nbufs++);
}

static void bufs_down(struct xp_ring *r)
{
	if (r->bufs)
		munmap(r->bufs, (size_t)r->nbufs_max * r->bufsz);
	if (r->br)
		munmap(r->br, r->br_len);
	free(r->boff);
	r->bufs = NULL;
	r->br = NULL;
	r->boff = NULL;
	r->inc = false;
}

/*
 * Buffers: a completion's bytes start at its buffer's start, or with
 * incremental buffers where the previous completion on that buffer ended (the
 * kernel fills a buffer from one receive to the next and says, F_BUF_MORE,
 * that it has not finished with it). Completions come in the order the kernel
 * used the buffers, so offsets are counted as they are reaped, and a buffer
 * goes back when the completion that finished it is handled (in order: the
 * ones before it, on other sockets, have been).
 */
void xp_buf_used(struct xp_ring *r, struct xp_cqe *c)
{
	unsigned bid = c->flags >> IORING_CQE_BUFFER_SHIFT;

	if (r->inc) {
		c->off = r->boff[bid];
		r->boff[bid] = c->flags & IORING_CQE_F_BUF_MORE ?
			       r->boff[bid] + (uint32_t)(c->res > 0 ? c->res : 0) : 0;
	}
	if (!(c->flags & IORING_CQE_F_BUF_MORE))
		r->held++;
}

/* Gives back the buffer of a handled completion if it finished it. */
void xp_buf_back(struct xp_ring *r, const struct xp_cqe *c)
{
	if (!(c->flags & IORING_CQE_F_BUFFER) || (c->flags & IORING_CQE_F_BUF_MORE))
		return;
	r->held--;
	xp_buf_put(r, c->flags >> IORING_CQE_BUFFER_SHIFT);
}

/*
 * A multishot receive that finds no buffer ends (ENOBUFS) with its bytes left
 * in the socket. Made again at once, it would end the same way while the
 * buffers are in completions not handled yet: 18,000 connections at iodepth 1
 * (9,000 sockets and 4,096 buffers per ring, replies coming in waves) saw 1.2
 * such ends per reply. So the socket waits here, and receives are made again
 * for as many of them as there are buffers free.
 */
void xp_starve(struct xp_ring *r, struct xport_sock *s)
{
	if (s->starved)
		return;
	if (r->st_n == r->st_cap) {
		unsigned cap = r->st_cap ? r->st_cap * 2 : 64, i;
		uint64_t *q = malloc(cap * sizeof(*q));

		if (!q) {
			xp_work(s, XP_W_RECV);
			return;
		}
		for (i = 0; i < r->st_n; i++)
			q[i] = r->starved[(r->st_head + i) & (r->st_cap - 1)];
		free(r->starved);
		r->starved = q;
		r->st_cap = cap;
		r->st_head = 0;
	}
	r->starved[(r->st_head + r->st_n++) & (r->st_cap - 1)] = ud_make(s, XP_OP_RECV);
	s->starved = true;
}

/* Receives made again for starved sockets, one per buffer free. */
void xp_feed(struct xport *x)
{
	struct xp_ring *r = x->ring;
	unsigned budget = r->nbufs > r->held ? r->nbufs - r->held : 0;

	while (r->st_n && budget) {
		struct xport_sock *s = ud_sock(x, r->starved[r->st_head]);

		r->st_head = (r->st_head + 1) & (r->st_cap - 1);
		r->st_n--;
		if (!s)
			continue;
		s->starved = false;
		if (!s->recv_on && s->state == XP_OPEN) {
			xp_work(s, XP_W_RECV);
			budget--;
		}
	}
}

/* Copies completions out of the CQ, to be handled in order (memory only, no syscall). */
bool xp_ring_reap(struct xport *x)
{
	struct xp_ring *r = x->ring;
	unsigned ready = io_uring_cq_ready(&r->uring), head, i = 0;
	struct io_uring_cqe *cqe;

	if (!ready)
		return false;
	if (r->bl_pos) {
		memmove(r->bl, r->bl + r->bl_pos, (r->bl_n - r->bl_pos) * sizeof(*r->bl));
		r->bl_n -= r->bl_pos;
		r->bl_pos = 0;
	}
	if (r->bl_n + ready > r->bl_cap) {
		unsigned cap = r->bl_cap ? r->bl_cap : 256;
		struct xp_cqe *bl;

		while (cap < r->bl_n + ready)
			cap *= 2;
		bl = realloc(r->bl, cap * sizeof(*bl));
		if (bl) {
			r->bl = bl;
			r->bl_cap = cap;
		}
		if (r->bl_n + ready > r->bl_cap)
			ready = r->bl_cap - r->bl_n;
	}
	io_uring_for_each_cqe(&r->uring, head, cqe) {
		if (i == ready)
			break;
		r->bl[r->bl_n].user_data = cqe->user_data;
		r->bl[r->bl_n].res = cqe->res;
		r->bl[r->bl_n].flags = cqe->flags;
		r->bl[r->bl_n].off = 0;
		if (cqe->flags & IORING_CQE_F_BUFFER)
			xp_buf_used(r, &r->bl[r->bl_n]);
		r->bl_n++;
		i++;
	}
	io_uring_cq_advance(&r->uring, i);
	x->st.cqes += i;
	return i > 0;
}

/* The provided buffers (see above), incremental if inc; 0 or -errno. */
static int bufs_up(struct xport *x, struct xp_ring *r, bool inc)
{
	struct io_uring_buf_reg reg;
	void *p;
	int rc;

	r->nbufs_max = inc ? (unsigned)(XP_BUFS_SPACE / XP_BUFSZ_MAX) : 256;
	while (!inc && r->nbufs_max < XP_NBUFS_CAP && r->nbufs_max < 2 * x->max_socks)
		r->nbufs_max *= 2;
	r->bufsz = XP_BUFS_SPACE / r->nbufs_max < XP_BUFSZ_MAX ? XP_BUFS_SPACE / r->nbufs_max :
		   XP_BUFSZ_MAX;
	r->br_len = r->nbufs_max * sizeof(struct io_uring_buf);
	r->inc = inc;
	p = mmap(NULL, r->br_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r->br = p == MAP_FAILED ? NULL : p;
	p = mmap(NULL, (size_t)r->nbufs_max * r->bufsz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r->bufs = p == MAP_FAILED ? NULL : p;
	r->boff = inc ? calloc(r->nbufs_max, sizeof(*r->boff)) : NULL;
	if (!r->br || !r->bufs || (inc && !r->boff)) {
		bufs_down(r);
		return -ENOMEM;
	}
	io_uring_buf_ring_init(r->br);
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (uintptr_t)r->br;
	reg.ring_entries = r->nbufs_max;
	reg.bgid = XP_BGID;
	reg.pad = inc ? XP_PBUF_RING_INC : 0;	/* the flags; INC is EINVAL before Linux 6.12 */
	rc = io_uring_register_buf_ring(&r->uring, &reg, 0);
	if (rc < 0) {
		bufs_down(r);
		return rc;
	}
	return 0;
}

int xp_ring_up(struct xport *x)
{
	unsigned entries = x->max_socks * 2 + 8;
	struct xp_ring *r;
	struct rlimit rl;
	int rc = -EINVAL;

	if (entries < 64)
		entries = 64;
	if (entries > 4096)
		entries = 4096;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* A ring its thread sleeps in runs its completions' task work only when
	 * the thread asks (in that sleep), and wakes it only when enough are in
	 * (Linux 6.1). */
	x->ring_waits = x->want_ring_wait && xp_wait_enter(x);
	rc = ring_init(&r->uring, entries, entries * 4,
		       x->ring_waits ? IORING_SETUP_DEFER_TASKRUN : 0);
	if (rc < 0 && x->ring_waits) {
		xp_wait_leave(x);
		x->ring_waits = false;
		rc = ring_init(&r->uring, entries, entries * 4, 0);
	}
	if (rc < 0)
		goto fail_alloc;
	rc = -EINVAL;
	if (x->max_socks > XP_INC_SOCKS && !x->stamps)
		rc = bufs_up(x, r, true);
	if (rc < 0 && (rc = bufs_up(x, r, false)) < 0)
		goto fail_ring;
	xp_bufs_grow(r, XP_NBUFS_MIN);
	/* Sockets past the table (or every socket, if it cannot be made) use plain fds. */
	r->nfiles = x->max_socks;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < r->nfiles)
		r->nfiles = (unsigned)rl.rlim_cur;
	if (io_uring_register_files_sparse(&r->uring, r->nfiles) < 0)
		r->nfiles = 0;
	/* (A ring the thread sleeps in wakes it for io-wq's completions too.) */
	x->efd = x->ring_waits ? -1 : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (x->efd >= 0 && io_uring_register_eventfd_async(&r->uring, x->efd) < 0) {
		close(x->efd);
		x->efd = -1;
	}
	r->owner = pthread_self();
	x->ring = r;
	x->shared_bufs = r->inc;
	return 0;
fail_ring:
	io_uring_queue_exit(&r->uring);
fail_alloc:
	if (x->ring_waits)
		xp_wait_leave(x);
	x->ring_waits = false;
	free(r);
	return rc;
}

int xp_sock_register(struct xport *x, struct xport_sock *s)
{
	struct xp_ring *r = x->ring;
	unsigned id;

	if (r->nfree) {
		id = r->free_ids[--r->nfree];
	} else {
		if (r->ntab == r->tab_cap) {
			unsigned cap = r->tab_cap ? r->tab_cap * 2 : 64;
			struct xp_ent *tab = realloc(r->tab, cap * sizeof(*tab));
			unsigned *ids;

			if (!tab)
				return -ENOMEM;
			r->tab = tab;
			ids = realloc(r->free_ids, cap * sizeof(*ids));
			if (!ids)
				return -ENOMEM;
			r->free_ids = ids;
			r->tab_cap = cap;
		}
		id = r->ntab++;
		r->tab[id].gen = 0;
	}
	r->tab[id].s = s;
	s->id = (int)id;
	s->gen = r->tab[id].gen;
	if (r->nbufs < XP_NBUFS_REG)
		xp_bufs_grow(r, 2 * (r->ntab - r->nfree) < XP_NBUFS_REG ? 2 * (r->ntab - r->nfree) :
			     XP_NBUFS_REG);
	s->fixed = id < r->nfiles &&
		   io_uring_register_files_update(&r->uring, id, &s->fd, 1) == 1;
	return 0;
}

/* Forgets s's table entry: completions that still come for it are dropped. */
void xp_sock_unregister(struct xport *x, struct xport_sock *s, bool owner)
{
	struct xp_ring *r = x->ring;
	int none = -1;

	if (s->id < 0)
		return;
	if (s->fixed && owner)
		io_uring_register_files_update(&r->uring, (unsigned)s->id, &none, 1);
	r->tab[s->id].s = NULL;
	r->tab[s->id].gen++;
	if (owner)
		r->free_ids[r->nfree++] = (unsigned)s->id;
	s->id = -1;
	s->fixed = false;
	s->starved = false;	/* its place in the starved queue has the old generation */
}

void xp_ring_down(struct xport *x)
{
	struct xp_ring *r = x->ring;

	if (r) {
		if (xp_ring_owner(x)) {
			struct io_uring_sync_cancel_reg reg;

			memset(&reg, 0, sizeof(reg));
			reg.flags = IORING_ASYNC_CANCEL_ANY;
			reg.timeout.tv_sec = -1;
			reg.timeout.tv_nsec = -1;
			io_uring_register_sync_cancel(&r->uring, &reg);
			io_uring_get_events(&r->uring);
			xp_wait_leave(x);
		}
		x->ring_waits = false;
		io_uring_queue_exit(&r->uring);
		bufs_down(r);
		xp_chunk_free_list(r->orphans);
		free(r->tab);
		free(r->free_ids);
		free(r->bl);
		free(r->starved);
		free(r);
		x->ring = NULL;
	}
	if (x->efd >= 0)
		close(x->efd);
	x->efd = -1;
}

/* A submit of n requests (-errno: none) ended: the counters. */
static void submitted(struct xport *x, int n)
{
	struct xp_ring *r = x->ring;

	if (r->sq_pending) {
		x->st.submits++;
		x->st.sqes += n > 0 ? (unsigned)n : 0;
	}
	r->sq_pending = r->sq_sends = 0;
}

void xp_ring_submit(struct xport *x, bool events)
{
	struct io_uring *ring = &x->ring->uring;

	submitted(x, events ? io_uring_submit_and_get_events(ring) : io_uring_submit(ring));
}

struct io_uring_sqe *xp_ring_sqe(struct xport *x, uint64_t ud)
{
	struct xp_ring *r = x->ring;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->uring);

	if (!sqe) {
		xp_ring_submit(x, false);
		if (!(sqe = io_uring_get_sqe(&r->uring)))
			return NULL;
	}
	r->sq_pending++;
	if ((ud & 3) == XP_OP_SEND)
		r->sq_sends++;
	io_uring_sqe_set_data64(sqe, ud);
	return sqe;
}

/* What io_uring_submit does before its system call: the new requests become
 * the kernel's. The number not yet submitted. */
static unsigned flush_sq(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned tail = sq->sqe_tail;

	if (sq->sqe_head != tail) {
		sq->sqe_head = tail;
		io_uring_smp_store_release(sq->ktail, tail);
	}
	return tail - io_uring_smp_load_acquire(sq->khead);
}

/*
 * A poll of the loop in the ring (xport_wait.c): one io_uring_enter submits
 * what waits and waits. The
 * poll of the loop's epoll fd is one-shot, armed again with the next submit:
 * armed on a ready fd it fires at once, so an event the loop's turn left
 * unread is not lost (a multishot poll fires on new events only). With nr > 1
 * (Linux 6.12's min_wait), the kernel wakes the thread when nr completions are
 * in, or, after hold_ns, as soon as one is: deferred task work (the ring's
 * IORING_SETUP_DEFER_TASKRUN) does not wake it for each completion before.
 */
int xp_ring_wait(struct xport *x, uint64_t ns, unsigned nr, uint64_t hold_ns)
{
	struct xp_ring *r = x->ring;
	struct __kernel_timespec ts;
	struct io_uring_getevents_arg arg;
	unsigned flags = IORING_ENTER_GETEVENTS, submit;
	int n;

	if (!r || x->loop_fd < 0)
		return -EAGAIN;
	if (!x->loop_poll) {
		struct io_uring_sqe *sqe = xp_ring_sqe(x, XP_UD_LOOP);

		if (sqe) {
			io_uring_prep_poll_add(sqe, x->loop_fd, POLLIN);
			x->loop_poll = true;
		}
	}
	if (!x->loop_poll)
		ns = 0;
	/* The sends' completions come in the submit: the wait is for what follows. */
	nr += r->sq_sends;
	submit = flush_sq(&r->uring);
	memset(&arg, 0, sizeof(arg));
	if (ns) {
		ts.tv_sec = (long long)(ns / 1000000000u);
		ts.tv_nsec = (long long)(ns % 1000000000u);
		arg.ts = (uint64_t)(uintptr_t)&ts;
		if (hold_ns && (r->uring.features & IORING_FEAT_MIN_TIMEOUT))
			arg.pad = (uint32_t)(hold_ns / 1000u ? hold_ns / 1000u : 1u);
		else if (nr > r->sq_sends + 1)
			nr = r->sq_sends + 1;
		flags |= IORING_ENTER_EXT_ARG;
	} else {
		nr = 0;
	}
	n = io_uring_enter2((unsigned)r->uring.ring_fd, submit, nr, flags,
			    ns ? (sigset_t *)(void *)&arg : NULL, ns ? sizeof(arg) : _NSIG / 8);
	submitted(x, n);
	if (xp_ring_reap(x))
		x->st.wakeups++;
	return 0;
}
