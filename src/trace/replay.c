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
#include "trace_int.h"

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

/* An op on a data file (READ, WRITE, COMMIT, the v4.2 ones), not on a name (nor on a
 * held slot: the state ops). */
static bool on_data(int type)
{
	enum op_class cls = type >= 0 ? op_info((enum op_type)type)->cls : OPC_NAME;

	return cls == OPC_IO || cls == OPC_FILE;
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
	/* (a held OPEN, replay.h, that made its file makes it again: the engines' OPEN of
	 * a held slot creates, UNCHECKED) */
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

		/* (a state op but an OPEN works on its open, not on the name) */
		if (c->type < 0 || c->node == NONE || (c->state_op && c->type != OP_OPEN))
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
	/* An RMDIR waits for the last operation on a name inside the directory, of any
	 * connection: removed there by a REMOVE still waiting for its own turn, a name
	 * would leave the directory not empty (ENOTEMPTY, a new error). */
	if (o->type == OP_RMDIR && nd->child_ci != NONE) {
		if (nd->child_ci != ci)
			consider(o, ci, nd->child_ci, nd->child_op, nd->child_at, latest);
		else if (o->dep == REPLAY_NO_DEP || nd->child_op > o->dep)
			o->dep = nd->child_op;
	}
}

static void mark(struct builder *b, uint32_t node, uint32_t ci, uint32_t idx, uint64_t at,
		 bool changing)
{
	struct node *nd = &b->nodes[node];

	nd->use_ci = ci;
	nd->use_op = idx;
	nd->use_at = at;
	if (nd->parent != NONE) {
		struct node *up = &b->nodes[nd->parent];

		up->child_ci = ci;
		up->child_op = idx;
		up->child_at = at;
	}
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

/* A trace connection's held slots while the plan maps its state ops. */
struct sconn {
	uint32_t *last;		/* per slot: the candidate of its last state op, NONE */
	uint32_t *gen;		/* per slot: bumped each time it is freed */
	uint32_t *node;		/* per slot: the name opened */
	bool *open;		/* per slot: an open held (by the trace's order) */
	uint32_t *free;		/* slots free again (a stack) */
	uint32_t nslots, nfree;
};

/* A stateid's, a lock-owner's or a name's slot, while that slot's open lasts. */
struct sref {
	uint32_t conn, slot, gen;	/* conn NONE: none */
};

struct smaps {
	struct sconn *conns;	/* by trace connection */
	uint32_t nconns;
	struct sref *states, *owners;	/* by trace index */
	struct trace_map nodes;		/* conn << 32 | node -> slot + 1: its last open there */
};

static void smaps_free(struct smaps *m)
{
	for (uint32_t i = 0; m->conns && i < m->nconns; i++) {
		free(m->conns[i].last);
		free(m->conns[i].gen);
		free(m->conns[i].node);
		free(m->conns[i].open);
		free(m->conns[i].free);
	}
	free(m->conns);
	free(m->states);
	free(m->owners);
	trace_map_free(&m->nodes);
}

static int smaps_init(struct smaps *m, const struct builder *b)
{
	const struct trace *t = b->t;

	memset(m, 0, sizeof(*m));
	m->nconns = t->conns + 2;
	m->conns = calloc(m->nconns, sizeof(*m->conns));
	m->states = malloc((t->states.n + 1) * sizeof(*m->states));
	m->owners = malloc((t->owners.n + 1) * sizeof(*m->owners));
	if (!m->conns || !m->states || !m->owners)
		return -ENOMEM;
	memset(m->states, 0xff, (t->states.n + 1) * sizeof(*m->states));
	memset(m->owners, 0xff, (t->owners.n + 1) * sizeof(*m->owners));
	return 0;
}

/* The slot of connection conn's last open of node, while it is open; NONE. (Per
 * connection: clients that share a file each open it.) */
static uint32_t node_slot(const struct smaps *m, uint32_t conn, uint32_t node)
{
	const struct sconn *sc = &m->conns[conn];
	uint32_t v = trace_map_get(&m->nodes, (uint64_t)conn << 32 | node);

	return v && v - 1 < sc->nslots && sc->open[v - 1] && sc->node[v - 1] == node ? v - 1 :
	       NONE;
}

/* The slot r names on connection conn, while that open lasts; NONE. */
static uint32_t sref_slot(const struct smaps *m, const struct sref *r, uint32_t conn)
{
	if (r->conn != conn || r->conn >= m->nconns)
		return NONE;
	return m->conns[conn].gen[r->slot] == r->gen ? r->slot : NONE;
}

static void sref_set(struct smaps *m, struct sref *r, uint32_t conn, uint32_t slot)
{
	*r = (struct sref){ .conn = conn, .slot = slot, .gen = m->conns[conn].gen[slot] };
}

/* The lowest slot free on sc (a new one if none): NONE when out of memory. */
static uint32_t slot_take(struct sconn *sc)
{
	uint32_t best = 0, s;

	if (sc->nfree) {
		for (uint32_t k = 1; k < sc->nfree; k++)
			if (sc->free[k] < sc->free[best])
				best = k;
		s = sc->free[best];
		sc->free[best] = sc->free[--sc->nfree];
		return s;
	}
	if ((sc->nslots & (sc->nslots - 1)) == 0) {
		uint32_t cap = sc->nslots ? sc->nslots * 2 : 1;
		uint32_t *l = realloc(sc->last, cap * sizeof(*l)), *g, *n, *f;
		bool *o;

		if (l)
			sc->last = l;
		g = l ? realloc(sc->gen, cap * sizeof(*g)) : NULL;
		if (g)
			sc->gen = g;
		n = g ? realloc(sc->node, cap * sizeof(*n)) : NULL;
		if (n)
			sc->node = n;
		f = n ? realloc(sc->free, cap * sizeof(*f)) : NULL;
		if (f)
			sc->free = f;
		o = f ? realloc(sc->open, cap * sizeof(*o)) : NULL;
		if (!o)
			return NONE;
		sc->open = o;
	}
	sc->open[sc->nslots] = false;
	sc->last[sc->nslots] = NONE;
	sc->gen[sc->nslots] = 0;
	sc->node[sc->nslots] = NONE;
	return sc->nslots++;
}

static void slot_give(struct sconn *sc, uint32_t s)
{
	sc->gen[s]++;	/* what named its open names nothing now */
	sc->open[s] = false;
	sc->free[sc->nfree++] = s;
}

static bool trace_ok(const struct cand *c)
{
	return status_of(c->op) == 0;
}

/*
 * Candidate k, a state op (replay.h), on its trace connection's held slots: the
 * slot of the open it works on (an OPEN: a free one), c->slot, and the slot's
 * previous state op, c->sprev; a CLOSE frees the slot. 0; SKIP(REPLAY_SKIP_STATE)
 * into c->type when its open was never seen; -ENOMEM.
 */
static int map_state(struct builder *b, struct smaps *m, size_t k)
{
	struct cand *c = &b->c[k];
	struct sconn *sc = &m->conns[c->conn];
	const struct trace *t = b->t;
	uint32_t s = NONE;
	bool fresh = false;

	if (c->state && c->state <= t->states.n)
		s = sref_slot(m, &m->states[c->state], c->conn);
	switch (c->type) {
	case OP_OPEN:
		/* an OPEN that names an open already held (the same file by the same
		 * open-owner: an upgrade) works on that one */
		if (c->result_state && c->result_state <= t->states.n)
			s = sref_slot(m, &m->states[c->result_state], c->conn);
		else
			s = NONE;
		if (s == NONE) {
			if ((s = slot_take(sc)) == NONE)
				return -ENOMEM;
			fresh = true;
			sc->node[s] = c->node;
		}
		break;
	case OP_LOCKT:
		/* No stateid: on the connection's last open of its file, else its lock-owner's
		 * (a client's one lock-owner over many files, nfsload's own: the file first) */
		s = NONE;
		if (c->node != NONE)
			s = node_slot(m, c->conn, c->node);
		if (s == NONE && c->owner && c->owner <= t->owners.n)
			s = sref_slot(m, &m->owners[c->owner], c->conn);
		break;
	}
	if (s == NONE) {
		c->type = SKIP(REPLAY_SKIP_STATE);
		return 0;
	}
	c->slot = s;
	c->sprev = sc->last[s];
	sc->last[s] = (uint32_t)k;
	c->node = sc->node[s];
	switch (c->type) {
	case OP_OPEN:
		if (!trace_ok(c) || !c->result_state) {
			if (fresh)	/* it opened nothing: free again (after it: sprev) */
				slot_give(sc, s);
			break;
		}
		sref_set(m, &m->states[c->result_state], c->conn, s);
		sc->open[s] = true;
		if (trace_map_put(&m->nodes, (uint64_t)c->conn << 32 | c->node, s + 1))
			return -ENOMEM;
		break;
	case OP_LOCK:
		if (!trace_ok(c))
			break;
		if (c->result_state && c->result_state <= t->states.n)
			sref_set(m, &m->states[c->result_state], c->conn, s);
		if (c->op->stable && c->owner && c->owner <= t->owners.n)
			sref_set(m, &m->owners[c->owner], c->conn, s);
		break;
	case OP_CLOSE:
		if (trace_ok(c) || c->op->status == TRACE_NO_REPLY)
			slot_give(sc, s);
		break;
	}
	return 0;
}

/* Second pass, part two: each operation on its connection. */
static int place_ops(struct builder *b, struct replay_plan *p, uint32_t max_io)
{
	uint32_t *conn_of = malloc((b->t->conns + 2) * sizeof(*conn_of));
	uint32_t *op_of = malloc((b->nc + 1) * sizeof(*op_of));	/* candidate -> its op */
	uint64_t t0 = UINT64_MAX;
	struct smaps m;

	if (smaps_init(&m, b) || !conn_of || !op_of)
		goto nomem;
	memset(conn_of, 0xff, (b->t->conns + 2) * sizeof(*conn_of));
	for (size_t k = 0; k < b->nc; k++) {
		struct cand *c = &b->c[k];
		const struct node *nd = c->node != NONE ? &b->nodes[c->node] : NULL;

		p->trace_ops++;
		/* The connections' own set-up opens and closes the data files (an open that
		 * holds, a state op, is the trace's own: replayed). */
		if (nd && nd->data && !c->state_op && (c->type == OP_OPEN || c->open_create))
			c->type = SKIP(REPLAY_SKIP_SETUP);
		if (c->type >= 0 && c->node != NONE && (!p->paths[c->node] ||
				     (c->node2 != NONE && !p->paths[c->node2])))
			c->type = SKIP(REPLAY_SKIP_NAME);
		if (c->type >= 0 && c->state_op && map_state(b, &m, k))
			goto nomem;
		if (c->type >= 0 && c->node == NONE)	/* (an OPEN's or a slot's name: never) */
			c->type = SKIP(REPLAY_SKIP_NO_OP);
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
		op_of[k] = rc->nops;
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
			.sdep = REPLAY_NO_DEP,
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
		if (c->state_op) {
			uint32_t lt = c->op->what;

			o->held = true;
			o->slot = c->slot;
			if (c->slot + 1 > p->open_slots)
				p->open_slots = c->slot + 1;
			/* the slot's previous op (of this connection: slots are per connection) */
			o->sdep = c->sprev == NONE ? REPLAY_NO_DEP : op_of[c->sprev];
			if (c->type == OP_LOCK || c->type == OP_UNLOCK || c->type == OP_LOCKT) {
				o->offset = c->op->offset;
				o->length = c->op->length;
				/* READ_LT, READW_LT: 1; WRITE_LT, WRITEW_LT: 2 (engine.h's) */
				o->what = lt == 1 || lt == 3 ? 1 : 2;
			} else if (c->type != OP_CLOSE) {
				o->what = c->op->what;	/* access | deny << 8: ENGINE_SHARE's */
			}
		} else if (c->open_create) {
			o->type = OP_CREATE;
		}
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
	free(op_of);
	smaps_free(&m);
	return 0;
nomem:
	free(conn_of);
	free(op_of);
	smaps_free(&m);
	return -ENOMEM;
}

const char *replay_skip_name(enum replay_skip r)
{
	static const char *const names[REPLAY_SKIP_N] = {
		"done by the replay's own set-up (MOUNT, FSINFO, v4 session, an OPEN and CLOSE "
		"of a data file in one COMPOUND)",
		"no operation of the engines does it (FSSTAT, PATHCONF, READLINK, LINK ...; LOCK "
		"... where the run holds no state)",
		"a path longer than the replay makes",
		"a CLOSE, LOCK ... of an open the capture did not show (begun before it)",
	};

	return r < REPLAY_SKIP_N ? names[r] : "?";
}

int replay_plan_build(const struct trace *t, uint32_t max_io, struct replay_plan *plan,
		      char *err, size_t len)
{
	return replay_plan_build_as(t, max_io, true, plan, err, len);
}

int replay_plan_build_as(const struct trace *t, uint32_t max_io, bool state,
			 struct replay_plan *plan, char *err, size_t len)
{
	struct builder b = { .t = t, .state = state };
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
