/*
 * replay_walk: the first pass of a replay's plan (replay_int.h). The trace's
 * calls in order: handles followed to names (MNT's root, LOOKUP, CREATE,
 * MKDIR, v4's current handle through a COMPOUND and GETFH), each call made a
 * candidate operation on the names it touches (an NFSv4 COMPOUND: its main
 * operation; a v4.2 operation on a file, the one of the same name, COPY and
 * CLONE from SAVEFH's file to the current one; each state operation, replay.h,
 * a candidate of its own, with its stateids and lock-owner). Pure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

/* v4 operation numbers used here (RFC 8881) */
enum {
	V4_ACCESS = 3, V4_CLOSE = 4, V4_COMMIT = 5, V4_CREATE = 6, V4_GETATTR = 9, V4_GETFH = 10,
	V4_LOCK = 12, V4_LOCKT = 13, V4_LOCKU = 14, V4_OPEN_CONFIRM = 20, V4_OPEN_DOWNGRADE = 21,
	V4_LOOKUP = 15, V4_LOOKUPP = 16, V4_OPEN = 18, V4_PUTFH = 22, V4_PUTPUBFH = 23,
	V4_PUTROOTFH = 24, V4_READ = 25, V4_READDIR = 26, V4_REMOVE = 28, V4_RENAME = 29,
	V4_RESTOREFH = 31, V4_SAVEFH = 32, V4_SETATTR = 34, V4_WRITE = 38,
	/* NFSv4.2 (RFC 7862, RFC 8276) */
	V4_ALLOCATE = 59, V4_COPY = 60, V4_DEALLOCATE = 62, V4_IO_ADVISE = 63, V4_READ_PLUS = 68,
	V4_SEEK = 69, V4_CLONE = 71, V4_GETXATTR = 72, V4_SETXATTR = 73, V4_LISTXATTRS = 74,
	V4_REMOVEXATTR = 75,
};

static uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	return k;
}

static int grow_map(struct builder *b)
{
	uint32_t slots = b->slots ? b->slots * 2 : 1024;
	uint64_t *keys = calloc(slots, sizeof(*keys));
	uint32_t *vals = calloc(slots, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < b->slots; i++) {
		uint32_t j;

		if (!b->keys[i])
			continue;
		for (j = (uint32_t)mix64(b->keys[i]) & (slots - 1); keys[j]; j = (j + 1) & (slots - 1))
			;
		keys[j] = b->keys[i];
		vals[j] = b->vals[i];
	}
	free(b->keys);
	free(b->vals);
	b->keys = keys;
	b->vals = vals;
	b->slots = slots;
	return 0;
}

/* The node called name in parent, made if new. NONE: out of memory. */
static uint32_t child(struct builder *b, uint32_t parent, uint32_t name)
{
	uint64_t key = ((uint64_t)parent << 32 | name) + 1;
	uint32_t j;

	if (parent == NONE)
		return NONE;
	if ((b->n + 1) * 2 > b->slots && grow_map(b))
		return NONE;
	for (j = (uint32_t)mix64(key) & (b->slots - 1); b->keys[j]; j = (j + 1) & (b->slots - 1))
		if (b->keys[j] == key)
			return b->vals[j];
	if (b->n == b->cap) {
		uint32_t cap = b->cap * 2;
		struct node *v = realloc(b->nodes, cap * sizeof(*v));

		if (!v)
			return NONE;
		b->nodes = v;
		b->cap = cap;
	}
	b->nodes[b->n] = (struct node){ .parent = parent, .name = name, .file = NONE,
					.producer_conn = NONE, .change_ci = NONE, .use_ci = NONE,
					.child_ci = NONE };
	b->nodes[parent].dir = true;
	b->keys[j] = key;
	b->vals[j] = b->n;
	return b->n++;
}

