/*
 * libFuzzer target: the replay planner (src/trace/replay.c, replay_walk.c),
 * which turns a decoded capture into the namespace and per-connection
 * operations a --replay run issues. Byte 0 says where the trace comes from:
 *
 *   bit 0 clear: a capture file's image, decoded by trace_load (as
 *     --replay does; kept in a memfd), the rest of the input;
 *   bit 0 set: a trace made directly from the bytes, so that every mutation
 *     reaches the planner: byte 1 picks max_io (0: none, else 512 << (b % 12));
 *     then handles and names (a count byte, then per blob a length byte and
 *     its bytes, interned as trace_load interns them); then operations of 16
 *     bytes each: conn (1..8), flags (bit 0 NFSv4, bit 1 a new COMPOUND,
 *     bit 2 MOUNT, bit 3 no reply, bits 4-5 minor version), proc, status
 *     (0, or an nfsstat, or TRACE_RPC_ERROR / TRACE_NOT_RUN), fh, dir, name,
 *     result_fh, dir2, name2 (each an index into its table, taken modulo its
 *     size + 1: 0 is none), offset (2 bytes, x 4096), count (2 bytes, x 16),
 *     stable, the call's delay after the last call and the reply's after the
 *     call (in us). Calls come in time order, as trace_load gives them.
 *
 * Checks (replay.h): replay_plan_build returns 0, -ENOENT (nothing to
 * replay, a message) or -ENOMEM, and a failed build leaves the plan empty;
 * on success:
 *   - the operations are the connections' (ops == the sum of their nops,
 *     trace_ops of them plus those skipped, by reason);
 *   - each connection is a trace connection once, its depth 1..256 and at
 *     most the plan's (the largest), its files data files of the plan;
 *   - each operation: a type of enum op_type; a wait on its own connection
 *     for an earlier operation only; on another connection for an operation
 *     that exists; its time within the plan's span (and, from made-up traces,
 *     never before the connection's previous one); a data op's (READ,
 *     WRITE, COMMIT, the v4.2 ones: the op table's class) range one of its
 *     connection's files (COPY, CLONE: the destination's too) and its length
 *     at most max_io (READ, WRITE, READ_PLUS, SETXATTR); an xattr op's name
 *     one the plan made; a metadata operation's path (and RENAME's second)
 *     one the plan made;
 *   - the namespace: path 0 is the work directory (""), made beforehand;
 *     every other path is "file.<id>" at the top for a data file (its id
 *     below nfiles) or names of [A-Za-z0-9._-], 1..64 bytes, not "." or "..",
 *     joined by "/", at most 240 bytes, under a name that comes earlier in
 *     the plan (parents before children), which is a directory made
 *     beforehand whenever the name is made beforehand;
 *   - building the same trace again gives the same plan.
 */
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "ops.h"
#include "replay.h"
#include "trace.h"
#include "trace/trace_int.h"
#include "workload.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OP_BYTES 16
#define CONNS_MAX 8
#define NAME_LEAF_MAX 64
#define PATH_MAX_ 240
#define CHECK_NODES_MAX 4000	/* the O(n^2) parent check stops here */

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = fuzz_memfd("fuzz_replay", path, sizeof(path));
	return 0;
}

static bool plain_leaf(const char *s, size_t n)
{
	if (n < 1 || n > NAME_LEAF_MAX || (n == 1 && s[0] == '.') ||
	    (n == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i]) ||
		    !s[i])
			return false;
	return true;
}

