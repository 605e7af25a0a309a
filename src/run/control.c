/*
 * control: the main thread's loop. Signals, the live line, the end of a
 * time-based phase, interval cuts and the workers' "phase done" notices all
 * arrive here.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "status.h"
#include "units.h"

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Asks every worker to cut at t; false while a cut is still pending. */
static bool ival_request(struct ival_swap *s, struct worker **w, unsigned n, uint64_t t)
{
	if (s->pending)
		return false;
	s->seq++;
	s->pending = true;
	s->prev_ns = s->ns;
	s->ns = t;
	for (unsigned i = 0; i < n; i++) {
		ival_box_ask(worker_ival_box(w[i]), s->seq);
		worker_command(w[i], WORKER_CMD_SWAP);
	}
	return true;
}

/* Whether every worker answered the pending cut. */
static bool ival_answered(const struct ival_swap *s, struct worker *const *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!ival_box_answered(worker_ival_box(w[i]), s->seq))
			return false;
	return true;
}

/* out += what every worker handed over (after ival_answered); out_srv (NULL: none)
 * += their per-server figures. */
static void ival_collect(struct worker **w, unsigned n, struct op_stats *out,
			 struct op_stats *out_srv)
{
	for (unsigned i = 0; i < n; i++)
		ival_box_take(worker_ival_box(w[i]), out, out_srv);
}

bool control_all_done(const struct control *c)
{
	for (unsigned i = 0; i < c->nworkers; i++)
		if (!worker_phase_done(c->workers[i]))
			return false;
	return true;
}

bool control_cut_short(const struct control *c)
{
	return c->signal || c->drain_timed_out || atomic_load(&c->run->abort) ||
	       atomic_load(&c->run->refusal);
}

static void begin_stop(struct control *c)
{
	if (c->stopping)
		return;
	c->stopping = true;
	c->stop_ns = now_ns();
	getrusage(RUSAGE_SELF, &c->ru_end);
	ev_timer_stop(c->loop, &c->tick_timer);	/* final_interval cuts the rest */
	for (unsigned i = 0; i < c->nworkers; i++)
		worker_command(c->workers[i], WORKER_CMD_STOP);
	/* Operations stuck on a dead server time out in the engine; don't wait longer. */
	ev_timer_set(&c->drain_timer, (double)c->cfg->timeout_ns / 1e9 + 2.0, 0.);
	ev_timer_start(c->loop, &c->drain_timer);
}

/* The live line for the interval in c->ival. */
static void live_print(struct control *c, uint64_t ns)
{
	const struct op_stats *s = c->ival;
	struct hist *both = &c->live_hist;
	uint64_t ops = 0, bytes = 0, errors = 0;
	char p99[32];

	for (int t = 0; t < OP_NTYPES; t++) {
		ops += s[t].ops;
		bytes += s[t].bytes;
		errors += s[t].errors;
	}
	hist_reset(both);
	hist_add(both, &s[OP_READ].lat);
	hist_add(both, &s[OP_WRITE].lat);
	fprintf(stderr, "%s[%6.1fs] %s %9.0f IOPS %9.1f MiB/s  p99 %9s  errors %llu%s",
		c->live_tty ? "\r" : "", (double)(c->swap.ns - c->phase_start_ns) / 1e9,
		c->run->phase == PHASE_LAYOUT ? "layout" : "run   ",
		ns ? (double)ops * 1e9 / (double)ns : 0.,
		ns ? (double)bytes * 1e9 / (double)ns / 1048576.0 : 0.,
		units_format_duration(hist_percentile(both, 99), p99, sizeof(p99)),
		(unsigned long long)errors, c->live_tty ? "   " : "\n");
	fflush(stderr);
}

/* Every thread handed the interval over: one row per op type, the live line. */
static void interval_done(struct control *c)
{
	uint64_t end = c->swap.ns, start = c->row_start_ns;
	bool in_window = c->run->phase == PHASE_MAIN && end > c->run->measure_start_ns;

	ival_collect(c->workers, c->nworkers, c->ival, c->srv_ival);
	if (c->live && !c->swap_waiting && end > c->swap.prev_ns)
		live_print(c, end - c->swap.prev_ns);
	/*
	 * Rows tile the measured window from its start (the interval the ramp
	 * ends in holds measured operations only, see worker). A sliver, such as
	 * a cut just after the ramp, is carried into the next row; only the last
	 * one, at the stop, may be short.
	 */
	if (in_window && end > start) {
		if ((end - start) * 100 < c->cfg->interval_ns && !c->swap_waiting)
			return;
		if (series_add(c->series, start, end, c->ival) ||
		    series_add_servers(c->series, start, end, c->srv_ival,
				       c->srv_ival ? c->cfg->nservers : 0))
			fprintf(stderr, "nfsload: cannot write the interval series\n");
		c->row_start_ns = end;
	}
	op_stats_reset_all(c->ival);
	op_stats_reset_n(c->srv_ival, c->srv_ival ? c->cfg->nservers : 0);
}

