/*
 * wconn: one connection of a worker. Its streams (main, layout, verify),
 * operation slots and engine connection, made and freed; its state at the
 * start of a phase; and the end of its phase, which the last connection of
 * the worker tells the main thread, with the view of its connections the
 * main thread reads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker_int.h"

void wconn_finish(struct wconn *wc)
{
	struct worker *w = wc->w;

	if (wc->finished)
		return;
	wc->finished = true;
	/* A replay's connection is done: nobody is to wait for what it did not do. */
	for (uint32_t i = 0; wc->rp && i < wc->rp->nops; i++)
		__atomic_store_n(&wc->rp_done[i], 1, __ATOMIC_RELEASE);
	if (--w->active == 0) {
		w->last_done_ns = now_ns();
		w->cpu_ns = thread_cpu_ns() - w->cpu_start_ns;
		w->sleeps = thread_sleeps() - w->sleeps_start;
		/* Read while this thread handles its sockets on: a link lost now is not in it. */
		wconn_views(w);
		atomic_store(&w->phase_done, true);
		ev_async_send(w->run->main_loop, w->run->wake);
	}
}

/* A connection's state at the start of a phase; outages and reconnects are the run's. */
void wconn_begin(struct wconn *wc, enum worker_phase phase, uint64_t t)
{
	op_stats_reset(&wc->stats);
	wc->errs.timeouts = wc->errs.err_other = wc->errs.unanswered_at_stop = 0;
	memset(wc->errs.err_kinds, 0, sizeof(wc->errs.err_kinds));
	wc->last_ok_ns = wc->last_reply_ns = t;
	wc->last_done_ns = 0;
	wc->finished = false;
	wc->done_issuing = false;
	wc->ncommits_due = 0;
	wc->nredo = 0;
	wc->pass_next = 0;
	wc->rp_next = 0;	/* a replay has one phase: its completions stay as they are */
	memset(wc->writes_since_commit, 0,
	       wc->main_stream.nranges * sizeof(*wc->writes_since_commit));
	memset(wc->commit_due, 0, wc->main_stream.nranges * sizeof(*wc->commit_due));
	wc->stream = phase == PHASE_LAYOUT ? &wc->layout_stream :
		     phase == PHASE_VERIFY ? &wc->verify_stream : &wc->main_stream;
}

void wconn_destroy(struct worker *w, struct wconn *wc)
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
	/* The hot blocks are the data's: every connection scatters them alike. */
	if (rc == 0)
		wl_stream_shape(&wc->main_stream, &cfg->distrib,
				cfg->bssplit_set ? &cfg->bssplit : NULL, cfg->seed);
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

/* --replay: the connection opens the data files its trace connection used, whole. */
static int replay_init(struct worker *w, struct wconn *wc)
{
	const struct replay_plan *p = w->run->replay;
	const struct replay_conn *rc = &p->conns[wc->id];
	struct wl_stream *s = &wc->main_stream;

	wc->rp = rc;
	wc->rp_done = w->run->replay_done[wc->id];
	free(s->ranges);
	s->ranges = calloc(rc->nfiles + 1, sizeof(*s->ranges));
	if (!s->ranges)
		return -ENOMEM;
	for (uint32_t r = 0; r < rc->nfiles; r++)
		s->ranges[r] = (struct wl_range){ rc->files[r], 0, p->file_size[rc->files[r]] };
	s->nranges = rc->nfiles;
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
		if ((w->run->verify || w->run->dedupe_pct) && !(wc->slots[k].buf = malloc(len)))
			return -ENOMEM;
	}
	wc->nfree = cfg->iodepth;
	return 0;
}

/* Everything connection id needs; on failure wconn_destroy frees what was made. */
int wconn_init(struct worker *w, struct wconn *wc, unsigned idx, unsigned id)
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
	if (rc == 0 && w->run->replay)
		rc = replay_init(w, wc);
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
	/* --mix's NFSv4.2 ops: on the connection's data files, in blocks of --bs. */
	if (cfg->meta)
		meta_tree_files(&wc->tree, wc->main_stream.nranges,
				(cfg->size + cfg->bs - 1) / cfg->bs, cfg->xattr_count);
	/* State: the held files, and the locks' ranges among the connections on a file. */
	if (cfg->meta) {
		unsigned n = cfg->nrfiles, c = cfg->connections;
		unsigned sharers = n >= c ? 1 : (c - 1 - id % n) / n + 1, rank = n >= c ? 0 : id / n;

		if (meta_tree_state(&wc->tree, cfg->open_files, cfg->lock_size, cfg->lock_contention,
				    rank, sharers))
			return -ENOMEM;
	}
	ids = calloc(wc->main_stream.nranges + 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (uint32_t r = 0; r < wc->main_stream.nranges; r++)
		ids[r] = wc->main_stream.ranges[r].file;
	rc = w->engine->conn_new(w->run->inst, w->run->params, id, ids, wc->main_stream.nranges,
				 &wc->conn);
	free(ids);
	if (rc)
		wc->conn = NULL;
	return rc;
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
	r->unanswered_at_stop = wc->errs.unanswered_at_stop;
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
	if (wc->rp)
		r->backlog_ops = wc->rp->nops - wc->rp_next;
	else if (w->open_loop && !wc->done_issuing && w->stop_ns > schedule_next(&w->sched, i))
		r->backlog_ops = (uint64_t)((double)(w->stop_ns - schedule_next(&w->sched, i)) *
					    w->run->rate / cfg->connections / 1e9) + 1;
	r->outlier = r->stuck = false;
	r->error = wc->down_error[0] ? wc->down_error : r->down ? w->engine->error(wc->conn) : "";
	if (r->down && !r->error[0])
		r->error = "still reconnecting at the end";
	snprintf(wc->view_error, sizeof(wc->view_error), "%s", r->error);
	r->error = wc->view_error;
}

void wconn_views(struct worker *w)
{
	for (unsigned i = 0; i < w->nconns; i++)
		conn_view(w, i);
}
