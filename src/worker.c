/*
 * worker: the per-thread event loop that keeps iodepth operations in flight
 * on each of its connections and records their latency.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "worker.h"

struct slot {
	struct conn_req req;	/* first: conn callbacks hand it back */
	uint64_t start_ns;	/* intended start: the issue itself unless open loop */
	uint64_t issue_ns;
	enum op_type type;
	uint32_t range;		/* which of the connection's files */
	uint32_t file;
	uint64_t offset;
	uint8_t *buf;		/* --verify: this slot's write data */
	struct meta_target tg;	/* --mix: what and where */
	uint32_t len;
	bool busy;
};

struct wconn {
	struct worker *w;
	struct conn *conn;
	struct wl_stream main_stream, layout_stream, verify_stream, *stream;
	struct slot *slots;
	struct slot **free_slots;
	unsigned nfree;
	unsigned inflight;
	bool finished;
	bool refill_pending;
	bool done_issuing;	/* stream spent, or the connection refused a request */
	struct op_stats stats;	/* coarse histogram, all op types */
	uint64_t last_done_ns;
	struct conn_report errs;	/* timeouts and errors by kind, outages */

	/* --on-error continue: a lost connection is re-made (see link_lost) */
	enum { LINK_UP, LINK_DOWN, LINK_REMAKING } link;
	ev_timer retry;		/* the next attempt, or the deadline of the one running */
	uint64_t backoff_ns;
	uint64_t last_ok_ns;	/* last success, or when the link came up */
	uint64_t last_reply_ns;	/* last completion that was not a timeout */
	uint64_t errors_since_ok;
	bool lose_pending;	/* no reply for --timeout: lose it outside libnfs */
	struct conn_outage *outage;	/* the one not over yet, NULL if none */
	char down_error[160];

	struct meta_tree tree;	/* --mix, --small-files */
	uint64_t pass_next, pass_total;	/* small-file test: this connection's share */

	/* --commit-every: writes completed per file since its last COMMIT */
	uint32_t *writes_since_commit;
	bool *commit_due;
	unsigned ncommits_due;

	/* open loop: the schedule of intended starts */
	unsigned heap_idx;	/* place in the worker's due heap, HEAP_NONE if not there */
	uint64_t due_base_ns, due_seq, next_due_ns;
	uint64_t rng;
};

uint8_t *run_pattern_new(uint64_t max_bs)
{
	uint8_t *p = malloc(RUN_PATTERN_PERIOD + max_bs);
	uint64_t state = UINT64_C(0x6e66736c6f6164);	/* "nfsload" */

	if (!p)
		return NULL;
	/* Byte by byte, so the data is the same on any host byte order. */
	for (size_t i = 0; i < RUN_PATTERN_PERIOD; i += 8) {
		uint64_t r = wl_rand(&state);

		for (int k = 0; k < 8; k++)
			p[i + k] = (uint8_t)(r >> (8 * k));
	}
	for (uint64_t i = 0; i < max_bs; i++)
		p[RUN_PATTERN_PERIOD + i] = p[i % RUN_PATTERN_PERIOD];
	return p;
}

const uint8_t *run_write_data(const struct run *run, uint32_t file, uint64_t offset)
{
	return run->pattern + (offset + UINT64_C(4099) * file) % RUN_PATTERN_PERIOD;
}

