/*
 * outage: a connection lost and, with --on-error continue, made again.
 *
 * A connection is lost when its engine says so (a socket error) or when it
 * had no reply at all for --timeout (slots_done.c notices). Its requests in
 * flight then fail as ECONNABORTED, an outage record opens, and the engine
 * connection is dropped and connected again in the background on the
 * worker's loop: at once, then after 0.1 s doubling up to 1 s, each attempt
 * abandoned after --timeout. A time-based run keeps trying to its end; a
 * size-based phase gives up after 12 x --timeout without a success, whether
 * the attempts fail or the link, made again, is lost again before anything
 * succeeded on it (then the next attempt waits as after a failed one: the
 * layout's lost writes are sent again on it, see slots_fail.c). The first success
 * after the loss closes the record. The other connections never wait.
 */
#include <stdio.h>
#include <string.h>

#include "worker_int.h"

/* --on-error stop: the main thread ends the run. */
static void worker_abort_run(struct worker *w)
{
	atomic_store(&w->run->abort, true);
	ev_async_send(w->run->main_loop, w->run->wake);
}

void outage_open(struct wconn *wc, uint64_t t)
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

void outage_close(struct wconn *wc, uint64_t t)
{
	if (!wc->outage)
		return;
	wc->outage->stall_ns = t - (uint64_t)wc->outage->start_ns;
	wc->outage->failed_ops = wc->errors_since_ok;
	wc->outage = NULL;
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

/* Ends the connection's phase if it should give up by now; true if it did. */
static bool gave_up(struct wconn *wc, uint64_t t)
{
	const char *why = wc->w->engine->error(wc->conn);

	if (!give_up(wc, t))
		return false;
	snprintf(wc->down_error, sizeof(wc->down_error), "gave up reconnecting after %.0f s%s%s",
		 (double)(t - (uint64_t)wc->outage->detected_ns) / 1e9, why[0] ? ": " : "", why);
	wc->done_issuing = true;
	wconn_finish(wc);
	return true;
}

static void retry_later(struct wconn *wc)
{
	if (gave_up(wc, now_ns()))
		return;
	/* 0.1 s, doubling up to 1 s: a restarted server is found within a second. */
	wc->backoff_ns = wc->backoff_ns ? wc->backoff_ns * 2 : UINT64_C(100000000);
	if (wc->backoff_ns > UINT64_C(1000000000))
		wc->backoff_ns = UINT64_C(1000000000);
	ev_timer_set(&wc->retry, (double)wc->backoff_ns / 1e9, 0.);
	ev_timer_start(wc->w->loop, &wc->retry);
}

void outage_link_lost(struct wconn *wc)
{
	struct worker *w = wc->w;
	uint64_t t = now_ns();
	bool again = wc->outage != NULL;	/* made again, lost again, nothing done between */

	w->engine->drop(wc->conn);	/* no callback from it from here on */
	slots_fail_inflight(wc);
	wc->link = LINK_DOWN;
	wc->lose_pending = false;
	if (w->stopping) {
		/* Lost while draining, after the measured window: not an outage of the run. */
		wconn_finish(wc);
		return;
	}
	outage_open(wc, t);
	if (w->run->cfg->on_error == CFG_ON_ERROR_STOP) {
		wc->done_issuing = true;
		worker_abort_run(w);
		wconn_finish(wc);
		return;
	}
	/* Backs off and gives up in time: writes sent again after each loss would never end. */
	if (again) {
		retry_later(wc);
		return;
	}
	wc->backoff_ns = 0;
	ev_timer_set(&wc->retry, 0., 0.);
	ev_timer_start(w->loop, &wc->retry);
}

void outage_lost_cb(void *owner, struct engine_conn *c)
{
	(void)c;
	outage_link_lost(owner);
}

void outage_retry_now(struct wconn *wc, uint64_t t)
{
	outage_open(wc, t);
	ev_timer_set(&wc->retry, 0., 0.);
	ev_timer_start(wc->w->loop, &wc->retry);
}

void outage_stop(struct wconn *wc)
{
	struct worker *w = wc->w;

	ev_timer_stop(w->loop, &wc->retry);
	if (wc->link == LINK_REMAKING) {
		w->engine->drop(wc->conn);
		wc->link = LINK_DOWN;
		snprintf(wc->down_error, sizeof(wc->down_error),
			 "still reconnecting when the run ended");
	}
}

/*
 * Time for an attempt, or the one running is not ready after ATTEMPT_TIMEOUTS x
 * --timeout. Each call of a set-up has --timeout of its own in the engine (one with
 * no answer fails the attempt at once); a set-up of many steps (an NFSv4.1 session of
 * 16 connections: a client, a session, the export, 16 OPENs) on a loaded host may take
 * longer than one --timeout in all while every call is answered: cut at one, it never
 * finished (16 of 16 down at load average 11).
 */
#define ATTEMPT_TIMEOUTS 4
void outage_retry_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct wconn *wc = t->data;
	struct worker *w = wc->w;
	double timeout = ATTEMPT_TIMEOUTS * (double)w->run->cfg->timeout_ns / 1e9;

	(void)revents;
	if (w->stopping || wc->finished)
		return;
	if (wc->link == LINK_REMAKING) {
		w->engine->drop(wc->conn);
		wc->link = LINK_DOWN;
		snprintf(wc->down_error, sizeof(wc->down_error),
			 "reconnect: not ready after %.0f s", timeout);
		retry_later(wc);
		return;
	}
	wc->outage->attempts++;
	wc->down_error[0] = '\0';
	/* Set first: an engine may say it is ready before connect() returns. */
	wc->link = LINK_REMAKING;
	ev_timer_set(t, timeout, 0.);
	ev_timer_start(loop, t);
	if (w->engine->connect(wc->conn, w->eng, w->cbs, wc) < 0) {
		ev_timer_stop(loop, t);
		wc->link = LINK_DOWN;
		retry_later(wc);
	}
}

void outage_ready_cb(void *owner, struct engine_conn *c, bool ok)
{
	struct wconn *wc = owner;
	struct worker *w = wc->w;
	uint64_t t = now_ns();

	ev_timer_stop(w->loop, &wc->retry);
	if (!ok) {
		wc->link = LINK_DOWN;
		snprintf(wc->down_error, sizeof(wc->down_error), "reconnect failed: %s",
			 w->engine->error(c));
		retry_later(wc);
		return;
	}
	wc->link = LINK_UP;
	slots_held_sync(wc);
	wc->errs.reconnects++;
	wc->outage->reconnect_ns = t - (uint64_t)wc->outage->detected_ns;
	wc->outage->recovered = true;
	wc->last_reply_ns = t;
	if (!w->stopping && !wc->finished)
		slots_refill(wc, t);
}
