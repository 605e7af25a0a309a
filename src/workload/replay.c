/*
 * replay: the plan of a replay from a decoded capture (see replay.h). Two
 * passes: the first walks the trace's calls in order, following handles to
 * names (MNT's root, LOOKUP, CREATE, MKDIR, v4's current handle through a
 * COMPOUND and GETFH) and noting for every name how the trace first touched
 * it; the second decides the data files, the paths, what exists beforehand
 * and each operation's place, connection and wait.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

#define NONE UINT32_MAX
#define NAME_LEN_MAX 64
#define PATH_LEN_MAX 240

/* v4 operation numbers used here (RFC 8881) */
enum {
	V4_ACCESS = 3, V4_CLOSE = 4, V4_COMMIT = 5, V4_CREATE = 6, V4_GETATTR = 9, V4_GETFH = 10,
	V4_LOOKUP = 15, V4_LOOKUPP = 16, V4_OPEN = 18, V4_PUTFH = 22, V4_PUTPUBFH = 23,
	V4_PUTROOTFH = 24, V4_READ = 25, V4_READDIR = 26, V4_REMOVE = 28, V4_RENAME = 29,
	V4_RESTOREFH = 31, V4_SAVEFH = 32, V4_SETATTR = 34, V4_WRITE = 38,
};

enum touch { TOUCH_NONE, TOUCH_MADE, TOUCH_MISSING, TOUCH_USED };

struct node {
	uint32_t parent, name;	/* name: index in t->names; orphans: handle | ORPHAN */
	uint8_t first;		/* enum touch */
	bool dir, data;
	uint32_t file;
	uint64_t size;
	uint32_t producer_conn, producer_op;	/* the last LOOKUP/CREATE/OPEN naming it */
};

#define ORPHAN 0x80000000u

/* One operation as the first pass found it; the second pass places it. */
struct cand {
	const struct trace_op *op;	/* its times, status, offset, count */
	uint32_t conn;			/* trace connection */
	uint32_t node, node2;
	int8_t type;			/* enum op_type, or -1 - enum replay_skip */
	bool open_create, close;
	uint8_t mode;			/* create: trace createmode + 1 */
	uint8_t prio;
};

struct builder {
	const struct trace *t;
	struct node *nodes;
	uint32_t n, cap;
	uint64_t *keys;		/* (parent << 32 | name) + 1; 0 free */
	uint32_t *vals, slots;
	uint32_t *fhnode;	/* handle -> node, NONE */
	struct cand *c;
	size_t nc, ccap;
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
					.producer_conn = NONE };
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

#define SKIP(r) (-1 - (int)(r))

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
	case V4_CLOSE: return SKIP(REPLAY_SKIP_SETUP);
	case V4_ACCESS: return OP_ACCESS;
	case V4_LOOKUP: return OP_LOOKUP;
	case V4_GETATTR: return OP_GETATTR;
	}
	return SKIP(REPLAY_SKIP_NO_OP);
}

/* One COMPOUND, ops[0..n): its main operation on the names its handles lead to. */
static int walk_v4(struct builder *b, const struct trace_op *ops, size_t n)
{
	uint32_t cur = NONE, saved = NONE;
	struct cand best = { .type = SKIP(REPLAY_SKIP_SETUP) };

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
		}
		if (trace_is_session_op(op->proc))
			continue;
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

