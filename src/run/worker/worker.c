/*
 * worker: the thread and its loop, the main thread's commands, the start of
 * a phase, and what the worker hands back (intervals, totals, per-connection
 * views). A connection's state is in wconn.c, issuing and completing in
 * slots_*.c, losing and re-making a connection in outage.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "worker.h"
#include "worker_int.h"

/* What the engine calls back: a completion (slots_done.c), a lost link and a
 * re-made one (outage.c). */
static const struct engine_cbs worker_engine_cbs = {
	.done = slots_done,
	.lost = outage_lost_cb,
	.ready = outage_ready_cb,
};

static void start_phase(struct worker *w)
{
	const struct config *cfg = w->run->cfg;
	enum worker_phase phase = w->run->phase;
	uint64_t t = now_ns();

	w->stopping = false;
	w->open_loop = phase == PHASE_MAIN &&
		       (w->run->rate > 0 || (w->run->replay && cfg->replay_speed > 0));
	if (w->open_loop && w->run->rate > 0)
		schedule_set_rate(&w->sched, w->run->rate);
	w->commit_every = phase == PHASE_MAIN ? cfg->commit_every : 0;
	w->meta = phase == PHASE_MAIN && (cfg->meta || cfg->small_files);
	for (unsigned i = 0; i < w->nconns; i++)
		slots_held_sync(&w->conns[i]);	/* set-up's held OPENs, some maybe denied */
	/* Reads are checked where no write of this run can race them. */
	w->checking = w->run->verify && (phase == PHASE_VERIFY || (phase == PHASE_MAIN &&
			wl_mode_read_pct(cfg->rw, cfg->rwmixread) == 100));
	w->ramp_pending = w->run->measure_start_ns > t;
	w->logging = w->oplog && phase == PHASE_MAIN;
	w->max_lag_ns = 0;
	w->rewrites = 0;
	w->active = w->nconns;
	w->phase_start_ns = t;
	w->last_done_ns = t;
	w->cpu_start_ns = thread_cpu_ns();
	w->sleeps_start = thread_sleeps();
	op_stats_reset_all(w->total);
	op_stats_reset_n(w->srv, w->srv ? cfg->nservers : 0);
	op_stats_reset_n(w->srv_ival, w->srv_ival ? cfg->nservers : 0);
	op_stats_reset_all(w->ival);
	ival_box_reset(&w->box);
	for (unsigned i = 0; i < w->nconns; i++) {
		struct wconn *wc = &w->conns[i];

		wconn_begin(wc, phase, t);
		if (w->open_loop)
			schedule_start(&w->sched, i, wc->id, t);
		if (wc->link == LINK_REMAKING)
			continue;	/* its ready() starts it */
		if (wc->link == LINK_DOWN && cfg->on_error == CFG_ON_ERROR_CONTINUE) {
			outage_retry_now(wc, t);	/* lost while the last phase drained */
			continue;
		}
		if (wc->link == LINK_DOWN) {
			wconn_finish(wc);
			continue;
		}
		/* Stamped per connection: the first requests leave one socket at a time. */
		slots_refill(wc, now_ns());
	}
}

/* Hands the interval over at the main thread's tick, so all threads cut together. */
static void swap_interval(struct worker *w)
{
	if (w->ramp_pending && now_ns() >= w->run->measure_start_ns)
		worker_end_ramp(w);
	ival_box_hand_over(&w->box, w->ival, w->srv_ival);
	ev_async_send(w->run->main_loop, w->run->wake);
}

static void stop_phase(struct worker *w)
{
	w->stopping = true;
	w->stop_ns = now_ns();
	if (w->open_loop || w->run->replay)
		schedule_clear(&w->sched);
	for (unsigned i = 0; i < w->nconns; i++) {
		outage_stop(&w->conns[i]);
		if (w->conns[i].inflight == 0)
			wconn_finish(&w->conns[i]);
	}
}

static void cmd_cb(struct ev_loop *loop, ev_async *a, int revents)
{
	struct worker *w = a->data;
	unsigned cmds = atomic_exchange(&w->cmds, 0);

	(void)revents;
	if (cmds & WORKER_CMD_PHASE)
		start_phase(w);
	if (cmds & WORKER_CMD_SWAP)
		swap_interval(w);
	if (cmds & WORKER_CMD_STOP)
		stop_phase(w);
	if (cmds & WORKER_CMD_EXIT)
		ev_break(loop, EVBREAK_ALL);
}

/*
 * After the loop iteration in which requests failed (slots_done.c defers
 * them): the connection is refilled, or, with no reply at all for
 * --timeout, lost.
 */
/*
 * A check watcher started inside a callback runs after the loop's next poll,
 * which blocks until some event (the 1 s tick, when the failed request was
 * the connection's only one): an idle watcher beside it keeps that poll from
 * blocking. Nothing to do itself: deferred_cb stops it.
 */
