/*
 * replay planner unit tests: struct traces built by hand (ops appended in call
 * order, handles and names interned with trace_intern) turned into plans by
 * replay_plan_build. NFSv3 with its MOUNT, handles never named, the names the
 * replay renames, how a name is first touched, NFSv4 COMPOUNDs, two
 * connections and their depth, max_io, nothing to replay, left-out procedures,
 * NFSv4.2's operations as the ops of the same names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "trace.h"
#include "trace/trace_int.h"

/* NFSv3 procedures (RFC 1813) */
enum {
	P3_NULL, P3_GETATTR, P3_SETATTR, P3_LOOKUP, P3_ACCESS, P3_READLINK, P3_READ,
	P3_WRITE, P3_CREATE, P3_MKDIR, P3_SYMLINK, P3_MKNOD, P3_REMOVE, P3_RMDIR,
	P3_RENAME, P3_LINK, P3_READDIR, P3_READDIRPLUS, P3_FSSTAT, P3_FSINFO,
	P3_PATHCONF, P3_COMMIT,
};

/* NFSv4 operations (RFC 8881) */
enum {
	V4_CLOSE = 4, V4_GETATTR = 9, V4_GETFH = 10, V4_LOCK = 12, V4_LOCKT = 13, V4_LOCKU = 14,
	V4_LOOKUP = 15, V4_OPEN = 18, V4_OPEN_DOWNGRADE = 21,
	V4_PUTFH = 22, V4_PUTROOTFH = 24, V4_READ = 25, V4_REMOVE = 28, V4_RENAME = 29,
	V4_SAVEFH = 32, V4_WRITE = 38,
	V4_EXCHANGE_ID = 42, V4_CREATE_SESSION = 43, V4_SEQUENCE = 53,
	/* NFSv4.2 (RFC 7862, RFC 8276) */
	V4_ALLOCATE = 59, V4_COPY = 60, V4_DEALLOCATE = 62, V4_IO_ADVISE = 63, V4_READ_PLUS = 68,
	V4_SEEK = 69, V4_CLONE = 71, V4_GETXATTR = 72, V4_SETXATTR = 73, V4_LISTXATTRS = 74,
	V4_REMOVEXATTR = 75,
};

static uint32_t fh(struct trace *t, const char *s)
{
	uint32_t i = trace_intern(&t->fhs, (const uint8_t *)s, (uint32_t)strlen(s));

	assert_true(i != 0 && i != UINT32_MAX);
	return i;
}

static uint32_t nm(struct trace *t, const char *s)
{
	uint32_t i = trace_intern(&t->names, (const uint8_t *)s, (uint32_t)strlen(s));

	assert_true(i != 0 && i != UINT32_MAX);
	return i;
}

static struct trace_op *add_op(struct trace *t, uint32_t conn, uint64_t call, uint64_t reply)
{
	struct trace_op *op;

	if (t->nops == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		assert_non_null(t->ops = realloc(t->ops, t->cap * sizeof(*t->ops)));
	}
	op = &t->ops[t->nops++];
	memset(op, 0, sizeof(*op));
	op->conn = conn;
	op->call_ns = call;
	op->reply_ns = reply;
	op->status = reply ? 0 : TRACE_NO_REPLY;
	if (conn > t->conns)
		t->conns = conn;
	return op;
}

/* An NFSv3 call. */
static struct trace_op *v3(struct trace *t, uint32_t conn, uint16_t proc, uint64_t call,
			   uint64_t reply, int32_t status)
{
	struct trace_op *op = add_op(t, conn, call, reply);

	op->version = 3;
	op->prog = TRACE_NFS;
	op->proc = proc;
	op->status = status;
	return op;
}

/* MOUNT v3 MNT, its reply naming root. */
static void mnt(struct trace *t, uint32_t conn, uint64_t call, uint32_t root)
{
	struct trace_op *op = add_op(t, conn, call, call + 10);

	op->version = 3;
	op->prog = TRACE_MOUNT;
	op->proc = 1;
	op->result_fh = root;
	op->name = nm(t, "/export");
}

/* One operation of COMPOUND id; the ops of one COMPOUND are added one after another. */
static struct trace_op *v4(struct trace *t, uint32_t conn, uint32_t id, uint16_t proc,
			   uint64_t call, uint64_t reply, int32_t cstatus)
{
	struct trace_op *op = add_op(t, conn, call, reply);

	op->version = 4;
	op->minor = 1;
	op->prog = TRACE_NFS;
	op->proc = proc;
	op->status = cstatus;
	op->compound = id;
	op->compound_status = cstatus;
	if (id > t->compounds)
		t->compounds = id;
	return op;
}

/* A stateid's other (12 bytes) interned as trace_nfs4.c interns it. */
static uint32_t sid(struct trace *t, const char *s)
{
	uint32_t i = trace_intern(&t->states, (const uint8_t *)s, (uint32_t)strlen(s));

	assert_true(i != 0 && i != UINT32_MAX);
	return i;
}

/* A lock-owner (clientid, owner) interned as trace_nfs4.c interns it. */
static uint32_t lkowner(struct trace *t, const char *s)
{
	uint32_t i = trace_intern(&t->owners, (const uint8_t *)s, (uint32_t)strlen(s));

	assert_true(i != 0 && i != UINT32_MAX);
	return i;
}

