/*
 * slots_mix: the requests of --mix (metadata operations on the connection's
 * own tree, drawn by weight) and of the small-file test's passes (every file
 * of the connection's share once, one op type a pass).
 */
#include <stdio.h>

#include "ops.h"
#include "workdir.h"
#include "worker_int.h"

/* IO_ADVISE's hint (RFC 7862's IO_ADVISE4_WILLNEED, a bit of its bitmap). */
#define ADVISE_WILLNEED (1u << 4)

/*
 * --mix: an NFSv4.2 operation (class OPC_FILE) on the connection's data files:
 * block tg->block of its file tg->file, --bs long (the last block: what is
 * left); COPY and CLONE to block2 of file2; xattrs on nfsload.<n>.
 */
static bool issue_file(struct wconn *wc, const struct meta_target *tg, uint64_t t)
{
	const struct run *run = wc->w->run;
	const struct config *cfg = run->cfg;
	struct slot *s = wc->free_slots[--wc->nfree];
	uint64_t off = tg->block * cfg->bs, off2 = tg->block2 * cfg->bs;
	uint64_t left = cfg->size - (off > off2 ? off : off2);
	uint32_t len = (uint32_t)(left < cfg->bs ? left : cfg->bs);
	bool xattr = tg->op == OP_GETXATTR || tg->op == OP_SETXATTR || tg->op == OP_REMOVEXATTR;
	char xname[32];

	if (xattr)
		snprintf(xname, sizeof(xname), "nfsload.%u", tg->xattr);
	s->start_ns = s->issue_ns = t;
	s->type = tg->op;
	s->tg = *tg;
	s->range = tg->file;
	s->file = wc->main_stream.ranges[tg->file].file;
	s->offset = off;
	/* Only a READ_PLUS has bytes it must return (fewer: a short transfer). */
	s->len = tg->op == OP_READ_PLUS ? len : 0;
	s->busy = true;
	s->req = (struct engine_req){
		.op = tg->op, .file = tg->file, .offset = off, .len = len,
		.file2 = tg->file2, .offset2 = off2, .what = tg->what,
		.xname = xattr ? xname : NULL,
	};
	if (tg->op == OP_IO_ADVISE)
		s->req.what = ADVISE_WILLNEED;
	if (tg->op == OP_GETXATTR || tg->op == OP_SETXATTR)
		s->req.len = (uint32_t)cfg->xattr_size;
	if (tg->op == OP_SETXATTR)
		s->req.buf = run->xattr_value;
	if (tg->op == OP_LISTXATTRS || tg->op == OP_REMOVEXATTR)
		s->req.len = 0;
	if (!slots_queue(wc, s, t)) {
		meta_done(&wc->tree, tg, false);
		return false;
	}
	return true;
}

/*
 * --mix with --open-files: OPEN of a closed held file or CLOSE of an open one
 * (tg->slot: its index among the connection's held files).
 */
static bool issue_held(struct wconn *wc, const struct meta_target *tg, uint64_t t)
{
	struct slot *s = wc->free_slots[--wc->nfree];

	s->start_ns = s->issue_ns = t;
	s->type = tg->op;
	s->tg = *tg;
	s->len = 0;
	s->busy = true;
	s->req = (struct engine_req){ .op = tg->op, .file = tg->slot, .held = true };
	if (!slots_queue(wc, s, t)) {
		meta_done(&wc->tree, tg, false);
		return false;
	}
	return true;
}

void slots_held_sync(struct wconn *wc)
{
	const struct worker *w = wc->w;

	if (!w->meta || !w->engine->held_open || !wc->conn)
		return;
	for (unsigned i = 0; i < wc->tree.nheld; i++)
		meta_held_set(&wc->tree, i, w->engine->held_open(wc->conn, i));
}

/* --mix: LOCK, LOCKU or LOCKT of range tg->block (of --lock-size) of data file tg->file. */
static bool issue_lock(struct wconn *wc, const struct meta_target *tg, uint64_t t)
{
	const struct config *cfg = wc->w->run->cfg;
	struct slot *s = wc->free_slots[--wc->nfree];

	s->start_ns = s->issue_ns = t;
	s->type = tg->op;
	s->tg = *tg;
	s->range = tg->file;
	s->file = wc->main_stream.ranges[tg->file].file;
	s->offset = tg->block * cfg->lock_size;
	s->len = 0;
	s->busy = true;
	s->req = (struct engine_req){
		.op = tg->op, .file = tg->file, .offset = s->offset, .range = cfg->lock_size,
		.what = cfg->lock_type == CFG_LOCK_READ ? ENGINE_LOCK_READ : ENGINE_LOCK_WRITE,
	};
	if (!slots_queue(wc, s, t)) {
		meta_done(&wc->tree, tg, false);
		return false;
	}
	return true;
}

/* --mix: one metadata operation on the connection's own tree. */
static bool issue_meta(struct wconn *wc, const struct meta_target *tg, uint64_t t)
{
	const struct config *cfg = wc->w->run->cfg;
	struct slot *s;
	char path[400], path2[400], leaf[32];
	/* The small-file test's create writes the whole file in the same request. */
	bool filled = tg->op == OP_CREATE && wc->w->run->pass_op == OP_CREATE;
	bool whole = tg->op == OP_READ || tg->op == OP_WRITE || filled;

	if (op_info(tg->op)->cls == OPC_FILE)
		return issue_file(wc, tg, t);
	if (tg->held)
		return issue_held(wc, tg, t);
	if (op_info(tg->op)->cls == OPC_LOCK)
		return issue_lock(wc, tg, t);
	s = wc->free_slots[--wc->nfree];

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
		struct meta_target tg = { .op = w->run->pass_op,
					  .dir = (unsigned)(wc->pass_next % dirs),
					  .slot = (unsigned)(wc->pass_next / dirs) };

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
