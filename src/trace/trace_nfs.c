/*
 * trace_nfs: NFSv3 (RFC 1813) and MOUNT v3 calls and replies of a capture,
 * decoded as far as a replay needs: the procedure, the handles and name it
 * names, offset/count/stable, and from the reply the status and a new handle.
 * NFSv4 COMPOUNDs are trace_nfs4.c's. Names of procedures and operations.
 */
#include <errno.h>
#include <stdio.h>

#include "trace_int.h"
#include "trace_nfs4.h"

#define FH3_MAX 64
#define NAME_MAX_ 1024

static const char *const nfs3_names[22] = {
	"NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE",
	"CREATE", "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK",
	"READDIR", "READDIRPLUS", "FSSTAT", "FSINFO", "PATHCONF", "COMMIT",
};
static const char *const mnt_names[6] = { "MNT NULL", "MNT", "MNT DUMP", "UMNT", "UMNTALL",
					  "MNT EXPORT" };

const char *trace_op_name(const struct trace_op *op, char *buf, size_t len)
{
	const char *n = NULL;

	if (op->prog == TRACE_MOUNT)
		n = op->proc < 6 ? mnt_names[op->proc] : NULL;
	else if (op->version == 3)
		n = op->proc < 22 ? nfs3_names[op->proc] : NULL;
	else if (op->compound == 0)
		n = op->proc == 0 ? "v4 NULL" : NULL;
	else if (trace_nfs4_name(op->proc)) {
		snprintf(buf, len, "v4 %s", trace_nfs4_name(op->proc));
		return buf;
	}
	if (n)
		return n;
	snprintf(buf, len, "%s %u", op->prog == TRACE_MOUNT ? "MNT" : "NFS", op->proc);
	return buf;
}

static void nfs3_call(struct trace_ctx *c, struct trace_op *op, XDR *x)
{
	struct trace *t = c->t;
	uint32_t v, fh2 = 0;
	uint64_t off;

	switch (op->proc) {
	case 3: case 8: case 9: case 10: case 11: case 12: case 13: case 14:	/* dir, name */
		if (!trace_get_blob(c, x, &t->fhs, FH3_MAX, &op->dir) ||
		    !trace_get_blob(c, x, &t->names, NAME_MAX_, &op->name))
			return;
		if (op->proc == 8 && xdrx_get32(x, &v) && v <= 2)	/* createhow3's mode */
			op->stable = (uint8_t)(v + 1);
		if (op->proc == 14 && trace_get_blob(c, x, &t->fhs, FH3_MAX, &op->dir2))
			trace_get_blob(c, x, &t->names, NAME_MAX_, &op->name2);
		return;
	case 15:	/* LINK: the file, then where its new name goes */
		if (trace_get_blob(c, x, &t->fhs, FH3_MAX, &op->fh) &&
		    trace_get_blob(c, x, &t->fhs, FH3_MAX, &fh2)) {
			op->dir = fh2;
			trace_get_blob(c, x, &t->names, NAME_MAX_, &op->name);
		}
		return;
	case 0:
		return;
	}
	if (op->proc > 21 || !trace_get_blob(c, x, &t->fhs, FH3_MAX, &op->fh))
		return;
	if (op->proc == 6 || op->proc == 7 || op->proc == 21) {	/* READ, WRITE, COMMIT */
		if (!xdrx_get64(x, &off) || !xdrx_get32(x, &op->count))
			return;
		op->offset = off;
		if (op->proc == 7 && xdrx_get32(x, &v))
			op->stable = (uint8_t)v;
	}
}

/* post_op_fh3 (CREATE, MKDIR, SYMLINK, MKNOD) or nfs_fh3 (LOOKUP) first in resok. */
static void nfs3_reply(struct trace_ctx *c, struct trace_op *op, XDR *x)
{
	uint32_t st, follows = 1;

	if (!xdrx_get32(x, &st))
		return;
	op->status = (int32_t)st;
	if (st || (op->proc != 3 && (op->proc < 8 || op->proc > 11)))
		return;
	if (op->proc != 3 && (!xdrx_get32(x, &follows) || follows > 1))
		return;
	if (follows)
		trace_get_blob(c, x, &c->t->fhs, FH3_MAX, &op->result_fh);
}

/* MNT and UMNT carry a path (kept as a name); MNT's reply the export's root handle. */
static void mnt_reply(struct trace_ctx *c, struct trace_op *op, XDR *x)
{
	uint32_t st;

	if (op->proc == 1 && xdrx_get32(x, &st)) {
		op->status = (int32_t)st;
		if (!st)
			trace_get_blob(c, x, &c->t->fhs, FH3_MAX, &op->result_fh);
	} else if (op->proc != 1) {
		op->status = 0;
	}
}

int trace_nfs_call(struct trace_ctx *c, uint32_t conn, uint32_t prog, uint32_t vers,
		   uint32_t proc, XDR *x)
{
	struct trace_op *op;

	if (prog == 100003 && vers == 4)
		return trace_nfs4_call(c, conn, proc, x);
	if (!(prog == 100003 && vers == 3) && !(prog == 100005 && vers == 3)) {
		c->t->left.undecoded++;
		return 0;
	}
	if (!(op = trace_new_op(c, conn)))
		return -ENOMEM;
	op->version = 3;
	op->proc = (uint16_t)proc;
	op->prog = prog == 100005 ? TRACE_MOUNT : TRACE_NFS;
	c->t->versions |= prog == 100005 ? 1u << 7 : 1u;
	if (op->prog == TRACE_NFS)
		nfs3_call(c, op, x);
	else if (proc == 1 || proc == 3)
		trace_get_blob(c, x, &c->t->names, NAME_MAX_, &op->name);
	return 1;
}

void trace_nfs_reply(struct trace_ctx *c, const struct trace_call *call, XDR *x)
{
	struct trace_op *op;

	/* A COMPOUND of no operations has no op at first (and t->ops may still be NULL). */
	if (call->vers == 4) {
		trace_nfs4_reply(c, call, x);
		return;
	}
	op = &c->t->ops[call->first];
	if (call->prog == 100005) {
		mnt_reply(c, op, x);
	} else if (op->proc == 0) {
		op->status = 0;
	} else {
		nfs3_reply(c, op, x);
	}
}
