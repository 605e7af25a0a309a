/*
 * worker: the thread and its loop, the main thread's commands, the start of
 * a phase, and what the worker hands back (intervals, totals, per-connection
 * views). Issuing and completing are in slots.c, losing and re-making a
 * connection in outage.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "worker_int.h"

const struct engine_cbs worker_engine_cbs = {
	.done = slots_done,
	.lost = outage_lost_cb,
	.ready = outage_ready_cb,
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

static void conns_view(struct worker *w);

void wconn_finish(struct wconn *wc)
{
	struct worker *w = wc->w;

	if (wc->finished)
		return;
	wc->finished = true;
	if (--w->active == 0) {
		w->last_done_ns = now_ns();
		w->cpu_ns = thread_cpu_ns() - w->cpu_start_ns;
		/* Read while this thread handles its sockets on: a link lost now is not in it. */
		conns_view(w);
		atomic_store(&w->phase_done, true);
		ev_async_send(w->run->main_loop, w->run->wake);
	}
}

void worker_abort_run(struct worker *w)
{
	atomic_store(&w->run->abort, true);
	ev_async_send(w->run->main_loop, w->run->wake);
}

void worker_end_ramp(struct worker *w)
{
	w->ramp_pending = false;
	op_stats_reset_all(w->ival);
}

/* A connection's state at the start of a phase; outages and reconnects are the run's. */
static void wconn_begin(struct wconn *wc, enum worker_phase phase, uint64_t t)
{
	op_stats_reset(&wc->stats);
	wc->errs.timeouts = wc->errs.err_other = 0;
	memset(wc->errs.err_kinds, 0, sizeof(wc->errs.err_kinds));
	wc->last_ok_ns = wc->last_reply_ns = t;
	wc->last_done_ns = 0;
	wc->finished = false;
	wc->done_issuing = false;
	wc->ncommits_due = 0;
	wc->nredo = 0;
	wc->pass_next = 0;
	memset(wc->writes_since_commit, 0,
	       wc->main_stream.nranges * sizeof(*wc->writes_since_commit));
	memset(wc->commit_due, 0, wc->main_stream.nranges * sizeof(*wc->commit_due));
	wc->stream = phase == PHASE_LAYOUT ? &wc->layout_stream :
		     phase == PHASE_VERIFY ? &wc->verify_stream : &wc->main_stream;
}

static void start_phase(struct worker *w)
{
	const struct config *cfg = w->run->cfg;
	enum worker_phase phase = w->run->phase;
	uint64_t t = now_ns();

	w->stopping = false;
	w->open_loop = phase == PHASE_MAIN && cfg->rate > 0;
	w->commit_every = phase == PHASE_MAIN ? cfg->commit_every : 0;
	w->meta = phase == PHASE_MAIN && (cfg->meta || cfg->small_files);
	/* Reads are checked where no write of this run can race them. */
	w->checking = w->run->verify && (phase == PHASE_VERIFY || (phase == PHASE_MAIN &&
			wl_mode_read_pct(cfg->rw, cfg->rwmixread) == 100));
	w->ramp_pending = w->run->measure_start_ns > t;
	w->max_lag_ns = 0;
	w->rewrites = 0;
	w->active = w->nconns;
	w->phase_start_ns = t;
	w->last_done_ns = t;
	w->cpu_start_ns = thread_cpu_ns();
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
	if (w->open_loop)
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

static void tick_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct worker *w = t->data;

	(void)loop;
	(void)revents;
	for (unsigned i = 0; i < w->nconns; i++)
		if (w->conns[i].link == LINK_UP || w->conns[i].link == LINK_REMAKING)
			w->engine->tick(w->conns[i].conn);
}

static void wconn_destroy(struct worker *w, struct wconn *wc)
{
	wl_stream_destroy(&wc->main_stream);
	wl_stream_destroy(&wc->layout_stream);
	wl_stream_destroy(&wc->verify_stream);
	for (unsigned k = 0; wc->slots && k < w->run->cfg->iodepth; k++)
		free(wc->slots[k].buf);
	op_stats_destroy(&wc->stats);
	free(wc->slots);
	free(wc->free_slots);
	free(wc->writes_since_commit);
	free(wc->commit_due);
	free(wc->redo);
	meta_tree_destroy(&wc->tree);
	if (wc->conn)
		w->engine->free(wc->conn);
	wc->conn = NULL;
}

/* Which connection of how many it is to the file mapping (workload.c): of the run's,
 * or, with servers of a namespace each, of its server's. */
static unsigned map_id(const struct worker *w, const struct wconn *wc)
{
	return w->run->ns_each ? w->run->local_id[wc->id] : wc->id;
}

/* Connections of different servers with the same rank: their own random offsets. */
static uint64_t map_seed(const struct worker *w, const struct wconn *wc)
{
	return w->run->cfg->seed + (w->run->ns_each ? UINT64_C(0x9e3779b97f4a7c15) * wc->srv : 0);
}

