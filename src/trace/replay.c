/*
 * replay: the plan of a replay from a decoded capture (see replay.h), second
 * pass. replay_walk.c walked the trace's calls, following handles to names and
 * noting for every name how the trace first touched it; this pass decides the
 * data files, the paths, what exists beforehand and each operation's place,
 * connection and wait.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "replay_int.h"

#define NAME_LEN_MAX 64
#define PATH_LEN_MAX 240

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

/* An op on a data file (READ, WRITE, COMMIT, the v4.2 ones), not on a name. */
static bool on_data(int type)
{
	return type >= 0 && op_info((enum op_type)type)->cls != OPC_NAME;
}

uint32_t replay_op_bytes(const struct replay_op *o)
{
	return o->type == OP_READ || o->type == OP_WRITE || o->type == OP_READ_PLUS ? o->len : 0;
}

/* Its request or reply carries len bytes of data (the rest: a range, a count). */
static bool carries(int type)
{
	return type == OP_READ || type == OP_WRITE || type == OP_READ_PLUS || type == OP_SETXATTR;
}

/* Reads the file's bytes [offset, offset + count): a READ, READ_PLUS, COPY or CLONE's source. */
static bool reads_range(int type)
{
	return type == OP_READ || type == OP_READ_PLUS || type == OP_COPY || type == OP_CLONE;
}

/* nd is a data file from now on (the next of the plan's files, once). */
static void make_data(struct replay_plan *p, struct node *nd)
{
	if (nd->data)
		return;
	nd->data = true;
	nd->dir = false;
	nd->file = p->nfiles++;
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
	bool *under_file;

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
		if (on_data(c->type)) {
			make_data(p, nd);
			if ((c->type == OP_COPY || c->type == OP_CLONE) && c->node2 != NONE)
				make_data(p, &b->nodes[c->node2]);	/* the destination */
			if (reads_range(c->type) && c->op->offset + c->op->count > nd->size)
				nd->size = c->op->offset + c->op->count;
		}
	}
	p->nnodes = p->npaths = b->n;
	p->nodes = calloc(b->n, sizeof(*p->nodes));
	p->paths = calloc(b->n, sizeof(*p->paths));
	p->file_size = calloc(p->nfiles + 1, sizeof(*p->file_size));
	/* Names under a handle the trace also reads or writes as a file (a trace at odds
	 * with itself): no set-up can make them, so none is made beforehand. */
	under_file = calloc(b->n, sizeof(*under_file));
	if (!p->nodes || !p->paths || !p->file_size || !under_file) {
		free(under_file);
		return -ENOMEM;
	}
	for (uint32_t i = 1; i < b->n; i++) {
		uint32_t up = b->nodes[i].parent;

		under_file[i] = !b->nodes[i].data && up != NONE &&
				(b->nodes[up].data || under_file[up]);
	}
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
		rn->before = i == 0 || nd->data || (!under_file[i] && (nd->first == TOUCH_USED ||
			     (rn->dir && nd->first == TOUCH_NONE)));
		if (!(p->paths[i] = strdup(path))) {
			free(under_file);
			return -ENOMEM;
		}
	}
	free(under_file);
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

/* o (on replay connection ci) waits for op xop of connection xci, if that is another
 * connection's and later than what o waits for already. */
static void consider(struct replay_op *o, uint32_t ci, uint32_t xci, uint32_t xop, uint64_t at,
		    uint64_t *latest)
{
	if (xci == NONE || xci == ci || (o->xconn != REPLAY_NO_DEP && at <= *latest))
		return;
	o->xconn = xci;
	o->xop = xop;
	*latest = at;
}

/*
 * Across connections, what the trace's order says: an operation on a name waits for
 * the last one of another connection that made, removed or renamed it (or its
 * directory); one that makes, removes or renames a name waits for the last operation
 * of another connection on it. Operations that only use a name do not wait for each
 * other (reads of one file stay side by side).
 */
static void cross(struct builder *b, struct replay_op *o, uint32_t ci,
		  uint32_t node, bool changing, uint64_t *latest)
{
	struct node *nd = &b->nodes[node];

	consider(o, ci, nd->change_ci, nd->change_op, nd->change_at, latest);
	if (nd->parent != NONE) {
		struct node *up = &b->nodes[nd->parent];

		consider(o, ci, up->change_ci, up->change_op, up->change_at, latest);
	}
	if (changing)
		consider(o, ci, nd->use_ci, nd->use_op, nd->use_at, latest);
}

static void mark(struct builder *b, uint32_t node, uint32_t ci, uint32_t idx, uint64_t at,
		 bool changing)
{
	struct node *nd = &b->nodes[node];

	nd->use_ci = ci;
	nd->use_op = idx;
	nd->use_at = at;
	if (changing) {
		nd->change_ci = ci;
		nd->change_op = idx;
		nd->change_at = at;
	}
}