/* The node of handle fh: the name it was given, or a name of its own at the top. */
static uint32_t of_fh(struct builder *b, uint32_t fh)
{
	if (fh == 0)
		return NONE;
	if (b->fhnode[fh] == NONE)
		b->fhnode[fh] = child(b, 0, fh | ORPHAN);
	return b->fhnode[fh];
}

static void name_fh(struct builder *b, uint32_t fh, uint32_t node)
{
	if (fh && node != NONE)
		b->fhnode[fh] = node;
}

static struct cand *add(struct builder *b, const struct trace_op *op, int type, uint32_t node)
{
	struct cand *c;

	if (b->nc == b->ccap) {
		size_t cap = b->ccap ? b->ccap * 2 : 256;
		struct cand *v = realloc(b->c, cap * sizeof(*v));

		if (!v)
			return NULL;
		b->c = v;
		b->ccap = cap;
	}
	c = &b->c[b->nc++];
	*c = (struct cand){ .op = op, .conn = op->conn, .node = node, .node2 = NONE,
			    .type = (int8_t)type };
	return c;
}

/* An NFSv3 or MOUNT call. */
static int walk_v3(struct builder *b, const struct trace_op *op)
{
	static const int8_t type[22] = {
		SKIP(REPLAY_SKIP_SETUP), OP_GETATTR, OP_SETATTR, OP_LOOKUP, OP_ACCESS,
		SKIP(REPLAY_SKIP_NO_OP), OP_READ, OP_WRITE, OP_CREATE, OP_MKDIR,
		SKIP(REPLAY_SKIP_NO_OP), SKIP(REPLAY_SKIP_NO_OP), OP_REMOVE, OP_RMDIR, OP_RENAME,
		SKIP(REPLAY_SKIP_NO_OP), OP_READDIR, OP_READDIR, SKIP(REPLAY_SKIP_NO_OP),
		SKIP(REPLAY_SKIP_SETUP), SKIP(REPLAY_SKIP_NO_OP), OP_COMMIT,	/* FSINFO: set-up */
	};
	uint32_t node = NONE;
	struct cand *c;
	int ty;

	if (op->prog == TRACE_MOUNT) {
		if (op->proc == 1 && op->status == 0)
			name_fh(b, op->result_fh, 0);
		return add(b, op, SKIP(REPLAY_SKIP_SETUP), NONE) ? 0 : -ENOMEM;
	}
	ty = op->proc < 22 ? type[op->proc] : SKIP(REPLAY_SKIP_NO_OP);
	if (op->dir && op->name) {
		node = child(b, of_fh(b, op->dir), op->name);
		if (op->status == 0)
			name_fh(b, op->result_fh, node);
	} else if (op->fh) {
		node = of_fh(b, op->fh);
	}
	if (ty >= 0 && node == NONE)
		ty = SKIP(REPLAY_SKIP_NO_OP);	/* its handle or name was not decoded */
	if (!(c = add(b, op, ty, node)))
		return -ENOMEM;
	c->mode = op->proc == 8 ? op->stable : 0;
	if (op->proc == 14 && op->dir2 && op->name2)
		c->node2 = child(b, of_fh(b, op->dir2), op->name2);
	if (op->proc == 14 && c->node2 == NONE)
		c->type = SKIP(REPLAY_SKIP_NO_OP);
	if ((op->proc == 9 || op->proc == 13 || op->proc == 16 || op->proc == 17) && node != NONE)
		b->nodes[node].dir = true;
	return 0;
}

/* How much a COMPOUND's operation says what the COMPOUND is for. */
static uint8_t prio_of(unsigned proc)
{
	switch (proc) {
	case V4_READ: case V4_WRITE: case V4_COMMIT: return 9;
	case V4_READ_PLUS: case V4_SEEK: case V4_ALLOCATE: case V4_DEALLOCATE: case V4_IO_ADVISE:
	case V4_COPY: case V4_CLONE: case V4_GETXATTR: case V4_SETXATTR: case V4_LISTXATTRS:
	case V4_REMOVEXATTR: return 9;
	case V4_OPEN: return 8;
	case V4_REMOVE: case V4_RENAME: case V4_CREATE: case V4_SETATTR: return 7;
	case V4_READDIR: return 6;
	case V4_CLOSE: return 5;
	case V4_ACCESS: return 4;
	case V4_LOOKUP: return 3;
	case V4_GETATTR: return 2;
	}
	return 5;	/* LOCK, LINK, READLINK ...: nothing replays them */
}

