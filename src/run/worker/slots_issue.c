/*
 * slots_issue: what a connection sends next. Closed loop: every free slot
 * gets a request; open loop (--rate): what the schedule says is due. First
 * a COMMIT that --commit-every made due, then a layout write lost with its
 * link (slots_fail.c), then the stream's next operation; --mix and the
 * small-file passes draw theirs in slots_mix.c. The connection's phase ends
 * here once nothing is left to send or to wait for.
 */
#include <errno.h>
#include <stdlib.h>

#include "pattern.h"
#include "worker_int.h"

/* Takes a free slot for op, stamped start (intended) and t (issue). false: refused. */
static bool issue(struct wconn *wc, const struct wl_op *op, uint8_t tries, uint64_t start,
		  uint64_t t)
{
	const struct run *run = wc->w->run;
	struct slot *s = wc->free_slots[--wc->nfree];
	const void *buf = NULL;
	bool no_buf = false;

	/*
	 * Every write is made in the slot's own buffer: its 4 KiB blocks stamped with
	 * file and offset (pattern_fill, also with --dedupe-percentage 0), so a block
	 * that lands at the wrong place differs from what belongs there. The shared
	 * pattern repeats every 64 KiB: sent as it is, a block written 64 KiB off would
	 * match. A read-only run never needs the buffer: it is made at the first write.
	 */
	if (op->type == OP_WRITE && !s->buf) {
		const struct config *cfg = run->cfg;

		s->buf = malloc(cfg->bs > run->layout_bs ? cfg->bs : run->layout_bs);
		no_buf = !s->buf;
	}
	if (no_buf) {
		/* refused below, as the engine refuses what it cannot take */
	} else if (op->type == OP_WRITE && run->verify) {
		verify_fill(run->verify, op->file, op->offset, s->buf, op->len);
		s->buf_key = 0;
		buf = s->buf;
	} else if (op->type == OP_WRITE) {
		/*
		 * A slot's writes mostly repeat the bytes of its last one (with blocks of
		 * 64 KiB or more, every write to a file): then only the stamps change,
		 * and copying 1 MiB per write would cost more CPU than sending it.
		 */
		uint64_t key = run->dedupe_pct ? 0 : pattern_key(op->file, op->offset);

		if (key && key == s->buf_key && op->len <= s->buf_len) {
			pattern_restamp(op->file, op->offset, s->buf, op->len);
		} else {
			pattern_fill(run->pattern, run->dedupe_pct, op->file, op->offset, s->buf,
				     op->len);
			s->buf_key = key;
			s->buf_len = op->len;
		}
		buf = s->buf;
	}
	s->file = op->file;
	s->offset = op->offset;
	s->start_ns = start;
	s->issue_ns = t;
	s->type = op->type;
	/* --read-plus: the measured reads as READ_PLUS (the verify pass's stay READs). */
	if (op->type == OP_READ && run->cfg->read_plus && run->phase == PHASE_MAIN)
		s->type = OP_READ_PLUS;
	s->range = op->range;
	s->len = op->len;
	s->tries = tries;
	s->busy = true;
	s->req = (struct engine_req){ .op = s->type, .file = op->range, .offset = op->offset,
				      .len = op->len, .buf = buf };
	if (no_buf) {
		slots_refused(wc, s, -ENOMEM, t);
		return false;
	}
	return slots_queue(wc, s, t);
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

/* --sparse: the layout writes every 4th block of --bs (its blocks then are --bs). */
static bool sparse_skip(const struct run *run, const struct wl_op *op)
{
	return run->phase == PHASE_LAYOUT && run->cfg->sparse && (op->offset / run->cfg->bs) % 4;
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
	struct wl_op op;

	if (wc->link != LINK_UP) {
		/* Being re-made: nothing to issue on it until it is ready. */
		if (wc->inflight == 0 && w->stopping)
			wconn_finish(wc);
		return;
	}
	if (wc->rp && run->phase == PHASE_MAIN) {
		slots_refill_replay(wc, t);
	} else if (w->meta) {
		slots_refill_meta(wc, t);
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
			if (sparse_skip(run, &op))
				continue;
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
