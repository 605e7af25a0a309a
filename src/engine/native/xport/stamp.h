/*
 * stamp: wire time's bookkeeping, without sockets (xport_stamp.c does the
 * syscalls). The kernel timestamps a TCP send when its last byte leaves
 * the host (SO_TIMESTAMPING, TX_SOFTWARE with OPT_ID): the timestamp's key
 * is that byte's offset in the stream, 32 bits, counted from the moment
 * the option was set. stamp_tx keeps the latest sends (where each ended in
 * the stream) and the times the kernel gave them, and answers "when did
 * the send that carried the byte before offset end leave?". A request sent
 * with others gets their send's time. A send the kernel gave no time (it
 * gives none when the send's bytes all left before the call returned, as
 * large sends' may) leaves its requests without one: never a later send's.
 *
 * A receive carries the time the newest of its bytes arrived (the kernel
 * merges the times of the segments it reads in one call, or that it
 * coalesced, into the last one). Only a reply that ends exactly where a
 * receive ends gets that time; the rpc layer checks that.
 *
 * Times are CLOCK_REALTIME in ns, as the kernel gives them.
 */
#ifndef NFSLOAD_STAMP_H
#define NFSLOAD_STAMP_H

#include <stdint.h>
#include <sys/socket.h>

struct stamp_tx {
	uint64_t *end;		/* stream offset just past a send's last byte */
	uint64_t *ns;		/* when that byte left, 0: not known (yet) */
	unsigned head, n, cap;	/* a ring, oldest at head; cap a power of 2 */
	uint64_t base;		/* stream offset of key 0 */
	uint64_t gone;		/* the newest end dropped to make room (base: none) */
};

/* cap: timestamps kept (rounded up to a power of 2); base: the stream's
 * offset when the option was set. 0 or -ENOMEM. */
int stamp_tx_init(struct stamp_tx *t, unsigned cap, uint64_t base);
void stamp_tx_free(struct stamp_tx *t);
/* A send ended at stream offset end (the oldest kept is dropped when full). */
void stamp_tx_sent(struct stamp_tx *t, uint64_t end);
/* A timestamp from the error queue: key as the kernel gives it (ee_data).
 * One for no send kept (the kernel's own split of a send) is ignored. */
void stamp_tx_add(struct stamp_tx *t, uint32_t key, uint64_t ns);
/*
 * When the send that carried the byte before end left: 0; -EAGAIN: its time
 * has not come (yet); -ENOENT: not known exactly: no such send kept
 * (forgotten, or sent before the option was set), or over STAMP_TX_TAIL
 * bytes of that send followed end (they may have left much later: a large
 * send leaves as the peer's acknowledgements allow).
 */
#define STAMP_TX_TAIL 65536u	/* one loopback segment, as the kernel builds them */
int stamp_tx_find(const struct stamp_tx *t, uint64_t end, uint64_t *ns);

/* Room for the control messages either kind of message carries. */
#define STAMP_CMSG_SPACE 256

/* A receive's control messages: the software RX time in ns, 0 if none. */
uint64_t stamp_rx_cmsg(const struct msghdr *m);
/* An error queue message: a TX timestamp (1: *key, *ns set), or 0 (something else). */
int stamp_tx_cmsg(const struct msghdr *m, uint32_t *key, uint64_t *ns);

#endif