static int type_of(unsigned proc)
{
	switch (proc) {
	case V4_READ: return OP_READ;
	case V4_WRITE: return OP_WRITE;
	case V4_COMMIT: return OP_COMMIT;
	case V4_OPEN: return OP_OPEN;
	case V4_REMOVE: return OP_REMOVE;
	case V4_RENAME: return OP_RENAME;
	case V4_CREATE: return OP_MKDIR;
	case V4_SETATTR: return OP_SETATTR;
	case V4_READDIR: return OP_READDIR;
	case V4_CLOSE: case V4_OPEN_CONFIRM: return SKIP(REPLAY_SKIP_SETUP);
	case V4_ACCESS: return OP_ACCESS;
	case V4_LOOKUP: return OP_LOOKUP;
	case V4_GETATTR: return OP_GETATTR;
	case V4_READ_PLUS: return OP_READ_PLUS;
	case V4_SEEK: return OP_SEEK;
	case V4_ALLOCATE: return OP_ALLOCATE;
	case V4_DEALLOCATE: return OP_DEALLOCATE;
	case V4_IO_ADVISE: return OP_IO_ADVISE;
	case V4_COPY: return OP_COPY;
	case V4_CLONE: return OP_CLONE;
	case V4_GETXATTR: return OP_GETXATTR;
	case V4_SETXATTR: return OP_SETXATTR;
	case V4_LISTXATTRS: return OP_LISTXATTRS;
	case V4_REMOVEXATTR: return OP_REMOVEXATTR;
	}
	return SKIP(REPLAY_SKIP_NO_OP);
}

#define COMPOUND_OPS_MAX 256	/* trace_nfs4.c's OPS_MAX */
#define STATE_CANDS_MAX 16	/* state ops of one COMPOUND replayed; more: left out */

/*
 * The current stateid after op (RFC 8881 16.2.3.1.2): an OPEN's or LOCK's reply,
 * or the one it named; *open: the index of the OPEN of the COMPOUND it is (SIZE_MAX:
 * none).
 */
static void current_after(const struct trace_op *ops, size_t i, uint32_t *cs, size_t *open)
{
	const struct trace_op *op = &ops[i];

	switch (op->proc) {
	case V4_OPEN:
		*cs = op->result_state;
		*open = i;
		return;
	case V4_LOCK:
		*cs = op->result_state;
		*open = SIZE_MAX;
		return;
	case V4_CLOSE: case V4_OPEN_DOWNGRADE: case V4_LOCKU:
		if (op->state == TRACE_STATE_CURRENT || !op->state)
			return;
		*cs = op->state;
		*open = SIZE_MAX;
		for (size_t j = 0; j < i; j++)
			if (ops[j].proc == V4_OPEN && ops[j].result_state == op->state)
				*open = j;
		return;
	}
}

/*
 * closed[i]: ops[i] is an OPEN that a CLOSE later in the COMPOUND closes (through
 * the current stateid or its own), or that CLOSE: the pair holds nothing (an OPEN
 * that reads or writes and closes, nfsload's own --mix open): not state ops.
 */
static void closed_within(const struct trace_op *ops, size_t n, bool *closed)
{
	uint32_t cs = 0;
	size_t open = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		closed[i] = false;
		if (ops[i].proc == V4_CLOSE) {
			size_t o = ops[i].state == TRACE_STATE_CURRENT ? open : SIZE_MAX;

			for (size_t j = 0; j < i && o == SIZE_MAX && ops[i].state; j++)
				if (ops[j].proc == V4_OPEN && ops[j].result_state == ops[i].state)
					o = j;
			if (o != SIZE_MAX)
				closed[o] = closed[i] = true;
		}
		current_after(ops, i, &cs, &open);
	}
}

