/*
 * slots: a connection's operation slots. Issuing (closed loop: keep every
 * slot busy; open loop: what the schedule says is due), the engine's
 * completions, their latency and errors, --commit-every, --mix and the
 * small-file passes, --verify fill and check, layout writes lost with their
 * link and sent again.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pattern.h"
#include "workdir.h"
#include "worker_int.h"

void slots_count_error(struct wconn *wc, int status)
{
	struct conn_report *e = &wc->errs;
	int code = status == -CONN_ERR_SHORT ? CONN_ERR_SHORT : -status;

	if (code == ETIMEDOUT)
		e->timeouts++;
	for (int k = 0; k < CONN_ERR_KINDS; k++) {
		if (e->err_kinds[k].count == 0)
			e->err_kinds[k].code = code;
		if (e->err_kinds[k].code == code) {
			e->err_kinds[k].count++;
			return;
		}
	}
	e->err_other++;
}

/* The blocks this run wrote where wc's requests go (its server's, with a namespace each). */
static struct verify_map *written_of(const struct wconn *wc)
{
	const struct run *run = wc->w->run;

	return run->ns_each ? run->written_ns[wc->srv] : run->written;
}

/* Statuses that say a request went down with its link, not what the server made of it. */
static bool lost_with_link(int status)
{
	return status == -ECONNABORTED || status == -ECONNRESET || status == -ENOTCONN ||
	       status == -ETIMEDOUT;
}

/*
 * A layout write lost with its link is sent again once the link is back,
 * or the file keeps a hole: its data is a function of file and offset
 * only, so a write the server did after all is written twice, the same.
 * Measured writes stay errors: the figures say what the server did. At
 * most iodepth are queued: each came from a busy slot, and nothing new is
 * issued while one waits. A write lost SLOTS_TRIES times is given up (a
 * server that drops the link on that very write would hold the layout
 * forever): it stays an error, and a hole that --verify reports.
 */
#define SLOTS_TRIES 8

static void redo_later(struct wconn *wc, const struct slot *s)
{
	struct worker *w = wc->w;

	if (w->run->phase == PHASE_MAIN || s->type != OP_WRITE || w->stopping ||
	    wc->nredo >= w->run->cfg->iodepth || s->tries >= SLOTS_TRIES)
		return;
	wc->redo[wc->nredo++] = (struct redo_op){
		.op = { .type = s->type, .range = s->range, .file = s->file,
			.offset = s->offset, .len = s->len },
		.tries = s->tries };
}

/*
 * The engine refused a request (rc): it counts as an error of its kind, and
 * the connection issues nothing more this phase, its reason in the report.
 */
static void refused(struct wconn *wc, struct slot *s, int rc, uint64_t t)
{
	struct worker *w = wc->w;
	const char *why = w->engine->error(wc->conn);

	s->busy = false;
	wc->free_slots[wc->nfree++] = s;
	wc->done_issuing = true;
	wc->ncommits_due = 0;
	wc->nredo = 0;
	w->ival[s->type].errors++;
	if (!wc->down_error[0])
		snprintf(wc->down_error, sizeof(wc->down_error), "%s", why && *why ? why :
			 strerror(-rc));
	if (t >= w->run->measure_start_ns) {
		w->total[s->type].errors++;
		wc->stats.errors++;
		slots_count_error(wc, rc);
	}
}

/* Takes a free slot for op, stamped start (intended) and t (issue). false: refused. */
static bool issue(struct wconn *wc, const struct wl_op *op, uint8_t tries, uint64_t start,
		  uint64_t t)
{
	const struct run *run = wc->w->run;
	struct slot *s = wc->free_slots[--wc->nfree];
	const void *buf = NULL;
	int rc;

	if (op->type == OP_WRITE && run->verify) {
		verify_fill(run->verify, op->file, op->offset, s->buf, op->len);
		buf = s->buf;
	} else if (op->type == OP_WRITE) {
		buf = pattern_at(run->pattern, op->file, op->offset);
	}
	s->file = op->file;
	s->offset = op->offset;
	s->start_ns = start;
	s->issue_ns = t;
	s->type = op->type;
	s->range = op->range;
	s->len = op->len;
	s->tries = tries;
	s->busy = true;
	s->req = (struct engine_req){ .op = op->type, .file = op->range, .offset = op->offset,
				      .len = op->len, .buf = buf };
	rc = wc->w->engine->queue(wc->conn, &s->req);
	if (rc < 0) {
		refused(wc, s, rc, t);
		return false;
	}
	wc->inflight++;
	return true;
}

