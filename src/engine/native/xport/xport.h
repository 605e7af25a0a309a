/*
 * xport: the native engine's TCP sockets on one libev loop. One transport
 * per loop: an io_uring (liburing; the only module that includes it) with
 * registered files, multishot receives into a provided buffer ring and all
 * of a loop turn's sends in one submit, its completions reaped in the loop
 * (COOP_TASKRUN | TASKRUN_FLAG: a completion interrupts the loop's epoll_wait,
 * an ev_check watcher reaps it; an eventfd only for io-wq completions), or,
 * after xport_sleep_in_ring, the loop's polls made in the ring itself; or,
 * where io_uring cannot be used, non-blocking sockets on libev with writev
 * batching.
 *
 * Threads: xport_new, xport_sleep_in_ring and xport_attach may run on any thread before the
 * loop's thread starts using the transport; everything else runs on the
 * thread that runs the loop (the ring is made there, on first use, as
 * IORING_SETUP_SINGLE_ISSUER requires). xport_detach, xport_close,
 * xport_sock_free and xport_free may also run after that thread has ended
 * (joined); a socket detached then can be attached to another loop.
 *
 * Callbacks never run inside a call into this module, only from the loop.
 */
#ifndef NFSLOAD_XPORT_H
#define NFSLOAD_XPORT_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

struct xport;
struct xport_sock;

enum xport_kind { XPORT_URING, XPORT_EPOLL };

/* All three are required. */
struct xport_cbs {
	/* The connect ended: 0, or -errno (the socket is then closed). */
	void (*connected)(void *arg, int err);
	/* Bytes arrived; p[0..n) is valid during the call only. A non-zero return
	 * closes the socket (no lost() follows). */
	int (*data)(void *arg, const uint8_t *p, size_t n);
	/* The socket failed (-errno) or the peer closed it (0): it is closed now. */
	void (*lost)(void *arg, int err);
};

/*
 * Whether io_uring can be used in this process (kernel.io_uring_disabled, a
 * seccomp filter, an old kernel): 0, or -errno with why in words ("io_uring_setup:
 * Operation not permitted"). Probed once (a throwaway ring with the flags used).
 */
int xport_probe(char *why, size_t len);

/* A transport for loop: io_uring when want_uring and xport_probe says yes,
 * else sockets on libev. max_socks: the most sockets attached at once (more
 * work, past it without registered files). NULL: no memory. */
struct xport *xport_new(struct ev_loop *loop, bool want_uring, unsigned max_socks);
/* Before ev_loop_destroy(loop); on the loop's thread or after it ended, never
 * from a callback. Sockets still attached are detached (left open). */
void xport_free(struct xport *x);
enum xport_kind xport_kind(const struct xport *x);

struct xport_sock *xport_sock_new(void);
/* Closes and frees (NULL: nothing). */
void xport_sock_free(struct xport_sock *s);

/* Connects s (closed) to sa on x, non-blocking; connected() says how it went.
 * 0, or -errno when it failed at once (no callback then). */
int xport_connect(struct xport_sock *s, struct xport *x, const struct sockaddr *sa,
		  socklen_t salen, const struct xport_cbs *cbs, void *arg);
/* Moves a connected, detached socket to x, calling cbs from now on. */
void xport_attach(struct xport_sock *s, struct xport *x, const struct xport_cbs *cbs,
		  void *arg);
/* Stops watching the socket: no more callbacks; it stays open, unsent bytes stay
 * queued, bytes the ring had already received are kept for the first data()
 * after the next attach. A socket still connecting is closed instead. */
void xport_detach(struct xport_sock *s);
/* Closes the socket: no more callbacks, queued bytes dropped (the kernel reads
 * none of them after this returns). Closing a closed socket does nothing. */
void xport_close(struct xport_sock *s);
bool xport_is_open(const struct xport_sock *s);

/*
 * Queues bytes to send, in order: xport_put copies them, xport_put_ref sends
 * them from p, which stays valid until they are sent (a reply to them has
 * arrived) or the socket is closed. Sent when the loop turn ends (all of the
 * loop's sockets in one submit); on a detached socket, after its next attach.
 * 0, or -ENOMEM, -ENOTCONN. The turn ends in an ev_prepare watcher, which
 * ev_break skips: bytes queued just before a break leave at the next ev_run.
 */