static int state_type(unsigned proc)
{
	switch (proc) {
	case V4_OPEN: return OP_OPEN;
	case V4_CLOSE: return OP_CLOSE;
	case V4_OPEN_DOWNGRADE: return OP_OPEN_DOWNGRADE;
	case V4_LOCK: return OP_LOCK;
	case V4_LOCKU: return OP_UNLOCK;
	case V4_LOCKT: return OP_LOCKT;
	}
	return -1;
}

/*
 * One COMPOUND, ops[0..n): its main operation on the names its handles lead to;
 * with state operations, each of them (and the main one too when it does more than
 * look: a READ, WRITE, REMOVE ...), in the COMPOUND's order.
 */
static int walk_v4(struct builder *b, const struct trace_op *ops, size_t n)
{
	uint32_t cur = NONE, saved = NONE, cs = 0;
	size_t cs_open = SIZE_MAX, nst = 0;
	struct cand best = { .type = SKIP(REPLAY_SKIP_SETUP) };
	struct cand st[STATE_CANDS_MAX];
	bool closed[COMPOUND_OPS_MAX];
	uint64_t lost = 0;

	if (n > COMPOUND_OPS_MAX)
		n = COMPOUND_OPS_MAX;	/* (never: trace_nfs4.c decodes no more) */
	closed_within(ops, n, closed);
	for (size_t i = 0; i < n; i++) {
		const struct trace_op *op = &ops[i];
		uint32_t node = cur, node2 = NONE;

		switch (op->proc) {
		case V4_PUTROOTFH: case V4_PUTPUBFH: cur = 0; continue;
		case V4_PUTFH: cur = of_fh(b, op->fh); continue;
		case V4_SAVEFH: saved = cur; continue;
		case V4_RESTOREFH: cur = saved; continue;
		case V4_GETFH: name_fh(b, op->result_fh, cur); continue;
		case V4_LOOKUPP:
			cur = cur == NONE || cur == 0 ? cur : b->nodes[cur].parent;
			continue;
		case V4_LOOKUP: case V4_CREATE:
			cur = node = op->name ? child(b, cur, op->name) : NONE;
			if (op->proc == V4_CREATE && node != NONE)
				b->nodes[node].dir = true;
			break;
		case V4_OPEN:
			if (op->name)
				cur = node = child(b, cur, op->name);
			break;
		case V4_REMOVE:
			node = op->name ? child(b, cur, op->name) : NONE;
			break;
		case V4_RENAME:
			node = op->name ? child(b, saved, op->name) : NONE;
			node2 = op->name2 ? child(b, cur, op->name2) : NONE;
			if (node2 == NONE)
				node = NONE;
			break;
		case V4_READDIR:
			if (node != NONE)
				b->nodes[node].dir = true;
			break;
		case V4_COPY: case V4_CLONE:	/* from the saved file to the current one */
			node = saved;
			node2 = cur;
			if (node2 == NONE || node2 == 0 || node == 0)
				node = NONE;
			break;
		case V4_GETXATTR: case V4_SETXATTR: case V4_REMOVEXATTR:
			if (!op->name)	/* an empty name: nothing to send */
				node = NONE;
			/* fall through */
		case V4_READ_PLUS: case V4_SEEK: case V4_ALLOCATE: case V4_DEALLOCATE:
		case V4_IO_ADVISE: case V4_LISTXATTRS:
			if (node == 0)	/* the export's root is no data file */
				node = NONE;
			break;
		}
		if (trace_is_session_op(op->proc))
			continue;
		if (b->state && state_type(op->proc) >= 0 && !closed[i]) {
			struct cand *c = nst < STATE_CANDS_MAX ? &st[nst++] : NULL;

			if (!c) {
				lost++;
				current_after(ops, i, &cs, &cs_open);
				continue;
			}
			*c = (struct cand){ .op = op, .conn = op->conn, .node = node, .node2 = NONE,
					    .type = (int8_t)state_type(op->proc), .state_op = true,
					    .state = op->state == TRACE_STATE_CURRENT ? cs : op->state,
					    .result_state = op->result_state, .owner = op->owner,
					    .slot = NONE, .sprev = NONE };
			if (op->proc == V4_OPEN) {
				c->open_create = op->stable != 0;
				c->mode = op->stable;
				if (node == NONE || node == 0)
					c->type = SKIP(REPLAY_SKIP_NO_OP);
			}
			current_after(ops, i, &cs, &cs_open);
			continue;
		}
		current_after(ops, i, &cs, &cs_open);
		if (prio_of(op->proc) >= best.prio) {	/* the last of equals: the deepest LOOKUP */
			best = (struct cand){ .op = op, .conn = op->conn, .node = node,
					      .node2 = node2, .type = (int8_t)type_of(op->proc),
					      .prio = prio_of(op->proc) };
			best.open_create = op->proc == V4_OPEN && op->stable;
			best.mode = op->stable;
			if (best.type >= 0 && node == NONE)
				best.type = SKIP(REPLAY_SKIP_NO_OP);
		}
	}
	if (nst) {
		/* the main op too when it does more than look (prio: a READ, WRITE, REMOVE ...) */
		bool main = best.op && best.type >= 0 && best.prio >= 7;

		for (size_t k = 0; k <= nst; k++) {
			if (main && (k == nst || best.op < st[k].op)) {
				if (!add(b, best.op, 0, NONE))
					return -ENOMEM;
				b->c[b->nc - 1] = best;
				main = false;
			}
			if (k < nst) {
				if (!add(b, st[k].op, 0, NONE))
					return -ENOMEM;
				b->c[b->nc - 1] = st[k];
			}
		}
		for (; lost; lost--)
			if (!add(b, ops, SKIP(REPLAY_SKIP_NO_OP), NONE))
				return -ENOMEM;
		return 0;
	}
	if (!best.op) {
		if (!add(b, ops, SKIP(REPLAY_SKIP_SETUP), NONE))
			return -ENOMEM;
		return 0;
	}
	if (!add(b, best.op, 0, NONE))
		return -ENOMEM;
	b->c[b->nc - 1] = best;
	return 0;
}

