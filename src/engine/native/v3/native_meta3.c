/*
 * NFSv3 operations on names for the native engine. A request finds its
 * directory's handle in the connection's cache (the export's root from MNT,
 * the work directory from the set-up, what earlier LOOKUPs found) or
 * LOOKUPs each missing name, one call per stage; then the procedure, with
 * a LOOKUP of the name first where the procedure takes the name's own
 * handle (GETATTR, ACCESS, SETATTR, READ, WRITE), as libnfs does it.
 * Creates are GUARDED, mode 0644 (the control connection's UNCHECKED, as
 * it may write a file again); directories 0755; data goes FILE_SYNC.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../native_call.h"
#include "native_meta3.h"
#include "../native_ops.h"

enum s3_stage {
	S3_DIR,			/* LOOKUP of a directory on the way */
	S3_LEAF,		/* LOOKUP of the name, for its handle */
	S3_OP,			/* the procedure, its reply ends the request */
	S3_CREATE,
	S3_CREATE_LOOKUP,	/* CREATE gave no handle */
	S3_READ,
	S3_WRITE,
	S3_READDIR,
};

#define ACCESS3_READ 0x01
#define ACCESS3_RW 0x0d		/* READ | MODIFY | EXTEND: what libnfs asks for R_OK | W_OK */
#define READDIR_DIRCOUNT 8192
#define READDIR_MAXCOUNT 32768
#define NAME_MAX3 255

static void reply3(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);

/* Every call of a request on a name comes back here. */
static const struct nat_handler meta3_handler = { .reply = reply3, .timeout = nat_req_timeout };

static struct nat_call *begin(struct engine_conn *c, XDR *x, uint32_t proc)
{
	return nat_call_start(c, x, NFS_PROGRAM, NFS_V3, proc, NK_META, &meta3_handler);
}

/* Sends the call begun (ok: its arguments fitted), data after them: 1 (sent) or -errno. */
static int send_call(struct engine_conn *c, struct nat_mstate *st, struct nat_call *call, XDR *x,
		bool ok, enum s3_stage stage, const void *data, uint32_t len)
{
	int rc;

	if (!call)
		return -EBUSY;
	if (!ok) {
		xdr_destroy(x);
		nat_call_free(c, call);
		return -ENAMETOOLONG;
	}
	call->req = st->req;
	st->stage = (uint8_t)stage;
	st->xid = call->xid;
	rc = nat_call_send(c, call, x, data, len);
	if (rc < 0)
		st->xid = 0;
	return rc < 0 ? rc : 1;
}

static int err3(int st)
{
	return st < 0 ? st : nfs3_errno((uint32_t)st);
}

static const char *path_of(const struct nat_mstate *st, unsigned which)
{
	return which ? st->path2 : st->path;
}

/* How much of the name is the directory the request starts from. */
static size_t dir_len(const struct nat_mstate *st, unsigned which)
{
	const char *p = path_of(st, which);

	return st->op == OP_READDIR ? strlen(p) : nat_meta_parent_len(p);
}

/* The directory above p[0..k). */
static size_t up(const char *p, size_t k)
{
	while (k > 0 && p[--k] != '/')
		;
	return k;
}