static unsigned map_n(const struct worker *w, const struct wconn *wc)
{
	const struct config *cfg = w->run->cfg;

	return w->run->ns_each ? cfg->server[wc->srv].conns : cfg->connections;
}

/* The layout stream: the same files, written once, sequentially, skipping full files. */
static int layout_stream_init(struct worker *w, struct wconn *wc)
{
	const struct config *cfg = w->run->cfg;
	const struct fileset *fs = &w->run->files[w->run->ns_each ? wc->srv : 0];
	struct wl_stream *s = &wc->layout_stream;
	int rc = wl_stream_init(s, map_id(w, wc), map_n(w, wc), cfg->nrfiles, cfg->size,
				w->run->layout_bs, false, 0, cfg->seed);

	if (rc)
		return rc;
	for (uint32_t r = 0; r < s->nranges; r++) {
		struct wl_range *range = &s->ranges[r];

		/* A connection without a slice of its own would write the file again. */
		if (fs->size[range->file] >= cfg->size || !s->own_slice)
			range->end = range->start;
	}
	s->pos = s->ranges ? s->ranges[0].start : 0;
	s->budget = wl_stream_pass_bytes(s);
	return 0;
}

static int streams_init(struct worker *w, struct wconn *wc)
{
	const struct config *cfg = w->run->cfg;
	unsigned read_pct = wl_mode_read_pct(cfg->rw, cfg->rwmixread);
	int rc;

	rc = wl_stream_init(&wc->main_stream, map_id(w, wc), map_n(w, wc), cfg->nrfiles, cfg->size,
			    cfg->bs, wl_mode_random(cfg->rw), read_pct, map_seed(w, wc));
	if (rc == 0)
		rc = layout_stream_init(w, wc);
	if (rc == 0 && w->run->verify) {
		/* The verify pass: every file once, sequential reads, slices as for the layout. */
		rc = wl_stream_init(&wc->verify_stream, map_id(w, wc), map_n(w, wc), cfg->nrfiles,
				    cfg->size, w->run->verify_bs, false, 100, cfg->seed);
		wc->verify_stream.budget = wc->verify_stream.own_slice ?
			wl_stream_pass_bytes(&wc->verify_stream) : 0;
	}
	if (rc)
		return rc;
	if (cfg->one_pass) {
		/* Each file once: every connection covers its own files or slice. */
		wc->main_stream.budget = wc->main_stream.own_slice ?
			wl_stream_pass_bytes(&wc->main_stream) : 0;
	} else if (cfg->io_size) {
		uint64_t share = cfg->io_size / cfg->connections;

		wc->main_stream.budget = share + (wc->id < cfg->io_size % cfg->connections ? 1 : 0);
	}
	return 0;
}

static int slots_init(struct worker *w, struct wconn *wc)
{
	const struct config *cfg = w->run->cfg;
	uint64_t len = cfg->bs > w->run->layout_bs ? cfg->bs : w->run->layout_bs;

	wc->slots = calloc(cfg->iodepth, sizeof(*wc->slots));
	wc->free_slots = calloc(cfg->iodepth, sizeof(*wc->free_slots));
	wc->writes_since_commit = calloc(wc->main_stream.nranges + 1, sizeof(uint32_t));
	wc->commit_due = calloc(wc->main_stream.nranges + 1, sizeof(bool));
	wc->redo = calloc(cfg->iodepth, sizeof(*wc->redo));
	if (!wc->slots || !wc->free_slots || !wc->writes_since_commit || !wc->commit_due ||
	    !wc->redo)
		return -ENOMEM;
	for (unsigned k = 0; k < cfg->iodepth; k++) {
		wc->free_slots[k] = &wc->slots[k];
		if (w->run->verify && !(wc->slots[k].buf = malloc(len)))
			return -ENOMEM;
	}
	wc->nfree = cfg->iodepth;
	return 0;
}