static void check_paths(const struct replay_plan *p)
{
	FUZZ_CHECK(p->npaths == p->nnodes && p->nnodes >= 1);
	FUZZ_CHECK(p->paths[0] && p->paths[0][0] == '\0' && p->nodes[0].before && p->nodes[0].dir);
	for (uint32_t i = 1; i < p->nnodes; i++) {
		const struct replay_node *n = &p->nodes[i];
		const char *s = p->paths[i], *slash, *leaf;

		if (!s)
			continue;	/* under a path too long: left out */
		FUZZ_CHECK(strlen(s) <= PATH_MAX_);
		if (n->file != UINT32_MAX) {
			char want[64];

			FUZZ_CHECK(n->file < p->nfiles && !n->dir);
			wl_file_name(NULL, n->file, want, sizeof(want));
			FUZZ_CHECK(strcmp(s, want) == 0);
			continue;
		}
		slash = strrchr(s, '/');
		leaf = slash ? slash + 1 : s;
		FUZZ_CHECK(plain_leaf(leaf, strlen(leaf)));
		if (i >= CHECK_NODES_MAX)
			continue;
		/* the directory it sits in: an earlier node's path ("" at the top) */
		{
			size_t dl = slash ? (size_t)(slash - s) : 0;
			uint32_t j;

			for (j = 0; j < i; j++)
				if (p->paths[j] && strlen(p->paths[j]) == dl &&
				    strncmp(p->paths[j], s, dl) == 0)
					break;
			FUZZ_CHECK(j < i);
			/* (one only named, never made, may sit under what the trace used as a file) */
			if (n->before)
				FUZZ_CHECK(p->nodes[j].before && p->nodes[j].dir);
		}
	}
}

/* What replay.h promises of a plan; returns its digest. */
static uint64_t check_plan(const struct trace *t, const struct replay_plan *p, uint32_t max_io,
			   bool in_order)
{
	uint64_t h = FUZZ_FNV_BASIS, sum = 0, skipped = 0;

	check_paths(p);
	FUZZ_CHECK(p->ops >= 1 && p->nconns >= 1);
	for (int r = 0; r < REPLAY_SKIP_N; r++) {
		skipped += p->skipped[r];
		FUZZ_CHECK(replay_skip_name((enum replay_skip)r)[0] != '?');
	}
	FUZZ_CHECK(p->ops + skipped == p->trace_ops);
	FUZZ_CHECK(p->depth >= 1 && p->depth <= REPLAY_DEPTH_MAX);
	for (uint32_t ci = 0; ci < p->nconns; ci++) {
		const struct replay_conn *c = &p->conns[ci];
		uint64_t prev = 0;

		FUZZ_CHECK(c->trace_conn >= 1 && c->trace_conn <= t->conns);
		for (uint32_t k = 0; k < ci; k++)
			FUZZ_CHECK(p->conns[k].trace_conn != c->trace_conn);
		FUZZ_CHECK(c->depth >= 1 && c->depth <= p->depth && c->nops >= 1);
		for (uint32_t f = 0; f < c->nfiles; f++)
			FUZZ_CHECK(c->files[f] < p->nfiles);
		sum += c->nops;
		for (uint32_t i = 0; i < c->nops; i++) {
			const struct replay_op *o = &c->ops[i];
			enum op_class cls = o->type < OP_NTYPES ? op_info((enum op_type)o->type)->cls :
					    OPC_NAME;
			bool data = cls == OPC_IO || cls == OPC_FILE;
			bool two = o->type == OP_COPY || o->type == OP_CLONE;
			bool xattr = o->type == OP_GETXATTR || o->type == OP_SETXATTR ||
				     o->type == OP_REMOVEXATTR;

			FUZZ_CHECK(o->type < OP_NTYPES);
			FUZZ_CHECK(o->dep == REPLAY_NO_DEP || o->dep < i);
			/* state: the held slot's ops (OPC_HELD, OPC_LOCK, an OPEN that holds) on a
			 * slot of the plan's, each after the slot's previous one */
			FUZZ_CHECK(o->held == (cls == OPC_HELD || cls == OPC_LOCK ||
					       (o->type == OP_OPEN && o->held)));
			FUZZ_CHECK(!o->held || o->slot < p->open_slots);
			FUZZ_CHECK(o->held || o->sdep == REPLAY_NO_DEP);
			FUZZ_CHECK(o->sdep == REPLAY_NO_DEP || o->sdep < i);
			FUZZ_CHECK((o->xconn == REPLAY_NO_DEP) == (o->xop == REPLAY_NO_DEP));
			if (o->xconn != REPLAY_NO_DEP)
				FUZZ_CHECK(o->xconn < p->nconns && o->xconn != ci &&
					   o->xop < p->conns[o->xconn].nops);
			FUZZ_CHECK(o->at_ns <= p->span_ns);
			if (in_order)
				FUZZ_CHECK(o->at_ns >= prev);
			prev = o->at_ns;
			FUZZ_CHECK(o->path < p->npaths && p->paths[o->path]);
			if (o->type == OP_RENAME)
				FUZZ_CHECK(o->path2 < p->npaths && p->paths[o->path2]);
			if (data) {
				FUZZ_CHECK(o->range < c->nfiles);
				if (o->type == OP_READ || o->type == OP_WRITE ||
				    o->type == OP_READ_PLUS || o->type == OP_SETXATTR)
					FUZZ_CHECK(o->len <= max_io);
				FUZZ_CHECK(replay_op_bytes(o) <= o->len);
			}
			/* v4.2: COPY and CLONE's destination a file of the connection; an xattr
			 * op's name one the plan made, plain or x<index> */
			FUZZ_CHECK(!two || o->range2 < c->nfiles);
			FUZZ_CHECK(o->xname < (p->nxnames ? p->nxnames : 1));
			FUZZ_CHECK(!xattr || o->xname);
			if (o->xname) {
				FUZZ_CHECK(xattr && p->xnames[o->xname]);
				FUZZ_CHECK(strlen(p->xnames[o->xname]) >= 1 &&
					   strlen(p->xnames[o->xname]) <= NAME_LEAF_MAX);
			}
			fuzz_hash(&h, o, offsetof(struct replay_op, unchecked));
			fuzz_hash(&h, &o->unchecked, sizeof(o->unchecked));
			fuzz_hash(&h, &o->held, sizeof(o->held));
		}
		fuzz_hash(&h, &c->trace_conn, sizeof(c->trace_conn));
		fuzz_hash(&h, &c->depth, sizeof(c->depth));
		fuzz_hash(&h, &c->span_ns, sizeof(c->span_ns));
		fuzz_hash(&h, c->files, c->nfiles * sizeof(*c->files));
	}
	FUZZ_CHECK(sum == p->ops);
	for (uint32_t i = 0; i < p->npaths; i++) {
		fuzz_hash(&h, &p->nodes[i].before, sizeof(p->nodes[i].before));
		fuzz_hash(&h, &p->nodes[i].dir, sizeof(p->nodes[i].dir));
		if (p->paths[i])
			fuzz_hash(&h, p->paths[i], strlen(p->paths[i]) + 1);
	}
	fuzz_hash(&h, p->file_size, p->nfiles * sizeof(*p->file_size));
	fuzz_hash(&h, &p->span_ns, sizeof(p->span_ns));
	fuzz_hash(&h, p->skipped, sizeof(p->skipped));
	return h;
}

