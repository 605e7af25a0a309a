/*
 * slots_log: --op-log's row for a request the report counts (oplog.h says
 * the columns). Called from the three places the measured totals count an
 * operation: a completion (slots_done.c), a refused request and the
 * requests lost with their link (slots_fail.c); so the log holds exactly
 * the report's operations and errors. Into the thread's own buffer: no lock.
 */
#include "worker_int.h"

void slots_log(struct wconn *wc, const struct slot *s, int status, uint64_t t)
{
	struct worker *w = wc->w;
	uint64_t origin = w->run->oplog_origin_ns;
	struct oplog_row r = {
		/* Not clamped: a row from before the window (none is logged) would wrap
		 * past any window's end, where a check sees it, not hide at 0. */
		.start_ns = s->start_ns - origin,
		.thread = w->id, .conn = wc->id, .file = s->file, .op = s->type,
		.offset = s->offset,
		/* what the totals count as its bytes; asked for, when it failed */
		.len = status >= 0 ? (uint32_t)status : s->len,
		.lat_ns = t > s->start_ns ? t - s->start_ns : 0,
		.ok = status >= 0,
	};

	if (w->wire && status >= 0 && s->req.wire_ns) {
		r.wire_ns = s->req.wire_ns;
		r.has_wire = true;
	}
	if (status < 0)
		r.status = conn_err_name(-status);
	oplog_add(w->oplog, &r);
}
