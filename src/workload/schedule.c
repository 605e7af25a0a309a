/*
 * schedule: intended starts of the open loop, a binary heap and a timerfd.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "base/clock.h"
#include "schedule.h"
#include "workload.h"

#define HEAP_NONE UINT_MAX

int schedule_init(struct schedule *s, unsigned n, double rate, unsigned connections,
		  bool poisson, uint64_t seed)
{
	*s = (struct schedule){ .n = n, .fd = -1, .rate = rate, .seed = seed, .poisson = poisson };
	s->gap_ns = 1e9 * connections / rate;
	s->c = calloc(n + 1, sizeof(*s->c));
	s->heap = calloc(n + 1, sizeof(*s->heap));
	if (!s->c || !s->heap)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		s->c[i].heap_idx = HEAP_NONE;
	s->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	return s->fd < 0 ? -errno : 0;
}

void schedule_set_rate(struct schedule *s, double rate)
{
	s->gap_ns = s->gap_ns * s->rate / rate;
	s->rate = rate;
}

void schedule_destroy(struct schedule *s)
{
	if (s->loop)
		ev_io_stop(s->loop, &s->io);
	if (s->fd >= 0)
		close(s->fd);
	free(s->c);
	free(s->heap);
	s->c = NULL;
	s->heap = NULL;
	s->fd = -1;
}

static uint64_t due_at(const struct schedule *s, unsigned k)
{
	return s->c[s->heap[k]].next_ns;
}

static void swap(struct schedule *s, unsigned a, unsigned b)
{
	unsigned t = s->heap[a];

	s->heap[a] = s->heap[b];
	s->heap[b] = t;
	s->c[s->heap[a]].heap_idx = a;
	s->c[s->heap[b]].heap_idx = b;
}

static void up(struct schedule *s, unsigned k)
{
	while (k > 0 && due_at(s, (k - 1) / 2) > due_at(s, k)) {
		swap(s, k, (k - 1) / 2);
		k = (k - 1) / 2;
	}
}

static void down(struct schedule *s, unsigned k)
{
	for (;;) {
		unsigned l = 2 * k + 1, m = k;

		if (l < s->nheap && due_at(s, l) < due_at(s, m))
			m = l;
		if (l + 1 < s->nheap && due_at(s, l + 1) < due_at(s, m))
			m = l + 1;
		if (m == k)
			return;
		swap(s, k, m);
		k = m;
	}
}

static void arm(struct schedule *s)
{
	struct itimerspec its = { 0 };

	if (s->nheap) {
		uint64_t due = due_at(s, 0);

		its.it_value.tv_sec = (time_t)(due / 1000000000u);
		its.it_value.tv_nsec = (long)(due % 1000000000u);
	}
	timerfd_settime(s->fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Removes heap entry k. */
static void remove_at(struct schedule *s, unsigned k)
{
	unsigned moved;

	s->c[s->heap[k]].heap_idx = HEAP_NONE;
	if (k == --s->nheap)
		return;
	moved = s->heap[k] = s->heap[s->nheap];
	s->c[moved].heap_idx = k;
	up(s, k);
	if (s->c[moved].heap_idx == k)
		down(s, k);
}

static void io_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	struct schedule *s = io->data;
	uint64_t expirations, t = now_ns();

	(void)loop;
	(void)revents;
	if (read(s->fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		return;
	while (s->nheap && due_at(s, 0) <= t) {
		unsigned i = s->heap[0];

		remove_at(s, 0);
		s->due(s->arg, i, t);
	}
	arm(s);
}

void schedule_attach(struct schedule *s, struct ev_loop *loop,
		     void (*due)(void *arg, unsigned i, uint64_t now), void *arg)
{
	s->loop = loop;
	s->due = due;
	s->arg = arg;
	ev_io_init(&s->io, io_cb, s->fd, EV_READ);
	s->io.data = s;
	ev_io_start(loop, &s->io);
}

void schedule_start(struct schedule *s, unsigned i, unsigned id, uint64_t t)
{
	struct sched_conn *c = &s->c[i];

	c->rng = s->seed ^ (UINT64_C(0x2545f4914f6cdd1d) * (id + 1));
	c->seq = 0;
	c->base_ns = t + (uint64_t)(1e9 * id / s->rate);
	c->next_ns = c->base_ns;
	if (s->poisson) {
		c->base_ns = t;
		c->next_ns = t;
		schedule_advance(s, i);
	}
}

void schedule_advance(struct schedule *s, unsigned i)
{
	struct sched_conn *c = &s->c[i];

	c->seq++;
	if (s->poisson) {
		double u = (double)(wl_rand(&c->rng) >> 11) / 9007199254740992.0;

		c->next_ns += (uint64_t)(-log1p(-u) * s->gap_ns);
	} else {
		/* From the sequence number: no rounding drift over a long run. */
		c->next_ns = c->base_ns + (uint64_t)((double)c->seq * s->gap_ns);
	}
	/*
	 * Still waiting in the heap: a reply's refill issued its start before the timer
	 * ran. Its key grew in place; left there, it hid every earlier start below it
	 * until its own came (Poisson calls sent up to 100 ms late, seen on the wire).
	 */
	if (c->heap_idx != HEAP_NONE) {
		down(s, c->heap_idx);
		arm(s);
	}
}

void schedule_wait(struct schedule *s, unsigned i)
{
	if (s->c[i].heap_idx != HEAP_NONE)
		return;
	s->c[i].heap_idx = s->nheap;
	s->heap[s->nheap++] = i;
	up(s, s->c[i].heap_idx);
	if (s->c[i].heap_idx == 0)
		arm(s);
}

void schedule_cancel(struct schedule *s, unsigned i)
{
	if (s->c[i].heap_idx == HEAP_NONE)
		return;
	remove_at(s, s->c[i].heap_idx);
	arm(s);
}

void schedule_clear(struct schedule *s)
{
	for (unsigned k = 0; k < s->nheap; k++)
		s->c[s->heap[k]].heap_idx = HEAP_NONE;
	s->nheap = 0;
	if (s->fd >= 0)
		arm(s);
}