static void deferred_idle_cb(struct ev_loop *loop, ev_idle *i, int revents)
{
	(void)loop;
	(void)i;
	(void)revents;
}

static void deferred_cb(struct ev_loop *loop, ev_check *c, int revents)
{
	struct worker *w = c->data;
	uint64_t t = now_ns();

	(void)revents;
	ev_check_stop(loop, c);
	ev_idle_stop(loop, &w->deferred_idle);
	for (unsigned i = 0; i < w->ndeferred; i++) {
		struct wconn *wc = w->deferred[i];

		wc->refill_pending = false;
		if (wc->finished)
			continue;
		/* After the stop a slow reply only ends the drain: no outage then. */
		if (wc->lose_pending && wc->link == LINK_UP && !w->stopping) {
			outage_link_lost(wc);
			continue;
		}
		slots_refill(wc, t);
	}
	w->ndeferred = 0;
}

static void tick_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct worker *w = t->data;

	(void)loop;
	(void)revents;
	for (unsigned i = 0; i < w->nconns; i++)
		if (w->conns[i].link == LINK_UP || w->conns[i].link == LINK_REMAKING)
			w->engine->tick(w->conns[i].conn);
}

/* Several servers: the measured window per server too, and with --series-by server
 * the interval (NULL otherwise). */
static int servers_init(struct worker *w)
{
	const struct config *cfg = w->run->cfg;

	if (cfg->nservers <= 1)
		return 0;
	w->srv = op_stats_new_n(cfg->nservers, HIST_PRECISE_BITS);
	if (cfg->series_by_server)
		w->srv_ival = op_stats_new_n(cfg->nservers, HIST_PRECISE_BITS);
	return w->srv && (w->srv_ival || !cfg->series_by_server) ? 0 : -ENOMEM;
}

static void servers_destroy(struct worker *w)
{
	op_stats_free_n(w->srv, w->run->cfg->nservers);
	op_stats_free_n(w->srv_ival, w->run->cfg->nservers);
	w->srv = w->srv_ival = NULL;
}

int worker_new(unsigned id, struct run *run, unsigned first_id, unsigned nconns,
	       struct worker **out)
{
	struct worker *w = calloc(1, sizeof(*w));
	unsigned made = 0;
	int rc = -ENOMEM;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->id = id;
	w->run = run;
	w->engine = run->cfg->engine;
	w->cbs = &worker_engine_cbs;
	w->wire = run->cfg->wire_time && w->engine->wire_time;
	w->nconns = nconns;
	w->sched.fd = -1;
	if (ival_box_init(&w->box, run->cfg->series_by_server ? run->cfg->nservers : 0))
		goto fail_box;
	w->conns = calloc(nconns, sizeof(*w->conns));
	w->deferred = calloc(nconns, sizeof(*w->deferred));
	if (!w->conns || !w->deferred)
		goto fail_arrays;
	/* A replay sets each start itself (schedule_at), and waits on it for another
	 * connection's operation at any speed: the rate is a placeholder. */
	if ((config_open_loop(run->cfg) || run->replay) &&
	    (rc = schedule_init(&w->sched, nconns, run->replay ? 1 : run->rate,
				run->cfg->connections,
				run->cfg->arrival == CFG_ARRIVAL_POISSON, run->cfg->seed)))
		goto fail_sched;
	rc = -ENOMEM;
	if (op_stats_init_all(w->total, HIST_PRECISE_BITS, config_open_loop(run->cfg)) ||
	    op_stats_init_all(w->ival, HIST_PRECISE_BITS, false) || servers_init(w) ||
	    (w->wire && (op_stats_wire_init_all(w->total) || op_stats_wire_init_all(w->ival))))
		goto fail_stats;
	if (run->oplog && !(w->oplog = oplog_buf_new(run->oplog)))
		goto fail_stats;
	for (; made < nconns; made++) {
		rc = wconn_init(w, &w->conns[made], made, first_id + made);
		if (rc) {
			wconn_destroy(w, &w->conns[made]);
			goto fail_conns;
		}
	}
	*out = w;
	return 0;

fail_conns:
	while (made--)
		wconn_destroy(w, &w->conns[made]);
fail_stats:
	oplog_buf_free(w->oplog);
	op_stats_destroy_all(w->total);
	op_stats_destroy_all(w->ival);
	servers_destroy(w);
fail_sched:
	schedule_destroy(&w->sched);
fail_arrays:
	free(w->conns);
	free(w->deferred);
fail_box:
	ival_box_destroy(&w->box);
	free(w);
	return rc;
}

struct engine_conn *worker_conn(struct worker *w, unsigned i)
{
	return w->conns[i].conn;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	/* Default timer slack (50 us) would blur an open-loop schedule. */
	if (config_open_loop(w->run->cfg))
		prctl(PR_SET_TIMERSLACK, 1UL);
	ev_run(w->loop, 0);
	return NULL;
}

