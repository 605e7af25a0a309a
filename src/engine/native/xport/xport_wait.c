/*
 * xport_wait: a loop's thread sleeping in its transport's ring (see
 * xport_sleep_in_ring in xport.h).
 *
 * libev polls its epoll fd once per loop iteration, epoll_wait with the time
 * to its next timer, whatever its watchers. With the ring's completions
 * interrupting that sleep, a wake costs two system calls: the epoll_wait, and
 * the io_uring_enter that submits the requests the wake's replies released.
 * So this file defines epoll_wait for the process (the executable's symbol
 * comes before libc's, also for libev's calls): a poll of a loop whose
 * transport sleeps in its ring is one io_uring_enter that submits what waits
 * and waits, for completions, for the loop's own fds (its epoll fd, polled
 * through the ring) or for the loop's timeout; any other poll goes on to
 * epoll_pwait. libev is none the wiser: its timers, watchers and turns are
 * as before, on time. Only when the loop's fds have events is epoll_pwait
 * asked for them (commands, timers of other kinds are rare next to replies).
 *
 * A transport is entered here on its loop's thread when its ring is made, if
 * epoll_wait calls have come here before (a libev that polled some other way
 * would leave the ring's completions unseen); it leaves when the ring goes.
 */
#include <errno.h>
#include <stdatomic.h>
#include <sys/epoll.h>

#include "xport_int.h"

#define XP_WAITERS 4			/* transports sleeping in their ring, per thread */
#define XP_WAIT_MAX_NS (60ull * 1000000000ull)	/* libev's longest poll is 59.743 s */

static _Thread_local struct xport *waiters[XP_WAITERS];
static atomic_bool interposed;		/* epoll_wait calls come here */

/* The loop's epoll fd, or -1. libev names it only to a loop that embeds this
 * one (ev_embed watches it with an ev_io): a throwaway loop on poll(2), which
 * holds no fd of its own, embeds it for the moment it takes to read the fd. */
static int loop_fd(struct ev_loop *loop)
{
	struct ev_loop *tmp;
	ev_embed e;
	int fd;

	if (!(ev_backend(loop) & ev_embeddable_backends()) ||
	    !(tmp = ev_loop_new(EVBACKEND_POLL | EVFLAG_NOENV)))
		return -1;
	ev_embed_init(&e, NULL, loop);
	ev_embed_start(tmp, &e);
	fd = e.io.fd;
	ev_embed_stop(tmp, &e);
	ev_loop_destroy(tmp);
	return fd;
}

void xport_sleep_in_ring(struct xport *x, const struct xport_batch *b)
{
	x->want_ring_wait = x->be->wait != NULL;
	if (b)
		x->batch = *b;
}

bool xp_wait_enter(struct xport *x)
{
	if (!atomic_load_explicit(&interposed, memory_order_relaxed) ||
	    (x->loop_fd = loop_fd(x->loop)) < 0)
		return false;
	for (unsigned i = 0; i < XP_WAITERS; i++) {
		if (!waiters[i]) {
			waiters[i] = x;
			return true;
		}
	}
	return false;
}

void xp_wait_leave(struct xport *x)
{
	for (unsigned i = 0; i < XP_WAITERS; i++)
		if (waiters[i] == x)
			waiters[i] = NULL;
}

/* One poll of x's loop in the ring: the loop's events (0 where none), or -1
 * with errno. The batch: what x->batch.want says, held at most hold_ns. */
static int ring_poll(struct xport *x, int epfd, struct epoll_event *ev, int max, int timeout)
{
	uint64_t ns = timeout < 0 ? XP_WAIT_MAX_NS : (uint64_t)timeout * 1000000u;
	unsigned nr = 1;

	if (x->batch.want && x->batch.hold_ns)
		nr = x->batch.want(x->batch.arg);
	if (x->be->wait(x, ns, nr > 1 ? nr : 1, nr > 1 ? x->batch.hold_ns : 0) < 0)
		return epoll_pwait(epfd, ev, max, timeout, NULL);
	if (!x->loop_fired)
		return 0;
	x->loop_fired = false;
	return epoll_pwait(epfd, ev, max, 0, NULL);
}

int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
	if (!atomic_load_explicit(&interposed, memory_order_relaxed))
		atomic_store_explicit(&interposed, true, memory_order_relaxed);
	for (unsigned i = 0; i < XP_WAITERS; i++)
		if (waiters[i] && waiters[i]->loop_fd == epfd && waiters[i]->ring_waits)
			return ring_poll(waiters[i], epfd, ev, max, timeout);
	return epoll_pwait(epfd, ev, max, timeout, NULL);
}
