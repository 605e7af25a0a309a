/*
 * --max-load (stress mode), shared by the engines that own a socket per
 * connection (libnfs, native): SO_RCVLOWAT asks the kernel to wake the
 * reader once k replies' worth of bytes arrived (k = the requests in flight,
 * at most --max-load), so one wake reads many replies. Every reply is at
 * least reply_min bytes, so waiting for k of them cannot stall while k are in
 * flight; a smaller reply (an error) could: a 10 ms timer per thread lowers
 * to 1 byte the lowat of a connection that received nothing since its last
 * tick.
 *
 * An engine embeds a struct lowat in its connection and gives the thread's
 * set an apply() that sets a connection's SO_RCVLOWAT (0, or -1 where it has
 * no socket).
 */
#ifndef NFSLOAD_LOWAT_H
#define NFSLOAD_LOWAT_H

#include <stdbool.h>
#include <stdint.h>

#include <ev.h>

#include "engine.h"

/* --max-load, as every engine with sockets declares it (engine_ops.options). */
#define LOWAT_OPTION { .name = "max-load", .kind = OPT_COUNT, .arg = "K", \
	.help = "stress mode: each connection wakes once per K replies\n(SO_RCVLOWAT); " \
	"latencies are then upper bounds", \
	.off = offsetof(struct engine_opts, max_load), .min = 1, .max = 1024 }

struct lowat;

struct lowat_set {			/* a thread's */
	struct ev_loop *loop;
	ev_timer timer;
	struct lowat *head;
	int (*apply)(struct lowat *l, int bytes);
};

struct lowat {				/* a connection's */
	struct lowat_set *set;		/* NULL: not watched */
	struct lowat *prev, *next;
	int bytes;			/* SO_RCVLOWAT now (0: not set on this socket) */
	uint32_t reply_min;		/* the least bytes of one reply */
	bool rx_seen;			/* bytes came since the last tick */
};

void lowat_set_init(struct lowat_set *s, struct ev_loop *loop,
		    int (*apply)(struct lowat *l, int bytes));
void lowat_set_stop(struct lowat_set *s);
/* A connection's, for cfg's workload (l->reply_min set); watched on s if cfg has --max-load. */
void lowat_init(struct lowat *l, const struct engine_params *cfg);
void lowat_watch(struct lowat_set *s, struct lowat *l);
void lowat_unwatch(struct lowat *l);
/* After the requests in flight changed (inflight, at most max_load of them waited for). */
void lowat_update(struct lowat *l, uint32_t inflight, uint32_t max_load);
/* A new socket: nothing set on it yet. */
static inline void lowat_reset(struct lowat *l)
{
	l->bytes = 0;
}

#endif