int replay_walk(struct builder *b)
{
	const struct trace *t = b->t;
	int rc = -ENOMEM;

	b->cap = 256;
	b->nodes = malloc(b->cap * sizeof(*b->nodes));
	b->fhnode = malloc((t->fhs.n + 1) * sizeof(*b->fhnode));
	if (!b->nodes || !b->fhnode || grow_map(b))
		return -ENOMEM;
	memset(b->fhnode, 0xff, (t->fhs.n + 1) * sizeof(*b->fhnode));
	b->nodes[0] = (struct node){ .parent = NONE, .dir = true, .file = NONE,
				     .producer_conn = NONE, .change_ci = NONE, .use_ci = NONE,
					.child_ci = NONE };
	b->n = 1;
	for (size_t i = 0; i < t->nops;) {
		const struct trace_op *op = &t->ops[i];
		size_t n = 1;

		if (op->version == 4 && op->compound) {
			while (i + n < t->nops && t->ops[i + n].compound == op->compound)
				n++;
			rc = walk_v4(b, op, n);
		} else if (op->version == 4) {
			rc = add(b, op, SKIP(REPLAY_SKIP_SETUP), NONE) ? 0 : -ENOMEM;	/* NULL */
		} else {
			rc = walk_v3(b, op);
		}
		if (rc)
			return rc;
		i += n;
	}
	return 0;
}

void replay_builder_free(struct builder *b)
{
	free(b->nodes);
	free(b->keys);
	free(b->vals);
	free(b->fhnode);
	free(b->c);
	free(b->xname_ix);
}
