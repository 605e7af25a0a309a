/*
 * slots_mix: the requests of --mix (metadata operations on the connection's
 * own tree, drawn by weight) and of the small-file test's passes (every file
 * of the connection's share once, one op type a pass).
 */
#include <stdio.h>

#include "workdir.h"
#include "worker_int.h"

/* --mix: one metadata operation on the connection's own tree. */
static bool issue_meta(struct wconn *wc, const struct meta_target *tg, uint64_t t)
{
	const struct config *cfg = wc->w->run->cfg;
	struct slot *s = wc->free_slots[--wc->nfree];
	char path[400], path2[400], leaf[32];
	/* The small-file test's create writes the whole file in the same request. */
	bool filled = tg->op == OP_CREATE && wc->w->run->pass_op == OP_CREATE;
	bool whole = tg->op == OP_READ || tg->op == OP_WRITE || filled;

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
		.buf = tg->op == OP_WRITE || filled ? wc->w->run->small_data : NULL,
	};
	/* SETATTR in turn: mode, size (to --file-size), times. */
	if (tg->op == OP_SETATTR) {
		s->req.setattr = (enum engine_setattr)(wc->setattrs++ % 3);
		s->req.offset = cfg->file_size;	/* the size a SIZE one sets */
	}
	if (!slots_queue(wc, s, t)) {
		meta_done(&wc->tree, tg, false);
		return false;
	}
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

void slots_refill_meta(struct wconn *wc, uint64_t t)
{
	struct worker *w = wc->w;
	const struct run *run = w->run;
	struct meta_target tg;

	if (run->pass_op != OP_NTYPES) {
		refill_pass(wc, t);
		return;
	}
	/* Everything busy: the next completion tries again. */
	while (!w->stopping && !wc->done_issuing && wc->nfree > 0 &&
	       meta_next(&wc->tree, &run->cfg->mix, &tg) && issue_meta(wc, &tg, t))
		;
}