/* The next LOOKUP towards the request's directories: 1 (sent), 0 (all known) or -errno. */
static int resolve(struct engine_conn *c, struct nat_mstate *st)
{
	unsigned ndirs = st->op == OP_RENAME ? 2 : 1;

	for (; st->which < ndirs; st->which++, st->rlen = SIZE_MAX) {
		const char *p = path_of(st, st->which);
		size_t n = dir_len(st, st->which), k = n, end;
		const struct nfs_fh *fh;
		char name[NAME_MAX3 + 1];
		struct nat_call *call;
		bool ok;
		XDR x;

		/* The deepest directory known: cached, or as far as this request got. */
		for (;;) {
			if (st->rlen != SIZE_MAX && k <= st->rlen) {
				fh = &st->dir[st->which];
				k = st->rlen;
				break;
			}
			if ((fh = nat_dcache_get(c, p, k)))
				break;
			if (k == 0)
				return -ESTALE;	/* no root handle: not mounted */
			k = up(p, k);
		}
		st->dir[st->which] = *fh;
		st->rlen = k;
		if (k == n)
			continue;
		end = k + 1 + strcspn(p + k + 1, "/");
		if (end - k - 1 > NAME_MAX3)
			return -ENAMETOOLONG;
		memcpy(name, p + k + 1, end - k - 1);
		name[end - k - 1] = '\0';
		call = begin(c, &x, NFS3_LOOKUP);
		ok = call && nfs3_enc_lookup(&x, &st->dir[st->which], name);
		return send_call(c, st, call, &x, ok, S3_DIR, NULL, 0);
	}
	return 0;
}

static uint32_t chunk(const struct nat_mstate *st, uint32_t max)
{
	uint32_t n = st->len - st->done;

	if (!max || max > META_IO_MAX)
		max = META_IO_MAX;
	return n < max ? n : max;
}

static int read_call(struct engine_conn *c, struct nat_mstate *st)
{
	XDR x;
	struct nat_call *call = begin(c, &x, NFS3_READ);
	bool ok = call && nfs3_enc_read(&x, &st->fh, st->done, chunk(st, c->rtmax));

	return send_call(c, st, call, &x, ok, S3_READ, NULL, 0);
}

static int write_call(struct engine_conn *c, struct nat_mstate *st)
{
	uint32_t n = chunk(st, c->wtmax);
	XDR x;
	struct nat_call *call = begin(c, &x, NFS3_WRITE);
	bool ok = call && nfs3_enc_write(&x, &st->fh, st->done, n, NFS3_FILE_SYNC);

	return send_call(c, st, call, &x, ok, S3_WRITE, st->buf + st->done, n);
}

static int readdir_call(struct engine_conn *c, struct nat_mstate *st)
{
	XDR x;
	struct nat_call *call = begin(c, &x, NFS3_READDIRPLUS);
	bool ok = call && nfs3_enc_readdirplus(&x, &st->fh, st->cookie, st->verf,
					       READDIR_DIRCOUNT, READDIR_MAXCOUNT);

	return send_call(c, st, call, &x, ok, S3_READDIR, NULL, 0);
}

/* The procedure on the name's own handle (st->fh). */
static int file_op(struct engine_conn *c, struct nat_mstate *st)
{
	struct nfs_sattr sa;
	struct nat_call *call;
	bool ok;
	XDR x;

	switch (st->op) {
	case OP_READ:
		return read_call(c, st);
	case OP_WRITE:
		return write_call(c, st);
	case OP_GETATTR:
		call = begin(c, &x, NFS3_GETATTR);
		ok = call && nfs3_enc_fh(&x, &st->fh);
		break;
	case OP_SETATTR:
		nat_meta_sattr(st, &sa);
		call = begin(c, &x, NFS3_SETATTR);
		ok = call && nfs3_enc_setattr(&x, &st->fh, &sa);
		break;
	default:	/* ACCESS; OPEN: libnfs's open checks access the same way */
		call = begin(c, &x, NFS3_ACCESS);
		ok = call && nfs3_enc_access(&x, &st->fh, st->op == OP_OPEN ? ACCESS3_READ :
					     ACCESS3_RW);
		break;
	}
	return send_call(c, st, call, &x, ok, S3_OP, NULL, 0);
}