int worker_start(struct worker *w)
{
	sigset_t all, old;
	int rc;

	w->loop = ev_loop_new(EVBACKEND_EPOLL);
	if (!w->loop)
		return -ENOMEM;
	w->eng = w->engine->thread_new(w->run->inst, w->run->params, w->loop);
	if (!w->eng)
		return -ENOMEM;
	ev_async_init(&w->cmd_async, cmd_cb);
	w->cmd_async.data = w;
	ev_async_start(w->loop, &w->cmd_async);
	if (config_open_loop(w->run->cfg) || w->run->replay)
		schedule_attach(&w->sched, w->loop, slots_due, w);
	ev_timer_init(&w->tick, tick_cb, 1., 1.);
	w->tick.data = w;
	ev_timer_start(w->loop, &w->tick);
	ev_check_init(&w->deferred_check, deferred_cb);
	w->deferred_check.data = w;
	ev_idle_init(&w->deferred_idle, deferred_idle_cb);
	for (unsigned i = 0; i < w->nconns; i++) {
		ev_init(&w->conns[i].retry, outage_retry_cb);
		w->conns[i].retry.data = &w->conns[i];
		w->engine->attach(w->conns[i].conn, w->eng, w->cbs, &w->conns[i]);
	}
	/* Signals belong to the main thread's loop. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	w->started = true;
	return 0;
}

void worker_command(struct worker *w, enum worker_cmd cmd)
{
	atomic_fetch_or(&w->cmds, (unsigned)cmd);
	ev_async_send(w->loop, &w->cmd_async);
}

bool worker_phase_done(const struct worker *w)
{
	return atomic_load(&w->phase_done);
}

void worker_phase_begin(struct worker *w)
{
	atomic_store(&w->phase_done, false);
}

struct ival_box *worker_ival_box(struct worker *w)
{
	return &w->box;
}

void worker_join(struct worker *w)
{
	if (w->started) {
		worker_command(w, WORKER_CMD_EXIT);
		pthread_join(w->thread, NULL);
		w->started = false;
	}
	/* Nothing runs on its loop any more: the view is the connections' last state. */
	wconn_views(w);
}

void worker_figures(const struct worker *w, struct worker_figures *f)
{
	*f = (struct worker_figures){
		.nconns = w->nconns, .phase_start_ns = w->phase_start_ns,
		.last_done_ns = w->last_done_ns, .cpu_ns = w->cpu_ns,
		.sleeps = w->sleeps, .max_lag_ns = w->max_lag_ns,
		.rewrites = w->rewrites,
	};
}

void worker_add_totals(const struct worker *w, struct op_stats *ops)
{
	op_stats_add_all(ops, w->total);
}

void worker_add_server_total(const struct worker *w, unsigned k, struct op_stats *dst)
{
	if (w->srv)
		op_stats_add(dst, &w->srv[k]);
}

const struct verify_counts *worker_verify(const struct worker *w)
{
	return &w->verify;
}

void worker_add_replay(const struct worker *w, struct replay_counts *c)
{
	const struct replay_counts *m = &w->replay;

	c->late += m->late;
	c->both_failed += m->both_failed;
	c->only_trace_failed += m->only_trace_failed;
	c->new_errors += m->new_errors;
	for (unsigned i = 0; i < w->nconns; i++)
		if (w->conns[i].rp)
			c->not_issued += w->conns[i].rp->nops - w->conns[i].rp_next;
	if (m->first_issue_ns && (!c->first_issue_ns || m->first_issue_ns < c->first_issue_ns))
		c->first_issue_ns = m->first_issue_ns;
	if (m->last_issue_ns > c->last_issue_ns)
		c->last_issue_ns = m->last_issue_ns;
}

void worker_conn_report(const struct worker *w, unsigned i, struct conn_report *r)
{
	*r = w->conns[i].view;
}

void worker_free(struct worker *w, bool close_files)
{
	if (!w)
		return;
	if (w->started)
		pthread_join(w->thread, NULL);
	for (unsigned i = 0; i < w->nconns; i++) {
		struct wconn *wc = &w->conns[i];

		if (w->loop)
			ev_timer_stop(w->loop, &wc->retry);
		if (wc->conn)
			w->engine->detach(wc->conn);
		/* Not under requests in flight: libnfs 4.0 would free their handles. */
		if (close_files && wc->conn && wc->inflight == 0 && wc->link == LINK_UP)
			w->engine->close(wc->conn);
		wconn_destroy(w, wc);
	}
	free(w->conns);
	free(w->deferred);
	/* Joined: the main thread hands the thread's last rows to the file. */
	if (w->oplog)
		oplog_buf_flush(w->oplog);
	oplog_buf_free(w->oplog);
	schedule_destroy(&w->sched);
	op_stats_destroy_all(w->total);
	op_stats_destroy_all(w->ival);
	servers_destroy(w);
	ival_box_destroy(&w->box);
	if (w->eng)
		w->engine->thread_free(w->eng);
	if (w->loop)
		ev_loop_destroy(w->loop);
	free(w);
}
