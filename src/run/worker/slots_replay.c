/*
 * slots_replay: what a connection sends next in a --replay, and how each
 * reply compares with the trace's. A connection replays its trace
 * connection's operations in call order: each at its time from the start
 * (scaled by --replay-speed; max: as soon as a slot is free), after the
 * operations it depends on have completed (its own connection's: its
 * completion refills; another connection's, on another thread perhaps: looked
 * at again every REPLAY_POLL_NS); late ones keep their intended start, so
 * their latency counts the wait (as --rate's do).
 */
#include <errno.h>
#include <stdio.h>

#include "ops.h"
#include "pattern.h"
#include "worker_int.h"

#define LATE_NS UINT64_C(1000000)
#define REPLAY_POLL_NS UINT64_C(100000)

static bool done(const uint8_t *flag)
{
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE) != 0;
}

/* The connection's refill comes again at t (the schedule's timer). */
static void again_at(struct wconn *wc, uint64_t t)
{
	struct schedule *s = &wc->w->sched;

	schedule_cancel(s, wc->idx);
	schedule_at(s, wc->idx, t);
	schedule_wait(s, wc->idx);
}

/* The path below the export of the plan's path i. */
static const char *path_of(const struct run *run, uint32_t i, char *buf, size_t len)
{
	const char *rel = run->replay->paths[i];

	snprintf(buf, len, "/%s%s%s", run->cfg->dir, rel[0] ? "/" : "", rel);
	return buf;
}

static bool issue(struct wconn *wc, uint32_t idx, uint64_t start, uint64_t t)
{
	const struct run *run = wc->w->run;
	const struct replay_op *o = &wc->rp->ops[idx];
	struct slot *s = wc->free_slots[--wc->nfree];
	enum op_class cls = op_info((enum op_type)o->type)->cls;
	bool data = cls == OPC_IO || cls == OPC_FILE;
	char path[400], path2[400];

	s->start_ns = start;
	s->issue_ns = t;
	s->type = (enum op_type)o->type;
	s->rp_idx = idx;
	s->range = o->range;
	s->file = data ? wc->rp->files[o->range] : 0;
	s->offset = o->offset;
	s->len = replay_op_bytes(o);
	s->tries = 1;
	s->busy = true;
	if (o->held) {
		/* State (replay.h): on held slot o->slot, after the connection's --open-files
		 * (engine_params.open_slots of them); an OPEN by the traced name */
		s->req = (struct engine_req){
			.op = s->type, .held = true, .file = run->params->open_files + o->slot,
			.path = o->type == OP_OPEN ? path_of(run, o->path, path, sizeof(path)) : NULL,
			.offset = o->offset, .range = o->length, .what = o->what,
		};
	} else if (data) {
		s->req = (struct engine_req){
			.op = s->type, .file = o->range, .offset = o->offset,
			/* v4.2: a range's length, SETXATTR's value size (COMMIT: none, as ever) */
			.len = cls == OPC_FILE ? o->len : s->len,
			.buf = o->type == OP_WRITE ? pattern_at(run->pattern, s->file, o->offset) :
			       NULL,
			/* COPY, CLONE: the destination; SEEK's what; the xattr's name */
			.file2 = o->range2, .offset2 = o->offset2, .what = o->what,
			.xname = o->xname ? run->replay->xnames[o->xname] : NULL,
		};
	} else {
		s->req = (struct engine_req){
			.op = s->type, .path = path_of(run, o->path, path, sizeof(path)),
			.path2 = o->type == OP_RENAME ? path_of(run, o->path2, path2, sizeof(path2)) :
				 NULL,
			.setattr = ENGINE_SETATTR_MODE, .unchecked = o->unchecked,
		};
	}
	return slots_queue(wc, s, t);
}

void slots_refill_replay(struct wconn *wc, uint64_t t)
{
	struct worker *w = wc->w;
	const struct run *run = w->run;
	const struct replay_conn *rc = wc->rp;

	while (!w->stopping && !wc->done_issuing && wc->nfree > 0 && wc->rp_next < rc->nops) {
		const struct replay_op *o = &rc->ops[wc->rp_next];
		uint64_t start = t;

		if (o->dep != REPLAY_NO_DEP && !done(&wc->rp_done[o->dep]))
			break;	/* its completion refills */
		if (o->sdep != REPLAY_NO_DEP && !done(&wc->rp_done[o->sdep]))
			break;	/* the same: its open's previous state op */
		/* An RMDIR after its connection's calls before it have ended: REMOVEs of the
		 * names in the directory still in flight would leave it not empty. */
		if (o->type == OP_RMDIR && wc->inflight)
			break;	/* their completions refill */
		if (w->open_loop) {
			start = run->measure_start_ns +
				(uint64_t)((double)o->at_ns / run->cfg->replay_speed);
			if (start > t) {
				again_at(wc, start);
				break;
			}
		}
		if (o->xconn != REPLAY_NO_DEP && !done(&run->replay_done[o->xconn][o->xop])) {
			again_at(wc, t + REPLAY_POLL_NS);
			break;
		}
		if (w->open_loop) {
			if (t - start > w->max_lag_ns)
				w->max_lag_ns = t - start;
			if (t - start > LATE_NS)
				w->replay.late++;
		}
		if (!issue(wc, wc->rp_next, start, t))
			break;
		if (!w->replay.first_issue_ns)
			w->replay.first_issue_ns = t;
		w->replay.last_issue_ns = t;
		wc->rp_next++;
	}
	if (wc->rp_next >= rc->nops)
		wc->done_issuing = true;
}

int slots_replay_done(struct wconn *wc, const struct slot *s, int status)
{
	const struct replay_op *o = &wc->rp->ops[s->rp_idx];
	struct replay_counts *c = &wc->w->replay;

	__atomic_store_n(&wc->rp_done[s->rp_idx], 1, __ATOMIC_RELEASE);
	if (o->trace_status == TRACE_NO_REPLY)
		return status;
	/* A denied LOCK, LOCKT or OPEN is an answer, counted as denied (never an error),
	 * whatever the trace had: another client's lock or share on replay */
	if (status == -ENGINE_DENIED) {
		if (o->trace_status > 0)
			c->both_failed++;
		return status;
	}
	if (o->trace_status > 0 && status < 0 && status != -ETIMEDOUT &&
	    !slots_lost_with_link(status)) {
		c->both_failed++;
		return (int)s->len;	/* the server said no, as it did in the trace */
	}
	if (o->trace_status > 0)
		c->only_trace_failed++;
	else if (status < 0)
		c->new_errors++;
	return status;
}
