/*
 * schedule: the open loop's intended starts (--rate), per connection.
 *
 * Owns: each connection's arrival process (uniform gaps from a sequence
 * number, so no rounding drift over a long run, or Poisson gaps from its
 * own PRNG), and the connections waiting for their next start, soonest
 * first, behind one timerfd: libev's timers sleep in epoll_wait, whose
 * millisecond resolution would make starts up to 1 ms late, and the
 * coordinated-omission correction would charge that to the server.
 * One per worker thread; its loop's thread only.
 */
#ifndef NFSLOAD_SCHEDULE_H
#define NFSLOAD_SCHEDULE_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

struct sched_conn {
	uint64_t base_ns, seq, next_ns;
	uint64_t rng;
	unsigned heap_idx;
};

struct schedule {
	struct sched_conn *c;
	unsigned *heap;		/* connection indices, soonest next_ns first */
	unsigned n, nheap;
	double gap_ns;		/* mean gap between one connection's starts */
	double rate;
	bool poisson;
	uint64_t seed;
	int fd;			/* timerfd for the soonest start */
	struct ev_loop *loop;
	ev_io io;
	void (*due)(void *arg, unsigned i, uint64_t now);
	void *arg;
};

/*
 * For n connections of a run of connections in all at rate operations per
 * second, evenly spaced or, poisson, with exponential gaps drawn from seed.
 * 0 or -errno.
 */
int schedule_init(struct schedule *s, unsigned n, double rate, unsigned connections,
		  bool poisson, uint64_t seed);
void schedule_destroy(struct schedule *s);
/* A new rate for the next schedule_start (a load curve's next point); between phases only. */
void schedule_set_rate(struct schedule *s, double rate);
/* Watches the timer on loop: due(arg, i, now) for each connection i whose start came. */
void schedule_attach(struct schedule *s, struct ev_loop *loop,
		     void (*due)(void *arg, unsigned i, uint64_t now), void *arg);
/*
 * Connection i (run-wide id: the first starts are spread evenly over one
 * gap) starts its schedule at t.
 */
void schedule_start(struct schedule *s, unsigned i, unsigned id, uint64_t t);
/* Connection i's next intended start. */
static inline uint64_t schedule_next(const struct schedule *s, unsigned i)
{
	return s->c[i].next_ns;
}
/* Connection i's next start is t (a replay's own times). */
static inline void schedule_at(struct schedule *s, unsigned i, uint64_t t)
{
	s->c[i].next_ns = t;
}
/* Connection i issued its next start: the one after it. */
void schedule_advance(struct schedule *s, unsigned i);
/* Connection i waits for its next start (no-op if it already does). */
void schedule_wait(struct schedule *s, unsigned i);
/* Connection i no longer waits. */
void schedule_cancel(struct schedule *s, unsigned i);
/* Nobody waits any more (the phase stops). */
void schedule_clear(struct schedule *s);

#endif