/* Everything connection id needs; on failure wconn_destroy frees what was made. */
static int wconn_init(struct worker *w, struct wconn *wc, unsigned idx, unsigned id)
{
	const struct config *cfg = w->run->cfg;
	uint32_t *ids;
	int rc;

	wc->w = w;
	wc->idx = idx;
	wc->id = id;
	wc->srv = config_server_of(cfg, id);
	wc->link = LINK_UP;
	rc = streams_init(w, wc);
	if (rc == 0)
		rc = slots_init(w, wc);
	if (rc == 0)
		rc = op_stats_init(&wc->stats, HIST_COARSE_BITS, false);
	if (rc)
		return rc;
	if (cfg->small_files)
		wc->pass_total = cfg->small_files / cfg->connections +
				 (id < cfg->small_files % cfg->connections);
	if ((cfg->meta || cfg->small_files) &&
	    meta_tree_init(&wc->tree, cfg->dirs, cfg->files_per_dir,
			   cfg->seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (id + 1))))
		return -ENOMEM;
	ids = calloc(wc->main_stream.nranges + 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (uint32_t r = 0; r < wc->main_stream.nranges; r++)
		ids[r] = wc->main_stream.ranges[r].file;
	rc = w->engine->conn_new(cfg, id, ids, wc->main_stream.nranges, &wc->conn);
	free(ids);
	if (rc)
		wc->conn = NULL;
	return rc;
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
	w->wire = run->cfg->wire_time && w->engine->wire_time;
	w->nconns = nconns;
	w->sched.fd = -1;
	if (ival_box_init(&w->box, run->cfg->series_by_server ? run->cfg->nservers : 0))
		goto fail_box;
	w->conns = calloc(nconns, sizeof(*w->conns));
	w->deferred = calloc(nconns, sizeof(*w->deferred));
	if (!w->conns || !w->deferred)
		goto fail_arrays;
	if (run->cfg->rate > 0 && (rc = schedule_init(&w->sched, nconns, run->cfg)))
		goto fail_sched;
	rc = -ENOMEM;
	if (op_stats_init_all(w->total, HIST_PRECISE_BITS, run->cfg->rate > 0) ||
	    op_stats_init_all(w->ival, HIST_PRECISE_BITS, false) || servers_init(w) ||
	    (w->wire && (op_stats_wire_init_all(w->total) || op_stats_wire_init_all(w->ival))))
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
	if (w->run->cfg->rate > 0)
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
	w->eng = w->engine->thread_new(w->run->cfg, w->loop);
	if (!w->eng)
		return -ENOMEM;
	ev_async_init(&w->cmd_async, cmd_cb);
	w->cmd_async.data = w;
	ev_async_start(w->loop, &w->cmd_async);
	if (w->run->cfg->rate > 0)
		schedule_attach(&w->sched, w->loop, slots_due, w);
	ev_timer_init(&w->tick, tick_cb, 1., 1.);
	w->tick.data = w;
	ev_timer_start(w->loop, &w->tick);
	for (unsigned i = 0; i < w->nconns; i++) {
		ev_init(&w->conns[i].retry, outage_retry_cb);
		w->conns[i].retry.data = &w->conns[i];
		w->engine->attach(w->conns[i].conn, w->eng, &worker_engine_cbs, &w->conns[i]);
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
	conns_view(w);
}

void worker_figures(const struct worker *w, struct worker_figures *f)
{
	*f = (struct worker_figures){
		.nconns = w->nconns, .phase_start_ns = w->phase_start_ns,
		.last_done_ns = w->last_done_ns, .cpu_ns = w->cpu_ns, .max_lag_ns = w->max_lag_ns,
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

void worker_conn_report(const struct worker *w, unsigned i, struct conn_report *r)
{
	*r = w->conns[i].view;
}

/* Connection i as the report shows it, into its view (on the thread that owns it). */
static void conn_view(struct worker *w, unsigned i)
{
	struct wconn *wc = &w->conns[i];
	struct conn_report *r = &wc->view;
	const struct config *cfg = w->run->cfg;

	r->id = wc->id;
	r->worker = w->id;
	r->ops = wc->stats.ops;
	r->bytes = wc->stats.bytes;
	r->errors = wc->stats.errors;
	r->p50_ns = hist_percentile(&wc->stats.lat, 50);
	r->p99_ns = hist_percentile(&wc->stats.lat, 99);
	r->timeouts = wc->errs.timeouts;
	r->reconnects = wc->errs.reconnects;
	r->noutages = wc->errs.noutages;
	for (unsigned k = 0; k < CONN_OUTAGES_MAX && k < r->noutages; k++) {
		struct conn_outage *o = &r->outages[k];

		*o = wc->errs.outages[k];
		if (wc->outage && k == (unsigned)(wc->outage - wc->errs.outages))
			o->failed_ops = wc->errors_since_ok;	/* not over at the end */
		o->start_ns -= (int64_t)w->run->measure_start_ns;
		o->detected_ns -= (int64_t)w->run->measure_start_ns;
	}
	r->down = wc->link != LINK_UP;
	memcpy(r->err_kinds, wc->errs.err_kinds, sizeof(r->err_kinds));
	r->err_other = wc->errs.err_other;
	r->last_done_ns = wc->last_done_ns > w->run->measure_start_ns ?
		wc->last_done_ns - w->run->measure_start_ns : 0;
	r->done_issuing = wc->done_issuing;
	r->backlog_ops = 0;
	if (w->open_loop && !wc->done_issuing && w->stop_ns > schedule_next(&w->sched, i))
		r->backlog_ops = (uint64_t)((double)(w->stop_ns - schedule_next(&w->sched, i)) *
					    cfg->rate / cfg->connections / 1e9) + 1;
	r->outlier = r->stuck = false;
	r->error = wc->down_error[0] ? wc->down_error : r->down ? w->engine->error(wc->conn) : "";
	if (r->down && !r->error[0])
		r->error = "still reconnecting at the end";
	snprintf(wc->view_error, sizeof(wc->view_error), "%s", r->error);
	r->error = wc->view_error;
}

static void conns_view(struct worker *w)
{
	for (unsigned i = 0; i < w->nconns; i++)
		conn_view(w, i);
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
