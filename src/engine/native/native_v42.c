/*
 * native_v42: the NFSv4.2 operations on a connection's data files, the
 * requests (after SEQUENCE) and what their replies say (native_v42.h). The
 * bytes are nfs42x's; the COMPOUND around them, the slot and the send are
 * the v4 I/O path's, as for READ and WRITE (native_ops.c).
 *
 * Every operation acts on an open file with its OPEN stateid at seqid 0
 * ("the current stateid of this open", RFC 8881 8.2.2, as READ and WRITE
 * send it). COPY and CLONE name their source by the saved filehandle and
 * their destination by the current one (RFC 7862 15.2.3, 15.13.3).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "native_v42.h"
#include "codec/nfs42x.h"

#define LISTXATTRS_MAXCOUNT 8192	/* a few KiB of names: the engine counts them only */

static struct nfs4_stateid open_sid(const struct nat_file *f)
{
	struct nfs4_stateid sid = f->sid;

	sid.seqid = 0;
	return sid;
}

/* req's operation as an NFSv4 opcode; 0: not a v4.2 one. */
static enum nfs4_opnum v42_opnum(enum op_type op)
{
	switch (op) {
	case OP_READ_PLUS: return OP4_READ_PLUS;
	case OP_SEEK: return OP4_SEEK;
	case OP_ALLOCATE: return OP4_ALLOCATE;
	case OP_DEALLOCATE: return OP4_DEALLOCATE;
	case OP_IO_ADVISE: return OP4_IO_ADVISE;
	case OP_COPY: return OP4_COPY;
	case OP_CLONE: return OP4_CLONE;
	case OP_GETXATTR: return OP4_GETXATTR;
	case OP_SETXATTR: return OP4_SETXATTR;
	case OP_LISTXATTRS: return OP4_LISTXATTRS;
	case OP_REMOVEXATTR: return OP4_REMOVEXATTR;
	default: return 0;
	}
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/*
 * A SETXATTR's value: req->buf's bytes when the caller made them (from the
 * run's seed), else bytes that are a pure function of the file's number, the
 * offset and the name, so that a server's copy can be checked (getfattr).
 */
static void xattr_value(const struct engine_conn *c, const struct engine_req *req, uint8_t *p)
{
	uint64_t s = (uint64_t)c->file_ids[req->file] << 32 ^ req->offset;
	uint32_t i;

	if (req->buf) {
		memcpy(p, req->buf, req->len);
		return;
	}
	for (const char *n = req->xname; *n; n++)
		s = (s ^ (uint8_t)*n) * UINT64_C(0x100000001b3);
	for (i = 0; i + 8 <= req->len; i += 8) {
		uint64_t v = splitmix64(&s);

		memcpy(p + i, &v, 8);
	}
	if (i < req->len) {
		uint64_t v = splitmix64(&s);

		memcpy(p + i, &v, req->len - i);
	}
}

bool nat_v42_enc(struct engine_conn *c, struct nfs4_enc *e, const struct engine_req *req)
{
	const struct nat_file *f, *f2;
	struct nfs4_stateid sid, sid2;
	uint8_t *value;

	if (req->file >= c->nfiles || v42_opnum(req->op) == 0)
		return false;
	f = &c->files[req->file];
	sid = open_sid(f);
	if (req->op == OP_COPY || req->op == OP_CLONE) {
		if (req->file2 >= c->nfiles)
			return false;
		f2 = &c->files[req->file2];
		sid2 = open_sid(f2);
		if (!nfs4_enc_putfh(e, &f->fh) || !nfs4_enc_savefh(e) || !nfs4_enc_putfh(e, &f2->fh))
			return false;
		if (req->op == OP_COPY)
			return nfs42_enc_copy(e, &sid, &sid2, req->offset, req->offset2, req->len,
					      true, true);
		return nfs42_enc_clone(e, &sid, &sid2, req->offset, req->offset2, req->len);
	}
	if (!nfs4_enc_putfh(e, &f->fh))
		return false;
	switch (req->op) {
	case OP_READ_PLUS:
		return nfs42_enc_read_plus(e, &sid, req->offset, req->len);
	case OP_SEEK:
		return nfs42_enc_seek(e, &sid, req->offset, req->what);
	case OP_ALLOCATE:
		return nfs42_enc_allocate(e, &sid, req->offset, req->len);
	case OP_DEALLOCATE:
		return nfs42_enc_deallocate(e, &sid, req->offset, req->len);
	case OP_IO_ADVISE:
		/* No hint asked for: NORMAL, the one that says nothing (an empty bitmap says less). */
		return nfs42_enc_io_advise(e, &sid, req->offset, req->len,
					   req->what ? req->what : 1u << IO_ADVISE4_NORMAL);
	case OP_GETXATTR:
		return nfs42_enc_getxattr(e, req->xname);
	case OP_SETXATTR:
		if (!req->xname)
			return false;
		value = nfs42_enc_setxattr_in_place(e, SETXATTR4_EITHER, req->xname, req->len);
		if (!value)
			return false;
		xattr_value(c, req, value);
		return true;
	case OP_LISTXATTRS:
		return nfs42_enc_listxattrs(e, 0, LISTXATTRS_MAXCOUNT);
	case OP_REMOVEXATTR:
		return nfs42_enc_removexattr(e, req->xname);
	default:
		return false;
	}
}

/*
 * READ_PLUS's bytes where done() finds a READ's: the reply's own bytes when
 * it is all data in one piece from the offset on (no copy, as a READ's);
 * else rebuilt in the thread's buffer, data copied and holes zeroed, so that
 * --verify reads what a READ would have returned.
 */
struct rp_build {
	struct engine_thread *t;
	uint64_t offset;
	const uint8_t *one;	/* the first segment, data from the offset */
	uint64_t one_len;
	uint32_t n;
	bool failed;		/* no buffer: data stays NULL */
};

static bool rp_room(struct rp_build *b, uint64_t end)
{
	struct engine_thread *t = b->t;
	uint8_t *p;

	if (!t || b->failed)
		return false;
	if (t->rebuilt_len < end) {
		if (!(p = realloc(t->rebuilt, end))) {
			b->failed = true;
			return false;
		}
		t->rebuilt = p;
		t->rebuilt_len = end;
	}
	return true;
}

static void rp_put(struct rp_build *b, uint64_t at, uint64_t len, const uint8_t *data)
{
	if (!len || !rp_room(b, at + len))
		return;
	if (data)
		memcpy(b->t->rebuilt + at, data, len);
	else
		memset(b->t->rebuilt + at, 0, len);
}

static int rp_seg(void *arg, const struct nfs42_seg *s)
{
	struct rp_build *b = arg;
	const uint8_t *data = s->type == NFS4_CONTENT_DATA ? s->data : NULL;

	if (b->n++ == 0 && data && s->offset == b->offset) {
		b->one = data;
		b->one_len = s->length;
		return 0;
	}
	if (b->one) {		/* a second segment: the first goes to the buffer too */
		rp_put(b, 0, b->one_len, b->one);
		b->one = NULL;
	}
	rp_put(b, s->offset - b->offset, s->length, data);
	return 0;
}

int nat_v42_dec(struct engine_conn *c, struct engine_req *req, XDR *x, uint32_t cstatus)
{
	enum nfs4_opnum op = v42_opnum(req->op);
	uint32_t st, n, hints;
	union {
		struct nfs42_read_plus_res rp;
		struct nfs42_seek_res seek;
		struct nfs42_copy_res copy;
		struct nfs42_cinfo ci;
	} u;
	struct rp_build rb = { .t = c->t, .offset = req->offset };
	const uint8_t *value;
	uint64_t cookie;
	bool eof;
	int rc;

	req->holes = 0;
	if (op == 0)
		return -EINVAL;
	if ((rc = nfs4_dec_op(x, OP4_PUTFH, &st)) < 0)
		return rc;
	if (req->op == OP_COPY || req->op == OP_CLONE) {
		if (st == NFS4_OK && (rc = nfs4_dec_op(x, OP4_SAVEFH, &st)) < 0)
			return rc;
		if (st == NFS4_OK && (rc = nfs4_dec_op(x, OP4_PUTFH, &st)) < 0)
			return rc;
	}
	if (st == NFS4_OK && (rc = nfs4_dec_op(x, op, &st)) < 0)
		return rc;
	if (st != NFS4_OK || cstatus != NFS4_OK)
		return nfs42_errno(st != NFS4_OK ? st : cstatus);
	switch (req->op) {
	case OP_READ_PLUS:
		rc = nfs42_dec_read_plus(x, req->offset, req->len, &u.rp, rp_seg, &rb);
		if (rc < 0)
			return rc;
		if (u.rp.data + u.rp.holes > INT32_MAX)
			return -EBADMSG;
		req->holes = u.rp.holes;
		if (rb.one)
			req->data = rb.one;	/* all data, in one piece: as a READ's */
		else if (rb.n && !rb.failed && rb.t)
			req->data = rb.t->rebuilt;
		else if (u.rp.data + u.rp.holes)
			return -ENOMEM;	/* bytes done() could not be shown */
		return (int)(u.rp.data + u.rp.holes);	/* <= req->len */
	case OP_SEEK:
		rc = nfs42_dec_seek(x, &u.seek);
		if (rc == 0)
			req->found = u.seek.eof ? UINT64_MAX : u.seek.offset;
		return rc;
	case OP_IO_ADVISE:
		return nfs42_dec_io_advise(x, &hints);
	case OP_COPY:
		return nfs42_dec_copy(x, st, &u.copy);
	case OP_GETXATTR:
		rc = nfs42_dec_getxattr(x, &value, &n);
		return rc < 0 ? rc : n > INT32_MAX ? -EBADMSG : (int)n;
	case OP_SETXATTR:
		return nfs42_dec_setxattr(x, &u.ci);
	case OP_LISTXATTRS:
		rc = nfs42_dec_listxattrs(x, &cookie, &eof, &n, NULL, NULL);
		return rc < 0 ? rc : (int)n;
	case OP_REMOVEXATTR:
		return nfs42_dec_removexattr(x, &u.ci);
	default:	/* ALLOCATE, DEALLOCATE, CLONE: the status says it all */
		return 0;
	}
}