/* A COMMIT for one file that reached --commit-every writes. */
static bool issue_commit(struct wconn *wc, uint64_t t)
{
	for (uint32_t r = 0; r < wc->stream->nranges; r++) {
		struct wl_op op = { .type = OP_COMMIT, .range = r, .file = wc->stream->ranges[r].file };

		if (!wc->commit_due[r])
			continue;
		wc->commit_due[r] = false;
		wc->ncommits_due--;
		return issue(wc, &op, 1, t, t);
	}
	return false;
}

/* --mix: one metadata operation on the connection's own tree. */
static bool issue_meta(struct wconn *wc, const struct meta_target *tg, uint64_t t)
{
	const struct config *cfg = wc->w->run->cfg;
	struct slot *s = wc->free_slots[--wc->nfree];
	char path[400], path2[400], leaf[32];
	/* The small-file test's create writes the whole file in the same request. */
	bool filled = tg->op == OP_CREATE && wc->w->run->pass_op == OP_CREATE;
	bool whole = tg->op == OP_READ || tg->op == OP_WRITE || filled;
	int rc;

	if (tg->op == OP_MKDIR || tg->op == OP_RMDIR)
		snprintf(leaf, sizeof(leaf), "x%u", wc->tree.extra[tg->dir] - (tg->op == OP_RMDIR));
	else
		snprintf(leaf, sizeof(leaf), "f%u", tg->slot);
	workdir_tree_path(cfg, wc->id, tg->dir, tg->op == OP_READDIR ? NULL : leaf, path,
			  sizeof(path));
	if (tg->op == OP_RENAME) {
		snprintf(leaf, sizeof(leaf), "f%u", tg->slot2);
		workdir_tree_path(cfg, wc->id, tg->dir, leaf, path2, sizeof(path2));
	}
	s->start_ns = s->issue_ns = t;
	s->type = tg->op;
	s->tg = *tg;
	/* A read takes the file as it is (a created one is empty); a write must be whole. */
	s->len = tg->op == OP_WRITE || filled ? (uint32_t)cfg->file_size : 0;
	s->busy = true;
	s->req = (struct engine_req){
		.op = tg->op, .path = path, .path2 = tg->op == OP_RENAME ? path2 : NULL,
		.len = whole ? (uint32_t)cfg->file_size : 0,
		.buf = tg->op == OP_WRITE || filled ? wc->w->run->pattern : NULL,
	};
	/* SETATTR in turn: mode, size (to --file-size), times. */
	if (tg->op == OP_SETATTR)
		s->req.setattr = (enum engine_setattr)(wc->setattrs++ % 3);
	rc = wc->w->engine->queue(wc->conn, &s->req);
	if (rc < 0) {
		meta_done(&wc->tree, tg, false);
		refused(wc, s, rc, t);
		return false;
	}
	wc->inflight++;
	return true;
}

/* Small-file test: every file of the connection's share once. */
static void refill_pass(struct wconn *wc, uint64_t t)
{
	struct worker *w = wc->w;
	unsigned dirs = w->run->cfg->dirs;

	while (!w->stopping && !wc->done_issuing && wc->nfree > 0) {
		struct meta_target tg = { w->run->pass_op, (unsigned)(wc->pass_next % dirs),
					  (unsigned)(wc->pass_next / dirs), 0 };

		if (wc->pass_next >= wc->pass_total)
			break;
		wc->pass_next++;
		if (!issue_meta(wc, &tg, t))
			break;
	}
	if (wc->pass_next >= wc->pass_total)
		wc->done_issuing = true;
}

/*
 * Keeps the connection's queue full (closed loop) or issues what is due
 * (open loop: an operation waits for a free slot past its intended start,
 * and its latency still counts from that start). t is "now".
 */
