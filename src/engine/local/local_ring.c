/*
 * local_ring: the local engine's io_uring, one per loop, and the only file
 * of the engine that includes liburing. It owns the ring, the pool of
 * registered read buffers, the records of requests in flight and the two
 * watchers that drive them: an ev_prepare that submits what the loop turn
 * queued (one io_uring_submit per turn, however many requests the turn's
 * completions refilled) and an ev_io on an eventfd registered with the ring,
 * which the kernel signals when it posts completions.
 *
 * Every buffer handed to the kernel lives until its completion is reaped,
 * whatever happened to its connection meanwhile: a forgotten request (drop,
 * a timeout) keeps its record, its pool slot or heap buffer, and only its
 * callback is gone. That is what makes drop() and timeouts safe without
 * waiting for the kernel.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <liburing.h>

#include "base/clock.h"
#include "local.h"

#define LR_ALIGN 4096u			/* buffers: page aligned, enough for any O_DIRECT */
#define LR_POOL_MAX (UINT64_C(256) << 20)	/* registered pool per ring, at most */
#define LR_REG_MAX 16384u		/* registered buffers per ring (the kernel's limit) */
#define LR_DRAIN_NS UINT64_C(2000000000)	/* local_ring_free: wait this long for the kernel */

/* One request between queue and its completion. */
struct lr_op {
	struct engine_req *req;
	struct engine_conn *c;		/* NULL: forgotten, the completion only frees */
	uint64_t start_ns;
	void *heap;			/* a buffer of its own, when the pool had none to give */
	int slot;			/* its pool slot, -1 for none */
};

struct local_ring {
	struct engine_thread *t;
	struct io_uring uring;
	int efd;
	ev_io efd_w;
	ev_prepare submit_w;
	unsigned sq_pending;
	bool direct;
	/* The pool: nslots buffers of slot_sz bytes, the first nreg registered. */
	uint8_t *pool;
	size_t pool_len, slot_sz;
	unsigned nslots, nreg;
	unsigned *free_slots, nfree_slots;
	/* Records: indexed by a completion's user_data. */
	struct lr_op *ops;
	unsigned ops_cap;
	unsigned *free_ops, nfree_ops;
	unsigned busy;			/* records whose completion has not come */
};

/* Set once by the first ring whose buffers the kernel would not register. */
static _Atomic(const char *) reg_note;
static char reg_note_buf[160];
static atomic_flag reg_note_once = ATOMIC_FLAG_INIT;

const char *local_ring_note(void)
{
	const char *n = atomic_load(&reg_note);

	return n ? n : "";
}

static void note_unregistered(int rc)
{
	if (atomic_flag_test_and_set(&reg_note_once))
		return;
	snprintf(reg_note_buf, sizeof(reg_note_buf), "local engine: reads without registered "
		 "buffers (io_uring_register_buffers: %s; raise ulimit -l)", strerror(-rc));
	atomic_store(&reg_note, reg_note_buf);
}