static void wake_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct control *c = w->data;

	(void)revents;
	if (atomic_load(&c->run->abort) && !c->stopping) {
		fprintf(stderr, "nfsload: a connection was lost: stopping the run (--on-error stop)\n");
		begin_stop(c);
	}
	/* Said also when it came as the run was stopping anyway: its exit status is 1. */
	if (atomic_load(&c->run->refusal) && !c->refusal_said) {
		char line[200];

		c->refusal_said = true;
		run_refusal_line(atomic_load(&c->run->refusal), line, sizeof(line));
		fprintf(stderr, "nfsload: %s\n", line);
		begin_stop(c);
	}
	if (atomic_load(&c->run->verify_failed) && !c->stopping) {
		fprintf(stderr, "nfsload: --verify: data mismatch: stopping the run "
			"(--verify-continue counts them all)\n");
		begin_stop(c);
	}
	if (c->swap.pending && ival_answered(&c->swap, c->workers, c->nworkers)) {
		c->swap.pending = false;
		interval_done(c);
		if (c->swap_waiting) {
			ev_break(loop, EVBREAK_ONE);
			return;
		}
	}
	if (!control_all_done(c))
		return;
	if (!c->stopping) {
		/* Size-based end: the measured window closes at the last completion. */
		uint64_t last = 0;

		for (unsigned i = 0; i < c->nworkers; i++) {
			struct worker_figures f;

			worker_figures(c->workers[i], &f);
			if (f.last_done_ns > last)
				last = f.last_done_ns;
		}
		c->stopping = true;
		c->stop_ns = last;
		ev_timer_stop(loop, &c->tick_timer);
		getrusage(RUSAGE_SELF, &c->ru_end);
	}
	ev_break(loop, EVBREAK_ONE);
}

static void signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct control *c = w->data;

	(void)revents;
	if (c->stopping) {
		ev_break(loop, EVBREAK_ONE);	/* a second ^C: stop waiting */
		return;
	}
	c->signal = w->signum;
	begin_stop(c);
}

static void end_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	begin_stop(w->data);
}

static void drain_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct control *c = w->data;

	(void)revents;
	c->drain_timed_out = true;
	ev_break(loop, EVBREAK_ONE);
}

static void ramp_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct control *c = w->data;

	(void)loop;
	(void)revents;
	getrusage(RUSAGE_SELF, &c->ru_start);
	c->start_unix_ns = realtime_ns();
}

/*
 * Cuts an interval (the row follows in wake_cb once every thread answered)
 * and schedules the next cut: every --interval from the start of the
 * measured window, and during a ramp also at its end.
 */
static void tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct control *c = w->data;
	uint64_t t = now_ns(), m = c->run->measure_start_ns, d = c->cfg->interval_ns, next;

	(void)revents;
	/* A thread still busy with the last one: a longer interval. */
	ival_request(&c->swap, c->workers, c->nworkers, t);
	if (t < m)
		next = t + d < m ? t + d : m;
	else
		next = m + ((t - m) / d + 1) * d;
	/* The stop cuts the last interval: none just before it, to leave no sliver. */
	if (c->end_ns && next + d / 10 >= c->end_ns)
		return;
	ev_timer_set(w, (double)(next - t) / 1e9, 0.);
	ev_timer_start(loop, w);
}

/* The last, partial interval: from the last cut to the stop. */
static void final_interval(struct control *c)
{
	c->swap_waiting = true;
	ev_timer_set(&c->drain_timer, (double)c->cfg->timeout_ns / 1e9 + 2.0, 0.);
	ev_timer_start(c->loop, &c->drain_timer);
	while (c->swap.pending && !c->drain_timed_out)
		ev_run(c->loop, 0);
	if (c->stop_ns > c->swap.ns && ival_request(&c->swap, c->workers, c->nworkers, c->stop_ns))
		while (c->swap.pending && !c->drain_timed_out)
			ev_run(c->loop, 0);
	ev_timer_stop(c->loop, &c->drain_timer);
	c->swap_waiting = false;
}