static void plan(const struct trace *t, uint32_t max_io, bool in_order)
{
	uint64_t first = 0;

	for (int k = 0; k < 2; k++) {
		struct replay_plan p;
		char err[256] = "";
		int rc = replay_plan_build(t, max_io, &p, err, sizeof(err));
		uint64_t h;

		FUZZ_CHECK(rc == 0 || rc == -ENOENT || rc == -ENOMEM);
		if (k == 0 && getenv("FUZZ_VERBOSE"))	/* what a seed reaches: see README.md */
			fprintf(stderr, "plan: rc %d, %llu ops on %u connections of %zu trace ops, "
				"%u paths, %u data files%s%s\n", rc, (unsigned long long)p.ops,
				p.nconns, t->nops, p.npaths, p.nfiles, rc ? ": " : "", rc ? err : "");
		if (rc) {
			FUZZ_CHECK(err[0] && fuzz_terminated(err, sizeof(err)) && !strchr(err, '\n'));
			FUZZ_CHECK(p.nconns == 0 && p.conns == NULL && p.npaths == 0 && p.ops == 0);
			h = (uint64_t)(int64_t)rc;
		} else {
			h = check_plan(t, &p, max_io ? max_io : UINT32_MAX, in_order);
		}
		replay_plan_free(&p);
		if (k == 0)
			first = h;
		else
			FUZZ_CHECK(h == first);
	}
}