static int ops_grow(struct local_ring *r)
{
	unsigned cap = r->ops_cap ? 2 * r->ops_cap : 64;
	struct lr_op *ops = realloc(r->ops, cap * sizeof(*ops));
	unsigned *ids;

	if (!ops)
		return -ENOMEM;
	r->ops = ops;
	ids = realloc(r->free_ops, cap * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	r->free_ops = ids;
	/* Highest last: the lowest indexes are handed out first and stay warm. */
	for (unsigned i = cap; i > r->ops_cap; i--) {
		r->ops[i - 1] = (struct lr_op){ .slot = -1 };
		r->free_ops[r->nfree_ops++] = i - 1;
	}
	r->ops_cap = cap;
	return 0;
}

static uint8_t *slot_addr(const struct local_ring *r, int slot)
{
	return r->pool + (size_t)slot * r->slot_sz;
}

/* A buffer of len bytes for op: a pool slot if one fits and is free, else its own. */
static void *op_buf(struct local_ring *r, struct lr_op *op, uint32_t len)
{
	if (len <= r->slot_sz && r->nfree_slots) {
		op->slot = (int)r->free_slots[--r->nfree_slots];
		return slot_addr(r, op->slot);
	}
	if (posix_memalign(&op->heap, LR_ALIGN, len ? len : 1))
		op->heap = NULL;
	return op->heap;
}

static void op_release(struct local_ring *r, unsigned i)
{
	struct lr_op *op = &r->ops[i];

	if (op->slot >= 0)
		r->free_slots[r->nfree_slots++] = (unsigned)op->slot;
	free(op->heap);
	op->heap = NULL;
	op->slot = -1;
	op->c = NULL;
	op->req = NULL;
	r->free_ops[r->nfree_ops++] = i;
}

static void ring_submit(struct local_ring *r)
{
	int rc;

	if (!r->sq_pending)
		return;
	rc = io_uring_submit(&r->uring);
	/* Refused as a whole (EINTR, EAGAIN, EBUSY): the next turn tries again. */
	if (rc >= 0)
		r->sq_pending = 0;
	else if (!ev_is_active(&r->submit_w))
		ev_prepare_start(r->t->loop, &r->submit_w);
}

static void complete(struct local_ring *r, uint64_t ud, int res)
{
	struct lr_op *op;
	struct engine_conn *c;

	if (ud >= r->ops_cap)
		return;
	op = &r->ops[ud];
	c = op->c;
	r->busy--;
	if (c) {
		struct engine_req *req = op->req;

		c->inflight--;
		req->data = op->heap ? op->heap : op->slot >= 0 ? slot_addr(r, op->slot) : NULL;
		if (req->op == OP_COMMIT && res > 0)
			res = 0;
		c->cbs->done(c->owner, req, res);
	}
	/* By index: done() may have queued more, and the table moved. */
	op_release(r, (unsigned)ud);
}

/* Completions are copied out before any callback: a callback may submit. */
static void reap(struct local_ring *r)
{
	struct io_uring_cqe *cqes[64];
	struct { uint64_t ud; int res; } got[64];
	unsigned n;

	while ((n = io_uring_peek_batch_cqe(&r->uring, cqes, 64)) > 0) {
		for (unsigned k = 0; k < n; k++) {
			got[k].ud = cqes[k]->user_data;
			got[k].res = cqes[k]->res;
		}
		io_uring_cq_advance(&r->uring, n);
		for (unsigned k = 0; k < n; k++)
			complete(r, got[k].ud, got[k].res);
	}
}

static void efd_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct local_ring *r = w->data;
	uint64_t v;

	(void)loop;
	(void)revents;
	if (read(r->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	reap(r);
}

/* Last in the turn, before the loop blocks: everything the turn queued, in one submit. */
static void submit_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct local_ring *r = w->data;

	(void)revents;
	ev_prepare_stop(loop, w);
	ring_submit(r);
}

static unsigned pow2_at_least(unsigned v)
{
	unsigned p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static int ring_init(struct local_ring *r, unsigned entries)
{
	struct io_uring_params p;
	int rc;

	memset(&p, 0, sizeof(p));
	/* Completions of a whole pool and then some fit without the overflow list. */
	p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN;
	p.cq_entries = entries * 4;
	rc = io_uring_queue_init_params(entries, &r->uring, &p);
	if (rc == -EINVAL) {
		/* Older than 5.19: the flags are optimisations only. */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE;
		p.cq_entries = entries * 4;
		rc = io_uring_queue_init_params(entries, &r->uring, &p);
	}
	return rc;
}

/*
 * The pool: a buffer for every request the thread's connections can have in
 * flight, plus one (a completion's callback refills before its buffer is back).
 */
static int pool_init(struct local_ring *r, const struct engine_params *cfg, unsigned depth)
{
	struct iovec *iov;
	int rc;

	r->slot_sz = (cfg->bs + LR_ALIGN - 1) / LR_ALIGN * LR_ALIGN;
	r->nslots = depth + 1;
	if ((uint64_t)r->nslots * r->slot_sz > LR_POOL_MAX)
		r->nslots = (unsigned)(LR_POOL_MAX / r->slot_sz);
	if (r->nslots == 0)
		r->nslots = 1;
	r->pool_len = (size_t)r->nslots * r->slot_sz;
	r->pool = mmap(NULL, r->pool_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (r->pool == MAP_FAILED) {
		r->pool = NULL;
		return -errno;
	}
	r->free_slots = malloc(r->nslots * sizeof(*r->free_slots));
	if (!r->free_slots)
		return -ENOMEM;
	for (unsigned i = r->nslots; i > 0; i--)
		r->free_slots[r->nfree_slots++] = i - 1;
	r->nreg = r->nslots < LR_REG_MAX ? r->nslots : LR_REG_MAX;
	iov = calloc(r->nreg, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	for (unsigned i = 0; i < r->nreg; i++)
		iov[i] = (struct iovec){ slot_addr(r, (int)i), r->slot_sz };
	rc = io_uring_register_buffers(&r->uring, iov, r->nreg);
	free(iov);
	if (rc < 0) {
		/* Pinned memory over RLIMIT_MEMLOCK: plain reads still work. */
		note_unregistered(rc);
		r->nreg = 0;
	}
	return 0;
}

int local_ring_new(struct engine_thread *t, struct local_ring **out, char *why, size_t len)
{
	const struct engine_params *cfg = t->cfg;
	unsigned per_thread = (cfg->connections + cfg->threads - 1) / cfg->threads;
	unsigned depth = per_thread * cfg->iodepth;
	unsigned entries = pow2_at_least(depth + 8);
	struct local_ring *r = calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	if (!r) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	r->t = t;
	r->direct = cfg->opt.direct;
	r->efd = -1;
	entries = entries < 64 ? 64 : entries > 4096 ? 4096 : entries;
	rc = ring_init(r, entries);
	if (rc < 0) {
		snprintf(why, len, "io_uring_queue_init: %s", strerror(-rc));
		free(r);
		return rc;
	}
	if ((rc = pool_init(r, cfg, depth)) < 0 || (rc = ops_grow(r)) < 0) {
		snprintf(why, len, "io_uring buffers: %s", strerror(-rc));
		goto fail;
	}
	r->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->efd < 0 || (rc = io_uring_register_eventfd(&r->uring, r->efd)) < 0) {
		rc = r->efd < 0 ? -errno : rc;
		snprintf(why, len, "io_uring eventfd: %s", strerror(-rc));
		goto fail;
	}
	ev_io_init(&r->efd_w, efd_cb, r->efd, EV_READ);
	r->efd_w.data = r;
	ev_io_start(t->loop, &r->efd_w);
	/* The worker decides when its loop ends, not an idle ring. */
	ev_unref(t->loop);
	ev_prepare_init(&r->submit_w, submit_cb);
	r->submit_w.data = r;
	*out = r;
	return 0;
fail:
	local_ring_free(r);
	return rc;
}

int local_ring_queue(struct local_ring *r, struct engine_conn *c, int fd,
		     struct engine_req *req)
{
	struct io_uring_sqe *sqe;
	struct lr_op *op;
	const void *wbuf = req->buf;
	void *buf = NULL;
	unsigned i;

	if (req->op != OP_READ && req->op != OP_WRITE && req->op != OP_COMMIT)
		return -EOPNOTSUPP;
	if (!r->nfree_ops && ops_grow(r) < 0)
		return -ENOMEM;
	i = r->free_ops[r->nfree_ops - 1];
	op = &r->ops[i];
	*op = (struct lr_op){ .req = req, .c = c, .slot = -1 };
	/* O_DIRECT wants aligned memory; the pattern is at any offset: such writes are copied. */
	if (req->op == OP_READ ||
	    (req->op == OP_WRITE && r->direct && ((uintptr_t)wbuf & (LR_ALIGN - 1)))) {
		if (!(buf = op_buf(r, op, req->len)))
			return -ENOMEM;
		if (req->op == OP_WRITE)
			wbuf = memcpy(buf, wbuf, req->len);
	}
	sqe = io_uring_get_sqe(&r->uring);
	if (!sqe) {
		ring_submit(r);
		sqe = io_uring_get_sqe(&r->uring);
	}
	if (!sqe) {
		r->nfree_ops--;
		op_release(r, i);
		return -EAGAIN;
	}
	r->nfree_ops--;
	if (req->op == OP_READ && op->slot >= 0 && (unsigned)op->slot < r->nreg)
		io_uring_prep_read_fixed(sqe, fd, buf, req->len, req->offset, op->slot);
	else if (req->op == OP_READ)
		io_uring_prep_read(sqe, fd, buf, req->len, req->offset);
	else if (req->op == OP_WRITE && op->slot >= 0 && (unsigned)op->slot < r->nreg)
		io_uring_prep_write_fixed(sqe, fd, wbuf, req->len, req->offset, op->slot);
	else if (req->op == OP_WRITE)
		io_uring_prep_write(sqe, fd, wbuf, req->len, req->offset);
	else
		io_uring_prep_fsync(sqe, fd, 0);
	io_uring_sqe_set_data64(sqe, i);
	op->start_ns = now_ns();
	r->sq_pending++;
	r->busy++;
	return 0;
}

void local_ring_commit(struct local_ring *r)
{
	if (r->sq_pending && !ev_is_active(&r->submit_w))
		ev_prepare_start(r->t->loop, &r->submit_w);
}

void local_ring_flush(struct local_ring *r)
{
	if (r)
		ring_submit(r);
}

void local_ring_forget(struct local_ring *r, const struct engine_conn *c)
{
	for (unsigned i = 0; r && i < r->ops_cap; i++)
		if (r->ops[i].c == c)
			r->ops[i].c = NULL;
}

void local_ring_expire(struct local_ring *r, struct engine_conn *c, uint64_t age_ns)
{
	uint64_t t = now_ns();

	/* By index: a done() may queue, and the table move. */
	for (unsigned i = 0; r && i < r->ops_cap; i++) {
		struct lr_op *op = &r->ops[i];
		struct engine_req *req = op->req;

		if (op->c != c || t - op->start_ns < age_ns)
			continue;
		op->c = NULL;	/* its buffer stays with it until the kernel is done */
		c->inflight--;
		c->cbs->done(c->owner, req, -ETIMEDOUT);
	}
}

/* The kernel may still write into what is in flight: wait for it, a while. */
static bool drain(struct local_ring *r)
{
	struct io_uring_sync_cancel_reg reg;
	uint64_t deadline = now_ns() + LR_DRAIN_NS;

	if (!r->busy)
		return true;
	memset(&reg, 0, sizeof(reg));
	reg.flags = IORING_ASYNC_CANCEL_ANY;
	reg.timeout.tv_sec = 1;
	io_uring_register_sync_cancel(&r->uring, &reg);
	while (r->busy && now_ns() < deadline) {
		struct __kernel_timespec ts = { 0, 10000000 };
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe_timeout(&r->uring, &cqe, &ts) == 0) {
			uint64_t ud = cqe->user_data;

			io_uring_cqe_seen(&r->uring, cqe);
			if (ud < r->ops_cap) {
				r->ops[ud].c = NULL;	/* no callbacks from here */
				complete(r, ud, 0);
			}
		}
	}
	return r->busy == 0;
}

void local_ring_free(struct local_ring *r)
{
	bool quiet;

	if (!r)
		return;
	if (ev_is_active(&r->efd_w)) {
		ev_ref(r->t->loop);
		ev_io_stop(r->t->loop, &r->efd_w);
	}
	ev_prepare_stop(r->t->loop, &r->submit_w);
	ring_submit(r);
	quiet = drain(r);
	io_uring_queue_exit(&r->uring);
	if (r->efd >= 0)
		close(r->efd);
	/* Requests the kernel never gave back keep their memory: leaked, never reused. */
	if (quiet) {
		for (unsigned i = 0; i < r->ops_cap; i++)
			free(r->ops[i].heap);
		if (r->pool)
			munmap(r->pool, r->pool_len);
	}
	free(r->free_slots);
	free(r->ops);
	free(r->free_ops);
	free(r);
}
