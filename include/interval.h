/*
 * interval: how an interval's statistics cross from the worker threads to
 * the main thread, so that all threads cut an interval at one tick.
 *
 * The protocol: the main thread numbers a cut (ival_box_ask on every
 * worker's box) and commands every worker to swap; each worker, inside its
 * own loop, adds its interval statistics into its box under the box's
 * mutex, empties its own, and acknowledges the number, then wakes the main
 * thread; once every box acknowledged (ival_box_answered), the main thread
 * takes the boxes' contents (ival_box_take). control.c drives the main
 * thread's side. A worker late to answer makes that interval longer;
 * nothing is lost or counted twice. The mutex is taken once per interval
 * per thread, never in the hot path.
 */
#ifndef NFSLOAD_INTERVAL_H
#define NFSLOAD_INTERVAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

/* One per worker: what it handed over and not yet taken. */
struct ival_box {
	pthread_mutex_t mu;
	struct op_stats snap[OP_NTYPES];
	struct op_stats *srv;		/* --series-by server: per server (nsrv), else NULL */
	unsigned nsrv;
	atomic_uint req, ack;
};

int ival_box_init(struct ival_box *b, unsigned nsrv);
void ival_box_destroy(struct ival_box *b);
/* Empties the box (a phase starts). */
void ival_box_reset(struct ival_box *b);
/* Worker thread: box += ival (and srv, per server, if the box has them), both emptied,
 * the request acknowledged. */
void ival_box_hand_over(struct ival_box *b, struct op_stats *ival, struct op_stats *srv);

/* Main thread: asks for cut seq (then commands the worker to swap). */
void ival_box_ask(struct ival_box *b, unsigned seq);
/* Main thread: whether the worker handed over cut seq. */
bool ival_box_answered(struct ival_box *b, unsigned seq);
/* Main thread, once answered: out += what was handed over, out_srv (NULL: none) += its
 * per-server figures; the box is emptied. */
void ival_box_take(struct ival_box *b, struct op_stats *out, struct op_stats *out_srv);

#endif
