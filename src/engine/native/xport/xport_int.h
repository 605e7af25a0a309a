/*
 * xport_int: what the transport's files share, for them only (no other
 * module includes it). xport.c owns the sockets' bookkeeping and the loop
 * turn; xport_queue.c the send queues; xport_sync.c the blocking calls;
 * xport_uring.c the io_uring kind's requests, completions and wakes, and
 * xport_ring.c its ring, provided buffers and socket table (the ring's struct
 * is in xport_ring.h, for those two only, so liburing stays behind them);
 * xport_epoll.c the libev watchers. Everything runs on the loop's thread
 * unless xport.h says otherwise.
 */
#ifndef NFSLOAD_XPORT_INT_H
#define NFSLOAD_XPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stamp.h"
#include "xport.h"

#define XP_OF(p, type, member) ((type *)(void *)((char *)(p) - offsetof(type, member)))

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

	/* wire time (xport_stamp.c) */
	bool stamp;			/* timestamps on */
	bool recv_msg;			/* the ring's receive is a recvmsg (carries them) */
	uint64_t out_end, sent_end;	/* bytes queued, bytes the kernel took, since connect */
	uint64_t rx_ns;			/* during data(): when its bytes arrived, 0: unknown */
	struct stamp_tx tx;
	struct msghdr rmsg;		/* the ring's recvmsg: room for the control message */

	/* io_uring */
	int id;				/* in the ring's table (and fixed file if fixed), or -1 */
	uint32_t gen;
	bool fixed, recv_on, send_on, conn_on;
	bool starved;			/* waits on the ring's starved for a buffer */

	/* epoll */
	ev_io rd, wr;

	unsigned busy;			/* callbacks running: xport_sock_free defers */
	bool doomed;
	struct sockaddr_storage sa;
	socklen_t salen;
	char peer[96];
};

struct xp_ring;

struct xport {
	struct ev_loop *loop;
	enum xport_kind kind;
	unsigned max_socks;
	ev_prepare prep;
	ev_idle idle;
	struct xp_link socks, dl, wl;
	unsigned nsocks;
	uint8_t *rbuf;			/* epoll: the read buffer, made on first use */
	int efd;			/* io_uring: io-wq's completions signal it, or -1 */
	ev_io ring_w;			/* io_uring: on efd (the ring fd without it) */
	ev_check ring_chk;		/* io_uring: completions a wake posted, after each poll */
	struct xp_ring *ring;		/* io_uring: NULL until made, on the loop's thread */
	bool stamps;			/* xport_want_stamps: no incremental buffers */
	struct xport_stats st;
};

/* xport_queue.c: the send queue. */
struct xp_seg *xp_seg_at(struct xport_sock *s, unsigned i);
void xp_queue_consume(struct xport_sock *s, size_t n);
/* s->iov[] from the first max segments; the number of entries (0: no memory). */
unsigned xp_iov_fill(struct xport_sock *s, unsigned max, size_t *bytes);
void xp_chunk_free_list(struct xp_chunk *c);
/* Everything queued forgotten, its memory freed (the socket is closing). */
void xp_queue_drop(struct xport_sock *s);

/* xport.c: the socket's lists, its callbacks. */
void xp_owe(struct xport_sock *s, unsigned flags);
void xp_work(struct xport_sock *s, unsigned flags);
enum xp_cb { XP_CB_CONNECTED, XP_CB_DATA, XP_CB_LOST };
/* Runs a callback of s; true if s was freed meanwhile (then it must not be touched). */
bool xp_sock_call(struct xport_sock *s, enum xp_cb cb, int err, const uint8_t *p, size_t n);
/* Closes s now and owes lost(err) from the loop. */
void xp_sock_fail(struct xport_sock *s, int err);
void xp_peer_fill(struct xport_sock *s);
/* One loop turn's work (xport_flush: without callbacks, calls false); events:
 * submit even with nothing queued, to run the ring's task work. Whether it ran
 * a callback. */
bool xp_pump(struct xport *x, bool calls, bool events);

/* xport_uring.c (xp_ring_start, xp_ring_destroy: xport_ring.c). The calls that
 * take x do nothing (false) while x has no ring. */
/* In xport_new: the XPORT_URING kind when want_uring and io_uring can be used. */
void xp_ring_setup(struct xport *x, bool want_uring);
/* Watches the ring (its fd, and after each poll) while the ring kind has a ring
 * and sockets. */
void xp_ring_watch(struct xport *x);
/* Makes the ring of an XPORT_URING transport that has none, or turns it to XPORT_EPOLL. */
void xp_ring_start(struct xport *x);
/* The ring's part of xport_connect and of a loop turn's kernel work. */
int xp_ring_connect(struct xport_sock *s);
void xp_ring_build(struct xport *x, struct xport_sock *s, unsigned f);
/* Takes s (s->id >= 0) off the ring; bytes it had received go to the stash if keep. */
void xp_ring_unwatch(struct xport *x, struct xport_sock *s, bool keep);
/* A loop turn: handle the reaped completions (*called set if that ran a callback);
 * submit (if anything waits, or events); reap; whether completions are left.
 * Each says whether it did anything. */
bool xp_ring_process(struct xport *x, bool *called);
bool xp_ring_submit(struct xport *x, bool calls, bool events);
bool xp_ring_reap(struct xport *x);
bool xp_ring_more(struct xport *x);
/* Whether x's ring shares buffers between receives (no recvmsg then). */
bool xp_ring_inc(const struct xport *x);
/* In xport_free, its sockets gone: the ring and its watcher. */
void xp_ring_destroy(struct xport *x);

/* xport_stamp.c */
/* Timestamps off, the stream's counts back to 0 (the socket closed). */
void xp_stamp_off(struct xport_sock *s);
/* Reads the send timestamps waiting in the error queue. */
void xp_stamp_drain(struct xport_sock *s);
/* recv (MSG_DONTWAIT), with the receive's time in s->rx_ns when timestamps are on. */
ssize_t xp_stamp_recv(struct xport_sock *s, void *p, size_t n);

/* xport_epoll.c */
void xp_ep_sock_init(struct xport_sock *s);
int xp_ep_connect(struct xport_sock *s);
void xp_ep_build(struct xport *x, struct xport_sock *s, unsigned f);

#endif