void slots_refill(struct wconn *wc, uint64_t t)
{
	struct worker *w = wc->w;
	const struct run *run = w->run;
	struct meta_target tg;
	struct wl_op op;

	if (wc->link != LINK_UP) {
		/* Being re-made: nothing to issue on it until it is ready. */
		if (wc->inflight == 0 && w->stopping)
			wconn_finish(wc);
		return;
	}
	if (w->meta && run->pass_op != OP_NTYPES) {
		refill_pass(wc, t);
	} else if (w->meta) {
		/* Everything busy: the next completion tries again. */
		while (!w->stopping && !wc->done_issuing && wc->nfree > 0 &&
		       meta_next(&wc->tree, &run->cfg->mix, &tg) && issue_meta(wc, &tg, t))
			;
	} else {
		while (!w->stopping && wc->nfree > 0 &&
		       (run->phase == PHASE_MAIN || wc->inflight < run->layout_depth)) {
			uint64_t start = t;

			if (wc->ncommits_due) {
				if (!issue_commit(wc, t))
					break;
				continue;
			}
			if (wc->nredo) {
				const struct redo_op *r = &wc->redo[--wc->nredo];

				if (!issue(wc, &r->op, (uint8_t)(r->tries + 1), t, t))
					break;
				w->rewrites++;
				continue;
			}
			if (wc->done_issuing)
				break;
			if (w->open_loop) {
				start = schedule_next(&w->sched, wc->idx);
				if (start > t) {
					schedule_wait(&w->sched, wc->idx);
					break;
				}
			}
			if (!wl_next(wc->stream, &op)) {
				wc->done_issuing = true;
				break;
			}
			if (w->open_loop) {
				schedule_advance(&w->sched, wc->idx);
				if (start >= run->measure_start_ns && t - start > w->max_lag_ns)
					w->max_lag_ns = t - start;
			}
			if (!issue(wc, &op, 1, start, t))
				break;
		}
	}
	w->engine->commit(wc->conn);
	/* Not done while a lost write waits: the layout ends when every file is whole. */
	if (wc->inflight == 0 &&
	    (w->stopping || (wc->done_issuing && !wc->ncommits_due && !wc->nredo)))
		wconn_finish(wc);
}

void slots_due(void *arg, unsigned i, uint64_t t)
{
	struct worker *w = arg;

	slots_refill(&w->conns[i], t);
}

/*
 * --verify: checks every block of a READ's data. A block this run wrote
 * must hold this run's generation; any other may hold any (an earlier run's).
 * Returns status, or -CONN_ERR_VERIFY when a block is bad.
 */
static int check_read(struct wconn *wc, const struct slot *s, const uint8_t *data, int status)
{
	struct worker *w = wc->w;
	struct run *run = w->run;
	struct verify_counts *v = &w->verify;
	uint32_t bs = run->verify->block;
	uint64_t bad = 0;

	for (uint64_t o = 0; o + bs <= s->len; o += bs) {
		struct verify_mismatch m;
		uint32_t want = verify_map_test(written_of(wc), s->file, s->offset + o) ?
			run->verify->generation : 0;

		v->blocks++;
		if (!verify_check(run->verify, s->file, s->offset + o, data + o, bs, want, &m))
			continue;
		bad++;
		v->bad++;
		v->by_kind[m.kind]++;
		if (v->nkept < VERIFY_KEPT)
			v->kept[v->nkept++] = m;
	}
	if (!bad)
		return status;
	if (!run->cfg->verify_continue) {
		atomic_store(&run->verify_failed, true);
		ev_async_send(run->main_loop, run->wake);
	}
	return -CONN_ERR_VERIFY;
}

/* Into the interval, the totals and the connection's view, as the window says. */
static void record(struct wconn *wc, const struct slot *s, int status, uint64_t t)
{
	struct worker *w = wc->w;
	uint64_t lat = t - s->start_ns, unc = t - s->issue_ns;

	if (w->ramp_pending && t >= w->run->measure_start_ns)
		worker_end_ramp(w);
	/*
	 * Once measuring, intervals hold what the totals hold, no ramp leftovers.
	 * A --mix run also counts what completes after the stop: its counts
	 * must say what the tree on the server holds.
	 */
	if (!w->stopping &&
	    (s->start_ns >= w->run->measure_start_ns || t < w->run->measure_start_ns)) {
		op_stats_record(&w->ival[s->type], status, lat, unc);
		if (w->wire && status >= 0)
			op_stats_wire(&w->ival[s->type], s->req.wire_ns, unc);
		if (w->srv_ival)
			op_stats_record(&w->srv_ival[wc->srv], status, lat, unc);
	}
	if ((!w->stopping || w->meta) && s->start_ns >= w->run->measure_start_ns) {
		op_stats_record(&w->total[s->type], status, lat, unc);
		if (w->wire && status >= 0)
			op_stats_wire(&w->total[s->type], s->req.wire_ns, unc);
		op_stats_record(&wc->stats, status, lat, unc);
		if (w->srv)
			op_stats_record(&w->srv[wc->srv], status, lat, unc);
		if (status < 0)
			slots_count_error(wc, status);
		else
			wc->last_done_ns = t;
	}
}