uint64_t control_run_phase(struct control *c, enum worker_phase phase)
{
	const struct config *cfg = c->cfg;
	double ramp = phase == PHASE_MAIN ? (double)cfg->ramp_ns / 1e9 : 0.;

	/* The loop's clock is stale after set-up: timers must count from now. */
	ev_now_update(c->loop);
	c->stopping = false;
	c->phase_start_ns = now_ns();
	c->swap.ns = c->phase_start_ns;
	c->swap.pending = false;
	c->run->phase = phase;
	c->run->measure_start_ns = c->phase_start_ns + (phase == PHASE_MAIN ? cfg->ramp_ns : 0);
	c->row_start_ns = c->run->measure_start_ns;
	if (phase == PHASE_MAIN && !c->run->oplog_origin_ns)
		c->run->oplog_origin_ns = c->run->measure_start_ns;
	getrusage(RUSAGE_SELF, &c->ru_start);
	c->start_unix_ns = realtime_ns();
	for (unsigned i = 0; i < c->nworkers; i++) {
		worker_phase_begin(c->workers[i]);
		worker_command(c->workers[i], WORKER_CMD_PHASE);
	}
	if (ramp > 0) {
		ev_timer_set(&c->ramp_timer, ramp, 0.);
		ev_timer_start(c->loop, &c->ramp_timer);
	}
	c->end_ns = 0;
	if (phase == PHASE_MAIN && cfg->runtime_ns) {
		c->end_ns = c->run->measure_start_ns + cfg->runtime_ns;
		ev_timer_set(&c->end_timer, ramp + (double)cfg->runtime_ns / 1e9, 0.);
		ev_timer_start(c->loop, &c->end_timer);
	}
	/* A load curve's points follow one another in one series, from the first one's start. */
	if (phase == PHASE_MAIN && !(cfg->curve.start > 0 && c->series_begun))
		series_begin(c->series, c->run->measure_start_ns);
	c->series_begun |= phase == PHASE_MAIN;
	if (c->live || phase == PHASE_MAIN) {
		ev_timer_set(&c->tick_timer, (double)(ramp > 0 && cfg->ramp_ns < cfg->interval_ns ?
						      cfg->ramp_ns : cfg->interval_ns) / 1e9, 0.);
		ev_timer_start(c->loop, &c->tick_timer);
	}
	ev_run(c->loop, 0);
	ev_timer_stop(c->loop, &c->end_timer);
	ev_timer_stop(c->loop, &c->ramp_timer);
	ev_timer_stop(c->loop, &c->drain_timer);
	ev_timer_stop(c->loop, &c->tick_timer);
	if (phase == PHASE_MAIN && !c->drain_timed_out)
		final_interval(c);
	if (c->live && c->live_tty)
		fputc('\n', stderr);
	return c->stop_ns > c->run->measure_start_ns ? c->stop_ns - c->run->measure_start_ns : 0;
}

int control_init(struct control *c, const struct config *cfg, struct run *run,
		 struct series *series)
{
	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	c->run = run;
	c->series = series;
	c->live_tty = isatty(STDERR_FILENO);
	c->live = cfg->live == CFG_LIVE_ON || (cfg->live == CFG_LIVE_AUTO && c->live_tty);
	if (op_stats_init_all(c->ival, HIST_PRECISE_BITS, false) ||
	    hist_init(&c->live_hist, HIST_PRECISE_BITS))
		return -ENOMEM;
	if (cfg->series_by_server &&
	    !(c->srv_ival = op_stats_new_n(cfg->nservers, HIST_PRECISE_BITS)))
		return -ENOMEM;
	/*
	 * signalfd: SIGINT/SIGTERM stay blocked in this thread, so they never
	 * interrupt a synchronous call to the server (set-up, closing, cleanup):
	 * libnfs 4.0 gives up on EINTR and leaves the request pointing at a dead
	 * stack frame.
	 */
	c->loop = ev_default_loop(EVBACKEND_EPOLL | EVFLAG_SIGNALFD);
	if (!c->loop)
		return -ENOMEM;
	ev_async_init(&c->wake, wake_cb);
	c->wake.data = c;
	ev_async_start(c->loop, &c->wake);
	ev_signal_init(&c->sigint, signal_cb, SIGINT);
	ev_signal_init(&c->sigterm, signal_cb, SIGTERM);
	c->sigint.data = c->sigterm.data = c;
	ev_signal_start(c->loop, &c->sigint);
	ev_signal_start(c->loop, &c->sigterm);
	ev_init(&c->end_timer, end_cb);
	ev_init(&c->drain_timer, drain_cb);
	ev_init(&c->ramp_timer, ramp_cb);
	ev_init(&c->tick_timer, tick_cb);
	c->end_timer.data = c->drain_timer.data = c->ramp_timer.data = c;
	c->tick_timer.data = c;
	run->main_loop = c->loop;
	run->wake = &c->wake;
	return 0;
}

void control_workers(struct control *c, struct worker **w, unsigned n)
{
	c->workers = w;
	c->nworkers = n;
}

/*
 * Stops the worker threads: after a second signal or a drain timeout they may
 * still be completing operations, and their figures are only ours to read
 * once they are joined.
 */
void control_join(struct control *c)
{
	for (unsigned i = 0; i < c->nworkers; i++)
		worker_join(c->workers[i]);
}

void control_settle(struct control *c)
{
	if (!control_all_done(c))
		control_join(c);
}

void control_destroy(struct control *c)
{
	/* A job's next run makes a fresh default loop. */
	if (c->loop)
		ev_loop_destroy(c->loop);
	c->loop = NULL;
	op_stats_destroy_all(c->ival);
	op_stats_free_n(c->srv_ival, c->srv_ival ? c->cfg->nservers : 0);
	c->srv_ival = NULL;
	hist_destroy(&c->live_hist);
}