/* A name safe to make in the work directory: the trace's, or "n<index>". */
static void leaf(const struct builder *b, uint32_t i, char *buf, size_t len)
{
	const struct node *nd = &b->nodes[i];
	const struct trace_blob *nm;
	bool ok;

	if (nd->name & ORPHAN) {
		snprintf(buf, len, "h%u", nd->name & ~ORPHAN);
		return;
	}
	nm = trace_blob(&b->t->names, nd->name);
	ok = nm && nm->len > 0 && nm->len <= NAME_LEN_MAX &&
	     !(nm->len == 1 && nm->p[0] == '.') &&
	     !(nm->len == 2 && nm->p[0] == '.' && nm->p[1] == '.');
	for (uint32_t k = 0; ok && k < nm->len; k++) {
		uint8_t ch = nm->p[k];

		ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		     (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
	}
	/* The names the replay gives: nN in any directory (it renames there too), file.N and
	 * hN at the top; and the work dir's marker. */
	if (ok && nm->p[0] != '.') {
		bool top = nd->parent == 0;
		unsigned digits = 0;
		size_t skip = top && nm->len > 5 && !memcmp(nm->p, "file.", 5) ? 5 :
			      (nm->p[0] == 'n' || (top && nm->p[0] == 'h')) ? 1 : 0;

		while (skip && skip + digits < nm->len && nm->p[skip + digits] >= '0' &&
		       nm->p[skip + digits] <= '9')
			digits++;
		ok = !(skip && digits && skip + digits == nm->len);
	}
	if (ok && nm->p[0] == '.' && nm->len >= 8 && !memcmp(nm->p, ".nfsload", 8))
		ok = false;
	if (ok)
		snprintf(buf, len, "%.*s", (int)nm->len, (const char *)nm->p);
	else
		snprintf(buf, len, "n%u", i);
}

#define STATUS_EXIST 17	/* NFS3ERR_EXIST, NFS4ERR_EXIST */

/* How op first touches its node: made, found missing, or used. */
static enum touch touch_of(const struct cand *c)
{
	int32_t s = c->op->version == 4 ? c->op->compound_status : c->op->status;
	bool make = c->type == OP_CREATE || c->type == OP_MKDIR || c->open_create;

	if (make && s == 0)
		return TOUCH_MADE;
	if (make && s == STATUS_EXIST)
		return TOUCH_USED;	/* it was there already */
	if (s != 0)
		return TOUCH_MISSING;
	return TOUCH_USED;
}

static int32_t status_of(const struct trace_op *op)
{
	int32_t s = op->version == 4 ? op->compound_status : op->status;

	return s == TRACE_NO_REPLY ? s : s == 0 ? 0 : s < 0 ? 1 : s;
}

/* Second pass, part one: data files, paths, what exists beforehand. */
static int place_names(struct builder *b, struct replay_plan *p)
{
	for (size_t k = 0; k < b->nc; k++) {
		struct cand *c = &b->c[k];
		struct node *nd;

		if (c->type < 0 || c->node == NONE)
			continue;
		nd = &b->nodes[c->node];
		if (nd->first == TOUCH_NONE)
			nd->first = (uint8_t)touch_of(c);
		if (c->node2 != NONE && b->nodes[c->node2].first == TOUCH_NONE)
			b->nodes[c->node2].first = TOUCH_MADE;
		if (c->type == OP_READ || c->type == OP_WRITE || c->type == OP_COMMIT) {
			if (!nd->data) {
				nd->data = true;
				nd->dir = false;
				nd->file = p->nfiles++;
			}
			if (c->type == OP_READ && c->op->offset + c->op->count > nd->size)
				nd->size = c->op->offset + c->op->count;
		}
	}
	p->nnodes = p->npaths = b->n;
	p->nodes = calloc(b->n, sizeof(*p->nodes));
	p->paths = calloc(b->n, sizeof(*p->paths));
	p->file_size = calloc(p->nfiles + 1, sizeof(*p->file_size));
	if (!p->nodes || !p->paths || !p->file_size)
		return -ENOMEM;
	for (uint32_t i = 0; i < b->n; i++) {
		struct node *nd = &b->nodes[i];
		struct replay_node *rn = &p->nodes[i];
		char name[80], path[PATH_LEN_MAX + 80];

		rn->dir = nd->dir && !nd->data;
		rn->file = nd->data ? nd->file : UINT32_MAX;
		if (i == 0) {
			path[0] = '\0';
			rn->dir = rn->before = true;
		} else if (nd->data) {
			wl_file_name(NULL, nd->file, path, sizeof(path));
			p->file_size[nd->file] = nd->size;
		} else if (!p->paths[nd->parent]) {
			continue;	/* under a path too long: left out */
		} else {
			leaf(b, i, name, sizeof(name));
			snprintf(path, sizeof(path), "%s%s%s", p->paths[nd->parent],
				 nd->parent ? "/" : "", name);
			if (strlen(path) > PATH_LEN_MAX)
				continue;
		}
		rn->before = i == 0 || nd->data || nd->first == TOUCH_USED ||
			     (rn->dir && nd->first == TOUCH_NONE);
		if (!(p->paths[i] = strdup(path)))
			return -ENOMEM;
	}
	/* What exists beforehand sits in directories that do. */
	for (uint32_t i = b->n; i-- > 1;) {
		uint32_t up = b->nodes[i].parent;

		if (p->nodes[i].before && p->paths[i] && !b->nodes[i].data && up != NONE) {
			p->nodes[up].before = true;
			p->nodes[up].dir = true;
		}
	}
	return 0;
}

/* The connection's range for data file id, added if new. */
static int conn_range(struct replay_conn *rc, uint32_t file, uint32_t *range)
{
	for (uint32_t r = rc->nfiles; r-- > 0;)
		if (rc->files[r] == file) {
			*range = r;
			return 0;
		}
	if ((rc->nfiles & (rc->nfiles - 1)) == 0) {
		uint32_t *v = realloc(rc->files, (rc->nfiles ? rc->nfiles * 2 : 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rc->files = v;
	}
	rc->files[rc->nfiles] = file;
	*range = rc->nfiles++;
	return 0;
}

/* Most calls in flight at once on the connection, by the trace's times. */
static unsigned depth_of(const struct replay_conn *rc)
{
	uint64_t ends[REPLAY_DEPTH_MAX];
	unsigned n = 0, most = 1;

	for (uint32_t i = 0; i < rc->nops; i++) {
		const struct replay_op *o = &rc->ops[i];
		unsigned k = 0;

		for (unsigned j = 0; j < n; j++)
			if (ends[j] > o->at_ns)
				ends[k++] = ends[j];
		n = k;
		if (n < REPLAY_DEPTH_MAX)
			ends[n++] = o->at_ns + o->trace_lat_ns;
		if (n > most)
			most = n;
	}
	return most;
}

/* Second pass, part two: each operation on its connection. */
static int place_ops(struct builder *b, struct replay_plan *p, uint32_t max_io)
{
	uint32_t *conn_of = malloc((b->t->conns + 2) * sizeof(*conn_of));
	uint64_t t0 = UINT64_MAX;

	if (!conn_of)
		return -ENOMEM;
	memset(conn_of, 0xff, (b->t->conns + 2) * sizeof(*conn_of));
	for (size_t k = 0; k < b->nc; k++) {
		struct cand *c = &b->c[k];
		const struct node *nd = c->node != NONE ? &b->nodes[c->node] : NULL;

		p->trace_ops++;
		/* The connections' own set-up opens and closes the data files. */
		if (nd && nd->data && (c->type == OP_OPEN || c->open_create))
			c->type = SKIP(REPLAY_SKIP_SETUP);
		if (c->type >= 0 && (!p->paths[c->node] ||
				     (c->node2 != NONE && !p->paths[c->node2])))
			c->type = SKIP(REPLAY_SKIP_NAME);
		if (c->type < 0) {
			p->skipped[-1 - c->type]++;
			continue;
		}
		if (c->op->call_ns < t0)
			t0 = c->op->call_ns;
		if (conn_of[c->conn] == NONE) {
			struct replay_conn *v = realloc(p->conns, (p->nconns + 1) * sizeof(*v));

			if (!v)
				goto nomem;
			p->conns = v;
			conn_of[c->conn] = p->nconns;
			p->conns[p->nconns++] = (struct replay_conn){ .trace_conn = c->conn };
		}
	}
	for (size_t k = 0; k < b->nc; k++) {
		struct cand *c = &b->c[k];
		struct replay_conn *rc;
		struct replay_op *o;
		struct node *nd;
		uint32_t ci;

		if (c->type < 0)
			continue;
		ci = conn_of[c->conn];
		rc = &p->conns[ci];
		nd = &b->nodes[c->node];
		if ((rc->nops & (rc->nops - 1)) == 0) {
			struct replay_op *v = realloc(rc->ops, (rc->nops ? rc->nops * 2 : 1) *
						      sizeof(*v));

			if (!v)
				goto nomem;
			rc->ops = v;
		}
		o = &rc->ops[rc->nops];
		*o = (struct replay_op){
			.at_ns = c->op->call_ns - t0, .path = c->node,
			.path2 = c->node2 == NONE ? 0 : c->node2, .dep = REPLAY_NO_DEP,
			.trace_status = status_of(c->op), .type = (uint8_t)c->type,
		};
		if (c->op->reply_ns > c->op->call_ns)
			o->trace_lat_ns = c->op->reply_ns - c->op->call_ns;
		if (c->type == OP_READ || c->type == OP_WRITE || c->type == OP_COMMIT) {
			if (conn_range(rc, nd->file, &o->range))
				goto nomem;
			o->offset = c->op->offset;
			o->len = c->op->count > max_io && c->type != OP_COMMIT ? max_io :
				 c->op->count;
		}
		if (c->open_create)
			o->type = OP_CREATE;
		if (o->type == OP_REMOVE && p->nodes[c->node].dir)
			o->type = OP_RMDIR;
		/* An UNCHECKED create, or one of a name made beforehand, must not fail on it. */
		o->unchecked = o->type == OP_CREATE && (c->mode == 1 || p->nodes[c->node].before);
		if (nd->producer_conn == c->conn)
			o->dep = nd->producer_op;
		if (c->type == OP_LOOKUP || c->type == OP_CREATE || c->type == OP_MKDIR ||
		    c->type == OP_OPEN) {
			nd->producer_conn = c->conn;
			nd->producer_op = rc->nops;
		}
		if (o->at_ns > p->span_ns)
			p->span_ns = o->at_ns;
		if (o->at_ns + o->trace_lat_ns > rc->span_ns)
			rc->span_ns = o->at_ns + o->trace_lat_ns;
		rc->nops++;
		p->ops++;
	}
	for (uint32_t i = 0; i < p->nconns; i++) {
		p->conns[i].depth = depth_of(&p->conns[i]);
		if (p->conns[i].depth > p->depth)
			p->depth = p->conns[i].depth;
	}
	free(conn_of);
	return 0;
nomem:
	free(conn_of);
	return -ENOMEM;
}

const char *replay_skip_name(enum replay_skip r)
{
	static const char *const names[REPLAY_SKIP_N] = {
		"done by the replay's own set-up (MOUNT, FSINFO, v4 session, OPEN/CLOSE of a "
		"data file)",
		"no operation of the engines does it (FSSTAT, PATHCONF, READLINK, LINK, LOCK ...)",
		"a path longer than the replay makes",
	};

	return r < REPLAY_SKIP_N ? names[r] : "?";
}

int replay_plan_build(const struct trace *t, uint32_t max_io, struct replay_plan *plan,
		      char *err, size_t len)
{
	struct builder b = { .t = t, .cap = 256 };
	int rc = -ENOMEM;

	memset(plan, 0, sizeof(*plan));
	b.nodes = malloc(b.cap * sizeof(*b.nodes));
	b.fhnode = malloc((t->fhs.n + 1) * sizeof(*b.fhnode));
	if (!b.nodes || !b.fhnode || grow_map(&b))
		goto out;
	memset(b.fhnode, 0xff, (t->fhs.n + 1) * sizeof(*b.fhnode));
	b.nodes[0] = (struct node){ .parent = NONE, .dir = true, .file = NONE,
				    .producer_conn = NONE };
	b.n = 1;
	for (size_t i = 0; i < t->nops;) {
		const struct trace_op *op = &t->ops[i];
		size_t n = 1;

		if (op->version == 4 && op->compound) {
			while (i + n < t->nops && t->ops[i + n].compound == op->compound)
				n++;
			rc = walk_v4(&b, op, n);
		} else if (op->version == 4) {
			rc = add(&b, op, SKIP(REPLAY_SKIP_SETUP), NONE) ? 0 : -ENOMEM;	/* NULL */
		} else {
			rc = walk_v3(&b, op);
		}
		if (rc)
			goto out;
		i += n;
	}
	rc = -ENOMEM;
	if (place_names(&b, plan) || place_ops(&b, plan, max_io ? max_io : UINT32_MAX))
		goto out;
	rc = 0;
	if (plan->ops == 0) {
		snprintf(err, len, "nothing in it to replay (%llu calls, none of a kind the "
			 "engines do)", (unsigned long long)plan->trace_ops);
		rc = -ENOENT;
	}
out:
	free(b.nodes);
	free(b.keys);
	free(b.vals);
	free(b.fhnode);
	free(b.c);
	if (rc)
		replay_plan_free(plan);
	if (rc == -ENOMEM)
		snprintf(err, len, "out of memory");
	return rc;
}

void replay_plan_free(struct replay_plan *p)
{
	for (uint32_t i = 0; i < p->nconns; i++) {
		free(p->conns[i].ops);
		free(p->conns[i].files);
	}
	for (uint32_t i = 0; i < p->npaths; i++)
		free(p->paths[i]);
	free(p->conns);
	free(p->paths);
	free(p->nodes);
	free(p->file_size);
	memset(p, 0, sizeof(*p));
}