/* The plan's index of the trace's xattr name nm (interned there, its index in
 * b->xname_ix); 0: out of memory. */
static uint32_t xname_of(struct builder *b, struct replay_plan *p, uint32_t nm)
{
	const struct trace_blob *x = trace_blob(&b->t->names, nm);
	char buf[80];
	bool ok = x && x->len > 0 && x->len <= NAME_LEN_MAX;

	if (!b->xname_ix && !(b->xname_ix = calloc(b->t->names.n + 1, sizeof(*b->xname_ix))))
		return 0;
	if (b->xname_ix[nm])
		return b->xname_ix[nm];
	for (uint32_t k = 0; ok && k < x->len; k++) {
		uint8_t ch = x->p[k];

		ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		     (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
	}
	if (ok)
		snprintf(buf, sizeof(buf), "%.*s", (int)x->len, (const char *)x->p);
	else
		snprintf(buf, sizeof(buf), "x%u", nm);
	if ((p->nxnames & (p->nxnames - 1)) == 0) {	/* 0, 1, 2, 4 ...: [0] is unused */
		char **v = realloc(p->xnames, (p->nxnames ? p->nxnames * 2 : 2) * sizeof(*v));

		if (!v)
			return 0;
		p->xnames = v;
	}
	if (!p->nxnames)
		p->xnames[p->nxnames++] = NULL;
	if (!(p->xnames[p->nxnames] = strdup(buf)))
		return 0;
	return b->xname_ix[nm] = p->nxnames++;
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
		uint64_t latest;
		bool changing;
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
			.xconn = REPLAY_NO_DEP, .xop = REPLAY_NO_DEP,
			.trace_status = status_of(c->op), .type = (uint8_t)c->type,
		};
		if (c->op->reply_ns > c->op->call_ns)
			o->trace_lat_ns = c->op->reply_ns - c->op->call_ns;
		if (on_data(c->type)) {
			if (conn_range(rc, nd->file, &o->range))
				goto nomem;
			o->offset = c->op->offset;
			/* What moves data on the wire is cut to the engine's largest. */
			o->len = c->op->count > max_io && carries(c->type) ? max_io : c->op->count;
			if (c->type == OP_SEEK || c->type == OP_IO_ADVISE)	/* (SETXATTR's option: not) */
				o->what = c->op->what;
			if ((c->type == OP_COPY || c->type == OP_CLONE) &&
			    conn_range(rc, b->nodes[c->node2].file, &o->range2))
				goto nomem;
			o->offset2 = c->op->offset2;
			if (c->op->name && (c->type == OP_GETXATTR || c->type == OP_SETXATTR ||
					    c->type == OP_REMOVEXATTR) &&
			    !(o->xname = xname_of(b, p, c->op->name)))
				goto nomem;
		}
		if (c->open_create)
			o->type = OP_CREATE;
		if (o->type == OP_REMOVE && p->nodes[c->node].dir)
			o->type = OP_RMDIR;
		/* An UNCHECKED create, or one of a name made beforehand, must not fail on it. */
		o->unchecked = o->type == OP_CREATE && (c->mode == 1 || p->nodes[c->node].before);
		if (nd->producer_conn == c->conn)
			o->dep = nd->producer_op;
		/*
		 * ... and the one of its own connection that named its directory, if later: a
		 * name made in a directory the connection has just made must not go out before
		 * that MKDIR's reply (nfsload's own set-up makes v42src, then v42src/x0, with
		 * two calls in flight: a replay slower than the trace sent the second first).
		 */
		if (nd->parent != NONE && !nd->data) {	/* a data file's path is its own */
			const struct node *up = &b->nodes[nd->parent];

			if (up->producer_conn == c->conn &&
			    (o->dep == REPLAY_NO_DEP || up->producer_op > o->dep))
				o->dep = up->producer_op;
		}
		changing = o->type == OP_CREATE || o->type == OP_MKDIR || o->type == OP_REMOVE ||
			   o->type == OP_RMDIR || o->type == OP_RENAME;
		latest = 0;
		cross(b, o, ci, c->node, changing, &latest);
		/* RENAME's new name changes; COPY and CLONE's destination is used, as a WRITE's file */
		if (c->node2 != NONE)
			cross(b, o, ci, c->node2, changing, &latest);
		mark(b, c->node, ci, rc->nops, o->at_ns, changing);
		if (c->node2 != NONE)
			mark(b, c->node2, ci, rc->nops, o->at_ns, changing);
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
	struct builder b = { .t = t };
	int rc;

	memset(plan, 0, sizeof(*plan));
	rc = replay_walk(&b);
	if (rc)
		goto out;
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
	replay_builder_free(&b);
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
	for (uint32_t i = 1; i < p->nxnames; i++)
		free(p->xnames[i]);
	free(p->xnames);
	free(p->conns);
	free(p->paths);
	free(p->nodes);
	free(p->file_size);
	memset(p, 0, sizeof(*p));
}