/* The directories are known: the procedure (or the LOOKUP before it). */
static int name_op(struct engine_conn *c, struct nat_mstate *st)
{
	const struct nfs_fh *dir = &st->dir[0];
	const char *leaf = nat_meta_leaf(st->path);
	enum s3_stage stage = S3_OP;
	const struct nfs_fh *known;
	struct nat_call *call;
	bool ok;
	XDR x;

	switch (st->op) {
	case OP_READDIR:
		st->fh = *dir;
		return readdir_call(c, st);
	case OP_CREATE:
		call = begin(c, &x, NFS3_CREATE);
		ok = call && nfs3_enc_create(&x, dir, leaf, c->meta->ctl || st->unchecked ? NFS3_CREATE_UNCHECKED :
					     NFS3_CREATE_GUARDED, 0644);
		stage = S3_CREATE;
		break;
	case OP_MKDIR:
		call = begin(c, &x, NFS3_MKDIR);
		ok = call && nfs3_enc_mkdir(&x, dir, leaf, 0755);
		break;
	case OP_REMOVE:
	case OP_RMDIR:
		call = begin(c, &x, st->op == OP_REMOVE ? NFS3_REMOVE : NFS3_RMDIR);
		ok = call && nfs3_enc_lookup(&x, dir, leaf);
		break;
	case OP_RENAME:
		call = begin(c, &x, NFS3_RENAME);
		ok = call && nfs3_enc_rename(&x, dir, leaf, &st->dir[1], nat_meta_leaf(st->path2));
		break;
	case OP_LOOKUP:
		call = begin(c, &x, NFS3_LOOKUP);
		ok = call && nfs3_enc_lookup(&x, dir, leaf);
		break;
	default:
		if (!leaf[0]) {		/* the export itself */
			st->fh = *dir;
			return file_op(c, st);
		}
		if ((known = nat_dcache_get(c, st->path, strlen(st->path)))) {
			st->fh = *known;	/* its handle is known: no LOOKUP */
			return file_op(c, st);
		}
		call = begin(c, &x, NFS3_LOOKUP);
		ok = call && nfs3_enc_lookup(&x, dir, leaf);
		stage = S3_LEAF;
		break;
	}
	return send_call(c, st, call, &x, ok, stage, NULL, 0);
}

static int advance(struct engine_conn *c, struct nat_mstate *st)
{
	int rc = resolve(c, st);

	return rc ? rc : name_op(c, st);
}

/* The reply to the last call of a request: 0 or -errno. */
static int op_done(struct engine_conn *c, struct nat_mstate *st, XDR *x)
{
	struct nfs_attr attr = { 0 };
	struct nfs_fh fh;
	uint32_t access;
	bool has_fh;
	int s;

	switch (st->op) {
	case OP_GETATTR:
		if ((s = nfs3_dec_getattr(x, &attr)) == 0)
			c->meta->attr = attr;
		break;
	case OP_LOOKUP:	/* kept: what the name is for, next, needs no LOOKUP */
		if ((s = nfs3_dec_lookup(x, &fh, NULL)) == 0)
			nat_dcache_put(c, st->path, strlen(st->path), &fh);
		break;
	case OP_ACCESS:
	case OP_OPEN:
		s = nfs3_dec_access(x, &access);
		break;
	case OP_MKDIR:
		if ((s = nfs3_dec_create(x, &has_fh, &fh)) == 0 && has_fh)
			nat_dcache_put(c, st->path, strlen(st->path), &fh);
		break;
	default:	/* SETATTR, REMOVE, RMDIR, RENAME */
		s = nfs3_dec_wcc(x);
		break;
	}
	if (s)
		return err3(s);
	if (st->op == OP_REMOVE || st->op == OP_RMDIR || st->op == OP_RENAME)
		nat_dcache_forget(c, st->path);
	if (st->op == OP_RENAME)
		nat_dcache_forget(c, st->path2);
	return 0;
}

