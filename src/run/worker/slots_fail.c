/*
 * slots_fail: what a connection's failed requests leave behind. Errors
 * counted by kind, a request the engine refused, the requests in flight
 * when the link went down, and the layout writes lost with it, queued to be
 * sent again (slots_issue.c sends them before anything new).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ops.h"
#include "run/status.h"
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

/* Statuses that say a request went down with its link, not what the server made of it. */
bool slots_lost_with_link(int status)
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

void slots_redo_later(struct wconn *wc, const struct slot *s)
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

int slots_file_refused(struct wconn *wc, const struct slot *s, int status)
{
	struct run *run = wc->w->run;
	int code = status == -ENOSYS ? CONN_ERR_OP_ILLEGAL : CONN_ERR_NOTSUPP;

	if (run->cfg->on_error == CFG_ON_ERROR_STOP && !wc->w->stopping) {
		unsigned none = 0;

		/* Nothing more from this connection: the run is ending. */
		wc->done_issuing = true;
		if (atomic_compare_exchange_strong(&run->refusal, &none,
						   run_refusal_code(s->type, code)))
			ev_async_send(run->main_loop, run->wake);
	}
	return -code;
}

/*
 * The engine refused a request (rc): it counts as an error of its kind, and
 * the connection issues nothing more this phase, its reason in the report.
 */
void slots_refused(struct wconn *wc, struct slot *s, int rc, uint64_t t)
{
	struct worker *w = wc->w;
	const char *why = w->engine->error(wc->conn);
	bool said = false;

	/* An NFSv4.2 op the engine knows the server lacks: as the server's own answer
	 * (under --on-error stop its line says it all: the connection did not fail). */
	if (op_info(s->type)->cls == OPC_FILE && (rc == -EOPNOTSUPP || rc == -ENOSYS)) {
		rc = slots_file_refused(wc, s, rc);
		said = w->run->cfg->on_error == CFG_ON_ERROR_STOP;
	}
	s->busy = false;
	wc->free_slots[wc->nfree++] = s;
	wc->done_issuing = true;
	wc->ncommits_due = 0;
	wc->nredo = 0;
	w->ival[s->type].errors++;
	if (!wc->down_error[0] && !said)
		snprintf(wc->down_error, sizeof(wc->down_error), "%s", why && *why ? why :
			 -rc >= CONN_ERR_SHORT ? conn_err_name(-rc) : strerror(-rc));
	if (t >= w->run->measure_start_ns) {
		w->total[s->type].errors++;
		wc->stats.errors++;
		slots_count_error(wc, rc);
		if (w->logging) {
			struct slot at = *s;

			at.start_ns = t;	/* never issued: no latency */
			slots_log(wc, &at, rc, t);
		}
	}
}

void slots_fail_inflight(struct wconn *wc)
{
	struct worker *w = wc->w;
	uint64_t t = w->logging ? now_ns() : 0;

	for (unsigned k = 0; k < w->run->cfg->iodepth; k++) {
		struct slot *s = &wc->slots[k];

		if (!s->busy)
			continue;
		s->busy = false;
		slots_redo_later(wc, s);
		if (w->meta)
			meta_done(&wc->tree, &s->tg, false);
		w->ival[s->type].errors++;
		wc->errors_since_ok++;
		/*
		 * Lost with its link while draining (the server closed it, or the engine
		 * gave up on it): it was in flight at the stop and got no reply either, so
		 * it counts with the drain's timeouts (slots_done.c), once: its slot is
		 * freed here and the engine was dropped before.
		 */
		if (w->stopping)
			wc->errs.unanswered_at_stop++;
		if (!w->stopping && s->start_ns >= w->run->measure_start_ns) {
			w->total[s->type].errors++;
			wc->stats.errors++;
			slots_count_error(wc, -ECONNABORTED);
			if (w->logging)
				slots_log(wc, s, -ECONNABORTED, t);
		}
		wc->free_slots[wc->nfree++] = s;
	}
	wc->inflight = 0;
	if (w->open_loop)
		schedule_cancel(&w->sched, wc->idx);
}

bool slots_queue(struct wconn *wc, struct slot *s, uint64_t t)
{
	int rc = wc->w->engine->queue(wc->conn, &s->req);

	if (rc < 0) {
		slots_refused(wc, s, rc, t);
		return false;
	}
	wc->inflight++;
	return true;
}