/* The made-up trace of bit 0 (see the top). */
static void made_up(const uint8_t *p, size_t n)
{
	struct trace t;
	struct trace_table *tabs[2];
	uint32_t max_io;
	uint64_t now = 1000;
	uint8_t conns_seen = 0;

	memset(&t, 0, sizeof(t));
	tabs[0] = &t.fhs;
	tabs[1] = &t.names;
	if (n < 1)
		return;
	max_io = p[0] % 13 ? UINT32_C(512) << (p[0] % 13 - 1) : 0;
	p++, n--;
	for (int k = 0; k < 2 && n; k++) {
		unsigned count = *p++;

		n--;
		for (unsigned i = 0; i < count && n; i++) {
			size_t len = *p++;

			n--;
			if (len > n)
				len = n;
			if (len && trace_intern(tabs[k], p, (uint32_t)len) == UINT32_MAX)
				abort();
			p += len, n -= len;
		}
	}
	for (; n >= OP_BYTES; p += OP_BYTES, n -= OP_BYTES) {
		struct trace_op *o;
		uint8_t fl = p[1];
		static const int32_t statuses[8] = { 0, 0, 0, 2, 17, TRACE_RPC_ERROR,
						     TRACE_NOT_RUN, 70 };

		if (t.nops == t.cap) {
			size_t cap = t.cap ? t.cap * 2 : 16;
			struct trace_op *v = realloc(t.ops, cap * sizeof(*v));

			if (!v)
				abort();
			t.ops = v;
			t.cap = cap;
		}
		o = &t.ops[t.nops++];
		memset(o, 0, sizeof(*o));
		o->conn = 1 + p[0] % CONNS_MAX;
		conns_seen |= (uint8_t)(1u << (o->conn - 1));
		if (o->conn > t.conns)
			t.conns = o->conn;
		o->prog = (fl & 4) ? TRACE_MOUNT : TRACE_NFS;
		o->version = (fl & 1) && o->prog == TRACE_NFS ? 4 : 3;
		o->minor = o->version == 4 ? (uint8_t)((fl >> 4) & 3) % 3 : 0;
		o->proc = o->version == 4 ? p[2] % 80 : p[2] % 24;	/* v4: to 4.2's REMOVEXATTR (75) */
		o->status = p[3] < 200 ? statuses[p[3] % 8] : TRACE_NO_REPLY;
		o->fh = p[4] % (t.fhs.n + 1);
		o->dir = p[5] % (t.fhs.n + 1);
		o->name = p[6] % (t.names.n + 1);
		o->result_fh = p[7] % (t.fhs.n + 1);
		o->dir2 = p[8] % (t.fhs.n + 1);
		o->name2 = p[9] % (t.names.n + 1);
		o->offset = (uint64_t)(p[10] << 8 | p[11]) * 4096;
		o->count = (uint32_t)(p[12] << 8 | p[13]) * 16;
		o->stable = p[14] % 4;
		if (o->version == 4) {
			if ((fl & 2) || !t.compounds || t.nops == 1 || t.ops[t.nops - 2].version != 4 ||
			    t.ops[t.nops - 2].conn != o->conn)
				t.compounds++;
			o->compound = t.compounds;
			o->compound_status = o->status;
			if (o->compound == (t.nops >= 2 ? t.ops[t.nops - 2].compound : 0))
				o->call_ns = t.ops[t.nops - 2].call_ns;	/* one COMPOUND, one time */
		}
		if (!o->call_ns) {
			now += (p[15] & 15) * 1000u;
			o->call_ns = now;
		}
		if (fl & 8)
			o->status = TRACE_NO_REPLY;
		else
			o->reply_ns = o->call_ns + 1000u * (1 + (p[15] >> 4));
		if (o->reply_ns > t.span_ns)
			t.span_ns = o->reply_ns;
		if (o->version == 3 && o->prog == TRACE_NFS)
			t.versions |= 1;
		else if (o->prog == TRACE_MOUNT)
			t.versions |= 1u << 7;
		else
			t.versions |= 2u << o->minor;
	}
	/* the trace's connections are 1..conns, each seen (trace_load's numbering) */
	if (t.conns && conns_seen == (uint8_t)((1u << t.conns) - 1))
		plan(&t, max_io, true);
	trace_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1) {
		made_up(data + 1, size - 1);
	} else {
		struct trace t;
		char err[256];

		if (ftruncate(fd, 0) < 0 || pwrite(fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
			abort();
		if (trace_load(path, &t, err, sizeof(err)) == 0) {
			plan(&t, 1u << 20, false);
			trace_free(&t);
		}
	}
	return 0;
}