/* A reply: 1 (the next call went out), 0 (the request is done) or -errno. */
static int step(struct engine_conn *c, struct nat_mstate *st, XDR *x)
{
	struct nat_listing l = { c, st, 0 };
	struct nfs_attr attr = { 0 };
	enum nfs3_stable committed;
	const uint8_t *data;
	const char *p;
	uint32_t count;
	uint8_t verf[8];
	struct nfs_fh fh;
	bool has_fh, eof;
	size_t end;
	int s;

	switch (st->stage) {
	case S3_DIR:
		if ((s = nfs3_dec_lookup(x, &fh, &attr)))
			return err3(s);
		if (attr.type && attr.type != NFS3_DIR)
			return -ENOTDIR;
		p = path_of(st, st->which);
		end = st->rlen + 1 + strcspn(p + st->rlen + 1, "/");
		nat_dcache_put(c, p, end, &fh);
		st->dir[st->which] = fh;
		st->rlen = end;
		return advance(c, st);
	case S3_LEAF:
		if ((s = nfs3_dec_lookup(x, &st->fh, NULL)))
			return err3(s);
		nat_dcache_put(c, st->path, strlen(st->path), &st->fh);
		return file_op(c, st);
	case S3_CREATE:
		if ((s = nfs3_dec_create(x, &has_fh, &st->fh)))
			return err3(s);
		if (!has_fh) {
			XDR nx;
			struct nat_call *call = begin(c, &nx, NFS3_LOOKUP);
			const char *leaf = nat_meta_leaf(st->path);
			bool ok = call && nfs3_enc_lookup(&nx, &st->dir[0], leaf);

			return send_call(c, st, call, &nx, ok, S3_CREATE_LOOKUP, NULL, 0);
		}
		nat_dcache_put(c, st->path, strlen(st->path), &st->fh);
		return st->len ? write_call(c, st) : 0;
	case S3_CREATE_LOOKUP:
		if ((s = nfs3_dec_lookup(x, &st->fh, NULL)))
			return err3(s);
		return st->len ? write_call(c, st) : 0;
	case S3_READ:
		if ((s = nfs3_dec_read(x, &count, &eof, &data)))
			return err3(s);
		st->done += count;
		if (eof || count == 0 || st->done >= st->len)
			return 0;
		return read_call(c, st);
	case S3_WRITE:
		if ((s = nfs3_dec_write(x, &count, &committed, verf)))
			return err3(s);
		if (count == 0)
			return -EIO;
		st->done += count;
		return st->done < st->len ? write_call(c, st) : 0;
	case S3_READDIR:
		if ((s = err3(nfs3_dec_readdirplus(x, st->verf, &eof, nat_meta_entry, &l))))
			return s;
		if (eof)
			return 0;
		return l.n ? readdir_call(c, st) : -EIO;	/* no entry and no end: stuck */
	default:
		return op_done(c, st, x);
	}
}

int nat_meta3_start(struct engine_conn *c, struct nat_mstate *st)
{
	int rc = advance(c, st);

	return rc < 0 ? rc : 0;
}

int nat_meta3_again(struct engine_conn *c, struct nat_mstate *st)
{
	switch (st->stage) {
	case S3_READ:
		return read_call(c, st);
	case S3_WRITE:
		return write_call(c, st);
	case S3_READDIR:
		return readdir_call(c, st);
	default:	/* a LOOKUP on the way, or the procedure (after its LOOKUP again) */
		return advance(c, st);
	}
}

static void reply3(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	struct nat_mstate *st = nat_meta_owner(c, call);
	int rc = rpc_status;

	if (!st)
		return;
	nat_call_free(c, call);
	st->xid = 0;
	if (rc == 0)
		rc = step(c, st, x);
	if (rc == 1)
		return;
	/* Not after a CREATE that gave no handle: sent again, a GUARDED one would fail. */
	if (rc < 0 && st->stage != S3_CREATE_LOOKUP && nat_meta_later(c, st, rc, st->stage == S3_READDIR))
		return;
	if (rc == -ESTALE || rc == -EBADF)
		nat_dcache_clear(c);	/* a handle we kept may be the stale one */
	if (rc == -EBADMSG)
		nat_set_error(c, "a reply that does not parse (%s on a name)",
			      op_procedure(st->op));
	nat_meta_finish(c, st, rc < 0 ? rc : (int)st->done);
}