static void build(const struct trace *t, uint32_t max_io, struct replay_plan *p)
{
	char err[256] = "";

	assert_int_equal(replay_plan_build(t, max_io, p, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

static const char *path_of(const struct replay_plan *p, uint32_t conn, uint32_t i)
{
	assert_true(conn < p->nconns);
	assert_true(i < p->conns[conn].nops);
	assert_true(p->conns[conn].ops[i].path < p->npaths);
	assert_non_null(p->paths[p->conns[conn].ops[i].path]);
	return p->paths[p->conns[conn].ops[i].path];
}

/* (1) MNT, LOOKUP a, LOOKUP a/f, three READs of f. */
static void test_v3_lookup_read(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	const struct replay_op *o;
	struct trace_op *op;
	uint32_t root, a, f;

	(void)state;
	root = fh(&t, "ROOT-HANDLE");
	a = fh(&t, "A-HANDLE");
	f = fh(&t, "F-HANDLE");
	mnt(&t, 1, 1000, root);
	op = v3(&t, 1, P3_LOOKUP, 2000, 2300, 0);
	op->dir = root, op->name = nm(&t, "a"), op->result_fh = a;
	op = v3(&t, 1, P3_LOOKUP, 3000, 3200, 0);
	op->dir = a, op->name = nm(&t, "f"), op->result_fh = f;
	op = v3(&t, 1, P3_READ, 4000, 4500, 0);
	op->fh = f, op->offset = 0, op->count = 4096;
	op = v3(&t, 1, P3_READ, 5000, 5100, 0);
	op->fh = f, op->offset = 8192, op->count = 4096;
	op = v3(&t, 1, P3_READ, 6000, 6050, 0);
	op->fh = f, op->offset = 4096, op->count = 1000;
	build(&t, 0, &p);

	assert_int_equal(p.trace_ops, 6);
	assert_int_equal(p.ops, 5);
	assert_int_equal(p.skipped[REPLAY_SKIP_SETUP], 1);
	assert_int_equal(p.skipped[REPLAY_SKIP_NO_OP], 0);
	assert_int_equal(p.skipped[REPLAY_SKIP_NAME], 0);
	assert_int_equal(p.span_ns, 4000);
	assert_int_equal(p.depth, 1);

	/* the namespace: the work dir, "a" (a directory made before), the data file */
	assert_int_equal(p.npaths, 3);
	assert_int_equal(p.nnodes, 3);
	assert_string_equal(p.paths[0], "");
	assert_true(p.nodes[0].dir && p.nodes[0].before);
	assert_string_equal(p.paths[1], "a");
	assert_true(p.nodes[1].dir);
	assert_true(p.nodes[1].before);
	assert_int_equal(p.nodes[1].file, UINT32_MAX);
	assert_string_equal(p.paths[2], "file.000000");
	assert_false(p.nodes[2].dir);
	assert_true(p.nodes[2].before);
	assert_int_equal(p.nodes[2].file, 0);
	assert_int_equal(p.nfiles, 1);
	assert_int_equal(p.file_size[0], 12288);

	/* one connection, its ops in call order from the first replayed call */
	assert_int_equal(p.nconns, 1);
	assert_int_equal(p.conns[0].trace_conn, 1);
	assert_int_equal(p.conns[0].nops, 5);
	assert_int_equal(p.conns[0].nfiles, 1);
	assert_int_equal(p.conns[0].files[0], 0);
	assert_int_equal(p.conns[0].depth, 1);
	assert_int_equal(p.conns[0].span_ns, 4050);
	o = p.conns[0].ops;
	assert_int_equal(o[0].type, OP_LOOKUP);
	assert_int_equal(o[0].at_ns, 0);
	assert_int_equal(o[0].trace_lat_ns, 300);
	assert_int_equal(o[0].trace_status, 0);
	assert_int_equal(o[0].dep, REPLAY_NO_DEP);
	assert_string_equal(path_of(&p, 0, 0), "a");
	assert_int_equal(o[1].type, OP_LOOKUP);
	assert_int_equal(o[1].at_ns, 1000);
	assert_int_equal(o[1].trace_lat_ns, 200);
	assert_int_equal(o[1].dep, REPLAY_NO_DEP);
	assert_string_equal(path_of(&p, 0, 1), "file.000000");
	for (uint32_t i = 2; i < 5; i++) {
		assert_int_equal(o[i].type, OP_READ);
		assert_int_equal(o[i].range, 0);
		assert_int_equal(o[i].dep, 1);	/* the LOOKUP that named f */
		assert_int_equal(o[i].trace_status, 0);
		assert_false(o[i].unchecked);
		assert_string_equal(path_of(&p, 0, i), "file.000000");
	}
	assert_int_equal(o[2].at_ns, 2000);
	assert_int_equal(o[2].trace_lat_ns, 500);
	assert_int_equal(o[2].offset, 0);
	assert_int_equal(o[2].len, 4096);
	assert_int_equal(o[3].at_ns, 3000);
	assert_int_equal(o[3].trace_lat_ns, 100);
	assert_int_equal(o[3].offset, 8192);
	assert_int_equal(o[3].len, 4096);
	assert_int_equal(o[4].at_ns, 4000);
	assert_int_equal(o[4].trace_lat_ns, 50);
	assert_int_equal(o[4].offset, 4096);
	assert_int_equal(o[4].len, 1000);
	replay_plan_free(&p);
	assert_null(p.conns);
	trace_free(&t);
}

/* (2) Handles seen only mid-stream: "h<index>" at the top, made before. */
static void test_unknown_handle(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	struct trace_op *op;
	uint32_t root, x, z;

	(void)state;
	root = fh(&t, "ROOT");
	x = fh(&t, "X-NEVER-NAMED");
	z = fh(&t, "Z-DIR-NEVER-NAMED");
	assert_int_equal(x, 2);
	assert_int_equal(z, 3);
	mnt(&t, 1, 100, root);
	v3(&t, 1, P3_GETATTR, 200, 250, 0)->fh = x;
	v3(&t, 1, P3_READDIRPLUS, 300, 350, 0)->fh = z;
	op = v3(&t, 1, P3_LOOKUP, 400, 450, 0);
	op->dir = z, op->name = nm(&t, "c");
	build(&t, 0, &p);

	assert_int_equal(p.ops, 3);
	assert_int_equal(p.conns[0].nops, 3);
	assert_int_equal(p.npaths, 4);
	assert_string_equal(p.paths[1], "h2");
	assert_true(p.nodes[1].before);
	assert_false(p.nodes[1].dir);
	assert_string_equal(p.paths[2], "h3");
	assert_true(p.nodes[2].before);
	assert_true(p.nodes[2].dir);
	assert_string_equal(p.paths[3], "h3/c");
	assert_true(p.nodes[3].before);
	assert_int_equal(p.conns[0].ops[0].type, OP_GETATTR);
	assert_string_equal(path_of(&p, 0, 0), "h2");
	assert_int_equal(p.conns[0].ops[1].type, OP_READDIR);
	assert_string_equal(path_of(&p, 0, 1), "h3");
	assert_int_equal(p.conns[0].ops[2].type, OP_LOOKUP);
	assert_string_equal(path_of(&p, 0, 2), "h3/c");
	replay_plan_free(&p);
	trace_free(&t);
}

/* (3) Which names the replay keeps and which become "n<index>". */
static void test_names(void **state)
{
	static const struct { const char *name, *path; bool in_d; } cases[] = {
		{ "..", "n1", false },
		{ ".", "n2", false },
		{ "a/b", "n3", false },
		{ "\xc3\xa9t\xc3\xa9", "n4", false },
		{ "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "n5",
		  false },	/* 65 bytes */
		{ "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", false },
		{ "file.000001", "n7", false },
		{ "h12", "n8", false },
		{ "n3", "n9", false },
		{ ".nfsload-owner", "n10", false },
		{ "plain_Name-1.txt", "plain_Name-1.txt", false },
		{ "file.x", "file.x", false },
		{ "h", "h", false },
		{ "n3x", "n3x", false },
		{ ".hidden", ".hidden", false },
		{ "a b", "n16", false },
		{ "h12", "d/h12", true },		/* the replay's own names are at the top */
		{ "file.000001", "d/file.000001", true },
		{ "..", "d/n20", true },
		{ ".nfsload-owner", "d/n21", true },
	};
	size_t n = sizeof(cases) / sizeof(cases[0]);
	struct trace t = { 0 };
	struct replay_plan p;
	struct trace_op *op;
	uint32_t root, d;

	(void)state;
	root = fh(&t, "ROOT");
	d = fh(&t, "D");
	mnt(&t, 1, 100, root);
	for (size_t i = 0; i < n; i++) {
		if (cases[i].in_d && i && !cases[i - 1].in_d) {	/* "d" is node i + 1 */
			op = v3(&t, 1, P3_LOOKUP, 1000 + i * 10, 1005 + i * 10, 0);
			op->dir = root, op->name = nm(&t, "d"), op->result_fh = d;
		}
		op = v3(&t, 1, P3_LOOKUP, 2000 + i * 10, 2005 + i * 10, 0);
		op->dir = cases[i].in_d ? d : root;
		op->name = nm(&t, cases[i].name);
	}
	build(&t, 0, &p);

	assert_int_equal(p.conns[0].nops, n + 1);
	assert_int_equal(p.npaths, n + 2);
	for (uint32_t i = 0, k = 0; i < p.conns[0].nops; i++) {
		const char *path = path_of(&p, 0, i);

		assert_int_equal(p.conns[0].ops[i].type, OP_LOOKUP);
		if (!strcmp(path, "d"))
			continue;
		assert_string_equal(path, cases[k].path);
		assert_true(p.nodes[p.conns[0].ops[i].path].before);
		k++;
	}
	replay_plan_free(&p);
	trace_free(&t);
}

/* A plain "n<digits>" in a directory must not take the name given to another node there. */
static void test_name_collision(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	struct trace_op *op;
	uint32_t root, d;

	(void)state;
	root = fh(&t, "ROOT");
	d = fh(&t, "D");
	mnt(&t, 1, 100, root);
	op = v3(&t, 1, P3_LOOKUP, 200, 210, 0);	/* node 1 */
	op->dir = root, op->name = nm(&t, "d"), op->result_fh = d;
	op = v3(&t, 1, P3_LOOKUP, 300, 310, 0);	/* node 2: "d/n2" */
	op->dir = d, op->name = nm(&t, "..");
	op = v3(&t, 1, P3_LOOKUP, 400, 410, 0);	/* node 3, the trace's own "n2" */
	op->dir = d, op->name = nm(&t, "n2");
	op = v3(&t, 1, P3_LOOKUP, 500, 510, 0);	/* node 4: not of the form, kept */
	op->dir = d, op->name = nm(&t, "n2x");
	build(&t, 0, &p);

	assert_int_equal(p.npaths, 5);
	assert_string_equal(p.paths[1], "d");
	assert_string_equal(p.paths[2], "d/n2");
	assert_string_equal(p.paths[3], "d/n3");
	assert_string_equal(p.paths[4], "d/n2x");
	for (uint32_t i = 0; i < p.npaths; i++)
		for (uint32_t j = i + 1; j < p.npaths; j++)
			assert_string_not_equal(p.paths[i], p.paths[j]);
	replay_plan_free(&p);
	trace_free(&t);
}

/* (4) How a name is first touched decides whether it is made before. */
static void test_first_touch(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	const struct replay_op *o;
	struct trace_op *op;
	uint32_t root, nfh, s, d, ufh;

	(void)state;
	root = fh(&t, "ROOT");
	nfh = fh(&t, "NEW");
	s = fh(&t, "SYMLINK");
	d = fh(&t, "D");
	ufh = fh(&t, "U");
	mnt(&t, 1, 100, root);
	op = v3(&t, 1, P3_CREATE, 1000, 1100, 0);	/* node 1: made by the trace */
	op->dir = root, op->name = nm(&t, "new"), op->result_fh = nfh, op->stable = 2;
	v3(&t, 1, P3_GETATTR, 1200, 1250, 0)->fh = nfh;
	op = v3(&t, 1, P3_LOOKUP, 2000, 2100, 2);	/* node 2: found missing */
	op->dir = root, op->name = nm(&t, "gone");
	op = v3(&t, 1, P3_SYMLINK, 3000, 3100, 0);	/* node 3: not replayed ... */
	op->dir = root, op->name = nm(&t, "s"), op->result_fh = s;
	v3(&t, 1, P3_GETATTR, 3200, 3250, 0)->fh = s;	/* ... first GETATTRed */
	op = v3(&t, 1, P3_LOOKUP, 4000, 4100, 0);	/* node 4: a directory */
	op->dir = root, op->name = nm(&t, "d"), op->result_fh = d;
	op = v3(&t, 1, P3_LOOKUP, 4200, 4300, 0);	/* node 5 */
	op->dir = d, op->name = nm(&t, "x");
	op = v3(&t, 1, P3_REMOVE, 4400, 4500, 0);
	op->dir = root, op->name = nm(&t, "d");
	op = v3(&t, 1, P3_CREATE, 5000, 5100, 0);	/* node 6: UNCHECKED */
	op->dir = root, op->name = nm(&t, "u"), op->result_fh = ufh, op->stable = 1;
	build(&t, 0, &p);

	assert_int_equal(p.trace_ops, 10);
	assert_int_equal(p.ops, 8);
	assert_int_equal(p.skipped[REPLAY_SKIP_SETUP], 1);
	assert_int_equal(p.skipped[REPLAY_SKIP_NO_OP], 1);
	assert_int_equal(p.npaths, 7);
	assert_string_equal(p.paths[1], "new");
	assert_false(p.nodes[1].before);
	assert_string_equal(p.paths[2], "gone");
	assert_false(p.nodes[2].before);
	assert_string_equal(p.paths[3], "s");
	assert_true(p.nodes[3].before);
	assert_false(p.nodes[3].dir);
	assert_string_equal(p.paths[4], "d");
	assert_true(p.nodes[4].before);
	assert_true(p.nodes[4].dir);
	assert_string_equal(p.paths[5], "d/x");
	assert_true(p.nodes[5].before);
	assert_string_equal(p.paths[6], "u");
	assert_false(p.nodes[6].before);

	o = p.conns[0].ops;
	assert_int_equal(o[0].type, OP_CREATE);
	assert_false(o[0].unchecked);
	assert_int_equal(o[0].path, 1);
	assert_int_equal(o[1].type, OP_GETATTR);
	assert_int_equal(o[1].path, 1);
	assert_int_equal(o[1].dep, 0);		/* waits for the CREATE */
	assert_int_equal(o[2].type, OP_LOOKUP);
	assert_int_equal(o[2].path, 2);
	assert_int_equal(o[2].trace_status, 2);
	assert_int_equal(o[3].type, OP_GETATTR);
	assert_int_equal(o[3].path, 3);
	assert_int_equal(o[3].dep, REPLAY_NO_DEP);
	assert_int_equal(o[4].type, OP_LOOKUP);
	assert_int_equal(o[5].type, OP_LOOKUP);
	assert_int_equal(o[5].dep, 4);		/* in d: after the LOOKUP that named d */
	assert_int_equal(o[6].type, OP_RMDIR);
	assert_int_equal(o[6].path, 4);
	assert_int_equal(o[6].dep, 5);		/* the last op on a name in d (the LOOKUP of
						 * d/x), which came after the LOOKUP of d */
	assert_int_equal(o[7].type, OP_CREATE);
	assert_true(o[7].unchecked);
	assert_int_equal(o[7].path, 6);
	replay_plan_free(&p);
	trace_free(&t);
}

/* A CREATE, MKDIR or OPEN-create failing with EXIST (17) first: the name was there before. */
static void test_exist_first(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	struct trace_op *op;
	uint32_t root;

	(void)state;
	root = fh(&t, "ROOT");
	mnt(&t, 1, 100, root);
	op = v3(&t, 1, P3_MKDIR, 200, 210, 17);		/* node 1 */
	op->dir = root, op->name = nm(&t, "there");
	op = v3(&t, 1, P3_CREATE, 300, 310, 17);	/* node 2 */
	op->dir = root, op->name = nm(&t, "was"), op->stable = 2;
	op = v3(&t, 1, P3_MKDIR, 400, 410, 13);		/* node 3: ACCES, not known there */
	op->dir = root, op->name = nm(&t, "denied");
	v4(&t, 1, 1, V4_SEQUENCE, 500, 510, 17);		/* node 4 */
	v4(&t, 1, 1, V4_PUTROOTFH, 500, 510, 17);
	op = v4(&t, 1, 1, V4_OPEN, 500, 510, 17);
	op->name = nm(&t, "v4was"), op->stable = 2;
	build(&t, 0, &p);

	assert_int_equal(p.ops, 4);
	assert_string_equal(p.paths[1], "there");
	assert_true(p.nodes[1].before);
	assert_true(p.nodes[1].dir);
	assert_int_equal(p.conns[0].ops[0].type, OP_MKDIR);
	assert_int_equal(p.conns[0].ops[0].trace_status, 17);
	assert_string_equal(p.paths[2], "was");
	assert_true(p.nodes[2].before);
	assert_false(p.nodes[2].dir);
	assert_int_equal(p.conns[0].ops[1].type, OP_CREATE);
	assert_string_equal(p.paths[3], "denied");
	assert_false(p.nodes[3].before);
	assert_string_equal(p.paths[4], "v4was");
	assert_true(p.nodes[4].before);
	/* an OPEN that would have held its open: a held OPEN by name (state), never a CREATE */
	assert_int_equal(p.conns[0].ops[3].type, OP_OPEN);
	assert_true(p.conns[0].ops[3].held);
	assert_int_equal(p.conns[0].ops[3].trace_status, 17);
	replay_plan_free(&p);
	trace_free(&t);
}

/*
 * fuzz: a handle the trace reads (a data file) and looks a name up in: the data
 * file stays a file, and the name under it is not made beforehand (the set-up
 * could not make it; its LOOKUP fails on replay where the trace's did not).
 */
static void test_name_under_data_file(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	struct trace_op *op;
	uint32_t root, f;

	(void)state;
	root = fh(&t, "ROOT");
	f = fh(&t, "F");
	mnt(&t, 1, 100, root);
	op = v3(&t, 1, P3_LOOKUP, 200, 210, 0);		/* node 1 */
	op->dir = root, op->name = nm(&t, "f"), op->result_fh = f;
	op = v3(&t, 1, P3_READ, 300, 310, 0);
	op->fh = f, op->count = 4096;
	op = v3(&t, 1, P3_LOOKUP, 400, 410, 0);		/* node 2, under the data file */
	op->dir = f, op->name = nm(&t, "x");
	build(&t, 0, &p);

	assert_int_equal(p.nnodes, 3);
	assert_int_equal(p.nodes[1].file, 0);
	assert_string_equal(p.paths[1], "file.000000");
	assert_true(p.nodes[1].before);
	assert_false(p.nodes[1].dir);
	assert_string_equal(p.paths[2], "file.000000/x");
	assert_false(p.nodes[2].before);
	assert_int_equal(p.ops, 3);
	replay_plan_free(&p);
	trace_free(&t);
}

/* RENAME: from one name to another, the second made by it; a path too long is left out. */
static void test_rename_long_path(void **state)
{
	char part[61];
	struct trace t = { 0 };
	struct replay_plan p;
	const struct replay_op *o;
	struct trace_op *op;
	uint32_t root, a, dirs[4];

	(void)state;
	memset(part, 'p', 60);
	part[60] = 0;
	root = fh(&t, "ROOT");
	a = fh(&t, "A");
	dirs[0] = fh(&t, "P1"), dirs[1] = fh(&t, "P2"), dirs[2] = fh(&t, "P3"), dirs[3] = fh(&t, "P4");
	mnt(&t, 1, 100, root);
	op = v3(&t, 1, P3_LOOKUP, 200, 210, 0);		/* node 1 */
	op->dir = root, op->name = nm(&t, "a"), op->result_fh = a;
	op = v3(&t, 1, P3_RENAME, 300, 350, 0);		/* nodes 2, 3 */
	op->dir = a, op->name = nm(&t, "old"), op->dir2 = root, op->name2 = nm(&t, "new");
	for (int i = 0; i < 4; i++) {			/* nodes 4..7: 60, 121, 182, 243 bytes */
		op = v3(&t, 1, P3_LOOKUP, 400 + (uint64_t)i * 10, 405 + (uint64_t)i * 10, 0);
		op->dir = i ? dirs[i - 1] : root, op->name = nm(&t, part), op->result_fh = dirs[i];
	}
	op = v3(&t, 1, P3_LOOKUP, 500, 510, 0);	/* node 8, under one too long */
	op->dir = dirs[3], op->name = nm(&t, "x");
	build(&t, 0, &p);

	assert_int_equal(p.trace_ops, 8);
	assert_int_equal(p.ops, 5);
	assert_int_equal(p.skipped[REPLAY_SKIP_NAME], 2);
	assert_int_equal(p.skipped[REPLAY_SKIP_SETUP], 1);
	assert_int_equal(p.npaths, 9);
	assert_string_equal(p.paths[2], "a/old");
	assert_true(p.nodes[2].before);
	assert_string_equal(p.paths[3], "new");
	assert_false(p.nodes[3].before);
	assert_int_equal(strlen(p.paths[6]), 182);
	assert_null(p.paths[7]);
	assert_null(p.paths[8]);
	o = p.conns[0].ops;
	assert_int_equal(o[1].type, OP_RENAME);
	assert_int_equal(o[1].path, 2);
	assert_int_equal(o[1].path2, 3);
	assert_int_equal(o[1].trace_lat_ns, 50);
	assert_int_equal(o[4].type, OP_LOOKUP);
	assert_int_equal(o[4].path, 6);
	replay_plan_free(&p);
	trace_free(&t);
}

/* (5) NFSv4 COMPOUNDs: their main operation on the names their handles lead to. */
static void test_v4_compounds(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	const struct replay_op *o;
	struct trace_op *op;
	uint32_t y, dat, nf, c = 0;

	(void)state;
	y = fh(&t, "Y");
	dat = fh(&t, "DAT");
	nf = fh(&t, "NEWF");
	c++;					/* session set-up before the first replayed call */
	v4(&t, 1, c, V4_EXCHANGE_ID, 500, 510, 0);
	c++;
	v4(&t, 1, c, V4_CREATE_SESSION, 600, 610, 0);
	c++;					/* LOOKUP x/y */
	v4(&t, 1, c, V4_SEQUENCE, 1000, 1200, 0);
	v4(&t, 1, c, V4_PUTROOTFH, 1000, 1200, 0);
	v4(&t, 1, c, V4_LOOKUP, 1000, 1200, 0)->name = nm(&t, "x");
	v4(&t, 1, c, V4_LOOKUP, 1000, 1200, 0)->name = nm(&t, "y");
	v4(&t, 1, c, V4_GETFH, 1000, 1200, 0)->result_fh = y;
	c++;
	v4(&t, 1, c, V4_SEQUENCE, 1300, 1310, 0);	/* SEQUENCE alone: a lease renewal */
	c++;					/* OPEN of the data file, held */
	v4(&t, 1, c, V4_SEQUENCE, 2000, 2100, 0);
	v4(&t, 1, c, V4_PUTROOTFH, 2000, 2100, 0);
	op = v4(&t, 1, c, V4_OPEN, 2000, 2100, 0);
	op->name = nm(&t, "dat"), op->result_state = sid(&t, "open-dat----");
	v4(&t, 1, c, V4_GETFH, 2000, 2100, 0)->result_fh = dat;
	c++;
	v4(&t, 1, c, V4_SEQUENCE, 3000, 3100, 0);
	v4(&t, 1, c, V4_PUTFH, 3000, 3100, 0)->fh = dat;
	op = v4(&t, 1, c, V4_READ, 3000, 3100, 0);
	op->offset = 8192, op->count = 4096;
	c++;
	v4(&t, 1, c, V4_SEQUENCE, 4000, 4100, 0);
	v4(&t, 1, c, V4_PUTFH, 4000, 4100, 0)->fh = dat;
	v4(&t, 1, c, V4_CLOSE, 4000, 4100, 0)->state = sid(&t, "open-dat----");
	c++;					/* OPEN with create of another name */
	v4(&t, 1, c, V4_SEQUENCE, 5000, 5100, 0);
	v4(&t, 1, c, V4_PUTROOTFH, 5000, 5100, 0);
	op = v4(&t, 1, c, V4_OPEN, 5000, 5100, 0);
	op->name = nm(&t, "newf"), op->stable = 2;	/* GUARDED */
	op->result_state = sid(&t, "open-newf---");
	v4(&t, 1, c, V4_GETFH, 5000, 5100, 0)->result_fh = nf;
	v4(&t, 1, c, V4_GETATTR, 5000, 5100, 0);
	c++;
	v4(&t, 1, c, V4_SEQUENCE, 6000, 6100, 0);
	v4(&t, 1, c, V4_PUTFH, 6000, 6100, 0)->fh = y;
	v4(&t, 1, c, V4_GETATTR, 6000, 6100, 0);
	add_op(&t, 1, 6500, 6510)->version = 4;	/* NULL */
	c++;					/* REMOVE of a directory, failing */
	v4(&t, 1, c, V4_SEQUENCE, 7000, 7100, 66);
	v4(&t, 1, c, V4_PUTROOTFH, 7000, 7100, 66);
	v4(&t, 1, c, V4_REMOVE, 7000, 7100, 66)->name = nm(&t, "x");
	c++;					/* RENAME x/y -> z: SAVEFH the from dir, PUTFH the to */
	v4(&t, 1, c, V4_SEQUENCE, 8000, 8100, 0);
	v4(&t, 1, c, V4_PUTROOTFH, 8000, 8100, 0);
	v4(&t, 1, c, V4_LOOKUP, 8000, 8100, 0)->name = nm(&t, "x");
	v4(&t, 1, c, V4_SAVEFH, 8000, 8100, 0);
	v4(&t, 1, c, V4_PUTROOTFH, 8000, 8100, 0);
	op = v4(&t, 1, c, V4_RENAME, 8000, 8100, 0);
	op->name = nm(&t, "y"), op->name2 = nm(&t, "z");
	build(&t, 0, &p);

	assert_int_equal(p.trace_ops, 12);
	assert_int_equal(p.ops, 8);
	assert_int_equal(p.skipped[REPLAY_SKIP_SETUP], 4);
	assert_int_equal(p.skipped[REPLAY_SKIP_NO_OP], 0);
	assert_int_equal(p.skipped[REPLAY_SKIP_STATE], 0);
	assert_int_equal(p.npaths, 6);
	assert_string_equal(p.paths[1], "x");
	assert_true(p.nodes[1].dir && p.nodes[1].before);
	assert_string_equal(p.paths[2], "x/y");
	assert_true(p.nodes[2].before);
	assert_false(p.nodes[2].dir);
	assert_string_equal(p.paths[3], "file.000000");
	assert_true(p.nodes[3].before);
	assert_int_equal(p.nodes[3].file, 0);
	assert_int_equal(p.nfiles, 1);
	assert_int_equal(p.file_size[0], 12288);
	/* made by a held OPEN: made by the replay's (it creates, UNCHECKED) */
	assert_string_equal(p.paths[4], "newf");
	assert_false(p.nodes[4].before);

	assert_int_equal(p.nconns, 1);
	assert_int_equal(p.conns[0].nops, 8);
	assert_int_equal(p.open_slots, 1);
	o = p.conns[0].ops;
	assert_int_equal(o[0].type, OP_LOOKUP);	/* the deepest LOOKUP */
	assert_string_equal(path_of(&p, 0, 0), "x/y");
	assert_int_equal(o[0].at_ns, 0);
	assert_int_equal(o[0].trace_lat_ns, 200);
	assert_false(o[0].held);
	/* the data file's OPEN held (the trace's own, beside the connection's set-up) */
	assert_int_equal(o[1].type, OP_OPEN);
	assert_true(o[1].held);
	assert_int_equal(o[1].slot, 0);
	assert_int_equal(o[1].sdep, REPLAY_NO_DEP);
	assert_string_equal(path_of(&p, 0, 1), "file.000000");
	assert_int_equal(o[2].type, OP_READ);
	assert_false(o[2].held);
	assert_string_equal(path_of(&p, 0, 2), "file.000000");
	assert_int_equal(o[2].at_ns, 2000);
	assert_int_equal(o[2].offset, 8192);
	assert_int_equal(o[2].len, 4096);
	assert_int_equal(o[2].range, 0);
	assert_int_equal(o[2].dep, 1);	/* the OPEN that named it */
	assert_int_equal(o[3].type, OP_CLOSE);	/* its slot free again ... */
	assert_int_equal(o[3].slot, 0);
	assert_int_equal(o[3].sdep, 1);
	assert_int_equal(o[4].type, OP_OPEN);	/* ... for the next OPEN, after the CLOSE */
	assert_true(o[4].held);
	assert_int_equal(o[4].slot, 0);
	assert_int_equal(o[4].sdep, 3);
	assert_string_equal(path_of(&p, 0, 4), "newf");
	assert_int_equal(o[5].type, OP_GETATTR);
	assert_string_equal(path_of(&p, 0, 5), "x/y");
	assert_int_equal(o[5].dep, 0);
	assert_int_equal(o[6].type, OP_RMDIR);
	assert_string_equal(path_of(&p, 0, 6), "x");
	assert_int_equal(o[6].trace_status, 66);
	assert_int_equal(o[6].at_ns, 6000);
	assert_int_equal(o[7].type, OP_RENAME);
	assert_string_equal(path_of(&p, 0, 7), "x/y");
	assert_int_equal(o[7].path2, 5);
	assert_string_equal(p.paths[5], "z");
	assert_false(p.nodes[5].before);
	assert_int_equal(p.span_ns, 7000);
	replay_plan_free(&p);
	trace_free(&t);
}

/* COMPOUND id on conn at time call (SEQUENCE, then PUTROOTFH or PUTFH f): its state op. */
static struct trace_op *st4(struct trace *t, uint32_t conn, uint32_t id, uint32_t f,
			    uint16_t proc, uint64_t call, int32_t status)
{
	struct trace_op *op;

	v4(t, conn, id, V4_SEQUENCE, call, call + 50, status);
	if (f)
		v4(t, conn, id, V4_PUTFH, call, call + 50, status)->fh = f;
	else
		v4(t, conn, id, V4_PUTROOTFH, call, call + 50, status);
	op = v4(t, conn, id, proc, call, call + 50, status);
	op->fh = f;
	return op;
}

/*
 * State (replay.h): each traced open on a held slot of its connection, the lowest free;
 * a lock stateid and a new lock-owner on the slot of the open they came from (LOCKT by
 * its file's open, or else by its lock-owner); a CLOSE frees the slot for the next OPEN, which
 * waits for it; the current stateid of a COMPOUND followed; what names an open never
 * seen (closed, another connection's, before the capture) left out as REPLAY_SKIP_STATE;
 * an OPEN and its CLOSE in one COMPOUND hold nothing (one OP_OPEN, not held).
 */
static void test_state(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	const struct replay_op *o;
	struct trace_op *op;
	uint32_t fb, id = 0;

	(void)state;
	fb = fh(&t, "FB");
	op = st4(&t, 1, ++id, 0, V4_OPEN, 1000, 0);		/* a: slot 0 */
	op->name = nm(&t, "a"), op->result_state = sid(&t, "A"), op->what = 3 | 2 << 8;
	op = st4(&t, 1, ++id, 0, V4_OPEN, 2000, 0);		/* b: slot 1 */
	op->name = nm(&t, "b"), op->result_state = sid(&t, "B"), op->what = 1;
	v4(&t, 1, id, V4_GETFH, 2000, 2050, 0)->result_fh = fb;
	op = st4(&t, 1, ++id, 0, V4_LOCK, 3000, 0);		/* new lock-owner from a's open */
	op->state = sid(&t, "A"), op->stable = 1, op->owner = lkowner(&t, "OW1");
	op->result_state = sid(&t, "LA"), op->what = 2, op->offset = 4096, op->length = 512;
	op = st4(&t, 1, ++id, 0, V4_LOCKU, 4000, 0);
	op->state = sid(&t, "LA"), op->what = 2, op->offset = 4096, op->length = UINT64_MAX;
	op = st4(&t, 1, ++id, 0, V4_LOCKT, 5000, 10010);	/* by its lock-owner; denied */
	op->owner = lkowner(&t, "OW1"), op->what = 3;
	st4(&t, 1, ++id, 0, V4_CLOSE, 6000, 0)->state = sid(&t, "A");	/* frees slot 0 */
	op = st4(&t, 1, ++id, 0, V4_OPEN, 7000, 0);		/* c: slot 0 again */
	op->name = nm(&t, "c"), op->result_state = sid(&t, "C");
	op = st4(&t, 1, ++id, 0, V4_LOCK, 8000, 0);		/* a's lock: a is closed */
	op->state = sid(&t, "LA");
	st4(&t, 1, ++id, 0, V4_LOCKU, 8100, 0)->state = sid(&t, "X");	/* never seen */
	op = st4(&t, 1, ++id, fb, V4_LOCKT, 9000, 0);		/* b's file (an owner never seen) */
	op->owner = lkowner(&t, "OW9"), op->what = 1;
	op = st4(&t, 1, ++id, 0, V4_OPEN_DOWNGRADE, 10000, 0);
	op->state = sid(&t, "B"), op->what = 1;
	op = st4(&t, 1, ++id, 0, V4_OPEN, 11000, 0);		/* d: slot 2, and in the same */
	op->name = nm(&t, "d"), op->result_state = sid(&t, "D");	/* COMPOUND a LOCK */
	op = v4(&t, 1, id, V4_LOCK, 11000, 11050, 0);		/* of the current stateid */
	op->state = TRACE_STATE_CURRENT, op->stable = 1, op->owner = lkowner(&t, "OW2");
	op->result_state = sid(&t, "LD"), op->what = 4;
	op = st4(&t, 1, ++id, 0, V4_OPEN, 12000, 0);		/* OPEN and CLOSE: nothing held */
	op->name = nm(&t, "t"), op->result_state = sid(&t, "T");
	v4(&t, 1, id, V4_CLOSE, 12000, 12050, 0)->state = TRACE_STATE_CURRENT;
	st4(&t, 2, ++id, 0, V4_CLOSE, 13000, 0)->state = sid(&t, "B");	/* another conn's */
	build(&t, 0, &p);

	assert_int_equal(p.skipped[REPLAY_SKIP_STATE], 3);
	assert_int_equal(p.nconns, 1);
	assert_int_equal(p.open_slots, 3);
	assert_int_equal(p.conns[0].nops, 12);
	o = p.conns[0].ops;
	assert_int_equal(o[0].type, OP_OPEN);
	assert_true(o[0].held);
	assert_int_equal(o[0].slot, 0);
	assert_int_equal(o[0].what, 3 | 2 << 8);
	assert_string_equal(path_of(&p, 0, 0), "a");
	assert_int_equal(o[1].type, OP_OPEN);
	assert_int_equal(o[1].slot, 1);
	assert_string_equal(path_of(&p, 0, 1), "b");
	/* the lock from a's open: a's slot, after its OPEN; its range and type */
	assert_int_equal(o[2].type, OP_LOCK);
	assert_true(o[2].held);
	assert_int_equal(o[2].slot, 0);
	assert_int_equal(o[2].sdep, 0);
	assert_int_equal(o[2].offset, 4096);
	assert_int_equal(o[2].length, 512);
	assert_int_equal(o[2].what, 2);
	assert_string_equal(path_of(&p, 0, 2), "a");
	assert_int_equal(o[3].type, OP_UNLOCK);
	assert_int_equal(o[3].slot, 0);
	assert_int_equal(o[3].sdep, 2);
	assert_true(o[3].length == UINT64_MAX);
	assert_int_equal(o[4].type, OP_LOCKT);	/* READW_LT: a read lock */
	assert_int_equal(o[4].slot, 0);
	assert_int_equal(o[4].what, 1);
	assert_int_equal(o[4].trace_status, 10010);
	assert_int_equal(o[5].type, OP_CLOSE);
	assert_int_equal(o[5].slot, 0);
	assert_int_equal(o[5].sdep, 4);
	/* the freed slot taken again, after the CLOSE */
	assert_int_equal(o[6].type, OP_OPEN);
	assert_int_equal(o[6].slot, 0);
	assert_int_equal(o[6].sdep, 5);
	assert_string_equal(path_of(&p, 0, 6), "c");
	/* LOCKT: the connection's open of its file, b's */
	assert_int_equal(o[7].type, OP_LOCKT);
	assert_int_equal(o[7].slot, 1);
	assert_int_equal(o[7].sdep, 1);
	assert_int_equal(o[8].type, OP_OPEN_DOWNGRADE);
	assert_int_equal(o[8].slot, 1);
	assert_int_equal(o[8].sdep, 7);
	assert_int_equal(o[8].what, 1);
	assert_int_equal(o[9].type, OP_OPEN);
	assert_int_equal(o[9].slot, 2);
	assert_int_equal(o[10].type, OP_LOCK);	/* the current stateid: d's open */
	assert_int_equal(o[10].slot, 2);
	assert_int_equal(o[10].sdep, 9);
	assert_int_equal(o[10].what, 2);
	assert_int_equal(o[11].type, OP_OPEN);
	assert_false(o[11].held);
	assert_int_equal(o[11].sdep, REPLAY_NO_DEP);
	assert_string_equal(path_of(&p, 0, 11), "t");
	replay_plan_free(&p);
	trace_free(&t);
}

/*
 * Two connections (clients) open one file, each its own open: a LOCKT of the first,
 * whose lock-owner never locked, is on its own connection's open of the file even
 * though the other opened it since (the capture of nfsload's own: one data file).
 */
static void test_state_shared_file(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	struct trace_op *op;
	uint32_t f, id = 0;

	(void)state;
	f = fh(&t, "F");
	op = st4(&t, 1, ++id, 0, V4_OPEN, 500, 0);		/* slot 0 of the first */
	op->name = nm(&t, "other"), op->result_state = sid(&t, "S0");
	op = st4(&t, 1, ++id, 0, V4_OPEN, 1000, 0);		/* its slot 1, the other's 0 */
	op->name = nm(&t, "shared"), op->result_state = sid(&t, "S1");
	v4(&t, 1, id, V4_GETFH, 1000, 1050, 0)->result_fh = f;
	op = st4(&t, 2, ++id, 0, V4_OPEN, 2000, 0);
	op->name = nm(&t, "shared"), op->result_state = sid(&t, "S2");
	v4(&t, 2, id, V4_GETFH, 2000, 2050, 0)->result_fh = f;
	st4(&t, 1, ++id, f, V4_LOCKT, 3000, 0)->owner = lkowner(&t, "C1");
	st4(&t, 2, ++id, f, V4_LOCKT, 4000, 0)->owner = lkowner(&t, "C2");
	st4(&t, 2, ++id, f, V4_CLOSE, 5000, 0)->state = sid(&t, "S2");
	st4(&t, 2, ++id, f, V4_LOCKT, 6000, 0)->owner = lkowner(&t, "C2");	/* closed */
	build(&t, 0, &p);

	assert_int_equal(p.skipped[REPLAY_SKIP_STATE], 1);
	assert_int_equal(p.nconns, 2);
	assert_int_equal(p.conns[0].nops, 3);
	assert_int_equal(p.conns[0].ops[2].type, OP_LOCKT);
	assert_int_equal(p.conns[0].ops[2].slot, 1);
	assert_int_equal(p.conns[0].ops[2].sdep, 1);
	assert_int_equal(p.conns[1].nops, 3);
	assert_int_equal(p.conns[1].ops[1].type, OP_LOCKT);
	assert_int_equal(p.conns[1].ops[1].slot, 0);
	assert_int_equal(p.conns[1].ops[1].sdep, 0);
	assert_int_equal(p.conns[1].ops[2].type, OP_CLOSE);
	replay_plan_free(&p);
	trace_free(&t);
}

/*
 * A run that holds no state (libnfs, NFSv3, NFSv4.0: replay_plan_build_as, state false):
 * the state ops as before: an OPEN of a name its OP_OPEN, CLOSE set-up, a LOCK no op.
 */
static void test_state_off(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	struct trace_op *op;
	uint32_t id = 0;
	char err[256] = "";

	(void)state;
	op = st4(&t, 1, ++id, 0, V4_OPEN, 1000, 0);
	op->name = nm(&t, "a"), op->result_state = sid(&t, "A");
	op = st4(&t, 1, ++id, 0, V4_LOCK, 2000, 0);
	op->state = sid(&t, "A"), op->stable = 1, op->owner = lkowner(&t, "OW");
	st4(&t, 1, ++id, 0, V4_CLOSE, 3000, 0)->state = sid(&t, "A");
	assert_int_equal(replay_plan_build_as(&t, 0, false, &p, err, sizeof(err)), 0);

	assert_int_equal(p.ops, 1);
	assert_int_equal(p.open_slots, 0);
	assert_int_equal(p.conns[0].ops[0].type, OP_OPEN);
	assert_false(p.conns[0].ops[0].held);
	assert_int_equal(p.skipped[REPLAY_SKIP_NO_OP], 1);
	assert_int_equal(p.skipped[REPLAY_SKIP_SETUP], 1);
	assert_int_equal(p.skipped[REPLAY_SKIP_STATE], 0);
	replay_plan_free(&p);
	trace_free(&t);
}

/* COMPOUND id of minor version 2: SEQUENCE, PUTFH of f, then op; the op. */
static struct trace_op *v42(struct trace *t, uint32_t id, uint32_t f, uint16_t proc,
			    uint64_t call)
{
	struct trace_op *op;

	v4(t, 1, id, V4_SEQUENCE, call, call + 50, 0)->minor = 2;
	(op = v4(t, 1, id, V4_PUTFH, call, call + 50, 0))->minor = 2;
	op->fh = f;
	(op = v4(t, 1, id, proc, call, call + 50, 0))->minor = 2;
	op->fh = f;
	return op;
}

/*
 * A 4.2 client's operations replayed as the ops of the same names on data files, with
 * engine_req's v4.2 fields: READ_PLUS (cut to max_io), SEEK's what, ALLOCATE and
 * DEALLOCATE's lengths (not cut: no data moves), IO_ADVISE's hints, COPY and CLONE from
 * SAVEFH's file to the current one, the xattr ops' names (one not plain: "x<index>")
 * and SETXATTR's value size; one on the export's root, and an xattr op without a
 * name, are left out.
 */
static void test_v42_ops(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	const struct replay_op *o;
	struct trace_op *op;
	uint32_t a, b, c = 0, odd;

	(void)state;
	a = fh(&t, "A");
	b = fh(&t, "B");
	op = v42(&t, ++c, a, V4_READ_PLUS, 1000);
	op->offset = 32768, op->count = 8192;
	op = v42(&t, ++c, a, V4_SEEK, 2000);
	op->offset = 512, op->what = 1;
	op = v42(&t, ++c, a, V4_ALLOCATE, 3000);
	op->offset = 100, op->count = 200;
	op = v42(&t, ++c, a, V4_DEALLOCATE, 4000);
	op->offset = 300, op->count = 1 << 20;
	op = v42(&t, ++c, a, V4_IO_ADVISE, 5000);
	op->offset = 7, op->count = 9, op->what = 0x20;
	++c;					/* COPY A -> B */
	v4(&t, 1, c, V4_SEQUENCE, 6000, 6050, 0);
	v4(&t, 1, c, V4_PUTFH, 6000, 6050, 0)->fh = a;
	v4(&t, 1, c, V4_SAVEFH, 6000, 6050, 0);
	v4(&t, 1, c, V4_PUTFH, 6000, 6050, 0)->fh = b;
	op = v4(&t, 1, c, V4_COPY, 6000, 6050, 0);
	op->fh = a, op->fh2 = b, op->offset = 16384, op->offset2 = 65536, op->count = 4096;
	++c;					/* CLONE B -> A */
	v4(&t, 1, c, V4_SEQUENCE, 7000, 7050, 0);
	v4(&t, 1, c, V4_PUTFH, 7000, 7050, 0)->fh = b;
	v4(&t, 1, c, V4_SAVEFH, 7000, 7050, 0);
	v4(&t, 1, c, V4_PUTFH, 7000, 7050, 0)->fh = a;
	op = v4(&t, 1, c, V4_CLONE, 7000, 7050, 0);
	op->fh = b, op->fh2 = a, op->offset = 8, op->offset2 = 16, op->count = 32;
	op = v42(&t, ++c, b, V4_SETXATTR, 8000);
	op->name = nm(&t, "nfsload.2"), op->count = 10, op->what = 2;	/* REPLACE */
	op = v42(&t, ++c, b, V4_GETXATTR, 9000);
	op->name = odd = nm(&t, "bad/name");
	v42(&t, ++c, b, V4_LISTXATTRS, 10000)->count = 4096;
	v42(&t, ++c, b, V4_REMOVEXATTR, 11000)->name = nm(&t, "nfsload.2");
	v42(&t, ++c, b, V4_GETXATTR, 11500);	/* no name (an empty one): left out */
	++c;					/* SEEK on the export's root: no data file */
	v4(&t, 1, c, V4_SEQUENCE, 12000, 12050, 0);
	v4(&t, 1, c, V4_PUTROOTFH, 12000, 12050, 0);
	v4(&t, 1, c, V4_SEEK, 12000, 12050, 0);
	build(&t, 4096, &p);

	assert_int_equal(p.trace_ops, 13);
	assert_int_equal(p.ops, 11);
	assert_int_equal(p.skipped[REPLAY_SKIP_NO_OP], 2);
	assert_int_equal(p.nfiles, 2);
	assert_int_equal(p.nconns, 1);
	assert_int_equal(p.conns[0].nfiles, 2);
	assert_int_equal(p.file_size[p.conns[0].files[0]], 32768 + 8192);	/* READ_PLUS's */
	assert_int_equal(p.file_size[p.conns[0].files[1]], 8 + 32);		/* CLONE's source */
	o = p.conns[0].ops;
	assert_int_equal(o[0].type, OP_READ_PLUS);
	assert_int_equal(o[0].range, 0);
	assert_int_equal(o[0].offset, 32768);
	assert_int_equal(o[0].len, 4096);
	assert_int_equal(replay_op_bytes(&o[0]), 4096);
	assert_int_equal(o[1].type, OP_SEEK);
	assert_int_equal(o[1].offset, 512);
	assert_int_equal(o[1].what, 1);
	assert_int_equal(replay_op_bytes(&o[1]), 0);
	assert_int_equal(o[2].type, OP_ALLOCATE);
	assert_int_equal(o[2].offset, 100);
	assert_int_equal(o[2].len, 200);
	assert_int_equal(o[3].type, OP_DEALLOCATE);
	assert_int_equal(o[3].offset, 300);
	assert_int_equal(o[3].len, 1 << 20);
	assert_int_equal(replay_op_bytes(&o[3]), 0);
	assert_int_equal(o[4].type, OP_IO_ADVISE);
	assert_int_equal(o[4].what, 0x20);
	assert_int_equal(o[4].len, 9);
	assert_int_equal(o[5].type, OP_COPY);
	assert_int_equal(o[5].range, 0);
	assert_int_equal(o[5].range2, 1);
	assert_int_equal(o[5].offset, 16384);
	assert_int_equal(o[5].offset2, 65536);
	assert_int_equal(o[5].len, 4096);
	assert_int_equal(o[6].type, OP_CLONE);
	assert_int_equal(o[6].range, 1);
	assert_int_equal(o[6].range2, 0);
	assert_int_equal(o[6].offset, 8);
	assert_int_equal(o[6].offset2, 16);
	assert_int_equal(o[6].len, 32);
	assert_int_equal(o[7].type, OP_SETXATTR);
	assert_int_equal(o[7].range, 1);
	assert_int_equal(o[7].len, 10);
	assert_int_equal(o[7].what, 0);	/* SETXATTR's option is not engine_req.what */
	assert_true(o[7].xname > 0 && o[7].xname < p.nxnames);
	assert_string_equal(p.xnames[o[7].xname], "nfsload.2");
	assert_int_equal(o[8].type, OP_GETXATTR);
	assert_true(o[8].xname > 0 && o[8].xname < p.nxnames);
	{
		char want[32];

		snprintf(want, sizeof(want), "x%u", odd);
		assert_string_equal(p.xnames[o[8].xname], want);
	}
	assert_int_equal(o[9].type, OP_LISTXATTRS);
	assert_int_equal(o[10].type, OP_REMOVEXATTR);
	assert_int_equal(o[10].xname, o[7].xname);
	assert_int_equal(p.nxnames, 3);	/* [0] unused, two names */
	replay_plan_free(&p);
	trace_free(&t);
}

/* (6) Two trace connections: two replay connections, their files and depths. */
static void test_two_conns(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	const struct replay_conn *c1, *c2;
	struct trace_op *op;
	uint32_t root, f1, f2;

	(void)state;
	root = fh(&t, "ROOT");
	f1 = fh(&t, "F1");
	f2 = fh(&t, "F2");
	mnt(&t, 1, 0, root);
	op = v3(&t, 1, P3_LOOKUP, 100, 200, 0);
	op->dir = root, op->name = nm(&t, "f1"), op->result_fh = f1;
	op = v3(&t, 2, P3_LOOKUP, 150, 250, 0);
	op->dir = root, op->name = nm(&t, "f2"), op->result_fh = f2;
	op = v3(&t, 1, P3_READ, 1000, 5000, 0);
	op->fh = f1, op->offset = 0, op->count = 100;
	op = v3(&t, 2, P3_READ, 1500, 1600, 0);
	op->fh = f2, op->offset = 0, op->count = 200;
	op = v3(&t, 1, P3_READ, 2000, 6000, 0);
	op->fh = f1, op->offset = 100, op->count = 100;
	op = v3(&t, 2, P3_READ, 2500, 2600, 0);
	op->fh = f1, op->offset = 1000, op->count = 100;
	op = v3(&t, 1, P3_READ, 3000, 7000, 0);
	op->fh = f1, op->offset = 200, op->count = 100;
	op = v3(&t, 1, P3_READ, 5000, 5500, 0);	/* the first has its reply: still 3 */
	op->fh = f1, op->offset = 300, op->count = 100;
	build(&t, 0, &p);

	assert_int_equal(p.ops, 8);
	assert_int_equal(p.nconns, 2);
	assert_int_equal(p.depth, 3);
	assert_int_equal(p.nfiles, 2);
	assert_int_equal(p.file_size[0], 1100);
	assert_int_equal(p.file_size[1], 200);
	c1 = &p.conns[0];
	c2 = &p.conns[1];
	assert_int_equal(c1->trace_conn, 1);
	assert_int_equal(c2->trace_conn, 2);
	assert_int_equal(c1->depth, 3);
	assert_int_equal(c2->depth, 1);
	assert_int_equal(c1->nops, 5);
	assert_int_equal(c2->nops, 3);
	assert_int_equal(c1->nfiles, 1);
	assert_int_equal(c1->files[0], 0);
	assert_int_equal(c2->nfiles, 2);
	assert_int_equal(c2->files[0], 1);
	assert_int_equal(c2->files[1], 0);
	assert_int_equal(c1->ops[0].at_ns, 0);
	assert_int_equal(c2->ops[0].at_ns, 50);
	for (uint32_t i = 1; i < 5; i++) {
		assert_int_equal(c1->ops[i].type, OP_READ);
		assert_int_equal(c1->ops[i].range, 0);
		assert_int_equal(c1->ops[i].dep, 0);
	}
	assert_int_equal(c1->ops[4].at_ns, 4900);
	assert_int_equal(c1->span_ns, 6900);
	assert_int_equal(c2->ops[1].range, 0);
	assert_int_equal(c2->ops[1].dep, 0);
	assert_int_equal(c2->ops[2].range, 1);
	assert_int_equal(c2->ops[2].dep, REPLAY_NO_DEP);	/* f1 was looked up on the other */
	assert_int_equal(c2->ops[2].offset, 1000);
	assert_int_equal(c2->span_ns, 2500);
	replay_plan_free(&p);
	trace_free(&t);
}

/* Across connections: a name made on one is used on the other after it; a removal waits
 * for the last use on the other; uses do not wait for uses. */
static void test_cross_conns(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	const struct replay_conn *a, *b;
	struct trace_op *op;
	uint32_t root, d, f;

	(void)state;
	root = fh(&t, "ROOT");
	d = fh(&t, "D");
	f = fh(&t, "F");
	mnt(&t, 1, 0, root);
	op = v3(&t, 1, P3_MKDIR, 100, 200, 0);		/* a0: made on 1 */
	op->dir = root, op->name = nm(&t, "d"), op->result_fh = d;
	op = v3(&t, 2, P3_CREATE, 300, 400, 0);		/* b0: in it, on 2 */
	op->dir = d, op->name = nm(&t, "f"), op->result_fh = f, op->stable = 2;
	op = v3(&t, 1, P3_GETATTR, 500, 600, 0);	/* a1: uses f, made on 2 */
	op->fh = f;
	op = v3(&t, 2, P3_GETATTR, 700, 800, 0);	/* b1: a use after a use */
	op->fh = f;
	op = v3(&t, 1, P3_REMOVE, 900, 1000, 0);	/* a2: after b1, the last use on 2 */
	op->dir = d, op->name = nm(&t, "f");
	build(&t, 0, &p);

	assert_int_equal(p.nconns, 2);
	a = &p.conns[0];
	b = &p.conns[1];
	assert_int_equal(a->nops, 3);
	assert_int_equal(b->nops, 2);
	assert_int_equal(a->ops[0].xconn, REPLAY_NO_DEP);
	assert_int_equal(b->ops[0].type, OP_CREATE);
	assert_int_equal(b->ops[0].xconn, 0);		/* the MKDIR of its directory */
	assert_int_equal(b->ops[0].xop, 0);
	assert_int_equal(a->ops[1].xconn, 1);		/* the CREATE */
	assert_int_equal(a->ops[1].xop, 0);
	assert_int_equal(b->ops[1].xconn, 0);		/* still the MKDIR of d (a change) */
	assert_int_equal(b->ops[1].xop, 0);
	assert_int_equal(a->ops[2].type, OP_REMOVE);
	assert_int_equal(a->ops[2].xconn, 1);		/* the GETATTR on 2 */
	assert_int_equal(a->ops[2].xop, 1);
	replay_plan_free(&p);
	trace_free(&t);
}

/* (7) max_io cuts a READ's and a WRITE's length, not a COMMIT's. */
static void test_max_io(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	struct trace_op *op;
	uint32_t root, f;

	(void)state;
	root = fh(&t, "ROOT");
	f = fh(&t, "F");
	mnt(&t, 1, 0, root);
	op = v3(&t, 1, P3_LOOKUP, 100, 200, 0);
	op->dir = root, op->name = nm(&t, "f"), op->result_fh = f;
	op = v3(&t, 1, P3_READ, 300, 400, 0);
	op->fh = f, op->offset = 4096, op->count = 1048576;
	op = v3(&t, 1, P3_WRITE, 500, 600, 0);
	op->fh = f, op->offset = 0, op->count = 200000, op->stable = 0;
	op = v3(&t, 1, P3_COMMIT, 700, 800, 0);
	op->fh = f, op->offset = 0, op->count = 1000000;
	build(&t, 65536, &p);

	assert_int_equal(p.conns[0].nops, 4);
	assert_int_equal(p.conns[0].ops[1].type, OP_READ);
	assert_int_equal(p.conns[0].ops[1].offset, 4096);
	assert_int_equal(p.conns[0].ops[1].len, 65536);
	assert_int_equal(p.conns[0].ops[2].type, OP_WRITE);
	assert_int_equal(p.conns[0].ops[2].len, 65536);
	assert_int_equal(p.conns[0].ops[3].type, OP_COMMIT);
	assert_int_equal(p.conns[0].ops[3].len, 1000000);
	assert_int_equal(p.file_size[0], 4096 + 1048576);	/* what the trace read */
	replay_plan_free(&p);

	build(&t, 0, &p);	/* 0: no cap */
	assert_int_equal(p.conns[0].ops[1].len, 1048576);
	assert_int_equal(p.conns[0].ops[2].len, 200000);
	replay_plan_free(&p);
	trace_free(&t);
}

/* (8) Nothing to replay. */
static void test_only_mount(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	struct trace_op *op;
	char err[256] = "";

	(void)state;
	mnt(&t, 1, 100, fh(&t, "ROOT"));
	op = add_op(&t, 1, 200, 210);	/* UMNT */
	op->version = 3, op->prog = TRACE_MOUNT, op->proc = 3;
	assert_int_equal(replay_plan_build(&t, 0, &p, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "nothing in it to replay (2 calls, none of a kind the engines do)");
	assert_int_equal(p.ops, 0);
	assert_int_equal(p.nconns, 0);
	assert_null(p.conns);
	assert_null(p.paths);
	trace_free(&t);
}

/* (9) What is left out, and why. */
static void test_left_out(void **state)
{
	struct trace t = { 0 };
	struct replay_plan p;
	uint32_t root, l;

	(void)state;
	root = fh(&t, "ROOT");
	l = fh(&t, "LINK");
	mnt(&t, 1, 100, root);
	v3(&t, 1, P3_FSINFO, 200, 210, 0)->fh = root;
	v3(&t, 1, P3_FSSTAT, 300, 310, 0)->fh = root;
	v3(&t, 1, P3_READLINK, 400, 410, 0)->fh = l;
	v3(&t, 1, P3_PATHCONF, 500, 510, 0)->fh = root;
	v3(&t, 1, P3_NULL, 550, 560, 0);
	v3(&t, 1, 22, 580, 590, 0)->fh = root;	/* no such procedure */
	v3(&t, 1, P3_GETATTR, 600, 650, 0)->fh = root;
	build(&t, 0, &p);

	assert_int_equal(p.trace_ops, 8);
	assert_int_equal(p.ops, 1);
	assert_int_equal(p.skipped[REPLAY_SKIP_SETUP], 3);	/* MNT, FSINFO, NULL */
	assert_int_equal(p.skipped[REPLAY_SKIP_NO_OP], 4);	/* FSSTAT, READLINK, PATHCONF, 22 */
	assert_int_equal(p.skipped[REPLAY_SKIP_NAME], 0);
	assert_int_equal(p.conns[0].ops[0].type, OP_GETATTR);
	assert_string_equal(path_of(&p, 0, 0), "");
	assert_int_equal(p.conns[0].ops[0].at_ns, 0);
	assert_int_equal(p.span_ns, 0);
	assert_string_equal(replay_skip_name(REPLAY_SKIP_N), "?");
	replay_plan_free(&p);
	trace_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v3_lookup_read),
		cmocka_unit_test(test_unknown_handle),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_name_collision),
		cmocka_unit_test(test_first_touch),
		cmocka_unit_test(test_exist_first),
		cmocka_unit_test(test_name_under_data_file),
		cmocka_unit_test(test_rename_long_path),
		cmocka_unit_test(test_v4_compounds),
		cmocka_unit_test(test_v42_ops),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_state_shared_file),
		cmocka_unit_test(test_state_off),
		cmocka_unit_test(test_two_conns),
		cmocka_unit_test(test_cross_conns),
		cmocka_unit_test(test_max_io),
		cmocka_unit_test(test_only_mount),
		cmocka_unit_test(test_left_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
