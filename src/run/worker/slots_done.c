/*
 * slots_done: a request completes. Its status is settled (a missing name
 * for --mix's LOOKUP is a success, a short transfer is not, --verify may
 * fail a read), its latency recorded where the measured window says, an
 * outage closed by a success, a COMMIT made due by --commit-every, and the
 * slot refilled: at once after a success, after the loop iteration after a
 * failure (the worker's deferred check, worker.c).
 */
#include <errno.h>

#include "ops.h"
#include "worker_int.h"

void worker_end_ramp(struct worker *w)
{
	w->ramp_pending = false;
	op_stats_reset_all(w->ival);
}

/* One completion into st: counted, its bytes (READ_PLUS: the holes among them), latency. */
static void record_one(struct op_stats *st, const struct slot *s, int status, uint64_t lat,
		       uint64_t unc)
{
	op_stats_record(st, status, lat, unc);
	if (status >= 0)
		st->holes += s->req.holes;
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
		record_one(&w->ival[s->type], s, status, lat, unc);
		if (w->wire && status >= 0)
			op_stats_wire(&w->ival[s->type], s->req.wire_ns, unc);
		if (w->srv_ival)
			op_stats_record(&w->srv_ival[wc->srv], status, lat, unc);
	}
	if ((!w->stopping || w->meta) && s->start_ns >= w->run->measure_start_ns) {
		record_one(&w->total[s->type], s, status, lat, unc);
		if (w->wire && status >= 0)
			op_stats_wire(&w->total[s->type], s->req.wire_ns, unc);
		op_stats_record(&wc->stats, status, lat, unc);
		if (w->srv)
			op_stats_record(&w->srv[wc->srv], status, lat, unc);
		if (status < 0 && status != -ENGINE_DENIED)
			slots_count_error(wc, status);
		else
			wc->last_done_ns = t;
		if (w->logging)
			slots_log(wc, s, status, t);
	}
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
		ev_check_start(w->loop, &w->deferred_check);
		ev_idle_start(w->loop, &w->deferred_idle);
	}
}

/*
 * An NFSv4.2 op's status as the run counts it: the server's refusal named as
 * it answered (and, with --on-error stop, the run ended at this first use);
 * a name not set for GETXATTR or REMOVEXATTR is what a mix of a few names
 * asks for (as --mix's LOOKUP of a missing name); LISTXATTRS moves no bytes
 * (its engine gives the number of names).
 */
static int file_op_status(struct wconn *wc, const struct slot *s, int status)
{
	if (status == -EOPNOTSUPP || status == -ENOSYS)
		return slots_file_refused(wc, s, status);
	if (status == -ENODATA && (s->type == OP_GETXATTR || s->type == OP_REMOVEXATTR))
		return 0;
	if (status > 0 && s->type == OP_LISTXATTRS)
		return 0;
	return status;
}

void slots_done(void *owner, struct engine_req *req, int status)
{
	struct slot *s = (struct slot *)req;
	struct wconn *wc = owner;
	struct worker *w = wc->w;
	uint64_t t = now_ns();
	bool denied;

	s->busy = false;
	/* A LOOKUP of a missing name is what --mix's lookup asks for; a replay compares. */
	if (wc->rp)
		status = slots_replay_done(wc, s, status);
	else if (s->type == OP_LOOKUP && status == -ENOENT)
		status = 0;
	else if (op_info(s->type)->cls == OPC_FILE)
		status = file_op_status(wc, s, status);
	/* A short transfer (a read past the end of a file) is not a success. */
	if (status >= 0 && (uint32_t)status < s->len)
		status = -CONN_ERR_SHORT;
	status = slots_verify(wc, s, req->data, status);
	if (w->meta)
		meta_done(&wc->tree, &s->tg, status >= 0);
	wc->inflight--;
	/* A lock or share reservation denied for a conflict is an answer, no failure. */
	denied = status == -ENGINE_DENIED;
	if (status >= 0 || denied) {
		wc->last_ok_ns = wc->last_reply_ns = t;
		outage_close(wc, t);
		wc->errors_since_ok = 0;
	} else {
		wc->errors_since_ok++;
		if (slots_lost_with_link(status))
			slots_redo_later(wc, s);
		if (status != -ETIMEDOUT)
			wc->last_reply_ns = t;	/* the server answered, if with an error */
		else if (t - wc->last_reply_ns >= w->run->cfg->timeout_ns)
			wc->lose_pending = true;	/* nothing at all for --timeout */
	}
	/*
	 * After the stop nothing new is issued: a request timing out now was in
	 * flight at the stop and never answered. record() counts nothing after the
	 * stop (--mix aside), so without this a server dropping calls would only
	 * show as a run --timeout longer than asked.
	 */
	if (w->stopping && status == -ETIMEDOUT)
		wc->errs.unanswered_at_stop++;
	wc->free_slots[wc->nfree++] = s;
	record(wc, s, status, t);
	if (status < 0 && !denied) {
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