static void deferred_cb(struct ev_loop *loop, ev_check *c, int revents)
{
	struct worker *w = c->data;
	uint64_t t = now_ns();

	(void)revents;
	ev_check_stop(loop, c);
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

/*
 * An engine may fail every queued request when its connection dies and
 * must not get new ones from inside those callbacks: refill after the loop
 * iteration, when the connection's fate is known.
 */
static void defer_refill(struct wconn *wc)
{
	struct worker *w = wc->w;

	if (wc->refill_pending)
		return;
	wc->refill_pending = true;
	w->deferred[w->ndeferred++] = wc;
	if (!ev_is_active(&w->deferred_check)) {
		ev_check_init(&w->deferred_check, deferred_cb);
		w->deferred_check.data = w;
		ev_check_start(w->loop, &w->deferred_check);
	}
}

void slots_done(void *owner, struct engine_req *req, int status)
{
	struct slot *s = (struct slot *)req;
	struct wconn *wc = owner;
	struct worker *w = wc->w;
	uint64_t t = now_ns();

	s->busy = false;
	/* A LOOKUP of a missing name is what --mix's lookup asks for. */
	if (s->type == OP_LOOKUP && status == -ENOENT)
		status = 0;
	/* A short transfer (a read past the end of a file) is not a success. */
	if (status >= 0 && (uint32_t)status < s->len)
		status = -CONN_ERR_SHORT;
	if (status >= 0 && w->checking && s->type == OP_READ)
		status = check_read(wc, s, req->data, status);
	if (status >= 0 && s->type == OP_WRITE && w->run->written)
		verify_map_set(written_of(wc), s->file, s->offset, s->len);
	if (w->meta)
		meta_done(&wc->tree, &s->tg, status >= 0);
	wc->inflight--;
	if (status >= 0) {
		wc->last_ok_ns = wc->last_reply_ns = t;
		outage_close(wc, t);
		wc->errors_since_ok = 0;
	} else {
		wc->errors_since_ok++;
		if (lost_with_link(status))
			redo_later(wc, s);
		if (status != -ETIMEDOUT)
			wc->last_reply_ns = t;	/* the server answered, if with an error */
		else if (t - wc->last_reply_ns >= w->run->cfg->timeout_ns)
			wc->lose_pending = true;	/* nothing at all for --timeout */
	}
	wc->free_slots[wc->nfree++] = s;
	record(wc, s, status, t);
	if (status < 0) {
		defer_refill(wc);
		return;
	}
	if (s->type == OP_WRITE && w->commit_every &&
	    ++wc->writes_since_commit[s->range] >= w->commit_every) {
		wc->writes_since_commit[s->range] = 0;
		if (!wc->commit_due[s->range]) {
			wc->commit_due[s->range] = true;
			wc->ncommits_due++;
		}
	}
	slots_refill(wc, t);
}

void slots_fail_inflight(struct wconn *wc)
{
	struct worker *w = wc->w;

	for (unsigned k = 0; k < w->run->cfg->iodepth; k++) {
		struct slot *s = &wc->slots[k];

		if (!s->busy)
			continue;
		s->busy = false;
		redo_later(wc, s);
		if (w->meta)
			meta_done(&wc->tree, &s->tg, false);
		w->ival[s->type].errors++;
		wc->errors_since_ok++;
		if (!w->stopping && s->start_ns >= w->run->measure_start_ns) {
			w->total[s->type].errors++;
			wc->stats.errors++;
			slots_count_error(wc, -ECONNABORTED);
		}
		wc->free_slots[wc->nfree++] = s;
	}
	wc->inflight = 0;
	if (w->open_loop)
		schedule_cancel(&w->sched, wc->idx);
}
