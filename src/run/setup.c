/*
 * setup: connections set up in parallel on a private loop, SETUP_WINDOW at
 * a time (a window, not all at once: a thousand simultaneous mounts would
 * only queue in the server's accept backlog and time out).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "engine.h"
#include "setup.h"

enum { PENDING, CONNECTING, READY, FAILED };

struct setup;

/* What a connection's callbacks get: its set-up and its index. */
struct owner {
	struct setup *s;
	unsigned i;
};

struct setup {
	const struct engine_ops *engine;
	struct engine_thread *thread;
	struct ev_loop *loop;
	struct engine_conn **conns;
	unsigned char *state;
	struct owner *owners;
	unsigned n, next, active, failed;
	struct setup_times *times;
	char first_error[200];
};

static void start_next(struct setup *s);

/* How connection i's set-up ended: ok, or failed with rc (or the engine's words). */
static void record(struct setup *s, unsigned i, bool ok, int rc)
{
	if (!ok) {
		const char *why = s->engine->error(s->conns[i]);

		s->failed++;
		if (!s->first_error[0])
			snprintf(s->first_error, sizeof(s->first_error), "connection %u: %s", i,
				 why && *why ? why : strerror(rc < 0 ? -rc : EIO));
	}
	s->state[i] = ok ? READY : FAILED;
	s->active--;
}

static void ready_cb(void *owner, struct engine_conn *c, bool ok)
{
	struct owner *o = owner;

	(void)c;
	if (o->s->state[o->i] == CONNECTING) {
		record(o->s, o->i, ok, -EIO);
		start_next(o->s);
	}
}

/* Lost while setting up counts as failing to set up. */
static void lost_cb(void *owner, struct engine_conn *c)
{
	ready_cb(owner, c, false);
}

static void done_cb(void *owner, struct engine_req *req, int status)
{
	(void)owner;
	(void)req;
	(void)status;
}

static void step_cb(void *owner, unsigned step, uint64_t ns)
{
	struct owner *o = owner;

	if (step < SETUP_STEPS_MAX)
		hist_record(&o->s->times->steps[step], ns);
}

static const struct engine_cbs cbs = {
	.done = done_cb, .lost = lost_cb, .ready = ready_cb, .step = step_cb,
};

static void start_next(struct setup *s)
{
	while (s->active < SETUP_WINDOW && s->next < s->n) {
		unsigned i = s->next++;
		int rc;

		s->state[i] = CONNECTING;
		s->active++;
		rc = s->engine->connect(s->conns[i], s->thread, &cbs, &s->owners[i]);
		if (rc < 0)
			record(s, i, false, rc);
	}
	if (s->active == 0)
		ev_break(s->loop, EVBREAK_ONE);
}

static void deadline_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ONE);
}

static void tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct setup *s = w->data;

	(void)loop;
	(void)revents;
	for (unsigned i = 0; i < s->next; i++)
		if (s->state[i] == CONNECTING)
			s->engine->tick(s->conns[i]);
}

int setup_all(struct engine_inst *inst, const struct config *cfg,
	      const struct engine_params *params, struct engine_conn **conns, unsigned n,
	      uint64_t deadline_ns, struct setup_times *times, char *err, size_t errlen)
{
	struct setup s = { .engine = cfg->engine, .conns = conns, .n = n, .times = times };
	uint64_t t0 = now_ns();
	ev_timer deadline, tick;
	unsigned stuck = 0;
	int rc = -ENOMEM;

	s.loop = ev_loop_new(EVBACKEND_EPOLL);
	s.state = calloc(n + 1, 1);
	s.owners = calloc(n + 1, sizeof(*s.owners));
	if (s.loop)
		s.thread = s.engine->thread_new(inst, params, s.loop);
	if (!s.loop || !s.state || !s.owners || !s.thread) {
		snprintf(err, errlen, "out of memory setting up %u connections", n);
		goto out;
	}
	for (unsigned i = 0; i < n; i++)
		s.owners[i] = (struct owner){ &s, i };
	ev_timer_init(&deadline, deadline_cb, (double)deadline_ns / 1e9, 0.);
	ev_timer_start(s.loop, &deadline);
	/* Engines check their timeouts when ticked. */
	ev_timer_init(&tick, tick_cb, 0.5, 0.5);
	tick.data = &s;
	ev_timer_start(s.loop, &tick);
	start_next(&s);
	if (s.active)
		ev_run(s.loop, 0);
	for (unsigned i = 0; i < n; i++) {
		if (s.state[i] != READY && s.state[i] != FAILED)
			stuck++;
		if (s.state[i] != READY)
			s.engine->drop(conns[i]);
		s.engine->detach(conns[i]);
	}
	ev_timer_stop(s.loop, &deadline);
	ev_timer_stop(s.loop, &tick);
	times->elapsed_ns = now_ns() - t0;
	rc = 0;
	if (s.failed)
		snprintf(err, errlen, "%u of %u connections failed to set up (%s)",
			 s.failed + stuck, n, s.first_error);
	else if (stuck)
		snprintf(err, errlen, "%u of %u connections not ready after %.0f s "
			 "(server too slow, or refusing connections)", stuck, n,
			 (double)deadline_ns / 1e9);
	if (s.failed || stuck)
		rc = -EIO;
out:
	if (s.thread)
		s.engine->thread_free(s.thread);
	if (s.loop)
		ev_loop_destroy(s.loop);
	free(s.state);
	free(s.owners);
	return rc;
}