int xport_put(struct xport_sock *s, const void *p, size_t n);
int xport_put_ref(struct xport_sock *s, const void *p, size_t n);

/* Wakes for this socket only once at least bytes are waiting (SO_RCVLOWAT; --max-load),
 * on both kinds. Fewer bytes than that never wake it: keep bytes <= what is sure
 * to come (one reply). */
int xport_set_lowat(struct xport_sock *s, int bytes);
/*
 * Wire time (--wire-time): the kernel's software timestamps (SO_TIMESTAMPING)
 * of what s sends and receives from now on, on a connected socket. depth:
 * requests in flight at most. 0, or -errno (this kernel cannot).
 */
int xport_stamp_on(struct xport_sock *s, unsigned depth);
/* Before x's first socket, when its sockets will turn timestamps on: an
 * io_uring ring then gives each receive a buffer of its own (a recvmsg puts
 * its header first, which a shared buffer's last bytes may not hold). */
void xport_want_stamps(struct xport *x);
/* The stream offset just past the last byte queued on s since it connected. */
uint64_t xport_out_end(const struct xport_sock *s);
/* When every byte before stream offset end had left this host (ns,
 * CLOCK_REALTIME): 0, or -ENOENT (stamping off, or not known). */
int xport_tx_time(struct xport_sock *s, uint64_t end, uint64_t *ns);
/* Inside data(): when the newest of the bytes given arrived (ns,
 * CLOCK_REALTIME); 0: not known. */
uint64_t xport_rx_time(const struct xport_sock *s);

/* The local and peer port, for messages ("127.0.0.1:2049 (local port 40312)"). */
const char *xport_peer(const struct xport_sock *s);
/* The local and peer addresses of an open socket: 0, or -ENOTCONN. */
int xport_addrs(const struct xport_sock *s, struct sockaddr_storage *local,
		struct sockaddr_storage *peer);

/*
 * How a sleep in the ring may wait for more than one completion: want(arg) says
 * how many are worth waiting for now (fewer than 2: none on purpose); the sleep
 * then waits for that many for up to hold_ns, then returns with what came (at
 * least one). A completion is a socket's receive, not a reply: the replies that
 * come on one socket while the thread sleeps make one completion. NULL, or
 * hold_ns 0: every wake returns with the first completion.
 */
struct xport_batch {
	unsigned (*want)(void *arg);
	void *arg;
	uint64_t hold_ns;
};

/*
 * The loop's thread sleeps in x's ring, not in libev's epoll_wait: each poll
 * of the loop becomes one io_uring_enter that submits what waits and waits
 * for completions, the loop's own events (its epoll fd, polled through the
 * ring) or the loop's timeout (xport_wait.c says how). b (copied; NULL: none)
 * says how a wake may wait for more than one completion. Any thread, before
 * the loop's thread uses x; without effect where it cannot be done (epoll,
 * a ring made already, a loop that does not poll through epoll_wait).
 */
void xport_sleep_in_ring(struct xport *x, const struct xport_batch *b);
/* Whether a sleep in the ring can wait for more than one completion with a
 * bound (Linux 6.12's min_wait): xport_batch has effect. Any thread. */
bool xport_min_wait(void);

/* Counters since xport_new, for tests and diagnostics. */
struct xport_stats {
	uint64_t submits;	/* io_uring_enter calls that carried requests */
	uint64_t sqes;		/* requests submitted */
	uint64_t cqes;		/* completions reaped */
	uint64_t wakeups;	/* loop wakes that reaped completions (io_uring) or read a socket (epoll) */
	uint64_t empty_wakeups;	/* wakes that found no completion */
	uint64_t sendcalls;	/* sendmsg calls (epoll) */
	uint64_t stashed;	/* bytes the ring had received when their socket was detached */
};
void xport_stats(const struct xport *x, struct xport_stats *st);

#endif