const char *conn_err_name(int code)
{
	const char *name;

	if (code == CONN_ERR_SHORT)
		return "short transfer";
	if (code == CONN_ERR_VERIFY)
		return "verify mismatch";
	name = strerrorname_np(code);
	return name ? name : "unknown";
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

static void conn_finish(struct wconn *wc)
{
	struct worker *w = wc->w;

	if (wc->finished)
		return;
	wc->finished = true;
	if (--w->active == 0) {
		w->last_done_ns = now_ns();
		w->cpu_ns = thread_cpu_ns() - w->cpu_start_ns;
		atomic_store(&w->phase_done, true);
		ev_async_send(w->run->main_loop, w->run->wake);
	}
}

static void count_error(struct wconn *wc, int status)
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

/* --on-error stop: the main thread ends the run. */
static void run_abort(struct worker *w)
{
	atomic_store(&w->run->abort, true);
	ev_async_send(w->run->main_loop, w->run->wake);
}

/*
 * Open loop: connections waiting for their next intended start, soonest
 * first, behind one timerfd per thread. libev's timers sleep in epoll_wait,
 * whose timeout has millisecond resolution: up to 1 ms late, which the
 * coordinated-omission correction would then charge to the server.
 */
#define HEAP_NONE UINT_MAX

static void heap_swap(struct worker *w, unsigned i, unsigned j)
{
	struct wconn *t = w->due_heap[i];

	w->due_heap[i] = w->due_heap[j];
	w->due_heap[j] = t;
	w->due_heap[i]->heap_idx = i;
	w->due_heap[j]->heap_idx = j;
}

static void heap_up(struct worker *w, unsigned i)
{
	while (i > 0 && w->due_heap[(i - 1) / 2]->next_due_ns > w->due_heap[i]->next_due_ns) {
		heap_swap(w, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_down(struct worker *w, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, m = i;

		if (l < w->nheap && w->due_heap[l]->next_due_ns < w->due_heap[m]->next_due_ns)
			m = l;
		if (l + 1 < w->nheap && w->due_heap[l + 1]->next_due_ns < w->due_heap[m]->next_due_ns)
			m = l + 1;
		if (m == i)
			return;
		heap_swap(w, i, m);
		i = m;
	}
}

static void arm_due_timer(struct worker *w)
{
	struct itimerspec its = { 0 };

	if (w->nheap) {
		uint64_t due = w->due_heap[0]->next_due_ns;

		its.it_value.tv_sec = (time_t)(due / 1000000000u);
		its.it_value.tv_nsec = (long)(due % 1000000000u);
	}
	timerfd_settime(w->due_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void wait_for_due(struct wconn *wc)
{
	struct worker *w = wc->w;

	if (wc->heap_idx != HEAP_NONE)
		return;
	wc->heap_idx = w->nheap;
	w->due_heap[w->nheap++] = wc;
	heap_up(w, wc->heap_idx);
	if (wc->heap_idx == 0)
		arm_due_timer(w);
}

static void heap_clear(struct worker *w)
{
	for (unsigned i = 0; i < w->nheap; i++)
		w->due_heap[i]->heap_idx = HEAP_NONE;
	w->nheap = 0;
	if (w->due_fd >= 0)
		arm_due_timer(w);
}

/* Open loop: the intended start after the current one. */
static void advance_due(struct wconn *wc)
{
	const struct config *cfg = wc->w->run->cfg;
	double gap = 1e9 * cfg->connections / cfg->rate;

	wc->due_seq++;
	if (cfg->arrival == CFG_ARRIVAL_POISSON) {
		double u = (double)(wl_rand(&wc->rng) >> 11) / 9007199254740992.0;

		wc->next_due_ns += (uint64_t)(-log1p(-u) * gap);
	} else {
		/* From the sequence number: no rounding drift over a long run. */
		wc->next_due_ns = wc->due_base_ns + (uint64_t)((double)wc->due_seq * gap);
	}
}

static void submit_failed(struct wconn *wc, struct slot *s, enum op_type type, uint64_t t)
{
	struct worker *w = wc->w;

	s->busy = false;
	wc->free_slots[wc->nfree++] = s;
	wc->done_issuing = true;
	wc->ncommits_due = 0;
	w->ival[type].errors++;
	if (t >= w->run->measure_start_ns) {
		w->total[type].errors++;
		wc->stats.errors++;
		count_error(wc, -ENOTCONN);
	}
}

/* The ramp is over: its interval statistics only ever fed the live line. */
static void end_ramp(struct worker *w)
{
	w->ramp_pending = false;
	op_stats_reset_all(w->ival);
}

/*
 * Keeps the connection's queue full (closed loop) or issues what is due
 * (open loop: an operation waits for a free slot past its intended start,
 * and its latency still counts from that start). t is "now".
 */
/* Takes a free slot for op, stamped start (intended) and t (issue). false: refused. */
static bool issue(struct wconn *wc, const struct wl_op *op, uint64_t start, uint64_t t)
{
	const struct run *run = wc->w->run;
	struct slot *s = wc->free_slots[--wc->nfree];
	const void *buf = NULL;

	if (op->type == OP_WRITE && run->verify) {
		verify_fill(run->verify, op->file, op->offset, s->buf, op->len);
		buf = s->buf;
	} else if (op->type == OP_WRITE) {
		buf = run_write_data(run, op->file, op->offset);
	}
	s->file = op->file;
	s->offset = op->offset;
	s->start_ns = start;
	s->issue_ns = t;
	s->type = op->type;
	s->range = op->range;
	s->len = op->len;
	s->busy = true;
	if (conn_submit(wc->conn, op, buf, &s->req) < 0) {
		submit_failed(wc, s, op->type, t);
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
		return issue(wc, &op, t, t);
	}
	return false;
}

/* --mix: one metadata operation on the connection's own tree. */
static bool issue_meta(struct wconn *wc, const struct meta_target *tg, uint64_t t)
{
	const struct config *cfg = wc->w->run->cfg;
	unsigned id = conn_id(wc->conn);
	struct slot *s = wc->free_slots[--wc->nfree];
	char path[400], path2[400], leaf[32];
	/* The small-file test's create writes the whole file in the same request. */
	bool filled = tg->op == OP_CREATE && wc->w->run->pass_op == OP_CREATE;
	bool whole = tg->op == OP_READ || tg->op == OP_WRITE || filled;

	if (tg->op == OP_MKDIR || tg->op == OP_RMDIR)
		snprintf(leaf, sizeof(leaf), "x%u", wc->tree.extra[tg->dir] - (tg->op == OP_RMDIR));
	else
		snprintf(leaf, sizeof(leaf), "f%u", tg->slot);
	conn_meta_path(cfg, id, tg->dir, tg->op == OP_READDIR ? NULL : leaf, path, sizeof(path));
	if (tg->op == OP_RENAME) {
		snprintf(leaf, sizeof(leaf), "f%u", tg->slot2);
		conn_meta_path(cfg, id, tg->dir, leaf, path2, sizeof(path2));
	}
	s->start_ns = s->issue_ns = t;
	s->type = tg->op;
	s->tg = *tg;
	/* A read takes the file as it is (a created one is empty); a write must be whole. */
	s->len = tg->op == OP_WRITE || filled ? (uint32_t)cfg->file_size : 0;
	s->busy = true;
	if (conn_submit_meta(wc->conn, tg->op, path, path2, whole ? (uint32_t)cfg->file_size : 0,
			     tg->op == OP_WRITE || filled ? wc->w->run->pattern : NULL, &s->req) < 0) {
		meta_done(&wc->tree, tg, false);
		submit_failed(wc, s, tg->op, t);
		return false;
	}
	wc->inflight++;
	return true;
}

static void refill(struct wconn *wc, uint64_t t)
{
	struct worker *w = wc->w;
	const struct run *run = w->run;
	struct wl_op op;

	if (wc->link != LINK_UP) {
		/* Being re-made: nothing to issue on it until conn_ready. */
		if (wc->inflight == 0 && w->stopping)
			conn_finish(wc);
		return;
	}
	if (w->meta && run->pass_op != OP_NTYPES) {
		unsigned dirs = run->cfg->dirs;

		/* Small-file test: every file of the connection's share once. */
		while (!w->stopping && !wc->done_issuing && wc->nfree > 0) {
			struct meta_target tg = { run->pass_op, (unsigned)(wc->pass_next % dirs),
						  (unsigned)(wc->pass_next / dirs), 0 };

			if (wc->pass_next >= wc->pass_total) {
				wc->done_issuing = true;
				break;
			}
			wc->pass_next++;
			if (!issue_meta(wc, &tg, t))
				break;
		}
		if (wc->pass_next >= wc->pass_total)
			wc->done_issuing = true;
		if (wc->inflight == 0 && (w->stopping || wc->done_issuing))
			conn_finish(wc);
		return;
	}
	if (w->meta) {
		struct meta_target tg;

		/* Everything busy: the next completion tries again. */
		while (!w->stopping && !wc->done_issuing && wc->nfree > 0 &&
		       meta_next(&wc->tree, &run->cfg->mix, &tg) && issue_meta(wc, &tg, t))
			;
		if (wc->inflight == 0 && (w->stopping || wc->done_issuing))
			conn_finish(wc);
		return;
	}
	while (!w->stopping && wc->nfree > 0 &&
	       (run->phase == PHASE_MAIN || wc->inflight < run->layout_depth)) {
		uint64_t start = t;

		if (wc->ncommits_due) {
			if (!issue_commit(wc, t))
				break;
			continue;
		}
		if (wc->done_issuing)
			break;
		if (w->open_loop) {
			if (wc->next_due_ns > t) {
				wait_for_due(wc);
				break;
			}
			start = wc->next_due_ns;
		}
		if (!wl_next(wc->stream, &op)) {
			wc->done_issuing = true;
			break;
		}
		if (w->open_loop) {
			advance_due(wc);
			if (start >= run->measure_start_ns && t - start > w->max_lag_ns)
				w->max_lag_ns = t - start;
		}
		if (!issue(wc, &op, start, t))
			break;
	}
	if (wc->inflight == 0 && (w->stopping || (wc->done_issuing && !wc->ncommits_due)))
		conn_finish(wc);
}

static void due_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	struct worker *w = io->data;
	uint64_t expirations, t = now_ns();

	(void)loop;
	(void)revents;
	if (read(w->due_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		return;
	while (w->nheap && w->due_heap[0]->next_due_ns <= t) {
		struct wconn *wc = w->due_heap[0];

		heap_swap(w, 0, --w->nheap);
		wc->heap_idx = HEAP_NONE;
		heap_down(w, 0);
		refill(wc, t);
		conn_flush(wc->conn);
	}
	arm_due_timer(w);
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
		uint32_t want = verify_map_test(run->written, s->file, s->offset + o) ?
			run->verify->generation : 0;

		v->blocks++;
		if (!verify_check(run->verify, s->file, s->offset + o, data + o, bs, want, &m))
			continue;
		bad++;
		v->bad++;
		v->by_kind[m.kind]++;
		if (v->nkept < WORKER_MISMATCHES_KEPT)
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

static void op_done(void *owner, struct conn_req *req, int status)
{
	struct slot *s = (struct slot *)req;
	struct wconn *wc = owner;
	struct worker *w = wc->w;
	uint64_t t = now_ns(), lat = t - s->start_ns, unc = t - s->issue_ns;

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
		verify_map_set(w->run->written, s->file, s->offset, s->len);
	if (w->meta)
		meta_done(&wc->tree, &s->tg, status >= 0);
	wc->inflight--;
	if (status >= 0) {
		wc->last_ok_ns = wc->last_reply_ns = t;
		if (wc->outage) {
			/* The first success after an outage closes it. */
			wc->outage->stall_ns = t - (uint64_t)wc->outage->start_ns;
			wc->outage->failed_ops = wc->errors_since_ok;
			wc->outage = NULL;
		}
		wc->errors_since_ok = 0;
	} else {
		wc->errors_since_ok++;
		if (status != -ETIMEDOUT)
			wc->last_reply_ns = t;	/* the server answered, if with an error */
		else if (t - wc->last_reply_ns >= w->run->cfg->timeout_ns)
			wc->lose_pending = true;	/* nothing at all for --timeout */
	}
	wc->free_slots[wc->nfree++] = s;
	if (w->ramp_pending && t >= w->run->measure_start_ns)
		end_ramp(w);
	/*
	 * Once measuring, intervals hold what the totals hold, no ramp leftovers.
	 * A --mix run also counts what completes after the stop: its counts
	 * must say what the tree on the server holds.
	 */
	if (!w->stopping &&
	    (s->start_ns >= w->run->measure_start_ns || t < w->run->measure_start_ns))
		op_stats_record(&w->ival[s->type], status, lat, unc);
	if (!w->stopping || w->meta) {
		if (s->start_ns >= w->run->measure_start_ns) {
			op_stats_record(&w->total[s->type], status, lat, unc);
			op_stats_record(&wc->stats, status, lat, unc);
			if (status < 0)
				count_error(wc, status);
			else
				wc->last_done_ns = t;
		}
	}
	if (status >= 0) {
		if (s->type == OP_WRITE && w->commit_every &&
		    ++wc->writes_since_commit[s->range] >= w->commit_every) {
			wc->writes_since_commit[s->range] = 0;
			if (!wc->commit_due[s->range]) {
				wc->commit_due[s->range] = true;
				wc->ncommits_due++;
			}
		}
		refill(wc, t);
		return;
	}
	/*
	 * libnfs fails every queued request when the connection dies and must
	 * not get new ones from inside those callbacks: refill after the loop
	 * iteration, when the connection's fate is known.
	 */
	if (!wc->refill_pending) {
		wc->refill_pending = true;
		wc->w->deferred[wc->w->ndeferred++] = wc;
		ev_check_start(wc->w->loop, &wc->w->deferred_check);
	}
}

static void link_lost(struct wconn *wc);

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
			link_lost(wc);
			continue;
		}
		refill(wc, t);
		conn_flush(wc->conn);
	}
	w->ndeferred = 0;
}

/* Requests in flight will never complete: count them and free the slots. */
static void fail_inflight(struct wconn *wc)
{
	struct worker *w = wc->w;

	for (unsigned k = 0; k < w->run->cfg->iodepth; k++) {
		struct slot *s = &wc->slots[k];

		if (!s->busy)
			continue;
		s->busy = false;
		if (w->meta)
			meta_done(&wc->tree, &s->tg, false);
		w->ival[s->type].errors++;
		wc->errors_since_ok++;
		if (!w->stopping && s->start_ns >= w->run->measure_start_ns) {
			w->total[s->type].errors++;
			wc->stats.errors++;
			count_error(wc, -ECONNABORTED);
		}
		wc->free_slots[wc->nfree++] = s;
	}
	wc->inflight = 0;
	if (wc->heap_idx != HEAP_NONE) {
		unsigned i = wc->heap_idx;

		heap_swap(w, i, --w->nheap);
		wc->heap_idx = HEAP_NONE;
		if (i < w->nheap) {
			heap_up(w, i);
			heap_down(w, w->due_heap[i]->heap_idx);
		}
		arm_due_timer(w);
	}
}

/* Records the start of an outage noticed at t (one not over yet is kept). */
static void open_outage(struct wconn *wc, uint64_t t)
{
	struct conn_report *e = &wc->errs;
	struct conn_outage *o;

	if (wc->outage)
		return;
	/* Past the table, the last entry is reused: counts stay right. */
	o = &e->outages[e->noutages < CONN_OUTAGES_MAX ? e->noutages : CONN_OUTAGES_MAX - 1];
	e->noutages++;
	*o = (struct conn_outage){ .start_ns = (int64_t)wc->last_ok_ns, .detected_ns = (int64_t)t };
	wc->outage = o;
}

/* Whether a connection that cannot be re-made should give up by now. */
static bool give_up(const struct wconn *wc, uint64_t t)
{
	const struct run *run = wc->w->run;

	/* A time-based run tries until its end; a size-based phase has no end to wait for. */
	if (run->cfg->runtime_ns && run->phase == PHASE_MAIN)
		return false;
	return wc->outage && t - (uint64_t)wc->outage->detected_ns > 12 * run->cfg->timeout_ns;
}

static void retry_later(struct wconn *wc)
{
	uint64_t t = now_ns();

	if (give_up(wc, t)) {
		snprintf(wc->down_error, sizeof(wc->down_error), "gave up reconnecting after %.0f s%s%s",
			 (double)(t - (uint64_t)wc->outage->detected_ns) / 1e9,
			 conn_error(wc->conn)[0] ? ": " : "", conn_error(wc->conn));
		wc->done_issuing = true;
		conn_finish(wc);
		return;
	}
	/* 0.1 s, doubling up to 1 s: a restarted server is found within a second. */
	wc->backoff_ns = wc->backoff_ns ? wc->backoff_ns * 2 : UINT64_C(100000000);
	if (wc->backoff_ns > UINT64_C(1000000000))
		wc->backoff_ns = UINT64_C(1000000000);
	ev_timer_set(&wc->retry, (double)wc->backoff_ns / 1e9, 0.);
	ev_timer_start(wc->w->loop, &wc->retry);
}

/*
 * The connection is gone (socket error, or no reply for --timeout). With
 * --on-error stop the run ends; with continue an outage opens and the
 * connection is re-made in the background, I/O resuming once it is ready.
 */
static void link_lost(struct wconn *wc)
{
	struct worker *w = wc->w;
	uint64_t t = now_ns();

	conn_abandon(wc->conn);	/* no callback from it from here on */
	fail_inflight(wc);
	wc->link = LINK_DOWN;
	wc->lose_pending = false;
	if (w->stopping) {
		/* Lost while draining, after the measured window: not an outage of the run. */
		conn_finish(wc);
		return;
	}
	open_outage(wc, t);
	if (w->run->cfg->on_error == CFG_ON_ERROR_STOP) {
		wc->done_issuing = true;
		run_abort(w);
	}
	if (w->run->cfg->on_error == CFG_ON_ERROR_STOP || w->stopping) {
		conn_finish(wc);
		return;
	}
	wc->backoff_ns = 0;
	ev_timer_set(&wc->retry, 0., 0.);
	ev_timer_start(w->loop, &wc->retry);
}

static void conn_lost(void *owner, struct conn *c)
{
	(void)c;
	link_lost(owner);
}

/* Time for an attempt, or the one running took longer than --timeout. */
static void retry_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct wconn *wc = t->data;
	double timeout = (double)wc->w->run->cfg->timeout_ns / 1e9;

	(void)revents;
	if (wc->w->stopping || wc->finished)
		return;
	if (wc->link == LINK_REMAKING) {
		conn_abandon(wc->conn);
		wc->link = LINK_DOWN;
		snprintf(wc->down_error, sizeof(wc->down_error),
			 "reconnect: not ready after %.0f s", timeout);
		retry_later(wc);
		return;
	}
	wc->outage->attempts++;
	wc->down_error[0] = '\0';
	if (conn_reconnect(wc->conn) < 0) {
		retry_later(wc);
		return;
	}
	wc->link = LINK_REMAKING;
	ev_timer_set(t, timeout, 0.);
	ev_timer_start(loop, t);
}

static void conn_ready(void *owner, struct conn *c, bool ok)
{
	struct wconn *wc = owner;
	struct worker *w = wc->w;
	uint64_t t = now_ns();

	ev_timer_stop(w->loop, &wc->retry);
	if (!ok) {
		wc->link = LINK_DOWN;
		snprintf(wc->down_error, sizeof(wc->down_error), "reconnect failed: %s",
			 conn_error(c));
		retry_later(wc);
		return;
	}
	wc->link = LINK_UP;
	wc->errs.reconnects++;
	wc->outage->reconnect_ns = t - (uint64_t)wc->outage->detected_ns;
	wc->outage->recovered = true;
	wc->last_reply_ns = t;
	if (!w->stopping && !wc->finished)
		refill(wc, t);
}

/* Spreads the connections' first intended starts evenly over one gap. */
static void start_schedule(struct wconn *wc, uint64_t t)
{
	const struct config *cfg = wc->w->run->cfg;
	unsigned id = conn_id(wc->conn);

	wc->rng = cfg->seed ^ (UINT64_C(0x2545f4914f6cdd1d) * (id + 1));
	wc->due_seq = 0;
	wc->due_base_ns = t + (uint64_t)(1e9 * id / cfg->rate);
	wc->next_due_ns = wc->due_base_ns;
	if (cfg->arrival == CFG_ARRIVAL_POISSON) {
		wc->due_base_ns = t;
		wc->next_due_ns = t;
		advance_due(wc);
	}
}

static void start_phase(struct worker *w)
{
	enum worker_phase phase = w->run->phase;
	uint64_t t = now_ns();

	w->stopping = false;
	w->open_loop = phase == PHASE_MAIN && w->run->cfg->rate > 0;
	w->commit_every = phase == PHASE_MAIN ? w->run->cfg->commit_every : 0;
	w->meta = phase == PHASE_MAIN && (w->run->cfg->meta || w->run->cfg->small_files);
	/* Reads are checked where no write of this run can race them. */
	w->checking = w->run->verify && (phase == PHASE_VERIFY || (phase == PHASE_MAIN &&
			wl_mode_read_pct(w->run->cfg->rw, w->run->cfg->rwmixread) == 100));
	w->ramp_pending = w->run->measure_start_ns > t;
	w->max_lag_ns = 0;
	w->active = w->nconns;
	w->phase_start_ns = t;
	w->last_done_ns = t;
	w->cpu_start_ns = thread_cpu_ns();
	op_stats_reset_all(w->total);
	op_stats_reset_all(w->ival);
	pthread_mutex_lock(&w->snap_mu);
	op_stats_reset_all(w->snap);
	pthread_mutex_unlock(&w->snap_mu);
	for (unsigned i = 0; i < w->nconns; i++) {
		struct wconn *wc = &w->conns[i];

		op_stats_reset(&wc->stats);
		/* Per phase, but outages and reconnects are the run's. */
		wc->errs.timeouts = wc->errs.err_other = 0;
		memset(wc->errs.err_kinds, 0, sizeof(wc->errs.err_kinds));
		wc->last_ok_ns = wc->last_reply_ns = t;
		wc->last_done_ns = 0;
		wc->finished = false;
		wc->done_issuing = false;
		wc->ncommits_due = 0;
		wc->pass_next = 0;
		memset(wc->writes_since_commit, 0,
		       wc->main_stream.nranges * sizeof(*wc->writes_since_commit));
		memset(wc->commit_due, 0, wc->main_stream.nranges * sizeof(*wc->commit_due));
		wc->stream = phase == PHASE_LAYOUT ? &wc->layout_stream :
			     phase == PHASE_VERIFY ? &wc->verify_stream : &wc->main_stream;
		if (w->open_loop)
			start_schedule(wc, t);
		if (wc->link == LINK_REMAKING)
			continue;	/* conn_ready starts it */
		if (wc->link == LINK_DOWN && w->run->cfg->on_error == CFG_ON_ERROR_CONTINUE) {
			open_outage(wc, t);	/* lost while the last phase drained */
			ev_timer_set(&wc->retry, 0., 0.);
			ev_timer_start(w->loop, &wc->retry);
			continue;
		}
		if (conn_failed(wc->conn)) {
			conn_finish(wc);
			continue;
		}
		/* Stamped per connection: the first requests leave one socket at a time. */
		refill(wc, now_ns());
		conn_flush(wc->conn);
	}
}

/* Hands the interval over at the main thread's tick, so all threads cut together. */
static void swap_interval(struct worker *w)
{
	if (w->ramp_pending && now_ns() >= w->run->measure_start_ns)
		end_ramp(w);
	pthread_mutex_lock(&w->snap_mu);
	op_stats_add_all(w->snap, w->ival);
	pthread_mutex_unlock(&w->snap_mu);
	op_stats_reset_all(w->ival);
	atomic_store(&w->swap_ack, atomic_load(&w->swap_req));
	ev_async_send(w->run->main_loop, w->run->wake);
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
	if (cmds & WORKER_CMD_STOP) {
		w->stopping = true;
		w->stop_ns = now_ns();
		heap_clear(w);
		for (unsigned i = 0; i < w->nconns; i++) {
			struct wconn *wc = &w->conns[i];

			/* No reconnect goes on in the background once the phase is over. */
			ev_timer_stop(loop, &wc->retry);
			if (wc->link == LINK_REMAKING) {
				conn_abandon(wc->conn);
				wc->link = LINK_DOWN;
				snprintf(wc->down_error, sizeof(wc->down_error),
					 "still reconnecting when the run ended");
			}
			if (wc->inflight == 0)
				conn_finish(wc);
		}
	}
	if (cmds & WORKER_CMD_EXIT)
		ev_break(loop, EVBREAK_ALL);
}

static void tick_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct worker *w = t->data;

	(void)loop;
	(void)revents;
	for (unsigned i = 0; i < w->nconns; i++)
		conn_tick(w->conns[i].conn);
}

void worker_take_interval(struct worker *w, struct op_stats *out)
{
	pthread_mutex_lock(&w->snap_mu);
	op_stats_add_all(out, w->snap);
	op_stats_reset_all(w->snap);
	pthread_mutex_unlock(&w->snap_mu);
}

static int wconn_init(struct worker *w, struct wconn *wc, unsigned id)
{
	const struct config *cfg = w->run->cfg;
	unsigned read_pct = wl_mode_read_pct(cfg->rw, cfg->rwmixread);
	uint32_t *ids;
	int rc;

	wc->w = w;
	rc = wl_stream_init(&wc->main_stream, id, cfg->connections, cfg->nrfiles, cfg->size,
			    cfg->bs, wl_mode_random(cfg->rw), read_pct, cfg->seed);
	if (rc)
		return rc;
	/* Layout: the same files, written once, sequentially, skipping full files. */
	rc = wl_stream_init(&wc->layout_stream, id, cfg->connections, cfg->nrfiles, cfg->size,
			    w->run->layout_bs, false, 0, cfg->seed);
	if (rc)
		return rc;
	for (uint32_t r = 0; r < wc->layout_stream.nranges; r++) {
		struct wl_range *range = &wc->layout_stream.ranges[r];

		/* A connection without a slice of its own would write the file again. */
		if (w->run->files->size[range->file] >= cfg->size || !wc->layout_stream.own_slice)
			range->end = range->start;
	}
	wc->layout_stream.pos = wc->layout_stream.ranges ? wc->layout_stream.ranges[0].start : 0;
	wc->layout_stream.budget = wl_stream_pass_bytes(&wc->layout_stream);
	if (w->run->verify) {
		/* The verify pass: every file once, sequential reads, slices as for the layout. */
		rc = wl_stream_init(&wc->verify_stream, id, cfg->connections, cfg->nrfiles, cfg->size,
				    w->run->verify_bs, false, 100, cfg->seed);
		if (rc)
			return rc;
		wc->verify_stream.budget = wc->verify_stream.own_slice ?
			wl_stream_pass_bytes(&wc->verify_stream) : 0;
	}
	if (cfg->one_pass) {
		/* Each file once: every connection covers its own files or slice. */
		wc->main_stream.budget = wc->main_stream.own_slice ?
			wl_stream_pass_bytes(&wc->main_stream) : 0;
	} else if (cfg->io_size) {
		uint64_t share = cfg->io_size / cfg->connections;

		wc->main_stream.budget = share + (id < cfg->io_size % cfg->connections ? 1 : 0);
	}

	wc->slots = calloc(cfg->iodepth, sizeof(*wc->slots));
	wc->free_slots = calloc(cfg->iodepth, sizeof(*wc->free_slots));
	wc->writes_since_commit = calloc(wc->main_stream.nranges + 1, sizeof(uint32_t));
	wc->commit_due = calloc(wc->main_stream.nranges + 1, sizeof(bool));
	ids = calloc(wc->main_stream.nranges + 1, sizeof(*ids));
	if (!wc->slots || !wc->free_slots || !ids || !wc->writes_since_commit || !wc->commit_due) {
		free(ids);
		return -ENOMEM;
	}
	for (unsigned k = 0; k < cfg->iodepth; k++) {
		wc->free_slots[k] = &wc->slots[k];
		if (w->run->verify) {
			uint64_t len = cfg->bs > w->run->layout_bs ? cfg->bs : w->run->layout_bs;

			wc->slots[k].buf = malloc(len);
			if (!wc->slots[k].buf)
				return -ENOMEM;
		}
	}
	wc->nfree = cfg->iodepth;
	wc->heap_idx = HEAP_NONE;
	if (cfg->small_files) {
		unsigned n = cfg->small_files;

		wc->pass_total = n / cfg->connections + (id < n % cfg->connections);
	}
	if ((cfg->meta || cfg->small_files) && meta_tree_init(&wc->tree, cfg->dirs, cfg->files_per_dir,
					cfg->seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (id + 1))))
		return -ENOMEM;
	for (uint32_t r = 0; r < wc->main_stream.nranges; r++)
		ids[r] = wc->main_stream.ranges[r].file;
	rc = conn_new(cfg, id, ids, wc->main_stream.nranges, &wc->conn);
	free(ids);
	if (rc)
		return rc;
	return op_stats_init(&wc->stats, HIST_COARSE_BITS, false);
}

int worker_init(struct worker *w, unsigned id, struct run *run, unsigned first_id,
		unsigned nconns)
{
	memset(w, 0, sizeof(*w));
	w->id = id;
	w->run = run;
	w->nconns = nconns;
	pthread_mutex_init(&w->snap_mu, NULL);
	w->due_fd = -1;
	w->conns = calloc(nconns, sizeof(*w->conns));
	w->deferred = calloc(nconns, sizeof(*w->deferred));
	w->due_heap = calloc(nconns, sizeof(*w->due_heap));
	if (!w->conns || !w->deferred || !w->due_heap)
		return -ENOMEM;
	if (run->cfg->rate > 0) {
		w->due_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (w->due_fd < 0)
			return -errno;
	}
	if (op_stats_init_all(w->total, HIST_PRECISE_BITS, run->cfg->rate > 0) ||
	    op_stats_init_all(w->ival, HIST_PRECISE_BITS, false) ||
	    op_stats_init_all(w->snap, HIST_PRECISE_BITS, false))
		return -ENOMEM;
	for (unsigned i = 0; i < nconns; i++) {
		int rc = wconn_init(w, &w->conns[i], first_id + i);

		if (rc)
			return rc;
	}
	return 0;
}

struct conn *worker_conn(struct worker *w, unsigned i)
{
	return w->conns[i].conn;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	/* Default timer slack (50 us) would blur an open-loop schedule. */
	if (w->due_fd >= 0)
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
	ev_async_init(&w->cmd_async, cmd_cb);
	w->cmd_async.data = w;
	ev_async_start(w->loop, &w->cmd_async);
	if (w->due_fd >= 0) {
		ev_io_init(&w->due_io, due_cb, w->due_fd, EV_READ);
		w->due_io.data = w;
		ev_io_start(w->loop, &w->due_io);
	}
	ev_check_init(&w->deferred_check, deferred_cb);
	w->deferred_check.data = w;
	ev_timer_init(&w->tick, tick_cb, 1., 1.);
	w->tick.data = w;
	ev_timer_start(w->loop, &w->tick);
	for (unsigned i = 0; i < w->nconns; i++) {
		ev_init(&w->conns[i].retry, retry_cb);
		w->conns[i].retry.data = &w->conns[i];
		conn_attach(w->conns[i].conn, w->loop, &w->conns[i], op_done, conn_lost, conn_ready);
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

void worker_join(struct worker *w)
{
	if (!w->started)
		return;
	worker_command(w, WORKER_CMD_EXIT);
	pthread_join(w->thread, NULL);
	w->started = false;
}

void worker_conn_report(const struct worker *w, unsigned i, struct conn_report *r)
{
	const struct wconn *wc = &w->conns[i];

	r->id = conn_id(wc->conn);
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
	if (w->open_loop && !wc->done_issuing && w->stop_ns > wc->next_due_ns) {
		const struct config *cfg = w->run->cfg;

		r->backlog_ops = (uint64_t)((double)(w->stop_ns - wc->next_due_ns) * cfg->rate /
					    cfg->connections / 1e9) + 1;
	}
	r->outlier = r->stuck = false;
	r->error = wc->down_error[0] ? wc->down_error : conn_error(wc->conn);
	if (r->down && !r->error[0])
		r->error = "still reconnecting at the end";
}

void worker_destroy(struct worker *w, bool close_files)
{
	if (w->started)
		pthread_join(w->thread, NULL);
	for (unsigned i = 0; w->conns && i < w->nconns; i++) {
		struct wconn *wc = &w->conns[i];

		if (wc->conn)
			conn_detach(wc->conn);
		/* Not under requests in flight: libnfs 4.0 would free their handles. */
		if (close_files && wc->conn && wc->inflight == 0)
			conn_close_files(wc->conn);
		conn_free(wc->conn);
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
		meta_tree_destroy(&wc->tree);
	}
	free(w->conns);
	free(w->deferred);
	free(w->due_heap);
	if (w->due_fd >= 0)
		close(w->due_fd);
	op_stats_destroy_all(w->total);
	op_stats_destroy_all(w->ival);
	op_stats_destroy_all(w->snap);
	if (w->loop)
		ev_loop_destroy(w->loop);
	pthread_mutex_destroy(&w->snap_mu);
}
