/*
 * xport_ring: the ring of the io_uring kind of transport, for its two files
 * only (no other module includes it): xport_ring.c makes the ring, keeps what
 * is registered with it (provided receive buffers, the socket table and its
 * fixed files) and tears it down; xport_uring.c drives it (requests,
 * completions, the loop's wakes). This header is where liburing comes in, so
 * it stays behind those two files. Everything runs on the ring's thread
 * unless said otherwise.
 */
#ifndef NFSLOAD_XPORT_RING_H
#define NFSLOAD_XPORT_RING_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <liburing.h>

#include "xport_int.h"

#define XP_BGID 0

/* Linux 6.12's incrementally consumed buffers, for headers older than that. */
#ifndef IORING_CQE_F_BUF_MORE
#define IORING_CQE_F_BUF_MORE (1U << 4)
#endif
#define XP_PBUF_RING_INC 2		/* IOU_PBUF_RING_INC */
/* Linux 6.12's min_wait_usec (in io_uring_getevents_arg's pad before it). */
#ifndef IORING_FEAT_MIN_TIMEOUT
#define IORING_FEAT_MIN_TIMEOUT (1U << 15)
#endif

/* A reaped completion, with where its bytes start in their buffer. */
struct xp_cqe {
	uint64_t user_data;
	int32_t res;
	uint32_t flags;
	uint32_t off;
};

struct xp_ent {
	struct xport_sock *s;
	uint32_t gen;
};

struct xp_ring {
	pthread_t owner;
	struct io_uring uring;
	unsigned sq_pending;
	unsigned sq_sends;		/* sends among them: most complete in the submit */
	struct io_uring_buf_ring *br;
	size_t br_len;
	uint8_t *bufs;			/* nbufs_max buffers of bufsz bytes */
	size_t bufsz;
	unsigned nbufs_max;		/* a power of 2, set by the sockets the ring may have */
	unsigned nbufs;			/* buffers in use: the first nbufs */
	bool inc;			/* incremental: receives share a buffer, in turn */
	uint32_t *boff;			/* inc: bytes the kernel has used of each buffer */
	unsigned nfiles;
	struct xp_ent *tab;
	unsigned ntab, tab_cap;
	unsigned *free_ids;
	unsigned nfree;
	struct xp_cqe *bl;		/* reaped completions not yet handled */
	unsigned bl_pos, bl_n, bl_cap;
	unsigned held;			/* buffers in reaped completions not yet handled */
	uint64_t *starved;		/* sockets whose receive found no buffer (ud_make) */
	unsigned st_head, st_n, st_cap;	/* a ring of st_cap (a power of 2) */
	struct xp_chunk *orphans;	/* queues a cancel could not settle */
};

/* user_data: generation << 32 | table index << 2 | op */
enum xp_op { XP_OP_NONE, XP_OP_RECV, XP_OP_SEND, XP_OP_CONNECT };
/* The user_data of the poll of the loop's epoll fd (no socket's: op NONE). */
#define XP_UD_LOOP ((uint64_t)1 << 2 | XP_OP_NONE)

static inline uint64_t ud_make(const struct xport_sock *s, enum xp_op op)
{
	return (uint64_t)s->gen << 32 | (uint64_t)(unsigned)s->id << 2 | op;
}

static inline struct xport_sock *ud_sock(const struct xport *x, uint64_t ud)
{
	const struct xp_ring *r = x->ring;
	uint32_t id = (uint32_t)(ud >> 2) & 0x3fffffff;

	if ((ud & 3) == XP_OP_NONE || id >= r->ntab || r->tab[id].gen != (uint32_t)(ud >> 32))
		return NULL;
	return r->tab[id].s;
}

/* Makes x's ring (and its eventfd) on the loop's thread: 0, or -errno (none made). */
int xp_ring_up(struct xport *x);
/* Cancels what is in flight (on the ring's thread) and frees the ring; the
 * watchers on it are stopped already. */
void xp_ring_down(struct xport *x);
/* Whether x has a ring and this is the thread that made it. Any thread. */
bool xp_ring_owner(const struct xport *x);

/* Submits what waits (events: and runs task work not yet run), counting it. */
void xp_ring_submit(struct xport *x, bool events);
/* An SQE with user_data ud, counted as waiting (a send's too: XP_OP_SEND);
 * a full queue is submitted first. NULL: none to be had. */
struct io_uring_sqe *xp_ring_sqe(struct xport *x, uint64_t ud);
/* A poll of the loop in the ring (xp_backend.wait): submits what waits and waits, in one
 * io_uring_enter, for nr completions (hold_ns at most for more than one), the
 * loop's fd or ns nanoseconds. */
int xp_ring_wait(struct xport *x, uint64_t ns, unsigned nr, uint64_t hold_ns);

/* Gives buffer bid (bytes at r->bufs + bid * r->bufsz) back for receives. */
void xp_buf_put(struct xp_ring *r, unsigned bid);
/* Puts more buffers in use, up to want of them (at most r->nbufs_max). */
void xp_bufs_grow(struct xp_ring *r, unsigned want);
/* A reaped completion c that carries a buffer: where its bytes start (c->off)
 * and, if it finished the buffer, one more held. */
void xp_buf_used(struct xp_ring *r, struct xp_cqe *c);
/* Gives back the buffer of a handled completion if it finished it. */
void xp_buf_back(struct xp_ring *r, const struct xp_cqe *c);
/* s's receive ended for want of a buffer: it waits for one. */
void xp_starve(struct xp_ring *r, struct xport_sock *s);
/* Receives made again for waiting sockets, one per buffer free. */
void xp_feed(struct xport *x);

/* Copies completions out of the CQ into r->bl, to be handled in order (memory
 * only, no syscall); whether there were any. */
bool xp_ring_reap(struct xport *x);
/* Gives s an entry in the table (s->id, s->gen) and a fixed file if its index
 * is below the ring's nfiles; two buffers in use per socket. 0 or -ENOMEM. */
int xp_sock_register(struct xport *x, struct xport_sock *s);
/* Takes s (s->id may be -1) out of the table. owner: on the ring's thread;
 * otherwise its entry and fixed file are not reused. */
void xp_sock_unregister(struct xport *x, struct xport_sock *s, bool owner);

#endif
