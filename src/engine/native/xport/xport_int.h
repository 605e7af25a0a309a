/*
 * xport_int: what the transport's files share, for them only (no other
 * module includes it). They stand in layers, each calling only down:
 *
 *   xport.c          the contract (xport.h); picks a backend table at xport_new
 *   xport_uring.c    backend: the io_uring kind (requests, completions, wakes)
 *    xport_ring.c      its ring, provided buffers and socket table (xport_ring.h)
 *   xport_epoll.c    backend: non-blocking sockets on libev watchers
 *   xport_sock.c     the core: sockets on their transport's lists, callbacks
 *                    owed and run, closing, the loop turn (through the table)
 *   xport_queue.c    the send queues      xport_stamp.c  wire time on a socket
 *
 * The core reaches a backend only through struct xp_backend, so no file
 * calls one above it. Everything runs on the loop's thread unless xport.h
 * says otherwise.
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
struct xp_backend;

struct xport {
	struct ev_loop *loop;
	const struct xp_backend *be;	/* the kind's table */
	const struct xp_backend *fallback; /* if be cannot start on the loop's thread */
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
	bool shared_bufs;		/* the ring's receives share buffers: no recvmsg */
	bool want_ring_wait;		/* xport_sleep_in_ring was called */
	bool ring_waits;		/* ... and the loop's polls sleep in the ring */
	struct xport_batch batch;	/* ... and may wait for more than one completion */
	int loop_fd;			/* io_uring: the loop's epoll fd (libev's), or -1 */
	bool loop_poll;			/* io_uring: a poll of the loop's epoll fd is armed */
	bool loop_fired;		/* io_uring: that poll fired: the loop has events */
	struct xport_stats st;
};

/*
 * A kind of transport: what the core and xport.c ask of it. Calls that do not
 * apply to a kind are NULL. All run on the loop's thread, except unwatch and
 * destroy (xport.h: after the thread ended).
 */
struct xp_backend {
	enum xport_kind kind;
	int sock_flags;			/* socket(2) flags of a connecting socket */
	/* In xport_new: this kind's watchers; 0, or -errno (use the fallback). */
	int (*init)(struct xport *x);
	/* Before the first socket's kernel work, on the loop's thread (the ring is
	 * made here); 0, or -errno: the transport switches to its fallback. */
	int (*start)(struct xport *x);
	/* The number of sockets changed: watchers on or off. */
	void (*watch)(struct xport *x);
	/* s (state XP_CONNECTING, on x's lists) connects: 0, or -errno. */
	int (*connect)(struct xport_sock *s);
	/* The kernel work f (XP_W_*) of s. */
	void (*build)(struct xport *x, struct xport_sock *s, unsigned f);
	/* s leaves the kernel machinery; bytes it had received go to the stash if keep. */
	void (*unwatch)(struct xport *x, struct xport_sock *s, bool keep);
	/* A loop turn: handle reaped completions (*called: a callback ran), submit
	 * what waits, reap; whether completions are left. Each: whether it did anything. */
	bool (*process)(struct xport *x, bool *called);
	bool (*submit)(struct xport *x);
	bool (*reap)(struct xport *x);
	bool (*more)(const struct xport *x);
	/* A poll of the loop in the ring: submits what waits and waits, in one system call, for
	 * nr completions (at most hold_ns for more than one), the loop's own fd
	 * (x->loop_fired) or ns nanoseconds (0: no wait). 0, or -EAGAIN: the kind
	 * cannot wait (the loop must). */
	int (*wait)(struct xport *x, uint64_t ns, unsigned nr, uint64_t hold_ns);
	/* In xport_free, its sockets gone. */
	void (*destroy)(struct xport *x);
};

extern const struct xp_backend xp_uring_backend;
extern const struct xp_backend xp_epoll_backend;

/* xport_queue.c: the send queue. */
struct xp_seg *xp_seg_at(struct xport_sock *s, unsigned i);
/* Queues n bytes, copied (put) or by reference (put_ref); 0 or -ENOMEM. */
int xp_queue_put(struct xport_sock *s, const void *p, size_t n);
int xp_queue_put_ref(struct xport_sock *s, const void *p, size_t n);
void xp_queue_consume(struct xport_sock *s, size_t n);
/* s->iov[] from the first max segments; the number of entries (0: no memory). */
unsigned xp_iov_fill(struct xport_sock *s, unsigned max, size_t *bytes);
void xp_chunk_free_list(struct xp_chunk *c);
/* Everything queued forgotten, its memory freed (the socket is closing). */
void xp_queue_drop(struct xport_sock *s);

/* xport_stamp.c */
/* Timestamps off, the stream's counts back to 0 (the socket closed). */
void xp_stamp_off(struct xport_sock *s);
/* Reads the send timestamps waiting in the error queue. */
void xp_stamp_drain(struct xport_sock *s);
/* recv (MSG_DONTWAIT), with the receive's time in s->rx_ns when timestamps are on. */
ssize_t xp_stamp_recv(struct xport_sock *s, void *p, size_t n);

/* xport_sock.c: the core. */
void xp_link_init(struct xp_link *l);
bool xp_link_empty(const struct xp_link *l);
/* Puts s on x's lists, with its callbacks. */
void xp_sock_link(struct xport_sock *s, struct xport *x, const struct xport_cbs *cbs,
		  void *arg);
/* Takes s off its transport's lists (nothing if it has none). */
void xp_sock_unlink(struct xport_sock *s);
/* Takes s off its transport's kernel machinery (xp_backend.unwatch). */
void xp_sock_unwatch(struct xport_sock *s, bool keep);
/* Closes s: its fd, queue and stash; off its transport. Closing a closed socket
 * does nothing. */
void xp_sock_close(struct xport_sock *s);
void xp_sock_destroy(struct xport_sock *s);
/* Owes s's caller a callback (XP_D_*), run from the loop. */
void xp_owe(struct xport_sock *s, unsigned flags);
/* Queues kernel work (XP_W_*) for s, done when the loop turn ends. */
void xp_work(struct xport_sock *s, unsigned flags);
enum xp_cb { XP_CB_CONNECTED, XP_CB_DATA, XP_CB_LOST };
/* Runs a callback of s; true if s was freed meanwhile (then it must not be touched). */
bool xp_sock_call(struct xport_sock *s, enum xp_cb cb, int err, const uint8_t *p, size_t n);
/* Closes s now and owes lost(err) from the loop. */
void xp_sock_fail(struct xport_sock *s, int err);
void xp_peer_fill(struct xport_sock *s);
/* x's backend could not start: x uses its fallback from now on. */
void xp_fall_back(struct xport *x);
/* Starts x's backend if it has not yet (on the loop's thread). */
void xp_start(struct xport *x);
/* xport_wait.c: x's loop polls in its ring from now on (on the loop's thread,
 * as its ring is made): whether it can. xp_wait_leave as the ring goes. */
bool xp_wait_enter(struct xport *x);
void xp_wait_leave(struct xport *x);
/* The loop turn's watchers (ev_prepare, ev_idle), in xport_new / xport_free. */
void xp_turn_init(struct xport *x);
void xp_turn_stop(struct xport *x);
/* One loop turn's work: callbacks owed, completions handled, all sends and
 * arms in one submit, completions reaped. Whether it ran a callback. */
bool xp_pump(struct xport *x);

#endif
